package box2dadapter_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
)

// event is a sensor callback: Begin or End, at which step, and where the
// watched body was then.
type event struct {
	begin bool
	step  int
	pos   b2.B2Vec2
}

// sensorListener records the Begin and End callbacks of the contacts that
// involve fixture sensor, with the position of body watch, and checks
// that box2d's rules for callbacks hold: the world is locked, a contact
// begins touching, and a sensor contact never has manifold points nor
// PreSolve and PostSolve calls. (box2d ends a contact it destroys while
// it still touches.)
type sensorListener struct {
	t      *testing.T
	w      *b2.B2World
	sensor *b2.B2Fixture
	watch  *b2.B2Body
	step   int
	events []event
}

func (l *sensorListener) record(c b2.B2ContactInterface, begin bool) {
	if c.GetFixtureA() != l.sensor && c.GetFixtureB() != l.sensor {
		return
	}
	if !l.w.IsLocked() {
		l.t.Errorf("step %d: callback with the world unlocked", l.step)
	}
	if n := c.GetManifold().PointCount; n != 0 && l.sensor.IsSensor() {
		l.t.Errorf("step %d: sensor contact with %d manifold points", l.step, n)
	}
	if begin && !c.IsTouching() {
		l.t.Errorf("step %d: Begin for a contact that is not touching", l.step)
	}
	l.events = append(l.events, event{begin: begin, step: l.step, pos: l.watch.GetPosition()})
}

func (l *sensorListener) BeginContact(c b2.B2ContactInterface) { l.record(c, true) }
func (l *sensorListener) EndContact(c b2.B2ContactInterface)   { l.record(c, false) }
func (l *sensorListener) PreSolve(c b2.B2ContactInterface, _ b2.B2Manifold) {
	if (c.GetFixtureA() == l.sensor || c.GetFixtureB() == l.sensor) && l.sensor.IsSensor() {
		l.t.Errorf("step %d: PreSolve for a sensor contact", l.step)
	}
}
func (l *sensorListener) PostSolve(c b2.B2ContactInterface, _ *b2.B2ContactImpulse) {
	if (c.GetFixtureA() == l.sensor || c.GetFixtureB() == l.sensor) && l.sensor.IsSensor() {
		l.t.Errorf("step %d: PostSolve for a sensor contact", l.step)
	}
}

// checkContactList checks box2d's contact list: as long as its count says,
// linked both ways, holding every contact of every body's edges, and
// mirrored by the adapter's own list of its contacts.
func checkContactList(t *testing.T, ad *box2dadapter.Adapter, w *b2.B2World) {
	t.Helper()
	if err := ad.CheckContacts(); err != nil {
		t.Fatal(err)
	}
	in := map[b2.B2ContactInterface]bool{}
	var prev b2.B2ContactInterface
	for c := w.M_contactManager.M_contactList; c != nil; c = c.GetNext() {
		if c.GetPrev() != prev {
			t.Fatalf("contact list: broken back link")
		}
		in[c] = true
		prev = c
	}
	if len(in) != w.M_contactManager.M_contactCount {
		t.Fatalf("contact list holds %d contacts, its count says %d", len(in), w.M_contactManager.M_contactCount)
	}
	for b := w.M_bodyList; b != nil; b = b.M_next {
		for ce := b.M_contactList; ce != nil; ce = ce.Next {
			if !in[ce.Contact] {
				t.Fatalf("a body's contact is missing from the world's list")
			}
		}
	}
}

func circle(b *b2.B2Body, r float64) *b2.B2Fixture {
	c := b2.MakeB2CircleShape()
	c.M_radius = r
	return b.CreateFixture(&c, 1)
}

// runSensor drops a body built by add from y0 for n steps, past a static
// sensor built by addSensor (nil: none), and returns its positions and
// the sensor's events.
func runSensor(t *testing.T, addSensor func(*b2.B2Body) *b2.B2Fixture, add func(*b2.B2Body), x, y0 float64, n int) ([]b2.B2Vec2, []event) {
	w, ad := newWorld(t)
	fall := body(w, b2.B2BodyType.B2_dynamicBody, x, y0, 0)
	add(fall)
	l := &sensorListener{t: t, w: w, watch: fall}
	w.SetContactListener(l)
	if addSensor != nil {
		l.sensor = addSensor(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0))
	}
	var path []b2.B2Vec2
	for i := 0; i < n; i++ {
		l.step = i
		step(t, ad, 1)
		checkContactList(t, ad, w)
		path = append(path, fall.GetPosition())
	}
	return path, l.events
}

