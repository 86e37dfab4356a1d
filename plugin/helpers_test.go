package plugin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// scene is a sequence of steps over a fixed set of shapes.
type scene struct {
	shapes []*narrow.Shape
	steps  [][]narrow.Pair
}

var (
	meshOnce        sync.Once
	bunny, torus    *narrow.Shape
	meshErr         error
	polygonsOnce    sync.Once
	star, holed, el *narrow.Shape
	polygonErr      error
)

func meshes(t testing.TB) (*narrow.Shape, *narrow.Shape) {
	t.Helper()
	meshOnce.Do(func() {
		if bunny, meshErr = narrow.LoadOBJ("../testdata/bunny.obj"); meshErr != nil {
			return
		}
		torus, meshErr = narrow.LoadOBJ("../testdata/torus.obj")
	})
	if meshErr != nil {
		t.Fatal(meshErr)
	}
	return bunny, torus
}

// polygons returns three concave polygons of size about 1: a star, a
// square ring (a hole) and an L, with vertices along their sides.
func polygons(t testing.TB) (*narrow.Shape, *narrow.Shape, *narrow.Shape) {
	t.Helper()
	polygonsOnce.Do(func() {
		var loop []mgl64.Vec2
		for i := 0; i < 16; i++ {
			r := 0.8
			if i%2 == 1 {
				r = 0.4
			}
			a := 2 * math.Pi * float64(i) / 16
			loop = append(loop, mgl64.Vec2{r * math.Cos(a), r * math.Sin(a)})
		}
		if star, polygonErr = narrow.NewPolygon(subdivide(loop, 0.05)); polygonErr != nil {
			return
		}
		outer := subdivide([]mgl64.Vec2{{-0.7, -0.7}, {0.7, -0.7}, {0.7, 0.7}, {-0.7, 0.7}}, 0.05)
		hole := subdivide([]mgl64.Vec2{{-0.3, -0.3}, {-0.3, 0.3}, {0.3, 0.3}, {0.3, -0.3}}, 0.05)
		if holed, polygonErr = narrow.NewPolygon(outer, hole); polygonErr != nil {
			return
		}
		el, polygonErr = narrow.NewPolygon(subdivide([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 0.4}, {0.4, 0.4}, {0.4, 1}, {0, 1}}, 0.05))
	})
	if polygonErr != nil {
		t.Fatal(polygonErr)
	}
	return star, holed, el
}

// subdivide splits the edges of a closed outline into pieces no longer
// than step.
func subdivide(loop []mgl64.Vec2, step float64) []mgl64.Vec2 {
	var out []mgl64.Vec2
	for i, p := range loop {
		q := loop[(i+1)%len(loop)]
		n := max(1, int(math.Ceil(q.Sub(p).Len()/step)))
		for k := 0; k < n; k++ {
			out = append(out, p.Add(q.Sub(p).Mul(float64(k)/float64(n))))
		}
	}
	return out
}

// body is a moving placement: a start pose, a velocity and a spin.
type body struct {
	pos, vel mgl64.Vec3
	rot      mgl64.Quat
	axis     mgl64.Vec3
	spin     float64
	planar   bool
}

func (b *body) at(step int) narrow.Pose {
	s := float64(step)
	p := b.pos.Add(b.vel.Mul(s))
	if b.planar {
		return narrow.Pose2D(p[0], p[1], b.spin*s+b.axis[0])
	}
	return narrow.Pose{Pos: p, Rot: mgl64.QuatRotate(b.spin*s, b.axis).Mul(b.rot).Normalize()}
}

func randUnit(rng *rand.Rand) mgl64.Vec3 {
	for {
		v := mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		if l := v.Len(); l > 0.1 && l <= 1 {
			return v.Mul(1 / l)
		}
	}
}

