package optixbackend

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// Times is where the device's part of a step went: copying the queries
// to the device, the kernel (launch to completion) and copying the hits
// back.
type Times struct {
	Upload, Kernel, Download time.Duration
}

// rayDevice is what the tracer needs of a device (device, or a fake in
// tests).
type rayDevice interface {
	setShapes(prims []narrow.Primitive, nodes []narrow.BVHNode) error
	trace(shapes []int32, useBVH bool, queries []narrow.RayQuery, dst []int32, fwd, bwd []narrow.Hit) (Times, error)
	close()
}

// span is where a shape lies in the device's arrays.
type span struct{ prim, nprims, node, nnodes int32 }

// tracer is the cpubackend.Tracer that runs irtcd_trace on the device.
// Each shape a batch names is uploaded once (its primitives and
// hierarchy are immutable); a shape released by UnregisterShape is
// dropped and the arrays compacted at the next batch. When the device
// fails, the batch goes back to the CPU backend (cpubackend.ErrTraceHere)
// and the next batch tries the device again.
type tracer struct {
	mu     sync.Mutex
	dev    rayDevice
	useBVH bool // walk the shapes' hierarchies (narrow.TraversalBVH)
	spans  map[*narrow.Shape]span
	order  []*narrow.Shape    // the shapes on the device, in array order
	prims  []narrow.Primitive // the host copy of the device's arrays
	nodes  []narrow.BVHNode
	dirty  bool    // the arrays changed since the last upload
	shapes []int32 // the batch's spans: four arrays (see irt_trace)
	times  Times   // of the last batch
	rays   int     // of the last batch
	failed int     // batches the device failed
}

func newTracer(dev rayDevice, useBVH bool) *tracer {
	return &tracer{dev: dev, useBVH: useBVH, spans: make(map[*narrow.Shape]span)}
}

// add appends s to the host arrays.
func (t *tracer) add(s *narrow.Shape) span {
	sp := span{prim: int32(len(t.prims)), nprims: int32(s.NumPrims()), node: int32(len(t.nodes))}
	t.prims = s.AppendPrimitives(t.prims)
	t.nodes = s.AppendBVH(t.nodes)
	sp.nnodes = int32(len(t.nodes)) - sp.node
	t.spans[s] = sp
	t.dirty = true
	return sp
}

// Trace answers the batch on the device (cpubackend.Tracer).
func (t *tracer) Trace(ctx context.Context, b *cpubackend.RayBatch) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	ns := len(b.Shapes)
	t.shapes = slices.Grow(t.shapes[:0], 4*ns)[:4*ns]
	for i, s := range b.Shapes {
		sp, ok := t.spans[s]
		if !ok {
			sp = t.add(s)
			t.order = append(t.order, s)
		}
		t.shapes[i], t.shapes[ns+i], t.shapes[2*ns+i], t.shapes[3*ns+i] = sp.prim, sp.nprims, sp.node, sp.nnodes
	}
	if t.dirty {
		if err := t.dev.setShapes(t.prims, t.nodes); err != nil {
			return t.fail(err)
		}
		t.dirty = false
	}
	// The kernel writes narrow.Hit's layout (TestLayout): the hits land
	// in the batch as they are.
	tm, err := t.dev.trace(t.shapes, t.useBVH, b.Queries, b.Dst, b.Fwd, b.Bwd)
	if err != nil {
		return t.fail(err)
	}
	t.times, t.rays = tm, len(b.Queries)
	return nil
}

// fail counts a device failure and returns the error that hands the
// batch back to the CPU backend.
func (t *tracer) fail(err error) error {
	t.failed++
	return fmt.Errorf("%w: %w: %v", cpubackend.ErrTraceHere, ErrDevice, err)
}

// forget drops s from the device's arrays (uploaded again at the next
// batch).
func (t *tracer) forget(s *narrow.Shape) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.spans[s]; !ok {
		return
	}
	delete(t.spans, s)
	t.order = slices.DeleteFunc(t.order, func(o *narrow.Shape) bool { return o == s })
	t.prims, t.nodes = t.prims[:0], t.nodes[:0]
	for _, o := range t.order {
		t.add(o)
	}
	t.dirty = true
}

// last returns the last batch's times and rays.
func (t *tracer) last() (Times, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.times, t.rays
}

// failures returns how many batches the device failed.
func (t *tracer) failures() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// close releases the device.
func (t *tracer) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dev.close()
}
