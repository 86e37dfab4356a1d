package optixbackend

import (
	_ "embed"

	"github.com/irtcd/irtcd/narrow"
)

// The kernels, compiled to PTX and checked in, so that building this
// package needs no CUDA toolkit; the driver compiles the PTX for the
// device when the backend opens it. -fmad=false keeps every operation
// rounded as Go's float64 arithmetic is (see kernels.cu).
//go:generate sh gen.sh

//go:embed kernels.ptx
var kernelsPTX string

// The tolerant barycentric bounds of narrow's crossing test, rounded to
// float64 as Go rounds them (the kernel takes them as parameters rather
// than round them itself).
const (
	baryLo = -narrow.BaryEps
	baryHi = 1 + narrow.BaryEps
)
