package iterative_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
)

func TestStoreLookupEmpty(t *testing.T) {
	var st iterative.Store
	if s, prev := st.Lookup(0, 1, 0, 1); s != nil || prev != -1 {
		t.Errorf("Lookup on a zero Store = %p, %d; want nil, -1", s, prev)
	}
	st.Begin()
	if s, prev := st.Lookup(0, 1, 0, 1); s != nil || prev != -1 {
		t.Errorf("Lookup on an empty Store = %p, %d; want nil, -1", s, prev)
	}
	if st.Len() != 0 {
		t.Errorf("Len = %d, want 0", st.Len())
	}
}

// lookup is Store.Lookup at batch index 0 without the duplicate's index.
func lookup(st *iterative.Store, id uint64, a, b narrow.ShapeID) *iterative.PairState {
	s, _ := st.Lookup(0, id, a, b)
	return s
}

func TestStoreNewPutLookup(t *testing.T) {
	var st iterative.Store
	st.Begin()
	s := st.New(3, 4)
	if s == nil || s.A != 3 || s.B != 4 || s.Valid {
		t.Fatalf("New(3, 4) = %+v, want fresh state for shapes 3, 4", s)
	}
	if got := lookup(&st, 7, 3, 4); got != nil {
		t.Fatalf("Lookup before Put = %p, want nil", got)
	}
	st.Put(0, 7, s)
	st.Sweep()
	tests := []struct {
		name string
		id   uint64
		a, b narrow.ShapeID
		want *iterative.PairState
	}{
		{"same id and shapes", 7, 3, 4, s},
		{"other id", 8, 3, 4, nil},
		{"swapped shapes", 7, 4, 3, nil},
		{"other shape A", 7, 5, 4, nil},
		{"other shape B", 7, 3, 5, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st.Begin() // a pair is looked up once per step
			if got := lookup(&st, tc.id, tc.a, tc.b); got != tc.want {
				t.Errorf("Lookup(%d, %d, %d) = %p, want %p", tc.id, tc.a, tc.b, got, tc.want)
			}
		})
	}
	if st.Len() != 1 {
		t.Errorf("Len = %d, want 1", st.Len())
	}
}

func TestStoreSweepRecycles(t *testing.T) {
	var st iterative.Store
	st.Begin()
	kept, dropped, other := st.New(1, 2), st.New(3, 4), st.New(5, 6)
	st.Put(0, 10, kept)
	st.Put(1, 20, dropped)
	st.Put(2, 30, other)
	dropped.Valid = true
	dropped.Rays[0] = append(dropped.Rays[0], iterative.Ray{Vertex: 1, Prim: 2})
	dropped.Next[1] = append(dropped.Next[1], iterative.Ray{Vertex: 3, Prim: 4})
	// Values behind flags that a new state sets false: a snapshot encodes
	// them all the same, so New must not hand them on.
	for _, s := range []*iterative.PairState{dropped, other} {
		s.RelNI.Q, s.Last.BinA, s.EdgeRel.Travel = [4]float64{1, 2, 3, 4}, [3]float64{5, 6, 7}, [2]float64{8, 9}
		s.EdgeMargin, s.EdgeGap, s.EdgeSteps = 0.5, 0.25, 3
	}

	// No Sweep ended the step above: its pairs are kept all the same.
	st.Begin()
	if lookup(&st, 10, 1, 2) != kept {
		t.Fatal("Lookup lost pair 10")
	}
	// A lookup with other shapes does not count as seen.
	if got, _ := st.Lookup(2, 30, 6, 5); got != nil {
		t.Fatal("Lookup with swapped shapes found pair 30")
	}
	st.Sweep()
	if st.Len() != 1 {
		t.Fatalf("Len after Sweep = %d, want 1", st.Len())
	}
	st.Begin()
	if lookup(&st, 20, 3, 4) != nil || lookup(&st, 30, 5, 6) != nil {
		t.Fatal("Sweep kept a pair not seen since Begin")
	}
	if lookup(&st, 10, 1, 2) != kept {
		t.Fatal("Sweep dropped a pair looked up since Begin")
	}

	// Both swept states come back from New, reset, before any allocation.
	got := map[*iterative.PairState]bool{}
	for range 2 {
		s := st.New(9, 9)
		if s.A != 9 || s.B != 9 || s.Valid {
			t.Errorf("recycled state not reset: %+v", s)
		}
		var zero iterative.Rel
		if s.RelNI != zero || s.Last != zero || s.EdgeRel != zero || s.EdgeMargin != 0 || s.EdgeGap != 0 || s.EdgeSteps != 0 {
			t.Errorf("recycled state keeps its last pair's placements or edge choice: %+v", s)
		}
		for k := range 2 {
			if len(s.Rays[k]) != 0 || len(s.Next[k]) != 0 {
				t.Errorf("recycled state keeps rays: %+v", s)
			}
		}
		got[s] = true
	}
	if !got[dropped] || !got[other] {
		t.Errorf("New after Sweep did not reuse the swept states %p and %p", dropped, other)
	}
	if s := st.New(9, 9); s == dropped || s == other || s == kept {
		t.Errorf("New handed out a state twice: %p", s)
	}
}

