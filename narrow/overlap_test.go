package narrow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// The brute-force reference of Overlap: every edge of each shape against
// every primitive of the other with orientation predicates (no ray, no
// hierarchy), and containment by the winding number over every primitive.

func orient3(a, b, c, d [3]float64) float64 {
	return dot3(sub3(b, a), cross3(sub3(c, a), sub3(d, a)))
}

// segTriangle reports whether segment p-q crosses triangle abc (general
// position: the random poses of the tests give no exact ties).
func segTriangle(p, q, a, b, c [3]float64) bool {
	sp, sq := orient3(a, b, c, p), orient3(a, b, c, q)
	if sp > 0 && sq > 0 || sp < 0 && sq < 0 {
		return false
	}
	s1, s2, s3 := orient3(p, q, a, b), orient3(p, q, b, c), orient3(p, q, c, a)
	return s1 >= 0 && s2 >= 0 && s3 >= 0 || s1 <= 0 && s2 <= 0 && s3 <= 0
}

// segSegment reports whether segments p-q and a-b of the z=0 plane cross.
func segSegment(p, q, a, b [3]float64) bool {
	d1, d2 := orient2(a, b, p), orient2(a, b, q)
	d3, d4 := orient2(p, q, a), orient2(p, q, b)
	return (d1 > 0) != (d2 > 0) && (d3 > 0) != (d4 > 0)
}

// windingInside reports whether x lies inside closed shape s: by the
// solid angles of its triangles (Van Oosterom and Strackee 1983) in 3D,
// by the crossing number of its segments in 2D.
func refInside(s *Shape, x [3]float64) bool {
	if s.dim == Dim2 {
		n := 0
		for _, p := range s.prims {
			a, b := s.verts[p[0]], s.verts[p[1]]
			if (a[1] <= x[1]) == (b[1] <= x[1]) {
				continue
			}
			if a[0]+(x[1]-a[1])*(b[0]-a[0])/(b[1]-a[1]) > x[0] {
				n++
			}
		}
		return n%2 == 1
	}
	w := 0.0
	for _, p := range s.prims {
		a, b, c := sub3(s.verts[p[0]], x), sub3(s.verts[p[1]], x), sub3(s.verts[p[2]], x)
		la, lb, lc := len3(a), len3(b), len3(c)
		num := dot3(a, cross3(b, c))
		den := la*lb*lc + dot3(a, b)*lc + dot3(b, c)*la + dot3(c, a)*lb
		w += 2 * math.Atan2(num, den)
	}
	return math.Abs(w) > 2*math.Pi
}

// refOverlap is Overlap by brute force.
func refOverlap(a, b *Shape, pa, pb Pose) bool {
	ta, tb := pa.Transform(), pb.Transform()
	wa := make([][3]float64, len(a.verts))
	for i, v := range a.verts {
		wa[i] = ta.Apply(v)
	}
	wb := make([][3]float64, len(b.verts))
	for i, v := range b.verts {
		wb[i] = tb.Apply(v)
	}
	// Boxes of the primitives, to skip the predicates where they cannot
	// meet (every pair is still visited).
	boxes := func(s *Shape, ws [][3]float64) []AABB {
		bs := make([]AABB, len(s.prims))
		for i, p := range s.prims {
			b := AABB{Min: ws[p[0]], Max: ws[p[0]]}
			for _, v := range p[1:] {
				if v >= 0 {
					b.Min = mgl64.Vec3{min(b.Min[0], ws[v][0]), min(b.Min[1], ws[v][1]), min(b.Min[2], ws[v][2])}
					b.Max = mgl64.Vec3{max(b.Max[0], ws[v][0]), max(b.Max[1], ws[v][1]), max(b.Max[2], ws[v][2])}
				}
			}
			bs[i] = b
		}
		return bs
	}
	ba, bb := boxes(a, wa), boxes(b, wb)
	cross := func(s *Shape, ws [][3]float64, o *Shape, wo [][3]float64, ob []AABB) bool {
		for _, p := range s.prims {
			edges := [][2]int32{{p[0], p[1]}}
			if p[2] >= 0 {
				edges = append(edges, [2]int32{p[1], p[2]}, [2]int32{p[2], p[0]})
			}
			for _, e := range edges {
				seg := [2][3]float64{ws[e[0]], ws[e[1]]}
				for k, q := range o.prims {
					if !ob[k].meetsBox(&seg) {
						continue
					}
					if q[2] < 0 {
						if segSegment(ws[e[0]], ws[e[1]], wo[q[0]], wo[q[1]]) {
							return true
						}
					} else if segTriangle(ws[e[0]], ws[e[1]], wo[q[0]], wo[q[1]], wo[q[2]]) {
						return true
					}
				}
			}
		}
		return false
	}
	if cross(a, wa, b, wb, bb) || cross(b, wb, a, wa, ba) {
		return true
	}
	// Containment: a's vertex in b's frame, and b's in a's.
	ia, ib := ta.Inverse(), tb.Inverse()
	return refInside(b, ib.Apply(wa[a.prims[0][0]])) || refInside(a, ia.Apply(wb[b.prims[0][0]]))
}

