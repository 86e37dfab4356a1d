package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Deform returns the mesh (or surface, NewSurface) s with its vertices
// moved to vertices (one per vertex of s, in the same order): a
// deformable object's shape at a new time step. The triangles, their
// adjacency, the vertex blocks and the hierarchy's topology are s's; the
// hierarchy's boxes are refitted to the new positions rather than
// rebuilt, as Li & Yamaguchi's pipeline for deformable objects updates its
// acceleration structure every time step (ray-traced CD for deformable
// objects, §3 and §3.1). The normals, convex edges, bounds and mass
// properties are computed anew, the bounding sphere about s's centre (so
// that the centre stays put in the shape's frame), and the exit distances
// of the vertices when a query first needs each. A refitted hierarchy
// finds exactly what a rebuilt one does (every query is exact whatever
// the boxes); it only grows slower to traverse as the shape strays far
// from s. The outside distance grid is not built (it costs more than all
// the rest): culling by it is skipped, with the same results.
//
// s is not changed, and the new shape shares s's topology (read-only), so
// s stays valid for the pairs and backends that use it. Hand the new
// shape to a backend in s's place under s's ID (Reshaper, as
// adapter.Batch.Reshape does), and its pairs keep their iterative state;
// registered as a new shape, its pairs start afresh.
//
// Bad input is a *ShapeError: a polygon (ErrDimension; rebuild it with
// NewPolygon), a count other than s.NumVertices() (ErrIndexRange), a NaN or
// infinite coordinate (ErrNonFinite, Vertex), a triangle squashed to zero
// area (ErrDegenerate, Prim), a vertex whose faces cancel out
// (ErrDegenerate, Vertex) or a part of a closed mesh turned inside out
// (ErrWinding, Prim). A deformation that makes the surface cross itself
// is not detected (for a surface, AppendSelfHits finds where it does).
func (s *Shape) Deform(vertices []mgl64.Vec3) (*Shape, error) {
	d := new(Shape)
	if err := s.DeformInto(d, vertices); err != nil {
		return nil, err
	}
	return d, nil
}

// DeformInto is Deform writing the new shape into dst, reusing dst's
// memory: an engine that deforms a mesh every step alternates two shapes
// (the one its pairs use and the next), and once both have been filled a
// step allocates nothing. dst must not be s, nor in use by anything (a
// backend it is registered with, another goroutine): its old contents are
// overwritten. On error (dst == s is ErrBadParams) dst holds no usable
// shape until a later call succeeds.
func (s *Shape) DeformInto(dst *Shape, vertices []mgl64.Vec3) error {
	if dst == s {
		return newShapeError(ErrBadParams, "Deform cannot write a shape onto itself")
	}
	if err := s.checkDeform(vertices); err != nil {
		dst.reset()
		return err
	}
	if err := dst.deformFrom(s, vertices); err != nil {
		dst.reset()
		return err
	}
	return nil
}

func (s *Shape) checkDeform(vertices []mgl64.Vec3) error {
	switch {
	case s.dim != Dim3:
		return newShapeError(ErrDimension, "Deform takes triangle meshes; build a changed polygon with NewPolygon")
	case len(vertices) != len(s.verts):
		return newShapeError(ErrIndexRange, fmt.Sprintf("%d vertices for a shape of %d", len(vertices), len(s.verts)))
	}
	for i, v := range vertices {
		for k := 0; k < 3; k++ {
			if !finite(v[k]) {
				e := newShapeError(ErrNonFinite, fmt.Sprintf("coordinate %d is %v", k, v[k]))
				e.Vertex = i
				return e
			}
		}
	}
	return nil
}

// reset leaves dst empty, its buffers kept for the next DeformInto.
func (s *Shape) reset() { *s = Shape{def: s.def} }

// deformBuffers is the memory a shape filled by DeformInto keeps for the
// next call.
type deformBuffers struct {
	verts [][3]float64
	vnorm [][3]float64
	fnorm [][3]float64
	leaf  []primData
	fat   []fatNode
	exit  []uint64
	vblk  []AABB
	vball [][4]float64
	vgrp  []AABB
	vleaf []AABB
	comp  []int32
	stack []int32
	edges edgeBuffers
}

// grow returns b resized to n, reusing its array when it is large enough.
func grow[T any](b []T, n int) []T {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]T, n)
}

// deformFrom fills s (the receiver, dst of DeformInto) from base with
// the given vertices, already checked to be finite and as many as base's.
func (s *Shape) deformFrom(base *Shape, vertices []mgl64.Vec3) error {
	buf := s.def
	if buf == nil {
		buf = new(deformBuffers)
	}
	*s = Shape{dim: Dim3, open: base.open, def: buf, prims: base.prims, adj: base.adj, compVerts: base.compVerts,
		vorder: base.vorder, leafOf: base.leafOf, maxDeep: base.maxDeep, loops: base.loops}
	buf.verts = grow(buf.verts, len(vertices))
	for i, v := range vertices {
		buf.verts[i] = v
	}
	s.verts = buf.verts
	s.computeBounds()
	buf.fnorm = grow(buf.fnorm, len(s.prims))
	if err := s.faceNormals(buf.fnorm); err != nil {
		return err
	}
	if !base.open {
		buf.comp = grow(buf.comp, len(s.prims))
		if err := s.orient(buf.comp, &buf.stack, false); err != nil {
			return err
		}
	}
	buf.vnorm = grow(buf.vnorm, len(s.verts))
	if err := s.vertexNormals(buf.vnorm, func(i int) bool { return base.vnorm[i] != [3]float64{} }); err != nil {
		return err
	}
	s.finishDeform(base, buf)
	return nil
}

