package adapter_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/adapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

func box(t *testing.T, half float64) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewBox(mgl64.Vec3{-half, -half, -half}, mgl64.Vec3{half, half, half})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBatchReleaseAndPrune: Prune releases exactly the shapes keep
// rejects, from the batch and from its backend (a pair naming a released
// ID fails there); Release of an unknown shape does nothing; a released
// shape added again is registered anew and works.
func TestBatchReleaseAndPrune(t *testing.T) {
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	b := adapter.NewBatch(be)
	half := []float64{1, 0.5, 0.25}
	s := []*narrow.Shape{box(t, half[0]), box(t, half[1]), box(t, half[2])}
	// near places the second box overlapping the first by 0.1 along x.
	near := func(a, b int) narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{half[a] + half[b] - 0.1, 0.05, 0}, Rot: mgl64.QuatIdent()}
	}
	run := func(pairs ...[2]int) {
		t.Helper()
		b.Begin()
		for k, p := range pairs {
			if err := b.Add(uint64(k+1), s[p[0]], s[p[1]], narrow.Identity, near(p[0], p[1])); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		for k := range pairs {
			r := b.Result(uint64(k + 1))
			if r == nil || r.Err != nil || len(r.Contacts) == 0 {
				t.Fatalf("pair %d: %+v, want contacts", k+1, r)
			}
		}
	}
	run([2]int{0, 1}, [2]int{0, 2})
	old, err := b.Register(s[2])
	if err != nil {
		t.Fatal(err)
	}
	n, err := b.Prune(func(x *narrow.Shape) bool { return x != s[2] })
	if n != 1 || err != nil || b.Shapes() != 2 {
		t.Fatalf("Prune = %d, %v with %d shapes left; want 1, nil, 2", n, err, b.Shapes())
	}
	var res narrow.Result
	pairs := []narrow.Pair{{ID: 9, A: old, B: old, PoseA: narrow.Identity, PoseB: near(2, 2)}}
	if err := be.Detect(context.Background(), pairs, &res); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Pairs[0].Err, narrow.ErrUnknownShape) {
		t.Errorf("pair naming the pruned shape's ID: %v, want ErrUnknownShape", res.Pairs[0].Err)
	}
	if err := b.Release(box(t, 2)); err != nil {
		t.Errorf("Release of a shape never registered: %v", err)
	}
	run([2]int{0, 2}, [2]int{1, 2})
	if id, _ := b.Register(s[2]); id == old {
		t.Errorf("the pruned shape got its old ID %d again", id)
	}
	if b.Shapes() != 3 {
		t.Errorf("%d shapes, want 3", b.Shapes())
	}
}

