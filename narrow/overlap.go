package narrow

import "fmt"

// Overlap reports whether shapes a and b, at poses pa and pb, overlap:
// whether the solids they bound (3D) or the regions (2D) share a point.
// Touching counts: two shapes whose surfaces meet without interpenetrating
// overlap. It is the boolean test that sensors and trigger volumes need,
// where the contacts of a Backend would be more than asked for (and
// would miss overlaps that hold no vertex, as when two bars cross as a
// "+", see docs/DESIGN.md, "Known limits").
//
// Two closed surfaces cross iff an edge of one crosses a primitive of the
// other: a triangle-triangle intersection always has an edge of one of
// the two triangles through the other (Mochi, Mandarapu, James and
// Kulkarni, §3.4.1, Reduction 4: rays along the triangles' edges, both
// ways), and in 2D two segments that cross do so along both. So each edge
// of a is traced as a segment against b, through b's BVH and with the
// standard rays' exact ray-primitive test, then each edge of b against a;
// the first hit ends the test. The edges come from a walk of the source's
// BVH that skips the subtrees whose box, mapped into the other's frame,
// misses the other's box; an edge whose part in that box the other
// shape's outside grid clears (sphere tracing: no point of it near the
// surface) is not traced. If no edge crosses, the boundaries are apart,
// and the shapes overlap only if a connected component of one lies
// inside the other: one vertex of each component decides
// (Shape.Nearest's side test; a vertex on the other's surface, within
// TEps, touches it). The ray-primitive test widens each primitive by a
// relative 1e-9 so that rays through shared edges are not lost; edges
// that lie in a face of the other shape (coplanar) are caught where they
// meet that face's neighbours or where a vertex touches.
//
// It allocates nothing. The shapes must have the same dimension and the
// poses must be valid (as Backend.Detect checks them); errors wrap
// ErrEmpty, ErrDimension or ErrBadPose.
func Overlap(a, b *Shape, pa, pb Pose) (bool, error) {
	if a == nil || len(a.prims) == 0 {
		return false, newShapeError(ErrEmpty, "overlap: shape A has no primitives")
	}
	if b == nil || len(b.prims) == 0 {
		return false, newShapeError(ErrEmpty, "overlap: shape B has no primitives")
	}
	pr := Pair{PoseA: pa, PoseB: pb}
	if err := CheckPair(&pr, a, b); err != nil {
		return false, fmt.Errorf("overlap: %w", err)
	}
	ta, tb := pr.PoseA.Transform(), pr.PoseB.Transform()
	var ab, ba Transform
	ab.SetRelative(&tb, &ta) // a's coordinates into b's frame
	ba.SetRelative(&ta, &tb)
	boxB := b.bounds.Grow(b.tEps)
	boxA := a.bounds.Grow(a.tEps)
	if a.dim == Dim2 {
		boxA.Min[2], boxA.Max[2] = -1, 1
		boxB.Min[2], boxB.Max[2] = -1, 1
	}
	if inB := a.bounds.Transformed(&ab); !inB.meets(&boxB) {
		return false, nil
	}
	if edgesCross(a, &ab, b, &boxB) || edgesCross(b, &ba, a, &boxA) {
		return true, nil
	}
	return touchesInside(a, &ab, b) || touchesInside(b, &ba, a), nil
}

// edgesCross reports whether an edge of src, mapped into dst's frame by t,
// meets a primitive of dst (box: dst's bounds, grown by its TEps). It
// walks src's hierarchy: a subtree whose box, mapped by t, misses box
// holds no edge to test.
func edgesCross(src *Shape, t *Transform, dst *Shape, box *AABB) bool {
	var it leafIter
	for it.start(src); it.next(); {
		if b := it.box.Transformed(t); !b.meets(box) {
			continue
		}
		if prims := it.enter(); prims != nil && primEdgesCross(src, prims, t, dst, box) {
			return true
		}
	}
	return false
}

// leafIter walks a shape's hierarchy from the root, child box by child
// box, in the hierarchy's order: next moves to the next child (its box in
// box; for a polygon, at z = 0), and enter, for a child the caller wants,
// returns its primitives if it is a leaf, or else takes its children in
// turn. A shape without a hierarchy is one leaf, its box the shape's
// bounds.
// It lives on the caller's stack: a walk allocates nothing.
type leafIter struct {
	s     *Shape
	stack [maxDepth + 2]int32
	sp    int
	node  *fatNode
	k     int // the child at hand, 0 or 1
	box   AABB
}

func (it *leafIter) start(s *Shape) {
	it.s, it.node, it.k = s, nil, 1
	it.sp = 0
	if s.fat != nil {
		it.sp = 1 // the root, node 0
	}
}

