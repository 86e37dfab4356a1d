package cpubackend

import (
	"cmp"
	"slices"

	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/reprojection"
)

// edgeContacts appends job j's edge-on-edge contacts (narrow.Params.
// EdgeAngle) to j.contacts, after its vertex contacts, then with
// narrow.Params.EdgeFaces its edge-through-face contacts, and reports
// whether it found any. They are sought at every step, standard or
// iterative: an iterative step's rays know nothing of them. A pair with
// state keeps the pairs of edges to test, chosen with a margin of half
// DisplacementThreshold (edgeMargin; narrow.Direction.AppendEdgePairs)
// and, with speculative contacts, for gaps up to a bound, and tests only
// those while its motion since stays within the margin
// (iterative.PairState.EdgesWithin) and its gap within the bound: the
// same contacts, without choosing the edges again at every step. The
// edges to trace through faces are chosen and kept with them
// (narrow.Direction.AppendFaceEdges). A pair moving so fast that the
// choice would not hold for edgeKeepSteps steps searches all edges
// instead, as a pair without state does.
func (b *Backend) edgeContacts(j *job, w int) bool {
	n := len(j.contacts)
	var own [2]narrow.Direction
	dirs := j.dirs
	if dirs == nil {
		if j.res.EdgeFaces {
			narrow.SetPair(&own, j.a, j.b, &j.pair.PoseA, &j.pair.PoseB)
		} else {
			own[0].SetPoses(narrow.SideA, j.a, j.b, &j.pair.PoseA, &j.pair.PoseB)
		}
		dirs = &own
	}
	b.pairEdgeContacts(j, w, dirs)
	return len(j.contacts) > n
}

// pairEdgeContacts appends job j's edge-on-edge contacts (see
// edgeContacts), from dirs[0], then with EdgeFaces its edge-through-face
// contacts, both directions: from its kept pairs of edges and kept face
// edges, chosen at this step or within their margin of it, else from all
// edges near the other body. It chooses those (both directions, with the
// same margin) when it chooses the pairs.
func (b *Backend) pairEdgeContacts(j *job, w int, dirs *[2]narrow.Direction) {
	r, st := j.res, j.st
	if st == nil || b.allEdges {
		b.searchEdges(j, w, dirs, j.edgeGap())
		return
	}
	_, _, _, rA := j.a.BoundingSphere()
	_, _, _, rB := j.b.BoundingSphere()
	st.EdgeSteps++
	gap := j.edgeGap()
	if !st.EdgesWithin(&j.rel, rA, rB) || gap > st.EdgeGap {
		margin := edgeMargin * r.DisplacementThreshold
		if v, ok := st.EdgeMotion(&j.rel, rA, rB); ok && v*edgeKeepSteps > margin {
			st.SetEdges(&j.rel, margin, false)
			b.searchEdges(j, w, dirs, gap)
			return
		}
		// The pairs cover gaps up to edgeGapGrowth times this step's
		// (at least edgeGapFloor × the threshold), within the widest
		// gap edgeGap returns, CullingDist; a wider gap later chooses
		// again.
		st.EdgeGap = 0
		if r.Speculative {
			st.EdgeGap = min(r.CullingDist, max(edgeGapGrowth*gap, edgeGapFloor*r.DisplacementThreshold))
		}
		st.Edges = dirs[0].AppendEdgePairs(st.Edges[:0], &b.edges[w], r.EdgeAngle, r.EdgeDepth, st.EdgeGap, margin)
		st.SetEdges(&j.rel, margin, true)
		for d := range st.FaceEdges {
			st.FaceEdges[d] = st.FaceEdges[d][:0]
			if r.EdgeFaces {
				st.FaceEdges[d] = dirs[d].AppendFaceEdges(st.FaceEdges[d], &b.edges[w], r.EdgeAngle, margin)
			}
		}
	}
	j.contacts = dirs[0].AppendEdgePairContacts(j.contacts, st.Edges, r.EdgeDepth, gap, r.Traversal)
	if r.EdgeFaces {
		for d := range dirs {
			j.contacts = dirs[d].AppendListedEdgeFaceContacts(j.contacts, st.FaceEdges[d], r.EdgeDepth, r.Traversal)
		}
	}
}

// searchEdges appends job j's contacts as pairEdgeContacts does, from
// every edge near the other body, with edge-on-edge gaps up to gap
// (dirs[0] chooses A's edges once for both kinds).
func (b *Backend) searchEdges(j *job, w int, dirs *[2]narrow.Direction, gap float64) {
	r := j.res
	if !r.EdgeFaces {
		j.contacts = dirs[0].AppendEdgeContacts(j.contacts, &b.edges[w], r.EdgeAngle, r.EdgeDepth, gap, r.Traversal)
		return
	}
	j.contacts = dirs[0].AppendEdgeAndFaceContacts(j.contacts, &b.edges[w], r.EdgeAngle, r.EdgeDepth, gap, r.Traversal)
	j.contacts = dirs[1].AppendEdgeFaceContacts(j.contacts, &b.edges[w], r.EdgeAngle, r.EdgeDepth, r.Traversal)
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
		for c := len(j.contacts) - 1; c >= 0 && j.contacts[c].Feature != narrow.FeatureVertex; c-- {
			switch {
			case j.contacts[c].Speculative():
				s.stats.Speculative++
				s.stats.Contacts--
			case j.contacts[c].Feature == narrow.FeatureEdge:
				s.stats.EdgeContacts++
			default:
				s.stats.EdgeFaceContacts++
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
