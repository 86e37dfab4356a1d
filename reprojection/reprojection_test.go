package reprojection_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/reprojection"
)

// box returns the 12-triangle mesh of the box [lo, hi].
func box(t testing.TB, lo, hi mgl64.Vec3) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func randomRotation(r *rand.Rand) mgl64.Quat {
	q := mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}}
	return q.Normalize()
}

// rotated returns pose p moved by the world rotation q about the origin.
func rotated(q mgl64.Quat, p narrow.Pose) narrow.Pose {
	return narrow.Pose{Pos: q.Rotate(p.Pos), Rot: q.Mul(p.Rot).Normalize()}
}

func near(a, b mgl64.Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }

// sunkCube is the hand-built case: a unit cube A centred on its origin,
// turned by yaw about y and sunk by 0.1 into a ground box B whose top face
// is y = 0, the whole scene then rotated by world.
type sunkCube struct {
	a, b         *narrow.Shape
	poseA, poseB narrow.Pose
	world        mgl64.Quat
}

func newSunkCube(t testing.TB, yaw float64, world mgl64.Quat) sunkCube {
	a := box(t, mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	// Asymmetric extents keep the hits off the top face's diagonal.
	b := box(t, mgl64.Vec3{-3, -2, -4}, mgl64.Vec3{7, 0, 5})
	pa := narrow.Pose{Pos: mgl64.Vec3{0, 0.5 - 0.1, 0}, Rot: mgl64.QuatRotate(yaw, mgl64.Vec3{0, 1, 0})}
	return sunkCube{a: a, b: b, poseA: rotated(world, pa), poseB: rotated(world, narrow.Identity), world: world}
}

func TestMakeSunkCube(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type scene struct {
		name  string
		yaw   float64
		world mgl64.Quat
	}
	scenes := []scene{
		{"axis aligned", 0, mgl64.QuatIdent()},
		{"cube yawed", 0.3, mgl64.QuatIdent()},
	}
	for i := range 4 {
		scenes = append(scenes, scene{"random world rotation " + string(rune('a'+i)), 0.3 * float64(i), randomRotation(rng)})
	}
	const sunk = 0.1
	for _, sc := range scenes {
		t.Run(sc.name, func(t *testing.T) {
			c := newSunkCube(t, sc.yaw, sc.world)
			var dir narrow.Direction
			dir.Setup(narrow.SideA, c.a, c.b, c.poseA, c.poseB, 0)
			ta, tb := c.poseA.Transform(), c.poseB.Transform()
			toB := tb.Inverse()
			up := sc.world.Rotate(mgl64.Vec3{0, 1, 0})
			corners := 0
			for v := int32(0); v < int32(c.a.NumVertices()); v++ {
				local := c.a.Vertex(int(v))
				if local[1] > 0 {
					continue // top corners are far from the ground
				}
				corners++
				inward := local.Normalize().Mul(-1) // a cube corner's inward normal, (±1,±1,±1)/√3
				if !near(c.a.VertexNormal(int(v)), local.Normalize(), 1e-12) {
					t.Fatalf("vertex %d normal %v, want %v", v, c.a.VertexNormal(int(v)), local.Normalize())
				}
				out := standard(&dir, v, 0, narrow.TraversalBVH)
				if !out.Contact || c.b.FaceNormal(int(out.Fwd.Prim)) != (mgl64.Vec3{0, 1, 0}) {
					t.Fatalf("vertex %d: %+v, want a contact on the top face", v, out)
				}
				p := mgl64.Vec3(ta.Apply(local))
				rd := mgl64.Vec3(ta.ApplyDir(inward))
				tests := []struct {
					mode    narrow.Response
					depth   float64
					dir     mgl64.Vec3
					surface bool // P + Depth·Dir lies on B's top face
				}{
					{narrow.ResponseMTD, sunk, up, true},
					{narrow.ResponseRay, sunk * math.Sqrt(3), rd, true},
					{narrow.ResponseWeighted, sunk, rd, false},
				}
				for _, tc := range tests {
					got := mustMake(t, tc.mode, &dir, v, out.Fwd)
					if got.From != narrow.SideA || got.Vertex != v || got.Prim != out.Fwd.Prim {
						t.Errorf("%v vertex %d: From %v Vertex %d Prim %d, want a %d %d", tc.mode, v, got.From, got.Vertex, got.Prim, v, out.Fwd.Prim)
					}
					if !near(got.P, p, 1e-12) {
						t.Errorf("%v vertex %d: P = %v, want %v", tc.mode, v, got.P, p)
					}
					if math.Abs(got.Depth-tc.depth) > 1e-12 {
						t.Errorf("%v vertex %d: Depth = %.17g, want %.17g", tc.mode, v, got.Depth, tc.depth)
					}
					if !near(got.Dir, tc.dir, 1e-12) || math.Abs(got.Dir.Len()-1) > 1e-12 {
						t.Errorf("%v vertex %d: Dir = %v, want %v", tc.mode, v, got.Dir, tc.dir)
					}
					moved := toB.Apply(got.P.Add(got.Dir.Mul(got.Depth)))
					if tc.surface && math.Abs(moved[1]) > 1e-12 {
						t.Errorf("%v vertex %d: P + Depth·Dir is %g from B's surface", tc.mode, v, moved[1])
					}
					if !tc.surface && !(moved[1] > -sunk && moved[1] < 0) {
						t.Errorf("%v vertex %d: P + Depth·Dir at height %g, want between -%g and 0", tc.mode, v, moved[1], sunk)
					}
				}
			}
			if corners != 4 {
				t.Fatalf("%d bottom corners, want 4", corners)
			}
		})
	}
}

// TestMakeRotationCovariant checks that rotating the whole scene rotates P
// and Dir and keeps Depth.
func TestMakeRotationCovariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	base := newSunkCube(t, 0.2, mgl64.QuatIdent())
	var bdir narrow.Direction
	bdir.Setup(narrow.SideA, base.a, base.b, base.poseA, base.poseB, 0)
	for i := range 8 {
		q := randomRotation(rng)
		c := newSunkCube(t, 0.2, q)
		var dir narrow.Direction
		dir.Setup(narrow.SideA, c.a, c.b, c.poseA, c.poseB, 0)
		for v := int32(0); v < int32(c.a.NumVertices()); v++ {
			if c.a.Vertex(int(v))[1] > 0 {
				continue
			}
			bo := standard(&bdir, v, 0, narrow.TraversalBVH)
			ro := standard(&dir, v, 0, narrow.TraversalBVH)
			if !bo.Contact || !ro.Contact {
				t.Fatalf("rotation %d vertex %d: contact %v / %v", i, v, bo.Contact, ro.Contact)
			}
			for _, mode := range []narrow.Response{narrow.ResponseMTD, narrow.ResponseRay, narrow.ResponseWeighted} {
				want := mustMake(t, mode, &bdir, v, bo.Fwd)
				got := mustMake(t, mode, &dir, v, ro.Fwd)
				if !near(got.P, q.Rotate(want.P), 1e-12) || !near(got.Dir, q.Rotate(want.Dir), 1e-12) || math.Abs(got.Depth-want.Depth) > 1e-12 {
					t.Errorf("rotation %d %v vertex %d: got %+v, want %+v rotated", i, mode, v, got, want)
				}
			}
		}
	}
}

