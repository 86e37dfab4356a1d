package narrow

import (
	"cmp"
	"math"
	"slices"
)

// Feature says which features of the two bodies a Contact joins, and so
// what its Vertex and Prim index.
type Feature uint8

const (
	// FeatureVertex is a vertex contact: vertex Vertex of the From body
	// lies inside the other body, whose primitive Prim its ray hit
	// (Hermann et al.'s rays, Lehericey et al. 2013).
	FeatureVertex Feature = iota
	// FeatureEdge is an edge-on-edge contact (Params.EdgeAngle): edge
	// Vertex of the From body (an index into its Shape.Edge list) crosses
	// edge Prim of the other body (an index into that body's list), and
	// neither has a vertex inside the other there.
	FeatureEdge
	// FeatureEdgeFace is an edge-through-face contact (Params.EdgeFaces):
	// edge Vertex of the From body (an index into its Shape.Edge list)
	// passes through the other body, entering it through primitive Prim,
	// with both its ends outside (Direction.AppendEdgeFaceContacts).
	FeatureEdgeFace
)

// String returns "vertex", "edge" or "edge-face".
func (f Feature) String() string {
	switch f {
	case FeatureVertex:
		return "vertex"
	case FeatureEdge:
		return "edge"
	case FeatureEdgeFace:
		return "edge-face"
	}
	return "feature?"
}

// Edge is a convex edge of a triangle mesh: the segment between vertices
// V[0] and V[1], shared by the triangles Faces[0] and Faces[1], whose
// outward normals make the angle Angle (radians, in (0, π)): 0 would be a
// flat edge, π a knife's edge.
type Edge struct {
	V     [2]int32
	Faces [2]int32
	Angle float64
}

// minEdgeAngle is the least bend for an edge to be listed (Shape.Edge):
// the diagonals of a flat face and rounding noise are not edges.
const minEdgeAngle = 1e-6

// edgeBlock is the number of consecutive edges of Shape.Edge's list that
// share a bounding box for culling (see AppendEdgeContacts).
const edgeBlock = 8

// NumEdges returns the number of the shape's convex edges (0 for a
// polygon).
func (s *Shape) NumEdges() int { return len(s.edges) }

// Edge returns convex edge i. The list is in spatial order: blocks of
// consecutive edges lie close together, so that culling by their boxes
// rejects most edges far from the other body without testing them.
func (s *Shape) Edge(i int) Edge { return s.edges[i] }

// SharpEdges returns how many of the shape's convex edges are bent by more
// than angle.
func (s *Shape) SharpEdges(angle float64) int {
	n, _ := slices.BinarySearchFunc(s.edgeAngles, angle, func(a, b float64) int {
		if a > b {
			return -1
		}
		return 1
	})
	return n
}

// edgeBuffers holds the memory of buildEdgesInto, kept by a shape that
// DeformInto fills for its next call.
type edgeBuffers struct {
	found, edges []Edge
	mid          [][3]float64
	order        []int32
	seg          [][2][3]float64
	angles       []float64
	blocks       []edgeBlockData
	up           [][]AABB
}

// convexEdge returns edge k of triangle i as a convex edge (see Edge),
// or false if it is not one: its neighbour lies in front of the
// triangle's plane, or bends it by no more than minEdgeAngle.
func (s *Shape) convexEdge(i int32, k int) (Edge, bool) {
	p, o := s.prims[i], s.adj[i][k]
	if o < 0 {
		return Edge{}, false
	}
	// Edge k of a triangle (a,b,c) is c-a, a-b, b-c (Adjacent).
	ends := [3][2]int32{{p[2], p[0]}, {p[0], p[1]}, {p[1], p[2]}}[k]
	n0, n1 := s.fnorm[i], s.fnorm[o]
	if n0 == ([3]float64{}) || n1 == ([3]float64{}) {
		return Edge{}, false // a degenerate face has no normal to bend
	}
	// Convex when the neighbour's far vertex lies behind this face's
	// plane.
	q := s.prims[o]
	far := q[0]
	for _, v := range q {
		if v != ends[0] && v != ends[1] {
			far = v
		}
	}
	if dot3(sub3(s.verts[far], s.verts[ends[0]]), n0) >= 0 {
		return Edge{}, false
	}
	ang := math.Acos(max(-1, min(1, dot3(n0, n1))))
	if ang <= minEdgeAngle {
		return Edge{}, false
	}
	if ends[0] > ends[1] {
		ends[0], ends[1] = ends[1], ends[0]
	}
	return Edge{V: ends, Faces: [2]int32{i, o}, Angle: ang}, true
}