// TestOverlapBruteForce checks Overlap against the brute-force reference
// at random poses of the test meshes and of polygons (a star, an L, the
// comb), from well apart to deep inside each other: the same answer at
// every pose, with both outcomes frequent.
func TestOverlapBruteForce(t *testing.T) {
	meshes := testMeshes(t, "bunny", "torus", "teddy")
	meshes = append(meshes, mustBox(t, mgl64.Vec3{-0.3, -0.2, -0.1}, mgl64.Vec3{0.3, 0.2, 0.1}))
	var polys []*Shape
	for _, l := range [][]mgl64.Vec2{star(24), lShape(), comb()} {
		polys = append(polys, mustPolygon(t, l))
	}
	rng := rand.New(rand.NewPCG(3, 11))
	for _, set := range []struct {
		name   string
		shapes []*Shape
		poses  int
	}{{"3D", meshes, 25}, {"2D", polys, 100}} {
		yes, no := 0, 0
		for i, a := range set.shapes {
			for j, b := range set.shapes {
				for k := 0; k < set.poses; k++ {
					var pa, pb Pose
					dist := (a.size + b.size) * 1.2 * rng.Float64()
					if set.name == "2D" {
						pa = Pose2D(0, 0, 2*math.Pi*rng.Float64())
						s, c := math.Sincos(2 * math.Pi * rng.Float64())
						pb = Pose2D(dist*c, dist*s, 2*math.Pi*rng.Float64())
						pa.Pos = pa.Pos.Sub(pa.Rot.Rotate(a.bounds.Center()))
						pb.Pos = pb.Pos.Sub(pb.Rot.Rotate(b.bounds.Center()))
						pa.Pos[2], pb.Pos[2] = 0, 0
					} else {
						pa, pb = randomPoses(rng, a, b, dist)
					}
					got, err := Overlap(a, b, pa, pb)
					if err != nil {
						t.Fatal(err)
					}
					if want := refOverlap(a, b, pa, pb); got != want {
						t.Fatalf("%s: shapes %d and %d at %v, %v: Overlap %v, brute force %v", set.name, i, j, pa, pb, got, want)
					}
					if got {
						yes++
					} else {
						no++
					}
				}
			}
		}
		t.Logf("%s: %d overlapping, %d apart", set.name, yes, no)
		if yes < 50 || no < 50 {
			t.Errorf("%s: %d overlapping and %d apart poses: too few of one kind to test", set.name, yes, no)
		}
	}
}

// TestOverlapNested checks the containment half of Overlap: a small box
// wholly inside a mesh (no edges cross) overlaps it, both ways round, and
// one just outside does not. The positions are drawn inside the mesh's
// box and sorted by the brute-force reference.
func TestOverlapNested(t *testing.T) {
	meshes := testMeshes(t, "bunny", "torus", "teddy")
	rng := rand.New(rand.NewPCG(5, 8))
	for _, m := range meshes {
		h := 0.01 * m.size
		small := mustBox(t, mgl64.Vec3{-h, -h, -h}, mgl64.Vec3{h, h, h})
		in, out := 0, 0
		for k := 0; k < 400 && (in < 20 || out < 20); k++ {
			var x mgl64.Vec3
			for c := range 3 {
				x[c] = m.bounds.Min[c] + (m.bounds.Max[c]-m.bounds.Min[c])*rng.Float64()
			}
			_, dist, _, _ := m.Nearest(x)
			if dist < 4*h {
				continue // the box would cross the surface
			}
			ps := Pose{Pos: x, Rot: mgl64.QuatRotate(rng.Float64()*math.Pi, randAxis(rng, false))}
			want := refInside(m, x)
			for _, swap := range []bool{false, true} {
				var got bool
				var err error
				if swap {
					got, err = Overlap(m, small, Identity, ps)
				} else {
					got, err = Overlap(small, m, ps, Identity)
				}
				if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("box at %v (inside: %v), swapped %v: Overlap %v", x, want, swap, got)
				}
			}
			if want {
				in++
			} else {
				out++
			}
		}
		if in < 20 || out < 20 {
			t.Errorf("%d inside, %d outside: too few of one kind", in, out)
		}
	}
}

