// Command box2d-cup drops a native box2d ball into a concave cup (an irtcd
// polygon of 104 vertices standing on the ground) and prints where the
// ball comes to rest, relative to the cup.
//
//	go run ./examples/box2d-cup
package main

import (
	"context"
	"fmt"
	"log"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
)

func main() {
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w // box2d bodies point back to the world: never copy it
	ad, err := box2dadapter.Install(world)
	if err != nil {
		log.Fatal(err)
	}
	defer ad.Close()

	ground := body(world, b2.B2BodyType.B2_staticBody, 0, -0.5)
	box := b2.MakeB2PolygonShape()
	box.SetAsBox(5, 0.5)
	fixture(ground, &box, 0)

	// The cup: flat base, walls 0.2 thick, a bowl of 100 vertices inside.
	cup := body(world, b2.B2BodyType.B2_dynamicBody, 0, 0)
	if _, err := box2dadapter.AddOutline(cup, 1, cupOutline(1.2, 1.2, 0.2, 100)); err != nil {
		log.Fatal(err)
	}

	ball := body(world, b2.B2BodyType.B2_dynamicBody, 0.4, 3)
	ball.SetAngularDamping(0.5) // box2d has no rolling resistance
	circle := b2.MakeB2CircleShape()
	circle.M_radius = 0.2
	fixture(ball, &circle, 1)

	for i := 0; i < 300; i++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil { // instead of world.Step
			log.Fatal(err)
		}
	}
	p := cup.GetLocalPoint(ball.GetPosition())
	fmt.Printf("ball at (%.3f, %.3f) in the cup's frame, speed %.4f\n", p.X, p.Y, ball.GetLinearVelocity().Length())
	fmt.Printf("inside the cup: %v\n", p.X > -1.0 && p.X < 1.0 && p.Y > 0.2 && p.Y < 1.2)
}

func body(world *b2.B2World, typ uint8, x, y float64) *b2.B2Body {
	def := b2.MakeB2BodyDef()
	def.Type = typ
	def.Position.Set(x, y)
	return world.CreateBody(&def)
}

func fixture(b *b2.B2Body, s b2.B2ShapeInterface, density float64) {
	def := b2.MakeB2FixtureDef()
	def.Shape = s
	def.Density = density
	def.Filter = b2.MakeB2Filter() // the zero filter collides with nothing
	b.CreateFixtureFromDef(&def)
}

// cupOutline is a cup of half width w and height h on y = 0 whose bowl,
// of wall thickness th, is the curve y = th + (h−th)·(x/(w−th))⁴ sampled
// at n points.
func cupOutline(w, h, th float64, n int) []b2.B2Vec2 {
	out := []b2.B2Vec2{{X: -w, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}}
	for i := range n {
		u := 1 - 2*float64(i)/float64(n-1)
		out = append(out, b2.B2Vec2{X: u * (w - th), Y: th + (h-th)*u*u*u*u})
	}
	return append(out, b2.B2Vec2{X: -w, Y: h})
}