// buildEdgesInto lists the convex edges of a triangle mesh (see Edge) in
// memory from b, in the spatial order of their midpoints.
func (s *Shape) buildEdgesInto(b *edgeBuffers) {
	if s.dim != Dim3 {
		return
	}
	found := b.found[:0]
	for i := range s.prims {
		for k, o := range s.adj[i] {
			if o < int32(i) {
				continue // listed from the other side, or no neighbour
			}
			if e, ok := s.convexEdge(int32(i), k); ok {
				found = append(found, e)
			}
		}
	}
	b.found = found
	if len(found) == 0 {
		return
	}
	// Spatial order: a median split of the edges' midpoints, ties in the
	// order found.
	b.mid = grow(b.mid, len(found))
	for i, e := range found {
		b.mid[i] = scale3(add3(s.verts[e.V[0]], s.verts[e.V[1]]), 0.5)
	}
	b.order = spatialOrderInto(grow(b.order, len(found)), b.mid)
	b.edges = grow(b.edges, len(found))
	for i, k := range b.order {
		b.edges[i] = found[k]
	}
	s.setEdges(b)
}

// setEdges makes b.edges (not empty) the shape's convex edges, with their
// segments, bends, blocks and the hierarchy over the blocks.
func (s *Shape) setEdges(b *edgeBuffers) {
	edges := b.edges
	s.edges = edges
	b.seg, b.angles = grow(b.seg, len(edges)), grow(b.angles, len(edges))
	s.edgeSeg, s.edgeAngles = b.seg, b.angles
	for i, e := range edges {
		s.edgeSeg[i] = [2][3]float64{s.verts[e.V[0]], s.verts[e.V[1]]}
		s.edgeAngles[i] = e.Angle
	}
	slices.SortFunc(s.edgeAngles, func(a, b float64) int { return cmp.Compare(b, a) })
	blocks := b.blocks[:0]
	for lo := 0; lo < len(edges); lo += edgeBlock {
		b := emptyBox()
		sharp := 0.0
		for i := lo; i < min(lo+edgeBlock, len(edges)); i++ {
			for _, p := range s.edgeSeg[i] {
				for k := range 3 {
					b.Min[k], b.Max[k] = min(b.Min[k], p[k]), max(b.Max[k], p[k])
				}
			}
			sharp = max(sharp, edges[i].Angle)
		}
		c := b.Center()
		r := 0.0
		for i := lo; i < min(lo+edgeBlock, len(edges)); i++ {
			for _, p := range s.edgeSeg[i] {
				r = max(r, len3(sub3(p, c)))
			}
		}
		blocks = append(blocks, edgeBlockData{box: b, sharp: sharp, centre: c, radius: r})
	}
	b.blocks, s.edgeBlocks = blocks, blocks
	// Boxes of edgeFan consecutive blocks, of edgeFan of those, and so on
	// up to a level of at most edgeFan boxes: the blocks' spatial order
	// makes them a hierarchy (edgeBox).
	n, level := len(blocks), 0
	for n > edgeFan {
		n = (n + edgeFan - 1) / edgeFan
		if level == len(b.up) {
			b.up = append(b.up, nil)
		}
		up := grow(b.up[level], n)
		for i := range up {
			up[i] = *s.edgeBox(level, i*edgeFan)
			for j := i*edgeFan + 1; j < min((i+1)*edgeFan, s.edgeLevelSize(level)); j++ {
				up[i] = up[i].Union(*s.edgeBox(level, j))
			}
		}
		b.up[level] = up
		level++
		s.edgeUp = b.up[:level]
	}
}

// edgeFan is the number of children of a node of the hierarchy over a
// shape's edge blocks (Shape.edgeUp).
const edgeFan = 8

// edgeBox returns the box of node i of level l of the hierarchy over the
// shape's edge blocks: block i for l = 0, else edgeUp[l-1][i], which
// holds the nodes edgeFan·i to edgeFan·i + edgeFan − 1 of level l − 1.
func (s *Shape) edgeBox(l, i int) *AABB {
	if l == 0 {
		return &s.edgeBlocks[i].box
	}
	return &s.edgeUp[l-1][i]
}

