package cpubackend_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// goTracer answers a batch with narrow.Shape.TraceQuery, last query
// first, with the traversal other than the backend's: a tracer that shares
// nothing with the backend's own path but the query's rules. It fails the
// call whose number is failAt (counting from 1), if set.
type goTracer struct {
	trav          narrow.Traversal
	calls, failAt int
	rays          int
	decline       bool // fail every call with an error wrapping ErrTraceHere
	// cancel, if set, is called by the call whose number is cancelAt
	// (with an asyncTracer, by its Start, before the iterative items).
	cancel   context.CancelFunc
	cancelAt int
}

var errTracer = errors.New("tracer failed")

func (g *goTracer) Trace(_ context.Context, b *cpubackend.RayBatch) error {
	g.calls++
	if g.calls == g.cancelAt && g.cancel != nil {
		g.cancel()
	}
	if g.calls == g.failAt {
		return errTracer
	}
	if g.decline {
		return fmt.Errorf("device lost: %w", cpubackend.ErrTraceHere)
	}
	if len(b.Dst) != len(b.Queries) || len(b.Fwd) != len(b.Queries) || len(b.Bwd) != len(b.Queries) {
		return fmt.Errorf("batch of %d queries with %d shapes indices, %d and %d hits", len(b.Queries), len(b.Dst), len(b.Fwd), len(b.Bwd))
	}
	for i := len(b.Queries) - 1; i >= 0; i-- {
		b.Fwd[i], b.Bwd[i] = b.Shapes[b.Dst[i]].TraceQuery(&b.Queries[i], g.trav)
	}
	g.rays += len(b.Queries)
	return nil
}

// asyncTracer is a goTracer behind cpubackend.AsyncTracer: Start hands
// the batch to a goroutine of its own, which traces it while the backend
// runs its iterative work items, and Wait waits for it. It checks that
// the backend pairs every Start with a Wait.
type asyncTracer struct {
	goTracer
	req     chan *cpubackend.RayBatch
	done    chan error
	started bool
	starts  int
}

func newAsyncTracer(t testing.TB, g goTracer) *asyncTracer {
	a := &asyncTracer{goTracer: g, req: make(chan *cpubackend.RayBatch), done: make(chan error)}
	go func() {
		for b := range a.req {
			a.done <- a.goTracer.Trace(context.Background(), b)
		}
	}()
	t.Cleanup(func() { close(a.req) })
	return a
}

func (a *asyncTracer) Start(_ context.Context, b *cpubackend.RayBatch) error {
	if a.started {
		return errors.New("asyncTracer: Start before the last batch's Wait")
	}
	a.started = true
	a.starts++
	if a.calls+1 == a.cancelAt && a.cancel != nil {
		a.cancel()
	}
	a.req <- b
	return nil
}

func (a *asyncTracer) Wait() error {
	if !a.started {
		return errors.New("asyncTracer: Wait without Start")
	}
	a.started = false
	return <-a.done
}

// tracers returns a goTracer of traversal trav, and the same behind
// cpubackend.AsyncTracer, by name.
func tracers(t testing.TB, g goTracer) map[string]func() (cpubackend.Tracer, *goTracer) {
	return map[string]func() (cpubackend.Tracer, *goTracer){
		"sync": func() (cpubackend.Tracer, *goTracer) {
			tr := g
			return &tr, &tr
		},
		"async": func() (cpubackend.Tracer, *goTracer) {
			a := newAsyncTracer(t, g)
			return a, &a.goTracer
		},
	}
}

// minTracer is a goTracer that asks for batches of at least min rays
// (cpubackend.MinBatcher) and fails any smaller one it is handed.
type minTracer struct {
	goTracer
	min     int
	smaller int // batches it was handed below min
}

func (m *minTracer) MinBatch() int { return m.min }

func (m *minTracer) Trace(ctx context.Context, b *cpubackend.RayBatch) error {
	if len(b.Queries) < m.min {
		m.smaller++
		return fmt.Errorf("a batch of %d rays, under the minimum %d", len(b.Queries), m.min)
	}
	return m.goTracer.Trace(ctx, b)
}