// TestMakeSideAndClamp checks From for the B→A direction and that a hit
// a hair behind the vertex (a touching vertex) gives depth 0.
func TestMakeSideAndClamp(t *testing.T) {
	c := newSunkCube(t, 0, mgl64.QuatIdent())
	var dir narrow.Direction
	// The cube plays body B of the pair: its vertices' rays are direction 1.
	dir.Setup(narrow.SideB, c.a, c.b, c.poseA, c.poseB, 0)
	var v int32 = -1
	for i := range c.a.NumVertices() {
		if c.a.Vertex(i)[1] < 0 {
			v = int32(i)
			break
		}
	}
	out := standard(&dir, v, 0, narrow.TraversalBVH)
	if !out.Contact {
		t.Fatalf("%+v, want contact", out)
	}
	got := mustMake(t, narrow.ResponseMTD, &dir, v, out.Fwd)
	if got.From != narrow.SideB {
		t.Errorf("From = %v, want b", got.From)
	}
	// Dir points out of the ground, towards the cube (From body); NormalA
	// points from B (the cube) to A (the ground): down.
	if n := got.NormalA(); !near(n, mgl64.Vec3{0, -1, 0}, 1e-12) {
		t.Errorf("NormalA = %v, want (0,-1,0)", n)
	}
	touch := narrow.Hit{T: -1e-12, Prim: out.Fwd.Prim, Inside: true}
	for _, mode := range []narrow.Response{narrow.ResponseMTD, narrow.ResponseRay, narrow.ResponseWeighted} {
		if d := mustMake(t, mode, &dir, v, touch).Depth; d != 0 {
			t.Errorf("%v: Depth for a hit at t = -1e-12 is %g, want 0", mode, d)
		}
	}
}