// edgeLevelSize returns the number of nodes of level l of the hierarchy
// over the shape's edge blocks.
func (s *Shape) edgeLevelSize(l int) int {
	if l == 0 {
		return len(s.edgeBlocks)
	}
	return len(s.edgeUp[l-1])
}

// edgeBlockData bounds a block of edgeBlock consecutive edges: their box,
// the largest bend among them, and a ball holding them (the box's centre,
// and the largest distance of an end from it).
type edgeBlockData struct {
	box    AABB
	sharp  float64
	centre [3]float64
	radius float64
}

// EdgeScratch holds the buffers of Direction.AppendEdgeContacts. Keep one
// per goroutine and reuse it: a step then allocates nothing.
type EdgeScratch struct {
	src, dst []edgeCand
}

// edgeCand is an edge near the other body, in Dst's frame.
type edgeCand struct {
	p0, p1 [3]float64 // its ends
	n0, n1 [3]float64 // its faces' outward normals
	lo, hi [3]float64 // its box
	i      int32      // its index in its shape's Edge list
}

// AppendEdgeContacts appends to dst the edge-on-edge contacts between the
// edges of d.Src and d.Dst bent by more than angle (see SharpEdges), and
// returns the extended slice. Only d's frames are used (SetPoses). The
// contacts come from d.From, in the order of the source edge, then of the
// destination edge.
//
// Rays start at vertices, so two bodies that cross edge on edge, with no
// vertex of either inside the other, meet no ray (Lehericey et al. 2013
// §3.1 casts from vertices only). The Mochi paper (§3.4, Reduction 4)
// traces rays along triangle edges to find such crossings; here every
// pair of edges near both bodies is tested as convex polyhedra are in the
// separating-axis test, which gives the exact minimum translation of the
// crossing at once. Edges e (of Src) and f (of Dst) touch when
//
//   - the closest points of their lines, P on e and Q on f, lie strictly
//     inside both segments (at an end, a vertex contact covers it);
//   - the direction n = e × f, oriented out of Dst at f, lies within the
//     outward normals of f's two faces (the arc between them), and −n
//     within those of e's faces: the two edges are the features that
//     separate along n;
//   - P lies below f along n: Depth = (Q − P)·n > 0, at most maxDepth
//     (a gap: see below);
//   - nothing of either surface lies between them: Dst's surface is not
//     crossed from Q towards P before P, nor Src's from P towards Q
//     before Q (two rays, with traversal trav), so P is inside Dst and Q
//     inside Src, not merely below the planes of their faces.
//
// The contact is P (world), Dir = n (world), the translation Depth·Dir
// of Src that brings P to Q: the Contact convention, with Feature
// FeatureEdge, Vertex e and Prim f.
//
// With maxGap > 0 the same edges apart (P above f along n) by at most
// maxGap, with nothing of either surface between P and Q, give
// speculative contacts (Params.Speculative): Depth = −gap < 0, and
// moving Src by Depth·Dir still brings P to Q.
func (d *Direction) AppendEdgeContacts(dst []Contact, sc *EdgeScratch, angle, maxDepth, maxGap float64, trav Traversal) []Contact {
	maxGap = max(maxGap, 0)
	reach := max(maxDepth, maxGap)
	if !d.selectEdges(sc, angle, maxGap, reach) {
		return dst
	}
	for x := range sc.src {
		e := &sc.src[x]
		// P and Q lie at most maxDepth (or maxGap) apart.
		lo, hi := e.grown(reach)
		for y := range sc.dst {
			if f := &sc.dst[y]; f.meets(&lo, &hi) {
				dst = d.appendEdgeContact(dst, e, f, maxDepth, maxGap, trav)
			}
		}
	}
	return dst
}

// EdgePair names two edges that may touch: edge Src of a Direction's
// source shape and edge Dst of its destination (indices into their
// Shape.Edge lists).
type EdgePair struct {
	Src, Dst int32
}

