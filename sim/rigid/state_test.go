package rigid_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/golden"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// frame is what a step of a world shows: every body's state (nil for
// removed ones), the step's events and solver points.
type frame struct {
	bodies   []*bodyState
	contacts []rigid.ContactEvent
	sensors  []rigid.SensorEvent
	points   []rigid.ContactPoint
}

type bodyState struct {
	pose      narrow.Pose
	v, w      mgl64.Vec3
	sleeping  bool
	overlaps  []rigid.BodyID
	touchesGr bool
}

func frameOf(w *rigid.World, ground rigid.BodyID) frame {
	var f frame
	for id := range rigid.BodyID(w.NumBodies()) {
		b := w.Body(id)
		if b == nil {
			f.bodies = append(f.bodies, nil)
			continue
		}
		f.bodies = append(f.bodies, &bodyState{pose: b.Pose(), v: b.LinearVelocity(), w: b.AngularVelocity(), sleeping: b.Sleeping(),
			overlaps: w.SensorOverlaps(id, nil), touchesGr: w.Touching(id, ground)})
	}
	f.contacts = w.ContactEvents(nil)
	f.sensors = w.SensorEvents(nil)
	f.points = w.ContactPoints(nil)
	return f
}

// stateScene is a pile of bunnies and cubes, a torus and a static sensor
// over part of the pile.
func stateScene(t *testing.T, change func(*rigid.Config)) (w *rigid.World, ground, torus, sensor rigid.BodyID) {
	t.Helper()
	w = pile(t, change)
	ground = 0
	var err error
	if torus, err = w.AddBody(rigid.NewBodyDef(mesh(t, "torus"), at(0.3, 6, 0.2))); err != nil {
		t.Fatal(err)
	}
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{1.5, 1, 1.5}), at(-1.2, 0.8, -1.2))
	def.Static, def.Sensor = true, true
	if sensor, err = w.AddBody(def); err != nil {
		t.Fatal(err)
	}
	return w, ground, torus, sensor
}

// savedScene returns stateScene's world run for at steps and its state
// saved then.
func savedScene(t *testing.T, at int) (w *rigid.World, ground, torus rigid.BodyID, st *rigid.State) {
	t.Helper()
	w, ground, torus, _ = stateScene(t, nil)
	run(t, w, at)
	st = new(rigid.State)
	if err := w.SaveState(st); err != nil {
		t.Fatal(err)
	}
	return w, ground, torus, st
}

// stateScript runs steps from..to of w, with changes along the way: the
// torus (the only body with its shape) removed, a bunny added, a cube
// thrown. It returns every step's frame.
func stateScript(t *testing.T, w *rigid.World, ground, torus rigid.BodyID, from, to int) []frame {
	t.Helper()
	var out []frame
	for k := from; k < to; k++ {
		switch k {
		case 70:
			if err := w.RemoveBody(torus); err != nil {
				t.Fatal(err)
			}
		case 90:
			if _, err := w.AddBody(rigid.NewBodyDef(mesh(t, "bunny"), at(0.5, 5, -0.4))); err != nil {
				t.Fatal(err)
			}
		case 110:
			if err := w.SetVelocity(2, mgl64.Vec3{3, 4, 0}, mgl64.Vec3{0, 2, 1}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Step(context.Background()); err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
		out = append(out, frameOf(w, ground))
	}
	return out
}

// sameFrames reports the first step at which two runs differ.
func sameFrames(t *testing.T, label string, from int, want, got []frame) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%s: %d steps, want %d", label, len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(want[i], got[i]) {
			t.Fatalf("%s: step %d differs from the first run", label, from+i)
		}
	}
}

