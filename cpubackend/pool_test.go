package cpubackend

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

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
		p.run(100, func(i, w int) { work(1000) })
		p.end()
		deadline := time.Now().Add(5 * time.Second)
		for p.awake.Load() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: %d helpers still awake 5 s after the session ended", round, p.awake.Load())
			}
			time.Sleep(100 * time.Microsecond)
		}
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