// AppendEdgePairs appends to dst the pairs of edges bent by more than
// angle that may give an edge-on-edge contact (AppendEdgeContacts with
// maxDepth and any gap up to maxGap) at d's placement or at any placement
// reached from it by a relative motion of at most margin, and returns the
// extended slice, in the order of the source edge, then of the
// destination edge. AppendEdgePairContacts tests them.
//
// The motion is bounded as Eq. 2 of Lehericey et al. 2013 (§3.3) bounds
// it (iterative.PairState.Displacements): margin is at least how far any
// point of Src has moved in Dst's frame, or any point of Dst in Src's.
// Either bound is enough: every test that selects a pair is a distance
// between two points or between a point and a body (the point P of an
// edge inside Dst or within maxGap of it, Q likewise for Src, and P and Q
// at most max(maxDepth, maxGap) apart), and such a distance does not
// depend on the frame it is measured in, in which one side stands still
// and the other moves by at most margin. So a pair that touches after
// the motion lay within margin more of each test here, where the tests
// of AppendEdgeContacts are taken with maxGap + margin and the two edges'
// segment distance is at most max(maxDepth, maxGap) + margin.
//
// This is how a pair's edge tests follow the iterative algorithm: the
// pairs are chosen at one step, where AppendEdgeContacts' culling costs
// most of its time, and tested at each later step while the motion stays
// within margin.
func (d *Direction) AppendEdgePairs(dst []EdgePair, sc *EdgeScratch, angle, maxDepth, maxGap, margin float64) []EdgePair {
	maxGap, margin = max(maxGap, 0), max(margin, 0)
	reach := max(maxDepth, maxGap) + margin
	if !d.selectEdges(sc, angle, maxGap+margin, reach) {
		return dst
	}
	// Segment distances are computed in Dst's frame from mapped ends:
	// a relative rounding slack keeps a pair at the bound.
	slack := 1e-9 * (reach + d.Src.scale + d.Dst.scale)
	for x := range sc.src {
		e := &sc.src[x]
		lo, hi := e.grown(reach)
		for y := range sc.dst {
			if f := &sc.dst[y]; f.meets(&lo, &hi) && segmentDistance(e.p0, e.p1, f.p0, f.p1) <= reach+slack {
				dst = append(dst, EdgePair{Src: e.i, Dst: f.i})
			}
		}
	}
	return dst
}

// AppendEdgePairContacts appends to dst the edge-on-edge contacts of the
// given pairs (from AppendEdgePairs, in its order) at d's placement, and
// returns the extended slice. Each pair is tested as AppendEdgeContacts
// tests it, so while the motion since the pairs were chosen stays within
// their margin, and maxDepth and maxGap within theirs, the contacts are
// those AppendEdgeContacts returns, in the same order, at a cost that
// depends on the number of pairs only.
func (d *Direction) AppendEdgePairContacts(dst []Contact, pairs []EdgePair, maxDepth, maxGap float64, trav Traversal) []Contact {
	maxGap = max(maxGap, 0)
	src, dsh := d.Src, d.Dst
	var e, f edgeCand
	e.i = -1
	for _, p := range pairs {
		if p.Src < 0 || int(p.Src) >= len(src.edges) || p.Dst < 0 || int(p.Dst) >= len(dsh.edges) {
			continue
		}
		if p.Src != e.i {
			seg, se := &src.edgeSeg[p.Src], &src.edges[p.Src]
			e = edgeCand{p0: d.SrcToDst.Apply(seg[0]), p1: d.SrcToDst.Apply(seg[1]), i: p.Src}
			e.n0 = d.SrcToDst.ApplyDir(src.fnorm[se.Faces[0]])
			e.n1 = d.SrcToDst.ApplyDir(src.fnorm[se.Faces[1]])
		}
		seg := &dsh.edgeSeg[p.Dst]
		sn, tn, den, ok := linesMeetInside(&e.p0, &e.p1, &seg[0], &seg[1])
		if !ok {
			continue // edgeCross's first test, before f is built
		}
		fe := &dsh.edges[p.Dst]
		f = edgeCand{p0: seg[0], p1: seg[1], n0: dsh.fnorm[fe.Faces[0]], n1: dsh.fnorm[fe.Faces[1]], i: p.Dst}
		if q, n, depth, ok := edgeCrossAt(&e, &f, sn, tn, den, maxDepth, maxGap); ok {
			dst = d.appendClearContact(dst, &e, &f, q, n, depth, trav)
		}
	}
	return dst
}

