package narrow

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// SelfHit is a self-collision of a deforming surface found by Li &
// Yamaguchi's Algorithm 1 (ray-traced CD for deformable objects, §5.2):
// the ray from a vertex along its motion, or against it, met another part
// of the same surface.
type SelfHit struct {
	Vertex int32   // the vertex the ray comes from
	Prim   int32   // the triangle it met (never one of the vertex's own)
	T      float64 // how far along the ray
	// Behind reports a hit of the opposite ray: the triangle lies a
	// distance T behind the vertex. At T within the vertex's motion, its
	// path went through the triangle: the paper's "penetrating" case
	// (Figure 6).
	Behind bool
}

// AppendSelfHits finds the self-collisions of surface s (any triangle
// shape; meant for cloth, NewSurface, whose open boundary gives no inside
// to cast Hermann's rays into) and appends them to dst, by Algorithm 1 of
// Li & Yamaguchi (§5.2): from each vertex v with a non-zero motion[v] (how
// far it moved, or will move, this step, in s's frame), a ray along the
// motion and the opposite ray, each up to |motion[v]| + reach (the
// paper's threshold: the step's displacement and a margin, the surface's
// thickness, say), against the triangles not incident to v; the nearest
// hit of each ray is reported (the forward one first). With s at the
// step's end, an opposite ray's hit at T ≤ |motion[v]| is the paper's
// "penetrating" case (its Figure 6): the vertex's path went through that
// triangle, and it now lies T past it; a forward hit is a collision to
// come. A vertex that does not move casts no ray. The hits come in vertex
// order, so the result depends on nothing but s, motion and reach.
// len(motion) must be s.NumVertices() (else nothing is appended), and
// reach ≥ 0.
func (s *Shape) AppendSelfHits(dst []SelfHit, motion []mgl64.Vec3, reach float64) []SelfHit {
	if len(motion) != len(s.verts) || !(reach >= 0) {
		return dst
	}
	for v := range s.verts {
		m := motion[v]
		l := math.Sqrt(m[0]*m[0] + m[1]*m[1] + m[2]*m[2])
		if !(l > 0) || math.IsInf(l, 0) || s.vnorm[v] == [3]float64{} {
			continue
		}
		d := [3]float64{m[0] / l, m[1] / l, m[2] / l}
		if t, p := s.rayFrom(int32(v), d, l+reach); p >= 0 {
			dst = append(dst, SelfHit{Vertex: int32(v), Prim: p, T: t})
		}
		if t, p := s.rayFrom(int32(v), [3]float64{-d[0], -d[1], -d[2]}, l+reach); p >= 0 {
			dst = append(dst, SelfHit{Vertex: int32(v), Prim: p, T: t, Behind: true})
		}
	}
	return dst
}
