package narrow

import (
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/go-gl/mathgl/mgl64"
)

// Dim is the dimension of a shape.
type Dim uint8

// The two kinds of shape.
const (
	Dim3 Dim = 3 // closed triangle mesh
	Dim2 Dim = 2 // closed polygon (with optional holes) in the z=0 plane
)

// AABB is an axis-aligned box.
type AABB struct {
	Min, Max mgl64.Vec3
}

// emptyBox returns the box that holds no point and grows to any box it
// is extended by (Min +∞, Max −∞).
func emptyBox() AABB {
	return AABB{Min: mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, Max: mgl64.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}}
}

// Empty reports whether the box contains no point.
func (b AABB) Empty() bool {
	return b.Min[0] > b.Max[0] || b.Min[1] > b.Max[1] || b.Min[2] > b.Max[2]
}

// Contains reports whether p lies in the closed box.
func (b *AABB) Contains(p [3]float64) bool {
	return p[0] >= b.Min[0] && p[0] <= b.Max[0] &&
		p[1] >= b.Min[1] && p[1] <= b.Max[1] &&
		p[2] >= b.Min[2] && p[2] <= b.Max[2]
}

// Center returns the centre of the box.
func (b AABB) Center() mgl64.Vec3 { return b.Min.Add(b.Max).Mul(0.5) }

// Intersect returns the intersection of two boxes (possibly empty).
func (b AABB) Intersect(o AABB) AABB {
	var r AABB
	for i := 0; i < 3; i++ {
		r.Min[i] = max(b.Min[i], o.Min[i])
		r.Max[i] = min(b.Max[i], o.Max[i])
	}
	return r
}

// Union returns the smallest box holding both boxes.
func (b AABB) Union(o AABB) AABB {
	for i := 0; i < 3; i++ {
		b.Min[i] = min(b.Min[i], o.Min[i])
		b.Max[i] = max(b.Max[i], o.Max[i])
	}
	return b
}

// Grow returns the box extended by d in every direction.
func (b AABB) Grow(d float64) AABB {
	for i := 0; i < 3; i++ {
		b.Min[i] -= d
		b.Max[i] += d
	}
	return b
}

// Transformed returns a box that bounds b after the map t (the tight box of
// the transformed box, not of the shape).
func (b AABB) Transformed(t *Transform) AABB {
	var c, e [3]float64
	for i := 0; i < 3; i++ {
		c[i] = 0.5 * (b.Min[i] + b.Max[i])
		e[i] = 0.5 * (b.Max[i] - b.Min[i])
	}
	wc := t.Apply(c)
	var r AABB
	for i := 0; i < 3; i++ {
		we := math.Abs(t.R[3*i])*e[0] + math.Abs(t.R[3*i+1])*e[1] + math.Abs(t.R[3*i+2])*e[2]
		r.Min[i] = wc[i] - we
		r.Max[i] = wc[i] + we
	}
	return r
}

