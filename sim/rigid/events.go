package rigid

import (
	"math"
	"slices"

	"github.com/irtcd/irtcd/narrow"
)

// ContactEvent is a change in whether two bodies touch, seen by the last
// step: bodies A < B began (Begin) or ceased to have contacts (vertex or
// edge contacts; speculative gaps do not count). Bodies that fall asleep
// touching still touch: their pair leaves the narrow phase, not the
// contact. A removed body's contacts end at the next step.
type ContactEvent struct {
	A, B  BodyID
	Begin bool
}

// updateTouching records which pairs touch after this step's narrow phase
// (w.pairs and res, in pair order) and the changes since the last step. A
// pair that touched and is absent from this step's narrow phase still
// touches if it is dormant: both its bodies are still there, neither
// moves (asleep, static, or kinematic without velocity) and neither was
// placed since the last step (a static body moved with SetPose), so the
// broad phase left it out with nothing changed between them. It clears
// the placed flags.
func (w *World) updateTouching(res []narrow.PairResult) {
	prev, next := w.touching, w.touchingPrev[:0]
	j := 0
	dormant := func(k uint64) bool {
		a, b := &w.bodies[k>>32], &w.bodies[uint32(k)]
		return !a.removed && !b.removed && !a.Awake() && !b.Awake() && !a.moving() && !b.moving() && !a.placed && !b.placed
	}
	keep := func(upTo uint64) { // last step's pairs before upTo that are not in this step's
		for ; j < len(prev) && prev[j] <= upTo; j++ {
			if prev[j] < upTo && dormant(prev[j]) {
				next = append(next, prev[j])
			}
		}
	}
	for i := range w.pairs {
		k := w.pairs[i].ID
		keep(k)
		if len(res[i].Touching()) > 0 {
			next = append(next, k)
		}
	}
	keep(math.MaxUint64)
	events := w.contactEventsPrev[:0]
	diffKeys(prev, next, func(k uint64, begin bool) {
		events = append(events, ContactEvent{A: BodyID(k >> 32), B: BodyID(uint32(k)), Begin: begin})
	})
	w.touching, w.touchingPrev = next, prev
	w.contactEvents, w.contactEventsPrev = events, w.contactEvents
	w.undo.stage = stageTouching
	for i := range w.bodies {
		w.bodies[i].placed = false
	}
}

// ContactEvents appends the last step's contact events to dst, in pair
// order (PairID), and returns it.
func (w *World) ContactEvents(dst []ContactEvent) []ContactEvent {
	return append(dst, w.contactEvents...)
}

// Touching reports whether bodies a and b touched at the last step (see
// ContactEvent).
func (w *World) Touching(a, b BodyID) bool {
	_, ok := slices.BinarySearch(w.touching, PairID(a, b))
	return ok
}
