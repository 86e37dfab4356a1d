//go:build linux && cgo

// The CUDA driver API calls of package optixbackend, reached through
// dlopen("libcuda.so.1") so that building needs neither the CUDA toolkit
// nor a driver: a machine without one gets an error from irt_open.

#ifndef IRTCD_DRIVER_H
#define IRTCD_DRIVER_H

#include <stddef.h>

typedef struct irt_dev irt_dev;

// irt_open loads the driver, takes device ordinal's primary context and
// loads the kernels from ptx. It returns NULL and writes why into err on
// failure.
irt_dev *irt_open(int ordinal, const char *ptx, char *err, size_t errlen);

// irt_name writes the device's name into buf.
void irt_name(irt_dev *d, char *buf, int len);

// irt_set_shapes replaces the shapes on the device: nprims primitives
// (88 bytes each) and nnodes hierarchy nodes (64 bytes each). 0 on
// success, else a CUDA error code with err written.
int irt_set_shapes(irt_dev *d, const void *prims, size_t nprims, const void *nodes, size_t nnodes,
                   char *err, size_t errlen);

// irt_times is where one batch's time went, in nanoseconds.
typedef struct {
    long long upload, kernel, download;
} irt_times;

// irt_trace_start queues the answer to n queries (72 bytes each) whose
// shape is dst[i], a shape whose primitives are [pFirst[s],
// pFirst[s]+pCount[s]) and whose hierarchy is [nFirst[s],
// nFirst[s]+nCount[s]) of the last irt_set_shapes, into fwd and bwd (n
// hits of 16 bytes each), walking the hierarchies if useBVH, and returns
// without waiting for it. shapes holds four arrays of nshapes ints, one
// after the other: pFirst, pCount, nFirst and nCount. dst right after the
// queries, and bwd right after fwd, make one copy each way. The memory
// passed must stay as it is until irt_trace_wait returns (page-locked
// memory; from pageable memory the copies are synchronous). 0 on
// success, else a CUDA error code with err written.
int irt_trace_start(irt_dev *d, const int *shapes, int nshapes, int useBVH, const void *queries,
                    const int *dst, int n, double baryLo, double baryHi, void *fwd, void *bwd,
                    char *err, size_t errlen);

// irt_trace_wait waits for the batch that irt_trace_start queued (if
// any) and writes where its time went into times (the device's own
// timers between the stages). 0 on success, else a CUDA error code with
// err written: a fault of the kernel or of a copy.
int irt_trace_wait(irt_dev *d, irt_times *times, char *err, size_t errlen);

// irt_host_alloc sets *p to n bytes of page-locked host memory, mapped
// as such for every context (portable), which the device copies from and
// into at full speed. 0 on success, else a CUDA error code with err
// written.
int irt_host_alloc(irt_dev *d, size_t n, void **p, char *err, size_t errlen);

// irt_host_free releases memory from irt_host_alloc.
void irt_host_free(irt_dev *d, void *p);

// irt_close frees the device buffers and releases the context. The driver
// library stays loaded: unloading it under its own threads is unsafe, and
// a later irt_open finds it there.
void irt_close(irt_dev *d);

#endif
