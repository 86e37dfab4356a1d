package box2dadapter_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
)

// boxStack builds a ground and n boxes of half-size h stacked from the
// ground up (with a 1 cm gap), as irtcd polygons or as box2d's own.
func boxStack(t testing.TB, w *b2.B2World, n int, h float64, irtcd bool) []*b2.B2Body {
	ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
	nativeBox(ground, 20, 0.5, 0)
	sq := []b2.B2Vec2{{X: -h, Y: -h}, {X: h, Y: -h}, {X: h, Y: h}, {X: -h, Y: h}}
	var bs []*b2.B2Body
	for i := 0; i < n; i++ {
		b := body(w, b2.B2BodyType.B2_dynamicBody, 0, h+float64(i)*(2*h+0.01), 0)
		if irtcd {
			box2dadapter.AddPolygon(b, mustShape(t, sq), 1)
		} else {
			nativeBox(b, h, h, 1)
		}
		bs = append(bs, b)
	}
	return bs
}

// maxPenetration returns the deepest overlap of the world's touching
// contacts as box2d's solver sees it (minus the separation of its world
// manifold, which counts the shapes' skins): the same measure for native
// and irtcd contacts.
func maxPenetration(w *b2.B2World) float64 {
	deepest := 0.0
	for c := w.M_contactManager.M_contactList; c != nil; c = c.GetNext() {
		if !c.IsTouching() {
			continue
		}
		var wm b2.B2WorldManifold
		c.GetWorldManifold(&wm)
		for i := 0; i < c.GetManifold().PointCount; i++ {
			deepest = max(deepest, -wm.Separations[i])
		}
	}
	return deepest
}

// TestBoxStack: ten irtcd boxes stacked on the ground still stand after
// 10 s, like box2d's own boxes: the top box has not drifted sideways or
// sunk, and no contact is deeper than three times box2d's linear slop.
func TestBoxStack(t *testing.T) {
	for _, irtcd := range []bool{false, true} {
		name := map[bool]string{false: "native", true: "irtcd"}[irtcd]
		t.Run(name, func(t *testing.T) {
			w, ad := newWorld(t)
			bs := boxStack(t, w, 10, 0.25, irtcd)
			step(t, ad, 600)
			top := bs[len(bs)-1].GetPosition()
			// Resting height: ten boxes of 0.5, each contact keeping
			// about box2d's slop of overlap.
			if math.Abs(top.X) > 0.01 {
				t.Errorf("top box drifted to x=%.4f", top.X)
			}
			if want := 4.75; math.Abs(top.Y-want) > 0.1 {
				t.Errorf("top box at y=%.4f, want ≈ %.2f (stack standing)", top.Y, want)
			}
			if a := bs[len(bs)-1].GetAngle(); math.Abs(a) > 0.01 {
				t.Errorf("top box tilted by %.4f rad", a)
			}
			// box2d's own stack rests with up to ~0.013 of overlap at its
			// bottom (the solver leaves slop per contact and the weight of
			// the boxes above compresses it).
			if p := maxPenetration(w); p > 3*b2.B2_linearSlop {
				t.Errorf("max penetration %.4f, want ≤ %.3f", p, 3*b2.B2_linearSlop)
			}
		})
	}
}

// BenchmarkConvexStack runs the same scene with box2d's native narrow
// phase and with irtcd (its boxes as irtcd polygons, default method),
// side by side: a 10-box stack and a 10×10 grid of boxes falling on it,
// 300 steps. Metrics: ms/step, and the deepest overlap over the run.
// Compare with `benchstat -col /narrow`.
func BenchmarkConvexStack(b *testing.B) {
	for _, irtcd := range []bool{false, true} {
		name := map[bool]string{false: "narrow=box2d", true: "narrow=irtcd"}[irtcd]
		b.Run(name, func(b *testing.B) {
			var stepTime time.Duration
			deepest := 0.0
			steps := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				w, ad := newWorld(b)
				boxStack(b, w, 10, 0.25, irtcd)
				sq := []b2.B2Vec2{{X: -0.2, Y: -0.2}, {X: 0.2, Y: -0.2}, {X: 0.2, Y: 0.2}, {X: -0.2, Y: 0.2}}
				for k := 0; k < 100; k++ {
					bd := body(w, b2.B2BodyType.B2_dynamicBody, 2+float64(k%10)*0.45, 1+float64(k/10)*0.45, 0)
					if irtcd {
						box2dadapter.AddPolygon(bd, mustShape(b, sq), 1)
					} else {
						nativeBox(bd, 0.2, 0.2, 1)
					}
				}
				b.StartTimer()
				for s := 0; s < 300; s++ {
					t0 := time.Now()
					if err := ad.Step(context.Background(), dt, 8, 3); err != nil {
						b.Fatal(err)
					}
					stepTime += time.Since(t0)
					steps++
					b.StopTimer()
					deepest = max(deepest, maxPenetration(w))
					b.StartTimer()
				}
			}
			b.ReportMetric(float64(stepTime.Microseconds())/1000/float64(steps), "ms/step")
			b.ReportMetric(deepest, "max-overlap")
		})
	}
}

