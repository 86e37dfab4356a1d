package rigid_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// bruteRay is the reference of RayCast: every triangle of every kept body
// in world coordinates, Möller–Trumbore, the nearest t in [0, maxT], ties
// to the lower body ID.
func bruteRay(w *rigid.World, o, u mgl64.Vec3, maxT float64, keep func(rigid.BodyID) bool) (body rigid.BodyID, t float64, n mgl64.Vec3, ok bool) {
	t = maxT
	for id := rigid.BodyID(0); int(id) < w.NumBodies(); id++ {
		b := w.Body(id)
		if b == nil || keep != nil && !keep(id) {
			continue
		}
		s, pose := b.Shape(), b.Pose()
		world := func(v int32) mgl64.Vec3 { return pose.Rot.Rotate(s.Vertex(int(v))).Add(pose.Pos) }
		for i := range s.NumPrims() {
			tri := s.Prim(i)
			v0, v1, v2 := world(tri[0]), world(tri[1]), world(tri[2])
			e1, e2 := v1.Sub(v0), v2.Sub(v0)
			p := u.Cross(e2)
			det := e1.Dot(p)
			if math.Abs(det) < 1e-15 {
				continue
			}
			r := o.Sub(v0)
			a := r.Dot(p) / det
			q := r.Cross(e1)
			c := u.Dot(q) / det
			if a < 0 || c < 0 || a+c > 1 {
				continue
			}
			if h := e2.Dot(q) / det; h >= 0 && (h < t || !ok && h <= t) {
				body, t, n, ok = id, h, e1.Cross(e2).Normalize(), true
			}
		}
	}
	return body, t, n, ok
}

