package narrow

import (
	"math"
	"unsafe"
)

// slabRay is what the slab kernel needs of a ray: origin, inverse
// direction, and the byte offsets in a nodeBox of the near and far plane of
// each axis (near = min for a positive direction component). The assembly
// kernel relies on this exact layout (checked by TestSlabRayLayout).
type slabRay struct {
	o, inv    [3]float64
	near, far [3]uintptr
}

// setPlanes picks the near and far planes from the signs of inv, without
// branches (the signs are random from one ray to the next).
func (r *slabRay) setPlanes() {
	for k := 0; k < 3; k++ {
		neg := uintptr(math.Float64bits(r.inv[k]) >> 63)
		r.near[k] = planeOffset(int(neg), k)
		r.far[k] = planeOffset(int(1-neg), k)
	}
}

// planeOffset is the byte offset of plane (mm, axis) in a nodeBox: each
// plane holds two float32 (checked by TestSlabRayLayout).
func planeOffset(mm, axis int) uintptr { return uintptr(mm*3+axis) * 8 }

// plane returns both children's values of the plane at byte offset off.
func (b *nodeBox) plane(off uintptr) *[2]float32 {
	return (*[2]float32)(unsafe.Add(unsafe.Pointer(b), off))
}

// slab2Go is the portable slab test of both children of a node: the entry
// and exit distances of the line within [lo, hi] for child 0 (a0, e0) and
// child 1 (a1, e1); a child is missed when its entry exceeds its exit. The
// amd64 assembly computes the same values with packed SSE2 instructions.
func slab2Go(b *nodeBox, r *slabRay, lo, hi float64) (a0, e0, a1, e1 float64) {
	nx, ny, nz := b.plane(r.near[0]), b.plane(r.near[1]), b.plane(r.near[2])
	fx, fy, fz := b.plane(r.far[0]), b.plane(r.far[1]), b.plane(r.far[2])
	ox, oy, oz := r.o[0], r.o[1], r.o[2]
	ix, iy, iz := r.inv[0], r.inv[1], r.inv[2]
	a0 = max(lo, (float64(nx[0])-ox)*ix, (float64(ny[0])-oy)*iy, (float64(nz[0])-oz)*iz)
	e0 = min(hi, (float64(fx[0])-ox)*ix, (float64(fy[0])-oy)*iy, (float64(fz[0])-oz)*iz)
	a1 = max(lo, (float64(nx[1])-ox)*ix, (float64(ny[1])-oy)*iy, (float64(nz[1])-oz)*iz)
	e1 = min(hi, (float64(fx[1])-ox)*ix, (float64(fy[1])-oy)*iy, (float64(fz[1])-oz)*iz)
	return
}

// travState is a resumable BVH traversal: the search interval [lo, hi] and
// the stack of deferred subtrees. The assembly relies on this exact layout
// (checked by TestSlabRayLayout).
type travState struct {
	lo, hi float64
	sp     int64
	_      int64
	stack  [maxDepth + 2]stackEntry
}

// bvhNextGo pops deferred subtrees (dropping those whose entry lies past
// hi) and descends from them, nearer child first, until it reaches a leaf
// run leaf[first:first+count]; count is 0 when the traversal is over. The
// stack never holds more than one entry per level of the current path, so
// maxDepth+2 entries suffice.
func bvhNextGo(fat []fatNode, r *slabRay, st *travState) (first, count int32) {
	sp := st.sp
next:
	for sp > 0 {
		sp--
		e := &st.stack[sp]
		if e.t0 > st.hi {
			continue
		}
		cur, cnt := e.ref, e.count
		for cnt == 0 {
			n := &fat[cur]
			a0, e0, a1, e1 := slab2Go(&n.box, r, st.lo, st.hi)
			switch {
			case a0 <= e0 && a1 <= e1:
				// Both: go near (child 0 on a tie), defer far.
				if a1 < a0 {
					st.stack[sp] = stackEntry{ref: n.child[0], count: n.count[0], t0: a0}
					cur, cnt = n.child[1], n.count[1]
				} else {
					st.stack[sp] = stackEntry{ref: n.child[1], count: n.count[1], t0: a1}
					cur, cnt = n.child[0], n.count[0]
				}
				sp++
			case a0 <= e0:
				cur, cnt = n.child[0], n.count[0]
			case a1 <= e1:
				cur, cnt = n.child[1], n.count[1]
			default:
				continue next
			}
		}
		st.sp = sp
		return cur, cnt
	}
	st.sp = 0
	return 0, 0
}