// ExampleAddOutline drops a concave gear on the ground of a box2d world
// that uses irtcd as its narrow phase.
func ExampleAddOutline() {
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w
	ad, err := box2dadapter.Install(world)
	if err != nil {
		panic(err)
	}
	defer ad.Close()

	groundDef := b2.MakeB2BodyDef()
	ground := world.CreateBody(&groundDef)
	floor := b2.MakeB2EdgeShape()
	floor.Set(b2.B2Vec2{X: -10, Y: 0}, b2.B2Vec2{X: 10, Y: 0})
	ground.CreateFixture(&floor, 0)

	def := b2.MakeB2BodyDef()
	def.Type = b2.B2BodyType.B2_dynamicBody
	def.Position.Set(0, 2)
	g := world.CreateBody(&def)
	if _, err := box2dadapter.AddOutline(g, 1, gear(112, 1)); err != nil {
		panic(err)
	}
	for i := 0; i < 120; i++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
			panic(err)
		}
	}
	fmt.Printf("the gear rests on its teeth: y = %.2f\n", g.GetPosition().Y)
	// Output: the gear rests on its teeth: y = 1.01
}

// ExampleAddPath gives a body an L-shaped outline with a square hole,
// written as an SVG-like path, and reads its mass properties.
func ExampleAddPath() {
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w
	def := b2.MakeB2BodyDef()
	def.Type = b2.B2BodyType.B2_dynamicBody
	b := world.CreateBody(&def)
	if _, err := box2dadapter.AddPath(b, 1, "M 0 0 H 3 V 1 H 1 V 3 H 0 Z M 0.25 0.25 h 0.5 v 0.5 h -0.5 z"); err != nil {
		panic(err)
	}
	fmt.Printf("mass %.2f, centre (%.3f, %.3f)\n", b.GetMass(), b.GetLocalCenter().X, b.GetLocalCenter().Y)
	// Output: mass 4.75, centre (1.132, 1.132)
}

// BenchmarkNativeCrowd measures what irtcd costs a world that is mostly
// box2d's own: columns of 15 native boxes resting on the ground (40
// columns: about 600 native contacts; 160: about 2,400) and 3 concave
// irtcd gears on top, stepped 60 times after 120 steps of settling.
// Metrics: the adapter's narrow phase a step (StepStats.Narrow: gathering
// the irtcd pairs, the backend's detection, handing the points over),
// box2d's step, the world's contacts and the irtcd pairs a step.
func BenchmarkNativeCrowd(b *testing.B) {
	for _, cols := range []int{40, 160} {
		b.Run(fmt.Sprintf("columns=%d", cols), func(b *testing.B) {
			var narrowTime, stepTime time.Duration
			steps, contacts, pairs := 0, 0, 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				w, ad := newWorld(b)
				ground := body(w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
				nativeBox(ground, float64(cols), 0.5, 0)
				for col := 0; col < cols; col++ {
					for row := 0; row < 15; row++ {
						bd := body(w, b2.B2BodyType.B2_dynamicBody, float64(col-cols/2)+0.5, 0.25+float64(row)*0.5, 0)
						nativeBox(bd, 0.25, 0.25, 1)
					}
				}
				for k := 0; k < 3; k++ {
					g := body(w, b2.B2BodyType.B2_dynamicBody, -5+5*float64(k), 9, 0)
					box2dadapter.AddPolygon(g, mustShape(b, gear(56, 0.6)), 1)
				}
				step(b, ad, 120)
				b.StartTimer()
				for s := 0; s < 60; s++ {
					if err := ad.Step(context.Background(), dt, 8, 3); err != nil {
						b.Fatal(err)
					}
					st := ad.Stats()
					narrowTime += st.Narrow
					stepTime += st.Step
					steps++
					pairs += st.Pairs
					contacts += w.GetContactCount()
				}
			}
			b.ReportMetric(float64(narrowTime.Nanoseconds())/1e3/float64(steps), "narrow-µs/step")
			b.ReportMetric(float64(stepTime.Nanoseconds())/1e6/float64(steps), "box2d-ms/step")
			b.ReportMetric(float64(contacts)/float64(steps), "world-contacts")
			b.ReportMetric(float64(pairs)/float64(steps), "irtcd-pairs")
		})
	}
}