func TestStorePutSeenAndReplace(t *testing.T) {
	var st iterative.Store
	st.Begin()
	old := st.New(1, 2)
	st.Put(0, 10, old)

	// A pair put this step survives the sweep of this step.
	st.Begin()
	fresh := st.New(1, 3)
	st.Put(0, 11, fresh)
	st.Sweep()
	st.Begin()
	if lookup(&st, 11, 1, 3) != fresh {
		t.Fatal("Sweep dropped a pair put since Begin")
	}
	if lookup(&st, 10, 1, 2) != nil {
		t.Fatal("Sweep kept a pair neither looked up nor put")
	}
	if s := st.New(0, 0); s != old {
		t.Errorf("New = %p, want the swept state %p", s, old)
	}

	// Putting a new state under an existing id recycles the old one.
	st.Begin()
	repl := st.New(1, 4)
	st.Put(0, 11, repl)
	if st.Len() != 1 {
		t.Fatalf("Len = %d after replacing pair 11, want 1", st.Len())
	}
	if s := st.New(0, 0); s != fresh {
		t.Errorf("New = %p, want the replaced state %p", s, fresh)
	}
	// Putting the same state again keeps it installed and does not free it.
	st.Put(0, 11, repl)
	if s := st.New(0, 0); s == repl {
		t.Error("re-putting a state freed it")
	}
	st.Sweep()
	st.Begin()
	if lookup(&st, 11, 1, 4) != repl || st.Len() != 1 {
		t.Fatal("Put did not replace the state of pair 11")
	}
}

func TestStoreRelease(t *testing.T) {
	var st iterative.Store
	st.Begin()
	s := st.New(1, 2)
	s.Valid = true
	s.Rays[0] = append(s.Rays[0], iterative.Ray{Vertex: 5})
	st.Release(s)
	if st.Len() != 0 {
		t.Errorf("Len = %d after Release, want 0", st.Len())
	}
	r := st.New(7, 8)
	if r != s {
		t.Fatalf("New after Release = %p, want the released %p", r, s)
	}
	if r.A != 7 || r.B != 8 || r.Valid || len(r.Rays[0]) != 0 {
		t.Errorf("released state not reset: %+v", r)
	}
}

func TestStoreForget(t *testing.T) {
	var st iterative.Store
	st.Begin()
	a, b := st.New(1, 2), st.New(1, 3)
	st.Put(0, 1, a)
	st.Put(1, 2, b)
	st.Sweep()
	st.Forget()
	st.Begin()
	if st.Len() != 0 || lookup(&st, 1, 1, 2) != nil {
		t.Fatal("Forget kept state")
	}
	got := map[*iterative.PairState]bool{st.New(0, 0): true, st.New(0, 0): true}
	if !got[a] || !got[b] {
		t.Error("Forget did not recycle the states")
	}
}

