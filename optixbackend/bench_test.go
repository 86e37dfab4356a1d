package optixbackend

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// BenchmarkStep times one step of 2,000 scripted pairs of the test meshes
// (and 2D gears; see scripted), cycling over 24 frames of their motion,
// on the CPU backend and on the GPU backend in the same process: with the
// standard method (every vertex in the culling volume casts a ray each
// step) and with irtcd's default (iterative and predictive), with each
// traversal. It reports the standard rays per step, the time of the work
// items (narrow.DetectTimes.Rays: culling, rays, contacts; on the GPU
// backend the device's part too) and, for the GPU, the batch
// (narrow.DetectTimes.Batch: the queries copied into one batch and what
// the device's round trip adds once the iterative work items that run
// during it are done) and the device's part, by the device's timers:
// copying the queries up, the kernel, copying the hits back. Backend gpu-pageable is the GPU backend
// with its batches in Go memory rather than page-locked memory (as before
// it had cpubackend.BatchStorage): a baseline in the same process.
func BenchmarkStep(b *testing.B) {
	shapes := loadShapes(b)
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodPredictive} {
		for _, trav := range []narrow.Traversal{narrow.TraversalBVH, narrow.TraversalBasic} {
			p := narrow.Params{Method: m, Traversal: trav}
			for _, backend := range []string{"cpu", "gpu", "gpu-pageable"} {
				b.Run(fmt.Sprintf("method=%v/trav=%v/backend=%s", m, trav, backend), func(b *testing.B) {
					var be narrow.Backend
					var gpu *Backend
					switch backend {
					case "gpu":
						gpu = openGPU(b, p)
						be = gpu
					case "gpu-pageable":
						gpu = openGPU(b, p, withPageable())
						be = gpu
					default:
						cpu, err := cpubackend.New(p)
						if err != nil {
							b.Fatal(err)
						}
						defer cpu.Close()
						be = cpu
					}
					ids := register(b, be, shapes)
					frames := stepFrames(b, shapes, ids)
					var res narrow.Result
					ctx := context.Background()
					// Warm-up: states, buffers at their largest, the
					// device's arrays; but a step of the CPU's basic
					// traversal takes seconds.
					warm := frames
					if backend == "cpu" && trav == narrow.TraversalBasic {
						warm = frames[:2]
					}
					for _, pairs := range warm {
						if err := be.Detect(ctx, pairs, &res); err != nil {
							b.Fatal(err)
						}
					}
					rays := 0
					var work, batch time.Duration
					var dev Times
					b.ResetTimer()
					for i := range b.N {
						if err := be.Detect(ctx, frames[i%len(frames)], &res); err != nil {
							b.Fatal(err)
						}
						rays += res.Stats.StandardRays
						dt := be.(narrow.Timed).LastDetectTimes()
						work += dt.Rays
						batch += dt.Batch
						if gpu != nil && res.Stats.StandardPairs > 0 {
							tm, _ := gpu.LastDevice()
							dev.Upload += tm.Upload
							dev.Kernel += tm.Kernel
							dev.Download += tm.Download
						}
					}
					ms := func(d time.Duration) float64 { return d.Seconds() * 1e3 / float64(b.N) }
					b.ReportMetric(float64(rays)/float64(b.N), "rays/op")
					b.ReportMetric(ms(work), "work-ms/op")
					if gpu != nil {
						b.ReportMetric(ms(batch), "batch-ms/op")
						b.ReportMetric(ms(dev.Upload), "up-ms/op")
						b.ReportMetric(ms(dev.Kernel), "kernel-ms/op")
						b.ReportMetric(ms(dev.Download), "down-ms/op")
					}
				})
			}
		}
	}
}

// benchFrames holds BenchmarkStep's frames, built once per process: the
// motion scripts take seconds to place 2,000 pairs, and every
// sub-benchmark registers the shapes under the same IDs.
var benchFrames struct {
	ids    []narrow.ShapeID
	frames [][]narrow.Pair
}

// stepFrames returns BenchmarkStep's frames for shapes registered under
// ids.
func stepFrames(b *testing.B, shapes []*narrow.Shape, ids []narrow.ShapeID) [][]narrow.Pair {
	b.Helper()
	if benchFrames.frames == nil {
		benchFrames.ids, benchFrames.frames = ids, scripted(shapes, ids, 2000, 24, 9)
	}
	if !slices.Equal(ids, benchFrames.ids) {
		b.Fatalf("shape IDs %v, the frames were built for %v", ids, benchFrames.ids)
	}
	return benchFrames.frames
}

// withPageable keeps the GPU backend's batches in Go memory (see
// tracer.Reserve).
func withPageable() Option { return func(c *config) { c.pageable = true } }
