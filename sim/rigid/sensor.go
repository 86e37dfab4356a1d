package rigid

import (
	"fmt"
	"slices"

	"github.com/irtcd/irtcd/narrow"
)

// SensorEvent is a change in what a sensor (BodyDef.Sensor) overlaps, seen
// by the last step: body Body began (Begin) or ceased to overlap sensor
// Sensor. A body removed while it overlapped a sensor, or a sensor removed
// while something overlapped it, ends its overlaps at the next step.
type SensorEvent struct {
	Sensor, Body BodyID
	Begin        bool
}

// updateSensors tests the step's sensor pairs (w.sensorKeys: their boxes
// overlap) with narrow.Overlap at the poses of the step's start, the poses
// the narrow phase sees, and records the overlaps and their changes since
// the last step (events in pair order: both lists are sorted by pair ID).
// A pair whose bodies have not moved since the last update (a body asleep
// in a static sensor) keeps its answer untested. A pair that cannot be
// tested fails the step with a *PairError; the overlaps and events are
// then still the last step's.
func (w *World) updateSensors() error {
	next := w.overlapsPrev[:0]
	prev := w.overlaps
	for _, k := range w.sensorKeys {
		a, b := BodyID(k>>32), BodyID(uint32(k))
		ba, bb := &w.bodies[a], &w.bodies[b]
		var hit bool
		if !ba.moved && !bb.moved && !w.retestSensors {
			_, hit = slices.BinarySearch(prev, k)
		} else {
			var err error
			if hit, err = narrow.Overlap(ba.shape, bb.shape, ba.pose, bb.pose); err != nil {
				w.overlapsPrev = next
				return &PairError{ID: k, A: a, B: b, Err: fmt.Errorf("sensor overlap: %w", err)}
			}
			w.stats.SensorTests++
		}
		if hit {
			next = append(next, k)
		}
	}
	for i := range w.bodies {
		w.bodies[i].moved = false
	}
	w.retestSensors = false
	events := w.eventsPrev[:0]
	diffKeys(prev, next, func(k uint64, begin bool) { events = append(events, w.sensorEvent(k, begin)) })
	w.overlaps, w.overlapsPrev = next, prev
	w.events, w.eventsPrev = events, w.events
	w.undo.stage = stageSensors
	return nil
}

// diffKeys calls f, in key order, with each key of next that prev lacks
// (begin) and each key of prev that next lacks (not begin); both are
// sorted.
func diffKeys(prev, next []uint64, f func(k uint64, begin bool)) {
	i, j := 0, 0
	for i < len(prev) || j < len(next) {
		switch {
		case j == len(next) || i < len(prev) && prev[i] < next[j]:
			f(prev[i], false)
			i++
		case i == len(prev) || next[j] < prev[i]:
			f(next[j], true)
			j++
		default:
			i++
			j++
		}
	}
}

// sensorEvent returns the event of pair k: which of its bodies is the
// sensor, and whether the overlap begins.
func (w *World) sensorEvent(k uint64, begin bool) SensorEvent {
	a, b := BodyID(k>>32), BodyID(uint32(k))
	if w.bodies[b].sensor {
		a, b = b, a
	}
	return SensorEvent{Sensor: a, Body: b, Begin: begin}
}

// SensorEvents appends the last step's sensor events to dst, in pair
// order (PairID), and returns it.
func (w *World) SensorEvents(dst []SensorEvent) []SensorEvent { return append(dst, w.events...) }

// SensorOverlaps appends to dst, in ID order, the bodies that overlapped
// sensor id at the last step, and returns it; for a body id that is not a
// sensor, the sensors it overlapped.
func (w *World) SensorOverlaps(id BodyID, dst []BodyID) []BodyID {
	n := len(dst)
	for _, k := range w.overlaps {
		switch a, b := BodyID(k>>32), BodyID(uint32(k)); id {
		case a:
			dst = append(dst, b)
		case b:
			dst = append(dst, a)
		}
	}
	slices.Sort(dst[n:])
	return dst
}
