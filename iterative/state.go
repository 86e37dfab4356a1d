package iterative

import (
	"math"

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
	A, B  narrow.ShapeID
	Valid bool // a standard step has run since the state was created
	RelNI Rel  // the pair's relative placement at the last standard step
	// Params caches the parameters resolved for the pair's shapes (they
	// depend on nothing else); HasParams reports that it is set.
	Params    narrow.Resolved
	HasParams bool
	// Clear is, per direction, its clearance at RelNI
	// (narrow.Direction.Clearance; 0 when unknown, and always 0 for a
	// direction with rays): while the direction's displacement
	// (Displacements) stays below it, a standard step would cast no ray
	// from its vertices. When Eq. 2 fails but both directions are clear,
	// the standard step would return nothing and leave no rays: the
	// backend may skip it, returning the same nothing, and record the new
	// placement with what is left of the clearances (SetClear).
	Clear [2]float64
	// Quiet reports, per direction, that a clearance is worth seeking
	// when Eq. 2 fails (as judged at the last standard step: in
	// cpubackend, it cast no ray, though it had vertices to cull, and no
	// search failed for it).
	Quiet [2]bool
	Rays  [2][]Ray
	Next  [2][]Ray // being built this step; swapped into Rays by Commit
	seen  uint64
}

// Rel is the relative placement of a pair that Eq. 2 compares: where each
// body's bounding-sphere centre (narrow.Shape.BoundingSphere) lies in the
// other's frame, and the rotation of B relative to A (q_A⁻¹·q_B).
type Rel struct {
	BinA, AinB [3]float64 // B's centre in A's frame, A's centre in B's frame
	Q          [4]float64 // w, x, y, z
}

// Relate returns the relative placement of shapes a and b at poses pa and
// pb (unit quaternions). It is SetPair for code off the hot path.
func Relate(a, b *narrow.Shape, pa, pb narrow.Pose) Rel {
	var d [2]narrow.Direction
	narrow.SetPair(&d, a, b, &pa, &pb)
	var r Rel
	r.SetPair(&d, &pa, &pb)
	return r
}

