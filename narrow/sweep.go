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
// vertex block whose boxes at both ends of the motion miss dst's box is
// skipped whole, and so is a vertex whose path misses it.
func Sweep(src *Shape, from, to *Transform, dst *Shape, advance float64) float64 {
	best := 1.0
	box := dst.bounds.Grow(dst.tEps)
	if dst.dim == Dim2 {
		box.Min[2], box.Max[2] = -1, 1
	}
	for b, blk := range src.vblocks {
		if swept := sweptBox(blk, from, to); !swept.meets(&box) {
			continue
		}
		for _, v := range src.BlockVertices(b) {
			if src.vnorm[v] == ([3]float64{}) {
				continue // not a vertex of any primitive
			}
			p, q := from.Apply(src.verts[v]), to.Apply(src.verts[v])
			d := sub3(q, p)
			l := len3(d)
			if !(l > 0) || !box.meetsSegment(p, q) {
				continue
			}
			dir := scale3(d, 1/l)
			var lq lineQuery
			lq.init(p, dir, 0, 0)
			lq.fwd.T = best * l // only hits earlier than the best so far
			dst.traceBVH(&lq)
			h := lq.fwd
			if h.Prim < 0 || h.Inside {
				continue // no earlier hit, or it starts inside
			}
			best = min(best, (h.T+advance)/l)
		}
	}
	return best
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
// edge's ends' longer path. Edges whose boxes miss each other, or miss
// dst's box, are skipped. It tests pairs of edges, so it costs up to the
// product of the two edge counts: use it for fast pairs, as continuous
// collision detection does.
func SweepEdges(src *Shape, from, to *Transform, dst *Shape, advance float64) float64 {
	if len(src.edges) == 0 || len(dst.edges) == 0 {
		return 1
	}
	box := dst.bounds.Grow(dst.tEps)
	best := 1.0
	for sb := range src.edgeBlocks {
		// A block of src's edges whose box, at both ends of the motion,
		// lies beside dst's box sweeps nothing in it.
		if swept := sweptBox(src.edgeBlocks[sb].box, from, to); !swept.meets(&box) {
			continue
		}
		for i := sb * edgeBlock; i < min((sb+1)*edgeBlock, len(src.edges)); i++ {
			best = sweepEdge(src, i, from, to, dst, &box, advance, best)
		}
	}
	return best
}

// sweepEdge returns the lesser of best and the fraction at which edge i
// of src, moving from from to to, first meets an edge of dst going into
// it (see SweepEdges); box is dst's bounds grown by its TEps.
func sweepEdge(src *Shape, i int, from, to *Transform, dst *Shape, box *AABB, advance, best float64) float64 {
	seg := &src.edgeSeg[i]
	p0, q0, p1, q1 := from.Apply(seg[0]), from.Apply(seg[1]), to.Apply(seg[0]), to.Apply(seg[1])
	quad := pointsBox(p0, q0, p1, q1)
	if !quad.meets(box) {
		return best
	}
	mp, mq := sub3(p1, p0), sub3(q1, q0) // the ends' paths
	travel := max(len3(mp), len3(mq))
	if !(travel > 0) {
		return best
	}
	for db := range dst.edgeBlocks {
		if !dst.edgeBlocks[db].box.meets(&quad) {
			continue
		}
		for k := db * edgeBlock; k < min((db+1)*edgeBlock, len(dst.edges)); k++ {
			f := &dst.edges[k]
			b0, b1 := dst.edgeSeg[k][0], dst.edgeSeg[k][1]
			if !quad.meetsBox(&dst.edgeSeg[k]) {
				continue
			}
			// The quad p0 q0 q1 p1 as two triangles; each corner has a
			// fraction of the motion t and a place along the edge s.
			var t, s float64
			var ok bool
			if a, b, hit := segmentTriangle(b0, b1, p0, q0, q1); hit {
				t, s, ok = b, a+b, true
			}
			if a, b, hit := segmentTriangle(b0, b1, p0, q1, p1); hit && (!ok || a+b < t) {
				t, s, ok = a+b, a, true
			}
			if !ok || t >= best {
				continue
			}
			// Into dst: the edge's point moves against the normal of
			// the two edges that points out of dst's edge.
			dirSrc := add3(scale3(sub3(q0, p0), 1-t), scale3(sub3(q1, p1), t))
			n := cross3(dirSrc, sub3(b1, b0))
			out := add3(dst.FaceNormal(int(f.Faces[0])), dst.FaceNormal(int(f.Faces[1])))
			side := dot3(n, out)
			if side == 0 {
				continue // parallel edges, or an edge along dst's
			}
			if side < 0 {
				n = scale3(n, -1)
			}
			motion := add3(scale3(mp, 1-s), scale3(mq, s))
			if dot3(motion, n) >= 0 {
				continue // leaving dst, or sliding along it
			}
			best = min(best, t+advance/travel)
		}
	}
	return best
}

// sweptBox returns a box holding b mapped by from and by to, and so
// every straight path between the two places of a point of b.
func sweptBox(b AABB, from, to *Transform) AABB {
	swept, end := b.Transformed(from), b.Transformed(to)
	for k := range 3 {
		swept.Min[k], swept.Max[k] = min(swept.Min[k], end.Min[k]), max(swept.Max[k], end.Max[k])
	}
	return swept
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
