package box2dadapter_test

import (
	"context"
	"errors"
	"math"
	"testing"

	b2 "github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/fuzzread"
	"github.com/irtcd/irtcd/narrow"
)

// FuzzWorld runs a script of box2d world calls read from the input on two
// worlds with irtcd installed, one backend worker in the first and two in
// the second: bodies added with an irtcd outline (3 to 10 points, NaN,
// infinities and 1e300 among them: AddOutline must refuse those with a
// typed error), a native box or circle, or both; bodies destroyed;
// velocities set (finite, up to 50 m/s, so that time of impact runs);
// fixtures made sensors and back; shape casts with any translation; and
// steps. It fails when a call panics, when an error wraps none of
// narrow's sentinels, when the two worlds disagree (an outline accepted
// in one and not the other, a cast's answer, a body's position, angle or
// velocity after a step, bit for bit), when a step leaves a body's
// position not finite, or when an adapter's own list of its contacts no
// longer mirrors the world's contact list. Run it with
//
//	go test ./adapter/box2dadapter -run '^$' -fuzz '^FuzzWorld$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzWorld(f *testing.F) {
	v := fuzzread.Plain
	square := []byte{1, v(-0.3), v(-0.3), v(0.3), v(-0.3), v(0.3), v(0.3), v(-0.3), v(0.3)}
	u := []byte{5, v(-1), v(0), v(1), v(0), v(1), v(1), v(0.8), v(1), v(0.8), v(0.2), v(-0.8), v(0.2), v(-0.8), v(1), v(-1), v(1)}
	add := func(kind byte, x, y float64, outline []byte) []byte {
		return append([]byte{0, kind, v(x), v(y), v(0)}, outline...)
	}
	// Seeds: a U and squares dropped into it, stepped; a native box on an
	// irtcd square; a NaN outline; a fast square (time of impact); a
	// destruction; a sensor; a cast.
	f.Add(append(append(append(add(0, 0, 0, u), add(0, 0, 0.55, square)...), add(0, 0.2, 1.2, square)...), 4, 4, 4, 4))
	f.Add(append(append(add(0, 0, 0.3, square), add(1, 0, 0.9, nil)...), 4, 4, 4))
	f.Add(append(add(0, 0, 1, []byte{0, v(0), v(0), 201, v(1), v(1), v(1)}), 4, 4))
	f.Add(append(add(0, 0, 1, square), 3, 0, v(0), v(-5), v(0), 4, 4, 2, 0, 4, 4))
	f.Add(append(append(add(0, 0, 0, u), add(0, 0, 0.55, square)...), 4, 5, 0, 4, 4, 6, v(0), v(3), v(0), v(-4), 4))
	f.Fuzz(func(t *testing.T, data []byte) {
		type world struct {
			w      *b2.B2World
			ad     *box2dadapter.Adapter
			bodies []*b2.B2Body
		}
		newWorld := func(workers int) *world {
			be, err := cpubackend.New(narrow.Params{}, cpubackend.WithWorkers(workers))
			if err != nil {
				t.Fatal(err)
			}
			w := b2.MakeB2World(b2.B2Vec2{X: 0, Y: -10})
			ad, err := box2dadapter.Install(&w, box2dadapter.WithBackend(be))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ad.Close() })
			ground := body(&w, b2.B2BodyType.B2_staticBody, 0, -0.5, 0)
			nativeBox(ground, 20, 0.5, 0)
			return &world{w: &w, ad: ad}
		}
		worlds := [2]*world{newWorld(1), newWorld(2)}
		r := fuzzread.New(data)
		// finite reads a number that box2d may be given: Num's plain range
		// as is, its specials folded to ±5.
		finite := func() float64 {
			x := r.Num()
			if math.IsNaN(x) || math.Abs(x) > 5 {
				return math.Copysign(5, x)
			}
			return x
		}
		cast, err := narrow.NewPolygon(squareOutline(0.25))
		if err != nil {
			t.Fatal(err)
		}
		for range 24 {
			if r.Done() {
				break
			}
			pick := func() int {
				n := len(worlds[0].bodies)
				if n == 0 {
					r.Byte()
					return -1
				}
				return int(r.Byte()) % n
			}
			op := r.Byte() % 7
			switch op {
			case 0: // a dynamic body: kind 0 an irtcd outline, 1 a native box, 2 a circle, 3 both an outline and a box
				kind := r.Byte() % 4
				x, y, angle := finite(), finite(), finite()
				var outline []b2.B2Vec2
				if kind == 0 || kind == 3 {
					for range int(r.Byte())%8 + 3 {
						outline = append(outline, b2.B2Vec2{X: r.Num(), Y: r.Num()})
					}
				}
				var errs [2]error
				for k, w := range worlds {
					b := body(w.w, b2.B2BodyType.B2_dynamicBody, x, y, angle)
					w.bodies = append(w.bodies, b)
					if outline != nil {
						_, errs[k] = box2dadapter.AddOutline(b, 1, outline)
					}
					switch kind {
					case 1, 3:
						nativeBox(b, 0.2, 0.3, 1)
					case 2:
						circle(b, 0.25)
					}
				}
				if (errs[0] == nil) != (errs[1] == nil) {
					t.Fatalf("AddOutline: %v and %v", errs[0], errs[1])
				}
				if errs[0] != nil && !narrowErr(errs[0]) {
					t.Fatalf("AddOutline(%v): error %v wraps no sentinel", outline, errs[0])
				}
			case 1, 2: // destroy a body
				if i := pick(); i >= 0 {
					for _, w := range worlds {
						w.ad.DestroyBody(w.bodies[i])
						w.bodies = append(w.bodies[:i], w.bodies[i+1:]...)
					}
				}
			case 3: // set a velocity, up to 50 m/s
				i := pick()
				vx, vy, om := 10*finite(), 10*finite(), finite()
				if i >= 0 {
					for _, w := range worlds {
						w.bodies[i].SetLinearVelocity(b2.B2Vec2{X: vx, Y: vy})
						w.bodies[i].SetAngularVelocity(om)
					}
				}
			case 4: // a step
				for _, w := range worlds {
					if err := w.ad.Step(context.Background(), 1.0/60, 8, 3); err != nil {
						t.Fatalf("Step: %v", err)
					}
				}
				for i, b := range worlds[0].bodies {
					c := worlds[1].bodies[i]
					p, q := b.GetPosition(), c.GetPosition()
					if math.IsNaN(p.X) || math.IsInf(p.X, 0) || math.IsNaN(p.Y) || math.IsInf(p.Y, 0) {
						t.Fatalf("body %d's position %v is not finite", i, p)
					}
					if p != q || b.GetAngle() != c.GetAngle() || b.GetLinearVelocity() != c.GetLinearVelocity() || b.GetAngularVelocity() != c.GetAngularVelocity() {
						t.Fatalf("body %d: %v, %v with one worker, %v, %v with two", i, p, b.GetAngle(), q, c.GetAngle())
					}
				}
			case 5: // a body's fixtures become sensors, or stop being ones
				if i := pick(); i >= 0 {
					for _, w := range worlds {
						for fx := w.bodies[i].GetFixtureList(); fx != nil; fx = fx.GetNext() {
							fx.SetSensor(!fx.IsSensor())
						}
					}
				}
			case 6: // a shape cast from a finite place by any translation
				x, y := finite(), finite()
				tr := b2.B2Vec2{X: r.Num(), Y: r.Num()}
				var hits [2]box2dadapter.CastHit
				var oks [2]bool
				var errs [2]error
				xf := b2.MakeB2Transform()
				xf.Set(b2.B2Vec2{X: x, Y: y}, 0)
				for k, w := range worlds {
					hits[k], oks[k], errs[k] = w.ad.ShapeCast(cast, xf, tr, nil)
				}
				if errs[0] != nil && !narrowErr(errs[0]) {
					t.Fatalf("ShapeCast by %v: error %v wraps no sentinel", tr, errs[0])
				}
				if (errs[0] == nil) != (errs[1] == nil) || oks[0] != oks[1] || oks[0] && (hits[0].Fraction != hits[1].Fraction || hits[0].Point != hits[1].Point) {
					t.Fatalf("ShapeCast by %v: %+v %v %v, then %+v %v %v", tr, hits[0], oks[0], errs[0], hits[1], oks[1], errs[1])
				}
			}
			for _, w := range worlds {
				if err := w.ad.CheckContacts(); err != nil {
					t.Fatalf("after op %d: %v", op, err)
				}
			}
		}
	})
}

// narrowErr reports whether err wraps one of narrow's sentinels.
func narrowErr(err error) bool {
	for _, s := range []error{narrow.ErrEmpty, narrow.ErrNonFinite, narrow.ErrIndexRange, narrow.ErrDegenerate,
		narrow.ErrSelfIntersect, narrow.ErrWinding, narrow.ErrTooLarge, narrow.ErrBadPose, narrow.ErrBadMotion, box2dadapter.ErrNotPolygon} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// squareOutline is a square of half-size h about the origin.
func squareOutline(h float64) []mgl64.Vec2 {
	return []mgl64.Vec2{{-h, -h}, {h, -h}, {h, h}, {-h, h}}
}