// TestSensorConcave: a static U-shaped irtcd sensor (width 2, arms and
// bottom 0.2 thick) and a ball falling through its opening. The ball
// touches the sensor only while it crosses the U's bottom, not when it
// enters the U's convex hull (what box2d's own test of a hull would
// report); it passes through untouched (the same path, bit for bit, as
// without the sensor); the callbacks come once each.
func TestSensorConcave(t *testing.T) {
	const r = 0.1
	sensor := func(b *b2.B2Body) *b2.B2Fixture {
		f := box2dadapter.AddPolygon(b, mustShape(t, uShape(1, 1, 0.2)), 0)
		f.SetSensor(true)
		return f
	}
	ball := func(b *b2.B2Body) { circle(b, r) }
	with, events := runSensor(t, sensor, ball, 0, 2, 60)
	without, none := runSensor(t, nil, ball, 0, 2, 60)
	if len(none) != 0 {
		t.Fatalf("events without a sensor: %v", none)
	}
	for i := range with {
		if with[i] != without[i] {
			t.Fatalf("step %d: ball at %v with the sensor, %v without", i, with[i], without[i])
		}
	}
	if len(events) != 2 || !events[0].begin || events[1].begin {
		t.Fatalf("events %+v, want one Begin then one End", events)
	}
	// The U's bottom spans 0 ≤ y ≤ 0.2; the ball falls about 0.1 a step
	// there.
	if y := events[0].pos.Y; y > 0.2+r || y < 0.2+r-0.15 {
		t.Errorf("Begin with the ball at y = %.3f, want it just reaching the bottom (≤ %.2f)", y, 0.2+r)
	}
	if y := events[1].pos.Y; y > -r || y < -r-0.15 {
		t.Errorf("End with the ball at y = %.3f, want it just below the bottom (≤ %.2f)", y, -r)
	}
}

// TestNativeSensorIrtcdBody: a native box sensor and a concave irtcd gear
// falling through it (which failed the whole step before irtcd handled
// sensors): one Begin, one End, and the gear's path is that of a world
// without the sensor.
func TestNativeSensorIrtcdBody(t *testing.T) {
	sensor := func(b *b2.B2Body) *b2.B2Fixture {
		f := nativeBox(b, 2, 0.2, 0)
		f.SetSensor(true)
		return f
	}
	g := func(b *b2.B2Body) { box2dadapter.AddPolygon(b, mustShape(t, gear(16, 0.5)), 1) }
	with, events := runSensor(t, sensor, g, 0.3, 2, 60)
	without, _ := runSensor(t, nil, g, 0.3, 2, 60)
	for i := range with {
		if with[i] != without[i] {
			t.Fatalf("step %d: gear at %v with the sensor, %v without", i, with[i], without[i])
		}
	}
	if len(events) != 2 || !events[0].begin || events[1].begin {
		t.Fatalf("events %+v, want one Begin then one End", events)
	}
	if y := events[1].pos.Y; y > -0.2-0.5*0.8 {
		t.Errorf("End with the gear at y = %.3f, want it below the sensor", y)
	}
}

// TestSensorCrossing: a sensor bar and a floating bar crossed as a "+":
// no vertex of either lies inside the other, so contacts find nothing,
// but the sensor reports the overlap (narrow.Overlap). Turned a quarter
// turn further, parallel and apart, they end it.
func TestSensorCrossing(t *testing.T) {
	w, ad := newWorld(t)
	bar := []b2.B2Vec2{{X: -1, Y: -0.1}, {X: 1, Y: -0.1}, {X: 1, Y: 0.1}, {X: -1, Y: 0.1}}
	fs := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0), mustShape(t, bar), 0)
	fs.SetSensor(true)
	def := b2.MakeB2BodyDef()
	def.Type = b2.B2BodyType.B2_dynamicBody
	def.GravityScale = 0
	def.Angle = math.Pi / 2
	fl := w.CreateBody(&def)
	box2dadapter.AddPolygon(fl, mustShape(t, bar), 1)
	l := &sensorListener{t: t, w: w, sensor: fs, watch: fl}
	w.SetContactListener(l)
	step(t, ad, 3)
	if len(l.events) != 1 || !l.events[0].begin {
		t.Fatalf("crossed bars: events %+v, want one Begin", l.events)
	}
	fl.SetTransform(b2.B2Vec2{X: 0, Y: 0.5}, 0)
	l.step = 3
	step(t, ad, 1)
	if len(l.events) != 2 || l.events[1].begin {
		t.Fatalf("bars apart: events %+v, want an End", l.events)
	}
	checkContactList(t, ad, w)
}

