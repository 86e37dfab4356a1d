package iterative_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
)

// gridBox builds the closed surface of the box [lo, hi] with every face
// cut into n×n cells of two triangles each, counter-clockwise from outside.
func gridBox(t testing.TB, lo, hi mgl64.Vec3, n int) *narrow.Shape {
	t.Helper()
	index := map[[3]int]int{}
	var verts []mgl64.Vec3
	vertex := func(l [3]int) int {
		if i, ok := index[l]; ok {
			return i
		}
		var p mgl64.Vec3
		for k := 0; k < 3; k++ {
			p[k] = lo[k] + (hi[k]-lo[k])*float64(l[k])/float64(n)
		}
		index[l] = len(verts)
		verts = append(verts, p)
		return index[l]
	}
	var tris [][3]int
	for a := 0; a < 3; a++ {
		b, c := (a+1)%3, (a+2)%3 // e_b × e_c = e_a
		for _, side := range []int{0, n} {
			for p := 0; p < n; p++ {
				for q := 0; q < n; q++ {
					at := func(dp, dq int) int {
						var l [3]int
						l[a], l[b], l[c] = side, p+dp, q+dq
						return vertex(l)
					}
					v00, v10, v11, v01 := at(0, 0), at(1, 0), at(1, 1), at(0, 1)
					if side == n { // outward +a: v00 v10 v11 v01 is counter-clockwise
						tris = append(tris, [3]int{v00, v10, v11}, [3]int{v00, v11, v01})
					} else {
						tris = append(tris, [3]int{v00, v11, v10}, [3]int{v00, v01, v11})
					}
				}
			}
		}
	}
	s, err := narrow.NewMesh(verts, tris)
	if err != nil {
		t.Fatalf("NewMesh: %v", err)
	}
	return s
}

// ringsOnFace returns, for k = 0..maxK, the primitives at edge distance k
// from prim among those whose face normal is normal.
func ringsOnFace(s *narrow.Shape, prim int32, normal mgl64.Vec3, maxK int) [][]int32 {
	dist := map[int32]int{prim: 0}
	rings := [][]int32{{prim}}
	for k := 1; k <= maxK; k++ {
		var ring []int32
		for _, p := range rings[k-1] {
			for e := 0; e < 3; e++ {
				q := int32(s.Adjacent(int(p), e))
				if q < 0 {
					continue
				}
				if _, seen := dist[q]; seen {
					continue
				}
				if s.FaceNormal(int(q)).Sub(normal).Len() > 1e-12 {
					continue
				}
				dist[q] = k
				ring = append(ring, q)
			}
		}
		rings = append(rings, ring)
	}
	return rings
}

// regionPath lists the primitives visited from prim by the closest-edge rule
// of Algorithm 2 (u<0 → edge 0, else v<0 → edge 1, else u+v>1 → edge 2),
// stopping on the first primitive whose region is the inside one.
func regionPath(s *narrow.Shape, prim int32, o, d [3]float64, limit int) []int32 {
	var path []int32
	for len(path) < limit {
		path = append(path, prim)
		_, u, v, _, ok := s.Barycentric(prim, &o, &d)
		if !ok {
			return path
		}
		edge := -1
		switch {
		case u < -narrow.BaryEps:
			edge = 0
		case v < -narrow.BaryEps:
			edge = 1
		case u+v > 1+narrow.BaryEps:
			edge = 2
		}
		if edge < 0 {
			return path
		}
		prim = int32(s.Adjacent(int(prim), edge))
		if prim < 0 {
			return path
		}
	}
	return path
}

func TestMaxIt(t *testing.T) {
	tests := []struct {
		name                 string
		confidence, thr, avg float64
		want                 int
	}{
		{"exact quotient", 3, 0.5, 0.25, 6},
		{"exactly one", 1, 1, 1, 1},
		{"large", 4, 2, 0.125, 64},
		{"rounds up a half", 2.5, 1, 1, 3},
		{"rounds up a small excess", 1, 1.0625, 0.5, 3}, // 2.125
		{"below one gives one", 1, 0.1, 1, 1},
		{"tiny quotient gives one", 1, 1e-9, 1, 1},
		{"zero confidence gives one", 0, 1, 1, 1},
		{"negative confidence gives one", -2, 1, 1, 1},
		{"zero threshold gives one", 1, 0, 1, 1},
		{"zero size gives one", 2, 1, 0, 1},
		{"negative size gives one", 2, 1, -0.5, 1},
		{"NaN size gives one", 2, 1, math.NaN(), 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := iterative.MaxIt(tc.confidence, tc.thr, tc.avg); got != tc.want {
				t.Errorf("MaxIt(%v, %v, %v) = %d, want %d", tc.confidence, tc.thr, tc.avg, got, tc.want)
			}
		})
	}
}

