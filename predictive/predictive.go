// Package predictive implements the collision prediction of Lehericey,
// Gouranton and Arnaldi, "Ray-Traced Collision Detection: Interpenetration
// Control and Multi-GPU Performance" (JVRC 2013), §3.1: when a vertex's ray
// finds no collision, the opposite ray from the same vertex is traced; if it
// enters the other body within cullingDist (Eq. 1), the primitive it hits is
// kept as a candidate for the next iterative step, so that vertices about to
// collide are found by the iterative algorithm instead of waiting for the next
// standard step.
//
// In a standard step the opposite ray shares the standard ray's traversal
// (narrow.Direction.Standard with back = cullingDist: one loop for the basic
// traversal, one BVH walk over the interval [-cullingDist, tHit] for the BVH).
// In an iterative step it is line 6-7 of Algorithm 1: a walk that ends on a
// primitive behind the ray keeps it as a prediction.
package predictive

import (
	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
)

// CullingDist is Eq. 1 of Lehericey et al. 2013b:
// cullingDist = confidence × displacementThreshold.
func CullingDist(confidence, displacementThreshold float64) float64 {
	return confidence * displacementThreshold
}

// FromStandard returns the primitive to keep as a prediction after a
// standard ray, if any: the ray found no collision and its opposite ray
// enters the other body (opposite direction · outward normal < 0, i.e. the
// standard direction · normal > 0) within cullingDist.
func FromStandard(out narrow.Outcome, cullingDist float64) (int32, bool) {
	if out.Contact || out.Occluded || out.Bwd.Prim < 0 || !out.Bwd.Inside || -out.Bwd.T > cullingDist {
		return -1, false
	}
	return out.Bwd.Prim, true
}

// FromWalk returns the primitive to keep as a prediction after an iterative
// walk (Algorithm 1 of 2013b, lines 6-7): the walk stopped on a primitive
// behind the ray that the opposite ray enters, within cullingDist.
func FromWalk(r iterative.Result, cullingDist float64) (int32, bool) {
	if r.Outcome != iterative.Behind || !r.Inside || -r.T > cullingDist {
		return -1, false
	}
	return r.Prim, true
}
