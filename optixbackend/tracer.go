package optixbackend

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unsafe"

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
	// start queues the tracing of len(dst) queries (see irt_trace) and
	// may return before their hits are in fwd and bwd; wait returns once
	// they are, with where the time went. Every start that returns nil
	// is followed by a wait before the next start.
	start(shapes []int32, useBVH bool, queries []narrow.RayQuery, dst []int32, fwd, bwd []narrow.Hit) error
	wait() (Times, error)
	// hostAlloc returns n bytes of host memory, aligned to 16 bytes,
	// that every device copies from and into at full speed (page-locked
	// and mapped for all of them); hostFree releases it.
	hostAlloc(n int) (unsafe.Pointer, error)
	hostFree(p unsafe.Pointer)
	close()
}

// span is where a shape lies in the device's arrays.
type span struct{ prim, nprims, node, nnodes int32 }

// tracer is the cpubackend.Tracer (and cpubackend.BatchStorage) that runs irtcd_trace on one device or
// several. Each shape a batch names is uploaded once to every device (its
// primitives and hierarchy are immutable); a shape released by
// UnregisterShape is dropped and the arrays compacted at the next batch.
// With several devices a batch is cut into contiguous ranges of queries,
// one per device, traced at the same time (the multi-GPU split of
// Lehericey et al. 2013b, §4; their pairs stay on one GPU because their
// temporal state lives there, ours lives on the CPU, so any split will
// do, and each query's hits are the same on any device). When a device
// fails, the batch goes back to the CPU backend (cpubackend.ErrTraceHere)
// and the next batch tries the devices again.
type tracer struct {
	mu       sync.Mutex
	devs     []rayDevice
	useBVH   bool // walk the shapes' hierarchies (narrow.TraversalBVH)
	spans    map[*narrow.Shape]span
	order    []*narrow.Shape    // the shapes on the devices, in array order
	prims    []narrow.Primitive // the host copy of the devices' arrays
	nodes    []narrow.BVHNode
	stale    []bool             // per device: the arrays changed since its last upload
	scratchP []narrow.Primitive // replace's: the new shape's primitives
	scratchN []narrow.BVHNode   // replace's: and its hierarchy
	shapes   []int32            // the batch's spans: four arrays (see irt_trace)
	work     []chan part        // per device but the first: its helper's parts
	done     chan part          // the helpers' parts, traced
	times    Times              // of the last batch
	first    part               // the part of the batch in flight on the first device (Start)
	nparts   int                // the parts of the batch in flight (Start)
	rays     int                // of the last batch
	failed   int                // batches the devices failed
	minPart  int                // minPart, or less in tests
	log      *slog.Logger

	// The batches' storage (BatchStorage), in the first device's
	// page-locked host memory: room for stageCap rays, carved into the
	// queries, forward hits, backward hits and shape indices.
	pageable bool // keep the batches in Go memory (a baseline for benchmarks)
	minBatch int  // the fewest rays a batch sent to the devices holds (MinBatch)
	batches  int  // batches sent to the devices (Start)
	stage    unsafe.Pointer
	stageCap int
	noStage  bool // an allocation failed: batches stay in Go memory
}

// part is one device's range of a batch.
type part struct {
	dev    int
	lo, hi int
	b      *cpubackend.RayBatch
	times  Times
	err    error
}

// minPart is the fewest queries worth a device of their own: below it a
// batch uses fewer devices (a launch and its copies cost tens of
// microseconds).
const minPart = 8192

func newTracer(devs []rayDevice, useBVH bool, log *slog.Logger) *tracer {
	t := &tracer{devs: devs, useBVH: useBVH, spans: make(map[*narrow.Shape]span), stale: make([]bool, len(devs)), minPart: minPart, log: log}
	if len(devs) > 1 {
		t.done = make(chan part, len(devs))
		t.work = make([]chan part, len(devs))
		for d := 1; d < len(devs); d++ {
			t.work[d] = make(chan part, 1)
			go t.helper(t.work[d])
		}
	}
	return t
}

// helper traces the parts sent to one device until its channel closes.
func (t *tracer) helper(work chan part) {
	for pt := range work {
		if t.start(&pt) {
			pt.times, pt.err = t.devs[pt.dev].wait()
		}
		t.done <- pt
	}
}

