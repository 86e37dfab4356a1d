package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Closest is the answer of Distance: how far apart two shapes are, and
// where.
type Closest struct {
	// Dist is the distance between the shapes' surfaces; 0 when they
	// overlap.
	Dist float64
	// PA and PB are the points of A's and of B's surface Dist apart
	// (world frame), on primitives PrimA and PrimB. When the shapes
	// overlap they are zero and the primitives -1.
	PA, PB       mgl64.Vec3
	PrimA, PrimB int32
	// Overlap reports that the shapes overlap (Overlap): their surfaces
	// meet or one holds the other.
	Overlap bool
}

// Normal returns the unit direction from PA to PB: the direction in
// which moving A by Dist makes it touch B (zero when they overlap).
func (c *Closest) Normal() mgl64.Vec3 {
	if c.Overlap || !(c.Dist > 0) {
		return mgl64.Vec3{}
	}
	return c.PB.Sub(c.PA).Mul(1 / c.Dist)
}

// Distance returns the distance between shapes a and b at poses pa and pb
// and their closest points, if they are at most max apart (math.Inf(1):
// any distance), and whether they are; overlapping shapes are at distance
// 0 (Closest.Overlap). It is the proximity query of an engine (how far to
// the wall, which shapes lie within a radius): exact, unlike a distance
// from bounding volumes, for concave shapes too.
//
// Shapes that do not overlap have disjoint surfaces, whose distance is
// the least, over pairs of their primitives, of the distance between
// two triangles that do not meet (or two segments of 2D shapes): the
// least over each vertex of one against the other triangle and each edge
// of one against each edge of the other. Distance walks both hierarchies
// at once, nearest pair of boxes first, and skips a pair of boxes, or of
// primitives, whose boxes are farther apart than the nearest pair found,
// or than max. Among pairs of primitives equally far apart it reports the
// one with the lowest PrimA, then PrimB, so the answer is the brute-force
// search's over all pairs (TestDistanceBruteForce) bit for bit.
//
// It allocates nothing. The shapes must have the same dimension, the poses
// be valid and max not negative or NaN: errors wrap ErrEmpty,
// ErrDimension, ErrBadPose or ErrBadParams.
func Distance(a, b *Shape, pa, pb Pose, max float64) (Closest, bool, error) {
	return distance(a, b, pa, pb, max, nil)
}

// distSeed carries the nearest pair of primitives from one Distance
// search to the next of the same shapes at nearby poses (CastMotion's
// steps), as their positions in the shapes' leaf orders; ok is false
// until a search has found one.
type distSeed struct {
	a, b int32
	ok   bool
}

// distance is Distance, starting from the pair of primitives in seed, if
// any, and leaving the nearest pair found there. The seed's pair is
// measured first: a genuine candidate, so the answer is the same, but
// its distance prunes the walk from the root.
func distance(a, b *Shape, pa, pb Pose, max float64, seed *distSeed) (Closest, bool, error) {
	if math.IsNaN(max) || max < 0 {
		return Closest{}, false, fmt.Errorf("distance: %w: max %v", ErrBadParams, max)
	}
	over, err := Overlap(a, b, pa, pb)
	if err != nil {
		return Closest{}, false, fmt.Errorf("distance: %w", err)
	}
	if over {
		return Closest{PrimA: -1, PrimB: -1, Overlap: true}, true, nil
	}
	pr := Pair{PoseA: pa, PoseB: pb}
	_ = CheckPair(&pr, a, b) // normalises the poses (Overlap checked them)
	ta, tb := pr.PoseA.Transform(), pr.PoseB.Transform()
	var q distQuery
	q.ab.SetRelative(&tb, &ta) // a's coordinates into b's frame
	q.ba.SetRelative(&ta, &tb)
	q.a, q.b = a, b
	q.cacheA.first, q.cacheB.first = -1, -1
	// max² widened by a few ulps, so that no pair within max is lost to
	// its rounding; the answer is checked against max itself below.
	q.best, q.primA, q.primB = max*max*(1+1e-15), -1, -1
	// Boxes of a mapped into b's frame, and rounding in the primitive
	// tests, may err by a few ulps of the coordinates: a box pair is
	// skipped only when it is farther than this beyond the best.
	q.slack = 1e-12 * (a.size + b.size + len3(q.ab.T))
	if seed != nil && seed.ok {
		q.tryPair(seed.a, seed.b)
	}
	q.run()
	if seed != nil && q.primA >= 0 {
		*seed = distSeed{a: q.leafA, b: q.leafB, ok: true}
	}
	d := math.Sqrt(q.best)
	if q.primA < 0 || d > max {
		return Closest{}, false, nil
	}
	return Closest{Dist: d, PA: tb.Apply(q.pa), PB: tb.Apply(q.pb), PrimA: q.primA, PrimB: q.primB}, true, nil
}

