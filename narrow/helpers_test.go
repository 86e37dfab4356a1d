package narrow

import (
	"math"
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
