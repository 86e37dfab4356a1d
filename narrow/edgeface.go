package narrow

import "math"

// maxEdgeCrossings bounds the number of times AppendEdgeFaceContacts
// follows one edge into and out of the other body: a mesh edge crosses a
// smooth body's surface twice, a rough one's a few times more.
const maxEdgeCrossings = 16

// AppendEdgeFaceContacts appends to dst the edge-through-face contacts
// of d.Src's convex edges bent by more than angle (see SharpEdges) that
// pass through d.Dst with both their ends outside it, and returns the
// extended slice. Only d's frames are used (SetPoses). The contacts come
// from d.From, in the order of the source edge, then of the primitive
// entered (CompareContacts).
//
// Rays from vertices miss two bodies that cross with no vertex of either
// inside the other, and edge-on-edge contacts (AppendEdgeContacts) catch
// such a crossing only where two convex edges separate along their common
// normal: a sharp edge cut into a smooth face, or into a face near an
// edge whose arcs do not meet, has none. The Mochi paper (Mandarapu,
// James and Kulkarni, §3.4.1, Reduction 4) finds every crossing of two
// triangle meshes by rays along the triangles' edges, both ways: two
// closed surfaces cross iff an edge of one crosses a face of the other
// (Overlap tests it so). Here each edge of Src near Dst is traced as a
// segment through Dst's hierarchy (with the standard rays' exact
// ray-primitive test and traversal trav), from one end: each part of it
// between an entry into Dst and the next exit, with both ends of the edge
// outside Dst, is a crossing. (A part that starts or ends at an end of
// the edge holds a vertex of Src inside Dst, whose ray gives its
// contact.) Only convex edges are traced: where the surfaces cross and no
// vertex of either lies inside the other, the part of Src inside Dst is
// a polyhedron whose corners, its points extreme along some direction,
// lie where a convex edge of one body crosses a face of the other (at a
// concave edge the part inside keeps a whole line through the point), so
// with both directions of a pair every such crossing has a convex edge
// through a face.
//
// A crossing's contact is P, the middle of the part inside Dst, Q, the
// point of Dst's surface nearest to P (Shape.Nearest), Depth = |Q − P|
// and Dir = (Q − P)/Depth (world): moving Src by Depth·Dir brings P to Q,
// the Contact convention, with Feature FeatureEdgeFace, Vertex the edge
// (an index into Src's Shape.Edge list) and Prim the primitive of Dst
// the edge enters there. P is the deepest point of the part for a
// straight edge through a flat face, nearly so through a smooth one.
// Crossings deeper than maxDepth, or within Dst's tolerance (TEps) of
// the surface, give none. There are no speculative edge-through-face
// contacts. Like Overlap, it allocates nothing once sc has grown.
func (d *Direction) AppendEdgeFaceContacts(dst []Contact, sc *EdgeScratch, angle, maxDepth float64, trav Traversal) []Contact {
	if len(d.Src.edges) == 0 || d.Dst.dim != Dim3 {
		return dst
	}
	if _, _, ok := d.selectSrcEdges(sc, angle, 0, false); !ok {
		return dst
	}
	return d.traceSrcEdges(dst, sc, maxDepth, trav)
}

// AppendEdgeAndFaceContacts appends to dst the contacts of
// AppendEdgeContacts (with maxGap) and then those of
// AppendEdgeFaceContacts (angle, maxDepth and trav the same), and returns
// the extended slice: the contacts of the two calls in the same order,
// with Src's edges chosen once. The edge-on-edge choice, taken with a gap
// of at least 0, holds every edge the edge-through-face one does, and an
// edge it adds lies wholly outside Dst (the choice's tests are bounds of
// the distance to Dst), so it crosses nothing and gives no contact.
func (d *Direction) AppendEdgeAndFaceContacts(dst []Contact, sc *EdgeScratch, angle, maxDepth, maxGap float64, trav Traversal) []Contact {
	dst = d.AppendEdgeContacts(dst, sc, angle, maxDepth, maxGap, trav)
	if len(d.Src.edges) == 0 || d.Dst.dim != Dim3 {
		return dst
	}
	if len(d.Dst.edges) == 0 {
		// AppendEdgeContacts chose none of Src's edges.
		return d.AppendEdgeFaceContacts(dst, sc, angle, maxDepth, trav)
	}
	return d.traceSrcEdges(dst, sc, maxDepth, trav)
}

// traceSrcEdges appends the edge-through-face contacts of the edges of
// Src in sc.src (see AppendEdgeFaceContacts).
func (d *Direction) traceSrcEdges(dst []Contact, sc *EdgeScratch, maxDepth float64, trav Traversal) []Contact {
	for x := range sc.src {
		e := &sc.src[x]
		dst = d.appendEdgeFaces(dst, e.p0, e.p1, e.i, maxDepth, trav)
	}
	return dst
}

