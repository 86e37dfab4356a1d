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

// intersect is Möller–Trumbore (1997) with a tolerant barycentric test. It
// returns ok=false for parallel rays and misses; det < 0 means d·n > 0.
// All traversals use this one routine, so they agree bit for bit.
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

// Barycentric returns, for the line o + t·d and primitive i, the line
// parameter t and the barycentric coordinates (u, v) of the crossing point
// in the primitive's plane, as used by Algorithm 2 of Lehericey et al. 2013.
// ok is false when the line is parallel to the primitive (the ray is
// discarded, §3.2). inside reports d·n > 0.
func (s *Shape) Barycentric(i int32, o, d [3]float64) (t, u, v float64, inside, ok bool) {
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
	o, d, inv [3]float64
	tLo       float64 // forward hits have t ≥ tLo
	back      float64 // backward hits have -back ≤ t < tLo (0: none wanted)
	fwd, bwd  Hit
}

func (q *lineQuery) init(o, d [3]float64, tLo, back float64) {
	q.o, q.d, q.tLo, q.back = o, d, tLo, back
	for k := 0; k < 3; k++ {
		dk := d[k]
		// A zero component would make 0·Inf = NaN in the slab test.
		if math.Abs(dk) < 1e-30 {
			dk = math.Copysign(1e-30, dk)
		}
		q.inv[k] = 1 / dk
	}
	q.fwd, q.bwd = NoHit, NoHit
	q.bwd.T = math.Inf(-1)
}

// consider records a primitive hit at t in the right bucket.
func (q *lineQuery) consider(p *primData, t, det float64) {
	if t >= q.tLo {
		if t < q.fwd.T || (t == q.fwd.T && p.id < q.fwd.Prim) {
			q.fwd = Hit{T: t, Prim: p.id, Inside: det < 0}
		}
	} else if q.back > 0 && t >= -q.back {
		if t > q.bwd.T || (t == q.bwd.T && p.id < q.bwd.Prim) {
			q.bwd = Hit{T: t, Prim: p.id, Inside: det < 0}
		}
	}
}

// slab intersects the line with a node box restricted to [t0, t1].
func slab(n *bvhNode, o, inv *[3]float64, t0, t1 float64) (float64, bool) {
	ax := (n.min[0] - o[0]) * inv[0]
	bx := (n.max[0] - o[0]) * inv[0]
	ay := (n.min[1] - o[1]) * inv[1]
	by := (n.max[1] - o[1]) * inv[1]
	az := (n.min[2] - o[2]) * inv[2]
	bz := (n.max[2] - o[2]) * inv[2]
	lo := max(t0, min(ax, bx), min(ay, by), min(az, bz))
	hi := min(t1, max(ax, bx), max(ay, by), max(az, bz))
	return lo, lo <= hi
}

// traceBVH finds the nearest forward hit (t ≥ tLo) and, if q.back > 0, the
// nearest backward hit (t in [-back, tLo)) in one traversal: the predictive
// ray shares the standard ray's traversal (Lehericey et al. 2013b, §3.1).
func (s *Shape) traceBVH(q *lineQuery) {
	var stack [maxDepth + 2]int32
	sp := 0
	lo := q.tLo
	if q.back > 0 {
		lo = -q.back
	}
	ni := int32(0)
	for {
		n := &s.nodes[ni]
		if n.count > 0 {
			for i := n.first; i < n.first+n.count; i++ {
				p := &s.leaf[i]
				if t, det, ok := p.intersect(&q.o, &q.d); ok {
					q.consider(p, t, det)
				}
			}
		} else {
			hi := q.fwd.T
			l := lo
			if q.back > 0 && q.bwd.Prim >= 0 {
				l = q.bwd.T
			}
			c0, c1 := n.first, n.first+1
			t0, h0 := slab(&s.nodes[c0], &q.o, &q.inv, l, hi)
			t1, h1 := slab(&s.nodes[c1], &q.o, &q.inv, l, hi)
			if h0 && h1 {
				if t1 < t0 {
					c0, c1 = c1, c0
				}
				stack[sp] = c1
				sp++
				ni = c0
				continue
			} else if h0 {
				ni = c0
				continue
			} else if h1 {
				ni = c1
				continue
			}
		}
		// Pop, re-checking the box against the (possibly shrunk) interval.
		for {
			if sp == 0 {
				return
			}
			sp--
			ni = stack[sp]
			l := lo
			if q.back > 0 && q.bwd.Prim >= 0 {
				l = q.bwd.T
			}
			if _, h := slab(&s.nodes[ni], &q.o, &q.inv, l, q.fwd.T); h {
				break
			}
		}
	}
}

// traceBasic is the same query over every primitive (§4.2, basic traversal):
// the forward and the predictive ray are fully factorised in one loop.
func (s *Shape) traceBasic(q *lineQuery) {
	for i := range s.leaf {
		p := &s.leaf[i]
		if t, det, ok := p.intersect(&q.o, &q.d); ok {
			q.consider(p, t, det)
		}
	}
}

// Trace casts the line o + t·d (d unit, shape-local coordinates) and returns
// the nearest hit with t ≥ tLo and, when back > 0, the nearest hit with
// -back ≤ t < tLo. Ties go to the lower primitive index, so every traversal
// returns the same hits.
func (s *Shape) Trace(o, d [3]float64, tLo, back float64, trav Traversal) (fwd, bwd Hit) {
	var q lineQuery
	q.init(o, d, tLo, back)
	if trav == TraversalBasic {
		s.traceBasic(&q)
	} else {
		s.traceBVH(&q)
	}
	if q.bwd.Prim < 0 {
		q.bwd = NoHit
	}
	return q.fwd, q.bwd
}

// occluded reports whether the ray o + t·d meets a primitive of s with
// tLo < t < tHi other than those incident to vertex v (any-hit query). This
// is Hermann's "before leaving the source object" test.
func (s *Shape) occluded(o, d [3]float64, tLo, tHi float64, v int32, trav Traversal) bool {
	if !(tHi > tLo) {
		return false
	}
	test := func(p *primData) bool {
		if p.a == v || p.b == v || p.c == v {
			return false
		}
		t, _, ok := p.intersect(&o, &d)
		return ok && t > tLo && t < tHi
	}
	if trav == TraversalBasic {
		for i := range s.leaf {
			if test(&s.leaf[i]) {
				return true
			}
		}
		return false
	}
	var inv [3]float64
	for k := 0; k < 3; k++ {
		dk := d[k]
		if math.Abs(dk) < 1e-30 {
			dk = math.Copysign(1e-30, dk)
		}
		inv[k] = 1 / dk
	}
	var stack [maxDepth + 2]int32
	stack[0] = 0
	sp := 1
	for sp > 0 {
		sp--
		n := &s.nodes[stack[sp]]
		if _, h := slab(n, &o, &inv, tLo, tHi); !h {
			continue
		}
		if n.count > 0 {
			for i := n.first; i < n.first+n.count; i++ {
				if test(&s.leaf[i]) {
					return true
				}
			}
			continue
		}
		stack[sp] = n.first
		stack[sp+1] = n.first + 1
		sp += 2
	}
	return false
}

// Occluded is the exported form of the own-shape test: does the ray from
// vertex v along d (shape-local) meet another primitive of s before tHi?
func (s *Shape) Occluded(v int32, d [3]float64, tHi float64, trav Traversal) bool {
	return s.occluded(s.verts[v], d, s.tEps, tHi-s.tEps, v, trav)
}