// distQuery is one Distance search, in b's frame.
type distQuery struct {
	a, b   *Shape
	ab     Transform // a's frame into b's
	ba     Transform // b's frame into a's
	best   float64   // squared distance of the nearest pair found (or max²)
	slack  float64
	pa, pb [3]float64 // its points
	primA  int32      // its primitives (-1: none yet)
	primB  int32
	cacheA primCache // primitives of the last leaf of a and of b compared
	cacheB primCache
	leafA  int32 // their positions in the shapes' leaf orders
	leafB  int32
	dir    [3]float64 // unit direction from pa to pb, if hasDir
	hasDir bool

	// A walk holds at most one pair per split on its path, plus one:
	// each hierarchy is at most maxDepth+1 levels deep.
	stack [2*maxDepth + 4]distPair
}

// distNode is a subtree of a shape's hierarchy: an interior fat node
// (count 0), or a leaf's primitives leaf[first:first+count], with its box
// in the shape's frame.
type distNode struct {
	box          AABB
	mapped       AABB // box mapped into the other shape's frame
	first, count int32
}

// distPair is two subtrees to compare, and a lower bound of the squared
// distance between them (bound).
type distPair struct {
	a, b distNode
	lb   float64
}

// distRoot returns the subtree of s's whole hierarchy.
func distRoot(s *Shape) distNode {
	box := s.bounds
	if s.fat == nil {
		return distNode{box: box, first: 0, count: int32(len(s.leaf))}
	}
	return distNode{box: box}
}

// distChildren returns the two subtrees of interior node n of s.
func distChildren(s *Shape, n *distNode) (c [2]distNode) {
	f := &s.fat[n.first]
	for k := range 2 {
		for ax := range 3 {
			c[k].box.Min[ax], c[k].box.Max[ax] = float64(f.box[0][ax][k]), float64(f.box[1][ax][k])
		}
		if s.dim == Dim2 {
			c[k].box.Min[2], c[k].box.Max[2] = 0, 0 // a polygon lies at z = 0
		}
		c[k].first, c[k].count = f.child[k], f.count[k]
	}
	return c
}

// bound returns a lower bound of the squared distance between a's subtree
// x and b's subtree y: the largest of their boxes' distances with x's box
// mapped into b's frame and with y's mapped into a's (each mapped box
// holds the other's), and of the gaps between the boxes along the line
// through their centres and along the direction of the nearest pair
// found so far, less the slack.
func (q *distQuery) bound(x, y *distNode) float64 {
	bx := &x.mapped
	d := math.Sqrt(max(aabbDist2(bx, &y.box), aabbDist2(&x.box, &y.mapped)))
	var cx, cy, n [3]float64
	for ax := range 3 {
		cx[ax] = 0.5 * (bx.Min[ax] + bx.Max[ax])
		cy[ax] = 0.5 * (y.box.Min[ax] + y.box.Max[ax])
		n[ax] = cy[ax] - cx[ax]
	}
	if l := len3(n); l > 0 {
		d = max(d, q.axisGap(scale3(n, 1/l), &cx, &cy, x, y))
	}
	if q.hasDir {
		d = max(d, q.axisGap(q.dir, &cx, &cy, x, y))
	}
	d -= q.slack
	if d <= 0 {
		return 0
	}
	return d * d
}

