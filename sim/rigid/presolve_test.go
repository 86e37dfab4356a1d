package rigid_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/sim/rigid"
)

// TestPreSolveOneWay builds a one-way platform: a static plate at y = 2
// whose contacts are disabled for a body whose centre is below its top.
// A box thrown up from below passes through and lands on it; a box
// dropped from above rests on it. Without the pre-solve, the thrown box
// stays below.
func TestPreSolveOneWay(t *testing.T) {
	for _, oneWay := range []bool{true, false} {
		w, _ := newWorld(t, nil)
		pd := rigid.NewBodyDef(box(t, mgl64.Vec3{2, 0.05, 2}), at(0, 2, 0))
		pd.Static = true
		plate := addBody(t, w, pd)
		cube := box(t, mgl64.Vec3{0.2, 0.2, 0.2})
		dropped := addBody(t, w, rigid.NewBodyDef(cube, at(1, 3, 0)))
		td := rigid.NewBodyDef(cube, at(-1, 0.5, 0))
		td.LinearVelocity = mgl64.Vec3{0, 8, 0}
		thrown := addBody(t, w, td)
		calls := 0
		if oneWay {
			w.SetPreSolve(func(p *rigid.PreSolve) {
				calls++
				if p.A == plate || p.B == plate {
					other := p.A + p.B - plate
					p.Disable = w.Body(other).CenterOfMass().Y() < 2.05
				}
			})
		}
		run(t, w, 180)
		yd, yt := w.Body(dropped).CenterOfMass().Y(), w.Body(thrown).CenterOfMass().Y()
		if math.Abs(yd-2.25) > 0.02 {
			t.Errorf("one way %v: the dropped box at y = %.3f, want it on the plate (2.25)", oneWay, yd)
		}
		switch {
		case oneWay && math.Abs(yt-2.25) > 0.02:
			t.Errorf("the thrown box at y = %.3f, want it through the plate and on it (2.25)", yt)
		case !oneWay && yt > 2:
			t.Errorf("without the pre-solve, the thrown box at y = %.3f, want it below the plate", yt)
		case oneWay && calls == 0:
			t.Error("the pre-solve was never called")
		}
	}
}

// TestPreSolveConveyor: a box on a belt (the ground's contacts given a
// surface velocity of 1 m/s along x) is carried at the belt's speed; and
// with its friction set to 0 by the pre-solve, a box on a 20° slope that
// holds it at μ = 0.5 slides.
func TestPreSolveConveyor(t *testing.T) {
	w, ground := newWorld(t, nil)
	b := addBody(t, w, rigid.NewBodyDef(box(t, mgl64.Vec3{0.3, 0.2, 0.3}), at(0, 0.2, 0)))
	w.SetPreSolve(func(p *rigid.PreSolve) {
		if p.A == ground {
			p.SurfaceVelocity = mgl64.Vec3{1, 0, 0} // the ground's surface, relative to the box's
		}
	})
	run(t, w, 120)
	if v := w.Body(b).LinearVelocity(); math.Abs(v.X()-1) > 0.02 || math.Abs(v.Z()) > 0.02 {
		t.Errorf("box on the belt at %v m/s, want (1, 0, 0)", v)
	}

	for _, slippery := range []bool{false, true} {
		w, id, down := incline(t, 20*math.Pi/180, 0.5)
		if slippery {
			w.SetPreSolve(func(p *rigid.PreSolve) { p.Friction = 0 })
		}
		p0 := w.Body(id).CenterOfMass()
		run(t, w, 60)
		moved := w.Body(id).CenterOfMass().Sub(p0).Dot(down)
		if slippery != (moved > 0.5) {
			t.Errorf("friction 0 %v: moved %.3f m downhill in 1 s", slippery, moved)
		}
	}
}

