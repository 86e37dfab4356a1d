package narrow

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// boxNormals are the outward normals of boxTris.
var boxNormals = [12]mgl64.Vec3{
	{-1, 0, 0}, {-1, 0, 0},
	{1, 0, 0}, {1, 0, 0},
	{0, -1, 0}, {0, -1, 0},
	{0, 1, 0}, {0, 1, 0},
	{0, 0, -1}, {0, 0, -1},
	{0, 0, 1}, {0, 0, 1},
}

// boxCornerSign returns the sign pattern of box vertex i.
func boxCornerSign(i int) mgl64.Vec3 {
	var s mgl64.Vec3
	for k := 0; k < 3; k++ {
		s[k] = -1
		if i>>k&1 == 1 {
			s[k] = 1
		}
	}
	return s
}

// testBoxData returns the vertices and triangles of a box with the given
// half-extents and centre. The slices are fresh, so callers may edit them.
func testBoxData(half, centre mgl64.Vec3) ([]mgl64.Vec3, [][3]int) {
	verts := make([]mgl64.Vec3, 8)
	for i := range verts {
		s := boxCornerSign(i)
		for k := 0; k < 3; k++ {
			verts[i][k] = centre[k] + s[k]*half[k]
		}
	}
	return verts, BoxTriangles()
}

// testBox builds a box mesh with the given half-extents and centre.
func testBox(tb testing.TB, half, centre mgl64.Vec3) *Shape {
	tb.Helper()
	verts, tris := testBoxData(half, centre)
	s, err := NewMesh(verts, tris)
	if err != nil {
		tb.Fatalf("testBox(%v, %v): %v", half, centre, err)
	}
	return s
}

// testTetraData returns a regular tetrahedron centred on the origin with
// circumradius √3 and edge length 2√2.
func testTetraData() ([]mgl64.Vec3, [][3]int) {
	verts := []mgl64.Vec3{{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}}
	tris := [][3]int{{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}}
	return verts, tris
}

// wantShapeError checks that err wraps kind and is a *ShapeError whose
// message is non-empty, and returns it.
func wantShapeError(tb testing.TB, err, kind error) *ShapeError {
	tb.Helper()
	if err == nil {
		tb.Fatalf("got no error, want %v", kind)
	}
	if !errors.Is(err, kind) {
		tb.Fatalf("error %q does not wrap %v", err, kind)
	}
	var se *ShapeError
	if !errors.As(err, &se) {
		tb.Fatalf("error %q (%T) is not a *ShapeError", err, err)
	}
	if err.Error() == "" {
		tb.Fatalf("empty error message for %v", kind)
	}
	return se
}

