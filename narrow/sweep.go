package narrow

import "math"

// Sweep returns the earliest fraction of a motion at which a vertex of
// src enters dst from outside, or 1 if none does: the time of impact of
// continuous collision detection, by sweep rays.
//
// from and to map src's local coordinates into dst's at the start and at
// the end of the motion (dst's frame moves with it: they hold the relative
// motion of the two bodies). Each vertex's path is the segment from its
// place under from to its place under to (exact for a translation, the
// chord of the arc for a rotation), traced against dst with the BVH, the
// same exact traversal as the standard rays. A hit counts when the path
// meets dst's surface from outside (a vertex already inside first leaves
// it, and is the ordinary contacts' business); its fraction along the path
// is advanced by advance (a distance, positive: a little past first touch,
// so that the next detection at the returned pose sees a contact). A
// group, block or leaf of vertices (Shape.VertexOrder) whose motion
// before the earliest fraction found so far stays outside dst's box is
// skipped whole, and so is a vertex whose path misses it.
func Sweep(src *Shape, from, to *Transform, dst *Shape, advance float64) float64 {
	return SweepBefore(src, from, to, dst, advance, 1)
}

// SweepBefore is Sweep looking only for fractions below limit: it
// returns the earliest fraction less than limit at which a vertex of src
// enters dst, or limit if none does. The result is Sweep's whenever that
// is less than limit. Pass the other way's sweep as the limit: the
// vertices' paths are cut there, and so is the culling of their groups,
// blocks and leaves (Shape.VertexOrder's hierarchy), which also shrinks
// as earlier hits are found.
func SweepBefore(src *Shape, from, to *Transform, dst *Shape, advance, limit float64) float64 {
	best, _, _ := sweepVertices(src, from, to, dst, advance, limit)
	return best
}

// sweepVertices is SweepBefore, and also returns the vertex of src and
// the primitive of dst of the hit it found (−1, −1 if none).
func sweepVertices(src *Shape, from, to *Transform, dst *Shape, advance, limit float64) (float64, int32, int32) {
	hitV, hitPrim := int32(-1), int32(-1)
	if !(limit > 0) {
		return limit, hitV, hitPrim
	}
	best := min(limit, 1)
	box := dst.bounds.Grow(dst.tEps)
	if dst.dim == Dim2 {
		box.Min[2], box.Max[2] = -1, 1
	}
	// Does the part of the motion before best of the vertices in b reach
	// dst's box?
	reaches := func(b AABB) bool {
		r := partSweptBox(b, from, to, best)
		return r.meets(&box)
	}
	for g := range src.vgroups {
		if !reaches(src.vgroups[g]) {
			continue
		}
		for b := g * blockGroup; b < min((g+1)*blockGroup, len(src.vblocks)); b++ {
			if !reaches(src.vblocks[b]) {
				continue
			}
			for leaf := b * (VertexBlock / vertexLeaf); leaf < min((b+1)*(VertexBlock/vertexLeaf), len(src.vleaves)); leaf++ {
				if !reaches(src.vleaves[leaf]) {
					continue
				}
				for _, v := range src.vorder[leaf*vertexLeaf : min((leaf+1)*vertexLeaf, len(src.vorder))] {
					if f, prim := sweepVertex(src, v, from, to, dst, &box, advance, best); f < best {
						best, hitV, hitPrim = f, v, prim
					}
				}
			}
		}
	}
	if best < limit {
		return best, hitV, hitPrim
	}
	return limit, -1, -1
}

