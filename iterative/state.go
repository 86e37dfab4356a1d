package iterative

import (
	"cmp"
	"math"
	"slices"
	"sync/atomic"

	"github.com/irtcd/irtcd/narrow"
)

// Ray is the temporal state of one ray: the primitive its vertex hit at the
// last step (a contact) or, with prediction, a primitive just behind it.
type Ray struct {
	Vertex    int32
	Prim      int32
	Predicted bool
}

// PairState is the temporal state of one broad-phase pair: its relative
// placement at the last standard (non-iterative) step, or at the last step
// that stood for one (see Clear), and, per direction (0: A's vertices on
// B, 1: B's vertices on A), the rays to update, sorted by vertex.
type PairState struct {
	// Kept by Store, first with the shapes and the flags: a lookup reads
	// one cache line, and the decision of a pair without rays (Store,
	// Valid, Clear, RelNI, Rays, Params' threshold) four. The pair's ID,
	// the step that last looked it up or put it and the batch index it
	// had then, and its index in the order of the last step (-1: none).
	id   uint64
	step uint64
	at   int32
	pos  int32

	A, B  narrow.ShapeID
	Valid bool // a standard step has run since the state was created
	// HasParams reports that Params is set.
	HasParams bool
	// Quiet reports, per direction, that a clearance is worth seeking
	// when Eq. 2 fails (as judged at the last standard step: in
	// cpubackend, it cast no ray, though it had vertices to cull, and no
	// search failed for it).
	Quiet [2]bool
	// Clear is, per direction, its clearance at RelNI
	// (narrow.Direction.Clearance; 0 when unknown, and always 0 for a
	// direction with rays): while the direction's displacement
	// (Displacements) stays below it, a standard step would cast no ray
	// from its vertices. When Eq. 2 fails but both directions are clear,
	// the standard step would return nothing and leave no rays: the
	// backend may skip it, returning the same nothing, and record the new
	// placement with what is left of the clearances (SetClear).
	Clear [2]float64
	RelNI Rel      // the pair's relative placement at the last standard step
	Rays  [2][]Ray // per direction, sorted by vertex
	// Params caches the parameters resolved for the pair's shapes (they
	// depend on nothing else).
	Params narrow.Resolved
	Next   [2][]Ray // being built this step; swapped into Rays by Commit
	// Last is the pair's relative placement at the last step that
	// recorded one (SetLast), and HasLast whether there is one: Moved
	// measures from it.
	Last    Rel
	HasLast bool
	// Edges are the pairs of edges that the pair's edge-on-edge tests
	// (narrow.Params.EdgeAngle) try while it stays within EdgeMargin of
	// EdgeRel (EdgesWithin): narrow.Direction.AppendEdgePairs chose them
	// there with that margin. HasEdges reports that they are set. EdgeRel
	// is also kept, with HasEdgeRel, at a step that searched all edges
	// instead, and EdgeSteps counts the steps since it was set, so that
	// EdgeMotion tells how fast the pair moves.
	Edges []narrow.EdgePair
	// FaceEdges are, with narrow.Params.EdgeFaces, the edges of A (0)
	// and of B (1) that the pair's edge-through-face tests trace while
	// Edges hold: narrow.Direction.AppendFaceEdges chose them at EdgeRel
	// with EdgeMargin, when Edges were chosen.
	FaceEdges  [2][]int32
	EdgeRel    Rel
	EdgeMargin float64
	EdgeGap    float64 // the widest gap (speculative contacts) Edges cover
	EdgeSteps  int32
	HasEdges   bool
	HasEdgeRel bool
}

// Rel is the relative placement of a pair that Eq. 2 compares: where each
// body's bounding-sphere centre (narrow.Shape.BoundingSphere) lies in the
// other's frame, and the rotation of B relative to A (q_A⁻¹·q_B).
//
// Travel holds, for deformable shapes, the backend's odometer of each
// body's shape (A's, B's) at this placement: the sum, over the
// deformations the backend was handed (narrow.Reshaper), of how far the
// farthest vertex moved in the shape's frame. Between two placements the
// odometers' increase bounds how far any vertex moved by deformation, and
// the displacements below add it. Rel.Set leaves Travel zero, as it stays
// for shapes that never deform.
type Rel struct {
	BinA, AinB [3]float64 // B's centre in A's frame, A's centre in B's frame
	Q          [4]float64 // w, x, y, z
	Travel     [2]float64 // the odometers of A's and B's shapes (deformations)
}

