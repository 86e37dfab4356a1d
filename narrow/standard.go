package narrow

import (
	"fmt"
	"math"
)

// Direction is one half of a pair: the rays from the vertices of Src cast on
// Dst. Every pair is processed as two Directions (A's vertices on B, then
// B's on A), like the two orders of the paper's GPU grid (Lehericey et al.
// 2013, §3.5). Rays are cast in Dst's local frame, so shapes never need
// their hierarchy refitted.
type Direction struct {
	From               Side
	Src, Dst           *Shape
	SrcWorld, DstWorld Transform
	SrcToDst           Transform           // Src local → Dst local
	Reach              float64             // hits from inside within this distance ignore the own-body rule (Params.Reach)
	Cull               AABB                // world box rays are cast from (empty: none)
	localCull          AABB                // a box in Src's frame holding every point whose images lie in Cull (world) and dstCull (Dst)
	dstCull            AABB                // Dst's local box grown by ext, in Dst's frame
	dstDOP             [dopAxes][2]float64 // Dst's diagonal DOP slabs grown by ext
	gridMin            uint8               // Dst's outside-grid cells at least this far are culled (0: none)
}

// Setup prepares a Direction. ext grows the intersection of the two world
// bounding boxes (distanceExtension, Lehericey et al. 2013b §3.1).
func (d *Direction) Setup(from Side, src, dst *Shape, srcPose, dstPose Pose, ext float64) {
	d.SetPoses(from, src, dst, &srcPose, &dstPose)
	d.SetCull(ext)
}

// SetPoses prepares the frames only: enough for iterative updates and
// contacts, not for InCull (call SetCull before a standard step).
func (d *Direction) SetPoses(from Side, src, dst *Shape, srcPose, dstPose *Pose) {
	d.From, d.Src, d.Dst = from, src, dst
	d.SrcWorld.SetPose(srcPose)
	d.DstWorld.SetPose(dstPose)
	d.SrcToDst.SetRelative(&d.DstWorld, &d.SrcWorld)
}

// SetPair prepares both directions of a pair with SetPoses: d[0] casts a's
// vertices on b, d[1] b's on a (its map is the inverse of d[0]'s, without
// a second matrix product).
func SetPair(d *[2]Direction, a, b *Shape, pa, pb *Pose) {
	d[0].SetPoses(SideA, a, b, pa, pb)
	d[1].From, d[1].Src, d[1].Dst = SideB, b, a
	d[1].SrcWorld.SetPose(pb)
	d[1].DstWorld.SetPose(pa)
	d[1].SrcToDst.SetInverse(&d[0].SrcToDst)
}

// SetCull prepares the culling boxes of InCull, grown by ext.
func (d *Direction) SetCull(ext float64) {
	src, dst := d.Src, d.Dst
	wa := src.bounds.Transformed(&d.SrcWorld)
	wb := dst.bounds.Transformed(&d.DstWorld)
	d.Cull = wa.Intersect(wb).Grow(ext)
	if d.Cull.Empty() {
		d.localCull = d.Cull
		return
	}
	back := d.SrcWorld.Inverse()
	d.localCull = d.Cull.Transformed(&back)
	d.dstCull = dst.bounds.Grow(ext)
	d.gridMin = dst.grid.minCull(ext)
	for k, sl := range dst.dop {
		d.dstDOP[k] = [2]float64{sl[0] - ext, sl[1] + ext}
	}
	if dst.dim == Dim2 {
		d.dstCull.Min[2], d.dstCull.Max[2] = -1, 1
	}
	// Dst's grown box mapped back to Src's frame is tighter than the world
	// boxes' intersection along some axes (the world boxes are those of
	// the rotated local boxes): a vertex outside it fails the test in
	// Dst's frame anyway, and is now culled before being transformed, and
	// so are blocks. Its box is grown by a slack for rounding, far below
	// ext, so that no vertex that passes in Dst's frame is lost.
	r, t := &d.SrcToDst.R, &d.SrcToDst.T
	slack := 1e-12 * (src.scale + dst.scale + math.Abs(t[0]) + math.Abs(t[1]) + math.Abs(t[2]) + ext)
	dc := &d.dstCull
	cx, cy, cz := 0.5*(dc.Min[0]+dc.Max[0])-t[0], 0.5*(dc.Min[1]+dc.Max[1])-t[1], 0.5*(dc.Min[2]+dc.Max[2])-t[2]
	ex, ey, ez := 0.5*(dc.Max[0]-dc.Min[0]), 0.5*(dc.Max[1]-dc.Min[1]), 0.5*(dc.Max[2]-dc.Min[2])
	lc := &d.localCull
	for i := range 3 {
		// Src's axis i is row i of Rᵀ, column i of R.
		a, b, c := r[i], r[3+i], r[6+i]
		m := a*cx + b*cy + c*cz
		e := math.Abs(a)*ex + math.Abs(b)*ey + math.Abs(c)*ez + slack
		lc.Min[i] = max(lc.Min[i], m-e)
		lc.Max[i] = min(lc.Max[i], m+e)
	}
}

