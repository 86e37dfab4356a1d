package experiment

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

var (
	toriReplay    = sync.OnceValues(func() (*benchscene.Recorder, error) { return recordDrop(toriScene()) })
	bunniesReplay = sync.OnceValues(func() (*benchscene.Recorder, error) { return recordDrop(bunniesScene()) })
)

// recordDrop simulates sc (the tori or the bunnies, 100 of them, 10 s)
// with prediction on one worker and records the narrow phase's input.
func recordDrop(sc scene3d.Scene) (*benchscene.Recorder, error) {
	be, err := cpubackend.New(narrow.Params{Method: narrow.MethodPredictive}, cpubackend.WithWorkers(1))
	if err != nil {
		return nil, err
	}
	defer be.Close()
	rec := &benchscene.Recorder{Backend: be}
	_, err = scene3d.Run(context.Background(), sc, scene3d.Options{N: toriN, Seed: 1, MeshDir: "../../testdata", Backend: rec, Workers: 1})
	return rec, err
}

// overlapping returns, for each batch of rec and each of its pairs,
// whether the two shapes overlap (narrow.Overlap, exact).
func overlapping(rec *benchscene.Recorder) ([][]bool, error) {
	out := make([][]bool, len(rec.Batches))
	for k, batch := range rec.Batches {
		out[k] = make([]bool, len(batch))
		for i, p := range batch {
			ov, err := narrow.Overlap(rec.Shapes[p.A], rec.Shapes[p.B], p.PoseA, p.PoseB)
			if err != nil {
				return nil, err
			}
			out[k][i] = ov
		}
	}
	return out, nil
}

// BenchmarkEdgeDepthReplay measures what edge-on-edge contacts cost and
// find on smooth meshes, with the default EdgeDepth and shallower ones
// (narrow.Params.EdgeDepth): the 100 tori and the 100 bunnies of Li &
// Yamaguchi's scenes, simulated once with prediction and no edges, are
// replayed through a fresh backend of each variant on one worker, so that
// every variant sees the same pairs at the same poses. Metrics: Detect's
// mean time per step, and the share of the pairs that overlap (by
// narrow.Overlap, computed once, untimed) without a contact. The last
// variant lists nearly every convex edge (EdgeAngle 0.005 rad): the
// bunnies' misses that remain are not those of gently bent edges. The
// "rigid=" variants take sim/rigid's default detection.
func BenchmarkEdgeDepthReplay(b *testing.B) {
	for _, sc := range []struct {
		name string
		rec  func() (*benchscene.Recorder, error)
	}{{"tori", toriReplay}, {"bunnies", bunniesReplay}} {
		rec, err := sc.rec()
		if err != nil {
			b.Fatal(err)
		}
		over, err := overlapping(rec)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range []struct {
			name        string
			angle, size float64 // EdgeAngle, and EdgeDepth as a share of Size (0: the default)
			faces       bool    // EdgeFaces
			spec        bool    // Speculative
		}{{"edges=none", 0, 0, false, false}, {"edges=0.1rad", 0.1, 0, false, false}, {"edges=0.1rad/depth=0.04", 0.1, 0.04, false, false}, {"edges=0.1rad/depth=0.02", 0.1, 0.02, false, false},
			{"edges=0.1rad/depth=0.01", 0.1, 0.01, false, false}, {"edges=0.005rad/depth=0.04", 0.005, 0.04, false, false},
			{"edges=0.1rad/depth=0.04/faces", 0.1, 0.04, true, false}, {"edges=0.005rad/depth=0.04/faces", 0.005, 0.04, true, false},
			// sim/rigid's defaults (rigid.DefaultConfig: speculative contacts,
			// edges bent by more than π/3), without and with edges.
			{"rigid=speculative", 0, 0, false, true}, {"rigid=speculative/edges=pi/3", math.Pi / 3, 0, false, true}} {
			b.Run("scene="+sc.name+"/"+v.name, func(b *testing.B) {
				p := narrow.Params{Method: narrow.MethodPredictive, EdgeAngle: v.angle, EdgeDepth: v.size * toriSize, EdgeFaces: v.faces, Speculative: v.spec}
				var res narrow.Result
				var total time.Duration
				var missed, overlaps int
				for i := 0; i < b.N; i++ {
					be, err := cpubackend.New(p, cpubackend.WithWorkers(1))
					if err != nil {
						b.Fatal(err)
					}
					err = rec.ReplayTimed(context.Background(), be, &res, nil, func(k int, res *narrow.Result, d time.Duration) {
						total += d
						for j := range res.Pairs {
							if over[k][j] {
								overlaps++
								if len(res.Pairs[j].Contacts) == 0 {
									missed++
								}
							}
						}
					})
					be.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(total.Seconds()*1e3/float64(b.N*len(rec.Batches)), "ms/step")
				b.ReportMetric(100*float64(missed)/float64(max(1, overlaps)), "missed-%")
			})
		}
	}
}

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
