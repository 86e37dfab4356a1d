package plugin

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// overheadScene returns benchscene.Cheap's shapes and frames.
func overheadScene(b *testing.B, n, frames int) ([]*narrow.Shape, [][]narrow.Pair) {
	shapes, out, err := benchscene.Cheap(n, frames)
	if err != nil {
		b.Fatal(err)
	}
	return shapes, out
}

// meshScene returns frames of n pairs of the project's concave meshes
// (bunny, torus, teddy and duck, each of the 16 combinations in turn),
// side by side along x: a quarter of them interpenetrating (centres 0.95
// times the sum of their half-widths apart), the rest just apart (1.05
// times), swaying and turning slightly and periodically over the frames
// as bodies at rest in a pile do.
func meshScene(b *testing.B, n, frames int) ([]*narrow.Shape, [][]narrow.Pair) {
	var shapes []*narrow.Shape
	var half []float64 // half-width along x, about the shape's origin
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		s, err := narrow.LoadOBJ("../testdata/" + name + ".obj")
		if err != nil {
			b.Fatal(err)
		}
		lo, hi := s.Bounds().Min, s.Bounds().Max
		shapes, half = append(shapes, s), append(half, max(-lo[0], hi[0]))
	}
	out := make([][]narrow.Pair, frames)
	for f := range out {
		ph := 2 * math.Pi * float64(f) / float64(frames)
		pairs := make([]narrow.Pair, n)
		for i := range pairs {
			a, c := i%4, (i/4)%4
			gap := 1.05
			if i%4 == 1 {
				gap = 0.95
			}
			d := gap * (half[a] + half[c])
			x, y := 10*float64(i%100), 10*float64(i/100)
			sway := 0.002 * math.Sin(ph+float64(i))
			turn := 0.004 * math.Cos(ph+float64(i))
			pairs[i] = narrow.Pair{ID: uint64(i), A: narrow.ShapeID(a), B: narrow.ShapeID(c),
				PoseA: narrow.Pose{Pos: mgl64.Vec3{x, y, 0}, Rot: mgl64.QuatIdent()},
				PoseB: narrow.Pose{Pos: mgl64.Vec3{x + d + sway, y + sway, 0}, Rot: mgl64.QuatRotate(turn, mgl64.Vec3{0, 1, 0})}}
		}
		out[f] = pairs
	}
	return shapes, out
}

// overheadScenes are the scenes of the overhead benchmarks.
var overheadScenes = []struct {
	name   string
	frames func(*testing.B, int, int) ([]*narrow.Shape, [][]narrow.Pair)
}{{"boxes", overheadScene}, {"meshes", meshScene}}

// warmUp runs every frame a few times (state, buffers, connection), so
// that per-pair buffers have met their largest size and a step allocates
// nothing.
func warmUp(b *testing.B, be narrow.Backend, frames [][]narrow.Pair, res *narrow.Result) {
	for range 4 {
		for _, f := range frames {
			detect(b, be, f, res)
		}
	}
}

// BenchmarkPluginOverhead times one step (Backend.Detect) of the same
// pairs (overheadScenes) in-process and through the plugin binary, at 10,
// 1,000 and 10,000 pairs: the difference is the plugin's overhead per step.
// The plugin runs with its arrays in the shared region and the step rung
// through the region's doorbell (plugin-ring, the default on Linux), with
// one gRPC call per step instead (plugin-shm), and with everything in gRPC
// messages (plugin-grpc). Both backends use their default number of
// workers.
func BenchmarkPluginOverhead(b *testing.B) {
	b.Setenv("IRTCD_PLUGIN_TEST_FAULT_FILE", "") // the plugin as shipped, without the tests' fault injection
	for _, sc := range overheadScenes {
		for _, n := range []int{10, 1000, 10000} {
			shapes, frames := sc.frames(b, n, 16)
			for _, kind := range []string{"inproc", "plugin-ring", "plugin-shm", "plugin-grpc"} {
				b.Run(fmt.Sprintf("scene=%s/pairs=%d/backend=%s", sc.name, n, kind), func(b *testing.B) {
					var be narrow.Backend
					if kind == "inproc" {
						be = newCPU(b, narrow.Params{}, shapes)
					} else {
						opts := []Option{WithSharedMemory(kind != "plugin-grpc")}
						if kind == "plugin-shm" {
							opts = append(opts, withoutRing())
						}
						be = newHost(b, pluginBin, narrow.Params{}, shapes, opts...)
					}
					var res narrow.Result
					warmUp(b, be, frames, &res)
					contacts := 0
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						detect(b, be, frames[i%len(frames)], &res)
						contacts += res.Stats.Contacts
					}
					b.ReportMetric(float64(contacts)/float64(b.N), "contacts/step")
					if h, ok := be.(*Host); ok && (h.FellBack() || h.Restarts() > 0) {
						b.Fatalf("the plugin failed: %d restarts, fell back %v", h.Restarts(), h.FellBack())
					}
				})
			}
		}
	}
}

