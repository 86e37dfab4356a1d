//go:build !linux || !cgo

package optixbackend

import (
	"errors"
	"unsafe"

	"github.com/irtcd/irtcd/narrow"
)

// device is absent from builds without cgo or outside Linux.
type device struct{ name string }

var errNoCgo = errors.New("built without cgo (or not on Linux): no way to reach a CUDA driver")

func openDevice(int) (*device, error)                                { return nil, errNoCgo }
func (*device) setShapes([]narrow.Primitive, []narrow.BVHNode) error { return errNoCgo }
func (*device) start([]int32, bool, []narrow.RayQuery, []int32, []narrow.Hit, []narrow.Hit) error {
	return errNoCgo
}
func (*device) wait() (Times, error)                  { return Times{}, errNoCgo }
func (*device) hostAlloc(int) (unsafe.Pointer, error) { return nil, errNoCgo }
func (*device) hostFree(unsafe.Pointer)               {}
func (*device) close()                                {}
