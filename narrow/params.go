package narrow

import (
	"fmt"
	"math"
)

// Method selects the collision detection algorithm.
type Method uint8

// Methods. The zero value is the full algorithm.
const (
	// MethodPredictive is IRTCD with predictive rays: standard steps cast
	// opposite rays whose hits seed the iterative steps (Lehericey et al.
	// 2013b, §3.1, Algorithm 1).
	MethodPredictive Method = iota
	// MethodIterative is IRTCD (Lehericey et al. 2013, §3): iterative
	// updates while the pair's displacement stays under the threshold.
	MethodIterative
	// MethodStandard is Hermann et al.'s ray-traced CD at every step.
	MethodStandard
)

// String returns the method's name as ParseMethod accepts it.
func (m Method) String() string {
	switch m {
	case MethodPredictive:
		return "predictive"
	case MethodIterative:
		return "iterative"
	case MethodStandard:
		return "standard"
	}
	return "method?"
}

// ParseMethod accepts "standard", "iterative" and "predictive" (also
// "iterative+predictive").
func ParseMethod(s string) (Method, error) {
	switch s {
	case "standard":
		return MethodStandard, nil
	case "iterative":
		return MethodIterative, nil
	case "predictive", "iterative+predictive":
		return MethodPredictive, nil
	}
	return 0, fmt.Errorf("%w: unknown method %q (want standard, iterative or predictive)", ErrBadParams, s)
}

// ParseTraversal accepts "bvh" and "basic".
func ParseTraversal(s string) (Traversal, error) {
	return parseName(s, "traversal", "bvh or basic", TraversalBVH, TraversalBasic)
}

// parseName returns the value among vals whose String is s, or an error
// naming what was asked for and the names wanted.
func parseName[T fmt.Stringer](s, what, want string, vals ...T) (T, error) {
	for _, v := range vals {
		if v.String() == s {
			return v, nil
		}
	}
	var zero T
	return zero, fmt.Errorf("%w: unknown %s %q (want %s)", ErrBadParams, what, s, want)
}

// Response selects how a ray becomes a contact (package reprojection).
type Response uint8

// Responses. The zero value is MTD re-projection.
const (
	// ResponseMTD re-projects the ray on the hit surface's normal:
	// P = vertex, Depth = r·n, Dir = n (Lehericey et al. 2013b, §3.2).
	ResponseMTD Response = iota
	// ResponseRay uses the raw ray of Hermann et al.: Depth = |r|, Dir = r/|r|.
	ResponseRay
	// ResponseWeighted is the raw ray with its depth weighted by the
	// cosine between ray and hit normal, our reading of Hermann et al.'s
	// weighting that damps oblique (tangential) rays.
	ResponseWeighted
)

// String returns the response's name as ParseResponse accepts it.
func (r Response) String() string {
	switch r {
	case ResponseMTD:
		return "mtd"
	case ResponseRay:
		return "ray"
	case ResponseWeighted:
		return "weighted"
	}
	return "response?"
}

// ParseResponse accepts "mtd", "ray" and "weighted".
func ParseResponse(s string) (Response, error) {
	return parseName(s, "response", "mtd, ray or weighted", ResponseMTD, ResponseRay, ResponseWeighted)
}

// Culling selects the vertices a standard step casts rays from.
type Culling uint8

// Cullings. The zero value is irtcd's.
const (
	// CullTight casts from the vertices that pass every test of
	// Direction.InCull: in the two world bounding boxes' intersection,
	// the other body's local box and 26-DOP and its outside grid, all
	// grown by DistanceExtension (docs/DESIGN.md, "Which vertices cast
	// rays").
	CullTight Culling = iota
	// CullBoxes casts from every vertex in the intersection of the two
	// world bounding boxes grown by DistanceExtension: the ray-count
	// optimisation of Hermann et al. (2008) that the IRTCD papers'
	// standard algorithm uses (Lehericey et al. 2013b, §3.1). A standard
	// step returns the same contacts as with CullTight (every vertex it
	// adds lies outside the other body), casting many more rays; with
	// prediction, vertices farther than DistanceExtension from the other
	// body may add predictions, as in the papers (none of them can become
	// a contact before the next standard step: see DistanceExtension).
	// For reproducing the papers' baseline.
	CullBoxes
)

