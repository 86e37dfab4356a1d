package narrow

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// cullShapes loads the test meshes and a concave polygon.
func cullShapes(t testing.TB) map[string]*Shape {
	t.Helper()
	shapes := map[string]*Shape{}
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		s, err := LoadOBJ(filepath.Join("..", "testdata", name+".obj"))
		if err != nil {
			t.Fatal(err)
		}
		shapes[name] = s
	}
	var star []mgl64.Vec2
	for i := 0; i < 80; i++ {
		a := 2 * math.Pi * float64(i) / 80
		r := 1 + 0.5*float64(i%2)
		star = append(star, mgl64.Vec2{r * math.Cos(a), r * math.Sin(a)})
	}
	p, err := NewPolygon(star)
	if err != nil {
		t.Fatal(err)
	}
	shapes["star"] = p
	return shapes
}

// TestVertexOrder: VertexOrder is a permutation of the vertices, increasing
// within each leaf of vertexLeaf; each block's box and ball, and each
// group's and leaf's box, hold their vertices; and the blocks are never
// looser
// (larger mean diagonal) than blocks of consecutive file indices, and
// clearly tighter on the scanned meshes, whose file order is not spatial:
// that is their purpose.
func TestVertexOrder(t *testing.T) {
	tighter := map[string]float64{"bunny": 0.8, "teddy": 0.8, "duck": 0.8} // at most this share of the file order's
	for name, s := range cullShapes(t) {
		n := s.NumVertices()
		order := s.VertexOrder()
		if len(order) != n {
			t.Fatalf("%s: %d indices for %d vertices", name, len(order), n)
		}
		seen := make([]bool, n)
		nb := (n + VertexBlock - 1) / VertexBlock
		if len(s.vblocks) != nb || len(s.vballs) != nb {
			t.Fatalf("%s: %d boxes, %d balls, want %d blocks", name, len(s.vblocks), len(s.vballs), nb)
		}
		spatial, file := 0.0, 0.0
		for b := 0; b < nb; b++ {
			blk := s.BlockVertices(b)
			var fb AABB
			for k, v := range blk {
				if seen[v] {
					t.Fatalf("%s: vertex %d twice", name, v)
				}
				seen[v] = true
				x := s.verts[v]
				if !s.vblocks[b].Contains(x) {
					t.Errorf("%s: vertex %d outside its block %d's box", name, v, b)
				}
				ball := s.vballs[b]
				if len3(sub3(x, [3]float64{ball[0], ball[1], ball[2]})) > ball[3] {
					t.Errorf("%s: vertex %d outside its block %d's ball", name, v, b)
				}
				f := s.verts[b*VertexBlock+k]
				if k == 0 {
					fb = AABB{Min: f, Max: f}
				}
				for c := 0; c < 3; c++ {
					fb.Min[c], fb.Max[c] = min(fb.Min[c], f[c]), max(fb.Max[c], f[c])
				}
			}
			spatial += len3(sub3(s.vblocks[b].Max, s.vblocks[b].Min))
			file += len3(sub3(fb.Max, fb.Min))
		}
		for _, lvl := range []struct {
			what  string
			n     int
			boxes []AABB
		}{{"group", groupVertices, s.vgroups}, {"leaf", vertexLeaf, s.vleaves}} {
			if want := (n + lvl.n - 1) / lvl.n; len(lvl.boxes) != want {
				t.Fatalf("%s: %d %s boxes, want %d", name, len(lvl.boxes), lvl.what, want)
			}
			for i, box := range lvl.boxes {
				run := order[i*lvl.n : min((i+1)*lvl.n, n)]
				if lvl.n == vertexLeaf && !slices.IsSorted(run) {
					t.Errorf("%s: leaf %d not in increasing order: %v", name, i, run)
				}
				for _, v := range run {
					if !box.Contains(s.verts[v]) {
						t.Errorf("%s: vertex %d outside its %s %d's box", name, v, lvl.what, i)
					}
				}
			}
		}
		limit, ok := tighter[name]
		if !ok {
			limit = 1
		}
		if spatial > limit*file {
			t.Errorf("%s: blocks' mean diagonal %.4g, file-order blocks' %.4g (want at most %g×)", name, spatial/float64(nb), file/float64(nb), limit)
		}
		t.Logf("%s: %d blocks, mean diagonal %.3g (file order %.3g)", name, nb, spatial/float64(nb), file/float64(nb))
	}
}