// Shape is an immutable closed surface: a triangle mesh (Dim3) or a polygon
// with optional holes in the z=0 plane (Dim2). Build it once with NewMesh or
// NewPolygon (or ReadOBJ) and share it between any number of bodies and
// goroutines.
//
// A polygon's primitives are its segments; internally each segment p0→p1 is
// stored as the degenerate triangle (p0, p0+(p1-p0), p0+ẑ), so that one
// intersection routine, one BVH and one iterative walk serve both kinds
// (see docs/DESIGN.md).
type Shape struct {
	dim        Dim
	verts      [][3]float64 // local coordinates, file order
	vnorm      [][3]float64 // unit outward vertex normals (zero for unused vertices)
	prims      [][3]int32   // triangles (a,b,c) counter-clockwise from outside; segments (a,b,-1)
	fnorm      [][3]float64 // unit outward face normals
	adj        [][3]int32   // neighbour across edge k (see Adjacent)
	bounds     AABB
	hullMin    [3]float64 // bounds padded as the BVH's boxes are (meetsHull)
	hullMax    [3]float64
	radius     float64             // largest distance of a vertex from the local origin
	centre     [3]float64          // bounding sphere's centre (BoundingSphere)
	cradius    float64             // bounding sphere's radius: largest distance of a vertex from centre
	avgSize    float64             // Eq. 1 averageTrianglesSize: mean edge (segment) length
	scale      float64             // length scale for tolerances
	areaTol    float64             // twice-area below which a primitive is degenerate
	size       float64             // half the bounding-box diagonal
	vorder     []int32             // vertex indices, block by block (BlockVertices)
	vblocks    []AABB              // per vertex block: bounds of its vertices
	vgroups    []AABB              // per group of blockGroup blocks: bounds of its vertices
	vleaves    []AABB              // per leaf of vertexLeaf vertices (VertexOrder): bounds of its vertices
	vballs     [][4]float64        // per vertex block: centre x, y, z and radius of a ball holding its vertices
	exit       []uint64            // per vertex: the bits of where its inward ray leaves the shape (ownExit); 0 until known (exitOf)
	thick      uint64              // the bits of the smallest exit distance (Thickness); 0 until known
	dop        [dopAxes][2]float64 // extent of the vertices along the diagonal DOP axes
	tEps       float64             // distance tolerance along rays
	leaf       []primData          // primitives in BVH leaf order
	leafOf     []int32             // primitive index → position in leaf
	fat        []fatNode           // traversal nodes (nil when the root is a leaf)
	maxDeep    int                 // BVH depth
	grid       *outsideGrid        // lower bounds of the distance to the surface, outside (nil where it would cull nothing)
	edges      []Edge              // convex edges, in spatial order (Edge)
	edgeSeg    [][2][3]float64     // their ends, in the same order
	edgeBlocks []edgeBlockData     // per block of edgeBlock edges: their box and sharpest bend
	edgeUp     [][]AABB            // the hierarchy over edgeBlocks (edgeBox)
	edgeAngles []float64           // their bends, sharpest first (SharpEdges)
	loops      int
	mom        moments        // about momentRef, for MassProps
	compVerts  []int32        // a vertex of each connected component (each loop of a polygon), for Overlap
	def        *deformBuffers // memory kept for DeformInto (nil unless filled by it)
	open       bool           // a surface without inside (NewSurface)
}

// dopAxes is the number of diagonal axes of the 26-DOP (Zachmann 1998)
// bounding a shape's vertices; with the three coordinate axes of its box it
// bounds the convex hull in 13 directions.
const dopAxes = 10

var dopAxis = func() [dopAxes][3]float64 {
	r2, r3 := 1/math.Sqrt2, 1/math.Sqrt(3)
	return [dopAxes][3]float64{
		{r2, r2, 0}, {r2, -r2, 0}, {0, r2, r2}, {0, r2, -r2}, {r2, 0, r2}, {r2, 0, -r2},
		{r3, r3, r3}, {r3, r3, -r3}, {r3, -r3, r3}, {-r3, r3, r3},
	}
}()

// VertexBlock is the number of vertices that share a bounding box for
// culling (see Direction.AppendInCull and Shape.VertexOrder).
const VertexBlock = 32

// The culling hierarchy (Direction.AppendInCull) has three levels of
// boxes over VertexOrder: groups of blockGroup blocks, the blocks, and
// leaves of vertexLeaf vertices; groupVertices is a group's size in
// vertices. Each level's boxes cover aligned runs of VertexOrder.
const (
	vertexLeaf    = 8
	blockGroup    = 4
	groupVertices = blockGroup * VertexBlock
)

// VertexOrder returns the shape's vertex indices grouped in blocks: block b
// is VertexOrder()[b·VertexBlock : min((b+1)·VertexBlock, NumVertices())].
// The blocks are spatially compact (nodes of a median split of the
// vertices, unless runs of consecutive indices are tighter), and so are
// the groups of blockGroup blocks and the leaves of vertexLeaf vertices
// within a block, so that culling by their boxes (Direction.AppendInCull)
// rejects most vertices outside a culling volume without testing them;
// the indices within a leaf are increasing. The slice is shared: do not
// modify it.
func (s *Shape) VertexOrder() []int32 { return s.vorder }

// BlockVertices returns the vertex indices of block b (see VertexOrder).
func (s *Shape) BlockVertices(b int) []int32 {
	return s.vorder[b*VertexBlock : min((b+1)*VertexBlock, len(s.vorder))]
}

// Dim returns the shape's dimension.
func (s *Shape) Dim() Dim { return s.dim }

