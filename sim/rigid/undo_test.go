package rigid_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// failingBackend is the CPU backend, whose Detect and DetectTo fail after
// doing their work while fail is set: the narrow phase has seen the
// step's poses and kept its states, and the step must still fail whole.
type failingBackend struct {
	*cpubackend.Backend
	fail bool
}

var errInjected = errors.New("injected failure")

func (b *failingBackend) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	if err := b.Backend.Detect(ctx, pairs, res); err != nil || !b.fail {
		return err
	}
	return errInjected
}

func (b *failingBackend) DetectTo(ctx context.Context, pairs []narrow.Pair, w narrow.ResultWriter, st *narrow.Stats) error {
	if err := b.Backend.DetectTo(ctx, pairs, w, st); err != nil || !b.fail {
		return err
	}
	return errInjected
}

// lateCancel is a context that is done, but says so only from the
// second time it is asked: Step's own check passes, the narrow phase's
// fails.
type lateCancel struct {
	context.Context
	asked int
}

func (c *lateCancel) Done() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (c *lateCancel) Err() error {
	if c.asked++; c.asked == 1 {
		return nil
	}
	return context.Canceled
}

// TestFailedStepLeavesWorld fails a step of stateScene's pile (a torus
// landing on bunnies and cubes, a sensor over them) in every way a step
// can fail after it has started, at a step where contacts and a sensor
// overlap begin, and checks that the world is as it was: the same
// frame (bodies, events, solver points), the same saved world state, the
// same step count, no pairs. Once the cause is gone, the world steps on:
// bit for bit as a world (with another number of workers) that failed
// the same way, and, where the narrow phase did not finish (it keeps
// what it learnt from the poses it saw otherwise), as one that never
// failed; the sensor overlap that began in the failed step begins in
// the next one.
func TestFailedStepLeavesWorld(t *testing.T) {
	const at, after = 52, 40 // step 53 of the pile: body 19 enters the sensor
	spin := mgl64.Vec3{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64}
	for _, tc := range []struct {
		name      string
		cause     func(w *rigid.World, be *failingBackend, torus rigid.BodyID) (context.Context, error) // sets up the failure
		undo      func(be *failingBackend)                                                              // takes it away
		want      error
		narrowRan bool
	}{
		{"diverged",
			func(w *rigid.World, _ *failingBackend, torus rigid.BodyID) (context.Context, error) {
				return context.Background(), w.SetVelocity(torus, w.Body(torus).LinearVelocity(), spin)
			},
			nil, rigid.ErrDiverged, true},
		{"backend error",
			func(_ *rigid.World, be *failingBackend, _ rigid.BodyID) (context.Context, error) {
				be.fail = true
				return context.Background(), nil
			},
			func(be *failingBackend) { be.fail = false },
			errInjected, true},
		{"canceled in the narrow phase",
			func(*rigid.World, *failingBackend, rigid.BodyID) (context.Context, error) {
				return &lateCancel{Context: context.Background()}, nil
			},
			nil, context.Canceled, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Worlds 0 and 1 fail, world 2 does not.
			var frames [3][]frame
			var torus rigid.BodyID
			for i := range frames {
				inner, err := cpubackend.New(rigid.DefaultConfig().Params)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { inner.Close() })
				be := &failingBackend{Backend: inner}
				var w *rigid.World
				w, _, torus, _ = stateScene(t, func(c *rigid.Config) { c.Backend, c.Workers = be, 1+i%2 })
				run(t, w, at)
				v, om := w.Body(torus).LinearVelocity(), w.Body(torus).AngularVelocity()
				if i < 2 {
					failStep(t, w, tc.want, func() (context.Context, error) { return tc.cause(w, be, torus) })
					if tc.undo != nil {
						tc.undo(be)
					}
				}
				if err := w.SetVelocity(torus, v, om); err != nil {
					t.Fatal(err)
				}
				for range after {
					if err := w.Step(context.Background()); err != nil {
						t.Fatalf("world %d, step %d: %v", i, w.StepCount(), err)
					}
					frames[i] = append(frames[i], frameOf(w, 0))
				}
			}
			sameFrames(t, "after the cause went, 1 and 2 workers", at, frames[0], frames[1])
			// The sensor events of the failed step are not lost: the
			// exact overlap test depends on the poses alone.
			if got, want := frames[0][0].sensors, frames[2][0].sensors; len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("sensor events %v at the step after the failed one, want %v (not none)", got, want)
			}
			if !tc.narrowRan {
				sameFrames(t, "after the cause went, against no failure", at, frames[2], frames[0])
			}
		})
	}
}

// failStep sets up a failure with cause, steps w, and checks that the
// step fails with want and leaves the world as it was.
func failStep(t *testing.T, w *rigid.World, want error, cause func() (context.Context, error)) {
	t.Helper()
	ctx, err := cause()
	if err != nil {
		t.Fatal(err)
	}
	before, n := frameOf(w, 0), w.StepCount()
	var saved, now rigid.State
	if err := w.SaveState(&saved); err != nil {
		t.Fatal(err)
	}
	if err := w.Step(ctx); !errors.Is(err, want) {
		t.Fatalf("Step: %v, want %v", err, want)
	}
	if got := w.StepCount(); got != n {
		t.Errorf("step count %d after the failed step, want %d", got, n)
	}
	if len(w.Pairs()) != 0 || len(w.Results()) != 0 {
		t.Errorf("%d pairs and %d results after the failed step, want none", len(w.Pairs()), len(w.Results()))
	}
	sameFrames(t, "after the failed step", n, []frame{before}, []frame{frameOf(w, 0)})
	if err := w.SaveState(&now); err != nil {
		t.Fatal(err)
	}
	if !rigid.SameWorldState(&saved, &now) {
		t.Error("the saved world state differs after the failed step")
	}
}

// TestDivergedBodyNamed checks that a step that would make a body's state
// non-finite names it, and that the world steps on once it is removed.
func TestDivergedBodyNamed(t *testing.T) {
	w, _ := newWorld(t, nil)
	calm := addBody(t, w, rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(0, 0.5, 0)))
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), narrow.Pose{Pos: mgl64.Vec3{5, 3, 0}, Rot: mgl64.QuatRotate(2.5, mgl64.Vec3{1, 1, 1}.Normalize())})
	def.Name = "rogue"
	def.AngularVelocity = mgl64.Vec3{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64}
	rogue := addBody(t, w, def)
	err := w.Step(context.Background())
	var be *rigid.BodyError
	if !errors.As(err, &be) || be.Body != rogue || be.Name != "rogue" || !errors.Is(err, rigid.ErrDiverged) {
		t.Fatalf("Step: %v, want a *BodyError for body %d (rogue) wrapping ErrDiverged", err, rogue)
	}
	if p := w.Body(rogue).Pose(); p != def.Pose {
		t.Errorf("rogue's pose %v after the failed step, want %v", p, def.Pose)
	}
	if err := w.RemoveBody(rogue); err != nil {
		t.Fatal(err)
	}
	run(t, w, 30)
	if y := w.Body(calm).Pose().Pos.Y(); math.Abs(y-0.5) > 0.01 {
		t.Errorf("the calm box at y = %v, want it resting at 0.5", y)
	}
}