// TestRayCast checks World.RayCast against bruteRay on bunnies, tori and
// boxes at random poses, some overlapping, with random rays from around
// and from inside the bodies, a filter, and a removed body; and that bad
// rays are refused.
// scatter adds n dynamic bodies of shapes (in turn) at the poses pose
// returns, removes the removed-th, and returns their IDs.
func scatter(t *testing.T, w *rigid.World, shapes []*narrow.Shape, n, removed int, pose func() narrow.Pose) []rigid.BodyID {
	t.Helper()
	var ids []rigid.BodyID
	for i := range n {
		id, err := w.AddBody(rigid.NewBodyDef(shapes[i%len(shapes)], pose()))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := w.RemoveBody(ids[removed]); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestRayCast(t *testing.T) {
	w, _ := newWorld(t, nil)
	bunny := mesh(t, "bunny")
	torus := mesh(t, "torus")
	rng := rand.New(rand.NewPCG(4, 2))
	unit := func() mgl64.Vec3 {
		for {
			v := mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
			if l := v.Len(); l > 0.1 && l < 1 {
				return v.Mul(1 / l)
			}
		}
	}
	shapes := []*narrow.Shape{bunny, torus, box(t, mgl64.Vec3{0.3, 0.6, 0.2}), bunny}
	ids := scatter(t, w, shapes, 12, 5, func() narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{4*rng.Float64() - 2, 1 + 3*rng.Float64(), 4*rng.Float64() - 2},
			Rot: mgl64.QuatRotate(2*math.Pi*rng.Float64(), unit())}
	})
	odd := func(id rigid.BodyID) bool { return id%2 == 1 }
	hits, inside := 0, 0
	for k := range 2000 {
		var o mgl64.Vec3
		if k%3 == 0 { // from a body's centre of mass: often inside it
			b := w.Body(ids[rng.IntN(len(ids))])
			if b == nil {
				continue
			}
			o = b.CenterOfMass()
		} else {
			o = mgl64.Vec3{10*rng.Float64() - 5, 6 * rng.Float64(), 10*rng.Float64() - 5}
		}
		d := unit().Mul(0.5 + 2*rng.Float64()) // not unit: RayCast normalises
		maxT := 8 * rng.Float64()
		var keep func(rigid.BodyID) bool
		if k%4 == 1 {
			keep = odd
		}
		hit, ok, err := w.RayCast(o, d, maxT, keep)
		if err != nil {
			t.Fatal(err)
		}
		u := d.Normalize()
		body, bt, bn, bok := bruteRay(w, o, u, maxT, keep)
		tol := 1e-9 * (1 + o.Len() + maxT)
		if ok != bok {
			// A ray that grazes an edge or ends at a surface may be
			// judged either way within the tolerances.
			if math.Abs(hit.T-maxT) > tol && math.Abs(bt-maxT) > tol {
				t.Fatalf("ray %d from %v along %v, up to %v: RayCast %v %+v, brute force %v (body %d at %v)", k, o, u, maxT, ok, hit, bok, body, bt)
			}
			continue
		}
		if !ok {
			continue
		}
		hits++
		if hit.Inside {
			inside++
		}
		if math.Abs(hit.T-bt) > tol || hit.Body != body && math.Abs(hit.T-bt) > 0 {
			t.Fatalf("ray %d: RayCast body %d at %v, brute force body %d at %v", k, hit.Body, hit.T, body, bt)
		}
		if hit.Point.Sub(o.Add(u.Mul(hit.T))).Len() > tol || math.Abs(hit.Normal.Len()-1) > 1e-9 {
			t.Errorf("ray %d: point %v, normal %v: want o + T·û and a unit normal", k, hit.Point, hit.Normal)
		}
		if hit.Body == body && hit.Normal.Dot(bn) < 1-1e-6 && math.Abs(hit.Normal.Dot(u)) > 1e-6 {
			// Same body, other face: only where the ray meets an edge.
			if math.Abs(hit.T-bt) > tol {
				t.Errorf("ray %d: normal %v, brute force %v", k, hit.Normal, bn)
			}
		}
		if hit.Inside != (hit.Normal.Dot(u) > 0) {
			t.Errorf("ray %d: Inside %v with normal·direction %v", k, hit.Inside, hit.Normal.Dot(u))
		}
		if hit.Body == ids[5] || keep != nil && !keep(hit.Body) {
			t.Errorf("ray %d hit body %d, removed or filtered out", k, hit.Body)
		}
	}
	t.Logf("2000 rays: %d hits, %d from inside", hits, inside)
	if hits < 400 || inside < 100 {
		t.Errorf("too few hits (%d) or hits from inside (%d) for the test to mean much", hits, inside)
	}

	nan := math.NaN()
	for _, c := range []struct {
		name string
		o, d mgl64.Vec3
		maxT float64
	}{
		{"zero direction", mgl64.Vec3{}, mgl64.Vec3{}, 1},
		{"NaN origin", mgl64.Vec3{nan, 0, 0}, mgl64.Vec3{1, 0, 0}, 1},
		{"infinite direction", mgl64.Vec3{}, mgl64.Vec3{math.Inf(1), 0, 0}, 1},
		{"negative length", mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, -1},
		{"NaN length", mgl64.Vec3{}, mgl64.Vec3{1, 0, 0}, nan},
	} {
		if _, ok, err := w.RayCast(c.o, c.d, c.maxT, nil); ok || !errors.Is(err, rigid.ErrBadRay) {
			t.Errorf("%s: ok %v, err %v; want ErrBadRay", c.name, ok, err)
		}
	}
	if a := testing.AllocsPerRun(100, func() { w.RayCast(mgl64.Vec3{0, 2, -6}, mgl64.Vec3{0, 0, 1}, 20, odd) }); a != 0 {
		t.Errorf("RayCast allocates %.1f times, want 0", a)
	}
}