// overlapCase is a pose of two shapes and whether they overlap.
type overlapCase struct {
	name   string
	a, b   *Shape
	pa, pb Pose
	want   bool
}

// checkOverlapCases checks each case both ways round.
func checkOverlapCases(t *testing.T, cases []overlapCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, swap := range []bool{false, true} {
				a, b, pa, pb := c.a, c.b, c.pa, c.pb
				if swap {
					a, b, pa, pb = b, a, pb, pa
				}
				if got, err := Overlap(a, b, pa, pb); err != nil || got != c.want {
					t.Errorf("swapped %v: Overlap %v (%v), want %v", swap, got, err, c.want)
				}
			}
		})
	}
}

func mustBox(t testing.TB, lo, hi mgl64.Vec3) *Shape {
	t.Helper()
	s, err := NewBox(lo, hi)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustPolygon(t testing.TB, outer []mgl64.Vec2, holes ...[]mgl64.Vec2) *Shape {
	t.Helper()
	s, err := NewPolygon(outer, holes...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func at(x, y, z float64) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: mgl64.QuatIdent()} }

// TestOverlapCases checks the cases that random poses do not reach:
// surfaces that touch, faces in one plane, and crossings without a vertex
// inside, where contacts find nothing.
func TestOverlapCases(t *testing.T) {
	cube := mustBox(t, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 1})
	bar := mustPolygon(t, []mgl64.Vec2{{-2, -0.1}, {2, -0.1}, {2, 0.1}, {-2, 0.1}})
	sq := mustPolygon(t, square(0, 0, 1))
	checkOverlapCases(t, []overlapCase{
		{"cubes face to face", cube, cube, Identity, at(1, 0, 0), true},
		{"cubes 1e-6 apart", cube, cube, Identity, at(1+1e-6, 0, 0), false},
		{"cubes sharing planes", cube, cube, Identity, at(0.5, 0, 0), true},
		{"cubes in one place", cube, cube, Identity, Identity, true},
		{"cubes edge to edge, crossed", cube, cube, Identity, Pose{Pos: mgl64.Vec3{0.5, 0.5 + 0.5*math.Sqrt2 - 1e-3, 1.5}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})}, false},
		{"cubes corner to corner", cube, cube, Identity, at(1, 1, 1), true},
		{"bars crossed as a plus, no vertex inside", bar, bar, Identity, Pose2D(0, 0, math.Pi/2), true},
		{"bars side by side", bar, bar, Identity, Pose2D(0, 0.3, 0), false},
		{"squares edge to edge", sq, sq, Identity, Pose2D(1, 0.5, 0), true},
		{"square inside a bar's width", sq, bar, Pose2D(-0.5, -0.05, 0), Pose2D(0, 0, 0), true},
	})
}

// TestOverlapComponents: shapes of several connected components, where
// one vertex is not enough to tell containment: a mesh of two cubes with
// one far away and the other inside a box, and a square ring (a polygon
// with a hole) around a small square, inside a big one, and beside it.
func TestOverlapComponents(t *testing.T) {
	var verts []mgl64.Vec3
	var tris [][3]int
	for _, lo := range []mgl64.Vec3{{10, 0, 0}, {0, 0, 0}} {
		n := len(verts)
		verts = append(verts, BoxCorners(lo, lo.Add(mgl64.Vec3{1, 1, 1}))...)
		for _, tr := range BoxTriangles() {
			tris = append(tris, [3]int{tr[0] + n, tr[1] + n, tr[2] + n})
		}
	}
	pair, err := NewMesh(verts, tris)
	if err != nil {
		t.Fatal(err)
	}
	if n := pair.NumComponents(); n != 2 {
		t.Fatalf("two cubes: %d components, want 2", n)
	}
	big := mustBox(t, mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{2, 2, 2})
	ring := mustPolygon(t, square(0, 0, 4), square(1, 1, 2))
	if n := ring.NumComponents(); n != 2 {
		t.Fatalf("ring: %d components, want 2 (its loops)", n)
	}
	small := mustPolygon(t, square(0, 0, 1))
	huge := mustPolygon(t, square(-5, -5, 20))
	checkOverlapCases(t, []overlapCase{
		{"second cube inside the box", pair, big, Identity, Identity, true},
		{"both cubes away from the box", pair, big, Identity, at(5, 0, 0), false},
		{"small square in the ring's hole", ring, small, Identity, Pose2D(1.5, 1.5, 0), false},
		{"small square across the hole's edge", ring, small, Identity, Pose2D(0.5, 1.5, 0), true},
		{"ring inside a huge square", ring, huge, Identity, Identity, true},
	})
}

