package cpubackend_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// workerScene is a recorded simulation whose narrow-phase input
// BenchmarkWorkers replays.
type workerScene struct {
	name       string
	scene      func() scene3d.Scene
	n, steps   int
	skip, warm int // steps simulated before recording; replayed steps not timed
	rec        *benchscene.Recorder
	err        error
	once       sync.Once
}

// workerScenes are steps of several sizes, simulated with irtcd's
// default method: the tori scene with 40 and 200 objects, the avalanche
// with 16 and 64 bunnies (their falls, impacts and rest) and the end of
// the 512-bunny avalanche at rest (about 6,500 pairs a step).
var workerScenes = []*workerScene{
	{name: "tori40", scene: scene3d.Tori100, n: 40, warm: 10},
	{name: "avalanche16", scene: scene3d.Avalanche, n: 16, warm: 10},
	{name: "tori200", scene: scene3d.Tori100, n: 200, warm: 10},
	{name: "avalanche64", scene: scene3d.Avalanche, n: 64, warm: 10},
	{name: "pile512", scene: scene3d.Avalanche, n: 512, steps: 560, skip: 500, warm: 10},
}

func (s *workerScene) record() (*benchscene.Recorder, error) {
	s.once.Do(func() {
		be, err := cpubackend.New(narrow.Params{})
		if err != nil {
			s.err = err
			return
		}
		defer be.Close()
		s.rec = &benchscene.Recorder{Backend: be, Skip: s.skip}
		_, s.err = scene3d.Run(context.Background(), s.scene(), scene3d.Options{
			N: s.n, Seed: 1, MeshDir: "../testdata", Backend: s.rec, Steps: s.steps})
	})
	return s.rec, s.err
}

// BenchmarkWorkers times the narrow phase of recorded scenes of different
// sizes (workerScenes) replayed through a fresh backend with 1, 2, 4, ...
// workers up to GOMAXPROCS, each step waking every helper (wake=all, as
// before the backend counted what a step needs), and with GOMAXPROCS
// workers of which a step wakes those it needs (wake=need, the default).
// Metrics per timed step: Detect's mean time, pairs, the vertices and
// rays of its work items, and its work items.
func BenchmarkWorkers(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	type variant struct {
		workers int
		wake    string
	}
	var variants []variant
	for w := 1; w < procs; w *= 2 {
		variants = append(variants, variant{w, "all"})
	}
	variants = append(variants, variant{procs, "all"}, variant{procs, "need"})
	for _, sc := range workerScenes {
		for _, v := range variants {
			b.Run(fmt.Sprintf("scene=%s/workers=%d/wake=%s", sc.name, v.workers, v.wake), func(b *testing.B) {
				rec, err := sc.record()
				if err != nil {
					b.Fatal(err)
				}
				var total time.Duration
				pairs, items, tasks, timed := 0, 0, 0, 0
				var res narrow.Result
				for i := 0; i < b.N; i++ {
					opts := []cpubackend.Option{cpubackend.WithWorkers(v.workers)}
					if v.wake == "all" {
						opts = append(opts, cpubackend.WithWakeAll())
					}
					be, err := cpubackend.New(narrow.Params{}, opts...)
					if err != nil {
						b.Fatal(err)
					}
					err = rec.ReplayTimed(context.Background(), be, &res, nil, func(k int, res *narrow.Result, d time.Duration) {
						if k < sc.warm {
							return
						}
						total += d
						pairs += res.Stats.Pairs
						ni, nt := be.LastItems()
						items += ni
						tasks += nt
						timed++
					})
					be.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(total.Seconds()*1e3/float64(timed), "ms/step")
				b.ReportMetric(float64(pairs)/float64(timed), "pairs/step")
				b.ReportMetric(float64(items)/float64(timed), "items/step")
				b.ReportMetric(float64(tasks)/float64(timed), "tasks/step")
			})
		}
	}
}