// Relate returns the relative placement of shapes a and b at poses pa and
// pb (unit quaternions). It is Set for code off the hot path.
func Relate(a, b *narrow.Shape, pa, pb narrow.Pose) Rel {
	var r Rel
	r.Set(a, b, &pa, &pb)
	return r
}

// Set sets r to the relative placement of shapes a and b at poses pa and
// pb (unit quaternions): A's centre c_A mapped to B's frame,
// R_B⁻¹·(R_A·c_A + t_A − t_B), B's mapped to A's frame likewise, and
// q_A⁻¹·q_B. It needs only the two rotation matrices, not a pair's
// directions (narrow.SetPair), so a pair that takes no ray this step costs
// little more than this. (Scalar stores through the receiver: see
// narrow.Transform.SetPose.)
func (r *Rel) Set(a, b *narrow.Shape, pa, pb *narrow.Pose) {
	var ta, tb narrow.Transform
	ta.SetPose(pa)
	tb.SetPose(pb)
	ra, rb := &ta.R, &tb.R
	cx, cy, cz, _ := a.BoundingSphere()
	// R_A·c_A + t_A − t_B, then R_Bᵀ times it.
	wx := ra[0]*cx + ra[1]*cy + ra[2]*cz + ta.T[0] - tb.T[0]
	wy := ra[3]*cx + ra[4]*cy + ra[5]*cz + ta.T[1] - tb.T[1]
	wz := ra[6]*cx + ra[7]*cy + ra[8]*cz + ta.T[2] - tb.T[2]
	r.AinB[0] = rb[0]*wx + rb[3]*wy + rb[6]*wz
	r.AinB[1] = rb[1]*wx + rb[4]*wy + rb[7]*wz
	r.AinB[2] = rb[2]*wx + rb[5]*wy + rb[8]*wz
	cx, cy, cz, _ = b.BoundingSphere()
	wx = rb[0]*cx + rb[1]*cy + rb[2]*cz + tb.T[0] - ta.T[0]
	wy = rb[3]*cx + rb[4]*cy + rb[5]*cz + tb.T[1] - ta.T[1]
	wz = rb[6]*cx + rb[7]*cy + rb[8]*cz + tb.T[2] - ta.T[2]
	r.BinA[0] = ra[0]*wx + ra[3]*wy + ra[6]*wz
	r.BinA[1] = ra[1]*wx + ra[4]*wy + ra[7]*wz
	r.BinA[2] = ra[2]*wx + ra[5]*wy + ra[8]*wz
	// q_A⁻¹·q_B, written out.
	aw, ax, ay, az := pa.Rot.W, -pa.Rot.V[0], -pa.Rot.V[1], -pa.Rot.V[2]
	bw, bx, by, bz := pb.Rot.W, pb.Rot.V[0], pb.Rot.V[1], pb.Rot.V[2]
	r.Q[0] = aw*bw - ax*bx - ay*by - az*bz
	r.Q[1] = aw*bx + ax*bw + ay*bz - az*by
	r.Q[2] = aw*by - ax*bz + ay*bw + az*bx
	r.Q[3] = aw*bz + ax*by - ay*bx + az*bw
	r.Travel = [2]float64{}
}

func dist3(a, b *[3]float64) float64 {
	x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return math.Sqrt(x*x + y*y + z*z)
}

