package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// loadMesh loads a test mesh scaled so that its Size (half the bounding-box
// diagonal) is about 1, which makes the four meshes comparable.
func loadMesh(t testing.TB, name string) *narrow.Shape {
	t.Helper()
	s, err := narrow.LoadOBJ("../testdata/" + name + ".obj")
	if err != nil {
		t.Fatal(err)
	}
	k := 1 / s.Size()
	vs := make([]mgl64.Vec3, s.NumVertices())
	for i := range vs {
		vs[i] = s.Vertex(i).Mul(k)
	}
	ts := s.AppendTriangles(nil)
	s, err = narrow.NewMesh(vs, ts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// detectOne runs one step on one pair with a fresh backend and returns a
// copy of its contacts.
func detectOne(t testing.TB, p narrow.Params, a, b *narrow.Shape, pa, pb narrow.Pose) []narrow.Contact {
	t.Helper()
	contacts, _, _ := detectFull(t, p, a, b, pa, pb)
	return contacts
}

// compareWithReference checks fast-path contacts against the brute-force
// reference: the same (side, vertex) set except for borderline rays, and the
// same depth and direction.
func compareWithReference(t *testing.T, label string, got []narrow.Contact, ref []reference.Contact, scale float64) (borderline int) {
	t.Helper()
	type key struct {
		s narrow.Side
		v int
	}
	rm := map[key]reference.Contact{}
	for _, r := range ref {
		rm[key{r.From, r.Vertex}] = r
		if r.Borderline {
			borderline++
		}
	}
	gm := map[key]narrow.Contact{}
	for _, c := range got {
		k := key{c.From, int(c.Vertex)}
		gm[k] = c
		r, ok := rm[k]
		if !ok {
			t.Errorf("%s: extra contact from %v vertex %d prim %d depth %g", label, c.From, c.Vertex, c.Prim, c.Depth)
			continue
		}
		if r.Borderline {
			continue
		}
		if math.Abs(r.Depth-c.Depth) > 1e-7*scale {
			t.Errorf("%s: %v vertex %d: depth %.12g, reference %.12g (prim %d vs %d)", label, c.From, c.Vertex, c.Depth, r.Depth, c.Prim, r.Prim)
		}
		if c.Dir.Sub(r.Normal).Len() > 1e-6 && int(c.Prim) != r.Prim {
			t.Errorf("%s: %v vertex %d: dir %v prim %d, reference %v prim %d", label, c.From, c.Vertex, c.Dir, c.Prim, r.Normal, r.Prim)
		}
		if c.P.Sub(r.P).Len() > 1e-9*scale {
			t.Errorf("%s: %v vertex %d: P %v, reference %v", label, c.From, c.Vertex, c.P, r.P)
		}
	}
	for k, r := range rm {
		if _, ok := gm[k]; !ok && !r.Borderline {
			t.Errorf("%s: missed contact from %v vertex %d (prim %d, t %g, depth %g)", label, k.s, k.v, r.Prim, r.T, r.Depth)
		}
	}
	return borderline
}

// checkContactOrder checks narrow.PairResult's order: contacts from A
// first, each side's by increasing vertex. Standard steps visit vertices
// block by block (narrow.Shape.VertexOrder), the larger meshes over
// several work items, so this order is restored, not given.
func checkContactOrder(t *testing.T, label string, cs []narrow.Contact) {
	t.Helper()
	for i := 1; i < len(cs); i++ {
		p, c := cs[i-1], cs[i]
		if p.From > c.From || p.From == c.From && p.Vertex >= c.Vertex {
			t.Errorf("%s: contact %d (%v vertex %d) after %v vertex %d", label, i, c.From, c.Vertex, p.From, p.Vertex)
			return
		}
	}
}

// iterativeStep runs a standard step and then an iterative one at the same
// poses on a fresh iterative backend, and returns a copy of the iterative
// step's contacts: the rays the standard step left, walked in their order.
func iterativeStep(t *testing.T, a, b *narrow.Shape, pa, pb narrow.Pose) []narrow.Contact {
	t.Helper()
	be, ia, ib := pairBackend(t, narrow.Params{Method: narrow.MethodIterative}, a, b)
	var res narrow.Result
	for step := 0; step < 2; step++ {
		if err := be.Detect(context.Background(), []narrow.Pair{{ID: 1, A: ia, B: ib, PoseA: pa, PoseB: pb}}, &res); err != nil {
			t.Fatal(err)
		}
	}
	if !res.Pairs[0].Iterative {
		t.Fatal("the second step was not iterative")
	}
	return append([]narrow.Contact(nil), res.Pairs[0].Contacts...)
}

func sameContacts(t *testing.T, label string, a, b []narrow.Contact) {
	t.Helper()
	if len(a) != len(b) {
		t.Errorf("%s: %d contacts vs %d", label, len(a), len(b))
		return
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("%s: contact %d differs: %+v vs %+v", label, i, a[i], b[i])
			return
		}
	}
}

func TestStandardMatchesReference3D(t *testing.T) {
	cases := []struct {
		a, b  string
		poses int
	}{
		{"bunny", "bunny", 24},
		{"torus", "torus", 16},
		{"bunny", "torus", 16},
		{"teddy", "bunny", 6},
		{"duck", "torus", 4},
	}
	if testing.Short() {
		for i := range cases {
			cases[i].poses = max(1, cases[i].poses/4)
		}
	}
	for _, tc := range cases {
		t.Run(tc.a+"-"+tc.b, func(t *testing.T) {
			matchReference(t, loadMesh(t, tc.a), loadMesh(t, tc.b), tc.poses, uint64(len(tc.a)*31+len(tc.b)))
		})
	}
}

// matchReference checks the standard step of a and b at random overlapping
// poses (poses that give contacts) against the brute-force reference, the
// BVH traversal against the basic one, and the contacts' order.
func matchReference(t *testing.T, a, b *narrow.Shape, poses int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, seed))
	total, border := 0, 0
	for i, used := 0, 0; used < poses && i < 8*poses; i++ {
		pa, pb := reference.RandomOverlap(rng, a, b, 0.5)
		ref := reference.Contacts(a, b, pa, pb)
		if len(ref) == 0 {
			continue // the bodies happen not to intersect
		}
		used++
		label := fmt.Sprintf("pose %d", i)
		bvh := detectOne(t, narrow.Params{Method: narrow.MethodStandard}, a, b, pa, pb)
		basic := detectOne(t, narrow.Params{Method: narrow.MethodStandard, Traversal: narrow.TraversalBasic}, a, b, pa, pb)
		sameContacts(t, label+" bvh vs basic", bvh, basic)
		checkContactOrder(t, label, bvh)
		checkContactOrder(t, label+" iterative step", iterativeStep(t, a, b, pa, pb))
		border += compareWithReference(t, label, bvh, ref, max(a.Size(), b.Size()))
		total += len(ref)
	}
	t.Logf("%d reference contacts, %d borderline", total, border)
	if total == 0 {
		t.Fatal("no contacts at all: poses do not overlap")
	}
}