func TestPairStateCommit(t *testing.T) {
	var s iterative.PairState
	s.Rays[0] = []iterative.Ray{{Vertex: 1, Prim: 1}, {Vertex: 2, Prim: 2}}
	s.Rays[1] = []iterative.Ray{{Vertex: 9, Prim: 9}}
	oldRays0 := &s.Rays[0][0]
	s.Next[0] = append(s.Next[0], iterative.Ray{Vertex: 3, Prim: 30, Predicted: true})
	s.Next[1] = append(s.Next[1], iterative.Ray{Vertex: 4, Prim: 40}, iterative.Ray{Vertex: 6, Prim: 60})
	s.Commit()
	want := [2][]iterative.Ray{
		{{Vertex: 3, Prim: 30, Predicted: true}},
		{{Vertex: 4, Prim: 40}, {Vertex: 6, Prim: 60}},
	}
	for k := range 2 {
		if len(s.Rays[k]) != len(want[k]) {
			t.Fatalf("Rays[%d] = %v, want %v", k, s.Rays[k], want[k])
		}
		for i := range want[k] {
			if s.Rays[k][i] != want[k][i] {
				t.Errorf("Rays[%d][%d] = %+v, want %+v", k, i, s.Rays[k][i], want[k][i])
			}
		}
		if len(s.Next[k]) != 0 {
			t.Errorf("Next[%d] = %v after Commit, want empty", k, s.Next[k])
		}
	}
	// The old Rays storage is handed to Next for reuse.
	if cap(s.Next[0]) < 2 || &s.Next[0][:1][0] != oldRays0 {
		t.Error("Commit did not recycle the old Rays storage into Next")
	}
}

