package narrow

import "math"

// bvhNode is one node of the flat primitive hierarchy. An interior node's
// children are nodes first and first+1; a leaf covers leaf[first:first+count].
type bvhNode struct {
	min, max [3]float64
	first    int32
	count    int32 // 0 for interior nodes
}

// fatNode is the traversal form of an interior node: it holds both
// children's boxes, so one node fetch decides both slab tests. A child with
// count > 0 is a leaf covering leaf[child:child+count]; otherwise child is
// the index of another fatNode.
//
// Boxes are stored in float32, rounded outwards, so that a node is 64 bytes
// (one cache line): traversal is bound by memory latency, and a box that is
// slightly larger only costs a few extra visits, never a missed hit. The
// slab arithmetic itself runs in float64 on the exactly converted values.
type fatNode struct {
	box   nodeBox
	child [2]int32
	count [2]int32
}

// nodeBox holds the boxes of a node's two children, plane by plane:
// box[0 = min, 1 = max][axis][child], so that both children's values of one
// plane are adjacent (the slab kernel loads them together).
type nodeBox [2][3][2]float32

// primData is a primitive prepared for Möller–Trumbore: v0 + u·e1 + v·e2.
// Triangles store their edges; a segment p0→p1 stores e1 = p1-p0, e2 = ẑ.
type primData struct {
	v0, e1, e2 [3]float64
	detEps     float64 // |det| at or below this means the ray is parallel
	id         int32   // primitive index (file order)
	a, b, c    int32   // vertex indices (c = -1 for segments)
}

const (
	leafMax  = 4  // primitives per leaf at most, unless depth forces more
	maxDepth = 40 // deeper nodes become leaves; traversal stacks hold maxDepth+2 entries
	sahBins  = 16
)

// bvhBuilder holds the build-time tree: plain nodes, converted to fatNodes
// (makeFat) once built.
type bvhBuilder struct {
	nodes     []bvhNode
	leafCount int // primitives placed in leaves so far
	depth     int // deepest level reached
}

type buildItem struct {
	lo, hi, c [3]float64
	idx       int32
}

func (s *Shape) primBox(i int) (lo, hi [3]float64) {
	p := s.prims[i]
	a, b := s.verts[p[0]], s.verts[p[1]]
	lo = [3]float64{min(a[0], b[0]), min(a[1], b[1]), min(a[2], b[2])}
	hi = [3]float64{max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])}
	if p[2] >= 0 {
		c := s.verts[p[2]]
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = min(lo[k], c[k]), max(hi[k], c[k])
		}
	}
	return lo, hi
}

// buildBVH builds a binned-SAH hierarchy (Wald 2007) over the primitives and
// stores the primitives in leaf order.
func (s *Shape) buildBVH() {
	n := len(s.prims)
	items := make([]buildItem, n)
	for i := range items {
		lo, hi := s.primBox(i)
		items[i] = buildItem{lo: lo, hi: hi, idx: int32(i)}
		for k := 0; k < 3; k++ {
			items[i].c[k] = 0.5 * (lo[k] + hi[k])
		}
	}
	b := bvhBuilder{nodes: make([]bvhNode, 1, 2*n)}
	b.build(0, items, 0)
	s.maxDeep = b.depth
	s.leaf = make([]primData, n)
	s.leafOf = make([]int32, n)
	for i, it := range items {
		s.leaf[i] = s.makePrim(int(it.idx))
		s.leafOf[it.idx] = int32(i)
	}
	for i := range b.nodes {
		s.padBox(&b.nodes[i].min, &b.nodes[i].max)
	}
	s.fat = makeFat(b.nodes)
}

// padBox grows a box of s's primitives so that hits accepted by the
// barycentric tolerance and rounding in the slab test can never be culled
// by it (BVH == basic exactly).
func (s *Shape) padBox(lo, hi *[3]float64) {
	pad := 1e-7*s.scale + 1e-12*s.scale*1e3
	for k := 0; k < 3; k++ {
		lo[k] -= pad
		hi[k] += pad
	}
	if s.dim == Dim2 {
		// Rays of planar shapes have no z extent; an unbounded slab
		// keeps the z test from ever producing NaN or culling.
		lo[2], hi[2] = -1e300, 1e300
	}
}

// meetsHull reports whether the part t ∈ [lo, hi] of the line r meets s's
// padded bounding box (the union of the BVH root's boxes): when it does not,
// no primitive can be hit there, whatever the traversal.
func (s *Shape) meetsHull(r *slabRay, lo, hi float64) bool {
	for k := 0; k < 3; k++ {
		t1 := (s.hullMin[k] - r.o[k]) * r.inv[k]
		t2 := (s.hullMax[k] - r.o[k]) * r.inv[k]
		lo = max(lo, min(t1, t2))
		hi = min(hi, max(t1, t2))
	}
	return lo <= hi
}

// makeFat converts the build tree into fat nodes (interior nodes only, in
// build order, so the root is fat node 0).
func makeFat(nodes []bvhNode) []fatNode {
	if nodes[0].count > 0 {
		return nil // the whole shape is one leaf
	}
	fatOf := make([]int32, len(nodes))
	nf := int32(0)
	for i, n := range nodes {
		if n.count == 0 {
			fatOf[i] = nf
			nf++
		}
	}
	fat := make([]fatNode, 0, nf)
	for _, n := range nodes {
		if n.count > 0 {
			continue
		}
		var f fatNode
		for k := 0; k < 2; k++ {
			c := &nodes[int(n.first)+k]
			for a := 0; a < 3; a++ {
				f.box[0][a][k] = down32(c.min[a])
				f.box[1][a][k] = up32(c.max[a])
			}
			if c.count > 0 {
				f.child[k], f.count[k] = c.first, c.count
			} else {
				f.child[k] = fatOf[int(n.first)+k]
			}
		}
		fat = append(fat, f)
	}
	return fat
}

