package sim_test

import (
	"context"
	"testing"
	"time"

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