// InCull reports whether vertex v should cast a ray: it must lie in the
// intersection of the two world bounding boxes grown by distanceExtension
// (Hermann et al.'s ray-count optimisation, extended as in Lehericey et al.
// 2013b §3.1) and in Dst's own local box grown likewise — its oriented
// bounding box, which is tighter than its world box — and in its 26-DOP
// grown likewise, and not in a cell of its outside grid that lies wholly
// farther than ext from its surface (a lower bound of the distance, kept
// per cell of a regular grid over Dst's box; see outsideGrid). All are
// conservative: a vertex inside Dst, or within ext of it, passes every
// test, so no contact (nor prediction within distanceExtension) is lost.
// The test in Src's frame runs first, so most vertices are rejected
// without being transformed.
func (d *Direction) InCull(v int32) bool {
	x := &d.Src.verts[v]
	if !d.localCull.Contains(*x) {
		return false
	}
	r, t := &d.SrcToDst.R, &d.SrcToDst.T
	ox := r[0]*x[0] + r[1]*x[1] + r[2]*x[2] + t[0]
	if ox < d.dstCull.Min[0] || ox > d.dstCull.Max[0] {
		return false
	}
	oy := r[3]*x[0] + r[4]*x[1] + r[5]*x[2] + t[1]
	if oy < d.dstCull.Min[1] || oy > d.dstCull.Max[1] {
		return false
	}
	oz := r[6]*x[0] + r[7]*x[1] + r[8]*x[2] + t[2]
	if oz < d.dstCull.Min[2] || oz > d.dstCull.Max[2] {
		return false
	}
	// The 26-DOP of Dst's vertices bounds its convex hull, hence its
	// volume: a vertex outside it cannot be inside Dst (and lies farther
	// than ext from it, so it cannot give a prediction either).
	for k := range d.dstDOP {
		ax, sl := &dopAxis[k], &d.dstDOP[k]
		if p := ax[0]*ox + ax[1]*oy + ax[2]*oz; p < sl[0] || p > sl[1] {
			return false
		}
	}
	return d.gridMin == 0 || !d.Dst.grid.far(ox, oy, oz, d.gridMin)
}