func TestDisplacement(t *testing.T) {
	z := mgl64.Vec3{0, 0, 1}
	axis := mgl64.Vec3{1, 2, -2}.Normalize()
	q := mgl64.QuatRotate(0.4, axis)
	tests := []struct {
		name    string
		ni, now narrow.Pose
		radius  float64
		want    float64
	}{
		{"no motion", narrow.Pose{Pos: mgl64.Vec3{1, 2, 3}, Rot: q}, narrow.Pose{Pos: mgl64.Vec3{1, 2, 3}, Rot: q}, 5, 0},
		{"pure translation", narrow.Identity, narrow.Pose{Pos: mgl64.Vec3{3, 4, 0}, Rot: mgl64.QuatIdent()}, 7, 5},
		{"pure translation, rotated pose", narrow.Pose{Pos: mgl64.Vec3{1, 1, 1}, Rot: q}, narrow.Pose{Pos: mgl64.Vec3{1, 1, 3}, Rot: q}, 3, 2},
		{"pure rotation about z", narrow.Identity, narrow.Pose{Rot: mgl64.QuatRotate(0.3, z)}, 2, 0.6},
		{"pure rotation from a rotated pose", narrow.Pose{Rot: mgl64.QuatRotate(0.2, axis)}, narrow.Pose{Rot: mgl64.QuatRotate(0.7, axis)}, 4, 0.5 * 4},
		{"rotation past pi takes the short way", narrow.Identity, narrow.Pose{Rot: mgl64.QuatRotate(1.5*math.Pi, z)}, 1, math.Pi / 2},
		{"rotation with zero radius", narrow.Identity, narrow.Pose{Rot: mgl64.QuatRotate(0.3, z)}, 0, 0},
		{"translation and rotation", narrow.Identity, narrow.Pose{Pos: mgl64.Vec3{0, 0, 0.5}, Rot: mgl64.QuatRotate(0.25, z)}, 4, 0.5 + 0.25*4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := iterative.Displacement(tc.ni, tc.now, tc.radius)
			if math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("Displacement = %.17g, want %.17g", got, tc.want)
			}
		})
	}
}

// walkBox is a 4×2×4 box cut into unit cells; its top face is y = 1.
func walkBox(t testing.TB) *narrow.Shape {
	return gridBox(t, mgl64.Vec3{-2, -1, -2}, mgl64.Vec3{2, 1, 2}, 4)
}

func TestWalkReachesTraceHit(t *testing.T) {
	s := walkBox(t)
	up := mgl64.Vec3{0, 1, 0}
	tests := []struct {
		name string
		o, d [3]float64
	}{
		{"vertical ray", [3]float64{0.3, 0.5, 0.36}, [3]float64{0, 1, 0}},
		{"vertical ray, other cell", [3]float64{-1.2, -0.5, 0.71}, [3]float64{0, 1, 0}},
		{"tilted ray", [3]float64{0.55, 0.2, -0.3}, mgl64.Vec3{0.25, 1, -0.15}.Normalize()},
		{"steep tilted ray", [3]float64{-0.4, 0.7, 0.9}, mgl64.Vec3{-0.6, 1, 0.35}.Normalize()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fwd, _ := s.Trace(tc.o, tc.d, -s.TEps(), 0, narrow.TraversalBVH)
			if fwd.Prim < 0 || !fwd.Inside || s.FaceNormal(int(fwd.Prim)) != up {
				t.Fatalf("standard trace: %+v, want an inside hit on the top face", fwd)
			}
			if basic, _ := s.Trace(tc.o, tc.d, -s.TEps(), 0, narrow.TraversalBasic); basic != fwd {
				t.Fatalf("basic trace %+v differs from BVH trace %+v", basic, fwd)
			}
			rings := ringsOnFace(s, fwd.Prim, up, 3)
			for k, ring := range rings {
				if len(ring) == 0 {
					t.Fatalf("no primitive at distance %d", k)
				}
				for _, start := range ring {
					r := walk(s, start, &tc.o, &tc.d, 20)
					if r.Outcome != iterative.Hit || r.Prim != fwd.Prim || !r.Inside {
						t.Errorf("distance %d, start %d: %+v, want Hit on %d", k, start, r, fwd.Prim)
						continue
					}
					if math.Abs(r.T-fwd.T) > 1e-12 {
						t.Errorf("distance %d, start %d: T = %.17g, trace T = %.17g", k, start, r.T, fwd.T)
					}
					if k == 0 && r.Steps != 1 {
						t.Errorf("start on the hit primitive: Steps = %d, want 1", r.Steps)
					}
					if r.Steps < k+1 || r.Steps > 2*k+1 {
						t.Errorf("distance %d, start %d: Steps = %d, want between %d and %d", k, start, r.Steps, k+1, 2*k+1)
					}
					// The walk follows Algorithm 2's region order: cut short
					// after m steps it stands on the m-th primitive of the path.
					path := regionPath(s, start, tc.o, tc.d, 20)
					if len(path) != r.Steps || path[len(path)-1] != fwd.Prim {
						t.Errorf("distance %d, start %d: region path %v, walk took %d steps", k, start, path, r.Steps)
						continue
					}
					for m := 1; m < len(path); m++ {
						cut := walk(s, start, &tc.o, &tc.d, m)
						if cut.Outcome != iterative.Lost || cut.Steps != m || cut.Prim != path[m-1] {
							t.Errorf("distance %d, start %d, maxIt %d: %+v, want Lost on %d after %d steps", k, start, m, cut, path[m-1], m)
						}
					}
				}
			}
		})
	}
}