// wantMention checks that msg names the element, e.g. "primitive 3".
func wantMention(tb testing.TB, msg, what string, n int) {
	tb.Helper()
	want := fmt.Sprintf("%s %d", what, n)
	if !strings.Contains(msg, want) {
		tb.Errorf("message %q does not contain %q", msg, want)
	}
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func nearVec(a, b mgl64.Vec3, tol float64) bool {
	return near(a[0], b[0], tol) && near(a[1], b[1], tol) && near(a[2], b[2], tol)
}

// checkMeshAdjacency checks the adjacency invariant of a triangle mesh:
// every slot has a neighbour that points back, across the same edge
// traversed in the opposite direction.
func checkMeshAdjacency(tb testing.TB, s *Shape) {
	tb.Helper()
	for i := 0; i < s.NumPrims(); i++ {
		p := s.Prim(i)
		for k := 0; k < 3; k++ {
			j := s.Adjacent(i, k)
			if j < 0 || j >= s.NumPrims() || j == i {
				tb.Errorf("Adjacent(%d,%d) = %d", i, k, j)
				continue
			}
			a, b := cornerOf(p, k)
			back := -1
			for m := 0; m < 3; m++ {
				if s.Adjacent(j, m) == i {
					c, d := cornerOf(s.Prim(j), m)
					if c == b && d == a {
						back = m
					}
				}
			}
			if back < 0 {
				tb.Errorf("triangle %d slot %d (edge %d→%d) -> %d %v: no slot of %d points back across %d→%d",
					i, k, a, b, j, s.Prim(j), j, b, a)
			}
		}
	}
}

// meshAvgEdge is the mean length of the 3 edges of every triangle.
func meshAvgEdge(verts []mgl64.Vec3, tris [][3]int) float64 {
	total := 0.0
	for _, t := range tris {
		for k := 0; k < 3; k++ {
			total += verts[t[(k+1)%3]].Sub(verts[t[k]]).Len()
		}
	}
	return total / float64(3*len(tris))
}

func TestNewMeshValid(t *testing.T) {
	type tc struct {
		name       string
		verts      []mgl64.Vec3
		tris       [][3]int
		bounds     AABB
		radius     float64
		avg        float64
		vertNormal func(i int) mgl64.Vec3
		faceNormal func(i int) mgl64.Vec3
	}
	unitV, unitT := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	flatV, flatT := testBoxData(mgl64.Vec3{2, 1, 0.25}, mgl64.Vec3{1, -2, 3})
	farV, farT := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{1e4, 1e4, 1e4})
	tetV, tetT := testTetraData()
	boxVN := func(i int) mgl64.Vec3 { return boxCornerSign(i).Mul(1 / math.Sqrt(3)) }
	boxFN := func(i int) mgl64.Vec3 { return boxNormals[i] }
	cases := []tc{
		{
			name: "unit cube", verts: unitV, tris: unitT,
			bounds:     AABB{Min: mgl64.Vec3{-0.5, -0.5, -0.5}, Max: mgl64.Vec3{0.5, 0.5, 0.5}},
			radius:     math.Sqrt(3) / 2,
			avg:        (2 + math.Sqrt2) / 3,
			vertNormal: boxVN, faceNormal: boxFN,
		},
		{
			name: "flat offset box", verts: flatV, tris: flatT,
			bounds: AABB{Min: mgl64.Vec3{-1, -3, 2.75}, Max: mgl64.Vec3{3, -1, 3.25}},
			radius: mgl64.Vec3{3, -3, 3.25}.Len(),
			avg:    meshAvgEdge(flatV, flatT),
			// Each face contributes an angle of π/2 at every corner,
			// whatever the aspect ratio: the corner normals are still
			// the diagonals of the unit cube.
			vertNormal: boxVN, faceNormal: boxFN,
		},
		{
			name: "cube far from origin", verts: farV, tris: farT,
			bounds: AABB{Min: mgl64.Vec3{1e4 - 0.5, 1e4 - 0.5, 1e4 - 0.5}, Max: mgl64.Vec3{1e4 + 0.5, 1e4 + 0.5, 1e4 + 0.5}},
			radius: math.Sqrt(3) * (1e4 + 0.5),
			avg:    (2 + math.Sqrt2) / 3,
			// 1e4 ± 0.5 is exact in float64, so the edges (and normals)
			// are as exact as at the origin.
			vertNormal: boxVN, faceNormal: boxFN,
		},
		{
			name: "regular tetrahedron", verts: tetV, tris: tetT,
			bounds:     AABB{Min: mgl64.Vec3{-1, -1, -1}, Max: mgl64.Vec3{1, 1, 1}},
			radius:     math.Sqrt(3),
			avg:        2 * math.Sqrt2,
			vertNormal: func(i int) mgl64.Vec3 { return tetV[i].Normalize() },
			faceNormal: func(i int) mgl64.Vec3 {
				// Outward normal of the face opposite the missing vertex.
				var opp int
				for v := 0; v < 4; v++ {
					if !slices.Contains(tetT[i][:], v) {
						opp = v
					}
				}
				return tetV[opp].Mul(-1).Normalize()
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewMesh(c.verts, c.tris)
			if err != nil {
				t.Fatalf("NewMesh: %v", err)
			}
			if s.Dim() != Dim3 {
				t.Errorf("Dim = %v, want 3", s.Dim())
			}
			if s.NumVertices() != len(c.verts) || s.NumPrims() != len(c.tris) {
				t.Errorf("NumVertices/NumPrims = %d/%d, want %d/%d", s.NumVertices(), s.NumPrims(), len(c.verts), len(c.tris))
			}
			const tol = 1e-12
			b := s.Bounds()
			if !nearVec(b.Min, c.bounds.Min, tol*(1+c.radius)) || !nearVec(b.Max, c.bounds.Max, tol*(1+c.radius)) {
				t.Errorf("Bounds = %v, want %v", b, c.bounds)
			}
			if !near(s.Radius(), c.radius, tol*(1+c.radius)) {
				t.Errorf("Radius = %v, want %v", s.Radius(), c.radius)
			}
			if !near(s.AvgPrimSize(), c.avg, tol) {
				t.Errorf("AvgPrimSize = %v, want %v", s.AvgPrimSize(), c.avg)
			}
			for i := 0; i < s.NumVertices(); i++ {
				if s.Vertex(i) != c.verts[i] {
					t.Errorf("Vertex(%d) = %v, want %v", i, s.Vertex(i), c.verts[i])
				}
				if got, want := s.VertexNormal(i), c.vertNormal(i); !nearVec(got, want, 1e-9) {
					t.Errorf("VertexNormal(%d) = %v, want %v", i, got, want)
				}
			}
			for i := 0; i < s.NumPrims(); i++ {
				want := c.tris[i]
				if got := s.Prim(i); got != [3]int32{int32(want[0]), int32(want[1]), int32(want[2])} {
					t.Errorf("Prim(%d) = %v, want %v", i, got, want)
				}
				if got, want := s.FaceNormal(i), c.faceNormal(i); !nearVec(got, want, 1e-9) {
					t.Errorf("FaceNormal(%d) = %v, want %v", i, got, want)
				}
			}
			checkMeshAdjacency(t, s)
			if want := 0.5 * c.bounds.Max.Sub(c.bounds.Min).Len(); !near(s.Size(), want, tol*(1+want)) {
				t.Errorf("Size = %v, want half the box diagonal %v", s.Size(), want)
			}
		})
	}
}

