// Package cpubackend is the pure-Go narrow phase, the default Backend of
// irtcd. Each step it splits the batch into work items — pair × direction ×
// chunk of vertices, the CPU form of the two-index GPU grid of Lehericey et
// al. (2013, §3.5) — runs them on every core, and merges the results in a
// fixed order, so the output does not depend on GOMAXPROCS or scheduling.
//
// Per pair it runs the standard algorithm (narrow), or the iterative update
// (package iterative) while the pair's displacement since its last standard
// step stays under the threshold, with predictions (package predictive), and
// turns hits into contacts and manifolds (package reprojection); with
// narrow.Params.Speculative, predictions into speculative contacts too.
package cpubackend

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/reprojection"
)

// chunk is the number of vertices (or iterative rays) per work item; a
// multiple of narrow.VertexBlock so that items start on a block.
const chunk = 16 * narrow.VertexBlock

// pairBlock is how many pairs one work item of the per-pair passes
// (validation, decision, merge) takes: enough that handing items out costs
// little, few enough that a batch of thousands of pairs spreads over every
// worker. A batch of at most this many pairs is prepared and merged by the
// calling goroutine alone.
const pairBlock = 64

// clearBlocks is how many blocks of narrow.VertexBlock vertices a
// clearance search examines vertex by vertex before it gives up
// (narrow.Direction.Clearance). On the avalanche's pile one block saves
// most of what more would, and searches stay cheaper than the standard
// steps they replace when bodies approach (BenchmarkPhase, fall).
const clearBlocks = 1

// Option configures a Backend.
type Option func(*Backend)

// WithWorkers sets the number of goroutines (default GOMAXPROCS at New).
// A step wakes only the helpers it can use, but on many cores small
// scenes may do better with fewer: in one sweep on 16 Xeon cores, steps
// of about 200 pairs took 16 % less time on 8 workers than on 16, and
// steps of 36 pairs 15 % less on 4, while steps of 400 pairs and more
// were fastest on all 16 (docs/BENCHMARKS.md, "Steps too small to wake
// a helper").
func WithWorkers(n int) Option { return func(b *Backend) { b.workers = max(1, n) } }

// WithTracer makes the backend trace its standard rays through t, one
// batch per step (see Tracer), rather than on its own workers.
func WithTracer(t Tracer) Option { return func(b *Backend) { b.tracer = t } }

// WithLogger routes the backend's logs (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(b *Backend) { b.log = l } }

// Backend is the CPU narrow phase. Its methods are safe for concurrent use
// but are serialised (one engine step at a time); the work inside a step
// runs on every worker.
type Backend struct {
	params  narrow.Params
	workers int
	log     *slog.Logger

	mu     sync.Mutex
	closed bool
	shapes []*narrow.Shape
	travel []float64 // per shape ID: the odometer of its deformations (ReshapeShape, iterative.Rel.Travel)
	store  iterative.Store
	remap  map[*narrow.Shape]narrow.ShapeID // RestoreState's: the shapes' current IDs

	pool        *pool
	pairs       []narrow.Pair // the batch being prepared
	blocks      []*jobBlock   // the batch's jobs and their directions, pairBlock by pairBlock
	njobs       int           // jobs in the batch
	tasks       []task
	clears      []int32 // jobs whose clearance is sought this step
	reducers    []reprojection.Reducer
	cands       [][]int32            // per worker: the vertices a standard work item casts rays from
	edges       []narrow.EdgeScratch // per worker: the edge-on-edge tests' buffers
	sinks       []sink               // per worker: see doDecide
	times       narrow.DetectTimes   // of the last Detect that succeeded
	ids         map[uint64]int32     // batch index of this step's pairs without state
	idsCap      int                  // the number of IDs ids was made for
	fresh       []int32              // jobs whose state came from Store.New this step
	sums        []blockSum           // per block of pairBlock jobs: what merge gathered for the commit
	open        []int32              // per block of pairBlock jobs: the valid ones that doCheck did not claim a state for
	fill        *narrow.Result       // Detect's Result, which the commit fills in parallel (see doFill)
	fc, fp      []narrow.Contact     // fill's storage for contacts and manifold points
	fm          []narrow.Manifold    // fill's storage for manifolds
	runCheck    func(i, w int)
	runDecide   func(i, w int)
	runTask     func(i, w int)
	runMerge    func(i, w int)
	runClear    func(i, w int)
	runLayout   func(i, w int)
	runFill     func(i, w int)
	runCopy     func(i, w int)
	runSelf     func(i, w int)
	runStd      func(i, w int)
	runIter     func(i, w int)
	runSelfIter func(i, w int)
	runFinish   func(i, w int)
	tracer      Tracer
	batch       RayBatch                // with a tracer: the step's standard rays
	gather      bool                    // the step gathers its standard rays for the tracer (see smallStep)
	lastRays    int                     // the standard rays of the last step committed; -1: none yet
	order       []int32                 // with a tracer: the step's work items, standard ones first (see tracedTasks)
	nstd        int                     // with a tracer: how many of order are standard
	slots       map[*narrow.Shape]int32 // with a tracer: batch.Shapes index of each Dst shape
	noClear     bool                    // no clear path (tests: it must change no result)
	wakeAll     bool                    // wake every helper at a step's first phase of more than one item (benchmarks: the way before prepHelpers)
	work        int64                   // the last step's work that helpers could share, ns (pool.work); see gated
	steps       uint64                  // steps begun, for gated's probes
	alone       bool                    // the step wakes no helper (gated)
	allEdges    bool                    // search all edges at every step (tests: keeping pairs of edges must change no result)
	ctx         context.Context
	stop        atomic.Bool
}

