package narrow

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestBoundingSphere: the sphere holds every vertex, is no larger than the
// one about the bounding box's centre (hence than Size), and for the duck
// as stored in its file, whose origin lies far off its centre, it is much
// smaller than the radius about the origin (the radius of Eq. 2 in the
// paper's form).
func TestBoundingSphere(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxFrac float64 // largest radius / Radius() expected
	}{
		{"bunny.obj", 1},
		{"torus.obj", 1},
		{"teddy.obj", 1},
		{"duck.obj", 0.6},
	} {
		s, err := LoadOBJ(filepath.Join("..", "testdata", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		x, y, z, r := s.BoundingSphere()
		c := mgl64.Vec3{x, y, z}
		boxR := 0.0
		for _, v := range s.verts {
			if d := mgl64.Vec3(v).Sub(c).Len(); d > r {
				t.Errorf("%s: vertex %v is %.17g from the centre, radius %.17g", tc.name, v, d, r)
			}
			boxR = max(boxR, mgl64.Vec3(v).Sub(s.bounds.Center()).Len())
		}
		if r > boxR*(1+1e-12) || r > s.Size()*(1+1e-12) {
			t.Errorf("%s: radius %.17g above the box centre's %.17g or Size %.17g", tc.name, r, boxR, s.Size())
		}
		if r > tc.maxFrac*s.Radius()*(1+2e-12) {
			t.Errorf("%s: radius %.17g, Radius about the origin %.17g: want at most %g of it", tc.name, r, s.Radius(), tc.maxFrac)
		}
		t.Logf("%s: centre %.3f, radius %.4f; about the origin %.4f; Size %.4f", tc.name, c, r, s.Radius(), s.Size())
	}
	// A symmetric shape far from its origin: the centre is its own.
	b, err := NewBox(mgl64.Vec3{9, -1, -2}, mgl64.Vec3{11, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	x, y, z, r := b.BoundingSphere()
	if (mgl64.Vec3{x, y, z}).Sub(mgl64.Vec3{10, 0, 0}).Len() > 1e-9 || math.Abs(r-math.Sqrt(6)) > 1e-9 {
		t.Errorf("box: sphere (%v, %v, %v) r %v, want (10, 0, 0) r √6", x, y, z, r)
	}
}