// Displacements returns Eq. 2 of Lehericey et al. 2013 (§3.3) for the pair
// now at rel, against its last standard step, once per direction, about
// the bounding-sphere centres: d0 = ‖c_A − c_A,ni‖ + angle(q_ni, q) × rA
// bounds how far any vertex of A has moved in B's frame (the rays of
// direction 0, A's vertices on B), and d1 = ‖c_B − c_B,ni‖ + angle × rB
// the same for B's vertices in A's frame; c_A is A's centre in B's frame,
// rA (rB) A's (B's) radius about its centre. The angle is 2·atan2(|v|, |w|)
// of q_ni⁻¹·q, accurate for tiny rotations.
//
// Why this bounds the motion: in B's frame A's pose is (R, t), and vertex x
// of A lies at R·x + t = R·(x − c) + c_A with c_A = R·c + t. Between the
// standard step and now it moves by (c_A − c_A,ni) + (R − R_ni)·(x − c),
// and |(R − R_ni)·y| = |R_ni⁻¹R·y − y| = 2 sin(θ/2)·|y⊥| ≤ θ·|y| ≤ θ·rA,
// θ being the angle of R_ni⁻¹R, the rotation between the relative
// orientations (the same in both frames). The paper's form, translation
// of the origins plus θ × the larger radius about the origins, bounds the
// same motion, but loosely when a shape's origin lies off its centre (its
// radius about the origin is larger, and a rotation about the centre,
// which is what a rigid body does about its centre of mass, moves the
// origin) and, for a pair of unequal shapes, in the small shape's
// direction (the large shape's radius multiplies θ there).
//
// With deformable shapes (Rel.Travel) both bounds grow by (1 + angle)·D,
// D the increase of the two odometers since the standard step: a vertex
// moved by at most D relative to the other body's surface by the
// deformations, and its distance from its centre grew by at most D, which
// the rotation's term multiplies.
func (s *PairState) Displacements(rel *Rel, rA, rB float64) (d0, d1 float64) {
	t0, t1, sv, cw, dd := s.parts(rel)
	a := 2 * math.Atan2(sv, cw)
	return t0 + a*(rA+dd), t1 + a*(rB+dd)
}

// Displacement returns the larger of the two Displacements: at most how
// far any vertex of either body has moved relative to the other since the
// last standard step.
func (s *PairState) Displacement(rel *Rel, rA, rB float64) float64 {
	d0, d1 := s.Displacements(rel, rA, rB)
	return max(d0, d1)
}

// Within reports whether both Displacements are at most threshold: whether
// the pair may be updated iteratively (§3.3). Since atan(x) ≤ x, the cheap
// bound 2·|v|/|w| on the angle settles most calls without the arctangent.
func (s *PairState) Within(rel *Rel, rA, rB, threshold float64) bool {
	return s.within(rel, rA, rB, threshold, false)
}

// within reports whether both Displacements (either one, with either) are
// at most threshold, trying the cheap bound on the angle first.
func (s *PairState) within(rel *Rel, rA, rB, threshold float64, either bool) bool {
	t0, t1, sv, cw, dd := s.parts(rel)
	holds := func(a float64) bool {
		ok0, ok1 := t0+a*(rA+dd) <= threshold, t1+a*(rB+dd) <= threshold
		if either {
			return ok0 || ok1
		}
		return ok0 && ok1
	}
	return cw > 0 && holds(2*(sv/cw)) || holds(2*math.Atan2(sv, cw))
}

// TouchDisplacement returns a bound on how far the vertices that can touch
// the other body have moved relative to it since the last standard step:
// the smaller of the two Displacements, min(d0, d1), where Displacement is
// the larger. It refines Eq. 2 (Lehericey et al. 2013, §3.3), which bounds
// every vertex of both bodies.
//
// Why: a vertex x of A that touches B now lies in B's bounding sphere
// (c_B, rB). Take as pivot the point y of A that lies at c_B now (its
// coordinates in A's frame are BinA). In B's frame x moved by
// m(y) + (R − R_ni)·(x − y), with |x − y| ≤ rB (distances are the same in
// every frame) and |(R − R_ni)·(x − y)| ≤ θ·rB as in Displacements. The
// pivot sits at c_B now and at T_ni(BinA) then, T_ni being the rigid map
// from A's frame to B's at the standard step, and T_ni(BinA,ni) = c_B: so
// |m(y)| = |BinA − BinA,ni|, the translation term of d1, and x moved by at
// most d1 as well as d0. With the roles swapped, a vertex of B that
// touches A moved by at most d0 as well as d1.
//
// The predictive method needs no more (cpubackend uses this bound with
// narrow.MethodPredictive, against narrow.Resolved.TouchThreshold, 0.3 ×
// displacementThreshold): while it stays under that, a vertex that enters
// contact after a standard step lay within the distance extension of the
// other body then (1.1 × TouchThreshold), where the standard step cast
// its predictive ray. The bound is much the smaller for a body that turns while it
// touches one far larger (the ground: the ground's centre swings round in
// the body's frame by θ times their distance, and the ground's radius
// multiplies θ) or of its own size (the other's centre swings by θ times
// the distance between the centres). The plain iterative method keeps Within, the bound on every
// vertex: it finds new contacts only at standard steps, and the more
// frequent ones that Within calls for find them sooner.
func (s *PairState) TouchDisplacement(rel *Rel, rA, rB float64) float64 {
	d0, d1 := s.Displacements(rel, rA, rB)
	return min(d0, d1)
}

