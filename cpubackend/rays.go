package cpubackend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/predictive"
	"github.com/irtcd/irtcd/reprojection"
)

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
	if b.gather {
		// The rays' queries wait for the step's batch (see tracedTasks).
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

// tracedTasks runs the step's work items with a tracer. The standard
// items run first and gather their queries, and the batch goes to the
// tracer (gatherBatch). An AsyncTracer traces it while the workers run
// the iterative items, which need none of its rays: on a GPU the
// device's round trip then hides behind the iterative walks rather than
// adding to them. Other tracers trace it before the iterative items; a
// batch smaller than a MinBatcher's minimum is traced by the workers, in
// the iterative items' phase. Then the standard items complete their
// rays (doFinish). Every item writes only its own output, so the order
// in which they run changes no result. It returns the time the workers
// spent on the batch rather than on work items (gathering it, and calls
// to the tracer) and the tracer's error, unless it wraps ErrTraceHere:
// the workers then trace the batch themselves.
func (b *Backend) tracedTasks(ctx context.Context) (time.Duration, error) {
	b.order = slices.Grow(b.order[:0], len(b.tasks))
	for i := range b.tasks {
		if !b.job(int(b.tasks[i].job)).iterative {
			b.order = append(b.order, int32(i))
		}
	}
	b.nstd = len(b.order)
	for i := range b.tasks {
		if b.job(int(b.tasks[i].job)).iterative {
			b.order = append(b.order, int32(i))
		}
	}
	niter := len(b.order) - b.nstd
	b.pool.run(b.nstd, b.runStd)
	if b.stop.Load() {
		return 0, nil
	}
	tb := time.Now()
	n := b.gatherBatch()
	var batch time.Duration
	var err error
	at, async := b.tracer.(AsyncTracer)
	mb, sized := b.tracer.(MinBatcher)
	switch {
	case n == 0:
		b.pool.run(niter, b.runIter)
	case sized && n < mb.MinBatch():
		// Too small for the tracer: the workers trace it, in the phase
		// of the iterative items.
		batch = time.Since(tb)
		b.pool.run(len(b.order), b.runSelfIter)
	case !async || niter == 0:
		err = b.tracer.Trace(ctx, &b.batch)
		batch = time.Since(tb)
		b.pool.run(niter, b.runIter)
	default:
		err = at.Start(ctx, &b.batch)
		batch = time.Since(tb)
		b.pool.run(niter, b.runIter)
		if err == nil {
			tw := time.Now()
			err = at.Wait()
			batch += time.Since(tw)
		}
	}
	if err == nil && ctx.Err() != nil {
		// Cancelled while the tracer had the batch (a device's round
		// trip can be long): the step stops here, as a work item would
		// stop it.
		b.stop.Store(true)
		return batch, nil
	}
	if err != nil {
		if !errors.Is(err, ErrTraceHere) || ctx.Err() != nil {
			return batch, fmt.Errorf("cpubackend: tracer: %w", err)
		}
		b.log.WarnContext(ctx, "irtcd: the tracer failed; the backend traces the step's rays itself", "err", err, "rays", n)
		b.pool.run(len(b.tasks), b.runSelf)
	}
	if !b.stop.Load() {
		b.pool.run(b.nstd, b.runFinish)
	}
	return batch, nil
}

// smallStep reports whether a step with a MinBatcher runs as without a
// tracer, its work items tracing their own rays: when the last step cast
// fewer standard rays than the tracer's minimum, this one is likely to
// stay under it too, and would only pay for the batch's gathering, layout
// and completion phases to be traced on the workers anyway. A step that
// casts more all the same is traced on the workers (the same output); the
// next one goes to the tracer. The first step, whose every pair is new,
// goes to the tracer.
func (b *Backend) smallStep() bool {
	mb, ok := b.tracer.(MinBatcher)
	return ok && b.lastRays >= 0 && b.lastRays < mb.MinBatch()
}

// gatherBatch lays out the queries that the standard work items gathered
// as one batch, in task order (see Tracer), and returns how many there
// are: each task's place in the batch is set here, and the tasks copy
// their queries there on every worker (doCopy). The batch's storage is
// the tracer's where it has its own (BatchStorage).
func (b *Backend) gatherBatch() int {
	rb := &b.batch
	rb.Shapes = rb.Shapes[:0]
	clear(b.slots)
	n := int32(0)
	for _, i := range b.order[:b.nstd] {
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
		return 0
	}
	if bs, ok := b.tracer.(BatchStorage); !ok || !bs.Reserve(rb, int(n)) {
		rb.Queries = slices.Grow(rb.Queries[:0], int(n))[:n]
		rb.Dst = slices.Grow(rb.Dst[:0], int(n))[:n]
		rb.Fwd, rb.Bwd = slices.Grow(rb.Fwd[:0], int(n))[:n], slices.Grow(rb.Bwd[:0], int(n))[:n]
	}
	b.pool.run(b.nstd, b.runCopy)
	return int(n)
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
// hits (see tracedTasks), as doTask does inline without a tracer.
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