// TestNewMeshCopiesInput checks that the shape does not alias the caller's
// slices.
func TestNewMeshCopiesInput(t *testing.T) {
	verts, tris := testBoxData(mgl64.Vec3{1, 1, 1}, mgl64.Vec3{})
	s, err := NewMesh(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	verts[0] = mgl64.Vec3{9, 9, 9}
	tris[0] = [3]int{7, 7, 7}
	if s.Vertex(0) != (mgl64.Vec3{-1, -1, -1}) || s.Prim(0) != [3]int32{0, 4, 6} {
		t.Errorf("shape aliases its input: Vertex(0) = %v, Prim(0) = %v", s.Vertex(0), s.Prim(0))
	}
}

// TestTestBox checks the shared helper itself.
func TestTestBox(t *testing.T) {
	s := testBox(t, mgl64.Vec3{1, 2, 3}, mgl64.Vec3{4, 5, 6})
	want := AABB{Min: mgl64.Vec3{3, 3, 3}, Max: mgl64.Vec3{5, 7, 9}}
	if s.Bounds() != want {
		t.Errorf("Bounds = %v, want %v", s.Bounds(), want)
	}
	if s.NumVertices() != 8 || s.NumPrims() != 12 {
		t.Errorf("NumVertices/NumPrims = %d/%d", s.NumVertices(), s.NumPrims())
	}
}

// flip reverses the winding of a triangle.
func flip(t [3]int) [3]int { return [3]int{t[0], t[2], t[1]} }

func TestNewMeshErrors(t *testing.T) {
	cube := func() ([]mgl64.Vec3, [][3]int) {
		return testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	}
	type tc struct {
		name  string
		build func() ([]mgl64.Vec3, [][3]int)
		kind  error
		check func(t *testing.T, e *ShapeError, verts []mgl64.Vec3, tris [][3]int)
	}
	wantField := func(name string, got, want int) func(t *testing.T) {
		return func(t *testing.T) {
			t.Helper()
			if got != want {
				t.Errorf("%s = %d, want %d", name, got, want)
			}
		}
	}
	cases := []tc{
		{
			name:  "no vertices",
			build: func() ([]mgl64.Vec3, [][3]int) { return nil, [][3]int{{0, 1, 2}} },
			kind:  ErrEmpty,
		},
		{
			name: "no triangles",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, _ := cube()
				return v, nil
			},
			kind: ErrEmpty,
		},
		{
			name: "NaN vertex",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				v[5][1] = math.NaN()
				return v, tr
			},
			kind: ErrNonFinite,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				wantField("Vertex", e.Vertex, 5)(t)
				wantMention(t, e.Error(), "vertex", 5)
			},
		},
		{
			name: "+Inf vertex",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				v[3][2] = math.Inf(1)
				return v, tr
			},
			kind: ErrNonFinite,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				wantField("Vertex", e.Vertex, 3)(t)
				wantMention(t, e.Error(), "vertex", 3)
			},
		},
		{
			name: "index -1",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				tr[4][1] = -1
				return v, tr
			},
			kind: ErrIndexRange,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				wantField("Prim", e.Prim, 4)(t)
				wantMention(t, e.Error(), "primitive", 4)
			},
		},
		{
			name: "index == len",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				tr[11][2] = len(v)
				return v, tr
			},
			kind: ErrIndexRange,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				wantField("Prim", e.Prim, 11)(t)
				wantMention(t, e.Error(), "primitive", 11)
			},
		},
		{
			name: "repeated index",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				tr[7] = [3]int{2, 7, 2}
				return v, tr
			},
			kind: ErrDegenerate,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				wantField("Prim", e.Prim, 7)(t)
				wantMention(t, e.Error(), "primitive", 7)
			},
		},
		{
			name: "collinear triangle",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				// Vertex 8 is the midpoint of edge 0-4 (x=-0.5,y=-0.5).
				v = append(v, v[0].Add(v[4]).Mul(0.5))
				tr[9] = [3]int{0, 8, 4}
				return v, tr
			},
			kind: ErrDegenerate,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				wantField("Prim", e.Prim, 9)(t)
				wantMention(t, e.Error(), "primitive", 9)
			},
		},
		{
			name: "one triangle removed",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				return v, slices.Delete(tr, 6, 7) // {2, 6, 7}
			},
			kind: ErrOpenBoundary,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, tris [][3]int) {
				removed := [][2]int{{2, 6}, {6, 7}, {2, 7}}
				if !slices.Contains(removed, e.Edge) {
					t.Errorf("Edge = %v, want one of %v", e.Edge, removed)
				}
				if e.Prim < 0 || e.Prim >= len(tris) || !slices.Contains(tris[e.Prim][:], e.Edge[0]) || !slices.Contains(tris[e.Prim][:], e.Edge[1]) {
					t.Errorf("Prim = %d does not hold edge %v", e.Prim, e.Edge)
				}
				wantMention(t, e.Error(), "primitive", e.Prim)
				if !strings.Contains(e.Error(), fmt.Sprintf("edge %d-%d", e.Edge[0], e.Edge[1])) {
					t.Errorf("message %q does not name edge %v", e.Error(), e.Edge)
				}
			},
		},
		{
			name: "fin triangle on an edge",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				v = append(v, mgl64.Vec3{0, -2, -0.5}) // 8, below edge 0-1
				return v, append(tr, [3]int{0, 1, 8})
			},
			kind: ErrNonManifold,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				if e.Edge != [2]int{0, 1} {
					t.Errorf("Edge = %v, want [0 1]", e.Edge)
				}
				if e.Prim < 0 || e.Other < 0 || e.Prim == e.Other {
					t.Errorf("Prim/Other = %d/%d", e.Prim, e.Other)
				}
				if !strings.Contains(e.Error(), "3 triangles") {
					t.Errorf("message %q does not count 3 triangles", e.Error())
				}
			},
		},
		{
			name: "two cubes glued along an edge",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				v2, tr2 := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{1, 1, 0})
				// Corners 0 and 4 of the second cube are corners 3 and 7
				// of the first: the cubes share the edge 3-7.
				remap := make([]int, 8)
				for i := range remap {
					switch i {
					case 0:
						remap[i] = 3
					case 4:
						remap[i] = 7
					default:
						remap[i] = len(v)
						v = append(v, v2[i])
					}
				}
				for _, t := range tr2 {
					tr = append(tr, [3]int{remap[t[0]], remap[t[1]], remap[t[2]]})
				}
				return v, tr
			},
			kind: ErrNonManifold,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				if e.Edge != [2]int{3, 7} {
					t.Errorf("Edge = %v, want [3 7]", e.Edge)
				}
			},
		},
		{
			name: "one triangle flipped",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				tr[3] = flip(tr[3])
				return v, tr
			},
			kind: ErrWinding,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, tris [][3]int) {
				if e.Prim != 3 && e.Other != 3 {
					t.Errorf("Prim/Other = %d/%d, want 3 among them", e.Prim, e.Other)
				}
				if e.Prim < 0 || e.Other < 0 || e.Prim == e.Other {
					t.Fatalf("Prim/Other = %d/%d", e.Prim, e.Other)
				}
				for _, p := range []int{e.Prim, e.Other} {
					if !slices.Contains(tris[p][:], e.Edge[0]) || !slices.Contains(tris[p][:], e.Edge[1]) {
						t.Errorf("triangle %d %v does not hold edge %v", p, tris[p], e.Edge)
					}
				}
				wantMention(t, e.Error(), "primitive", e.Prim)
				wantMention(t, e.Error(), "primitive", e.Other)
			},
		},
		{
			name: "inside-out cube",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				for i := range tr {
					tr[i] = flip(tr[i])
				}
				return v, tr
			},
			kind: ErrWinding,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, tris [][3]int) {
				if e.Prim < 0 || e.Prim >= len(tris) {
					t.Errorf("Prim = %d", e.Prim)
				}
				wantMention(t, e.Error(), "primitive", e.Prim)
			},
		},
		{
			name: "inside-out tetrahedron far from origin",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := testTetraData()
				for i := range v {
					v[i] = v[i].Add(mgl64.Vec3{1e4, -1e4, 1e4})
				}
				for i := range tr {
					tr[i] = flip(tr[i])
				}
				return v, tr
			},
			kind: ErrWinding,
		},
		{
			name: "second component inside out",
			build: func() ([]mgl64.Vec3, [][3]int) {
				v, tr := cube()
				v2, tr2 := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{3, 0, 0})
				for _, t := range tr2 {
					tr = append(tr, flip([3]int{t[0] + 8, t[1] + 8, t[2] + 8}))
				}
				return append(v, v2...), tr
			},
			kind: ErrWinding,
			check: func(t *testing.T, e *ShapeError, _ []mgl64.Vec3, _ [][3]int) {
				if e.Prim < 12 {
					t.Errorf("Prim = %d, want a triangle of the second cube (≥ 12)", e.Prim)
				}
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			verts, tris := c.build()
			s, err := NewMesh(verts, tris)
			if s != nil {
				t.Errorf("got a shape with the error %v", err)
			}
			e := wantShapeError(t, err, c.kind)
			if c.check != nil {
				c.check(t, e, verts, tris)
			}
			t.Logf("%v", err)
		})
	}
}

