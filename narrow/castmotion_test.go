package narrow

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// poseAlong returns the pose of the motion from → to at fraction t, as
// CastMotion moves a against b at pb.
func poseAlong(a, b *Shape, from, to, pb Pose, t float64) Pose {
	m, err := motionOf(a, b, from, to, pb)
	if err != nil {
		panic(err)
	}
	return m.at(t)
}

// checkCastMotion checks a CastMotion answer: Start only for shapes that
// overlap at the start; otherwise at its fraction the shapes are within
// tol and do not overlap, and at 200 fractions before it (before the end
// for a miss) they do not overlap.
func checkCastMotion(t *testing.T, label string, a, b *Shape, from, to, pb Pose, tol float64, c Cast, hit bool) {
	t.Helper()
	if hit && c.Start {
		if over, _ := Overlap(a, b, from, pb); !over || c.Fraction != 0 {
			t.Fatalf("%s: Start at %v, but the shapes overlap at the start: %v", label, c.Fraction, over)
		}
		return
	}
	for k := range 200 {
		f := float64(k) / 200
		if hit {
			f *= c.Fraction
		}
		if over, _ := Overlap(a, b, poseAlong(a, b, from, to, pb, f), pb); over {
			t.Fatalf("%s: the shapes overlap at %v, before the reported %v (hit %v)", label, f, c.Fraction, hit)
		}
	}
	if !hit {
		return
	}
	if want := poseAlong(a, b, from, to, pb, c.Fraction); c.Pose != want {
		t.Fatalf("%s: pose %v at %v, want %v", label, c.Pose, c.Fraction, want)
	}
	d, _, err := Distance(a, b, c.Pose, pb, math.Inf(1))
	if err != nil || d.Overlap || d.Dist > tol {
		t.Fatalf("%s: at the reported %v the shapes are %+v apart (%v), want within %v", label, c.Fraction, d, err, tol)
	}
}

// TestCastMotionTranslation checks CastMotion on translations against
// CastShape, which is exact: it stops no later than the first touch,
// within tol of it, and says whether there is one as CastShape does
// (but for touches within tol of the motion's end).
func TestCastMotionTranslation(t *testing.T) {
	shapes := cullShapes(t)
	rng := rand.New(rand.NewPCG(6, 6))
	const tol = 1e-3
	hits := 0
	for k := range 24 {
		a, b := shapes[[]string{"bunny", "torus", "duck"}[k%3]], shapes[[]string{"torus", "bunny"}[k%2]]
		pa, pb := randomPoses(rng, a, b, 3*(a.size+b.size))
		motion := pb.Pos.Sub(pa.Pos).Add(randVec(rng, false).Mul(0.5 * b.size)).Mul(1 + rng.Float64())
		to := Pose{Pos: pa.Pos.Add(motion), Rot: pa.Rot}
		c, hit, err := CastMotion(a, b, pa, to, pb, tol)
		if err != nil {
			t.Fatal(err)
		}
		exact, exactHit, err := CastShape(a, b, pa, pb, motion)
		if err != nil {
			t.Fatal(err)
		}
		checkCastMotion(t, "translation", a, b, pa, to, pb, tol, c, hit)
		if exactHit && !exact.Start && exact.Pose.Pos.Sub(pa.Pos.Add(motion.Mul(exact.Fraction))).Len() > 1e-12*motion.Len() {
			t.Errorf("case %d: CastShape's pose %v at %v", k, exact.Pose, exact.Fraction)
		}
		switch {
		case hit && exactHit && c.Fraction > exact.Fraction:
			t.Errorf("case %d: stopped at %v, after the first touch at %v", k, c.Fraction, exact.Fraction)
		case hit != exactHit && (!hit || c.Fraction < 1-tol/motion.Len()):
			t.Errorf("case %d: hit %v at %v; CastShape %v at %v", k, hit, c.Fraction, exactHit, exact.Fraction)
		}
		if hit {
			hits++
		}
	}
	if hits < 8 {
		t.Errorf("%d casts of 24 hit: the test is too easy", hits)
	}
}

