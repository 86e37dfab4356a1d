package iterative

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/irtcd/irtcd/narrow"
)

// ref is one pair of a batch: its ID and shapes.
type ref struct {
	id   uint64
	a, b narrow.ShapeID
}

// got is what a step of runStep made of one pair.
type got struct {
	s     *PairState // nil for a duplicate
	fresh bool       // s came from New
	prev  int        // the batch index of the pair's first occurrence, or -1
}

// runStep runs one step of st on a batch as cpubackend does: it looks up
// each pair, detects the duplicates that Lookup does not (pairs without
// state) with a map, makes new states for the other misses and, unless
// fail, puts them and sweeps; if fail, it releases them. With noMap the
// lookups run with the store's map hidden: a stored pair is found only
// where the last step's order predicts it. With claim, every pair is
// first claimed (Claim, from concurrent goroutines), and those not
// claimed are then taken (Take) in batch order; the outcome must be the
// same as with Lookup alone.
func runStep(t *testing.T, st *Store, pairs []ref, fail, noMap, claim bool) []got {
	t.Helper()
	out := make([]got, len(pairs))
	if claim {
		// Runs of three pairs claimed concurrently, each after the last
		// state its run claimed, as cpubackend's blocks do.
		st.BeginBatch(len(pairs))
		var wg sync.WaitGroup
		for lo := 0; lo < len(pairs); lo += 3 {
			wg.Go(func() {
				h := -1
				for i := lo; i < min(lo+3, len(pairs)); i++ {
					p := pairs[i]
					if out[i].s = st.Claim(i, p.id, p.a, p.b, h); out[i].s != nil {
						h = int(out[i].s.pos) + 1
					}
				}
			})
		}
		wg.Wait()
	} else {
		st.Begin()
	}
	for i := range out {
		out[i].prev = -1
	}
	ids := map[uint64]int{}
	m := st.m
	if noMap {
		st.m = nil
	}
	for i, p := range pairs {
		r := &out[i]
		if r.s != nil || r.prev >= 0 {
			continue // claimed, or a duplicate of a pair that took its state
		}
		var from int
		if r.s, r.prev, from = st.Take(i, p.id, p.a, p.b); from >= 0 {
			if from <= i || out[from].s == nil {
				t.Fatalf("Take(%d) took the state of pair %d over, which had none", i, from)
			}
			out[from] = got{prev: i}
		}
		if r.prev >= 0 || r.s != nil {
			continue
		}
		if k, dup := ids[p.id]; dup {
			r.prev = k
			continue
		}
		ids[p.id] = i
		r.s, r.fresh = st.New(p.a, p.b), true
	}
	st.m = m
	if fail {
		for _, r := range out {
			if r.fresh {
				st.Release(r.s)
			}
		}
		checkStore(t, st)
		return out
	}
	for i, r := range out {
		if r.fresh {
			st.Put(i, pairs[i].id, r.s)
		}
	}
	st.Sweep()
	checkStore(t, st)
	return out
}

// checkStore checks the store's invariants between steps: the map and the
// last step's order hold the same states, each once, at its pos and
// under its ID, with its shapes; no free state is stored, none twice.
func checkStore(t *testing.T, st *Store) {
	t.Helper()
	n := 0
	for p, s := range st.order {
		if s == nil {
			continue
		}
		n++
		if int(s.pos) != p || st.m[s.id] != s {
			t.Fatalf("order[%d] = %p (id %d, pos %d), map has %p", p, s, s.id, s.pos, st.m[s.id])
		}
	}
	if n != len(st.m) {
		t.Fatalf("order holds %d states, map %d", n, len(st.m))
	}
	free := map[*PairState]bool{}
	for _, s := range st.free {
		if free[s] {
			t.Fatalf("state %p freed twice", s)
		}
		free[s] = true
	}
	for id, s := range st.m {
		if s.id != id || free[s] {
			t.Fatalf("state %p under id %d: id %d, free %v", s, id, s.id, free[s])
		}
	}
}

// batch parses "1 2:0,2 3" into pairs: an ID, optionally with shapes
// (default 0, 1).
func batch(s string) []ref {
	var out []ref
	for _, f := range strings.Fields(s) {
		r := ref{a: 0, b: 1}
		if id, shapes, ok := strings.Cut(f, ":"); ok {
			fmt.Sscanf(id, "%d", &r.id)
			fmt.Sscanf(shapes, "%d,%d", &r.a, &r.b)
		} else {
			fmt.Sscanf(f, "%d", &r.id)
		}
		out = append(out, r)
	}
	return out
}