// BenchmarkPluginOverheadInterleaved measures what BenchmarkPluginOverhead
// does at 10,000 pairs, in a way that a machine whose speed drifts (a busy
// VM) cannot skew: one op runs the 16 frames in-process, then the same
// frames through the plugin (plugin-ring), or the other way round on every
// other op, and times each block but its first two steps (which refill
// the caches the other block used). The metrics are the two backends'
// times per step over all ops and the plugin's overhead in percent.
func BenchmarkPluginOverheadInterleaved(b *testing.B) {
	b.Setenv("IRTCD_PLUGIN_TEST_FAULT_FILE", "")
	const n, untimed = 10000, 2
	for _, sc := range overheadScenes {
		shapes, frames := sc.frames(b, n, 16)
		b.Run(fmt.Sprintf("scene=%s/pairs=%d", sc.name, n), func(b *testing.B) {
			backends := [2]narrow.Backend{newCPU(b, narrow.Params{}, shapes), newHost(b, pluginBin, narrow.Params{}, shapes, WithSharedMemory(true))}
			var res [2]narrow.Result
			var took [2]time.Duration
			for k, be := range backends {
				warmUp(b, be, frames, &res[k])
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for o := range 2 {
					k := (i + o) % 2 // in-process first on even ops
					var t0 time.Time
					for s, f := range frames {
						if s == untimed {
							t0 = time.Now()
						}
						detect(b, backends[k], f, &res[k])
					}
					took[k] += time.Since(t0)
				}
			}
			steps := float64(b.N * (len(frames) - untimed))
			b.ReportMetric(took[0].Seconds()*1e3/steps, "inproc-ms/step")
			b.ReportMetric(took[1].Seconds()*1e3/steps, "plugin-ms/step")
			b.ReportMetric(100*(took[1].Seconds()/took[0].Seconds()-1), "overhead-%")
			b.ReportMetric(0, "ns/op") // an op is two blocks of steps: not a useful figure
			if h := backends[1].(*Host); h.FellBack() || h.Restarts() > 0 {
				b.Fatalf("the plugin failed: %d restarts, fell back %v", h.Restarts(), h.FellBack())
			}
		})
	}
}

// BenchmarkWire times the packing and unpacking of one step of 10,000
// cheap pairs (those of BenchmarkPluginOverhead) on each side, next to the
// step itself in-process.
func BenchmarkWire(b *testing.B) {
	shapes, frames := overheadScene(b, 10000, 2)
	be := newCPU(b, narrow.Params{}, shapes)
	var res narrow.Result
	detect(b, be, frames[0], &res)
	req := request(frames[0])
	b.Run("plugin/decodeRequest", func(b *testing.B) {
		var dst []narrow.Pair
		for i := 0; i < b.N; i++ {
			_, dst, _ = decodeRequest(req, dst)
		}
	})
	hostReq := &pb.DetectRequest{}
	c := detectCall{pairs: frames[0]}
	if err := unmarshalRequest(c.appendRequest(nil), hostReq); err != nil {
		b.Fatal(err)
	}
	b.Run("plugin/decodeRecords-copy", func(b *testing.B) {
		recs := append([]byte{0}, hostReq.Records...)[1:] // unaligned: copied out
		r := &pb.DetectRequest{NumPairs: hostReq.NumPairs, Records: recs}
		var dst []narrow.Pair
		for i := 0; i < b.N; i++ {
			_, dst, _ = decodeRequest(r, dst)
		}
	})
	b.Run("host/encodeRequest", func(b *testing.B) {
		c := detectCall{pairs: frames[0]}
		for i := 0; i < b.N; i++ {
			c.marshal()
		}
	})
	resp := encodeResponse(&res)
	b.Run("plugin/encodeResponse", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			encodeResponse(&res)
		}
	})
	b.Run("plugin/writeResponse", func(b *testing.B) {
		var e responseEncoder
		buf := make([]byte, e.size(&res))
		for i := 0; i < b.N; i++ {
			e.write(buf[:e.size(&res)], &res)
		}
	})
	wire := marshal(b, resp)
	b.Run("host/decodeResponse", func(b *testing.B) {
		var out narrow.Result
		c := detectCall{pairs: frames[0], res: &out}
		for i := 0; i < b.N; i++ {
			if err := c.unmarshal(wire); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("inproc/detect", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			detect(b, be, frames[i%2], &res)
		}
	})
}
