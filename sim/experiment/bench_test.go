package experiment

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

var toriReplay = sync.OnceValues(func() (*benchscene.Recorder, error) {
	be, err := cpubackend.New(narrow.Params{Method: narrow.MethodPredictive}, cpubackend.WithWorkers(1))
	if err != nil {
		return nil, err
	}
	defer be.Close()
	rec := &benchscene.Recorder{Backend: be}
	_, err = scene3d.Run(context.Background(), toriScene(), scene3d.Options{N: toriN, Seed: 1, MeshDir: "../../testdata", Backend: rec, Workers: 1})
	return rec, err
})

// BenchmarkToriReplay times the narrow phase of the tori experiment (Li &
// Yamaguchi's Table 3) on a fixed input: the pairs and poses of the 100
// tori as simulated once with prediction (10 s, 600 steps), replayed
// through a fresh backend of each method on one worker. The runs of the
// experiment itself diverge as soon as the two methods return different
// contacts; here both see the same steps, so the ratio of the two rows is
// the cost of prediction alone. Metrics: Detect's mean time per step, rays
// per step (all, standard, predictive, iterative), and pairs and pairs
// processed with the standard algorithm per step.
func BenchmarkToriReplay(b *testing.B) {
	rec, err := toriReplay()
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []narrow.Method{narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var res narrow.Result
			var total time.Duration
			var st narrow.Stats
			for i := 0; i < b.N; i++ {
				be, err := cpubackend.New(narrow.Params{Method: m}, cpubackend.WithWorkers(1))
				if err != nil {
					b.Fatal(err)
				}
				err = rec.ReplayTimed(context.Background(), be, &res, nil, func(_ int, res *narrow.Result, d time.Duration) {
					total += d
					st.Add(&res.Stats)
				})
				be.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			steps := float64(b.N * len(rec.Batches))
			b.ReportMetric(total.Seconds()*1e3/steps, "ms/step")
			b.ReportMetric(float64(st.Rays())/steps, "rays/step")
			b.ReportMetric(float64(st.StandardPairs)/steps, "std-pairs/step")
			b.ReportMetric(float64(st.StandardRays)/steps, "std-rays/step")
			b.ReportMetric(float64(st.PredictiveRays)/steps, "pred-rays/step")
			b.ReportMetric(float64(st.IterativeRays)/steps, "it-rays/step")
			b.ReportMetric(float64(st.Pairs)/steps, "pairs/step")
		})
	}
}
