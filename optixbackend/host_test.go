package optixbackend

import (
	"crypto/sha256"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend/internal/hostkernel"
)

// hostDevice runs the kernel's source on the host (package hostkernel)
// behind the device interface: it keeps its own copy of the shapes, as
// the device's memory does.
type hostDevice struct {
	prims  []narrow.Primitive
	nodes  []narrow.BVHNode
	rays   int // queries traced
	closed int

	// Its stand-in for page-locked memory (C memory), by address.
	live     map[uintptr]int // the allocations not freed yet: their sizes
	allocs   int             // allocations made
	jobs     chan hostJob    // the batches for its goroutine (made by the first start)
	done     chan struct{}   // a batch traced
	busy     bool            // a batch was started and not waited for
	batches  int             // batches started
	smallest int             // rays of the smallest batch started
	staged   int             // queries traced from a live allocation
	packed   int             // queries traced whose arrays irt_trace copies in one go each way (see tracer.Reserve)
}

func (h *hostDevice) setShapes(prims []narrow.Primitive, nodes []narrow.BVHNode) error {
	h.prims, h.nodes = slices.Clone(prims), slices.Clone(nodes)
	return nil
}

// hostJob is one batch for a host device's goroutine.
type hostJob struct {
	prims    []narrow.Primitive
	nodes    []narrow.BVHNode
	shapes   []int32
	useBVH   bool
	queries  []narrow.RayQuery
	dst      []int32
	fwd, bwd []narrow.Hit
}

// start hands the batch to the device's goroutine, which traces it while
// the caller goes on, as a GPU does.
func (h *hostDevice) start(shapes []int32, useBVH bool, queries []narrow.RayQuery, dst []int32, fwd, bwd []narrow.Hit) error {
	if h.jobs == nil {
		h.jobs, h.done = make(chan hostJob), make(chan struct{})
		go func() {
			for j := range h.jobs {
				hostkernel.Trace(j.prims, j.nodes, j.shapes, j.useBVH, j.queries, j.dst, baryLo, baryHi, j.fwd, j.bwd)
				h.done <- struct{}{}
			}
		}()
	}
	if h.busy {
		panic("hostDevice.start: the last batch was not waited for")
	}
	h.busy = true
	if h.batches == 0 || len(dst) < h.smallest {
		h.smallest = len(dst)
	}
	h.batches++
	h.jobs <- hostJob{h.prims, h.nodes, shapes, useBVH, queries, dst, fwd, bwd}
	h.rays += len(dst)
	q := uintptr(unsafe.Pointer(&queries[0]))
	for p, n := range h.live {
		if q >= p && q < p+uintptr(n) {
			h.staged += len(dst)
		}
	}
	// Packed: each array right after the one before, compared as
	// addresses (a pointer one past a Go array's end is invalid, and
	// -race's pointer checks would stop on it).
	n := uintptr(len(dst))
	if uintptr(unsafe.Pointer(&dst[0])) == uintptr(unsafe.Pointer(&queries[0]))+n*unsafe.Sizeof(queries[0]) &&
		uintptr(unsafe.Pointer(&bwd[0])) == uintptr(unsafe.Pointer(&fwd[0]))+n*unsafe.Sizeof(fwd[0]) {
		h.packed += len(dst)
	}
	return nil
}

func (h *hostDevice) wait() (Times, error) {
	if !h.busy {
		panic("hostDevice.wait: nothing started")
	}
	h.busy = false
	<-h.done
	return Times{}, nil
}

func (h *hostDevice) hostAlloc(n int) (unsafe.Pointer, error) {
	p := hostkernel.Alloc(n)
	if p == nil {
		return nil, fmt.Errorf("no %d bytes", n)
	}
	if h.live == nil {
		h.live = make(map[uintptr]int)
	}
	h.live[uintptr(p)] = n
	h.allocs++
	return p, nil
}

func (h *hostDevice) hostFree(p unsafe.Pointer) {
	if _, ok := h.live[uintptr(p)]; !ok {
		panic(fmt.Sprintf("hostFree(%p): not allocated, or freed twice", p))
	}
	delete(h.live, uintptr(p))
	hostkernel.Free(p)
}

func (h *hostDevice) close() {
	h.closed++
	if h.jobs != nil {
		close(h.jobs)
		h.jobs = nil
	}
}

// openHost returns a host device, or skips the test in a build without
// the host kernel (no cgo).
func openHost(t testing.TB) *hostDevice {
	t.Helper()
	if !hostkernel.Available {
		t.Skip("no host kernel in this build (cgo is off)")
	}
	return &hostDevice{}
}

// TestPTXUpToDate checks that the embedded PTX was built from this
// kernels.cu (gen.sh records the source's SHA-256 on its first line).
func TestPTXUpToDate(t *testing.T) {
	src, err := os.ReadFile("kernels.cu")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("// kernels.cu sha256 %x", sha256.Sum256(src))
	if first, _, _ := strings.Cut(kernelsPTX, "\n"); first != want {
		t.Fatalf("kernels.ptx starts with %q, want %q: run go generate ./optixbackend (needs nvcc)", first, want)
	}
}
