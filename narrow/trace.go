package narrow

import "math"

// baryEps widens the barycentric test so that a ray through a shared edge or
// vertex hits at least one of the primitives despite rounding (the tie then
// goes to the lower primitive index).
const baryEps = 1e-9

// Traversal selects how a standard ray visits the primitives of a shape.
type Traversal uint8

// Traversals (Lehericey et al. 2013, §4.2).
const (
	TraversalBVH   Traversal = iota // binned-SAH BVH, stack-based front-to-back
	TraversalBasic                  // every primitive, no acceleration structure
)

// String returns the traversal's name as ParseTraversal accepts it.
func (t Traversal) String() string {
	switch t {
	case TraversalBVH:
		return "bvh"
	case TraversalBasic:
		return "basic"
	}
	return "traversal?"
}

// Hit is the nearest intersection of a line with a shape in one direction.
// Prim is -1 when there is none. Inside reports that the ray meets the
// primitive from the shape's inside (ray direction · outward normal > 0).
type Hit struct {
	T      float64
	Prim   int32
	Inside bool
}

// NoHit is the empty Hit.
var NoHit = Hit{T: math.Inf(1), Prim: -1}

// Barycentric returns, for the line o + t·d and primitive i, the line
// parameter t and the barycentric coordinates (u, v) of the crossing point
// in the primitive's plane, as used by Algorithm 2 of Lehericey et al. 2013.
// ok is false when the line is parallel to the primitive (the ray is
// discarded, §3.2). inside reports d·n > 0.
func (s *Shape) Barycentric(i int32, o, d *[3]float64) (t, u, v float64, inside, ok bool) {
	p := s.primByID(i)
	px := d[1]*p.e2[2] - d[2]*p.e2[1]
	py := d[2]*p.e2[0] - d[0]*p.e2[2]
	pz := d[0]*p.e2[1] - d[1]*p.e2[0]
	det := p.e1[0]*px + p.e1[1]*py + p.e1[2]*pz
	if math.Abs(det) <= p.detEps {
		return 0, 0, 0, false, false
	}
	inv := 1 / det
	tx, ty, tz := o[0]-p.v0[0], o[1]-p.v0[1], o[2]-p.v0[2]
	u = (tx*px + ty*py + tz*pz) * inv
	qx := ty*p.e1[2] - tz*p.e1[1]
	qy := tz*p.e1[0] - tx*p.e1[2]
	qz := tx*p.e1[1] - ty*p.e1[0]
	v = (d[0]*qx + d[1]*qy + d[2]*qz) * inv
	t = (p.e2[0]*qx + p.e2[1]*qy + p.e2[2]*qz) * inv
	return t, u, v, det < 0, true
}

// primByID returns the prepared data of primitive i (file order).
func (s *Shape) primByID(i int32) *primData { return &s.leaf[s.leafOf[i]] }

// BaryEps is the tolerance of the barycentric inside test.
const BaryEps = baryEps

// TEps returns the shape's distance tolerance along rays: a vertex within
// TEps of a surface counts as touching it (zero-depth contact).
func (s *Shape) TEps() float64 { return s.tEps }

type lineQuery struct {
	slabRay  // origin, inverse direction, slab planes
	d        [3]float64
	tLo      float64 // forward hits have t ≥ tLo
	back     float64 // backward hits have -back ≤ t < tLo (0: none wanted)
	onSurf   bool    // skip hits from outside with t ≤ -tLo: entries at an origin on the surface (Direction.Standard)
	fwd, bwd Hit
}

func (q *lineQuery) init(o, d [3]float64, tLo, back float64) {
	q.o, q.d = o, d
	q.start(tLo, back)
}

