package narrow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// closestOnTriangle returns the point of triangle abc nearest to p
// (Ericson, Real-Time Collision Detection, §5.1.5: the Voronoi regions of
// the corners, the edges and the face).
func closestOnTriangle(p, a, b, c [3]float64) [3]float64 {
	ab, ac, ap := sub3(b, a), sub3(c, a), sub3(p, a)
	d1, d2 := dot3(ab, ap), dot3(ac, ap)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bp := sub3(p, b)
	d3, d4 := dot3(ab, bp), dot3(ac, bp)
	if d3 >= 0 && d4 <= d3 {
		return b
	}
	at := func(o, e [3]float64, t float64) [3]float64 {
		return [3]float64{o[0] + t*e[0], o[1] + t*e[1], o[2] + t*e[2]}
	}
	if vc := d1*d4 - d3*d2; vc <= 0 && d1 >= 0 && d3 <= 0 {
		return at(a, ab, d1/(d1-d3))
	}
	cp := sub3(p, c)
	d5, d6 := dot3(ab, cp), dot3(ac, cp)
	if d6 >= 0 && d5 <= d6 {
		return c
	}
	if vb := d5*d2 - d1*d6; vb <= 0 && d2 >= 0 && d6 <= 0 {
		return at(a, ac, d2/(d2-d6))
	}
	if va := d3*d6 - d5*d4; va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return at(b, sub3(c, b), (d4-d3)/((d4-d3)+(d5-d6)))
	}
	vb, vc := d5*d2-d1*d6, d1*d4-d3*d2
	den := 1 / (d3*d6 - d5*d4 + vb + vc)
	q := at(a, ab, vb*den)
	return at(q, ac, vc*den)
}

// surfaceDistance returns the distance from p to the mesh's surface and
// whether p is inside, by brute force: every triangle's closest point, and
// the winding number (the triangles' solid angles seen from p, Van
// Oosterom and Strackee 1983, summed: 4π inside, 0 outside).
func surfaceDistance(s *Shape, p [3]float64) (float64, bool) {
	best, wind := math.Inf(1), 0.0
	for _, t := range s.prims {
		a, b, c := s.verts[t[0]], s.verts[t[1]], s.verts[t[2]]
		best = min(best, len3(sub3(closestOnTriangle(p, a, b, c), p)))
		ra, rb, rc := sub3(a, p), sub3(b, p), sub3(c, p)
		la, lb, lc := len3(ra), len3(rb), len3(rc)
		num := dot3(ra, cross3(rb, rc))
		den := la*lb*lc + dot3(ra, rb)*lc + dot3(rb, rc)*la + dot3(rc, ra)*lb
		wind += 2 * math.Atan2(num, den)
	}
	return best, wind > 2*math.Pi
}

