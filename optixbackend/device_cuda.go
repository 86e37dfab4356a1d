//go:build linux && cgo

package optixbackend

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "driver.h"
*/
import "C"

import (
	"errors"
	"sync"
	"time"
	"unsafe"

	"github.com/irtcd/irtcd/narrow"
)

// device is an open CUDA device with the kernels loaded (driver.c).
type device struct {
	d    *C.irt_dev
	name string
	err  [1024]C.char // the C side's error message
}

// opening serialises irt_open, which loads the driver library once.
var opening sync.Mutex

// openDevice opens CUDA device ordinal through the driver API.
func openDevice(ordinal int) (*device, error) {
	opening.Lock()
	defer opening.Unlock()
	ptx := C.CString(kernelsPTX)
	defer C.free(unsafe.Pointer(ptx))
	dev := new(device)
	dev.d = C.irt_open(C.int(ordinal), ptx, &dev.err[0], C.size_t(len(dev.err)))
	if dev.d == nil {
		return nil, errors.New(C.GoString(&dev.err[0]))
	}
	var name [256]C.char
	C.irt_name(dev.d, &name[0], C.int(len(name)))
	dev.name = C.GoString(&name[0])
	return dev, nil
}

// setShapes replaces the shapes on the device.
func (dev *device) setShapes(prims []narrow.Primitive, nodes []narrow.BVHNode) error {
	var p, n unsafe.Pointer
	if len(prims) > 0 {
		p = unsafe.Pointer(&prims[0])
	}
	if len(nodes) > 0 {
		n = unsafe.Pointer(&nodes[0])
	}
	if C.irt_set_shapes(dev.d, p, C.size_t(len(prims)), n, C.size_t(len(nodes)), &dev.err[0], C.size_t(len(dev.err))) != 0 {
		return errors.New(C.GoString(&dev.err[0]))
	}
	return nil
}

// start queues the kernel on len(dst) queries (see irt_trace_start),
// their hits to be written into fwd and bwd. shapes holds the batch's
// spans, four arrays of len(shapes)/4 (see irt_trace_start).
func (dev *device) start(shapes []int32, useBVH bool, queries []narrow.RayQuery, dst []int32, fwd, bwd []narrow.Hit) error {
	bvh := C.int(0)
	if useBVH {
		bvh = 1
	}
	if C.irt_trace_start(dev.d, (*C.int)(unsafe.Pointer(&shapes[0])), C.int(len(shapes)/4), bvh,
		unsafe.Pointer(&queries[0]), (*C.int)(unsafe.Pointer(&dst[0])), C.int(len(dst)),
		C.double(baryLo), C.double(baryHi), unsafe.Pointer(&fwd[0]), unsafe.Pointer(&bwd[0]),
		&dev.err[0], C.size_t(len(dev.err))) != 0 {
		return errors.New(C.GoString(&dev.err[0]))
	}
	return nil
}

// wait waits for the batch that start queued (irt_trace_wait).
func (dev *device) wait() (Times, error) {
	var tm C.irt_times
	r := C.irt_trace_wait(dev.d, &tm, &dev.err[0], C.size_t(len(dev.err)))
	times := Times{Upload: time.Duration(tm.upload), Kernel: time.Duration(tm.kernel), Download: time.Duration(tm.download)}
	if r != 0 {
		return times, errors.New(C.GoString(&dev.err[0]))
	}
	return times, nil
}

// hostAlloc returns n bytes of page-locked host memory (irt_host_alloc).
func (dev *device) hostAlloc(n int) (unsafe.Pointer, error) {
	var p unsafe.Pointer
	if C.irt_host_alloc(dev.d, C.size_t(n), &p, &dev.err[0], C.size_t(len(dev.err))) != 0 {
		return nil, errors.New(C.GoString(&dev.err[0]))
	}
	return p, nil
}

// hostFree releases memory from hostAlloc.
func (dev *device) hostFree(p unsafe.Pointer) { C.irt_host_free(dev.d, p) }

// close releases the device.
func (dev *device) close() {
	if dev.d != nil {
		C.irt_close(dev.d)
		dev.d = nil
	}
}
