package narrow

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// A Cast is where a moving shape first touches another (CastShape).
type Cast struct {
	// Fraction of the motion at the first touch, in [0, 1): the moving
	// shape's pose there is its start translated by Fraction × motion.
	Fraction float64
	// Point is where the shapes touch, Normal the other shape's outward
	// unit normal there (world frame): the direction that separates the
	// moving shape from it. A vertex of the moving shape touching a face
	// of the other gives that face's normal, a vertex of the other
	// touching a face of the moving shape the opposite of that face's
	// normal, two edges their common normal.
	Point, Normal mgl64.Vec3
	// Start: the shapes overlap at the start of the motion (Fraction 0,
	// no Point or Normal).
	Start bool
	// Pose is the moving shape's pose at Fraction.
	Pose Pose
}

// CastShape moves shape a from pose pa by the translation motion and
// returns where it first touches shape b at pose pb, and whether it does
// before the end of the motion: a shape cast (sweep test), the question a
// character controller or a placement tool asks.
//
// The first touch of two closed surfaces moving apart from each other's
// insides is a vertex of one entering a face of the other or two edges
// meeting, so CastShape is the least of Sweep both ways and SweepEdges
// (TestSweepEdgesTimeOfImpact checks those against Overlap along random
// motions), found without advance: each vertex's path is traced exactly
// through the other shape's hierarchy, each edge's swept quad is crossed
// with the other's convex edges. Shapes that overlap at the start (Overlap)
// give Cast.Start and fraction 0. 2D shapes (polygons in z = 0) take a
// motion in the plane; they touch vertex first.
//
// It allocates nothing. The shapes must have the same dimension, the poses
// be valid and the motion finite (in the plane for 2D shapes): errors wrap
// ErrEmpty, ErrDimension, ErrBadPose or ErrBadMotion.
func CastShape(a, b *Shape, pa, pb Pose, motion mgl64.Vec3) (Cast, bool, error) {
	if !finite(motion[0]) || !finite(motion[1]) || !finite(motion[2]) {
		return Cast{}, false, fmt.Errorf("cast: %w: %v", ErrBadMotion, motion)
	}
	over, err := Overlap(a, b, pa, pb)
	if err != nil {
		return Cast{}, false, fmt.Errorf("cast: %w", err)
	}
	if a.dim == Dim2 && motion[2] != 0 {
		return Cast{}, false, fmt.Errorf("cast: %w: %v leaves the plane of 2D shapes", ErrBadMotion, motion)
	}
	pr := Pair{PoseA: pa, PoseB: pb}
	_ = CheckPair(&pr, a, b) // normalises the poses (Overlap checked them)
	pa, pb = pr.PoseA, pr.PoseB
	if over {
		return Cast{Start: true, Pose: pa}, true, nil
	}
	end := Pose{Pos: pa.Pos.Add(motion), Rot: pa.Rot}
	ta0, ta1, tb := pa.Transform(), end.Transform(), pb.Transform()
	var from, to, back0, back1 Transform
	from.SetRelative(&tb, &ta0) // a into b's frame
	to.SetRelative(&tb, &ta1)
	back0.SetRelative(&ta0, &tb) // b into a's frame
	back1.SetRelative(&ta1, &tb)

	f, v, prim := sweepVertices(a, &from, &to, b, 0, 1)
	g, bv, bprim := sweepVertices(b, &back0, &back1, a, 0, f)
	var es edgeSweep
	h := es.run(a, &from, &to, b, 0, g)
	var c Cast
	switch {
	case es.hitSrc >= 0: // edge on edge, in b's frame
		seg := &a.edgeSeg[es.hitSrc]
		p0, q0 := from.Apply(seg[0]), from.Apply(seg[1])
		p := add3(p0, scale3(sub3(to.Apply(seg[0]), p0), es.hitT))
		q := add3(q0, scale3(sub3(to.Apply(seg[1]), q0), es.hitT))
		c = Cast{Fraction: h, Point: tb.Apply(add3(p, scale3(sub3(q, p), es.hitS))), Normal: tb.ApplyDir(es.hitN)}
	case bv >= 0: // a vertex of b enters a face of a
		c = Cast{Fraction: g, Point: tb.Apply(b.verts[bv]), Normal: ta0.ApplyDir(scale3(a.FaceNormal(int(bprim)), -1))}
	case v >= 0: // a vertex of a enters a face of b
		at := Pose{Pos: pa.Pos.Add(motion.Mul(f)), Rot: pa.Rot}.Transform()
		c = Cast{Fraction: f, Point: at.Apply(a.verts[v]), Normal: tb.ApplyDir(b.FaceNormal(int(prim)))}
	default:
		return Cast{}, false, nil
	}
	c.Normal = c.Normal.Normalize()
	c.Pose = Pose{Pos: pa.Pos.Add(motion.Mul(c.Fraction)), Rot: pa.Rot}
	return c, true, nil
}
