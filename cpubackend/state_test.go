package cpubackend_test

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// stRemap returns the batch's steps with the shape IDs of ids replaced by
// those of to.
func stRemap(batch [][]narrow.Pair, ids, to btIDs) [][]narrow.Pair {
	m := map[narrow.ShapeID]narrow.ShapeID{ids.bunny: to.bunny, ids.torus: to.torus, ids.poly: to.poly}
	out := make([][]narrow.Pair, len(batch))
	for k, pairs := range batch {
		out[k] = append([]narrow.Pair(nil), pairs...)
		for i := range out[k] {
			out[k][i].A, out[k][i].B = m[out[k][i].A], m[out[k][i].B]
		}
	}
	return out
}

// TestSaveRestoreState runs a scripted batch of 160 pairs, saves the
// backend's state at step 12, and checks that every way of restoring it
// gives the steps that follow bit for bit: into the same backend, into a
// fresh one whose shapes have other IDs, and after one of the shapes was
// released and registered again. A backend that forgot its state (Reset)
// must differ, or the state would not matter to these steps.
func TestSaveRestoreState(t *testing.T) {
	sh := btLoad(t)
	const at, steps = 12, 30
	for _, p := range []narrow.Params{
		{Method: narrow.MethodIterative},
		{Method: narrow.MethodPredictive},
		{Method: narrow.MethodPredictive, Speculative: true, EdgeAngle: math.Pi / 6},
	} {
		t.Run(fmt.Sprintf("%v/speculative=%v/edges=%.2f", p.Method, p.Speculative, p.EdgeAngle), func(t *testing.T) {
			be, ids := btNew(t, sh, p, cpubackend.WithWorkers(2))
			batch := btScriptedBatch(t, sh, ids, 160, steps)
			var res narrow.Result
			var st cpubackend.State
			var want []*narrow.Result
			for k, pairs := range batch {
				if k == at {
					if err := be.SaveState(&st); err != nil {
						t.Fatal(err)
					}
				}
				btDetect(t, be, pairs, &res)
				if k >= at {
					want = append(want, btClone(&res))
				}
			}
			if st.Pairs() == 0 {
				t.Fatal("no pair state saved")
			}
			replay := func(label string, be *cpubackend.Backend, batch [][]narrow.Pair) {
				t.Helper()
				for k, pairs := range batch[at:] {
					btDetect(t, be, pairs, &res)
					if !btSameResult(t, fmt.Sprintf("%s, step %d", label, at+k), want[k], &res) {
						return
					}
				}
			}

			if err := be.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
			replay("restored", be, batch)
			// Again from the same state: restoring leaves it as it was.
			if err := be.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
			replay("restored twice", be, batch)

			// A fresh backend, its shapes registered in another order
			// after an unrelated one: other IDs.
			fresh, err := cpubackend.New(p, cpubackend.WithWorkers(3))
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			var to btIDs
			for _, r := range []struct {
				s  *narrow.Shape
				id *narrow.ShapeID
			}{{loadMesh(t, "teddy"), new(narrow.ShapeID)}, {sh.poly, &to.poly}, {sh.torus, &to.torus}, {sh.bunny, &to.bunny}} {
				if *r.id, err = fresh.RegisterShape(r.s); err != nil {
					t.Fatal(err)
				}
			}
			if to == ids {
				t.Fatal("the fresh backend gave the same IDs")
			}
			if err := fresh.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
			replay("another backend", fresh, stRemap(batch, ids, to))

			// The torus released and registered again: a new ID.
			if err := be.UnregisterShape(ids.torus); err != nil {
				t.Fatal(err)
			}
			again := ids
			if again.torus, err = be.RegisterShape(sh.torus); err != nil {
				t.Fatal(err)
			}
			if err := be.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
			replay("torus registered again", be, stRemap(batch, ids, again))

			// Without the state the same steps come out otherwise.
			be.Reset()
			differ := false
			for k, pairs := range stRemap(batch, ids, again)[at:] {
				btDetect(t, be, pairs, &res)
				differ = differ || !reflect.DeepEqual(btClone(&res), want[k])
			}
			if !differ {
				t.Error("a backend that forgot its state returns the same steps: the test does not exercise the state")
			}
		})
	}
}