// down32 and up32 round a float64 to a float32 that is ≤ (≥) it.
func down32(x float64) float32 {
	f := float32(x)
	if float64(f) > x {
		f = math.Nextafter32(f, float32(math.Inf(-1)))
	}
	return f
}

func up32(x float64) float32 {
	f := float32(x)
	if float64(f) < x {
		f = math.Nextafter32(f, float32(math.Inf(1)))
	}
	return f
}

func (s *Shape) makePrim(i int) primData {
	p := s.prims[i]
	v0 := s.verts[p[0]]
	e1 := sub3(s.verts[p[1]], v0)
	var e2 [3]float64
	if p[2] >= 0 {
		e2 = sub3(s.verts[p[2]], v0)
	} else {
		e2 = [3]float64{0, 0, 1}
	}
	return primData{v0: v0, e1: e1, e2: e2, detEps: 1e-12 * len3(cross3(e1, e2)), id: int32(i), a: p[0], b: p[1], c: p[2]}
}

func area(lo, hi [3]float64) float64 {
	dx, dy, dz := hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2]
	return dx*dy + dy*dz + dz*dx
}

func (b *bvhBuilder) build(ni int, items []buildItem, depth int) {
	lo := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi := [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	clo, chi := lo, hi
	for i := range items {
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = min(lo[k], items[i].lo[k]), max(hi[k], items[i].hi[k])
			clo[k], chi[k] = min(clo[k], items[i].c[k]), max(chi[k], items[i].c[k])
		}
	}
	b.depth = max(b.depth, depth)
	leafStart := func() int32 { return int32(b.leafCount) }
	makeLeaf := func() {
		b.nodes[ni] = bvhNode{min: lo, max: hi, first: leafStart(), count: int32(len(items))}
		b.leafCount += len(items)
	}
	if len(items) <= leafMax || depth >= maxDepth {
		makeLeaf()
		return
	}
	// Binned SAH over the centroid bounds.
	bestCost, bestAxis, bestSplit := math.Inf(1), -1, 0
	type bin struct {
		lo, hi [3]float64
		n      int
	}
	for axis := 0; axis < 3; axis++ {
		ext := chi[axis] - clo[axis]
		if !(ext > 0) {
			continue
		}
		var bins [sahBins]bin
		for b := range bins {
			bins[b].lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
			bins[b].hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
		}
		scale := sahBins / ext
		for i := range items {
			b := min(sahBins-1, int((items[i].c[axis]-clo[axis])*scale))
			bins[b].n++
			for k := 0; k < 3; k++ {
				bins[b].lo[k], bins[b].hi[k] = min(bins[b].lo[k], items[i].lo[k]), max(bins[b].hi[k], items[i].hi[k])
			}
		}
		var rightArea [sahBins]float64
		var rightN [sahBins]int
		rlo, rhi, rn := bins[sahBins-1].lo, bins[sahBins-1].hi, 0
		for b := sahBins - 1; b > 0; b-- {
			rn += bins[b].n
			for k := 0; k < 3; k++ {
				rlo[k], rhi[k] = min(rlo[k], bins[b].lo[k]), max(rhi[k], bins[b].hi[k])
			}
			rightN[b] = rn
			if rn > 0 {
				rightArea[b] = area(rlo, rhi)
			}
		}
		llo, lhi, ln := bins[0].lo, bins[0].hi, 0
		for b := 0; b < sahBins-1; b++ {
			ln += bins[b].n
			for k := 0; k < 3; k++ {
				llo[k], lhi[k] = min(llo[k], bins[b].lo[k]), max(lhi[k], bins[b].hi[k])
			}
			if ln == 0 || rightN[b+1] == 0 {
				continue
			}
			cost := area(llo, lhi)*float64(ln) + rightArea[b+1]*float64(rightN[b+1])
			if cost < bestCost {
				bestCost, bestAxis, bestSplit = cost, axis, b+1
			}
		}
	}
	pa := area(lo, hi)
	const travCost = 1.0
	if bestAxis < 0 || (pa > 0 && travCost+bestCost/pa >= float64(len(items)) && len(items) <= 2*leafMax) {
		if bestAxis < 0 {
			// All centroids coincide: split in the middle of the list.
			b.splitAt(ni, lo, hi, items, len(items)/2, depth)
			return
		}
		makeLeaf()
		return
	}
	ext := chi[bestAxis] - clo[bestAxis]
	scale := sahBins / ext
	mid := 0
	for i := range items {
		b := min(sahBins-1, int((items[i].c[bestAxis]-clo[bestAxis])*scale))
		if b < bestSplit {
			items[i], items[mid] = items[mid], items[i]
			mid++
		}
	}
	b.splitAt(ni, lo, hi, items, mid, depth)
}

func (b *bvhBuilder) splitAt(ni int, lo, hi [3]float64, items []buildItem, mid, depth int) {
	left := int32(len(b.nodes))
	b.nodes = append(b.nodes, bvhNode{}, bvhNode{})
	b.nodes[ni] = bvhNode{min: lo, max: hi, first: left}
	b.build(int(left), items[:mid], depth+1)
	b.build(int(left)+1, items[mid:], depth+1)
}
