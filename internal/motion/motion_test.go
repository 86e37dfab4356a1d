package motion

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// bunny loads the test bunny scaled to Size 1 and moved so that its origin
// is far from its bounding-box centre (the scripts must not care).
func bunny(t *testing.T) *narrow.Shape {
	t.Helper()
	s, err := narrow.LoadOBJ("../../testdata/bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	k := 1 / s.Size()
	off := mgl64.Vec3{0.7, -0.4, 1.3}
	vs := make([]mgl64.Vec3, s.NumVertices())
	for i := range vs {
		vs[i] = s.Vertex(i).Mul(k).Add(off)
	}
	ts := s.AppendTriangles(nil)
	if s, err = narrow.NewMesh(vs, ts); err != nil {
		t.Fatal(err)
	}
	return s
}

// notch is a concave polygon (a square with a notch on top) whose origin
// is outside its bounding box.
func notch(t *testing.T) *narrow.Shape {
	t.Helper()
	loop := []mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0.6, 1}, {0.5, 0.6}, {0.4, 1}, {0, 1}}
	var moved []mgl64.Vec2
	for _, p := range loop {
		moved = append(moved, p.Add(mgl64.Vec2{2, 3}))
	}
	s, err := narrow.NewPolygon(moved)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type shapePair struct {
	name string
	a, b *narrow.Shape
}

func shapePairs(t *testing.T) []shapePair {
	b, n := bunny(t), notch(t)
	return []shapePair{{"bunny", b, b}, {"notch", n, n}}
}

// centreB returns the world position of B's bounding-box centre.
func centreB(s *scene, pb narrow.Pose) mgl64.Vec3 {
	return pb.Rot.Rotate(s.cb).Add(pb.Pos)
}

func TestMotionScriptsTable(t *testing.T) {
	want := []string{"Approach", "Impact", "RestingJitter", "Sliding", "Rotation"}
	got := Scripts()
	if len(got) != len(want) {
		t.Fatalf("%d scripts, want %d", len(got), len(want))
	}
	for i, e := range got {
		if e.Name != want[i] || e.New == nil {
			t.Errorf("script %d: %q (nil generator: %v), want %q", i, e.Name, e.New == nil, want[i])
		}
	}
}

// TestMotionDeterministicAndValid checks that every script gives the same
// poses for the same step whatever the call order, that poses are valid
// (finite, unit quaternions), planar for 2D shapes, and that A stays at
// rest with its box centre at the origin.
func TestMotionDeterministicAndValid(t *testing.T) {
	for _, sp := range shapePairs(t) {
		for _, e := range Scripts() {
			s1 := e.New(sp.a, sp.b, 42)
			s2 := e.New(sp.a, sp.b, 42)
			const n = 40
			var fwd [n][2]narrow.Pose
			for k := 0; k < n; k++ {
				fwd[k][0], fwd[k][1] = s1(k)
			}
			for k := n - 1; k >= 0; k-- {
				pa, pb := s2(k)
				if pa != fwd[k][0] || pb != fwd[k][1] {
					t.Fatalf("%s/%s step %d: poses depend on call order: %v %v vs %v %v", sp.name, e.Name, k, pa, pb, fwd[k][0], fwd[k][1])
				}
			}
			sc := newScene(sp.a, sp.b)
			for k := 0; k < n; k++ {
				for side, p := range fwd[k] {
					if err := p.Validate(); err != nil {
						t.Fatalf("%s/%s step %d side %d: %v", sp.name, e.Name, k, side, err)
					}
					if l := p.Rot.Len(); math.Abs(l-1) > 1e-12 {
						t.Errorf("%s/%s step %d side %d: |q| = %v", sp.name, e.Name, k, side, l)
					}
					if sc.planar && (p.Pos[2] != 0 || p.Rot.V[0] != 0 || p.Rot.V[1] != 0) {
						t.Errorf("%s/%s step %d side %d: pose %v is not planar", sp.name, e.Name, k, side, p)
					}
				}
				pa := fwd[k][0]
				if c := pa.Rot.Rotate(sc.ca).Add(pa.Pos); c.Len() > 1e-12 {
					t.Errorf("%s/%s step %d: A's centre at %v, want the origin", sp.name, e.Name, k, c)
				}
				if pa != fwd[0][0] {
					t.Errorf("%s/%s step %d: A moved", sp.name, e.Name, k)
				}
			}
		}
	}
}

