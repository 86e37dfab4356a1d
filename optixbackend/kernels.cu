// Kernels of package optixbackend. Built into kernels.ptx by go generate
// (see gen.go): nvcc -ptx -arch=compute_75 -fmad=false. Without fused
// multiply-adds every operation rounds as Go's float64 arithmetic does on
// amd64, so the hits equal narrow.Shape.TraceQuery's bit for bit.

// prim is narrow.Primitive: ten doubles, then two ints (88 bytes).
struct prim {
    double v0[3], e1[3], e2[3];
    double detEps;
    int id, pad;
};

// query is narrow.RayQuery: nine doubles (72 bytes).
struct query {
    double o[3], d[3];
    double tLo, tMax, back;
};

// hit is narrow.Hit: a double, an int and a bool (16 bytes with
// padding). No hit is narrow.NoHit: t = +Inf, prim = -1, inside false.
struct hit {
    double t;
    int prim;
    unsigned char inside, pad[3];
};

// node is narrow.BVHNode (64 bytes): both children's boxes,
// box[0 = min, 1 = max][axis][child], then the children.
struct node {
    float box[2][3][2];
    int child[2], count[2];
};

// search is one query's state: the nearest forward hit (fP < 0: none yet,
// fT the end of the search) and backward hit (bP < 0: none yet).
struct search {
    double fT, bT;
    int fP, bP, fIn, bIn;
};

// test crosses the query's line with primitive r (Möller–Trumbore, in
// narrow's primData.intersect's order of operations) and keeps the
// nearest hits of RayQuery's rules, ties to the lower ID.
__device__ __forceinline__ void test(const prim &r, const query &q, double baryLo, double baryHi,
                                     search &s) {
    const double dx = q.d[0], dy = q.d[1], dz = q.d[2];
    double px = dy * r.e2[2] - dz * r.e2[1];
    double py = dz * r.e2[0] - dx * r.e2[2];
    double pz = dx * r.e2[1] - dy * r.e2[0];
    double det = r.e1[0] * px + r.e1[1] * py + r.e1[2] * pz;
    if (fabs(det) <= r.detEps) {
        return;
    }
    double inv = 1 / det;
    double tx = q.o[0] - r.v0[0], ty = q.o[1] - r.v0[1], tz = q.o[2] - r.v0[2];
    double u = (tx * px + ty * py + tz * pz) * inv;
    if (u < baryLo || u > baryHi) {
        return;
    }
    double qx = ty * r.e1[2] - tz * r.e1[1];
    double qy = tz * r.e1[0] - tx * r.e1[2];
    double qz = tx * r.e1[1] - ty * r.e1[0];
    double v = (dx * qx + dy * qy + dz * qz) * inv;
    if (v < baryLo || u + v > baryHi) {
        return;
    }
    double t = (r.e2[0] * qx + r.e2[1] * qy + r.e2[2] * qz) * inv;
    if (t >= q.tLo) {
        if (det >= 0 && t <= -q.tLo) {
            return; // an entry at an origin on the surface
        }
        if (t < s.fT || (t == s.fT && r.id < s.fP)) {
            s.fT = t;
            s.fP = r.id;
            s.fIn = det < 0;
        }
    } else if (q.back > 0 && t >= -q.back) {
        if (t > s.bT || (t == s.bT && r.id < s.bP)) {
            s.bT = t;
            s.bP = r.id;
            s.bIn = det < 0;
        }
    }
}

// stackSize bounds the walk's stack: at most one deferred child per level
// of narrow's hierarchies (maxDepth 40), plus the root.
#define stackSize 64

