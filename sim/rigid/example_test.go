package rigid_test

import (
	"context"
	"fmt"
	"log"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// A bunny dropped from half a metre onto a static ground box: the world
// runs fixed 1/60 s steps (broad phase, irtcd's narrow phase, the contact
// solver) until the bunny lies still and falls asleep.
func ExampleWorld() {
	bunny, err := narrow.LoadOBJ("../../testdata/bunny.obj")
	if err != nil {
		log.Fatal(err)
	}
	ground, err := narrow.NewBox(mgl64.Vec3{-10, -1, -10}, mgl64.Vec3{10, 0, 10})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	floor := rigid.NewBodyDef(ground, narrow.Identity)
	floor.Static = true
	if _, err := w.AddBody(floor); err != nil {
		log.Fatal(err)
	}
	// The bunny's lowest vertex starts 0.5 above the ground.
	id, err := w.AddBody(rigid.NewBodyDef(bunny, narrow.Pose{Pos: mgl64.Vec3{0, 0.5 - bunny.Bounds().Min[1], 0}, Rot: mgl64.QuatIdent()}))
	if err != nil {
		log.Fatal(err)
	}
	for !w.Body(id).Sleeping() && w.Time() < 10 {
		if err := w.Step(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
	b := w.Body(id)
	// The lowest vertex at rest: in the ground by at most the solver's
	// slop and the last step's sinking.
	pose := b.Pose()
	lowest := 1e9
	for i := range bunny.NumVertices() {
		lowest = min(lowest, pose.Pos.Add(pose.Rot.Rotate(bunny.Vertex(i)))[1])
	}
	fmt.Printf("asleep within 10 s: %v; lowest point within 1 cm of the ground: %v\n", b.Sleeping(), lowest > -0.01 && lowest < 0.01)
	// Output:
	// asleep within 10 s: true; lowest point within 1 cm of the ground: true
}

// A ray cast straight down onto a crate standing on the ground finds the
// crate's top face; one that misses the crate finds the ground, and with
// the ground filtered out, nothing.
func ExampleWorld_RayCast() {
	ground, err := narrow.NewBox(mgl64.Vec3{-10, -1, -10}, mgl64.Vec3{10, 0, 10})
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.5, 1, 0.5})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	floor := rigid.NewBodyDef(ground, narrow.Identity)
	floor.Static = true
	g, err := w.AddBody(floor)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := w.AddBody(rigid.NewBodyDef(crate, narrow.Identity)); err != nil {
		log.Fatal(err)
	}
	down := mgl64.Vec3{0, -1, 0}
	for _, x := range []float64{0.2, 3} {
		hit, ok, err := w.RayCast(mgl64.Vec3{x, 5, 0}, down, 100, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("from x = %v: hit %v, body %d at distance %.2f, normal %.0f\n", x, ok, hit.Body, hit.T, hit.Normal)
	}
	_, ok, err := w.RayCast(mgl64.Vec3{3, 5, 0}, down, 100, func(id rigid.BodyID) bool { return id != g })
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("without the ground:", ok)
	// Output:
	// from x = 0.2: hit true, body 1 at distance 4.00, normal [0 1 0]
	// from x = 3: hit true, body 0 at distance 5.00, normal [0 1 0]
	// without the ground: false
}

// A character's box, moved 3 m sideways at knee height, stops at the
// crate in its way: the cast gives how far it may go and the crate's
// face to slide along. Lifted over the crate, it passes.
func ExampleWorld_ShapeCast() {
	ground, err := narrow.NewBox(mgl64.Vec3{-10, -1, -10}, mgl64.Vec3{10, 0, 10})
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.5, 1, 0.5})
	if err != nil {
		log.Fatal(err)
	}
	character, err := narrow.NewBox(mgl64.Vec3{-0.25, -0.4, -0.25}, mgl64.Vec3{0.25, 0.4, 0.25})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	floor := rigid.NewBodyDef(ground, narrow.Identity)
	floor.Static = true
	if _, err := w.AddBody(floor); err != nil {
		log.Fatal(err)
	}
	if _, err := w.AddBody(rigid.NewBodyDef(crate, narrow.Identity)); err != nil {
		log.Fatal(err)
	}
	for _, y := range []float64{0.5, 1.5} {
		start := narrow.Pose{Pos: mgl64.Vec3{-2, y, 0}, Rot: mgl64.QuatIdent()}
		hit, ok, err := w.ShapeCast(character, start, mgl64.Vec3{3, 0, 0}, nil)
		if err != nil {
			log.Fatal(err)
		}
		if !ok {
			fmt.Printf("at height %v: free\n", y)
			continue
		}
		fmt.Printf("at height %v: body %d after %.2f m, normal %.0f\n", y, hit.Body, 3*hit.Fraction, hit.Normal)
	}
	// Output:
	// at height 0.5: body 1 after 1.25 m, normal [-1 0 0]
	// at height 1.5: free
}

