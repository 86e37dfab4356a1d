package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// castMotionSteps bounds CastMotion's advancement steps.
const castMotionSteps = 1000

// CastMotion moves shape a from pose from to pose to, turning as it goes,
// and returns where it first comes within tol of shape b at pose pb, and
// whether it does before the end of the motion: a shape cast for a motion
// with rotation (CastShape's motion is a translation). Along the motion
// a's position moves at constant velocity and its orientation turns at
// constant angular velocity about one axis (the shorter way from from.Rot
// to to.Rot; either way for exactly half a turn), as a body integrating a
// constant velocity and spin does.
//
// It advances conservatively (Mirtich's conservative advancement): at
// each fraction t it measures the distance d to b (Distance), which no
// point of a can cover in less than d / (|Δpos| + θ·r) of the motion (θ
// the turn's angle, r the farthest vertex of a from its origin), and
// moves on by (d − tol/2) / (|Δpos| + θ·r), until d ≤ tol. The shapes never overlap at a
// fraction it passes: Cast.Fraction is at most the true first touch's,
// where the shapes are within tol, Point the midpoint of their closest
// points and Normal b's direction towards a there. Shapes that overlap at
// the start give Cast.Start. A motion that grazes b may take many steps;
// after 1000 it stops and reports a touch at the fraction reached, still
// short of any overlap.
//
// It allocates nothing. The shapes must have the same dimension, the
// poses be valid (2D shapes turn about z and move in their plane) and tol
// positive and finite: errors wrap ErrEmpty, ErrDimension, ErrBadPose or
// ErrBadParams.
func CastMotion(a, b *Shape, from, to, pb Pose, tol float64) (Cast, bool, error) {
	c, hit, _, err := castMotion(a, b, from, to, pb, tol, castMotionSteps)
	return c, hit, err
}

// CastMotionWithin is CastMotion with at most steps (at least 1)
// advancement steps; it also reports whether it ran out of them (the
// touch it then reports is only a fraction it reached safely, not one
// where the shapes meet): continuous collision detection takes that as
// no answer.
func CastMotionWithin(a, b *Shape, from, to, pb Pose, tol float64, steps int) (c Cast, hit, out bool, err error) {
	return castMotion(a, b, from, to, pb, tol, steps)
}

func castMotion(a, b *Shape, from, to, pb Pose, tol float64, steps int) (Cast, bool, bool, error) {
	if !(tol > 0) || math.IsInf(tol, 1) {
		return Cast{}, false, false, fmt.Errorf("cast motion: %w: tol %v (want a positive finite number)", ErrBadParams, tol)
	}
	if steps < 1 {
		return Cast{}, false, false, fmt.Errorf("cast motion: %w: %d steps (want at least 1)", ErrBadParams, steps)
	}
	m, err := motionOf(a, b, from, to, pb)
	if err != nil {
		return Cast{}, false, false, fmt.Errorf("cast motion: %w", err)
	}
	// Of any point of a, per unit of the fraction (radius: a's farthest
	// vertex from its origin).
	speed := m.move.Len() + 2*m.half*a.radius
	// Rounding in the poses between steps: a step is trimmed by a part in
	// 1e9.
	speed *= 1 + 1e-9
	// Each search looks only as far as a can still move, plus tol: shapes
	// farther apart cannot touch before the end, and the search prunes
	// everything beyond its max. Each starts from the previous nearest
	// pair of primitives, near the new nearest at nearby poses.
	var seed distSeed
	c, within, err := distance(a, b, from, pb, speed+tol, &seed)
	if err != nil {
		return Cast{}, false, false, fmt.Errorf("cast motion: %w", err)
	}
	if !within {
		return Cast{}, false, false, nil
	}
	if c.Overlap || c.Dist <= tol {
		return castAt(&c, 0, m.at(0)), true, false, nil
	}
	t := 0.0
	for range steps {
		if !(speed > 0) {
			return Cast{}, false, false, nil
		}
		// Advance to where the shapes could be tol/2 apart, not 0: a
		// head-on approach then ends tol/2 short of the touch, clear of
		// Overlap's tolerance of touching.
		t += (c.Dist - 0.5*tol) / speed
		if t > 1 {
			return Cast{}, false, false, nil
		}
		pose := m.at(t)
		if c, within, err = distance(a, b, pose, pb, (1-t)*speed+tol, &seed); err != nil {
			return Cast{}, false, false, fmt.Errorf("cast motion: at %v: %w", t, err)
		}
		if !within {
			return Cast{}, false, false, nil
		}
		if c.Overlap {
			// Rounding let the step overshoot a touch by a few ulps:
			// report it as one.
			return Cast{Fraction: t, Start: t == 0, Pose: pose}, true, false, nil
		}
		if c.Dist <= tol {
			return castAt(&c, t, pose), true, false, nil
		}
	}
	return castAt(&c, t, m.at(t)), true, true, nil
}

// castAt is the Cast of fraction t, where the shapes are c apart with the
// moving one at pose.
func castAt(c *Closest, t float64, pose Pose) Cast {
	if c.Overlap {
		return Cast{Fraction: t, Start: t == 0, Pose: pose}
	}
	out := Cast{Fraction: t, Point: c.PA.Add(c.PB).Mul(0.5), Pose: pose}
	if c.Dist > 0 {
		out.Normal = c.PA.Sub(c.PB).Mul(1 / c.Dist)
	}
	return out
}

// motion is CastMotion's path: the position moves by move, the
// orientation turns from q0 to q1 (q0·q1 ≥ 0) through twice half.
type motion struct {
	pos, move mgl64.Vec3
	q0, q1    mgl64.Quat
	half      float64
}

// motionOf checks the poses of a cast of a from from to to against b at
// pb and returns the path between them, from the poses CheckPair
// normalises: the turn's direction depends on their last bits when it is
// half a turn, either way being as short.
func motionOf(a, b *Shape, from, to, pb Pose) (motion, error) {
	p0, p1 := Pair{PoseA: from, PoseB: pb}, Pair{PoseA: to, PoseB: pb}
	if err := CheckPair(&p0, a, b); err != nil {
		return motion{}, fmt.Errorf("start: %w", err)
	}
	if err := CheckPair(&p1, a, b); err != nil {
		return motion{}, fmt.Errorf("end: %w", err)
	}
	m := motion{pos: p0.PoseA.Pos, move: p1.PoseA.Pos.Sub(p0.PoseA.Pos), q0: p0.PoseA.Rot, q1: p1.PoseA.Rot}
	if m.q0.Dot(m.q1) < 0 {
		m.q1 = m.q1.Scale(-1) // the shorter way round
	}
	m.half = math.Acos(min(1, m.q0.Dot(m.q1)))
	return m, nil
}

// at returns the pose at fraction t: the orientation turned at constant
// angular velocity (slerp).
func (m *motion) at(t float64) Pose {
	var q mgl64.Quat
	if m.half < 1e-9 {
		q = m.q0.Scale(1 - t).Add(m.q1.Scale(t)).Normalize()
	} else {
		s := math.Sin(m.half)
		q = m.q0.Scale(math.Sin((1-t)*m.half) / s).Add(m.q1.Scale(math.Sin(t*m.half) / s)).Normalize()
	}
	return Pose{Pos: m.pos.Add(m.move.Mul(t)), Rot: q}
}