// jobBlock holds the jobs of pairBlock consecutive batch indices and their
// directions. A batch that grows gets new blocks and leaves the jobs it has
// where they are: one array of jobs grown by append was copied whole, and
// allocating its megabytes while the garbage collector was marking made
// the step wait for the collection to finish (30 ms steps among 3 ms ones
// as the avalanche's pile formed; BENCHMARKS.md, "A growing batch").
type jobBlock struct {
	jobs [pairBlock]job
	dirs [pairBlock][2]narrow.Direction // set only for jobs that cast rays or search (job.dirs)
}

// job returns the job of batch index i.
func (b *Backend) job(i int) *job { return &b.blocks[uint(i)/pairBlock].jobs[uint(i)%pairBlock] }

// blockJobs returns the jobs of block k, batch indices k·pairBlock on.
func (b *Backend) blockJobs(k int) []job {
	return b.blocks[k].jobs[:min(pairBlock, b.njobs-k*pairBlock)]
}

// job is one pair of the batch. The fields that the merge and the commit
// read come first, with the pair's ID: those passes walk every job of the
// batch, so they then touch its first cache lines rather than lines all
// over it. Its directions live apart (jobBlock.dirs) and are set only when
// the step casts rays or seeks a clearance: on a pile at rest most pairs
// are iterative without a ray, and need only their relative placement.
type job struct {
	t0, t1    int // its tasks
	err       error
	st        *iterative.PairState
	contacts  []narrow.Contact
	manifolds []narrow.Manifold
	points    []narrow.Contact
	fresh     bool // st came from Store.New and is installed at commit
	decided   bool // decide ran for it this step
	iterative bool
	clearStep bool    // the step stands for a standard step: both directions are clear
	search    bool    // the decision waits for a clearance search (seek)
	failed    [2]bool // directions whose search failed (the step is standard)
	seek      [2]bool // directions whose clearance is sought before deciding
	pair      narrow.Pair
	res       *narrow.Resolved // the pair's parameters: its state's, or own
	own       narrow.Resolved  // the parameters of a pair without state (standard method)
	clear     [2]float64       // the clearances left or found (> 0: clear)
	a, b      *narrow.Shape
	dirs      *[2]narrow.Direction // nil unless set by setDirs this step
	rel       iterative.Rel        // the pair's relative placement this step
	gapMax    float64              // speculative contacts with wider gaps are not returned (see speculativeGap)
}

// A speculative contact is returned only if its gap could close within a
// step: if it is at most speculativeGrowth times the pair's relative
// displacement over its last step with work (Eq. 2's bound, since
// iterative.PairState.Last; an overestimate when that step was longer
// ago), which allows the speed to double, plus speculativeSlack ×
// DisplacementThreshold, which lets a pair at rest start to move. A pair
// without such a step returns all its predictions.
const (
	speculativeGrowth = 2
	speculativeSlack  = 0.1
)

