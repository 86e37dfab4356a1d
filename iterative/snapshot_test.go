package iterative

import (
	"reflect"
	"slices"
	"testing"

	"github.com/irtcd/irtcd/narrow"
)

// stateOf returns the store's state of pair id, or nil.
func stateOf(st *Store, id uint64) *PairState { return st.m[id] }

// TestStoreSaveRestore: a snapshot holds deep copies of every state, in
// the last step's order and, for states put without a Sweep, after them
// by pair ID; Restore gives each its new shape IDs, leaves out those the
// mapping drops, and puts the others back where the next step's lookups
// expect them.
func TestStoreSaveRestore(t *testing.T) {
	var st Store
	pairs := []ref{{10, 0, 1}, {11, 1, 1}, {12, 0, 2}, {13, 2, 2}}
	runStep(t, &st, pairs, false, false, false)
	for i, p := range pairs {
		s := stateOf(&st, p.id)
		s.Valid = true
		s.Rays[0] = append(s.Rays[0], Ray{Vertex: int32(i), Prim: 7})
		s.Rays[1] = append(s.Rays[1], Ray{Vertex: 3, Prim: int32(i), Predicted: true})
		s.Edges = append(s.Edges, narrow.EdgePair{Src: int32(i), Dst: 1})
		s.RelNI.Q = [4]float64{1, 0, 0, float64(i)}
	}
	// Two states put by hand, with no Sweep since.
	st.Begin()
	for _, id := range []uint64{21, 20} {
		s := st.New(3, 0)
		s.Clear = [2]float64{float64(id), 0}
		st.Put(len(pairs)+int(id-20), id, s)
	}
	var sn Snapshot
	st.Save(&sn)
	if sn.Len() != 6 {
		t.Fatalf("snapshot of %d states, want 6", sn.Len())
	}
	var order []uint64
	for _, s := range sn.states[:sn.n] {
		order = append(order, s.id)
	}
	if want := []uint64{10, 11, 12, 13, 20, 21}; !reflect.DeepEqual(order, want) {
		t.Errorf("snapshot order %v, want %v", order, want)
	}
	// The snapshot does not share memory with the store.
	stateOf(&st, 11).Rays[0][0].Prim = 99
	stateOf(&st, 11).Edges[0].Dst = 99
	if s := &sn.states[1]; s.Rays[0][0].Prim != 7 || s.Edges[0].Dst != 1 {
		t.Fatalf("the snapshot changed with the store: %+v", s)
	}

	// Shape 2 is gone; shape 1 is now 5.
	var back Store
	back.Restore(&sn, func(a, b narrow.ShapeID) (narrow.ShapeID, narrow.ShapeID, bool) {
		m := map[narrow.ShapeID]narrow.ShapeID{0: 0, 1: 5, 3: 3}
		na, okA := m[a]
		nb, okB := m[b]
		return na, nb, okA && okB
	})
	if back.Len() != 4 {
		t.Fatalf("%d states restored, want 4 (those with shape 2 left out)", back.Len())
	}
	for _, c := range []struct {
		id   uint64
		a, b narrow.ShapeID
		i    int
	}{{10, 0, 5, 0}, {11, 5, 5, 1}} {
		s := stateOf(&back, c.id)
		if s == nil || s.A != c.a || s.B != c.b || !s.Valid || s.Rays[0][0] != (Ray{Vertex: int32(c.i), Prim: 7}) || s.Edges[0].Src != int32(c.i) || s.RelNI.Q[3] != float64(c.i) {
			t.Errorf("pair %d restored as %+v", c.id, s)
		}
	}
	if s := stateOf(&back, 20); s == nil || s.A != 3 || s.Clear[0] != 20 {
		t.Errorf("pair 20 (put without a Sweep) restored as %+v", s)
	}
	// The next step finds the restored pairs where the saved step had
	// them, without the map.
	next := []ref{{10, 0, 5}, {11, 5, 5}, {12, 0, 2}, {13, 2, 2}}
	got := runStep(t, &back, next, false, true, false)
	if got[0].fresh || got[1].fresh || !got[2].fresh || !got[3].fresh {
		t.Errorf("after the restore: pairs 10, 11 found, 12, 13 new; got %+v", got)
	}
}

// TestRestoreRecyclesInOrder: the states a Restore drops are recycled in
// the order of their pair IDs, not the map's, so that which memory the
// next new pairs take, and what a later snapshot holds, do not change
// from one run to the next.
func TestRestoreRecyclesInOrder(t *testing.T) {
	var pairs []ref
	for i := range 40 {
		pairs = append(pairs, ref{uint64(100 + i), 0, 1})
	}
	// reuse restores a snapshot of the first 8 pairs over a store of all
	// 40 and returns, for each of the next 32 new states, the pair whose
	// state it was.
	reuse := func() []uint64 {
		var st Store
		runStep(t, &st, pairs[:8], false, false, false)
		var sn Snapshot
		st.Save(&sn)
		runStep(t, &st, pairs, false, false, false)
		owner := map[*PairState]uint64{}
		for _, p := range pairs {
			owner[stateOf(&st, p.id)] = p.id
		}
		st.Restore(&sn, func(a, b narrow.ShapeID) (narrow.ShapeID, narrow.ShapeID, bool) { return a, b, true })
		var out []uint64
		for range 32 {
			out = append(out, owner[st.New(0, 1)])
		}
		return out
	}
	first := reuse()
	want := make([]uint64, 32)
	for i := range want {
		want[i] = uint64(100 + 8 + i)
	}
	if sorted := slices.Sorted(slices.Values(first)); !slices.Equal(sorted, want) {
		t.Fatalf("the dropped states are not the ones reused: %v", first)
	}
	for range 10 {
		if got := reuse(); !slices.Equal(got, first) {
			t.Fatalf("states reused in the order %v, then %v", first, got)
		}
	}
}