// String returns the culling's name as ParseCulling accepts it.
func (c Culling) String() string {
	switch c {
	case CullTight:
		return "tight"
	case CullBoxes:
		return "boxes"
	}
	return "culling?"
}

// ParseCulling accepts "tight" and "boxes".
func ParseCulling(s string) (Culling, error) {
	return parseName(s, "culling", "tight or boxes", CullTight, CullBoxes)
}

// Params configures a backend. Zero fields take defaults derived, per pair,
// from the two shapes' sizes (see Resolve).
type Params struct {
	Method    Method
	Traversal Traversal
	Response  Response
	Culling   Culling

	// DisplacementThreshold bounds the relative displacement (Eq. 2 of
	// Lehericey et al. 2013) under which a pair is updated iteratively.
	// With MethodPredictive it sets the predictions' reach (CullingDist,
	// MaxIt), and the pair is updated iteratively while the vertices that
	// can touch the other body have moved by at most 0.3 ×
	// DisplacementThreshold (0.6 × with Speculative;
	// Resolved.TouchThreshold, iterative.PairState.TouchDisplacement),
	// which sets DistanceExtension. Default: 0.05 × the smaller shape's
	// Size (half its bounding-box diagonal).
	DisplacementThreshold float64
	// Confidence scales maxIt (Eq. 1, 2013) and the predictive culling
	// distance (Eq. 1, 2013b). At least 1. Default 2.
	Confidence float64
	// DistanceExtension grows the intersection of the two bounding boxes
	// from which predictive rays are cast (2013b §3.1). The paper wants
	// it "greater than displacementThreshold" and "minimized": a vertex
	// farther from the other body than the iterative bound cannot reach
	// it before the bound fails and a standard step looks again, so its
	// prediction could never be used. With prediction that bound is the
	// one on the vertices that can touch, Resolved.TouchThreshold (0.3 ×
	// DisplacementThreshold; see iterative.PairState.TouchDisplacement),
	// so the default, and least, extension is 1.1 × TouchThreshold: the
	// contacts of every step are those of any larger extension, and the
	// standard steps cast fewer rays. With Speculative the predictions
	// are also this step's gaps for the solver, and the default keeps
	// the paper's reach, 1.1 × DisplacementThreshold. A smaller value is
	// raised to the default; Validate rejects one at or below the bound.
	// Without prediction the boxes grow by the touching tolerance only.
	DistanceExtension float64
	// MaxIt bounds the iterative walk. Default: Eq. 1 of Lehericey et al.
	// 2013, ceil(Confidence × DisplacementThreshold / averageTrianglesSize)
	// with the target shape's average primitive size, at least 2.
	MaxIt int
	// Reach relaxes Hermann's own-body rule for thin features. A vertex
	// whose ray meets the other body's surface from inside is inside that
	// body, even when the ray has left its own body first; Hermann et al.
	// discard such a hit (the ray left the intersection volume), which
	// loses every contact of a thin feature buried in a face: all inward
	// rays of a gear tooth 0.01 wide leave the tooth sideways long before
	// they reach the face it is buried in. Such a hit is kept when it lies
	// within Reach along the ray; with ResponseMTD its contact is the
	// vertex's distance to the other body's surface, not the ray's
	// re-projection (Direction.ReachOnly, reprojection.Fill). Default:
	// 0.25 × the smaller shape's Size; negative: pure Hermann (no occluded
	// hit is kept).
	Reach float64
	// ManifoldSize is the number of points per manifold after reduction.
	// Default 4 in 3D, 2 in 2D.
	ManifoldSize int
	// ManifoldAngle (radians) is the largest angle between a contact's
	// normal and its cluster's normal. Default 0.35 (about 20°).
	ManifoldAngle float64
	// Speculative, with MethodPredictive, also returns every prediction
	// (a vertex outside the other body whose opposite ray enters it
	// within CullingDist, §3.1 of Lehericey et al. 2013b) as a
	// speculative contact: Depth < 0 is minus the gap, re-projected like
	// a contact's depth (see Contact). A solver that keeps the gap from
	// closing by more than its width in one step (speculative contacts,
	// as Box2D's) stops bodies at the surface instead of after they have
	// sunk in. Off by default: the paper's prediction only seeds the
	// next iterative step, and a solver that reads every Depth as a
	// penetration must not get gaps. Only with MethodPredictive.
	//
	// Only gaps that could close within a step are returned: at most
	// twice the pair's relative displacement over its last step (Eq. 2
	// of Lehericey et al. 2013, between the two steps' placements) plus
	// a tenth of DisplacementThreshold. A pair's first step returns every
	// prediction.
	Speculative bool
	// EdgeAngle turns on edge-on-edge contacts (FeatureEdge): every step,
	// each pair's convex edges bent by more than EdgeAngle radians (the
	// angle between their two faces' normals; Shape.SharpEdges) are tested
	// against the other body's (Direction.AppendEdgeContacts). Vertex
	// rays alone miss two bodies that cross edge on edge with no vertex
	// of either inside the other: two crossed boxes sink into each other,
	// and a stack of equal boxes that drifts sideways keeps one corner of
	// each box over the other and topples. A box's edges bend by π/2; the
	// bunny has 115 convex edges above π/3 and 56 above 4π/9 (of 1353),
	// the torus 300 above π/6 and none above π/4. The test costs little
	// for boxes and much for meshes with many sharp edges (docs/DESIGN.md,
	// "Edge-on-edge contacts"). With Speculative, edges apart by a gap
	// that could close within a step give speculative contacts too. 0
	// (the default) turns it off, as in the papers; otherwise in (0, π).
	EdgeAngle float64
	// EdgeDepth bounds the depth of an edge-on-edge contact (with
	// EdgeAngle): a crossing deeper than this is left to the vertex rays.
	// Each pair of edges that lie within EdgeDepth (plus a margin) of
	// each other is tested at every step, so the cost of edge contacts
	// grows with it, on a mesh of many short edges about as its square.
	// Default (0): a quarter of the smaller shape's Size, right for boxes
	// and other shapes of few, long edges, which can cross deep before a
	// vertex goes in. On smooth meshes a vertex goes in first, and a
	// shallow bound finds the same crossings: replaying 100 tori and 100
	// bunnies piling up (edges above 0.1 rad), 0.04 × Size leaves exactly
	// the pairs undetected that the default leaves, in 0.36 and 0.26
	// times its time (docs/BENCHMARKS.md, "A shallow EdgeDepth for
	// smooth meshes"). Negative values are refused.
	EdgeDepth float64
	// EdgeFaces adds edge-through-face contacts (FeatureEdgeFace) to the
	// edge-on-edge ones (it needs EdgeAngle): every step, each of the
	// pair's convex edges bent by more than EdgeAngle, of either body,
	// that passes through the other body with both its ends outside
	// gives a contact at the middle of its part inside, at most
	// EdgeDepth deep (Direction.AppendEdgeFaceContacts, after the
	// Mochi paper's rays along triangle edges). With the vertex rays
	// and the edge-on-edge contacts they leave no crossing of two
	// meshes undetected: a sharp edge cut into a smooth face, which
	// neither finds, has one. Off by default (as in the papers).
	EdgeFaces bool
}

