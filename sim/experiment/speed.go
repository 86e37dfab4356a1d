package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/irtcd/irtcd/narrow"
)

// Speed is how fast the machine ran two fixed workloads: one that
// computes (rays traced through a BVH) and one that waits on memory
// (loads that each depend on the last, over a buffer larger than the
// caches). The scene experiments' ratios move with the machine's speed,
// and not alike: an iterative step waits on memory more than a standard
// one computes, so a machine whose memory is slowed (by its neighbours on
// a shared host) lowers the iterative speed-ups. A report gives the speed
// at its start and at its end, so that two reports can be told apart by
// the machine they met (docs/BENCHMARKS.md, "The machine's speed in the
// report").
type Speed struct {
	RaysPerSec float64 // BVH rays (narrow.Shape.Trace) per second on one goroutine
	LoadNS     float64 // nanoseconds per dependent load
	LoadMiB    int     // the loads' buffer, MiB
}

// String gives the speed as the report's header prints it.
func (s Speed) String() string {
	return fmt.Sprintf("%.2f M rays/s, %.0f ns a load", s.RaysPerSec/1e6, s.LoadNS)
}

// speedRounds is how many times each workload runs; the median is kept,
// so that a moment's hiccup does not decide the figure.
const speedRounds = 5

// MeasureSpeed runs the two workloads of Speed on the calling goroutine:
// rays traced through s's BVH (rays in all, over speedRounds rounds) from
// points around its bounding sphere towards points inside it, and loads
// chased through a random cycle over words 32-bit words. The rays and the
// cycle are the same at every call (a fixed seed); each round chases at
// most 2^20 loads. It takes about two seconds with 200,000 rays and 16 Mi
// words (64 MiB) on this repository's machine, and stops early, returning
// ctx's error, when ctx is cancelled.
func MeasureSpeed(ctx context.Context, s *narrow.Shape, rays, words int) (Speed, error) {
	if s == nil || rays < speedRounds || words < 2 {
		return Speed{}, fmt.Errorf("%w: speed probe: a shape, at least %d rays and 2 words", ErrBadConfig, speedRounds)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cx, cy, cz, r := s.BoundingSphere()
	type ray struct{ o, d [3]float64 }
	batch := make([]ray, rays/speedRounds)
	for i := range batch {
		o := unitVector(rng)
		t := unitVector(rng)
		d := [3]float64{0.5*r*t[0] - 1.5*r*o[0], 0.5*r*t[1] - 1.5*r*o[1], 0.5*r*t[2] - 1.5*r*o[2]}
		n := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		batch[i] = ray{
			o: [3]float64{cx + 1.5*r*o[0], cy + 1.5*r*o[1], cz + 1.5*r*o[2]},
			d: [3]float64{d[0] / n, d[1] / n, d[2] / n},
		}
	}
	var sink float64
	perRay := make([]float64, 0, speedRounds)
	for range speedRounds {
		if err := ctx.Err(); err != nil {
			return Speed{}, err
		}
		t0 := time.Now()
		for i := range batch {
			fwd, _ := s.Trace(batch[i].o, batch[i].d, 0, 0, narrow.TraversalBVH)
			sink += fwd.T
		}
		perRay = append(perRay, time.Since(t0).Seconds()/float64(len(batch)))
	}

	// A single cycle through every word (Sattolo's algorithm): each load's
	// address is the word the last one read, so the loads cannot overlap.
	next := make([]uint32, words)
	for i := range next {
		next[i] = uint32(i)
	}
	for i := words - 1; i > 0; i-- {
		j := rng.IntN(i)
		next[i], next[j] = next[j], next[i]
	}
	loads := min(words, 1<<20)
	perLoad := make([]float64, 0, speedRounds)
	at := uint32(0)
	for range speedRounds {
		if err := ctx.Err(); err != nil {
			return Speed{}, err
		}
		t0 := time.Now()
		for range loads {
			at = next[at]
		}
		perLoad = append(perLoad, time.Since(t0).Seconds()/float64(loads))
	}
	if math.IsNaN(sink) || at >= uint32(words) { // keeps both loops' results alive
		return Speed{}, fmt.Errorf("speed probe: impossible result")
	}
	return Speed{
		RaysPerSec: 1 / median(perRay),
		LoadNS:     median(perLoad) * 1e9,
		LoadMiB:    words * 4 >> 20,
	}, nil
}

// unitVector returns a direction drawn uniformly on the unit sphere.
func unitVector(rng *rand.Rand) [3]float64 {
	z := 2*rng.Float64() - 1
	phi := 2 * math.Pi * rng.Float64()
	s := math.Sqrt(1 - z*z)
	return [3]float64{s * math.Cos(phi), s * math.Sin(phi), z}
}
