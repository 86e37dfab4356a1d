package scene3d_test

import (
	"context"
	"testing"
	"time"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// BenchmarkAvalanche3D runs a small 3D avalanche (64 bunnies in a 4×4×4
// grid, 323 steps of 1/60 s, until all have landed and settled) once per
// iteration with each narrow-phase method, on one backend worker.
// Metrics: the narrow phase's mean time per step (narrow-ms/step, around
// adapter.Batch.Run) and the world's whole step (step-ms/step: broad
// phase, narrow phase, solver, sleeping), rays and pairs per step, and the
// deepest contact of the run. Compare with `benchstat -col /method`.
func BenchmarkAvalanche3D(b *testing.B) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var narrowT, stepT time.Duration
			var rays, pairs, steps int
			deepest := 0.0
			for i := 0; i < b.N; i++ {
				tr, err := scene3d.Run(context.Background(), scene3d.Avalanche(), scene3d.Options{
					N: 64, Seed: 1, Params: narrow.Params{Method: m}, Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range tr.Steps {
					narrowT += s.Narrow
					stepT += s.Total
					rays += s.Rays()
					pairs += s.Pairs
					deepest = max(deepest, s.DepthMax)
					steps++
				}
			}
			b.ReportMetric(float64(narrowT.Microseconds())/1000/float64(steps), "narrow-ms/step")
			b.ReportMetric(float64(stepT.Microseconds())/1000/float64(steps), "step-ms/step")
			b.ReportMetric(float64(rays)/float64(steps), "rays/step")
			b.ReportMetric(float64(pairs)/float64(steps), "pairs/step")
			b.ReportMetric(deepest, "max-depth")
		})
	}
}