// selectEdges fills sc.src and sc.dst with the edges of Src and Dst bent
// by more than angle (in Dst's frame, Src's with their faces' normals
// mapped) that may hold P or Q of an edge contact or of a gap up to gap,
// and reports whether both lists have some. P and Q lie in both bodies'
// boxes, grown by the gap: only the parts of the edges in that region
// count (an edge's box is that of its part), and of Src's, only the parts
// that Dst's outside grid does not clear by more than the gap. Q lies
// within reach (the largest distance from P to Q the caller tests) of P,
// so of Dst's edges only the parts within reach of Src's chosen parts
// count: those in the union of their boxes grown by reach.
func (d *Direction) selectEdges(sc *EdgeScratch, angle, gap, reach float64) bool {
	sc.src, sc.dst = sc.src[:0], sc.dst[:0]
	if len(d.Src.edges) == 0 || len(d.Dst.edges) == 0 {
		return false
	}
	both, near, ok := d.selectSrcEdges(sc, angle, gap, true)
	if !ok {
		return false
	}
	dsh := d.Dst
	tol := max(d.Src.tEps, dsh.tEps)
	// Q lies in both and within reach of P: in near.
	near = near.Grow(reach + tol).Intersect(both)
	if near.Empty() {
		return false
	}
	for b := range dsh.edgeBlocks {
		blk := &dsh.edgeBlocks[b]
		if blk.sharp <= angle || !blk.box.meets(&near) {
			continue
		}
		for i := b * edgeBlock; i < min((b+1)*edgeBlock, len(dsh.edges)); i++ {
			e, seg := &dsh.edges[i], &dsh.edgeSeg[i]
			if e.Angle <= angle || !near.meetsBox(seg) {
				continue
			}
			c := edgeCand{p0: seg[0], p1: seg[1], i: int32(i)}
			// Q lies on the part in near. (Src's outside grid
			// could clear some parts as Dst's does for Src's edges, but
			// mapping them back cost more than the pairs it spared.)
			if _, _, ok := c.clip(&near); ok {
				c.n0, c.n1 = dsh.fnorm[e.Faces[0]], dsh.fnorm[e.Faces[1]]
				sc.dst = append(sc.dst, c)
			}
		}
	}
	return len(sc.dst) > 0
}

// selectSrcEdges fills sc.src with the edges of Src bent by more than
// angle whose part in both bodies' boxes (in Dst's frame, grown by gap)
// Dst's outside grid does not clear by more than gap (see selectEdges),
// and returns that region, the union of the chosen parts' boxes, and
// whether any was chosen. The edges' face normals are mapped only with
// normals (the edge-on-edge tests need them).
func (d *Direction) selectSrcEdges(sc *EdgeScratch, angle, gap float64, normals bool) (both, near AABB, ok bool) {
	src, dsh := d.Src, d.Dst
	sc.src = sc.src[:0]
	tol := max(src.tEps, dsh.tEps)
	// Both bodies' boxes in Dst's frame (grown by the widest gap): P and Q
	// lie in both, so only the parts of the edges in it count.
	both = src.bounds.Transformed(&d.SrcToDst).Intersect(dsh.bounds).Grow(tol + gap)
	if both.Empty() {
		return both, near, false
	}
	// The same region boxed in Src's frame culls Src's edges, block by
	// block and then by their boxes, before they are mapped (clipping
	// them there too cost more than the mapped edges it spared).
	back := d.SrcToDst.Inverse()
	bothSrc := both.Transformed(&back).Grow(tol)
	near = emptyBox()
	for b := range src.edgeBlocks {
		blk := &src.edgeBlocks[b]
		if blk.sharp <= angle || !blk.box.meets(&bothSrc) {
			continue
		}
		// The block's ball in Dst's frame: in the region, and not clear
		// of Dst by more than the gap.
		if c := d.SrcToDst.Apply(blk.centre); !both.meetsBall(c, blk.radius+ballSlack(c, blk.radius)) || dsh.grid.clearBall(c, blk.radius+gap) {
			continue
		}
		for i := b * edgeBlock; i < min((b+1)*edgeBlock, len(src.edges)); i++ {
			e, seg := &src.edges[i], &src.edgeSeg[i]
			if e.Angle <= angle || !bothSrc.meetsBox(seg) {
				continue
			}
			c := edgeCand{p0: d.SrcToDst.Apply(seg[0]), p1: d.SrcToDst.Apply(seg[1]), i: int32(i)}
			// P, inside Dst or within the gap of it, lies on the part in
			// the region: not if Dst's outside grid clears that part by
			// more.
			if q0, q1, ok := c.clip(&both); ok && !dsh.grid.clearSegment(q0, q1, gap) {
				if normals {
					c.n0 = d.SrcToDst.ApplyDir(src.fnorm[e.Faces[0]])
					c.n1 = d.SrcToDst.ApplyDir(src.fnorm[e.Faces[1]])
				}
				sc.src = append(sc.src, c)
				for k := range 3 {
					near.Min[k], near.Max[k] = min(near.Min[k], c.lo[k]), max(near.Max[k], c.hi[k])
				}
			}
		}
	}
	return both, near, len(sc.src) > 0
}