// TestOverlapErrors: bad input gets a typed error, never a panic.
func TestOverlapErrors(t *testing.T) {
	cube := mustBox(t, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 1})
	sq := mustPolygon(t, square(0, 0, 1))
	for _, c := range []struct {
		a, b   *Shape
		pa, pb Pose
		want   error
	}{
		{nil, cube, Identity, Identity, ErrEmpty},
		{cube, &Shape{}, Identity, Identity, ErrEmpty},
		{cube, sq, Identity, Identity, ErrDimension},
		{cube, cube, Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}, Identity, ErrBadPose},
		{sq, sq, Identity, Pose{Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 0, 0})}, ErrBadPose},
	} {
		t.Run(fmt.Sprint(c.want), func(t *testing.T) {
			if _, err := Overlap(c.a, c.b, c.pa, c.pb); !errors.Is(err, c.want) {
				t.Errorf("error %v, want %v", err, c.want)
			}
		})
	}
}

// TestOverlapAllocs: the test allocates nothing.
func TestOverlapAllocs(t *testing.T) {
	m := testMeshes(t, "bunny")[0]
	pb := Pose{Pos: mgl64.Vec3{0.3 * m.size, 0, 0}, Rot: mgl64.QuatIdent()}
	if n := testing.AllocsPerRun(20, func() { _, _ = Overlap(m, m, Identity, pb) }); n != 0 {
		t.Errorf("%v allocations per Overlap, want 0", n)
	}
}

// BenchmarkOverlap times Overlap on two bunnies against the brute-force
// reference (every edge against every triangle, then winding numbers):
// crossing, boxes overlapping without contact, and apart. Compare with
// benchstat -col /method.
func BenchmarkOverlap(b *testing.B) {
	m := testMeshes(b, "bunny")[0]
	for _, c := range []struct {
		name string
		off  float64
	}{{"crossing", 0.5}, {"near", 1.05}, {"apart", 1.7}} {
		pb := Pose{Pos: mgl64.Vec3{c.off * m.size, 0, 0}, Rot: mgl64.QuatRotate(0.7, mgl64.Vec3{0, 1, 0})}
		for _, method := range []string{"edge-rays", "brute-force"} {
			b.Run("pose="+c.name+"/method="+method, func(b *testing.B) {
				var hit bool
				for b.Loop() {
					if method == "edge-rays" {
						hit, _ = Overlap(m, m, Identity, pb)
					} else {
						hit = refOverlap(m, m, Identity, pb)
					}
				}
				b.ReportMetric(map[bool]float64{true: 1}[hit], "overlap")
			})
		}
	}
}

// FuzzOverlap2D checks Overlap on polygons with small integer
// coordinates, where shapes that touch do so exactly (a vertex on an
// edge, collinear edges, shared corners: the cases random poses never
// reach) and the reference is exact: two closed regions meet iff their
// boundaries share a point (segsTouch, exact on integers) or one holds a
// vertex of the other.
func FuzzOverlap2D(f *testing.F) {
	f.Add([]byte{1, 1, 0, 0, 4, 0, 4, 4, 0, 4, 4, 0, 8, 0, 8, 4, 4, 4})                         // squares sharing an edge
	f.Add([]byte{1, 1, 0, 0, 4, 0, 4, 4, 0, 4, 2, 2, 3, 2, 3, 3, 2, 3})                         // one inside the other
	f.Add([]byte{0, 0, 0, 0, 6, 0, 0, 6, 6, 6, 12, 6, 6, 12})                                   // triangles meeting at a corner
	f.Add([]byte{5, 1, 0, 0, 8, 0, 8, 8, 6, 8, 6, 2, 2, 2, 2, 8, 0, 8, 3, 3, 5, 3, 5, 9, 3, 9}) // a U and a bar in its gap
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		na, nb := 3+int(data[0]%6), 3+int(data[1]%6)
		data = data[2:]
		if len(data) < 2*(na+nb) {
			return
		}
		loop := func(n int) []mgl64.Vec2 {
			l := make([]mgl64.Vec2, n)
			for i := range l {
				l[i] = mgl64.Vec2{float64(int(data[2*i]%13) - 6), float64(int(data[2*i+1]%13) - 6)}
			}
			data = data[2*n:]
			return l
		}
		a, errA := NewPolygon(loop(na))
		b, errB := NewPolygon(loop(nb))
		if errA != nil || errB != nil {
			return
		}
		got, err := Overlap(a, b, Identity, Identity)
		if err != nil {
			t.Fatal(err)
		}
		want := false
		for _, p := range a.prims {
			for _, q := range b.prims {
				if segsTouch(a.verts[p[0]], a.verts[p[1]], b.verts[q[0]], b.verts[q[1]]) {
					want = true
				}
			}
		}
		if !want {
			want = refInside(b, a.verts[a.prims[0][0]]) || refInside(a, b.verts[b.prims[0][0]])
		}
		if got != want {
			t.Fatalf("A %v, B %v: Overlap %v, exact %v", a.verts, b.verts, got, want)
		}
	})
}

