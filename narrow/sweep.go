package narrow

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
		swept := blk.Transformed(from)
		end := blk.Transformed(to)
		for k := range 3 {
			swept.Min[k], swept.Max[k] = min(swept.Min[k], end.Min[k]), max(swept.Max[k], end.Max[k])
		}
		if !swept.meets(&box) {
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