// Validate reports parameters that can never work.
func (p Params) Validate() error {
	bad := func(name string, v float64) error {
		return fmt.Errorf("%w: %s = %v", ErrBadParams, name, v)
	}
	switch {
	case p.Method > MethodStandard:
		return fmt.Errorf("%w: method %d", ErrBadParams, p.Method)
	case p.Traversal > TraversalBasic:
		return fmt.Errorf("%w: traversal %d", ErrBadParams, p.Traversal)
	case p.Response > ResponseWeighted:
		return fmt.Errorf("%w: response %d", ErrBadParams, p.Response)
	case p.Culling > CullBoxes:
		return fmt.Errorf("%w: culling %d", ErrBadParams, p.Culling)
	case !finite(p.DisplacementThreshold) || p.DisplacementThreshold < 0:
		return bad("DisplacementThreshold", p.DisplacementThreshold)
	case !finite(p.Confidence) || (p.Confidence != 0 && p.Confidence < 1):
		return bad("Confidence (must be ≥ 1)", p.Confidence)
	case !finite(p.Reach):
		return bad("Reach", p.Reach)
	case !finite(p.DistanceExtension) || p.DistanceExtension < 0:
		return bad("DistanceExtension", p.DistanceExtension)
	case p.DistanceExtension > 0 && p.DisplacementThreshold > 0 && p.DistanceExtension <= touchFactor*p.DisplacementThreshold:
		return fmt.Errorf("%w: DistanceExtension %v must exceed %v × DisplacementThreshold %v", ErrBadParams, p.DistanceExtension, touchFactor, p.DisplacementThreshold)
	case p.Speculative && p.DistanceExtension > 0 && p.DisplacementThreshold > 0 && p.DistanceExtension <= p.DisplacementThreshold:
		return fmt.Errorf("%w: with Speculative, DistanceExtension %v must exceed DisplacementThreshold %v", ErrBadParams, p.DistanceExtension, p.DisplacementThreshold)
	case p.MaxIt < 0:
		return fmt.Errorf("%w: MaxIt = %d", ErrBadParams, p.MaxIt)
	case p.ManifoldSize < 0 || p.ManifoldSize == 1:
		return fmt.Errorf("%w: ManifoldSize = %d (0 for default, or ≥ 2)", ErrBadParams, p.ManifoldSize)
	case !finite(p.ManifoldAngle) || p.ManifoldAngle < 0 || p.ManifoldAngle > math.Pi:
		return bad("ManifoldAngle", p.ManifoldAngle)
	case !finite(p.EdgeAngle) || p.EdgeAngle < 0 || p.EdgeAngle >= math.Pi:
		return bad("EdgeAngle (0 for none, or in (0, π))", p.EdgeAngle)
	case !finite(p.EdgeDepth) || p.EdgeDepth < 0:
		return bad("EdgeDepth (0 for the default, or > 0)", p.EdgeDepth)
	case p.EdgeFaces && p.EdgeAngle == 0:
		return fmt.Errorf("%w: EdgeFaces needs EdgeAngle > 0 (the edges it traces are those bent by more)", ErrBadParams)
	case p.Speculative && p.Method != MethodPredictive:
		return fmt.Errorf("%w: Speculative needs the predictive method (method %v)", ErrBadParams, p.Method)
	}
	return nil
}