// start queues one part on its device; false if it failed (pt.err).
func (t *tracer) start(pt *part) bool {
	dev, b := t.devs[pt.dev], pt.b
	if t.stale[pt.dev] {
		if pt.err = dev.setShapes(t.prims, t.nodes); pt.err != nil {
			return false
		}
		t.stale[pt.dev] = false
	}
	// The kernel writes narrow.Hit's layout (TestLayout): the hits land
	// in the batch as they are.
	pt.err = dev.start(t.shapes, t.useBVH, b.Queries[pt.lo:pt.hi], b.Dst[pt.lo:pt.hi], b.Fwd[pt.lo:pt.hi], b.Bwd[pt.lo:pt.hi])
	return pt.err == nil
}

// add appends s to the host arrays.
func (t *tracer) add(s *narrow.Shape) span {
	sp := span{prim: int32(len(t.prims)), nprims: int32(s.NumPrims()), node: int32(len(t.nodes))}
	t.prims = s.AppendPrimitives(t.prims)
	t.nodes = s.AppendBVH(t.nodes)
	sp.nnodes = int32(len(t.nodes)) - sp.node
	t.spans[s] = sp
	for d := range t.stale {
		t.stale[d] = true
	}
	return sp
}

// Trace answers the batch on the device (cpubackend.Tracer).
func (t *tracer) Trace(ctx context.Context, b *cpubackend.RayBatch) error {
	if err := t.Start(ctx, b); err != nil {
		return err
	}
	return t.Wait()
}

var (
	_ cpubackend.AsyncTracer = (*tracer)(nil)
	_ cpubackend.MinBatcher  = (*tracer)(nil)
)

// MinBatch returns the fewest rays a batch must hold to be sent to the
// devices (cpubackend.MinBatcher; see WithMinBatch).
func (t *tracer) MinBatch() int { return t.minBatch }

// Start queues the batch on the devices and returns
// (cpubackend.AsyncTracer): the backend's workers run the step's
// iterative work items while the first device copies and traces, and
// the other devices' helpers trace their parts. A device's failure is
// Wait's to report: Start returns only the context's error, before
// anything is queued.
func (t *tracer) Start(ctx context.Context, b *cpubackend.RayBatch) error {
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
	n := len(b.Queries)
	k := max(1, min(len(t.devs), n/t.minPart))
	for d := k - 1; d >= 1; d-- {
		t.work[d] <- part{dev: d, lo: d * n / k, hi: (d + 1) * n / k, b: b}
	}
	t.first = part{dev: 0, lo: 0, hi: n / k, b: b}
	t.start(&t.first)
	t.nparts, t.rays = k, n
	t.batches++
	return nil
}

// Wait returns once every device has answered the batch that Start
// queued (cpubackend.AsyncTracer). A device's failure hands the batch
// back to the CPU backend (ErrTraceHere).
func (t *tracer) Wait() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	first := &t.first
	if first.err == nil {
		first.times, first.err = t.devs[0].wait()
	}
	t.times = first.times
	err := first.err
	for range t.nparts - 1 {
		pt := <-t.done
		if pt.err != nil && err == nil {
			err = pt.err
		}
		// The devices run at once: each part of the times is the
		// slowest device's.
		t.times.Upload = max(t.times.Upload, pt.times.Upload)
		t.times.Kernel = max(t.times.Kernel, pt.times.Kernel)
		t.times.Download = max(t.times.Download, pt.times.Download)
	}
	t.first, t.nparts = part{}, 0
	if err != nil {
		return t.fail(err)
	}
	return nil
}

// rayBytes is one ray's share of the batch's storage: its query (72
// bytes), its forward and backward hits (16 each) and its shape's index.
const rayBytes = int(unsafe.Sizeof(narrow.RayQuery{}) + 2*unsafe.Sizeof(narrow.Hit{}) + unsafe.Sizeof(int32(0)))

// minStage is the fewest rays the batch's storage holds.
const minStage = 4096