// NumVertices returns the number of vertices.
func (s *Shape) NumVertices() int { return len(s.verts) }

// NumPrims returns the number of primitives (triangles or segments).
func (s *Shape) NumPrims() int { return len(s.prims) }

// NumComponents returns the number of connected components of the
// surface: of a mesh, the closed surfaces it is made of (one for a single
// solid, two for two separate parts); of a polygon, its loops (the outer
// one and the holes).
func (s *Shape) NumComponents() int { return len(s.compVerts) }

// Vertex returns vertex i in local coordinates.
func (s *Shape) Vertex(i int) mgl64.Vec3 { return s.verts[i] }

// AppendVertices appends the shape's vertices (local coordinates, file
// order) to dst: a copy to move and hand to Deform.
func (s *Shape) AppendVertices(dst []mgl64.Vec3) []mgl64.Vec3 {
	for _, v := range s.verts {
		dst = append(dst, v)
	}
	return dst
}

// AppendTriangles appends the shape's primitives to dst as NewMesh takes
// them: triangles (a, b, c); a polygon's segments come as (a, b, -1).
func (s *Shape) AppendTriangles(dst [][3]int) [][3]int {
	for _, p := range s.prims {
		dst = append(dst, [3]int{int(p[0]), int(p[1]), int(p[2])})
	}
	return dst
}

// VertexNormal returns the unit outward normal of vertex i (angle-weighted in
// 3D, the bisector of the two segment normals in 2D).
func (s *Shape) VertexNormal(i int) mgl64.Vec3 { return s.vnorm[i] }

// Prim returns the vertex indices of primitive i; for a segment the third is -1.
func (s *Shape) Prim(i int) [3]int32 { return s.prims[i] }

// FaceNormal returns the unit outward normal of primitive i.
func (s *Shape) FaceNormal(i int) mgl64.Vec3 { return s.fnorm[i] }

// FaceNormalXYZ is FaceNormal as three scalars, for hot loops: they come
// back in registers, where a returned array would be copied through memory.
func (s *Shape) FaceNormalXYZ(i int32) (x, y, z float64) {
	n := &s.fnorm[i]
	return n[0], n[1], n[2]
}

// Adjacent returns the primitive across edge k of primitive i, or -1.
// For a triangle (a,b,c): k=0 is edge c-a (barycentric u<0 in Algorithm 2 of
// Lehericey et al. 2013), k=1 is edge a-b (v<0), k=2 is edge b-c (u+v>1).
// For a segment a→b: k=0 is the segment before a, k=2 the segment after b,
// k=1 is -1.
func (s *Shape) Adjacent(i, k int) int { return int(s.adj[i][k]) }

// Bounds returns the local bounding box.
func (s *Shape) Bounds() AABB { return s.bounds }

// nearBounds reports whether p (in s's frame) lies in s's bounding box grown
// by 2·tEps: where a point may be inside s or touch it.
func (s *Shape) nearBounds(p *[3]float64) bool {
	b, e := &s.bounds, 2*s.tEps
	return p[0] >= b.Min[0]-e && p[0] <= b.Max[0]+e &&
		p[1] >= b.Min[1]-e && p[1] <= b.Max[1]+e &&
		p[2] >= b.Min[2]-e && p[2] <= b.Max[2]+e
}

// Radius returns the largest distance of a vertex from the local origin
// (the radius of Eq. 2 of Lehericey et al. 2013, §3.3, when rotations are
// taken about the origin; irtcd evaluates Eq. 2 about BoundingSphere's
// centre instead).
func (s *Shape) Radius() float64 { return s.radius }

// BoundingSphere returns the centre (x, y, z), in local coordinates, and
// the radius r of a sphere that contains every vertex, hence the whole
// shape: r is the largest distance of a vertex from the centre. The centre
// is near that of the smallest such sphere (not at the local origin, which
// may lie far off-centre in a mesh file). Eq. 2 of Lehericey et al. 2013
// (§3.3) is evaluated about this point with this radius (see package
// iterative). Scalars, not an array: it is read on the hot path.
func (s *Shape) BoundingSphere() (x, y, z, r float64) {
	return s.centre[0], s.centre[1], s.centre[2], s.cradius
}

// AvgPrimSize returns the mean edge length of the triangles (segment length
// for polygons), the averageTrianglesSize of Eq. 1 (§3.1).
func (s *Shape) AvgPrimSize() float64 { return s.avgSize }

