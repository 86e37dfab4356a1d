package sim_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim"
)

// BenchmarkAvalanche runs the full 2D avalanche (200 concave polygons of
// 448 vertices falling onto a walled floor, 460 steps of 1/60 s) once per
// iteration with each narrow-phase method, on one backend worker.
// Metrics: the batched narrow phase's mean time per step (narrow-ms/step)
// and box2d's (box2d-ms/step), the rays per step, and the deepest contact
// of the run. Compare the methods with `benchstat -col /method`.
func BenchmarkAvalanche(b *testing.B) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var narrowT, box2dT time.Duration
			var rays, steps int
			deepest := 0.0
			for i := 0; i < b.N; i++ {
				be, err := cpubackend.New(narrow.Params{Method: m, ManifoldSize: box2dadapter.ManifoldSize}, cpubackend.WithWorkers(1))
				if err != nil {
					b.Fatal(err)
				}
				tr, err := sim.Run(context.Background(), sim.Avalanche(), sim.Options{Backend: be})
				be.Close()
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range tr.Steps {
					narrowT += s.Narrow
					box2dT += s.Box2D
					rays += s.Rays()
					deepest = max(deepest, s.DepthMax)
					steps++
				}
			}
			b.ReportMetric(float64(narrowT.Microseconds())/1000/float64(steps), "narrow-ms/step")
			b.ReportMetric(float64(box2dT.Microseconds())/1000/float64(steps), "box2d-ms/step")
			b.ReportMetric(float64(rays)/float64(steps), "rays/step")
			b.ReportMetric(deepest, "max-depth")
		})
	}
}

// benchSim builds scene with p on a CPU backend of one worker running
// method (with the adapter's manifold size); done closes both.
func benchSim(b *testing.B, scene sim.Scene2D, p sim.Params2D, method narrow.Method) (s *sim.Sim, done func()) {
	b.Helper()
	be, err := cpubackend.New(narrow.Params{Method: method, ManifoldSize: box2dadapter.ManifoldSize}, cpubackend.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	s, err = sim.New(scene, sim.Options{Params: p, Backend: be})
	if err != nil {
		be.Close()
		b.Fatal(err)
	}
	return s, func() {
		s.Close()
		be.Close()
	}
}

// BenchmarkConvexBaseline runs the 2D avalanche (20 and 50 objects of
// 448 vertices, 260 and 320 steps) and the spawner (40 objects, 480
// steps) with each object one irtcd shape (shapes=irtcd, the predictive
// method on one backend worker) and as box2d users build them without
// irtcd (shapes=convex, Params2D.Convex: box2d's own convex polygons from
// sim.ConvexPieces, one fixture per piece; the spawner's static valley a
// chain loop). Metrics: the whole step's mean time (irtcd's narrow phase
// and box2d's World.Step, step-ms/step), the deepest touching point of
// the run as box2d's solver sees it (world-depth-max, m), touching points
// per step, and the fixtures of the scene's dynamic bodies at the end.
func BenchmarkConvexBaseline(b *testing.B) {
	cases := []struct {
		scene    sim.Scene2D
		n, steps int
	}{
		{sim.Avalanche(), 20, 260},
		{sim.Avalanche(), 50, 320},
		{sim.Spawner(), 40, 480},
	}
	for _, c := range cases {
		for _, convex := range []bool{false, true} {
			shapes := "irtcd"
			if convex {
				shapes = "convex"
			}
			b.Run(fmt.Sprintf("scene=%s/n=%d/shapes=%s", c.scene.Name, c.n, shapes), func(b *testing.B) {
				var total time.Duration
				var steps, points, fixtures int
				deepest := 0.0
				for range b.N {
					s, done := benchSim(b, c.scene, sim.Params2D{N: c.n, Seed: 1, Convex: convex}, narrow.MethodPredictive)
					for range c.steps {
						m, err := s.Step(context.Background())
						if err != nil {
							b.Fatal(err)
						}
						total += m.Narrow + m.Box2D
						points += m.WorldPoints
						deepest = max(deepest, m.WorldDepthMax)
						steps++
					}
					fixtures = 0
					for _, body := range s.Setup.Bodies {
						for f := body.GetFixtureList(); f != nil; f = f.GetNext() {
							fixtures++
						}
					}
					done()
				}
				b.ReportMetric(float64(total.Microseconds())/1000/float64(steps), "step-ms/step")
				b.ReportMetric(deepest, "world-depth-max")
				b.ReportMetric(float64(points)/float64(steps), "points/step")
				b.ReportMetric(float64(fixtures), "fixtures")
			})
		}
	}
}

// BenchmarkAvalancheAsleep runs the 2D avalanche (20, 50 and 100
// objects, the default predictive method and the standard one, one
// backend worker) for up to 1,800 steps (30 s) with seeds 1 to 8 and
// reports how soon box2d puts the whole pile to sleep: the mean step
// after which no body is awake (asleep-step, 1,800 for a pile still awake
// at the end), and how many of the 8 piles fell asleep (asleep-piles).
func BenchmarkAvalancheAsleep(b *testing.B) {
	const asleepSteps = 1800
	for _, n := range []int{20, 50, 100} {
		for _, m := range []narrow.Method{narrow.MethodPredictive, narrow.MethodStandard} {
			b.Run(fmt.Sprintf("n=%d/method=%v", n, m), func(b *testing.B) {
				sum, asleep, runs := 0, 0, 0
				for range b.N {
					for seed := uint64(1); seed <= 8; seed++ {
						s, done := benchSim(b, sim.Avalanche(), sim.Params2D{N: n, Seed: seed}, m)
						at := asleepSteps
						for i := range asleepSteps {
							st, err := s.Step(context.Background())
							if err != nil {
								b.Fatal(err)
							}
							if st.Awake == 0 {
								at = i
								asleep++
								break
							}
						}
						sum += at
						runs++
						done()
					}
				}
				b.ReportMetric(float64(sum)/float64(runs), "asleep-step")
				b.ReportMetric(float64(asleep)/float64(b.N), "asleep-piles")
			})
		}
	}
}

// BenchmarkAvalancheAtRest measures how still a pile of 100 objects of
// the avalanche is once it has landed, with box2d's sleeping off (the
// standard method, one backend worker, seeds 1 to 12, 900 steps): over
// steps 600 to 900, the share of body-steps whose speed is above box2d's
// linear sleep tolerance of 1 cm/s (above-tol-%) and the median speed
// (median-mm/s). box2d's own convex pieces of the same scene
// (Params2D.Convex, seed 1, measured once) rest at a median of 0.01 mm/s
// with none above.
func BenchmarkAvalancheAtRest(b *testing.B) {
	const n, steps, from, seeds = 100, 900, 600, 12
	var speeds []float64
	above := 0
	for range b.N {
		speeds = speeds[:0]
		above = 0
		for seed := uint64(1); seed <= seeds; seed++ {
			s, done := benchSim(b, sim.Avalanche(), sim.Params2D{N: n, Seed: seed}, narrow.MethodStandard)
			s.World.SetAllowSleeping(false)
			for i := range steps {
				if _, err := s.Step(context.Background()); err != nil {
					b.Fatal(err)
				}
				if i < from {
					continue
				}
				for _, st := range s.States() {
					v := st.Speed()
					speeds = append(speeds, v)
					if v > b2.B2_linearSleepTolerance {
						above++
					}
				}
			}
			done()
		}
	}
	slices.Sort(speeds)
	b.ReportMetric(100*float64(above)/float64(len(speeds)), "above-tol-%")
	b.ReportMetric(1000*speeds[len(speeds)/2], "median-mm/s")
}