// penetrating checks, with the brute-force reference, that the pair has
// contacts at its poses, and none once B is lifted by lift along +y.
func penetrating(t *testing.T, label string, a, b *narrow.Shape, pa, pb narrow.Pose, lift float64) {
	t.Helper()
	if len(reference.Contacts(a, b, pa, pb)) == 0 {
		t.Errorf("%s: no contacts, want a penetrating pair", label)
	}
	up := pb
	up.Pos = up.Pos.Add(mgl64.Vec3{0, lift, 0})
	if cs := reference.Contacts(a, b, pa, up); len(cs) != 0 {
		t.Errorf("%s: %d contacts with B lifted by %g (first: %+v), want none", label, len(cs), lift, cs[0])
	}
}

func separated(t *testing.T, label string, a, b *narrow.Shape, pa, pb narrow.Pose) {
	t.Helper()
	if cs := reference.Contacts(a, b, pa, pb); len(cs) != 0 {
		t.Errorf("%s: %d contacts, want a separated pair", label, len(cs))
	}
}

func TestMotionApproach(t *testing.T) {
	for _, sp := range shapePairs(t) {
		sc := newScene(sp.a, sp.b)
		size := sc.size
		y0 := sc.touchY(sc.qb, 0, 0)
		script := Approach(sp.a, sp.b, 0)
		prev := math.Inf(1)
		for k := 0; k <= 110; k++ {
			_, pb := script(k)
			c := centreB(sc, pb)
			want := max(y0-ApproachDepth*size, y0+ApproachGap*size-ApproachSpeed*size*float64(k))
			if math.Abs(c[1]-want) > 1e-12 || math.Abs(c[0]) > 1e-12 || math.Abs(c[2]) > 1e-12 {
				t.Fatalf("%s step %d: B's centre %v, want (0, %v, 0)", sp.name, k, c, want)
			}
			if c[1] > prev {
				t.Fatalf("%s step %d: B moves up", sp.name, k)
			}
			prev = c[1]
		}
		pa, pb := script(0)
		separated(t, sp.name+" step 0", sp.a, sp.b, pa, pb)
		pa, pb = script(110)
		penetrating(t, sp.name+" step 110", sp.a, sp.b, pa, pb, (ApproachDepth+0.005)*size)
	}
}

func TestMotionImpact(t *testing.T) {
	for _, sp := range shapePairs(t) {
		sc := newScene(sp.a, sp.b)
		size := sc.size
		y0 := sc.touchY(sc.qb, 0, 0)
		script := Impact(sp.a, sp.b, 0)
		lowest, lowK := math.Inf(1), -1
		for k := 0; k < 40; k++ {
			_, pb := script(k)
			if y := centreB(sc, pb)[1]; y < lowest {
				lowest, lowK = y, k
			}
		}
		if math.Abs(lowest-(y0-ApproachDepth*size)) > 1e-9 || lowK != 10 {
			t.Errorf("%s: deepest at step %d, centre height %v; want step 10 at %v", sp.name, lowK, lowest, y0-ApproachDepth*size)
		}
		pa, pb := script(lowK)
		penetrating(t, sp.name+" deepest", sp.a, sp.b, pa, pb, (ApproachDepth+0.005)*size)
		for _, k := range []int{0, 20, 39} {
			pa, pb := script(k)
			if y := centreB(sc, pb)[1]; math.Abs(y-(y0+ApproachGap*size)) > 1e-9 {
				t.Errorf("%s step %d: centre height %v, want the starting height %v", sp.name, k, y, y0+ApproachGap*size)
			}
			separated(t, sp.name, sp.a, sp.b, pa, pb)
		}
		// Fast: every step of the way down moves by ImpactSpeed.
		_, p3 := script(3)
		_, p4 := script(4)
		if d := centreB(sc, p3).Sub(centreB(sc, p4)).Len(); math.Abs(d-ImpactSpeed*size) > 1e-12 {
			t.Errorf("%s: step moves B by %v, want %v", sp.name, d, ImpactSpeed*size)
		}
	}
}

