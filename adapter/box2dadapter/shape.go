package box2dadapter

import (
	"fmt"
	"math"
	"sort"

	b2 "github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// TypeConcave is the box2d shape type of irtcd polygons (box2d's own types
// are 0-3; Install raises box2d's E_typeCount to make room for it).
const TypeConcave uint8 = 4

// Shape is a box2d shape backed by an irtcd 2D polygon: concave, any
// number of vertices, holes allowed. It implements b2.B2ShapeInterface, so
// it goes into fixtures like box2d's own shapes; world queries (AABB, ray
// casts, point tests) and mass computation work on the exact outline.
//
// A Shape is immutable; box2d clones it per fixture and every clone shares
// the narrow-phase data.
type Shape struct {
	b2.B2Shape
	poly *narrow.Shape
	hull []b2.B2Vec2 // convex hull of the outer loop, CCW (AABB, sweeps)
	area float64
	cent b2.B2Vec2 // centroid
	izz  float64   // polar moment per unit density about the centroid
}

// NewShape builds a shape from an outer loop and optional holes, in body
// coordinates (either winding; see narrow.NewPolygon for the checks). Bad
// outlines (fewer than 3 vertices, NaN, zero area, self-intersection) give
// a typed *narrow.ShapeError, never a panic.
func NewShape(outer []b2.B2Vec2, holes ...[]b2.B2Vec2) (*Shape, error) {
	conv := func(l []b2.B2Vec2) []mgl64.Vec2 {
		out := make([]mgl64.Vec2, len(l))
		for i, v := range l {
			out[i] = mgl64.Vec2{v.X, v.Y}
		}
		return out
	}
	hs := make([][]mgl64.Vec2, len(holes))
	for i, h := range holes {
		hs[i] = conv(h)
	}
	poly, err := narrow.NewPolygon(conv(outer), hs...)
	if err != nil {
		return nil, fmt.Errorf("box2dadapter: %w", err)
	}
	return newShape(poly)
}

// FromNarrow wraps an existing 2D narrow-phase polygon.
func FromNarrow(poly *narrow.Shape) (*Shape, error) {
	if poly == nil || poly.Dim() != narrow.Dim2 {
		return nil, fmt.Errorf("box2dadapter: %w: need a 2D polygon", narrow.ErrDimension)
	}
	return newShape(poly)
}

func newShape(poly *narrow.Shape) (*Shape, error) {
	mp, err := poly.MassProps(1)
	if err != nil {
		return nil, fmt.Errorf("box2dadapter: %w", err)
	}
	s := &Shape{
		B2Shape: b2.B2Shape{M_type: TypeConcave, M_radius: 0},
		poly:    poly,
		area:    mp.Mass,
		cent:    b2.B2Vec2{X: mp.Centroid[0], Y: mp.Centroid[1]},
		izz:     mp.Inertia[8],
	}
	pts := make([]b2.B2Vec2, poly.NumVertices())
	for i := range pts {
		v := poly.Vertex(i)
		pts[i] = b2.B2Vec2{X: v[0], Y: v[1]}
	}
	s.hull = convexHull(pts)
	return s, nil
}

// Narrow returns the narrow-phase polygon.
func (s *Shape) Narrow() *narrow.Shape { return s.poly }

// Area returns the polygon's area (holes excluded).
func (s *Shape) Area() float64 { return s.area }

// Hull returns the convex hull of the outline, counter-clockwise.
func (s *Shape) Hull() []b2.B2Vec2 { return s.hull }

// Clone returns a copy sharing the immutable polygon data (box2d clones
// the shape of every fixture it creates).
func (s *Shape) Clone() b2.B2ShapeInterface {
	c := *s
	return &c
}

// Destroy is a no-op: the shape holds no box2d resources.
func (s *Shape) Destroy() {}

// GetChildCount returns 1: the polygon is one child, whatever its
// concavities (the adapter feeds several normal clusters through extra
// contacts, not children).
func (s *Shape) GetChildCount() int { return 1 }

// TestPoint reports whether world point p lies inside the polygon (not in
// a hole), for the shape at transform xf. Unlike box2d's polygons it is
// exact for concave outlines.
func (s *Shape) TestPoint(xf b2.B2Transform, p b2.B2Vec2) bool {
	l := b2.B2TransformVec2MulT(xf, p)
	in := false
	for i := 0; i < s.poly.NumPrims(); i++ {
		pr := s.poly.Prim(i)
		a, b := s.poly.Vertex(int(pr[0])), s.poly.Vertex(int(pr[1]))
		if (a[1] > l.Y) != (b[1] > l.Y) {
			x := a[0] + (l.Y-a[1])/(b[1]-a[1])*(b[0]-a[0])
			if l.X < x {
				in = !in
			}
		}
	}
	return in
}

// RayCast casts the segment input.P1 → input.P2 (up to MaxFraction) at the
// outline with the polygon's BVH. Like box2d's polygons, a ray starting
// inside the shape reports no hit.
func (s *Shape) RayCast(out *b2.B2RayCastOutput, in b2.B2RayCastInput, xf b2.B2Transform, _ int) bool {
	p1 := b2.B2TransformVec2MulT(xf, in.P1)
	d := b2.B2RotVec2MulT(xf.Q, b2.B2Vec2Sub(in.P2, in.P1))
	l := d.Length()
	if !(l > 0) || math.IsInf(l, 0) {
		return false
	}
	dir := [3]float64{d.X / l, d.Y / l, 0}
	fwd, _ := s.poly.Trace([3]float64{p1.X, p1.Y, 0}, dir, 0, 0, narrow.TraversalBVH)
	if fwd.Prim < 0 || fwd.Inside || fwd.T > in.MaxFraction*l {
		return false
	}
	n := s.poly.FaceNormal(int(fwd.Prim))
	out.Normal = b2.B2RotVec2Mul(xf.Q, b2.B2Vec2{X: n[0], Y: n[1]})
	out.Fraction = fwd.T / l
	return true
}

// ComputeAABB computes the world box of the shape at xf from its convex
// hull (the same box as from every vertex, for fewer points).
func (s *Shape) ComputeAABB(aabb *b2.B2AABB, xf b2.B2Transform, _ int) {
	lo := b2.B2TransformVec2Mul(xf, s.hull[0])
	hi := lo
	for _, v := range s.hull[1:] {
		p := b2.B2TransformVec2Mul(xf, v)
		lo.X, lo.Y = min(lo.X, p.X), min(lo.Y, p.Y)
		hi.X, hi.Y = max(hi.X, p.X), max(hi.Y, p.Y)
	}
	r := s.M_radius
	aabb.LowerBound = b2.B2Vec2{X: lo.X - r, Y: lo.Y - r}
	aabb.UpperBound = b2.B2Vec2{X: hi.X + r, Y: hi.Y + r}
}

// ComputeMass fills md for the given density: the exact area, centroid and
// rotational inertia of the concave polygon with its holes (box2d wants
// the inertia about the body origin).
func (s *Shape) ComputeMass(md *b2.B2MassData, density float64) {
	m := density * s.area
	md.Mass = m
	md.Center = s.cent
	md.I = density*s.izz + m*b2.B2Vec2Dot(s.cent, s.cent)
}

// convexHull returns the convex hull of pts, counter-clockwise, without
// collinear points (Andrew's monotone chain).
func convexHull(pts []b2.B2Vec2) []b2.B2Vec2 {
	p := append([]b2.B2Vec2(nil), pts...)
	sort.Slice(p, func(i, j int) bool {
		if p[i].X != p[j].X {
			return p[i].X < p[j].X
		}
		return p[i].Y < p[j].Y
	})
	cross := func(o, a, b b2.B2Vec2) float64 {
		return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X)
	}
	h := make([]b2.B2Vec2, 0, 2*len(p))
	for _, v := range p {
		for len(h) >= 2 && cross(h[len(h)-2], h[len(h)-1], v) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, v)
	}
	for i, t := len(p)-2, len(h)+1; i >= 0; i-- {
		v := p[i]
		for len(h) >= t && cross(h[len(h)-2], h[len(h)-1], v) <= 0 {
			h = h[:len(h)-1]
		}
		h = append(h, v)
	}
	return h[:len(h)-1]
}
