package box2dadapter

import (
	"math"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/narrow"
)

// toiPenetration is how far past first touch (along the sweep) a time of
// impact stops the bodies: a fraction of box2d's linear slop, so that the
// contact evaluated at that pose is touching (box2d drops a TOI event
// whose contact does not touch) and the solver still sees almost no
// overlap.
const toiPenetration = 0.5 * b2.B2_linearSlop

// timeOfImpact answers box2d's SolveTOI for an irtcd contact. It mirrors
// the checks of box2d's own computation (World.SolveTOI: sensors, active
// bodies, bullets and static or kinematic bodies only; sweeps advanced to
// a common start), then casts sweep rays instead of box2d's conservative
// advancement on convex proxies, which does not know concave shapes:
//
// every vertex of each shape moves from its position at the start of the
// sub-step to its position at the end; the segment between the two,
// expressed in the other body's frame at the matching times, is traced
// against the other shape (the same exact BVH traversal as the standard
// rays). The earliest hit that enters the other shape from outside is the
// time of impact, advanced by toiPenetration. For rotating bodies the
// vertex path is the chord of its arc: exact for translations, first
// order in the rotation.
//
// Sweeps are skipped when neither body can move through the other: when
// the relative motion of any vertex is below half the thinner shape's
// Thickness, a crossing would leave vertices inside, where the ordinary
// contacts of the next step find them.
func (a *Adapter) timeOfImpact(c *contact) float64 {
	fA, fB := c.M_fixtureA, c.M_fixtureB
	if fA.M_isSensor || fB.M_isSensor {
		return 1
	}
	bA, bB := fA.M_body, fB.M_body
	dyn, static := b2.B2BodyType.B2_dynamicBody, b2.B2BodyType.B2_staticBody
	activeA := awake(bA) && bA.M_type != static
	activeB := awake(bB) && bB.M_type != static
	if !activeA && !activeB {
		return 1
	}
	collideA := bA.IsBullet() || bA.M_type != dyn
	collideB := bB.IsBullet() || bB.M_type != dyn
	if !collideA && !collideB {
		return 1
	}
	alpha0 := bA.M_sweep.Alpha0
	if bA.M_sweep.Alpha0 < bB.M_sweep.Alpha0 {
		alpha0 = bB.M_sweep.Alpha0
		bA.M_sweep.Advance(alpha0)
	} else if bB.M_sweep.Alpha0 < bA.M_sweep.Alpha0 {
		alpha0 = bA.M_sweep.Alpha0
		bB.M_sweep.Advance(alpha0)
	}
	sa, err := a.shapeOf(fA, c.M_indexA)
	if err != nil {
		return 1
	}
	sb, err := a.shapeOf(fB, c.M_indexB)
	if err != nil {
		return 1
	}
	var a0, a1, b0, b1 b2.B2Transform
	bA.M_sweep.GetTransform(&a0, 0)
	bA.M_sweep.GetTransform(&a1, 1)
	bB.M_sweep.GetTransform(&b0, 0)
	bB.M_sweep.GetTransform(&b1, 1)
	// Largest relative displacement of a vertex, bounded by the motion of
	// the centres plus the rotation times the shapes' radii.
	move := func(s *b2.B2Sweep, sh *narrow.Shape) float64 {
		return b2.B2Vec2Distance(s.C0, s.C) + math.Abs(s.A-s.A0)*(sh.Radius()+b2.B2Vec2Distance(s.LocalCenter, b2.B2Vec2{}))
	}
	if move(&bA.M_sweep, sa)+move(&bB.M_sweep, sb) < 0.5*min(sa.Thickness(), sb.Thickness()) {
		return 1
	}
	a.stats.Sweeps++
	beta := sweep(sb, b0, b1, sa, a0, a1, sweep(sa, a0, a1, sb, b0, b1, 1))
	if beta >= 1 {
		return 1
	}
	return min(alpha0+(1-alpha0)*beta, 1)
}

// sweep returns the earliest fraction of the step below limit at which a
// vertex of s, moving with transforms s0 → s1, enters o, moving with
// o0 → o1 (limit if none), advanced by toiPenetration along the vertex
// path (narrow.SweepBefore: the other way's fraction as the limit cuts
// the paths there).
func sweep(s *narrow.Shape, s0, s1 b2.B2Transform, o *narrow.Shape, o0, o1 b2.B2Transform, limit float64) float64 {
	var from, to narrow.Transform
	t0, t1, u0, u1 := transform3(s0), transform3(s1), transform3(o0), transform3(o1)
	from.SetRelative(&u0, &t0)
	to.SetRelative(&u1, &t1)
	return narrow.SweepBefore(s, &from, &to, o, toiPenetration, limit)
}

// transform3 returns a box2d transform as a 3D one (a rotation about z).
func transform3(t b2.B2Transform) narrow.Transform {
	c, s := t.Q.C, t.Q.S
	return narrow.Transform{R: [9]float64{c, -s, 0, s, c, 0, 0, 0, 1}, T: [3]float64{t.P.X, t.P.Y, 0}}
}
