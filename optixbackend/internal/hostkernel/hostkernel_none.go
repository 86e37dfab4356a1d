//go:build !cgo

package hostkernel

import (
	"unsafe"

	"github.com/irtcd/irtcd/narrow"
)

// Available reports whether this build has the host kernel: not without
// cgo.
const Available = false

// Trace does nothing in a build without cgo (see Available).
func Trace([]narrow.Primitive, []narrow.BVHNode, []int32, bool, []narrow.RayQuery, []int32, float64, float64, []narrow.Hit, []narrow.Hit) {
}

// Alloc returns nil in a build without cgo (see Available).
func Alloc(int) unsafe.Pointer { return nil }

// Free does nothing in a build without cgo (see Available).
func Free(unsafe.Pointer) {}