// TestSaveRestoreState saves a world at step 50, as a pile of bunnies and
// cubes lands, runs 200 steps with bodies removed, added and thrown, and
// checks that every way of going back gives those steps bit for bit:
// restoring the same world, and restoring a second world built the same
// way (with another number of workers) but never stepped. Restoring the
// world but not its narrow phase's state (the backend reset) must give
// other steps.
func TestSaveRestoreState(t *testing.T) {
	const at, to = 50, 250
	w, ground, torus, st := savedScene(t, at)
	if st.Step() != at {
		t.Fatalf("saved at step %d, want %d", st.Step(), at)
	}
	want := stateScript(t, w, ground, torus, at, to)
	var slept, touched, overlapped bool
	for _, f := range want {
		for _, b := range f.bodies {
			slept = slept || (b != nil && b.sleeping)
		}
		touched = touched || len(f.contacts) > 0
		overlapped = overlapped || len(f.sensors) > 0
	}
	if !slept || !touched || !overlapped {
		t.Fatalf("the script does not exercise the state: sleep %v, contact events %v, sensor events %v", slept, touched, overlapped)
	}

	if err := w.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	if w.StepCount() != at || len(w.Pairs()) != 0 || len(w.Results()) != 0 {
		t.Errorf("after the restore: step %d, %d pairs, %d results; want step %d and none", w.StepCount(), len(w.Pairs()), len(w.Results()), at)
	}
	sameFrames(t, "restored", at, want, stateScript(t, w, ground, torus, at, to))

	// Another world, never stepped, whose backend has three workers.
	other, _, _, _ := stateScene(t, func(c *rigid.Config) { c.Workers = 3 })
	if err := other.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	sameFrames(t, "another world (3 workers)", at, want, stateScript(t, other, ground, torus, at, to))

	if err := w.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	w.Backend().(*cpubackend.Backend).Reset()
	got := stateScript(t, w, ground, torus, at, to)
	if reflect.DeepEqual(want, got) {
		t.Error("a world restored without its narrow phase's state runs the same steps: the test does not exercise that state")
	}
}

// hiddenState hides a backend's SaveState and RestoreState, as the plugin
// backend lacks them.
type hiddenState struct{ narrow.Backend }

// TestSaveRestoreStateErrors: a backend that cannot save, an empty State,
// another method's state and a closed world give typed errors; a failed
// restore changes nothing.
func TestSaveRestoreStateErrors(t *testing.T) {
	be, err := cpubackend.New(rigid.DefaultConfig().Params)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	hidden, _ := newWorld(t, func(c *rigid.Config) { c.Backend = hiddenState{be} })
	var st rigid.State
	if err := hidden.SaveState(&st); !errors.Is(err, rigid.ErrNoState) {
		t.Errorf("SaveState with a backend that cannot = %v, want ErrNoState", err)
	}
	w, ground, torus, _ := stateScene(t, nil)
	if err := w.SaveState(nil); !errors.Is(err, rigid.ErrNoState) {
		t.Errorf("SaveState(nil) = %v, want ErrNoState", err)
	}
	for name, s := range map[string]*rigid.State{"nil": nil, "empty": {}} {
		if err := w.RestoreState(s); !errors.Is(err, rigid.ErrNoState) {
			t.Errorf("RestoreState(%s) = %v, want ErrNoState", name, err)
		}
	}
	if err := hidden.RestoreState(&st); !errors.Is(err, rigid.ErrNoState) {
		t.Errorf("RestoreState with a backend that cannot = %v, want ErrNoState", err)
	}

	iter, _, _, _ := stateScene(t, func(c *rigid.Config) { c.Params.Method, c.Params.Speculative = narrow.MethodIterative, false })
	run(t, iter, 5)
	if err := iter.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	run(t, w, 60)
	before := frameOf(w, ground)
	shapes := w.Batch().Shapes()
	if err := w.RestoreState(&st); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("RestoreState of an iterative world's state into a predictive one = %v, want ErrBadParams", err)
	}
	if !reflect.DeepEqual(before, frameOf(w, ground)) || w.StepCount() != 60 || w.Batch().Shapes() != shapes {
		t.Error("a failed RestoreState changed the world")
	}
	// With the torus removed, its shape is released; a failed restore of
	// a state that has it (registered to match the state) releases it
	// again.
	if err := w.RemoveBody(torus); err != nil {
		t.Fatal(err)
	}
	shapes = w.Batch().Shapes()
	var withTorus rigid.State
	if err := iter.SaveState(&withTorus); err != nil {
		t.Fatal(err)
	}
	if err := w.RestoreState(&withTorus); !errors.Is(err, narrow.ErrBadParams) || w.Batch().Shapes() != shapes {
		t.Errorf("failed RestoreState: %v, %d shapes registered; want ErrBadParams and %d", err, w.Batch().Shapes(), shapes)
	}
	if err := w.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if err := w.SaveState(&st); !errors.Is(err, rigid.ErrClosed) {
		t.Errorf("SaveState after Close = %v, want ErrClosed", err)
	}
	if err := w.RestoreState(&st); !errors.Is(err, rigid.ErrClosed) {
		t.Errorf("RestoreState after Close = %v, want ErrClosed", err)
	}
}