// Thickness returns the shortest distance an inward vertex ray travels
// before it leaves the shape (the smallest exit distance): a lower
// estimate of how thin the shape is at its vertices. A body that moves
// less than the other body's thickness in a step cannot pass through it
// at a vertex, which is what continuous collision checks use. A deformed
// shape (Deform) computes it on the first call.
func (s *Shape) Thickness() float64 {
	if x := atomic.LoadUint64(&s.thick); x != 0 {
		return math.Float64frombits(x)
	}
	thick := math.Inf(1)
	for v := range s.exit {
		if s.vnorm[v] != ([3]float64{}) {
			thick = min(thick, s.exitOf(int32(v)))
		}
	}
	atomic.StoreUint64(&s.thick, math.Float64bits(thick))
	return thick
}

// Size returns half the diagonal of the local bounding box.
func (s *Shape) Size() float64 { return s.size }

// BVHDepth returns the depth of the primitive hierarchy.
func (s *Shape) BVHDepth() int { return s.maxDeep }

// BVHNodes returns the number of nodes of the primitive hierarchy.
func (s *Shape) BVHNodes() int { return len(s.fat) }

func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func scale3(a [3]float64, s float64) [3]float64 {
	return [3]float64{a[0] * s, a[1] * s, a[2] * s}
}
func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
func len3(a [3]float64) float64 { return math.Sqrt(dot3(a, a)) }

// NewMesh builds a closed triangle mesh from vertices and counter-clockwise
// (seen from outside) triangles. The mesh must be a closed, consistently
// wound, edge-manifold surface; otherwise a *ShapeError names the offending
// vertex, triangle or edge. The slices are copied.
func NewMesh(vertices []mgl64.Vec3, triangles [][3]int) (*Shape, error) {
	return newTriangles(vertices, triangles, false)
}

// NewSurface builds a triangle surface that need not be closed, such as a
// piece of cloth: consistently wound (its triangles counter-clockwise
// seen from the side its normals point to) and edge-manifold (each edge
// in one or two triangles), with no inside. It answers ray queries
// (Trace, TraceQuery), finds its own self-collisions (SelfHits, Li &
// Yamaguchi's Algorithm 1 for open meshes) and deforms (Deform); having
// no inside, it has no ray-traced contacts with other shapes: backends
// refuse to register it (Open), and it has no mass. Bad input is a
// *ShapeError as for NewMesh, without ErrOpenBoundary.
func NewSurface(vertices []mgl64.Vec3, triangles [][3]int) (*Shape, error) {
	return newTriangles(vertices, triangles, true)
}

// Open reports whether s is a surface built by NewSurface (or deformed
// from one), which has no inside.
func (s *Shape) Open() bool { return s.open }

// newTriangles is NewMesh, or NewSurface with open.
func newTriangles(vertices []mgl64.Vec3, triangles [][3]int, open bool) (*Shape, error) {
	if len(vertices) == 0 || len(triangles) == 0 {
		return nil, newShapeError(ErrEmpty, fmt.Sprintf("%d vertices, %d triangles", len(vertices), len(triangles)))
	}
	if len(vertices) > math.MaxInt32/2 || len(triangles) > math.MaxInt32/4 {
		return nil, newShapeError(ErrTooLarge, fmt.Sprintf("%d vertices, %d triangles", len(vertices), len(triangles)))
	}
	s := &Shape{dim: Dim3, loops: 0, open: open}
	s.verts = make([][3]float64, len(vertices))
	for i, v := range vertices {
		for k := 0; k < 3; k++ {
			if !finite(v[k]) {
				e := newShapeError(ErrNonFinite, fmt.Sprintf("coordinate %d is %v", k, v[k]))
				e.Vertex = i
				return nil, e
			}
		}
		s.verts[i] = v
	}
	s.computeBounds()
	s.prims = make([][3]int32, len(triangles))
	for i, t := range triangles {
		for k := 0; k < 3; k++ {
			if t[k] < 0 || t[k] >= len(vertices) {
				e := newShapeError(ErrIndexRange, fmt.Sprintf("corner %d refers to vertex %d of %d", k, t[k], len(vertices)))
				e.Prim = i
				return nil, e
			}
		}
		s.prims[i] = [3]int32{int32(t[0]), int32(t[1]), int32(t[2])}
	}
	if err := s.validateMesh(); err != nil {
		return nil, err
	}
	s.finish()
	return s, nil
}