// TestSensorAfterSolid: a U resting in a concave cup, held by two normal
// clusters (an extra contact), then turned into a sensor: the extra
// contact goes, the U falls through the cup (no panic), and the sensor
// reports the end of the overlap.
func TestSensorAfterSolid(t *testing.T) {
	w, ad := newWorld(t)
	cupBody := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
	box2dadapter.AddPolygon(cupBody, mustShape(t, cup(100, 1, 0.1)), 0)
	ball := body(w, b2.B2BodyType.B2_dynamicBody, 0, 1.5, 0)
	fb := box2dadapter.AddPolygon(ball, mustShape(t, uShape(0.4, 0.3, 0.1)), 1) // rests on the arc at two points
	l := &sensorListener{t: t, w: w, sensor: fb, watch: ball}
	w.SetContactListener(l)
	stepExtra(t, ad, 120)
	if y := ball.GetPosition().Y; y < -0.05 {
		t.Fatalf("the body did not rest in the cup (y = %.3f)", y)
	}
	begins := len(l.events) // Begin callbacks of the solid contacts
	// SetSensor wakes the body, as box2d does.
	fb.SetSensor(true)
	for i := 0; i < 90; i++ {
		l.step = 120 + i
		step(t, ad, 1)
		checkContactList(t, ad, w)
	}
	if y := ball.GetPosition().Y; y > -1 {
		t.Errorf("the body stayed at y = %.3f on a sensor", y)
	}
	ends := 0
	for _, e := range l.events[begins:] {
		if !e.begin {
			ends++
		}
	}
	if ends == 0 || len(l.events[begins:]) != ends {
		t.Errorf("events after the switch %+v, want only Ends", l.events[begins:])
	}
	if ad.Stats().Sensors != 0 {
		t.Errorf("sensor contacts still updated after the body left: %d", ad.Stats().Sensors)
	}
}

// TestSensorFilter: a sensor whose filter excludes the falling body's
// category reports nothing (with box2d's category filter, which the
// ByteArena port leaves unset by default); with the categories allowed,
// the same fall reports a Begin and an End.
func TestSensorFilter(t *testing.T) {
	for _, excluded := range []bool{true, false} {
		w, ad := newWorld(t)
		w.SetContactFilter(&b2.B2ContactFilter{})
		ball := body(w, b2.B2BodyType.B2_dynamicBody, 0, 2, 0)
		fb := circle(ball, 0.1)
		fd := b2.MakeB2Filter()
		fd.CategoryBits = 0x0002
		fb.SetFilterData(fd)
		f := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0), mustShape(t, uShape(1, 1, 0.2)), 0)
		f.SetSensor(true)
		if excluded {
			fd := b2.MakeB2Filter()
			fd.MaskBits = 0xFFFF &^ 0x0002
			f.SetFilterData(fd)
		}
		l := &sensorListener{t: t, w: w, sensor: f, watch: ball}
		w.SetContactListener(l)
		for i := 0; i < 60; i++ {
			l.step = i
			step(t, ad, 1)
		}
		if want := map[bool]int{true: 0, false: 2}[excluded]; len(l.events) != want {
			t.Errorf("excluded %v: events %+v, want %d", excluded, l.events, want)
		}
	}
}

// triggerLog prints the sensor's callbacks with the ball's height.
type triggerLog struct {
	b2.B2ContactListenerInterface
	ball *b2.B2Body
}

func (l triggerLog) BeginContact(c b2.B2ContactInterface) {
	fmt.Printf("begin: ball at y = %.2f\n", l.ball.GetPosition().Y)
}

func (l triggerLog) EndContact(c b2.B2ContactInterface) {
	fmt.Printf("end:   ball at y = %.2f\n", l.ball.GetPosition().Y)
}

func (l triggerLog) PreSolve(b2.B2ContactInterface, b2.B2Manifold)         {}
func (l triggerLog) PostSolve(b2.B2ContactInterface, *b2.B2ContactImpulse) {}