// axisGap returns the gap between the boxes of subtrees x (centre cx in
// b's frame) and y (centre cy) along unit axis n, from x towards y: each
// box's extent along n is Σ|n·eᵢ|·hᵢ over its half sides hᵢ.
func (q *distQuery) axisGap(n [3]float64, cx, cy *[3]float64, x, y *distNode) float64 {
	var ex, ey float64
	for i := range 3 {
		h := 0.5 * (x.box.Max[i] - x.box.Min[i])
		ex += math.Abs(n[0]*q.ab.R[i]+n[1]*q.ab.R[3+i]+n[2]*q.ab.R[6+i]) * h
		ey += math.Abs(n[i]) * 0.5 * (y.box.Max[i] - y.box.Min[i])
	}
	return dot3(n, *cy) - dot3(n, *cx) - ex - ey
}

// skip reports whether a pair of boxes lb² apart cannot hold a pair of
// primitives nearer than the best: ties are kept, for the order of
// primitive indices.
func (q *distQuery) skip(lb float64) bool { return lb > q.best }

// run walks the pairs of subtrees depth first, the nearer of two
// children's pairs first.
func (q *distQuery) run() {
	ra, rb := distRoot(q.a), distRoot(q.b)
	ra.mapped, rb.mapped = ra.box.Transformed(&q.ab), rb.box.Transformed(&q.ba)
	q.stack[0] = distPair{a: ra, b: rb, lb: q.bound(&ra, &rb)}
	sp := 1
	for sp > 0 {
		sp--
		p := q.stack[sp]
		if q.skip(p.lb) {
			continue
		}
		leafA, leafB := p.a.count > 0, p.b.count > 0
		if leafA && leafB {
			q.leaves(&p.a, &p.b)
			continue
		}
		// Split the subtree that is not a leaf, the larger if neither is.
		splitA := !leafA && (leafB || p.a.box.Max.Sub(p.a.box.Min).Len() >= p.b.box.Max.Sub(p.b.box.Min).Len())
		var c [2]distPair
		if splitA {
			ch := distChildren(q.a, &p.a)
			for k := range 2 {
				ch[k].mapped = ch[k].box.Transformed(&q.ab)
				c[k] = distPair{a: ch[k], b: p.b, lb: q.bound(&ch[k], &p.b)}
			}
		} else {
			ch := distChildren(q.b, &p.b)
			for k := range 2 {
				ch[k].mapped = ch[k].box.Transformed(&q.ba)
				c[k] = distPair{a: p.a, b: ch[k], lb: q.bound(&p.a, &ch[k])}
			}
		}
		if c[0].lb < c[1].lb {
			c[0], c[1] = c[1], c[0] // the nearer is popped first
		}
		for k := range 2 {
			if !q.skip(c[k].lb) {
				q.stack[sp] = c[k]
				sp++
			}
		}
	}
}

