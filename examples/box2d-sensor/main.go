// Command box2d-sensor makes a concave irtcd polygon a trigger zone: a
// static comb of four teeth, marked as a box2d sensor, under a row of
// falling balls. The balls fall through it untouched; the contact
// listener reports each ball that enters and leaves the comb's material.
// The balls dropped between the teeth land on shelves inside the comb's
// convex hull and never touch it.
//
//	go run ./examples/box2d-sensor
package main

import (
	"context"
	"fmt"
	"log"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
)

// listener prints the sensor's Begin and End callbacks.
type listener struct {
	sensor *b2.B2Fixture
	balls  map[*b2.B2Body]int
	step   *int
}

func (l listener) report(c b2.B2ContactInterface, what string) {
	ball := c.GetFixtureB()
	switch l.sensor {
	case c.GetFixtureA():
	case c.GetFixtureB():
		ball = c.GetFixtureA()
	default:
		return // a ball on a shelf
	}
	fmt.Printf("t = %.2f s: ball %d %s the comb\n", float64(*l.step)/60, l.balls[ball.GetBody()], what)
}

func (l listener) BeginContact(c b2.B2ContactInterface)                  { l.report(c, "enters") }
func (l listener) EndContact(c b2.B2ContactInterface)                    { l.report(c, "leaves") }
func (l listener) PreSolve(b2.B2ContactInterface, b2.B2Manifold)         {}
func (l listener) PostSolve(b2.B2ContactInterface, *b2.B2ContactImpulse) {}

func main() {
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w // box2d bodies point back to the world: never copy it
	ad, err := box2dadapter.Install(world)
	if err != nil {
		log.Fatal(err)
	}
	defer ad.Close()

	// The comb: a base 0.4 high from x = 0 to 7, four teeth 1 wide and
	// 2 high at x = 0, 2, 4 and 6, gaps 1 wide between them.
	def := b2.MakeB2BodyDef()
	zone := world.CreateBody(&def)
	f, err := box2dadapter.AddPath(zone, 0, "M 0 0 H 7 V 2.4 H 6 V 0.4 H 5 V 2.4 H 4 V 0.4 H 3 V 2.4 H 2 V 0.4 H 1 V 2.4 H 0 Z")
	if err != nil {
		log.Fatal(err)
	}
	f.SetSensor(true)

	// Shelves (box2d's own boxes, static) in the gaps, 0.6 above the
	// comb's base: inside its convex hull, out of its material.
	for _, x := range []float64{1.5, 3.5, 5.5} {
		sd := b2.MakeB2BodyDef()
		sd.Position.Set(x, 1.1)
		shelf := b2.MakeB2PolygonShape()
		shelf.SetAsBox(0.4, 0.1)
		world.CreateBody(&sd).CreateFixture(&shelf, 0)
	}

	// Seven balls, one over each tooth and each gap, dropped from y = 4:
	// the teeth's fall through the comb, the gaps' land on the shelves.
	balls := map[*b2.B2Body]int{}
	var order []*b2.B2Body
	for i := range 7 {
		bd := b2.MakeB2BodyDef()
		bd.Type = b2.B2BodyType.B2_dynamicBody
		bd.Position.Set(float64(i)+0.5, 4)
		ball := world.CreateBody(&bd)
		c := b2.MakeB2CircleShape()
		c.M_radius = 0.2
		ball.CreateFixture(&c, 1)
		balls[ball] = i
		order = append(order, ball)
	}
	var step int
	world.SetContactListener(listener{sensor: f, balls: balls, step: &step})
	for step = 0; step < 120; step++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil { // instead of world.Step
			log.Fatal(err)
		}
	}
	for i := 1; i < len(order); i += 2 {
		fmt.Printf("ball %d rests in a gap at y = %.2f\n", i, order[i].GetPosition().Y)
	}
}