// TestWalkRegionOrder checks the first step from a primitive next to the hit
// against the region rule, computed by hand from the barycentric coordinates.
func TestWalkRegionOrder(t *testing.T) {
	s := walkBox(t)
	o, d := [3]float64{0.3, 0.5, 0.36}, [3]float64{0, 1, 0}
	fwd, _ := s.Trace(o, d, -s.TEps(), 0, narrow.TraversalBVH)
	seen := [3]bool{}
	for _, start := range ringsOnFace(s, fwd.Prim, mgl64.Vec3{0, 1, 0}, 2)[1:] {
		for _, p := range start {
			_, u, v, _, ok := s.Barycentric(p, &o, &d)
			if !ok {
				t.Fatalf("prim %d parallel to a vertical ray", p)
			}
			var edge int
			switch {
			case u < 0:
				edge = 0
			case v < 0:
				edge = 1
			case u+v > 1:
				edge = 2
			default:
				t.Fatalf("prim %d contains the crossing (u=%g v=%g)", p, u, v)
			}
			seen[edge] = true
			r := walk(s, p, &o, &d, 2)
			if want := int32(s.Adjacent(int(p), edge)); r.Prim != want || r.Steps != 2 {
				t.Errorf("from %d (u=%g v=%g): second primitive %d after %d steps, want Adjacent(%d, %d) = %d", p, u, v, r.Prim, r.Steps, p, edge, want)
			}
		}
	}
	for e, ok := range seen {
		if !ok {
			t.Errorf("no start exercised edge %d", e)
		}
	}
}

