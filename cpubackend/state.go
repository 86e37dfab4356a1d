package cpubackend

import (
	"fmt"

	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
)

// State is a saved copy of a Backend's temporal state (SaveState,
// RestoreState): per pair, the rays and predictions its iterative steps
// update (Algorithms 1-2 of Lehericey et al. 2013 and the predictive rays
// of 2013b), its placement at its last standard step (Eq. 2's reference),
// its clearances and its kept pairs of edges. The backend's output at a
// step depends on its input and on this state alone, so a backend
// restored to the state it had after step k returns, for the pairs and
// poses of step k+1 and on, the same contacts, bit for bit, as it did the
// first time: what an engine that rolls back (rollback networking,
// replays, undo) needs from its narrow phase. The zero value is an empty
// state, ready for SaveState; its memory is reused by the next SaveState
// into it, so saving at every step allocates nothing once warm.
type State struct {
	params narrow.Params
	saved  bool
	shapes []*narrow.Shape // the backend's shapes by ID when saved (nil: released)
	pairs  iterative.Snapshot
}

// Pairs returns the number of pair states held.
func (s *State) Pairs() int { return s.pairs.Len() }

// SaveState copies the backend's temporal state into dst, replacing what
// it held. Call it between steps (it waits for a running Detect to end).
func (b *Backend) SaveState(dst *State) error {
	if dst == nil {
		return fmt.Errorf("%w: SaveState needs a non-nil *cpubackend.State", narrow.ErrBadParams)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	dst.params, dst.saved = b.params, true
	dst.shapes = append(dst.shapes[:0], b.shapes...)
	b.store.Save(&dst.pairs)
	return nil
}

// RestoreState replaces the backend's temporal state with src, saved by
// SaveState from this backend or another one with the same parameters
// (else an error wrapping narrow.ErrBadParams). Pair states follow their
// shapes, not their shape IDs: a state saved for shapes that are now
// registered under other IDs (registered again after a release, or with
// another backend) is restored under the new ones; one whose shapes are
// not registered now is dropped, and its pair starts afresh with a
// standard step. src is left unchanged and can be restored again.
func (b *Backend) RestoreState(src *State) error {
	if src == nil || !src.saved {
		return fmt.Errorf("%w: RestoreState needs a state filled by SaveState", narrow.ErrBadParams)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	if src.params != b.params {
		return fmt.Errorf("%w: the state was saved by a backend with other parameters (%+v, not %+v)", narrow.ErrBadParams, src.params, b.params)
	}
	clear(b.remap)
	mapped := false
	id := func(x narrow.ShapeID) (narrow.ShapeID, bool) {
		if x < 0 || int(x) >= len(src.shapes) || src.shapes[x] == nil {
			return -1, false
		}
		s := src.shapes[x]
		if int(x) < len(b.shapes) && b.shapes[x] == s {
			return x, true
		}
		if !mapped {
			// The shapes' current IDs, the latest registration of each.
			if b.remap == nil {
				b.remap = make(map[*narrow.Shape]narrow.ShapeID)
			}
			for i, t := range b.shapes {
				if t != nil {
					b.remap[t] = narrow.ShapeID(i)
				}
			}
			mapped = true
		}
		n, ok := b.remap[s]
		return n, ok
	}
	b.store.Restore(&src.pairs, func(x, y narrow.ShapeID) (narrow.ShapeID, narrow.ShapeID, bool) {
		na, okA := id(x)
		nb, okB := id(y)
		return na, nb, okA && okB
	})
	return nil
}