// TestCastMotionTurning: a bar 4 long turning half a turn about its
// centre sweeps a disc of radius 2. A post on that disc's rim, off the
// chord that the bar's ends would follow, is hit, at the angle where the
// bar reaches it; a post beyond the disc is not. Chords (CastShape along
// each vertex's straight path) would miss the first.
func TestCastMotionTurning(t *testing.T) {
	bar := mustBox(t, mgl64.Vec3{-2, -0.05, -0.05}, mgl64.Vec3{2, 0.05, 0.05})
	post := mustBox(t, mgl64.Vec3{-0.05, -0.05, -1}, mgl64.Vec3{0.05, 0.05, 1})
	from := Pose{Rot: mgl64.QuatIdent()}
	to := Pose{Rot: mgl64.QuatRotate(math.Pi*0.99, mgl64.Vec3{0, 0, 1})}
	const tol = 1e-4
	at := func(angle, r float64) Pose {
		return Pose{Pos: mgl64.Vec3{r * math.Cos(angle), r * math.Sin(angle), 0}, Rot: mgl64.QuatIdent()}
	}
	// The post at 60° on a circle of radius 1.5: the bar's side reaches
	// it a little before the bar's axis does.
	pb := at(math.Pi/3, 1.5)
	c, hit, err := CastMotion(bar, post, from, to, pb, tol)
	if err != nil || !hit {
		t.Fatalf("the post on the disc: %+v, %v, %v", c, hit, err)
	}
	checkCastMotion(t, "turning bar, post on the disc", bar, post, from, to, pb, tol, c, hit)
	if angle := c.Fraction * math.Pi * 0.99; angle < 0.9 || angle > math.Pi/3 {
		t.Errorf("stopped at %.4f rad, want a little before π/3", angle)
	}
	if n := c.Normal; n.Len() < 0.99 || n.Dot(mgl64.Vec3{-math.Sin(math.Pi / 3), math.Cos(math.Pi / 3), 0}) > -0.9 {
		t.Errorf("normal %v, want about the post's face towards the bar, against the turn", n)
	}
	// The chord of the bar's end from (2, 0) to its end pose passes near
	// the centre, far from the post: the vertex sweep misses it.
	p0, p1 := from.Transform(), poseAlong(bar, post, from, to, pb, 1).Transform()
	if f, hit := sweepChord(bar, &p0, &p1, post, pb); hit {
		t.Errorf("the chords hit the post too (at %v): the case does not show what turning adds", f)
	}

	c, hit, err = CastMotion(bar, post, from, to, at(math.Pi/3, 2.3), tol)
	if err != nil || hit {
		t.Errorf("the post beyond the disc: %+v, %v, %v", c, hit, err)
	}
}

// sweepChord reports whether the vertices of src, moved along straight
// chords from pose t0 to t1, touch dst at pose pd (Sweep).
func sweepChord(src *Shape, t0, t1 *Transform, dst *Shape, pd Pose) (float64, bool) {
	td := pd.Transform()
	inv := td.Inverse()
	a, b := inv.Mul(t0), inv.Mul(t1)
	f := Sweep(src, &a, &b, dst, 0)
	return f, f < 1
}

// TestCastMotionErrors checks the refusals, and that shapes overlapping
// at the start give Start.
func TestCastMotionErrors(t *testing.T) {
	box, poly, far := refusalCase(t)
	for _, tc := range []struct {
		name string
		a, b *Shape
		to   Pose
		tol  float64
		want error
	}{
		{"zero tol", box, box, far, 0, ErrBadParams},
		{"NaN tol", box, box, far, math.NaN(), ErrBadParams},
		{"2D and 3D", box, poly, far, 1e-3, ErrDimension},
		{"bad end pose", box, box, Pose{Pos: mgl64.Vec3{math.Inf(1), 0, 0}, Rot: mgl64.QuatIdent()}, 1e-3, ErrBadPose},
	} {
		if _, ok, err := CastMotion(tc.a, tc.b, Identity, tc.to, far, tc.tol); ok || !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, ok, err, tc.want)
		}
	}
	c, ok, err := CastMotion(box, box, Identity, far, Pose{Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.QuatIdent()}, 1e-3)
	if err != nil || !ok || !c.Start || c.Fraction != 0 {
		t.Errorf("overlapping at the start: %+v, %v, %v", c, ok, err)
	}
	// Out of steps: a box sliding past another 1e-3 from it, with a
	// tolerance of 1e-5, advances by about the gap at each step.
	past := Pose{Pos: mgl64.Vec3{-4, 2.001, 0}, Rot: mgl64.QuatIdent()}
	end := Pose{Pos: mgl64.Vec3{4, 2.001, 0}, Rot: mgl64.QuatIdent()}
	if _, _, out, err := CastMotionWithin(box, box, past, end, Identity, 1e-5, 10); err != nil || !out {
		t.Errorf("10 steps for a graze: out %v, %v", out, err)
	}
	if _, hit, out, err := CastMotionWithin(box, box, past, end, Identity, 1e-5, 100000); err != nil || hit || out {
		t.Errorf("enough steps for a graze: hit %v, out %v, %v", hit, out, err)
	}
	if _, _, _, err := CastMotionWithin(box, box, past, end, Identity, 1e-5, 0); !errors.Is(err, ErrBadParams) {
		t.Errorf("0 steps: %v", err)
	}
}