// speculativeGap sets j.gapMax for a pair with state.
func (j *job) speculativeGap() {
	_, _, _, rA := j.a.BoundingSphere()
	_, _, _, rB := j.b.BoundingSphere()
	j.gapMax = math.Inf(1)
	if d, ok := j.st.Moved(&j.rel, rA, rB); ok {
		j.gapMax = speculativeGrowth*d + speculativeSlack*j.res.DisplacementThreshold
	}
}

// task is one work item: a range of vertices (standard step) or of rays
// (iterative step) of one direction of one job.
type task struct {
	job      int32
	dir      uint8
	lo, hi   int32
	contacts []narrow.Contact
	rays     []iterative.Ray
	stats    narrow.Stats
	pend     []pending // with a tracer: the standard rays waiting for the batch
	b0       int32     // with a tracer: the batch index of the first of them traced
	nq       int32     // with a tracer: how many of them are traced
	slot     int32     // with a tracer: the batch's index of the shape they are cast on
}

// pending is a standard ray gathered for the tracer's batch: its query
// and what StandardQuery said of it.
type pending struct {
	q           narrow.RayQuery
	v           int32
	used, trace bool
}

// New returns a CPU backend with the given parameters.
func New(p narrow.Params, opts ...Option) (*Backend, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	b := &Backend{params: p, workers: runtime.GOMAXPROCS(0), log: slog.Default(), ids: make(map[uint64]int32), lastRays: -1}
	for _, o := range opts {
		o(b)
	}
	b.runCheck = b.doCheck
	b.runDecide = b.doDecide
	b.runTask = b.doTask
	b.runMerge = b.doMerge
	b.runClear = b.doClear
	b.runLayout = b.doLayout
	b.runFill = b.doFill
	b.runCopy = func(i, w int) { b.doCopy(int(b.order[i]), w) }
	b.runSelf = b.doSelf
	b.runStd = func(i, w int) { b.doTask(int(b.order[i]), w) }
	b.runIter = func(i, w int) { b.doTask(int(b.order[b.nstd+i]), w) }
	b.runSelfIter = func(i, w int) {
		if i < b.nstd {
			b.doSelf(int(b.order[i]), w)
		} else {
			b.doTask(int(b.order[i]), w)
		}
	}
	b.runFinish = func(i, w int) { b.doFinish(int(b.order[i]), w) }
	b.slots = make(map[*narrow.Shape]int32)
	b.reducers = make([]reprojection.Reducer, b.workers)
	b.cands = make([][]int32, b.workers)
	b.edges = make([]narrow.EdgeScratch, b.workers)
	b.sinks = make([]sink, b.workers)
	b.pool = newPool(b.workers)
	return b, nil
}

// Params returns the backend's parameters.
func (b *Backend) Params() narrow.Params { return b.params }

// RegisterShape makes s available to pairs under the returned ID.
func (b *Backend) RegisterShape(s *narrow.Shape) (narrow.ShapeID, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return -1, narrow.ErrBackendClosed
	}
	if s == nil {
		return -1, fmt.Errorf("%w: nil shape", narrow.ErrUnknownShape)
	}
	if s.Open() {
		return -1, fmt.Errorf("%w: a surface (narrow.NewSurface) has no inside for ray-traced contacts", narrow.ErrOpenBoundary)
	}
	b.shapes = append(b.shapes, s)
	b.travel = append(b.travel, 0)
	return narrow.ShapeID(len(b.shapes) - 1), nil
}

// ReshapeShape replaces shape id by s, a deformation of it (see
// narrow.Reshaper): the pairs that name id keep their temporal state, and
// Eq. 2 adds how far the vertices moved (the farthest vertex's distance,
// narrow.Shape.MaxDisplacement, summed over the deformations since a
// pair's last standard step).
func (b *Backend) ReshapeShape(id narrow.ShapeID, s *narrow.Shape) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	old := b.Shape(id)
	switch {
	case old == nil:
		return fmt.Errorf("%w: id %d", narrow.ErrUnknownShape, id)
	case s == nil || !s.SameTopology(old):
		return fmt.Errorf("%w: shape %d can only be replaced by a deformation of it (the same triangles over as many vertices)", narrow.ErrBadParams, id)
	}
	b.travel[id] += s.MaxDisplacement(old)
	b.shapes[id] = s
	return nil
}

