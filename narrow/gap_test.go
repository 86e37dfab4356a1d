package narrow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// slabGapBrute is s(x) of Clearance computed directly: the largest excess
// of x (Dst's frame) beyond Dst's box (z opened to ±1 for a polygon) and
// its DOP slabs.
func slabGapBrute(dst *Shape, x mgl64.Vec3) float64 {
	lo, hi := dst.bounds.Min, dst.bounds.Max
	if dst.dim == Dim2 {
		lo[2], hi[2] = -1, 1
	}
	g := math.Inf(-1)
	for k := 0; k < 3; k++ {
		g = max(g, lo[k]-x[k], x[k]-hi[k])
	}
	for k, ax := range dopAxis {
		p := mgl64.Vec3(ax).Dot(x)
		g = max(g, dst.dop[k][0]-p, p-dst.dop[k][1])
	}
	return g
}

// minSlabGap returns min over Src's vertices of s, at d's poses.
func minSlabGap(d *Direction) float64 {
	m := math.Inf(1)
	for v := range d.Src.verts {
		m = min(m, slabGapBrute(d.Dst, d.SrcToDst.Apply(d.Src.verts[v])))
	}
	return m
}

// minGap returns the least gap over the vertices of d's source: the larger
// of the vertex's slab distance and the gap of Dst's outside grid for ext.
func minGap(d *Direction, ext float64) float64 {
	cg := newClearGrid(d.Dst.grid, ext)
	m := math.Inf(1)
	for v := range d.Src.verts {
		x := d.SrcToDst.Apply(d.Src.verts[v])
		m = min(m, max(slabGapBrute(d.Dst, x), cg.gap(x[0], x[1], x[2])))
	}
	return m
}

// clearanceTol is Clearance's rounding tolerance for d.
func clearanceTol(d *Direction) float64 {
	return 1e-9 * (d.Src.scale + d.Dst.scale + mgl64.Vec3(d.SrcToDst.T).Len())
}

