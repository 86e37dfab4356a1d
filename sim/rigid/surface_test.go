package rigid

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// TestSurfaceVelocity: a shape deformed by a linear map (x → M·x) has
// vertex velocities (M − I)·x / dt, which barycentric and edge
// interpolation reproduce exactly at any point of the surface: the
// velocity at a contact's vertex, at the point of a triangle or of an edge
// it is pushed to, must be (M − I)·q / dt, rotated into the world.
func TestSurfaceVelocity(t *testing.T) {
	old, err := narrow.NewBox(mgl64.Vec3{-1, -0.5, -2}, mgl64.Vec3{1, 0.5, 2})
	if err != nil {
		t.Fatal(err)
	}
	m := mgl64.Mat3{1.1, 0.05, 0, 0, 0.9, 0.02, 0.03, 0, 1.2} // column-major
	verts := make([]mgl64.Vec3, old.NumVertices())
	for i := range verts {
		verts[i] = m.Mul3x1(old.Vertex(i))
	}
	s, err := old.Deform(verts)
	if err != nil {
		t.Fatal(err)
	}
	const dt = 1.0 / 60
	pose, err := narrow.NewPose(mgl64.Vec3{3, -1, 2}, mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize()))
	if err != nil {
		t.Fatal(err)
	}
	b := Body{shape: s}
	b.setPose(pose)
	b.setDeformation(old, s, dt, 5)
	if b.dstep != 6 {
		t.Fatalf("dstep %d, want 6", b.dstep)
	}
	tr := pose.Transform()
	field := func(local mgl64.Vec3) mgl64.Vec3 {
		return b.rot.mulVec(m.Mul3x1(local).Sub(local).Mul(1 / dt))
	}
	// The old shape's point that moved to local q: M⁻¹·q.
	want := func(q mgl64.Vec3) mgl64.Vec3 { return field(m.Inv().Mul3x1(q)) }
	check := func(label string, got, want mgl64.Vec3) {
		t.Helper()
		if got.Sub(want).Len() > 1e-9*want.Len()+1e-12 {
			t.Errorf("%s: %v, want %v", label, got, want)
		}
	}
	other := narrow.SideB
	// The body's own vertex 3.
	v3 := s.Vertex(3)
	check("own vertex", b.surfaceVelocity(&narrow.Contact{P: tr.Apply(v3), From: narrow.SideA, Vertex: 3}, narrow.SideA), want(v3))
	// A point of triangle 4 that another body's vertex was pushed to.
	tri := s.Prim(4)
	q := s.Vertex(int(tri[0])).Mul(0.2).Add(s.Vertex(int(tri[1])).Mul(0.5)).Add(s.Vertex(int(tri[2])).Mul(0.3))
	n := tr.ApplyDir(s.FaceNormal(4))
	c := narrow.Contact{P: mgl64.Vec3(tr.Apply(q)).Sub(mgl64.Vec3(n).Mul(0.1)), Dir: mgl64.Vec3(n), Depth: 0.1, From: other, Vertex: 0, Prim: 4}
	check("triangle point", b.surfaceVelocity(&c, narrow.SideA), want(q))
	// Edges: the body's own edge 2 at a third of its length, and the
	// point of its edge 5 another body's edge was pushed to.
	for _, tc := range []struct {
		name string
		from narrow.Side
	}{{"own edge", narrow.SideA}, {"other's edge", other}} {
		e := s.Edge(2).V
		p := s.Vertex(int(e[0])).Mul(2.0 / 3).Add(s.Vertex(int(e[1])).Mul(1.0 / 3))
		c := narrow.Contact{Feature: narrow.FeatureEdge, P: tr.Apply(p), From: tc.from, Vertex: 2, Prim: 9}
		if tc.from == other {
			c = narrow.Contact{Feature: narrow.FeatureEdge, P: mgl64.Vec3(tr.Apply(p)).Sub(mgl64.Vec3{0, 0.05, 0}), Dir: mgl64.Vec3{0, 1, 0}, Depth: 0.05, From: other, Vertex: 9, Prim: 2}
		}
		check(tc.name, b.surfaceVelocity(&c, narrow.SideA), want(p))
	}
	// No deformation: a shape of another topology, or the same vertices.
	for _, tc := range []struct {
		name     string
		old, now *narrow.Shape
	}{{"same vertices", s, s}, {"other topology", old, mustMesh(t)}} {
		b.setDeformation(tc.old, tc.now, dt, 5)
		if b.dstep != 0 {
			t.Errorf("%s: a deformation recorded", tc.name)
		}
	}
	if l := barycentric(mgl64.Vec3{5, 5, 0}, mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 1, 0}); math.Abs(l[0]+l[1]+l[2]-1) > 1e-15 || l[0] < 0 || l[1] < 0 || l[2] < 0 {
		t.Errorf("a point off the triangle: %v, want clamped coordinates", l)
	}
}

// mustMesh returns a tetrahedron.
func mustMesh(t *testing.T) *narrow.Shape {
	s, err := narrow.NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
