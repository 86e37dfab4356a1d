//go:build cgo

// The kernel of package optixbackend (kernels.cu) compiled for the host,
// for tests on machines without a GPU.

#ifndef IRTCD_HOSTKERNEL_H
#define IRTCD_HOSTKERNEL_H

#ifdef __cplusplus
extern "C" {
#endif

// irt_host_trace runs irtcd_trace's threads 0..n-1 one after another
// (see irt_trace in ../../driver.h for the arguments).
void irt_host_trace(const void *prims, const void *nodes, const int *shapes, int nshapes, int useBVH,
                    const void *queries, const int *dst, int n, double baryLo, double baryHi, void *fwd,
                    void *bwd);

#ifdef __cplusplus
}
#endif

#endif