// TestNewMeshDisjointComponents checks that several closed components in one
// mesh (e.g. two separate cubes) are accepted.
func TestNewMeshDisjointComponents(t *testing.T) {
	v, tr := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	v2, tr2 := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{3, 0, 0})
	for _, t := range tr2 {
		tr = append(tr, [3]int{t[0] + 8, t[1] + 8, t[2] + 8})
	}
	s, err := NewMesh(append(v, v2...), tr)
	if err != nil {
		t.Fatal(err)
	}
	checkMeshAdjacency(t, s)
	if s.NumVertices() != 16 || s.NumPrims() != 24 {
		t.Errorf("NumVertices/NumPrims = %d/%d", s.NumVertices(), s.NumPrims())
	}
}

// TestNewMeshUnusedVertex checks that a vertex no triangle uses is kept
// (indices keep file order) with a zero normal, as documented on Shape.
func TestNewMeshUnusedVertex(t *testing.T) {
	v, tr := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	v = append(v, mgl64.Vec3{0, 0, 2})
	s, err := NewMesh(v, tr)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumVertices() != 9 {
		t.Errorf("NumVertices = %d, want 9", s.NumVertices())
	}
	if s.VertexNormal(8) != (mgl64.Vec3{}) {
		t.Errorf("VertexNormal(8) = %v, want zero", s.VertexNormal(8))
	}
	if !near(s.Radius(), 2, 1e-15) {
		t.Errorf("Radius = %v, want 2 (the unused vertex counts)", s.Radius())
	}
}