// start completes a query whose o and d are set.
func (q *lineQuery) start(tLo, back float64) {
	q.tLo, q.back = tLo, back
	// Element by element from scalars: q.d was usually just stored.
	dx, dy, dz := q.d[0], q.d[1], q.d[2]
	q.inv[0] = max(-1e30, min(1e30, 1/dx))
	q.inv[1] = max(-1e30, min(1e30, 1/dy))
	q.inv[2] = max(-1e30, min(1e30, 1/dz))
	q.setPlanes()
	q.fwd = Hit{T: math.Inf(1), Prim: -1}
	q.bwd = Hit{T: math.Inf(-1), Prim: -1}
}

// safeInv returns 1/d per component, clamped to ±1e30, so that the slab
// test never computes 0·Inf: a zero component becomes a huge inverse of its
// sign (the clamp compiles to branch-free MINSD/MAXSD).
func safeInv(d [3]float64) [3]float64 {
	return [3]float64{
		max(-1e30, min(1e30, 1/d[0])),
		max(-1e30, min(1e30, 1/d[1])),
		max(-1e30, min(1e30, 1/d[2])),
	}
}

// lower returns the current lower end of the search interval.
func (q *lineQuery) lower() float64 {
	if q.back <= 0 {
		return q.tLo
	}
	if q.bwd.Prim >= 0 {
		return q.bwd.T
	}
	return -q.back
}

// testPrims intersects the line with a run of primitives and keeps the
// nearest forward and backward hits (ties to the lower primitive index).
func (q *lineQuery) testPrims(prims []primData) {
	for i := range prims {
		p := &prims[i]
		t, det, ok := p.intersect(&q.o, &q.d)
		if !ok {
			continue
		}
		if t >= q.tLo {
			if q.onSurf && det >= 0 && t <= -q.tLo {
				continue
			}
			if t < q.fwd.T || (t == q.fwd.T && p.id < q.fwd.Prim) {
				q.fwd = Hit{T: t, Prim: p.id, Inside: det < 0}
			}
		} else if q.back > 0 && t >= -q.back {
			if t > q.bwd.T || (t == q.bwd.T && p.id < q.bwd.Prim) {
				q.bwd = Hit{T: t, Prim: p.id, Inside: det < 0}
			}
		}
	}
}

// intersect is Möller–Trumbore (1997) with a tolerant barycentric test:
// the line o + t·d meets the primitive at t, with det < 0 iff d·n > 0.
// ok is false for a parallel line or a miss. Every query uses it, so all
// traversals agree bit for bit.
func (p *primData) intersect(o, d *[3]float64) (t, det float64, ok bool) {
	px := d[1]*p.e2[2] - d[2]*p.e2[1]
	py := d[2]*p.e2[0] - d[0]*p.e2[2]
	pz := d[0]*p.e2[1] - d[1]*p.e2[0]
	det = p.e1[0]*px + p.e1[1]*py + p.e1[2]*pz
	if math.Abs(det) <= p.detEps {
		return 0, 0, false
	}
	inv := 1 / det
	tx, ty, tz := o[0]-p.v0[0], o[1]-p.v0[1], o[2]-p.v0[2]
	u := (tx*px + ty*py + tz*pz) * inv
	if u < -baryEps || u > 1+baryEps {
		return 0, 0, false
	}
	qx := ty*p.e1[2] - tz*p.e1[1]
	qy := tz*p.e1[0] - tx*p.e1[2]
	qz := tx*p.e1[1] - ty*p.e1[0]
	v := (d[0]*qx + d[1]*qy + d[2]*qz) * inv
	if v < -baryEps || u+v > 1+baryEps {
		return 0, 0, false
	}
	return (p.e2[0]*qx + p.e2[1]*qy + p.e2[2]*qz) * inv, det, true
}

// stackEntry is a deferred subtree with its entry distance (16 bytes: the
// stack is zeroed on every ray, so its size matters).
type stackEntry struct {
	ref, count int32
	t0         float64
}