// TestStoreOrder runs sequences of steps through a Store and checks, per
// pair, whether it got the state it had at the last committed step
// ("hit"), a new one ("new") or was a duplicate of the pair at batch
// index k ("dup k"). A step marked noMap must find every stored pair
// without the map; a failed step must leave the store as it was.
func TestStoreOrder(t *testing.T) {
	type step = storeStep
	tests := []struct {
		name  string
		steps []step
	}{
		{"same order", []step{
			{pairs: "1 2 3", want: "new new new"},
			{pairs: "1 2 3", want: "hit hit hit", noMap: true},
			{pairs: "1 2 3", want: "hit hit hit", noMap: true},
		}},
		{"pairs leave and arrive in front", []step{
			{pairs: "1 2 3 4", want: "new new new new"},
			{pairs: "2 3 4", want: "hit hit hit"}, // 2 from the map, then in order
			{pairs: "0 2 3 4", want: "new hit hit hit", noMap: true},
			{pairs: "0 2 5 3 4", want: "hit hit new hit hit", noMap: true},
			{pairs: "0 2 6 3 4", want: "hit hit new hit hit", noMap: true}, // 3 at its index
			{pairs: "0 2 4", want: "hit hit hit"},
			{pairs: "0 2 4", want: "hit hit hit", noMap: true},
		}},
		{"reordered", []step{
			{pairs: "1 2 3 4", want: "new new new new"},
			{pairs: "4 3 2 1", want: "hit hit hit hit"},
			{pairs: "4 3 2 1", want: "hit hit hit hit", noMap: true},
			{pairs: "4 2 3 1", want: "hit hit hit hit"},
			{pairs: "1 4 2 3", want: "hit hit hit hit"},
		}},
		{"a pair leaves and returns", []step{
			{pairs: "1 2 3", want: "new new new"},
			{pairs: "1 3", want: "hit hit"},
			{pairs: "1 2 3", want: "hit new hit"},
			{pairs: "1 2 3", want: "hit hit hit", noMap: true},
			{pairs: "3 1", want: "hit hit"},
			{pairs: "2 3 1", want: "new hit hit"},
		}},
		{"shapes change under the same ID", []step{
			{pairs: "1:0,1 2:0,1", want: "new new"},
			{pairs: "1:0,2 2:0,1", want: "new hit"},
			{pairs: "1:0,2 2:0,1", want: "hit hit", noMap: true},
			{pairs: "2:0,1 1:2,0", want: "hit new"},
			{pairs: "1:2,0 2:1,0", want: "hit new"},
		}},
		{"duplicates of stored pairs", []step{
			{pairs: "1 2", want: "new new"},
			{pairs: "1 2 1 2 1", want: "hit hit dup 0 dup 1 dup 0"},
			{pairs: "1 2", want: "hit hit", noMap: true},
			{pairs: "2 2 1", want: "hit dup 0 hit"},
		}},
		{"duplicates with other shapes", []step{
			{pairs: "1:0,1 2:0,1", want: "new new"},
			{pairs: "1:0,2 1:0,1 2:0,1 2:0,3", want: "new dup 0 hit dup 2"},
			{pairs: "1:0,2 2:0,1", want: "hit hit"},
			{pairs: "1:0,2 2:0,1", want: "hit hit", noMap: true},
		}},
		{"duplicates of new pairs", []step{
			{pairs: "5 5 6", want: "new dup 0 new"},
			{pairs: "5 6 7 6 7", want: "hit hit new dup 1 dup 2"},
			{pairs: "5 6 7", want: "hit hit hit", noMap: true},
		}},
		{"a failed step changes nothing", []step{
			{pairs: "1 2 3", want: "new new new"},
			{pairs: "3 9 1 1", want: "hit new hit dup 2", fail: true},
			{pairs: "1 2 3", want: "hit hit hit", noMap: true},
			{pairs: "1:4,4 3 2", want: "new hit hit", fail: true},
			{pairs: "1 2 3", want: "hit hit hit", noMap: true},
			{pairs: "2 3", want: "hit hit", fail: true},
			{pairs: "1 2 3", want: "hit hit hit", noMap: true},
		}},
	}
	for _, claim := range []bool{false, true} {
		for _, tc := range tests {
			t.Run(fmt.Sprintf("%s/claim=%v", tc.name, claim), func(t *testing.T) {
				storeOrder(t, tc.steps, claim)
			})
		}
	}
}

// storeStep is a step of TestStoreOrder: its batch, the outcome wanted,
// and how it runs.
type storeStep struct {
	pairs string
	want  string
	fail  bool
	noMap bool
}

// storeOrder runs one case of TestStoreOrder.
func storeOrder(t *testing.T, steps []storeStep, claim bool) {
	var st Store
	last := map[uint64]*PairState{} // the states of the last committed step
	for k, sp := range steps {
		pairs := batch(sp.pairs)
		out := runStep(t, &st, pairs, sp.fail, sp.noMap, claim)
		var words []string
		for i, r := range out {
			switch {
			case r.prev >= 0:
				words = append(words, fmt.Sprintf("dup %d", r.prev))
			case r.fresh:
				words = append(words, "new")
			case r.s == last[pairs[i].id] && r.s.A == pairs[i].a && r.s.B == pairs[i].b:
				words = append(words, "hit")
			default:
				words = append(words, "wrong state")
			}
		}
		if w := strings.Join(words, " "); w != sp.want {
			t.Fatalf("step %d (%s): got %q, want %q", k, sp.pairs, w, sp.want)
		}
		if sp.fail {
			continue
		}
		last = map[uint64]*PairState{}
		for i, r := range out {
			if r.prev < 0 {
				last[pairs[i].id] = r.s
			}
		}
		if st.Len() != len(last) {
			t.Fatalf("step %d: Len = %d, want %d", k, st.Len(), len(last))
		}
	}
}