// TestOverlapGridBoxes checks Overlap on axis-aligned boxes with integer
// corners, where the exact answer is the closed boxes' intersection and
// most meetings are degenerate: shared faces (coplanar triangles), edges
// and corners, or faces in one plane overlapping.
func TestOverlapGridBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	corners := func() (lo, hi mgl64.Vec3) {
		for k := range 3 {
			a, b := rng.IntN(7)-3, rng.IntN(7)-3
			if a == b {
				b++
			}
			lo[k], hi[k] = float64(min(a, b)), float64(max(a, b))
		}
		return lo, hi
	}
	touching := 0
	for range 3000 {
		l1, h1 := corners()
		l2, h2 := corners()
		a, b := mustBox(t, l1, h1), mustBox(t, l2, h2)
		want, touch := true, false
		for c := range 3 {
			want = want && l1[c] <= h2[c] && l2[c] <= h1[c]
			touch = touch || l1[c] == h2[c] || l2[c] == h1[c]
		}
		if want && touch {
			touching++
		}
		if got, err := Overlap(a, b, Identity, Identity); err != nil || got != want {
			t.Fatalf("boxes %v–%v and %v–%v: Overlap %v (%v), want %v", l1, h1, l2, h2, got, err, want)
		}
	}
	if touching < 300 {
		t.Errorf("only %d boxes just touching: the test needs more", touching)
	}
}

// TestAppendPrimsInBox: the primitives found through the hierarchy are
// those whose boxes meet the query box, by a test of every primitive, on
// meshes, a polygon and a shape too small for a hierarchy; a warm query
// allocates nothing.
func TestAppendPrimsInBox(t *testing.T) {
	poly, err := NewPolygon(offStar())
	if err != nil {
		t.Fatal(err)
	}
	tet, err := NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, s := range append(testMeshes(t, "bunny", "torus"), poly, tet) {
		b := s.Bounds()
		size := b.Max.Sub(b.Min)
		var got []int32
		for round := range 200 {
			var q AABB
			for a := range 3 {
				c := b.Min[a] + size[a]*(1.4*rng.Float64()-0.2)
				h := size[a] * 0.3 * rng.Float64() * rng.Float64()
				q.Min[a], q.Max[a] = c-h, c+h
			}
			got = s.AppendPrimsInBox(got[:0], q)
			var want []int32
			for i := range s.NumPrims() {
				lo, hi := s.primBox(i)
				if s.Dim() == Dim2 {
					lo[2], hi[2] = 0, 0
				}
				if q.meetsBox(&[2][3]float64{lo, hi}) {
					want = append(want, int32(i))
				}
			}
			sorted := slices.Clone(got)
			slices.Sort(sorted)
			if !slices.Equal(sorted, want) {
				t.Fatalf("%d primitives, box %d %v: found %v, want %v", s.NumPrims(), round, q, sorted, want)
			}
			if again := s.AppendPrimsInBox(nil, q); !slices.Equal(again, got) {
				t.Fatalf("%d primitives, box %d: a second query's order %v, then %v", s.NumPrims(), round, got, again)
			}
			if round == 0 && s.Dim() == Dim3 {
				all := AABB{Min: b.Min.Sub(size), Max: b.Max.Add(size)}
				got = s.AppendPrimsInBox(got[:0], all)
				if len(got) != s.NumPrims() {
					t.Fatalf("a box around the shape: %d of %d primitives", len(got), s.NumPrims())
				}
				if n := testing.AllocsPerRun(20, func() { got = s.AppendPrimsInBox(got[:0], all) }); n != 0 {
					t.Errorf("%d allocations a warm query", int(n))
				}
			}
		}
	}
}