func gapBox(t *testing.T, lo, hi mgl64.Vec3) *Shape {
	t.Helper()
	s, err := NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestClearanceTable checks Clearance's value on boxes whose slab
// distances are known: the bounding-ball bound when the whole ball is
// clear, the vertices' own values when it is not, and a non-positive
// answer when a vertex may pass InCull.
func TestClearanceTable(t *testing.T) {
	cube := gapBox(t, mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	small := gapBox(t, mgl64.Vec3{-0.1, -0.1, -0.1}, mgl64.Vec3{0.1, 0.1, 0.1})
	rod := gapBox(t, mgl64.Vec3{-0.05, -2, -0.05}, mgl64.Vec3{0.05, 2, 0.05})
	ball := 0.1 * math.Sqrt(3) * (1 + 1e-12) // small's bounding ball
	r2 := 1 / math.Sqrt2
	q := mgl64.QuatRotate(0.3, mgl64.Vec3{1, 2, 3}.Normalize())
	cases := []struct {
		name     string
		src      *Shape
		pose     Pose // Src's pose; Dst (cube) at the identity
		ext      float64
		want     float64 // before the tolerance; NaN: the brute-force minimum
		positive bool
	}{
		// s(centre) = 3 − 1 along x.
		{"along x", small, Pose{Pos: mgl64.Vec3{3, 0, 0}, Rot: mgl64.QuatIdent()}, 0.05, 2 - ball - 0.05, true},
		// s(centre) = √2, along the DOP axis (1, 1, 0)/√2: the box axes
		// give only 1.
		{"along a diagonal", small, Pose{Pos: mgl64.Vec3{2, 2, 0}, Rot: mgl64.QuatIdent()}, 0, math.Sqrt2 - ball, true},
		{"rotated source", small, Pose{Pos: mgl64.Vec3{0, -2.5, 0}, Rot: q}, 0.2, 1.5 - ball - 0.2, true},
		// The rod's ball reaches the cube: its vertices are examined. The
		// nearest is (1.45, ±2, ±0.05), beyond the diagonal slab by
		// 3.45·r2 − √2.
		{"vertices", rod, Pose{Pos: mgl64.Vec3{1.5, 0, 0}, Rot: mgl64.QuatIdent()}, 0.01, 3.45*r2 - math.Sqrt2 - 0.01, true},
		{"vertices, brute force", rod, Pose{Pos: mgl64.Vec3{1.2, 0.3, -0.4}, Rot: q}, 0.01, math.NaN(), true},
		// A vertex within ext of the cube's slabs.
		{"near", small, Pose{Pos: mgl64.Vec3{1.15, 0, 0}, Rot: mgl64.QuatIdent()}, 0.1, 0, false},
		{"inside", small, Pose{Pos: mgl64.Vec3{0.5, 0.2, 0}, Rot: q}, 0.1, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var d Direction
			d.SetPoses(SideA, tc.src, cube, &tc.pose, &Identity)
			got := d.Clearance(tc.ext, 1)
			tol := clearanceTol(&d)
			if !tc.positive {
				if got > 0 {
					t.Fatalf("Clearance = %.17g, want ≤ 0", got)
				}
				return
			}
			want := tc.want
			if math.IsNaN(want) {
				want = minSlabGap(&d) - tc.ext
			}
			if math.Abs(got-(want-tol)) > 1e-12 {
				t.Errorf("Clearance = %.17g, want %.17g", got, want-tol)
			}
			if m := minSlabGap(&d) - tc.ext - tol; got > m+1e-12 {
				t.Errorf("Clearance %.17g exceeds the vertices' least slab distance %.17g", got, m)
			}
		})
	}
}

// TestClearanceBound is the property the iterative clear path rests on,
// on the test meshes (the duck as in its file, its origin far off its
// centre) and polygons, at random poses: Clearance is a lower bound of
// every vertex's gap less ext when positive (the larger of its slab
// distance and the bound of Dst's outside grid, see clearGrid.gap); it
// is positive exactly when every vertex's gap exceeds ext (plus the
// tolerance); and after any motion that moves every vertex less than it, in
// Dst's frame, no vertex passes InCull. (A non-positive answer is any such
// value: the search stops at the first vertex within reach.)
func TestClearanceBound(t *testing.T) {
	shapes := testMeshes(t, "bunny", "torus", "teddy", "duck")
	poly, err := NewPolygon(offStar())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 3))
	randRot := func(planar bool) mgl64.Quat {
		if planar {
			return mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{0, 0, 1})
		}
		return mgl64.QuatRotate(math.Pi*rng.Float64(), mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize())
	}
	type pair struct{ a, b *Shape }
	var pairs []pair
	for _, a := range shapes {
		for _, b := range shapes {
			pairs = append(pairs, pair{a, b})
		}
	}
	pairs = append(pairs, pair{poly, poly})
	n := 60
	if testing.Short() {
		n = 15
	}
	positive, moves, grid := 0, 0, 0
	for _, pr := range pairs {
		planar := pr.a.dim == Dim2
		scale := pr.a.Size() + pr.b.Size()
		for i := 0; i < n; i++ {
			// B's centre 0.5 to 2 sizes from A's: near, touching or apart.
			off := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			if planar {
				off[2] = 0
			}
			off = off.Normalize().Mul(scale * (0.5 + 1.5*rng.Float64()))
			qa, qb := randRot(planar), randRot(planar)
			pa := Pose{Pos: qa.Rotate(pr.a.bounds.Center()).Mul(-1), Rot: qa}
			pb := Pose{Pos: off.Sub(qb.Rotate(pr.b.bounds.Center())), Rot: qb}
			ext := 0.1 * min(pr.a.Size(), pr.b.Size()) * rng.Float64()
			var dirs [2]Direction
			SetPair(&dirs, pr.a, pr.b, &pa, &pb)
			for k := range dirs {
				d := &dirs[k]
				c := d.Clearance(ext, math.MaxInt)
				// With a budget it is positive less often, never larger.
				if c0 := d.Clearance(ext, 0); c0 > 0 && (c <= 0 || c0 > c) {
					t.Fatalf("pair %d dir %d: Clearance %.17g without vertices, %.17g with", i, k, c0, c)
				}
				m := minGap(d, ext) - ext - clearanceTol(d)
				if c > 0 && c > m+1e-12*scale {
					t.Fatalf("pair %d dir %d: Clearance %.17g above the vertices' least gap %.17g", i, k, c, m)
				}
				if (c > 0) != (m > 0) {
					t.Fatalf("pair %d dir %d: Clearance %.17g but the vertices' least gap %.17g", i, k, c, m)
				}
				if m > minSlabGap(d)-ext-clearanceTol(d)+1e-12*scale {
					grid++ // the grid's bound is the larger
				}
				if c <= 0 {
					continue
				}
				positive++
				// Move A (the source of dirs[0]) or B by random motions
				// that keep every vertex of the source within c of where
				// it was, in the target's frame; then no vertex may pass
				// InCull.
				for j := 0; j < 4; j++ {
					qa2, qb2 := pa, pb
					for try := 0; ; try++ {
						qa2 = Pose{Pos: pa.Pos.Add(randVec(rng, planar).Mul(c)), Rot: mgl64.QuatRotate(c/scale*rng.NormFloat64(), randAxis(rng, planar)).Mul(pa.Rot).Normalize()}
						qb2 = Pose{Pos: pb.Pos.Add(randVec(rng, planar).Mul(c)), Rot: mgl64.QuatRotate(c/scale*rng.NormFloat64(), randAxis(rng, planar)).Mul(pb.Rot).Normalize()}
						var now [2]Direction
						SetPair(&now, pr.a, pr.b, &qa2, &qb2)
						if maxMotion(d, &now[k]) < c {
							now[k].SetCull(ext)
							for v := range now[k].Src.verts {
								if now[k].InCull(int32(v)) {
									t.Fatalf("pair %d dir %d: vertex %d passes InCull after moving less than the clearance %.17g", i, k, v, c)
								}
							}
							moves++
							break
						}
						if try > 20 {
							break
						}
					}
				}
			}
		}
	}
	t.Logf("%d positive clearances, %d motions within them checked, %d directions bounded by the grid", positive, moves, grid)
	if positive == 0 || moves == 0 {
		t.Fatal("no clear direction: the poses test nothing")
	}
	if grid == 0 {
		t.Fatal("no direction where the outside grid gives the larger bound: the test does not exercise it")
	}
}

