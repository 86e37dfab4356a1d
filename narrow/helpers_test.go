package narrow

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// testMeshes loads the named meshes of the project's testdata (file names
// without ".obj").
func testMeshes(t testing.TB, names ...string) []*Shape {
	t.Helper()
	shapes := make([]*Shape, len(names))
	for i, name := range names {
		s, err := LoadOBJ(filepath.Join("..", "testdata", name+".obj"))
		if err != nil {
			t.Fatal(err)
		}
		shapes[i] = s
	}
	return shapes
}

// offStar returns a 24-vertex star, radii 1 and 0.45 alternating,
// counter-clockwise about (3, 1): off its origin.
func offStar() []mgl64.Vec2 {
	star := make([]mgl64.Vec2, 24)
	for i := range star {
		r := 1.0
		if i%2 == 1 {
			r = 0.45
		}
		a := 2 * math.Pi * float64(i) / float64(len(star))
		star[i] = mgl64.Vec2{3 + r*math.Cos(a), 1 + r*math.Sin(a)}
	}
	return star
}

// centredBox returns the box of half extents x, y, z about the origin.
func centredBox(t testing.TB, x, y, z float64) *Shape {
	t.Helper()
	s, err := NewBox(mgl64.Vec3{-x, -y, -z}, mgl64.Vec3{x, y, z})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// throughMotion is a random translation of a from apart towards b's
// centre (give or take a fifth of b's size) and as far beyond it, b
// standing still: the test motions of the sweeps and casts.
type throughMotion struct {
	a, b   *Shape
	pa, pb Pose
	move   mgl64.Vec3
	// The four directions' transforms at the start (0) and end (1) of
	// the motion: a into b's frame (ab) and b into a's (ba).
	ab0, ab1, ba0, ba1 Direction
}

// newThroughMotion draws a motion of a through b from rng.
func newThroughMotion(rng *rand.Rand, a, b *Shape) *throughMotion {
	m := &throughMotion{a: a, b: b}
	dist := (a.size + b.size) * (0.5 + 0.3*rng.Float64())
	m.pa, m.pb = randomPoses(rng, a, b, dist)
	aim := m.pb.Pos.Add(randVec(rng, false).Mul(0.2 * b.size))
	m.move = aim.Sub(m.pa.Pos).Mul(2)
	end := m.poseAt(1)
	m.ab0.SetPoses(SideA, a, b, &m.pa, &m.pb)
	m.ab1.SetPoses(SideA, a, b, &end, &m.pb)
	m.ba0.SetPoses(SideB, b, a, &m.pb, &m.pa)
	m.ba1.SetPoses(SideB, b, a, &m.pb, &end)
	return m
}

// poseAt is a's pose at fraction f of the motion.
func (m *throughMotion) poseAt(f float64) Pose {
	return Pose{Pos: m.pa.Pos.Add(m.move.Mul(f)), Rot: m.pa.Rot}
}

// overlaps reports whether a and b overlap (Overlap) at fraction f.
func (m *throughMotion) overlaps(t testing.TB, f float64) bool {
	t.Helper()
	hit, err := Overlap(m.a, m.b, m.poseAt(f), m.pb)
	if err != nil {
		t.Fatal(err)
	}
	return hit
}

// firstOverlap returns the first of samples evenly spaced fractions in
// (0, 1] at which a and b overlap, or 1.
func (m *throughMotion) firstOverlap(t testing.TB, samples int) float64 {
	for k := 1; k <= samples; k++ {
		if f := float64(k) / float64(samples); m.overlaps(t, f) {
			return f
		}
	}
	return 1
}