// A kinematic platform, driven at 0.5 m/s, carries a crate by friction:
// after 2 s both have gone 1 m, and the platform exactly so, whatever
// rests on it.
func ExampleBodyDef_kinematic() {
	slab, err := narrow.NewBox(mgl64.Vec3{-1, -0.1, -1}, mgl64.Vec3{1, 0.1, 1})
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.25, -0.25, -0.25}, mgl64.Vec3{0.25, 0.25, 0.25})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	def := rigid.NewBodyDef(slab, narrow.Identity)
	def.Kinematic = true
	def.LinearVelocity = mgl64.Vec3{0.5, 0, 0}
	platform, err := w.AddBody(def)
	if err != nil {
		log.Fatal(err)
	}
	box, err := w.AddBody(rigid.NewBodyDef(crate, narrow.Pose{Pos: mgl64.Vec3{0, 0.35, 0}, Rot: mgl64.QuatIdent()}))
	if err != nil {
		log.Fatal(err)
	}
	for range 120 {
		if err := w.Step(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("platform at x = %.3f, crate at x = %.1f, y = %.2f\n", w.Body(platform).Pose().Pos[0], w.Body(box).CenterOfMass()[0], w.Body(box).CenterOfMass()[1])
	// Output:
	// platform at x = 1.000, crate at x = 1.0, y = 0.35
}

// A static sensor (a trigger volume) reports a crate that falls through
// it; the crate falls on as if the sensor were not there.
func ExampleBodyDef_sensor() {
	zone, err := narrow.NewBox(mgl64.Vec3{-1, -0.5, -1}, mgl64.Vec3{1, 0.5, 1})
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.25, -0.25, -0.25}, mgl64.Vec3{0.25, 0.25, 0.25})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	def := rigid.NewBodyDef(zone, narrow.Identity)
	def.Static, def.Sensor = true, true
	if _, err := w.AddBody(def); err != nil {
		log.Fatal(err)
	}
	box, err := w.AddBody(rigid.NewBodyDef(crate, narrow.Pose{Pos: mgl64.Vec3{0, 2, 0}, Rot: mgl64.QuatIdent()}))
	if err != nil {
		log.Fatal(err)
	}
	var events []rigid.SensorEvent
	for range 60 {
		if err := w.Step(context.Background()); err != nil {
			log.Fatal(err)
		}
		events = w.SensorEvents(events[:0])
		for _, e := range events {
			what := map[bool]string{true: "enters", false: "leaves"}[e.Begin]
			fmt.Printf("step %d: body %d %s sensor %d\n", w.StepCount(), e.Body, what, e.Sensor)
		}
	}
	fmt.Printf("the crate falls on: y = %.2f\n", w.Body(box).Pose().Pos[1])
	// Output:
	// step 31: body 1 enters sensor 0
	// step 46: body 1 leaves sensor 0
	// the crate falls on: y = -2.99
}