// Reserve puts the batch in page-locked host memory
// (cpubackend.BatchStorage): copied from pageable memory, a batch
// crosses to the device at a fraction of the bus's speed, staged by the
// driver through buffers of its own. The storage grows to twice the
// largest batch yet, so a steady state allocates nothing, and page-locking
// (slow: the kernel pins every page) comes rarely. When the device cannot give page-locked memory (or with pageable set), the
// batches stay in the backend's Go memory: slower, with the same output.
func (t *tracer) Reserve(b *cpubackend.RayBatch, n int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pageable || t.noStage || len(t.devs) == 0 {
		return false // b's slices are the backend's own, or nil
	}
	if n > t.stageCap {
		// b's slices may point into the storage about to be freed.
		b.Queries, b.Dst, b.Fwd, b.Bwd = nil, nil, nil, nil
		t.freeStage()
		c := max(minStage, 2*n)
		p, err := t.devs[0].hostAlloc(c*rayBytes + 8)
		if err != nil {
			t.noStage = true
			t.log.Warn("irtcd: no page-locked host memory for the GPU's batches; they stay in Go memory (slower copies)", "rays", c, "err", err)
			return false
		}
		t.stage, t.stageCap = p, c
	}
	// Carved for this batch: the queries, right after them the shapes'
	// indices (one copy up, see irt_trace), and from the next multiple of
	// 8 bytes the forward and then the backward hits (one copy down).
	// Every part is aligned for its type: 72 and 16 bytes a ray are
	// multiples of 8.
	q := unsafe.Slice((*narrow.RayQuery)(t.stage), n)
	dst := unsafe.Slice((*int32)(unsafe.Add(t.stage, n*int(unsafe.Sizeof(narrow.RayQuery{})))), n)
	off := (n*int(unsafe.Sizeof(narrow.RayQuery{})+unsafe.Sizeof(int32(0))) + 7) &^ 7
	hits := unsafe.Slice((*narrow.Hit)(unsafe.Add(t.stage, off)), 2*n)
	b.Queries, b.Dst, b.Fwd, b.Bwd = q[:n:n], dst[:n:n], hits[:n:n], hits[n:2*n:2*n]
	return true
}

// freeStage releases the batches' storage.
func (t *tracer) freeStage() {
	if t.stage != nil {
		t.devs[0].hostFree(t.stage)
		t.stage, t.stageCap = nil, 0
	}
}

// fail counts a device failure and returns the error that hands the
// batch back to the CPU backend.
func (t *tracer) fail(err error) error {
	t.failed++
	return fmt.Errorf("%w: %w: %v", cpubackend.ErrTraceHere, ErrDevice, err)
}

// forget drops s from the device's arrays (uploaded again at the next
// batch).
// replace puts s, a deformation of old (as many primitives and nodes: the
// same triangles, the hierarchy refitted), in old's place in the host
// arrays, so that a reshaped shape does not rebuild the arrays of every
// other shape (forget); s then goes to the devices with their next
// upload. If old is not on the devices it does nothing (s is added when
// a batch names it).
func (t *tracer) replace(old, s *narrow.Shape) {
	t.mu.Lock()
	sp, ok := t.spans[old]
	if !ok {
		t.mu.Unlock()
		return
	}
	t.scratchP = s.AppendPrimitives(t.scratchP[:0])
	t.scratchN = s.AppendBVH(t.scratchN[:0])
	if _, on := t.spans[s]; on || len(t.scratchP) != int(sp.nprims) || len(t.scratchN) != int(sp.nnodes) {
		t.mu.Unlock()
		t.forget(old)
		return
	}
	copy(t.prims[sp.prim:], t.scratchP)
	copy(t.nodes[sp.node:], t.scratchN)
	delete(t.spans, old)
	t.spans[s] = sp
	t.order[slices.Index(t.order, old)] = s
	for d := range t.stale {
		t.stale[d] = true
	}
	t.mu.Unlock()
}

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
	for d := range t.stale {
		t.stale[d] = true
	}
}

// last returns the last batch's times and rays.
func (t *tracer) last() (Times, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.times, t.rays
}

// failures returns how many batches the devices failed.
func (t *tracer) failures() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.failed
}

// close stops the helpers and releases the devices.
func (t *tracer) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for d, w := range t.work {
		if w != nil {
			close(w)
			t.work[d] = nil
		}
	}
	t.freeStage()
	for _, dev := range t.devs {
		dev.close()
	}
}