// newScene returns nSteps steps of pairs of meshes (bunny, torus) and of
// polygons at seeded random, slowly moving poses that interpenetrate (so
// that standard, iterative and predictive steps all happen and give
// contacts), plus pairs every backend must reject: a NaN pose, a zero
// quaternion, an unknown shape, 2D against 3D, a duplicate ID. Every 7th
// step some bodies jump, forcing standard steps.
func newScene(t testing.TB, seed uint64, nPairs, nSteps int) *scene {
	bun, tor := meshes(t)
	st, ho, l := polygons(t)
	sc := &scene{shapes: []*narrow.Shape{bun, tor, st, ho, l}}
	rng := rand.New(rand.NewPCG(seed, 1))
	type pairSpec struct {
		id   uint64
		a, b narrow.ShapeID
		ba   body
		bb   body
	}
	var specs []pairSpec
	for i := 0; i < nPairs; i++ {
		sp := pairSpec{id: uint64(1000 + 7*i)}
		if i%2 == 0 {
			sp.a, sp.b = narrow.ShapeID(rng.IntN(2)), narrow.ShapeID(rng.IntN(2))
			sa, sb := sc.shapes[sp.a].Size(), sc.shapes[sp.b].Size()
			d := randUnit(rng).Mul((0.45 + 0.3*rng.Float64()) * (sa + sb))
			if sp.a == 1 || sp.b == 1 {
				d = d.Mul(0.5) // the torus is mostly hole
			}
			v := 0.004 * min(sa, sb)
			sp.ba = body{pos: randUnit(rng), vel: randUnit(rng).Mul(v), rot: mgl64.QuatRotate(rng.Float64()*6, randUnit(rng)), axis: randUnit(rng), spin: 0.004}
			sp.bb = body{pos: sp.ba.pos.Add(d), vel: randUnit(rng).Mul(v), rot: mgl64.QuatRotate(rng.Float64()*6, randUnit(rng)), axis: randUnit(rng), spin: -0.003}
		} else {
			sp.a, sp.b = narrow.ShapeID(2+rng.IntN(3)), narrow.ShapeID(2+rng.IntN(3))
			a := rng.Float64() * 2 * math.Pi
			d := mgl64.Vec3{math.Cos(a), math.Sin(a), 0}.Mul(0.4 + 0.4*rng.Float64())
			start := mgl64.Vec3{rng.Float64(), rng.Float64(), 0}
			sp.ba = body{pos: start, vel: mgl64.Vec3{0.003, -0.002, 0}, axis: mgl64.Vec3{rng.Float64() * 6}, spin: 0.003, planar: true}
			sp.bb = body{pos: start.Add(d), vel: mgl64.Vec3{-0.002, 0.003, 0}, axis: mgl64.Vec3{rng.Float64() * 6}, spin: -0.004, planar: true}
		}
		specs = append(specs, sp)
	}
	for s := 0; s < nSteps; s++ {
		pairs := make([]narrow.Pair, 0, nPairs+6)
		for i := range specs {
			sp := &specs[i]
			pa, pb := sp.ba.at(s), sp.bb.at(s)
			if s%7 == 6 && i%3 == 0 {
				pb.Pos = pb.Pos.Add(mgl64.Vec3{0.05, -0.04, 0})
			}
			pairs = append(pairs, narrow.Pair{ID: sp.id, A: sp.a, B: sp.b, PoseA: pa, PoseB: pb})
		}
		nan := narrow.Identity
		nan.Pos[1] = math.NaN()
		zero := narrow.Pose{}
		pairs = append(pairs,
			narrow.Pair{ID: 1, A: 0, B: 1, PoseA: nan, PoseB: narrow.Identity},
			narrow.Pair{ID: 2, A: 2, B: 2, PoseA: narrow.Identity, PoseB: zero},
			narrow.Pair{ID: 3, A: 0, B: 99, PoseA: narrow.Identity, PoseB: narrow.Identity},
			narrow.Pair{ID: 4, A: -3, B: 0, PoseA: narrow.Identity, PoseB: narrow.Identity},
			narrow.Pair{ID: 5, A: 0, B: 2, PoseA: narrow.Identity, PoseB: narrow.Identity},
			pairs[0], // duplicate ID
		)
		sc.steps = append(sc.steps, pairs)
	}
	return sc
}