func randAxis(rng *rand.Rand, planar bool) mgl64.Vec3 {
	if planar {
		return mgl64.Vec3{0, 0, 1}
	}
	return mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
}

// randVec returns a random vector of length below 1/2.
func randVec(rng *rand.Rand, planar bool) mgl64.Vec3 {
	v := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	if planar {
		v[2] = 0
	}
	return v.Normalize().Mul(0.5 * rng.Float64())
}

// maxMotion returns how far the farthest vertex of the source moved, in
// the target's frame, between two setups of the same direction.
func maxMotion(was, now *Direction) float64 {
	m := 0.0
	for _, v := range was.Src.verts {
		m = max(m, mgl64.Vec3(now.SrcToDst.Apply(v)).Sub(was.SrcToDst.Apply(v)).Len())
	}
	return m
}

// TestClearanceGridEdge checks the grid's gap near the grid's edge, where
// InCull stops judging points by the grid: for points just inside its
// −x face (a hundredth of a cell), with ext beyond the grid's margin
// (2.5 cells, about the predictive method's default), every point off the
// grid within the gap less ext must be culled by the box and DOP slabs.
// Without the gap's cap at ext plus the distance to the edge, hundreds of
// such points on the bunny, teddy and duck were not.
func TestClearanceGridEdge(t *testing.T) {
	names := []string{"bunny", "torus", "teddy", "duck"}
	positive := 0
	for i, s := range testMeshes(t, names...) {
		g := s.grid
		ext := 2.5 * g.h
		cg := newClearGrid(g, ext)
		d := Direction{Dst: s}
		for z := 0; z < g.n[2]; z++ {
			for y := 0; y < g.n[1]; y++ {
				p := [3]float64{g.lo[0] + 0.01*g.h, g.lo[1] + (float64(y)+0.5)*g.h, g.lo[2] + (float64(z)+0.5)*g.h}
				gap := cg.gap(p[0], p[1], p[2])
				if gap > 0 {
					positive++
				}
				q := p
				q[0] -= 0.02 * g.h // off the grid
				if 0.02*g.h < gap-ext && d.slabGap(q[0], q[1], q[2], math.Inf(1)) <= ext {
					t.Fatalf("%s: point %v within the gap %g less ext %g of %v is off the grid and within the slabs", names[i], q, gap, ext, p)
				}
			}
		}
	}
	if positive == 0 {
		t.Fatal("no positive grid gap at the grid's edge: the test checks nothing")
	}
}
