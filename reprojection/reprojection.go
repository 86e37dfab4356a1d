// Package reprojection turns ray hits into contact points and reduces a
// pair's contacts to small manifolds.
//
// The default response is the ray re-projection of Lehericey, Gouranton and
// Arnaldi, "Ray-Traced Collision Detection: Interpenetration Control and
// Multi-GPU Performance" (JVRC 2013), §3.2: the ray r from a vertex to the
// surface it hit is projected on that surface's unit normal n (Eq. 2,
// proj(r, n) = n (r·n)), which gives the minimum translational distance
// contact P = vertex, pd = r·n, d = n. The raw rays of Hermann et al. (2008)
// and a cosine weighting of them are kept as comparison modes.
package reprojection

import (
	"github.com/irtcd/irtcd/narrow"
)

// Make builds the contact of the ray of vertex v of dir.Src whose forward hit
// on dir.Dst is h (h.T is the ray length |r|), following the contact
// convention of package narrow.
func Make(mode narrow.Response, dir *narrow.Direction, v int32, h narrow.Hit) narrow.Contact {
	src := dir.Src
	x := src.Vertex(int(v))
	n := src.VertexNormal(int(v))
	p := dir.SrcWorld.Apply(x)
	rd := dir.SrcWorld.ApplyDir([3]float64{-n[0], -n[1], -n[2]}) // ray direction, world
	fn := dir.DstWorld.ApplyDir(dir.Dst.FaceNormal(int(h.Prim))) // hit normal, world
	t := max(h.T, 0)
	c := narrow.Contact{P: p, From: dir.From, Vertex: v, Prim: h.Prim}
	cos := rd[0]*fn[0] + rd[1]*fn[1] + rd[2]*fn[2] // > 0 for contacts
	switch mode {
	case narrow.ResponseRay:
		c.Depth, c.Dir = t, rd
	case narrow.ResponseWeighted:
		c.Depth, c.Dir = t*max(cos, 0), rd
	default: // MTD re-projection, Eq. 2 of 2013b: pd = r·n, d = n
		c.Depth, c.Dir = max(t*cos, 0), fn
	}
	return c
}