// TestOutsideGridConservative checks the outside grid against brute force
// on the test meshes: at random points of the grid's box and
// around it, a positive lower bound is only given outside the mesh and
// never exceeds the distance to the surface, and far (the vertex test of
// InCull) only holds farther than the ext it was set for. The grid must
// also be useful: most points of the grid farther than 4 cells from the
// surface, and outside, get a positive bound.
func TestOutsideGridConservative(t *testing.T) {
	names := []string{"bunny", "torus", "duck", "teddy"}
	shapes := testMeshes(t, names...)
	rng := rand.New(rand.NewPCG(7, 21))
	n := 2000
	if testing.Short() {
		n = 500
	}
	for si, s := range shapes {
		g := s.grid
		if g == nil {
			t.Fatalf("%s: no grid", names[si])
		}
		exts := []float64{s.tEps, 0.5 * g.h, 1.7 * g.h, 0.05 * s.size}
		far, farBound := 0, 0
		for i := 0; i < n; i++ {
			var p [3]float64
			for a := 0; a < 3; a++ {
				// The grid's box, grown by a cell on each side.
				p[a] = g.lo[a] - g.h + rng.Float64()*(g.fn[a]+2)*g.h
			}
			dist, inside := surfaceDistance(s, p)
			lb := g.lowerBound(p[0], p[1], p[2])
			if lb > 0 && (inside || lb > dist*(1+1e-12)) {
				t.Fatalf("%s: point %v (distance %v, inside %v): lower bound %v", names[si], p, dist, inside, lb)
			}
			for _, ext := range exts {
				if k := g.minCull(ext); k != 0 && g.far(p[0], p[1], p[2], k) && (inside || dist <= ext) {
					t.Fatalf("%s: point %v (distance %v, inside %v) culled for ext %v", names[si], p, dist, inside, ext)
				}
			}
			inner := true // within the grid, off its outer layer of cells
			for a := 0; a < 3; a++ {
				inner = inner && p[a] > g.lo[a]+g.h && p[a] < g.lo[a]+(g.fn[a]-1)*g.h
			}
			if inner && !inside && dist > 4*g.h {
				far++
				if lb > 0 {
					farBound++
				}
			}
		}
		if far == 0 || float64(farBound) < 0.9*float64(far) {
			t.Errorf("%s: %d of %d points of the grid farther than 4 cells have a positive bound, want at least 90 %%", names[si], farBound, far)
		}
		t.Logf("%s: %v cells of %.3g, %d of %d far points bounded", names[si], g.n, g.h, farBound, far)
	}
}

// polygonDistance returns the distance from p (z = 0) to the polygon's
// segments and whether p is inside (crossing number of a ray along +x).
func polygonDistance(s *Shape, p [3]float64) (float64, bool) {
	best, inside := math.Inf(1), false
	for _, t := range s.prims {
		a, b := s.verts[t[0]], s.verts[t[1]]
		e := sub3(b, a)
		u := max(0, min(1, dot3(sub3(p, a), e)/dot3(e, e)))
		best = min(best, len3(sub3(p, [3]float64{a[0] + u*e[0], a[1] + u*e[1], 0})))
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0]+(p[1]-a[1])/(b[1]-a[1])*e[0] {
			inside = !inside
		}
	}
	return best, inside
}

// TestOutsideGridPolygon is TestOutsideGridConservative for polygons,
// whose grid is one layer of cells in their plane: a star and a ring (a
// polygon with a hole), at random points of the plane around them.
func TestOutsideGridPolygon(t *testing.T) {
	var outer, hole []mgl64.Vec2
	for i := 0; i < 40; i++ {
		a := 2 * math.Pi * float64(i) / 40
		outer = append(outer, mgl64.Vec2{2 * math.Cos(a), 2 * math.Sin(a)})
		hole = append(hole, mgl64.Vec2{1.2 * math.Cos(-a), 1.2 * math.Sin(-a)})
	}
	rng := rand.New(rand.NewPCG(3, 30))
	for _, tc := range []struct {
		name  string
		outer []mgl64.Vec2
		holes [][]mgl64.Vec2
	}{{"star", offStar(), nil}, {"ring", outer, [][]mgl64.Vec2{hole}}} {
		s, err := NewPolygon(tc.outer, tc.holes...)
		if err != nil {
			t.Fatal(err)
		}
		g := s.grid
		if g == nil {
			t.Fatalf("%s: no grid", tc.name)
		}
		if g.n[2] != 1 {
			t.Fatalf("%s: %d layers, want 1", tc.name, g.n[2])
		}
		far, farBound := 0, 0
		for i := 0; i < 4000; i++ {
			p := [3]float64{g.lo[0] - g.h + rng.Float64()*(g.fn[0]+2)*g.h, g.lo[1] - g.h + rng.Float64()*(g.fn[1]+2)*g.h, 0}
			dist, inside := polygonDistance(s, p)
			lb := g.lowerBound(p[0], p[1], p[2])
			if lb > 0 && (inside || lb > dist*(1+1e-12)) {
				t.Fatalf("%s: point %v (distance %v, inside %v): lower bound %v", tc.name, p, dist, inside, lb)
			}
			for _, ext := range []float64{s.tEps, 0.5 * g.h, 1.7 * g.h, 0.05 * s.size} {
				if k := g.minCull(ext); k != 0 && g.far(p[0], p[1], p[2], k) && (inside || dist <= ext) {
					t.Fatalf("%s: point %v (distance %v, inside %v) culled for ext %v", tc.name, p, dist, inside, ext)
				}
			}
			if !inside && dist > 3*g.h && p[0] > g.lo[0] && p[1] > g.lo[1] && p[0] < g.lo[0]+g.fn[0]*g.h && p[1] < g.lo[1]+g.fn[1]*g.h {
				far++
				if lb > 0 {
					farBound++
				}
			}
		}
		if far == 0 || float64(farBound) < 0.9*float64(far) {
			t.Errorf("%s: %d of %d points of the grid farther than 3 cells have a positive bound, want at least 90 %%", tc.name, farBound, far)
		}
		t.Logf("%s: %v cells of %.3g, %d of %d far points bounded", tc.name, g.n, g.h, farBound, far)
	}
}

