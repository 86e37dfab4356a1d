// Package iterative implements the iterative ray/triangle-mesh intersection
// of Lehericey, Gouranton and Arnaldi, "New Iterative Ray-Traced Collision
// Detection Algorithm for GPU Architectures" (VRST 2013): a ray that hit
// primitive p at the last step is re-cast on p and, while it misses, walks to
// the neighbour across the closest edge (Algorithms 1 and 2), at most maxIt
// times (Eq. 1). A pair is updated this way while its relative displacement
// since its last standard step (Eq. 2) stays under displacementThreshold.
//
// The walk works on triangles (edge adjacency) and on polygon segments
// (endpoint adjacency: u < 0 steps to the previous segment, u > 1 to the
// next), because narrow stores segments as degenerate triangles.
package iterative

import (
	"math"

	"github.com/irtcd/irtcd/narrow"
)

// MaxIt is Eq. 1 of Lehericey et al. 2013 (§3.1):
// maxIt = confidence × displacementThreshold / averageTrianglesSize,
// rounded up, and at least 1.
func MaxIt(confidence, displacementThreshold, averageTrianglesSize float64) int {
	if !(averageTrianglesSize > 0) {
		return 1
	}
	return max(1, int(math.Ceil(confidence*displacementThreshold/averageTrianglesSize)))
}

// Displacement is Eq. 2 of Lehericey et al. 2013 (§3.3): an upper bound on
// how far any point of the second body has moved relative to the first since
// the last standard step, ‖t_ni − t‖ + angle(q_ni, q) × maxRadius, where
// (t, q) is the second body's pose in the first body's frame.
func Displacement(ni, now narrow.Pose, maxRadius float64) float64 {
	return now.Pos.Sub(ni.Pos).Len() + narrow.Angle(ni.Rot, now.Rot)*maxRadius
}

// Outcome is the result of one iterative walk.
type Outcome uint8

// Walk outcomes.
const (
	// Lost: no primitive found within maxIt steps, the walk left the
	// surface, the ray became parallel to a primitive (discarded, §3.2), or
	// the primitive was hit from outside (the vertex is not in collision).
	Lost Outcome = iota
	// Hit: the ray hits the primitive from the target's inside at t ≥ 0 —
	// a collision (Algorithm 2, "ray intersects triangle").
	Hit
	// Behind: the line crosses the primitive behind the ray's origin
	// ("ray behind triangle", Algorithm 2). Without prediction the ray is
	// discarded; with prediction this is line 6 of Algorithm 1 of Lehericey
	// et al. 2013b and the primitive may be kept (package predictive).
	Behind
)

// Result describes a finished walk. (Four fields: the compiler keeps such
// a struct in registers.)
type Result struct {
	Outcome Outcome
	Prim    int32   // the primitive where the walk stopped
	T       float64 // line parameter of the crossing (negative for Behind)
	Inside  bool    // ray direction · outward normal > 0
}

// Walk is Algorithm 1 (Lehericey et al. 2013) with the closest-edge rule of
// Algorithm 2: starting from primitive prim of dst, cast the line o + t·d
// (dst-local, d unit) on the current primitive; if the crossing lies
// outside it, step across the edge given by u < 0, else v < 0, else
// u + v > 1, at most maxIt primitives in all. It also returns the number of
// primitives visited.
func Walk(dst *narrow.Shape, prim int32, o, d *[3]float64, maxIt int) (r Result, steps int) {
	const eps = narrow.BaryEps
	tEps := dst.TEps()
	r = Result{Outcome: Lost, Prim: prim}
	for i := 0; i < maxIt; i++ {
		t, u, v, inside, ok := dst.Barycentric(prim, o, d)
		steps++
		r.Prim, r.T, r.Inside = prim, t, inside
		if !ok {
			return r, steps // parallel: discarded
		}
		var edge int
		switch {
		case u < -eps:
			edge = 0
		case v < -eps:
			edge = 1
		case u+v > 1+eps:
			edge = 2
		case t >= -tEps:
			if inside {
				r.Outcome = Hit
			}
			return r, steps
		default:
			r.Outcome = Behind
			return r, steps
		}
		next := int32(dst.Adjacent(int(prim), edge))
		if next < 0 {
			return r, steps
		}
		prim = next
	}
	r.Outcome = Lost
	return r, steps
}
