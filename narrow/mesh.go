package narrow

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// boxTris are the 12 triangles of a box whose vertex i has coordinate k at
// the high end iff bit k of i is set; counter-clockwise seen from outside.
var boxTris = [12][3]int{
	{0, 4, 6}, {0, 6, 2}, // -x
	{1, 3, 7}, {1, 7, 5}, // +x
	{0, 1, 5}, {0, 5, 4}, // -y
	{2, 6, 7}, {2, 7, 3}, // +y
	{0, 2, 3}, {0, 3, 1}, // -z
	{4, 5, 7}, {4, 7, 6}, // +z
}

// BoxTriangles returns the 12 counter-clockwise triangles of a box whose
// vertex i has coordinate k at its high end iff bit k of i is set (the
// layout of NewBox). Any rigid image of such 8 corners can use them.
func BoxTriangles() [][3]int {
	t := make([][3]int, len(boxTris))
	copy(t, boxTris[:])
	return t
}

// NewBox returns the box [lo, hi] as a closed 12-triangle mesh: vertex i
// has coordinate k equal to hi[k] iff bit k of i is set, lo[k] otherwise.
func NewBox(lo, hi mgl64.Vec3) (*Shape, error) {
	return NewMesh(BoxCorners(lo, hi), BoxTriangles())
}

// BoxCorners returns the 8 corners of the box [lo, hi] in the order of
// BoxTriangles: corner i has coordinate k equal to hi[k] iff bit k of i is
// set.
func BoxCorners(lo, hi mgl64.Vec3) []mgl64.Vec3 {
	v := make([]mgl64.Vec3, 8)
	for i := range v {
		for k := 0; k < 3; k++ {
			v[i][k] = lo[k]
			if i>>k&1 == 1 {
				v[i][k] = hi[k]
			}
		}
	}
	return v
}

// edgeRec is one directed edge of one triangle, keyed by its undirected
// vertex pair so that sorting groups the two sides of every edge.
type edgeRec struct {
	key  uint64 // min<<32 | max
	tri  int32
	slot int8 // edge slot k (see Shape.Adjacent)
	fwd  bool // directed min→max
}

// cornerOf maps edge slot k of triangle (a,b,c) to its directed vertex pair:
// k=0: c→a, k=1: a→b, k=2: b→c.
func cornerOf(p [3]int32, k int) (int32, int32) {
	switch k {
	case 0:
		return p[2], p[0]
	case 1:
		return p[0], p[1]
	}
	return p[1], p[2]
}

// validateMesh checks degeneracy, closedness, manifoldness, winding and
// orientation, and fills face normals, adjacency and vertex normals.
func (s *Shape) validateMesh() error {
	nt := len(s.prims)
	for i, p := range s.prims {
		if p[0] == p[1] || p[1] == p[2] || p[0] == p[2] {
			e := newShapeError(ErrDegenerate, fmt.Sprintf("repeated vertex (%d %d %d)", p[0], p[1], p[2]))
			e.Prim = i
			return e
		}
	}
	if err := s.faceNormals(make([][3]float64, nt)); err != nil {
		return err
	}

	edges := make([]edgeRec, 0, 3*nt)
	for i, p := range s.prims {
		for k := 0; k < 3; k++ {
			a, b := cornerOf(p, k)
			lo, hi := min(a, b), max(a, b)
			edges = append(edges, edgeRec{key: uint64(lo)<<32 | uint64(hi), tri: int32(i), slot: int8(k), fwd: a < b})
		}
	}
	slices.SortFunc(edges, func(x, y edgeRec) int {
		if x.key != y.key {
			if x.key < y.key {
				return -1
			}
			return 1
		}
		return int(x.tri) - int(y.tri)
	})
	s.adj = make([][3]int32, nt)
	for i := range s.adj {
		s.adj[i] = [3]int32{-1, -1, -1}
	}
	for i := 0; i < len(edges); {
		j := i + 1
		for j < len(edges) && edges[j].key == edges[i].key {
			j++
		}
		lo, hi := int(edges[i].key>>32), int(edges[i].key&0xffffffff)
		switch {
		case j-i == 1 && s.open:
			i = j // a boundary edge: no neighbour
			continue
		case j-i == 1:
			detail := "edge belongs to one triangle only"
			if n := s.coincident(); n > 0 {
				detail += fmt.Sprintf(" (%d vertices lie exactly where another does: narrow.Weld merges them)", n)
			}
			e := newShapeError(ErrOpenBoundary, detail)
			e.Prim, e.Edge = int(edges[i].tri), [2]int{lo, hi}
			return e
		case j-i > 2:
			e := newShapeError(ErrNonManifold, fmt.Sprintf("edge shared by %d triangles", j-i))
			e.Prim, e.Other, e.Edge = int(edges[i].tri), int(edges[i+2].tri), [2]int{lo, hi}
			return e
		case edges[i].fwd == edges[i+1].fwd:
			e := newShapeError(ErrWinding, "both triangles traverse the edge in the same direction")
			e.Prim, e.Other, e.Edge = int(edges[i].tri), int(edges[i+1].tri), [2]int{lo, hi}
			return e
		}
		a, b := edges[i], edges[i+1]
		s.adj[a.tri][a.slot] = b.tri
		s.adj[b.tri][b.slot] = a.tri
		i = j
	}

	if !s.open { // a surface has no inside to enclose
		comp := make([]int32, nt)
		if err := s.orient(comp, new([]int32), true); err != nil {
			return err
		}
	}
	used := make([]bool, len(s.verts))
	for _, p := range s.prims {
		used[p[0]], used[p[1]], used[p[2]] = true, true, true
	}
	return s.vertexNormals(make([][3]float64, len(s.verts)), func(i int) bool { return used[i] })
}