// randomPoses returns random orientations of a and b with their box
// centres at the origin and dist apart, in a random direction.
func randomPoses(rng *rand.Rand, a, b *Shape, dist float64) (pa, pb Pose) {
	off := randVec(rng, false).Normalize().Mul(dist)
	qa := mgl64.QuatRotate(math.Pi*rng.Float64(), randAxis(rng, false))
	qb := mgl64.QuatRotate(math.Pi*rng.Float64(), randAxis(rng, false))
	pa = Pose{Pos: qa.Rotate(a.bounds.Center()).Mul(-1), Rot: qa}
	pb = Pose{Pos: qb.Rotate(b.bounds.Center()).Mul(-1).Add(off), Rot: qb}
	return pa, pb
}

// TestAppendInCull checks the culling hierarchy against the per-vertex
// test at random poses, near and overlapping, with and without a culling
// extension, and at poses of one shape against itself, coincident or side
// by side and touching (vertices on the faces of the culling volumes,
// where the boxes' slack keeps them):
// over whole ranges and random sub-ranges of VertexOrder, AppendInCull
// returns exactly the vertices that pass InCull, in that order; and its
// boxes cull some vertices without testing them.
func TestAppendInCull(t *testing.T) {
	shapes := cullShapes(t)
	rng := rand.New(rand.NewPCG(7, 21))
	pairs := [][2]string{{"bunny", "duck"}, {"teddy", "torus"}, {"duck", "bunny"}, {"torus", "teddy"}, {"star", "star"}, {"duck", "duck"}}
	passed, culled, onFace := 0, 0, 0
	var got, want []int32
	for _, names := range pairs {
		a, b := shapes[names[0]], shapes[names[1]]
		scale := a.Size() + b.Size()
		planar := a.Dim() == Dim2
		order := a.VertexOrder()
		for i := 0; i < 150; i++ {
			var pa, pb Pose
			self := a == b && (i%10 == 9 || i%10 == 8 && !planar)
			switch {
			case i%10 == 9 && a == b && planar:
				pa = Pose2D(scale*rng.Float64(), 0, 2*math.Pi*rng.Float64())
				pb = pa
			case i%10 == 9 && a == b:
				pa, _ = randomPoses(rng, a, b, 0)
				pb = pa
			case i%10 == 8 && a == b && !planar:
				// Side by side, touching: A's extreme vertices on the
				// faces of B's box.
				k := rng.IntN(3)
				pa = Identity
				pb = Identity
				pb.Pos[k] = a.bounds.Max[k] - a.bounds.Min[k]
			case planar:
				pa = Pose2D(0, 0, 2*math.Pi*rng.Float64())
				r := scale * (0.2 + 0.9*rng.Float64())
				ang := 2 * math.Pi * rng.Float64()
				pb = Pose2D(r*math.Cos(ang), r*math.Sin(ang), 2*math.Pi*rng.Float64())
			default:
				pa, pb = randomPoses(rng, a, b, scale*(0.2+0.9*rng.Float64()))
			}
			var d Direction
			d.Setup(SideA, a, b, pa, pb, []float64{0, 0.05 * scale}[i%2])
			lo, hi := 0, len(order)
			if i%3 == 1 && !self {
				lo, hi = subRange(rng, len(order))
			}
			want = want[:0]
			for _, v := range order[lo:hi] {
				if d.InCull(v) {
					want = append(want, v)
				}
			}
			got = d.AppendInCull(got[:0], lo, hi)
			if !slices.Equal(got, want) {
				t.Fatalf("%v pose %d, range [%d, %d): AppendInCull gives %d vertices %v, InCull %d %v", names, i, lo, hi, len(got), got, len(want), want)
			}
			switch {
			case self && i%2 == 0:
				// No extension: whether the touching vertices
				// pass is up to rounding, so count them.
				onFace += len(got)
			case self && len(got) == 0:
				t.Errorf("%v pose %d: coincident or touching shapes, no vertex passes", names, i)
			}
			passed += len(got)
			var c boxCull
			if !d.Cull.Empty() {
				c.set(&d)
				for l := range a.vleaves {
					if !c.meets(&a.vleaves[l]) {
						culled++
					}
				}
			}
		}
	}
	if passed == 0 || culled == 0 || onFace == 0 {
		t.Errorf("%d vertices passed (%d of them on a face of the culling volumes), %d leaves culled: the poses do not exercise the test", passed, onFace, culled)
	}
}

