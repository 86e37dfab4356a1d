// Package optixbackend is the GPU narrow phase: the CPU backend's
// pipeline (package cpubackend) with every standard ray of a step traced
// in one batch by a CUDA kernel, one thread per ray (the two-index grid
// of Lehericey et al. 2013, §3.5, flattened to one index per ray). With
// narrow.TraversalBVH a ray walks the shape's hierarchy (the CPU's own
// nodes, uploaded once); with narrow.TraversalBasic it tests every
// primitive (their §4.2). Culling, iterative walks (Algorithms 1-2),
// predictions, contacts and manifolds stay on the CPU's workers (see
// cpubackend.Tracer). The workers write each step's queries straight
// into page-locked host memory that the backend lends them
// (cpubackend.BatchStorage), which the device copies at the bus's speed.
//
// The kernel rounds as Go does (no fused multiply-adds; see kernels.cu),
// so the backend's output equals the CPU backend's bit for bit, for any
// narrow.Params: its tests check that on the device.
//
// The package reaches the CUDA driver at run time (dlopen of
// libcuda.so.1) and carries its kernels as PTX, which the driver compiles
// for the device: building it needs neither the CUDA toolkit nor a GPU,
// and New fails with ErrNoDevice where there is none (or in a build
// without cgo). The kernels are CUDA C++ rather than OptiX programs: the
// name keeps the product's layout, and RT cores are not used.
package optixbackend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// ErrNoDevice reports that no CUDA device could be opened: no driver, no
// device, a build without cgo, or kernels the driver cannot load. The
// error that wraps it says which.
var ErrNoDevice = errors.New("optixbackend: no usable CUDA device")

// ErrDevice reports that the device failed during a step: that step's
// rays are traced on the CPU's workers instead, with the same results
// (cpubackend.ErrTraceHere), the error is logged as a warning and
// counted (DeviceFailures), and the next step tries the device again.
var ErrDevice = errors.New("optixbackend: device error")

// Option configures New.
type Option func(*config)

type config struct {
	ordinals []int
	cpu      []cpubackend.Option
	log      *slog.Logger
	pageable bool // batches in Go memory (tests' baseline; see tracer.Reserve)
	minBatch int  // see WithMinBatch
	minSet   bool // WithMinBatch was given
	workers  int  // WithWorkers' count (0: GOMAXPROCS)
}

// WithDevice selects the CUDA device by ordinal (default 0).
func WithDevice(ordinal int) Option { return WithDevices(ordinal) }

// WithDevices spreads each step's rays over several CUDA devices, in
// contiguous ranges traced at the same time (Lehericey et al. 2013b, §4);
// a batch of fewer than 8,192 rays a device uses fewer devices. The
// output does not depend on the number of devices.
func WithDevices(ordinals ...int) Option {
	return func(c *config) { c.ordinals = slices.Clone(ordinals) }
}

// WithWorkers sets the number of CPU workers that prepare and finish the
// rays (default GOMAXPROCS).
func WithWorkers(n int) Option {
	return func(c *config) {
		c.cpu = append(c.cpu, cpubackend.WithWorkers(n))
		c.workers = n
	}
}

// WithMinBatch sets the fewest rays a step's batch must hold to go to the
// device: a smaller batch is traced on the CPU's workers (with the same
// output), where the device's round trip would cost more than the tracing
// it replaces. The default is MinBatchPerWorker rays per worker; 0 sends
// every batch to the device.
func WithMinBatch(n int) Option {
	return func(c *config) { c.minBatch, c.minSet = max(n, 0), true }
}

// MinBatchPerWorker is the default of WithMinBatch, per CPU worker: the
// rays one worker traces with a BVH in about the time of a device's
// round trip for a small batch (docs/BENCHMARKS.md, "GPU backend").
const MinBatchPerWorker = 128

// WithLogger routes the backend's logs (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.log, c.cpu = l, append(c.cpu, cpubackend.WithLogger(l)) }
}

// Backend is the GPU narrow phase. It implements narrow.Backend and
// narrow.Timed; like cpubackend.Backend, its methods are safe for
// concurrent use and serialised.
type Backend struct {
	cpu *cpubackend.Backend
	tr  *tracer
	dev string

	mu     sync.Mutex
	shapes map[narrow.ShapeID]*narrow.Shape // registered, not released
	uses   map[*narrow.Shape]int            // IDs registered for each shape
}

var (
	_ narrow.Backend = (*Backend)(nil)
	_ narrow.Timed   = (*Backend)(nil)
)

