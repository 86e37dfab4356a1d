package narrow_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// TestNearestMatchesReference: Shape.Nearest, in the shape's frame, finds
// the nearest surface point that the brute-force reference finds in the
// world (its own arithmetic: plane projection, then the edges), at random
// poses and points: the same distance, the same point unless another one
// is as near, a primitive the point lies on, and the same side as the
// winding number's.
func TestNearestMatchesReference(t *testing.T) {
	var shapes []*narrow.Shape
	for _, name := range []string{"bunny", "torus", "duck"} {
		s, err := narrow.LoadOBJ(filepath.Join("..", "testdata", name+".obj"))
		if err != nil {
			t.Fatal(err)
		}
		shapes = append(shapes, s)
	}
	gear := make([]mgl64.Vec2, 0, 4*24)
	for i := range cap(gear) {
		r := []float64{0.8, 1, 1, 0.8}[i%4]
		a := 2 * math.Pi * float64(i) / float64(cap(gear))
		gear = append(gear, mgl64.Vec2{r * math.Cos(a), r * math.Sin(a)})
	}
	g, err := narrow.NewPolygon(gear)
	if err != nil {
		t.Fatal(err)
	}
	shapes = append(shapes, g)
	rng := rand.New(rand.NewPCG(9, 2))
	points := 150
	if testing.Short() {
		points = 40
	}
	for _, s := range shapes {
		pose := narrow.Pose{Pos: mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}, Rot: reference.RandomRotation(rng)}
		if s.Dim() == narrow.Dim2 {
			pose = narrow.Pose2D(rng.Float64(), rng.Float64(), 6*rng.Float64())
		}
		tol := 1e-9 * s.Size()
		inside := 0
		b := s.Bounds().Grow(0.3 * s.Size())
		for i := 0; i < points; i++ {
			x := mgl64.Vec3{}
			for k := range 3 {
				x[k] = b.Min[k] + rng.Float64()*(b.Max[k]-b.Min[k])
			}
			if s.Dim() == narrow.Dim2 {
				x[2] = 0
			}
			c, d, p, in := s.Nearest([3]float64(x))
			wx := pose.Rot.Rotate(x).Add(pose.Pos)
			rc, rd, rp, tie := reference.Nearest(s, pose, wx, tol)
			wc := pose.Rot.Rotate(mgl64.Vec3(c)).Add(pose.Pos)
			if diff := d - rd; diff > tol || diff < -tol {
				t.Fatalf("%d prims, point %v: distance %.15g, reference %.15g (prim %d vs %d)", s.NumPrims(), x, d, rd, p, rp)
			}
			if !tie && wc.Sub(rc).Len() > tol {
				t.Fatalf("%d prims, point %v: nearest %v, reference %v", s.NumPrims(), x, wc, rc)
			}
			if d > tol && in != reference.Inside(s, pose, wx) {
				t.Fatalf("%d prims, point %v at %g from the surface: inside %v, the winding number says %v", s.NumPrims(), x, d, in, !in)
			}
			if in {
				inside++
			}
			if on := reference.PrimNearest(s, pose, int(p), wx); on.Sub(wx).Len() > rd+tol {
				t.Fatalf("%d prims, point %v: primitive %d is %g away, not %g", s.NumPrims(), x, p, on.Sub(wx).Len(), rd)
			}
		}
		if inside == 0 || inside == points {
			t.Errorf("%d prims: %d of %d points inside, want both sides tested", s.NumPrims(), inside, points)
		}
	}
}
