package sim

import (
	"errors"
	"fmt"
	"math"

	b2 "github.com/ByteArena/box2d"
)

// ErrNoPieces reports an outline that ConvexPieces cannot split into
// polygons box2d accepts.
var ErrNoPieces = errors.New("sim: outline has no convex decomposition box2d accepts")

// ConvexPieces splits a simple counter-clockwise outline into convex
// polygons of at most b2.B2_maxPolygonVertices (8) vertices, as a box2d
// user without irtcd builds a concave body: one native polygon fixture
// per piece. It is the baseline of the scenes' Params2D.Convex, not part
// of irtcd's path.
//
// The outline must be simple (checked: no two sides meet but neighbours
// at their shared vertex). It is triangulated by ear clipping (an ear: a
// convex vertex whose triangle holds no reflex vertex), and the
// triangulation made Delaunay within the outline by Lawson's flips: ear
// clipping cuts fans of slivers, and pieces merged from slivers are
// slivers whose boxes overlap many others, which box2d then pairs.
// Neighbouring pieces are then merged across their shared diagonal, in
// the order of the triangles, while the union stays convex and within
// the vertex limit (Hertel and Mehlhorn's method, at most four times the
// fewest convex pieces). Each piece is checked as box2d's
// b2PolygonShape.Set would see it (at least three vertices further apart
// than half b2.B2_linearSlop, positive area). Errors wrap ErrNoPieces and
// name the sides, vertex or piece.
func ConvexPieces(outline []b2.B2Vec2) ([][]b2.B2Vec2, error) {
	for i, v := range outline {
		if !finite(v.X, v.Y) {
			return nil, fmt.Errorf("%w: vertex %d is %v", ErrNoPieces, i, v)
		}
	}
	if err := checkSimple(outline); err != nil {
		return nil, err
	}
	tris, err := earClip(outline)
	if err != nil {
		return nil, err
	}
	delaunay(outline, tris)
	polys := mergeConvex(outline, tris, b2.B2_maxPolygonVertices)
	out := make([][]b2.B2Vec2, 0, len(polys))
	for k, poly := range polys {
		piece := make([]b2.B2Vec2, len(poly))
		for i, v := range poly {
			piece[i] = outline[v]
		}
		if err := checkPiece(piece); err != nil {
			return nil, fmt.Errorf("%w: piece %d (outline vertices %v): %v", ErrNoPieces, k, poly, err)
		}
		out = append(out, piece)
	}
	return out, nil
}

// turn returns twice the signed area of triangle a, b, c: positive when
// it turns left (counter-clockwise).
func turn(a, b, c b2.B2Vec2) float64 {
	return (b.X-a.X)*(c.Y-a.Y) - (b.Y-a.Y)*(c.X-a.X)
}