// offBox is a box whose local origin lies outside it: its bounding sphere
// is centred at (3, 0, 0) with radius √3, its Radius about the origin is
// √18.
func offBox(t testing.TB) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewBox(mgl64.Vec3{2, -1, -1}, mgl64.Vec3{4, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// rotateAbout returns p rotated by ang about axis through the world point
// w.
func rotateAbout(p narrow.Pose, ang float64, axis, w mgl64.Vec3) narrow.Pose {
	q := mgl64.QuatRotate(ang, axis)
	return narrow.Pose{Pos: w.Add(q.Rotate(p.Pos.Sub(w))), Rot: q.Mul(p.Rot)}
}

func TestPairStateDisplacement(t *testing.T) {
	axisA := mgl64.Vec3{1, -1, 2}.Normalize()
	axisB := mgl64.Vec3{0, 3, 1}.Normalize()
	a := narrow.Pose{Pos: mgl64.Vec3{1, -2, 0.5}, Rot: mgl64.QuatRotate(0.7, axisA)}
	b := narrow.Pose{Pos: mgl64.Vec3{2.5, 0.5, -1}, Rot: mgl64.QuatRotate(-1.1, axisB)}
	box := offBox(t)
	cx, cy, cz, r := box.BoundingSphere()
	if c := (mgl64.Vec3{cx, cy, cz}); !c.ApproxEqualThreshold(mgl64.Vec3{3, 0, 0}, 1e-9) || math.Abs(r-math.Sqrt(3)) > 1e-9 {
		t.Fatalf("BoundingSphere = %v, %v; want (3, 0, 0), √3", c, r)
	}
	// World centres.
	ca := a.Pos.Add(a.Rot.Rotate(mgl64.Vec3{3, 0, 0}))
	cb := b.Pos.Add(b.Rot.Rotate(mgl64.Vec3{3, 0, 0}))
	sep := cb.Sub(ca).Len()

	translate := func(p narrow.Pose, d mgl64.Vec3) narrow.Pose {
		return narrow.Pose{Pos: p.Pos.Add(d), Rot: p.Rot}
	}
	delta := mgl64.Vec3{0.03, -0.04, 0.12} // length 0.13
	const th = 0.05
	// Rotating B by θ about its centre: B's own vertices move by at most
	// θ·r in A's frame (d1 = θ·r exactly), A's centre swings about B's
	// centre in B's frame by 2·sin(θ/2)·(its distance off the axis) ≤ θ·sep.
	tests := []struct {
		name           string
		a, b           narrow.Pose
		lo0, hi0       float64
		lo1, hi1       float64
		paperLo, paper float64 // the paper's form about the origins, for comparison
	}{
		{"same poses", a, b, 0, 1e-12, 0, 1e-12, 0, 1e-12},
		{"translate B", a, translate(b, delta), 0.13, 0.13, 0.13, 0.13, 0.13, 0.13},
		{"translate A", translate(a, delta), b, 0.13, 0.13, 0.13, 0.13, 0.13, 0.13},
		{"translate both together", translate(a, delta), translate(b, delta), 0, 1e-12, 0, 1e-12, 0, 1e-12},
		{"rotate B about its centre", a, rotateAbout(b, th, axisA, cb), th * r, th * (r + sep), th * r, th * r, th * math.Sqrt(18), 2 * th * (math.Sqrt(18) + sep + 3)},
		{"rotate A about its centre", rotateAbout(a, th, axisB, ca), b, th * r, th * r, th * r, th * (r + sep), th * math.Sqrt(18), 2 * th * (math.Sqrt(18) + sep + 3)},
	}
	const eps = 1e-12
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s iterative.PairState
			s.MarkStandard(box, box, a, b)
			rel := iterative.Relate(box, box, tc.a, tc.b)
			d0, d1 := s.Displacements(&rel, r, r)
			if d0 < tc.lo0-eps || d0 > tc.hi0+eps {
				t.Errorf("d0 = %.17g, want in [%.17g, %.17g]", d0, tc.lo0, tc.hi0)
			}
			if d1 < tc.lo1-eps || d1 > tc.hi1+eps {
				t.Errorf("d1 = %.17g, want in [%.17g, %.17g]", d1, tc.lo1, tc.hi1)
			}
			if got := s.Displacement(&rel, r, r); got != max(d0, d1) {
				t.Errorf("Displacement = %v, want max(%v, %v)", got, d0, d1)
			}
			if got := s.TouchDisplacement(&rel, r, r); got != min(d0, d1) {
				t.Errorf("TouchDisplacement = %v, want min(%v, %v)", got, d0, d1)
			}
			// The paper's form (origins, largest radius about them) is
			// never smaller here: the rotations are about the centres,
			// which lie 3 from the origins.
			paper := iterative.Displacement(narrow.Relative(a, b), narrow.Relative(tc.a, tc.b), box.Radius())
			paper = max(paper, iterative.Displacement(narrow.Relative(b, a), narrow.Relative(tc.b, tc.a), box.Radius()))
			if paper < tc.paperLo-eps || paper > tc.paper+eps || paper < max(d0, d1)-eps {
				t.Errorf("paper's Eq. 2 = %.17g, want in [%.17g, %.17g] and ≥ %.17g", paper, tc.paperLo, tc.paper, max(d0, d1))
			}
			for _, thr := range []float64{0.5 * min(d0, d1), min(d0, d1), max(d0, d1), max(d0, d1) + 1e-9, 2 * max(d0, d1)} {
				if got, want := s.Within(&rel, r, r, thr), d0 <= thr && d1 <= thr; got != want {
					t.Errorf("Within(threshold %.17g) = %v, want %v", thr, got, want)
				}
				if got, want := s.WithinTouch(&rel, r, r, thr), min(d0, d1) <= thr; got != want {
					t.Errorf("WithinTouch(threshold %.17g) = %v, want %v", thr, got, want)
				}
			}
		})
	}

	// It grows with the motion of either body.
	rotate := func(p narrow.Pose, ang float64, axis mgl64.Vec3) narrow.Pose {
		return narrow.Pose{Pos: p.Pos, Rot: mgl64.QuatRotate(ang, axis).Mul(p.Rot)}
	}
	for _, who := range []string{"A", "B"} {
		var s iterative.PairState
		s.MarkStandard(box, box, a, b)
		prev := 0.0
		for i := 1; i <= 5; i++ {
			f := float64(i) * 0.02
			pa, pb := a, b
			if who == "A" {
				pa = rotate(translate(a, delta.Mul(f)), f, axisB)
			} else {
				pb = rotate(translate(b, delta.Mul(f)), f, axisA)
			}
			d := s.Displacement(ptr(iterative.Relate(box, box, pa, pb)), r, r)
			if !(d > prev) {
				t.Errorf("moving %s by %g: Displacement %.17g does not exceed %.17g", who, f, d, prev)
			}
			prev = d
		}
	}

	// MarkStandard at the new poses resets it.
	var s iterative.PairState
	s.MarkStandard(box, box, a, b)
	nb := rotate(translate(b, delta), 0.3, axisA)
	if d := s.Displacement(ptr(iterative.Relate(box, box, a, nb)), r, r); !(d > 0.1) {
		t.Fatalf("Displacement after motion = %g", d)
	}
	s.MarkStandard(box, box, a, nb)
	if d := s.Displacement(ptr(iterative.Relate(box, box, a, nb)), r, r); math.Abs(d) > 1e-12 {
		t.Errorf("Displacement after MarkStandard at the same poses = %g, want 0", d)
	}
}