// WithinTouch reports whether TouchDisplacement is at most threshold: whether
// the pair may be updated iteratively with prediction. Like Within it
// settles most calls without the arctangent.
func (s *PairState) WithinTouch(rel *Rel, rA, rB, threshold float64) bool {
	return s.within(rel, rA, rB, threshold, true)
}

// Moved returns Eq. 2's bound (the larger of the two directions, as
// Displacement) on how far any vertex of either body has moved relative
// to the other since Last, and false when there is no Last.
func (s *PairState) Moved(rel *Rel, rA, rB float64) (float64, bool) {
	if !s.HasLast {
		return 0, false
	}
	t0, t1, sv, cw, dd := parts(&s.Last, rel)
	a := 2 * math.Atan2(sv, cw)
	return max(t0+a*(rA+dd), t1+a*(rB+dd)), true
}

// EdgesWithin reports whether Edges still hold at placement rel: whether
// the smaller of the two displacements since EdgeRel (Displacements'
// bounds, measured from EdgeRel instead of the last standard step) is at
// most EdgeMargin. The smaller is enough, where Eq. 2 needs the larger:
// the edges' tests are distances, the same in either body's frame (see
// narrow.Direction.AppendEdgePairs).
func (s *PairState) EdgesWithin(rel *Rel, rA, rB float64) bool {
	if !s.HasEdges {
		return false
	}
	t0, t1, sv, cw, dd := parts(&s.EdgeRel, rel)
	m := s.EdgeMargin
	holds := func(a float64) bool { return t0+a*(rA+dd) <= m || t1+a*(rB+dd) <= m }
	return cw > 0 && holds(2*(sv/cw)) || holds(2*math.Atan2(sv, cw))
}

// EdgeMotion returns the smaller of the two displacements from EdgeRel to
// rel (as EdgesWithin measures them) per step since EdgeRel was set, and
// false if it is not set.
func (s *PairState) EdgeMotion(rel *Rel, rA, rB float64) (float64, bool) {
	if !s.HasEdgeRel || s.EdgeSteps <= 0 {
		return 0, false
	}
	t0, t1, sv, cw, dd := parts(&s.EdgeRel, rel)
	a := 2 * math.Atan2(sv, cw)
	return min(t0+a*(rA+dd), t1+a*(rB+dd)) / float64(s.EdgeSteps), true
}

// SetEdges records that Edges were chosen at placement rel with margin
// (edges false: that every edge was searched, and Edges are not set).
func (s *PairState) SetEdges(rel *Rel, margin float64, edges bool) {
	s.EdgeRel, s.EdgeMargin, s.EdgeSteps, s.HasEdges, s.HasEdgeRel = *rel, margin, 0, edges, true
	if !edges {
		s.Edges = s.Edges[:0]
		s.FaceEdges[0], s.FaceEdges[1] = s.FaceEdges[0][:0], s.FaceEdges[1][:0]
	}
}

// SetLast records the pair's placement rel for Moved.
func (s *PairState) SetLast(rel *Rel) { s.Last, s.HasLast = *rel, true }

// parts returns the translation terms of Eq. 2 against the last standard
// step.
func (s *PairState) parts(rel *Rel) (t0, t1, sv, cw, dd float64) { return parts(&s.RelNI, rel) }

// parts returns the translation terms of Eq. 2 between placements ni and
// rel (A's centre in B's frame, B's in A's), |v|, |w| of q_ni⁻¹·q, and dd,
// how far the deformations moved any vertex between them (the odometers'
// increase, Rel.Travel), already added to the translation terms. An
// odometer that went back (a state from another backend) makes dd +Inf:
// nothing is known of the motion.
func parts(ni, rel *Rel) (t0, t1, sv, cw, dd float64) {
	// q_ni⁻¹·q, written out.
	aw, ax, ay, az := ni.Q[0], -ni.Q[1], -ni.Q[2], -ni.Q[3]
	bw, bx, by, bz := rel.Q[0], rel.Q[1], rel.Q[2], rel.Q[3]
	w := aw*bw - ax*bx - ay*by - az*bz
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	t0, t1 = dist3(&rel.AinB, &ni.AinB), dist3(&rel.BinA, &ni.BinA)
	if rel.Travel != ni.Travel {
		da, db := rel.Travel[0]-ni.Travel[0], rel.Travel[1]-ni.Travel[1]
		dd = da + db
		if !(da >= 0 && db >= 0) {
			dd = math.Inf(1)
		}
		t0, t1 = t0+dd, t1+dd
	}
	return t0, t1, math.Sqrt(x*x + y*y + z*z), math.Abs(w), dd
}

