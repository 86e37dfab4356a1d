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

// ShapeHit is where a moving shape first touches a body (World.ShapeCast).
type ShapeHit struct {
	Body BodyID
	// Fraction of the motion at the first touch, in [0, 1), and the
	// shape's pose there (its start translated by Fraction × motion).
	Fraction float64
	Pose     narrow.Pose
	// Point is where they touch, Normal the body's outward unit normal
	// there (world axes): the direction to slide along the body or push
	// away from it (narrow.Cast).
	Point, Normal mgl64.Vec3
	// Start: the shape overlaps the body at its start pose (Fraction 0,
	// no Point or Normal).
	Start bool
}

// ShapeCast moves shape s from pose by the translation motion and returns
// where it first touches a body, among the bodies for which keep returns
// true (nil: every body; removed bodies never), at their current poses: a
// shape cast, what a character controller asks before it moves, or a
// placement tool before it drops. The search is exact (narrow.CastShape:
// every vertex's path traced both ways, edge on edge included) for each
// body whose world box the shape's box swept up to the earliest touch so
// far meets; ties go to the lower body ID. A shape that overlaps a body
// at its start touches it at fraction 0 (ShapeHit.Start). ok is false when
// the motion touches nothing. s must be a 3D shape, pose valid and motion
// finite: otherwise the error wraps ErrNilShape, ErrNotMesh,
// narrow.ErrBadPose or narrow.ErrBadMotion. It allocates nothing.
func (w *World) ShapeCast(s *narrow.Shape, pose narrow.Pose, motion mgl64.Vec3, keep func(BodyID) bool) (hit ShapeHit, ok bool, err error) {
	if s == nil || s.NumPrims() == 0 {
		return ShapeHit{}, false, fmt.Errorf("rigid: shape cast: %w", ErrNilShape)
	}
	if s.Dim() != narrow.Dim3 {
		return ShapeHit{}, false, fmt.Errorf("rigid: shape cast: %w", ErrNotMesh)
	}
	p, err := narrow.NewPose(pose.Pos, pose.Rot)
	if err != nil {
		return ShapeHit{}, false, fmt.Errorf("rigid: shape cast: %w", err)
	}
	if !finiteVec(motion) {
		return ShapeHit{}, false, fmt.Errorf("rigid: shape cast: %w: %v", narrow.ErrBadMotion, motion)
	}
	t := p.Transform()
	start := s.Bounds().Transformed(&t)
	best := 1.0
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed || keep != nil && !keep(BodyID(i)) {
			continue
		}
		// The shape's box swept up to the earliest touch so far.
		swept := start
		for k := range 3 {
			d := best * motion[k]
			swept.Min[k], swept.Max[k] = min(swept.Min[k], swept.Min[k]+d), max(swept.Max[k], swept.Max[k]+d)
		}
		bb := b.shape.Bounds().Transformed(&narrow.Transform{R: b.rot, T: b.pose.Pos})
		if bb.Intersect(swept).Empty() {
			continue
		}
		c, touch, err := narrow.CastShape(s, b.shape, pose, b.pose, motion)
		if err != nil {
			return ShapeHit{}, false, fmt.Errorf("rigid: shape cast: body %d: %w", i, err)
		}
		if !touch || c.Fraction > best || c.Fraction == best && ok {
			continue
		}
		best, ok = c.Fraction, true
		hit = ShapeHit{Body: BodyID(i), Fraction: c.Fraction, Point: c.Point, Normal: c.Normal, Start: c.Start,
			Pose: narrow.Pose{Pos: p.Pos.Add(motion.Mul(c.Fraction)), Rot: p.Rot}}
	}
	if !ok {
		return ShapeHit{}, false, nil
	}
	return hit, true, nil
}

// Distance returns how far apart bodies a and b are, at their current
// poses, and their closest points (narrow.Distance: exact for concave
// shapes; 0 and Closest.Overlap when they overlap), if they are at most
// max apart (math.Inf(1): any distance), and whether they are. Errors
// wrap ErrUnknownBody, ErrRemovedBody or narrow.ErrBadParams (a NaN or
// negative max). It allocates nothing.
func (w *World) Distance(a, b BodyID, max float64) (narrow.Closest, bool, error) {
	ba, err := w.body(a)
	if err != nil {
		return narrow.Closest{}, false, fmt.Errorf("rigid: distance: %w", err)
	}
	bb, err := w.body(b)
	if err != nil {
		return narrow.Closest{}, false, fmt.Errorf("rigid: distance: %w", err)
	}
	c, ok, err := narrow.Distance(ba.shape, bb.shape, ba.pose, bb.pose, max)
	if err != nil {
		return narrow.Closest{}, false, fmt.Errorf("rigid: distance: bodies %d and %d: %w", a, b, err)
	}
	return c, ok, nil
}

