package rigid

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// PreSolve is a pair of bodies about to be solved, as the function set by
// World.SetPreSolve sees it and may change it: one-way platforms, conveyor
// belts, per-pair materials.
type PreSolve struct {
	A, B BodyID // A < B
	// Points are the pair's solver points, in key order (see
	// ContactPoints); a point whose Disable is set is left out. The
	// world reuses the slice for the next pair: change its elements, do
	// not keep it.
	Points []PrePoint
	// Friction and Restitution are the pair's combined coefficients
	// (√(μA·μB) and max(eA, eB)), which the function may change (finite
	// and not negative).
	Friction, Restitution float64
	// SurfaceVelocity is a velocity of A's surface relative to B's (world
	// axes; zero unless set), added to the bodies' own at every point:
	// its part along the contact plane moves what lies on a belt, as
	// friction carries it.
	SurfaceVelocity mgl64.Vec3
	// Disable leaves the pair out of this step's solver altogether.
	Disable bool
}

// PrePoint is a solver point of a PreSolve: where the impulses act, the
// unit normal from B towards A, and the penetration depth along it (< 0:
// a speculative point's gap).
type PrePoint struct {
	Point, Normal mgl64.Vec3
	Depth         float64
	Disable       bool
}

// SetPreSolve sets f to be called by Step for every pair with solver
// points, in pair order (PairID), after the narrow phase and before the
// solver; nil removes it. f may change the pair's friction, restitution
// and surface velocity, and disable points or the whole pair for this
// step. A disabled pair still touches (ContactEvents, Touching), as in
// box2d: only its response is gone. f must be deterministic for the
// world to be, and must not call the World. A coefficient or velocity
// that is not finite, or a negative coefficient, fails the step with a
// *PairError wrapping ErrBadMaterial (the world left as it was).
func (w *World) SetPreSolve(f func(p *PreSolve)) { w.preSolve = f }

// preSolvePair offers the points cs of pair id (bodies a, b) to the
// pre-solve function and applies its changes; it returns the points kept
// (a prefix of cs).
func (w *World) preSolvePair(id uint64, a, b *Body, cs []contact) ([]contact, error) {
	w.prePoints = w.prePoints[:0]
	for i := range cs {
		c := &cs[i]
		w.prePoints = append(w.prePoints, PrePoint{Point: c.p, Normal: c.d[0].vec3(), Depth: c.depth})
	}
	p := &w.pre
	*p = PreSolve{A: BodyID(id >> 32), B: BodyID(uint32(id)), Points: w.prePoints,
		Friction: cs[0].mu, Restitution: math.Max(a.restitution, b.restitution)}
	w.preSolve(p)
	switch {
	case !finite(p.Friction) || p.Friction < 0 || !finite(p.Restitution) || p.Restitution < 0 || !finiteVec(p.SurfaceVelocity):
		return cs, &PairError{ID: id, A: p.A, B: p.B, Err: fmt.Errorf("%w: pre-solve set friction %v, restitution %v, surface velocity %v",
			ErrBadMaterial, p.Friction, p.Restitution, p.SurfaceVelocity)}
	case p.Disable:
		return cs[:0], nil
	}
	sv := vec(p.SurfaceVelocity)
	kept := cs[:0]
	for i := range cs {
		if w.prePoints[i].Disable {
			continue
		}
		c := cs[i]
		c.mu, c.bounce = p.Friction, p.Restitution // bounce holds the restitution until the targets are set
		c.u[1] += c.d[1].dot(sv)
		c.u[2] += c.d[2].dot(sv)
		kept = append(kept, c)
	}
	return kept, nil
}
