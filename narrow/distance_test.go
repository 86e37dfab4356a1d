package narrow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// bruteDistance is Distance by brute force: every pair of primitives, in
// index order, the first of the nearest kept; no hierarchy, no bound.
func bruteDistance(a, b *Shape, pa, pb Pose) Closest {
	pr := Pair{PoseA: pa, PoseB: pb}
	if err := CheckPair(&pr, a, b); err != nil {
		panic(err)
	}
	ta, tb := pr.PoseA.Transform(), pr.PoseB.Transform()
	var ab Transform
	ab.SetRelative(&tb, &ta)
	best, bi, bj := math.Inf(1), int32(-1), int32(-1)
	var ca, cb [3]float64
	for i, p := range a.prims {
		var ea distPrim
		ea.set(ab.Apply(a.verts[p[0]]), ab.Apply(a.verts[p[1]]))
		if p[2] >= 0 {
			ea.set3(ab.Apply(a.verts[p[2]]))
		}
		for j, q := range b.prims {
			var eb distPrim
			eb.set(b.verts[q[0]], b.verts[q[1]])
			if q[2] >= 0 {
				eb.set3(b.verts[q[2]])
			}
			if d2, x, y := primDist2(&ea, &eb); d2 < best {
				best, bi, bj, ca, cb = d2, int32(i), int32(j), x, y
			}
		}
	}
	return Closest{Dist: math.Sqrt(best), PA: tb.Apply(ca), PB: tb.Apply(cb), PrimA: bi, PrimB: bj}
}

// TestDistanceBruteForce checks Distance against the brute-force search
// over all pairs of primitives, bit for bit, on the bunny, the torus, a
// sphere and a 2D star at random orientations and distances: apart,
// close, and overlapping (Closest.Overlap, as Overlap says).
func TestDistanceBruteForce(t *testing.T) {
	shapes := cullShapes(t)
	sphere, err := NewSphere(1, 12)
	if err != nil {
		t.Fatal(err)
	}
	shapes["sphere"] = sphere
	rng := rand.New(rand.NewPCG(3, 14))
	pairs := [][2]string{{"torus", "sphere"}, {"torus", "torus"}, {"sphere", "bunny"}, {"star", "star"}}
	n := 12
	if testing.Short() {
		n = 4
	}
	apart, overlapping := 0, 0
	for _, names := range pairs {
		a, b := shapes[names[0]], shapes[names[1]]
		m := n
		if a.dim == Dim2 {
			m = 20
		}
		for k := range m {
			gap := []float64{0.02, 0.1, 0.5, 1, 3}[k%5]
			pa, pb := randomPoses(rng, a, b, (a.size+b.size)*gap)
			if a.dim == Dim2 {
				off := (a.size + b.size) * gap
				pa, pb = Pose2D(0, 0, 7*rng.Float64()), Pose2D(off*rng.NormFloat64(), off*rng.NormFloat64(), 7*rng.Float64())
			}
			got, ok, err := Distance(a, b, pa, pb, math.Inf(1))
			if err != nil || !ok {
				t.Fatalf("%v: Distance: %v, %v", names, ok, err)
			}
			over, _ := Overlap(a, b, pa, pb)
			if over {
				overlapping++
				if !got.Overlap || got.Dist != 0 || got.PrimA != -1 {
					t.Errorf("%v, case %d: overlapping shapes gave %+v", names, k, got)
				}
				continue
			}
			apart++
			if want := bruteDistance(a, b, pa, pb); got != want {
				t.Errorf("%v, case %d: %+v, brute force %+v", names, k, got, want)
			}
			// Seeded with a random pair of primitives, as CastMotion's
			// steps are with the last step's nearest: the same answer,
			// and the seed left is the answer's pair.
			seed := distSeed{a: rng.Int32N(int32(len(a.leaf))), b: rng.Int32N(int32(len(b.leaf))), ok: true}
			if again, _, _ := distance(a, b, pa, pb, math.Inf(1), &seed); again != got || a.leaf[seed.a].id != got.PrimA || b.leaf[seed.b].id != got.PrimB {
				t.Errorf("%v, case %d: seeded %+v, seed left %+v; unseeded %+v", names, k, again, seed, got)
			}
			if again, _, _ := distance(a, b, pa, pb, math.Inf(1), &seed); again != got {
				t.Errorf("%v, case %d: seeded with its own answer %+v; unseeded %+v", names, k, again, got)
			}
			if d := got.PB.Sub(got.PA).Len(); math.Abs(d-got.Dist) > 1e-9*(a.size+b.size) {
				t.Errorf("%v, case %d: points %v apart, Dist %v", names, k, d, got.Dist)
			}
		}
	}
	t.Logf("%d cases apart, %d overlapping", apart, overlapping)
	if total := apart + overlapping; apart < total/3 || overlapping < total/10 {
		t.Errorf("%d cases apart and %d overlapping: the poses do not test both", apart, overlapping)
	}
}

