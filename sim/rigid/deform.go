package rigid

import (
	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// Deforming bodies (World.SetShape with a deformed shape) move their
// surface by more than their pose: each vertex of the new shape has
// moved from where it was on the old one. The solver takes that motion
// into account as a surface velocity at each contact, as a conveyor belt's
// contacts carry the belt's speed: a rising floor lifts what rests on it,
// rather than rising into it and pushing it out by position correction
// alone.

// setDeformation records the velocities of body b's vertices (local
// coordinates) when its shape changed from old to s over one step of dt,
// for the step to come (step: the world's step count): none unless s is
// old deformed (narrow.Shape.SameTopology).
func (b *Body) setDeformation(old, s *narrow.Shape, dt float64, step int) {
	b.dstep = 0
	if !s.SameTopology(old) {
		return
	}
	n := s.NumVertices()
	if cap(b.dvel) < n {
		b.dvel = make([]mgl64.Vec3, n)
	}
	b.dvel = b.dvel[:n]
	moved := false
	for i := range b.dvel {
		b.dvel[i] = s.Vertex(i).Sub(old.Vertex(i)).Mul(1 / dt)
		moved = moved || b.dvel[i] != mgl64.Vec3{}
	}
	if moved {
		b.dstep = step + 1
	}
}

// surfaceVelocity returns the world velocity, from the deformation of
// side's body (b), of that body's surface at contact pt: at its vertex (or
// edge) if pt comes from it, else at the point of its primitive (or edge)
// that pt's vertex was pushed to, P + Depth·Dir (for an edge-through-face
// contact, of the primitive its edge entered).
func (b *Body) surfaceVelocity(pt *narrow.Contact, side narrow.Side) mgl64.Vec3 {
	s := b.shape
	local := func(p mgl64.Vec3) mgl64.Vec3 { return b.rot.mulTVec(p.Sub(b.pose.Pos)) }
	var u mgl64.Vec3
	switch {
	case pt.Feature == narrow.FeatureEdge || pt.Feature == narrow.FeatureEdgeFace && pt.From == side:
		// An edge of this body (or, edge on edge, of the other's
		// crossing it): the velocity of its point nearest to P (or Q).
		e := pt.Vertex
		q := pt.P
		if pt.From != side {
			e, q = pt.Prim, pt.P.Add(pt.Dir.Mul(pt.Depth))
		}
		ends := s.Edge(int(e)).V
		p0, p1 := s.Vertex(int(ends[0])), s.Vertex(int(ends[1]))
		t := 0.0
		if d := p1.Sub(p0); d.LenSqr() > 0 {
			t = min(max(local(q).Sub(p0).Dot(d)/d.LenSqr(), 0), 1)
		}
		u = b.dvel[ends[0]].Mul(1 - t).Add(b.dvel[ends[1]].Mul(t))
	case pt.From == side:
		u = b.dvel[pt.Vertex]
	default:
		tri := s.Prim(int(pt.Prim))
		l := barycentric(local(pt.P.Add(pt.Dir.Mul(pt.Depth))), s.Vertex(int(tri[0])), s.Vertex(int(tri[1])), s.Vertex(int(tri[2])))
		u = b.dvel[tri[0]].Mul(l[0]).Add(b.dvel[tri[1]].Mul(l[1])).Add(b.dvel[tri[2]].Mul(l[2]))
	}
	return b.rot.mulVec(u)
}

// barycentric returns the barycentric coordinates of the point of
// triangle (a, b, c) nearest to p's projection on its plane, clamped to
// the triangle (non-negative, summing to 1).
func barycentric(p, a, b, c mgl64.Vec3) [3]float64 {
	e1, e2, d := b.Sub(a), c.Sub(a), p.Sub(a)
	d11, d12, d22 := e1.Dot(e1), e1.Dot(e2), e2.Dot(e2)
	d1, d2 := d.Dot(e1), d.Dot(e2)
	den := d11*d22 - d12*d12
	if !(den > 0) {
		return [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	}
	v := (d22*d1 - d12*d2) / den
	w := (d11*d2 - d12*d1) / den
	v, w = max(v, 0), max(w, 0)
	if s := v + w; s > 1 {
		v, w = v/s, w/s
	}
	return [3]float64{1 - v - w, v, w}
}