// AppendInCull appends to dst the vertices at positions [lo, hi) of
// Src.VertexOrder() that pass InCull, in that order, and returns the
// extended slice. It tests the boxes of the culling hierarchy first
// (groups, blocks, leaves; see Shape.VertexOrder), each against the same
// volumes as InCull less its outside grid, and a vertex only where all
// the boxes holding it pass: the result is exactly that of InCull on
// every vertex of the range.
func (d *Direction) AppendInCull(dst []int32, lo, hi int) []int32 {
	src := d.Src
	hi = min(hi, len(src.vorder))
	if lo >= hi || d.Cull.Empty() {
		return dst
	}
	var c boxCull
	c.set(d)
	for g := lo / groupVertices; g*groupVertices < hi; g++ {
		if !c.meets(&src.vgroups[g]) {
			continue
		}
		gEnd := min(hi, (g+1)*groupVertices)
		for b := max(lo, g*groupVertices) / VertexBlock; b*VertexBlock < gEnd; b++ {
			if !c.meets(&src.vblocks[b]) {
				continue
			}
			bEnd := min(gEnd, (b+1)*VertexBlock)
			for l := max(lo, b*VertexBlock) / vertexLeaf; l*vertexLeaf < bEnd; l++ {
				if !c.meets(&src.vleaves[l]) {
					continue
				}
				for _, v := range src.vorder[max(lo, l*vertexLeaf):min(bEnd, (l+1)*vertexLeaf)] {
					if d.InCull(v) {
						dst = append(dst, v)
					}
				}
			}
		}
	}
	return dst
}

// AppendInBoxes appends to dst the vertices at positions [lo, hi) of
// Src.VertexOrder() whose world position lies in Cull, the intersection of
// the two world bounding boxes grown by SetCull's ext, in that order, and
// returns the extended slice: the culling of Hermann et al. (2008) that
// the IRTCD papers' standard algorithm uses (Params.Culling, CullBoxes).
// It holds every vertex AppendInCull returns.
func (d *Direction) AppendInBoxes(dst []int32, lo, hi int) []int32 {
	src := d.Src
	hi = min(hi, len(src.vorder))
	if lo >= hi || d.Cull.Empty() {
		return dst
	}
	for _, v := range src.vorder[lo:hi] {
		if d.Cull.Contains(d.SrcWorld.Apply(src.verts[v])) {
			dst = append(dst, v)
		}
	}
	return dst
}

// boxCull tests boxes of Src's frame against a Direction's culling
// volumes (InCull's, less the outside grid): the local culling box, then
// the slabs of Dst's grown box and 26-DOP, each mapped into Src's frame
// as an axis a (unit), the mid-point m and half-width w of its slab along
// a. A box of centre c and half-extents e meets a slab when
// |a·c − m| ≤ |a|·e + w. The half-widths carry a slack, as localCull
// does, for the rounding by which InCull's own arithmetic (in Dst's
// frame) could pass a vertex on a box's face that this test, computed
// otherwise, would put just outside.
type boxCull struct {
	local AABB
	axis  [3 + dopAxes][3]float64
	abs   [3 + dopAxes][3]float64
	mid   [3 + dopAxes]float64
	half  [3 + dopAxes]float64
}

// set prepares c for the Direction d (after SetCull, Cull not empty).
func (c *boxCull) set(d *Direction) {
	c.local = d.localCull
	r, t := &d.SrcToDst.R, &d.SrcToDst.T
	slack := 1e-12 * (d.Src.scale + d.Dst.scale + math.Abs(t[0]) + math.Abs(t[1]) + math.Abs(t[2]) + d.dstCull.Max[0] - d.dstCull.Min[0])
	for k := range c.axis {
		// Dst's axis u, in Src's frame: Rᵀu; the point x of Src's frame
		// is at u·(Rx + t) = (Rᵀu)·x + u·t along it.
		var u [3]float64
		var lo, hi float64
		if k < 3 {
			u[k] = 1
			lo, hi = d.dstCull.Min[k], d.dstCull.Max[k]
		} else {
			u = dopAxis[k-3]
			lo, hi = d.dstDOP[k-3][0], d.dstDOP[k-3][1]
		}
		ut := u[0]*t[0] + u[1]*t[1] + u[2]*t[2]
		for i := range 3 {
			a := u[0]*r[i] + u[1]*r[3+i] + u[2]*r[6+i]
			c.axis[k][i], c.abs[k][i] = a, math.Abs(a)
		}
		c.mid[k] = 0.5*(lo+hi) - ut
		c.half[k] = 0.5*(hi-lo) + slack
	}
}