// MarkStandard records the placement of shapes a and b at the poses of a
// standard step: later displacements are measured from it, and no
// clearance is known.
func (s *PairState) MarkStandard(a, b *narrow.Shape, pa, pb narrow.Pose) {
	r := Relate(a, b, pa, pb)
	s.SetStandard(&r, [2]bool{})
}

// SetStandard records a standard step at placement rel: the reference of
// Eq. 2, no clearance, and per direction whether a clearance is worth
// seeking later (Quiet).
func (s *PairState) SetStandard(rel *Rel, quiet [2]bool) {
	s.Valid = true
	s.RelNI = *rel
	s.Clear = [2]float64{}
	s.Quiet = quiet
}

// SetClear records a step that stood for a standard step because both
// directions, without rays, were clear: the reference moves to rel, with
// clearances c (positive) measured from there. What is left of a
// clearance c₀ after a displacement d, c₀ − d, is one: a vertex that moves
// less than it from rel has moved less than c₀ from the old reference.
func (s *PairState) SetClear(rel *Rel, c [2]float64) {
	s.RelNI = *rel
	s.Clear = c
}

// Commit makes the rays built this step current.
func (s *PairState) Commit() {
	for k := range s.Rays {
		s.Rays[k], s.Next[k] = s.Next[k], s.Rays[k][:0]
	}
}

// Store keeps the PairStates of the pairs of the broad phase, keyed by pair
// ID. A pair absent from a step is dropped by Sweep; its state objects are
// recycled, so a steady stream of steps allocates nothing.
//
// Engines send the broad phase's pairs in nearly the same order every
// step, so the store also remembers where each pair stood in the batch of
// the last step that ended with Sweep: a Lookup that finds the pair where
// that order predicts touches no map, and neither does Sweep when every
// pair with state came back. The map is touched for pairs that are new,
// moved or gone. The pairs that the order predicts can also be claimed
// concurrently (Claim), before the others are looked up in batch order.
type Store struct {
	m     map[uint64]*PairState
	order []*PairState // by batch index at the last Sweep; nil where no state
	next  []*PairState // this step's order, built by Claim, Lookup and Put
	free  []*PairState
	mCap  int // the size m was made for
	step  uint64
	hint  int // where in order the next pair is expected: after the last one placed (see find)
	seen  int // batch indices below this one have been taken or passed over by find's hint
}

// Begin starts a step.
func (st *Store) Begin() { st.BeginBatch(0) }

// BeginBatch starts a step whose batch has n pairs: Claim may then be
// called for batch indices below n.
func (st *Store) BeginBatch(n int) {
	if len(st.m) == 0 && n > st.mCap {
		// Every pair may be new (a first step, or after Forget): size
		// the map for the batch rather than grow it state by state.
		st.m, st.mCap = make(map[uint64]*PairState, n), n
	} else if st.m == nil {
		st.m = make(map[uint64]*PairState)
	}
	st.step++
	st.hint, st.seen = 0, 0
	if cap(st.next) < n {
		st.next = make([]*PairState, n, n+n/4)
	} else {
		st.next = st.next[:n]
		clear(st.next)
	}
}

// Lookup returns the committed state of pair id, at index i of this step's
// batch, if it exists for shapes (a, b), and marks it seen in this step;
// nil otherwise. If pair id was already looked up or put in this step
// (with any shapes), Lookup returns nil and the batch index it was given
// then as prev, which is -1 otherwise. It changes no committed state (the
// step's record only becomes the store's at Sweep), so a step that fails
// after Lookup leaves the store as it was.
func (st *Store) Lookup(i int, id uint64, a, b narrow.ShapeID) (s *PairState, prev int) {
	s, prev, _ = st.Take(i, id, a, b)
	return s, prev
}

