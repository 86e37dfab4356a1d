package cpubackend

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// begin opens a session with every helper, as a step's first phase of
// more than one item did before the backend counted what a step needs.
func (p *pool) begin() { p.grow(len(p.wake)) }

// TestPool checks that every item of every phase runs exactly once, on a
// valid worker, in sessions opened by begin or by the first phase of more
// than one item, with more workers than processors too.
func TestPool(t *testing.T) {
	for _, tc := range []struct {
		workers int
		begin   bool
	}{
		{1, true}, {2, true}, {2, false}, {3, true}, {8, true}, {8, false},
	} {
		t.Run(fmt.Sprintf("workers=%d/begin=%v", tc.workers, tc.begin), func(t *testing.T) {
			p := newPool(tc.workers)
			defer p.close()
			for round := 0; round < 20; round++ {
				if tc.begin {
					p.begin()
				}
				for _, count := range []int{0, 1, 5, 64, 1000} {
					runs := make([]atomic.Int32, count)
					var bad atomic.Int32
					p.run(count, func(i, w int) {
						if w < 0 || w >= tc.workers {
							bad.Add(1)
						}
						runs[i].Add(1)
					})
					if n := bad.Load(); n > 0 {
						t.Fatalf("round %d, %d items: %d calls with a worker index outside [0, %d)", round, count, n, tc.workers)
					}
					for i := range runs {
						if n := runs[i].Load(); n != 1 {
							t.Fatalf("round %d, %d items: item %d ran %d times", round, count, i, n)
						}
					}
				}
				p.end()
			}
		})
	}
}

// TestPoolParks checks that the helpers of a step park once it ends: an
// engine's solver, running between steps, must not compete with spinning
// helpers.
func TestPoolParks(t *testing.T) {
	p := newPool(3)
	defer p.close()
	for round := 0; round < 10; round++ {
		p.run(100, func(i, w int) {
			if work(1000) < 0 { // never: only keeps the work
				panic("work")
			}
		})
		p.end()
		waitParked(t, p)
	}
}