// TestPreSolveDisablePoints: disabling every point one by one is
// disabling the pair; restitution 1 from the pre-solve bounces a box
// dropped with restitution 0 back to nearly its height.
func TestPreSolveDisablePoints(t *testing.T) {
	var frames [2][]frame
	for k := range frames {
		w, _ := newWorld(t, nil)
		addBody(t, w, rigid.NewBodyDef(box(t, mgl64.Vec3{0.3, 0.3, 0.3}), at(0, 1, 0)))
		w.SetPreSolve(func(p *rigid.PreSolve) {
			if k == 0 {
				p.Disable = true
				return
			}
			for i := range p.Points {
				p.Points[i].Disable = true
			}
		})
		for range 60 {
			run(t, w, 1)
			frames[k] = append(frames[k], frameOf(w, 0))
		}
		if y := w.Body(1).CenterOfMass().Y(); y > -1 {
			t.Errorf("world %d: the box at y = %.2f, want it fallen through the ground", k, y)
		}
	}
	sameFrames(t, "points disabled one by one", 0, frames[0], frames[1])

	w, _ := newWorld(t, nil)
	id := addBody(t, w, rigid.NewBodyDef(box(t, mgl64.Vec3{0.25, 0.25, 0.25}), at(0, 1.25, 0)))
	w.SetPreSolve(func(p *rigid.PreSolve) { p.Restitution = 1 })
	peak, falling := 0.0, true
	for range 120 {
		run(t, w, 1)
		y, vy := w.Body(id).CenterOfMass().Y()-0.25, w.Body(id).LinearVelocity().Y()
		if falling && vy > 0 {
			falling = false
		}
		if !falling {
			peak = max(peak, y)
		}
	}
	if peak < 0.8 {
		t.Errorf("bounce height %.3f with restitution 1 from the pre-solve, want about 1", peak)
	}
}

// TestPreSolveBadValues: a pre-solve that sets a NaN or negative friction,
// restitution or surface velocity fails the step with a *PairError
// wrapping ErrBadMaterial, and the world is as it was.
func TestPreSolveBadValues(t *testing.T) {
	for _, bad := range []func(p *rigid.PreSolve){
		func(p *rigid.PreSolve) { p.Friction = math.NaN() },
		func(p *rigid.PreSolve) { p.Friction = -1 },
		func(p *rigid.PreSolve) { p.Restitution = math.Inf(1) },
		func(p *rigid.PreSolve) { p.SurfaceVelocity = mgl64.Vec3{0, math.NaN(), 0} },
	} {
		w, _ := newWorld(t, nil)
		addBody(t, w, rigid.NewBodyDef(box(t, mgl64.Vec3{0.3, 0.3, 0.3}), at(0, 0.3, 0)))
		run(t, w, 5)
		w.SetPreSolve(bad)
		before := frameOf(w, 0)
		err := w.Step(context.Background())
		var pe *rigid.PairError
		if !errors.As(err, &pe) || !errors.Is(err, rigid.ErrBadMaterial) || pe.A != 0 || pe.B != 1 {
			t.Errorf("Step: %v, want a *PairError for bodies 0 and 1 wrapping ErrBadMaterial", err)
		}
		if !reflect.DeepEqual(before, frameOf(w, 0)) {
			t.Error("the failed step changed the world")
		}
		w.SetPreSolve(nil)
		run(t, w, 1)
	}
}

// TestPreSolveAllocations: a step with a pre-solve allocates nothing once
// warm.
func TestPreSolveAllocations(t *testing.T) {
	w := pile(t, func(c *rigid.Config) { c.DisableSleep = true })
	calls := 0
	w.SetPreSolve(func(p *rigid.PreSolve) { p.Friction *= 0.9; calls++ })
	run(t, w, 240) // land and settle; buffers reach their size
	calls = 0
	if n := testing.AllocsPerRun(60, func() { run(t, w, 1) }); n > 0.5 {
		t.Errorf("%v allocations a step", n)
	}
	if calls == 0 {
		t.Error("the pre-solve was never called")
	}
}