// UnregisterShape releases shape id (see narrow.Backend). Its slot stays
// taken (IDs are not reused); the states of pairs that named it are dropped
// when those pairs leave the batch, as any pair's.
func (b *Backend) UnregisterShape(id narrow.ShapeID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	if b.Shape(id) == nil {
		return fmt.Errorf("%w: id %d", narrow.ErrUnknownShape, id)
	}
	b.shapes[id] = nil
	return nil
}

// Shape returns a registered shape, or nil.
func (b *Backend) Shape(id narrow.ShapeID) *narrow.Shape {
	if id < 0 || int(id) >= len(b.shapes) {
		return nil
	}
	return b.shapes[id]
}

// Reset forgets every pair's temporal state: the next step of each pair is
// a standard step.
func (b *Backend) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.store.Forget()
	b.lastRays = -1 // every pair's next step is standard: a large batch
}

// Close stops the workers. Later calls fail with narrow.ErrBackendClosed.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.closed = true
		b.pool.close()
	}
	return nil
}

// Detect runs one step on a batch of pairs. See narrow.Backend.
func (b *Backend) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	if res == nil {
		return fmt.Errorf("%w: Detect needs a non-nil *narrow.Result", narrow.ErrBadParams)
	}
	res.Reset()
	return b.detect(ctx, pairs, res, &res.Stats, res)
}

// DetectTo runs one step as Detect does, but hands each pair's outcome to
// w, in batch order, instead of appending it to a Result, and sets *st to
// the step's statistics. When the step fails as a whole, w gets nothing
// and *st is zero (or, for an invalid call, untouched).
func (b *Backend) DetectTo(ctx context.Context, pairs []narrow.Pair, w narrow.ResultWriter, st *narrow.Stats) error {
	return b.detect(ctx, pairs, w, st, nil)
}

// detect is DetectTo. With fill set (Detect: w is fill, which was reset),
// the commit writes the pairs' outcomes into fill on every worker
// (doFill) rather than through w.Append in batch order on one: the
// same Result, since every pair's place in fill's storage follows from
// the sizes of those before it.
func (b *Backend) detect(ctx context.Context, pairs []narrow.Pair, w narrow.ResultWriter, st *narrow.Stats, fill *narrow.Result) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	if w == nil || st == nil {
		return fmt.Errorf("%w: DetectTo needs a ResultWriter and a *narrow.Stats", narrow.ErrBadParams)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	*st = narrow.Stats{}
	t0 := time.Now()
	defer b.pool.end() // the phases open the pool's session
	if b.params.Method != narrow.MethodStandard {
		b.store.BeginBatch(len(pairs)) // doCheck claims states by batch index
	}
	b.alone = b.gated()
	b.steps++
	b.pool.want = 0 // no session is open: the step's first wakes helpers
	b.pool.work.Store(0)
	defer func() { b.work = b.pool.work.Load() }()
	b.pool.size = b.prepHelpers(len(pairs))
	b.prepare(pairs)
	b.pool.grow(b.workHelpers())

	b.ctx = ctx
	b.stop.Store(false)
	t1 := time.Now()
	var stepErr error
	var batch time.Duration
	b.gather = b.tracer != nil && !b.smallStep()
	if b.gather {
		batch, stepErr = b.tracedTasks(ctx)
		if stepErr != nil {
			b.stop.Store(true)
		}
	} else {
		b.pool.run(len(b.tasks), b.runTask)
	}
	t2 := time.Now()
	if !b.stop.Load() {
		b.pool.run((b.njobs+pairBlock-1)/pairBlock, b.runMerge)
	}
	b.ctx = nil
	if b.stop.Load() {
		// Nothing was committed: hand back the states made for new pairs.
		for _, i := range b.fresh {
			j := b.job(int(i))
			b.store.Release(j.st)
			j.st, j.fresh = nil, false
		}
		if stepErr != nil {
			return stepErr
		}
		return ctx.Err()
	}

	// Commit: from here on nothing can fail.
	var sum narrow.Stats
	sum.Pairs = len(pairs)
	var nc, nm, np int
	for k := range b.sums {
		s := &b.sums[k]
		sum.Add(&s.stats)
		s.c0, s.m0, s.p0 = nc, nm, np
		nc, nm, np = nc+s.contacts, nm+s.manifolds, np+s.points
	}
	b.lastRays = sum.StandardRays
	for _, i := range b.fresh {
		j := b.job(int(i))
		b.store.Put(int(i), j.pair.ID, j.st)
	}
	if fill != nil {
		b.fc, b.fm, b.fp = fill.Alloc(b.njobs, nc, nm, np)
		b.fill = fill
		b.pool.run(len(b.sums), b.runFill)
		b.fill, b.fc, b.fm, b.fp = nil, nil, nil, nil
	} else {
		for i := range b.njobs {
			j := b.job(i)
			if j.err != nil {
				w.Append(j.pair.ID, nil, nil, false, j.err)
			} else {
				w.Append(j.pair.ID, j.contacts, j.manifolds, j.iterative, nil)
			}
		}
	}
	*st = sum
	b.store.Sweep()
	t3 := time.Now()
	b.times = narrow.DetectTimes{Prepare: t1.Sub(t0), Rays: t2.Sub(t1), Batch: batch, Finish: t3.Sub(t2)}
	if b.log.Enabled(ctx, slog.LevelDebug) {
		b.log.DebugContext(ctx, "irtcd step", "pairs", st.Pairs, "standard", st.StandardPairs,
			"iterative", st.IterativePairs, "failed", st.FailedPairs, "rays", st.Rays(), "contacts", st.Contacts)
	}
	// Rejected pairs are reported in their PairResult; a log line per step
	// and pair would flood the log of an engine that keeps sending one.
	if st.FailedPairs > 0 && b.log.Enabled(ctx, slog.LevelDebug) {
		for i := range b.njobs {
			if err := b.job(i).err; err != nil {
				b.log.DebugContext(ctx, "irtcd: pair rejected", "err", err)
			}
		}
	}
	return nil
}

