package box2dadapter_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/narrow"
)

// nativeScene adds native-only bodies: a ground, boxes and circles.
func nativeScene(w *b2.B2World) []*b2.B2Body {
	ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
	nativeBox(ground, 20, 0.5, 0)
	var out []*b2.B2Body
	for i := 0; i < 6; i++ {
		b := body(w, b2.B2BodyType.B2_dynamicBody, float64(i%3)*0.4-0.4, 1+float64(i)*1.1, 0.1*float64(i))
		if i%2 == 0 {
			nativeBox(b, 0.3, 0.2, 1)
		} else {
			c := b2.MakeB2CircleShape()
			c.M_radius = 0.3
			def := b2.MakeB2FixtureDef()
			def.Shape = &c
			def.Density = 1
			def.Filter = b2.MakeB2Filter()
			b.CreateFixtureFromDef(&def)
		}
		out = append(out, b)
	}
	return out
}

// TestDropIn: a world with native shapes only follows exactly the same
// trajectory with the adapter installed (Adapter.Step) as without
// (World.Step): native pairs are left to box2d untouched.
func TestDropIn(t *testing.T) {
	plain := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	pb := nativeScene(&plain)
	w, ad := newWorld(t)
	ab := nativeScene(w)
	for i := 0; i < 300; i++ {
		plain.Step(dt, 8, 3)
		if err := ad.Step(context.Background(), dt, 8, 3); err != nil {
			t.Fatal(err)
		}
	}
	for i := range pb {
		if pb[i].GetPosition() != ab[i].GetPosition() || pb[i].GetAngle() != ab[i].GetAngle() {
			t.Errorf("body %d: plain %v/%v, with adapter %v/%v", i, pb[i].GetPosition(), pb[i].GetAngle(), ab[i].GetPosition(), ab[i].GetAngle())
		}
	}
	if st := ad.Stats(); st.Pairs != 0 {
		t.Errorf("adapter handled %d pairs in a native-only world", st.Pairs)
	}
}

// TestMixedWorld: irtcd shapes against native circles, polygons, edges and
// chains, continuous physics on (box2d's default): nothing panics, nothing
// falls through, and everything comes to rest.
func TestMixedWorld(t *testing.T) {
	w, ad := newWorld(t)
	ground := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
	edge := b2.MakeB2EdgeShape()
	edge.Set(b2.B2Vec2{X: -10, Y: 0}, b2.B2Vec2{X: 10, Y: 0})
	ground.CreateFixture(&edge, 0)
	chain := b2.MakeB2ChainShape()
	chain.CreateChain([]b2.B2Vec2{{X: 4, Y: 0}, {X: 6, Y: 1}, {X: 8, Y: 0.5}, {X: 10, Y: 2}}, 4)
	ground.CreateFixture(&chain, 0)

	gearA := body(w, b2.B2BodyType.B2_dynamicBody, 0, 1.5, 0)
	box2dadapter.AddPolygon(gearA, mustShape(t, gear(64, 1)), 1)
	onChain := body(w, b2.B2BodyType.B2_dynamicBody, 7, 3, 0.3)
	box2dadapter.AddPolygon(onChain, mustShape(t, gear(32, 0.5)), 1)
	circ := body(w, b2.B2BodyType.B2_dynamicBody, 0.1, 4, 0)
	c := b2.MakeB2CircleShape()
	c.M_radius = 0.3
	circ.CreateFixture(&c, 1)
	box := body(w, b2.B2BodyType.B2_dynamicBody, -0.2, 6, 0.2)
	nativeBox(box, 0.3, 0.3, 1)

	step(t, ad, 600)
	for name, b := range map[string]*b2.B2Body{"gear": gearA, "gear on chain": onChain, "circle": circ, "box": box} {
		p := b.GetPosition()
		if p.Y < 0 || math.IsNaN(p.Y) {
			t.Errorf("%s fell through the ground: %v", name, p)
		}
		if v := b.GetLinearVelocity().Length(); v > 0.05 {
			t.Errorf("%s not at rest after 10 s: speed %.3f", name, v)
		}
	}
}