// leaves compares every primitive of a's leaf x with every one of b's leaf
// y, skipping a primitive of a whose box is farther from y's than the best
// and a pair whose boxes are, or that lie farther apart than the best
// along the nearest pair's direction or beyond one's plane. Primitives
// are made when first needed, and kept for the next leaves of the walk
// while it stays on the same leaf of a shape (primCache); planes only for
// the pairs that reach the plane test.
func (q *distQuery) leaves(x, y *distNode) {
	ca, cb := &q.cacheA, &q.cacheB
	ca.use(x)
	cb.use(y)
	var la, lb distPrim // for leaves too large for the caches
	for i := x.first; i < x.first+x.count; i++ {
		ea := ca.get(q.a, i, &q.ab, &la)
		if q.apart(&ea.box, &y.box) {
			continue
		}
		for j := y.first; j < y.first+y.count; j++ {
			eb := cb.get(q.b, j, nil, &lb)
			if q.apart(&ea.box, &eb.box) {
				continue
			}
			if q.hasDir {
				if g := dirGap(&q.dir, ea, eb) - q.slack; g > 0 && g*g > q.best {
					continue
				}
			}
			if ea.n == 3 && eb.n == 3 {
				ea.plane()
				eb.plane()
				// All of one triangle on one side of the other's plane:
				// the least of its distances to it is a lower bound.
				if g := max(planeGap(ea, eb), planeGap(eb, ea)) - q.slack; g > 0 && g*g > q.best {
					continue
				}
			}
			q.measure(ea, eb, i, j)
		}
	}
}

// primCache holds the primitives of one leaf of a shape, as made for
// the search (mapped into b's frame), from the first time each is needed
// until the walk moves to another leaf.
type primCache struct {
	first int32 // the leaf's first position, -1 for none
	have  uint32
	prims [leafMax]distPrim
}

// use makes the cache the one of leaf n, emptied if it held another.
func (c *primCache) use(n *distNode) {
	if c.first != n.first {
		c.first, c.have = n.first, 0
	}
}

// get returns the primitive of s at leaf position i, mapped by t (nil: as
// it is), made now if it is not in the cache; one past the cache's room
// is made in spare.
func (c *primCache) get(s *Shape, i int32, t *Transform, spare *distPrim) *distPrim {
	k := i - c.first
	if k >= leafMax {
		spare.setPrim(s, &s.leaf[i], t)
		return spare
	}
	e := &c.prims[k]
	if c.have&(1<<k) == 0 {
		e.setPrim(s, &s.leaf[i], t)
		c.have |= 1 << k
	}
	return e
}

// tryPair measures a's primitive at leaf position i against b's at j.
func (q *distQuery) tryPair(i, j int32) {
	var ea, eb distPrim
	ea.setPrim(q.a, &q.a.leaf[i], &q.ab)
	eb.setPrim(q.b, &q.b.leaf[j], nil)
	q.measure(&ea, &eb, i, j)
}

// measure takes the pair of primitives ea and eb (a's at leaf position
// i, b's at j) as the best if it is nearer than the best, or as near
// with lower primitive indices.
func (q *distQuery) measure(ea, eb *distPrim, i, j int32) {
	d2, ca, cb := primDist2(ea, eb)
	ia, ib := q.a.leaf[i].id, q.b.leaf[j].id
	switch {
	case d2 > q.best:
		return
	case d2 == q.best && q.primA >= 0 && (ia > q.primA || ia == q.primA && ib >= q.primB):
		return
	}
	q.best, q.pa, q.pb, q.primA, q.primB, q.leafA, q.leafB = d2, ca, cb, ia, ib, i, j
	if d2 > 0 {
		q.dir, q.hasDir = scale3(sub3(cb, ca), 1/math.Sqrt(d2)), true
	}
}

// apart reports whether boxes p and q are farther apart than the best
// pair found, slack included.
func (q *distQuery) apart(p, r *AABB) bool {
	d := math.Sqrt(aabbDist2(p, r)) - q.slack
	return d > 0 && d*d > q.best
}

// distPrim is a primitive in b's frame: its points (3 for a triangle, 2
// for a segment) and its box.
type distPrim struct {
	p        [3][3]float64
	n        int
	box      AABB
	nrm      [3]float64 // a triangle's unit normal, once plane has run; its plane is nrm·x = off
	off      float64
	hasPlane bool
}

