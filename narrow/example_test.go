package narrow_test

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// A concave polygon with a hole, ready for a 2D pair.
func ExampleNewPolygon() {
	outline := []mgl64.Vec2{{0, 0}, {4, 0}, {4, 3}, {2, 1}, {0, 3}} // a concave "M"
	hole := []mgl64.Vec2{{0.5, 0.5}, {1, 0.5}, {1, 1}}
	s, err := narrow.NewPolygon(outline, hole)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Dim(), s.NumVertices(), "vertices,", s.NumPrims(), "segments")
	// Output: 2 8 vertices, 8 segments
}

// Bad geometry is a typed error naming the element that is wrong.
func ExampleNewPolygon_error() {
	bowtie := []mgl64.Vec2{{0, 0}, {1, 1}, {1, 0}, {0, 1}}
	_, err := narrow.NewPolygon(bowtie)
	var se *narrow.ShapeError
	fmt.Println(errors.Is(err, narrow.ErrSelfIntersect), errors.As(err, &se), se.Prim, se.Other)
	fmt.Println(err)
	// Output:
	// true true 0 2
	// self-intersecting polygon: primitive 0 and primitive 2: segments cross or touch
}

// OBJ errors name the file and line.
func ExampleReadOBJ() {
	obj := "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 2 3 4\n" // one face missing
	_, err := narrow.ReadOBJ(strings.NewReader(obj), "tet.obj")
	fmt.Println(err)
	fmt.Println(errors.Is(err, narrow.ErrOpenBoundary))
	// Output:
	// tet.obj:5: open boundary: primitive 0: edge 0-2: edge belongs to one triangle only
	// true
}

// STL repeats a point at every corner of every facet; the reader welds
// equal points into one vertex. Errors in an ASCII file name its line.
func ExampleReadSTL() {
	facet := func(a, b, c string) string {
		return "facet normal 0 0 0\n outer loop\n  vertex " + a + "\n  vertex " + b + "\n  vertex " + c + "\n endloop\nendfacet\n"
	}
	tetra := "solid tetra\n" +
		facet("0 0 0", "0 1 0", "1 0 0") + facet("0 0 0", "1 0 0", "0 0 1") +
		facet("0 0 0", "0 0 1", "0 1 0") + facet("1 0 0", "0 1 0", "0 0 1") +
		"endsolid tetra\n"
	s, err := narrow.ReadSTL(strings.NewReader(tetra), "tetra.stl")
	if err != nil {
		panic(err)
	}
	fmt.Println(s.NumVertices(), "vertices,", s.NumPrims(), "triangles")

	flipped := strings.Replace(tetra, "vertex 0 0 1\n  vertex 0 1 0", "vertex 0 1 0\n  vertex 0 0 1", 1)
	_, err = narrow.ReadSTL(strings.NewReader(flipped), "flipped.stl")
	fmt.Println(err)
	// Output:
	// 4 vertices, 4 triangles
	// flipped.stl:2: inconsistent winding: primitive 0 and primitive 2: edge 0-1: both triangles traverse the edge in the same direction
}

// A PLY file's faces may be polygons (here the quads of a unit cube);
// properties and elements irtcd does not use (a colour, an edge list) are
// read past.
func ExampleReadPLY() {
	cube := `ply
format ascii 1.0
comment a unit cube
element vertex 8
property float x
property float y
property float z
property uchar red
element face 6
property list uchar int vertex_indices
element edge 1
property int vertex1
property int vertex2
end_header
0 0 0 255
1 0 0 255
1 1 0 255
0 1 0 255
0 0 1 0
1 0 1 0
1 1 1 0
0 1 1 0
4 0 3 2 1
4 4 5 6 7
4 0 1 5 4
4 2 3 7 6
4 0 4 7 3
4 1 2 6 5
0 6
`
	s, err := narrow.ReadPLY(strings.NewReader(cube), "cube.ply")
	if err != nil {
		panic(err)
	}
	m, err := s.MassProps(1)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.NumVertices(), "vertices,", s.NumPrims(), "triangles, volume", m.Mass)
	// Output:
	// 8 vertices, 12 triangles, volume 1
}