func (s *Shape) computeBounds() {
	b := emptyBox()
	maxAbs := 0.0
	for _, v := range s.verts {
		for k := 0; k < 3; k++ {
			b.Min[k] = min(b.Min[k], v[k])
			b.Max[k] = max(b.Max[k], v[k])
			maxAbs = max(maxAbs, math.Abs(v[k]))
		}
	}
	s.bounds = b
	diag := b.Max.Sub(b.Min).Len()
	s.scale = max(diag, 1e-3*maxAbs, math.SmallestNonzeroFloat64)
	// Rounding in areas grows with the coordinates' magnitude times the
	// shape's extent, so a shape far from the origin is not "degenerate".
	s.areaTol = 1e-14 * max(diag, math.SmallestNonzeroFloat64) * max(diag, 1e-3*maxAbs)
}

// finish computes the derived data shared by both kinds of shape: radius,
// average primitive size, tolerances and the BVH.
func (s *Shape) finish() {
	s.finishCommon(sphereSteps)
	// The outside grid reads only the vertices, primitives, box and DOP,
	// which nothing below changes: it is built beside the BVH, the edges
	// and the exits (a third of a mesh's construction each way), and is
	// the same grid whichever finishes first.
	grid := make(chan *outsideGrid, 1)
	if s.open {
		grid <- nil // no inside, no outside
	} else {
		go func() { grid <- buildOutsideGrid(s) }()
	}
	s.buildBVH()
	if !s.open { // edge contacts need an inside; a surface has no pairs
		s.buildEdgesInto(new(edgeBuffers))
	}
	s.exit = make([]uint64, len(s.verts))
	s.computeExits()
	s.grid = <-grid
	s.vorder = blockOrder(s.verts)
	s.blockBoxes()
	s.vgroups = runBoxesInto(nil, s.verts, s.vorder, groupVertices)
	s.vleaves = runBoxesInto(nil, s.verts, s.vorder, vertexLeaf)
	if !s.open {
		s.mom = s.moments()
	}
}

// finishCommon computes the radius, bounding sphere (improved over
// steps steps; with 0, about s.centre as it is), average primitive size,
// tolerances, padded hull and DOP of s's vertices.
func (s *Shape) finishCommon(steps int) {
	s.radius = 0
	for _, v := range s.verts {
		s.radius = max(s.radius, len3(v))
	}
	if steps > 0 {
		s.centre, s.cradius = boundingSphere(s.verts, s.bounds.Center(), steps)
	} else {
		s.cradius = sphereRadius(s.verts, s.centre)
	}
	total, n := 0.0, 0
	for _, p := range s.prims {
		if p[2] < 0 {
			total += len3(sub3(s.verts[p[1]], s.verts[p[0]]))
			n++
			continue
		}
		for k := 0; k < 3; k++ {
			total += len3(sub3(s.verts[p[(k+1)%3]], s.verts[p[k]]))
			n++
		}
	}
	s.avgSize = total / float64(n)
	d := s.bounds.Max.Sub(s.bounds.Min)
	s.size = 0.5 * d.Len()
	s.tEps = 1e-9 * s.scale
	s.hullMin, s.hullMax = s.bounds.Min, s.bounds.Max
	s.padBox(&s.hullMin, &s.hullMax)
	for k := range s.dop {
		s.dop[k] = [2]float64{math.Inf(1), math.Inf(-1)}
	}
	for _, v := range s.verts {
		for k, ax := range dopAxis {
			p := ax[0]*v[0] + ax[1]*v[1] + ax[2]*v[2]
			s.dop[k][0], s.dop[k][1] = min(s.dop[k][0], p), max(s.dop[k][1], p)
		}
	}
}

// computeExits fills s.exit (one entry per vertex, allocated by the
// caller) with where each used vertex's inward ray leaves the shape
// (ownExit), and s.thick with the least of them.
func (s *Shape) computeExits() {
	thick := math.Inf(1)
	for v := range s.exit {
		s.exit[v] = 0
		if s.vnorm[v] != ([3]float64{}) {
			e := s.ownExit(int32(v))
			s.exit[v] = math.Float64bits(e)
			thick = min(thick, e)
		}
	}
	s.thick = math.Float64bits(thick)
}