// TestQueryBox: the bodies QueryBox visits are, in ID order, those whose
// boxes meet the query box (touching counts), removed ones aside; visit
// returning false stops the walk.
func TestQueryBox(t *testing.T) {
	w, ground := newWorld(t, nil)
	cube := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
	var ids []rigid.BodyID
	for i := range 5 {
		id, err := w.AddBody(rigid.NewBodyDef(cube, at(2*float64(i), 3, 0)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := w.RemoveBody(ids[3]); err != nil {
		t.Fatal(err)
	}
	collect := func(q narrow.AABB, limit int) []rigid.BodyID {
		var got []rigid.BodyID
		w.QueryBox(q, func(id rigid.BodyID) bool {
			got = append(got, id)
			return len(got) < limit
		})
		return got
	}
	for _, c := range []struct {
		name  string
		q     narrow.AABB
		limit int
		want  []rigid.BodyID
	}{
		{"around the second and third", narrow.AABB{Min: mgl64.Vec3{1.9, 2.9, -0.1}, Max: mgl64.Vec3{4.1, 3.1, 0.1}}, 10, []rigid.BodyID{ids[1], ids[2]}},
		{"the ground only", narrow.AABB{Min: mgl64.Vec3{20, -0.5, 0}, Max: mgl64.Vec3{21, -0.4, 1}}, 10, []rigid.BodyID{ground}},
		{"the removed body's place", narrow.AABB{Min: mgl64.Vec3{5.9, 2.9, -0.1}, Max: mgl64.Vec3{6.1, 3.1, 0.1}}, 10, nil},
		{"everything, stopped after 2", narrow.AABB{Min: mgl64.Vec3{-100, -100, -100}, Max: mgl64.Vec3{100, 100, 100}}, 2, []rigid.BodyID{ground, ids[0]}},
		{"nothing", narrow.AABB{Min: mgl64.Vec3{0, 50, 0}, Max: mgl64.Vec3{1, 51, 1}}, 10, nil},
	} {
		if got := collect(c.q, c.limit); !slices.Equal(got, c.want) {
			t.Errorf("%s: visited %v, want %v", c.name, got, c.want)
		}
	}
	// Against brute force over the bodies' boxes, at random query boxes.
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200 {
		c := mgl64.Vec3{12*rng.Float64() - 2, 6 * rng.Float64(), 2*rng.Float64() - 1}
		h := mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
		q := narrow.AABB{Min: c.Sub(h), Max: c.Add(h)}
		var want []rigid.BodyID
		for id := rigid.BodyID(0); int(id) < w.NumBodies(); id++ {
			if b := w.Body(id); b != nil && !b.AABB().Intersect(q).Empty() {
				want = append(want, id)
			}
		}
		if got := collect(q, 100); !slices.Equal(got, want) {
			t.Fatalf("query %v: visited %v, want %v", q, got, want)
		}
	}
}

// TestQueryShape checks QueryShape against brute force (narrow.Overlap
// with every body, no box test) for a box and a torus at random poses
// among bunnies, tori and boxes; a stop after the first hit; and bad
// queries.
func TestQueryShape(t *testing.T) {
	w, _ := newWorld(t, nil)
	bunny := mesh(t, "bunny")
	torus := mesh(t, "torus")
	rng := rand.New(rand.NewPCG(9, 3))
	rot := func() mgl64.Quat {
		return mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5 + 1e-3}.Normalize())
	}
	shapes := []*narrow.Shape{bunny, torus, box(t, mgl64.Vec3{0.3, 0.6, 0.2})}
	scatter(t, w, shapes, 15, 4, func() narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{8*rng.Float64() - 4, 1 + 3*rng.Float64(), 8*rng.Float64() - 4}, Rot: rot()}
	})
	probe := box(t, mgl64.Vec3{0.8, 0.2, 0.5})
	found := 0
	for k := range 300 {
		q := []*narrow.Shape{probe, torus}[k%2]
		pose := narrow.Pose{Pos: mgl64.Vec3{10*rng.Float64() - 5, 5 * rng.Float64(), 10*rng.Float64() - 5}, Rot: rot()}
		var want []rigid.BodyID
		for id := range rigid.BodyID(w.NumBodies()) {
			b := w.Body(id)
			if b == nil {
				continue
			}
			hit, err := narrow.Overlap(q, b.Shape(), pose, b.Pose())
			if err != nil {
				t.Fatal(err)
			}
			if hit {
				want = append(want, id)
			}
		}
		var got []rigid.BodyID
		if err := w.QueryShape(q, pose, func(id rigid.BodyID) bool { got = append(got, id); return true }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d at %v: %v, want %v", k, pose, got, want)
		}
		found += len(got)
		if len(want) > 1 {
			got = got[:0]
			if err := w.QueryShape(q, pose, func(id rigid.BodyID) bool { got = append(got, id); return false }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want[:1]) {
				t.Fatalf("stopped query: %v, want %v", got, want[:1])
			}
		}
	}
	if found < 100 {
		t.Errorf("only %d overlaps found in 300 queries: the test needs more", found)
	}
	square := unitSquare(t)
	for _, c := range []struct {
		s    *narrow.Shape
		pose narrow.Pose
		want error
	}{
		{nil, narrow.Identity, rigid.ErrNilShape},
		{square, narrow.Identity, rigid.ErrNotMesh},
		{probe, narrow.Pose{Pos: mgl64.Vec3{math.Inf(1), 0, 0}, Rot: mgl64.QuatIdent()}, narrow.ErrBadPose},
	} {
		if err := w.QueryShape(c.s, c.pose, func(rigid.BodyID) bool { return true }); !errors.Is(err, c.want) {
			t.Errorf("QueryShape: %v, want %v", err, c.want)
		}
	}
}

