package narrow

import (
	"math"
	"testing"
)

// FuzzOutsideGrid checks the outside distance grid's bounds (used to cull
// vertices, edges and blocks: a wrong bound loses contacts) at the points
// where rounding or a cell's edge could make them wrong: cell corners and
// faces, the shape's vertices and points of its edges, each moved by a
// few of its rounding tolerances or a fraction of a cell, on the bunny
// and the torus. A positive lower bound must not exceed the point's
// distance to the surface (nor be positive inside), and a point the grid
// culls for an extension must lie outside and farther than it, as
// TestOutsideGridConservative checks at random points. Run it with
//
//	go test ./narrow -run '^$' -fuzz '^FuzzOutsideGrid$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzOutsideGrid(f *testing.F) {
	shapes := testMeshes(f, "bunny", "torus")
	f.Add([]byte{0, 0, 10, 20, 30, 0, 0, 0})
	f.Add([]byte{1, 1, 5, 0, 0, 8, 8, 8})
	f.Add([]byte{0, 2, 7, 1, 9, 2, 4, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 8 {
			return
		}
		s := shapes[int(data[0])%len(shapes)]
		g := s.grid
		var p [3]float64
		switch data[1] % 3 {
		case 0: // a cell corner, or a point of a cell's face
			for a := range 3 {
				p[a] = g.lo[a] + float64(int(data[2+a])%(g.n[a]+3)-1)*g.h
			}
		case 1: // a vertex
			p = s.verts[(int(data[2])|int(data[3])<<8)%len(s.verts)]
		default: // a point of an edge: a triangle's corner towards the next
			t := s.prims[(int(data[2])|int(data[3])<<8)%len(s.prims)]
			u := float64(data[4]%17) / 16
			a, b := s.verts[t[0]], s.verts[t[1]]
			for k := range 3 {
				p[k] = a[k] + u*(b[k]-a[k])
			}
		}
		// Moved by up to ±7 tolerances, or by a sixteenth of a cell.
		for a := range 3 {
			step := s.tEps
			if data[5]&1 != 0 {
				step = g.h / 16
			}
			p[a] += float64(int(data[5+a]>>1%15)-7) * step
		}
		dist, inside := surfaceDistance(s, p)
		if lb := g.lowerBound(p[0], p[1], p[2]); lb > 0 && (inside || lb > dist*(1+1e-12)) {
			t.Fatalf("point %v (distance %v, inside %v): lower bound %v", p, dist, inside, lb)
		}
		for _, ext := range []float64{s.tEps, 0.5 * g.h, 1.7 * g.h, 0.05 * s.size} {
			if k := g.minCull(ext); k != 0 && g.far(p[0], p[1], p[2], k) && (inside || dist <= ext) {
				t.Fatalf("point %v (distance %v, inside %v) culled for extension %v", p, dist, inside, ext)
			}
		}
		if math.IsNaN(dist) {
			t.Fatalf("point %v: distance NaN", p)
		}
	})
}