// cup returns the outline of a flat-bottomed cup: a block of outer
// half-width r+th from y = -th to 2r with a bowl cut in it (vertical inner
// walls down to y = r, then a half circle of radius r with n points down
// to the inner bottom at y = 0).
func cup(n int, r, th float64) []b2.B2Vec2 {
	out := []b2.B2Vec2{{X: -r - th, Y: -th}, {X: r + th, Y: -th}, {X: r + th, Y: 2 * r}, {X: r, Y: 2 * r}}
	for i := 0; i <= n; i++ {
		a := -math.Pi * float64(i) / float64(n) // from (r, r) down and round to (-r, r)
		out = append(out, b2.B2Vec2{X: r * math.Cos(a), Y: r + r*math.Sin(a)})
	}
	return append(out, b2.B2Vec2{X: -r, Y: 2 * r})
}

// TestCupHoldsBall: concave in concave. A ball (a 64-gon irtcd shape, or
// a native circle) dropped into a 200-vertex irtcd cup resting on the
// ground settles at the bottom of the cup and stays there: no jitter, no
// sinking.
func TestCupHoldsBall(t *testing.T) {
	for _, native := range []bool{false, true} {
		name := map[bool]string{false: "irtcd ball", true: "native circle"}[native]
		t.Run(name, func(t *testing.T) {
			w, ad := newWorld(t)
			ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
			nativeBox(ground, 20, 0.5, 0)
			cb := body(w, b2.B2BodyType.B2_dynamicBody, 0, 0.2, 0)
			box2dadapter.AddPolygon(cb, mustShape(t, cup(100, 1, 0.1)), 1)
			ball := body(w, b2.B2BodyType.B2_dynamicBody, 0, 2.5, 0)
			const r = 0.3
			if native {
				c := b2.MakeB2CircleShape()
				c.M_radius = r
				ball.CreateFixture(&c, 1)
			} else {
				var pts []b2.B2Vec2
				for i := 0; i < 64; i++ {
					a := 2 * math.Pi * float64(i) / 64
					pts = append(pts, b2.B2Vec2{X: r * math.Cos(a), Y: r * math.Sin(a)})
				}
				box2dadapter.AddPolygon(ball, mustShape(t, pts), 1)
			}
			step(t, ad, 300)
			p0 := ball.GetPosition()
			var maxDepth float64
			for i := 0; i < 120; i++ {
				step(t, ad, 1)
				maxDepth = max(maxDepth, ad.Stats().DepthMax)
			}
			p1 := ball.GetPosition()
			cp := cb.GetPosition()
			// The ball rests in the bottom of the cup's inner arc: its
			// centre r above the inner bottom at cup y + 0.
			if d := b2.B2Vec2Distance(p0, p1); d > 1e-3 {
				t.Errorf("ball moved %.5f in the last 2 s (jitter)", d)
			}
			if math.Abs(p1.X-cp.X) > 0.05 || p1.Y < cp.Y+r-0.03 || p1.Y > cp.Y+r+0.03 {
				t.Errorf("ball at %v, cup at %v: want the ball resting at the bottom (y ≈ cup + %.2f)", p1, cp, r)
			}
			if maxDepth > 2*b2.B2_linearSlop {
				t.Errorf("max penetration %.4f at rest, want ≤ %.3f", maxDepth, 2*b2.B2_linearSlop)
			}
		})
	}
}

// TestUOnWedge: an upside-down U (∩) resting on a static wedge touches it
// with both inner corners, along two different normals: the adapter hands
// box2d one contact per normal cluster (ExtraContacts) and the U rests,
// centred, without jitter.
func TestUOnWedge(t *testing.T) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodPredictive} {
		t.Run(m.String(), func(t *testing.T) {
			w, ad := newWorldMethod(t, m)
			wedge := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
			box2dadapter.AddPolygon(wedge, mustShape(t, []b2.B2Vec2{{X: -1.5, Y: 0}, {X: 1.5, Y: 0}, {X: 0, Y: 1.5}}), 0)
			u := body(w, b2.B2BodyType.B2_dynamicBody, 0, 2.5, math.Pi) // ∩
			box2dadapter.AddPolygon(u, mustShape(t, uShape(0.8, 1.2, 0.2)), 1)
			stepExtra(t, ad, 240)
			p0, a0 := u.GetPosition(), u.GetAngle()
			step(t, ad, 120)
			p1, a1 := u.GetPosition(), u.GetAngle()
			if b2.B2Vec2Distance(p0, p1) > 1e-3 || math.Abs(a1-a0) > 1e-3 {
				t.Errorf("U moved at rest: %v/%.4f → %v/%.4f", p0, a0, p1, a1)
			}
			// The ∩'s arms end 1.2 below its centre line; their inner
			// tips (half-width 0.6) rest on the wedge's slopes (slope 1,
			// apex 1.5) at height 0.9.
			if math.Abs(p1.X) > 0.01 || math.Abs(a1-math.Pi) > 0.01 {
				t.Errorf("U off centre or tilted: %v, angle %.4f", p1, a1)
			}
			if y := p1.Y - 1.2; math.Abs(y-0.9) > 0.02 {
				t.Errorf("U arm tips at y=%.4f, want ≈ 0.9 on the wedge", y)
			}
		})
	}
}

