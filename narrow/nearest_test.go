package narrow

import (
	"math/rand/v2"
	"testing"
)

// TestNearestHierarchy: the hierarchy's answer is the scan over every
// primitive's, bit for bit (same point, distance and primitive), at points
// inside, on and around meshes and a polygon.
func TestNearestHierarchy(t *testing.T) {
	star, err := NewPolygon(offStar())
	if err != nil {
		t.Fatal(err)
	}
	shapes := append(testMeshes(t, "bunny", "torus"), star)
	rng := rand.New(rand.NewPCG(3, 5))
	for _, s := range shapes {
		if s.fat == nil {
			t.Fatalf("%d primitives in one leaf: nothing to test", len(s.prims))
		}
		flat := *s
		flat.fat = nil // Nearest scans every primitive
		for i := 0; i < 2000; i++ {
			x := randomNear(rng, s, i)
			c, d, p, in := s.Nearest(x)
			fc, fd, fp, fin := flat.Nearest(x)
			if c != fc || d != fd || p != fp || in != fin {
				t.Fatalf("%d prims, point %v: hierarchy %v at %g on %d (inside %v), scan %v at %g on %d (inside %v)", len(s.prims), x, c, d, p, in, fc, fd, fp, fin)
			}
		}
	}
}

// randomNear returns a point in s's box grown by half its size (uniform),
// or, every third call, a vertex of s or a point on one of its primitives.
func randomNear(rng *rand.Rand, s *Shape, i int) [3]float64 {
	switch i % 3 {
	case 1:
		return s.verts[rng.IntN(len(s.verts))]
	case 2:
		p := s.prims[rng.IntN(len(s.prims))]
		u, v := rng.Float64(), rng.Float64()
		if p[2] < 0 {
			return along(s.verts[p[0]], sub3(s.verts[p[1]], s.verts[p[0]]), u)
		}
		if u+v > 1 {
			u, v = 1-u, 1-v
		}
		a := s.verts[p[0]]
		return add3(along(a, sub3(s.verts[p[1]], a), u), sub3(along(a, sub3(s.verts[p[2]], a), v), a))
	}
	lo, hi := s.bounds.Min, s.bounds.Max
	var x [3]float64
	for k := range x {
		g := 0.5 * s.size
		x[k] = lo[k] - g + rng.Float64()*(hi[k]-lo[k]+2*g)
	}
	if s.dim == Dim2 {
		x[2] = 0
	}
	return x
}