// polygonArea returns the signed area of a closed outline (positive:
// counter-clockwise).
func polygonArea(p []b2.B2Vec2) float64 {
	s := 0.0
	for i := range p {
		j := (i + 1) % len(p)
		s += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return s / 2
}

// checkSimple reports two sides of the closed outline p that meet other
// than at a vertex they share, or a vertex repeated.
func checkSimple(p []b2.B2Vec2) error {
	n := len(p)
	for i := range n {
		a, b := p[i], p[(i+1)%n]
		for j := i + 1; j < n; j++ {
			c, d := p[j], p[(j+1)%n]
			if p[i] == p[j] {
				return fmt.Errorf("%w: vertices %d and %d are both %v", ErrNoPieces, i, j, p[i])
			}
			if j == i+1 || (i == 0 && j == n-1) {
				// Neighbours share a vertex v: they meet elsewhere only
				// when they fold back along each other, their other ends
				// x and y on the same side of v on one line.
				v, x, y, at := b, a, d, j
				if j != i+1 {
					v, x, y, at = a, c, b, 0
				}
				if turn(x, v, y) == 0 && (x.X-v.X)*(y.X-v.X)+(x.Y-v.Y)*(y.Y-v.Y) > 0 {
					return fmt.Errorf("%w: sides %d and %d fold back at vertex %d", ErrNoPieces, i, j, at)
				}
				continue
			}
			if segmentsMeet(a, b, c, d) {
				return fmt.Errorf("%w: sides %d and %d cross (not a simple polygon)", ErrNoPieces, i, j)
			}
		}
	}
	return nil
}

// segmentsMeet reports whether closed segments a-b and c-d share a point.
func segmentsMeet(a, b, c, d b2.B2Vec2) bool {
	d1, d2 := turn(a, b, c), turn(a, b, d)
	d3, d4 := turn(c, d, a), turn(c, d, b)
	if (d1 > 0 && d2 < 0 || d1 < 0 && d2 > 0) && (d3 > 0 && d4 < 0 || d3 < 0 && d4 > 0) {
		return true
	}
	on := func(p, q, r b2.B2Vec2) bool { // r on segment p-q, given collinear
		return min(p.X, q.X) <= r.X && r.X <= max(p.X, q.X) && min(p.Y, q.Y) <= r.Y && r.Y <= max(p.Y, q.Y)
	}
	return d1 == 0 && on(a, b, c) || d2 == 0 && on(a, b, d) || d3 == 0 && on(c, d, a) || d4 == 0 && on(c, d, b)
}

// earClip triangulates a simple counter-clockwise outline into len−2
// triangles of its vertex indices, each counter-clockwise.
func earClip(p []b2.B2Vec2) ([][3]int, error) {
	n := len(p)
	if n < 3 {
		return nil, fmt.Errorf("%w: %d vertices", ErrNoPieces, n)
	}
	if !(polygonArea(p) > 0) {
		return nil, fmt.Errorf("%w: not counter-clockwise (signed area %v)", ErrNoPieces, polygonArea(p))
	}
	prev, next := make([]int, n), make([]int, n)
	reflex := make([]bool, n) // collinear counts as reflex: no ear there
	for i := range n {
		prev[i], next[i] = (i+n-1)%n, (i+1)%n
	}
	for i := range n {
		reflex[i] = !(turn(p[prev[i]], p[i], p[next[i]]) > 0)
	}
	tris := make([][3]int, 0, n-2)
	left, i, miss := n, 0, 0
	for left > 3 {
		if miss > left {
			return nil, fmt.Errorf("%w: no ear among the %d vertices left (vertex %d among them): not a simple polygon", ErrNoPieces, left, i)
		}
		a, c := prev[i], next[i]
		if reflex[i] || !isEar(p, next, reflex, a, i, c) {
			i, miss = c, miss+1
			continue
		}
		tris = append(tris, [3]int{a, i, c})
		next[a], prev[c] = c, a
		left--
		reflex[a] = !(turn(p[prev[a]], p[a], p[next[a]]) > 0)
		reflex[c] = !(turn(p[prev[c]], p[c], p[next[c]]) > 0)
		i, miss = c, 0
	}
	return append(tris, [3]int{prev[i], i, next[i]}), nil
}

// isEar reports whether no reflex vertex of the remaining outline lies in
// triangle a, b, c or on its sides.
func isEar(p []b2.B2Vec2, next []int, reflex []bool, a, b, c int) bool {
	for j := next[c]; j != a; j = next[j] {
		if !reflex[j] || p[j] == p[a] || p[j] == p[b] || p[j] == p[c] {
			continue
		}
		if turn(p[a], p[b], p[j]) >= 0 && turn(p[b], p[c], p[j]) >= 0 && turn(p[c], p[a], p[j]) >= 0 {
			return false
		}
	}
	return true
}

// delaunay flips the diagonals of the triangulation tris of outline p
// (in place) until no triangle's circumcircle holds the far vertex of a
// neighbour across a diagonal (Lawson): the constrained Delaunay
// triangulation, whose triangles are as round as the outline allows.
// Diagonals wait in a stack; a flip puts back the four sides of its
// quadrilateral.
func delaunay(p []b2.B2Vec2, tris [][3]int) {
	// nb[k][e]: the triangle across side e (tris[k][e] → tris[k][e+1]) of
	// triangle k, −1 on the outline.
	nb := make([][3]int, len(tris))
	owner := make(map[[2]int]int, 3*len(tris))
	for k, t := range tris {
		for e := range 3 {
			owner[[2]int{t[e], t[(e+1)%3]}] = k
		}
	}
	type side struct{ k, e int }
	var stack []side
	for k, t := range tris {
		for e := range 3 {
			j, ok := owner[[2]int{t[(e+1)%3], t[e]}]
			if !ok {
				j = -1
			} else if k < j {
				stack = append(stack, side{k, e})
			}
			nb[k][e] = j
		}
	}
	// across returns the side of triangle j that faces triangle k.
	across := func(j, k int) int {
		for f := range 3 {
			if nb[j][f] == k {
				return f
			}
		}
		return -1
	}
	// Each flip raises the triangulation's smallest angles; the limit only
	// guards against rounding cycling between two diagonals.
	for budget := 8 * len(tris) * len(tris); len(stack) > 0 && budget > 0; budget-- {
		sd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		k, e := sd.k, sd.e
		j := nb[k][e]
		if j < 0 {
			continue
		}
		t := tris[k]
		u, v, a := t[e], t[(e+1)%3], t[(e+2)%3]
		f := across(j, k)
		o := tris[j]
		b := o[(f+2)%3]
		if !(turn(p[u], p[b], p[a]) > 0 && turn(p[b], p[v], p[a]) > 0) || !(inCircle(p[u], p[v], p[a], p[b]) > 0) {
			continue
		}
		// Outer neighbours: of k across v→a and a→u; of j across u→b
		// and b→v.
		kva, kau := nb[k][(e+1)%3], nb[k][(e+2)%3]
		jub, jbv := nb[j][(f+1)%3], nb[j][(f+2)%3]
		// k becomes (u, b, a), j becomes (b, v, a); they share b→a / a→b.
		tris[k], tris[j] = [3]int{u, b, a}, [3]int{b, v, a}
		nb[k] = [3]int{jub, j, kau}
		nb[j] = [3]int{jbv, kva, k}
		if jub >= 0 {
			nb[jub][across(jub, j)] = k
		}
		if kva >= 0 {
			nb[kva][across(kva, k)] = j
		}
		stack = append(stack, side{k, 0}, side{k, 2}, side{j, 0}, side{j, 1})
	}
}

// inCircle is positive when d lies inside the circle through the
// counter-clockwise triangle a, b, c.
func inCircle(a, b, c, d b2.B2Vec2) float64 {
	ax, ay := a.X-d.X, a.Y-d.Y
	bx, by := b.X-d.X, b.Y-d.Y
	cx, cy := c.X-d.X, c.Y-d.Y
	return (ax*ax+ay*ay)*(bx*cy-cx*by) - (bx*bx+by*by)*(ax*cy-cx*ay) + (cx*cx+cy*cy)*(ax*by-bx*ay)
}

// mergeConvex merges triangles of p's vertex indices across their shared
// sides while the union stays convex and has at most maxVerts vertices,
// and returns the pieces, counter-clockwise, in the order of their first
// triangle.
func mergeConvex(p []b2.B2Vec2, tris [][3]int, maxVerts int) [][]int {
	polys := make([][]int, len(tris))
	owner := make(map[[2]int]int, 3*len(tris)) // directed side → piece
	for k, t := range tris {
		polys[k] = []int{t[0], t[1], t[2]}
		for e := range 3 {
			owner[[2]int{t[e], t[(e+1)%3]}] = k
		}
	}
	for _, t := range tris {
		for e := range 3 {
			u, v := t[e], t[(e+1)%3]
			pk, ok1 := owner[[2]int{u, v}]
			qk, ok2 := owner[[2]int{v, u}]
			if !ok1 || !ok2 || pk == qk || polys[pk] == nil || polys[qk] == nil {
				continue
			}
			merged := joinAt(polys[pk], polys[qk], u, v)
			if len(merged) > maxVerts || !convexOutline(p, merged) {
				continue
			}
			polys[pk], polys[qk] = merged, nil
			for i := range merged {
				owner[[2]int{merged[i], merged[(i+1)%len(merged)]}] = pk
			}
			delete(owner, [2]int{u, v})
			delete(owner, [2]int{v, u})
		}
	}
	out := polys[:0]
	for _, poly := range polys {
		if poly != nil {
			out = append(out, poly)
		}
	}
	return out
}

// joinAt returns the union of pieces P, which has the side u→v, and Q,
// which has v→u: P from v round to u, then Q from after u to before v.
func joinAt(P, Q []int, u, v int) []int {
	out := make([]int, 0, len(P)+len(Q)-2)
	iv := indexOf(P, v)
	for k := range P {
		out = append(out, P[(iv+k)%len(P)])
	}
	iu := indexOf(Q, u)
	for k := 1; k < len(Q)-1; k++ {
		out = append(out, Q[(iu+k)%len(Q)])
	}
	return out
}

func indexOf(s []int, x int) int {
	for i, y := range s {
		if y == x {
			return i
		}
	}
	return -1
}

// convexOutline reports whether the counter-clockwise outline of p's
// vertices poly turns left or runs straight at every vertex.
func convexOutline(p []b2.B2Vec2, poly []int) bool {
	n := len(poly)
	for i := range n {
		a, b, c := p[poly[(i+n-1)%n]], p[poly[i]], p[poly[(i+1)%n]]
		// Straight within rounding: relative to the sides' lengths.
		tol := 1e-12 * (math.Abs(b.X-a.X) + math.Abs(b.Y-a.Y)) * (math.Abs(c.X-b.X) + math.Abs(c.Y-b.Y))
		if turn(a, b, c) < -tol {
			return false
		}
	}
	return true
}

// checkPiece reports why box2d's b2PolygonShape.Set would refuse piece:
// fewer than three vertices at least half of b2.B2_linearSlop apart from
// the ones before them, or no area.
func checkPiece(piece []b2.B2Vec2) error {
	weld := 0.5 * b2.B2_linearSlop
	var kept []b2.B2Vec2
	for _, v := range piece {
		far := true
		for _, w := range kept {
			if b2.B2Vec2DistanceSquared(v, w) < weld*weld {
				far = false
				break
			}
		}
		if far {
			kept = append(kept, v)
		}
	}
	if len(kept) < 3 {
		return fmt.Errorf("%d vertices %v apart", len(kept), weld)
	}
	if !(polygonArea(kept) > b2.B2_epsilon) {
		return fmt.Errorf("area %v", polygonArea(kept))
	}
	return nil
}
