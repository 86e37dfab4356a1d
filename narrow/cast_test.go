package narrow

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestCastShape: shape casts whose first touch is known: a cube dropped
// face down, or corner down, onto a slab (a vertex of the moving shape on
// a face), a plate dropped onto a cube standing on a corner (a vertex of
// the other shape on a face of the moving one), a bar dropped across
// another (edge on edge), polygons in 2D; a motion away or one that stops
// short touches nothing, and shapes that overlap at the start give Start.
func TestCastShape(t *testing.T) {
	box := func(x, y, z float64) *Shape { return centredBox(t, x, y, z) }
	cube, slab, plate := box(0.5, 0.5, 0.5), box(5, 0.5, 5), box(2, 0.1, 2)
	barX, barZ := box(2, 0.05, 0.05), box(0.05, 0.05, 1)
	id := mgl64.QuatIdent()
	at := func(x, y, z float64, q mgl64.Quat) Pose { return Pose{Pos: mgl64.Vec3{x, y, z}, Rot: q} }
	// A cube on a corner: its diagonal (1,1,1) turned onto +y.
	corner := mgl64.QuatBetweenVectors(mgl64.Vec3{1, 1, 1}.Normalize(), mgl64.Vec3{0, 1, 0})
	half := math.Sqrt(3) / 2 // the cube's half diagonal
	square := func(c float64) *Shape {
		s, err := NewPolygon([]mgl64.Vec2{{-c, -c}, {c, -c}, {c, c}, {-c, c}})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	up := mgl64.Vec3{0, 1, 0}
	for _, tc := range []struct {
		name     string
		a, b     *Shape
		pa, pb   Pose
		motion   mgl64.Vec3
		fraction float64
		point    mgl64.Vec3 // NaN components: any
		normal   mgl64.Vec3
		miss     bool
	}{
		{"cube face down on a slab", cube, slab, at(0, 3, 0, id), at(0, -0.5, 0, id), mgl64.Vec3{0, -4, 0}, 2.5 / 4,
			mgl64.Vec3{math.NaN(), 0, math.NaN()}, up, false},
		{"cube corner down on a slab", cube, slab, at(1, 3, 2, corner.Inverse()), at(0, -0.5, 0, id), mgl64.Vec3{0, -4, 0}, (3 - half) / 4,
			mgl64.Vec3{1, 0, 2}, up, false},
		{"plate onto a cube's corner", plate, cube, at(0.2, 3, 0, id), at(0, 0, 0, corner.Inverse()), mgl64.Vec3{0, -4, 0}, (3 - 0.1 - half) / 4,
			mgl64.Vec3{0, half, 0}, up, false},
		{"bar across a bar", barZ, barX, at(0.3, 1, 0.1, id), at(0, 0, 0, id), mgl64.Vec3{0, -2, 0}, 0.45,
			mgl64.Vec3{math.NaN(), 0.05, math.NaN()}, up, false},
		{"sideways into a slab's side", cube, slab, at(-7, 0, 0, id), at(0, 0, 0, id), mgl64.Vec3{3, 0, 0}, 1.5 / 3,
			mgl64.Vec3{-5, math.NaN(), math.NaN()}, mgl64.Vec3{-1, 0, 0}, false},
		{"2D squares", square(0.5), square(1), at(-4, 0.3, 0, id), at(0, 0, 0, id), mgl64.Vec3{4, 0, 0}, 2.5 / 4,
			mgl64.Vec3{-1, math.NaN(), 0}, mgl64.Vec3{-1, 0, 0}, false},
		{"moving away", cube, slab, at(0, 3, 0, id), at(0, -0.5, 0, id), mgl64.Vec3{0, 4, 0}, 0, mgl64.Vec3{}, mgl64.Vec3{}, true},
		{"stopping short", cube, slab, at(0, 3, 0, id), at(0, -0.5, 0, id), mgl64.Vec3{0, -2.4, 0}, 0, mgl64.Vec3{}, mgl64.Vec3{}, true},
		{"passing beside", cube, slab, at(7, 3, 0, id), at(0, -0.5, 0, id), mgl64.Vec3{0, -6, 0}, 0, mgl64.Vec3{}, mgl64.Vec3{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, hit, err := CastShape(tc.a, tc.b, tc.pa, tc.pb, tc.motion)
			if err != nil {
				t.Fatal(err)
			}
			if hit == tc.miss || c.Start {
				t.Fatalf("hit %v (start %v), want %v: %+v", hit, c.Start, !tc.miss, c)
			}
			if tc.miss {
				return
			}
			if math.Abs(c.Fraction-tc.fraction) > 1e-12 {
				t.Errorf("fraction %v, want %v", c.Fraction, tc.fraction)
			}
			for k := range 3 {
				if !math.IsNaN(tc.point[k]) && math.Abs(c.Point[k]-tc.point[k]) > 1e-9 {
					t.Errorf("point %v, want %v", c.Point, tc.point)
				}
			}
			if c.Normal.Sub(tc.normal).Len() > 1e-9 {
				t.Errorf("normal %v, want %v", c.Normal, tc.normal)
			}
		})
	}
	c, hit, err := CastShape(cube, slab, at(0, 0.2, 0, id), at(0, -0.5, 0, id), mgl64.Vec3{0, 3, 0})
	if err != nil || !hit || !c.Start || c.Fraction != 0 {
		t.Errorf("overlapping at the start: %+v, %v, %v; want Start", c, hit, err)
	}
}

// TestCastShapeMatchesOverlap: for random translations of bars, a cube,
// a torus and a bunny towards and through each other, the cast's fraction
// is where narrow.Overlap first sees them overlap (apart just before it,
// over 200 samples before it, overlapping just after it), its normal is a
// unit vector against the motion, its point lies between the shapes at
// the touch (on the other shape's surface or the moving one's), and it is
// the least of the sweeps it combines.
func TestCastShapeMatchesOverlap(t *testing.T) {
	shapes := cullShapes(t)
	mk := func(x, y, z float64) *Shape { return centredBox(t, x, y, z) }
	bar, cube := mk(1, 0.04, 0.04), mk(0.3, 0.3, 0.3)
	rng := rand.New(rand.NewPCG(3, 17))
	const samples = 200
	hits, total := 0, 0
	for _, pr := range [][2]*Shape{{bar, bar}, {cube, bar}, {bar, shapes["torus"]}, {shapes["bunny"], cube}, {shapes["torus"], shapes["bunny"]}} {
		a, b := pr[0], pr[1]
		for range 30 {
			m := newThroughMotion(rng, a, b)
			pa, pb, move := m.pa, m.pb, m.move
			overlaps := func(f float64) bool { return m.overlaps(t, f) }
			if overlaps(0) {
				continue
			}
			total++
			c, hit, err := CastShape(a, b, pa, pb, move)
			if err != nil {
				t.Fatal(err)
			}
			first := m.firstOverlap(t, samples)
			if !hit {
				if first < 1 {
					t.Fatalf("no touch, but they overlap at %v", first)
				}
				continue
			}
			hits++
			const eps = 1e-6
			switch {
			case c.Fraction > first+eps:
				t.Fatalf("touch at %v, but they overlap at %v", c.Fraction, first)
			case overlaps(c.Fraction - eps):
				t.Fatalf("touch at %v, but they overlap before it", c.Fraction)
			case math.Abs(c.Normal.Len()-1) > 1e-12 || c.Normal.Dot(move) >= 0:
				t.Fatalf("normal %v (length %v) for the motion %v", c.Normal, c.Normal.Len(), move)
			}
			// The point is on one of the two surfaces at the touch: within
			// a small distance of both shapes.
			touch := m.poseAt(c.Fraction)
			for _, s := range []struct {
				shape *Shape
				pose  Pose
			}{{a, touch}, {b, pb}} {
				local := s.pose.Rot.Conjugate().Rotate(c.Point.Sub(s.pose.Pos))
				if _, d, _, _ := s.shape.Nearest(local); d > 1e-6*s.shape.size {
					t.Fatalf("point %v is %v from a shape at the touch", c.Point, d)
				}
			}
			want := min(Sweep(a, &m.ab0.SrcToDst, &m.ab1.SrcToDst, b, 0), Sweep(b, &m.ba0.SrcToDst, &m.ba1.SrcToDst, a, 0), SweepEdges(a, &m.ab0.SrcToDst, &m.ab1.SrcToDst, b, 0))
			if math.Abs(c.Fraction-want) > 1e-12 {
				t.Fatalf("fraction %v, the sweeps' least %v", c.Fraction, want)
			}
		}
	}
	t.Logf("%d motions, %d touch", total, hits)
	if hits < total/2 {
		t.Errorf("%d of %d motions touch: the test exercises too little", hits, total)
	}
}

// TestCastShapeBadInput: bad arguments are typed errors, and a cast
// allocates nothing.
func TestCastShapeBadInput(t *testing.T) {
	cube := centredBox(t, 1, 1, 1)
	square, err := NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	ok := Pose{Rot: mgl64.QuatIdent()}
	far := Pose{Pos: mgl64.Vec3{5, 0, 0}, Rot: mgl64.QuatIdent()}
	for _, tc := range []struct {
		name   string
		a, b   *Shape
		pa     Pose
		motion mgl64.Vec3
		want   error
	}{
		{"nil shape", nil, cube, ok, mgl64.Vec3{1, 0, 0}, ErrEmpty},
		{"NaN motion", cube, cube, ok, mgl64.Vec3{math.NaN(), 0, 0}, ErrBadMotion},
		{"infinite motion", cube, cube, ok, mgl64.Vec3{0, math.Inf(-1), 0}, ErrBadMotion},
		{"zero rotation", cube, cube, Pose{}, mgl64.Vec3{1, 0, 0}, ErrBadPose},
		{"2D against 3D", square, cube, ok, mgl64.Vec3{1, 0, 0}, ErrDimension},
		{"2D out of the plane", square, square, ok, mgl64.Vec3{1, 0, 1}, ErrBadMotion},
	} {
		if _, hit, err := CastShape(tc.a, tc.b, tc.pa, far, tc.motion); !errors.Is(err, tc.want) || hit {
			t.Errorf("%s: hit %v, error %v; want %v", tc.name, hit, err, tc.want)
		}
	}
	if n := testing.AllocsPerRun(20, func() { _, _, _ = CastShape(cube, cube, ok, far, mgl64.Vec3{6, 0.5, 0}) }); n != 0 {
		t.Errorf("%v allocations a cast", n)
	}
}

// BenchmarkCastShape times a cast of a test mesh against itself: from
// 1.6 × its size away, 0.5 × its size towards the other (step), and
// from 2.1 × its size away through and past it (through); the shapes
// start apart (an overlap at the start ends the cast early).
func BenchmarkCastShape(b *testing.B) {
	shapes := cullShapes(&testing.T{})
	for _, name := range []string{"bunny", "torus"} {
		s := shapes[name]
		for _, motion := range []string{"step", "through"} {
			rng := rand.New(rand.NewPCG(1, 2))
			pa, pb := randomPoses(rng, s, s, 1.6*s.size)
			move := pb.Pos.Sub(pa.Pos).Normalize().Mul(0.5 * s.size)
			if motion == "through" {
				pa, pb = randomPoses(rng, s, s, 2.1*s.size)
				move = pb.Pos.Sub(pa.Pos).Mul(2)
			}
			c, hit, err := CastShape(s, s, pa, pb, move)
			if err != nil || c.Start {
				b.Fatalf("%+v %v %v: the shapes must start apart", c, hit, err)
			}
			b.Run(name+"/motion="+motion, func(b *testing.B) {
				if !hit {
					c.Fraction = 1
				}
				b.ReportMetric(c.Fraction, "fraction")
				for range b.N {
					if _, _, err := CastShape(s, s, pa, pb, move); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