// Claim is a lookup that may run concurrently with others: it finds pair
// id's state where the last step's order predicts it (at index i, else at
// index h of that order, if h ≥ 0: after the state claimed last by the
// same caller, say) or in the map, and if it is for shapes (a, b) and not
// claimed yet in this step, marks it seen at batch index i and returns it.
// Otherwise it returns nil and changes nothing: the pair is then for
// Take, in batch order. Calls for distinct batch indices may run
// concurrently, after BeginBatch (with at least i+1 pairs) and before the
// step's first Take or Lookup. Claims skip the check of duplicate IDs
// that Lookup makes; Take makes it for them, so a step that claims must
// Take every valid pair it did not claim.
func (st *Store) Claim(i int, id uint64, a, b narrow.ShapeID, h int) *PairState {
	s := st.Peek(i, id)
	if s == nil && h >= 0 && h < len(st.order) {
		if c := st.order[h]; c != nil && c.id == id {
			s = c
		}
	}
	if s == nil {
		s = st.m[id] // nothing writes the map during the claims
	}
	if s == nil || s.A != a || s.B != b {
		return nil
	}
	// Two occurrences of one ID may race for its state: one wins, the
	// other is for Take, which sorts out which came first.
	if old := atomic.LoadUint64(&s.step); old == st.step || !atomic.CompareAndSwapUint64(&s.step, old, st.step) {
		return nil
	}
	s.at = int32(i)
	st.next[i] = s
	return s
}

// Take is Lookup for a step that claims (Claim): the first occurrence of
// an ID in batch order gets its state, as with Lookup alone. If pair id's
// state was claimed at a later index, Take takes it over and returns that
// index as from (-1 otherwise): the pair there is a duplicate of this one
// (prev for it is i).
func (st *Store) Take(i int, id uint64, a, b narrow.ShapeID) (s *PairState, prev, from int) {
	s = st.find(i, id)
	if s == nil {
		return nil, -1, -1
	}
	from = -1
	if s.step == st.step {
		if int(s.at) < i {
			return nil, int(s.at), -1
		}
		// Claimed after i: only Claim marks a state ahead of the
		// lookups, and only where it places it.
		from = int(s.at)
		st.next[from] = nil
	}
	if s.pos >= 0 {
		st.hint, st.seen = int(s.pos)+1, i+1
	}
	if s.A != a || s.B != b {
		s.step, s.at = st.step, int32(i) // claimed, but not seen
		return nil, -1, from
	}
	st.place(i, s)
	return s, -1, from
}

// find returns the state of pair id: where the last step's order predicts
// it (at batch index i, or after the last pair placed before i, found or
// claimed), or from the map. Index i comes first: its address does not
// depend on the state found last, so the cache misses of consecutive
// lookups overlap.
func (st *Store) find(i int, id uint64) *PairState {
	if s := st.Peek(i, id); s != nil {
		return s
	}
	// The claims since the last Take (lookups run in batch order, so
	// each index is passed over once).
	for k := st.seen; k < min(i, len(st.next)); k++ {
		if p := st.next[k]; p != nil && p.pos >= 0 {
			st.hint = int(p.pos) + 1
		}
	}
	st.seen = max(st.seen, i)
	if h := st.hint; h != i && h < len(st.order) {
		if s := st.order[h]; s != nil && s.id == id {
			return s
		}
	}
	return st.m[id]
}

// Peek returns the state that the last step's order puts at batch index i
// if it belongs to pair id, else nil: a guess, which a Lookup confirms or
// corrects. It only reads the store, so callers may Peek concurrently
// between Begin and the step's first Lookup, for instance to load the
// states' first cache lines on every core before the lookups, which run in
// batch order on one.
func (st *Store) Peek(i int, id uint64) *PairState {
	if i < len(st.order) {
		if s := st.order[i]; s != nil && s.id == id {
			return s
		}
	}
	return nil
}

// place records s at index i of this step's order.
func (st *Store) place(i int, s *PairState) {
	for len(st.next) <= i {
		st.next = append(st.next, nil)
	}
	st.next[i] = s
	s.step, s.at = st.step, int32(i)
}

// placed reports whether s is in this step's order.
func (st *Store) placed(s *PairState) bool {
	return s.step == st.step && int(s.at) < len(st.next) && st.next[s.at] == s
}