// appendEdgeContact appends the contact of source edge e and destination
// edge f (both in Dst's frame), if they touch: edgeCross, then the two
// rays that check that nothing of either surface lies between P and Q.
func (d *Direction) appendEdgeContact(dst []Contact, e, f *edgeCand, maxDepth, maxGap float64, trav Traversal) []Contact {
	p, n, depth, ok := edgeCross(e, f, maxDepth, maxGap)
	if !ok {
		return dst
	}
	return d.appendClearContact(dst, e, f, p, n, depth, trav)
}

// appendClearContact appends the contact of edges e and f that edgeCross
// found (P, n, depth) unless a surface lies between P and Q.
func (d *Direction) appendClearContact(dst []Contact, e, f *edgeCand, p, n [3]float64, depth float64, trav Traversal) []Contact {
	src, dsh := d.Src, d.Dst
	tol := max(src.tEps, dsh.tEps)
	// Between Q and P, along −n, no surface of Dst: P inside Dst (a
	// contact, the ray from Q into Dst leaves it no earlier), or a free
	// gap (a speculative contact: the ray from Q out of Dst meets none of
	// it before P). The same for Src from P.
	q := add3(p, scale3(n, depth))
	dq, dp := scale3(n, -1), n
	if depth < 0 {
		dq, dp = n, scale3(n, -1)
	}
	l := math.Abs(depth) - 4*tol
	if h, _ := dsh.Trace(q, dq, 4*tol, 0, trav); h.Prim >= 0 && h.T < l {
		return dst
	}
	back := d.SrcToDst.Inverse()
	if h, _ := src.Trace(back.Apply(p), back.ApplyDir(dp), 4*tol, 0, trav); h.Prim >= 0 && h.T < l {
		return dst
	}
	return append(dst, Contact{
		P: d.DstWorld.Apply(p), Depth: depth, Dir: d.DstWorld.ApplyDir(n),
		From: d.From, Feature: FeatureEdge, Vertex: e.i, Prim: f.i,
	})
}

// segmentDistance returns the distance between the segments p0p1 and
// q0q1: the closest points' parameters, each clamped to [0, 1] in turn.
func segmentDistance(p0, p1, q0, q1 [3]float64) float64 {
	u, v, w := sub3(p1, p0), sub3(q1, q0), sub3(p0, q0)
	a, b, c, e, f := dot3(u, u), dot3(u, v), dot3(u, w), dot3(v, v), dot3(v, w)
	var s, t float64
	switch {
	case a <= 0 && e <= 0:
		return len3(w)
	case a <= 0:
		t = clamp01(f / e)
	case e <= 0:
		s = clamp01(-c / a)
	default:
		if den := a*e - b*b; den > 0 {
			s = clamp01((b*f - c*e) / den)
		}
		// The closest point on q0q1 to p(s), then p's back to it.
		t = (b*s + f) / e
		if t < 0 || t > 1 {
			t = clamp01(t)
			s = clamp01((t*b - c) / a)
		}
	}
	return len3(sub3(add3(p0, scale3(u, s)), add3(q0, scale3(v, t))))
}

func clamp01(x float64) float64 { return max(0, min(1, x)) }

// grown returns c's box grown by r on every side.
func (c *edgeCand) grown(r float64) (lo, hi [3]float64) {
	return sub3(c.lo, [3]float64{r, r, r}), add3(c.hi, [3]float64{r, r, r})
}