// meets reports whether box b (Src's frame) may hold a vertex that passes
// InCull.
func (c *boxCull) meets(b *AABB) bool {
	lc := &c.local
	if b.Min[0] > lc.Max[0] || b.Max[0] < lc.Min[0] || b.Min[1] > lc.Max[1] || b.Max[1] < lc.Min[1] ||
		b.Min[2] > lc.Max[2] || b.Max[2] < lc.Min[2] {
		return false
	}
	cx, cy, cz := 0.5*(b.Min[0]+b.Max[0]), 0.5*(b.Min[1]+b.Max[1]), 0.5*(b.Min[2]+b.Max[2])
	ex, ey, ez := 0.5*(b.Max[0]-b.Min[0]), 0.5*(b.Max[1]-b.Min[1]), 0.5*(b.Max[2]-b.Min[2])
	for k := range c.axis {
		a, m := &c.axis[k], &c.abs[k]
		p := a[0]*cx + a[1]*cy + a[2]*cz - c.mid[k]
		if math.Abs(p) > m[0]*ex+m[1]*ey+m[2]*ez+c.half[k] {
			return false
		}
	}
	return true
}

// Ray sets o and dir to the origin and unit direction, in Dst's frame, of
// the ray from vertex v along its inward normal. (It writes through
// pointers: returned arrays travel through memory and cost more.)
func (d *Direction) Ray(v int32, o, dir *[3]float64) {
	x, n := &d.Src.verts[v], &d.Src.vnorm[v]
	r, t := &d.SrcToDst.R, &d.SrcToDst.T
	o[0] = r[0]*x[0] + r[1]*x[1] + r[2]*x[2] + t[0]
	o[1] = r[3]*x[0] + r[4]*x[1] + r[5]*x[2] + t[1]
	o[2] = r[6]*x[0] + r[7]*x[1] + r[8]*x[2] + t[2]
	dir[0] = -(r[0]*n[0] + r[1]*n[1] + r[2]*n[2])
	dir[1] = -(r[3]*n[0] + r[4]*n[1] + r[5]*n[2])
	dir[2] = -(r[6]*n[0] + r[7]*n[1] + r[8]*n[2])
}

// Outcome is the result of one standard ray.
type Outcome struct {
	Contact  bool       // Fwd is hit from Dst's inside and Src is not left before it (or Fwd is within Reach)
	Occluded bool       // Fwd was hit from inside beyond Reach, but the ray left Src first (reported only within the clipped search, see Standard)
	Fwd, Bwd Hit        // nearest hits ahead (t ≥ -tEps) and behind (within back)
	O, D     [3]float64 // the ray in Dst's frame (see Ray)
}