// thinArc is a static-wall outline: an arc of radius r and thickness th
// spanning ±span radians around +x, concave towards the origin.
func thinArc(r, th, span float64, n int) []b2.B2Vec2 {
	var out []b2.B2Vec2
	for i := 0; i <= n; i++ {
		a := -span + 2*span*float64(i)/float64(n)
		out = append(out, b2.B2Vec2{X: (r + th) * math.Cos(a), Y: (r + th) * math.Sin(a)})
	}
	for i := n; i >= 0; i-- {
		a := -span + 2*span*float64(i)/float64(n)
		out = append(out, b2.B2Vec2{X: r * math.Cos(a), Y: r * math.Sin(a)})
	}
	return out
}

// TestNoTunneling: fast bodies fired at a thin (0.05) static concave arc
// do not pass through it, with continuous physics on: an irtcd square and
// a native circle, at speeds up to 6 m per step.
func TestNoTunneling(t *testing.T) {
	for _, speed := range []float64{60, 150, 360} {
		for _, native := range []bool{false, true} {
			name := map[bool]string{false: "irtcd square", true: "native circle"}[native]
			t.Run(fmt.Sprintf("%s/%.0fm/s", name, speed), func(t *testing.T) {
				w, ad := newWorld(t)
				w.SetGravity(b2.B2Vec2{})
				wall := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
				box2dadapter.AddPolygon(wall, mustShape(t, thinArc(5, 0.05, 0.6, 60)), 0)
				var bodies []*b2.B2Body
				for _, y := range []float64{-1.3, 0, 0.7} {
					b := body(w, b2.B2BodyType.B2_dynamicBody, 0, y, 0)
					if native {
						c := b2.MakeB2CircleShape()
						c.M_radius = 0.05
						b.CreateFixture(&c, 1)
					} else {
						box2dadapter.AddPolygon(b, mustShape(t, []b2.B2Vec2{{X: -0.05, Y: -0.05}, {X: 0.05, Y: -0.05}, {X: 0.05, Y: 0.05}, {X: -0.05, Y: 0.05}}), 1)
					}
					b.SetLinearVelocity(b2.B2Vec2{X: speed, Y: 0})
					bodies = append(bodies, b)
				}
				// Passing through = being beyond the wall's outer face
				// within its angular span, at the end of any step.
				for i := 0; i < 30; i++ {
					step(t, ad, 1)
					for k, b := range bodies {
						p := b.GetPosition()
						if math.Abs(math.Atan2(p.Y, p.X)) < 0.6 && p.Length() > 5.05 {
							t.Fatalf("speed %.0f, step %d: body %d passed the wall: at %v (wall at r = 5 … 5.05)", speed, i, k, p)
						}
					}
				}
			})
		}
	}
}