// setPrim makes the primitive p of s, mapped by t (nil: as it is).
func (e *distPrim) setPrim(s *Shape, p *primData, t *Transform) {
	v0, v1 := s.verts[p.a], s.verts[p.b]
	if t != nil {
		v0, v1 = t.Apply(v0), t.Apply(v1)
	}
	e.set(v0, v1)
	if p.c >= 0 {
		v2 := s.verts[p.c]
		if t != nil {
			v2 = t.Apply(v2)
		}
		e.set3(v2)
	}
}

// dirGap returns the gap between primitives x and y along unit axis n,
// from x towards y: the least of y's points' projections less the
// greatest of x's.
func dirGap(n *[3]float64, x, y *distPrim) float64 {
	hi, lo := math.Inf(-1), math.Inf(1)
	for i := range x.n {
		hi = max(hi, n[0]*x.p[i][0]+n[1]*x.p[i][1]+n[2]*x.p[i][2])
	}
	for i := range y.n {
		lo = min(lo, n[0]*y.p[i][0]+n[1]*y.p[i][1]+n[2]*y.p[i][2])
	}
	return lo - hi
}

// planeGap returns how far triangle o lies from triangle e's plane if all
// of it lies on one side, else 0.
func planeGap(e, o *distPrim) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range 3 {
		d := dot3(e.nrm, o.p[i]) - e.off
		lo, hi = min(lo, d), max(hi, d)
	}
	switch {
	case lo > 0:
		return lo
	case hi < 0:
		return -hi
	}
	return 0
}

// set makes the primitive the segment p0-p1, or the first edge of a
// triangle whose third point set3 gives.
func (e *distPrim) set(p0, p1 [3]float64) {
	e.p[0], e.p[1], e.n, e.hasPlane = p0, p1, 2, false
	e.box = pointsBox(p0, p1)
}

// set3 makes the primitive a triangle, with p2 its third point.
func (e *distPrim) set3(p2 [3]float64) {
	e.p[2], e.n = p2, 3
	e.box = pointsBox(e.p[0], e.p[1], p2)
}

// plane sets a triangle's plane, if it is not set yet.
func (e *distPrim) plane() {
	if e.hasPlane {
		return
	}
	n := cross3(sub3(e.p[1], e.p[0]), sub3(e.p[2], e.p[0]))
	if l := len3(n); l > 0 {
		n = scale3(n, 1/l)
	}
	e.nrm, e.off, e.hasPlane = n, dot3(n, e.p[0]), true
}

// aabbDist2 returns the squared distance between two boxes.
func aabbDist2(p, q *AABB) float64 {
	s := 0.0
	for ax := range 3 {
		if g := max(p.Min[ax]-q.Max[ax], q.Min[ax]-p.Max[ax]); g > 0 {
			s += g * g
		}
	}
	return s
}

// primDist2 returns the squared distance between two primitives that do
// not meet, triangles or segments, and their closest points: the least
// over the vertices of each that project into the other triangle, and
// over their edges' pairs. (Two triangles that met could be nearest where an edge
// of one crosses the other; Distance rules that out with Overlap.) Ties
// keep the first found, in this order.
func primDist2(x, y *distPrim) (best float64, bx, by [3]float64) {
	best = math.Inf(1)
	if x.n == 3 && y.n == 3 {
		x.plane()
		y.plane()
		var q [3]float64
		for i := range 3 {
			if y.project(&q, &x.p[i]) {
				if d2 := dist2(&x.p[i], &q); d2 < best {
					best, bx, by = d2, x.p[i], q
				}
			}
		}
		for i := range 3 {
			if x.project(&q, &y.p[i]) {
				if d2 := dist2(&q, &y.p[i]); d2 < best {
					best, bx, by = d2, q, y.p[i]
				}
			}
		}
	}
	ex, ey := x.n-boolInt(x.n == 2), y.n-boolInt(y.n == 2)
	for i := range ex {
		for j := range ey {
			var s, t float64
			d2 := segmentsParams(&x.p[i], &x.p[(i+1)%x.n], &y.p[j], &y.p[(j+1)%y.n], &s, &t)
			if d2 < best {
				best = d2
				along3(&bx, &x.p[i], &x.p[(i+1)%x.n], s)
				along3(&by, &y.p[j], &y.p[(j+1)%y.n], t)
			}
		}
	}
	return best, bx, by
}