// TestPrimDistSampled checks the distance between two primitives against
// points sampled on both: no sample pair is nearer than it, and the
// nearest sample pair on a fine grid is within the grid's spacing of it.
// It is the independent check of what the brute force and Distance share.
func TestPrimDistSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	rv := func() [3]float64 { return [3]float64{rng.Float64(), rng.Float64(), rng.Float64()} }
	const steps = 30
	sample := func(e *distPrim, f func(p [3]float64)) {
		for i := 0; i <= steps; i++ {
			for j := 0; j <= steps-i; j++ {
				u, v := float64(i)/steps, float64(j)/steps
				if e.n == 2 {
					if j > 0 {
						break
					}
					f(add3(e.p[0], scale3(sub3(e.p[1], e.p[0]), u)))
					continue
				}
				f(add3(e.p[0], add3(scale3(sub3(e.p[1], e.p[0]), u), scale3(sub3(e.p[2], e.p[0]), v))))
			}
		}
	}
	for k := range 150 {
		var x, y distPrim
		x.set(rv(), rv())
		y.set(add3(rv(), [3]float64{0.5 * float64(k%3), 0, 0}), rv())
		if k%4 != 3 {
			x.set3(rv())
			y.set3(add3(rv(), [3]float64{0.5 * float64(k%3), 0, 0}))
		}
		if x.n == 3 && y.n == 3 {
			if _, _, hit := segmentsCrossTriangle(&x, &y); hit {
				continue // they meet: primDist2 is not for those
			}
		}
		d2, p, q := primDist2(&x, &y)
		d := math.Sqrt(d2)
		if e := math.Sqrt(dist2(&p, &q)); math.Abs(e-d) > 1e-12 {
			t.Fatalf("case %d: points %v apart, distance %v", k, e, d)
		}
		least := math.Inf(1)
		sample(&x, func(a [3]float64) {
			sample(&y, func(b [3]float64) { least = min(least, math.Sqrt(dist2(&a, &b))) })
		})
		if least < d-1e-12 || least > d+2.0/steps {
			t.Fatalf("case %d (%d and %d points): sampled %v, primDist2 %v", k, x.n, y.n, least, d)
		}
	}
}

// segmentsCrossTriangle reports whether an edge of either triangle
// crosses the other.
func segmentsCrossTriangle(x, y *distPrim) (u, v float64, hit bool) {
	for _, pr := range [2][2]*distPrim{{x, y}, {y, x}} {
		s, tr := pr[0], pr[1]
		for i := range 3 {
			if u, v, ok := segmentTriangle(s.p[i], s.p[(i+1)%3], tr.p[0], tr.p[1], tr.p[2]); ok {
				return u, v, true
			}
		}
	}
	return 0, 0, false
}

// TestDistanceGridBoxes checks Distance on axis-aligned boxes, whose
// distance is the length of the gaps between their intervals.
func TestDistanceGridBoxes(t *testing.T) {
	for _, tc := range []struct {
		ha, hb, pb mgl64.Vec3
		want       float64
	}{
		{mgl64.Vec3{1, 1, 1}, mgl64.Vec3{1, 1, 1}, mgl64.Vec3{3, 0, 0}, 1},                    // faces
		{mgl64.Vec3{1, 1, 1}, mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{2.5, 2.5, 0}, math.Sqrt2}, // edges
		{mgl64.Vec3{1, 1, 1}, mgl64.Vec3{1, 1, 1}, mgl64.Vec3{3, 4, 5}, math.Sqrt(1 + 4 + 9)}, // corners
		{mgl64.Vec3{1, 2, 1}, mgl64.Vec3{1, 1, 1}, mgl64.Vec3{2, 0, 0}, 0},                    // touching
	} {
		a, b := mustBox(t, tc.ha.Mul(-1), tc.ha), mustBox(t, tc.hb.Mul(-1), tc.hb)
		pb := Pose{Pos: tc.pb, Rot: mgl64.QuatIdent()}
		c, ok, err := Distance(a, b, Identity, pb, math.Inf(1))
		if err != nil || !ok || math.Abs(c.Dist-tc.want) > 1e-12 || (tc.want == 0) != c.Overlap {
			t.Errorf("boxes %v and %v at %v: %+v, %v, %v; want %v", tc.ha, tc.hb, tc.pb, c, ok, err, tc.want)
		}
		if c.Overlap {
			continue
		}
		n := c.Normal()
		if gap := tc.pb.Normalize(); tc.pb[1] == 0 && tc.pb[2] == 0 && n.Sub(gap).Len() > 1e-12 {
			t.Errorf("boxes at %v: normal %v", tc.pb, n)
		}
		// max below the distance: not found; at it: found.
		if _, ok, _ := Distance(a, b, Identity, pb, tc.want*0.999); ok {
			t.Errorf("boxes at %v: found within %v", tc.pb, tc.want*0.999)
		}
		if c2, ok, _ := Distance(a, b, Identity, pb, tc.want); !ok || c2 != c {
			t.Errorf("boxes at %v: within %v: %+v, %v", tc.pb, tc.want, c2, ok)
		}
	}
}