// faceNormals sets s.fnorm to fn (one entry per triangle) holding the unit
// outward face normals, or returns a *ShapeError naming the first triangle
// of zero area (by s.areaTol).
func (s *Shape) faceNormals(fn [][3]float64) error {
	s.fnorm = fn
	for i, p := range s.prims {
		n := cross3(sub3(s.verts[p[1]], s.verts[p[0]]), sub3(s.verts[p[2]], s.verts[p[0]]))
		l := len3(n)
		if !(l > s.areaTol) {
			e := newShapeError(ErrDegenerate, fmt.Sprintf("zero area (vertices %d %d %d)", p[0], p[1], p[2]))
			e.Prim = i
			return e
		}
		fn[i] = scale3(n, 1/l)
	}
	return nil
}

// orient checks that every connected component of the surface encloses
// positive volume, walking the adjacency from each component's first
// triangle (comp, one entry per triangle, and *stack are scratch; *stack
// keeps what it grew to); with
// list it also records a vertex of each component in s.compVerts.
func (s *Shape) orient(comp []int32, stackp *[]int32, list bool) error {
	stack := (*stackp)[:0]
	defer func() { *stackp = stack }()
	for i := range comp {
		comp[i] = -1
	}
	for seed := range comp {
		if comp[seed] >= 0 {
			continue
		}
		comp[seed] = int32(seed)
		if list {
			s.compVerts = append(s.compVerts, s.prims[seed][0])
		}
		stack = append(stack[:0], int32(seed))
		vol := 0.0
		// Volume relative to a point of the component keeps it exact for
		// meshes far from the origin.
		ref := s.verts[s.prims[seed][0]]
		for len(stack) > 0 {
			t := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			p := s.prims[t]
			a, b, c := sub3(s.verts[p[0]], ref), sub3(s.verts[p[1]], ref), sub3(s.verts[p[2]], ref)
			vol += dot3(a, cross3(b, c))
			for _, n := range s.adj[t] {
				if comp[n] < 0 {
					comp[n] = int32(seed)
					stack = append(stack, n)
				}
			}
		}
		if vol < 0 {
			e := newShapeError(ErrWinding, "surface is inside out (negative enclosed volume); triangles must be counter-clockwise seen from outside")
			e.Prim = seed
			return e
		}
	}
	return nil
}

// vertexNormals sets s.vnorm to vn (one entry per vertex) holding the
// angle-weighted unit vertex normals (Thürmer & Wüthrich) of the vertices
// used by a triangle, zero for the others, or returns a *ShapeError naming
// the first used vertex whose faces cancel out.
func (s *Shape) vertexNormals(vn [][3]float64, used func(int) bool) error {
	clear(vn)
	s.vnorm = vn
	for i, p := range s.prims {
		// The angle at corner k between e1 = v[k+1] − v[k] = E[k] and
		// e2 = v[k+2] − v[k] = −E[k+2], from the triangle's three edges
		// E[j] = v[j+1] − v[j] and their lengths, each computed once:
		// negation is exact, so this is bit for bit the angle from e1 and
		// e2 themselves.
		var e [3][3]float64
		var l [3]float64
		for j := 0; j < 3; j++ {
			e[j] = sub3(s.verts[p[(j+1)%3]], s.verts[p[j]])
			l[j] = len3(e[j])
		}
		for k := 0; k < 3; k++ {
			c := -dot3(e[k], e[(k+2)%3]) / (l[k] * l[(k+2)%3])
			ang := math.Acos(max(-1, min(1, c)))
			vn[p[k]] = add3(vn[p[k]], scale3(s.fnorm[i], ang))
		}
	}
	for i, n := range vn {
		if !used(i) {
			continue
		}
		l := len3(n)
		if !(l > 1e-12) {
			e := newShapeError(ErrDegenerate, "vertex normal is undefined (incident faces cancel out)")
			e.Vertex = i
			return e
		}
		vn[i] = scale3(n, 1/l)
	}
	return nil
}
