package box2dadapter_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	b2 "github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/narrow"
)

// TestShapeCast: a square cast into a U-shaped cup lands on its floor
// (not its rims), one cast sideways inside it stops at its wall, one with
// the cup filtered out lands on the native ground box (grown by box2d's
// skin), a sensor in the way is passed by default, a start inside the
// wall touches at 0; bad input is refused; a cast allocates nothing.
func TestShapeCast(t *testing.T) {
	w, ad := newWorld(t)
	cup := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0), mustShape(t, uShape(1, 1, 0.2)), 0)
	ground := nativeBox(body(w, b2.B2BodyType.B2_staticBody, 0, -1, 0), 5, 1, 0) // top at y = 0
	sensor := circle(body(w, b2.B2BodyType.B2_staticBody, 0, 2, 0), 0.3)
	sensor.SetSensor(true)
	square := mustShape(t, []b2.B2Vec2{{X: -0.2, Y: -0.2}, {X: 0.2, Y: -0.2}, {X: 0.2, Y: 0.2}, {X: -0.2, Y: 0.2}}).Narrow()
	at := func(x, y float64) b2.B2Transform {
		var xf b2.B2Transform
		xf.Set(b2.B2Vec2{X: x, Y: y}, 0)
		return xf
	}
	notCup := func(f *b2.B2Fixture) bool { return f != cup && !f.IsSensor() }
	skin := b2.B2_polygonRadius
	for _, tc := range []struct {
		name        string
		xf          b2.B2Transform
		move        b2.B2Vec2
		keep        func(*b2.B2Fixture) bool
		fixture     *b2.B2Fixture
		fraction    float64
		normal      b2.B2Vec2
		start, miss bool
	}{
		{"down into the cup", at(0, 3), b2.B2Vec2{Y: -5}, nil, cup, (3 - 0.2 - 0.2) / 5, b2.B2Vec2{Y: 1}, false, false},
		{"sideways inside it", at(0, 0.5), b2.B2Vec2{X: 2}, nil, cup, 0.6 / 2, b2.B2Vec2{X: -1}, false, false},
		{"the cup filtered out", at(0, 3), b2.B2Vec2{Y: -5}, notCup, ground, (3 - 0.2 - skin) / 5, b2.B2Vec2{Y: 1}, false, false},
		{"through the sensor when kept", at(0, 3), b2.B2Vec2{Y: -5}, func(*b2.B2Fixture) bool { return true }, sensor, math.NaN(), b2.B2Vec2{}, false, false},
		{"inside the wall", at(0.9, 0.5), b2.B2Vec2{X: 1}, nil, cup, 0, b2.B2Vec2{}, true, false},
		{"upwards", at(0, 3), b2.B2Vec2{Y: 5}, nil, nil, 0, b2.B2Vec2{}, false, true},
	} {
		hit, ok, err := ad.ShapeCast(square, tc.xf, tc.move, tc.keep)
		switch {
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case ok == tc.miss:
			t.Errorf("%s: hit %v, want %v", tc.name, ok, !tc.miss)
		case tc.miss:
		case hit.Fixture != tc.fixture || hit.Start != tc.start:
			t.Errorf("%s: fixture %p (start %v), want %p (start %v)", tc.name, hit.Fixture, hit.Start, tc.fixture, tc.start)
		case tc.start || math.IsNaN(tc.fraction):
		case math.Abs(hit.Fraction-tc.fraction) > 1e-12 || math.Hypot(hit.Normal.X-tc.normal.X, hit.Normal.Y-tc.normal.Y) > 1e-9:
			t.Errorf("%s: fraction %v normal %v, want %v %v", tc.name, hit.Fraction, hit.Normal, tc.fraction, tc.normal)
		}
	}
	if n := testing.AllocsPerRun(20, func() { _, _, _ = ad.ShapeCast(square, at(0, 3), b2.B2Vec2{Y: -5}, nil) }); n != 0 {
		t.Errorf("%v allocations a cast", n)
	}
	cube, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    *narrow.Shape
		xf   b2.B2Transform
		move b2.B2Vec2
		want error
	}{
		{cube, at(0, 3), b2.B2Vec2{Y: -1}, box2dadapter.ErrNotPolygon},
		{nil, at(0, 3), b2.B2Vec2{Y: -1}, box2dadapter.ErrNotPolygon},
		{square, at(math.NaN(), 3), b2.B2Vec2{Y: -1}, narrow.ErrBadPose},
		{square, at(0, 3), b2.B2Vec2{Y: math.Inf(-1)}, narrow.ErrBadMotion},
	} {
		if _, ok, err := ad.ShapeCast(tc.s, tc.xf, tc.move, nil); !errors.Is(err, tc.want) || ok {
			t.Errorf("ShapeCast: %v %v, want %v", ok, err, tc.want)
		}
	}
}