// newCPU returns an in-process backend with the scene's shapes.
func newCPU(t testing.TB, p narrow.Params, shapes []*narrow.Shape) *cpubackend.Backend {
	t.Helper()
	be, err := cpubackend.New(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	register(t, be, shapes)
	return be
}

func register(t testing.TB, be narrow.Backend, shapes []*narrow.Shape) {
	t.Helper()
	for i, s := range shapes {
		id, err := be.RegisterShape(s)
		if err != nil || int(id) != i {
			t.Fatalf("register shape %d: id %d, %v", i, id, err)
		}
	}
}

// newHost starts the test plugin binary with the scene's shapes.
func newHost(t testing.TB, path string, p narrow.Params, shapes []*narrow.Shape, opts ...Option) *Host {
	t.Helper()
	opts = append([]Option{WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)
	h, err := New(path, p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	register(t, h, shapes)
	return h
}

// detect runs one step and fails the test on a whole-step error.
func detect(t testing.TB, be narrow.Backend, pairs []narrow.Pair, res *narrow.Result) {
	t.Helper()
	if err := be.Detect(context.Background(), pairs, res); err != nil {
		t.Fatalf("%T.Detect: %v", be, err)
	}
}

var sentinels = errorKinds[1:]

// diffResults describes the first difference between two results, bit for
// bit, or returns "".
func diffResults(got, want *narrow.Result) string {
	if got.Stats != want.Stats {
		return fmt.Sprintf("stats %+v, want %+v", got.Stats, want.Stats)
	}
	if len(got.Pairs) != len(want.Pairs) {
		return fmt.Sprintf("%d pairs, want %d", len(got.Pairs), len(want.Pairs))
	}
	for i := range got.Pairs {
		g, w := &got.Pairs[i], &want.Pairs[i]
		if g.ID != w.ID || g.Iterative != w.Iterative {
			return fmt.Sprintf("pair %d: ID %d iterative %v, want %d %v", i, g.ID, g.Iterative, w.ID, w.Iterative)
		}
		if (g.Err == nil) != (w.Err == nil) {
			return fmt.Sprintf("pair %d: error %v, want %v", i, g.Err, w.Err)
		}
		if g.Err != nil {
			if g.Err.Error() != w.Err.Error() {
				return fmt.Sprintf("pair %d: error %q, want %q", i, g.Err, w.Err)
			}
			var gp, wp *narrow.PairError
			if errors.As(g.Err, &gp) != errors.As(w.Err, &wp) || (gp != nil && gp.ID != wp.ID) {
				return fmt.Sprintf("pair %d: PairError %v, want %v", i, gp, wp)
			}
			for _, s := range sentinels {
				if errors.Is(g.Err, s) != errors.Is(w.Err, s) {
					return fmt.Sprintf("pair %d: errors.Is(%v, %v) = %v", i, g.Err, s, errors.Is(g.Err, s))
				}
			}
		}
		if d := diffContacts(g.Contacts, w.Contacts); d != "" {
			return fmt.Sprintf("pair %d: contacts: %s", i, d)
		}
		if len(g.Manifolds) != len(w.Manifolds) {
			return fmt.Sprintf("pair %d: %d manifolds, want %d", i, len(g.Manifolds), len(w.Manifolds))
		}
		for k := range g.Manifolds {
			if !sameVec(g.Manifolds[k].Normal, w.Manifolds[k].Normal) {
				return fmt.Sprintf("pair %d manifold %d: normal %v, want %v", i, k, g.Manifolds[k].Normal, w.Manifolds[k].Normal)
			}
			if d := diffContacts(g.Manifolds[k].Points, w.Manifolds[k].Points); d != "" {
				return fmt.Sprintf("pair %d manifold %d: %s", i, k, d)
			}
		}
	}
	return ""
}

func sameF(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func sameVec(a, b mgl64.Vec3) bool {
	return sameF(a[0], b[0]) && sameF(a[1], b[1]) && sameF(a[2], b[2])
}

func diffContacts(g, w []narrow.Contact) string {
	if len(g) != len(w) {
		return fmt.Sprintf("%d contacts, want %d", len(g), len(w))
	}
	for k := range g {
		a, b := &g[k], &w[k]
		if !sameVec(a.P, b.P) || !sameF(a.Depth, b.Depth) || !sameVec(a.Dir, b.Dir) || a.From != b.From || a.Vertex != b.Vertex || a.Prim != b.Prim {
			return fmt.Sprintf("contact %d: %+v, want %+v", k, *a, *b)
		}
	}
	return ""
}

// syncBuffer is a bytes.Buffer safe for concurrent writes (go-plugin logs
// from its own goroutines).
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testLogger returns a logger that writes text lines at level and above
// to the returned buffer.
func testLogger(level slog.Level) (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: level})), buf
}

// withRegionSize sets the initial size of the shared region.
func withRegionSize(n int) Option { return func(c *hostConfig) { c.regionSize = n } }

// withoutRing makes shared steps DetectShared calls instead of rung ones.
func withoutRing() Option { return func(c *hostConfig) { c.noRing = true } }