// A mesh written one vertex per triangle corner (here two triangles of
// a tetrahedron's four, as an unindexed buffer holds them) has every edge
// open until its equal vertices are merged.
func ExampleWeld() {
	verts := []mgl64.Vec3{
		{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, // triangle 0
		{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, // triangle 1
		{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, // triangle 2
		{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, // triangle 3
	}
	tris := [][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11}}
	_, err := narrow.NewMesh(verts, tris)
	fmt.Println(err)

	welded, wtris, first := narrow.Weld(verts, tris)
	s, err := narrow.NewMesh(welded, wtris)
	if err != nil {
		panic(err)
	}
	fmt.Println(s.NumVertices(), "vertices, the first of each at", first, "; triangles", wtris)
	// Output:
	// open boundary: primitive 0: edge 0-1: edge belongs to one triangle only (8 vertices lie exactly where another does: narrow.Weld merges them)
	// 4 vertices, the first of each at [0 1 2 5] ; triangles [[0 1 2] [0 2 3] [0 3 1] [2 1 3]]
}

// A pose places a shape: world = R(q)·local + t.
func ExampleNewPose() {
	p, err := narrow.NewPose(mgl64.Vec3{1, 2, 3}, mgl64.Quat{W: 2}) // normalised to the identity
	fmt.Println(p.Rot.W, err)
	_, err = narrow.NewPose(mgl64.Vec3{}, mgl64.Quat{})
	fmt.Println(errors.Is(err, narrow.ErrBadPose))
	// Output:
	// 1 <nil>
	// true
}

// Two bars crossing edge on edge, 1 cm deep, with no vertex of either
// inside the other: vertex rays see nothing, the edge test one contact.
func ExampleDirection_AppendEdgeContacts() {
	a, _ := narrow.NewBox(mgl64.Vec3{-0.2, -2, -0.2}, mgl64.Vec3{0.2, 2, 0.2}) // along y
	b, _ := narrow.NewBox(mgl64.Vec3{-2, -0.2, -0.2}, mgl64.Vec3{2, 0.2, 0.2}) // along x
	// Turned by 45° about its length, a bar's edges lie its half diagonal
	// from its axis.
	r := 0.2 * math.Sqrt2
	pa := narrow.Pose{Pos: mgl64.Vec3{0, 0, r - 0.01}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0})}
	pb := narrow.Pose{Pos: mgl64.Vec3{0, 0, -r}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})}
	var d [2]narrow.Direction
	narrow.SetPair(&d, a, b, &pa, &pb)
	var sc narrow.EdgeScratch
	for _, c := range d[0].AppendEdgeContacts(nil, &sc, math.Pi/3, 0.1, 0, narrow.TraversalBVH) {
		fmt.Printf("%v contact from %v: depth %.3f along (%.0f, %.0f, %.0f)\n", c.Feature, c.From, c.Depth, c.Dir[0], c.Dir[1], c.Dir[2])
	}
	// Output: edge contact from a: depth 0.010 along (0, 0, 1)
}

// Two bars crossing edge on edge, followed over steps: the pairs of edges
// to test are chosen once, with a margin, and tested at each step while
// the bars have moved by less than it.
func ExampleDirection_AppendEdgePairs() {
	a, _ := narrow.NewBox(mgl64.Vec3{-0.2, -2, -0.2}, mgl64.Vec3{0.2, 2, 0.2}) // along y
	b, _ := narrow.NewBox(mgl64.Vec3{-2, -0.2, -0.2}, mgl64.Vec3{2, 0.2, 0.2}) // along x
	r := 0.2 * math.Sqrt2
	pb := narrow.Pose{Pos: mgl64.Vec3{0, 0, -r}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})}
	posesA := func(step int) narrow.Pose { // a sinks by 3 mm a step
		return narrow.Pose{Pos: mgl64.Vec3{0, 0, r + 0.002 - 0.003*float64(step)}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0})}
	}
	const angle, maxDepth, margin = math.Pi / 3, 0.1, 0.05
	var d [2]narrow.Direction
	var sc narrow.EdgeScratch
	var pairs []narrow.EdgePair
	for step := range 4 {
		pa := posesA(step)
		narrow.SetPair(&d, a, b, &pa, &pb)
		if step == 0 {
			// 2 mm apart: no contact yet, but the pair of edges is kept.
			pairs = d[0].AppendEdgePairs(pairs[:0], &sc, angle, maxDepth, 0, margin)
			fmt.Printf("%d pair(s) of edges kept\n", len(pairs))
		}
		for _, c := range d[0].AppendEdgePairContacts(nil, pairs, maxDepth, 0, narrow.TraversalBVH) {
			fmt.Printf("step %d: depth %.3f\n", step, c.Depth)
		}
	}
	// Output:
	// 1 pair(s) of edges kept
	// step 1: depth 0.001
	// step 2: depth 0.004
	// step 3: depth 0.007
}

