package box2dadapter

import (
	"fmt"
	"math"

	b2 "github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// nativeKey identifies a box2d shape's child (chains have one per edge).
type nativeKey struct {
	s     b2.B2ShapeInterface
	child int
}

// circleSegments returns the number of vertices of the polygon standing
// for a circle of radius r: enough that the polygon's sagitta stays under
// a quarter of box2d's linear slop, between 12 and 256.
func circleSegments(r float64) int {
	e := 0.25 * b2.B2_linearSlop
	if r <= e {
		return 12
	}
	n := int(math.Ceil(math.Pi / math.Acos(1-e/r)))
	return min(256, max(12, n))
}

// nativePolygon converts a box2d shape's child into the narrow-phase
// polygon that stands for it in a pair with an irtcd shape:
//
//   - a circle becomes a regular polygon inscribed in it (circleSegments);
//   - a polygon is grown by its skin radius (b2_polygonRadius) with mitred
//     corners, so that it rests where box2d's own polygons rest;
//   - an edge, or a chain's child edge, becomes a thin rectangle of half
//     thickness equal to its skin radius around the segment (box2d's
//     edges are two-sided; their ghost vertices are ignored).
func nativePolygon(s b2.B2ShapeInterface, child int) (*narrow.Shape, error) {
	var loop []mgl64.Vec2
	switch t := s.(type) {
	case *b2.B2CircleShape:
		n := circleSegments(t.M_radius)
		for i := 0; i < n; i++ {
			a := 2 * math.Pi * float64(i) / float64(n)
			loop = append(loop, mgl64.Vec2{t.M_p.X + t.M_radius*math.Cos(a), t.M_p.Y + t.M_radius*math.Sin(a)})
		}
	case *b2.B2PolygonShape:
		n, r := t.M_count, t.M_radius
		for i := 0; i < n; i++ {
			np, ni := t.M_normals[(i+n-1)%n], t.M_normals[i]
			k := r / (1 + b2.B2Vec2Dot(np, ni))
			v := t.M_vertices[i]
			loop = append(loop, mgl64.Vec2{v.X + k*(np.X+ni.X), v.Y + k*(np.Y+ni.Y)})
		}
	case *b2.B2EdgeShape:
		loop = edgeLoop(t.M_vertex1, t.M_vertex2, t.M_radius)
	case *b2.B2ChainShape:
		var e b2.B2EdgeShape
		t.GetChildEdge(&e, child)
		loop = edgeLoop(e.M_vertex1, e.M_vertex2, e.M_radius)
	default:
		return nil, fmt.Errorf("box2dadapter: %w: box2d shape type %d", narrow.ErrUnknownShape, s.GetType())
	}
	p, err := narrow.NewPolygon(loop)
	if err != nil {
		return nil, fmt.Errorf("box2dadapter: box2d shape type %d child %d: %w", s.GetType(), child, err)
	}
	return p, nil
}

// edgeLoop is the rectangle of half thickness r around segment v1-v2,
// extended by r at both ends.
func edgeLoop(v1, v2 b2.B2Vec2, r float64) []mgl64.Vec2 {
	if r <= 0 {
		r = b2.B2_polygonRadius
	}
	d := b2.B2Vec2Sub(v2, v1)
	l := d.Length()
	u := mgl64.Vec2{1, 0}
	if l > 0 {
		u = mgl64.Vec2{d.X / l, d.Y / l}
	}
	n := mgl64.Vec2{-u[1], u[0]}
	a, b := mgl64.Vec2{v1.X, v1.Y}, mgl64.Vec2{v2.X, v2.Y}
	return []mgl64.Vec2{
		a.Sub(u.Mul(r)).Sub(n.Mul(r)),
		b.Add(u.Mul(r)).Sub(n.Mul(r)),
		b.Add(u.Mul(r)).Add(n.Mul(r)),
		a.Sub(u.Mul(r)).Add(n.Mul(r)),
	}
}
