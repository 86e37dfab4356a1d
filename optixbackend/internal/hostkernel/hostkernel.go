//go:build cgo

// Package hostkernel runs the GPU backend's kernel (optixbackend's
// kernels.cu) on the host, compiled as C++, thread after thread: the
// tests of package optixbackend check the kernel's source against
// narrow's tracer this way on machines without a GPU (CI's). It is slow
// (one core) and for tests only.
package hostkernel

/*
#cgo CXXFLAGS: -O2 -std=c++14
#include <stdlib.h>
#include "hostkernel.h"
*/
import "C"

import (
	"sync"
	"unsafe"

	"github.com/irtcd/irtcd/narrow"
)

// Available reports whether this build has the host kernel (it needs
// cgo and a C++ compiler).
const Available = true

// mu serialises the calls: the kernel's thread indices are globals.
var mu sync.Mutex

// Trace answers len(dst) queries as the device's irtcd_trace does, with
// the same arguments (see optixbackend's driver.h): shapes holds four
// arrays of len(shapes)/4 ints (first primitive, primitives, first node,
// nodes).
func Trace(prims []narrow.Primitive, nodes []narrow.BVHNode, shapes []int32, useBVH bool,
	queries []narrow.RayQuery, dst []int32, baryLo, baryHi float64, fwd, bwd []narrow.Hit) {
	if len(dst) == 0 {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	var p, nd unsafe.Pointer
	if len(prims) > 0 {
		p = unsafe.Pointer(&prims[0])
	}
	if len(nodes) > 0 {
		nd = unsafe.Pointer(&nodes[0])
	}
	bvh := C.int(0)
	if useBVH {
		bvh = 1
	}
	C.irt_host_trace(p, nd, (*C.int)(unsafe.Pointer(&shapes[0])), C.int(len(shapes)/4), bvh,
		unsafe.Pointer(&queries[0]), (*C.int)(unsafe.Pointer(&dst[0])), C.int(len(dst)),
		C.double(baryLo), C.double(baryHi), unsafe.Pointer(&fwd[0]), unsafe.Pointer(&bwd[0]))
}

// Alloc returns n bytes of C memory, aligned to 16 bytes, outside Go's
// heap as a device's page-locked host memory is: the tests' stand-in for
// it. Free releases it.
func Alloc(n int) unsafe.Pointer {
	var p unsafe.Pointer
	if C.posix_memalign(&p, 16, C.size_t(n)) != 0 {
		return nil
	}
	return p
}

// Free releases memory from Alloc.
func Free(p unsafe.Pointer) { C.free(p) }
