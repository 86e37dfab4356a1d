// Command box2d-concave drops a concave gear of 448 vertices onto a box2d
// ground, with irtcd as the narrow phase, and prints the height at which
// it comes to rest: about 1, the radius of its tooth tips.
//
//	go run ./examples/box2d-concave
package main

import (
	"context"
	"fmt"
	"log"
	"math"

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

	// The ground: a native box2d box whose top is at y = 0.
	gdef := b2.MakeB2BodyDef()
	gdef.Position.Set(0, -0.5)
	ground := world.CreateBody(&gdef)
	box := b2.MakeB2PolygonShape()
	box.SetAsBox(10, 0.5)
	fdef := b2.MakeB2FixtureDef()
	fdef.Shape = &box
	fdef.Filter = b2.MakeB2Filter() // the zero filter collides with nothing
	ground.CreateFixtureFromDef(&fdef)

	// The gear: a dynamic body with an irtcd concave polygon.
	bdef := b2.MakeB2BodyDef()
	bdef.Type = b2.B2BodyType.B2_dynamicBody
	bdef.Position.Set(0, 3)
	bdef.Angle = 0.3
	gear := world.CreateBody(&bdef)
	if _, err := box2dadapter.AddOutline(gear, 1, gearOutline(112, 1)); err != nil {
		log.Fatal(err)
	}

	for i := 1; i <= 240; i++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil { // instead of world.Step
			log.Fatal(err)
		}
		if i%60 == 0 {
			st := ad.Stats()
			fmt.Printf("t = %.0f s: gear centre y = %.4f, speed %.4f, %d contact points, narrow phase %v\n",
				float64(i)/60, gear.GetPosition().Y, gear.GetLinearVelocity().Length(), st.Points, st.Narrow)
		}
	}
	fmt.Printf("rest height %.4f (tooth tips at radius 1)\n", gear.GetPosition().Y)
}

// gearOutline returns a gear of the given number of teeth, 4 vertices
// each, with tips at radius r and roots at 0.8·r.
func gearOutline(teeth int, r float64) []b2.B2Vec2 {
	var out []b2.B2Vec2
	for i := range 4 * teeth {
		a := 2 * math.Pi * float64(i) / float64(4*teeth)
		f := [4]float64{0.8, 1, 1, 0.8}[i%4]
		out = append(out, b2.B2Vec2{X: f * r * math.Cos(a), Y: f * r * math.Sin(a)})
	}
	return out
}
