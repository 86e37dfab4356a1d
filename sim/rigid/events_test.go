package rigid_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/sim/rigid"
)

// contactWatch steps w and checks the contact events at every step: the
// pairs of the step's narrow phase touch iff their results hold contacts,
// and the events are exactly the changes of Touching over every pair of
// bodies. It returns the events.
func contactWatch(t *testing.T, w *rigid.World, steps int) []rigid.ContactEvent {
	t.Helper()
	n := w.NumBodies()
	touching := func() map[[2]rigid.BodyID]bool {
		m := map[[2]rigid.BodyID]bool{}
		for a := range rigid.BodyID(n) {
			for b := a + 1; b < rigid.BodyID(n); b++ {
				if w.Touching(a, b) {
					m[[2]rigid.BodyID{a, b}] = true
				}
			}
		}
		return m
	}
	var all []rigid.ContactEvent
	was := touching()
	for i := 0; i < steps; i++ {
		run(t, w, 1)
		res := w.Results()
		for k, p := range w.Pairs() {
			if got, want := w.Touching(p.A, p.B), len(res[k].Touching()) > 0; got != want {
				t.Fatalf("step %d: pair %d-%d in the narrow phase, Touching %v, contacts %v", i, p.A, p.B, got, want)
			}
		}
		now := touching()
		var want []rigid.ContactEvent
		for k := range now {
			if !was[k] {
				want = append(want, rigid.ContactEvent{A: k[0], B: k[1], Begin: true})
			}
		}
		for k := range was {
			if !now[k] {
				want = append(want, rigid.ContactEvent{A: k[0], B: k[1]})
			}
		}
		slices.SortFunc(want, func(x, y rigid.ContactEvent) int {
			return cmp.Compare(rigid.PairID(x.A, x.B), rigid.PairID(y.A, y.B))
		})
		got := w.ContactEvents(nil)
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: events %+v, want %+v", i, got, want)
		}
		all = append(all, got...)
		was = now
	}
	return all
}

// TestContactEvents: a box lands (Begin), sleeps touching (no End), is
// thrown up (End) and lands again (Begin); a box resting on it and then
// removed ends its contacts at the next step, and so does the ground
// moved away under the sleeping box.
func TestContactEvents(t *testing.T) {
	w, ground := newWorld(t, nil)
	cube := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
	b, _ := w.AddBody(rigid.NewBodyDef(cube, at(0, 2, 0)))
	ev := contactWatch(t, w, 150)
	if want := []rigid.ContactEvent{{A: ground, B: b, Begin: true}}; !slices.Equal(ev, want) {
		t.Fatalf("landing: events %+v, want %+v", ev, want)
	}
	if !w.Body(b).Sleeping() {
		t.Fatal("the box did not fall asleep")
	}
	if ev := contactWatch(t, w, 60); len(ev) != 0 {
		t.Fatalf("asleep: events %+v, want none", ev)
	}
	if err := w.ApplyImpulse(b, mgl64.Vec3{0, 6, 0}, w.Body(b).CenterOfMass()); err != nil {
		t.Fatal(err)
	}
	ev = contactWatch(t, w, 120)
	want := []rigid.ContactEvent{{A: ground, B: b}, {A: ground, B: b, Begin: true}}
	if !slices.Equal(ev, want) {
		t.Fatalf("thrown: events %+v, want %+v", ev, want)
	}
	top, _ := w.AddBody(rigid.NewBodyDef(cube, at(0.1, 1.6, 0)))
	contactWatch(t, w, 120)
	if !w.Touching(b, top) {
		t.Fatal("the second box does not rest on the first")
	}
	if err := w.RemoveBody(top); err != nil {
		t.Fatal(err)
	}
	run(t, w, 1)
	if ev := w.ContactEvents(nil); !slices.Contains(ev, rigid.ContactEvent{A: b, B: top}) {
		t.Errorf("after removal: events %+v, want the end of %d-%d", ev, b, top)
	}
	if w.Touching(b, top) {
		t.Error("a removed body still touches")
	}
	// The box asleep on the ground, and the (static) ground moved away
	// with SetPose: their pair leaves the narrow phase, and the contact
	// ends, though nothing moved the box.
	contactWatch(t, w, 120)
	if !w.Body(b).Sleeping() || !w.Touching(ground, b) {
		t.Fatal("the box is not asleep on the ground")
	}
	if err := w.SetPose(ground, at(0, -50, 0)); err != nil {
		t.Fatal(err)
	}
	if ev := contactWatch(t, w, 1); !slices.Equal(ev, []rigid.ContactEvent{{A: ground, B: b}}) {
		t.Errorf("ground moved away: events %+v, want the end of %d-%d", ev, ground, b)
	}
}
