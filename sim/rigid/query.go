package rigid

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// RayHit is where a ray first meets a body's surface (World.RayCast).
type RayHit struct {
	Body   BodyID
	T      float64    // distance from the ray's origin, along its unit direction
	Point  mgl64.Vec3 // the world point o + T·d̂
	Normal mgl64.Vec3 // the surface's outward unit normal there (world axes)
	Prim   int32      // the triangle of the body's shape (file order)
	// Inside: the ray started inside the body and leaves it here.
	Inside bool
}

// RayCast returns the first surface point of a body that the ray from o
// along d meets within distance maxT (d need not be unit; distances are
// along d/|d|), among the bodies for which keep returns true (nil: every
// body; removed bodies never). A ray that starts inside a body meets its
// surface where it leaves it (RayHit.Inside). The search is exact: each
// body whose world box the ray crosses is traced in its own frame through
// its shape's hierarchy (narrow.Shape.Trace, the narrow phase's ray test);
// ties go to the lower body ID. ok is false when nothing is hit. A ray
// with a non-finite or zero direction, a non-finite origin or a negative
// or NaN maxT is refused with ErrBadRay. It allocates nothing.
func (w *World) RayCast(o, d mgl64.Vec3, maxT float64, keep func(BodyID) bool) (hit RayHit, ok bool, err error) {
	l := d.Len()
	if !finiteVec(o) || !finiteVec(d) || !(l > 0) || math.IsInf(l, 0) || !(maxT >= 0) {
		return RayHit{}, false, fmt.Errorf("rigid: ray cast: %w: origin %v, direction %v, length %v", ErrBadRay, o, d, maxT)
	}
	u := d.Mul(1 / l)
	hit.T = maxT
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed || keep != nil && !keep(BodyID(i)) {
			continue
		}
		box := b.shape.Bounds().Transformed(&narrow.Transform{R: b.rot, T: b.pose.Pos})
		if !rayMeetsBox(o, u, hit.T, &box) {
			continue
		}
		// The ray in the shape's frame: Rᵀ·(o − pos), Rᵀ·u.
		lo, ld := b.rot.mulTVec(o.Sub(b.pose.Pos)), b.rot.mulTVec(u)
		fwd, _ := b.shape.Trace(lo, ld, 0, 0, narrow.TraversalBVH)
		if fwd.Prim < 0 || fwd.T > hit.T || fwd.T == hit.T && ok {
			continue
		}
		n := b.rot.mulVec(b.shape.FaceNormal(int(fwd.Prim)))
		hit = RayHit{Body: BodyID(i), T: fwd.T, Point: o.Add(u.Mul(fwd.T)), Normal: n, Prim: fwd.Prim, Inside: fwd.Inside}
		ok = true
	}
	if !ok {
		return RayHit{}, false, nil
	}
	return hit, true, nil
}

// rayMeetsBox reports whether the ray o + t·u, 0 ≤ t ≤ maxT, meets the
// closed box b (slab test; a direction component of 0 keeps the ray in
// its slab or out of it entirely).
func rayMeetsBox(o, u mgl64.Vec3, maxT float64, b *narrow.AABB) bool {
	t0, t1 := 0.0, maxT
	for k := range 3 {
		if u[k] == 0 {
			if o[k] < b.Min[k] || o[k] > b.Max[k] {
				return false
			}
			continue
		}
		inv := 1 / u[k]
		a, c := (b.Min[k]-o[k])*inv, (b.Max[k]-o[k])*inv
		if a > c {
			a, c = c, a
		}
		t0, t1 = max(t0, a), min(t1, c)
		if t0 > t1 {
			return false
		}
	}
	return true
}

// QueryBox calls visit, in ID order, for every body (removed ones aside)
// whose box (Body.AABB: the broad phase's, grown by its margin for a
// dynamic body) meets the closed box q, until visit returns false. The
// boxes are those of the last step (or of AddBody and the setters since);
// test the shapes themselves for an exact answer.
func (w *World) QueryBox(q narrow.AABB, visit func(BodyID) bool) {
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed || b.aabb.Intersect(q).Empty() {
			continue
		}
		if !visit(BodyID(i)) {
			return
		}
	}
}

// QueryShape calls visit, in ID order, for every body (removed ones aside)
// whose shape overlaps shape s placed at pose, until visit returns false:
// the exact overlap of the two meshes (narrow.Overlap; touching counts),
// tested for the bodies whose world box meets s's, at their current
// poses. It is the question a spawner or a placement tool asks ("is this
// spot free?"); sensors (BodyDef.Sensor) answer it for the bodies of the
// world at every step. s must be a 3D shape and pose valid: otherwise the
// error wraps ErrNilShape, ErrNotMesh or narrow.ErrBadPose. It allocates
// nothing.
func (w *World) QueryShape(s *narrow.Shape, pose narrow.Pose, visit func(BodyID) bool) error {
	if s == nil || s.NumPrims() == 0 {
		return fmt.Errorf("rigid: query shape: %w", ErrNilShape)
	}
	if s.Dim() != narrow.Dim3 {
		return fmt.Errorf("rigid: query shape: %w", ErrNotMesh)
	}
	p, err := narrow.NewPose(pose.Pos, pose.Rot)
	if err != nil {
		return fmt.Errorf("rigid: query shape: %w", err)
	}
	t := p.Transform()
	box := s.Bounds().Transformed(&t)
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed {
			continue
		}
		bb := b.shape.Bounds().Transformed(&narrow.Transform{R: b.rot, T: b.pose.Pos})
		if bb.Intersect(box).Empty() {
			continue
		}
		hit, err := narrow.Overlap(s, b.shape, p, b.pose)
		if err != nil {
			return fmt.Errorf("rigid: query shape: body %d: %w", i, err)
		}
		if hit && !visit(BodyID(i)) {
			return nil
		}
	}
	return nil
}
