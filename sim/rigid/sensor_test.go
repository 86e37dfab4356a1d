package rigid_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// sensorWatch steps w and checks, at every step, the sensor bookkeeping
// against the simple path: each sensor's overlaps (SensorOverlaps) are the
// bodies that narrow.Overlap finds overlapping it, trying every dynamic
// and kinematic body at the poses the step started from, and the step's
// events are the changes since the step before. It returns the events.
func sensorWatch(t *testing.T, w *rigid.World, steps int) []rigid.SensorEvent {
	t.Helper()
	var all []rigid.SensorEvent
	was := map[[2]rigid.BodyID]bool{}
	for s := range rigid.BodyID(w.NumBodies()) {
		if b := w.Body(s); b != nil && b.Sensor() {
			for _, o := range w.SensorOverlaps(s, nil) {
				was[[2]rigid.BodyID{s, o}] = true
			}
		}
	}
	for i := 0; i < steps; i++ {
		want := map[[2]rigid.BodyID]bool{}
		for s := range rigid.BodyID(w.NumBodies()) {
			sb := w.Body(s)
			if sb == nil || !sb.Sensor() {
				continue
			}
			for o := range rigid.BodyID(w.NumBodies()) {
				ob := w.Body(o)
				if ob == nil || ob.Sensor() || ob.Static() {
					continue
				}
				hit, err := narrow.Overlap(sb.Shape(), ob.Shape(), sb.Pose(), ob.Pose())
				if err != nil {
					t.Fatal(err)
				}
				if hit {
					want[[2]rigid.BodyID{s, o}] = true
				}
			}
		}
		if err := w.Step(context.Background()); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		got := map[[2]rigid.BodyID]bool{}
		for s := range rigid.BodyID(w.NumBodies()) {
			if b := w.Body(s); b == nil || !b.Sensor() {
				continue
			}
			for _, o := range w.SensorOverlaps(s, nil) {
				got[[2]rigid.BodyID{s, o}] = true
				if in := w.SensorOverlaps(o, nil); !slices.Contains(in, s) {
					t.Fatalf("step %d: body %d overlaps sensor %d, but SensorOverlaps(%d) = %v", i, o, s, o, in)
				}
			}
		}
		for k := range want {
			if !got[k] {
				t.Fatalf("step %d: sensor %d and body %d overlap, not reported", i, k[0], k[1])
			}
		}
		for k := range got {
			if !want[k] {
				t.Fatalf("step %d: sensor %d and body %d reported, they do not overlap", i, k[0], k[1])
			}
		}
		ev := w.SensorEvents(nil)
		for _, e := range ev {
			k := [2]rigid.BodyID{e.Sensor, e.Body}
			if e.Begin == was[k] || e.Begin != got[k] {
				t.Fatalf("step %d: event %+v, overlap before %v, after %v", i, e, was[k], got[k])
			}
		}
		for k := range got {
			if !was[k] && !slices.Contains(ev, rigid.SensorEvent{Sensor: k[0], Body: k[1], Begin: true}) {
				t.Fatalf("step %d: no Begin for %v", i, k)
			}
		}
		was = got
		all = append(all, ev...)
	}
	return all
}

// TestSensorTorus: a static torus sensor (a ring 5 wide, its hole 3 wide)
// and two boxes falling through it: the one through the hole never
// overlaps it (its convex hull would), the one through the ring does,
// once. Both fall as they fall without the sensor, bit for bit.
func TestSensorTorus(t *testing.T) {
	torus := mesh(t, "torus")
	cube := box(t, mgl64.Vec3{0.3, 0.3, 0.3})
	scene := func(sensor bool) (*rigid.World, rigid.BodyID, rigid.BodyID, rigid.BodyID) {
		w, _ := newWorld(t, nil)
		hole, _ := w.AddBody(rigid.NewBodyDef(cube, at(0, 6, 0)))
		ring, _ := w.AddBody(rigid.NewBodyDef(cube, at(2, 6, 0)))
		s := rigid.BodyID(-1)
		if sensor {
			d := rigid.NewBodyDef(torus, at(0, 3, 0))
			d.Static, d.Sensor = true, true
			var err error
			if s, err = w.AddBody(d); err != nil {
				t.Fatal(err)
			}
		}
		return w, hole, ring, s
	}
	w, hole, ring, s := scene(true)
	events := sensorWatch(t, w, 150)
	want := []rigid.SensorEvent{{Sensor: s, Body: ring, Begin: true}, {Sensor: s, Body: ring}}
	if !slices.Equal(events, want) {
		t.Errorf("events %+v, want %+v", events, want)
	}
	w0, hole0, ring0, _ := scene(false)
	run(t, w0, 150)
	for _, p := range [][2]rigid.BodyID{{hole, hole0}, {ring, ring0}} {
		if a, b := w.Body(p[0]).Pose(), w0.Body(p[1]).Pose(); a != b {
			t.Errorf("body %d at %v with the sensor, %v without", p[0], a, b)
		}
	}
	if y := w.Body(ring).Pose().Pos.Y(); y > 0.5 {
		t.Errorf("the box through the ring rests at y = %.3f, want it on the ground", y)
	}
}