// TestTracerMinBatch checks that the backend traces the batches under a
// MinBatcher's minimum on its own workers: the tracer gets only the
// larger ones, and every step's Result is the backend's own. Steps after
// one under the minimum run as without a tracer (smallStep); a step that
// gathers a batch and finds it small traces it on the workers; both
// happen, and so do batches sent to the tracer.
func TestTracerMinBatch(t *testing.T) {
	sh := btLoad(t)
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 60, 12)
	for k, n := range []int{6, 8, 50, 55, 60, 10, 6, 58, 60, 8, 55, 60} {
		// Batches that grow and shrink across the minimum.
		batch[k] = batch[k][:min(len(batch[k]), n)]
	}
	for _, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: narrow.MethodPredictive}} {
		t.Run(p.Method.String(), func(t *testing.T) {
			probe := &goTracer{}
			seen, _ := btNew(t, sh, p, cpubackend.WithTracer(probe))
			var res narrow.Result
			var sizes []int
			for _, pairs := range batch {
				rays := probe.rays
				btDetect(t, seen, pairs, &res)
				sizes = append(sizes, probe.rays-rays)
			}
			sorted := slices.Clone(sizes)
			slices.Sort(sorted)
			tr := &minTracer{min: sorted[len(sorted)/2] + 1}
			own, _ := btNew(t, sh, p)
			traced, _ := btNew(t, sh, p, cpubackend.WithTracer(tr))
			var inline, small, sent int
			sameSteps(t, own, traced, batch, nil)
			// Again, step by step, to see which way each went (the
			// Results were checked above).
			traced2, _ := btNew(t, sh, p, cpubackend.WithTracer(tr))
			for k, pairs := range batch {
				calls := tr.calls
				btDetect(t, traced2, pairs, &res)
				switch {
				case !traced2.Gathered():
					inline++
				case tr.calls > calls:
					sent++
				case sizes[k] > 0:
					small++
				}
			}
			if tr.smaller != 0 || inline == 0 || small == 0 || sent == 0 {
				t.Fatalf("batches of %v rays, minimum %d: %d calls under the minimum; %d steps without a batch, %d traced on the workers, %d sent", sizes, tr.min, tr.smaller, inline, small, sent)
			}
			t.Logf("batches of %v rays, minimum %d: %d steps without a batch, %d traced on the workers, %d sent", sizes, tr.min, inline, small, sent)
		})
	}
}

// TestTracerSameResult checks the backend's batched path: with a Tracer,
// every step's Result (contacts, manifolds, statistics) is the one the
// backend computes on its own, for each method, with speculative
// contacts, with the papers' culling and the basic traversal, over 160
// scripted 3D pairs and the 2D pairs of btGoodPairs; and a steady-state
// step through the tracer allocates nothing.
func TestTracerSameResult(t *testing.T) {
	sh := btLoad(t)
	steps := 16
	if testing.Short() {
		steps = 6
	}
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 160, steps)
	for k := range batch {
		batch[k] = append(batch[k], btGoodPairs(sh, ids, k)...)
	}
	for _, p := range []narrow.Params{
		{Method: narrow.MethodStandard},
		{Method: narrow.MethodIterative},
		{Method: narrow.MethodPredictive},
		{Method: narrow.MethodPredictive, Speculative: true},
		{Method: narrow.MethodPredictive, Culling: narrow.CullBoxes, Traversal: narrow.TraversalBasic},
	} {
		g := goTracer{trav: narrow.TraversalBasic}
		if p.Traversal == narrow.TraversalBasic {
			g.trav = narrow.TraversalBVH
		}
		for _, kind := range []string{"sync", "async"} {
			name := fmt.Sprintf("%v/speculative=%v/%v/%v/%s", p.Method, p.Speculative, p.Culling, p.Traversal, kind)
			t.Run(name, func(t *testing.T) {
				tracer, tr := tracers(t, g)[kind]()
				own, _ := btNew(t, sh, p, cpubackend.WithWorkers(3))
				traced, _ := btNew(t, sh, p, cpubackend.WithWorkers(2), cpubackend.WithTracer(tracer))
				var want, got narrow.Result
				var sum narrow.Stats
				var batched time.Duration
				for k, pairs := range batch {
					btDetect(t, own, pairs, &want)
					btDetect(t, traced, pairs, &got)
					if !btSameResult(t, fmt.Sprintf("step %d", k), &want, &got) {
						return
					}
					sum.Add(&want.Stats)
					if b := own.LastDetectTimes().Batch; b != 0 {
						t.Fatalf("step %d: a batch time of %v without a tracer", k, b)
					}
					batched += traced.LastDetectTimes().Batch
				}
				if batched <= 0 {
					t.Error("no batch time with a tracer")
				}
				if tr.rays == 0 || sum.Contacts == 0 || p.Method != narrow.MethodStandard && sum.IterativePairs == 0 {
					t.Fatalf("the batch exercises too little: %d rays traced, %+v", tr.rays, sum)
				}
				t.Logf("%d steps, %d tracer calls, %d rays traced; %+v", len(batch), tr.calls, tr.rays, sum)
				for range 2 { // warm-up: the work items' buffers grow to their size
					for _, pairs := range batch {
						btDetect(t, traced, pairs, &got)
					}
				}
				ctx := context.Background()
				k := 0
				allocs := testing.AllocsPerRun(2*len(batch), func() {
					if err := traced.Detect(ctx, batch[k%len(batch)], &got); err != nil {
						panic(err)
					}
					k++
				})
				if allocs != 0 {
					t.Errorf("%v allocations per steady-state step with a tracer, want 0", allocs)
				}
				if a, ok := tracer.(*asyncTracer); ok && (a.starts == 0) != (p.Method == narrow.MethodStandard) {
					t.Errorf("%d batches started asynchronously: want some with iterative steps, none without", a.starts)
				}
			})
		}
	}
}