// TestDisplacementsBoundVertexMotion checks the claim Eq. 2 rests on, for
// random motions of shapes of different sizes whose origins lie off their
// centres: in each direction, no vertex of the source moves farther in the
// target's frame than that direction's displacement, and the bound is not
// loose by more than the worst case allows (d_k ≤ true motion of the
// centre + θ·r_k, the centre's motion being attained).
func TestDisplacementsBoundVertexMotion(t *testing.T) {
	small := offBox(t)
	big, err := narrow.NewBox(mgl64.Vec3{-10, 5, -1}, mgl64.Vec3{10, 6, 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	randPose := func() narrow.Pose {
		ax := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		return narrow.Pose{Pos: mgl64.Vec3{4 * rng.Float64(), 4 * rng.Float64(), 4 * rng.Float64()}, Rot: mgl64.QuatRotate(math.Pi*rng.Float64(), ax)}
	}
	jiggle := func(p narrow.Pose, s float64) narrow.Pose {
		ax := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		d := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(s)
		return narrow.Pose{Pos: p.Pos.Add(d), Rot: mgl64.QuatRotate(s*rng.NormFloat64(), ax).Mul(p.Rot).Normalize()}
	}
	// moved returns the largest motion of a vertex of src, in dst's frame,
	// between the two placements.
	moved := func(src *narrow.Shape, ps0, pd0, ps1, pd1 narrow.Pose) float64 {
		m := 0.0
		for i := 0; i < src.NumVertices(); i++ {
			v := src.Vertex(i)
			x0 := narrow.Relative(pd0, ps0)
			x1 := narrow.Relative(pd1, ps1)
			p0 := x0.Rot.Rotate(v).Add(x0.Pos)
			p1 := x1.Rot.Rotate(v).Add(x1.Pos)
			m = max(m, p1.Sub(p0).Len())
		}
		return m
	}
	for _, pair := range [][2]*narrow.Shape{{small, big}, {big, small}, {small, small}} {
		a, b := pair[0], pair[1]
		_, _, _, rA := a.BoundingSphere()
		_, _, _, rB := b.BoundingSphere()
		for i := 0; i < 200; i++ {
			pa, pb := randPose(), randPose()
			qa, qb := jiggle(pa, 0.05), jiggle(pb, 0.05)
			var s iterative.PairState
			s.MarkStandard(a, b, pa, pb)
			rel := iterative.Relate(a, b, qa, qb)
			d0, d1 := s.Displacements(&rel, rA, rB)
			m0, m1 := moved(a, pa, pb, qa, qb), moved(b, pb, pa, qb, qa)
			if m0 > d0*(1+1e-12)+1e-12 || m1 > d1*(1+1e-12)+1e-12 {
				t.Fatalf("case %d: vertices moved %.17g, %.17g; Displacements %.17g, %.17g", i, m0, m1, d0, d1)
			}
		}
	}
}

// TestTouchDisplacementBoundsTouchingVertices checks the claim of
// PairState.TouchDisplacement for random motions of shapes of different
// sizes whose origins lie off their centres: no vertex of either body
// that lies in the other's bounding sphere after the motion moved farther,
// in the other's frame, than TouchDisplacement. Vertices outside the
// sphere may, and for the small box turning beside the large one the
// bound is far below Eq. 2's on every vertex (Displacement).
func TestTouchDisplacementBoundsTouchingVertices(t *testing.T) {
	small := offBox(t)
	big, err := narrow.NewBox(mgl64.Vec3{-10, 5, -1}, mgl64.Vec3{10, 6, 3})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 3))
	unit := func() mgl64.Vec3 {
		return mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
	}
	randPose := func(spread float64) narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}.Mul(spread), Rot: mgl64.QuatRotate(math.Pi*rng.Float64(), unit())}
	}
	jiggle := func(p narrow.Pose, s float64) narrow.Pose {
		return narrow.Pose{Pos: p.Pos.Add(unit().Mul(s * rng.NormFloat64())), Rot: mgl64.QuatRotate(s*rng.NormFloat64(), unit()).Mul(p.Rot).Normalize()}
	}
	// touching returns the largest motion, in dst's frame, of a vertex of
	// src that lies in dst's bounding sphere at the second placement, and
	// how many vertices do; all is the largest motion of any vertex.
	touching := func(src, dst *narrow.Shape, ps0, pd0, ps1, pd1 narrow.Pose) (m float64, n int, all float64) {
		cx, cy, cz, r := dst.BoundingSphere()
		c := mgl64.Vec3{cx, cy, cz}
		x0, x1 := narrow.Relative(pd0, ps0), narrow.Relative(pd1, ps1)
		for i := 0; i < src.NumVertices(); i++ {
			v := src.Vertex(i)
			p0 := x0.Rot.Rotate(v).Add(x0.Pos)
			p1 := x1.Rot.Rotate(v).Add(x1.Pos)
			d := p1.Sub(p0).Len()
			all = max(all, d)
			if p1.Sub(c).Len() <= r {
				m, n = max(m, d), n+1
			}
		}
		return m, n, all
	}
	for _, pair := range [][2]*narrow.Shape{{small, big}, {big, small}, {small, small}} {
		a, b := pair[0], pair[1]
		_, _, _, rA := a.BoundingSphere()
		_, _, _, rB := b.BoundingSphere()
		spread := 4.0 // the poses' origins lie in a cube of this side
		if a == b {
			spread = 1 // the small boxes lie 3 off their origins
		}
		checked, tighter := 0, 0
		for i := 0; i < 400; i++ {
			pa, pb := randPose(spread), randPose(spread)
			qa, qb := jiggle(pa, 0.05), jiggle(pb, 0.05)
			var s iterative.PairState
			s.MarkStandard(a, b, pa, pb)
			rel := iterative.Relate(a, b, qa, qb)
			touch := s.TouchDisplacement(&rel, rA, rB)
			m0, n0, all0 := touching(a, b, pa, pb, qa, qb)
			m1, n1, all1 := touching(b, a, pb, pa, qb, qa)
			if m0 > touch*(1+1e-12)+1e-12 || m1 > touch*(1+1e-12)+1e-12 {
				t.Fatalf("case %d: vertices in the other's sphere moved %.17g, %.17g; TouchDisplacement %.17g", i, m0, m1, touch)
			}
			checked += n0 + n1
			if max(all0, all1) > touch*(1+1e-9) {
				tighter++ // some vertex, out of reach, moved farther
			}
		}
		if checked < 200 || tighter == 0 {
			t.Errorf("%v vs %v: %d vertices in the other's sphere checked, %d cases where a vertex out of reach moved farther than the bound; want ≥ 200 and > 0",
				a.Size(), b.Size(), checked, tighter)
		}
	}

	// The small box turning by θ about its centre beside the large one:
	// its own vertices move by θ·r, the large box's far corners by about
	// θ × their distance to it.
	const th = 0.01
	_, _, _, rS := small.BoundingSphere()
	_, _, _, rB := big.BoundingSphere()
	cs := mgl64.Vec3{3, 0, 0} // small's centre, its pose being the identity
	pb := narrow.Pose{Pos: mgl64.Vec3{0, -6 - rS, 0}, Rot: mgl64.QuatIdent()}
	var s iterative.PairState
	s.MarkStandard(small, big, narrow.Pose{Rot: mgl64.QuatIdent()}, pb)
	rel := iterative.Relate(small, big, rotateAbout(narrow.Pose{Rot: mgl64.QuatIdent()}, th, mgl64.Vec3{0, 1, 0}, cs), pb)
	if got, want := s.TouchDisplacement(&rel, rS, rB), th*rS; math.Abs(got-want) > 1e-12 {
		t.Errorf("small box turning: TouchDisplacement = %.17g, want θ·r = %.17g", got, want)
	}
	if d := s.Displacement(&rel, rS, rB); d < 5*th*rS {
		t.Errorf("small box turning: Displacement = %.17g, want far above TouchDisplacement (θ·r = %.17g)", d, th*rS)
	}
}