// project sets q to p's projection onto triangle e's plane and reports
// whether it falls inside the triangle (on the inner side of its three
// edges, seen along the normal). Outside, the point of the triangle
// nearest p lies on an edge, and an edge of p's own triangle, against
// that edge, is at least as near: primDist2's edge pairs cover it.
func (e *distPrim) project(q, p *[3]float64) bool {
	n := &e.nrm
	d := n[0]*p[0] + n[1]*p[1] + n[2]*p[2] - e.off
	q[0], q[1], q[2] = p[0]-d*n[0], p[1]-d*n[1], p[2]-d*n[2]
	for k := range 3 {
		a, b := &e.p[k], &e.p[(k+1)%3]
		ux, uy, uz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
		vx, vy, vz := q[0]-a[0], q[1]-a[1], q[2]-a[2]
		if (uy*vz-uz*vy)*n[0]+(uz*vx-ux*vz)*n[1]+(ux*vy-uy*vx)*n[2] < 0 {
			return false
		}
	}
	return true
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// along3 sets dst to a + s·(b − a).
func along3(dst, a, b *[3]float64, s float64) {
	dst[0] = a[0] + s*(b[0]-a[0])
	dst[1] = a[1] + s*(b[1]-a[1])
	dst[2] = a[2] + s*(b[2]-a[2])
}

// segmentsParams returns the squared distance between segments p0-p1 and
// q0-q1 and sets s and t to the nearest points' parameters, p0 +
// s·(p1−p0) and q0 + t·(q1−q0). The squared distance is a convex
// quadratic in (s, t): its least on [0, 1]² is either its stationary
// point, when that lies inside, or on an edge of the square, where an
// end of one segment meets its nearest point of the other. It works on
// scalars (no [3]float64 is copied: see "Hot-path conventions").
func segmentsParams(p0, p1, q0, q1 *[3]float64, s, t *float64) float64 {
	ux, uy, uz := p1[0]-p0[0], p1[1]-p0[1], p1[2]-p0[2]
	vx, vy, vz := q1[0]-q0[0], q1[1]-q0[1], q1[2]-q0[2]
	rx, ry, rz := p0[0]-q0[0], p0[1]-q0[1], p0[2]-q0[2]
	uu, uv, vv := ux*ux+uy*uy+uz*uz, ux*vx+uy*vy+uz*vz, vx*vx+vy*vy+vz*vz
	ur, vr := ux*rx+uy*ry+uz*rz, vx*rx+vy*ry+vz*rz
	best := math.Inf(1)
	try := func(a, b float64) {
		wx, wy, wz := rx+a*ux-b*vx, ry+a*uy-b*vy, rz+a*uz-b*vz
		if d2 := wx*wx + wy*wy + wz*wz; d2 < best {
			best, *s, *t = d2, a, b
		}
	}
	clamp := func(num, den float64) float64 {
		if !(den > 0) || num <= 0 {
			return 0
		}
		if num >= den {
			return 1
		}
		return num / den
	}
	try(0, clamp(vr, vv))    // p0 against q0-q1
	try(1, clamp(vr+uv, vv)) // p1
	try(clamp(-ur, uu), 0)   // q0 against p0-p1
	try(clamp(uv-ur, uu), 1) // q1
	if det := uu*vv - uv*uv; det > 1e-14*uu*vv {
		a, b := (uv*vr-vv*ur)/det, (uu*vr-uv*ur)/det
		if a > 0 && a < 1 && b > 0 && b < 1 {
			try(a, b)
		}
	}
	return best
}