// TestSensorSleepKinematicRemove: a box asleep inside a static sensor
// stays in it; a kinematic sensor sweeping through the box reports it
// without moving or waking it; removing the box ends both overlaps; a
// dynamic sensor is refused.
func TestSensorSleepKinematicRemove(t *testing.T) {
	w, _ := newWorld(t, nil)
	zone := rigid.NewBodyDef(box(t, mgl64.Vec3{2, 1, 2}), at(0, 1, 0))
	zone.Static, zone.Sensor = true, true
	z, err := w.AddBody(zone)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.3, 0.3, 0.3}), at(0, 3, 0)))
	ev := sensorWatch(t, w, 200)
	if !w.Body(b).Sleeping() {
		t.Fatal("the box did not fall asleep")
	}
	if want := []rigid.SensorEvent{{Sensor: z, Body: b, Begin: true}}; !slices.Equal(ev, want) {
		t.Fatalf("events %+v, want %+v", ev, want)
	}
	rest := w.Body(b).Pose()

	sweep := rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(-4, 0.5, 0))
	sweep.Kinematic, sweep.Sensor = true, true
	sweep.LinearVelocity = mgl64.Vec3{3, 0, 0}
	k, err := w.AddBody(sweep)
	if err != nil {
		t.Fatal(err)
	}
	ev = sensorWatch(t, w, 180) // 9 m: past the box and out of the zone
	want := []rigid.SensorEvent{{Sensor: k, Body: b, Begin: true}, {Sensor: k, Body: b}}
	if !slices.Equal(ev, want) {
		t.Errorf("kinematic sensor: events %+v, want %+v", ev, want)
	}
	if p := w.Body(b).Pose(); p != rest || !w.Body(b).Sleeping() {
		t.Errorf("the box moved or woke: %v (asleep %v), was %v", p, w.Body(b).Sleeping(), rest)
	}

	if err := w.SetPose(k, at(0, 0.5, 0)); err != nil {
		t.Fatal(err)
	}
	if err := w.SetVelocity(k, mgl64.Vec3{}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	run(t, w, 1)
	if got := w.SensorOverlaps(b, nil); !slices.Equal(got, []rigid.BodyID{z, k}) {
		t.Fatalf("the box is in sensors %v, want [%d %d]", got, z, k)
	}
	if err := w.RemoveBody(b); err != nil {
		t.Fatal(err)
	}
	run(t, w, 1)
	want = []rigid.SensorEvent{{Sensor: z, Body: b}, {Sensor: k, Body: b}}
	if ev := w.SensorEvents(nil); !slices.Equal(ev, want) {
		t.Errorf("after removal: events %+v, want %+v", ev, want)
	}

	dyn := rigid.NewBodyDef(box(t, mgl64.Vec3{1, 1, 1}), at(5, 5, 5))
	dyn.Sensor = true
	if _, err := w.AddBody(dyn); !errors.Is(err, rigid.ErrBadKind) {
		t.Errorf("a dynamic sensor: %v, want ErrBadKind", err)
	}
}

// TestSensorQuiet: bodies asleep in a static sensor keep overlapping it
// without being tested again (StepStats.SensorTests falls to 0); moving
// the sensor away with SetPose ends the overlaps at the next step, and
// moving it back begins them again. Every step is checked against all
// pairs (sensorWatch).
func TestSensorQuiet(t *testing.T) {
	w, _ := newWorld(t, nil)
	zone := rigid.NewBodyDef(box(t, mgl64.Vec3{3, 1, 3}), at(0, 1, 0))
	zone.Static, zone.Sensor = true, true
	z, err := w.AddBody(zone)
	if err != nil {
		t.Fatal(err)
	}
	cube := box(t, mgl64.Vec3{0.3, 0.3, 0.3})
	var ids []rigid.BodyID
	for i := range 4 {
		id, _ := w.AddBody(rigid.NewBodyDef(cube, at(float64(i)-1.5, 2, 0)))
		ids = append(ids, id)
	}
	sensorWatch(t, w, 200)
	for _, id := range ids {
		if !w.Body(id).Sleeping() {
			t.Fatalf("body %d did not fall asleep", id)
		}
	}
	if n := w.Stats().SensorTests; n != 0 {
		t.Errorf("%d sensor tests in a step where nothing moved", n)
	}
	if got := w.SensorOverlaps(z, nil); !slices.Equal(got, ids) {
		t.Fatalf("asleep: the sensor holds %v, want %v", got, ids)
	}
	if err := w.SetPose(z, at(0, 20, 0)); err != nil {
		t.Fatal(err)
	}
	if ev := sensorWatch(t, w, 1); len(ev) != len(ids) || ev[0].Begin {
		t.Fatalf("sensor moved away: events %+v, want %d ends", ev, len(ids))
	}
	if err := w.SetPose(z, at(0, 1, 0)); err != nil {
		t.Fatal(err)
	}
	if ev := sensorWatch(t, w, 1); len(ev) != len(ids) || !ev[0].Begin {
		t.Fatalf("sensor moved back: events %+v, want %d begins", ev, len(ids))
	}
}