// Resolved holds the parameters in force for one pair.
type Resolved struct {
	Method                Method
	Traversal             Traversal
	Response              Response
	Culling               Culling
	DisplacementThreshold float64
	TouchThreshold        float64 // with prediction, the iterative bound on the vertices that can touch (see touchFactor); 0 without
	Confidence            float64
	DistanceExtension     float64 // box growth for culling vertices
	CullingDist           float64 // predictive rays longer than this are dropped (Eq. 1, 2013b)
	Reach                 float64 // hits from inside this close count even past the own-body exit (Params.Reach)
	MaxIt                 [2]int  // per target shape: [0] for rays on B (from A), [1] for rays on A
	ManifoldSize          int
	ManifoldCos           float64
	Speculative           bool    // predictions are returned as speculative contacts (Params.Speculative)
	EdgeAngle             float64 // edge-on-edge tests between the edges bent by more than this (Params.EdgeAngle); 0: none, also when either shape has no such edge
	EdgeDepth             float64 // edge-on-edge contacts deeper than this are left to the vertex rays (Params.EdgeDepth)
	EdgeFaces             bool    // edge-through-face contacts too (Params.EdgeFaces), with EdgeAngle > 0
}

// extensionFactor × TouchThreshold (× DisplacementThreshold with
// Speculative) is the default (and least) DistanceExtension with
// prediction. Any factor above 1 loses no useful prediction (see
// Params.DistanceExtension); the 10 % covers rounding.
const extensionFactor = 1.1