// walk visits the hierarchy nodes[0..] over the primitives p, as the
// walk of narrow's query_test.go (bvhQuery) specifies: children whose slab
// interval meets the search interval [lower end, nearest forward hit] are
// visited, the nearer first, and a deferred child is dropped when its
// entry lies past the nearest forward hit found since.
__device__ void walk(const node *nodes, const prim *p, const query &q, double baryLo, double baryHi,
                     search &s) {
    double inv[3];
    for (int k = 0; k < 3; k++) {
        inv[k] = fmax(-1e30, fmin(1e30, 1 / q.d[k]));
    }
    int ref[stackSize], cnt[stackSize];
    double t0[stackSize];
    int sp = 1;
    ref[0] = 0;
    cnt[0] = 0;
    t0[0] = -__longlong_as_double(0x7ff0000000000000LL);
    while (sp > 0) {
        sp--;
        if (t0[sp] > s.fT) {
            continue;
        }
        const int r = ref[sp], c = cnt[sp];
        if (c > 0) {
            for (int k = r; k < r + c; k++) {
                test(p[k], q, baryLo, baryHi, s);
            }
            continue;
        }
        const node &n = nodes[r];
        const double lower = q.back <= 0 ? q.tLo : (s.bP >= 0 ? s.bT : -q.back);
        double a[2], x[2];
        for (int ch = 0; ch < 2; ch++) {
            a[ch] = lower;
            x[ch] = s.fT;
            for (int k = 0; k < 3; k++) {
                double lo = n.box[0][k][ch], hi = n.box[1][k][ch];
                if (inv[k] < 0) {
                    double w = lo;
                    lo = hi;
                    hi = w;
                }
                a[ch] = fmax(a[ch], (lo - q.o[k]) * inv[k]);
                x[ch] = fmin(x[ch], (hi - q.o[k]) * inv[k]);
            }
        }
        const int near = a[1] < a[0] ? 1 : 0, far = 1 - near;
        if (a[far] <= x[far] && sp < stackSize) {
            ref[sp] = n.child[far];
            cnt[sp] = n.count[far];
            t0[sp] = a[far];
            sp++;
        }
        if (a[near] <= x[near] && sp < stackSize) {
            ref[sp] = n.child[near];
            cnt[sp] = n.count[near];
            t0[sp] = a[near];
            sp++;
        }
    }
}

// irtcd_trace answers n queries, one thread each: query i is cast on shape
// dst[i], whose primitives are prims[pFirst[s] .. pFirst[s]+pCount[s]) and
// whose hierarchy is nodes[nFirst[s] .. nFirst[s]+nCount[s]). With
// useBVH and a hierarchy the query walks it (walk); otherwise it tests
// every primitive (the basic traversal of Lehericey et al. 2013, §4.2).
// Either way it gets the nearest forward and backward hits of RayQuery's
// rules, ties to the lower primitive ID. baryLo and baryHi are the
// tolerant barycentric bounds -BaryEps and 1+BaryEps as Go rounds them.
extern "C" __global__ void irtcd_trace(const prim *__restrict__ prims,
                                       const int *__restrict__ pFirst,
                                       const int *__restrict__ pCount,
                                       const node *__restrict__ nodes,
                                       const int *__restrict__ nFirst,
                                       const int *__restrict__ nCount, int useBVH,
                                       const query *__restrict__ qs,
                                       const int *__restrict__ dst, int n,
                                       double baryLo, double baryHi,
                                       hit *__restrict__ fwd,
                                       hit *__restrict__ bwd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    const query q = qs[i];
    const int sh = dst[i];
    const prim *p = prims + pFirst[sh];
    const double inf = __longlong_as_double(0x7ff0000000000000LL);
    search s = {q.tMax, -inf, -1, -1, 0, 0};
    if (useBVH && nCount[sh] > 0) {
        walk(nodes + nFirst[sh], p, q, baryLo, baryHi, s);
    } else {
        const int np = pCount[sh];
        for (int k = 0; k < np; k++) {
            test(p[k], q, baryLo, baryHi, s);
        }
    }
    hit h = {inf, -1, 0, {0, 0, 0}};
    if (s.fP >= 0) {
        h.t = s.fT;
        h.prim = s.fP;
        h.inside = s.fIn;
    }
    fwd[i] = h;
    h = {inf, -1, 0, {0, 0, 0}};
    if (s.bP >= 0) {
        h.t = s.bT;
        h.prim = s.bP;
        h.inside = s.bIn;
    }
    bwd[i] = h;
}