// TestBadShapes: bad outlines are typed errors at creation, never panics.
func TestBadShapes(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name  string
		outer []b2.B2Vec2
		want  error
	}{
		{"two vertices", []b2.B2Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}}, narrow.ErrDegenerate},
		{"self-intersecting", []b2.B2Vec2{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: 1, Y: 0}, {X: 0, Y: 1}}, narrow.ErrSelfIntersect},
		{"NaN", []b2.B2Vec2{{X: 0, Y: 0}, {X: 1, Y: nan}, {X: 0, Y: 1}}, narrow.ErrNonFinite},
		{"zero area", []b2.B2Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 2, Y: 0}}, narrow.ErrDegenerate},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := box2dadapter.NewShape(c.outer)
			if err == nil {
				t.Fatalf("NewShape accepted it: %v", s)
			}
			var se *narrow.ShapeError
			if !errors.As(err, &se) {
				t.Errorf("error %v is not a *narrow.ShapeError", err)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

// TestDestroyBody: bodies with irtcd shapes in contact are destroyed
// without panic and the world keeps stepping.
func TestDestroyBody(t *testing.T) {
	w, ad := newWorld(t)
	ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
	nativeBox(ground, 20, 0.5, 0)
	var bs []*b2.B2Body
	for i := 0; i < 3; i++ {
		b := body(w, b2.B2BodyType.B2_dynamicBody, 0, 0.6+1.1*float64(i), 0)
		box2dadapter.AddPolygon(b, mustShape(t, gear(32, 0.5)), 1)
		bs = append(bs, b)
	}
	step(t, ad, 120)
	n := w.GetBodyCount()
	ad.DestroyBody(bs[1])
	if w.GetBodyCount() != n-1 {
		t.Fatalf("body count %d after destroying one of %d", w.GetBodyCount(), n)
	}
	step(t, ad, 300)
	// The top gear falls onto the bottom one; balanced on it, or rolled off
	// onto the ground, it must not overlap it (its teeth may mesh: centres
	// at least root + tip = 0.9 apart) nor the ground.
	top, bottom := bs[2].GetPosition(), bs[0].GetPosition()
	if d := math.Hypot(top.X-bottom.X, top.Y-bottom.Y); d < 0.88 {
		t.Errorf("top gear centre %.3f from the bottom one's after the middle one was removed, want ≥ 0.9 (no overlap)", d)
	}
	if top.Y < 0.48 {
		t.Errorf("top gear at y=%.3f, below the ground's surface plus its radius", top.Y)
	}
}

// TestDestroyedShapesReleased: a world whose bodies come and go does not
// grow the backend. Each round drops a gear (a new irtcd shape) and a
// native box onto a concave irtcd ground, lets them land, and destroys
// them (the gear with Adapter.DestroyBody, the native box with
// World.DestroyBody). After the rounds the batch holds the ground's shape
// only, and the last round's bodies still rested on the ground.
func TestDestroyedShapesReleased(t *testing.T) {
	const rounds = 10
	w, ad := newWorld(t)
	ground := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
	box2dadapter.AddPolygon(ground, mustShape(t, cup(40, 3, 0.5)), 0)
	maxShapes := 0
	for r := 0; r < rounds; r++ {
		g := body(w, b2.B2BodyType.B2_dynamicBody, -0.8, 1.5, 0.1*float64(r))
		box2dadapter.AddPolygon(g, mustShape(t, gear(24, 0.4+0.01*float64(r))), 1)
		nb := body(w, b2.B2BodyType.B2_dynamicBody, 0.8, 1.5, 0)
		nativeBox(nb, 0.3, 0.2, 1)
		for k := 0; k < 90; k++ {
			if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
				t.Fatal(err)
			}
			maxShapes = max(maxShapes, ad.Stats().Shapes)
		}
		for name, b := range map[string]*b2.B2Body{"gear": g, "box": nb} {
			if p := b.GetPosition(); p.Y < 0 || math.IsNaN(p.Y) {
				t.Fatalf("round %d: %s fell through the cup: %v", r, name, p)
			}
		}
		ad.DestroyBody(g)
		w.DestroyBody(nb)
	}
	if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
		t.Fatal(err)
	}
	if n := ad.Stats().Shapes; n != 1 {
		t.Errorf("%d shapes registered after %d rounds of bodies created and destroyed, want 1 (the ground's)", n, rounds)
	}
	if maxShapes > 3 {
		t.Errorf("up to %d shapes registered at once, want at most 3 (ground, gear, box)", maxShapes)
	}

	// A native-only body destroyed with World.DestroyBody alone: its
	// conversion is released by the periodic scan.
	nb := body(w, b2.B2BodyType.B2_dynamicBody, 0, 1.5, 0)
	nativeBox(nb, 0.3, 0.2, 1)
	steps := 0
	for ; steps < 300 && ad.Stats().Shapes < 2; steps++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
			t.Fatal(err)
		}
	}
	if ad.Stats().Shapes != 2 {
		t.Fatalf("the box never met the cup: %d shapes after %d steps", ad.Stats().Shapes, steps)
	}
	w.DestroyBody(nb)
	for k := 0; k < 300; k++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
			t.Fatal(err)
		}
	}
	if n := ad.Stats().Shapes; n != 1 {
		t.Errorf("%d shapes registered 300 steps after a native box was destroyed with World.DestroyBody, want 1", n)
	}
}

