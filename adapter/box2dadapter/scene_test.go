package box2dadapter_test

import (
	"context"
	"math"
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/narrow"
)

const dt = 1.0 / 60

// newWorld returns a world with gravity -10 and the adapter installed
// (closed at the end of the test).
func newWorld(t testing.TB, opts ...box2dadapter.Option) (*b2.B2World, *box2dadapter.Adapter) {
	t.Helper()
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w
	ad, err := box2dadapter.Install(world, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ad.Close() })
	return world, ad
}

func body(w *b2.B2World, typ uint8, x, y, angle float64) *b2.B2Body {
	def := b2.MakeB2BodyDef()
	def.Type = typ
	def.Position.Set(x, y)
	def.Angle = angle
	return w.CreateBody(&def)
}

// nativeBox adds a box2d polygon box fixture.
func nativeBox(b *b2.B2Body, hx, hy, density float64) *b2.B2Fixture {
	s := b2.MakeB2PolygonShape()
	s.SetAsBox(hx, hy)
	def := b2.MakeB2FixtureDef()
	def.Shape = &s
	def.Density = density
	def.Filter = b2.MakeB2Filter()
	return b.CreateFixtureFromDef(&def)
}

func mustShape(t testing.TB, outer []b2.B2Vec2, holes ...[]b2.B2Vec2) *box2dadapter.Shape {
	t.Helper()
	s, err := box2dadapter.NewShape(outer, holes...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// uShape is a U of outer width 2w, height h and wall thickness th, open
// upwards, with its bottom at y = 0.
func uShape(w, h, th float64) []b2.B2Vec2 {
	return []b2.B2Vec2{{X: -w, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}, {X: w - th, Y: h}, {X: w - th, Y: th}, {X: -w + th, Y: th}, {X: -w + th, Y: h}, {X: -w, Y: h}}
}

// gear is a concave outline with teeth×4 vertices and outer radius r.
func gear(teeth int, r float64) []b2.B2Vec2 {
	var out []b2.B2Vec2
	for i := 0; i < teeth; i++ {
		a0 := 2 * math.Pi * float64(i) / float64(teeth)
		step := 2 * math.Pi / float64(teeth) / 4
		for k, f := range []float64{0.8, 1.0, 1.0, 0.8} {
			a := a0 + float64(k)*step
			out = append(out, b2.B2Vec2{X: f * r * math.Cos(a), Y: f * r * math.Sin(a)})
		}
	}
	return out
}

func step(t testing.TB, ad *box2dadapter.Adapter, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := ad.Step(context.Background(), dt, 8, 3); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGearRestsOnGround: a 448-vertex concave gear dropped on a native box
// ground comes to rest on its teeth: no sinking, no jitter.
func TestGearRestsOnGround(t *testing.T) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		t.Run(m.String(), func(t *testing.T) {
			w, ad := newWorldMethod(t, m)
			ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
			nativeBox(ground, 20, 0.5, 0)
			g := body(w, b2.B2BodyType.B2_dynamicBody, 0, 2, 0.1)
			box2dadapter.AddPolygon(g, mustShape(t, gear(112, 1)), 1)
			step(t, ad, 180)
			y0 := g.GetPosition().Y
			step(t, ad, 60)
			y1 := g.GetPosition().Y
			// Resting on tooth tips (radius 1): the centre sits at about 1
			// above the ground minus box2d's slop.
			if math.Abs(y1-1) > 0.02 {
				t.Errorf("gear centre at y=%.4f after 4 s, want ≈ 1 (on its teeth)", y1)
			}
			if math.Abs(y1-y0) > 1e-3 {
				t.Errorf("gear still moving at rest: y %.5f → %.5f over 1 s", y0, y1)
			}
			if v := g.GetLinearVelocity().Length(); v > 0.01 {
				t.Errorf("gear speed %.4f at rest", v)
			}
		})
	}
}

func newWorldMethod(t testing.TB, m narrow.Method) (*b2.B2World, *box2dadapter.Adapter) {
	t.Helper()
	be, err := cpubackendNew(narrow.Params{Method: m})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	return newWorld(t, box2dadapter.WithBackend(be))
}

// TestThinTeethPushedOut: a gear whose teeth (about 0.01 wide) are buried
// 0.1 deep in the ground is pushed out onto its tips. Every inward ray of a
// buried tooth leaves the tooth sideways long before it reaches the ground's
// top face, so Hermann's own-body rule alone reports no contact at all and
// the gear would stay buried; the reach of narrow.Params accepts those hits.
func TestThinTeethPushedOut(t *testing.T) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		t.Run(m.String(), func(t *testing.T) {
			w, ad := newWorldMethod(t, m)
			ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
			nativeBox(ground, 20, 0.5, 0)
			const r = 0.75
			// A tooth tip points straight down (angle of its middle = -π/2).
			half := 2 * math.Pi / 112 / 4 * 1.5
			g := body(w, b2.B2BodyType.B2_dynamicBody, 0, r-0.1, -math.Pi/2-half)
			box2dadapter.AddPolygon(g, mustShape(t, gear(112, r)), 1)
			step(t, ad, 120)
			if y := g.GetPosition().Y; math.Abs(y-r) > 0.02 {
				t.Errorf("gear centre at y=%.4f after 2 s, want ≈ %.2f (on its tips)", y, r)
			}
		})
	}
}