// sweepVertex returns the fraction, advanced by advance, at which vertex
// v of src, moving from from to to, enters dst from outside before best
// (see Sweep), and the primitive of dst it enters; best and −1 if it
// does not. box is dst's bounds grown by its TEps.
func sweepVertex(src *Shape, v int32, from, to *Transform, dst *Shape, box *AABB, advance, best float64) (float64, int32) {
	if src.vnorm[v] == ([3]float64{}) {
		return best, -1 // not a vertex of any primitive
	}
	p, q := from.Apply(src.verts[v]), to.Apply(src.verts[v])
	d := sub3(q, p)
	l := len3(d)
	if !(l > 0) || !box.meetsSegment(p, q) {
		return best, -1
	}
	var lq lineQuery
	lq.init(p, scale3(d, 1/l), 0, 0)
	lq.fwd.T = best * l // only hits earlier than the best so far
	dst.traceBVH(&lq)
	h := lq.fwd
	if h.Prim < 0 || h.Inside {
		return best, -1 // no earlier hit, or it starts inside
	}
	if f := (h.T + advance) / l; f < best {
		return f, h.Prim
	}
	return best, -1
}

// SweepEdges returns the earliest fraction of a motion at which a convex
// edge of src, moving into dst, meets a convex edge of dst (Shape.Edge),
// or 1 if none does: the edge-on-edge times of impact that Sweep, which
// follows vertices, cannot see (a bar crossing another, whose vertices
// never enter it). For a translation the first touch of two closed
// meshes is a vertex entering a face or two edges meeting, so the least
// of Sweep both ways (src into dst, dst into src) and SweepEdges is the
// time of impact (TestSweepEdgesTimeOfImpact checks it against
// Overlap).
//
// from, to and advance are Sweep's. Each edge of src moves as its ends
// do (Sweep's paths, straight from start to end), so it sweeps the quad
// between its places at both ends of the motion: planar for a
// translation, cut into two triangles otherwise. An edge of dst that
// crosses the quad meets the moving edge at the fraction of the motion
// interpolated there. It counts only if the moving edge goes into dst
// there: against the normal of the two edges that points out of dst (to
// the side of the two faces of dst's edge); crossings of parallel edges are their
// ends', which Sweep sees. The fraction is advanced by advance over the
// edge's ends' longer path.
//
// It tests pairs of edges, so it can cost up to the product of the two
// edge counts; culling keeps it near the pairs that can meet before the
// earliest fraction found so far (SweepEdgesBefore): a block of src's
// edges is tested only against the blocks of dst's edges that the part
// of its motion before that fraction can reach, and an edge only
// against the edges that part of its quad can reach. Use it for fast
// pairs, as continuous collision detection does, and give it the
// vertices' time of impact as a limit.
func SweepEdges(src *Shape, from, to *Transform, dst *Shape, advance float64) float64 {
	return SweepEdgesBefore(src, from, to, dst, advance, 1)
}

// SweepEdgesBefore is SweepEdges looking only for fractions below limit:
// it returns the earliest fraction less than limit at which an edge of
// src moving into dst meets one of dst's, or limit if there is none. The
// result is SweepEdges' whenever that is less than limit. Pass the
// least of the vertex sweeps (Sweep both ways): the edges' quads are then
// cut at that fraction and most pairs of edges are never looked at.
func SweepEdgesBefore(src *Shape, from, to *Transform, dst *Shape, advance, limit float64) float64 {
	var s edgeSweep
	return s.run(src, from, to, dst, advance, limit)
}

// run is SweepEdgesBefore; s keeps the pair of edges of the hit it
// found (hitSrc and hitDst −1 if none).
func (s *edgeSweep) run(src *Shape, from, to *Transform, dst *Shape, advance, limit float64) float64 {
	*s = edgeSweep{src: src, dst: dst, from: *from, to: *to, advance: advance, best: min(limit, 1), hitSrc: -1, hitDst: -1}
	if len(src.edges) == 0 || len(dst.edges) == 0 || !(limit > 0) {
		return limit
	}
	s.box = dst.bounds.Grow(dst.tEps)
	// Down src's hierarchy of edge blocks, as far as the part of the
	// motion before best reaches dst's box.
	var stack edgeStack
	stack.pushLevel(src, len(src.edgeUp))
	for stack.n > 0 {
		l, i := stack.pop()
		reach := partSweptBox(*src.edgeBox(l, i), from, to, s.best)
		if !reach.meets(&s.box) {
			continue
		}
		if l > 0 {
			stack.pushChildren(src, l, i)
			continue
		}
		s.block(i, &reach)
	}
	if s.best < limit {
		return s.best
	}
	s.hitSrc, s.hitDst = -1, -1
	return limit
}