// Two bars crossed as a "+" overlap, though no vertex of either lies
// inside the other (so they have no vertex contact); side by side, they
// do not.
func ExampleOverlap() {
	bar, err := narrow.NewPolygon([]mgl64.Vec2{{-2, -0.1}, {2, -0.1}, {2, 0.1}, {-2, 0.1}})
	if err != nil {
		panic(err)
	}
	for _, p := range []narrow.Pose{narrow.Pose2D(0, 0, math.Pi/2), narrow.Pose2D(0, 0.5, 0)} {
		hit, err := narrow.Overlap(bar, bar, narrow.Identity, p)
		if err != nil {
			panic(err)
		}
		fmt.Println(hit)
	}
	// Output:
	// true
	// false
}

// A bar dropped across another first touches it edge on edge: the cast
// finds where, and the normal to slide along.
func ExampleCastShape() {
	fixed, err := narrow.NewBox(mgl64.Vec3{-2, -0.05, -0.05}, mgl64.Vec3{2, 0.05, 0.05})
	if err != nil {
		panic(err)
	}
	falling, err := narrow.NewBox(mgl64.Vec3{-0.05, -0.05, -1}, mgl64.Vec3{0.05, 0.05, 1})
	if err != nil {
		panic(err)
	}
	start := narrow.Pose{Pos: mgl64.Vec3{0.3, 1, 0}, Rot: mgl64.QuatIdent()}
	c, hit, err := narrow.CastShape(falling, fixed, start, narrow.Identity, mgl64.Vec3{0, -2, 0})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v at %.2f of the motion, point y %.2f, normal %.0f\n", hit, c.Fraction, c.Point[1], c.Normal)
	// Output: true at 0.45 of the motion, point y 0.05, normal [0 1 0]
}

// Terrain for a 3D world: a heightfield closed into a slab down to its
// base, placed by a pose on a static body like any shape.
func ExampleNewHeightfield() {
	heights := [][]float64{
		{0.0, 0.1, 0.0},
		{0.2, 0.5, 0.2},
		{0.0, 0.1, 0.0},
	}
	ground, err := narrow.NewHeightfield(heights, 1, 1, -1) // 2 m × 2 m, 1 m between points
	if err != nil {
		panic(err)
	}
	// The surface under (1, 1), seen from above.
	hit, _ := ground.Trace([3]float64{1, 10, 1}, [3]float64{0, -1, 0}, 0, 0, narrow.TraversalBVH)
	fmt.Println(ground.NumVertices(), "vertices,", ground.NumPrims(), "triangles; the surface at (1, 1) is at y =", 10-hit.T)
	// Output:
	// 18 vertices, 32 triangles; the surface at (1, 1) is at y = 0.5
}

// Round shapes as meshes: their vertices lie on the round surface, so the
// mesh is inscribed in it and a little smaller.
func ExampleNewCapsule() {
	for _, segments := range []int{8, 32} {
		c, err := narrow.NewCapsule(0.5, 1, segments) // radius 0.5, 3 m from end to end
		if err != nil {
			panic(err)
		}
		m, err := c.MassProps(1)
		if err != nil {
			panic(err)
		}
		round := 4.0/3*math.Pi*0.125 + math.Pi*0.25*2
		fmt.Printf("%d segments: %d vertices, %d triangles, %.1f %% of the round volume\n", segments, c.NumVertices(), c.NumPrims(), 100*m.Mass/round)
	}
	// Output:
	// 8 segments: 34 vertices, 64 triangles, 86.7 % of the round volume
	// 32 segments: 514 vertices, 1024 triangles, 99.1 % of the round volume
}

