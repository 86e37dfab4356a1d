package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// Table tests of degenerate configurations with exact expected contacts:
// coplanar resting faces, rays parallel to faces and edges, vertices exactly
// on faces, edges and corners, rays that leave their own shape first, and
// containment.

const degenTol = 1e-9

// degenCorners returns the 8 corners of the box [lo, hi] in the order of
// narrow.BoxTriangles.
func degenCorners(lo, hi mgl64.Vec3) []mgl64.Vec3 { return narrow.BoxCorners(lo, hi) }

// degenMesh builds a box-topology mesh from 8 corners (a rigid image of
// degenCorners keeps the winding valid).
func degenMesh(t testing.TB, corners []mgl64.Vec3) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewMesh(corners, narrow.BoxTriangles())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// box2dTestBox is the axis-aligned box [lo, hi] as a 12-triangle mesh.
func box2dTestBox(t testing.TB, lo, hi mgl64.Vec3) *narrow.Shape {
	t.Helper()
	s := degenMesh(t, degenCorners(lo, hi))
	for i, want := range []mgl64.Vec3{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}} {
		for k := 0; k < 2; k++ {
			if n := s.FaceNormal(2*i + k); n.Sub(want).Len() > 1e-12 {
				t.Fatalf("box triangle %d: normal %v, want %v", 2*i+k, n, want)
			}
		}
	}
	return s
}

// degenSquare is the axis-aligned square [lo, hi]: vertex 0 (lo,lo),
// 1 (hi,lo), 2 (hi,hi), 3 (lo,hi).
func degenSquare(t testing.TB, lo, hi float64) *narrow.Shape {
	return exact2dPolygon(t, []mgl64.Vec2{{lo, lo}, {hi, lo}, {hi, hi}, {lo, hi}})
}

// degenDiamond is a square standing on a corner: vertex 0 (r,0), 1 (0,r),
// 2 (-r,0) (left), 3 (0,-r) (bottom). Its vertex rays are axis-aligned.
func degenDiamond(t testing.TB, r float64) *narrow.Shape {
	return exact2dPolygon(t, []mgl64.Vec2{{r, 0}, {0, r}, {-r, 0}, {0, -r}})
}

