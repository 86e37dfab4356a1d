package rigid

import (
	"fmt"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// State is a saved copy of everything a World's later steps depend on
// (World.SaveState, World.RestoreState): the bodies (poses, velocities,
// sleep), the solver's warm-starting impulses, the touching pairs and
// sensor overlaps that events are diffed against, the step count, and the
// narrow phase's temporal state. The zero value is empty; its memory is
// reused by the next SaveState into it, so saving at every step
// allocates nothing once warm.
type State struct {
	saved bool
	persisted
	backend cpubackend.State
}

// Step returns the step count of the saved world (World.StepCount).
func (s *State) Step() int { return s.steps }

// SaveState copies the world's state into dst, replacing what it held,
// so that RestoreState can later bring this world (or another one with
// the same Config and backend parameters: a replay, a server's copy) back
// to it. It fails with ErrNoState if dst is nil or the backend is not a
// cpubackend.Stateful (the CPU, GPU and plugin backends are), and with
// ErrClosed after Close.
func (w *World) SaveState(dst *State) error {
	if w.closed {
		return fmt.Errorf("rigid: save state: %w", ErrClosed)
	}
	if dst == nil {
		return fmt.Errorf("rigid: save state: %w: nil *State to save into", ErrNoState)
	}
	sb, ok := w.backend.(cpubackend.Stateful)
	if !ok {
		return fmt.Errorf("rigid: save state: %w: the backend (%T) cannot save its own", ErrNoState, w.backend)
	}
	if err := sb.SaveState(&dst.backend); err != nil {
		return fmt.Errorf("rigid: save state: %w", err)
	}
	dst.saved = true
	dst.persisted.copyFrom(&w.persisted)
	return nil
}

// RestoreState brings the world back to src, saved by SaveState: the
// steps that follow are, bit for bit, those that followed the save (given
// the same calls between them: SetPose, AddBody...), whatever was done
// since. Bodies added after the save are gone and their IDs will be
// handed out again; bodies removed since are back; *Body pointers from
// before are stale. Shapes are registered and released with the narrow
// phase as the restored bodies need. The last step's reports
// (ContactEvents, Touching, SensorEvents, SensorOverlaps, ContactPoints,
// Stats) are those of the saved world; Pairs and Results are empty until
// the next Step. The configuration and the pair filter are not part of
// the state. src is left unchanged and can be restored again. On error
// (ErrNoState, ErrClosed, or the backend's) the world is unchanged.
func (w *World) RestoreState(src *State) error {
	if w.closed {
		return fmt.Errorf("rigid: restore state: %w", ErrClosed)
	}
	if src == nil || !src.saved {
		return fmt.Errorf("rigid: restore state: %w: the State was not filled by SaveState", ErrNoState)
	}
	sb, ok := w.backend.(cpubackend.Stateful)
	if !ok {
		return fmt.Errorf("rigid: restore state: %w: the backend (%T) cannot restore its own", ErrNoState, w.backend)
	}
	// The shapes the restored bodies use must be registered before the
	// backend's pair states are matched to them.
	for i := range src.bodies {
		if b := &src.bodies[i]; !b.removed {
			if _, err := w.batch.Register(b.shape); err != nil {
				return fmt.Errorf("rigid: restore state: %w", err)
			}
		}
	}
	if err := sb.RestoreState(&src.backend); err != nil {
		w.pruneShapes() // the shapes registered for nothing
		return fmt.Errorf("rigid: restore state: %w", err)
	}
	w.persisted.copyFrom(&src.persisted)
	w.pairs, w.noResults = w.pairs[:0], true
	if err := w.pruneShapes(); err != nil {
		return fmt.Errorf("rigid: restore state: %w", err)
	}
	return nil
}

// pruneShapes releases from the narrow phase the shapes that no body of
// the world uses.
func (w *World) pruneShapes() error {
	_, err := w.batch.Prune(func(s *narrow.Shape) bool {
		for i := range w.bodies {
			if b := &w.bodies[i]; !b.removed && b.shape == s {
				return true
			}
		}
		return false
	})
	return err
}