// Standard casts the ray of vertex v (Hermann et al. 2008, as in §2 of
// Lehericey et al. 2013): a contact iff the first hit on Dst is from Dst's
// inside (ray · outward normal > 0) and no primitive of Src, other than
// those touching v, is hit before it. With back > 0 the opposite
// (predictive) ray is traced in the same traversal, up to distance back
// (Lehericey et al. 2013b, §3.1). Vertices within tEps of a surface touch
// it: zero-depth contacts are contacts; and a hit from outside within tEps
// of the origin is skipped, since it means the vertex lies on Dst's surface
// where the ray enters Dst (a box corner resting exactly on another box's
// edge), not that it lies outside: the ray's exit decides. One departure
// from Hermann: a hit
// from inside within d.Reach is a contact even if the ray left Src before
// it (see Blocked and Params.Reach).
//
// The forward search ends just past the point where the ray leaves Src
// (its precomputed exit distance plus 2·tEps) or at Reach, whichever is
// farther: any hit beyond is occluded whatever side it is met from, so
// clipping changes no contact and prunes the traversal. Fwd is then NoHit
// for a ray with nothing on Dst before that point, and Occluded is only
// reported for hits before it. The predictive ray needs no more: its rule
// (predictive.FromStandard) keeps a prediction only when the nearest
// crossing behind the vertex enters Dst, and on a closed surface that
// places the vertex outside Dst, where the first hit ahead enters Dst too
// (neither a contact nor an occlusion). For a vertex outside Dst's box
// (grown by 2·tEps), or that Dst's outside grid places outside, there is
// no forward search at all, for the same reason; and, with the basic
// traversal, no search at all if the grid shows the predictive ray to
// stay clear of Dst's surface (outsideGrid.clearAlong).
func (d *Direction) Standard(out *Outcome, v int32, back float64, trav Traversal) {
	*out = Outcome{Fwd: NoHit, Bwd: NoHit}
	var q lineQuery
	used, trace := d.setQuery(&q, v, back, trav)
	if !used {
		return // vertex used by no primitive
	}
	if trace {
		d.Dst.trace(&q, trav)
	}
	// Element by element: a whole-array copy of freshly stored values
	// would stall (see Transform.SetPose).
	out.O[0], out.O[1], out.O[2] = q.o[0], q.o[1], q.o[2]
	out.D[0], out.D[1], out.D[2] = q.d[0], q.d[1], q.d[2]
	out.Fwd, out.Bwd = q.result()
	d.judge(out, v)
}

// setQuery prepares the line query of vertex v's standard ray (see
// Standard): used is false for a vertex used by no primitive (no ray),
// and trace false when the query's hits are known to be none without a
// trace.
func (d *Direction) setQuery(q *lineQuery, v int32, back float64, trav Traversal) (used, trace bool) {
	if d.Src.vnorm[v] == ([3]float64{}) {
		return false, false
	}
	d.Ray(v, &q.o, &q.d)
	q.start(-d.Dst.tEps, back)
	q.onSurf = true
	q.fwd.T = max(d.Src.exitOf(v)+2*d.Src.tEps, d.Reach)
	if back > 0 && (!d.Dst.nearBounds(&q.o) || d.Dst.grid.outside(q.o[0], q.o[1], q.o[2])) {
		// A vertex outside Dst's box, or that Dst's outside grid
		// places outside, is outside Dst: whatever the ray meets
		// ahead, it enters Dst there (no contact, nothing occluded).
		// Only the predictive ray is left to trace, and only if it
		// reaches Dst's box (with the basic traversal this spares a
		// test of every primitive; Lehericey et al. 2013b, §3.1, limit
		// the predictive ray to cullingDist for the same reason) and,
		// with the basic traversal, if the grid's bounds let it come
		// near Dst's surface (a BVH walk of such a ray costs about as
		// little as the check).
		q.fwd.T = q.tLo
		miss := !d.Dst.meetsHull(&q.slabRay, -back, q.tLo) ||
			trav == TraversalBasic && d.Dst.grid.clearAlong(&q.o, &q.d, -back)
		return true, !miss
	}
	return true, true
}

// judge applies Hermann's own-body rule to a traced Outcome (see
// Standard).
func (d *Direction) judge(out *Outcome, v int32) {
	if out.Fwd.Prim < 0 || !out.Fwd.Inside {
		return
	}
	if d.Blocked(v, out.Fwd.T) {
		out.Occluded = true
		return
	}
	out.Contact = true
}

// RayQuery is a standard ray's line query in Dst's frame, as
// Direction.StandardQuery prepares it for a tracer that runs apart from
// the Direction (a GPU, a batch): the forward hit is the primitive
// crossing nearest ahead with TLo ≤ t < TMax, except crossings entering
// Dst (ray · outward normal ≤ 0) at t ≤ −TLo, which mean the origin lies
// on Dst's surface (see Direction.Standard); the backward hit, wanted
// when Back > 0, is the crossing nearest behind with −Back ≤ t < TLo.
// Ties go to the lower primitive index. Shape.TraceQuery answers it.
type RayQuery struct {
	O, D [3]float64 // origin and unit direction (Direction.Ray)
	TLo  float64    // start of the forward search (−Dst.TEps())
	TMax float64    // end of the forward search (exclusive)
	Back float64    // length of the backward (predictive) search; 0: none
}