// TestOutsideGridDropped checks that shapes whose grid could cull nothing
// the box and DOP tests keep have none (a box, a square), and that
// concave meshes keep theirs.
func TestOutsideGridDropped(t *testing.T) {
	box, err := NewBox(mgl64.Vec3{-1, -0.2, -3}, mgl64.Vec3{2, 0.3, 1})
	if err != nil {
		t.Fatal(err)
	}
	if box.grid != nil {
		t.Error("a box has an outside grid")
	}
	square, err := NewPolygon([]mgl64.Vec2{{0, 0}, {2, 0}, {2, 2}, {0, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if square.grid != nil {
		t.Error("a square has an outside grid")
	}
	names := []string{"bunny", "torus", "duck", "teddy"}
	for i, s := range testMeshes(t, names...) {
		if s.grid == nil {
			t.Errorf("%s has no outside grid", names[i])
		}
	}
}

// TestGridDistances checks the grid's squared box distances against brute
// force (every cell against every marked cell) on random sparse markings
// of small grids, and the 1D transform on lines with no marked cell.
func TestGridDistances(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 40; trial++ {
		g := &outsideGrid{n: [3]int{1 + rng.IntN(9), 1 + rng.IntN(9), 1 + rng.IntN(9)}}
		total := g.n[0] * g.n[1] * g.n[2]
		surf := make([]bool, total)
		p := []float64{0, 0.02, 0.2}[trial%3]
		for i := range surf {
			surf[i] = rng.Float64() < p
		}
		got := g.distances(surf)
		for i := range surf {
			want := int32(gridInf)
			xi, yi, zi := i%g.n[0], i/g.n[0]%g.n[1], i/(g.n[0]*g.n[1])
			for j, m := range surf {
				if !m {
					continue
				}
				xj, yj, zj := j%g.n[0], j/g.n[0]%g.n[1], j/(g.n[0]*g.n[1])
				d := int32(0)
				for _, o := range []int{xi - xj, yi - yj, zi - zj} {
					if o < 0 {
						o = -o
					}
					if o > 1 {
						d += int32((o - 1) * (o - 1))
					}
				}
				want = min(want, d)
			}
			if got[i] != want {
				t.Fatalf("trial %d, grid %v, cell %d: %d, want %d", trial, g.n, i, got[i], want)
			}
		}
	}
}

// lowerBound (for the tests) returns a lower bound of the distance from the point
// (x, y, z) of the shape's frame to the surface, valid if positive: the
// point then lies outside. Points off the grid get 0.
func (g *outsideGrid) lowerBound(x, y, z float64) float64 {
	k, _ := g.cell(x, y, z)
	return float64(k) * g.h / gridQuant
}
