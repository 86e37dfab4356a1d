//go:build cgo

// kernels.cu compiled as host C++: CUDA's qualifiers become nothing (or
// inline), its thread indices plain variables that irt_host_trace sets
// for each thread in turn. Built without contracting a*b+c into fused
// multiply-adds, as the PTX is built with -fmad=false, so that every
// operation rounds as Go's float64 arithmetic does (cgo does not take
// -ffp-contract=off as a flag; the pragma says the same).

#pragma GCC optimize("fp-contract=off")

#include <math.h>
#include <string.h>

#include "hostkernel.h"

#define __global__
#define __device__
#define __forceinline__ inline

namespace {

struct index3 {
    unsigned x, y, z;
};

index3 blockIdx, blockDim, threadIdx;

inline double __longlong_as_double(long long bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

} // namespace

#include "kernels.h" // a link to ../../kernels.cu, so that the go command sees it change

void irt_host_trace(const void *prims, const void *nodes, const int *shapes, int nshapes, int useBVH,
                    const void *queries, const int *dst, int n, double baryLo, double baryHi, void *fwd,
                    void *bwd) {
    blockDim.x = 1;
    threadIdx.x = 0;
    for (int i = 0; i < n; i++) {
        blockIdx.x = (unsigned)i;
        irtcd_trace((const prim *)prims, shapes, shapes + nshapes, (const node *)nodes, shapes + 2 * nshapes,
                    shapes + 3 * nshapes, useBVH, (const query *)queries, dst, n, baryLo, baryHi, (hit *)fwd,
                    (hit *)bwd);
    }
}