// TestGeneratedShapesMatchReference is TestStandardMatchesReference3D for
// the shapes narrow generates: round shapes (rims, poles where many
// triangles meet) and a heightfield with flat stretches (coplanar
// triangles, where rays tie on shared edges).
func TestGeneratedShapesMatchReference(t *testing.T) {
	must := func(s *narrow.Shape, err error) *narrow.Shape {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	heights := make([][]float64, 9)
	for i := range heights {
		heights[i] = make([]float64, 9)
		for j := range heights[i] {
			if i > 2 && j > 3 {
				heights[i][j] = 0.3 * math.Sin(float64(i+j)) // flat where i ≤ 2 or j ≤ 3
			}
		}
	}
	shapes := map[string]*narrow.Shape{
		"sphere":      must(narrow.NewSphere(0.6, 16)),
		"capsule":     must(narrow.NewCapsule(0.3, 0.5, 12)),
		"cylinder":    must(narrow.NewCylinder(0.5, 0.4, 10)),
		"heightfield": must(narrow.NewHeightfield(heights, 0.25, 0.25, -0.6)),
		"bunny":       loadMesh(t, "bunny"),
	}
	poses := 12
	if testing.Short() {
		poses = 3
	}
	for _, pair := range [][2]string{{"sphere", "cylinder"}, {"capsule", "bunny"}, {"cylinder", "heightfield"}, {"heightfield", "bunny"}, {"sphere", "heightfield"}, {"capsule", "capsule"}} {
		t.Run(pair[0]+"-"+pair[1], func(t *testing.T) {
			matchReference(t, shapes[pair[0]], shapes[pair[1]], poses, uint64(len(pair[0])*31+len(pair[1])))
		})
	}
}
