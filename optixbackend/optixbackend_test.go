package optixbackend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// requireGPU makes the tests that need a device fail, rather than skip,
// where none opens (set it on a machine with a GPU).
const requireGPU = "IRTCD_REQUIRE_GPU"

// openGPU returns a backend on the device, closed at the end of the test,
// or skips the test where no device opens (a machine without a GPU, a
// build without cgo), unless requireGPU is set.
func openGPU(t testing.TB, p narrow.Params, opts ...Option) *Backend {
	t.Helper()
	be, err := New(p, opts...)
	if err != nil {
		if !errors.Is(err, ErrNoDevice) {
			t.Fatalf("New: %v, want an error wrapping ErrNoDevice", err)
		}
		if os.Getenv(requireGPU) != "" {
			t.Fatalf("%s is set: %v", requireGPU, err)
		}
		t.Skipf("no CUDA device here: %v", err)
	}
	t.Cleanup(func() { be.Close() })
	return be
}

// TestNew checks New's two outcomes: a backend on a named device, or an
// error wrapping ErrNoDevice that says why; and that bad parameters are
// reported as such before any device is opened.
func TestNew(t *testing.T) {
	if _, err := New(narrow.Params{ManifoldSize: -1}); err == nil || errors.Is(err, ErrNoDevice) {
		t.Errorf("New with a negative manifold size: %v, want a parameter error", err)
	}
	be, err := New(narrow.Params{})
	if err != nil {
		if !errors.Is(err, ErrNoDevice) || len(err.Error()) <= len(ErrNoDevice.Error()) {
			t.Fatalf("New: %q, want ErrNoDevice with its cause", err)
		}
		if os.Getenv(requireGPU) != "" {
			t.Fatalf("%s is set: %v", requireGPU, err)
		}
		t.Logf("no device: %v", err)
		return
	}
	defer be.Close()
	if be.Device() == "" {
		t.Error("an open device without a name")
	}
	t.Logf("device: %s", be.Device())
}

// loadShapes returns the test meshes and a 2D gear-like polygon.
func loadShapes(t testing.TB) []*narrow.Shape {
	t.Helper()
	var out []*narrow.Shape
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		s, err := narrow.LoadOBJ("../testdata/" + name + ".obj")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	// Shapes narrow generates: a cylinder's rims, and a heightfield's flat
	// stretches, whose coplanar triangles tie on their shared edges.
	cyl, err := narrow.NewCylinder(0.5, 0.4, 10)
	if err != nil {
		t.Fatal(err)
	}
	heights := make([][]float64, 9)
	for i := range heights {
		heights[i] = make([]float64, 9)
		for j := range heights[i] {
			if i > 2 && j > 3 {
				heights[i][j] = 0.3 * math.Sin(float64(i+j))
			}
		}
	}
	field, err := narrow.NewHeightfield(heights, 0.25, 0.25, -0.6)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, cyl, field)
	var outline []mgl64.Vec2
	for i := range 40 {
		a, r := 2*math.Pi*float64(i)/40, 1.0
		if i%2 == 1 {
			r = 0.7
		}
		outline = append(outline, mgl64.Vec2{r * math.Cos(a), r * math.Sin(a)})
	}
	gear, err := narrow.NewPolygon(outline)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, gear)
}

