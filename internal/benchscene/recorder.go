package benchscene

import (
	"context"

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