// Nearest returns the body nearest to shape s at pose, among those for
// which keep returns true (nil: every body; removed bodies never), within
// max (math.Inf(1): any distance), with the distance and closest points
// (narrow.Distance, s as shape A): the proximity query of an AI's sensor
// or a placement tool's clearance. Bodies whose world boxes lie farther
// from the shape's box than the nearest so far are skipped; ties go to
// the lower body ID; a body s overlaps is at distance 0. ok is false when
// no body is within max. s must be a 3D shape, pose valid and max not NaN
// or negative: otherwise the error wraps ErrNilShape, ErrNotMesh,
// narrow.ErrBadPose or narrow.ErrBadParams. It allocates nothing.
func (w *World) Nearest(s *narrow.Shape, pose narrow.Pose, max float64, keep func(BodyID) bool) (id BodyID, c narrow.Closest, ok bool, err error) {
	if s == nil || s.NumPrims() == 0 {
		return 0, narrow.Closest{}, false, fmt.Errorf("rigid: nearest: %w", ErrNilShape)
	}
	if s.Dim() != narrow.Dim3 {
		return 0, narrow.Closest{}, false, fmt.Errorf("rigid: nearest: %w", ErrNotMesh)
	}
	p, err := narrow.NewPose(pose.Pos, pose.Rot)
	if err != nil {
		return 0, narrow.Closest{}, false, fmt.Errorf("rigid: nearest: %w", err)
	}
	if math.IsNaN(max) || max < 0 {
		return 0, narrow.Closest{}, false, fmt.Errorf("rigid: nearest: %w: max %v", narrow.ErrBadParams, max)
	}
	t := p.Transform()
	box := s.Bounds().Transformed(&t)
	best := max
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed || keep != nil && !keep(BodyID(i)) {
			continue
		}
		bb := b.shape.Bounds().Transformed(&narrow.Transform{R: b.rot, T: b.pose.Pos})
		// The boxes' gap, in world coordinates, errs by a few ulps
		// against the distance, found in the body's frame: skip only
		// bodies clearly farther.
		if g := boxGap(&box, &bb); g > best+1e-9*(g+s.Size()+b.shape.Size()) {
			continue
		}
		d, near, err := narrow.Distance(s, b.shape, p, b.pose, best)
		if err != nil {
			return 0, narrow.Closest{}, false, fmt.Errorf("rigid: nearest: body %d: %w", i, err)
		}
		if !near || ok && d.Dist >= best {
			continue
		}
		best, id, c, ok = d.Dist, BodyID(i), d, true
	}
	return id, c, ok, nil
}

// boxGap returns the distance between two boxes (0 when they meet).
func boxGap(a, b *narrow.AABB) float64 {
	s := 0.0
	for k := range 3 {
		if g := max(a.Min[k]-b.Max[k], b.Min[k]-a.Max[k]); g > 0 {
			s += g * g
		}
	}
	return math.Sqrt(s)
}

// CastMotion moves shape s from pose from to pose to, turning at constant
// angular velocity on the way (narrow.CastMotion), and returns where it
// first comes within tol of a body, among the bodies for which keep
// returns true (nil: every body; removed bodies never), at their current
// poses: ShapeCast for a motion with rotation, to within tol, never past
// a touch. Bodies whose world boxes lie farther from the segment the
// shape's origin follows than the shape's reach (its farthest vertex
// from its origin) plus tol are skipped; ties go to the lower body ID.
// ShapeHit.Pose is the shape's pose at the hit. ok is false when the
// motion comes within tol of nothing. s must be a 3D shape, the poses
// valid and tol positive and finite: otherwise the error wraps
// ErrNilShape, ErrNotMesh, narrow.ErrBadPose or narrow.ErrBadParams. It
// allocates nothing.
func (w *World) CastMotion(s *narrow.Shape, from, to narrow.Pose, tol float64, keep func(BodyID) bool) (hit ShapeHit, ok bool, err error) {
	if s == nil || s.NumPrims() == 0 {
		return ShapeHit{}, false, fmt.Errorf("rigid: cast motion: %w", ErrNilShape)
	}
	if s.Dim() != narrow.Dim3 {
		return ShapeHit{}, false, fmt.Errorf("rigid: cast motion: %w", ErrNotMesh)
	}
	if _, err := narrow.NewPose(from.Pos, from.Rot); err != nil {
		return ShapeHit{}, false, fmt.Errorf("rigid: cast motion: start: %w", err)
	}
	if _, err := narrow.NewPose(to.Pos, to.Rot); err != nil {
		return ShapeHit{}, false, fmt.Errorf("rigid: cast motion: end: %w", err)
	}
	if !(tol > 0) || math.IsInf(tol, 1) {
		return ShapeHit{}, false, fmt.Errorf("rigid: cast motion: %w: tol %v", narrow.ErrBadParams, tol)
	}
	// The box of the origin's path, grown by the shape's reach: the
	// shape stays inside it whatever it turns.
	reach := 0.0
	for i := range s.NumVertices() {
		reach = max(reach, s.Vertex(i).Len())
	}
	var swept narrow.AABB
	for k := range 3 {
		swept.Min[k] = min(from.Pos[k], to.Pos[k]) - reach - tol
		swept.Max[k] = max(from.Pos[k], to.Pos[k]) + reach + tol
	}
	best := math.Inf(1)
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed || keep != nil && !keep(BodyID(i)) {
			continue
		}
		bb := b.shape.Bounds().Transformed(&narrow.Transform{R: b.rot, T: b.pose.Pos})
		if bb.Intersect(swept).Empty() {
			continue
		}
		c, touch, err := narrow.CastMotion(s, b.shape, from, to, b.pose, tol)
		if err != nil {
			return ShapeHit{}, false, fmt.Errorf("rigid: cast motion: body %d: %w", i, err)
		}
		if !touch || c.Fraction >= best {
			continue
		}
		best, ok = c.Fraction, true
		hit = ShapeHit{Body: BodyID(i), Fraction: c.Fraction, Point: c.Point, Normal: c.Normal, Start: c.Start, Pose: c.Pose}
	}
	return hit, ok, nil
}
