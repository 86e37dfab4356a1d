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
// to to.Rot), as a body integrating a constant velocity and spin does.
//
// It advances conservatively (Mirtich's conservative advancement): at
// each fraction t it measures the distance d to b (Distance), which no
// point of a can cover in less than d / (|Δpos| + θ·r) of the motion (θ
// the turn's angle, r the farthest vertex of a from its origin), and
// moves on by that much, until d ≤ tol. The shapes never overlap at a
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
	if !(tol > 0) || math.IsInf(tol, 1) {
		return Cast{}, false, fmt.Errorf("cast motion: %w: tol %v (want a positive finite number)", ErrBadParams, tol)
	}
	end := Pair{PoseA: to, PoseB: pb}
	if err := CheckPair(&end, a, b); err != nil {
		return Cast{}, false, fmt.Errorf("cast motion: end: %w", err)
	}
	c, _, err := Distance(a, b, from, pb, math.Inf(1))
	if err != nil {
		return Cast{}, false, fmt.Errorf("cast motion: %w", err)
	}
	if c.Overlap || c.Dist <= tol {
		return castAt(&c, 0), true, nil
	}
	p0 := Pair{PoseA: from, PoseB: pb}
	_ = CheckPair(&p0, a, b) // normalises the poses (Distance checked them)
	q0, q1 := p0.PoseA.Rot, end.PoseA.Rot
	if q0.Dot(q1) < 0 {
		q1 = q1.Scale(-1) // the shorter way round
	}
	half := math.Acos(min(1, q0.Dot(q1))) // half the turn's angle
	move := end.PoseA.Pos.Sub(p0.PoseA.Pos)
	r := 0.0
	for _, v := range a.verts {
		r = max(r, len3(v))
	}
	speed := move.Len() + 2*half*r // of any point of a, per unit of the fraction
	// Rounding in the poses between steps: a step of d/speed is trimmed
	// by a part in 1e9.
	speed *= 1 + 1e-9
	t := 0.0
	for range castMotionSteps {
		d := c.Dist
		if !(speed > 0) {
			return Cast{}, false, nil
		}
		t += d / speed
		if t > 1 {
			return Cast{}, false, nil
		}
		pose := Pose{Pos: p0.PoseA.Pos.Add(move.Mul(t)), Rot: slerpUnit(q0, q1, half, t)}
		if c, _, err = Distance(a, b, pose, pb, math.Inf(1)); err != nil {
			return Cast{}, false, fmt.Errorf("cast motion: at %v: %w", t, err)
		}
		if c.Overlap {
			// Rounding let the step overshoot a touch by a few ulps:
			// report it as one.
			return Cast{Fraction: t, Start: t == 0}, true, nil
		}
		if c.Dist <= tol {
			return castAt(&c, t), true, nil
		}
	}
	return castAt(&c, t), true, nil
}

// castAt is the Cast of a fraction where the shapes are c apart.
func castAt(c *Closest, t float64) Cast {
	if c.Overlap {
		return Cast{Fraction: t, Start: t == 0}
	}
	out := Cast{Fraction: t, Point: c.PA.Add(c.PB).Mul(0.5)}
	if c.Dist > 0 {
		out.Normal = c.PA.Sub(c.PB).Mul(1 / c.Dist)
	}
	return out
}

// slerpUnit turns unit quaternion q0 towards q1 (q0·q1 ≥ 0, half the
// angle between them) by fraction t at constant angular velocity.
func slerpUnit(q0, q1 mgl64.Quat, half, t float64) mgl64.Quat {
	if half < 1e-9 {
		return q0.Scale(1 - t).Add(q1.Scale(t)).Normalize()
	}
	s := math.Sin(half)
	return q0.Scale(math.Sin((1-t)*half) / s).Add(q1.Scale(math.Sin(t*half) / s)).Normalize()
}
