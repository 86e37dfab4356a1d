package narrow

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// unindexed returns s's triangles with a vertex of their own at every
// corner, as an unindexed mesh holds them.
func unindexed(s *Shape) ([]mgl64.Vec3, [][3]int) {
	var verts []mgl64.Vec3
	var tris [][3]int
	for i := range s.NumPrims() {
		var t [3]int
		for k, v := range s.Prim(i) {
			t[k] = len(verts)
			verts = append(verts, s.Vertex(int(v)))
		}
		tris = append(tris, t)
	}
	return verts, tris
}

func TestWeld(t *testing.T) {
	nan := math.NaN()
	negZero := math.Copysign(0, -1)
	tests := []struct {
		name      string
		verts     []mgl64.Vec3
		tris      [][3]int
		wantVerts []mgl64.Vec3
		wantTris  [][3]int
		wantFirst []int
	}{
		{
			name:      "unindexed triangles",
			verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 0}, {0, 0, 1}},
			tris:      [][3]int{{0, 2, 1}, {3, 4, 5}},
			wantVerts: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			wantTris:  [][3]int{{0, 2, 1}, {1, 0, 3}},
			wantFirst: []int{0, 1, 2, 5},
		},
		{
			name:      "-0 and +0 are one point, NaN is none",
			verts:     []mgl64.Vec3{{negZero, 1, 0}, {0, 1, negZero}, {nan, 0, 0}, {nan, 0, 0}},
			tris:      [][3]int{{0, 1, 2}, {3, 1, 0}},
			wantVerts: []mgl64.Vec3{{0, 1, 0}, {nan, 0, 0}, {nan, 0, 0}},
			wantTris:  [][3]int{{0, 0, 1}, {2, 0, 0}},
			wantFirst: []int{0, 2, 3},
		},
		{
			name:      "corners out of range stay out of range",
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 0, 0}, {1, 0, 0}},
			tris:      [][3]int{{-1, 1, 3}, {0, 5, 2}},
			wantVerts: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}},
			wantTris:  [][3]int{{-1, 0, 2}, {0, 4, 1}},
			wantFirst: []int{0, 2},
		},
		{name: "empty"},
	}
	same := func(a, b mgl64.Vec3) bool {
		for j := range a {
			if a[j] != b[j] && !(math.IsNaN(a[j]) && math.IsNaN(b[j])) || math.Signbit(a[j]) != math.Signbit(b[j]) && !math.IsNaN(a[j]) {
				return false
			}
		}
		return true
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verts, tris := slices.Clone(tt.verts), slices.Clone(tt.tris)
			welded, wtris, first := Weld(verts, tris)
			if !slices.EqualFunc(welded, tt.wantVerts, same) || !slices.Equal(wtris, tt.wantTris) || !slices.Equal(first, tt.wantFirst) {
				t.Errorf("Weld = %v, %v, %v; want %v, %v, %v", welded, wtris, first, tt.wantVerts, tt.wantTris, tt.wantFirst)
			}
			if !slices.EqualFunc(verts, tt.verts, same) || !slices.Equal(tris, tt.tris) {
				t.Error("Weld modified its inputs")
			}
		})
	}
}

// TestWeldTestdata: each test mesh, unindexed (a vertex per corner), is
// refused by NewMesh with an open boundary whose message counts the
// coincident vertices, and welded back it is the original mesh.
func TestWeldTestdata(t *testing.T) {
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		t.Run(name, func(t *testing.T) {
			want := testMeshes(t, name)[0]
			verts, tris := unindexed(want)
			_, err := NewMesh(verts, tris)
			if !errors.Is(err, ErrOpenBoundary) || !strings.Contains(err.Error(), "narrow.Weld") {
				t.Fatalf("NewMesh(unindexed) = %v, want an open boundary that points to narrow.Weld", err)
			}
			welded, wtris, first := Weld(verts, tris)
			got, err := NewMesh(welded, wtris)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumVertices() != want.NumVertices() || len(first) != len(welded) {
				t.Fatalf("%d vertices welded (first: %d), want %d", got.NumVertices(), len(first), want.NumVertices())
			}
			for i := range want.NumPrims() {
				for k := range 3 {
					if g, w := got.Vertex(int(got.Prim(i)[k])), want.Vertex(int(want.Prim(i)[k])); g != w {
						t.Fatalf("triangle %d, corner %d: %v, want %v", i, k, g, w)
					}
				}
			}
		})
	}
	// A closed mesh's open-boundary message has no hint when no vertex
	// repeats another.
	_, err := NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, [][3]int{{0, 1, 2}})
	if !errors.Is(err, ErrOpenBoundary) || strings.Contains(err.Error(), "Weld") {
		t.Errorf("NewMesh(one triangle) = %v, want an open boundary without the hint", err)
	}
}

