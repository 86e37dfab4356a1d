package predictive_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/predictive"
)

func TestCullingDist(t *testing.T) {
	tests := []struct {
		confidence, threshold, want float64
	}{
		{1, 0.5, 0.5},
		{2, 0.25, 0.5},
		{1.5, 0.125, 0.1875},
		{3, 0, 0},
		{0, 2, 0},
	}
	for _, tc := range tests {
		if got := predictive.CullingDist(tc.confidence, tc.threshold); got != tc.want {
			t.Errorf("CullingDist(%v, %v) = %v, want %v", tc.confidence, tc.threshold, got, tc.want)
		}
	}
}

func TestFromStandard(t *testing.T) {
	const cull = 0.5
	bwd := narrow.Hit{T: -0.2, Prim: 7, Inside: true}
	with := func(f func(*narrow.Outcome)) narrow.Outcome {
		o := narrow.Outcome{Fwd: narrow.Hit{T: 1.5, Prim: 3, Inside: false}, Bwd: bwd}
		f(&o)
		return o
	}
	tests := []struct {
		name string
		out  narrow.Outcome
		prim int32
		ok   bool
	}{
		{"prediction kept", with(func(*narrow.Outcome) {}), 7, true},
		{"no forward hit at all", with(func(o *narrow.Outcome) { o.Fwd = narrow.NoHit }), 7, true},
		{"contact", with(func(o *narrow.Outcome) { o.Contact = true; o.Fwd.Inside = true }), -1, false},
		{"occluded", with(func(o *narrow.Outcome) { o.Occluded = true; o.Fwd.Inside = true }), -1, false},
		{"no backward hit", with(func(o *narrow.Outcome) { o.Bwd = narrow.NoHit }), -1, false},
		{"backward hit not entering", with(func(o *narrow.Outcome) { o.Bwd.Inside = false }), -1, false},
		{"backward hit at cullingDist", with(func(o *narrow.Outcome) { o.Bwd.T = -cull }), 7, true},
		{"backward hit just past cullingDist", with(func(o *narrow.Outcome) { o.Bwd.T = -math.Nextafter(cull, 1) }), -1, false},
		{"backward hit far past cullingDist", with(func(o *narrow.Outcome) { o.Bwd.T = -3 }), -1, false},
		{"backward hit at the origin", with(func(o *narrow.Outcome) { o.Bwd.T = 0 }), 7, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := predictive.FromStandard(tc.out, cull)
			if p != tc.prim || ok != tc.ok {
				t.Errorf("FromStandard(%+v) = (%d, %v), want (%d, %v)", tc.out, p, ok, tc.prim, tc.ok)
			}
		})
	}
}

func TestFromWalk(t *testing.T) {
	const cull = 0.25
	tests := []struct {
		name string
		r    iterative.Result
		prim int32
		ok   bool
	}{
		{"behind, entering, close", iterative.Result{Outcome: iterative.Behind, Prim: 4, T: -0.1, Inside: true}, 4, true},
		{"behind at cullingDist", iterative.Result{Outcome: iterative.Behind, Prim: 4, T: -cull, Inside: true}, 4, true},
		{"behind just past cullingDist", iterative.Result{Outcome: iterative.Behind, Prim: 4, T: -math.Nextafter(cull, 1), Inside: true}, -1, false},
		{"behind, not entering", iterative.Result{Outcome: iterative.Behind, Prim: 4, T: -0.1, Inside: false}, -1, false},
		{"hit", iterative.Result{Outcome: iterative.Hit, Prim: 4, T: 0.1, Inside: true}, -1, false},
		{"lost", iterative.Result{Outcome: iterative.Lost, Prim: 4, T: -0.1, Inside: true}, -1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := predictive.FromWalk(tc.r, cull)
			if p != tc.prim || ok != tc.ok {
				t.Errorf("FromWalk(%+v) = (%d, %v), want (%d, %v)", tc.r, p, ok, tc.prim, tc.ok)
			}
		})
	}
}

// box returns the 12-triangle mesh of the box [lo, hi].
func box(t testing.TB, lo, hi mgl64.Vec3) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFromStandardTrace feeds FromStandard real standard rays: a unit cube
// hovering a gap above a ground box. The rays of its bottom corners go up
// into the cube; their opposite rays reach the ground's top face after
// gap·√3, entering it.
func TestFromStandardTrace(t *testing.T) {
	cube := box(t, mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	ground := box(t, mgl64.Vec3{-3, -2, -4}, mgl64.Vec3{7, 0, 5})
	const gap = 0.05
	pa := narrow.Pose{Pos: mgl64.Vec3{0, 0.5 + gap, 0}, Rot: mgl64.QuatIdent()}
	var dir narrow.Direction
	dir.Setup(narrow.SideA, cube, ground, pa, narrow.Identity, 1)
	topFace := func(p int32) bool { return ground.FaceNormal(int(p)) == mgl64.Vec3{0, 1, 0} }
	tests := []struct {
		name       string
		back, cull float64
		ok         bool
	}{
		{"within cullingDist", 1, gap*math.Sqrt(3) + 1e-9, true},
		{"beyond cullingDist", 1, gap*math.Sqrt(3) - 1e-9, false},
		{"traced no farther than cullingDist", gap*math.Sqrt(3) - 1e-9, 1, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for v := 0; v < cube.NumVertices(); v++ {
				if cube.Vertex(v)[1] > 0 {
					continue
				}
				n++
				out := standard(&dir, int32(v), tc.back, narrow.TraversalBVH)
				if out.Contact || out.Occluded {
					t.Fatalf("vertex %d: %+v, want no contact", v, out)
				}
				p, ok := predictive.FromStandard(out, tc.cull)
				if ok != tc.ok || ok && !topFace(p) {
					t.Errorf("vertex %d: FromStandard(%+v) = (%d, %v), want ok=%v on the top face", v, out, p, ok, tc.ok)
				}
			}
			if n != 4 {
				t.Fatalf("%d bottom corners, want 4", n)
			}
		})
	}
}

// standard runs Direction.Standard and returns its outcome.
func standard(d *narrow.Direction, v int32, back float64, trav narrow.Traversal) narrow.Outcome {
	var out narrow.Outcome
	d.Standard(&out, v, back, trav)
	return out
}