var _ narrow.Timed = (*Backend)(nil)

// LastDetectTimes returns where the time of the last Detect (or DetectTo)
// that succeeded went (narrow.Timed): its work items are the Rays part.
func (b *Backend) LastDetectTimes() narrow.DetectTimes {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.times
}

// prepHelpers returns how many helpers the per-pair passes of a step of n
// pairs wake (prepare; see pool.grow): one per block of pairs beyond the
// first, since a block is one item of those passes. A step of a few
// hundred pairs thus leaves most helpers parked through its short
// per-pair passes, where helpers that find no item only compete for the
// phase's counters; on 16 cores (BENCHMARKS, "Multi-core") steps of 204
// and 424 pairs took 6 and 9 % less time than with every helper woken. A
// step that runs alone (gated) wakes none.
func (b *Backend) prepHelpers(n int) int {
	if b.alone {
		return 0
	}
	if b.wakeAll {
		return b.workers - 1
	}
	return min(b.workers-1, (n-1)/pairBlock)
}

// gated reports whether a step wakes no helper at all: when the work
// that helpers could share at the last step (the items of its phases of
// more than one item, pool.work) took less than wakeGate times what
// waking one helper costs the caller (pool.wakeNS, measured at each
// wake-up). On this repository's 2-core virtual machine a wake-up costs
// the caller about 29 µs, and a helper joins late: the 100 tori's steps
// (about 300 pairs, 0.3 ms) took 20 % longer with the helper woken than
// on the caller alone, and as long when it never parked (docs/
// BENCHMARKS.md, "Steps too small to wake a helper"). Every
// wakeProbe-th step wakes helpers as the counts say, which measures the
// wake-up's cost again. The step's results do not depend on it.
func (b *Backend) gated() bool {
	return !b.wakeAll && b.pool.wakeNS > 0 && b.work < wakeGate*b.pool.wakeNS && b.steps%wakeProbe != 0
}

// wakeGate and wakeProbe tune gated.
const (
	wakeGate  = 16
	wakeProbe = 256
)

// workHelpers returns how many helpers the step's work items wake: one
// per work item beyond the caller's, up to every helper; none for a step
// that runs alone (gated). With wakeAll it wakes none: the session the
// first phase of more than one item opens wakes every helper (pool.size),
// as before.
func (b *Backend) workHelpers() int {
	if b.alone || b.wakeAll {
		return 0
	}
	return min(b.workers-1, len(b.tasks)-1)
}