// ExampleAdapter_Step_sensor makes a concave irtcd polygon a trigger: a
// ball falls through a U-shaped sensor and touches it only while it
// crosses the U's bottom (0 ≤ y ≤ 0.2), not when it enters the space
// between the arms.
func ExampleAdapter_Step_sensor() {
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w
	ad, err := box2dadapter.Install(world)
	if err != nil {
		panic(err)
	}
	defer ad.Close()

	static := b2.MakeB2BodyDef()
	u := world.CreateBody(&static)
	f, err := box2dadapter.AddPath(u, 0, "M -1 0 H 1 V 1 H 0.8 V 0.2 H -0.8 V 1 H -1 Z")
	if err != nil {
		panic(err)
	}
	f.SetSensor(true)

	def := b2.MakeB2BodyDef()
	def.Type = b2.B2BodyType.B2_dynamicBody
	def.Position.Set(0, 2)
	ball := world.CreateBody(&def)
	c := b2.MakeB2CircleShape()
	c.M_radius = 0.1
	ball.CreateFixture(&c, 1)
	world.SetContactListener(triggerLog{ball: ball})

	for i := 0; i < 60; i++ {
		if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
			panic(err)
		}
	}
	// Output:
	// begin: ball at y = 0.25
	// end:   ball at y = -0.17
}

// TestTestOverlap checks Adapter.TestOverlap: a circle in a U's gap does
// not overlap the U, on its arm or its bottom it does (a test of the
// hull would say yes in the gap); and between box2d's own shapes it
// answers as box2d's b2TestOverlap, but where the shapes are within the
// conversion's tolerance of touching (the circle's inscribed polygon,
// the polygon's skin).
func TestTestOverlap(t *testing.T) {
	w, ad := newWorld(t)
	u := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0), mustShape(t, uShape(1, 1, 0.2)), 0)
	ball := body(w, b2.B2BodyType.B2_dynamicBody, 0, 0, 0)
	fc := circle(ball, 0.1)
	for _, c := range []struct {
		x, y float64
		want bool
	}{{0, 0.6, false}, {0.9, 0.6, true}, {0, 0.35, false}, {0, 0.28, true}, {1.09, 0.5, true}, {1.11, 0.5, false}} {
		ball.SetTransform(b2.B2Vec2{X: c.x, Y: c.y}, 0)
		for _, swap := range []bool{false, true} {
			var got bool
			var err error
			if swap {
				got, err = ad.TestOverlap(fc, 0, u, 0)
			} else {
				got, err = ad.TestOverlap(u, 0, fc, 0)
			}
			if err != nil || got != c.want {
				t.Errorf("circle at (%v, %v), swapped %v: %v (%v), want %v", c.x, c.y, swap, got, err, c.want)
			}
		}
	}

	box := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
	fb := nativeBox(box, 0.5, 0.3, 0)
	rng := rand.New(rand.NewPCG(2, 5))
	compared, hits := 0, 0
	for range 2000 {
		box.SetTransform(b2.B2Vec2{}, 2*math.Pi*rng.Float64())
		ball.SetTransform(b2.B2Vec2{X: 3*rng.Float64() - 1.5, Y: 3*rng.Float64() - 1.5}, 0)
		cs := fc.GetShape().(*b2.B2CircleShape)
		native := func(r float64) bool {
			s := *cs
			s.M_radius = r
			return b2.B2TestOverlapShapes(fb.GetShape(), 0, &s, 0, box.GetTransform(), ball.GetTransform())
		}
		if native(0.1-0.02) != native(0.1+0.02) {
			continue // within the tolerance of touching
		}
		want := native(0.1)
		got, err := ad.TestOverlap(fb, 0, fc, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("box turned %v, circle at %v: %v, box2d %v", box.GetAngle(), ball.GetPosition(), got, want)
		}
		compared++
		if got {
			hits++
		}
	}
	if compared < 1500 || hits < 200 {
		t.Errorf("%d poses compared, %d overlapping: too few", compared, hits)
	}
}

