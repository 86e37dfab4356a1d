package cpubackend_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// exact2dShape is one named concave polygon of the 2D exactness test.
type exact2dShape struct {
	name string
	s    *narrow.Shape
}

// exact2dPolygon builds a polygon or fails the test.
func exact2dPolygon(t testing.TB, outer []mgl64.Vec2, holes ...[]mgl64.Vec2) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewPolygon(outer, holes...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// exact2dComb is a comb: a base bar of height base under n rectangular teeth
// of height h, over the width w; 4n+2 vertices, counter-clockwise.
func exact2dComb(n int, w, base, h float64) []mgl64.Vec2 {
	p := w / float64(n)
	out := []mgl64.Vec2{{0, 0}, {w, 0}}
	for i := n - 1; i >= 0; i-- {
		x0 := float64(i)*p + p/2 // tooth i spans [x0, x1]
		x1 := float64(i+1) * p
		out = append(out, mgl64.Vec2{x1, h}, mgl64.Vec2{x0, h}, mgl64.Vec2{x0, base}, mgl64.Vec2{float64(i) * p, base})
	}
	return out
}

// exact2dStar is a star-shaped outline around the origin: n vertices at
// evenly spaced angles with the radii given by r.
func exact2dStar(n int, r func(i int) float64) []mgl64.Vec2 {
	out := make([]mgl64.Vec2, n)
	for i := range out {
		s, c := math.Sincos(2 * math.Pi * float64(i) / float64(n))
		ri := r(i) // once: r may draw from an RNG
		out[i] = mgl64.Vec2{ri * c, ri * s}
	}
	return out
}

func exact2dShapes(t testing.TB) []exact2dShape {
	t.Helper()
	rng := rand.New(rand.NewPCG(2024, 60))
	return []exact2dShape{
		{"L", exact2dPolygon(t, []mgl64.Vec2{{0, 0}, {2, 0}, {2, 0.6}, {0.6, 0.6}, {0.6, 2}, {0, 2}})},
		{"star5", exact2dPolygon(t, exact2dStar(10, func(i int) float64 { return []float64{1, 0.4}[i%2] }))},
		{"comb450", exact2dPolygon(t, exact2dComb(112, 2, 0.2, 1))},
		{"cup", exact2dPolygon(t, []mgl64.Vec2{{0, 0}, {1.5, 0}, {1.5, 1.5}, {1.2, 1.5}, {1.2, 0.3}, {0.3, 0.3}, {0.3, 1.5}, {0, 1.5}})},
		{"holed", exact2dPolygon(t,
			[]mgl64.Vec2{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}},
			[]mgl64.Vec2{{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}})},
		{"rstar60", exact2dPolygon(t, exact2dStar(60, func(int) float64 { return 0.5 + 0.5*rng.Float64() }))},
	}
}

func TestExact2DShapes(t *testing.T) {
	shapes := exact2dShapes(t)
	want := map[string]int{"L": 6, "star5": 10, "comb450": 450, "cup": 8, "holed": 8, "rstar60": 60}
	for _, sh := range shapes {
		if sh.s.Dim() != narrow.Dim2 || sh.s.NumVertices() != want[sh.name] || sh.s.NumPrims() != want[sh.name] {
			t.Errorf("%s: dim %v, %d vertices, %d segments; want 2D with %d", sh.name, sh.s.Dim(), sh.s.NumVertices(), sh.s.NumPrims(), want[sh.name])
		}
	}
}

// TestStandardMatchesReference2D checks the standard algorithm on concave
// polygons (with a hole, a 450-vertex comb, ...) against each other: the BVH
// and the basic traversal agree bit for bit, and both match the brute-force
// reference.
func TestStandardMatchesReference2D(t *testing.T) {
	shapes := exact2dShapes(t)
	poses := 40
	if testing.Short() {
		poses = 10
	}
	bvhP := narrow.Params{Method: narrow.MethodStandard}
	basicP := narrow.Params{Method: narrow.MethodStandard, Traversal: narrow.TraversalBasic}
	for i := range shapes {
		for j := i; j < len(shapes); j++ {
			a, b := shapes[i], shapes[j]
			t.Run(a.name+"-"+b.name, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(7, uint64(100*i+j)))
				scale := max(a.s.Size(), b.s.Size())
				total, border := 0, 0
				for k := 0; k < poses; k++ {
					pa, pb := reference.RandomOverlap(rng, a.s, b.s, 0.5)
					label := fmt.Sprintf("pose %d", k)
					bvh := detectOne(t, bvhP, a.s, b.s, pa, pb)
					basic := detectOne(t, basicP, a.s, b.s, pa, pb)
					sameContacts(t, label+" bvh vs basic", bvh, basic)
					ref := reference.Contacts(a.s, b.s, pa, pb)
					border += compareWithReference(t, label+" bvh", bvh, ref, scale)
					compareWithReference(t, label+" basic", basic, ref, scale)
					for _, c := range bvh {
						if c.P[2] != 0 || c.Dir[2] != 0 {
							t.Errorf("%s: contact off the plane: %+v", label, c)
						}
					}
					total += len(ref)
				}
				t.Logf("%d reference contacts over %d poses, %d borderline", total, poses, border)
				if total == 0 {
					t.Fatal("no contacts at all: poses do not overlap")
				}
				if border == total {
					t.Fatal("every reference contact is borderline: nothing was compared")
				}
			})
		}
	}
}
