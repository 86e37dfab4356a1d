//go:build linux && cgo

#include "driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The few driver API types and entry points used, declared here so that no
// CUDA header is needed (their ABI is stable: cuda.h of CUDA 11 to 13).
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUevent;
typedef unsigned long long CUdeviceptr;

enum { CU_JIT_ERROR_LOG_BUFFER = 5, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6 };
enum { CU_MEMHOSTALLOC_PORTABLE = 1 };

struct api {
    CUresult (*Init)(unsigned);
    CUresult (*DeviceGetCount)(int *);
    CUresult (*DeviceGet)(CUdevice *, int);
    CUresult (*DeviceGetName)(char *, int, CUdevice);
    CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*PrimaryCtxRelease)(CUdevice);
    CUresult (*CtxSetCurrent)(CUcontext);
    CUresult (*CtxSynchronize)(void);
    CUresult (*ModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*ModuleUnload)(CUmodule);
    CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*MemAlloc)(CUdeviceptr *, size_t);
    CUresult (*MemFree)(CUdeviceptr);
    CUresult (*MemHostAlloc)(void **, size_t, unsigned);
    CUresult (*MemFreeHost)(void *);
    CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
    CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
    CUresult (*EventCreate)(CUevent *, unsigned);
    CUresult (*EventDestroy)(CUevent);
    CUresult (*EventRecord)(CUevent, CUstream);
    CUresult (*EventSynchronize)(CUevent);
    CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             unsigned, CUstream, void **, void **);
    CUresult (*GetErrorString)(CUresult, const char **);
};

// buf is a device buffer that grows to fit.
struct buf {
    CUdeviceptr p;
    size_t cap;
};

// The driver's entry points, loaded once per process (irt_open runs under
// the Go side's lock) and never unloaded.
static void *lib;
static struct api api;

struct irt_dev {
    struct api f;
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction trace;
    // A batch's stages on the default stream: before the uploads, after
    // them, after the kernel, after the downloads.
    CUevent ev[4];
    int queued; // irt_trace_start queued a batch that irt_trace_wait has not waited for
    // io holds a batch's queries and then its shapes' indices, as the
    // page-locked storage does (one copy up); hits its forward and then
    // backward hits (one copy down).
    struct buf prims, nodes, shapes, io, hits;
};

static void fail(const irt_dev *d, CUresult r, const char *what, char *err, size_t errlen) {
    const char *s = NULL;
    if (d != NULL && d->f.GetErrorString != NULL) {
        d->f.GetErrorString(r, &s);
    }
    snprintf(err, errlen, "%s: CUDA error %d (%s)", what, r, s != NULL ? s : "unknown");
}