// touchFactor × DisplacementThreshold is, with prediction, how far the
// vertices that can touch the other body may have moved since the last
// standard step (iterative.PairState.TouchDisplacement, the smaller of
// Eq. 2's two directions) for the pair to be updated iteratively;
// speculativeTouchFactor with speculative contacts. Eq. 2 on every vertex
// (the plain iterative method) bounds the same vertices by
// DisplacementThreshold, but it fails long before they have moved that
// far whenever a far corner of either body swings further; the bound on
// the touching vertices lets them go all the way, and at 1.0 they then
// miss more contacts between standard steps. The predictions keep their
// reach along the ray (CullingDist, MaxIt), and only the vertices within
// the bound of the other body cast predictive rays (DistanceExtension),
// so a lower gate calls more standard steps, each cheaper: at 0.3 the
// predictive method takes about as long as at 0.6 and misses 60 to 88 %
// fewer contacts. With speculative contacts the predictions are also the
// solver's gaps and keep the paper's zone (1.1 × DisplacementThreshold),
// so each standard step costs the same whatever the gate, and 0.6 is
// kept. Measured in docs/BENCHMARKS.md ("Eq. 2 on the vertices that can
// touch", "A distance extension for the touching vertices" and "The gate
// again, with the zone that follows it").
const (
	touchFactor            = 0.3
	speculativeTouchFactor = 0.6
)

// edgeDepthFactor × the smaller shape's Size is the default bound on the
// depth of an edge-on-edge contact (Params.EdgeDepth): a crossing deeper than a
// quarter of a body is not two edges grazing, and by then vertices of one
// body lie inside the other.
const edgeDepthFactor = 0.25

// Resolve fills in the defaults for a pair of shapes.
func (p Params) Resolve(a, b *Shape) Resolved {
	r := Resolved{Method: p.Method, Traversal: p.Traversal, Response: p.Response, Culling: p.Culling, Speculative: p.Speculative}
	r.Confidence = p.Confidence
	if r.Confidence == 0 {
		r.Confidence = 2
	}
	r.DisplacementThreshold = p.DisplacementThreshold
	if r.DisplacementThreshold == 0 {
		r.DisplacementThreshold = 0.05 * min(a.Size(), b.Size())
	}
	r.CullingDist = r.Confidence * r.DisplacementThreshold
	if p.Method == MethodPredictive {
		f := touchFactor
		if p.Speculative {
			f = speculativeTouchFactor
		}
		r.TouchThreshold = f * r.DisplacementThreshold
	}
	switch {
	case p.Reach < 0:
		r.Reach = 0
	case p.Reach > 0:
		r.Reach = p.Reach
	default:
		r.Reach = 0.25 * min(a.Size(), b.Size())
	}
	switch {
	case p.Method != MethodPredictive:
		r.DistanceExtension = max(a.tEps, b.tEps)
	default:
		// The bound on the vertices that can touch between standard
		// steps (see Params.DistanceExtension).
		bound := r.TouchThreshold
		if p.Speculative {
			bound = r.DisplacementThreshold
		}
		r.DistanceExtension = max(p.DistanceExtension, extensionFactor*bound)
	}
	for i, target := range [2]*Shape{b, a} {
		r.MaxIt[i] = p.MaxIt
		if r.MaxIt[i] == 0 {
			r.MaxIt[i] = max(2, int(math.Ceil(r.Confidence*r.DisplacementThreshold/target.avgSize)))
		}
	}
	r.ManifoldSize = p.ManifoldSize
	if r.ManifoldSize == 0 {
		r.ManifoldSize = 4
		if a.dim == Dim2 {
			r.ManifoldSize = 2
		}
	}
	ang := p.ManifoldAngle
	if ang == 0 {
		ang = 0.35
	}
	r.ManifoldCos = math.Cos(ang)
	if p.EdgeAngle > 0 && a.SharpEdges(p.EdgeAngle) > 0 && b.SharpEdges(p.EdgeAngle) > 0 {
		r.EdgeAngle = p.EdgeAngle
		r.EdgeDepth, r.EdgeFaces = p.EdgeDepth, p.EdgeFaces
		if r.EdgeDepth == 0 {
			r.EdgeDepth = edgeDepthFactor * min(a.Size(), b.Size())
		}
	}
	return r
}
