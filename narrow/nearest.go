package narrow

import "math"

// Nearest returns the point c of s's surface nearest to x (both in s's
// frame), its distance and the primitive it lies on. Ties go to the lower
// primitive index, so the answer does not depend on the hierarchy.
//
// It is a best-first descent of the primitive hierarchy: a subtree is
// skipped when its box lies farther than the nearest point found so far.
// It serves the contacts of thin features (see Direction.ReachOnly), not
// the rays, which is why no assembly kernel backs it.
func (s *Shape) Nearest(x [3]float64) (c [3]float64, dist float64, prim int32) {
	best, bestPrim := math.Inf(1), int32(-1)
	visit := func(prims []primData) {
		for i := range prims {
			p := &prims[i]
			q := p.closest(&x)
			d2 := dist2(&q, &x)
			if d2 < best || d2 == best && p.id < bestPrim {
				best, bestPrim, c = d2, p.id, q
			}
		}
	}
	if s.fat == nil {
		visit(s.leaf)
		return c, math.Sqrt(best), bestPrim
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
	return c, math.Sqrt(best), bestPrim
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

// closest returns the point of the primitive nearest to x: on a segment,
// the clamped projection; on a triangle, the point of the Voronoi region of
// its vertices, edges or face that holds x (Ericson, Real-Time Collision
// Detection, §5.1.5).
func (p *primData) closest(x *[3]float64) [3]float64 {
	a, ab := p.v0, p.e1
	ax := sub3(*x, a)
	if p.c < 0 {
		l2 := dot3(ab, ab)
		t := 0.0
		if l2 > 0 {
			t = max(0, min(1, dot3(ax, ab)/l2))
		}
		return along(a, ab, t)
	}
	ac := p.e2
	d1, d2 := dot3(ab, ax), dot3(ac, ax)
	if d1 <= 0 && d2 <= 0 {
		return a
	}
	bx := sub3(ax, ab)
	d3, d4 := dot3(ab, bx), dot3(ac, bx)
	if d3 >= 0 && d4 <= d3 {
		return add3(a, ab)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return along(a, ab, d1/(d1-d3))
	}
	cx := sub3(ax, ac)
	d5, d6 := dot3(ab, cx), dot3(ac, cx)
	if d6 >= 0 && d5 <= d6 {
		return add3(a, ac)
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return along(a, ac, d2/(d2-d6))
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		bc := sub3(ac, ab)
		return along(add3(a, ab), bc, (d4-d3)/((d4-d3)+(d5-d6)))
	}
	den := va + vb + vc
	if den == 0 {
		return a // degenerate triangle: its vertices were all tested above
	}
	v, w := vb/den, vc/den
	return [3]float64{
		a[0] + ab[0]*v + ac[0]*w,
		a[1] + ab[1]*v + ac[1]*w,
		a[2] + ab[2]*v + ac[2]*w,
	}
}

func along(a, d [3]float64, t float64) [3]float64 {
	return [3]float64{a[0] + d[0]*t, a[1] + d[1]*t, a[2] + d[2]*t}
}