// meets reports whether c's box meets the box from lo to hi.
func (c *edgeCand) meets(lo, hi *[3]float64) bool {
	return c.lo[0] <= hi[0] && c.hi[0] >= lo[0] && c.lo[1] <= hi[1] && c.hi[1] >= lo[1] && c.lo[2] <= hi[2] && c.hi[2] >= lo[2]
}

// clip sets c's box to that of the part of c in b (grown by a rounding
// slack), and returns that part's ends, and whether there is one.
func (c *edgeCand) clip(b *AABB) (q0, q1 [3]float64, ok bool) {
	if b.Contains(c.p0) && b.Contains(c.p1) {
		q0, q1 = c.p0, c.p1
	} else {
		t0, t1, ok := b.segmentRange(c.p0, c.p1)
		if !ok {
			return q0, q1, false
		}
		d := sub3(c.p1, c.p0)
		q0, q1 = add3(c.p0, scale3(d, t0)), add3(c.p0, scale3(d, t1))
	}
	for k := range 3 {
		slack := 1e-12 * (math.Abs(c.p0[k]) + math.Abs(c.p1[k]))
		c.lo[k], c.hi[k] = min(q0[k], q1[k])-slack, max(q0[k], q1[k])+slack
	}
	return q0, q1, true
}

// clearSegment reports whether the segment from p to q stays farther than
// margin from the surface, outside the shape, by the grid's bounds: it
// steps along it by each point's lower bound less margin (sphere tracing,
// as clearAlong), and fails at the first point whose bound is not above
// margin, or off the grid. It is false for a nil grid.
func (g *outsideGrid) clearSegment(p, q [3]float64, margin float64) bool {
	if g == nil {
		return false
	}
	d := sub3(q, p)
	l := len3(d)
	if l > 0 {
		d = scale3(d, 1/l)
	}
	round := 1e-9 * (g.h + math.Abs(p[0]) + math.Abs(p[1]) + math.Abs(p[2]) + l)
	t := 0.0
	for range 64 {
		k, ok := g.cell(p[0]+t*d[0], p[1]+t*d[1], p[2]+t*d[2])
		step := float64(k)*g.h/gridQuant - margin - round
		if !ok || step <= 0 {
			return false
		}
		// Every point within step of this one is farther than margin
		// from the surface: the distance is 1-Lipschitz.
		if t += step; t > l+round {
			return true
		}
	}
	return false
}

// clearBall reports whether c lies outside the shape farther than r from
// its surface, by the bound of c's cell less a rounding allowance. Then,
// the distance to the surface being 1-Lipschitz, every point within ρ ≤ r
// of c lies outside, farther than r − ρ. It is false for a nil grid and
// off the grid.
func (g *outsideGrid) clearBall(c [3]float64, r float64) bool {
	if g == nil {
		return false
	}
	k, ok := g.cell(c[0], c[1], c[2])
	round := 1e-9 * (g.h + math.Abs(c[0]) + math.Abs(c[1]) + math.Abs(c[2]) + r)
	return ok && float64(k)*g.h/gridQuant-round > r
}

// ballSlack is a rounding allowance for a ball of centre c and radius r
// mapped to another frame.
func ballSlack(c [3]float64, r float64) float64 {
	return 1e-9 * (math.Abs(c[0]) + math.Abs(c[1]) + math.Abs(c[2]) + r)
}

// meetsBall reports whether the ball of centre c and radius r meets b.
func (b *AABB) meetsBall(c [3]float64, r float64) bool {
	d2 := 0.0
	for k := range 3 {
		if e := max(b.Min[k]-c[k], c[k]-b.Max[k], 0); e > 0 {
			d2 += e * e
		}
	}
	return d2 <= r*r
}

// meetsSegment reports whether the segment from p to q meets b.
func (b *AABB) meetsSegment(p, q [3]float64) bool {
	if !b.meetsBox(&[2][3]float64{p, q}) {
		return false
	}
	_, _, ok := b.segmentRange(p, q)
	return ok
}

// meets reports whether b and o overlap (touching counts).
func (b *AABB) meets(o *AABB) bool {
	return b.Min[0] <= o.Max[0] && b.Max[0] >= o.Min[0] && b.Min[1] <= o.Max[1] &&
		b.Max[1] >= o.Min[1] && b.Min[2] <= o.Max[2] && b.Max[2] >= o.Min[2]
}