// TestDistance checks Adapter.Distance: a circle in a U's gap is as far
// from the U as from its nearer arm or its bottom (the hull's distance
// would be 0); and between box2d's own shapes it agrees with box2d's
// b2Distance within the conversion's tolerance (the circle's inscribed
// polygon, the polygon's skin).
func TestDistance(t *testing.T) {
	w, ad := newWorld(t)
	u := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0), mustShape(t, uShape(1, 1, 0.2)), 0)
	ball := body(w, b2.B2BodyType.B2_dynamicBody, 0, 0, 0)
	fc := circle(ball, 0.1)
	for _, c := range []struct {
		x, y, want float64
	}{{0, 0.6, 0.3}, {0.5, 0.6, 0.2}, {0, 0.35, 0.05}} {
		ball.SetTransform(b2.B2Vec2{X: c.x, Y: c.y}, 0)
		d, ok, err := ad.Distance(fc, 0, u, 0, math.Inf(1))
		if err != nil || !ok || d.Overlap || math.Abs(d.Dist-c.want) > 0.002 || d.PA[2] != 0 {
			t.Errorf("circle at (%v, %v): %+v, %v, %v; want %v", c.x, c.y, d, ok, err, c.want)
		}
	}

	box := body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0)
	fb := nativeBox(box, 0.5, 0.3, 0)
	rng := rand.New(rand.NewPCG(4, 1))
	compared := 0
	for range 500 {
		box.SetTransform(b2.B2Vec2{}, 2*math.Pi*rng.Float64())
		ball.SetTransform(b2.B2Vec2{X: 4*rng.Float64() - 2, Y: 4*rng.Float64() - 2}, 0)
		in := b2.MakeB2DistanceInput()
		in.ProxyA.Set(fb.GetShape(), 0)
		in.ProxyB.Set(fc.GetShape(), 0)
		in.TransformA, in.TransformB, in.UseRadii = box.GetTransform(), ball.GetTransform(), true
		cache := b2.MakeB2SimplexCache()
		var out b2.B2DistanceOutput
		b2.B2Distance(&out, &cache, &in)
		got, ok, err := ad.Distance(fb, 0, fc, 0, math.Inf(1))
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if out.Distance < 0.03 {
			continue // within the tolerance of touching
		}
		if math.Abs(got.Dist-out.Distance) > 0.02 {
			t.Fatalf("box turned %v, circle at %v: distance %v, box2d %v", box.GetAngle(), ball.GetPosition(), got.Dist, out.Distance)
		}
		compared++
	}
	if compared < 400 {
		t.Errorf("%d poses compared: too few", compared)
	}
}

// oneWay is a contact listener that makes a platform one-way, as box2d's
// own demo does: a contact with it is disabled while the other body
// rises or lies below the platform's middle.
type oneWay struct {
	b2.B2ContactListenerInterface
	platform *b2.B2Body
	middle   float64
	calls    int
}

func (l *oneWay) PreSolve(c b2.B2ContactInterface, _ b2.B2Manifold) {
	a, b := c.GetFixtureA().GetBody(), c.GetFixtureB().GetBody()
	other := a
	if a == l.platform {
		other = b
	} else if b != l.platform {
		return
	}
	l.calls++
	if other.GetLinearVelocity().Y > 0 || other.GetPosition().Y < l.middle {
		c.SetEnabled(false)
	}
}

func (l *oneWay) BeginContact(b2.B2ContactInterface)                    {}
func (l *oneWay) EndContact(b2.B2ContactInterface)                      {}
func (l *oneWay) PostSolve(b2.B2ContactInterface, *b2.B2ContactImpulse) {}

// TestPreSolveOneWay: box2d's PreSolve reaches irtcd contacts, and
// disabling them works: a concave U thrown up through an irtcd platform
// passes through it and lands on it; without the listener it bounces off
// its underside and stays below.
func TestPreSolveOneWay(t *testing.T) {
	for _, listen := range []bool{true, false} {
		w, ad := newWorld(t)
		platform := body(w, b2.B2BodyType.B2_staticBody, 0, 3, 0)
		box2dadapter.AddPolygon(platform, mustShape(t, []b2.B2Vec2{{X: -2, Y: -0.1}, {X: 2, Y: -0.1}, {X: 2, Y: 0.1}, {X: -2, Y: 0.1}}), 0)
		u := body(w, b2.B2BodyType.B2_dynamicBody, 0, 0.5, 0)
		box2dadapter.AddPolygon(u, mustShape(t, uShape(0.5, 0.5, 0.1)), 1)
		u.SetLinearVelocity(b2.B2Vec2{Y: 10})
		l := &oneWay{platform: platform, middle: 3}
		if listen {
			w.SetContactListener(l)
		}
		for range 240 {
			if err := ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
				t.Fatal(err)
			}
		}
		y := u.GetPosition().Y
		switch {
		case listen && (math.Abs(y-3.1) > 0.05 || l.calls == 0):
			t.Errorf("one way: the U at y = %.3f (%d PreSolve calls), want it on the platform (3.1)", y, l.calls)
		case !listen && y > 3:
			t.Errorf("without the listener: the U at y = %.3f, want it below the platform", y)
		}
	}
}