// traceBVH finds the nearest forward hit (t ≥ tLo) and, if q.back > 0, the
// nearest backward hit (t in [-back, tLo)) in one traversal: the predictive
// ray shares the standard ray's traversal (Lehericey et al. 2013b, §3.1).
//
// The traversal has no recursion: bvhNext (SSE2 assembly on amd64, its Go
// twin bvhNextGo elsewhere) descends from the deferred subtrees to the next
// leaf, testing both children's slabs of a node at once with near and far
// planes picked by the signs of the ray direction, and visiting the nearer
// child first. A deferred subtree is dropped on pop if the nearest forward
// hit so far lies before its entry. Leaves go through testPrims, the same
// routine as the basic traversal, so the two agree bit for bit.
func (s *Shape) traceBVH(q *lineQuery) {
	if s.fat == nil {
		q.testPrims(s.leaf)
		return
	}
	var st travState
	st.lo, st.hi = q.lower(), q.fwd.T
	st.stack[0] = stackEntry{t0: math.Inf(-1)} // the root
	st.sp = 1
	for {
		first, count := bvhNext(s.fat, &q.slabRay, &st)
		if count == 0 {
			return
		}
		q.testPrims(s.leaf[first : first+count])
		st.lo, st.hi = q.lower(), q.fwd.T
	}
}

// traceBasic is the same query over every primitive (§4.2, basic traversal):
// the forward and the predictive ray are fully factorised in one loop.
func (s *Shape) traceBasic(q *lineQuery) {
	q.testPrims(s.leaf)
}

// Trace casts the line o + t·d (d unit, shape-local coordinates) and returns
// the nearest hit with t ≥ tLo and, when back > 0, the nearest hit with
// -back ≤ t < tLo. Ties go to the lower primitive index, so every traversal
// returns the same hits.
func (s *Shape) Trace(o, d [3]float64, tLo, back float64, trav Traversal) (fwd, bwd Hit) {
	var q lineQuery
	q.init(o, d, tLo, back)
	s.trace(&q, trav)
	return q.result()
}

// trace runs q with the given traversal.
func (s *Shape) trace(q *lineQuery, trav Traversal) {
	if trav == TraversalBasic {
		s.traceBasic(q)
	} else {
		s.traceBVH(q)
	}
}

// result returns the query's hits, NoHit where there is none.
func (q *lineQuery) result() (fwd, bwd Hit) {
	if q.fwd.Prim < 0 {
		q.fwd = NoHit
	}
	if q.bwd.Prim < 0 {
		q.bwd = NoHit
	}
	return q.fwd, q.bwd
}

// ownExit returns the smallest t > tEps at which the ray from vertex v
// along its inward normal meets a primitive of s not incident to v (+Inf if
// none): where the ray leaves its own shape. For a rigid shape this ray
// never changes, so it is computed once per vertex (see exit) and Hermann's
// "hit before leaving the source object" test is a comparison.
func (s *Shape) ownExit(v int32) float64 {
	n := s.vnorm[v]
	t, _ := s.rayFrom(v, [3]float64{-n[0], -n[1], -n[2]}, math.Inf(1))
	return t
}

// rayFrom returns the smallest t, tEps < t < tMax, at which the ray from
// vertex v along d meets a primitive of s not incident to v, and that
// primitive (tMax and -1 if none).
func (s *Shape) rayFrom(v int32, d [3]float64, tMax float64) (float64, int32) {
	o := s.verts[v]
	tLo, best, prim := s.tEps, tMax, int32(-1)
	scan := func(prims []primData) {
		for i := range prims {
			p := &prims[i]
			if p.a == v || p.b == v || p.c == v {
				continue
			}
			if t, _, ok := p.intersect(&o, &d); ok && t > tLo && t < best {
				best, prim = t, p.id
			}
		}
	}
	if s.fat == nil {
		scan(s.leaf)
		return best, prim
	}
	sr := slabRay{o: o, inv: safeInv(d)}
	sr.setPlanes()
	var stack [maxDepth + 2]int32
	sp := 1
	for sp > 0 {
		sp--
		n := &s.fat[stack[sp]]
		a0, e0, a1, e1 := slab2Go(&n.box, &sr, tLo, best)
		for k, hit := range [2]bool{a0 <= e0, a1 <= e1} {
			if !hit {
				continue
			}
			if c := n.count[k]; c > 0 {
				scan(s.leaf[n.child[k] : n.child[k]+c])
				continue
			}
			stack[sp] = n.child[k]
			sp++
		}
	}
	return best, prim
}