// waitParked fails t unless every helper of p parks within 5 s.
func waitParked(t *testing.T, p *pool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.awake.Load() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%d helpers still awake 5 s after the session ended", p.awake.Load())
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// TestPoolGrow checks that a session wakes only the helpers it wants:
// size for one that a phase opens, more after grow, every one woken, none
// beyond.
func TestPoolGrow(t *testing.T) {
	p := newPool(9) // 8 helpers
	defer p.close()
	waitAwake := func(n int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for p.awake.Load() < int32(n) {
			if time.Now().After(deadline) {
				t.Fatalf("%d helpers awake 5 s after %d were woken", p.awake.Load(), n)
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	var top atomic.Int32 // the highest worker index that ran an item
	fn := func(i, w int) {
		for {
			m := top.Load()
			if int32(w) <= m || top.CompareAndSwap(m, int32(w)) {
				break
			}
		}
		if work(100) < 0 {
			panic("work")
		}
	}
	p.size = 2
	p.run(2000, fn)
	waitAwake(2)
	p.run(2000, fn)
	if m := top.Load(); m > 2 {
		t.Fatalf("worker %d ran an item in a session of 2 helpers", m)
	}
	if n := p.awake.Load(); n != 2 {
		t.Fatalf("%d helpers awake in a session of 2", n)
	}
	p.grow(7)
	waitAwake(7)
	for range 20 {
		p.run(2000, fn)
	}
	if m := top.Load(); m > 7 {
		t.Fatalf("worker %d ran an item in a session grown to 7 helpers", m)
	}
	if n := p.awake.Load(); n != 7 {
		t.Fatalf("%d helpers awake in a session grown to 7", n)
	}
	p.end()
	waitParked(t, p)
	// A session of no helper runs on the caller alone.
	p.size = 0
	top.Store(0)
	p.run(100, fn)
	p.end()
	if m := top.Load(); m != 0 {
		t.Fatalf("worker %d ran an item in a session of no helper", m)
	}
}

// work is a short computation, n dependent steps.
func work(n int) float64 {
	x := 1.0
	for i := 0; i < n; i++ {
		x = x*0.999 + 1e-3
	}
	return x
}

// BenchmarkPool times short phases (16 items of work(2000), well under a
// microsecond each here) separated by serial passes ten times as long, as
// in a step of the narrow phase, and
// reports the share of the items that helpers ran ("helped"; 0.5 would be
// an even split between two workers). Every fifth phase ends the session
// and begins another, as steps do.
func BenchmarkPool(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := newPool(workers)
			defer p.close()
			var helped, never atomic.Int64
			fn := func(i, w int) {
				if w > 0 {
					helped.Add(1)
				}
				if work(2000) < 0 { // never: only keeps the work
					never.Add(1)
				}
			}
			p.begin()
			for i := 0; i < b.N; i++ {
				if i%5 == 4 {
					p.end()
					p.begin()
				}
				p.run(16, fn)
				if work(20000) < 0 {
					never.Add(1)
				}
			}
			p.end()
			b.ReportMetric(float64(helped.Load())/float64(16*b.N), "helped")
			b.ReportMetric(float64(never.Load()), "never")
		})
	}
}

// TestStepHelpers checks how many helpers a step wakes (prepHelpers,
// workHelpers): none for a step of one work item, one per work item
// beyond the first for a small step, every one for a large step.
func TestStepHelpers(t *testing.T) {
	b, err := New(narrow.Params{Method: narrow.MethodStandard}, WithWorkers(8))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	cube, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	id, err := b.RegisterShape(cube)
	if err != nil {
		t.Fatal(err)
	}
	batch := func(n int, gap float64) []narrow.Pair { return cubePairs(id, n, gap) }
	var res narrow.Result
	for _, tc := range []struct {
		name  string
		pairs []narrow.Pair
		tasks int // the work items expected
		want  int // the helpers expected
	}{
		{"one pair, apart", batch(1, 5), 0, 0},
		{"one pair, touching", batch(1, -0.1), 2, 1},
		{"three pairs", batch(3, -0.1), 6, 5},
		{"300 pairs", batch(300, -0.1), 600, 7},
	} {
		b.pool.wakeNS = 0 // the counts decide (see TestWakeGate)
		if err := b.Detect(context.Background(), tc.pairs, &res); err != nil {
			t.Fatal(err)
		}
		if res.Stats.Contacts == 0 && tc.tasks > 0 {
			t.Fatalf("%s: no contact", tc.name)
		}
		if len(b.tasks) != tc.tasks || b.pool.want != tc.want {
			t.Errorf("%s: %d work items and %d helpers woken, want %d and %d", tc.name, len(b.tasks), b.pool.want, tc.tasks, tc.want)
		}
	}
	// WithWakeAll, the benchmarks' baseline, wakes every helper.
	all, err := New(narrow.Params{Method: narrow.MethodStandard}, WithWorkers(8), WithWakeAll())
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close()
	if _, err := all.RegisterShape(cube); err != nil {
		t.Fatal(err)
	}
	if err := all.Detect(context.Background(), batch(1, -0.1), &res); err != nil {
		t.Fatal(err)
	}
	if all.pool.want != 7 {
		t.Errorf("WithWakeAll: %d helpers woken for one pair, want 7", all.pool.want)
	}
}

// cubePairs returns n pairs of the cube shape id, one above the other
// with the given gap (negative: overlapping), 10 apart along x.
func cubePairs(id narrow.ShapeID, n int, gap float64) []narrow.Pair {
	ps := make([]narrow.Pair, n)
	for i := range ps {
		x := 10 * float64(i)
		ps[i] = narrow.Pair{ID: uint64(i), A: id, B: id,
			PoseA: narrow.Pose{Pos: mgl64.Vec3{x, 0, 0}, Rot: mgl64.QuatIdent()},
			PoseB: narrow.Pose{Pos: mgl64.Vec3{x, 2 + gap, 0}, Rot: mgl64.QuatIdent()}}
	}
	return ps
}

// TestWakeGate: a step wakes no helper when the work helpers could share
// at the last step (pool.work) took less than wakeGate wake-ups
// (pool.wakeNS, measured when helpers are woken), except at every
// wakeProbe-th step; the results are those of one worker whatever the
// gate decides.
func TestWakeGate(t *testing.T) {
	cube, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	one, err := New(narrow.Params{}, WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	b, err := New(narrow.Params{}, WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var id narrow.ShapeID
	for _, be := range []*Backend{one, b} {
		if id, err = be.RegisterShape(cube); err != nil {
			t.Fatal(err)
		}
	}
	pairs := cubePairs(id, 300, -0.1)
	var want, got narrow.Result
	for k, tc := range []struct {
		name   string
		wakeNS int64 // set before the step (-1: leave as measured)
		probe  bool  // the step is a probe (steps%wakeProbe == 0)
		woken  int   // helpers the step wakes
	}{
		{"first step: cost unknown", 0, false, 1},
		{"as measured, after a step of work", -1, false, -1},
		{"wake-ups dearer than the work", 1 << 40, false, 0},
		{"wake-ups cheap", 1, false, 1},
		{"dear, but a probe", 1 << 40, true, 1},
	} {
		if tc.wakeNS >= 0 {
			b.pool.wakeNS = tc.wakeNS
		}
		b.steps = 1
		if tc.probe {
			b.steps = wakeProbe
		}
		if err := one.Detect(context.Background(), pairs, &want); err != nil {
			t.Fatal(err)
		}
		if err := b.Detect(context.Background(), pairs, &got); err != nil {
			t.Fatal(err)
		}
		switch {
		case tc.woken >= 0 && b.pool.want != tc.woken:
			t.Errorf("%s: %d helpers woken, want %d", tc.name, b.pool.want, tc.woken)
		case k == 0 && !(b.pool.wakeNS > 0 && b.work > 0):
			t.Errorf("%s: wake-up cost %d ns and work %d ns measured, want both > 0", tc.name, b.pool.wakeNS, b.work)
		}
		if !reflect.DeepEqual(want.Pairs, got.Pairs) || want.Stats != got.Stats {
			t.Errorf("%s: results differ from one worker's", tc.name)
		}
	}
}