func TestWeldWithin(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		verts     []mgl64.Vec3
		tris      [][3]int
		tol       float64
		wantVerts []mgl64.Vec3
		wantTris  [][3]int
		wantFirst []int
	}{
		{
			name:      "the first kept vertex within tol, no chains",
			verts:     []mgl64.Vec3{{0, 0, 0}, {1.5, 0, 0}, {2.2, 0, 0}, {0.8, 0, 0}, {-0.9, 0, 0}, {0, 5, 0}},
			tris:      [][3]int{{0, 5, 1}, {2, 5, 3}, {4, 5, 2}},
			tol:       1,
			wantVerts: []mgl64.Vec3{{0, 0, 0}, {1.5, 0, 0}, {0, 5, 0}},
			wantTris:  [][3]int{{0, 2, 1}, {1, 2, 0}, {0, 2, 1}},
			wantFirst: []int{0, 1, 5},
		},
		{
			name:      "across a cell boundary, in every axis",
			verts:     []mgl64.Vec3{{0.999, 1.999, -0.001}, {1.001, 2.001, 0.001}, {0, 0, 0}, {1, 0, 0}},
			tris:      [][3]int{{0, 2, 3}, {1, 3, 2}},
			tol:       0.01,
			wantVerts: []mgl64.Vec3{{0.999, 1.999, -0.001}, {0, 0, 0}, {1, 0, 0}},
			wantTris:  [][3]int{{0, 1, 2}, {0, 2, 1}},
			wantFirst: []int{0, 2, 3},
		},
		{
			name:      "collapsed slivers dropped, corners out of range kept",
			verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {1e-9, 0, 0}, {0, 1, 0}},
			tris:      [][3]int{{0, 1, 3}, {0, 2, 3}, {2, 1, 3}, {0, 1, 7}},
			tol:       1e-6,
			wantVerts: []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
			wantTris:  [][3]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 6}},
			wantFirst: []int{0, 1, 3},
		},
		{
			name:      "NaN and far-out vertices never merged",
			verts:     []mgl64.Vec3{{nan, 0, 0}, {nan, 0, 0}, {1e300, 0, 0}, {1e300, 0, 0}},
			tris:      [][3]int{{0, 1, 2}, {1, 2, 3}},
			tol:       1e-200,
			wantVerts: []mgl64.Vec3{{nan, 0, 0}, {nan, 0, 0}, {1e300, 0, 0}, {1e300, 0, 0}},
			wantTris:  [][3]int{{0, 1, 2}, {1, 2, 3}},
			wantFirst: []int{0, 1, 2, 3},
		},
		{
			name:      "tol 0 is Weld, less the collapsed",
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 0, 0}, {1e-300, 0, 0}, {0, 1, 0}},
			tris:      [][3]int{{0, 2, 3}, {1, 0, 3}},
			wantVerts: []mgl64.Vec3{{0, 0, 0}, {1e-300, 0, 0}, {0, 1, 0}},
			wantTris:  [][3]int{{0, 1, 2}},
			wantFirst: []int{0, 2, 3},
		},
	}
	same := func(a, b mgl64.Vec3) bool {
		for j := range a {
			if a[j] != b[j] && !(math.IsNaN(a[j]) && math.IsNaN(b[j])) {
				return false
			}
		}
		return true
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verts, tris := slices.Clone(tt.verts), slices.Clone(tt.tris)
			welded, wtris, first, err := WeldWithin(verts, tris, tt.tol)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(welded, tt.wantVerts, same) || !slices.Equal(wtris, tt.wantTris) || !slices.Equal(first, tt.wantFirst) {
				t.Errorf("WeldWithin = %v, %v, %v; want %v, %v, %v", welded, wtris, first, tt.wantVerts, tt.wantTris, tt.wantFirst)
			}
			if !slices.EqualFunc(verts, tt.verts, same) || !slices.Equal(tris, tt.tris) {
				t.Error("WeldWithin modified its inputs")
			}
		})
	}
	for _, tol := range []float64{-1e-9, math.NaN(), math.Inf(1)} {
		if _, _, _, err := WeldWithin(nil, nil, tol); !errors.Is(err, ErrBadParams) {
			t.Errorf("tol %v: %v, want ErrBadParams", tol, err)
		}
	}
}

// TestWeldWithinTestdata: each test mesh, unindexed and every corner
// moved by up to 1e-9 of its size (as files whose corners were computed
// twice hold them), is refused by Weld's exact merge and rebuilt by
// WeldWithin at 1e-7 of its size: the original vertices and triangles,
// each point within 1e-9 of the size.
func TestWeldWithinTestdata(t *testing.T) {
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		t.Run(name, func(t *testing.T) {
			want := testMeshes(t, name)[0]
			verts, tris := unindexed(want)
			size := want.Size()
			for i := range verts {
				for k := range 3 {
					// A deterministic jitter, different at every corner.
					verts[i][k] += size * 1e-9 * math.Sin(float64(3*i+k)*1.7)
				}
			}
			exact, etris, _ := Weld(verts, tris)
			if _, err := NewMesh(exact, etris); !errors.Is(err, ErrOpenBoundary) {
				t.Fatalf("exact weld: %v, want an open boundary", err)
			}
			welded, wtris, _, err := WeldWithin(verts, tris, 1e-7*size)
			if err != nil {
				t.Fatal(err)
			}
			got, err := NewMesh(welded, wtris)
			if err != nil {
				t.Fatal(err)
			}
			if got.NumVertices() != want.NumVertices() || got.NumPrims() != want.NumPrims() {
				t.Fatalf("%d vertices, %d triangles; want %d, %d", got.NumVertices(), got.NumPrims(), want.NumVertices(), want.NumPrims())
			}
			for i := range want.NumPrims() {
				for k := range 3 {
					g, w := got.Vertex(int(got.Prim(i)[k])), want.Vertex(int(want.Prim(i)[k]))
					if g.Sub(w).Len() > 2e-9*size {
						t.Fatalf("triangle %d, corner %d: %v, want %v", i, k, g, w)
					}
				}
			}
		})
	}
}
