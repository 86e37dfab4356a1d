package iterative

import "github.com/irtcd/irtcd/narrow"

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
	Valid bool           // a standard step has run since the state was created
	RelNI [2]narrow.Pose // [0]: B in A's frame, [1]: A in B's frame, at the last standard step
	Rays  [2][]Ray
	Next  [2][]Ray // being built this step; swapped into Rays by Commit
	seen  uint64
}

// Displacement returns Eq. 2 for the pair at poses (a, b), evaluated in both
// frames (rays run both ways) and maximised, with maxRadius the larger of
// the two shapes' radii.
func (s *PairState) Displacement(a, b narrow.Pose, maxRadius float64) float64 {
	d0 := Displacement(s.RelNI[0], narrow.Relative(a, b), maxRadius)
	d1 := Displacement(s.RelNI[1], narrow.Relative(b, a), maxRadius)
	return max(d0, d1)
}

// MarkStandard records the poses of a standard step.
func (s *PairState) MarkStandard(a, b narrow.Pose) {
	s.RelNI[0] = narrow.Relative(a, b)
	s.RelNI[1] = narrow.Relative(b, a)
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
	s.A, s.B, s.Valid = a, b, false
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