// New returns a fresh state (Valid == false) for shapes (a, b) that is not
// yet in the store: Put installs it when the step commits, Release hands it
// back if the step fails.
func (st *Store) New(a, b narrow.ShapeID) *PairState {
	var s *PairState
	if len(st.free) == 0 {
		// States come in slabs (a quarter of the pairs in the store
		// and in this step's batch, at least 32): a batch of new pairs
		// costs a few allocations, not one each. They are recycled,
		// never freed.
		slab := make([]PairState, max(32, (len(st.m)+len(st.next))/4))
		for i := len(slab) - 1; i >= 0; i-- {
			st.free = append(st.free, &slab[i])
		}
	}
	n := len(st.free)
	s = st.free[n-1]
	st.free = st.free[:n-1]
	s.reset(a, b)
	return s
}

// Put installs s as the state of pair id, at index i of this step's batch,
// recycling any previous state of the pair.
func (st *Store) Put(i int, id uint64, s *PairState) {
	if old := st.m[id]; old != nil && old != s {
		st.drop(old)
	}
	if st.placed(s) {
		st.next[s.at] = nil
	}
	s.id = id
	st.place(i, s)
	st.m[id] = s
}

// Release hands back a state obtained from New that was never installed.
func (st *Store) Release(s *PairState) { st.free = append(st.free, s) }

// reset makes s the fresh state of a pair of shapes a and b. Every field
// a Snapshot encodes is set, those behind a false flag (RelNI, Last,
// EdgeRel and the edge choice's numbers) to zero: a recycled state must
// not carry its last pair's values into a snapshot, whose encoding is
// then a function of the pairs' histories alone.
func (s *PairState) reset(a, b narrow.ShapeID) {
	s.A, s.B, s.Valid, s.HasParams, s.HasLast = a, b, false, false, false
	s.RelNI, s.Last, s.EdgeRel = Rel{}, Rel{}, Rel{}
	s.EdgeMargin, s.EdgeGap, s.EdgeSteps = 0, 0, 0
	s.Edges, s.HasEdges, s.HasEdgeRel = s.Edges[:0], false, false
	s.FaceEdges[0], s.FaceEdges[1] = s.FaceEdges[0][:0], s.FaceEdges[1][:0]
	s.Clear, s.Quiet = [2]float64{}, [2]bool{}
	for k := range s.Rays {
		s.Rays[k] = s.Rays[k][:0]
		s.Next[k] = s.Next[k][:0]
	}
	s.id, s.step, s.at, s.pos = 0, 0, 0, -1
}

// drop removes s from the store and recycles it.
func (st *Store) drop(s *PairState) {
	delete(st.m, s.id)
	if st.placed(s) {
		st.next[s.at] = nil
	}
	if p := int(s.pos); p >= 0 && p < len(st.order) && st.order[p] == s {
		st.order[p] = nil
	}
	s.pos = -1
	st.free = append(st.free, s)
}

// Sweep ends a step: it drops the pairs not seen since Begin (their state
// is forgotten: the pair left the broad phase) and keeps the order of this
// step's batch to guide the next step's Lookups.
func (st *Store) Sweep() {
	n := 0
	for i, s := range st.next {
		if s != nil {
			s.pos = int32(i)
			n++
		}
	}
	if n != len(st.m) {
		// Some pairs were not seen: look for them among the last step's,
		// then, if some are left (put without a Sweep since), everywhere.
		for _, s := range st.order {
			if s != nil && !st.placed(s) {
				st.drop(s)
			}
		}
		if n != len(st.m) {
			from := len(st.free)
			for _, s := range st.m {
				if !st.placed(s) {
					st.drop(s)
				}
			}
			st.sortFree(from)
		}
	}
	st.order, st.next = st.next, st.order[:0]
}

// sortFree puts the states recycled since st.free[from] in the order of
// their pairs' IDs: a map gave them in no particular order, and the free
// list's order decides which memory the next new pairs take.
func (st *Store) sortFree(from int) {
	slices.SortFunc(st.free[from:], func(a, b *PairState) int { return cmp.Compare(a.id, b.id) })
}

// Len returns the number of pairs with state.
func (st *Store) Len() int { return len(st.m) }

// Forget drops every pair's state.
func (st *Store) Forget() {
	from := len(st.free)
	for _, s := range st.m {
		s.pos = -1
		st.free = append(st.free, s)
	}
	st.sortFree(from)
	clear(st.m)
	clear(st.order)
	clear(st.next)
	st.order, st.next = st.order[:0], st.next[:0]
}

// Pos returns the index of the state's pair in the batch of the last
// step that ended with Sweep, or -1 if it was not in it.
func (s *PairState) Pos() int { return int(s.pos) }