// TestStoreModel runs random steps — pairs that stay, move, leave,
// arrive, change shapes or repeat, failed steps and Forget — against a
// plain map of what the store should hold.
func TestStoreModel(t *testing.T) {
	for _, claim := range []bool{false, true} {
		t.Run(fmt.Sprintf("claim=%v", claim), func(t *testing.T) { storeModel(t, claim) })
	}
}

// storeModel runs TestStoreModel's steps, claiming or not.
func storeModel(t *testing.T, claim bool) {
	rng := rand.New(rand.NewPCG(1, 2))
	var st Store
	type entry struct {
		a, b narrow.ShapeID
		s    *PairState
	}
	model := map[uint64]entry{}
	var pairs []ref
	for k := 0; k < 3000; k++ {
		// Mutate last step's batch a little.
		next := append([]ref(nil), pairs...)
		for range rng.IntN(4) {
			switch op := rng.IntN(6); {
			case op == 0 && len(next) > 0: // leave
				i := rng.IntN(len(next))
				next = append(next[:i], next[i+1:]...)
			case op == 1: // arrive
				i := rng.IntN(len(next) + 1)
				r := ref{uint64(rng.IntN(40)), narrow.ShapeID(rng.IntN(2)), narrow.ShapeID(rng.IntN(2))}
				next = append(next[:i], append([]ref{r}, next[i:]...)...)
			case op == 2 && len(next) > 1: // swap
				i, j := rng.IntN(len(next)), rng.IntN(len(next))
				next[i], next[j] = next[j], next[i]
			case op == 3 && len(next) > 0: // other shapes
				next[rng.IntN(len(next))].b ^= 1
			case op == 4 && len(next) > 0: // repeat
				next = append(next, next[rng.IntN(len(next))])
			}
		}
		fail := rng.IntN(10) == 0
		if rng.IntN(200) == 0 {
			st.Forget()
			clear(model)
		}
		out := runStep(t, &st, next, fail, false, claim)
		first := map[uint64]int{}
		for i, p := range next {
			r := out[i]
			k0, dup := first[p.id]
			e, stored := model[p.id]
			switch {
			case dup:
				if r.prev != k0 {
					t.Fatalf("step %d, pair %d (id %d): prev %d, want %d", k, i, p.id, r.prev, k0)
				}
			case r.prev >= 0:
				t.Fatalf("step %d, pair %d (id %d): duplicate of %d, want none", k, i, p.id, r.prev)
			case stored && e.a == p.a && e.b == p.b:
				if r.fresh || r.s != e.s {
					t.Fatalf("step %d, pair %d (id %d): state %p (fresh %v), want %p", k, i, p.id, r.s, r.fresh, e.s)
				}
			default:
				if !r.fresh {
					t.Fatalf("step %d, pair %d (id %d): not a new state", k, i, p.id)
				}
			}
			if !dup {
				first[p.id] = i
			}
		}
		if fail {
			continue // the batch is sent again, mutated
		}
		pairs = next
		clear(model)
		for i, p := range next {
			if out[i].prev < 0 {
				model[p.id] = entry{p.a, p.b, out[i].s}
			}
		}
		if st.Len() != len(model) {
			t.Fatalf("step %d: Len = %d, want %d", k, st.Len(), len(model))
		}
	}
}

// TestStorePeek: Peek guesses from the last step's order alone, by batch
// index, and changes nothing that the step's lookups then find.
func TestStorePeek(t *testing.T) {
	var st Store
	st.Begin()
	made := map[uint64]*PairState{}
	for i, id := range []uint64{10, 20, 30} {
		s := st.New(1, 2)
		st.Put(i, id, s)
		made[id] = s
	}
	st.Sweep()
	st.Begin()
	tests := []struct {
		i    int
		id   uint64
		want *PairState
	}{
		{0, 10, made[10]},
		{2, 30, made[30]},
		{1, 10, nil}, // 10 was at index 0
		{3, 30, nil}, // past the last step's batch
		{1, 99, nil}, // unknown
	}
	for _, tc := range tests {
		if got := st.Peek(tc.i, tc.id); got != tc.want {
			t.Errorf("Peek(%d, %d) = %p, want %p", tc.i, tc.id, got, tc.want)
		}
	}
	// The batch shifted by one: Peek misses, Lookup still finds each.
	for i, id := range []uint64{5, 10, 20, 30} {
		_ = st.Peek(i, id)
		s, prev := st.Lookup(i, id, 1, 2)
		if want := made[id]; s != want || prev != -1 {
			t.Errorf("Lookup(%d, %d) = %p, %d; want %p, -1", i, id, s, prev, want)
		}
	}
}
