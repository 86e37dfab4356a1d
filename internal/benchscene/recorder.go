package benchscene

import (
	"context"
	"time"

	"github.com/irtcd/irtcd/narrow"
)

// Recorder is a narrow.Backend that records the shapes registered through
// it (in registration order) and a copy of every batch it is given before
// passing them on, so that a benchmark can replay a simulated scene's
// narrow-phase input through other backends.
type Recorder struct {
	narrow.Backend
	Shapes  []*narrow.Shape
	Batches [][]narrow.Pair
	// Skip is how many batches, the first ones, are passed on without
	// being recorded (to replay only the end of a long scene).
	Skip int
	seen int
}

// RegisterShape records s and registers it with the wrapped backend.
func (r *Recorder) RegisterShape(s *narrow.Shape) (narrow.ShapeID, error) {
	r.Shapes = append(r.Shapes, s)
	return r.Backend.RegisterShape(s)
}

// Detect records a copy of pairs (past the first Skip batches) and runs
// the wrapped backend.
func (r *Recorder) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	if r.seen++; r.seen > r.Skip {
		r.Batches = append(r.Batches, append([]narrow.Pair(nil), pairs...))
	}
	return r.Backend.Detect(ctx, pairs, res)
}

// Replay registers the recorded shapes with be, in order.
func (r *Recorder) Replay(be narrow.Backend) error {
	for _, s := range r.Shapes {
		if _, err := be.RegisterShape(s); err != nil {
			return err
		}
	}
	return nil
}

// ReplayTimed replays the recording through be: it registers the recorded
// shapes, then runs every recorded batch through be.Detect in order into
// res, and calls step with the batch's index, res and Detect's duration.
// before, if not nil, runs before each batch, outside the timing.
func (r *Recorder) ReplayTimed(ctx context.Context, be narrow.Backend, res *narrow.Result, before func(k int), step func(k int, res *narrow.Result, d time.Duration)) error {
	if err := r.Replay(be); err != nil {
		return err
	}
	for k, batch := range r.Batches {
		if before != nil {
			before(k)
		}
		t0 := time.Now()
		if err := be.Detect(ctx, batch, res); err != nil {
			return err
		}
		step(k, res, time.Since(t0))
	}
	return nil
}