// TestBatchResultIndex: Result finds each pair of the last Run by ID,
// whatever the order of the pairs and whether it was called after earlier
// Runs; it returns nil for an ID the step did not have, and for every ID
// after a Run that failed.
func TestBatchResultIndex(t *testing.T) {
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	b := adapter.NewBatch(be)
	a, c := box(t, 1), box(t, 0.5)
	pose := func(x float64) narrow.Pose { return narrow.Pose{Pos: mgl64.Vec3{x, 0, 0}, Rot: mgl64.QuatIdent()} }
	steps := []struct {
		name    string
		ids     []uint64
		look    bool     // call Result after the step
		missing []uint64 // IDs Result must not find
		cancel  bool     // the step's context is cancelled
	}{
		{"first", []uint64{7, 3, 11}, true, []uint64{1, 4}, false},
		{"unread", []uint64{3, 5}, false, nil, false},
		{"reordered, after an unread step", []uint64{11, 7, 5}, true, []uint64{3}, false},
		{"cancelled", []uint64{7, 11}, true, []uint64{7, 11}, true},
		{"after a failure", []uint64{2}, true, []uint64{7, 11}, false},
	}
	for _, st := range steps {
		b.Begin()
		for k, id := range st.ids {
			if err := b.Add(id, a, c, narrow.Identity, pose(1.4+0.01*float64(k))); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		if st.cancel {
			cancel()
		}
		err := b.Run(ctx)
		cancel()
		if (err != nil) != st.cancel {
			t.Fatalf("%s: Run: %v", st.name, err)
		}
		if !st.look {
			continue
		}
		if !st.cancel {
			for k, id := range st.ids {
				r := b.Result(id)
				if r == nil || r.ID != id || r != &b.Results()[k] {
					t.Errorf("%s: Result(%d) = %+v, want pair %d of the step", st.name, id, r, k)
				}
			}
		}
		for _, id := range st.missing {
			if r := b.Result(id); r != nil {
				t.Errorf("%s: Result(%d) = %+v, want nil", st.name, id, r)
			}
		}
	}
}

// TestBatchSteadyStateAllocs checks Batch's promise: once warm, a step
// (Begin, Add of every pair, Run, Result of every pair) allocates
// nothing. The pairs, a bunny against bunnies and boxes that slide back
// and forth through it, take standard and iterative steps with contacts
// and predictions in turn, on every worker of the CPU backend.
func TestBatchSteadyStateAllocs(t *testing.T) {
	bunny, err := narrow.LoadOBJ("../testdata/bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	b := adapter.NewBatch(be)
	others := []*narrow.Shape{bunny, box(t, 0.3), bunny, box(t, 0.1)}
	ctx := context.Background()
	step, contacts := 0, 0
	run := func() {
		b.Begin()
		for k, s := range others {
			// Each pair sweeps its own way through the bunny, a period
			// of 40 steps, so that Eq. 2 sends some steps to the
			// standard algorithm and keeps others iterative.
			x := 0.1 * math.Sin(2*math.Pi*float64(step+10*k)/40)
			pose := narrow.Pose{Pos: mgl64.Vec3{x, 0.1 * float64(k), 0.05}, Rot: mgl64.QuatRotate(0.3*float64(k), mgl64.Vec3{0, 0, 1})}
			if err := b.Add(uint64(k+1), bunny, s, narrow.Identity, pose); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Run(ctx); err != nil {
			t.Fatal(err)
		}
		for k := range others {
			r := b.Result(uint64(k + 1))
			if r == nil || r.Err != nil {
				t.Fatalf("step %d, pair %d: %+v", step, k+1, r)
			}
			contacts += len(r.Contacts)
		}
		step++
	}
	for range 80 { // two periods: every pose's buffers have grown
		run()
	}
	var st narrow.Stats
	allocs := testing.AllocsPerRun(80, func() {
		run()
		s := b.Stats()
		st.Add(&s)
	})
	if allocs != 0 {
		t.Errorf("a warm step allocates %.1f times, want 0", allocs)
	}
	t.Logf("80 steps: %d standard and %d iterative pairs, %d contacts, %d predictions", st.StandardPairs, st.IterativePairs, contacts, st.Predictions)
	// The steps measured did the work the test is about.
	if st.StandardPairs == 0 || st.IterativePairs == 0 || contacts == 0 {
		t.Errorf("standard pairs %d, iterative pairs %d, contacts %d: want all > 0", st.StandardPairs, st.IterativePairs, contacts)
	}
}

// plainBackend hides every method of a backend but narrow.Backend's (no
// narrow.Reshaper).
type plainBackend struct{ narrow.Backend }

// TestBatchReshape: a deformation of a registered shape takes its ID on a
// backend that can reshape (the backend then holds the new shape under
// it), and is registered anew, the old shape released, on one that cannot
// or when the new shape is not a deformation of the old.
func TestBatchReshape(t *testing.T) {
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	cube := box(t, 0.5)
	verts := make([]mgl64.Vec3, cube.NumVertices())
	for i := range verts {
		verts[i] = cube.Vertex(i).Mul(1.2)
	}
	big, err := cube.Deform(verts)
	if err != nil {
		t.Fatal(err)
	}
	tetra, err := narrow.NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		backend narrow.Backend
		next    *narrow.Shape
		sameID  bool
	}{
		{"deformation", be, big, true},
		{"no reshaper", plainBackend{be}, big, false},
		{"not a deformation", be, tetra, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := adapter.NewBatch(tc.backend)
			id, err := b.Register(cube)
			if err != nil {
				t.Fatal(err)
			}
			nid, err := b.Reshape(cube, tc.next)
			if err != nil {
				t.Fatal(err)
			}
			if (nid == id) != tc.sameID || b.Shapes() != 1 {
				t.Fatalf("id %d → %d, %d shapes registered; want the same id: %v, one shape", id, nid, b.Shapes(), tc.sameID)
			}
			if got := be.Shape(nid); got != tc.next {
				t.Errorf("the backend holds %p under %d, want the new shape", got, nid)
			}
			if !tc.sameID && be.Shape(id) != nil {
				t.Errorf("the old shape is still registered under %d", id)
			}
			if again, err := b.Register(tc.next); err != nil || again != nid {
				t.Errorf("Register of the new shape: %d, %v; want %d", again, err, nid)
			}
		})
	}
}

// releaseLog is a backend that records the IDs it is asked to release;
// it detects nothing.
type releaseLog struct {
	next     narrow.ShapeID
	released []narrow.ShapeID
}

func (r *releaseLog) RegisterShape(*narrow.Shape) (narrow.ShapeID, error) {
	r.next++
	return r.next - 1, nil
}

func (r *releaseLog) UnregisterShape(id narrow.ShapeID) error {
	r.released = append(r.released, id)
	return nil
}

func (r *releaseLog) Detect(context.Context, []narrow.Pair, *narrow.Result) error { return nil }
func (r *releaseLog) Close() error                                                { return nil }

// TestBatchPruneOrder: Prune releases the shapes in the order of their
// IDs, whatever the order of the batch's map, so that the backend sees
// the same calls from run to run.
func TestBatchPruneOrder(t *testing.T) {
	var shapes []*narrow.Shape
	for i := range 16 {
		shapes = append(shapes, box(t, 0.1+0.01*float64(i)))
	}
	for range 20 {
		var log releaseLog
		b := adapter.NewBatch(&log)
		for _, s := range shapes {
			if _, err := b.Register(s); err != nil {
				t.Fatal(err)
			}
		}
		n, err := b.Prune(func(s *narrow.Shape) bool { return s == shapes[3] })
		if n != 15 || err != nil {
			t.Fatalf("Prune = %d, %v; want 15, nil", n, err)
		}
		if !slices.IsSorted(log.released) || len(log.released) != 15 {
			t.Fatalf("released %v, want the 15 IDs in order", log.released)
		}
	}
}
