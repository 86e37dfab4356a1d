package box2dadapter

import (
	"errors"
	"fmt"
	"math"

	b2 "github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// ErrNotPolygon is wrapped by the error of a shape cast given a shape that
// is not a 2D polygon.
var ErrNotPolygon = errors.New("box2dadapter: not a 2D polygon")

// CastHit is where a shape cast first touches a fixture
// (Adapter.ShapeCast).
type CastHit struct {
	Fixture *b2.B2Fixture
	Child   int // the fixture's child (a chain's edge; 0 otherwise)
	// Fraction of the translation at the first touch, in [0, 1): the
	// shape's transform there is its start moved by Fraction ×
	// translation.
	Fraction float64
	// Point is where they touch and Normal the fixture's outward unit
	// normal there: the direction to slide along it or push off it.
	Point, Normal b2.B2Vec2
	// Start: the shape overlaps the fixture at its start (Fraction 0, no
	// Point or Normal).
	Start bool
	// Transform is the shape's transform at Fraction.
	Transform b2.B2Transform
}

// transformOf returns the box2d transform of a 2D pose.
func transformOf(p narrow.Pose) b2.B2Transform {
	return b2.B2Transform{P: b2.B2Vec2{X: p.Pos[0], Y: p.Pos[1]}, Q: b2.MakeB2RotFromAngle(2 * math.Atan2(p.Rot.V[2], p.Rot.W))}
}

// ShapeCast moves the polygon s from transform xf by translation and
// returns where it first touches a fixture of the world, among those for
// which keep returns true (sensors included; nil: every fixture but the
// sensors), at their bodies' current transforms: the shape cast box2d's
// world lacks, for concave shapes too (a character's outline moved
// through a level, a piece dropped into place). Fixtures whose broad-phase boxes the cast's swept
// box meets are tested exactly (narrow.CastShape: every vertex's path
// traced both ways); box2d's own shapes as the adapter converts them for
// pairs (circles as inscribed polygons, polygons grown by their skin,
// edges as thin rectangles). Ties go to the lower broad-phase proxy. A
// shape that overlaps a fixture at its start touches it at 0
// (CastHit.Start). ok is false when the translation touches nothing. It
// allocates nothing once warm.
// s must be a 2D shape (a box2dadapter Shape's Narrow, or
// narrow.NewPolygon's), xf and translation finite: otherwise the error
// wraps ErrNotPolygon, narrow.ErrBadPose or narrow.ErrBadMotion.
func (a *Adapter) ShapeCast(s *narrow.Shape, xf b2.B2Transform, translation b2.B2Vec2, keep func(*b2.B2Fixture) bool) (hit CastHit, ok bool, err error) {
	if s == nil || s.Dim() != narrow.Dim2 {
		return CastHit{}, false, fmt.Errorf("box2dadapter: shape cast: %w", ErrNotPolygon)
	}
	p := pose(xf)
	if _, err := narrow.NewPose(p.Pos, p.Rot); err != nil {
		return CastHit{}, false, fmt.Errorf("box2dadapter: shape cast: %w", err)
	}
	motion := mgl64.Vec3{translation.X, translation.Y, 0}
	if math.IsNaN(translation.X) || math.IsInf(translation.X, 0) || math.IsNaN(translation.Y) || math.IsInf(translation.Y, 0) {
		return CastHit{}, false, fmt.Errorf("box2dadapter: shape cast: %w: %v", narrow.ErrBadMotion, translation)
	}
	t := p.Transform()
	start := s.Bounds().Transformed(&t)
	var box b2.B2AABB
	box.LowerBound.Set(min(start.Min[0], start.Min[0]+motion[0]), min(start.Min[1], start.Min[1]+motion[1]))
	box.UpperBound.Set(max(start.Max[0], start.Max[0]+motion[0]), max(start.Max[1], start.Max[1]+motion[1]))
	return a.castFixtures(&castQuery{s: s, xf: xf, from: p, motion: motion, what: "shape cast"}, box, keep)
}

// castQuery is a shape cast over a world's fixtures: by a translation
// (narrow.CastShape) or, with turn set, along a motion that turns
// (narrow.CastMotion).
type castQuery struct {
	s        *narrow.Shape
	xf       b2.B2Transform // the start, as box2d gives it
	from, to narrow.Pose
	motion   mgl64.Vec3
	tol      float64
	turn     bool
	what     string // the query, for errors
}

// castFixtures casts q against the fixtures whose broad-phase boxes meet
// box, among those for which keep returns true (nil: all but sensors),
// and returns the earliest hit, ties to the lower proxy.
func (a *Adapter) castFixtures(q *castQuery, box b2.B2AABB, keep func(*b2.B2Fixture) bool) (hit CastHit, ok bool, err error) {
	tree := &a.world.M_contactManager.M_broadPhase.M_tree
	proxy := -1
	for _, id := range a.proxiesIn(box) {
		px := tree.M_nodes[id].UserData.(*b2.B2FixtureProxy)
		f := px.Fixture
		if keep == nil && f.M_isSensor || keep != nil && !keep(f) {
			continue
		}
		other, err := a.shapeOf(f, px.ChildIndex)
		if err != nil {
			return CastHit{}, false, fmt.Errorf("box2dadapter: %s: fixture child %d: %w", q.what, px.ChildIndex, err)
		}
		var c narrow.Cast
		var touch bool
		if q.turn {
			c, touch, err = narrow.CastMotion(q.s, other, q.from, q.to, pose(f.M_body.M_xf), q.tol)
		} else {
			c, touch, err = narrow.CastShape(q.s, other, q.from, pose(f.M_body.M_xf), q.motion)
		}
		if err != nil {
			return CastHit{}, false, fmt.Errorf("box2dadapter: %s: %w", q.what, err)
		}
		if !touch || ok && (c.Fraction > hit.Fraction || c.Fraction == hit.Fraction && id > proxy) {
			continue
		}
		hit = CastHit{Fixture: f, Child: px.ChildIndex, Fraction: c.Fraction, Start: c.Start,
			Point: b2.B2Vec2{X: c.Point[0], Y: c.Point[1]}, Normal: b2.B2Vec2{X: c.Normal[0], Y: c.Normal[1]}}
		if q.turn {
			hit.Transform = transformOf(c.Pose)
		} else {
			hit.Transform = b2.B2Transform{P: b2.B2Vec2{X: q.xf.P.X + c.Fraction*q.motion[0], Y: q.xf.P.Y + c.Fraction*q.motion[1]}, Q: q.xf.Q}
		}
		ok, proxy = true, id
	}
	return hit, ok, nil
}

// CastMotion moves the polygon s from transform from to transform to,
// turning the shorter way at constant angular velocity as it moves, and
// returns where it first comes within tol of a fixture of the world,
// among those for which keep returns true (nil: every fixture but the
// sensors), at their bodies' current transforms: ShapeCast for a motion
// that turns (narrow.CastMotion: conservative advancement on exact
// distances, never past a touch). Fixtures whose broad-phase boxes meet
// the box of the shape's origin path grown by its reach are tested; ties
// go to the lower broad-phase proxy; CastHit.Transform is the shape's
// transform at the hit. s must be a 2D shape, the transforms finite and
// tol positive and finite: otherwise the error wraps ErrNotPolygon,
// narrow.ErrBadPose or narrow.ErrBadParams.
func (a *Adapter) CastMotion(s *narrow.Shape, from, to b2.B2Transform, tol float64, keep func(*b2.B2Fixture) bool) (hit CastHit, ok bool, err error) {
	if s == nil || s.Dim() != narrow.Dim2 {
		return CastHit{}, false, fmt.Errorf("box2dadapter: cast motion: %w", ErrNotPolygon)
	}
	p0, p1 := pose(from), pose(to)
	for _, p := range [2]narrow.Pose{p0, p1} {
		if _, err := narrow.NewPose(p.Pos, p.Rot); err != nil {
			return CastHit{}, false, fmt.Errorf("box2dadapter: cast motion: %w", err)
		}
	}
	if !(tol > 0) || math.IsInf(tol, 1) {
		return CastHit{}, false, fmt.Errorf("box2dadapter: cast motion: %w: tol %v", narrow.ErrBadParams, tol)
	}
	reach := 0.0
	for i := range s.NumVertices() {
		reach = max(reach, s.Vertex(i).Len())
	}
	reach += tol
	var box b2.B2AABB
	box.LowerBound.Set(min(from.P.X, to.P.X)-reach, min(from.P.Y, to.P.Y)-reach)
	box.UpperBound.Set(max(from.P.X, to.P.X)+reach, max(from.P.Y, to.P.Y)+reach)
	return a.castFixtures(&castQuery{s: s, xf: from, from: p0, to: p1, tol: tol, turn: true, what: "cast motion"}, box, keep)
}

// proxiesIn returns the broad-phase proxies whose fat boxes meet box, in
// the order box2d's tree query visits them. It walks the tree with the
// adapter's own stack: box2d's query boxes every node it pushes, which
// allocates. The slice is the adapter's, valid until the next call.
func (a *Adapter) proxiesIn(box b2.B2AABB) []int {
	tree := &a.world.M_contactManager.M_broadPhase.M_tree
	stack, found := append(a.treeStack[:0], tree.M_root), a.proxyIDs[:0]
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if id == b2.B2_nullNode {
			continue
		}
		n := &tree.M_nodes[id]
		switch {
		case !b2.B2TestOverlapBoundingBoxes(n.Aabb, box):
		case n.IsLeaf():
			found = append(found, id)
		default:
			stack = append(stack, n.Child1, n.Child2)
		}
	}
	a.treeStack, a.proxyIDs = stack, found
	return found
}
