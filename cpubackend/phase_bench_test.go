package cpubackend_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// phase is a stretch of a scripted motion that stands for one phase of the
// avalanche of Lehericey et al. 2013 (§4.3): steps [warm, warm+steps) are
// timed after steps [0, warm) have built the temporal state.
type phase struct {
	name        string
	script      motion.Generator
	warm, steps int
}

var phases = []phase{
	// A: bodies close enough for the broad phase, no contact yet.
	{"fall", motion.Approach, 10, 60},
	// B: a fast impact and rebound: many standard steps.
	{"impact", motion.Impact, 0, 30},
	// C: resting contact with small jitter.
	{"rest", motion.RestingJitter, 1, 60},
}

// BenchmarkPhase runs each phase on 8 bunny pairs on one core with every
// method and traversal. Names are key=value so that
//
//	benchstat -col /method phase.txt
//
// prints each phase's speed-up of the iterative methods over the standard
// one, measured in the same run. Metrics: see runPhase.
func BenchmarkPhase(b *testing.B) {
	bunny, _ := benchPoses(b)
	for _, ph := range phases {
		for _, trav := range []narrow.Traversal{narrow.TraversalBVH, narrow.TraversalBasic} {
			for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
				name := fmt.Sprintf("phase=%s/traversal=%s/method=%s", ph.name, trav, m)
				b.Run(name, func(b *testing.B) { runPhase(b, bunny, ph, m, trav) })
			}
		}
	}
}

// BenchmarkPhaseOffCentre is BenchmarkPhase (BVH) on 8 pairs of the duck
// as stored in its file, whose origin lies far off the centre of its
// bounding sphere (radius about the origin 1.34, about the centre 0.76,
// at Size 1), in the rest phase and turning about its bounding-box centre
// (motion.Rotation): Eq. 2 evaluated about the centres (package
// iterative) lets such a pair update iteratively longer.
func BenchmarkPhaseOffCentre(b *testing.B) {
	duck := loadMesh(b, "duck")
	for _, ph := range []phase{phases[2], {"rotation", motion.Rotation, 1, 60}} {
		for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
			name := fmt.Sprintf("phase=%s/method=%s", ph.name, m)
			b.Run(name, func(b *testing.B) { runPhase(b, duck, ph, m, narrow.TraversalBVH) })
		}
	}
}

// runPhase times one phase of 8 pairs of shape s with one method and
// traversal on one core. Metrics: µs per pair-step, rays per second (all
// kinds: standard, own-body, predictive, iterative), and the share of
// pair-steps processed with the standard algorithm.
func runPhase(b *testing.B, s *narrow.Shape, ph phase, m narrow.Method, trav narrow.Traversal) {
	const pairs = 8
	be, err := cpubackend.New(narrow.Params{Method: m, Traversal: trav}, cpubackend.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	id, _ := be.RegisterShape(s)
	scripts := make([]motion.Script, pairs)
	for i := range scripts {
		scripts[i] = ph.script(s, s, uint64(i+1))
	}
	// Poses are computed before timing: only Detect is measured.
	batches := make([][]narrow.Pair, ph.warm+ph.steps)
	for k := range batches {
		batches[k] = make([]narrow.Pair, pairs)
		for i, sc := range scripts {
			pa, pb := sc(k)
			batches[k][i] = narrow.Pair{ID: uint64(i + 1), A: id, B: id, PoseA: pa, PoseB: pb}
		}
	}
	step := func(k int, res *narrow.Result) {
		if err := be.Detect(context.Background(), batches[k], res); err != nil {
			b.Fatal(err)
		}
	}
	var res narrow.Result
	rays, std := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		be.Reset()
		for k := 0; k < ph.warm; k++ {
			step(k, &res)
		}
		b.StartTimer()
		for k := ph.warm; k < ph.warm+ph.steps; k++ {
			step(k, &res)
			rays += res.Stats.Rays()
			std += res.Stats.StandardPairs
		}
	}
	b.StopTimer()
	ns := float64(b.Elapsed().Nanoseconds())
	b.ReportMetric(ns/float64(b.N*ph.steps*pairs)/1e3, "µs/pair-step")
	b.ReportMetric(float64(rays)/(ns/1e9), "rays/s")
	b.ReportMetric(100*float64(std)/float64(b.N*ph.steps*pairs), "std-%")
}