// edgeSweep is the state of one SweepEdgesBefore.
type edgeSweep struct {
	src, dst  *Shape
	from, to  Transform // copies: pointers stored here would escape
	box       AABB      // dst's bounds grown by its TEps
	advance   float64
	best      float64
	near      [sweepBlocks]int32 // dst's edge blocks that a block of src's can reach
	nearCount int

	// The hit: src's edge and dst's, the fraction of the motion t and
	// the place s along src's edge where they meet (before advance), and
	// their common normal, pointing out of dst.
	hitSrc, hitDst int32
	hitT, hitS     float64
	hitN           [3]float64
}

// block sweeps src's edge block sb, whose motion before best lies in
// reach, against the blocks of dst's edges that meet reach, found down
// dst's hierarchy.
func (s *edgeSweep) block(sb int, reach *AABB) {
	var stack edgeStack
	stack.pushLevel(s.dst, len(s.dst.edgeUp))
	s.nearCount = 0
	for stack.n > 0 {
		l, i := stack.pop()
		if !s.dst.edgeBox(l, i).meets(reach) {
			continue
		}
		if l > 0 {
			stack.pushChildren(s.dst, l, i)
			continue
		}
		if s.nearCount == len(s.near) {
			s.edges(sb)
		}
		s.near[s.nearCount] = int32(i)
		s.nearCount++
	}
	if s.nearCount > 0 {
		s.edges(sb)
	}
}

// edges sweeps the edges of src's block sb against those of the listed
// blocks of dst, and empties the list.
func (s *edgeSweep) edges(sb int) {
	for i := sb * edgeBlock; i < min((sb+1)*edgeBlock, len(s.src.edges)); i++ {
		s.edge(i, s.near[:s.nearCount])
	}
	s.nearCount = 0
}

// edgeStack holds the nodes of a shape's hierarchy of edge blocks still to
// visit, depth first: at most edgeFan at the top and edgeFan − 1 more for
// each level below it, so 96 entries hold a hierarchy of twelve levels
// above its blocks (8¹² blocks of edges, far more than memory holds).
type edgeStack struct {
	level, index [edgeFan * 12]int32
	n            int
}

// pushLevel pushes the nodes of level l of s's hierarchy, the top level
// when l = len(s.edgeUp), last first.
func (st *edgeStack) pushLevel(s *Shape, l int) {
	for i := s.edgeLevelSize(l) - 1; i >= 0; i-- {
		st.push(l, i)
	}
}

// pushChildren pushes the children of node i of level l, last first.
func (st *edgeStack) pushChildren(s *Shape, l, i int) {
	for c := min((i+1)*edgeFan, s.edgeLevelSize(l-1)) - 1; c >= i*edgeFan; c-- {
		st.push(l-1, c)
	}
}

func (st *edgeStack) push(l, i int) {
	st.level[st.n], st.index[st.n] = int32(l), int32(i)
	st.n++
}

func (st *edgeStack) pop() (l, i int) {
	st.n--
	return int(st.level[st.n]), int(st.index[st.n])
}

// sweepBlocks is the number of dst's edge blocks SweepEdgesBefore lists
// at a time for a block of src's edges.
const sweepBlocks = 128