// TestInCullKeepsNear checks InCull against brute force at random poses of
// overlapping and nearby meshes: every vertex inside Dst, or within ext of
// its surface, passes (the culling volumes only ever drop vertices that
// can give neither a contact nor a prediction), and most of the others
// are culled.
func TestInCullKeepsNear(t *testing.T) {
	shapes := cullShapes(t)
	rng := rand.New(rand.NewPCG(3, 11))
	pairs := [][2]string{{"bunny", "torus"}, {"torus", "bunny"}, {"bunny", "bunny"}}
	near, far, culled := 0, 0, 0
	for _, names := range pairs {
		a, b := shapes[names[0]], shapes[names[1]]
		scale := a.Size() + b.Size()
		for i := 0; i < 24; i++ {
			pa, pb := randomPoses(rng, a, b, scale*(0.3+0.5*rng.Float64()))
			ext := []float64{a.tEps, 0.02 * scale, 0.1 * scale}[i%3]
			var d Direction
			d.Setup(SideA, a, b, pa, pb, ext)
			// The box in Src's frame holds every point of Dst's grown box
			// (its corners, and points inside) that lies in the world
			// culling box.
			inv := d.SrcToDst.Inverse()
			for k := 0; k < 58; k++ {
				var q [3]float64
				for c := range 3 {
					f := rng.Float64()
					if k < 8 {
						f = float64(k >> c & 1)
					}
					q[c] = d.dstCull.Min[c] + f*(d.dstCull.Max[c]-d.dstCull.Min[c])
				}
				x := inv.Apply(q)
				if w := d.SrcWorld.Apply(x); d.Cull.Contains(w) && !d.localCull.Contains(x) {
					t.Fatalf("%v pose %d: point %v of Dst's grown box, in the culling box, is outside the box in Src's frame", names, i, q)
				}
			}
			box := b.bounds.Grow(ext)
			for v := range a.verts {
				pass := d.InCull(int32(v))
				x := d.SrcToDst.Apply(a.verts[v])
				if !box.Contains(x) {
					// Farther than ext from Dst's box, so from Dst:
					// no need for the brute force.
					far++
					if !pass {
						culled++
					}
					continue
				}
				dist, inside := surfaceDistance(b, x)
				if inside || dist <= ext {
					near++
					if !pass {
						t.Fatalf("%v pose %d, ext %g: vertex %d (inside %v, %g from Dst) culled", names, i, ext, v, inside, dist)
					}
					continue
				}
				far++
				if !pass {
					culled++
				}
			}
		}
	}
	if near == 0 || float64(culled) < 0.5*float64(far) {
		t.Errorf("%d vertices near Dst; %d of the %d others culled, want at least half", near, culled, far)
	}
	t.Logf("%d vertices near Dst; %d of the %d others culled", near, culled, far)
}

// slabPasses reports whether point x of Src's frame passes InCull's test of
// slab k of boxCull (k < 3: Dst's grown box on axis k; else its DOP slab
// k−3), in InCull's own arithmetic.
func slabPasses(d *Direction, k int, x [3]float64) bool {
	o := d.SrcToDst.Apply(x)
	if k < 3 {
		return o[k] >= d.dstCull.Min[k] && o[k] <= d.dstCull.Max[k]
	}
	ax, sl := &dopAxis[k-3], &d.dstDOP[k-3]
	p := ax[0]*o[0] + ax[1]*o[1] + ax[2]*o[2]
	return p >= sl[0] && p <= sl[1]
}