func TestWalkOutcomes(t *testing.T) {
	s := walkBox(t)
	up := mgl64.Vec3{0, 1, 0}
	above := [3]float64{0.3, 1.5, 0.36}
	inside := [3]float64{0.3, 0.5, 0.36}
	// The top-face primitive under (0.3, ·, 0.36).
	top, _ := s.Trace(inside, [3]float64{0, 1, 0}, -s.TEps(), 0, narrow.TraversalBVH)
	if top.Prim < 0 {
		t.Fatal("no top primitive")
	}
	far := ringsOnFace(s, top.Prim, up, 2)[2][0]
	tests := []struct {
		name    string
		start   int32
		o, d    [3]float64
		maxIt   int
		outcome iterative.Outcome
		prim    int32
		t       float64 // NaN: not checked
		inside  bool
		steps   int // 0: not checked
	}{
		{"hit at once", top.Prim, inside, [3]float64{0, 1, 0}, 5, iterative.Hit, top.Prim, 0.5, true, 1},
		{"behind the origin", top.Prim, above, [3]float64{0, 1, 0}, 5, iterative.Behind, top.Prim, -0.5, true, 1},
		{"behind the origin after a walk", far, above, [3]float64{0, 1, 0}, 10, iterative.Behind, top.Prim, -0.5, true, 0},
		{"hit from outside", top.Prim, above, [3]float64{0, -1, 0}, 5, iterative.Lost, top.Prim, 0.5, false, 1},
		{"hit from outside after a walk", far, above, [3]float64{0, -1, 0}, 10, iterative.Lost, top.Prim, 0.5, false, 0},
		{"parallel ray", top.Prim, inside, [3]float64{1, 0, 0}, 5, iterative.Lost, top.Prim, math.NaN(), false, 1},
		{"maxIt one from a distant start", far, inside, [3]float64{0, 1, 0}, 1, iterative.Lost, far, math.NaN(), true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := walk(s, tc.start, &tc.o, &tc.d, tc.maxIt)
			if r.Outcome != tc.outcome || r.Prim != tc.prim || r.Inside != tc.inside {
				t.Errorf("Walk = %+v, want outcome %d on %d (inside %v)", r, tc.outcome, tc.prim, tc.inside)
			}
			if !math.IsNaN(tc.t) && math.Abs(r.T-tc.t) > 1e-12 {
				t.Errorf("T = %.17g, want %.17g", r.T, tc.t)
			}
			if tc.outcome == iterative.Behind && !(r.T < 0) {
				t.Errorf("Behind with T = %g, want T < 0", r.T)
			}
			if tc.steps > 0 && r.Steps != tc.steps {
				t.Errorf("Steps = %d, want %d", r.Steps, tc.steps)
			}
			if r.Steps > tc.maxIt {
				t.Errorf("Steps = %d > maxIt %d", r.Steps, tc.maxIt)
			}
		})
	}
}

func TestWalkPolygon(t *testing.T) {
	// Counter-clockwise outline whose top side y = 1 is cut into four unit
	// segments running right to left: 2: (4,1)→(3,1), 3: (3,1)→(2,1),
	// 4: (2,1)→(1,1), 5: (1,1)→(0,1).
	s, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {4, 0}, {4, 1}, {3, 1}, {2, 1}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Adjacent(3, 0); got != 2 {
		t.Fatalf("Adjacent(3, 0) = %d, want 2 (previous segment)", got)
	}
	if got := s.Adjacent(3, 2); got != 4 {
		t.Fatalf("Adjacent(3, 2) = %d, want 4 (next segment)", got)
	}
	tests := []struct {
		name   string
		x      float64 // ray from (x, 0.5) straight up
		start  int32
		want   int32
		steps  int
		second int32 // primitive of the second step (-1: none)
	}{
		{"hit at once", 2.5, 3, 3, 1, -1},
		{"u < 0 steps to the previous segment", 3.5, 3, 2, 2, 2},
		{"u > 1 steps to the next segment", 1.5, 3, 4, 2, 4},
		{"three segments back", 3.5, 5, 2, 4, 4},
		{"two segments forward", 0.25, 3, 5, 3, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, d := [3]float64{tc.x, 0.5, 0}, [3]float64{0, 1, 0}
			fwd, _ := s.Trace(o, d, -s.TEps(), 0, narrow.TraversalBVH)
			if fwd.Prim != tc.want {
				t.Fatalf("standard trace hits %d, want %d", fwd.Prim, tc.want)
			}
			r := walk(s, tc.start, &o, &d, 10)
			if r.Outcome != iterative.Hit || r.Prim != tc.want || r.Steps != tc.steps || !r.Inside {
				t.Errorf("Walk = %+v, want Hit on %d in %d steps", r, tc.want, tc.steps)
			}
			if math.Abs(r.T-fwd.T) > 1e-12 || math.Abs(r.T-0.5) > 1e-12 {
				t.Errorf("T = %.17g, trace T = %.17g, want 0.5", r.T, fwd.T)
			}
			if tc.second >= 0 {
				if c := walk(s, tc.start, &o, &d, 2); c.Prim != tc.second {
					t.Errorf("second primitive %d, want %d", c.Prim, tc.second)
				}
				if c := walk(s, tc.start, &o, &d, tc.steps-1); c.Outcome != iterative.Lost {
					t.Errorf("maxIt %d: %+v, want Lost", tc.steps-1, c)
				}
			}
		})
	}
}

// walked is a walk's Result with its step count.
type walked struct {
	iterative.Result
	Steps int
}

func walk(s *narrow.Shape, prim int32, o, d *[3]float64, maxIt int) walked {
	r, n := iterative.Walk(s, prim, o, d, maxIt)
	return walked{r, n}
}