// exitOf returns where the inward ray of vertex v (used by a primitive)
// leaves the shape (ownExit). A shape built by NewMesh or NewPolygon knows
// every vertex's; a deformed one (Deform) computes each on first use and
// keeps it: concurrent first uses compute the same value, and the atomic
// store makes either one's visible.
func (s *Shape) exitOf(v int32) float64 {
	if x := atomic.LoadUint64(&s.exit[v]); x != 0 {
		return math.Float64frombits(x)
	}
	e := s.ownExit(v)
	atomic.StoreUint64(&s.exit[v], math.Float64bits(e))
	return e
}

// blockBoxes appends to s.vblocks and s.vballs the box and ball of each
// vertex block of s.vorder.
func (s *Shape) blockBoxes() {
	for lo := 0; lo < len(s.verts); lo += VertexBlock {
		blk := s.BlockVertices(lo / VertexBlock)
		b := blockBox(s.verts, blk)
		s.vblocks = append(s.vblocks, b)
		c := b.Center()
		r := 0.0
		for _, i := range blk {
			r = max(r, len3(sub3(s.verts[i], c)))
		}
		s.vballs = append(s.vballs, [4]float64{c[0], c[1], c[2], r * (1 + 1e-12)})
	}
}

// sphereSteps is the number of steps of boundingSphere.
const sphereSteps = 256

// sphereRadius returns the radius of the sphere about centre that holds
// every point of pts, padded as boundingSphere pads it.
func sphereRadius(pts [][3]float64, centre [3]float64) float64 {
	d2 := 0.0
	for i := range pts {
		x, y, z := pts[i][0]-centre[0], pts[i][1]-centre[1], pts[i][2]-centre[2]
		d2 = max(d2, x*x+y*y+z*z)
	}
	return math.Sqrt(d2) * (1 + 1e-12)
}

// runBoxesInto appends to boxes the boxes of the runs of n consecutive
// entries of order (the last one possibly shorter).
func runBoxesInto(boxes []AABB, verts [][3]float64, order []int32, n int) []AABB {
	for lo := 0; lo < len(order); lo += n {
		boxes = append(boxes, blockBox(verts, order[lo:min(lo+n, len(order))]))
	}
	return boxes
}

// boundingSphere returns a sphere containing every point of pts: a centre
// and the largest distance of a point from it. It starts at start (the
// bounding box's centre) and improves it by Bădoiu and Clarkson's
// iteration over the given number of steps (step i moves the centre 1/(i+1) of the way towards the
// farthest point; after k steps it is within R/√k of the smallest
// sphere's centre, R that sphere's radius), keeping the best centre seen.
// Whatever the centre, the radius is measured from it, so the sphere
// always contains every point; it is padded by a relative 1e-12 so that
// rounding in the distances cannot make it too small.
func boundingSphere(pts [][3]float64, start [3]float64, steps int) (centre [3]float64, radius float64) {
	farthest := func(c [3]float64) (int, float64) {
		best, d2 := 0, -1.0
		for i := range pts {
			x, y, z := pts[i][0]-c[0], pts[i][1]-c[1], pts[i][2]-c[2]
			if q := x*x + y*y + z*z; q > d2 {
				best, d2 = i, q
			}
		}
		return best, d2
	}
	c := start
	i, d2 := farthest(c)
	centre, best := c, d2
	for k := 1; k <= steps; k++ {
		p := &pts[i]
		f := 1 / float64(k+1)
		c = [3]float64{c[0] + f*(p[0]-c[0]), c[1] + f*(p[1]-c[1]), c[2] + f*(p[2]-c[2])}
		if i, d2 = farthest(c); d2 < best {
			centre, best = c, d2
		}
	}
	return centre, math.Sqrt(best) * (1 + 1e-12)
}

// blockOrder returns the vertex order of Shape.VertexOrder: spatialOrder's,
// or the file order where its blocks are tighter (the smaller sum of the
// blocks' box diagonals), as for a polygon or a mesh generated ring by
// ring, whose consecutive vertices are already neighbours.
func blockOrder(verts [][3]float64) []int32 {
	order, file := spatialOrder(verts), identity(len(verts))
	if blockSpread(verts, file) <= blockSpread(verts, order) {
		return file
	}
	return order
}