// TestSaveRestoreStateAllocs: once warm, a step with a save and a restore
// allocates nothing: an engine can save every step.
func TestSaveRestoreStateAllocs(t *testing.T) {
	w := pile(t, func(c *rigid.Config) { c.DisableSleep = true })
	var st rigid.State
	for range 240 {
		run(t, w, 1)
		if err := w.SaveState(&st); err != nil {
			t.Fatal(err)
		}
		if err := w.RestoreState(&st); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(30, func() {
		if err := w.Step(context.Background()); err != nil {
			panic(err)
		}
		if err := w.SaveState(&st); err != nil {
			panic(err)
		}
		if err := w.RestoreState(&st); err != nil {
			panic(err)
		}
	})
	if allocs > 0.5 {
		t.Errorf("%.2f allocations per step with a save and a restore, want none", allocs)
	}
}

func ExampleWorld_SaveState() {
	cfg := rigid.DefaultConfig()
	w, err := rigid.NewWorld(cfg)
	if err != nil {
		panic(err)
	}
	defer w.Close()
	ground, _ := narrow.NewBox(mgl64.Vec3{-5, -1, -5}, mgl64.Vec3{5, 0, 5})
	def := rigid.NewBodyDef(ground, narrow.Identity)
	def.Static = true
	if _, err := w.AddBody(def); err != nil {
		panic(err)
	}
	cube, _ := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	id, err := w.AddBody(rigid.NewBodyDef(cube, narrow.Pose{Pos: mgl64.Vec3{0, 2, 0}, Rot: mgl64.QuatRotate(0.4, mgl64.Vec3{1, 0, 1}.Normalize())}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	step := func(n int) {
		for range n {
			if err := w.Step(ctx); err != nil {
				panic(err)
			}
		}
	}
	step(20)
	var saved rigid.State // reuse it: saving every step allocates nothing
	if err := w.SaveState(&saved); err != nil {
		panic(err)
	}
	step(40)
	first := w.Body(id).Pose()
	// Roll back to step 20 and run the same 40 steps again.
	if err := w.RestoreState(&saved); err != nil {
		panic(err)
	}
	step(40)
	fmt.Println(w.StepCount(), w.Body(id).Pose() == first)
	// Output: 60 true
}

// TestSaveRestoreDetours drives two worlds through the same random
// sequence of operations (steps, bodies added and removed, poses set,
// velocities and impulses); the second one now and then saves its state,
// takes a detour of random operations of its own, and restores. Right
// after a restore the world must report what it did when saved (bodies,
// events, touching pairs, overlaps, solver points), and after every step
// both worlds must show the same, bit for bit: whatever a detour changed,
// the restore undid.
func TestSaveRestoreDetours(t *testing.T) {
	steps := 300
	if testing.Short() {
		steps = 120
	}
	rng := rand.New(rand.NewPCG(5, 17))
	shapes := []*narrow.Shape{mesh(t, "bunny"), mesh(t, "torus"), box(t, mgl64.Vec3{0.4, 0.3, 0.5})}
	var worlds [2]*rigid.World
	var ground rigid.BodyID
	for i := range worlds {
		worlds[i], ground = newWorld(t, nil)
		def := rigid.NewBodyDef(box(t, mgl64.Vec3{1.2, 0.8, 1.2}), at(2, 0.6, 0))
		def.Static, def.Sensor = true, true
		if _, err := worlds[i].AddBody(def); err != nil {
			t.Fatal(err)
		}
	}
	// op applies one random operation, drawn from r, to w.
	op := func(w *rigid.World, r *rand.Rand) {
		t.Helper()
		n := w.NumBodies()
		pick := rigid.BodyID(2 + r.IntN(max(1, n-2)))
		var err error
		switch k := r.IntN(12); {
		case k < 6:
			err = w.Step(context.Background())
		case k < 8:
			def := rigid.NewBodyDef(shapes[r.IntN(len(shapes))], narrow.Pose{
				Pos: mgl64.Vec3{r.Float64()*6 - 3, 2 + r.Float64()*4, r.Float64()*6 - 3},
				Rot: mgl64.QuatRotate(r.Float64()*6, mgl64.Vec3{r.Float64(), 1, r.Float64()}.Normalize())})
			def.Kinematic = r.IntN(6) == 0
			if def.Kinematic {
				def.LinearVelocity = mgl64.Vec3{r.Float64() - 0.5, 0, 0}
			}
			_, err = w.AddBody(def)
		case k < 9:
			if w.Body(pick) != nil {
				err = w.RemoveBody(pick)
			}
		case k < 10:
			if b := w.Body(pick); b != nil {
				err = w.SetPose(pick, narrow.Pose{Pos: b.Pose().Pos.Add(mgl64.Vec3{0, 0.5, 0}), Rot: b.Pose().Rot})
			}
		case k < 11:
			if b := w.Body(pick); b != nil && !b.Static() && !b.Kinematic() {
				err = w.SetVelocity(pick, mgl64.Vec3{r.Float64()*4 - 2, r.Float64() * 3, 0}, mgl64.Vec3{0, r.Float64(), 0})
			}
		default:
			if b := w.Body(pick); b != nil && !b.Static() && !b.Kinematic() {
				err = w.ApplyImpulse(pick, mgl64.Vec3{0, 2, 1}, b.CenterOfMass())
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	var st rigid.State
	detours, done := 0, 0
	for done < steps {
		seed := rng.Uint64()
		before := worlds[0].StepCount()
		for _, w := range worlds {
			op(w, rand.New(rand.NewPCG(seed, 1)))
		}
		if worlds[0].StepCount() == before {
			continue
		}
		done++
		if a, b := frameOf(worlds[0], ground), frameOf(worlds[1], ground); !reflect.DeepEqual(a, b) {
			t.Fatalf("step %d (after %d detours): the worlds differ", worlds[0].StepCount(), detours)
		}
		if rng.IntN(4) == 0 {
			w := worlds[1]
			if err := w.SaveState(&st); err != nil {
				t.Fatal(err)
			}
			saved := frameOf(w, ground)
			for range 1 + rng.IntN(12) {
				op(w, rng)
			}
			if err := w.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
			detours++
			// The last step's reports are back too.
			if !reflect.DeepEqual(saved, frameOf(w, ground)) {
				t.Fatalf("step %d: the restored world reports otherwise than when saved", w.StepCount())
			}
		}
	}
	var bodies, asleep int
	for id := range rigid.BodyID(worlds[0].NumBodies()) {
		if b := worlds[0].Body(id); b != nil {
			bodies++
			if b.Sleeping() {
				asleep++
			}
		}
	}
	t.Logf("%d steps, %d detours, %d bodies at the end (%d asleep)", steps, detours, bodies, asleep)
}

// shapesOf returns the shapes of w's bodies, each once, in body order:
// the list a State's binary form names them by.
func shapesOf(w *rigid.World) []*narrow.Shape {
	var out []*narrow.Shape
	for id := range rigid.BodyID(w.NumBodies()) {
		if b := w.Body(id); b != nil && !slices.Contains(out, b.Shape()) {
			out = append(out, b.Shape())
		}
	}
	return out
}

// TestStateEncode: a world's state, saved at step 50 and encoded, decoded
// by a second world built the same way (its own shapes, loaded again) and
// restored, runs the 200 steps of TestSaveRestoreState's script as the
// first world did, bit for bit; the encoding is canonical.
func TestStateEncode(t *testing.T) {
	const at, to = 50, 250
	w, ground, torus, st := savedScene(t, at)
	data, err := st.AppendEncoded(nil, shapesOf(w))
	if err != nil {
		t.Fatal(err)
	}
	want := stateScript(t, w, ground, torus, at, to)

	other, _, _, _ := stateScene(t, nil)
	var back rigid.State
	if err := back.Decode(data, shapesOf(other)); err != nil {
		t.Fatal(err)
	}
	again, err := back.AppendEncoded(nil, shapesOf(other))
	if err != nil || string(again) != string(data) {
		t.Fatalf("decoded and encoded again: %d bytes (%v), want the same %d", len(again), err, len(data))
	}
	if err := other.RestoreState(&back); err != nil {
		t.Fatal(err)
	}
	sameFrames(t, "a world restored from the binary form", at, want, stateScript(t, other, ground, torus, at, to))
	t.Logf("%d bodies' world in %d bytes", other.NumBodies(), len(data))
}

// TestGoldenStateEncoding checks the bytes of TestStateEncode's encoded
// state (a landing pile after 50 steps) against the reference build's
// fingerprint in testdata/golden.txt: a peer on another architecture,
// built without fused multiply-adds, encodes the same bytes, and a late
// joiner may decode them anywhere (package internal/golden;
// .ci/crossbuild runs it on the other builds).
func TestGoldenStateEncoding(t *testing.T) {
	w, _, _, st := savedScene(t, 50)
	data, err := st.AppendEncoded(nil, shapesOf(w))
	if err != nil {
		t.Fatal(err)
	}
	h := golden.New()
	h.Bytes(data)
	golden.Check(t, "testdata/golden.txt", "state-encoded-step50", h.Sum())
}

// TestStateEncodeErrors: truncated data, shapes missing from the list or
// not 3D, and unsaved states are refused with typed errors.
func TestStateEncodeErrors(t *testing.T) {
	w, _, _, _ := stateScene(t, nil)
	run(t, w, 30)
	var st rigid.State
	if _, err := st.AppendEncoded(nil, shapesOf(w)); !errors.Is(err, rigid.ErrNoState) {
		t.Errorf("encoding an empty State = %v, want ErrNoState", err)
	}
	if err := w.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	shapes := shapesOf(w)
	if _, err := st.AppendEncoded(nil, shapes[1:]); err == nil {
		t.Error("encoding with a shape missing from the list succeeded")
	}
	data, err := st.AppendEncoded(nil, shapes)
	if err != nil {
		t.Fatal(err)
	}
	var d rigid.State
	for n := 0; n < len(data); n += 1 + n/50 {
		if err := d.Decode(data[:n], shapes); !errors.Is(err, narrow.ErrBadState) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrBadState", n, len(data), err)
		}
	}
	if err := w.RestoreState(&d); !errors.Is(err, rigid.ErrNoState) {
		t.Errorf("RestoreState after a failed Decode = %v, want ErrNoState", err)
	}
	if err := d.Decode(data, shapes[:2]); !errors.Is(err, narrow.ErrBadState) {
		t.Errorf("a shape list too short: %v, want ErrBadState", err)
	}
	flat, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	planar := append([]*narrow.Shape{flat}, shapes[1:]...)
	if err := d.Decode(data, planar); !errors.Is(err, narrow.ErrBadState) {
		t.Errorf("a 2D shape in the list: %v, want ErrBadState", err)
	}
	if err := d.Decode(data, shapes); err != nil {
		t.Fatal(err)
	}
}

// FuzzStateDecode feeds Decode arbitrary bytes, seeded with encodings of
// a small world. A refusal must wrap narrow.ErrBadState; what it accepts
// must encode back to the same bytes, restore into a world built the
// same way, and step (errors allowed, such as a pose the narrow phase
// refuses, but no panic). Its inputs are kilobytes long, and go test
// minimizes every input that finds new coverage for up to
// -fuzzminimizetime (60 s by default), with no execs shown meanwhile;
// keep that short:
//
//	go test ./sim/rigid -run XXX -fuzz FuzzStateDecode -fuzztime 180s -fuzzminimizetime 1s
func FuzzStateDecode(f *testing.F) {
	build := func() (*rigid.World, []*narrow.Shape) {
		w, _ := newWorld(f, nil)
		cube := box(f, mgl64.Vec3{0.3, 0.3, 0.3})
		for i := range 4 {
			def := rigid.NewBodyDef(cube, narrow.Pose{Pos: mgl64.Vec3{float64(i%2) * 0.5, 0.4 + 0.7*float64(i), 0}, Rot: mgl64.QuatRotate(float64(i), mgl64.Vec3{0, 1, 0})})
			if _, err := w.AddBody(def); err != nil {
				f.Fatal(err)
			}
		}
		return w, shapesOf(w)
	}
	w, shapes := build()
	var st rigid.State
	for k := range 60 {
		run(f, w, 1)
		if k%20 == 19 {
			if err := w.SaveState(&st); err != nil {
				f.Fatal(err)
			}
			data, err := st.AppendEncoded(nil, shapes)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	target, tshapes := build()
	f.Fuzz(func(t *testing.T, data []byte) {
		var d rigid.State
		if err := d.Decode(data, tshapes); err != nil {
			if !errors.Is(err, narrow.ErrBadState) {
				t.Fatalf("refused with %v, want ErrBadState", err)
			}
			return
		}
		again, err := d.AppendEncoded(nil, tshapes)
		if err != nil || string(again) != string(data) {
			t.Fatalf("accepted, then encoded as %d other bytes (%v)", len(again), err)
		}
		if err := target.RestoreState(&d); err != nil {
			return
		}
		for range 3 {
			if target.Step(context.Background()) != nil {
				break
			}
		}
		frameOf(target, 0)
	})
}
