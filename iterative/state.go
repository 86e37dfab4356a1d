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
// pose at the last standard (non-iterative) step and, per direction
// (0: A's vertices on B, 1: B's vertices on A), the rays to update,
// sorted by vertex.
type PairState struct {
	A, B  narrow.ShapeID
	Valid bool // a standard step has run since the state was created
	RelNI Rel  // the pair's relative placement at the last standard step
	// Params caches the parameters resolved for the pair's shapes (they
	// depend on nothing else); HasParams reports that it is set.
	Params    narrow.Resolved
	HasParams bool
	Rays      [2][]Ray
	Next      [2][]Ray // being built this step; swapped into Rays by Commit
	seen      uint64
}

// Rel is the relative placement of a pair that Eq. 2 compares: where each
// body's origin lies in the other's frame, and the rotation of B relative
// to A (q_A⁻¹·q_B).
type Rel struct {
	BinA, AinB [3]float64
	Q          [4]float64 // w, x, y, z
}

// qinvrot rotates v by the inverse of unit quaternion q.
func qinvrot(q [4]float64, v [3]float64) [3]float64 {
	// v' = v + 2w(v×u) + 2u×(u×v)... with u = -q.v for the inverse.
	w, ux, uy, uz := q[0], -q[1], -q[2], -q[3]
	cx, cy, cz := uy*v[2]-uz*v[1], uz*v[0]-ux*v[2], ux*v[1]-uy*v[0]
	return [3]float64{
		v[0] + 2*(w*cx+uy*cz-uz*cy),
		v[1] + 2*(w*cy+uz*cx-ux*cz),
		v[2] + 2*(w*cz+ux*cy-uy*cx),
	}
}

// Relate returns the relative placement of poses a and b (unit quaternions).
func Relate(a, b narrow.Pose) Rel {
	qa := [4]float64{a.Rot.W, a.Rot.V[0], a.Rot.V[1], a.Rot.V[2]}
	d := [3]float64{b.Pos[0] - a.Pos[0], b.Pos[1] - a.Pos[1], b.Pos[2] - a.Pos[2]}
	qb := [4]float64{b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]}
	bInA, aInB := qinvrot(qa, d), qinvrot(qb, [3]float64{-d[0], -d[1], -d[2]})
	var r Rel
	r.SetFrames(&a, &b, &bInA, &aInB)
	return r
}

// SetFrames is Relate for callers that already know where each body's
// origin lies in the other's frame (the translations of the two
// narrow.Direction transforms of a pair): only the relative rotation is
// computed.
func (r *Rel) SetFrames(a, b *narrow.Pose, bInA, aInB *[3]float64) {
	r.BinA[0], r.BinA[1], r.BinA[2] = bInA[0], bInA[1], bInA[2]
	r.AinB[0], r.AinB[1], r.AinB[2] = aInB[0], aInB[1], aInB[2]
	// q_A⁻¹·q_B, written out (scalar stores: see narrow.Transform.SetPose).
	aw, ax, ay, az := a.Rot.W, -a.Rot.V[0], -a.Rot.V[1], -a.Rot.V[2]
	bw, bx, by, bz := b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]
	r.Q[0] = aw*bw - ax*bx - ay*by - az*bz
	r.Q[1] = aw*bx + ax*bw + ay*bz - az*by
	r.Q[2] = aw*by - ax*bz + ay*bw + az*bx
	r.Q[3] = aw*bz + ax*by - ay*bx + az*bw
}

func dist3(a, b *[3]float64) float64 {
	x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return math.Sqrt(x*x + y*y + z*z)
}

// Displacement returns Eq. 2 of Lehericey et al. 2013 for the pair now at
// rel, against its last standard step: ‖t_ni − t‖ + angle(q_ni, q) ×
// maxRadius, evaluated in both bodies' frames (rays run both ways) and
// maximised. The angle is 2·atan2(|v|, |w|) of q_ni⁻¹·q, accurate for tiny
// rotations.
func (s *PairState) Displacement(rel *Rel, maxRadius float64) float64 {
	t, sv, cw := s.parts(rel)
	return t + 2*math.Atan2(sv, cw)*maxRadius
}

// Within reports Displacement(rel, maxRadius) <= threshold: whether the
// pair may be updated iteratively (§3.3). Since atan(x) ≤ x, the cheap
// bound 2·|v|/|w| on the angle settles most calls without the arctangent.
func (s *PairState) Within(rel *Rel, maxRadius, threshold float64) bool {
	t, sv, cw := s.parts(rel)
	if cw > 0 && t+2*(sv/cw)*maxRadius <= threshold {
		return true
	}
	return t+2*math.Atan2(sv, cw)*maxRadius <= threshold
}

// parts returns the translation term of Eq. 2 and |v|, |w| of q_ni⁻¹·q.
func (s *PairState) parts(rel *Rel) (t, sv, cw float64) {
	ni := &s.RelNI
	// q_ni⁻¹·q, written out.
	aw, ax, ay, az := ni.Q[0], -ni.Q[1], -ni.Q[2], -ni.Q[3]
	bw, bx, by, bz := rel.Q[0], rel.Q[1], rel.Q[2], rel.Q[3]
	w := aw*bw - ax*bx - ay*by - az*bz
	x := aw*bx + ax*bw + ay*bz - az*by
	y := aw*by - ax*bz + ay*bw + az*bx
	z := aw*bz + ax*by - ay*bx + az*bw
	t = max(dist3(&rel.BinA, &ni.BinA), dist3(&rel.AinB, &ni.AinB))
	return t, math.Sqrt(x*x + y*y + z*z), math.Abs(w)
}

// MarkStandard records the poses of a standard step: later displacements
// are measured from them.
func (s *PairState) MarkStandard(a, b narrow.Pose) { s.RelNI = Relate(a, b) }

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
