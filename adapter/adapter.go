// Package adapter is the engine-neutral half of an engine integration:
// pairs in, contacts out.
//
// An engine's broad phase reports candidate pairs; the engine's glue adds
// them to a Batch with the bodies' poses, the Batch runs one
// narrow.Backend.Detect for the whole step (each pair becomes per-vertex
// ray jobs in both orders inside the backend, as the paper's GPU grid
// wants), and the glue reads each pair's contacts and manifolds back by
// pair ID and hands them to the engine's solver. Shapes are registered
// with the backend once, however many bodies use them.
//
// The box2d glue lives in adapter/box2dadapter; the 3D scenes of package
// sim use the same Batch.
package adapter

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/irtcd/irtcd/narrow"
)

// Batch collects one step's pairs for a backend and keeps the step's
// results. It is not safe for concurrent use. Once warm (after a few steps
// with similar pair counts) a step allocates nothing.
type Batch struct {
	backend narrow.Backend
	ids     map[*narrow.Shape]narrow.ShapeID
	pairs   []narrow.Pair
	res     narrow.Result
	index   map[uint64]int // pair ID → position in res.Pairs (once indexed)
	indexed bool           // index holds the last Run's pairs
}

// NewBatch returns an empty batch that runs on backend.
func NewBatch(backend narrow.Backend) *Batch {
	return &Batch{backend: backend, ids: map[*narrow.Shape]narrow.ShapeID{}, index: map[uint64]int{}}
}

// Backend returns the batch's backend.
func (b *Batch) Backend() narrow.Backend { return b.backend }

// Register registers s with the backend the first time it is seen and
// returns its ID; later calls return the same ID.
func (b *Batch) Register(s *narrow.Shape) (narrow.ShapeID, error) {
	if id, ok := b.ids[s]; ok {
		return id, nil
	}
	id, err := b.backend.RegisterShape(s)
	if err != nil {
		return 0, fmt.Errorf("adapter: register shape: %w", err)
	}
	b.ids[s] = id
	return id, nil
}

// Release releases s from the backend (narrow.Backend.UnregisterShape) if
// it is registered: for a shape that no pair will name again, such as the
// shape of a destroyed body. A later pair with s registers it anew.
func (b *Batch) Release(s *narrow.Shape) error {
	id, ok := b.ids[s]
	if !ok {
		return nil
	}
	delete(b.ids, s)
	if err := b.backend.UnregisterShape(id); err != nil {
		return fmt.Errorf("adapter: release shape %d: %w", id, err)
	}
	return nil
}

// Reshape hands the backend s in place of old, a deformation of it (the
// shape of a deformable body at a new step, narrow.Shape.Deform): under
// old's ID when the backend is a narrow.Reshaper and s is a deformation of
// old not registered yet, so that the pairs keep their temporal state
// (their steps stay iterative while the motion, deformation included,
// stays under Eq. 2's threshold); otherwise, or when the backend answers
// errors.ErrUnsupported, old is released and s registered anew (its pairs
// start afresh). Call it only when no other
// body uses old: the backend's old shape becomes s for every pair that
// names it. It returns s's ID.
func (b *Batch) Reshape(old, s *narrow.Shape) (narrow.ShapeID, error) {
	id, ok := b.ids[old]
	if _, taken := b.ids[s]; ok && !taken && s != old && s.SameTopology(old) {
		if r, can := b.backend.(narrow.Reshaper); can {
			switch err := r.ReshapeShape(id, s); {
			case err == nil:
				delete(b.ids, old)
				b.ids[s] = id
				return id, nil
			case !errors.Is(err, errors.ErrUnsupported):
				return 0, fmt.Errorf("adapter: reshape shape %d: %w", id, err)
			}
		}
	}
	nid, err := b.Register(s)
	if err != nil {
		return 0, err
	}
	if s != old {
		if err := b.Release(old); err != nil {
			return 0, err
		}
	}
	return nid, nil
}

// Prune releases every registered shape for which keep returns false (see
// Release), in the order of their IDs, and returns how many it released.
// An engine whose bodies come and go calls it now and then with the
// shapes its bodies still hold.
func (b *Batch) Prune(keep func(*narrow.Shape) bool) (released int, err error) {
	var drop []*narrow.Shape
	for s := range b.ids {
		if !keep(s) {
			drop = append(drop, s)
		}
	}
	// The map gives them in no particular order; the backend sees the
	// releases, and the error lists their failures, in one.
	slices.SortFunc(drop, func(x, y *narrow.Shape) int { return cmp.Compare(b.ids[x], b.ids[y]) })
	for _, s := range drop {
		err = errors.Join(err, b.Release(s))
	}
	return len(drop), err
}

// Shapes returns the number of shapes registered through the batch.
func (b *Batch) Shapes() int { return len(b.ids) }

// Begin starts a new step: it forgets the previous step's pairs (their
// results stay readable until Run).
func (b *Batch) Begin() { b.pairs = b.pairs[:0] }

// Add queues the pair id between shapes a and b at the given poses. The
// ID must be unique within the step and stable across steps for the same
// pair: the backend keeps its temporal state (iterative and predictive
// rays) under it, and drops it when the ID is missing from a step.
func (b *Batch) Add(id uint64, a, bs *narrow.Shape, poseA, poseB narrow.Pose) error {
	ia, err := b.Register(a)
	if err != nil {
		return err
	}
	ib, err := b.Register(bs)
	if err != nil {
		return err
	}
	b.pairs = append(b.pairs, narrow.Pair{ID: id, A: ia, B: ib, PoseA: poseA, PoseB: poseB})
	return nil
}

// Len returns the number of pairs queued for this step.
func (b *Batch) Len() int { return len(b.pairs) }

// Run detects every queued pair in one backend call. A pair the backend
// rejects (bad pose, unknown shape) gets its error in its PairResult and
// does not affect the others; Run itself fails only when the whole step
// does (cancelled context, closed backend).
func (b *Batch) Run(ctx context.Context) error {
	b.res.Reset()
	clear(b.index)
	b.indexed = false
	if err := b.backend.Detect(ctx, b.pairs, &b.res); err != nil {
		b.indexed = true // Result finds no pair of a failed step
		return fmt.Errorf("adapter: detect %d pairs: %w", len(b.pairs), err)
	}
	return nil
}

// Result returns the last Run's result for pair id, or nil if the pair
// was not in that step. It stays valid until the next Run. The first call
// after a Run indexes the step's pairs by ID (an engine that walks Results
// in order never pays for it).
func (b *Batch) Result(id uint64) *narrow.PairResult {
	if !b.indexed {
		for i := range b.res.Pairs {
			b.index[b.res.Pairs[i].ID] = i
		}
		b.indexed = true
	}
	i, ok := b.index[id]
	if !ok {
		return nil
	}
	return &b.res.Pairs[i]
}

// Stats returns the last Run's statistics.
func (b *Batch) Stats() narrow.Stats { return b.res.Stats }

// DetectTimes returns where the time of the last successful Run's Detect
// went, and false if the backend does not report it (narrow.Timed).
func (b *Batch) DetectTimes() (narrow.DetectTimes, bool) {
	t, ok := b.backend.(narrow.Timed)
	if !ok {
		return narrow.DetectTimes{}, false
	}
	return t.LastDetectTimes(), true
}

// Results returns every pair's result of the last Run, in the order the
// pairs were added.
func (b *Batch) Results() []narrow.PairResult { return b.res.Pairs }
