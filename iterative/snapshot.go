package iterative

import (
	"cmp"
	"slices"

	"github.com/irtcd/irtcd/narrow"
)

// Snapshot is a copy of a Store's pair states, taken between steps by
// Store.Save and put back by Store.Restore: an engine that rolls back to
// an earlier step restores its narrow phase with its bodies, and the
// steps that follow find the rays, predictions, Eq. 2 references and kept
// pairs of edges they found the first time. Its memory is reused by the
// next Save into it, so saving at every step allocates nothing once warm.
type Snapshot struct {
	states []PairState // deep copies, in the order of the saved step's batch; id and pos set
	n      int
}

// Len returns the number of pair states in the snapshot.
func (sn *Snapshot) Len() int { return sn.n }

// copyFrom makes s a deep copy of o, reusing s's slices.
func (s *PairState) copyFrom(o *PairState) {
	rays, next, edges, faces := s.Rays, s.Next, s.Edges, s.FaceEdges
	*s = *o
	for k := range s.Rays {
		s.Rays[k] = append(rays[k][:0], o.Rays[k]...)
		s.Next[k] = next[k][:0]
		s.FaceEdges[k] = append(faces[k][:0], o.FaceEdges[k]...)
	}
	s.Edges = append(edges[:0], o.Edges...)
}

// Save copies every pair state into dst, replacing what it held. It must
// run between steps (not during one); it changes nothing in the store.
func (st *Store) Save(dst *Snapshot) {
	dst.n = 0
	add := func(s *PairState) {
		if dst.n == len(dst.states) {
			dst.states = append(dst.states, PairState{})
		}
		dst.states[dst.n].copyFrom(s)
		dst.n++
	}
	for _, s := range st.order {
		if s != nil {
			add(s)
		}
	}
	if dst.n != len(st.m) {
		// States put without a Sweep since (a store driven by hand):
		// the rest, by pair ID, out of any order.
		first := dst.n
		for _, s := range st.m {
			if s.pos < 0 || int(s.pos) >= len(st.order) || st.order[s.pos] != s {
				add(s)
				dst.states[dst.n-1].pos = -1
			}
		}
		slices.SortFunc(dst.states[first:dst.n], func(a, b PairState) int { return cmp.Compare(a.id, b.id) })
	}
}

// Restore replaces every pair state of the store with those of src (see
// Save), which it leaves unchanged. shapes maps the shape IDs that src's
// states were saved with to the IDs they name now (the shapes may have
// been registered again, or with another backend); a state whose shapes
// it does not map (ok false) is left out, and that pair starts afresh with
// a standard step, as a new pair. Like Save, it runs between steps.
func (st *Store) Restore(src *Snapshot, shapes func(a, b narrow.ShapeID) (na, nb narrow.ShapeID, ok bool)) {
	// A rollback mostly finds the pairs it saved still in the store: their
	// states are overwritten in place, without touching the map, and
	// marked with a step number no state has yet; the unmarked ones go.
	st.step++
	mark := st.step
	clear(st.order)
	clear(st.next)
	st.order, st.next = st.order[:0], st.next[:0]
	if st.m == nil {
		st.m = make(map[uint64]*PairState, src.n)
	}
	n := 0
	for i := range src.states[:src.n] {
		o := &src.states[i]
		a, b, ok := shapes(o.A, o.B)
		if !ok {
			continue
		}
		s := st.m[o.id]
		if s == nil {
			s = st.New(a, b)
			st.m[o.id] = s
		}
		s.copyFrom(o)
		s.A, s.B = a, b
		s.step, s.at = mark, 0
		// The saved batch index guides the next step's lookups, nothing
		// more: one far beyond the states (a decoded snapshot's) is
		// dropped rather than grow the order to it.
		if p := int(s.pos); p >= 0 && p < 2*src.n+1024 {
			if p >= len(st.order) {
				st.order = append(st.order, make([]*PairState, p+1-len(st.order))...)
			}
			st.order[p] = s
		} else {
			s.pos = -1
		}
		n++
	}
	if len(st.m) > n {
		from := len(st.free)
		for id, s := range st.m {
			if s.step != mark {
				delete(st.m, id)
				s.pos = -1
				st.free = append(st.free, s)
			}
		}
		st.sortFree(from)
	}
}
