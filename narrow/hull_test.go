package narrow

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// checkHull checks s against the brute force: its vertices are points,
// every point lies inside or on every face's plane, and so the faces
// support the cloud (each is a face of the hull).
func checkHull(t *testing.T, s *Shape, points []mgl64.Vec3) {
	t.Helper()
	set := make(map[mgl64.Vec3]bool, len(points))
	for _, p := range points {
		set[p] = true
	}
	for v := range s.NumVertices() {
		if !set[s.Vertex(v)] {
			t.Fatalf("hull vertex %d at %v is none of the points", v, s.Vertex(v))
		}
	}
	b := s.Bounds()
	tol := 1e-9 * b.Max.Sub(b.Min).Len()
	for f := range s.NumPrims() {
		n, a := s.FaceNormal(f), s.Vertex(int(s.Prim(f)[0]))
		for i, p := range points {
			if d := n.Dot(p.Sub(a)); d > tol {
				t.Fatalf("point %d lies %v outside face %d", i, d, f)
			}
		}
	}
}

func TestNewConvexHull(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cube := []mgl64.Vec3{}
	for i := range 8 {
		cube = append(cube, mgl64.Vec3{float64(i & 1), float64(i >> 1 & 1), float64(i >> 2 & 1)})
	}
	// Inside points, and points on the faces and edges: not vertices.
	withInside := append([]mgl64.Vec3{{0.5, 0.5, 0.5}, {0.5, 0, 0.5}, {1, 0.25, 0.75}, {0.5, 0, 0}}, cube...)
	for range 200 {
		withInside = append(withInside, mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()})
	}
	var ball []mgl64.Vec3
	for len(ball) < 2000 {
		p := mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		if p.Len() <= 1 {
			ball = append(ball, p)
		}
	}
	bunny := testMeshes(t, "bunny")[0]
	var bunnyPts []mgl64.Vec3
	for v := range bunny.NumVertices() {
		bunnyPts = append(bunnyPts, bunny.Vertex(v))
	}
	bunnyMass, err := bunny.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		points    []mgl64.Vec3
		verts     int     // 0: not checked
		volume    float64 // 0: not checked
		minVolume float64
	}{
		{"cube", cube, 8, 1, 0},
		{"cube with inner, face and edge points", withInside, 8, 1, 0},
		{"2,000 points in a ball", ball, 0, 0, 0.9 * 4 / 3 * math.Pi},
		{"the bunny's vertices", bunnyPts, 0, 0, bunnyMass.Mass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewConvexHull(tt.points)
			if err != nil {
				t.Fatal(err)
			}
			checkHull(t, s, tt.points)
			m, err := s.MassProps(1)
			if err != nil {
				t.Fatal(err)
			}
			if tt.verts > 0 && s.NumVertices() != tt.verts {
				t.Errorf("%d vertices, want %d", s.NumVertices(), tt.verts)
			}
			if tt.volume > 0 && math.Abs(m.Mass-tt.volume) > 1e-9 {
				t.Errorf("volume %v, want %v", m.Mass, tt.volume)
			}
			if m.Mass < tt.minVolume {
				t.Errorf("volume %v, want at least %v", m.Mass, tt.minVolume)
			}
			t.Logf("%d points: %d vertices, %d triangles, volume %.4f", len(tt.points), s.NumVertices(), s.NumPrims(), m.Mass)
		})
	}
}

func TestNewConvexHullErrors(t *testing.T) {
	line := []mgl64.Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {0.5, 0.5, 0.5}}
	plane := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.3, 0.2, 0}}
	for _, tt := range []struct {
		name   string
		points []mgl64.Vec3
		kind   error
		vertex int
	}{
		{"three points", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, ErrDegenerate, -1},
		{"one point four times", []mgl64.Vec3{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, ErrDegenerate, -1},
		{"a line", line, ErrDegenerate, -1},
		{"a plane", plane, ErrDegenerate, -1},
		{"NaN", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, math.NaN()}}, ErrNonFinite, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewConvexHull(tt.points)
			var se *ShapeError
			if s != nil || !errors.Is(err, tt.kind) || !errors.As(err, &se) || se.Vertex != tt.vertex {
				t.Fatalf("NewConvexHull = %v, %v; want a *ShapeError wrapping %v, vertex %d", s, err, tt.kind, tt.vertex)
			}
		})
	}
}

// TestNewConvexHullRandom: clouds of every shape the generator makes
// (few points, flat boxes, points on a sphere, duplicates) give hulls
// that hold every point.
func TestNewConvexHullRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 300 {
		n := 4 + rng.IntN(60)
		pts := make([]mgl64.Vec3, n)
		kind := trial % 3
		for i := range pts {
			switch kind {
			case 0: // a flat box
				pts[i] = mgl64.Vec3{rng.Float64() * 10, rng.Float64() * 0.1, rng.Float64()}
			case 1: // on a sphere
				z, a := 2*rng.Float64()-1, 2*math.Pi*rng.Float64()
				r := math.Sqrt(1 - z*z)
				pts[i] = mgl64.Vec3{r * math.Cos(a), r * math.Sin(a), z}
			default: // a cube's lattice, with repeats
				pts[i] = mgl64.Vec3{float64(rng.IntN(3)), float64(rng.IntN(3)), float64(rng.IntN(3))}
			}
		}
		s, err := NewConvexHull(pts)
		if err != nil {
			if errors.Is(err, ErrDegenerate) && kind == 2 {
				continue // a lattice draw can be flat
			}
			t.Fatalf("trial %d (%d points, kind %d): %v", trial, n, kind, err)
		}
		checkHull(t, s, pts)
	}
}

// FuzzNewConvexHull reads points from the bytes (a coordinate from each
// byte, on a lattice of 16 steps, so that ties, repeats and flat clouds
// are common) and checks that NewConvexHull returns a hull holding every
// point or a *ShapeError, and never panics.
func FuzzNewConvexHull(f *testing.F) {
	f.Add([]byte{0, 0, 0, 15, 0, 0, 0, 15, 0, 0, 0, 15})
	f.Add([]byte{0, 0, 0, 15, 0, 0, 0, 15, 0, 0, 0, 15, 5, 5, 5, 15, 15, 15, 7, 0, 3})
	f.Add([]byte{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		var pts []mgl64.Vec3
		for i := 0; i+2 < len(data) && len(pts) < 200; i += 3 {
			pts = append(pts, mgl64.Vec3{float64(data[i] % 16), float64(data[i+1] % 16), float64(data[i+2] % 16)})
		}
		s, err := NewConvexHull(pts)
		if err != nil {
			var se *ShapeError
			if s != nil || !errors.As(err, &se) {
				t.Fatalf("NewConvexHull = %v, %v; want a *ShapeError", s, err)
			}
			return
		}
		checkHull(t, s, pts)
	})
}