// sameSteps runs the steps of batch on control and on subject and checks
// that every step's Result is the same; before, if set, runs before each
// step on subject.
func sameSteps(t *testing.T, control, subject *cpubackend.Backend, batch [][]narrow.Pair, before func(k int, pairs []narrow.Pair)) {
	t.Helper()
	var want, got narrow.Result
	for k, pairs := range batch {
		if before != nil {
			before(k, pairs)
		}
		btDetect(t, control, pairs, &want)
		btDetect(t, subject, pairs, &got)
		if !btSameResult(t, fmt.Sprintf("step %d", k), &want, &got) {
			return
		}
	}
}

// TestTracerErrorFailsStep checks that a tracer's error fails the step as
// a whole: Detect returns it wrapped, nothing is committed, and the steps
// after it equal those of a backend that never took the failed step.
func TestTracerErrorFailsStep(t *testing.T) {
	sh := btLoad(t)
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 40, 6)
	for kind, mk := range tracers(t, goTracer{}) {
		t.Run(kind, func(t *testing.T) {
			control, _ := btNew(t, sh, narrow.Params{})
			tracer, tr := mk()
			victim, _ := btNew(t, sh, narrow.Params{}, cpubackend.WithTracer(tracer))
			sameSteps(t, control, victim, batch, func(k int, pairs []narrow.Pair) {
				if k != 2 {
					return
				}
				tr.failAt = tr.calls + 1
				var res narrow.Result
				if err := victim.Detect(context.Background(), pairs, &res); !errors.Is(err, errTracer) {
					t.Fatalf("step %d: Detect returned %v, want the tracer's error", k, err)
				}
			})
			if tr.rays == 0 {
				t.Fatal("no ray was traced")
			}
		})
	}
}

// TestTracerCancel checks that a context cancelled while the tracer has
// the batch (during Trace, or between Start and Wait) fails the step as
// a whole: Detect returns the context's error after the tracer is done
// with the batch, nothing is committed, and the steps after it equal
// those of a backend that never took the cancelled step.
func TestTracerCancel(t *testing.T) {
	sh := btLoad(t)
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 40, 8)
	// With the standard method no work item runs after the tracer: only
	// the backend's own check sees the cancellation; with prediction the
	// iterative items run during or after it.
	for _, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: narrow.MethodPredictive}} {
		for kind, mk := range tracers(t, goTracer{}) {
			t.Run(fmt.Sprintf("%v/%s", p.Method, kind), func(t *testing.T) {
				control, _ := btNew(t, sh, p)
				// The probe finds a step that hands the tracer a batch
				// (and, with prediction, has iterative pairs too).
				seen := &goTracer{}
				probe, _ := btNew(t, sh, p, cpubackend.WithTracer(seen))
				tracer, tr := mk()
				victim, _ := btNew(t, sh, p, cpubackend.WithTracer(tracer))
				cancelled := 0
				var res narrow.Result
				sameSteps(t, control, victim, batch, func(k int, pairs []narrow.Pair) {
					calls := seen.calls
					btDetect(t, probe, pairs, &res)
					if cancelled > 0 || seen.calls == calls || p.Method != narrow.MethodStandard && res.Stats.IterativePairs == 0 {
						return
					}
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					tr.cancel, tr.cancelAt = cancel, tr.calls+1
					var got narrow.Result
					if err := victim.Detect(ctx, pairs, &got); !errors.Is(err, context.Canceled) {
						t.Fatalf("step %d: Detect returned %v, want context.Canceled", k, err)
					}
					if tr.calls != tr.cancelAt {
						t.Fatalf("step %d: the tracer was called %d times, want %d", k, tr.calls, tr.cancelAt)
					}
					cancelled++
				})
				if cancelled == 0 {
					t.Fatal("no step fit")
				}
			})
		}
	}
}

// TestTracerFallback checks that a tracer that declines its batches
// (ErrTraceHere) leaves the backend to trace them: every step succeeds
// with the backend's own Result.
func TestTracerFallback(t *testing.T) {
	sh := btLoad(t)
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 40, 6)
	for k := range batch {
		batch[k] = append(batch[k], btGoodPairs(sh, ids, k)...)
	}
	for kind, mk := range tracers(t, goTracer{decline: true}) {
		t.Run(kind, func(t *testing.T) {
			own, _ := btNew(t, sh, narrow.Params{})
			tracer, tr := mk()
			fallback, _ := btNew(t, sh, narrow.Params{}, cpubackend.WithTracer(tracer), cpubackend.WithLogger(slog.New(slog.DiscardHandler)))
			sameSteps(t, own, fallback, batch, nil)
			if tr.calls == 0 {
				t.Fatal("the tracer was never called")
			}
		})
	}
}