// partSweptBox returns a box holding the place, at any fraction up to f of
// the motion, of every point of b moving straight from its place under
// from to its place under to (a vertex's path; and so every point, up to
// f, of the triangles an edge in b sweeps, see quadPart): b mapped by
// from, joined with the interpolation at f of b mapped by from and by to,
// grown by a margin for rounding.
func partSweptBox(b AABB, from, to *Transform, f float64) AABB {
	start, end := b.Transformed(from), b.Transformed(to)
	r := start
	for k := range 3 {
		lo, hi := (1-f)*start.Min[k]+f*end.Min[k], (1-f)*start.Max[k]+f*end.Max[k]
		r.Min[k], r.Max[k] = min(r.Min[k], lo), max(r.Max[k], hi)
	}
	return r.Grow(sweepMargin * (r.Max[0] - r.Min[0] + r.Max[1] - r.Min[1] + r.Max[2] - r.Min[2]))
}

// sweepMargin is the relative margin of the boxes of parts of quads: the
// boxes of a part are interpolated, so rounding could put a crossing
// that the triangles' test finds just outside them.
const sweepMargin = 1e-9

// quadPart returns a box holding every point of the triangles p0 q0 q1
// and p0 q1 p1 at which the fraction of the motion, as edgeCrossing
// interpolates it, is at most f. In the first the fraction is q1's
// weight, so those points are the triangle cut by the line through its
// points p0 + f(q1 − p0) and q0 + f(q1 − q0); in the second it is the
// sum of q1's and p1's weights, so they are the triangle p0,
// p0 + f(q1 − p0), p0 + f(p1 − p0). For f = 1 that is the quad's box.
func quadPart(p0, q0, p1, q1 [3]float64, f float64) AABB {
	if f >= 1 {
		return pointsBox(p0, q0, p1, q1)
	}
	b := pointsBox(p0, q0, add3(p0, scale3(sub3(q1, p0), f)), add3(q0, scale3(sub3(q1, q0), f)), add3(p0, scale3(sub3(p1, p0), f)))
	return b.Grow(sweepMargin * (b.Max[0] - b.Min[0] + b.Max[1] - b.Min[1] + b.Max[2] - b.Min[2]))
}

// edge lowers s.best to the fraction at which edge i of src first meets
// an edge of dst going into it (see SweepEdges), if that is earlier,
// among the edges of dst's edge blocks listed in blocks.
func (s *edgeSweep) edge(i int, blocks []int32) {
	src, dst := s.src, s.dst
	seg := &src.edgeSeg[i]
	p0, q0, p1, q1 := s.from.Apply(seg[0]), s.from.Apply(seg[1]), s.to.Apply(seg[0]), s.to.Apply(seg[1])
	quad := quadPart(p0, q0, p1, q1, s.best)
	if !quad.meets(&s.box) {
		return
	}
	mp, mq := sub3(p1, p0), sub3(q1, q0) // the ends' paths
	travel := max(len3(mp), len3(mq))
	if !(travel > 0) {
		return
	}
	// The planes of the quad's two triangles, both through p0: an edge of
	// dst with both ends on one side of each, by more than rounding could
	// move them, crosses neither. (The ends lie in the quad's part's box,
	// and so does p0: their distances from p0 are at most its diagonal.)
	n1, n2 := cross3(sub3(q0, p0), sub3(q1, p0)), cross3(sub3(q1, p0), mp)
	diag := len3(sub3(quad.Max, quad.Min))
	m1, m2 := sweepMargin*len3(n1)*diag, sweepMargin*len3(n2)*diag
	for _, db := range blocks {
		if !dst.edgeBlocks[db].box.meets(&quad) {
			continue
		}
		for k := int(db) * edgeBlock; k < min((int(db)+1)*edgeBlock, len(dst.edges)); k++ {
			seg := &dst.edgeSeg[k]
			if !quad.meetsBox(seg) {
				continue
			}
			a0, a1 := sub3(seg[0], p0), sub3(seg[1], p0)
			if oneSide(dot3(a0, n1), dot3(a1, n1), m1) && oneSide(dot3(a0, n2), dot3(a1, n2), m2) {
				continue
			}
			if t, at, n, ok := edgeCrossing(p0, q0, p1, q1, dst, k); ok && t < s.best {
				if f := t + s.advance/travel; f < s.best {
					s.best = f
					s.hitSrc, s.hitDst, s.hitT, s.hitS, s.hitN = int32(i), int32(k), t, at, n
				}
			}
		}
	}
}

