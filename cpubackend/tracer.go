package cpubackend

import (
	"context"
	"errors"

	"github.com/irtcd/irtcd/narrow"
)

// Tracer traces a step's standard rays somewhere other than the backend's
// workers: on a GPU (package optixbackend), or in a test. With a Tracer
// (WithTracer) a step runs in three parts: the work items cull their
// vertices and prepare each standard ray's query
// (narrow.Direction.StandardQuery) on the workers, the Tracer answers
// all of the step's queries in one call, and the work items complete the
// rays (narrow.Direction.StandardOutcome) and go on as without one.
// Iterative walks, clearance searches, contacts and manifolds stay on the
// workers; with an AsyncTracer the iterative work items run while it
// traces, since they need none of its rays.
//
// Trace must set b.Fwd[i] and b.Bwd[i] to the hits of b.Queries[i] on
// b.Shapes[b.Dst[i]], exactly as narrow.Shape.TraceQuery gives them (with
// any traversal: they agree bit for bit); the backend's output is then
// the same as without a Tracer. Trace is called with the backend's lock
// held, one step at a time. An error fails the step as a whole, as a
// cancelled context does: nothing is committed; except an error that
// wraps ErrTraceHere, after which the backend traces the batch itself on
// its workers (logging the error as a warning) and the step goes on,
// with the same output.
type Tracer interface {
	Trace(ctx context.Context, b *RayBatch) error
}

// AsyncTracer is a Tracer that can hand a batch to its device and return
// before the hits are in (a GPU: the copies and the kernel are queued).
// The backend then runs the step's iterative work items while the device
// traces, and waits for it before completing the standard rays, so the
// device's round trip costs a step only what the iterative items do not
// cover.
type AsyncTracer interface {
	Tracer
	// Start begins tracing b as Trace would. Unless it returns an error,
	// the backend calls Wait next, before it reads b's hits or touches
	// b, and calls nothing else of the tracer in between.
	Start(ctx context.Context, b *RayBatch) error
	// Wait returns once the hits of the batch that Start began are set,
	// with the errors Trace would return (ErrTraceHere included).
	Wait() error
}

// MinBatcher is implemented by a Tracer that is worth calling only for
// batches of at least MinBatch rays: a device whose round trip costs more
// than a few rays traced on the workers. The backend traces a smaller
// batch on its own workers, with the same output, and does not call the
// Tracer for it; a step after one that cast fewer standard rays than the
// minimum gathers no batch at all and runs as without a Tracer.
type MinBatcher interface {
	Tracer
	MinBatch() int
}

// RayBatch is one step's standard rays, in the order of the work items.
// The backend owns it and reuses its storage from step to step.
type RayBatch struct {
	Shapes   []*narrow.Shape   // the shapes the rays are cast on, each once
	Queries  []narrow.RayQuery // the rays, each in its shape's frame
	Dst      []int32           // per query: its shape's index in Shapes
	Fwd, Bwd []narrow.Hit      // per query, set by Trace: its forward and backward hits
}

// BatchStorage is implemented by a Tracer that keeps the batch's rays in
// storage of its own: a GPU's page-locked host memory, which the device
// copies from and into at full speed, where the backend's Go memory would
// be staged through a bounce buffer first. The workers then write the
// queries straight into that storage and read the hits from it.
type BatchStorage interface {
	// Reserve sets b.Queries, b.Dst, b.Fwd and b.Bwd to n elements each
	// (their contents need not be kept), in storage that stays valid
	// until the next Reserve or until the backend is closed. It returns
	// false when it has no storage for n rays, leaving the four slices
	// nil or as the backend last set them: the backend then uses storage
	// of its own for that step.
	Reserve(b *RayBatch, n int) bool
}

// ErrTraceHere, wrapped by a Tracer's error, asks the backend to trace
// the batch itself rather than fail the step: a device that ran out of
// memory, or whose driver failed, then slows a step down instead of
// stopping the engine.
var ErrTraceHere = errors.New("cpubackend: the tracer asks the backend to trace the batch")