// AppendFaceEdges appends to dst the edges of d.Src (indices into its
// Shape.Edge list, in increasing order) bent by more than angle that may
// give an edge-through-face contact (AppendEdgeFaceContacts) at d's
// placement or at any placement reached from it by a relative motion of
// at most margin, and returns the extended slice. AppendListedEdgeFaceContacts
// traces them.
//
// The motion is bounded as for AppendEdgePairs (Eq. 2 of Lehericey et
// al. 2013, §3.3, measured either way): an edge that passes through Dst
// after the motion has a point inside Dst then, which lay within margin
// of Dst before it, in both bodies' boxes grown by margin and not
// cleared by Dst's outside grid by more than margin: the choice of
// AppendEdgeFaceContacts with that gap.
func (d *Direction) AppendFaceEdges(dst []int32, sc *EdgeScratch, angle, margin float64) []int32 {
	if len(d.Src.edges) == 0 || d.Dst.dim != Dim3 {
		return dst
	}
	if _, _, ok := d.selectSrcEdges(sc, angle, max(margin, 0), false); !ok {
		return dst
	}
	for x := range sc.src {
		dst = append(dst, sc.src[x].i)
	}
	return dst
}

// AppendListedEdgeFaceContacts appends to dst the edge-through-face
// contacts of the listed edges of d.Src (from AppendFaceEdges, in its
// order) at d's placement, and returns the extended slice. Each edge is
// traced as AppendEdgeFaceContacts traces it, so while the motion since
// the edges were chosen stays within their margin the contacts are those
// AppendEdgeFaceContacts returns, in the same order, at a cost that
// depends on the number of edges only. Indices out of range are skipped.
func (d *Direction) AppendListedEdgeFaceContacts(dst []Contact, edges []int32, maxDepth float64, trav Traversal) []Contact {
	if d.Dst.dim != Dim3 {
		return dst
	}
	src := d.Src
	for _, i := range edges {
		if i < 0 || int(i) >= len(src.edges) {
			continue
		}
		seg := &src.edgeSeg[i]
		dst = d.appendEdgeFaces(dst, d.SrcToDst.Apply(seg[0]), d.SrcToDst.Apply(seg[1]), i, maxDepth, trav)
	}
	return dst
}

// appendEdgeFaces appends the contacts of Src's edge i, from p0 to p1 in
// Dst's frame, through Dst (see AppendEdgeFaceContacts), in the order of
// the primitive entered.
func (d *Direction) appendEdgeFaces(dst []Contact, p0, p1 [3]float64, i int32, maxDepth float64, trav Traversal) []Contact {
	dsh := d.Dst
	tol := max(d.Src.tEps, dsh.tEps)
	u := sub3(p1, p0)
	l := len3(u)
	if l <= 2*tol {
		return dst
	}
	u = scale3(u, 1/l)
	first := len(dst)
	t := 0.0
	for range maxEdgeCrossings {
		in := dsh.segmentHit(p0, u, t, l, trav)
		if in.Prim < 0 {
			break
		}
		if in.Inside {
			// Leaving Dst: the part before it holds the edge's first
			// end.
			t = in.T + tol
			continue
		}
		out := dsh.segmentHit(p0, u, in.T+tol, l, trav)
		if out.Prim < 0 {
			break // the edge's last end lies inside Dst
		}
		if !out.Inside {
			t = out.T // entered again: a graze at an edge of Dst
			continue
		}
		dst = d.appendEdgeFace(dst, i, along(p0, u, 0.5*(in.T+out.T)), in.Prim, tol, maxDepth)
		t = out.T + tol
	}
	// An edge crosses a few times at most: order its contacts by the
	// primitive entered, as CompareContacts does.
	run := dst[first:]
	for a := 1; a < len(run); a++ {
		for k := a; k > 0 && run[k].Prim < run[k-1].Prim; k-- {
			run[k], run[k-1] = run[k-1], run[k]
		}
	}
	return dst
}

// segmentHit returns the nearest hit of the segment o + t·d, t in [tLo,
// tHi), with s's surface (NoHit if none): a ray whose search ends at tHi.
func (s *Shape) segmentHit(o, d [3]float64, tLo, tHi float64, trav Traversal) Hit {
	var q lineQuery
	q.init(o, d, tLo, 0)
	q.fwd.T = tHi
	s.trace(&q, trav)
	fwd, _ := q.result()
	return fwd
}

// appendEdgeFace appends the contact of Src's edge i at p, a point of it
// inside Dst (in Dst's frame), entered through primitive prim (see
// AppendEdgeFaceContacts).
func (d *Direction) appendEdgeFace(dst []Contact, i int32, p [3]float64, prim int32, tol, maxDepth float64) []Contact {
	q, depth, _, inside := d.Dst.Nearest(p)
	if !inside || depth <= tol || depth > maxDepth || math.IsNaN(depth) {
		return dst
	}
	n := scale3(sub3(q, p), 1/depth)
	return append(dst, Contact{
		P: d.DstWorld.Apply(p), Depth: depth, Dir: d.DstWorld.ApplyDir(n),
		From: d.From, Feature: FeatureEdgeFace, Vertex: i, Prim: prim,
	})
}