// BenchmarkCastMotion casts a bunny at a torus, turning it by half a turn
// on the way, from 16 random starts 3 sizes away (most of them hit),
// against CastShape on the same translations without the turn.
func BenchmarkCastMotion(b *testing.B) {
	s := cullShapes(b)
	bunny, torus := s["bunny"], s["torus"]
	rng := rand.New(rand.NewPCG(8, 1))
	type cast struct{ from, to, pb Pose }
	var casts []cast
	for range 16 {
		pa, pb := randomPoses(rng, bunny, torus, 3*(bunny.size+torus.size))
		to := Pose{Pos: pb.Pos.Add(pb.Pos.Sub(pa.Pos).Mul(0.2)), Rot: pa.Rot.Mul(mgl64.QuatRotate(math.Pi/2, randAxis(rng, false)))}
		casts = append(casts, cast{pa, to, pb})
	}
	b.Run("turning", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := &casts[i%len(casts)]
			if _, _, err := CastMotion(bunny, torus, c.from, c.to, c.pb, 1e-3*bunny.size); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("CastShape", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := &casts[i%len(casts)]
			if _, _, err := CastShape(bunny, torus, c.from, c.pb, c.to.Pos.Sub(c.from.Pos)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// FuzzCastMotion casts the small shapes of FuzzDistanceShapes at each
// other along motions that turn (start and end poses from the input, the
// tolerance 1/64 to 4/64 of it): the shapes must not overlap at 200
// fractions before the stop (or before the end, for a miss) and must be
// within the tolerance at it; a pure translation's stop must come no
// later than CastShape's exact touch.
//
//	go test ./narrow -run '^$' -fuzz '^FuzzCastMotion$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzCastMotion(f *testing.F) {
	shapes := newSmallShapes(f)
	f.Add([]byte{0, 1, 128, 128, 128, 255, 0, 0, 0, 250, 128, 128, 0, 255, 0, 0, 200, 128, 128, 255, 0, 0, 0, 2})  // box turning onto a sphere
	f.Add([]byte{3, 3, 60, 200, 128, 255, 0, 0, 0, 60, 100, 128, 255, 0, 0, 0, 60, 128, 128, 255, 0, 0, 0, 1})     // heightfield dropped on another
	f.Add([]byte{10, 11, 20, 128, 128, 255, 0, 0, 0, 240, 128, 128, 0, 0, 0, 255, 128, 128, 128, 255, 0, 0, 0, 3}) // U turning past a star
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 24 {
			return
		}
		a, b := shapes.pick(data[0], data[1])
		from, to, pb := bytePose(data[2:9], a.dim), bytePose(data[9:16], a.dim), bytePose(data[16:23], a.dim)
		tol := float64(1+data[23]%4) / 64
		c, hit, err := CastMotion(a, b, from, to, pb, tol)
		if err != nil {
			t.Fatal(err)
		}
		checkCastMotion(t, "fuzz", a, b, from, to, pb, tol, c, hit)
		if from.Rot == to.Rot && hit && !c.Start {
			exact, exactHit, err := CastShape(a, b, from, pb, to.Pos.Sub(from.Pos))
			if err != nil {
				t.Fatal(err)
			}
			if exactHit && c.Fraction > exact.Fraction {
				t.Fatalf("stopped at %v, after CastShape's touch at %v", c.Fraction, exact.Fraction)
			}
		}
	})
}