// TestDistancePolygons checks 2D shapes: two squares, and a square inside
// a ring's hole (not overlapping: apart by the hole's margin).
func TestDistancePolygons(t *testing.T) {
	sq := func(h float64) []mgl64.Vec2 {
		return []mgl64.Vec2{{-h, -h}, {h, -h}, {h, h}, {-h, h}}
	}
	hole := []mgl64.Vec2{{-2, -2}, {-2, 2}, {2, 2}, {2, -2}} // clockwise
	square, err := NewPolygon(sq(1))
	if err != nil {
		t.Fatal(err)
	}
	ring, err := NewPolygon(sq(3), hole)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		a, b   *Shape
		pb     Pose
		want   float64
		reason string
	}{
		{square, square, Pose2D(3.5, 0, 0), 1.5, "side by side"},
		{square, square, Pose2D(3, 3, math.Pi/4), 3*math.Sqrt2 - 1 - math.Sqrt2, "corner to corner"},
		{square, ring, Pose2D(0.5, 0, 0), 0.5, "in the ring's hole"},
	} {
		c, ok, err := Distance(tc.a, tc.b, Identity, tc.pb, math.Inf(1))
		if err != nil || !ok || math.Abs(c.Dist-tc.want) > 1e-12 || c.PA[2] != 0 || c.PB[2] != 0 {
			t.Errorf("%s: %+v, %v, %v; want %v", tc.reason, c, ok, err, tc.want)
		}
	}
}