// degenCornerDown is the cube of side 1 turned so that its corner 0 points
// straight down (-y) and sits exactly at the local origin.
func degenCornerDown(t testing.TB) *narrow.Shape {
	q := mgl64.QuatBetweenVectors(mgl64.Vec3{-1, -1, -1}.Normalize(), mgl64.Vec3{0, -1, 0})
	cs := degenCorners(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	c0 := q.Rotate(cs[0])
	for i := range cs {
		cs[i] = q.Rotate(cs[i]).Sub(c0) // exactly 0 for i = 0
	}
	s := degenMesh(t, cs)
	if n := s.VertexNormal(0); n.Sub(mgl64.Vec3{0, -1, 0}).Len() > 1e-12 {
		t.Fatalf("corner-down cube: vertex 0 normal %v", n)
	}
	for i := 1; i < 8; i++ {
		if !(s.Vertex(i)[1] > 0.5) {
			t.Fatalf("corner-down cube: vertex %d at %v is not above the corner", i, s.Vertex(i))
		}
	}
	return s
}

// pose3 is a translation.
func pose3(x, y, z float64) narrow.Pose {
	return narrow.Pose{Pos: mgl64.Vec3{x, y, z}, Rot: mgl64.QuatIdent()}
}

// pairBackend returns a backend, closed when the test ends, with shapes a
// and b registered.
func pairBackend(t testing.TB, p narrow.Params, a, b *narrow.Shape) (be *cpubackend.Backend, ia, ib narrow.ShapeID) {
	t.Helper()
	be, err := cpubackend.New(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	if ia, err = be.RegisterShape(a); err == nil {
		ib, err = be.RegisterShape(b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return be, ia, ib
}

// detectFull runs one standard step on one pair and returns copies of its
// contacts, manifolds and step statistics.
func detectFull(t testing.TB, p narrow.Params, a, b *narrow.Shape, pa, pb narrow.Pose) ([]narrow.Contact, []narrow.Manifold, narrow.Stats) {
	t.Helper()
	be, ia, ib := pairBackend(t, p, a, b)
	var res narrow.Result
	if err := be.Detect(context.Background(), []narrow.Pair{{ID: 1, A: ia, B: ib, PoseA: pa, PoseB: pb}}, &res); err != nil {
		t.Fatal(err)
	}
	pr := res.Pairs[0]
	if pr.Err != nil {
		t.Fatal(pr.Err)
	}
	ms := make([]narrow.Manifold, len(pr.Manifolds))
	for i, m := range pr.Manifolds {
		ms[i] = narrow.Manifold{Normal: m.Normal, Points: append([]narrow.Contact(nil), m.Points...)}
	}
	return append([]narrow.Contact(nil), pr.Contacts...), ms, res.Stats
}

func degenFinite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// degenRun runs the standard method with both traversals, requires them to
// agree bit for bit, every contact to be finite and follow the convention,
// and the contacts to match the brute-force reference. It returns the BVH
// contacts, manifolds and statistics.
func degenRun(t *testing.T, a, b *narrow.Shape, pa, pb narrow.Pose) ([]narrow.Contact, []narrow.Manifold, narrow.Stats) {
	t.Helper()
	bvh, ms, st := detectFull(t, narrow.Params{Method: narrow.MethodStandard}, a, b, pa, pb)
	basic, msBasic, _ := detectFull(t, narrow.Params{Method: narrow.MethodStandard, Traversal: narrow.TraversalBasic}, a, b, pa, pb)
	sameContacts(t, "bvh vs basic", bvh, basic)
	if len(ms) != len(msBasic) {
		t.Errorf("bvh %d manifolds, basic %d", len(ms), len(msBasic))
	}
	for _, c := range bvh {
		if !degenFinite(c.P[0], c.P[1], c.P[2], c.Depth, c.Dir[0], c.Dir[1], c.Dir[2]) {
			t.Errorf("non-finite contact %+v", c)
		}
		if c.Depth < 0 || math.Abs(c.Dir.Len()-1) > 1e-12 {
			t.Errorf("contact breaks the convention (Depth ≥ 0, unit Dir): %+v", c)
		}
	}
	for _, m := range ms {
		if !degenFinite(m.Normal[0], m.Normal[1], m.Normal[2]) || len(m.Points) == 0 {
			t.Errorf("bad manifold %+v", m)
		}
	}
	ref := reference.Contacts(a, b, pa, pb)
	compareWithReference(t, "vs reference", bvh, ref, max(a.Size(), b.Size()))
	return bvh, ms, st
}

// degenWant is one expected contact. dirs lists the acceptable directions
// (any unit direction if empty). An optional contact may be missing (the
// reference calls it borderline), but must match if present.
type degenWant struct {
	from     narrow.Side
	vertex   int32
	depth    float64
	dirs     []mgl64.Vec3
	optional bool
}

// degenExpect requires got to be exactly the wanted contacts.
func degenExpect(t *testing.T, got []narrow.Contact, want []degenWant) {
	t.Helper()
	seen := map[[2]int32]bool{}
	for _, w := range want {
		var c *narrow.Contact
		for i := range got {
			if got[i].From == w.from && got[i].Vertex == w.vertex {
				c = &got[i]
			}
		}
		seen[[2]int32{int32(w.from), w.vertex}] = true
		if c == nil {
			if !w.optional {
				t.Errorf("missing contact from %v vertex %d (want depth %g, dir %v)", w.from, w.vertex, w.depth, w.dirs)
			}
			continue
		}
		if math.Abs(c.Depth-w.depth) > degenTol {
			t.Errorf("%v vertex %d: depth %.15g, want %.15g", w.from, w.vertex, c.Depth, w.depth)
		}
		ok := len(w.dirs) == 0
		for _, d := range w.dirs {
			ok = ok || c.Dir.Sub(d).Len() <= degenTol
		}
		if !ok {
			t.Errorf("%v vertex %d: dir %v, want one of %v", w.from, w.vertex, c.Dir, w.dirs)
		}
	}
	for _, c := range got {
		if !seen[[2]int32{int32(c.From), c.Vertex}] {
			t.Errorf("unexpected contact from %v vertex %d: depth %g dir %v prim %d", c.From, c.Vertex, c.Depth, c.Dir, c.Prim)
		}
	}
}

// degenSwap turns the expectations of pair (a, b) into those of (b, a).
func degenSwap(ws []degenWant) []degenWant {
	out := make([]degenWant, len(ws))
	for i, w := range ws {
		out[i] = w
		out[i].from = w.from.Other()
	}
	return out
}

var (
	degenX = mgl64.Vec3{1, 0, 0}
	degenY = mgl64.Vec3{0, 1, 0}
	degenZ = mgl64.Vec3{0, 0, 1}
)

// TestDegenerateRestingBox puts a unit box on a ground slab with coplanar
// faces (touching) and sunk by 0.01. Only the box's four bottom corners are
// inside (or on) the ground: each is a contact from the box with Dir = +y
// (moving the box up separates it) and Depth 0, then 0.01. Two of the corners
// lie exactly on the diagonal shared by the two triangles of the ground's top
// face.
func TestDegenerateRestingBox(t *testing.T) {
	ground := box2dTestBox(t, mgl64.Vec3{-5, -1, -5}, mgl64.Vec3{5, 0, 5})
	box := box2dTestBox(t, mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	for _, sink := range []float64{0, 0.01} {
		for _, boxIsA := range []bool{true, false} {
			name := fmt.Sprintf("sink=%g/boxIsA=%v", sink, boxIsA)
			t.Run(name, func(t *testing.T) {
				pBox, pGround := pose3(0, 0.5-sink, 0), narrow.Identity
				a, b, pa, pb, side := box, ground, pBox, pGround, narrow.SideA
				if !boxIsA {
					a, b, pa, pb, side = ground, box, pGround, pBox, narrow.SideB
				}
				got, ms, _ := degenRun(t, a, b, pa, pb)
				var want []degenWant
				for _, v := range []int32{0, 1, 4, 5} { // y bit clear: bottom corners
					want = append(want, degenWant{from: side, vertex: v, depth: sink, dirs: []mgl64.Vec3{degenY}})
				}
				degenExpect(t, got, want)
				normalA := degenY // box is A: moving A up separates
				if !boxIsA {
					normalA = degenY.Mul(-1) // box is B: moving A (ground) down separates
				}
				for _, c := range got {
					if n := c.NormalA(); n.Sub(normalA).Len() > degenTol {
						t.Errorf("vertex %d: NormalA %v, want %v", c.Vertex, n, normalA)
					}
					wantP := pBox.Rot.Rotate(box.Vertex(int(c.Vertex))).Add(pBox.Pos)
					if c.P.Sub(wantP).Len() > degenTol || math.Abs(c.P[1]+sink) > degenTol {
						t.Errorf("vertex %d: P %v, want %v", c.Vertex, c.P, wantP)
					}
				}
				if len(ms) != 1 || len(ms[0].Points) != 4 || ms[0].Normal.Sub(normalA).Len() > degenTol {
					t.Errorf("want one 4-point manifold with normal %v, got %+v", normalA, ms)
				}
			})
		}
	}
}

// degenCase is one row of the tables below.
type degenCase struct {
	name   string
	a, b   *narrow.Shape
	pa, pb narrow.Pose
	want   []degenWant // contacts of (a, b); the swapped pair is checked too
	check  func(t *testing.T, st narrow.Stats)
}

func (tc degenCase) run(t *testing.T) {
	t.Run(tc.name, func(t *testing.T) {
		got, _, st := degenRun(t, tc.a, tc.b, tc.pa, tc.pb)
		degenExpect(t, got, tc.want)
		if tc.check != nil {
			tc.check(t, st)
		}
		got, _, st = degenRun(t, tc.b, tc.a, tc.pb, tc.pa)
		degenExpect(t, got, degenSwap(tc.want))
		if tc.check != nil {
			tc.check(t, st)
		}
	})
}

// TestDegenerateParallelRays: axis-aligned faces and edges, with rays that
// are, or are not, parallel to the other shape's faces and edges.
func TestDegenerateParallelRays(t *testing.T) {
	cube := box2dTestBox(t, mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	small := box2dTestBox(t, mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	sq := degenSquare(t, -1, 1)
	half := degenSquare(t, -0.5, 0.5)
	diamond := degenDiamond(t, 0.5)
	rot45 := narrow.Pose{Pos: mgl64.Vec3{1.3, 0, 0.1}, Rot: mgl64.QuatRotate(math.Pi/4, degenZ)}
	onTop := rot45
	onTop.Pos[1] = 1
	// The small cube's corners 2 and 6, (-0.5, 0.5, ∓0.5) locally, are its
	// leftmost after the 45° turn: x = 1.3 - √2/2, rays (√2, 0, ±1)/√3,
	// parallel to the big cube's ±y faces.
	leftX := 1.3 - 0.5*math.Sqrt2
	cases := []degenCase{
		{
			// Vertex rays (1, ±1, ±1)/√3 meet the x = 1 face well inside.
			name: "3D aligned cubes", a: cube, b: small, pa: narrow.Identity, pb: pose3(1.2, 0.3, 0.1),
			want: []degenWant{
				{from: narrow.SideB, vertex: 0, depth: 0.3, dirs: []mgl64.Vec3{degenX}},
				{from: narrow.SideB, vertex: 2, depth: 0.3, dirs: []mgl64.Vec3{degenX}},
				{from: narrow.SideB, vertex: 4, depth: 0.3, dirs: []mgl64.Vec3{degenX}},
				{from: narrow.SideB, vertex: 6, depth: 0.3, dirs: []mgl64.Vec3{degenX}},
			},
		},
		{
			name: "3D cube turned 45° about z, rays parallel to ±y faces", a: cube, b: small, pa: narrow.Identity, pb: rot45,
			want: []degenWant{
				{from: narrow.SideB, vertex: 2, depth: 1 - leftX, dirs: []mgl64.Vec3{degenX}},
				{from: narrow.SideB, vertex: 6, depth: 1 - leftX, dirs: []mgl64.Vec3{degenX}},
			},
		},
		{
			// The same rays now run inside the plane of the big cube's top
			// face and meet the x = 1 face on its top edge.
			name: "3D rays in the plane of a face", a: cube, b: small, pa: narrow.Identity, pb: onTop,
			want: []degenWant{
				{from: narrow.SideB, vertex: 2, depth: 1 - leftX, dirs: []mgl64.Vec3{degenX}, optional: true},
				{from: narrow.SideB, vertex: 6, depth: 1 - leftX, dirs: []mgl64.Vec3{degenX}, optional: true},
			},
		},
		{
			name: "2D aligned squares", a: sq, b: half, pa: narrow.Identity, pb: narrow.Pose2D(1.2, 0.3, 0),
			want: []degenWant{
				{from: narrow.SideB, vertex: 0, depth: 0.3, dirs: []mgl64.Vec3{degenX}},
				{from: narrow.SideB, vertex: 3, depth: 0.3, dirs: []mgl64.Vec3{degenX}},
			},
		},
		{
			// The diamond's left ray (1, 0) is parallel to the square's top
			// and bottom edges.
			name: "2D ray parallel to edges", a: sq, b: diamond, pa: narrow.Identity, pb: narrow.Pose2D(1.3, 0, 0),
			want: []degenWant{{from: narrow.SideB, vertex: 2, depth: 0.2, dirs: []mgl64.Vec3{degenX}}},
		},
		{
			// The diamond's left vertex lies on the square's top edge and its
			// ray runs along that edge through the square's corner (1, 1),
			// which is inside the diamond: its ray (-1, -1)/√2 meets the
			// diamond's lower-left edge x + y = 1.8 at depth 0.2/√2.
			name: "2D ray along an edge through a corner", a: sq, b: diamond, pa: narrow.Identity, pb: narrow.Pose2D(1.3, 1, 0),
			want: []degenWant{
				{from: narrow.SideB, vertex: 2, depth: 0.2, dirs: []mgl64.Vec3{degenX}, optional: true},
				{from: narrow.SideA, vertex: 2, depth: 0.2 / math.Sqrt2, dirs: []mgl64.Vec3{{-math.Sqrt2 / 2, -math.Sqrt2 / 2, 0}}},
			},
		},
	}
	for _, tc := range cases {
		tc.run(t)
	}
}

// TestDegenerateVertexOnSurface: a vertex exactly on a face, an edge or a
// corner of the other shape touches it: a zero-depth contact.
func TestDegenerateVertexOnSurface(t *testing.T) {
	cube := box2dTestBox(t, mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	down := degenCornerDown(t)
	sq := degenSquare(t, -1, 1)
	diamond := degenDiamond(t, 0.5)
	diag := mgl64.Vec3{-math.Sqrt2 / 2, -math.Sqrt2 / 2, 0}
	cases := []degenCase{
		{
			// Bottom corner (0.3, 1) on the square's top edge, ray (0, 1).
			name: "2D corner on an edge", a: sq, b: diamond, pa: narrow.Identity, pb: narrow.Pose2D(0.3, 1.5, 0),
			want: []degenWant{{from: narrow.SideB, vertex: 3, depth: 0, dirs: []mgl64.Vec3{degenY}}},
		},
		{
			// Bottom corner on the square's corner (1, 1): the diamond's ray
			// (0, 1) is parallel to the right edge and meets the top edge at
			// its end; the square's corner ray (-1, -1)/√2 is parallel to the
			// diamond's lower-right edge and meets the lower-left one.
			name: "2D corner on a corner", a: sq, b: diamond, pa: narrow.Identity, pb: narrow.Pose2D(1, 1.5, 0),
			want: []degenWant{
				{from: narrow.SideB, vertex: 3, depth: 0, dirs: []mgl64.Vec3{degenY}},
				{from: narrow.SideA, vertex: 2, depth: 0, dirs: []mgl64.Vec3{diag}},
			},
		},
		{
			// The centre of the top face is also on the diagonal shared by
			// its two triangles.
			name: "3D corner on the middle of a face", a: cube, b: down, pa: narrow.Identity, pb: pose3(0, 1, 0),
			want: []degenWant{{from: narrow.SideB, vertex: 0, depth: 0, dirs: []mgl64.Vec3{degenY}}},
		},
		{
			name: "3D corner on the middle of an edge", a: cube, b: down, pa: narrow.Identity, pb: pose3(0, 1, 1),
			want: []degenWant{{from: narrow.SideB, vertex: 0, depth: 0, dirs: []mgl64.Vec3{degenY, degenZ}}},
		},
		{
			// Corner on corner at (1, 1, 1): both corners touch. The
			// turned cube's ray goes up and meets one of the big cube's
			// faces at that corner; the big cube's ray (-1, -1, -1)/√3 meets
			// one of the three faces of the turned cube's bottom corner.
			name: "3D corner on a corner", a: cube, b: down, pa: narrow.Identity, pb: pose3(1, 1, 1),
			want: []degenWant{
				{from: narrow.SideB, vertex: 0, depth: 0, dirs: []mgl64.Vec3{degenX, degenY, degenZ}},
				{from: narrow.SideA, vertex: 7, depth: 0, dirs: []mgl64.Vec3{down.FaceNormal(0), down.FaceNormal(4), down.FaceNormal(8)}},
			},
		},
	}
	for _, tc := range cases {
		tc.run(t)
	}
}

// TestDegenerateOccludedDeepVertices: a thin plate (0.1 thick) passes
// through a big cube. The plate's two corners deep inside the cube cast
// rays that leave the plate (after 0.1·√3) long before they reach the cube's
// surface: Hermann's rule drops them. The cube's corner (1, 1, 1) lies on the
// plate's mid-plane x = y; its ray (-1, -1, -1)/√3 runs inside the plate and
// meets the plate's end face z = 0.2 at (0.2, 0.2, 0.2): depth 0.8 along
// (0, 0, -1).
func TestDegenerateOccludedDeepVertices(t *testing.T) {
	cube := box2dTestBox(t, mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	// Plate coordinates (along, across, z) in [0, 3] × [-0.05, 0.05] ×
	// [0.2, 3], along = (1, 1, 0)/√2 and across = (-1, 1, 0)/√2 (a rotation).
	cs := degenCorners(mgl64.Vec3{0, -0.05, 0.2}, mgl64.Vec3{3, 0.05, 3})
	for i, c := range cs {
		cs[i] = mgl64.Vec3{(c[0] - c[1]) / math.Sqrt2, (c[0] + c[1]) / math.Sqrt2, c[2]}
	}
	plate := degenMesh(t, cs)
	for _, v := range []int{0, 2} { // along = 0, z = 0.2: deep inside the cube
		p := plate.Vertex(v)
		if d := 1 - max(math.Abs(p[0]), math.Abs(p[1]), math.Abs(p[2])); !(d > 0.5) {
			t.Fatalf("plate vertex %d at %v is not deep in the cube", v, p)
		}
	}
	tc := degenCase{
		name: "plate through cube", a: cube, b: plate, pa: narrow.Identity, pb: narrow.Identity,
		want: []degenWant{{from: narrow.SideA, vertex: 7, depth: 0.8, dirs: []mgl64.Vec3{{0, 0, -1}}}},
		check: func(t *testing.T, st narrow.Stats) {
			// Plate vertices 0 and 2 would hit the cube from inside, but
			// the standard ray is clipped where it leaves its own shape
			// (narrow.Direction.Standard), so their search ends inside
			// the plate with no hit. Only cube vertex 7 reaches a face
			// from inside and takes the own-shape test.
			if st.OcclusionRays != 1 || st.Contacts != 1 {
				t.Errorf("stats: %d occlusion tests, %d contacts; want 1 and 1", st.OcclusionRays, st.Contacts)
			}
		},
	}
	tc.run(t)
}

// TestDegenerateContained2D: shapes deep inside a big square.
//
// A shape entirely inside the other yields no contact in Hermann's
// algorithm: every inward ray of the inner shape crosses the inner shape's
// own boundary (the opposite side) before it can reach the outer boundary,
// so the rule "no primitive of Src is hit before it" (narrow.Direction.
// Standard, the reference agrees) discards it, and no outer vertex is inside
// the inner shape. The backend's fallback for a pair without a contact
// whose body's centre lies in the other (reprojection.AppendBuried) then
// pushes each inner vertex out the shortest way: depth its distance to the
// nearest side, along that side's outward normal. Where the inner shape
// crosses the outer boundary, its inside vertices are contacts whose depth
// is the distance to the outer face along the re-projected normal.
func TestDegenerateContained2D(t *testing.T) {
	big := degenSquare(t, -2, 2)
	sliver := exact2dPolygon(t, []mgl64.Vec2{{-0.5, 0.3}, {1, 0.35}, {-0.5, 0.4}})
	inner := degenSquare(t, -0.5, 0.5)
	spike := exact2dPolygon(t, []mgl64.Vec2{{0.5, 0}, {3, -0.05}, {3, 0.05}})
	// buried lists the contacts of every vertex of s at pose p, inside
	// the square [-2, 2]²: its distance to the nearest side, outwards.
	buried := func(s *narrow.Shape, p narrow.Pose) []degenWant {
		var out []degenWant
		for v := range s.NumVertices() {
			x := p.Rot.Rotate(s.Vertex(v)).Add(p.Pos)
			w := degenWant{from: narrow.SideB, vertex: int32(v), depth: math.Inf(1)}
			for k := range 2 {
				for _, sgn := range []float64{-1, 1} {
					var n mgl64.Vec3
					n[k] = sgn
					if d := 2 - sgn*x[k]; d < w.depth {
						w.depth, w.dirs = d, []mgl64.Vec3{n}
					}
				}
			}
			out = append(out, w)
		}
		return out
	}
	turned := narrow.Pose2D(0.3, 0.2, 0.3)
	noRays := func(t *testing.T, st narrow.Stats) {
		if st.OcclusionRays != 0 || st.Contacts != 3 && st.Contacts != 4 {
			t.Errorf("stats: %d occlusion tests, %d contacts; want none and the inner shape's vertices", st.OcclusionRays, st.Contacts)
		}
	}
	cases := []degenCase{
		// The inner shape's rays are clipped where they leave it, before
		// the outer boundary: no hit, so no own-shape test either, and
		// the fallback's contacts.
		{name: "sliver triangle inside", a: big, b: sliver, pa: narrow.Identity, pb: narrow.Identity, want: buried(sliver, narrow.Identity), check: noRays},
		{name: "square inside square", a: big, b: inner, pa: narrow.Identity, pb: turned, want: buried(inner, turned), check: noRays},
		{
			// Vertex (0.5, 0), 1.5 from the right edge; its ray (1, 0)
			// leaves the square at x = 2 before the spike's far side x = 3.
			name: "sliver through the boundary", a: big, b: spike, pa: narrow.Identity, pb: narrow.Identity,
			want: []degenWant{{from: narrow.SideB, vertex: 0, depth: 1.5, dirs: []mgl64.Vec3{degenX}}},
		},
		{
			name: "square through the boundary", a: big, b: inner, pa: narrow.Identity, pb: narrow.Pose2D(1.8, 0.3, 0),
			want: []degenWant{
				{from: narrow.SideB, vertex: 0, depth: 0.7, dirs: []mgl64.Vec3{degenX}},
				{from: narrow.SideB, vertex: 3, depth: 0.7, dirs: []mgl64.Vec3{degenX}},
			},
		},
	}
	for _, tc := range cases {
		tc.run(t)
	}
}

// TestEqualBoxesStacked: a unit box resting 0.001 deep on an equal box,
// flush or shifted along x. The resting corners lie exactly on the lower
// box's side faces or vertical edges, where their rays enter it at t = 0;
// that entry must not hide the exit through the top face 0.001 further, so
// every corner over the other box is a contact of depth 0.001 along z.
func TestEqualBoxesStacked(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	const overlap = 0.001
	for _, tc := range []struct {
		shift float64
		want  int
	}{
		{0, 8},    // all four bottom corners of B and top corners of A
		{1e-4, 4}, // two corners of each box are over the other
		{0.2, 4},
	} {
		pa := narrow.Pose{Rot: mgl64.QuatIdent()}
		pb := narrow.Pose{Pos: mgl64.Vec3{tc.shift, 0, 1 - overlap}, Rot: mgl64.QuatIdent()}
		for _, trav := range []narrow.Traversal{narrow.TraversalBVH, narrow.TraversalBasic} {
			cs := detectOne(t, narrow.Params{Method: narrow.MethodStandard, Traversal: trav}, box, box, pa, pb)
			if len(cs) != tc.want {
				t.Errorf("shift %g, %v: %d contacts, want %d", tc.shift, trav, len(cs), tc.want)
			}
			for _, c := range cs {
				want := mgl64.Vec3{0, 0, -1} // A pushed down
				if c.From == narrow.SideB {
					want = mgl64.Vec3{0, 0, 1}
				}
				if math.Abs(c.Depth-overlap) > 1e-12 || c.Dir.Sub(want).Len() > 1e-12 {
					t.Errorf("shift %g, %v: %v vertex %d: depth %g dir %v, want %g along %v", tc.shift, trav, c.From, c.Vertex, c.Depth, c.Dir, overlap, want)
				}
			}
			compareWithReference(t, fmt.Sprintf("shift %g %v", tc.shift, trav), cs, reference.Contacts(box, box, pa, pb), 1)
		}
	}
}
