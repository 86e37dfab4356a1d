package cpubackend

import (
	"fmt"

	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
)

// prepare validates the pairs, decides standard or iterative per pair and
// lays out the work items. What each pair needs alone (validation, the
// decision) runs on every worker; the store lookups, which also find
// duplicate IDs, and the layout run in batch order. A pair that fails
// Eq. 2 but may be clear in both directions gets its clearance searches
// (run on every worker) before the decision is final (see decide).
func (b *Backend) prepare(pairs []narrow.Pair) {
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
	// The IDs identify records: those of the pairs doCheck claimed no
	// state for (every pair with the standard method, the new ones on a
	// steady step). The map is made for that many at once, not grown
	// entry by entry through the lookups, and made again only when more
	// are needed than it was made for: a batch that grows by a few pairs
	// a step does not make a map of the whole batch at every step.
	need := 0
	for _, open := range b.open {
		need += int(open)
	}
	if need > b.idsCap {
		b.ids, b.idsCap = make(map[uint64]int32, need), need
	} else {
		clear(b.ids)
	}
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
	if ta, tb := b.travel[j.pair.A], b.travel[j.pair.B]; ta != 0 || tb != 0 {
		j.rel.Travel = [2]float64{ta, tb}
	}
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
