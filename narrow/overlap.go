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
// the two triangles through the other (Mochi, Sharma et al., §3.4.1,
// Reduction 4: "rays along the triangle edges", both ways), and in 2D two
// segments that cross do so along both. So each edge of a is traced as a
// segment against b, through b's BVH and with the standard rays' exact
// ray-primitive test, then each edge of b against a; the first hit ends
// the test. If no edge crosses, the boundaries are apart, and the shapes
// overlap only if one lies inside the other: one vertex of each decides
// (Shape.Nearest's side test; a vertex on the other's surface, within
// TEps, touches it). Edges whose segment misses the other shape's box are
// skipped. The ray-primitive test widens each primitive by a relative
// 1e-9 so that rays through shared edges are not lost; edges that lie in
// a face of the other shape (coplanar) are caught where they meet that
// face's neighbours or where a vertex touches.
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
// meets a primitive of dst (box: dst's bounds, grown by its TEps).
func edgesCross(src *Shape, t *Transform, dst *Shape, box *AABB) bool {
	for i, p := range src.prims {
		if p[2] < 0 { // a segment: one edge
			if edgeCrosses(src.verts[p[0]], src.verts[p[1]], t, dst, box) {
				return true
			}
			continue
		}
		// A triangle's edges k (Adjacent): c-a, a-b, b-c; each edge of a
		// closed mesh is shared by two triangles and traced by the one
		// with the lower index.
		for k, e := range [3][2]int32{{p[2], p[0]}, {p[0], p[1]}, {p[1], p[2]}} {
			if n := src.adj[i][k]; n >= 0 && int(n) < i {
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
	if !box.meetsSegment(p, q) {
		return false
	}
	d := sub3(q, p)
	l := len3(d)
	if !(l > 0) {
		return false
	}
	var lq lineQuery
	lq.init(p, scale3(d, 1/l), -dst.tEps, 0)
	lq.fwd.T = l + dst.tEps // hits up to the far end, and a little past it
	dst.traceBVH(&lq)
	return lq.fwd.Prim >= 0
}

// touchesInside reports whether src's first vertex of a primitive, mapped
// into dst's frame by t, lies inside dst or on its surface (within TEps):
// with no edge crossing, whether src lies inside dst.
func touchesInside(src *Shape, t *Transform, dst *Shape) bool {
	x := t.Apply(src.verts[src.prims[0][0]])
	_, dist, _, inside := dst.Nearest(x)
	return inside || dist <= dst.tEps
}
