package narrow

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// ErrHole reports a hole outside the outer boundary or inside another hole.
var ErrHole = fmt.Errorf("misplaced hole: %w", ErrSelfIntersect)

// NewPolygon builds a closed planar shape in the z=0 plane from its outer
// boundary and optional holes. Concave outlines and any vertex count are
// allowed. Loops may be given in either orientation: the outer boundary is
// used counter-clockwise and holes clockwise (segment directions are flipped
// as needed; vertex indices keep the order given, outer first, then each hole).
//
// Segment k of a loop joins its vertex k to vertex k+1 (mod n); segments are
// numbered loop by loop. Bad input yields a *ShapeError naming the loop,
// vertex or segments involved: fewer than 3 vertices, NaN/Inf, repeated
// consecutive vertices, zero area, crossing or touching segments, or a
// misplaced hole.
func NewPolygon(outer []mgl64.Vec2, holes ...[]mgl64.Vec2) (*Shape, error) {
	loops := append([][]mgl64.Vec2{outer}, holes...)
	nv := 0
	for _, l := range loops {
		nv += len(l)
	}
	if len(outer) == 0 {
		return nil, newShapeError(ErrEmpty, "polygon has no vertices")
	}
	if nv > math.MaxInt32/4 {
		return nil, newShapeError(ErrTooLarge, fmt.Sprintf("%d vertices", nv))
	}
	s := &Shape{dim: Dim2, loops: len(loops)}
	s.verts = make([][3]float64, 0, nv)
	s.prims = make([][3]int32, 0, nv)
	s.adj = make([][3]int32, 0, nv)
	for li, l := range loops {
		if len(l) < 3 {
			e := newShapeError(ErrDegenerate, fmt.Sprintf("loop has %d vertices, at least 3 are needed", len(l)))
			e.Loop = li
			return nil, e
		}
		for i, v := range l {
			for k := 0; k < 2; k++ {
				if !finite(v[k]) {
					e := newShapeError(ErrNonFinite, fmt.Sprintf("coordinate %d is %v", k, v[k]))
					e.Loop, e.Vertex = li, len(s.verts)+i
					return nil, e
				}
			}
		}
		s.compVerts = append(s.compVerts, int32(len(s.verts)))
		for _, v := range l {
			s.verts = append(s.verts, [3]float64{v[0], v[1], 0})
		}
	}
	s.computeBounds()
	lenTol := 1e-12 * s.scale
	base := 0
	for li, l := range loops {
		n := len(l)
		for i := 0; i < n; i++ {
			if l[(i+1)%n].Sub(l[i]).Len() <= lenTol {
				e := newShapeError(ErrDegenerate, "zero-length segment (repeated vertex)")
				e.Loop, e.Prim, e.Vertex = li, base+i, base+(i+1)%n
				return nil, e
			}
			s.prims = append(s.prims, [3]int32{int32(base + i), int32(base + (i+1)%n), -1})
			s.adj = append(s.adj, [3]int32{int32(base + (i+n-1)%n), -1, int32(base + (i+1)%n)})
		}
		base += n
	}
	// A loop whose vertices all lie on one line is degenerate; any other
	// zero-area loop (a bow-tie) is reported by the crossing test.
	for li, l := range loops {
		if flatLoop(l, 1e-9*s.scale) {
			e := newShapeError(ErrDegenerate, "loop encloses zero area (all vertices on one line)")
			e.Loop = li
			return nil, e
		}
	}
	if err := s.checkCrossings(); err != nil {
		return nil, err
	}
	base = 0
	for li, l := range loops {
		n := len(l)
		area := 0.0
		for i := 0; i < n; i++ {
			a, b := l[i], l[(i+1)%n]
			area += (a[0]-l[0][0])*(b[1]-l[0][1]) - (b[0]-l[0][0])*(a[1]-l[0][1])
		}
		area /= 2
		if !(math.Abs(area) > 100*s.areaTol) {
			e := newShapeError(ErrDegenerate, fmt.Sprintf("loop encloses zero area (%g)", area))
			e.Loop = li
			return nil, e
		}
		// Outer boundary counter-clockwise, holes clockwise: flip a loop by
		// reversing its segments (vertex indices keep the input order).
		if (li == 0) != (area > 0) {
			for i := base; i < base+n; i++ {
				p, a := &s.prims[i], &s.adj[i]
				p[0], p[1] = p[1], p[0]
				a[0], a[2] = a[2], a[0]
			}
		}
		base += n
	}
	if err := s.checkHoles(loops); err != nil {
		return nil, err
	}
	s.fnorm = make([][3]float64, len(s.prims))
	for i, p := range s.prims {
		d := sub3(s.verts[p[1]], s.verts[p[0]])
		l := math.Sqrt(d[0]*d[0] + d[1]*d[1]) // not Hypot: amd64 computes it in assembly of its own (DESIGN, "Determinism across machines")
		s.fnorm[i] = [3]float64{d[1] / l, -d[0] / l, 0}
	}
	s.vnorm = make([][3]float64, len(s.verts))
	for i, p := range s.prims {
		s.vnorm[p[0]] = add3(s.vnorm[p[0]], s.fnorm[i])
		s.vnorm[p[1]] = add3(s.vnorm[p[1]], s.fnorm[i])
	}
	for i, n := range s.vnorm {
		l := len3(n)
		if !(l > 1e-12) {
			e := newShapeError(ErrSelfIntersect, "outline folds back on itself")
			e.Vertex = i
			return nil, e
		}
		s.vnorm[i] = scale3(n, 1/l)
	}
	s.finish()
	return s, nil
}