// meetsBox reports whether the box of the segment seg meets b.
func (b *AABB) meetsBox(seg *[2][3]float64) bool {
	p, q := &seg[0], &seg[1]
	for k := range 3 {
		if min(p[k], q[k]) > b.Max[k] || max(p[k], q[k]) < b.Min[k] {
			return false
		}
	}
	return true
}

// segmentRange returns the range [t0, t1] of the parameters of the segment
// p + t·(q − p), t in [0, 1], that lie in b (slab by slab, Liang–Barsky),
// and whether it is not empty.
func (b *AABB) segmentRange(p, q [3]float64) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	for k := range 3 {
		d := q[k] - p[k]
		if d == 0 {
			if p[k] < b.Min[k] || p[k] > b.Max[k] {
				return 0, 0, false
			}
			continue
		}
		a, c := (b.Min[k]-p[k])/d, (b.Max[k]-p[k])/d
		if a > c {
			a, c = c, a
		}
		t0, t1 = max(t0, a), min(t1, c)
		if t0 > t1 {
			return 0, 0, false
		}
	}
	return t0, t1, true
}

// linesMeetInside is edgeCross's first test: the closest points of the
// lines of segments e0e1 and f0f1 lie strictly inside both, their
// parameters being sn/den on e and tn/den on f (den = |e × f|² > 0, not
// parallel: the faces' own contacts hold parallel edges). Most pairs'
// closest points lie off one of the segments, so the divisions wait.
func linesMeetInside(e0, e1, f0, f1 *[3]float64) (sn, tn, den float64, ok bool) {
	da, db := sub3(*e1, *e0), sub3(*f1, *f0)
	r := sub3(*e0, *f0)
	a, b, c := dot3(da, da), dot3(da, db), dot3(da, r)
	ee, ff := dot3(db, db), dot3(db, r)
	den = a*ee - b*b // |da × db|²
	if den <= 1e-12*a*ee {
		return 0, 0, 0, false
	}
	sn, tn = b*ff-c*ee, a*ff-b*c
	return sn, tn, den, sn > 0 && sn < den && tn > 0 && tn < den
}

// edgeCross is the edge-on-edge test of AppendEdgeContacts for source edge
// e and destination edge f (both in Dst's frame) without the rays: it
// returns the point P on e, the unit direction n out of Dst and the depth.
func edgeCross(e, f *edgeCand, maxDepth, maxGap float64) (p, n [3]float64, depth float64, ok bool) {
	sn, tn, den, ok := linesMeetInside(&e.p0, &e.p1, &f.p0, &f.p1)
	if !ok {
		return p, n, 0, false
	}
	return edgeCrossAt(e, f, sn, tn, den, maxDepth, maxGap)
}

// edgeCrossAt is edgeCross past its first test, whose results it is
// given.
func edgeCrossAt(e, f *edgeCand, sn, tn, den, maxDepth, maxGap float64) (p, n [3]float64, depth float64, ok bool) {
	da, db := sub3(e.p1, e.p0), sub3(f.p1, f.p0)
	s, t := sn/den, tn/den
	if !(s > 0 && s < 1 && t > 0 && t < 1) {
		return p, n, 0, false
	}
	n = scale3(cross3(da, db), 1/math.Sqrt(den))
	// Out of Dst at f: towards the bisector of its faces' normals.
	mf := add3(f.n0, f.n1)
	if dot3(n, mf) < 0 {
		n = scale3(n, -1)
	}
	// n within f's arc of normals (its cosine with the bisector at least
	// that of the faces' normals), and on the outer side of both faces,
	// so that points below f along n lie behind both; −n likewise within
	// e's arc.
	const slack = 1e-12
	if dot3(n, mf) < 1+dot3(f.n0, f.n1)-slack || dot3(n, f.n0) < -slack || dot3(n, f.n1) < -slack {
		return p, n, 0, false
	}
	me := add3(e.n0, e.n1)
	if -dot3(n, me) < 1+dot3(e.n0, e.n1)-slack || -dot3(n, e.n0) < -slack || -dot3(n, e.n1) < -slack {
		return p, n, 0, false
	}
	p = add3(e.p0, scale3(da, s))
	q := add3(f.p0, scale3(db, t))
	depth = dot3(sub3(q, p), n)
	if !(depth > 0 && depth <= maxDepth || depth < 0 && -depth <= maxGap) {
		return p, n, 0, false
	}
	return p, n, depth, true
}