func TestRelate(t *testing.T) {
	a := narrow.Pose{Pos: mgl64.Vec3{1, -2, 0.5}, Rot: mgl64.QuatRotate(0.7, mgl64.Vec3{1, -1, 2}.Normalize())}
	b := narrow.Pose{Pos: mgl64.Vec3{2.5, 0.5, -1}, Rot: mgl64.QuatRotate(-1.1, mgl64.Vec3{0, 3, 1}.Normalize())}
	sa := offBox(t)
	sb, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	r := iterative.Relate(sa, sb, a, b)
	binA := narrow.Relative(a, b)
	ainB := narrow.Relative(b, a)
	// Centres: (3, 0, 0) of A's box, (0, 1, 0) of B's.
	if want := binA.Pos.Add(binA.Rot.Rotate(mgl64.Vec3{0, 1, 0})); !mgl64.Vec3(r.BinA).ApproxEqualThreshold(want, 1e-9) {
		t.Errorf("BinA = %v, want %v", r.BinA, want)
	}
	if want := ainB.Pos.Add(ainB.Rot.Rotate(mgl64.Vec3{3, 0, 0})); !mgl64.Vec3(r.AinB).ApproxEqualThreshold(want, 1e-9) {
		t.Errorf("AinB = %v, want %v", r.AinB, want)
	}
	q := mgl64.Quat{W: r.Q[0], V: mgl64.Vec3{r.Q[1], r.Q[2], r.Q[3]}}
	if ang := narrow.Angle(q, binA.Rot); ang > 1e-12 {
		t.Errorf("Q = %v is %g rad from q_A⁻¹·q_B = %v", r.Q, ang, binA.Rot)
	}
}