// refusalCase returns what the queries' refusal tests use: a 2-wide
// box, a triangle (2D), and a pose 5 along x.
func refusalCase(t *testing.T) (box, poly *Shape, far Pose) {
	t.Helper()
	box = mustBox(t, mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	poly, err := NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	return box, poly, Pose{Pos: mgl64.Vec3{5, 0, 0}, Rot: mgl64.QuatIdent()}
}

// TestDistanceErrors checks the refusals.
func TestDistanceErrors(t *testing.T) {
	box, poly, far := refusalCase(t)
	for _, tc := range []struct {
		name string
		a, b *Shape
		pb   Pose
		max  float64
		want error
	}{
		{"NaN max", box, box, far, math.NaN(), ErrBadParams},
		{"negative max", box, box, far, -1, ErrBadParams},
		{"2D and 3D", box, poly, far, 1, ErrDimension},
		{"nil shape", box, nil, far, 1, ErrEmpty},
		{"bad pose", box, box, Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}, 1, ErrBadPose},
	} {
		if _, ok, err := Distance(tc.a, tc.b, Identity, tc.pb, tc.max); ok || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
}

// TestDistanceAllocs checks that Distance allocates nothing.
func TestDistanceAllocs(t *testing.T) {
	s := testMeshes(t, "bunny")[0]
	pb := Pose{Pos: mgl64.Vec3{0, 3 * s.size, 0}, Rot: mgl64.QuatRotate(1, mgl64.Vec3{0, 0, 1})}
	if n := testing.AllocsPerRun(20, func() {
		if _, ok, err := Distance(s, s, Identity, pb, math.Inf(1)); !ok || err != nil {
			t.Fatal(ok, err)
		}
	}); n != 0 {
		t.Errorf("%v allocations a call", n)
	}
}

// BenchmarkDistance times Distance between two bunnies at distances of
// 0.1, 1 and 3 times their size, against the brute force over all pairs
// of primitives.
func BenchmarkDistance(b *testing.B) {
	s := testMeshes(b, "bunny")[0]
	rng := rand.New(rand.NewPCG(1, 2))
	for _, gap := range []float64{0.1, 1, 3} {
		var poses [][2]Pose
		for len(poses) < 16 {
			pa, pb := randomPoses(rng, s, s, 2*s.size*(1+gap))
			if over, _ := Overlap(s, s, pa, pb); !over {
				poses = append(poses, [2]Pose{pa, pb})
			}
		}
		b.Run(fmt.Sprintf("gap=%g", gap), func(b *testing.B) {
			i := 0
			for b.Loop() {
				p := &poses[i%len(poses)]
				if _, _, err := Distance(s, s, p[0], p[1], math.Inf(1)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	b.Run("brute-force", func(b *testing.B) {
		pa, pb := randomPoses(rng, s, s, 2*s.size*2)
		for b.Loop() {
			bruteDistance(s, s, pa, pb)
		}
	})
}

// FuzzDistanceGridBoxes checks Distance on two axis-aligned boxes on a
// grid of quarters (gridBoxes), whose distance is known: the length of
// the gaps between their intervals, 0 when the closed boxes meet.
//
//	go test ./narrow -run '^$' -fuzz '^FuzzDistanceGridBoxes$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzDistanceGridBoxes(f *testing.F) {
	cache := map[[3]int]*Shape{}
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 19, 12, 12}) // apart by a quarter
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 19, 19, 19}) // corners apart
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 18, 18, 12}) // edges shared
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 12 {
			return
		}
		a, b, ha, hb, pa, pb := gridBoxes(t, cache, data)
		want := 0.0
		for k := range 3 {
			if g := math.Abs(pa.Pos[k]-pb.Pos[k]) - ha[k] - hb[k]; g > 0 {
				want += g * g
			}
		}
		want = math.Sqrt(want)
		for _, order := range [2]bool{false, true} {
			x, y, px, py := a, b, pa, pb
			if order {
				x, y, px, py = b, a, pb, pa
			}
			c, ok, err := Distance(x, y, px, py, math.Inf(1))
			if err != nil || !ok || math.Abs(c.Dist-want) > 1e-12 || c.Overlap != (want == 0) {
				t.Fatalf("A %v at %v, B %v at %v: %+v, %v, %v; want %v", ha, pa.Pos, hb, pb.Pos, c, ok, err, want)
			}
			if !c.Overlap && math.Abs(c.PB.Sub(c.PA).Len()-want) > 1e-12 {
				t.Fatalf("A %v at %v, B %v at %v: points %v and %v, want %v apart", ha, pa.Pos, hb, pb.Pos, c.PA, c.PB, want)
			}
		}
	})
}

// smallShapes are the fuzz targets' shapes, small enough for the brute
// force: 3D a box, a sphere, a capsule and a bumpy heightfield (concave);
// 2D a U and a star.
type smallShapes struct{ dim3, dim2 []*Shape }

func newSmallShapes(t testing.TB) *smallShapes {
	var s smallShapes
	for _, mk := range []func() (*Shape, error){
		func() (*Shape, error) { return NewBox(mgl64.Vec3{-0.5, -0.3, -0.4}, mgl64.Vec3{0.5, 0.3, 0.4}) },
		func() (*Shape, error) { return NewSphere(0.6, 6) },
		func() (*Shape, error) { return NewCapsule(0.3, 0.4, 6) },
		func() (*Shape, error) {
			return NewHeightfield([][]float64{{0, 0.3, 0, 0.2}, {0.4, -0.2, 0.5, 0}, {0, 0.3, -0.1, 0.2}}, 0.4, 0.3, -0.5)
		},
	} {
		sh, err := mk()
		if err != nil {
			t.Fatal(err)
		}
		s.dim3 = append(s.dim3, sh)
	}
	for _, loop := range [][]mgl64.Vec2{
		{{-1, -1}, {1, -1}, {1, 1}, {0.6, 1}, {0.6, -0.6}, {-0.6, -0.6}, {-0.6, 1}, {-1, 1}},
		{{1, 0}, {0.3, 0.3}, {0, 1}, {-0.3, 0.3}, {-1, 0}, {-0.3, -0.3}, {0, -1}, {0.3, -0.3}},
	} {
		sh, err := NewPolygon(loop)
		if err != nil {
			t.Fatal(err)
		}
		s.dim2 = append(s.dim2, sh)
	}
	return &s
}