// A floor that rises under a crate: the floor's shape is deformed every
// step (DeformInto, two shapes taking turns) and handed to SetShape, which
// gives the solver the surface's velocity, so the crate rides up with it.
func ExampleWorld_SetShape() {
	flat, err := narrow.NewBox(mgl64.Vec3{-5, -1, -5}, mgl64.Vec3{5, 0, 5})
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.5, 0, -0.5}, mgl64.Vec3{0.5, 1, 0.5})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	def := rigid.NewBodyDef(flat, narrow.Identity)
	def.Static = true
	floor, err := w.AddBody(def)
	if err != nil {
		log.Fatal(err)
	}
	id, err := w.AddBody(rigid.NewBodyDef(crate, narrow.Identity))
	if err != nil {
		log.Fatal(err)
	}
	var shapes [2]narrow.Shape
	verts := flat.AppendVertices(nil)
	for step := 1; step <= 120; step++ { // 2 s: the top rises 0.5 m
		for i := range verts {
			if v := flat.Vertex(i); v[1] == 0 {
				verts[i][1] = 0.25 * w.Time()
			}
		}
		next := &shapes[step%2]
		if err := flat.DeformInto(next, verts); err != nil {
			log.Fatal(err)
		}
		if err := w.SetShape(floor, next); err != nil {
			log.Fatal(err)
		}
		if err := w.Step(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("floor's top at %.2f m, crate's bottom at %.2f m, rising at %.2f m/s\n", 0.25*(w.Time()-w.Config().Dt), w.Body(id).Pose().Pos[1], w.Body(id).LinearVelocity()[1])
	// Output:
	// floor's top at 0.50 m, crate's bottom at 0.50 m, rising at 0.25 m/s
}

// A conveyor belt and a one-way platform, by a pre-solve: the ground's
// contacts get a surface velocity, so a crate on it is carried along;
// a plate's contacts are disabled for bodies below its top, so a crate
// thrown up through it lands on it.
func ExampleWorld_SetPreSolve() {
	ground, err := narrow.NewBox(mgl64.Vec3{-10, -1, -10}, mgl64.Vec3{10, 0, 10})
	if err != nil {
		log.Fatal(err)
	}
	plateShape, err := narrow.NewBox(mgl64.Vec3{-1, -0.05, -1}, mgl64.Vec3{1, 0.05, 1})
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.2, -0.2, -0.2}, mgl64.Vec3{0.2, 0.2, 0.2})
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	add := func(def rigid.BodyDef) rigid.BodyID {
		id, err := w.AddBody(def)
		if err != nil {
			log.Fatal(err)
		}
		return id
	}
	floorDef := rigid.NewBodyDef(ground, narrow.Identity)
	floorDef.Static = true
	floor := add(floorDef)
	plateDef := rigid.NewBodyDef(plateShape, narrow.Pose{Pos: mgl64.Vec3{5, 2, 0}, Rot: mgl64.QuatIdent()})
	plateDef.Static = true
	plate := add(plateDef)
	carried := add(rigid.NewBodyDef(crate, narrow.Pose{Pos: mgl64.Vec3{0, 0.2, 0}, Rot: mgl64.QuatIdent()}))
	thrownDef := rigid.NewBodyDef(crate, narrow.Pose{Pos: mgl64.Vec3{5, 0.2, 0}, Rot: mgl64.QuatIdent()})
	thrownDef.LinearVelocity = mgl64.Vec3{0, 8, 0}
	thrown := add(thrownDef)

	w.SetPreSolve(func(p *rigid.PreSolve) {
		switch {
		case p.A == floor:
			p.SurfaceVelocity = mgl64.Vec3{0.5, 0, 0} // the belt's surface, relative to what lies on it
		case p.A == plate || p.B == plate:
			other := p.A + p.B - plate
			p.Disable = w.Body(other).CenterOfMass().Y() < 2.05 // still below the plate's top
		}
	})
	for range 180 {
		if err := w.Step(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("carried at %.2f m/s\n", w.Body(carried).LinearVelocity().X())
	fmt.Printf("thrown crate at rest on the plate: %v\n", w.Body(thrown).CenterOfMass().Y() > 2.2)
	// Output:
	// carried at 0.50 m/s
	// thrown crate at rest on the plate: true
}

// How far a crate is from a bunny, and which body is nearest a probe
// crate (within 2 m): the crate, 0.6 m away, not the bunny, 2.3 m away.
func ExampleWorld_Nearest() {
	bunny, err := narrow.LoadOBJ("../../testdata/bunny.obj")
	if err != nil {
		log.Fatal(err)
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.2, -0.2, -0.2}, mgl64.Vec3{0.2, 0.2, 0.2})
	if err != nil {
		log.Fatal(err)
	}
	cfg := rigid.DefaultConfig()
	cfg.Gravity = mgl64.Vec3{}
	w, err := rigid.NewWorld(cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	b, _ := w.AddBody(rigid.NewBodyDef(bunny, narrow.Identity))
	c, _ := w.AddBody(rigid.NewBodyDef(crate, narrow.Pose{Pos: mgl64.Vec3{4, 0, 0}, Rot: mgl64.QuatIdent()}))
	d, _, err := w.Distance(b, c, math.Inf(1))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("bunny to crate: %.3f\n", d.Dist)
	probe := narrow.Pose{Pos: mgl64.Vec3{3, 0, 0}, Rot: mgl64.QuatIdent()}
	id, near, ok, err := w.Nearest(crate, probe, 2, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("nearest the probe: body %d at %.3f (%v)\n", id, near.Dist, ok)
	// Output:
	// bunny to crate: 3.335
	// nearest the probe: body 1 at 0.600 (true)
}
