package narrow

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// clothGrid returns an n × n grid of points spaced h apart in the x–z
// plane, at height y(x, z), and its triangles, counter-clockwise seen
// from +y.
func clothGrid(n int, h float64, y func(x, z float64) float64) ([]mgl64.Vec3, [][3]int) {
	verts := make([]mgl64.Vec3, 0, n*n)
	for i := range n {
		for j := range n {
			x, z := float64(i)*h, float64(j)*h
			verts = append(verts, mgl64.Vec3{x, y(x, z), z})
		}
	}
	var tris [][3]int
	for i := range n - 1 {
		for j := range n - 1 {
			a, b, c, d := i*n+j, (i+1)*n+j, (i+1)*n+j+1, i*n+j+1
			tris = append(tris, [3]int{a, c, b}, [3]int{a, d, c})
		}
	}
	return verts, tris
}

// TestNewSurface: an open grid is a surface (not a mesh), with boundary
// edges and no inside; NewSurface still refuses what is not a surface,
// and nothing that needs an inside takes it.
func TestNewSurface(t *testing.T) {
	verts, tris := clothGrid(6, 0.4, func(x, z float64) float64 { return 0.1 * math.Sin(x+z) })
	if _, err := NewMesh(verts, tris); !errors.Is(err, ErrOpenBoundary) {
		t.Fatalf("NewMesh of an open grid: %v", err)
	}
	s, err := NewSurface(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Open() || s.NumVertices() != 36 || s.NumPrims() != 50 {
		t.Fatalf("open %v, %d vertices, %d triangles", s.Open(), s.NumVertices(), s.NumPrims())
	}
	boundary := 0
	for i := range s.NumPrims() {
		for k := range 3 {
			if s.Adjacent(i, k) < 0 {
				boundary++
			}
		}
	}
	if boundary != 4*5 {
		t.Errorf("%d boundary edges, want 20", boundary)
	}
	for i := range s.NumVertices() {
		if n := s.VertexNormal(i); !isUnit(n) || n[1] <= 0 {
			t.Fatalf("vertex %d: normal %v, want a unit vector up", i, n)
		}
	}
	if _, err := s.MassProps(1); !errors.Is(err, ErrOpenBoundary) {
		t.Errorf("MassProps: %v", err)
	}
	box := centredBox(t, 1, 1, 1)
	if _, err := Overlap(s, box, Identity, Identity); !errors.Is(err, ErrOpenBoundary) {
		t.Errorf("Overlap: %v", err)
	}
	// Still refused: a flipped triangle, an edge of three triangles.
	bad := append([][3]int(nil), tris...)
	bad[7] = [3]int{bad[7][0], bad[7][2], bad[7][1]}
	if _, err := NewSurface(verts, bad); !errors.Is(err, ErrWinding) {
		t.Errorf("flipped triangle: %v", err)
	}
	fan := append(append([][3]int(nil), tris...), [3]int{tris[0][0], tris[0][1], 35})
	if _, err := NewSurface(verts, fan); !errors.Is(err, ErrNonManifold) {
		t.Errorf("three triangles on an edge: %v", err)
	}
	// A deformation stays a surface.
	d, err := s.Deform(s.AppendVertices(nil))
	if err != nil || !d.Open() {
		t.Fatalf("deformed surface: open %v, %v", d != nil && d.Open(), err)
	}
}

// bruteSelf is AppendSelfHits over every triangle, in file order.
func bruteSelf(s *Shape, motion []mgl64.Vec3, reach float64) []SelfHit {
	var out []SelfHit
	prims := s.AppendPrimitives(nil)
	near := func(v int, d [3]float64, tMax float64) (float64, int32) {
		best, prim := tMax, int32(-1)
		o := [3]float64(s.Vertex(v))
		for _, p := range prims {
			tri := s.Prim(int(p.ID))
			if tri[0] == int32(v) || tri[1] == int32(v) || tri[2] == int32(v) {
				continue
			}
			if t, _, ok := p.Intersect(&o, &d); ok && t > s.tEps && (t < best || t == best && prim >= 0 && p.ID < prim) {
				best, prim = t, p.ID
			}
		}
		return best, prim
	}
	for v, m := range motion {
		l := m.Len()
		if !(l > 0) {
			continue
		}
		d := [3]float64{m[0] / l, m[1] / l, m[2] / l}
		if t, p := near(v, d, l+reach); p >= 0 {
			out = append(out, SelfHit{Vertex: int32(v), Prim: p, T: t})
		}
		if t, p := near(v, [3]float64{-d[0], -d[1], -d[2]}, l+reach); p >= 0 {
			out = append(out, SelfHit{Vertex: int32(v), Prim: p, T: t, Behind: true})
		}
	}
	return out
}

// TestSelfHitsMatchBruteForce folds a cloth over itself (an S of three
// layers 0.1 apart) and moves its vertices at random: AppendSelfHits
// finds, by the hierarchy, the hits brute force finds over every
// triangle, and some of each kind.
func TestSelfHitsMatchBruteForce(t *testing.T) {
	const n, h = 16, 0.1
	verts, tris := clothGrid(n, h, func(x, z float64) float64 { return 0 })
	// Fold along x into three layers: x in [0, 0.5], back over [0.5, 1],
	// forward again, 0.1 higher each time.
	for i := range verts {
		x := verts[i][0]
		switch {
		case x <= 0.5:
		case x <= 1.0:
			a := math.Pi * (x - 0.5) / 0.5
			verts[i][0], verts[i][1] = 0.5+0.03*math.Sin(a)-(x-0.5)*0.98*(1-math.Cos(a))/2, 0.05*(1-math.Cos(a))
		default:
			verts[i][0], verts[i][1] = 0.5+(x-1.0)*0.9, 0.1+0.05*math.Sin(math.Pi*(x-1.0)/0.5)
		}
	}
	s, err := NewSurface(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	var kinds [2]int
	for round := range 20 {
		motion := make([]mgl64.Vec3, s.NumVertices())
		for v := range motion {
			if rng.IntN(8) > 0 {
				motion[v] = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(0.05 * rng.Float64())
			}
		}
		reach := 0.02 * float64(round%4)
		got := s.AppendSelfHits(nil, motion, reach)
		want := bruteSelf(s, motion, reach)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d hits, brute force %d", round, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Vertex != w.Vertex || g.Behind != w.Behind || g.T != w.T {
				t.Fatalf("round %d hit %d: %+v, brute force %+v", round, i, g, w)
			}
			if g.Behind {
				kinds[1]++
			} else {
				kinds[0]++
			}
		}
	}
	t.Logf("%d forward hits, %d behind", kinds[0], kinds[1])
	if kinds[0] < 20 || kinds[1] < 20 {
		t.Errorf("%d forward and %d behind hits: the fold does not test both", kinds[0], kinds[1])
	}
	if got := s.AppendSelfHits(nil, make([]mgl64.Vec3, 3), 0.1); len(got) != 0 {
		t.Errorf("motions of the wrong length: %v", got)
	}
}