func TestMotionRestingJitter(t *testing.T) {
	for _, sp := range shapePairs(t) {
		sc := newScene(sp.a, sp.b)
		size := sc.size
		base := mgl64.Vec3{0, sc.touchY(sc.qb, 0, 0) - RestDepth*size, 0}
		s1 := RestingJitter(sp.a, sp.b, 1)
		s2 := RestingJitter(sp.a, sp.b, 2)
		_, b1 := s1(5)
		_, b2 := s2(5)
		if b1 == b2 {
			t.Errorf("%s: seeds 1 and 2 give the same jitter", sp.name)
		}
		_, b6 := s1(6)
		if b1 == b6 {
			t.Errorf("%s: steps 5 and 6 have the same pose", sp.name)
		}
		for k := 0; k < 50; k++ {
			pa, pb := s1(k)
			if d := centreB(sc, pb).Sub(base).Len(); math.Abs(d-JitterMove*size) > 1e-12 {
				t.Fatalf("%s step %d: centre off its rest position by %v, want %v", sp.name, k, d, JitterMove*size)
			}
			if ang := narrow.Angle(pb.Rot, sc.qb); math.Abs(ang-JitterAngle) > 1e-9 {
				t.Fatalf("%s step %d: rotated by %v from rest, want %v", sp.name, k, ang, JitterAngle)
			}
			if k%25 == 0 {
				penetrating(t, sp.name, sp.a, sp.b, pa, pb, (RestDepth+0.005)*size)
			}
		}
	}
}

func TestMotionSliding(t *testing.T) {
	for _, sp := range shapePairs(t) {
		sc := newScene(sp.a, sp.b)
		size := sc.size
		script := Sliding(sp.a, sp.b, 0)
		for k := 0; k < 120; k++ {
			pa, pb := script(k)
			c := centreB(sc, pb)
			wantX := (SlideStart + SlideSpeed*float64(k)) * size
			if math.Abs(c[0]-wantX) > 1e-12 || math.Abs(c[2]) > 1e-12 || pb.Rot != sc.qb {
				t.Fatalf("%s step %d: B's centre %v rotation %v, want x = %v and the rest rotation", sp.name, k, c, pb.Rot, wantX)
			}
			if math.Abs(sc.touchY(sc.qb, c[0], 0)-c[1]-RestDepth*size) > 1e-12 {
				t.Fatalf("%s step %d: penetration is not %v", sp.name, k, RestDepth*size)
			}
			if k%40 == 0 {
				penetrating(t, sp.name, sp.a, sp.b, pa, pb, (RestDepth+0.005)*size)
			}
		}
	}
}