// TestBoxCullSlabFaces puts small boxes of Src's frame just inside, on
// and just outside each slab's faces (by 1e-9 and 1e-13 of the shapes'
// size), at random poses, and checks boxCull.meets against InCull's
// arithmetic on the boxes' corners: no box with a corner in the slab is
// culled, and boxes outside by 1e-9 are (the slack is far smaller).
func TestBoxCullSlabFaces(t *testing.T) {
	shapes := cullShapes(t)
	rng := rand.New(rand.NewPCG(5, 17))
	a, b := shapes["bunny"], shapes["duck"]
	scale := a.Size() + b.Size()
	offsets := []float64{-1e-9, -1e-13, 0, 1e-13, 1e-9}
	onFace := 0
	for i := 0; i < 200; i++ {
		pa, pb := randomPoses(rng, a, b, scale*(0.2+0.5*rng.Float64()))
		var d Direction
		d.Setup(SideA, a, b, pa, pb, []float64{0, 0.05 * scale}[i%2])
		if d.Cull.Empty() {
			continue
		}
		var c boxCull
		c.set(&d)
		c.local = AABB{Min: [3]float64{-1e300, -1e300, -1e300}, Max: [3]float64{1e300, 1e300, 1e300}}
		for k := range c.axis {
			ax := c.axis[k]
			e := [3]float64{0.01 * scale * rng.Float64(), 0.01 * scale * rng.Float64(), 0.01 * scale * rng.Float64()}
			reach := c.abs[k][0]*e[0] + c.abs[k][1]*e[1] + c.abs[k][2]*e[2]
			lo, hi := d.dstCull.Min[min(k, 2)], d.dstCull.Max[min(k, 2)]
			if k >= 3 {
				lo, hi = d.dstDOP[k-3][0], d.dstDOP[k-3][1]
			}
			for _, side := range []float64{1, -1} {
				for _, off := range offsets {
					// The box's nearest point to the slab, along side·ax,
					// lies off·scale beyond its face (inside for off < 0).
					lam := c.mid[k] + side*(0.5*(hi-lo)+off*scale+reach)
					var box AABB
					for j := range 3 {
						cj := lam * ax[j]
						box.Min[j], box.Max[j] = cj-e[j], cj+e[j]
					}
					// Only slab k is tested: the others are made to hold
					// everything.
					only := c
					for j := range only.half {
						if j != k {
							only.half[j] = 1e300
						}
					}
					ok := only.meets(&box)
					in := 0
					for q := range 8 {
						var x [3]float64
						for j := range 3 {
							x[j] = box.Min[j]
							if q>>j&1 == 1 {
								x[j] = box.Max[j]
							}
						}
						if slabPasses(&d, k, x) {
							in++
						}
					}
					switch {
					case !ok && in > 0:
						t.Fatalf("pose %d slab %d side %v offset %g: box culled, %d corners in the slab", i, k, side, off, in)
					case off == 1e-9 && ok:
						t.Fatalf("pose %d slab %d side %v: box outside by 1e-9 of the size not culled", i, k, side)
					}
					if in > 0 && off >= 0 {
						onFace++
					}
				}
			}
		}
	}
	if onFace == 0 {
		t.Error("no box corner on a slab's face: the test does not reach the slack")
	}
}

// TestAppendInBoxes checks the papers' culling against its definition at
// random poses and sub-ranges: exactly the vertices whose world position
// lies in Cull, in VertexOrder's order, and a superset of AppendInCull's.
func TestAppendInBoxes(t *testing.T) {
	shapes := cullShapes(t)
	rng := rand.New(rand.NewPCG(9, 4))
	more := 0
	for _, names := range [][2]string{{"bunny", "duck"}, {"teddy", "torus"}, {"star", "star"}} {
		a, b := shapes[names[0]], shapes[names[1]]
		scale := a.Size() + b.Size()
		order := a.VertexOrder()
		for i := 0; i < 60; i++ {
			var pa, pb Pose
			if a.Dim() == Dim2 {
				pa, pb = Pose2D(0, 0, 2*math.Pi*rng.Float64()), Pose2D(scale*rng.Float64(), scale*(rng.Float64()-0.5), 2*math.Pi*rng.Float64())
			} else {
				pa, pb = randomPoses(rng, a, b, scale*(0.2+0.9*rng.Float64()))
			}
			var d Direction
			d.Setup(SideA, a, b, pa, pb, []float64{0, 0.05 * scale}[i%2])
			lo, hi := 0, len(order)
			if i%3 == 1 {
				lo, hi = subRange(rng, len(order))
			}
			var want []int32
			if !d.Cull.Empty() {
				for _, v := range order[lo:hi] {
					if d.Cull.Contains(d.SrcWorld.Apply(a.verts[v])) {
						want = append(want, v)
					}
				}
			}
			got := d.AppendInBoxes(nil, lo, hi)
			if !slices.Equal(got, want) {
				t.Fatalf("%v pose %d: AppendInBoxes %v, want %v", names, i, got, want)
			}
			tight := d.AppendInCull(nil, lo, hi)
			k := 0
			for _, v := range got {
				if k < len(tight) && tight[k] == v {
					k++
				}
			}
			if k != len(tight) {
				t.Fatalf("%v pose %d: a vertex of AppendInCull %v is not in AppendInBoxes %v", names, i, tight, got)
			}
			more += len(got) - len(tight)
		}
	}
	if more == 0 {
		t.Error("the boxes never held more vertices than the tight culling")
	}
}

// subRange returns a random range [lo, hi) within [0, n), possibly empty.
func subRange(rng *rand.Rand, n int) (lo, hi int) {
	lo = rng.IntN(n)
	return lo, lo + rng.IntN(n-lo+1)
}