func (it *leafIter) next() bool {
	s := it.s
	if s.fat == nil {
		if it.k == 2 {
			return false
		}
		it.k = 2
		it.box = s.bounds
		return true
	}
	if it.node == nil || it.k == 1 {
		if it.sp == 0 {
			return false
		}
		it.sp--
		it.node, it.k = &s.fat[it.stack[it.sp]], 0
	} else {
		it.k = 1
	}
	n, k := it.node, it.k
	for a := range 3 {
		it.box.Min[a], it.box.Max[a] = float64(n.box[0][a][k]), float64(n.box[1][a][k])
	}
	if s.dim == Dim2 {
		it.box.Min[2], it.box.Max[2] = 0, 0 // the nodes' z slabs are unbounded (padBox); a polygon lies at z = 0
	}
	return true
}

// enter returns the primitives of the child at hand if it is a leaf, and
// otherwise queues its children (returning nil).
func (it *leafIter) enter() []primData {
	s := it.s
	if s.fat == nil {
		return s.leaf
	}
	n := it.node
	if c := n.count[it.k]; c > 0 {
		return s.leaf[n.child[it.k] : n.child[it.k]+c]
	}
	it.stack[it.sp] = n.child[it.k]
	it.sp++
	return nil
}

// primEdgesCross is edgesCross for the edges of prims. A triangle's edges
// k (Adjacent) are c-a, a-b and b-c; each edge of a closed mesh is shared
// by two triangles and tested with the one of lower index.
func primEdgesCross(src *Shape, prims []primData, t *Transform, dst *Shape, box *AABB) bool {
	for i := range prims {
		p := &prims[i]
		if p.c < 0 { // a segment: one edge
			if edgeCrosses(src.verts[p.a], src.verts[p.b], t, dst, box) {
				return true
			}
			continue
		}
		for k, e := range [3][2]int32{{p.c, p.a}, {p.a, p.b}, {p.b, p.c}} {
			if n := src.adj[p.id][k]; n >= 0 && n < p.id {
				continue
			}
			if edgeCrosses(src.verts[e[0]], src.verts[e[1]], t, dst, box) {
				return true
			}
		}
	}
	return false
}

// edgeCrosses reports whether the segment u-v of src's frame, mapped into
// dst's frame by t, meets a primitive of dst, ends included.
func edgeCrosses(u, v [3]float64, t *Transform, dst *Shape, box *AABB) bool {
	p, q := t.Apply(u), t.Apply(v)
	t0, t1, ok := box.segmentRange(p, q)
	if !ok {
		return false
	}
	d := sub3(q, p)
	l := len3(d)
	if !(l > 0) {
		return false
	}
	dir := scale3(d, 1/l)
	// The part in the box, sphere-traced through the outside grid: clear
	// of the surface all along, it crosses nothing.
	if o := add3(p, scale3(d, t0)); dst.grid.clearAlong(&o, &dir, (t1-t0)*l) {
		return false
	}
	var lq lineQuery
	lq.init(p, dir, -dst.tEps, 0)
	lq.fwd.T = l + dst.tEps // hits up to the far end, and a little past it
	dst.traceBVH(&lq)
	return lq.fwd.Prim >= 0
}

// touchesInside reports whether a vertex of some connected component of
// src (a loop of a polygon), mapped into dst's frame by t, lies inside
// dst or on its surface (within TEps): with no edge crossing, whether a
// component of src lies inside dst. One vertex per component is needed:
// a mesh of two spheres may hold one inside dst and the other far away.
func touchesInside(src *Shape, t *Transform, dst *Shape) bool {
	for _, v := range src.compVerts {
		x := t.Apply(src.verts[v])
		if _, dist, _, inside := dst.Nearest(x); inside || dist <= dst.tEps {
			return true
		}
	}
	return false
}

// AppendPrimsInBox appends to dst the indices (Prim's) of s's primitives
// whose bounding boxes meet box, given in s's frame, and returns the
// extended slice: the candidates of a query by region, to be tested
// exactly by the caller. The order is the hierarchy's, the same for the
// same shape and box; with a dst of enough capacity it allocates nothing.
// A polygon's segments count as lying at z = 0.
func (s *Shape) AppendPrimsInBox(dst []int32, box AABB) []int32 {
	var it leafIter
	for it.start(s); it.next(); {
		if !it.box.meets(&box) {
			continue
		}
		prims := it.enter()
		for i := range prims {
			lo, hi := s.primBox(int(prims[i].id))
			if s.dim == Dim2 {
				lo[2], hi[2] = 0, 0
			}
			if box.meetsBox(&[2][3]float64{lo, hi}) {
				dst = append(dst, prims[i].id)
			}
		}
	}
	return dst
}