static int load(irt_dev *d, char *err, size_t errlen) {
    if (lib == NULL) {
        void *l = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (l == NULL) {
            snprintf(err, errlen, "no CUDA driver: dlopen libcuda.so.1: %s", dlerror());
            return -1;
        }
        struct api f;
#define SYM(field, name)                                                                \
    do {                                                                                \
        *(void **)(&f.field) = dlsym(l, name);                                          \
        if (f.field == NULL) {                                                          \
            snprintf(err, errlen, "CUDA driver without %s: too old a driver", name);     \
            dlclose(l);                                                                 \
            return -1;                                                                  \
        }                                                                               \
    } while (0)
        SYM(Init, "cuInit");
        SYM(DeviceGetCount, "cuDeviceGetCount");
        SYM(DeviceGet, "cuDeviceGet");
        SYM(DeviceGetName, "cuDeviceGetName");
        SYM(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
        SYM(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
        SYM(CtxSetCurrent, "cuCtxSetCurrent");
        SYM(CtxSynchronize, "cuCtxSynchronize");
        SYM(ModuleLoadDataEx, "cuModuleLoadDataEx");
        SYM(ModuleUnload, "cuModuleUnload");
        SYM(ModuleGetFunction, "cuModuleGetFunction");
        SYM(MemAlloc, "cuMemAlloc_v2");
        SYM(MemFree, "cuMemFree_v2");
        SYM(MemHostAlloc, "cuMemHostAlloc");
        SYM(MemFreeHost, "cuMemFreeHost");
        SYM(MemcpyHtoD, "cuMemcpyHtoD_v2");
        SYM(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
        SYM(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
        SYM(EventCreate, "cuEventCreate");
        SYM(EventDestroy, "cuEventDestroy_v2");
        SYM(EventRecord, "cuEventRecord");
        SYM(EventSynchronize, "cuEventSynchronize");
        // CUDA 12.8 added a _v2 (its header maps the name onto it); older
        // drivers have only the first.
        *(void **)(&f.EventElapsedTime) = dlsym(l, "cuEventElapsedTime_v2");
        if (f.EventElapsedTime == NULL) {
            SYM(EventElapsedTime, "cuEventElapsedTime");
        }
        SYM(LaunchKernel, "cuLaunchKernel");
        SYM(GetErrorString, "cuGetErrorString");
#undef SYM
        api = f;
        lib = l;
    }
    d->f = api;
    return 0;
}

irt_dev *irt_open(int ordinal, const char *ptx, char *err, size_t errlen) {
    irt_dev *d = calloc(1, sizeof *d);
    if (d == NULL) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (load(d, err, errlen) != 0) {
        irt_close(d);
        return NULL;
    }
    CUresult r;
    int n = 0;
    if ((r = d->f.Init(0)) != 0) {
        fail(d, r, "cuInit", err, errlen);
        irt_close(d);
        return NULL;
    }
    if ((r = d->f.DeviceGetCount(&n)) != 0 || ordinal < 0 || ordinal >= n) {
        if (r != 0) {
            fail(d, r, "cuDeviceGetCount", err, errlen);
        } else {
            snprintf(err, errlen, "no CUDA device %d (%d present)", ordinal, n);
        }
        irt_close(d);
        return NULL;
    }
    if ((r = d->f.DeviceGet(&d->dev, ordinal)) != 0 || (r = d->f.PrimaryCtxRetain(&d->ctx, d->dev)) != 0) {
        fail(d, r, "device context", err, errlen);
        d->ctx = NULL;
        irt_close(d);
        return NULL;
    }
    if ((r = d->f.CtxSetCurrent(d->ctx)) != 0) {
        fail(d, r, "cuCtxSetCurrent", err, errlen);
        irt_close(d);
        return NULL;
    }
    char log[4096] = {0};
    int opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[2] = {log, (void *)(size_t)sizeof log};
    if ((r = d->f.ModuleLoadDataEx(&d->mod, ptx, 2, opts, vals)) != 0) {
        char what[4200];
        snprintf(what, sizeof what, "loading the kernels' PTX (%s)", log);
        fail(d, r, what, err, errlen);
        d->mod = NULL;
        irt_close(d);
        return NULL;
    }
    if ((r = d->f.ModuleGetFunction(&d->trace, d->mod, "irtcd_trace")) != 0) {
        fail(d, r, "kernel irtcd_trace", err, errlen);
        irt_close(d);
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        if ((r = d->f.EventCreate(&d->ev[i], 0)) != 0) {
            d->ev[i] = NULL;
            fail(d, r, "cuEventCreate", err, errlen);
            irt_close(d);
            return NULL;
        }
    }
    return d;
}

void irt_name(irt_dev *d, char *buf, int len) {
    if (d->f.DeviceGetName(buf, len, d->dev) != 0) {
        snprintf(buf, len, "CUDA device");
    }
}

// reserve makes b hold at least n bytes (its contents are not kept).
static CUresult reserve(irt_dev *d, struct buf *b, size_t n) {
    if (n <= b->cap) {
        return 0;
    }
    if (b->p != 0) {
        d->f.MemFree(b->p);
        b->p = 0;
        b->cap = 0;
    }
    size_t c = 4096;
    while (c < n) {
        c *= 2;
    }
    CUresult r = d->f.MemAlloc(&b->p, c);
    if (r == 0) {
        b->cap = c;
    }
    return r;
}

static CUresult put(irt_dev *d, struct buf *b, const void *src, size_t n) {
    CUresult r = reserve(d, b, n);
    if (r == 0 && n > 0) {
        r = d->f.MemcpyHtoD(b->p, src, n);
    }
    return r;
}

int irt_set_shapes(irt_dev *d, const void *prims, size_t nprims, const void *nodes, size_t nnodes,
                   char *err, size_t errlen) {
    CUresult r = d->f.CtxSetCurrent(d->ctx);
    if (r == 0 && (r = put(d, &d->prims, prims, nprims * 88)) == 0) {
        r = put(d, &d->nodes, nodes, nnodes * 64);
    }
    if (r != 0) {
        fail(d, r, "uploading the shapes", err, errlen);
    }
    return r;
}

// elapsed returns the time between events a and b, in nanoseconds.
static long long elapsed(irt_dev *d, CUevent a, CUevent b) {
    float ms = 0;
    if (d->f.EventElapsedTime(&ms, a, b) != 0) {
        return 0;
    }
    return (long long)((double)ms * 1e6);
}

int irt_trace_start(irt_dev *d, const int *shapes, int nshapes, int useBVH, const void *queries,
                    const int *dst, int n, double baryLo, double baryHi, void *fwdOut, void *bwdOut,
                    char *err, size_t errlen) {
    d->queued = 0;
    if (n <= 0) {
        return 0;
    }
    // Everything is queued on the default stream and waited for once, by
    // irt_trace_wait: each synchronous copy would cost a wait of its own,
    // and the caller works on while the device does. From
    // page-locked memory the queries and their shapes' indices lie one
    // after the other and go up in one copy, and the hits come back in
    // one (see tracer.Reserve); from Go memory the copies are synchronous
    // anyway (the driver stages them), each array on its own.
    const size_t qb = (size_t)n * 72, db = (size_t)n * 4, hb = (size_t)n * 16;
    const char *what = "cuCtxSetCurrent";
    CUresult r = d->f.CtxSetCurrent(d->ctx);
    if (r == 0) {
        what = "allocating device memory";
        if ((r = reserve(d, &d->shapes, (size_t)nshapes * 16)) == 0 && (r = reserve(d, &d->io, qb + db)) == 0) {
            r = reserve(d, &d->hits, 2 * hb);
        }
    }
    CUdeviceptr qs = d->io.p, ds = d->io.p + qb, fwd = d->hits.p, bwd = d->hits.p + hb;
    if (r == 0) {
        what = "uploading the queries";
        if ((r = d->f.EventRecord(d->ev[0], NULL)) == 0 &&
            (r = d->f.MemcpyHtoDAsync(d->shapes.p, shapes, (size_t)nshapes * 16, NULL)) == 0) {
            if ((const char *)dst == (const char *)queries + qb) {
                r = d->f.MemcpyHtoDAsync(qs, queries, qb + db, NULL);
            } else if ((r = d->f.MemcpyHtoDAsync(qs, queries, qb, NULL)) == 0) {
                r = d->f.MemcpyHtoDAsync(ds, dst, db, NULL);
            }
        }
        if (r == 0) {
            r = d->f.EventRecord(d->ev[1], NULL);
        }
    }
    if (r == 0) {
        CUdeviceptr pFirst = d->shapes.p, pCount = pFirst + (size_t)nshapes * 4;
        CUdeviceptr nFirst = pCount + (size_t)nshapes * 4, nCount = nFirst + (size_t)nshapes * 4;
        void *args[] = {&d->prims.p, &pFirst, &pCount, &d->nodes.p, &nFirst, &nCount, &useBVH,
                        &qs, &ds, &n, &baryLo, &baryHi, &fwd, &bwd};
        const unsigned threads = 128;
        what = "launching irtcd_trace";
        r = d->f.LaunchKernel(d->trace, ((unsigned)n + threads - 1) / threads, 1, 1, threads, 1, 1, 0,
                              NULL, args, NULL);
        if (r == 0) {
            r = d->f.EventRecord(d->ev[2], NULL);
        }
    }
    if (r == 0) {
        what = "downloading the hits";
        if ((char *)bwdOut == (char *)fwdOut + hb) {
            r = d->f.MemcpyDtoHAsync(fwdOut, fwd, 2 * hb, NULL);
        } else if ((r = d->f.MemcpyDtoHAsync(fwdOut, fwd, hb, NULL)) == 0) {
            r = d->f.MemcpyDtoHAsync(bwdOut, bwd, hb, NULL);
        }
        if (r == 0) {
            r = d->f.EventRecord(d->ev[3], NULL);
        }
    }
    if (r != 0) {
        fail(d, r, what, err, errlen);
        // What was queued must not write into the batch while the CPU
        // traces it in the device's place.
        d->f.CtxSynchronize();
        return r;
    }
    d->queued = 1;
    return 0;
}

int irt_trace_wait(irt_dev *d, irt_times *times, char *err, size_t errlen) {
    times->upload = times->kernel = times->download = 0;
    if (!d->queued) {
        return 0;
    }
    d->queued = 0;
    // A fault of the kernel or of a copy surfaces here.
    CUresult r = d->f.CtxSetCurrent(d->ctx);
    if (r == 0) {
        r = d->f.EventSynchronize(d->ev[3]);
    }
    if (r != 0) {
        fail(d, r, "running irtcd_trace and its copies", err, errlen);
        return r;
    }
    times->upload = elapsed(d, d->ev[0], d->ev[1]);
    times->kernel = elapsed(d, d->ev[1], d->ev[2]);
    times->download = elapsed(d, d->ev[2], d->ev[3]);
    return 0;
}

int irt_host_alloc(irt_dev *d, size_t n, void **p, char *err, size_t errlen) {
    *p = NULL;
    CUresult r = d->f.CtxSetCurrent(d->ctx);
    if (r == 0) {
        r = d->f.MemHostAlloc(p, n, CU_MEMHOSTALLOC_PORTABLE);
    }
    if (r != 0) {
        *p = NULL;
        fail(d, r, "allocating page-locked host memory", err, errlen);
    }
    return r;
}

void irt_host_free(irt_dev *d, void *p) {
    if (p != NULL) {
        d->f.CtxSetCurrent(d->ctx);
        d->f.MemFreeHost(p);
    }
}

void irt_close(irt_dev *d) {
    if (d == NULL) {
        return;
    }
    if (d->ctx != NULL) {
        d->f.CtxSetCurrent(d->ctx);
        struct buf *bs[] = {&d->prims, &d->nodes, &d->shapes, &d->io, &d->hits};
        for (size_t i = 0; i < sizeof bs / sizeof bs[0]; i++) {
            if (bs[i]->p != 0) {
                d->f.MemFree(bs[i]->p);
            }
        }
        for (int i = 0; i < 4; i++) {
            if (d->ev[i] != NULL) {
                d->f.EventDestroy(d->ev[i]);
            }
        }
        if (d->mod != NULL) {
            d->f.ModuleUnload(d->mod);
        }
        d->f.PrimaryCtxRelease(d->dev);
    }
    free(d);
}