// standard runs Direction.Standard and returns its outcome.
func standard(d *narrow.Direction, v int32, back float64, trav narrow.Traversal) narrow.Outcome {
	var out narrow.Outcome
	d.Standard(&out, v, back, trav)
	return out
}

// TestFillSpeculative hovers the cube 0.03 above the ground: a lower
// corner's ray finds no contact, its opposite ray enters the ground, and
// the speculative contact's depth is minus the gap: its height under MTD
// (Dir the ground's normal), its distance along the corner's diagonal for
// raw rays. Gap gives the same gaps without the contact.
func TestFillSpeculative(t *testing.T) {
	const h = 0.03
	a := box(t, mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	b := box(t, mgl64.Vec3{-3, -2, -4}, mgl64.Vec3{7, 0, 5})
	pa := narrow.Pose{Pos: mgl64.Vec3{0.1, 0.5 + h, 0.2}, Rot: mgl64.QuatIdent()}
	var dir narrow.Direction
	dir.Setup(narrow.SideA, a, b, pa, narrow.Identity, 0)
	var v int32 = -1
	for i := range a.NumVertices() {
		if a.Vertex(i)[1] < 0 {
			v = int32(i)
			break
		}
	}
	out := standard(&dir, v, 0.2, narrow.TraversalBVH)
	if out.Contact || out.Bwd.Prim < 0 || !out.Bwd.Inside {
		t.Fatalf("%+v, want no contact and an opposite ray entering the ground", out)
	}
	for _, tc := range []struct {
		mode  narrow.Response
		depth float64
		dir   mgl64.Vec3
	}{
		{narrow.ResponseMTD, -h, mgl64.Vec3{0, 1, 0}},
		{narrow.ResponseRay, -h * math.Sqrt(3), a.VertexNormal(int(v)).Mul(-1)},
		{narrow.ResponseWeighted, -h, a.VertexNormal(int(v)).Mul(-1)},
	} {
		var c narrow.Contact
		reprojection.FillSpeculative(&c, tc.mode, &dir, v, &out.O, &out.D, out.Bwd)
		if !c.Speculative() || math.Abs(c.Depth-tc.depth) > 1e-12 || !near(c.Dir, tc.dir, 1e-12) || c.Prim != out.Bwd.Prim {
			t.Errorf("%v: depth %g dir %v prim %d, want %g, %v, %d", tc.mode, c.Depth, c.Dir, c.Prim, tc.depth, tc.dir, out.Bwd.Prim)
		}
		if g := reprojection.Gap(tc.mode, &dir, &out.D, out.Bwd); math.Abs(g+c.Depth) > 1e-15 {
			t.Errorf("%v: Gap %g, the contact's depth %g", tc.mode, g, c.Depth)
		}
	}
	// A gap of zero is still a gap.
	var c narrow.Contact
	reprojection.FillSpeculative(&c, narrow.ResponseMTD, &dir, v, &out.O, &out.D, narrow.Hit{T: 0, Prim: out.Bwd.Prim, Inside: true})
	if !c.Speculative() {
		t.Errorf("a zero gap gives depth %g, want < 0", c.Depth)
	}
}

// mustMake is reprojection.Make for hits that make a contact.
func mustMake(t *testing.T, mode narrow.Response, dir *narrow.Direction, v int32, h narrow.Hit) narrow.Contact {
	t.Helper()
	c, ok := reprojection.Make(mode, dir, v, h)
	if !ok {
		t.Fatalf("%v vertex %d, hit %+v: no contact", mode, v, h)
	}
	return c
}

// TestAppendBuried checks the fallback for buried bodies on boxes, where
// every distance is known: a small cube (side 0.2) in a unit-thick slab
// [-2, 2] × [-1, 0] × [-2, 2], at poses that put its centre inside the
// slab or not.
func TestAppendBuried(t *testing.T) {
	slab := box(t, mgl64.Vec3{-2, -1, -2}, mgl64.Vec3{2, 0, 2})
	cube := box(t, mgl64.Vec3{-0.1, -0.1, -0.1}, mgl64.Vec3{0.1, 0.1, 0.1})
	up := mgl64.Vec3{0, 1, 0}
	for _, tc := range []struct {
		name  string
		at    mgl64.Vec3 // the cube's centre
		n     int        // contacts
		depth float64    // the deepest
		dir   mgl64.Vec3 // every contact's
	}{
		// Its top 0.2 under the slab's top: every corner is pushed up,
		// the lower four by 0.4.
		{"under the top face", mgl64.Vec3{0.3, -0.3, 0.2}, 8, 0.4, up},
		// Nearer the bottom face: pushed down.
		{"near the bottom face", mgl64.Vec3{0.3, -0.75, 0.2}, 8, 0.35, up.Mul(-1)},
		// Centre inside, its top poking out: only the four lower corners.
		{"poking out", mgl64.Vec3{0.3, -0.05, 0.2}, 4, 0.15, up},
		// Centre above the slab: nothing, though the lower corners are in.
		{"centre outside", mgl64.Vec3{0.3, 0.05, 0.2}, 0, 0, up},
		// Far from the slab: nothing.
		{"apart", mgl64.Vec3{0.3, 3, 0.2}, 0, 0, up},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d narrow.Direction
			d.Setup(narrow.SideB, cube, slab, narrow.Pose{Pos: tc.at, Rot: mgl64.QuatIdent()}, narrow.Identity, 0.01)
			got := reprojection.AppendBuried(nil, &d)
			if len(got) != tc.n {
				t.Fatalf("%d contacts, want %d: %+v", len(got), tc.n, got)
			}
			deepest := 0.0
			for k, c := range got {
				if k > 0 && c.Vertex <= got[k-1].Vertex {
					t.Errorf("contacts out of vertex order: %d after %d", c.Vertex, got[k-1].Vertex)
				}
				if c.From != narrow.SideB || c.Dir.Sub(tc.dir).Len() > 1e-12 || c.Depth <= 0 {
					t.Errorf("contact %+v: want one of the cube's, along %v", c, tc.dir)
				}
				// Depth·Dir brings the corner onto the slab's surface.
				if y := c.P.Add(c.Dir.Mul(c.Depth))[1]; math.Abs(y) > 1e-12 && math.Abs(y+1) > 1e-12 {
					t.Errorf("contact %+v: moved by its depth, the corner is at y = %g", c, y)
				}
				deepest = max(deepest, c.Depth)
			}
			if math.Abs(deepest-tc.depth) > 1e-12 {
				t.Errorf("deepest contact %g, want %g", deepest, tc.depth)
			}
		})
	}
}
