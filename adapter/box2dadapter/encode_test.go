package box2dadapter

import (
	"math"
	"math/rand/v2"
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/narrow"
)

// TestEncodeSeparation: for random transforms, skin radii, points, depths
// and normals, box2d reads back exactly what encode wrote: the normal
// −d (A→B) and, for every point, the separation −pd — in the world
// manifold the velocity solver uses and in the position solver's
// manifold — with the points moved along the normal only.
func TestEncodeSeparation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	xf := func() b2.B2Transform {
		var x b2.B2Transform
		x.Set(b2.B2Vec2{X: rng.NormFloat64() * 5, Y: rng.NormFloat64() * 5}, rng.Float64()*2*math.Pi)
		return x
	}
	for i := 0; i < 20000; i++ {
		var p prepared
		p.ok, p.xfA, p.xfB = true, xf(), xf()
		a := rng.Float64() * 2 * math.Pi
		p.d = b2.B2Vec2{X: math.Cos(a), Y: math.Sin(a)}
		p.n = 1 + rng.IntN(2)
		p.faceB = rng.IntN(2) == 0
		for k := 0; k < p.n; k++ {
			p.pts[k] = point{p: b2.B2Vec2{X: rng.NormFloat64() * 5, Y: rng.NormFloat64() * 5}, pd: rng.ExpFloat64() * 0.05, id: uint32(k)}
		}
		rA, rB := []float64{0, b2.B2_polygonRadius, 0.3}[rng.IntN(3)], []float64{0, b2.B2_polygonRadius}[rng.IntN(2)]
		var m b2.B2Manifold
		encode(&m, &p, rA+rB)

		var wm b2.B2WorldManifold
		wm.Initialize(&m, p.xfA, rA, p.xfB, rB)
		if d := b2.B2Vec2Distance(wm.Normal, b2.B2Vec2{X: -p.d.X, Y: -p.d.Y}); d > 1e-12 {
			t.Fatalf("case %d: world normal %v, want %v", i, wm.Normal, p.d.OperatorNegate())
		}
		pc := b2.B2ContactPositionConstraint{LocalNormal: m.LocalNormal, LocalPoint: m.LocalPoint, Type: m.Type, RadiusA: rA, RadiusB: rB, PointCount: m.PointCount}
		for k := 0; k < p.n; k++ {
			pc.LocalPoints[k] = m.Points[k].LocalPoint
		}
		for k := 0; k < p.n; k++ {
			tol := 1e-12 * (1 + p.pts[k].p.Length())
			if e := math.Abs(wm.Separations[k] + p.pts[k].pd); e > tol {
				t.Fatalf("case %d point %d: world separation %v, want %v", i, k, wm.Separations[k], -p.pts[k].pd)
			}
			var psm b2.B2PositionSolverManifold
			psm.Initialize(&pc, p.xfA, p.xfB, k)
			if e := math.Abs(psm.Separation + p.pts[k].pd); e > tol {
				t.Fatalf("case %d point %d: position-solver separation %v, want %v", i, k, psm.Separation, -p.pts[k].pd)
			}
			// The solver point differs from P only along the normal.
			off := b2.B2Vec2Sub(psm.Point, p.pts[k].p)
			if tang := math.Abs(b2.B2Vec2Cross(off, p.d)); tang > tol {
				t.Fatalf("case %d point %d: solver point %v moved %v off P %v across the normal", i, k, psm.Point, tang, p.pts[k].p)
			}
			if m.Points[k].Id.Key() != p.pts[k].id {
				t.Fatalf("case %d point %d: key %d, want %d", i, k, m.Points[k].Id.Key(), p.pts[k].id)
			}
		}
	}
}

// TestPlaneOffsetIsEncodeSlide: planeOffset + pd_i − pd_0, which keep
// bounds by slideTol, is exactly how far encode slides point i along the
// normal, whichever side its vertex and the first point's are from.
func TestPlaneOffsetIsEncodeSlide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 20000; i++ {
		var p prepared
		p.xfA.Set(b2.B2Vec2{X: rng.NormFloat64(), Y: rng.NormFloat64()}, rng.Float64()*2*math.Pi)
		p.xfB.Set(b2.B2Vec2{X: rng.NormFloat64(), Y: rng.NormFloat64()}, rng.Float64()*2*math.Pi)
		a := rng.Float64() * 2 * math.Pi
		p.d = b2.B2Vec2{X: math.Cos(a), Y: math.Sin(a)}
		p.n = 2
		for k := range 2 {
			p.pts[k] = point{p: b2.B2Vec2{X: rng.NormFloat64(), Y: rng.NormFloat64()}, pd: rng.ExpFloat64() * 0.05, from: narrow.Side(rng.IntN(2))}
		}
		p.faceB = p.pts[0].from == narrow.SideA // as prepare sets it
		var m b2.B2Manifold
		encode(&m, &p, 0)
		xfO := p.xfB // faceA: the points live in B's frame
		if p.faceB {
			xfO = p.xfA
		}
		clip := b2.B2TransformVec2Mul(xfO, m.Points[1].LocalPoint)
		moved := b2.B2Vec2Distance(clip, p.pts[1].p)
		want := math.Abs(planeOffset(p.d, p.pts[0].p, p.pts[1].p, p.pts[0].from) + p.pts[1].pd - p.pts[0].pd)
		if math.Abs(moved-want) > 1e-9 {
			t.Fatalf("case %d (sides %v, %v): encode moved point 1 by %v, planeOffset says %v", i, p.pts[0].from, p.pts[1].from, moved, want)
		}
	}
}