// A convex shape from a cloud of points: here the bunny's vertices, for a
// cheaper, coarser stand-in of the bunny.
func ExampleNewConvexHull() {
	bunny, err := narrow.LoadMesh("../testdata/bunny.obj")
	if err != nil {
		panic(err)
	}
	points := bunny.AppendVertices(nil)
	hull, err := narrow.NewConvexHull(points)
	if err != nil {
		panic(err)
	}
	fmt.Println(hull.NumVertices(), "of the bunny's", bunny.NumVertices(), "vertices,", hull.NumPrims(), "triangles")
	// Output:
	// 90 of the bunny's 453 vertices, 176 triangles
}

// A deformable object's shape at a new step: the vertices moved, the
// triangles kept, the hierarchy refitted. Here a ground slab bulges up in
// the middle.
func ExampleShape_Deform() {
	heights := make([][]float64, 5)
	for i := range heights {
		heights[i] = make([]float64, 5)
	}
	flat, err := narrow.NewHeightfield(heights, 1, 1, -1)
	if err != nil {
		panic(err)
	}
	verts := flat.AppendVertices(nil)
	verts[2*5+2][1] = 0.8 // the surface's middle point (row 2, column 2)
	bulge, err := flat.Deform(verts)
	if err != nil {
		panic(err)
	}
	hit, _ := bulge.Trace([3]float64{2, 10, 2}, [3]float64{0, -1, 0}, 0, 0, narrow.TraversalBVH)
	fmt.Printf("same triangles: %v; the surface at (2, 2) at y = %.3f; moved at most %.3f\n", bulge.SameTopology(flat), 10-hit.T, bulge.MaxDisplacement(flat))
	// Output:
	// same triangles: true; the surface at (2, 2) at y = 0.800; moved at most 0.800
}

// How far a small cube in the hole of a torus is from it: the distance
// to its inner rim (radius 1.5 at its vertices, less between them), not
// to its bounding box, which holds the cube.
func ExampleDistance() {
	torus, err := narrow.LoadOBJ("../testdata/torus.obj")
	if err != nil {
		panic(err)
	}
	cube, err := narrow.NewBox(mgl64.Vec3{-0.05, -0.05, -0.05}, mgl64.Vec3{0.05, 0.05, 0.05})
	if err != nil {
		panic(err)
	}
	c, ok, err := narrow.Distance(cube, torus, narrow.Identity, narrow.Identity, math.Inf(1))
	if err != nil {
		panic(err)
	}
	box := torus.Bounds()
	fmt.Printf("apart: %v, overlap: %v, in the box: %v\n", ok, c.Overlap, box.Contains([3]float64{}))
	fmt.Printf("distance %.3f\n", c.Dist)
	// Output:
	// apart: true, overlap: false, in the box: true
	// distance 1.422
}

// A bar turning half a turn about its centre sweeps a disc: it hits a
// post standing on the disc, 60° round (its side meets the post's corner
// a few degrees before), though the straight paths of its corners would
// miss it.
func ExampleCastMotion() {
	bar, err := narrow.NewBox(mgl64.Vec3{-2, -0.05, -0.05}, mgl64.Vec3{2, 0.05, 0.05})
	if err != nil {
		panic(err)
	}
	post, err := narrow.NewBox(mgl64.Vec3{-0.05, -0.05, -1}, mgl64.Vec3{0.05, 0.05, 1})
	if err != nil {
		panic(err)
	}
	turned := narrow.Pose{Rot: mgl64.QuatRotate(math.Pi*0.99, mgl64.Vec3{0, 0, 1})}
	at := narrow.Pose{Pos: mgl64.Vec3{1.5 * math.Cos(math.Pi/3), 1.5 * math.Sin(math.Pi/3), 0}, Rot: mgl64.QuatIdent()}
	c, hit, err := narrow.CastMotion(bar, post, narrow.Identity, turned, at, 1e-4)
	if err != nil {
		panic(err)
	}
	fmt.Printf("hit: %v, after turning %.0f°\n", hit, c.Fraction*0.99*180)
	// Output:
	// hit: true, after turning 55°
}