// flatLoop reports whether every vertex of l lies within tol of the line
// through l[0] and the vertex farthest from it.
func flatLoop(l []mgl64.Vec2, tol float64) bool {
	far, fd := l[0], 0.0
	for _, v := range l {
		if d := v.Sub(l[0]).Len(); d > fd {
			far, fd = v, d
		}
	}
	if fd == 0 {
		return true
	}
	u := far.Sub(l[0]).Mul(1 / fd)
	for _, v := range l {
		w := v.Sub(l[0])
		if math.Abs(u[0]*w[1]-u[1]*w[0]) > tol {
			return false
		}
	}
	return true
}

// orient2 is twice the signed area of triangle abc.
func orient2(a, b, c [3]float64) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

// segsTouch reports whether closed segments ab and cd share a point.
func segsTouch(a, b, c, d [3]float64) bool {
	d1, d2 := orient2(c, d, a), orient2(c, d, b)
	d3, d4 := orient2(a, b, c), orient2(a, b, d)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	on := func(p, q, r [3]float64) bool { // r on segment pq, given collinear
		return min(p[0], q[0]) <= r[0] && r[0] <= max(p[0], q[0]) && min(p[1], q[1]) <= r[1] && r[1] <= max(p[1], q[1])
	}
	return (d1 == 0 && on(c, d, a)) || (d2 == 0 && on(c, d, b)) || (d3 == 0 && on(a, b, c)) || (d4 == 0 && on(a, b, d))
}

// checkCrossings rejects any two segments that touch, other than neighbours
// sharing their common endpoint (and those must not overlap collinearly).
// Sweep over x keeps it near O(n log n) for ordinary outlines.
func (s *Shape) checkCrossings() error {
	n := len(s.prims)
	order := make([]int32, n)
	lo := make([]float64, n)
	for i, p := range s.prims {
		order[i] = int32(i)
		lo[i] = min(s.verts[p[0]][0], s.verts[p[1]][0])
	}
	slices.SortFunc(order, func(a, b int32) int {
		if lo[a] != lo[b] {
			if lo[a] < lo[b] {
				return -1
			}
			return 1
		}
		return int(a - b)
	})
	for oi, i := range order {
		p := s.prims[i]
		a, b := s.verts[p[0]], s.verts[p[1]]
		hiX := max(a[0], b[0])
		yl, yh := min(a[1], b[1]), max(a[1], b[1])
		for _, j := range order[oi+1:] {
			if lo[j] > hiX {
				break
			}
			q := s.prims[j]
			c, d := s.verts[q[0]], s.verts[q[1]]
			if max(c[1], d[1]) < yl || min(c[1], d[1]) > yh {
				continue
			}
			x, y := min(i, j), max(i, j)
			if s.adj[i][0] == j || s.adj[i][2] == j {
				// Neighbours share one endpoint; they are bad only if they
				// overlap along a line (the outline doubles back).
				var shared, oi2, oj [3]float64
				if p[0] == q[1] {
					shared, oi2, oj = a, b, c
				} else {
					shared, oi2, oj = b, a, d
				}
				if orient2(shared, oi2, oj) == 0 && dot3(sub3(oi2, shared), sub3(oj, shared)) > 0 {
					e := newShapeError(ErrSelfIntersect, "consecutive segments overlap (outline doubles back)")
					e.Prim, e.Other = int(x), int(y)
					return e
				}
				continue
			}
			if segsTouch(a, b, c, d) {
				e := newShapeError(ErrSelfIntersect, "segments cross or touch")
				e.Prim, e.Other = int(x), int(y)
				return e
			}
		}
	}
	return nil
}

// pointInLoop is the even-odd test of p against one loop of vertices.
func pointInLoop(p mgl64.Vec2, l []mgl64.Vec2) bool {
	in := false
	for i, j := 0, len(l)-1; i < len(l); j, i = i, i+1 {
		a, b := l[i], l[j]
		if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < (b[0]-a[0])*(p[1]-a[1])/(b[1]-a[1])+a[0] {
			in = !in
		}
	}
	return in
}

// checkHoles requires each hole inside the outer loop and outside the other
// holes. Loops do not cross (checked before), so one vertex decides.
func (s *Shape) checkHoles(loops [][]mgl64.Vec2) error {
	for hi := 1; hi < len(loops); hi++ {
		p := loops[hi][0]
		bad := !pointInLoop(p, loops[0])
		for o := 1; o < len(loops) && !bad; o++ {
			bad = o != hi && pointInLoop(p, loops[o])
		}
		if bad {
			e := newShapeError(ErrHole, "hole must lie inside the outer boundary and outside every other hole")
			e.Loop = hi
			return e
		}
	}
	return nil
}