// TestShapeCastMatchesBruteForce: in a world of gears at random poses,
// random casts of a star find the fixture and fraction that
// narrow.CastShape finds over every fixture (the earliest), and miss when
// it misses.
func TestShapeCastMatchesBruteForce(t *testing.T) {
	w, ad := newWorld(t)
	rng := rand.New(rand.NewPCG(6, 1))
	var fixtures []*b2.B2Fixture
	for range 12 {
		b := body(w, b2.B2BodyType.B2_dynamicBody, 8*rng.Float64()-4, 8*rng.Float64()-4, 2*math.Pi*rng.Float64())
		fixtures = append(fixtures, box2dadapter.AddPolygon(b, mustShape(t, gear(6+rng.IntN(6), 0.4+0.4*rng.Float64())), 1))
	}
	star := mustShape(t, gear(5, 0.3)).Narrow()
	hits := 0
	for k := range 300 {
		var xf b2.B2Transform
		xf.Set(b2.B2Vec2{X: 12*rng.Float64() - 6, Y: 12*rng.Float64() - 6}, 2*math.Pi*rng.Float64())
		move := b2.B2Vec2{X: 10*rng.Float64() - 5, Y: 10*rng.Float64() - 5}
		got, ok, err := ad.ShapeCast(star, xf, move, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want narrow.Cast
		var wantF *b2.B2Fixture
		for _, f := range fixtures {
			fx := f.GetBody().GetTransform()
			c, touch, err := narrow.CastShape(star, f.GetShape().(*box2dadapter.Shape).Narrow(),
				narrow.Pose2D(xf.P.X, xf.P.Y, xf.Q.GetAngle()), narrow.Pose2D(fx.P.X, fx.P.Y, fx.Q.GetAngle()),
				mgl64.Vec3{move.X, move.Y, 0})
			if err != nil {
				t.Fatal(err)
			}
			if touch && (wantF == nil || c.Fraction < want.Fraction) {
				want, wantF = c, f
			}
		}
		if ok != (wantF != nil) || ok && (got.Fraction != want.Fraction || got.Start != want.Start ||
			got.Fixture != wantF && got.Fraction != 0) {
			t.Fatalf("cast %d: %+v %v, want %+v %v", k, got, ok, want, wantF != nil)
		}
		if ok && !got.Start {
			hits++
		}
	}
	t.Logf("300 casts, %d touch a gear on the way", hits)
	if hits < 60 {
		t.Errorf("only %d casts touch a gear on the way", hits)
	}
}

// A player's outline, walked right through a level, stops at the wall
// of a U-shaped cup, a concave shape box2d itself cannot cast against;
// the normal says which way the wall faces.
func ExampleAdapter_ShapeCast() {
	w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
	world := &w
	ad, err := box2dadapter.Install(world)
	if err != nil {
		panic(err)
	}
	defer ad.Close()
	static := b2.MakeB2BodyDef()
	if _, err := box2dadapter.AddPath(world.CreateBody(&static), 0, "M -1 0 H 1 V 1 H 0.8 V 0.2 H -0.8 V 1 H -1 Z"); err != nil {
		panic(err)
	}
	player, err := box2dadapter.NewShape([]b2.B2Vec2{{X: -0.1, Y: 0}, {X: 0.1, Y: 0}, {X: 0.1, Y: 0.5}, {X: -0.1, Y: 0.5}})
	if err != nil {
		panic(err)
	}
	var at b2.B2Transform
	at.Set(b2.B2Vec2{X: -0.5, Y: 0.3}, 0) // standing in the cup
	hit, ok, err := ad.ShapeCast(player.Narrow(), at, b2.B2Vec2{X: 2}, nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: walks %.2f m, then a wall facing (%.0f, %.0f)\n", ok, 2*hit.Fraction, hit.Normal.X, hit.Normal.Y)
	// Output: true: walks 1.20 m, then a wall facing (-1, 0)
}

// TestCastMotion: a bar 2 long turning half a turn about its centre above
// a U-shaped cup hits a post in the cup's mouth, which its corners'
// straight paths miss, before it would reach the cup's rim;
// with the post filtered out it hits a rim; translating without a turn it
// lands in the cup as ShapeCast does, within tol. The hit's transform is
// the bar's at the touch, and nothing overlaps before it.
func TestCastMotion(t *testing.T) {
	w, ad := newWorld(t)
	cup := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, 0, 0, 0), mustShape(t, uShape(1, 1, 0.2)), 0)
	postShape := mustShape(t, []b2.B2Vec2{{X: -0.05, Y: -0.05}, {X: 0.05, Y: -0.05}, {X: 0.05, Y: 0.05}, {X: -0.05, Y: 0.05}})
	post := box2dadapter.AddPolygon(body(w, b2.B2BodyType.B2_staticBody, -0.67, 1.29, 0), postShape, 0)
	bar := mustShape(t, []b2.B2Vec2{{X: -1, Y: -0.05}, {X: 1, Y: -0.05}, {X: 1, Y: 0.05}, {X: -1, Y: 0.05}}).Narrow()
	xf := func(x, y, angle float64) b2.B2Transform {
		var t b2.B2Transform
		t.Set(b2.B2Vec2{X: x, Y: y}, angle)
		return t
	}
	const tol = 1e-4
	from, to := xf(0, 1.5, 0.1), xf(0, 1.5, 0.1+math.Pi*0.98)
	check := func(name string, hit box2dadapter.CastHit, ok bool, err error, want *b2.B2Fixture) {
		t.Helper()
		if err != nil || !ok || hit.Fixture != want || hit.Start {
			t.Fatalf("%s: %+v %v %v, want a hit of %p", name, hit, ok, err, want)
		}
	}
	hit, ok, err := ad.CastMotion(bar, from, to, tol, nil)
	check("the post", hit, ok, err, post)
	// At the hit's transform the bar is within tol of the post.
	ht, pp := hit.Transform, narrow.Pose2D(-0.67, 1.29, 0)
	if d, _, err := narrow.Distance(bar, postShape.Narrow(), narrow.Pose2D(ht.P.X, ht.P.Y, ht.Q.GetAngle()), pp, math.Inf(1)); err != nil || d.Overlap || d.Dist > tol {
		t.Errorf("at the hit's transform %+v: %+v (%v), want within %v", ht, d, err, tol)
	}
	// The corners' straight paths miss the post.
	for _, c := range [][2]float64{{-1, -0.05}, {1, -0.05}, {1, 0.05}, {-1, 0.05}} {
		p0, p1 := b2.B2TransformVec2Mul(from, b2.B2Vec2{X: c[0], Y: c[1]}), b2.B2TransformVec2Mul(to, b2.B2Vec2{X: c[0], Y: c[1]})
		for k := range 101 {
			f := float64(k) / 100
			if x, y := p0.X+f*(p1.X-p0.X), p0.Y+f*(p1.Y-p0.Y); math.Abs(x+0.67) <= 0.05 && math.Abs(y-1.29) <= 0.05 {
				t.Fatalf("corner %v's chord crosses the post: the case does not show what turning adds", c)
			}
		}
	}
	noPost := func(f *b2.B2Fixture) bool { return f != post }
	rim, ok, err := ad.CastMotion(bar, from, to, tol, noPost)
	check("the rim", rim, ok, err, cup)
	if rim.Fraction <= hit.Fraction {
		t.Errorf("the rim at %v, not after the post at %v", rim.Fraction, hit.Fraction)
	}
	// Translating only: as ShapeCast, within tol.
	down := xf(0, -1, 0.1)
	straight, ok, err := ad.CastMotion(bar, xf(0, 3, 0.1), down, tol, noPost)
	exact, exactOK, err2 := ad.ShapeCast(bar, xf(0, 3, 0.1), b2.B2Vec2{Y: -4}, noPost)
	if err != nil || err2 != nil || !ok || !exactOK || straight.Fixture != exact.Fixture || straight.Fraction > exact.Fraction || (exact.Fraction-straight.Fraction)*4 > tol {
		t.Errorf("straight down: %+v %v; ShapeCast %+v %v (%v, %v)", straight, ok, exact, exactOK, err, err2)
	}
	if math.Abs(straight.Transform.P.Y-(3-4*straight.Fraction)) > 1e-12 || math.Abs(straight.Transform.Q.GetAngle()-0.1) > 1e-12 {
		t.Errorf("straight down: transform %+v at %v", straight.Transform, straight.Fraction)
	}
	if _, _, err := ad.CastMotion(bar, from, to, 0, nil); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("tol 0: %v", err)
	}
}