func ptr[T any](v T) *T { return &v }

// TestPairStateClear: SetStandard and SetClear move the reference of Eq. 2;
// SetStandard forgets the clearances and records Quiet, SetClear records
// the clearances left, measured from the new placement; a fresh state has
// neither.
func TestPairStateClear(t *testing.T) {
	box := offBox(t)
	_, _, _, r := box.BoundingSphere()
	at := func(dx float64) narrow.Pose { return narrow.Pose{Pos: mgl64.Vec3{dx, 0, 0}, Rot: mgl64.QuatIdent()} }
	b := narrow.Pose{Pos: mgl64.Vec3{0, 5, 0}, Rot: mgl64.QuatIdent()}
	var s iterative.PairState
	s.MarkStandard(box, box, at(0), b)
	if !s.Valid || s.Clear != [2]float64{} || s.Quiet != [2]bool{} {
		t.Fatalf("after MarkStandard: Valid %v, Clear %v, Quiet %v", s.Valid, s.Clear, s.Quiet)
	}
	// A moves 0.25 along x: both directions by 0.25.
	mid := iterative.Relate(box, box, at(0.25), b)
	if d0, d1 := s.Displacements(&mid, r, r); d0 != 0.25 || d1 != 0.25 {
		t.Fatalf("Displacements = %v, %v; want 0.25 both", d0, d1)
	}
	s.SetClear(&mid, [2]float64{0.5, 0.75})
	if s.Clear != [2]float64{0.5, 0.75} {
		t.Errorf("Clear = %v", s.Clear)
	}
	now := iterative.Relate(box, box, at(0.375), b)
	if d0, d1 := s.Displacements(&now, r, r); d0 != 0.125 || d1 != 0.125 {
		t.Errorf("after SetClear: Displacements = %v, %v; want 0.125 (from the new placement)", d0, d1)
	}
	s.SetStandard(&now, [2]bool{true, false})
	if d0, d1 := s.Displacements(&now, r, r); d0 != 0 || d1 != 0 || s.Clear != [2]float64{} || s.Quiet != [2]bool{true, false} {
		t.Errorf("after SetStandard: Displacements %v, %v, Clear %v, Quiet %v", d0, d1, s.Clear, s.Quiet)
	}
	var st iterative.Store
	st.Begin()
	fresh := st.New(1, 2)
	fresh.Clear, fresh.Quiet = [2]float64{1, 1}, [2]bool{true, true}
	st.Release(fresh)
	if again := st.New(1, 2); again.Clear != [2]float64{} || again.Quiet != [2]bool{} || again.Valid {
		t.Errorf("a recycled state keeps Clear %v, Quiet %v, Valid %v", again.Clear, again.Quiet, again.Valid)
	}
}