// TestMassAndQueries: mass, centroid and inertia of a concave shape with
// a hole, world ray casts and point tests.
func TestMassAndQueries(t *testing.T) {
	w, ad := newWorld(t)
	_ = ad
	b := body(w, b2.B2BodyType.B2_dynamicBody, 1, 2, 0)
	// 4×2 rectangle from (0,0) with a 1×1 hole at (1..2, 0.5..1.5).
	outer := []b2.B2Vec2{{X: 0, Y: 0}, {X: 4, Y: 0}, {X: 4, Y: 2}, {X: 0, Y: 2}}
	hole := []b2.B2Vec2{{X: 1, Y: 0.5}, {X: 2, Y: 0.5}, {X: 2, Y: 1.5}, {X: 1, Y: 1.5}}
	f, err := box2dadapter.AddOutline(b, 2, outer, hole)
	if err != nil {
		t.Fatal(err)
	}
	// Area 7, mass 14; centroid x = (8·2 − 1·1.5)/7, y = 1.
	if m := b.GetMass(); math.Abs(m-14) > 1e-12 {
		t.Errorf("mass %v, want 14", m)
	}
	cx := (8*2 - 1.5) / 7
	if c := b.GetLocalCenter(); math.Abs(c.X-cx) > 1e-12 || math.Abs(c.Y-1) > 1e-12 {
		t.Errorf("centroid %v, want (%v, 1)", c, cx)
	}
	// Inertia about the centroid: rectangle minus hole, parallel axes.
	rect := 2 * 8 * (16 + 4) / 12.0
	rect += 2 * 8 * ((2-cx)*(2-cx) + 0)
	h := 2 * 1 * (1 + 1) / 12.0
	h += 2 * 1 * ((1.5-cx)*(1.5-cx) + 0)
	if in := b.GetInertia() - b.GetMass()*b2.B2Vec2Dot(b.GetLocalCenter(), b.GetLocalCenter()); math.Abs(in-(rect-h)) > 1e-9 {
		t.Errorf("central inertia %v, want %v", in, rect-h)
	}
	// Point tests, world coordinates (body at (1, 2)).
	for _, c := range []struct {
		p    b2.B2Vec2
		want bool
	}{{b2.B2Vec2{X: 1.5, Y: 2.2}, true}, {b2.B2Vec2{X: 2.5, Y: 3}, false}, {b2.B2Vec2{X: 4.5, Y: 3}, true}, {b2.B2Vec2{X: 6, Y: 3}, false}} {
		if got := f.TestPoint(c.p); got != c.want {
			t.Errorf("TestPoint(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// A ray along y = 3 from the left enters at x = 1, and from inside the
	// hole it reports the hole's wall at x = 3.
	var out b2.B2RayCastOutput
	in := b2.B2RayCastInput{P1: b2.B2Vec2{X: -1, Y: 3}, P2: b2.B2Vec2{X: 9, Y: 3}, MaxFraction: 1}
	if !f.RayCast(&out, in, 0) || math.Abs(out.Fraction-0.2) > 1e-12 || out.Normal != (b2.B2Vec2{X: -1, Y: 0}) {
		t.Errorf("ray from the left: %+v, want fraction 0.2, normal (-1, 0)", out)
	}
	in = b2.B2RayCastInput{P1: b2.B2Vec2{X: 2.5, Y: 3}, P2: b2.B2Vec2{X: 9, Y: 3}, MaxFraction: 1}
	if !f.RayCast(&out, in, 0) || math.Abs(out.Fraction-0.5/6.5) > 1e-12 || out.Normal != (b2.B2Vec2{X: -1, Y: 0}) {
		t.Errorf("ray from the hole: %+v, want fraction %v, normal (-1, 0)", out, 0.5/6.5)
	}
}

// restingU is a static concave cup and a U resting on its arc at two
// points, a pair that box2d holds in two contacts (two normal clusters).
func restingU(t *testing.T, w *b2.B2World) *b2.B2Body {
	t.Helper()
	cupBody := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
	box2dadapter.AddPolygon(cupBody, mustShape(t, cup(100, 1, 0.1)), 0)
	// The U's bottom corners (±0.4, 0) touch the arc (radius 1, centre
	// (0, 1)) at y = 1 - √0.84 ≈ 0.0835: a little lower, they are inside.
	u := body(w, b2.B2BodyType.B2_dynamicBody, 0, 0.082, 0)
	box2dadapter.AddPolygon(u, mustShape(t, uShape(0.4, 0.3, 0.1)), 1)
	return u
}

// TestInstallLate: contacts box2d made before Install (a World.Step
// without an adapter) are taken over by the adapter, so that the U rests
// in the cup instead of falling through it.
func TestInstallLate(t *testing.T) {
	newWorld(t) // registers irtcd's contact type with box2d
	w0 := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	w := &w0
	u := restingU(t, w)
	w.Step(dt, 8, 3) // contacts made, no points
	if w.GetContactCount() == 0 {
		t.Fatal("no contact made before Install: the test needs one")
	}
	ad, err := box2dadapter.Install(w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad.Close() })
	if err := ad.CheckContacts(); err != nil {
		t.Fatal(err)
	}
	step(t, ad, 120)
	if y := u.GetPosition().Y; y < 0.07 {
		t.Errorf("the U fell to y = %.3f: the contacts made before Install were not taken over", y)
	}
	if err := ad.CheckContacts(); err != nil {
		t.Fatal(err)
	}
}

// TestReinstall: an adapter closed and another installed on the same
// world: Close destroys the extra contacts of the pair's second cluster,
// the new adapter takes the pair over as one pair (no duplicate), and the
// U still rests in the cup. A second Close of the first adapter leaves the
// new one installed.
func TestReinstall(t *testing.T) {
	w, ad := newWorld(t)
	u := restingU(t, w)
	stepExtra(t, ad, 120)
	y0 := u.GetPosition().Y
	if err := ad.Close(); err != nil {
		t.Fatal(err)
	}
	if n := w.GetContactCount(); n != 1 {
		t.Fatalf("after Close the world holds %d contacts, want the pair's one", n)
	}
	ad2, err := box2dadapter.Install(w)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad2.Close() })
	if err := ad.Close(); err != nil { // again: must not uninstall ad2
		t.Fatal(err)
	}
	u.SetAwake(true)
	for i := 0; i < 60; i++ {
		step(t, ad2, 1)
		// One pair while the U is awake, none once it sleeps.
		if p := ad2.Stats().Pairs; p > 1 || i == 0 && p != 1 {
			t.Fatalf("step %d after reinstalling: %d pairs in the batch, want 1", i, p)
		}
		if err := ad2.CheckContacts(); err != nil {
			t.Fatal(err)
		}
	}
	if y := u.GetPosition().Y; math.Abs(y-y0) > 0.01 {
		t.Errorf("the U moved from y = %.4f to %.4f after reinstalling", y0, y)
	}
}

// closer closes an adapter from inside World.Step.
type closer struct {
	b2.B2ContactListenerInterface
	ad  *box2dadapter.Adapter
	err error
}

func (l *closer) BeginContact(b2.B2ContactInterface) {
	if l.err == nil {
		l.err = l.ad.Close()
	}
}
func (l *closer) EndContact(b2.B2ContactInterface)                      {}
func (l *closer) PreSolve(b2.B2ContactInterface, b2.B2Manifold)         {}
func (l *closer) PostSolve(b2.B2ContactInterface, *b2.B2ContactImpulse) {}

// TestCloseDuringStep: Close from a contact listener fails with an error
// and leaves the adapter working.
func TestCloseDuringStep(t *testing.T) {
	w, ad := newWorld(t)
	u := restingU(t, w)
	l := &closer{ad: ad}
	w.SetContactListener(l)
	step(t, ad, 60)
	if l.err == nil {
		t.Fatal("Close during a step succeeded")
	}
	if y := u.GetPosition().Y; y < 0.07 {
		t.Errorf("the U fell to y = %.3f after a refused Close", y)
	}
}