// pick returns the pair of shapes two bytes name: 2D when the first has
// bit 8 set.
func (s *smallShapes) pick(x, y byte) (a, b *Shape) {
	if x&8 != 0 {
		return s.dim2[int(x)%len(s.dim2)], s.dim2[int(y)%len(s.dim2)]
	}
	return s.dim3[int(x)%len(s.dim3)], s.dim3[int(y)%len(s.dim3)]
}

// bytePose reads a pose for a shape of dimension dim from 7 bytes: the
// position in [−2, 2]³ by 1/64, the rotation any quaternion (the identity
// for a zero one); 2D poses stay in the plane and turn about z.
func bytePose(d []byte, dim Dim) Pose {
	pos := mgl64.Vec3{float64(int(d[0])-128) / 64, float64(int(d[1])-128) / 64, float64(int(d[2])-128) / 64}
	q := mgl64.Quat{W: float64(int(d[3]) - 128), V: mgl64.Vec3{float64(int(d[4]) - 128), float64(int(d[5]) - 128), float64(int(d[6]) - 128)}}
	if dim == Dim2 {
		pos[2], q.V[0], q.V[1] = 0, 0, 0
	}
	if q.Len() == 0 {
		q = mgl64.QuatIdent()
	}
	return Pose{Pos: pos, Rot: q.Normalize()}
}

// FuzzDistanceShapes checks Distance against the brute force over all
// pairs of primitives, bit for bit, on small shapes (3D: a box, a sphere,
// a capsule and a bumpy heightfield, which is concave; 2D: a U and a
// star) at poses the input gives (positions in [−2, 2]³ by 1/64, any
// rotation, including ones about an axis of the shapes) and a max
// distance: Distance says the shapes are within max exactly when the
// brute force's distance is, and then gives its answer; overlapping
// shapes give Closest.Overlap; both orders agree on the distance; a
// search seeded with the pair of primitives the input names (as
// CastMotion's steps are) gives the same answer.
//
//	go test ./narrow -run '^$' -fuzz '^FuzzDistanceShapes$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzDistanceShapes(f *testing.F) {
	shapes := newSmallShapes(f)
	f.Add([]byte{0, 1, 128, 128, 128, 255, 0, 0, 0, 200, 128, 128, 255, 0, 0, 0, 255})    // box and sphere apart along x
	f.Add([]byte{3, 3, 128, 128, 128, 255, 0, 0, 0, 128, 170, 140, 200, 30, 0, 90, 40})   // heightfields, one turned, near
	f.Add([]byte{10, 11, 128, 128, 128, 255, 0, 0, 0, 180, 140, 128, 200, 0, 0, 90, 255}) // U and star
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 17 {
			return
		}
		a, b := shapes.pick(data[0], data[1])
		pa, pb := bytePose(data[2:9], a.dim), bytePose(data[9:16], a.dim)
		max := math.Inf(1)
		if data[16] < 255 {
			max = float64(data[16]) / 64
		}
		got, ok, err := Distance(a, b, pa, pb, max)
		if err != nil {
			t.Fatal(err)
		}
		over, err := Overlap(a, b, pa, pb)
		if err != nil {
			t.Fatal(err)
		}
		if over {
			if !ok || !got.Overlap || got.Dist != 0 {
				t.Fatalf("overlapping shapes: %+v, %v", got, ok)
			}
			return
		}
		want := bruteDistance(a, b, pa, pb)
		if ok != (want.Dist <= max) || ok && got != want {
			t.Fatalf("within %v: %+v, %v; brute force %+v", max, got, ok, want)
		}
		if len(data) >= 19 {
			seed := distSeed{a: int32(data[17]) % int32(len(a.leaf)), b: int32(data[18]) % int32(len(b.leaf)), ok: true}
			if again, ok2, _ := distance(a, b, pa, pb, max, &seed); ok2 != ok || again != got {
				t.Fatalf("seeded with %+v: %+v, %v; unseeded %+v, %v", seed, again, ok2, got, ok)
			}
		}
		back, ok2, err := Distance(b, a, pb, pa, math.Inf(1))
		if err != nil || !ok2 || math.Abs(back.Dist-want.Dist) > 1e-12*(1+want.Dist) {
			t.Fatalf("the other way round: %+v, %v, %v; want distance %v", back, ok2, err, want.Dist)
		}
	})
}