// oneSide reports whether two signed distances from a plane are both
// above m or both below −m.
func oneSide(d0, d1, m float64) bool { return d0 > m && d1 > m || d0 < -m && d1 < -m }

// edgeCrossing returns the fraction of the motion t at which the edge
// moving from p0 q0 to p1 q1 (in dst's frame) crosses dst's edge k going
// into dst, the place s along the moving edge (0 at p, 1 at q) where it
// does, the two edges' common normal there pointing out of dst (not
// unit), and whether it does (see SweepEdges).
func edgeCrossing(p0, q0, p1, q1 [3]float64, dst *Shape, k int) (t, s float64, n [3]float64, ok bool) {
	b0, b1 := dst.edgeSeg[k][0], dst.edgeSeg[k][1]
	// The quad p0 q0 q1 p1 as two triangles; each corner has a
	// fraction of the motion t and a place along the edge s.
	if a, b, hit := segmentTriangle(b0, b1, p0, q0, q1); hit {
		t, s, ok = b, a+b, true
	}
	if a, b, hit := segmentTriangle(b0, b1, p0, q1, p1); hit && (!ok || a+b < t) {
		t, s, ok = a+b, a, true
	}
	if !ok {
		return 0, 0, n, false
	}
	// Into dst: the edge's point moves against the normal of the two
	// edges that points out of dst's edge.
	dirSrc := add3(scale3(sub3(q0, p0), 1-t), scale3(sub3(q1, p1), t))
	n = cross3(dirSrc, sub3(b1, b0))
	f := &dst.edges[k]
	out := add3(dst.FaceNormal(int(f.Faces[0])), dst.FaceNormal(int(f.Faces[1])))
	side := dot3(n, out)
	if side == 0 {
		return 0, 0, n, false // parallel edges, or an edge along dst's
	}
	if side < 0 {
		n = scale3(n, -1)
	}
	motion := add3(scale3(sub3(p1, p0), 1-s), scale3(sub3(q1, q0), s))
	if dot3(motion, n) >= 0 {
		return 0, 0, n, false // leaving dst, or sliding along it
	}
	return t, s, n, true
}

// pointsBox returns the bounding box of the points.
func pointsBox(ps ...[3]float64) AABB {
	b := AABB{Min: ps[0], Max: ps[0]}
	for _, p := range ps[1:] {
		for k := range 3 {
			b.Min[k], b.Max[k] = min(b.Min[k], p[k]), max(b.Max[k], p[k])
		}
	}
	return b
}

// segmentTriangle reports whether the segment b0 b1 crosses the triangle
// a0 a1 a2 (Möller–Trumbore, closed: its edges and ends count), and where:
// the barycentric weights u of a1 and v of a2. A segment in the
// triangle's plane does not cross it.
func segmentTriangle(b0, b1, a0, a1, a2 [3]float64) (u, v float64, ok bool) {
	d := sub3(b1, b0)
	e1, e2 := sub3(a1, a0), sub3(a2, a0)
	p := cross3(d, e2)
	det := dot3(e1, p)
	if !(math.Abs(det) > 1e-12*len3(d)*len3(e1)*len3(e2)) {
		return 0, 0, false
	}
	inv := 1 / det
	s := sub3(b0, a0)
	u = dot3(s, p) * inv
	if u < 0 || u > 1 {
		return 0, 0, false
	}
	q := cross3(s, e1)
	v = dot3(d, q) * inv
	if v < 0 || u+v > 1 {
		return 0, 0, false
	}
	if t := dot3(e2, q) * inv; t < 0 || t > 1 {
		return 0, 0, false
	}
	return u, v, true
}
