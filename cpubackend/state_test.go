package cpubackend_test

import (
	"encoding/binary"
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

// stRun runs the steps of batch through be, saves its state into st
// before step at (after the last one if at is len(batch)), and returns
// the results of the steps from at on.
func stRun(t *testing.T, be *cpubackend.Backend, batch [][]narrow.Pair, at int, st *cpubackend.State) []*narrow.Result {
	t.Helper()
	var res narrow.Result
	var out []*narrow.Result
	for k, pairs := range batch {
		if k == at {
			if err := be.SaveState(st); err != nil {
				t.Fatal(err)
			}
		}
		btDetect(t, be, pairs, &res)
		if k >= at {
			out = append(out, res.Clone())
		}
	}
	if at >= len(batch) {
		if err := be.SaveState(st); err != nil {
			t.Fatal(err)
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
			want := stRun(t, be, batch, at, &st)
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
				differ = differ || !reflect.DeepEqual(res.Clone(), want[k])
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
	var st cpubackend.State
	stRun(t, be, batch, len(batch), &st)
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

// TestStateBinary: a saved state survives its binary form. The encoding
// is canonical (decoding and encoding again gives the same bytes), and a
// fresh backend with the same shapes registered in the same order,
// restored from the decoded state, runs the steps that follow the save
// as the first backend did.
func TestStateBinary(t *testing.T) {
	sh := btLoad(t)
	const at, steps = 12, 24
	p := narrow.Params{Speculative: true, EdgeAngle: math.Pi / 6, ManifoldSize: 6, MaxIt: 40}
	be, ids := btNew(t, sh, p, cpubackend.WithWorkers(2))
	batch := btScriptedBatch(t, sh, ids, 160, steps)
	var res narrow.Result
	var st cpubackend.State
	want := stRun(t, be, batch, at, &st)
	data, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var back cpubackend.State
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	again, err := back.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(data) || back.Pairs() != st.Pairs() {
		t.Fatalf("decoded and encoded again: %d bytes, %d pair states; want the same %d bytes, %d states", len(again), back.Pairs(), len(data), st.Pairs())
	}
	t.Logf("%d pair states in %d bytes", st.Pairs(), len(data))
	fresh, fids := btNew(t, sh, p, cpubackend.WithWorkers(3))
	if fids != ids {
		t.Fatal("the fresh backend gave other IDs")
	}
	if err := fresh.RestoreState(&back); err != nil {
		t.Fatal(err)
	}
	for k, pairs := range batch[at:] {
		btDetect(t, fresh, pairs, &res)
		if !btSameResult(t, fmt.Sprintf("decoded state, step %d", at+k), want[k], &res) {
			break
		}
	}
	// Encoding, from the decoded state restored: the same bytes.
	var resaved cpubackend.State
	if err := fresh.RestoreState(&back); err != nil {
		t.Fatal(err)
	}
	if err := fresh.SaveState(&resaved); err != nil {
		t.Fatal(err)
	}
	if b, _ := resaved.MarshalBinary(); string(b) != string(data) {
		t.Error("a backend restored from the decoded state saves other bytes")
	}
}

// TestStateBinaryErrors: every truncation of a valid encoding, a wrong
// header, bad parameters and indices the shapes do not have are refused
// with narrow.ErrBadState; a refused restore leaves the backend as it was.
func TestStateBinaryErrors(t *testing.T) {
	sh := btLoad(t)
	be, ids := btNew(t, sh, narrow.Params{EdgeAngle: math.Pi / 6})
	batch := btScriptedBatch(t, sh, ids, 20, 6)
	var res narrow.Result
	var st cpubackend.State
	stRun(t, be, batch, len(batch), &st)
	data, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var d cpubackend.State
	for n := range len(data) {
		if err := d.UnmarshalBinary(data[:n]); !errors.Is(err, narrow.ErrBadState) {
			t.Fatalf("the first %d of %d bytes: %v, want ErrBadState", n, len(data), err)
		}
	}
	if err := be.RestoreState(&d); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("RestoreState of a state that failed to decode = %v, want ErrBadParams", err)
	}
	bad := func(what string, change func(b []byte)) {
		t.Helper()
		b := append([]byte(nil), data...)
		change(b)
		if err := d.UnmarshalBinary(b); !errors.Is(err, narrow.ErrBadState) {
			t.Errorf("%s: %v, want ErrBadState", what, err)
		}
	}
	bad("header", func(b []byte) { b[0] = 'X' })
	bad("method", func(b []byte) { b[8] = 9 })
	if err := d.UnmarshalBinary(append(append([]byte(nil), data...), 0)); !errors.Is(err, narrow.ErrBadState) {
		t.Errorf("a byte too many: %v, want ErrBadState", err)
	}
	if empty := (cpubackend.State{}); true {
		if _, err := empty.MarshalBinary(); !errors.Is(err, narrow.ErrBadState) {
			t.Errorf("MarshalBinary of an empty State = %v, want ErrBadState", err)
		}
	}

	// A vertex index the bunny does not have: found at restore.
	if err := d.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	var saved cpubackend.State
	if err := be.SaveState(&saved); err != nil {
		t.Fatal(err)
	}
	corrupt := func(vertex int32) []byte {
		// The last ray of the first state that has one in direction 0
		// (the format is in iterative/encode.go): the header and the
		// parameters take 8 + 78 bytes, the shapes' odometers 4 + 8 each,
		// the count of states 4; a state's
		// direction-0 ray count comes 345 bytes in, its rays (9 bytes
		// each) after it, then the direction-1 count and rays, then the
		// count of edge pairs (8 bytes each), then per side the count of
		// face edges (4 bytes each).
		b := append([]byte(nil), data...)
		u32 := func(p int) int { return int(binary.LittleEndian.Uint32(b[p:])) }
		off := 8 + 78 + 4 + 8*u32(8+78) + 4
		for range u32(off - 4) {
			n0 := u32(off + 345)
			if n0 > 0 {
				binary.LittleEndian.PutUint32(b[off+349+9*(n0-1):], uint32(vertex)) // the last: the order holds
				return b
			}
			n1 := u32(off + 349 + 9*n0)
			ne := u32(off + 353 + 9*(n0+n1))
			nf0 := u32(off + 357 + 9*(n0+n1) + 8*ne)
			nf1 := u32(off + 361 + 9*(n0+n1) + 8*ne + 4*nf0)
			off += 365 + 9*(n0+n1) + 8*ne + 4*(nf0+nf1)
		}
		t.Fatal("no state has a ray in direction 0")
		return nil
	}
	if err := d.UnmarshalBinary(corrupt(1 << 20)); err != nil {
		t.Fatalf("a vertex index out of range should decode (the shapes decide): %v", err)
	}
	if err := be.RestoreState(&d); !errors.Is(err, narrow.ErrBadState) {
		t.Errorf("RestoreState with a vertex the shape lacks = %v, want ErrBadState", err)
	}
	// The refused restore changed nothing: the next step is the one the
	// state saved before it gives.
	btDetect(t, be, batch[len(batch)-1], &res)
	after := res.Clone()
	if err := be.RestoreState(&saved); err != nil {
		t.Fatal(err)
	}
	btDetect(t, be, batch[len(batch)-1], &res)
	btSameResult(t, "after a refused restore", res.Clone(), after)
}

// FuzzStateBinary feeds UnmarshalBinary arbitrary bytes, seeded with the
// encodings of real states. A refusal must wrap narrow.ErrBadState; data
// it accepts must encode back to the same bytes, and restore into a
// backend with the test shapes (same parameters) either cleanly or with
// a typed error, after which a step of valid pairs must run (the inputs
// are kilobytes long: keep the minimization of new-coverage inputs short,
// see FuzzStateDecode in sim/rigid):
//
//	go test ./cpubackend -run XXX -fuzz FuzzStateBinary -fuzztime 180s -fuzzminimizetime 1s
func FuzzStateBinary(f *testing.F) {
	sh := btLoad(f)
	seedParams := []narrow.Params{{EdgeAngle: math.Pi / 6}, {Method: narrow.MethodIterative}}
	var batch [][]narrow.Pair
	for _, p := range seedParams {
		be, ids := btNew(f, sh, p)
		batch = btScriptedBatch(f, sh, ids, 4, 8)
		var res narrow.Result
		var st cpubackend.State
		for k, pairs := range batch {
			btDetect(f, be, pairs, &res)
			if k%3 == 2 {
				if err := be.SaveState(&st); err != nil {
					f.Fatal(err)
				}
				data, err := st.MarshalBinary()
				if err != nil {
					f.Fatal(err)
				}
				f.Add(data)
				f.Add(data[:len(data)/2])
			}
		}
	}
	backends := map[narrow.Params]*cpubackend.Backend{}
	for _, p := range seedParams {
		backends[p], _ = btNew(f, sh, p)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st cpubackend.State
		if err := st.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, narrow.ErrBadState) {
				t.Fatalf("refused with %v, want ErrBadState", err)
			}
			return
		}
		again, err := st.MarshalBinary()
		if err != nil || string(again) != string(data) {
			t.Fatalf("accepted, then encoded as %d other bytes (%v)", len(again), err)
		}
		var params narrow.Params
		var saved cpubackend.State
		for _, p := range seedParams {
			err := backends[p].RestoreState(&st)
			if err == nil {
				params = p
				break
			}
			if !errors.Is(err, narrow.ErrBadState) && !errors.Is(err, narrow.ErrBadParams) {
				t.Fatalf("RestoreState: %v, want nil, ErrBadState or ErrBadParams", err)
			}
		}
		if be := backends[params]; be != nil {
			var res narrow.Result
			if err := be.Detect(t.Context(), batch[len(batch)-1], &res); err != nil {
				t.Fatalf("a step after the restore: %v", err)
			}
			if err := be.SaveState(&saved); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestStateBinaryParams: every field of narrow.Params survives the binary
// form (a new field must be added to the encoding: this test counts
// them).
func TestStateBinaryParams(t *testing.T) {
	p := narrow.Params{Method: narrow.MethodIterative, Traversal: narrow.TraversalBasic, Response: narrow.ResponseRay, Culling: narrow.CullBoxes,
		DisplacementThreshold: 0.03, Confidence: 1.5, DistanceExtension: 0.07, MaxIt: 33, Reach: 0.01, ManifoldSize: 5, ManifoldAngle: 0.3, EdgeAngle: 1.1, EdgeDepth: 0.02, EdgeFaces: true}
	if n := reflect.TypeOf(p).NumField(); n != 15 {
		t.Fatalf("narrow.Params has %d fields, the encoding 15: update appendParams and decodeParams", n)
	}
	be, err := cpubackend.New(p)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	var st, back cpubackend.State
	if err := be.SaveState(&st); err != nil {
		t.Fatal(err)
	}
	data, err := st.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if err := back.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if err := be.RestoreState(&back); err != nil {
		t.Errorf("a backend refuses its own parameters, decoded: %v", err)
	}
	other, err := cpubackend.New(narrow.Params{Method: narrow.MethodIterative, Traversal: narrow.TraversalBasic})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.RestoreState(&back); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("RestoreState with other parameters = %v, want ErrBadParams", err)
	}
}