// Occluded reports whether the inward ray of vertex v leaves its own shape
// before distance tHit: whether a primitive of s not incident to v lies on
// it at tEps < t < tHit − tEps. This is Hermann et al.'s "hits the other
// object before leaving the source object" condition, answered from the
// exit distance precomputed per vertex.
func (s *Shape) Occluded(v int32, tHit float64) bool {
	return s.exitOf(v) < tHit-s.tEps
}

// TraceQuery answers a standard ray's query (see RayQuery) with the given
// traversal: the hits Direction.Standard computes for it, bit for bit.
func (s *Shape) TraceQuery(rq *RayQuery, trav Traversal) (fwd, bwd Hit) {
	var q lineQuery
	q.init(rq.O, rq.D, rq.TLo, rq.Back)
	q.onSurf = true
	q.fwd.T = rq.TMax
	s.trace(&q, trav)
	return q.result()
}

// Primitive is a primitive as ray tracers test it (Möller–Trumbore with
// the tolerant barycentric test of every query of this package): the
// points V0 + u·E1 + v·E2, and DetEps, at or below which |det| means a
// line parallel to it. A triangle's edges are E1 and E2; a segment p0→p1
// (2D shapes) has E1 = p1 − p0 and E2 = ẑ. ID is its index in the
// shape's file order. The layout (ten float64, then two int32) is fixed,
// so that a tracer on another device can take a slice of them as is.
type Primitive struct {
	V0, E1, E2 [3]float64
	DetEps     float64
	ID         int32
	_          int32
}

// AppendPrimitives appends s's primitives, in its hierarchy's leaf order,
// to dst and returns the extended slice. A tracer that tests a query
// (RayQuery) against each of them as intersect does, and keeps the
// nearest hits with ties to the lower ID, returns TraceQuery's hits.
func (s *Shape) AppendPrimitives(dst []Primitive) []Primitive {
	for i := range s.leaf {
		p := &s.leaf[i]
		dst = append(dst, Primitive{V0: p.v0, E1: p.e1, E2: p.e2, DetEps: p.detEps, ID: p.id})
	}
	return dst
}

// Intersect is the crossing test every query of this package uses (see
// Primitive): the line o + t·d meets p at t, from the shape's inside when
// det < 0; ok is false for a parallel line or a miss.
func (p *Primitive) Intersect(o, d *[3]float64) (t, det float64, ok bool) {
	pd := primData{v0: p.V0, e1: p.E1, e2: p.E2, detEps: p.DetEps}
	return pd.intersect(o, d)
}

// BVHNode is a node of a shape's primitive hierarchy as a tracer on
// another device walks it (the layout of the traversal's own nodes, 64
// bytes): the boxes of its two children, Box[0 = min, 1 = max][axis][child],
// in float32 rounded outwards; a child with Count[k] > 0 is a leaf
// holding primitives Child[k] .. Child[k]+Count[k]−1 of AppendPrimitives'
// order, otherwise Child[k] is the index of another node. Node 0 is the
// root. Box tests compute in float64 on the exactly converted bounds.
type BVHNode struct {
	Box   [2][3][2]float32
	Child [2]int32
	Count [2]int32
}

// AppendBVH appends s's hierarchy (see BVHNode) to dst and returns the
// extended slice. It appends nothing for a shape too small to have one:
// a tracer then tests every primitive.
func (s *Shape) AppendBVH(dst []BVHNode) []BVHNode {
	for i := range s.fat {
		n := &s.fat[i]
		dst = append(dst, BVHNode{Box: n.box, Child: n.child, Count: n.count})
	}
	return dst
}