// StandardQuery prepares the query of vertex v's standard ray, as
// Standard traces it: used is false for a vertex used by no primitive,
// whose Outcome is Outcome{Fwd: NoHit, Bwd: NoHit}; trace is false when
// the query is known to have no hits (pass NoHit, NoHit to
// StandardOutcome). Otherwise trace q (Shape.TraceQuery on Dst, or any
// tracer that returns the same hits) and complete the Outcome with
// StandardOutcome: the result is Standard's, bit for bit.
func (d *Direction) StandardQuery(q *RayQuery, v int32, back float64, trav Traversal) (used, trace bool) {
	var lq lineQuery
	used, trace = d.setQuery(&lq, v, back, trav)
	if !used {
		*q = RayQuery{}
		return false, false
	}
	*q = RayQuery{O: lq.o, D: lq.d, TLo: lq.tLo, TMax: lq.fwd.T, Back: lq.back}
	return true, trace
}

// StandardOutcome completes the Outcome of vertex v's standard ray from
// its query (StandardQuery, used) and the query's hits.
func (d *Direction) StandardOutcome(out *Outcome, v int32, q *RayQuery, fwd, bwd Hit) {
	*out = Outcome{Fwd: fwd, Bwd: bwd, O: q.O, D: q.D}
	d.judge(out, v)
}

// Blocked reports whether a hit from inside at distance t along the ray of
// vertex v is discarded: the ray leaves Src before t (Hermann's own-body
// rule, Shape.Occluded) and t lies beyond d.Reach. A ray that meets the
// other body's surface from inside starts inside that body, so a hit within
// Reach is a true penetration even when the ray crossed empty space (a thin
// feature of Src) first; its depth stays bounded by Reach.
func (d *Direction) Blocked(v int32, t float64) bool {
	return t > d.Reach && d.Src.Occluded(v, t)
}

// ReachOnly reports whether a contact whose hit lies at distance t along the
// ray of vertex v is one that only Reach keeps: the ray left Src before t,
// so the segment from the vertex to the hit does not lie in both bodies and
// its projection on the hit's normal (Lehericey et al. 2013b, Eq. 2)
// measures nothing about the overlap. Such a contact takes the vertex's own
// minimum translational distance instead: its distance to Dst's surface,
// or no contact if the vertex lies outside Dst (reprojection.Fill,
// Shape.Nearest).
func (d *Direction) ReachOnly(v int32, t float64) bool {
	return d.Src.Occluded(v, t)
}

// CheckPair validates a pair's poses for its shapes: finite, non-zero
// quaternions (normalised in place), same dimension, planar poses for 2D
// shapes, and shapes with an inside (not NewSurface's: ErrOpenBoundary).
func CheckPair(pr *Pair, a, b *Shape) error {
	if a.open || b.open {
		return fmt.Errorf("%w: a surface (narrow.NewSurface) has no inside to find contacts in", ErrOpenBoundary)
	}
	if a.dim != b.dim {
		return fmt.Errorf("%w: shape A is %dD, shape B is %dD", ErrDimension, a.dim, b.dim)
	}
	if err := pr.PoseA.normalize(); err != nil {
		return fmt.Errorf("pose A: %w", err)
	}
	if err := pr.PoseB.normalize(); err != nil {
		return fmt.Errorf("pose B: %w", err)
	}
	if a.dim == Dim2 {
		if !pr.PoseA.planar() {
			return fmt.Errorf("pose A: %w: a 2D shape may only rotate about z and translate in the z=0 plane", ErrBadPose)
		}
		if !pr.PoseB.planar() {
			return fmt.Errorf("pose B: %w: a 2D shape may only rotate about z and translate in the z=0 plane", ErrBadPose)
		}
	}
	return nil
}