// TestEdgesWithin: a pair's edge pairs hold (EdgesWithin) while the
// smaller of the two displacements since SetEdges is at most the margin;
// EdgeMotion is that displacement per step counted in EdgeSteps; a search
// without pairs (SetEdges(…, false)) keeps the placement for EdgeMotion
// but no pairs; reset forgets both.
func TestEdgesWithin(t *testing.T) {
	small := offBox(t)
	big, err := narrow.NewBox(mgl64.Vec3{-10, 5, -1}, mgl64.Vec3{10, 6, 3})
	if err != nil {
		t.Fatal(err)
	}
	_, _, _, rA := small.BoundingSphere()
	_, _, _, rB := big.BoundingSphere()
	pa, pb := narrow.Identity, narrow.Pose{Pos: mgl64.Vec3{0, 1, 0}, Rot: mgl64.QuatIdent()}
	r0 := iterative.Relate(small, big, pa, pb)
	var st iterative.Store
	s := st.New(0, 1)
	if s.EdgesWithin(&r0, rA, rB) {
		t.Fatal("edges hold before any were set")
	}
	if _, ok := s.EdgeMotion(&r0, rA, rB); ok {
		t.Fatal("a motion before any placement was set")
	}
	s.Edges = append(s.Edges, narrow.EdgePair{Src: 1, Dst: 2})
	const margin = 0.1
	s.SetEdges(&r0, margin, true)
	// Turning the small box by θ about its centre moves its vertices by
	// up to θ·rA in the big box's frame, and the big box's by far more in
	// the small box's (its centre swings round): the smaller decides.
	cx, cy, cz, _ := small.BoundingSphere()
	for _, tc := range []struct {
		name  string
		ang   float64
		shift float64
		want  bool
	}{
		{"still", 0, 0, true},
		{"shift within", 0, 0.09, true},
		{"shift beyond", 0, 0.11, false},
		{"turn within the small one's bound", 0.9 * margin / rA, 0, true},
		{"turn beyond it", 1.1 * margin / rA, 0, false},
	} {
		q := mgl64.QuatRotate(tc.ang, mgl64.Vec3{0, 0, 1})
		c := mgl64.Vec3{cx, cy, cz}.Add(pa.Pos)
		p := narrow.Pose{Pos: c.Add(q.Rotate(pa.Pos.Sub(c))).Add(mgl64.Vec3{tc.shift, 0, 0}), Rot: q}
		r := iterative.Relate(small, big, p, pb)
		if got := s.EdgesWithin(&r, rA, rB); got != tc.want {
			t.Errorf("%s: EdgesWithin %v, want %v", tc.name, got, tc.want)
		}
		if tc.ang == 0 {
			s.EdgeSteps = 3
			if v, ok := s.EdgeMotion(&r, rA, rB); !ok || math.Abs(v-tc.shift/3) > 1e-12 {
				t.Errorf("%s: EdgeMotion %v, %v; want %v a step", tc.name, v, ok, tc.shift/3)
			}
		}
	}
	s.SetEdges(&r0, margin, false)
	if s.EdgesWithin(&r0, rA, rB) || len(s.Edges) != 0 || s.EdgeSteps != 0 {
		t.Errorf("after a search: EdgesWithin true, or %d pairs, %d steps", len(s.Edges), s.EdgeSteps)
	}
	s.EdgeSteps = 1
	if _, ok := s.EdgeMotion(&r0, rA, rB); !ok {
		t.Error("after a search: no motion")
	}
	// A recycled state starts without either.
	st.Release(s)
	if s = st.New(0, 1); s.EdgesWithin(&r0, rA, rB) || s.HasEdgeRel || len(s.Edges) != 0 {
		t.Errorf("a recycled state keeps its edges: %+v", s.Edges)
	}
}
