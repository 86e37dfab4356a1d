package rigid

// A step that fails leaves the world as it was (World.Step). What a step
// changes before its last point of failure (integrate's check for
// non-finite states) is either copied at the step's start and copied
// back on failure (the bodies, the sweep's order, the statistics), or
// built in a second buffer that the step swaps in and a failure swaps
// back (sensor overlaps and events, touching pairs and contact events,
// solver points, warm-starting impulses). The narrow phase's per-pair
// state is not put back: it keeps what it learnt from the poses it saw,
// which are the bodies' poses again.

// stepStage is how far a step went: which buffers it has swapped in.
type stepStage uint8

const (
	stageStart    stepStage = iota
	stageSensors            // updateSensors swapped in the overlaps and sensor events
	stageTouching           // updateTouching swapped in the touching pairs and contact events
	stageContacts           // buildContacts swapped in the solver points
	stageSolved             // solve swapped in the warm-starting impulses
)

// stepUndo is what a failed step puts back.
type stepUndo struct {
	stage         stepStage
	bodies        []Body
	sapOrder      []int32
	retestSensors bool
	stats         StepStats
}

// beginStep records what the step is about to change.
func (w *World) beginStep() {
	u := &w.undo
	u.stage = stageStart
	u.bodies = append(u.bodies[:0], w.bodies...)
	u.sapOrder = append(u.sapOrder[:0], w.sapOrder...)
	u.retestSensors = w.retestSensors
	u.stats = w.stats
}

// rollback puts the world back as beginStep found it. Pairs and Results
// are empty until the next step, whose pairs the failed one may not have
// finished.
func (w *World) rollback() {
	u := &w.undo
	copy(w.bodies, u.bodies)
	copy(w.sapOrder, u.sapOrder)
	w.retestSensors, w.stats = u.retestSensors, u.stats
	if u.stage >= stageSensors {
		w.overlaps, w.overlapsPrev = w.overlapsPrev, w.overlaps
		w.events, w.eventsPrev = w.eventsPrev, w.events
	}
	if u.stage >= stageTouching {
		w.touching, w.touchingPrev = w.touchingPrev, w.touching
		w.contactEvents, w.contactEventsPrev = w.contactEventsPrev, w.contactEvents
	}
	if u.stage >= stageContacts {
		w.contacts, w.contactsPrev = w.contactsPrev, w.contacts
	}
	if u.stage >= stageSolved {
		w.warm, w.warmNext = w.warmNext, w.warm
	}
	u.stage = stageStart
	w.pairs, w.noResults = w.pairs[:0], true
}