// New opens the CUDA device and returns a backend with the given
// parameters. Without a usable device it fails with an error wrapping
// ErrNoDevice.
func New(p narrow.Params, opts ...Option) (*Backend, error) {
	var c config
	for _, o := range opts {
		o(&c)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ordinals := c.ordinals
	if len(ordinals) == 0 {
		ordinals = []int{0}
	}
	c.minBatch = c.minRays()
	var devs []rayDevice
	var names []string
	for _, o := range ordinals {
		dev, err := openDevice(o)
		if err != nil {
			for _, d := range devs {
				d.close()
			}
			return nil, fmt.Errorf("%w: device %d: %v", ErrNoDevice, o, err)
		}
		devs, names = append(devs, dev), append(names, dev.name)
	}
	return newOn(p, devs, strings.Join(names, " + "), &c)
}

// minRays returns the minimum batch New's backend sends to the device:
// WithMinBatch's, or MinBatchPerWorker per worker.
func (c *config) minRays() int {
	if c.minSet {
		return c.minBatch
	}
	w := c.workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	return MinBatchPerWorker * w
}

// newOn returns a backend that traces on devs (New's devices, or fakes in
// tests), and closes them if it cannot.
func newOn(p narrow.Params, devs []rayDevice, name string, c *config) (*Backend, error) {
	log := c.log
	if log == nil {
		log = slog.Default()
	}
	tr := newTracer(devs, p.Traversal == narrow.TraversalBVH, log)
	tr.pageable, tr.minBatch = c.pageable, c.minBatch
	cpu, err := cpubackend.New(p, append(c.cpu, cpubackend.WithTracer(tr))...)
	if err != nil {
		tr.close()
		return nil, err
	}
	return &Backend{cpu: cpu, tr: tr, dev: name, shapes: make(map[narrow.ShapeID]*narrow.Shape), uses: make(map[*narrow.Shape]int)}, nil
}

// Device returns the name of the CUDA device (of each device, joined by
// " + ", with WithDevices).
func (b *Backend) Device() string { return b.dev }

// Params returns the backend's parameters.
func (b *Backend) Params() narrow.Params { return b.cpu.Params() }

// RegisterShape makes s available to pairs under the returned ID (see
// narrow.Backend). Its primitives go to the device with the first batch
// that casts rays on it.
func (b *Backend) RegisterShape(s *narrow.Shape) (narrow.ShapeID, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id, err := b.cpu.RegisterShape(s)
	if err == nil {
		b.shapes[id] = s
		b.uses[s]++
	}
	return id, err
}

// ReshapeShape replaces shape id by s, a deformation of it (see
// narrow.Reshaper and cpubackend.Backend.ReshapeShape). Unless the old
// shape is registered under another ID too, the new one takes its place
// in the device arrays (the same number of primitives and nodes), which
// go to the device with the next batch; otherwise the new shape goes
// there when a batch first needs it.
func (b *Backend) ReshapeShape(id narrow.ShapeID, s *narrow.Shape) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.cpu.ReshapeShape(id, s); err != nil {
		return err
	}
	old := b.shapes[id]
	b.shapes[id] = s
	b.uses[s]++
	if b.uses[old]--; b.uses[old] == 0 {
		delete(b.uses, old)
		b.tr.replace(old, s) // in its place on the device, if it was there
	}
	return nil
}

// UnregisterShape releases shape id (see narrow.Backend) and, unless the
// same shape is registered under another ID, drops it from the device.
func (b *Backend) UnregisterShape(id narrow.ShapeID) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.cpu.UnregisterShape(id); err != nil {
		return err
	}
	s := b.shapes[id]
	delete(b.shapes, id)
	if b.uses[s]--; b.uses[s] == 0 {
		delete(b.uses, s)
		b.tr.forget(s)
	}
	return nil
}

// Shape returns a registered shape, or nil.
func (b *Backend) Shape(id narrow.ShapeID) *narrow.Shape { return b.cpu.Shape(id) }

// Reset forgets every pair's temporal state (see cpubackend.Backend.Reset).
func (b *Backend) Reset() { b.cpu.Reset() }

// SaveState copies the backend's temporal state into dst (see
// cpubackend.Backend.SaveState): it all lives on the CPU side, so a state
// saved here can be restored into a CPU backend with the same parameters,
// and the other way round.
func (b *Backend) SaveState(dst *cpubackend.State) error { return b.cpu.SaveState(dst) }

// RestoreState puts back a state saved by SaveState (see
// cpubackend.Backend.RestoreState).
func (b *Backend) RestoreState(src *cpubackend.State) error { return b.cpu.RestoreState(src) }

// Detect runs one step on a batch of pairs (see narrow.Backend).
func (b *Backend) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	return b.cpu.Detect(ctx, pairs, res)
}

// DetectTo runs one step as Detect does, handing each pair's outcome to w
// (see cpubackend.Backend.DetectTo).
func (b *Backend) DetectTo(ctx context.Context, pairs []narrow.Pair, w narrow.ResultWriter, st *narrow.Stats) error {
	return b.cpu.DetectTo(ctx, pairs, w, st)
}

// LastDetectTimes returns where the time of the last successful Detect
// went (narrow.Timed): the device's part is in Rays.
func (b *Backend) LastDetectTimes() narrow.DetectTimes { return b.cpu.LastDetectTimes() }

// LastDevice returns where the device's time went in the last step that
// traced rays on it, and how many rays it traced. A step without standard
// rays, or with fewer than the minimum batch (WithMinBatch), does not use
// the device.
func (b *Backend) LastDevice() (Times, int) { return b.tr.last() }

// DeviceFailures returns how many steps' rays the device failed to trace
// (traced on the CPU instead; see ErrDevice).
func (b *Backend) DeviceFailures() int { return b.tr.failures() }

// Close stops the workers and releases the device. Later calls fail with
// narrow.ErrBackendClosed.
func (b *Backend) Close() error {
	err := b.cpu.Close()
	b.tr.close()
	return err
}

var _ cpubackend.Stateful = (*Backend)(nil)
