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
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/predictive"
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
	store  iterative.Store

	pool      *pool
	pairs     []narrow.Pair // the batch being prepared
	blocks    []*jobBlock   // the batch's jobs and their directions, pairBlock by pairBlock
	njobs     int           // jobs in the batch
	tasks     []task
	clears    []int32 // jobs whose clearance is sought this step
	reducers  []reprojection.Reducer
	cands     [][]int32            // per worker: the vertices a standard work item casts rays from
	edges     []narrow.EdgeScratch // per worker: the edge-on-edge tests' buffers
	sinks     []sink               // per worker: see doDecide
	times     narrow.DetectTimes   // of the last Detect that succeeded
	ids       map[uint64]int32     // batch index of this step's pairs without state
	fresh     []int32              // jobs whose state came from Store.New this step
	sums      []blockSum           // per block of pairBlock jobs: what merge gathered for the commit
	open      []int32              // per block of pairBlock jobs: the valid ones that doCheck did not claim a state for
	fill      *narrow.Result       // Detect's Result, which the commit fills in parallel (see doFill)
	fc, fp    []narrow.Contact     // fill's storage for contacts and manifold points
	fm        []narrow.Manifold    // fill's storage for manifolds
	runCheck  func(i, w int)
	runDecide func(i, w int)
	runTask   func(i, w int)
	runMerge  func(i, w int)
	runClear  func(i, w int)
	runLayout func(i, w int)
	runFill   func(i, w int)
	runFinish func(i, w int)
	runCopy   func(i, w int)
	runSelf   func(i, w int)
	tracer    Tracer
	batch     RayBatch                // with a tracer: the step's standard rays
	slots     map[*narrow.Shape]int32 // with a tracer: batch.Shapes index of each Dst shape
	noClear   bool                    // no clear path (tests: it must change no result)
	wakeAll   bool                    // wake every helper at a step's first phase of more than one item (benchmarks: the way before prepHelpers)
	allEdges  bool                    // search all edges at every step (tests: keeping pairs of edges must change no result)
	ctx       context.Context
	stop      atomic.Bool
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
	b := &Backend{params: p, workers: runtime.GOMAXPROCS(0), log: slog.Default(), ids: make(map[uint64]int32)}
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
	b.runFinish = b.doFinish
	b.runCopy = b.doCopy
	b.runSelf = b.doSelf
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
	b.shapes = append(b.shapes, s)
	return narrow.ShapeID(len(b.shapes) - 1), nil
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
	b.pool.size = b.prepHelpers(len(pairs))
	b.prepare(pairs)
	b.pool.grow(b.workHelpers())

	b.ctx = ctx
	b.stop.Store(false)
	t1 := time.Now()
	b.pool.run(len(b.tasks), b.runTask)
	var stepErr error
	var batch time.Duration
	if b.tracer != nil && !b.stop.Load() {
		tb := time.Now()
		stepErr = b.traceBatch(ctx)
		batch = time.Since(tb)
		if stepErr != nil {
			b.stop.Store(true)
		} else {
			b.pool.run(len(b.tasks), b.runFinish)
		}
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
// and 424 pairs took 6 and 9 % less time than with every helper woken.
func (b *Backend) prepHelpers(n int) int {
	if b.wakeAll {
		return b.workers - 1
	}
	return min(b.workers-1, (n-1)/pairBlock)
}

// workHelpers returns how many helpers the step's work items wake: one
// per work item beyond the caller's, up to every helper. With wakeAll it
// wakes none: the session the first phase of more than one item opens
// wakes every helper (pool.size), as before.
func (b *Backend) workHelpers() int {
	if b.wakeAll {
		return 0
	}
	return min(b.workers-1, len(b.tasks)-1)
}

// prepare validates the pairs, decides standard or iterative per pair and
// lays out the work items. What each pair needs alone (validation, the
// decision) runs on every worker; the store lookups, which also find
// duplicate IDs, and the layout run in batch order. A pair that fails
// Eq. 2 but may be clear in both directions gets its clearance searches
// (run on every worker) before the decision is final (see decide).
func (b *Backend) prepare(pairs []narrow.Pair) {
	clear(b.ids)
	b.fresh = b.fresh[:0]
	n := len(pairs)
	blocks := (n + pairBlock - 1) / pairBlock
	for len(b.blocks) < blocks {
		b.blocks = append(b.blocks, new(jobBlock))
	}
	b.njobs = n
	if cap(b.sums) < blocks {
		b.sums = make([]blockSum, blocks)
		b.open = make([]int32, blocks)
	}
	b.sums, b.open = b.sums[:blocks], b.open[:blocks]
	b.pairs = pairs
	b.pool.run(blocks, b.runCheck)
	b.pairs = nil
	keep := b.params.Method != narrow.MethodStandard
	anyOpen := false
	for k, open := range b.open {
		if open == 0 {
			continue // every valid pair of the block has its claimed state
		}
		anyOpen = true
		js := b.blockJobs(k)
		for x := range js {
			j, i := &js[x], k*pairBlock+x
			if j.err != nil || j.st != nil {
				continue
			}
			if err := b.identify(j, i); err != nil {
				j.err = &narrow.PairError{ID: j.pair.ID, Err: err}
				continue
			}
			if keep && j.st == nil { // identify found none
				j.st, j.fresh = b.store.New(j.pair.A, j.pair.B), true
				b.fresh = append(b.fresh, int32(i))
			}
		}
	}
	if anyOpen {
		b.pool.run(blocks, b.runDecide)
	}
	// Each block's tasks go after those of the blocks before it
	// (doLayout); the jobs that wait for a clearance search are laid out
	// after the search, at the end (a job's tasks need only be
	// contiguous).
	b.clears = b.clears[:0]
	nt := 0
	for k := range b.sums {
		s := &b.sums[k]
		s.t0 = nt
		nt += s.tasks
		if s.searches == 0 {
			continue
		}
		js := b.blockJobs(k)
		for x := range js {
			if j := &js[x]; j.err == nil && j.search {
				b.clears = append(b.clears, int32(k*pairBlock+x))
			}
		}
	}
	if cap(b.tasks) < nt {
		b.tasks = append(b.tasks[:cap(b.tasks)], make([]task, nt-cap(b.tasks))...)
	}
	b.tasks = b.tasks[:nt] // keeping the slots' buffers
	b.pool.run(blocks, b.runLayout)
	if len(b.clears) > 0 {
		b.pool.run(len(b.clears), b.runClear)
		for _, i := range b.clears {
			j := b.job(int(i))
			j.clearStep = j.clear[0] > 0 && j.clear[1] > 0
			j.iterative = j.clearStep
			for d := range j.failed {
				j.failed[d] = j.seek[d] && j.clear[d] <= 0
			}
			nt = b.layout(j, int(i), nt)
		}
	}
	b.tasks = b.tasks[:nt]
}

// doLayout lays out the work items of the jobs of block k that do not wait
// for a clearance search, from the block's first task on.
func (b *Backend) doLayout(k, _ int) {
	nt := b.sums[k].t0
	js := b.blockJobs(k)
	for x := range js {
		switch j := &js[x]; {
		case j.err != nil:
			j.t0, j.t1 = nt, nt
		case !j.search:
			nt = b.layout(j, k*pairBlock+x, nt)
		}
	}
}

// countTasks records, for block k whose jobs are all decided, how many
// work items its jobs lay out before the searches, and how many of them
// wait for a clearance search.
func (b *Backend) countTasks(k int) {
	s := &b.sums[k]
	s.tasks, s.searches = 0, 0
	js := b.blockJobs(k)
	for x := range js {
		switch j := &js[x]; {
		case j.err != nil:
		case j.search:
			s.searches++
		default:
			s.tasks += b.tasksOf(j)
		}
	}
}

// tasksOf returns the number of work items layout lays out for a decided
// job that does not wait for a search.
func (b *Backend) tasksOf(j *job) int {
	if j.dirs == nil {
		return 0
	}
	return (j.items(0)+chunk-1)/chunk + (j.items(1)+chunk-1)/chunk
}

// items returns how many vertices (standard step) or rays (iterative
// step) direction d of a job with directions has to go through: none for
// a standard step whose culling box is empty.
func (j *job) items(d int) int {
	switch {
	case j.iterative:
		return len(j.st.Rays[d])
	case j.dirs[d].Cull.Empty():
		return 0
	}
	return j.dirs[d].Src.NumVertices()
}

// doCheck resets and validates the jobs of one block of the batch and,
// for a method that keeps temporal state, claims the states that the last
// step's order predicts (iterative.Store.Claim), which leaves the lookups
// in batch order (identify) only the pairs that are new or moved. It
// counts those in b.open.
//
// A claimed pair is then decided at once (decideBlock), while its job is
// in this worker's cache; the others are decided after identify.
func (b *Backend) doCheck(k, w int) {
	open, h := int32(0), -1
	js := b.blockJobs(k)
	for x := range js {
		j, i := &js[x], k*pairBlock+x
		j.pair, j.err, j.st, j.fresh, j.iterative = b.pairs[i], nil, nil, false, false
		j.clearStep, j.search, j.seek, j.failed = false, false, [2]bool{}, [2]bool{}
		j.contacts, j.manifolds, j.points = j.contacts[:0], j.manifolds[:0], j.points[:0]
		j.dirs, j.decided = nil, false
		if err := b.check(j); err != nil {
			j.err = &narrow.PairError{ID: j.pair.ID, Err: err}
			continue
		}
		if b.params.Method != narrow.MethodStandard {
			// After a pair that moved in the batch, the next is likely
			// to have moved with it: look after the last one claimed.
			if j.st = b.store.Claim(i, j.pair.ID, j.pair.A, j.pair.B, h); j.st != nil {
				h = j.st.Pos() + 1
			}
		}
		if j.st == nil {
			open++
		}
	}
	b.open[k] = open
	if b.params.Method != narrow.MethodStandard {
		b.decideBlock(k, w, true)
	}
	if open == 0 {
		b.countTasks(k) // doDecide has nothing to do for it
	}
}

// doDecide decides the jobs of one block of the batch that doCheck left
// undecided (the pairs it claimed no state for), once identify has found
// or made their states.
func (b *Backend) doDecide(k, w int) {
	if b.open[k] > 0 {
		b.decideBlock(k, w, false)
		b.countTasks(k)
	}
}

// decideBlock decides the valid jobs of block k that are not decided yet:
// with claimed, only those whose state doCheck claimed.
//
// The states of a batch lie all over the heap and are mostly out of the
// caches by the next step (the engine's solver ran in between). Deciding
// pair after pair would wait for their lines one pair at a time; a first
// loop that only reads them (warm) lets the processor fetch the lines of
// many states at once. Measured on the avalanche at rest: the decisions
// take about a third less time.
func (b *Backend) decideBlock(k, w int, claimed bool) {
	js := b.blockJobs(k)
	var sink float64
	for x := range js {
		if j := &js[x]; j.st != nil && !j.decided {
			sink += warm(j.st)
		}
	}
	b.sinks[w].v += sink
	for x := range js {
		if j := &js[x]; j.err == nil && !j.decided && (j.st != nil || !claimed) {
			j.decided = true
			j.search = b.decide(j, k*pairBlock+x)
			if j.dirs != nil && j.st != nil && j.res.Speculative {
				// Only a pair that casts rays can return speculative
				// contacts: the others need not read their Last.
				j.speculativeGap()
			}
		}
	}
}

// warm reads a word from each cache line of st that decide reads: the
// flags and clearances, the placement at the last standard step, the rays
// and the threshold. The sum only keeps the compiler from dropping the
// loads.
func warm(st *iterative.PairState) float64 {
	return st.Clear[0] + st.RelNI.Q[0] + float64(len(st.Rays[1])) + st.Params.DisplacementThreshold
}

// sink receives the sums of warm, one per worker, on a cache line of its
// own.
type sink struct {
	v float64
	_ [56]byte
}

// setDirs prepares the directions of job i, which casts rays or seeks a
// clearance this step.
func (b *Backend) setDirs(j *job, i int) {
	j.dirs = &b.blocks[uint(i)/pairBlock].dirs[uint(i)%pairBlock]
	narrow.SetPair(j.dirs, j.a, j.b, &j.pair.PoseA, &j.pair.PoseB)
}

// standardDirs sets job i's directions for a standard step, culling
// volumes included: on every worker, during the decision, rather than in
// the layout's pass in batch order.
func (b *Backend) standardDirs(j *job, i int) {
	b.setDirs(j, i)
	for d := range j.dirs {
		j.dirs[d].SetCull(j.res.DistanceExtension)
	}
}

// decide prepares job i's temporal state and, where it casts rays, its
// directions, and decides whether its step is iterative. It reports
// whether the decision waits for a clearance search.
//
// The step is iterative when Eq. 2 (Lehericey et al. 2013, §3.3, per
// direction: iterative.PairState.Within) holds; with prediction, when its
// bound on the vertices that can touch the other body is at most
// narrow.Resolved.TouchThreshold (iterative.PairState.WithinTouch).
// Otherwise a standard step is due, but when both directions are clear
// (their vertices cannot reach the other body's culling volume:
// narrow.Direction.Clearance) it would
// cast no ray and return nothing, and leave no rays: the step is then an
// iterative one (with no rays, nothing either) that stands for it
// (clearStep), exactly. A direction is clear if what is left of its
// clearance (iterative.PairState.Clear) exceeds its displacement, or
// after a search, which is worth it only for a direction without rays
// whose last standard step cast none (Quiet).
func (b *Backend) decide(j *job, i int) (search bool) {
	pa, pb := &j.pair.PoseA, &j.pair.PoseB
	if b.params.Method == narrow.MethodStandard {
		j.own = b.params.Resolve(j.a, j.b)
		j.res = &j.own
		b.standardDirs(j, i)
		return false
	}
	// Where each bounding-sphere centre lies in the other's frame, and the
	// relative rotation: all Eq. 2 needs.
	j.rel.Set(j.a, j.b, pa, pb)
	if !j.st.HasParams {
		j.st.Params, j.st.HasParams = b.params.Resolve(j.a, j.b), true
	}
	j.res = &j.st.Params
	// j.st.Next is empty: only merge fills it, and it commits at once.
	if !j.st.Valid {
		b.standardDirs(j, i)
		return false
	}
	_, _, _, rA := j.a.BoundingSphere()
	_, _, _, rB := j.b.BoundingSphere()
	if j.res.Method == narrow.MethodPredictive {
		j.iterative = j.st.WithinTouch(&j.rel, rA, rB, j.res.TouchThreshold)
	} else {
		j.iterative = j.st.Within(&j.rel, rA, rB, j.res.DisplacementThreshold)
	}
	if j.iterative {
		if len(j.st.Rays[0])+len(j.st.Rays[1]) > 0 {
			b.setDirs(j, i)
		}
		return false
	}
	if b.noClear {
		b.standardDirs(j, i)
		return false
	}
	var disp [2]float64
	disp[0], disp[1] = j.st.Displacements(&j.rel, rA, rB)
	for d := range disp {
		switch {
		case j.st.Clear[d] > disp[d]:
			j.clear[d] = j.st.Clear[d] - disp[d]
		case len(j.st.Rays[d]) == 0 && j.st.Quiet[d]:
			j.seek[d] = true
		default:
			j.seek = [2]bool{}
			b.standardDirs(j, i)
			return false
		}
	}
	if j.seek == [2]bool{} {
		// Clear in both directions, so without rays: no directions needed.
		j.iterative, j.clearStep = true, true
		return false
	}
	b.setDirs(j, i)
	return true
}

// layout lays out the work items of job j, of batch index i, from task
// nt on, and returns the next free task.
func (b *Backend) layout(j *job, i, nt int) int {
	j.t0 = nt
	if j.dirs == nil { // iterative, no rays: nothing to do
		j.t1 = nt
		return nt
	}
	for d := 0; d < 2; d++ {
		dir := &j.dirs[d]
		dir.Reach = j.res.Reach
		if !j.iterative && j.search { // a standard step after a clearance search (others: standardDirs)
			dir.SetCull(j.res.DistanceExtension)
		}
		n := j.items(d)
		for lo := 0; lo < n; lo += chunk {
			nt = b.addTask(nt, i, d, lo, min(n, lo+chunk))
		}
	}
	j.t1 = nt
	return nt
}

// doClear seeks the clearances of one job's directions (see decide).
func (b *Backend) doClear(i, _ int) {
	j := b.job(int(b.clears[i]))
	for d, seek := range j.seek {
		if seek {
			j.clear[d] = 0
		}
	}
	for d, seek := range j.seek {
		if seek {
			if j.clear[d] = j.dirs[d].Clearance(j.res.DistanceExtension, clearBlocks); j.clear[d] <= 0 {
				return // the pair takes a standard step anyway
			}
		}
	}
}

func (b *Backend) addTask(nt, job, dir, lo, hi int) int {
	if nt == len(b.tasks) {
		if nt < cap(b.tasks) {
			b.tasks = b.tasks[:nt+1] // keep the slot's buffers
		} else {
			b.tasks = append(b.tasks, task{})
		}
	}
	t := &b.tasks[nt]
	t.job, t.dir, t.lo, t.hi = int32(job), uint8(dir), int32(lo), int32(hi)
	t.contacts, t.rays, t.pend, t.nq, t.stats = t.contacts[:0], t.rays[:0], t.pend[:0], 0, narrow.Stats{}
	return nt + 1
}

// check validates one pair on its own: known shapes, same dimension,
// valid poses (normalised in place).
func (b *Backend) check(j *job) error {
	j.a, j.b = b.Shape(j.pair.A), b.Shape(j.pair.B)
	if j.a == nil {
		return fmt.Errorf("%w: shape A id %d", narrow.ErrUnknownShape, j.pair.A)
	}
	if j.b == nil {
		return fmt.Errorf("%w: shape B id %d", narrow.ErrUnknownShape, j.pair.B)
	}
	return narrow.CheckPair(&j.pair, j.a, j.b)
}

// identify checks that the ID of a valid pair, at batch index i, is unique
// in the batch. For a method that keeps temporal state it looks up the
// pair's state (j.st), which also finds most duplicates; the other pairs
// (new, or all with the standard method) are checked against the IDs of
// this step kept in b.ids.
//
// The pairs whose states doCheck claimed are not identified again: an ID
// repeated later in the batch finds the claimed state, and one repeated
// earlier takes it over (iterative.Store.Take), which makes the later
// pair the duplicate.
func (b *Backend) identify(j *job, i int) error {
	if b.params.Method != narrow.MethodStandard {
		st, prev, from := b.store.Take(i, j.pair.ID, j.pair.A, j.pair.B)
		if from >= 0 {
			f := b.job(from)
			if k := from / pairBlock; b.open[k] == 0 {
				// Its block was counted (doCheck): count it out.
				if f.search {
					b.sums[k].searches--
				} else {
					b.sums[k].tasks -= b.tasksOf(f)
				}
			}
			f.st = nil
			f.err = &narrow.PairError{ID: f.pair.ID, Err: duplicate(i)}
		}
		if prev >= 0 {
			return duplicate(prev)
		}
		if j.st = st; st != nil {
			return nil
		}
	}
	if prev, dup := b.ids[j.pair.ID]; dup {
		return duplicate(int(prev))
	}
	b.ids[j.pair.ID] = int32(i)
	return nil
}

// duplicate is the error of a pair whose ID was first seen at batch index
// prev.
func duplicate(prev int) error {
	return fmt.Errorf("%w: also at batch index %d", narrow.ErrDuplicatePair, prev)
}

// doTask runs one work item.
func (b *Backend) doTask(i, w int) {
	if b.stop.Load() {
		return
	}
	if b.ctx.Err() != nil {
		b.stop.Store(true)
		return
	}
	t := &b.tasks[i]
	j := b.job(int(t.job))
	dir := &j.dirs[t.dir] // set: the job has work items
	r := j.res
	if j.iterative {
		b.iterate(t, j, dir, r)
		return
	}
	back := 0.0
	if r.Method == narrow.MethodPredictive {
		back = r.CullingDist
	}
	// The vertices that pass InCull, found through the culling hierarchy
	// (Direction.AppendInCull), or with the papers' culling those in the
	// world boxes' intersection, are cast in vertex order.
	var cands []int32
	if r.Culling == narrow.CullBoxes {
		cands = dir.AppendInBoxes(b.cands[w][:0], int(t.lo), int(t.hi))
	} else {
		cands = dir.AppendInCull(b.cands[w][:0], int(t.lo), int(t.hi))
	}
	b.cands[w] = cands
	slices.Sort(cands)
	if b.tracer != nil {
		// The rays' queries wait for the step's batch (see traceBatch).
		for _, v := range cands {
			t.pend = append(t.pend, pending{v: v})
			p := &t.pend[len(t.pend)-1]
			p.used, p.trace = dir.StandardQuery(&p.q, v, back, r.Traversal)
			if p.trace {
				t.nq++
			}
		}
		return
	}
	var out narrow.Outcome
	for _, v := range cands {
		dir.Standard(&out, v, back, r.Traversal)
		t.consume(j, r, dir, v, &out)
	}
}

// consume turns the Outcome of vertex v's standard ray into the task's
// statistics, contacts and tracked rays.
func (t *task) consume(j *job, r *narrow.Resolved, dir *narrow.Direction, v int32, out *narrow.Outcome) {
	predict := r.Method == narrow.MethodPredictive
	t.stats.StandardRays++
	if predict {
		t.stats.PredictiveRays++
	}
	if out.Fwd.Prim >= 0 && out.Fwd.Inside {
		t.stats.OcclusionRays++
	}
	if out.Contact {
		t.contacts = grow(t.contacts)
		if !reprojection.Fill(&t.contacts[len(t.contacts)-1], r.Response, dir, v, &out.O, &out.D, out.Fwd) {
			t.contacts = t.contacts[:len(t.contacts)-1] // the vertex lies outside (see reprojection.Fill); its ray is still tracked
		}
		if r.Method != narrow.MethodStandard {
			t.rays = append(t.rays, iterative.Ray{Vertex: v, Prim: out.Fwd.Prim})
		}
		return
	}
	if predict {
		if p, ok := predictive.FromStandard(*out, r.CullingDist); ok {
			t.rays = append(t.rays, iterative.Ray{Vertex: v, Prim: p, Predicted: true})
			t.stats.Predictions++
			if r.Speculative {
				t.speculative(j, r, dir, v, &out.O, &out.D, out.Bwd)
			}
		}
	}
}

// traceBatch hands the queries that the standard work items gathered to
// the tracer as one batch, in task order (see Tracer): each task's place
// in the batch is set here, and the tasks copy their queries there on
// every worker (doCopy). The batch's storage is the tracer's where it has
// its own (BatchStorage).
func (b *Backend) traceBatch(ctx context.Context) error {
	rb := &b.batch
	rb.Shapes = rb.Shapes[:0]
	clear(b.slots)
	n := int32(0)
	for i := range b.tasks {
		t := &b.tasks[i]
		t.b0 = n
		if t.nq == 0 {
			continue
		}
		n += t.nq
		dst := b.job(int(t.job)).dirs[t.dir].Dst
		slot, ok := b.slots[dst]
		if !ok {
			slot = int32(len(rb.Shapes))
			b.slots[dst] = slot
			rb.Shapes = append(rb.Shapes, dst)
		}
		t.slot = slot
	}
	if n == 0 {
		return nil
	}
	if bs, ok := b.tracer.(BatchStorage); !ok || !bs.Reserve(rb, int(n)) {
		rb.Queries = slices.Grow(rb.Queries[:0], int(n))[:n]
		rb.Dst = slices.Grow(rb.Dst[:0], int(n))[:n]
		rb.Fwd, rb.Bwd = slices.Grow(rb.Fwd[:0], int(n))[:n], slices.Grow(rb.Bwd[:0], int(n))[:n]
	}
	b.pool.run(len(b.tasks), b.runCopy)
	if err := b.tracer.Trace(ctx, rb); err != nil {
		if !errors.Is(err, ErrTraceHere) || ctx.Err() != nil {
			return fmt.Errorf("cpubackend: tracer: %w", err)
		}
		b.log.WarnContext(ctx, "irtcd: the tracer failed; the backend traces the step's rays itself", "err", err, "rays", n)
		b.pool.run(len(b.tasks), b.runSelf)
	}
	return nil
}

// doSelf traces the batch's queries of work item i on this worker, as
// the tracer would have (see ErrTraceHere).
func (b *Backend) doSelf(i, _ int) {
	t := &b.tasks[i]
	if t.nq == 0 {
		return
	}
	rb, trav := &b.batch, b.job(int(t.job)).res.Traversal
	for k := t.b0; k < t.b0+t.nq; k++ {
		rb.Fwd[k], rb.Bwd[k] = rb.Shapes[rb.Dst[k]].TraceQuery(&rb.Queries[k], trav)
	}
}

// doCopy copies the traced queries of work item i into the batch.
func (b *Backend) doCopy(i, _ int) {
	t := &b.tasks[i]
	if t.nq == 0 {
		return
	}
	rb, k := &b.batch, int(t.b0)
	for x := range t.pend {
		if p := &t.pend[x]; p.trace {
			rb.Queries[k], rb.Dst[k] = p.q, t.slot
			k++
		}
	}
}

// doFinish completes the standard rays of work item i from the batch's
// hits (see traceBatch), as doTask does inline without a tracer.
func (b *Backend) doFinish(i, _ int) {
	t := &b.tasks[i]
	if len(t.pend) == 0 || b.stop.Load() {
		return
	}
	j := b.job(int(t.job))
	dir := &j.dirs[t.dir]
	rb, k := &b.batch, int(t.b0)
	var out narrow.Outcome
	for x := range t.pend {
		p := &t.pend[x]
		switch {
		case !p.used:
			out = narrow.Outcome{Fwd: narrow.NoHit, Bwd: narrow.NoHit}
		case !p.trace:
			dir.StandardOutcome(&out, p.v, &p.q, narrow.NoHit, narrow.NoHit)
		default:
			dir.StandardOutcome(&out, p.v, &p.q, rb.Fwd[k], rb.Bwd[k])
			k++
		}
		t.consume(j, j.res, dir, p.v, &out)
	}
}

func (b *Backend) iterate(t *task, j *job, dir *narrow.Direction, r *narrow.Resolved) {
	predict := r.Method == narrow.MethodPredictive
	maxIt := r.MaxIt[t.dir]
	var o, d [3]float64
	var steps, occl, lost, preds int
	rays := j.st.Rays[t.dir][t.lo:t.hi]
	for _, ray := range rays {
		dir.Ray(ray.Vertex, &o, &d)
		w, n := iterative.Walk(dir.Dst, ray.Prim, &o, &d, maxIt)
		steps += n
		switch {
		case w.Outcome == iterative.Hit && !dir.Blocked(ray.Vertex, w.T):
			// The own-body test is a lookup (narrow.Direction.Blocked),
			// so iterative hits get it too, unlike in the paper.
			occl++
			t.contacts = grow(t.contacts)
			if !reprojection.Fill(&t.contacts[len(t.contacts)-1], r.Response, dir, ray.Vertex, &o, &d, narrow.Hit{T: w.T, Prim: w.Prim, Inside: true}) {
				t.contacts = t.contacts[:len(t.contacts)-1]
			}
			t.rays = append(t.rays, iterative.Ray{Vertex: ray.Vertex, Prim: w.Prim})
		case w.Outcome == iterative.Hit:
			occl++
			lost++ // leaves its own body first: no contact, as in a standard step
		case predict:
			if p, ok := predictive.FromWalk(w, r.CullingDist); ok {
				t.rays = append(t.rays, iterative.Ray{Vertex: ray.Vertex, Prim: p, Predicted: true})
				preds++
				if r.Speculative {
					t.speculative(j, r, dir, ray.Vertex, &o, &d, narrow.Hit{T: w.T, Prim: w.Prim, Inside: true})
				}
			} else {
				lost++
			}
		default:
			lost++
		}
	}
	t.stats.IterativeRays += len(rays)
	t.stats.IterativeSteps += steps
	t.stats.OcclusionRays += occl
	t.stats.LostRays += lost
	t.stats.Predictions += preds
}

// speculative adds the speculative contact of a prediction of vertex v
// (narrow.Params.Speculative) if its gap is at most j.gapMax.
func (t *task) speculative(j *job, r *narrow.Resolved, dir *narrow.Direction, v int32, o, d *[3]float64, h narrow.Hit) {
	// Most predictions of a pair at rest are dropped here, before their
	// contact is made; the gap along the ray bounds the re-projected one.
	if -h.T > j.gapMax && reprojection.Gap(r.Response, dir, d, h) > j.gapMax {
		return
	}
	t.contacts = grow(t.contacts)
	reprojection.FillSpeculative(&t.contacts[len(t.contacts)-1], r.Response, dir, v, o, d, h)
	t.stats.Speculative++
}

// grow extends cs by one element whose value the caller overwrites
// entirely (append of a zero Contact would clear it first).
func grow(cs []narrow.Contact) []narrow.Contact {
	if len(cs) < cap(cs) {
		return cs[:len(cs)+1]
	}
	return append(cs, narrow.Contact{})
}

// edgeContacts appends job j's edge-on-edge contacts (narrow.Params.
// EdgeAngle) to j.contacts, after its vertex contacts, and reports whether
// it found any. They are sought at every step, standard or iterative: an
// iterative step's rays know nothing of them. A pair with state keeps the
// pairs of edges to test, chosen with a margin of half DisplacementThreshold
// (edgeMargin; narrow.Direction.AppendEdgePairs) and, with speculative
// contacts, for gaps up to a bound, and tests only those while its motion
// since stays within the margin (iterative.PairState.EdgesWithin) and its
// gap within the bound: the same contacts, without choosing the edges
// again at every step. A pair moving so fast that the choice would not
// hold for edgeKeepSteps steps searches all edges instead, as a pair
// without state does.
func (b *Backend) edgeContacts(j *job, w int) bool {
	var dir *narrow.Direction
	var own narrow.Direction
	if j.dirs != nil {
		dir = &j.dirs[0]
	} else {
		own.SetPoses(narrow.SideA, j.a, j.b, &j.pair.PoseA, &j.pair.PoseB)
		dir = &own
	}
	n := len(j.contacts)
	r, st := j.res, j.st
	if st == nil || b.allEdges {
		j.contacts = dir.AppendEdgeContacts(j.contacts, &b.edges[w], r.EdgeAngle, r.EdgeDepth, j.edgeGap(), r.Traversal)
		return len(j.contacts) > n
	}
	_, _, _, rA := j.a.BoundingSphere()
	_, _, _, rB := j.b.BoundingSphere()
	st.EdgeSteps++
	gap := j.edgeGap()
	if !st.EdgesWithin(&j.rel, rA, rB) || gap > st.EdgeGap {
		margin := edgeMargin * r.DisplacementThreshold
		if v, ok := st.EdgeMotion(&j.rel, rA, rB); ok && v*edgeKeepSteps > margin {
			st.SetEdges(&j.rel, margin, false)
			j.contacts = dir.AppendEdgeContacts(j.contacts, &b.edges[w], r.EdgeAngle, r.EdgeDepth, gap, r.Traversal)
			return len(j.contacts) > n
		}
		// The pairs cover gaps up to edgeGapGrowth times this step's
		// (at least edgeGapFloor × the threshold), within the widest
		// gap edgeGap returns, CullingDist; a wider gap later chooses
		// again.
		st.EdgeGap = 0
		if r.Speculative {
			st.EdgeGap = min(r.CullingDist, max(edgeGapGrowth*gap, edgeGapFloor*r.DisplacementThreshold))
		}
		st.Edges = dir.AppendEdgePairs(st.Edges[:0], &b.edges[w], r.EdgeAngle, r.EdgeDepth, st.EdgeGap, margin)
		st.SetEdges(&j.rel, margin, true)
	}
	j.contacts = dir.AppendEdgePairContacts(j.contacts, st.Edges, r.EdgeDepth, gap, r.Traversal)
	return len(j.contacts) > n
}

// The choice of a pair's edges to test (edgeContacts): its margin,
// edgeMargin × DisplacementThreshold (half the threshold: a smaller
// margin keeps fewer pairs, and at rest the motion seldom outgrows it;
// 0.5 took the 64-bunny replay's edge time down by about 8 % from 1.0,
// and 2.0 up by 30 %); the gaps it covers with speculative contacts
// (edgeGapGrowth times the step's, at least edgeGapFloor × the
// threshold); and edgeKeepSteps, the least number of steps it must be
// expected to hold, at the pair's speed since the last choice or search,
// to be worth making: choosing costs about half as much again as
// searching all edges once.
const (
	edgeMargin    = 0.5
	edgeGapGrowth = 2
	edgeGapFloor  = 0.2
	edgeKeepSteps = 2
)

// edgeGap returns the widest gap of job j's speculative edge-on-edge
// contacts: that of its vertices' (speculativeGap), at most the
// predictions' reach (CullingDist); 0 without speculative contacts.
func (j *job) edgeGap() float64 {
	if !j.res.Speculative || j.st == nil {
		return 0
	}
	j.speculativeGap()
	return min(j.gapMax, j.res.CullingDist)
}

// doMerge merges the jobs of one block of the batch (see merge). Blocks,
// not single jobs: most jobs of a pile at rest have nothing to merge, and
// handing them out one by one cost more than merging them.
func (b *Backend) doMerge(k, w int) {
	s := &b.sums[k]
	*s = blockSum{}
	js := b.blockJobs(k)
	for x := range js {
		j := &js[x]
		b.merge(j, w)
		switch {
		case j.err != nil:
			s.stats.FailedPairs++
			continue
		case j.iterative:
			s.stats.IterativePairs++
		default:
			s.stats.StandardPairs++
		}
		for t := j.t0; t < j.t1; t++ {
			s.stats.Add(&b.tasks[t].stats)
			s.stats.Contacts -= b.tasks[t].stats.Speculative
		}
		s.stats.Contacts += len(j.contacts) // less the speculative ones, counted by the tasks
		for c := len(j.contacts) - 1; c >= 0 && j.contacts[c].Feature == narrow.FeatureEdge; c-- {
			if j.contacts[c].Speculative() {
				s.stats.Speculative++
				s.stats.Contacts--
			} else {
				s.stats.EdgeContacts++
			}
		}
		s.contacts += len(j.contacts)
		s.manifolds += len(j.manifolds)
		for _, m := range j.manifolds {
			s.points += len(m.Points)
		}
	}
}

// blockSum is what the merge of one block of jobs gathers for the commit:
// the block's statistics and output sizes, and (set by the commit) where
// its output starts in the Result's storage.
type blockSum struct {
	stats                       narrow.Stats
	contacts, manifolds, points int
	c0, m0, p0                  int

	// Set when its jobs are decided: the work items they lay out in the
	// block's turn, from t0 on, and the jobs laid out after a search.
	tasks, searches, t0 int
}

// doFill writes the outcomes of one block of jobs into b.fill, at the
// places the commit worked out from the sizes of the blocks before it:
// what Result.Append would write, pair after pair.
func (b *Backend) doFill(k, _ int) {
	s := &b.sums[k]
	c, m, p := s.c0, s.m0, s.p0
	js := b.blockJobs(k)
	for x := range js {
		j := &js[x]
		pr := &b.fill.Pairs[k*pairBlock+x]
		pr.ID = j.pair.ID
		if j.err != nil {
			pr.Err = j.err
			pr.Contacts, pr.Manifolds = b.fc[c:c:c], b.fm[m:m:m]
			continue
		}
		n := copy(b.fc[c:], j.contacts)
		pr.Contacts = b.fc[c : c+n : c+n]
		c += n
		m0 := m
		for _, mf := range j.manifolds {
			n := copy(b.fp[p:], mf.Points)
			b.fm[m] = narrow.Manifold{Normal: mf.Normal, Points: b.fp[p : p+n : p+n]}
			p, m = p+n, m+1
		}
		pr.Manifolds = b.fm[m0:m:m]
		pr.Iterative = j.iterative
	}
}

// buried appends the contacts of a standard step that found none, where
// a body is buried in the other (reprojection.AppendBuried), and reports
// whether there are some. Only a direction that cast rays can have them:
// a vertex inside the other body is never culled, and without one the
// fallback has nothing to add.
func (j *job) buried(cast [2]bool) bool {
	n := len(j.contacts)
	for d := range j.dirs {
		if cast[d] {
			j.contacts = reprojection.AppendBuried(j.contacts, &j.dirs[d])
		}
	}
	return len(j.contacts) > n
}

// merge gathers job j's work items in order, reduces its manifolds and
// commits its temporal state. It runs only once every work item has
// finished without a cancellation, so the step can no longer fail.
func (b *Backend) merge(j *job, w int) {
	if j.err != nil {
		return
	}
	if j.t0 == j.t1 && j.iterative && !j.clearStep {
		// Nothing to merge, and nothing to commit: an iterative step
		// without work items had no rays and leaves none. Edges are
		// tested at every step all the same.
		if j.res.EdgeAngle > 0 && b.edgeContacts(j, w) {
			j.manifolds, j.points = b.reducers[w].Reduce(j.contacts, j.res.ManifoldSize, j.res.ManifoldCos, j.manifolds, j.points)
		}
		return
	}
	var cast [2]bool // rays cast per direction
	start := len(j.contacts)
	split := start // end of direction 0's contacts
	for t := j.t0; t < j.t1; t++ {
		tk := &b.tasks[t]
		cast[tk.dir] = cast[tk.dir] || tk.stats.StandardRays > 0
		if tk.dir == 0 {
			split = len(j.contacts) + len(tk.contacts)
		}
		j.contacts = append(j.contacts, tk.contacts...)
		if j.st != nil {
			j.st.Next[tk.dir] = append(j.st.Next[tk.dir], tk.rays...)
		}
	}
	if !j.iterative {
		// A standard work item casts in vertex order, but the work items
		// of a direction split its vertices block by block, not by index:
		// restore vertex order across them (one result per vertex and
		// direction), so that results do not depend on the blocks.
		byVertex := func(a, b narrow.Contact) int { return cmp.Compare(a.Vertex, b.Vertex) }
		rayByVertex := func(a, b iterative.Ray) int { return cmp.Compare(a.Vertex, b.Vertex) }
		for _, cs := range [2][]narrow.Contact{j.contacts[start:split], j.contacts[split:]} {
			if !slices.IsSortedFunc(cs, byVertex) {
				slices.SortFunc(cs, byVertex)
			}
		}
		if j.st != nil {
			for d := range j.st.Next {
				if !slices.IsSortedFunc(j.st.Next[d], rayByVertex) {
					slices.SortFunc(j.st.Next[d], rayByVertex)
				}
			}
		}
	}
	buried := !j.iterative && len(j.contacts) == start && j.buried(cast)
	if j.res.EdgeAngle > 0 {
		b.edgeContacts(j, w)
	}
	j.manifolds, j.points = b.reducers[w].Reduce(j.contacts, j.res.ManifoldSize, j.res.ManifoldCos, j.manifolds, j.points)
	if j.st == nil {
		return
	}
	j.st.Commit()
	if j.res.Speculative {
		j.st.SetLast(&j.rel)
	}
	switch {
	case !j.iterative:
		// A direction is worth a clearance search later if it cast no
		// ray, though its culling box was not empty (else its standard
		// step costs next to nothing), and if no search failed for it at
		// this step (else it is close).
		var quiet [2]bool
		for d := range quiet {
			quiet[d] = !cast[d] && !j.dirs[d].Cull.Empty() && !j.failed[d]
		}
		j.st.SetStandard(&j.rel, quiet)
		if buried {
			// Its contacts are no rays to follow: the next step is a
			// standard one again, and the next after that, until rays
			// find the body.
			j.st.Valid = false
		}
	case j.clearStep:
		j.st.SetClear(&j.rel, j.clear)
	}
}