// blockSpread returns the sum of the box diagonals of the blocks of
// VertexBlock consecutive entries of order.
func blockSpread(verts [][3]float64, order []int32) float64 {
	sum := 0.0
	for lo := 0; lo < len(order); lo += VertexBlock {
		b := blockBox(verts, order[lo:min(lo+VertexBlock, len(order))])
		sum += len3(sub3(b.Max, b.Min))
	}
	return sum
}

// identity returns 0, 1, …, n-1.
func identity(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// blockBox returns the bounding box of the vertices blk (not empty).
func blockBox(verts [][3]float64, blk []int32) AABB {
	b := AABB{Min: verts[blk[0]], Max: verts[blk[0]]}
	for _, i := range blk {
		for k := 0; k < 3; k++ {
			b.Min[k], b.Max[k] = min(b.Min[k], verts[i][k]), max(b.Max[k], verts[i][k])
		}
	}
	return b
}

// spatialOrder returns the indices of verts grouped in spatially compact
// groups, blocks and leaves (groupVertices, VertexBlock and vertexLeaf
// vertices, the last of each possibly shorter): a median split of the
// vertices along the longest axis of their bounding box, recursively,
// with every left part a whole number of the largest of these units that
// is smaller than the part split, so that every aligned group, block and
// leaf is a node of the split. Within a leaf the indices are increasing.
// Ties are broken by index, so the order depends only on the vertices.
func spatialOrder(verts [][3]float64) []int32 {
	return spatialOrderInto(make([]int32, len(verts)), verts)
}

// spatialOrderInto is spatialOrder into order (len(verts) entries).
func spatialOrderInto(order []int32, verts [][3]float64) []int32 {
	for i := range order {
		order[i] = int32(i)
	}
	splitSpatial(verts, order)
	return order
}

// splitSpatial orders idx as spatialOrder does.
func splitSpatial(verts [][3]float64, idx []int32) {
	if len(idx) <= vertexLeaf {
		slices.Sort(idx)
		return
	}
	unit := vertexLeaf
	for _, u := range [...]int{VertexBlock, groupVertices} {
		if len(idx) > u {
			unit = u
		}
	}
	b := blockBox(verts, idx)
	axis := 0
	for k := 1; k < 3; k++ {
		if b.Max[k]-b.Min[k] > b.Max[axis]-b.Min[axis] {
			axis = k
		}
	}
	units := (len(idx) + unit - 1) / unit
	mid := (units + 1) / 2 * unit
	selectLeast(verts, idx, axis, mid)
	splitSpatial(verts, idx[:mid])
	splitSpatial(verts, idx[mid:])
}

// selectLeast reorders idx so that idx[:k] holds its k least entries by
// (coordinate axis, then index): a quickselect, linear on average. The
// order is total (no two entries compare equal), so the two parts hold
// the entries a sort would put there, which is all splitSpatial needs: it
// orders the leaves by index, and every level's parts by their own boxes.
func selectLeast(verts [][3]float64, idx []int32, axis, k int) {
	less := func(a, b int32) bool {
		if x, y := verts[a][axis], verts[b][axis]; x != y {
			return x < y
		}
		return a < b
	}
	lo, hi := 0, len(idx) // the k-th least lies in idx[lo:hi]
	for hi-lo > 1 {
		// Median of three as the pivot, moved to the end.
		m := lo + (hi-lo)/2
		a, b, c := lo, m, hi-1
		if less(idx[b], idx[a]) {
			a, b = b, a
		}
		if less(idx[c], idx[b]) {
			b = c
			if less(idx[b], idx[a]) {
				b = a
			}
		}
		idx[b], idx[hi-1] = idx[hi-1], idx[b]
		pivot := idx[hi-1]
		store := lo
		for i := lo; i < hi-1; i++ {
			if less(idx[i], pivot) {
				idx[i], idx[store] = idx[store], idx[i]
				store++
			}
		}
		idx[store], idx[hi-1] = idx[hi-1], idx[store]
		switch {
		case store == k || store == k-1:
			return // idx[:store] < pivot at store < idx[store+1:]
		case store < k:
			lo = store + 1
		default:
			hi = store
		}
	}
}