// finishDeform is finish for a deformed shape: the same derived data, with
// base's hierarchy refitted (refit) and base's vertex order kept.
func (s *Shape) finishDeform(base *Shape, buf *deformBuffers) {
	s.centre = base.centre // fixed in the shape's frame (Eq. 2 measures about it)
	s.finishCommon(0)
	s.refit(base, buf)
	s.edges, s.edgeSeg, s.edgeBlocks, s.edgeUp, s.edgeAngles = nil, nil, nil, nil, nil
	if !s.open {
		// The same list, in the same order, as NewMesh's: an edge
		// contact names edges by index, and a backend that rebuilds the
		// shape from its vertices (the plugin's) must number them alike.
		s.buildEdgesInto(&buf.edges)
	}
	// The exits (a ray cast per vertex, a third of the rest) are found
	// when a query first needs them (exitOf): most vertices of a large
	// deforming shape are never near another body.
	buf.exit = grow(buf.exit, len(s.verts))
	clear(buf.exit)
	s.exit = buf.exit
	nb := (len(s.verts) + VertexBlock - 1) / VertexBlock
	buf.vblk, buf.vball = grow(buf.vblk, nb), grow(buf.vball, nb)
	s.vblocks, s.vballs = buf.vblk[:0], buf.vball[:0]
	s.blockBoxes()
	buf.vgrp = runBoxesInto(buf.vgrp[:0], s.verts, s.vorder, groupVertices)
	buf.vleaf = runBoxesInto(buf.vleaf[:0], s.verts, s.vorder, vertexLeaf)
	s.vgroups, s.vleaves = buf.vgrp, buf.vleaf
	if !s.open {
		s.mom = s.moments()
	}
}

// refit gives s base's hierarchy over s's vertices: the primitives in
// base's leaf order, and every node's boxes recomputed bottom up (a
// node's children come after it in base.fat), a leaf's as its
// primitives' box padded as buildBVH pads, an interior node's as the
// union of its children's (already rounded outwards to float32, so the
// union holds them exactly).
func (s *Shape) refit(base *Shape, buf *deformBuffers) {
	buf.leaf = grow(buf.leaf, len(base.leaf))
	for i := range base.leaf {
		buf.leaf[i] = s.makePrim(int(base.leaf[i].id))
	}
	s.leaf = buf.leaf
	if base.fat == nil {
		s.fat = nil
		return
	}
	buf.fat = grow(buf.fat, len(base.fat))
	copy(buf.fat, base.fat)
	s.fat = buf.fat
	for i := len(s.fat) - 1; i >= 0; i-- {
		n := &s.fat[i]
		for k := 0; k < 2; k++ {
			var lo, hi [3]float64
			if c := n.count[k]; c > 0 {
				lo, hi = s.leafBox(n.child[k], c)
				s.padBox(&lo, &hi)
			} else {
				lo, hi = s.fat[n.child[k]].bounds()
			}
			for a := 0; a < 3; a++ {
				n.box[0][a][k] = down32(lo[a])
				n.box[1][a][k] = up32(hi[a])
			}
		}
	}
}

// leafBox returns the box of the primitives leaf[first:first+count].
func (s *Shape) leafBox(first, count int32) (lo, hi [3]float64) {
	lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for _, p := range s.leaf[first : first+count] {
		for _, v := range [3]int32{p.a, p.b, p.c} {
			if v < 0 {
				continue
			}
			q := &s.verts[v]
			for a := 0; a < 3; a++ {
				lo[a], hi[a] = min(lo[a], q[a]), max(hi[a], q[a])
			}
		}
	}
	return lo, hi
}

// bounds returns the box holding both of a fat node's children's boxes.
func (n *fatNode) bounds() (lo, hi [3]float64) {
	for a := 0; a < 3; a++ {
		lo[a] = float64(min(n.box[0][a][0], n.box[0][a][1]))
		hi[a] = float64(max(n.box[1][a][0], n.box[1][a][1]))
	}
	return lo, hi
}

// SameTopology reports whether s and o have the same primitives (vertex
// indices, in the same order) over the same number of vertices: whether
// one is the other deformed (Deform), so that vertex i of one is vertex i
// of the other, moved.
func (s *Shape) SameTopology(o *Shape) bool {
	if s == o {
		return true
	}
	if s == nil || o == nil || s.dim != o.dim || len(s.verts) != len(o.verts) || len(s.prims) != len(o.prims) {
		return false
	}
	if len(s.prims) > 0 && &s.prims[0] == &o.prims[0] {
		return true
	}
	for i := range s.prims {
		if s.prims[i] != o.prims[i] {
			return false
		}
	}
	return true
}

// MaxDisplacement returns how far the farthest vertex of s lies from the
// same vertex of o (both in their local coordinates), or +Inf if they do
// not have the same number of vertices.
func (s *Shape) MaxDisplacement(o *Shape) float64 {
	if len(s.verts) != len(o.verts) {
		return math.Inf(1)
	}
	d2 := 0.0
	for i := range s.verts {
		a, b := &s.verts[i], &o.verts[i]
		x, y, z := a[0]-b[0], a[1]-b[1], a[2]-b[2]
		d2 = max(d2, x*x+y*y+z*z)
	}
	return math.Sqrt(d2) * (1 + 1e-12)
}
