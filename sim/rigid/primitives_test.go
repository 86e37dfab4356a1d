package rigid_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// TestPrimitivesRest drops narrow's round shapes on the ground: a sphere,
// a capsule lying and one standing, a cylinder standing and one lying.
// Each comes to rest asleep with its centre where the shape's lowest
// face puts it: within the inscribed polyhedron's shortfall (1 − cos of
// half a segment's angle) and the solver's 5 mm slop of its round height.
func TestPrimitivesRest(t *testing.T) {
	const r, h, segs = 0.3, 0.4, 16
	sphere, err := narrow.NewSphere(r, segs)
	if err != nil {
		t.Fatal(err)
	}
	capsule, err := narrow.NewCapsule(r, h, segs)
	if err != nil {
		t.Fatal(err)
	}
	cylinder, err := narrow.NewCylinder(r, h, segs)
	if err != nil {
		t.Fatal(err)
	}
	lying := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1})
	shortfall := r * (1 - math.Cos(math.Pi/segs)) // across a flat of the polygon
	for _, tt := range []struct {
		name   string
		shape  *narrow.Shape
		rot    mgl64.Quat
		height float64 // of the centre, on the round shape
		slack  float64 // the polyhedron's lowest face below the round shape's
	}{
		{"sphere", sphere, mgl64.QuatIdent(), r, r * (1 - math.Cos(math.Pi/8))},
		{"capsule lying", capsule, lying, r, shortfall},
		{"capsule standing", capsule, mgl64.QuatIdent(), h + r, 0},
		{"cylinder standing", cylinder, mgl64.QuatIdent(), h, 0},
		{"cylinder lying", cylinder, lying, r, shortfall},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := newWorld(t, nil)
			id, err := w.AddBody(rigid.NewBodyDef(tt.shape, narrow.Pose{Pos: mgl64.Vec3{0, tt.height + 0.3, 0}, Rot: tt.rot}))
			if err != nil {
				t.Fatal(err)
			}
			run(t, w, 300)
			b := w.Body(id)
			y := b.CenterOfMass()[1]
			t.Logf("centre at %.4f (round %.4f), asleep %v", y, tt.height, b.Sleeping())
			if y > tt.height+1e-3 || y < tt.height-tt.slack-0.006 {
				t.Errorf("centre at %.4f, want %.4f − [0, %.4f + slop]", y, tt.height, tt.slack)
			}
			if !b.Sleeping() {
				t.Errorf("not asleep after 5 s (speed %.4f m/s)", b.LinearVelocity().Len())
			}
		})
	}
}