// SetPair sets r from the two directions of a pair prepared by
// narrow.SetPair at poses pa and pb: each centre is mapped by its
// direction's Src→Dst transform, and the relative rotation is computed from
// the quaternions. (Scalar stores through the receiver: see
// narrow.Transform.SetPose.)
func (r *Rel) SetPair(d *[2]narrow.Direction, pa, pb *narrow.Pose) {
	cx, cy, cz, _ := d[0].Src.BoundingSphere()
	m, t := &d[0].SrcToDst.R, &d[0].SrcToDst.T
	r.AinB[0] = m[0]*cx + m[1]*cy + m[2]*cz + t[0]
	r.AinB[1] = m[3]*cx + m[4]*cy + m[5]*cz + t[1]
	r.AinB[2] = m[6]*cx + m[7]*cy + m[8]*cz + t[2]
	cx, cy, cz, _ = d[1].Src.BoundingSphere()
	m, t = &d[1].SrcToDst.R, &d[1].SrcToDst.T
	r.BinA[0] = m[0]*cx + m[1]*cy + m[2]*cz + t[0]
	r.BinA[1] = m[3]*cx + m[4]*cy + m[5]*cz + t[1]
	r.BinA[2] = m[6]*cx + m[7]*cy + m[8]*cz + t[2]
	// q_A⁻¹·q_B, written out.
	aw, ax, ay, az := pa.Rot.W, -pa.Rot.V[0], -pa.Rot.V[1], -pa.Rot.V[2]
	bw, bx, by, bz := pb.Rot.W, pb.Rot.V[0], pb.Rot.V[1], pb.Rot.V[2]
	r.Q[0] = aw*bw - ax*bx - ay*by - az*bz
	r.Q[1] = aw*bx + ax*bw + ay*bz - az*by
	r.Q[2] = aw*by - ax*bz + ay*bw + az*bx
	r.Q[3] = aw*bz + ax*by - ay*bx + az*bw
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
func (s *PairState) Displacements(rel *Rel, rA, rB float64) (d0, d1 float64) {
	t0, t1, sv, cw := s.parts(rel)
	a := 2 * math.Atan2(sv, cw)
	return t0 + a*rA, t1 + a*rB
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
	t0, t1, sv, cw := s.parts(rel)
	if cw > 0 {
		if a := 2 * (sv / cw); t0+a*rA <= threshold && t1+a*rB <= threshold {
			return true
		}
	}
	a := 2 * math.Atan2(sv, cw)
	return t0+a*rA <= threshold && t1+a*rB <= threshold
}

// parts returns the translation terms of Eq. 2 (A's centre in B's frame,
// B's in A's) and |v|, |w| of q_ni⁻¹·q.
func (s *PairState) parts(rel *Rel) (t0, t1, sv, cw float64) {
	ni := &s.RelNI
	// q_ni⁻¹·q, written out.
	aw, ax, ay, az := ni.Q[0], -ni.Q[1], -ni.Q[2], -ni.Q[3]
	bw, bx, by, bz := rel.Q[0], rel.Q[1], rel.Q[2], rel.Q[3]
	w := aw*bw - ax*bx - ay*by - az*bz
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	t0, t1 = dist3(&rel.AinB, &ni.AinB), dist3(&rel.BinA, &ni.BinA)
	return t0, t1, math.Sqrt(x*x + y*y + z*z), math.Abs(w)
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
type Store struct {
	m    map[uint64]*PairState
	free []*PairState
	step uint64
}

// Begin starts a step.
func (st *Store) Begin() {
	if st.m == nil {
		st.m = make(map[uint64]*PairState)
	}
	st.step++
}

// Lookup returns the committed state of pair id if it exists for shapes
// (a, b), and marks it seen in this step; nil otherwise. It changes no
// state, so a step that fails after Lookup leaves the store as it was.
func (st *Store) Lookup(id uint64, a, b narrow.ShapeID) *PairState {
	s, ok := st.m[id]
	if !ok || s.A != a || s.B != b {
		return nil
	}
	s.seen = st.step
	return s
}

// New returns a fresh state (Valid == false) for shapes (a, b) that is not
// yet in the store: Put installs it when the step commits, Release hands it
// back if the step fails.
func (st *Store) New(a, b narrow.ShapeID) *PairState {
	var s *PairState
	if n := len(st.free); n > 0 {
		s = st.free[n-1]
		st.free = st.free[:n-1]
	} else {
		s = new(PairState)
	}
	s.reset(a, b)
	return s
}

// Put installs s as the state of pair id, recycling any previous one.
func (st *Store) Put(id uint64, s *PairState) {
	if old, ok := st.m[id]; ok && old != s {
		st.free = append(st.free, old)
	}
	s.seen = st.step
	st.m[id] = s
}

// Release hands back a state obtained from New that was never installed.
func (st *Store) Release(s *PairState) { st.free = append(st.free, s) }

func (s *PairState) reset(a, b narrow.ShapeID) {
	s.A, s.B, s.Valid, s.HasParams = a, b, false, false
	s.Clear, s.Quiet = [2]float64{}, [2]bool{}
	for k := range s.Rays {
		s.Rays[k] = s.Rays[k][:0]
		s.Next[k] = s.Next[k][:0]
	}
}

// Sweep drops the pairs not seen since Begin: their state is forgotten (the
// pair left the broad phase).
func (st *Store) Sweep() {
	for id, s := range st.m {
		if s.seen != st.step {
			delete(st.m, id)
			st.free = append(st.free, s)
		}
	}
}

// Len returns the number of pairs with state.
func (st *Store) Len() int { return len(st.m) }

// Forget drops every pair's state.
func (st *Store) Forget() {
	for id, s := range st.m {
		delete(st.m, id)
		st.free = append(st.free, s)
	}
}
