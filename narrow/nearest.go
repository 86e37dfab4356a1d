package narrow

import "math"

// Outside reports whether the point x of s's frame lies certainly outside
// s, by a lookup in its grid of lower bounds of the distance to the
// surface: in a cell that lies wholly outside. False says nothing: x may
// lie inside or outside (Nearest decides). It is a cheap filter before
// Nearest's side test.
func (s *Shape) Outside(x [3]float64) bool { return s.grid.outside(x[0], x[1], x[2]) }

// Nearest returns the point c of s's surface nearest to x (both in s's
// frame), its distance and the primitive it lies on, and whether x lies
// inside s. Ties go to the lower primitive index, so the answer does not
// depend on the hierarchy.
//
// The side is the sign of (x − c) · n, with n the pseudo-normal of the
// feature c lies in (Bærentzen and Aanæs 2005): the face's normal inside a
// face, the sum of the two faces' normals on an edge, and the
// angle-weighted vertex normal at a vertex (for a polygon, the sum of its
// two segments' normals). On a closed surface it is exact: x is inside iff
// the product is negative. A point on the surface (dist 0) is not inside.
//
// It is a best-first descent of the primitive hierarchy: a subtree is
// skipped when its box lies farther than the nearest point found so far.
// It serves the contacts of thin features (see Direction.ReachOnly), not
// the rays, which is why no assembly kernel backs it.
func (s *Shape) Nearest(x [3]float64) (c [3]float64, dist float64, prim int32, inside bool) {
	best, bestPrim := math.Inf(1), int32(-1)
	var at feature
	visit := func(prims []primData) {
		for i := range prims {
			p := &prims[i]
			q, f := p.closest(&x)
			d2 := dist2(&q, &x)
			if d2 < best || d2 == best && p.id < bestPrim {
				best, bestPrim, c, at = d2, p.id, q, f
			}
		}
	}
	if s.fat == nil {
		visit(s.leaf)
		return c, math.Sqrt(best), bestPrim, s.below(bestPrim, at, &x, &c)
	}
	// Each pop pushes at most two entries, and only along the current
	// path: one more than the depth suffices twice over.
	type entry struct {
		ref, count int32
		d2         float64
	}
	var stack [2*maxDepth + 4]entry
	stack[0] = entry{}
	sp := 1
	for sp > 0 {
		sp--
		e := stack[sp]
		if e.d2 > best {
			continue
		}
		if e.count > 0 {
			visit(s.leaf[e.ref : e.ref+e.count])
			continue
		}
		n := &s.fat[e.ref]
		var ch [2]entry
		for k := range ch {
			ch[k] = entry{ref: n.child[k], count: n.count[k], d2: boxDist2(&n.box, k, &x)}
		}
		if ch[0].d2 < ch[1].d2 {
			ch[0], ch[1] = ch[1], ch[0] // the nearer one is popped first
		}
		for _, k := range ch {
			if k.d2 <= best {
				stack[sp] = k
				sp++
			}
		}
	}
	return c, math.Sqrt(best), bestPrim, s.below(bestPrim, at, &x, &c)
}

// feature is the part of a primitive a nearest point lies in.
type feature uint8

const (
	inFace feature = iota // the interior of a triangle or segment
	onA                   // its vertices a, b, c
	onB
	onC
	onAB // a triangle's edges
	onAC
	onBC
)

// below reports whether x, whose nearest surface point c lies in feature f
// of primitive prim, is inside the shape (see Nearest).
func (s *Shape) below(prim int32, f feature, x, c *[3]float64) bool {
	if prim < 0 {
		return false
	}
	p := &s.prims[prim]
	var n [3]float64
	switch f {
	case inFace:
		n = s.fnorm[prim]
	case onA, onB, onC:
		n = s.vnorm[p[f-onA]]
	default:
		k := [...]int{onAB: 1, onAC: 0, onBC: 2}[f] // Adjacent's edge numbering
		n = s.fnorm[prim]
		if o := s.adj[prim][k]; o >= 0 {
			n = add3(n, s.fnorm[o])
		}
	}
	return dot3(sub3(*x, *c), n) < 0
}

// boxDist2 is the squared distance from x to child k's box of a node (0
// inside). The boxes are rounded outwards, so it never exceeds the
// distance to anything the child holds.
func boxDist2(b *nodeBox, k int, x *[3]float64) float64 {
	d2 := 0.0
	for a := 0; a < 3; a++ {
		lo, hi := float64(b[0][a][k]), float64(b[1][a][k])
		if x[a] < lo {
			d2 += (lo - x[a]) * (lo - x[a])
		} else if x[a] > hi {
			d2 += (x[a] - hi) * (x[a] - hi)
		}
	}
	return d2
}

func dist2(a, b *[3]float64) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return dx*dx + dy*dy + dz*dz
}

// closest returns the point of the primitive nearest to x and the feature
// it lies in: on a segment, the clamped projection; on a triangle, the
// point of the Voronoi region of its vertices, edges or face that holds x
// (Ericson, Real-Time Collision Detection, §5.1.5).
func (p *primData) closest(x *[3]float64) ([3]float64, feature) {
	a, ab := p.v0, p.e1
	ax := sub3(*x, a)
	if p.c < 0 {
		l2 := dot3(ab, ab)
		t := 0.0
		if l2 > 0 {
			t = dot3(ax, ab) / l2
		}
		switch {
		case t <= 0:
			return a, onA
		case t >= 1:
			return add3(a, ab), onB
		}
		return along(a, ab, t), inFace
	}
	ac := p.e2
	d1, d2 := dot3(ab, ax), dot3(ac, ax)
	if d1 <= 0 && d2 <= 0 {
		return a, onA
	}
	bx := sub3(ax, ab)
	d3, d4 := dot3(ab, bx), dot3(ac, bx)
	if d3 >= 0 && d4 <= d3 {
		return add3(a, ab), onB
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return along(a, ab, d1/(d1-d3)), onAB
	}
	cx := sub3(ax, ac)
	d5, d6 := dot3(ab, cx), dot3(ac, cx)
	if d6 >= 0 && d5 <= d6 {
		return add3(a, ac), onC
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return along(a, ac, d2/(d2-d6)), onAC
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		bc := sub3(ac, ab)
		return along(add3(a, ab), bc, (d4-d3)/((d4-d3)+(d5-d6))), onBC
	}
	den := va + vb + vc
	if den == 0 {
		return a, onA // degenerate triangle: its vertices were all tested above
	}
	v, w := vb/den, vc/den
	return [3]float64{
		a[0] + ab[0]*v + ac[0]*w,
		a[1] + ab[1]*v + ac[1]*w,
		a[2] + ab[2]*v + ac[2]*w,
	}, inFace
}

func along(a, d [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + d[0]*t, a[1] + d[1]*t, a[2] + d[2]*t}
}
