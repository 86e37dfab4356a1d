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
	// Behind reports the "penetrating" case (the paper's Figure 6): the
	// opposite ray met the triangle, so the vertex lies a distance T past
	// it, on the side it is moving away from; it went through the
	// surface, or is about to be left there.
	Behind bool
}

// AppendSelfHits finds the self-collisions of surface s (any triangle
// shape; meant for cloth, NewSurface, whose open boundary gives no inside
// to cast Hermann's rays into) and appends them to dst, by Algorithm 1 of
// Li & Yamaguchi (§5.2): from each vertex v with a non-zero motion[v] (how
// far it moves this step, in s's frame), a ray along the motion up to
// |motion[v]| + reach, and the opposite ray up to reach, each against the
// triangles not incident to v; the nearest hit of each ray is reported
// (the forward one first). A vertex that does not move casts no ray. The
// hits come in vertex order, so the result does not depend on anything
// but s, motion and reach. len(motion) must be s.NumVertices() (else
// nothing is appended); reach ≥ 0 is the paper's threshold, the
// surface's thickness, say.
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
		if reach > 0 {
			if t, p := s.rayFrom(int32(v), [3]float64{-d[0], -d[1], -d[2]}, reach); p >= 0 {
				dst = append(dst, SelfHit{Vertex: int32(v), Prim: p, T: t, Behind: true})
			}
		}
	}
	return dst
}