// TestSaveRestoreStateDropsUnknownShapes: states of pairs whose shapes are
// not registered any more are left out, and those pairs start afresh.
func TestSaveRestoreStateDropsUnknownShapes(t *testing.T) {
	sh := btLoad(t)
	be, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 40, 6)
	var res narrow.Result
	for _, pairs := range batch {
		btDetect(t, be, pairs, &res)
	}
	var st cpubackend.State
	if err := be.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	withTorus := 0
	for _, p := range batch[len(batch)-1] {
		if p.A == ids.torus || p.B == ids.torus {
			withTorus++
		}
	}
	if withTorus == 0 || withTorus == len(batch[0]) {
		t.Fatalf("%d of %d pairs have a torus: the test needs some of each", withTorus, len(batch[0]))
	}
	fresh, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	var to btIDs
	if to.bunny, err = fresh.RegisterShape(sh.bunny); err != nil {
		t.Fatal(err)
	}
	if err := fresh.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	var again cpubackend.State
	if err := fresh.SaveState(&again); err != nil {
		t.Fatal(err)
	}
	if got, want := again.Pairs(), st.Pairs()-withTorus; got != want {
		t.Errorf("%d pair states restored without the torus, want %d (%d saved, %d with a torus)", got, want, st.Pairs(), withTorus)
	}
	// The bunny pairs carry on iteratively.
	var pairs []narrow.Pair
	for _, p := range batch[len(batch)-1] {
		if p.A == ids.bunny && p.B == ids.bunny {
			p.A, p.B = to.bunny, to.bunny
			pairs = append(pairs, p)
		}
	}
	if len(pairs) == 0 {
		t.Fatal("no bunny-bunny pair")
	}
	if err := fresh.Detect(t.Context(), pairs, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stats.IterativePairs == 0 {
		t.Errorf("no pair restored as iterative: %+v", res.Stats)
	}
}

// TestSaveRestoreStateErrors: bad arguments, other parameters and a closed
// backend give typed errors and change nothing.
func TestSaveRestoreStateErrors(t *testing.T) {
	sh := btLoad(t)
	be, _ := btNew(t, sh, narrow.Params{})
	if err := be.SaveState(nil); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("SaveState(nil) = %v, want ErrBadParams", err)
	}
	for name, st := range map[string]*cpubackend.State{"nil": nil, "never saved": {}} {
		if err := be.RestoreState(st); !errors.Is(err, narrow.ErrBadParams) {
			t.Errorf("RestoreState(%s) = %v, want ErrBadParams", name, err)
		}
	}
	other, _ := btNew(t, sh, narrow.Params{Method: narrow.MethodIterative})
	var st cpubackend.State
	if err := other.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	if err := be.RestoreState(&st); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("RestoreState of another method's state = %v, want ErrBadParams", err)
	}
	be.Close()
	if err := be.SaveState(&st); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("SaveState after Close = %v, want ErrBackendClosed", err)
	}
	if err := other.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	if err := be.RestoreState(&st); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("RestoreState after Close = %v, want ErrBackendClosed", err)
	}
}

// TestSaveRestoreStateAllocs: saving into a warm State and restoring from
// it allocate nothing, so an engine can save at every step.
func TestSaveRestoreStateAllocs(t *testing.T) {
	sh := btLoad(t)
	p := narrow.Params{Speculative: true, EdgeAngle: math.Pi / 6}
	be, ids := btNew(t, sh, p, cpubackend.WithWorkers(2))
	batch := btScriptedBatch(t, sh, ids, 130, 24)
	var res narrow.Result
	var st cpubackend.State
	for range 2 {
		for _, pairs := range batch {
			btDetect(t, be, pairs, &res)
			if err := be.SaveState(&st); err != nil {
				t.Fatal(err)
			}
			if err := be.RestoreState(&st); err != nil {
				t.Fatal(err)
			}
		}
	}
	k := 0
	allocs := testing.AllocsPerRun(24, func() {
		if err := be.Detect(t.Context(), batch[k%len(batch)], &res); err != nil {
			panic(err)
		}
		k++
		if err := be.SaveState(&st); err != nil {
			panic(err)
		}
		if err := be.RestoreState(&st); err != nil {
			panic(err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per step with a save and a restore, want 0", allocs)
	}
}

// TestRestoreStateForgetsLaterPairs: pairs that came after the save lose
// their states at the restore, so that their next step is a standard
// one, as it was the first time.
func TestRestoreStateForgetsLaterPairs(t *testing.T) {
	sh := btLoad(t)
	be, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 40, 8)
	var res narrow.Result
	var st cpubackend.State
	btDetect(t, be, batch[0][:20], &res)
	if err := be.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	for _, pairs := range batch[1:4] {
		btDetect(t, be, pairs, &res)
	}
	if err := be.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	btDetect(t, be, batch[1], &res)
	for i, r := range res.Pairs {
		if i >= 20 && r.Iterative {
			t.Errorf("pair %d, new since the save, had an iterative step after the restore", r.ID)
		}
	}
	if res.Stats.IterativePairs == 0 {
		t.Errorf("no pair saved had an iterative step after the restore: %+v", res.Stats)
	}
}