// queryBatch returns the standard rays (with their predictive part) of
// every vertex of the test shapes at random overlapping poses, random
// rays through their boxes, and rays through a box's edges and corners,
// where primitives tie, as one batch.
func queryBatch(t *testing.T) *cpubackend.RayBatch {
	t.Helper()
	shapes := loadShapes(t)
	rng := rand.New(rand.NewPCG(3, 9))
	rb := new(cpubackend.RayBatch)
	slot := map[*narrow.Shape]int32{}
	add := func(s *narrow.Shape, q narrow.RayQuery) {
		k, ok := slot[s]
		if !ok {
			k = int32(len(rb.Shapes))
			slot[s] = k
			rb.Shapes = append(rb.Shapes, s)
		}
		rb.Queries, rb.Dst = append(rb.Queries, q), append(rb.Dst, k)
	}
	for i, a := range shapes {
		for _, b := range shapes {
			if (i == len(shapes)-1) != (b == shapes[len(shapes)-1]) {
				continue // 2D with 2D only
			}
			scale := a.Size() + b.Size()
			for range 3 {
				var pa, pb narrow.Pose
				off := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize().Mul(scale * 0.3 * rng.Float64())
				if a.Dim() == narrow.Dim2 {
					pa = narrow.Pose2D(0, 0, 2*math.Pi*rng.Float64())
					pb = narrow.Pose2D(off[0], off[1], 2*math.Pi*rng.Float64())
				} else {
					pa = narrow.Pose{Rot: reference.RandomRotation(rng)}
					pb = narrow.Pose{Pos: off, Rot: reference.RandomRotation(rng)}
				}
				var d narrow.Direction
				d.Setup(narrow.SideA, a, b, pa, pb, 0.1*scale)
				d.Reach = 0.25 * min(a.Size(), b.Size())
				for v := range int32(a.NumVertices()) {
					var q narrow.RayQuery
					if _, trace := d.StandardQuery(&q, v, 0.1*scale, narrow.TraversalBVH); trace {
						add(b, q)
					}
				}
			}
		}
		// Random rays from anywhere in the shape's box, both ways.
		lo, hi := a.Bounds().Min, a.Bounds().Max
		for range 2000 {
			var q narrow.RayQuery
			for k := range 3 {
				q.O[k] = lo[k] + (hi[k]-lo[k])*rng.Float64()
			}
			dir := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			if a.Dim() == narrow.Dim2 {
				q.O[2], dir[2] = 0, 0
			}
			dir = dir.Normalize()
			q.D = dir
			q.TLo, q.TMax, q.Back = -a.TEps(), math.Inf(1), a.Size()
			add(a, q)
		}
	}
	// Rays through a box's edges and corners, where primitives tie.
	box, err := narrow.NewBox(mgl64.Vec3{-1, -2, -0.5}, mgl64.Vec3{1, 2, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for axis := range 3 {
		for _, sign := range []float64{-1, 1} {
			for _, u := range []float64{0, 0.25, 0.5, 1} {
				for _, from := range []float64{3, 0.25} {
					q := narrow.RayQuery{TLo: -box.TEps(), TMax: math.Inf(1), Back: 10}
					a, c := (axis+1)%3, (axis+2)%3
					lo, hi := box.Bounds().Min, box.Bounds().Max
					q.O[a], q.O[c] = lo[a]+u*(hi[a]-lo[a]), lo[c]+u*(hi[c]-lo[c])
					q.O[axis] = -sign * from * (hi[axis] - lo[axis])
					q.D[axis] = sign
					add(box, q)
				}
			}
		}
	}
	return rb
}

// checkTrace traces rb with tr, walking the hierarchies and testing every
// primitive, and checks every hit against narrow.Shape.TraceQuery's, bit
// for bit.
func checkTrace(t *testing.T, tr *tracer, rb *cpubackend.RayBatch, where string) {
	t.Helper()
	n := len(rb.Queries)
	for _, bvh := range []bool{true, false} {
		tr.useBVH = bvh
		rb.Fwd, rb.Bwd = make([]narrow.Hit, n), make([]narrow.Hit, n)
		if err := tr.Trace(context.Background(), rb); err != nil {
			t.Fatal(err)
		}
		bad, fwd, bwd := 0, 0, 0
		for i := range rb.Queries {
			wf, wb := rb.Shapes[rb.Dst[i]].TraceQuery(&rb.Queries[i], narrow.TraversalBVH)
			if rb.Fwd[i] != wf || rb.Bwd[i] != wb {
				if bad++; bad <= 5 {
					t.Errorf("BVH %v, query %d %+v: kernel %+v %+v, TraceQuery %+v %+v", bvh, i, rb.Queries[i], rb.Fwd[i], rb.Bwd[i], wf, wb)
				}
			}
			if wf.Prim >= 0 {
				fwd++
			}
			if wb.Prim >= 0 {
				bwd++
			}
		}
		if bad > 0 {
			t.Fatalf("BVH %v: %d of %d queries differ", bvh, bad, n)
		}
		if fwd == 0 || bwd == 0 {
			t.Fatalf("%d queries with %d forward and %d backward hits: too few to check", n, fwd, bwd)
		}
		tm, rays := tr.last()
		t.Logf("BVH %v: %d queries (%d forward, %d backward hits) equal on %s; device %+v for %d rays", bvh, n, fwd, bwd, where, tm, rays)
	}
}

// TestTraceMatchesTraceQuery traces queryBatch on the device: every hit
// equals narrow.Shape.TraceQuery's bit for bit.
func TestTraceMatchesTraceQuery(t *testing.T) {
	be := openGPU(t, narrow.Params{})
	checkTrace(t, be.tr, queryBatch(t), be.Device())
}

// TestHostKernelMatchesTraceQuery traces queryBatch with the kernel's
// source compiled for the host (package hostkernel): the check of
// TestTraceMatchesTraceQuery on machines without a GPU.
func TestHostKernelMatchesTraceQuery(t *testing.T) {
	checkTrace(t, newTracer([]rayDevice{openHost(t)}, true, slog.Default()), queryBatch(t), "the host")
}

// scripted returns steps × n pairs of the shapes: pair i follows motion
// script i mod 5, placed in the world by its own random rigid map; 3D
// shapes pair with 3D ones, the 2D gear with itself.
func scripted(shapes []*narrow.Shape, ids []narrow.ShapeID, n, steps int, seed uint64) [][]narrow.Pair {
	rng := rand.New(rand.NewPCG(seed, 77))
	scripts := motion.Scripts()
	out := make([][]narrow.Pair, steps)
	for i := range n {
		a, b := rng.IntN(len(shapes)-1), rng.IntN(len(shapes)-1)
		w := narrow.Pose{Pos: mgl64.Vec3{rng.Float64()*20 - 10, rng.Float64()*20 - 10, rng.Float64()*20 - 10}, Rot: reference.RandomRotation(rng)}
		if i%8 == 7 {
			a, b = len(shapes)-1, len(shapes)-1
			w = narrow.Pose2D(rng.Float64()*20-10, rng.Float64()*20-10, 2*math.Pi*rng.Float64())
		}
		script := scripts[i%len(scripts)].New(shapes[a], shapes[b], uint64(i))
		start := rng.IntN(100)
		for k := range steps {
			pa, pb := script(start + k)
			out[k] = append(out[k], narrow.Pair{ID: uint64(100 + 3*i), A: ids[a], B: ids[b], PoseA: move(w, pa), PoseB: move(w, pb)})
		}
	}
	return out
}

// move returns the pose of a body placed by the rigid map w: w ∘ p.
func move(w, p narrow.Pose) narrow.Pose {
	return narrow.Pose{Pos: w.Rot.Rotate(p.Pos).Add(w.Pos), Rot: w.Rot.Mul(p.Rot).Normalize()}
}

// register registers shapes in be, in order.
func register(t testing.TB, be narrow.Backend, shapes []*narrow.Shape) []narrow.ShapeID {
	t.Helper()
	ids := make([]narrow.ShapeID, len(shapes))
	for i, s := range shapes {
		id, err := be.RegisterShape(s)
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	return ids
}

// sameResult reports the first difference between two results (contacts
// and manifold points compared with ==, statistics included), or "".
func sameResult(want, got *narrow.Result) string {
	if len(want.Pairs) != len(got.Pairs) {
		return fmt.Sprintf("%d pairs, want %d", len(got.Pairs), len(want.Pairs))
	}
	if want.Stats != got.Stats {
		return fmt.Sprintf("stats %+v, want %+v", got.Stats, want.Stats)
	}
	for i := range want.Pairs {
		w, g := &want.Pairs[i], &got.Pairs[i]
		if w.ID != g.ID || w.Iterative != g.Iterative || (w.Err == nil) != (g.Err == nil) ||
			len(w.Contacts) != len(g.Contacts) || len(w.Manifolds) != len(g.Manifolds) {
			return fmt.Sprintf("pair %d: %+v, want %+v", w.ID, g, w)
		}
		for k := range w.Contacts {
			if w.Contacts[k] != g.Contacts[k] {
				return fmt.Sprintf("pair %d contact %d: %+v, want %+v", w.ID, k, g.Contacts[k], w.Contacts[k])
			}
		}
		for k := range w.Manifolds {
			wm, gm := &w.Manifolds[k], &g.Manifolds[k]
			if wm.Normal != gm.Normal || len(wm.Points) != len(gm.Points) {
				return fmt.Sprintf("pair %d manifold %d differs", w.ID, k)
			}
			for x := range wm.Points {
				if wm.Points[x] != gm.Points[x] {
					return fmt.Sprintf("pair %d manifold %d point %d: %+v, want %+v", w.ID, k, x, gm.Points[x], wm.Points[x])
				}
			}
		}
	}
	return ""
}

// stepBoth runs one step of pairs on the CPU backend (into want) and on
// gpu (into got) and fails the test unless both Results are the same.
func stepBoth(t *testing.T, label string, cpu, gpu narrow.Backend, pairs []narrow.Pair, want, got *narrow.Result) {
	t.Helper()
	ctx := context.Background()
	if err := cpu.Detect(ctx, pairs, want); err != nil {
		t.Fatalf("%s: CPU: %v", label, err)
	}
	if err := gpu.Detect(ctx, pairs, got); err != nil {
		t.Fatalf("%s: %v", label, err)
	}
	if d := sameResult(want, got); d != "" {
		t.Fatalf("%s: %s", label, d)
	}
}

// TestBackendMatchesCPU runs the same scripted steps of 400 pairs (3D
// meshes and 2D gears) through the GPU backend and the CPU backend, for
// each method, with speculative contacts, and with the papers' culling
// and basic traversal: every step's Result is identical, contacts bit for
// bit. It also drops a shape mid-run (UnregisterShape): the pairs of the
// others go on unchanged.
func TestBackendMatchesCPU(t *testing.T) {
	openGPU(t, narrow.Params{}) // skips without a device
	// Every batch goes to the device, however small.
	matchesCPU(t, func(t *testing.T, p narrow.Params) *Backend { return openGPU(t, p, WithMinBatch(0)) }, 400, 24)
}

// TestMinBatchOption checks the minimum batch New's backend sends to the
// device: MinBatchPerWorker per worker by default, WithMinBatch's
// otherwise (negative counts as 0).
func TestMinBatchOption(t *testing.T) {
	for _, tc := range []struct {
		opts []Option
		want int
	}{
		{nil, MinBatchPerWorker * runtime.GOMAXPROCS(0)},
		{[]Option{WithWorkers(3)}, 3 * MinBatchPerWorker},
		{[]Option{WithWorkers(3), WithMinBatch(0)}, 0},
		{[]Option{WithMinBatch(5000), WithWorkers(3)}, 5000},
		{[]Option{WithMinBatch(-1)}, 0},
	} {
		var c config
		for _, o := range tc.opts {
			o(&c)
		}
		if got := c.minRays(); got != tc.want {
			t.Errorf("%d options: minimum batch %d, want %d", len(tc.opts), got, tc.want)
		}
	}
}

// TestHostKernelMinBatch checks that a backend with a minimum batch
// traces the smaller batches on the CPU's workers and sends only the
// larger ones to the device: every step's Result is the CPU backend's.
func TestHostKernelMinBatch(t *testing.T) {
	shapes := loadShapes(t)
	dev := openHost(t)
	const minRays = 2500
	gpu, cpu := hostAndCPU(t, dev, &config{minBatch: minRays, minSet: true})
	ids := register(t, gpu, shapes)
	register(t, cpu, shapes)
	var want, got narrow.Result
	steps := 0
	for k, pairs := range scripted(shapes, ids, 120, 12, 3) {
		// A growing batch, from a few pairs to all of them.
		pairs = pairs[:min(len(pairs), 2+10*k)]
		stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
		if want.Stats.StandardRays > 0 {
			steps++
		}
	}
	if dev.batches == 0 || dev.batches >= steps || dev.smallest < minRays {
		t.Fatalf("%d steps cast standard rays; the device traced %d batches, the smallest of %d rays (minimum %d)", steps, dev.batches, dev.smallest, minRays)
	}
	t.Logf("%d of %d steps with standard rays went to the device", dev.batches, steps)
}

// TestHostKernelBackendMatchesCPU is TestBackendMatchesCPU with the
// kernel's source compiled for the host (package hostkernel) in place of
// the device, on 100 pairs over 12 steps: the whole backend but the
// driver, checked on machines without a GPU. The batches live in the
// host device's stand-in for page-locked memory (C memory, outside Go's
// heap), as they do on a device.
func TestHostKernelBackendMatchesCPU(t *testing.T) {
	openHost(t) // skips without the host kernel
	matchesCPU(t, func(t *testing.T, p narrow.Params) *Backend {
		// Three workers here, GOMAXPROCS for the CPU backend: the
		// output does not depend on the number.
		dev := openHost(t)
		be, err := newOn(p, []rayDevice{dev}, "the host", &config{cpu: []cpubackend.Option{cpubackend.WithWorkers(3)}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			be.Close()
			// Every batch went through the staging memory, which
			// Close gave back, laid out for one copy each way.
			if dev.rays == 0 || dev.staged != dev.rays || dev.packed != dev.rays || dev.allocs == 0 || len(dev.live) != 0 {
				t.Errorf("%d queries traced, %d of them from the staging memory, %d packed; %d allocations, %d left after Close",
					dev.rays, dev.staged, dev.packed, dev.allocs, len(dev.live))
			}
		})
		return be
	}, 100, 12)
}

// matchesCPU runs steps scripted steps of n pairs through the backends
// that open makes and through the CPU backend (see TestBackendMatchesCPU).
func matchesCPU(t *testing.T, open func(t *testing.T, p narrow.Params) *Backend, n, steps int) {
	shapes := loadShapes(t)
	for _, p := range []narrow.Params{
		{Method: narrow.MethodStandard},
		{Method: narrow.MethodIterative},
		{Method: narrow.MethodPredictive},
		{Method: narrow.MethodPredictive, Speculative: true},
		{Method: narrow.MethodPredictive, Culling: narrow.CullBoxes, Traversal: narrow.TraversalBasic},
	} {
		t.Run(fmt.Sprintf("%v/speculative=%v/%v/%v", p.Method, p.Speculative, p.Culling, p.Traversal), func(t *testing.T) {
			gpu := open(t, p)
			cpu, err := cpubackend.New(p)
			if err != nil {
				t.Fatal(err)
			}
			defer cpu.Close()
			ids := register(t, gpu, shapes)
			register(t, cpu, shapes)
			batch := scripted(shapes, ids, n, steps, 5)
			var want, got narrow.Result
			var sum narrow.Stats
			rays := 0
			for k, pairs := range batch {
				if k == steps/2 {
					// The duck leaves: its pairs leave the batch too.
					for _, be := range []narrow.Backend{gpu, cpu} {
						if err := be.UnregisterShape(ids[3]); err != nil {
							t.Fatal(err)
						}
					}
				}
				if k >= steps/2 {
					var kept []narrow.Pair
					for _, pr := range pairs {
						if pr.A != ids[3] && pr.B != ids[3] {
							kept = append(kept, pr)
						}
					}
					pairs = kept
				}
				stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
				sum.Add(&want.Stats)
				if _, n := gpu.LastDevice(); want.Stats.StandardPairs > 0 {
					rays += n
				}
			}
			if sum.Contacts == 0 || rays == 0 || p.Method != narrow.MethodStandard && sum.IterativePairs == 0 {
				t.Fatalf("the run exercises too little: %+v", sum)
			}
			t.Logf("%d steps equal: %+v", steps, sum)
		})
	}
}

// TestLayout checks that the Go records the kernel reads and writes have
// the layout of their C structs in kernels.cu (prim, query, hit).
func TestLayout(t *testing.T) {
	var h narrow.Hit
	var p narrow.Primitive
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"narrow.Primitive", unsafe.Sizeof(p), 88},
		{"narrow.Primitive.DetEps", unsafe.Offsetof(p.DetEps), 72},
		{"narrow.Primitive.ID", unsafe.Offsetof(p.ID), 80},
		{"narrow.RayQuery", unsafe.Sizeof(narrow.RayQuery{}), 72},
		{"narrow.Hit", unsafe.Sizeof(h), 16},
		{"narrow.Hit.Prim", unsafe.Offsetof(h.Prim), 8},
		{"narrow.Hit.Inside", unsafe.Offsetof(h.Inside), 12},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d bytes, the kernel's struct has %d", c.name, c.got, c.want)
		}
	}
}