// TestShapeCast checks World.ShapeCast against narrow.CastShape on every
// kept body (the earliest touch, ties to the lower ID) and against
// QueryShape along the motion (no body overlaps the shape just before the
// touch, the body hit does just after it), with bunnies, tori and boxes
// at random poses, a filter and a removed body; a shape that starts in a
// body touches it at 0; bad input is refused; a cast allocates nothing.
func TestShapeCast(t *testing.T) {
	w, ground := newWorld(t, nil)
	bunny, torus := mesh(t, "bunny"), mesh(t, "torus")
	rng := rand.New(rand.NewPCG(4, 12))
	rot := func() mgl64.Quat {
		return mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5 + 1e-3}.Normalize())
	}
	shapes := []*narrow.Shape{bunny, torus, box(t, mgl64.Vec3{0.3, 0.6, 0.2})}
	ids := scatter(t, w, shapes, 15, 4, func() narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{8*rng.Float64() - 4, 1 + 3*rng.Float64(), 8*rng.Float64() - 4}, Rot: rot()}
	})
	probe := box(t, mgl64.Vec3{0.4, 0.2, 0.3})
	notFirst := func(id rigid.BodyID) bool { return id != ids[0] }
	overlapping := func(q *narrow.Shape, pose narrow.Pose, keep func(rigid.BodyID) bool) []rigid.BodyID {
		var got []rigid.BodyID
		if err := w.QueryShape(q, pose, func(id rigid.BodyID) bool {
			if keep == nil || keep(id) {
				got = append(got, id)
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return got
	}
	hits, starts := 0, 0
	for k := range 200 {
		q := []*narrow.Shape{probe, torus}[k%2]
		keep := []func(rigid.BodyID) bool{nil, notFirst}[k/2%2]
		pose := narrow.Pose{Pos: mgl64.Vec3{10*rng.Float64() - 5, 2 + 5*rng.Float64(), 10*rng.Float64() - 5}, Rot: rot()}
		motion := mgl64.Vec3{8*rng.Float64() - 4, -7 * rng.Float64(), 8*rng.Float64() - 4}
		got, ok, err := w.ShapeCast(q, pose, motion, keep)
		if err != nil {
			t.Fatal(err)
		}
		// The reference: every kept body, in ID order.
		var want narrow.Cast
		wantID, wantOK := rigid.BodyID(-1), false
		for id := range rigid.BodyID(w.NumBodies()) {
			b := w.Body(id)
			if b == nil || keep != nil && !keep(id) {
				continue
			}
			c, touch, err := narrow.CastShape(q, b.Shape(), pose, b.Pose(), motion)
			if err != nil {
				t.Fatal(err)
			}
			if touch && (!wantOK || c.Fraction < want.Fraction) {
				want, wantID, wantOK = c, id, true
			}
		}
		if ok != wantOK || ok && (got.Body != wantID || got.Fraction != want.Fraction || got.Normal != want.Normal || got.Start != want.Start) {
			t.Fatalf("cast %d: %+v %v, want body %d %+v %v", k, got, ok, wantID, want, wantOK)
		}
		if !ok {
			if len(overlapping(q, narrow.Pose{Pos: pose.Pos.Add(motion), Rot: pose.Rot}, keep)) > 0 {
				t.Fatalf("cast %d: no touch, but the shape overlaps a body at the end", k)
			}
			continue
		}
		if got.Start {
			starts++
			if !slices.Contains(overlapping(q, pose, keep), got.Body) {
				t.Fatalf("cast %d: starts in body %d, which QueryShape does not see", k, got.Body)
			}
			continue
		}
		hits++
		eps := 1e-6 / motion.Len()
		before := narrow.Pose{Pos: pose.Pos.Add(motion.Mul(got.Fraction - eps)), Rot: pose.Rot}
		after := narrow.Pose{Pos: pose.Pos.Add(motion.Mul(got.Fraction + eps)), Rot: pose.Rot}
		if o := overlapping(q, before, keep); len(o) > 0 {
			t.Fatalf("cast %d: touch at %v, but bodies %v overlap just before it", k, got.Fraction, o)
		}
		if !slices.Contains(overlapping(q, after, keep), got.Body) {
			t.Fatalf("cast %d: touch of body %d at %v, but they do not overlap just after it", k, got.Body, got.Fraction)
		}
		if got.Pose.Pos.Sub(pose.Pos.Add(motion.Mul(got.Fraction))).Len() > 1e-12 {
			t.Fatalf("cast %d: pose %v at fraction %v", k, got.Pose, got.Fraction)
		}
	}
	t.Logf("200 casts: %d touch a body on the way, %d start in one", hits, starts)
	if hits < 70 || starts == 0 {
		t.Errorf("%d touches, %d starts: the test needs more", hits, starts)
	}
	// Dropped onto the ground from 2 m: its bottom reaches it after 1.8 m.
	got, ok, err := w.ShapeCast(probe, narrow.Pose{Pos: mgl64.Vec3{20, 2, 20}, Rot: mgl64.QuatIdent()}, mgl64.Vec3{0, -5, 0}, nil)
	if err != nil || !ok || got.Body != ground || math.Abs(got.Fraction-1.8/5) > 1e-12 || got.Normal != (mgl64.Vec3{0, 1, 0}) {
		t.Errorf("onto the ground: %+v %v %v", got, ok, err)
	}
	if n := testing.AllocsPerRun(10, func() {
		_, _, _ = w.ShapeCast(probe, narrow.Pose{Pos: mgl64.Vec3{0, 5, 0}, Rot: mgl64.QuatIdent()}, mgl64.Vec3{1, -5, 0}, nil)
	}); n != 0 {
		t.Errorf("%v allocations a cast", n)
	}
	square := unitSquare(t)
	for _, c := range []struct {
		s      *narrow.Shape
		pose   narrow.Pose
		motion mgl64.Vec3
		want   error
	}{
		{nil, narrow.Identity, mgl64.Vec3{0, -1, 0}, rigid.ErrNilShape},
		{square, narrow.Identity, mgl64.Vec3{0, -1, 0}, rigid.ErrNotMesh},
		{probe, narrow.Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}, mgl64.Vec3{0, -1, 0}, narrow.ErrBadPose},
		{probe, narrow.Identity, mgl64.Vec3{0, math.Inf(-1), 0}, narrow.ErrBadMotion},
	} {
		if _, ok, err := w.ShapeCast(c.s, c.pose, c.motion, nil); !errors.Is(err, c.want) || ok {
			t.Errorf("ShapeCast: %v %v, want %v", ok, err, c.want)
		}
	}
}

// unitSquare is a 2D shape, which 3D queries refuse.
func unitSquare(t *testing.T) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDistanceNearest checks World.Distance on two boxes a known distance
// apart, and World.Nearest against World.Distance to every kept body (the
// least, ties to the lower ID) for probes at random places among a
// scattered field of bunnies, tori and boxes; and the refusals.
func TestDistanceNearest(t *testing.T) {
	w, ground := newWorld(t, nil)
	unit := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
	a, err := w.AddBody(rigid.NewBodyDef(unit, at(0, 3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.AddBody(rigid.NewBodyDef(unit, at(2.5, 3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	c, ok, err := w.Distance(a, b, math.Inf(1))
	if err != nil || !ok || math.Abs(c.Dist-1.5) > 1e-12 || c.Normal().Sub(mgl64.Vec3{1, 0, 0}).Len() > 1e-12 {
		t.Fatalf("Distance of the boxes: %+v, %v, %v; want 1.5 along +x", c, ok, err)
	}
	if c, ok, err := w.Distance(a, ground, 2); err != nil || ok {
		t.Errorf("within 2 of the ground, 2.5 away: %+v, %v, %v", c, ok, err)
	}
	if c, ok, err := w.Distance(a, ground, 3); err != nil || !ok || math.Abs(c.Dist-2.5) > 1e-12 {
		t.Errorf("within 3 of the ground, 2.5 away: %+v, %v, %v", c, ok, err)
	}
	rng := rand.New(rand.NewPCG(5, 8))
	shapes := []*narrow.Shape{mesh(t, "bunny"), mesh(t, "torus"), unit}
	for k := range 12 {
		pose := narrow.Pose{Pos: mgl64.Vec3{12*rng.Float64() - 6, 1 + 4*rng.Float64(), 12*rng.Float64() - 6},
			Rot: mgl64.QuatRotate(3*rng.Float64(), mgl64.Vec3{1, 2, 3}.Normalize())}
		if _, err := w.AddBody(rigid.NewBodyDef(shapes[k%3], pose)); err != nil {
			t.Fatal(err)
		}
	}
	probe := box(t, mgl64.Vec3{0.2, 0.3, 0.1})
	notGround := func(id rigid.BodyID) bool { return id != ground }
	found := 0
	for range 20 {
		pose := narrow.Pose{Pos: mgl64.Vec3{14*rng.Float64() - 7, 1 + 5*rng.Float64(), 14*rng.Float64() - 7}, Rot: mgl64.QuatIdent()}
		for _, max := range []float64{math.Inf(1), 1} {
			id, got, ok, err := w.Nearest(probe, pose, max, notGround)
			if err != nil {
				t.Fatal(err)
			}
			// The reference: the probe as a body of its own.
			wantOK, wantID, want := false, rigid.BodyID(0), narrow.Closest{}
			for j := range rigid.BodyID(w.NumBodies()) {
				if j == ground {
					continue
				}
				d, near, err := narrow.Distance(probe, w.Body(j).Shape(), pose, w.Body(j).Pose(), max)
				if err != nil {
					t.Fatal(err)
				}
				if near && (!wantOK || d.Dist < want.Dist) {
					wantOK, wantID, want = true, j, d
				}
			}
			if ok != wantOK || ok && (id != wantID || got != want) {
				t.Fatalf("probe at %v within %v: body %d %+v %v; want body %d %+v %v", pose.Pos, max, id, got, ok, wantID, want, wantOK)
			}
			if ok {
				found++
			}
		}
	}
	if found < 25 {
		t.Errorf("only %d probes found a body: the test is too easy", found)
	}
	if err := w.RemoveBody(b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"removed body", second(w.Distance(a, b, 1)), rigid.ErrRemovedBody},
		{"unknown body", second(w.Distance(a, 99, 1)), rigid.ErrUnknownBody},
		{"NaN max", second(w.Distance(a, ground, math.NaN())), narrow.ErrBadParams},
		{"nil probe", fourth(w.Nearest(nil, narrow.Identity, 1, nil)), rigid.ErrNilShape},
		{"negative max", fourth(w.Nearest(probe, narrow.Identity, -1, nil)), narrow.ErrBadParams},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
	if n := testing.AllocsPerRun(10, func() { w.Nearest(probe, narrow.Identity, math.Inf(1), nil) }); n != 0 {
		t.Errorf("Nearest: %v allocations a call", n)
	}
}

func second(_ narrow.Closest, _ bool, err error) error { return err }

func fourth(_ rigid.BodyID, _ narrow.Closest, _ bool, err error) error { return err }

// TestCastMotion checks World.CastMotion against narrow.CastMotion on
// every kept body (the least fraction, ties to the lower ID) for a probe
// box turning by up to a full turn through a scattered field of bunnies,
// tori and boxes; and the refusals.
func TestCastMotion(t *testing.T) {
	w, _ := newWorld(t, nil)
	rng := rand.New(rand.NewPCG(7, 3))
	rot := func() mgl64.Quat {
		return mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5 + 1e-3}.Normalize())
	}
	shapes := []*narrow.Shape{mesh(t, "bunny"), mesh(t, "torus"), box(t, mgl64.Vec3{0.3, 0.6, 0.2})}
	ids := scatter(t, w, shapes, 12, 3, func() narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{8*rng.Float64() - 4, 1 + 3*rng.Float64(), 8*rng.Float64() - 4}, Rot: rot()}
	})
	probe := box(t, mgl64.Vec3{0.8, 0.1, 0.1})
	notFirst := func(id rigid.BodyID) bool { return id != ids[0] }
	const tol = 1e-3
	hits := 0
	for k := range 30 {
		keep := []func(rigid.BodyID) bool{nil, notFirst}[k%2]
		from := narrow.Pose{Pos: mgl64.Vec3{10*rng.Float64() - 5, 2 + 4*rng.Float64(), 10*rng.Float64() - 5}, Rot: rot()}
		to := narrow.Pose{Pos: from.Pos.Add(mgl64.Vec3{6*rng.Float64() - 3, -4 * rng.Float64(), 6*rng.Float64() - 3}), Rot: rot()}
		got, ok, err := w.CastMotion(probe, from, to, tol, keep)
		if err != nil {
			t.Fatal(err)
		}
		var want narrow.Cast
		wantID, wantOK := rigid.BodyID(-1), false
		for id := range rigid.BodyID(w.NumBodies()) {
			b := w.Body(id)
			if b == nil || keep != nil && !keep(id) {
				continue
			}
			c, touch, err := narrow.CastMotion(probe, b.Shape(), from, to, b.Pose(), tol)
			if err != nil {
				t.Fatal(err)
			}
			if touch && (!wantOK || c.Fraction < want.Fraction) {
				want, wantID, wantOK = c, id, true
			}
		}
		if ok != wantOK || ok && (got.Body != wantID || got.Fraction != want.Fraction || got.Pose != want.Pose || got.Start != want.Start) {
			t.Fatalf("cast %d: %+v %v, want body %d %+v %v", k, got, ok, wantID, want, wantOK)
		}
		if ok {
			hits++
		}
	}
	if hits < 8 {
		t.Errorf("%d casts of 30 hit: the test needs more", hits)
	}
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"nil shape", third(w.CastMotion(nil, narrow.Identity, narrow.Identity, tol, nil)), rigid.ErrNilShape},
		{"zero tol", third(w.CastMotion(probe, narrow.Identity, narrow.Identity, 0, nil)), narrow.ErrBadParams},
		{"bad end", third(w.CastMotion(probe, narrow.Identity, narrow.Pose{Rot: mgl64.Quat{}}, tol, nil)), narrow.ErrBadPose},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, tc.err, tc.want)
		}
	}
}

func third(_ rigid.ShapeHit, _ bool, err error) error { return err }
