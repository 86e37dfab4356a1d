package narrow

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// hullFace is a triangle of a hull under construction: its corners (point
// indices, counter-clockwise seen from outside), its plane n·x = d and
// the points outside it that wait for their turn.
type hullFace struct {
	v       [3]int
	n       [3]float64
	d       float64
	outside []int // points outside it, not yet on the hull
	dead    bool
}

// NewConvexHull returns the convex hull of points as a closed mesh, a
// convex collision shape for a cloud of points or for a mesh too detailed
// or too open to collide as it is (pass its vertices). The hull's
// vertices are points, in their order in points; points within 1e-10 of
// the cloud's size from the hull's surface (on its faces or edges, say)
// are not made vertices, so that flat sides stay flat.
//
// It is Quickhull (Barber, Dobkin and Huhdanpaa, 1996): from a
// tetrahedron of extreme points, the point farthest outside a face, a
// vertex of the hull, replaces the faces it sees by a cone of faces from
// the edge of that region to it, until no point is outside. Only hull
// vertices are added, so points on the hull's faces or edges never become
// vertices. The cost grows with points × hull faces.
//
// Bad input is a *ShapeError: fewer than four points, or all of them on
// one plane or line (ErrDegenerate), a NaN or infinite coordinate
// (ErrNonFinite, Vertex the point); a hull whose faces NewMesh refuses
// (points so close together that a face has no area) keeps NewMesh's
// error.
func NewConvexHull(points []mgl64.Vec3) (*Shape, error) {
	if len(points) < 4 {
		return nil, newShapeError(ErrDegenerate, fmt.Sprintf("%d points, a hull needs at least 4", len(points)))
	}
	if len(points) > math.MaxInt32/2 {
		return nil, newShapeError(ErrTooLarge, fmt.Sprintf("%d points", len(points)))
	}
	lo, hi := [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}, [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i, p := range points {
		for k, x := range p {
			if !finite(x) {
				e := newShapeError(ErrNonFinite, fmt.Sprintf("coordinate %d is %v", k, x))
				e.Vertex = i
				return nil, e
			}
			lo[k], hi[k] = min(lo[k], x), max(hi[k], x)
		}
	}
	eps := 1e-10 * len3(sub3(hi, lo))
	pt := func(i int) [3]float64 { return points[i] }

	// The first tetrahedron: the lowest x, the point farthest from it,
	// the farthest from their line, the farthest from their plane (ties
	// to the lower index).
	farthest := func(dist func(p [3]float64) float64) (int, float64) {
		best, bd := 0, math.Inf(-1)
		for i := range points {
			if d := dist(pt(i)); d > bd {
				best, bd = i, d
			}
		}
		return best, bd
	}
	i0, _ := farthest(func(p [3]float64) float64 { return -p[0] })
	i1, d1 := farthest(func(p [3]float64) float64 { return len3(sub3(p, pt(i0))) })
	if !(d1 > eps) {
		return nil, newShapeError(ErrDegenerate, "all the points are one point")
	}
	u := sub3(pt(i1), pt(i0))
	i2, d2 := farthest(func(p [3]float64) float64 { return len3(cross3(u, sub3(p, pt(i0)))) / d1 })
	if !(d2 > eps) {
		return nil, newShapeError(ErrDegenerate, "the points lie on one line")
	}
	nrm := cross3(u, sub3(pt(i2), pt(i0)))
	i3, d3 := farthest(func(p [3]float64) float64 { return math.Abs(dot3(nrm, sub3(p, pt(i0)))) / len3(nrm) })
	if !(d3 > eps) {
		return nil, newShapeError(ErrDegenerate, "the points lie on one plane")
	}

	var faces []hullFace
	add := func(a, b, c int) {
		n := cross3(sub3(pt(b), pt(a)), sub3(pt(c), pt(a)))
		n = scale3(n, 1/len3(n))
		faces = append(faces, hullFace{v: [3]int{a, b, c}, n: n, d: dot3(n, pt(a))})
	}
	if dot3(nrm, sub3(pt(i3), pt(i0))) > 0 { // i3 above (i0, i1, i2): that face looks down
		i1, i2 = i2, i1
	}
	add(i0, i1, i2)
	add(i0, i3, i1)
	add(i1, i3, i2)
	add(i2, i3, i0)
	// assign gives each point of pts to the first face from faces[from:]
	// it lies outside of (Quickhull's outside sets); a point outside none
	// is inside the hull, for good.
	assign := func(pts []int, from int) {
		for _, p := range pts {
			for f := from; f < len(faces); f++ {
				if dot3(faces[f].n, pt(p))-faces[f].d > eps {
					faces[f].outside = append(faces[f].outside, p)
					break
				}
			}
		}
	}
	rest := make([]int, 0, len(points))
	for p := range points {
		if p != i0 && p != i1 && p != i2 && p != i3 {
			rest = append(rest, p)
		}
	}
	assign(rest, 0)

	// Quickhull: the point farthest outside a face is a vertex of the
	// hull; it replaces the faces it sees by a cone from the edge of that
	// region, and their outside points go to the new faces.
	type edge [2]int
	seen := map[edge]bool{}
	var vis []int
	for {
		f0 := slices.IndexFunc(faces, func(h hullFace) bool { return len(h.outside) > 0 })
		if f0 < 0 {
			break
		}
		h0 := &faces[f0]
		p, pd := -1, math.Inf(-1)
		for _, q := range h0.outside {
			if d := dot3(h0.n, pt(q)) - h0.d; d > pd {
				p, pd = q, d
			}
		}
		x := pt(p)
		vis = vis[:0]
		for f := range faces {
			if dot3(faces[f].n, x)-faces[f].d > eps {
				vis = append(vis, f)
			}
		}
		// The horizon: the edges of the faces p sees whose twin it does
		// not see, in the direction those faces run them; the face across
		// runs them the other way, and the new face from the edge to p
		// this way.
		clear(seen)
		rest = rest[:0]
		for _, f := range vis {
			h := &faces[f]
			h.dead = true
			for k := range 3 {
				seen[edge{h.v[k], h.v[(k+1)%3]}] = true
			}
			for _, q := range h.outside {
				if q != p {
					rest = append(rest, q)
				}
			}
		}
		first := len(faces)
		for _, f := range vis {
			h := faces[f]
			for k := range 3 {
				if a, b := h.v[k], h.v[(k+1)%3]; !seen[edge{b, a}] {
					add(a, b, p)
				}
			}
		}
		assign(rest, first)
		faces = liveFaces(faces)
	}

	// The vertices the faces use, in the points' order.
	index := make([]int, len(points))
	for i := range index {
		index[i] = -1
	}
	var verts []mgl64.Vec3
	var tris [][3]int
	for _, f := range faces {
		for _, v := range f.v {
			index[v] = 0
		}
	}
	for i := range index {
		if index[i] == 0 {
			index[i] = len(verts)
			verts = append(verts, points[i])
		}
	}
	for _, f := range faces {
		tris = append(tris, [3]int{index[f.v[0]], index[f.v[1]], index[f.v[2]]})
	}
	return NewMesh(verts, tris)
}

// liveFaces drops the dead faces, in place.
func liveFaces(faces []hullFace) []hullFace {
	out := faces[:0]
	for _, f := range faces {
		if !f.dead {
			out = append(out, f)
		}
	}
	return out
}