func TestMotionRotation(t *testing.T) {
	for _, sp := range shapePairs(t) {
		sc := newScene(sp.a, sp.b)
		size := sc.size
		script := Rotation(sp.a, sp.b, 0)
		_, p0 := script(0)
		c0 := centreB(sc, p0)
		for k := 1; k < 120; k++ {
			pa, pb := script(k)
			_, prev := script(k - 1)
			if ang := narrow.Angle(prev.Rot, pb.Rot); math.Abs(ang-RotationSpeed) > 1e-9 {
				t.Fatalf("%s step %d: turned by %v, want %v", sp.name, k, ang, RotationSpeed)
			}
			c := centreB(sc, pb)
			if math.Abs(c[0]-c0[0]) > 1e-12 || math.Abs(c[2]-c0[2]) > 1e-12 {
				t.Fatalf("%s step %d: the centre moved sideways: %v, was %v", sp.name, k, c, c0)
			}
			// The axis is the contact direction: B's local axis along it stays put.
			axis := mgl64.Vec3{0, 1, 0}
			if sc.planar {
				axis = mgl64.Vec3{0, 0, 1}
			}
			local := sc.qb.Conjugate().Rotate(axis)
			if d := pb.Rot.Rotate(local).Sub(axis).Len(); d > 1e-9 {
				t.Fatalf("%s step %d: rotation axis moved by %v", sp.name, k, d)
			}
			if k%40 == 0 {
				penetrating(t, sp.name, sp.a, sp.b, pa, pb, (RestDepth+0.005)*size)
			}
		}
	}
}

func contact(from narrow.Side, v int32, depth float64) narrow.Contact {
	return narrow.Contact{From: from, Vertex: v, Depth: depth, Dir: mgl64.Vec3{0, 1, 0}}
}

func TestMotionCompare(t *testing.T) {
	A, B := narrow.SideA, narrow.SideB
	std := []narrow.Contact{contact(A, 1, 0.1), contact(A, 5, 0.2), contact(B, 1, 0.3), contact(B, 9, 0)}
	cases := []struct {
		name             string
		std, got         []narrow.Contact
		erroneous, union int
	}{
		{"both empty", nil, nil, 0, 0},
		{"identical", std, std, 0, 4},
		{"method found nothing", std, nil, 4, 4},
		{"standard found nothing", nil, std, 4, 4},
		{"one missed", std, []narrow.Contact{std[0], std[1], std[3]}, 1, 4},
		{"one extra", std[:3], std, 1, 4},
		{"same vertex, other side", []narrow.Contact{contact(A, 3, 0.1)}, []narrow.Contact{contact(B, 3, 0.1)}, 2, 2},
		{"depth within tol", std, []narrow.Contact{contact(A, 1, 0.1+5e-7), std[1], std[2], std[3]}, 0, 4},
		{"depth beyond tol", std, []narrow.Contact{contact(A, 1, 0.1+2e-6), std[1], std[2], std[3]}, 1, 4},
		{"NaN depth", std, []narrow.Contact{contact(A, 1, math.NaN()), std[1], std[2], std[3]}, 1, 4},
		{"unsorted", std, []narrow.Contact{std[3], std[1], std[0], contact(A, 2, 0.5), std[2]}, 1, 5},
		{"mixed", std, []narrow.Contact{contact(A, 0, 0.1), std[1], contact(B, 1, 0.31)}, 4, 5},
	}
	for _, c := range cases {
		e, u := Compare(c.std, c.got, 1e-6)
		if e != c.erroneous || u != c.union {
			t.Errorf("%s: Compare = (%d, %d), want (%d, %d)", c.name, e, u, c.erroneous, c.union)
		}
		// The metric is symmetric.
		if e2, u2 := Compare(c.got, c.std, 1e-6); e2 != e || u2 != u {
			t.Errorf("%s: Compare is not symmetric: (%d, %d) vs (%d, %d)", c.name, e, u, e2, u2)
		}
	}
	if got := Share(0, 0); got != 0 {
		t.Errorf("Share(0, 0) = %v, want 0", got)
	}
	if got := Share(1, 4); got != 0.25 {
		t.Errorf("Share(1, 4) = %v, want 0.25", got)
	}
	// Unsorted input is not modified.
	in := []narrow.Contact{std[2], std[0]}
	Compare(std, in, 0)
	if in[0] != std[2] || in[1] != std[0] {
		t.Error("Compare reordered its input")
	}
}
