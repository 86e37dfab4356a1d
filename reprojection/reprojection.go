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
	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Make builds the contact of the ray of vertex v of dir.Src whose forward hit
// on dir.Dst is h (h.T is the ray length |r|), following the contact
// convention of package narrow.
func Make(mode narrow.Response, dir *narrow.Direction, v int32, h narrow.Hit) narrow.Contact {
	x := dir.Src.Vertex(int(v))
	n := dir.Src.VertexNormal(int(v))
	fl := dir.Dst.FaceNormal(int(h.Prim))
	sr, st, dr := &dir.SrcWorld.R, &dir.SrcWorld.T, &dir.DstWorld.R
	c := narrow.Contact{From: dir.From, Vertex: v, Prim: h.Prim}
	c.P = mgl64.Vec3{
		sr[0]*x[0] + sr[1]*x[1] + sr[2]*x[2] + st[0],
		sr[3]*x[0] + sr[4]*x[1] + sr[5]*x[2] + st[1],
		sr[6]*x[0] + sr[7]*x[1] + sr[8]*x[2] + st[2],
	}
	// Ray direction (inward normal) and hit normal, in world coordinates.
	rd := mgl64.Vec3{
		-(sr[0]*n[0] + sr[1]*n[1] + sr[2]*n[2]),
		-(sr[3]*n[0] + sr[4]*n[1] + sr[5]*n[2]),
		-(sr[6]*n[0] + sr[7]*n[1] + sr[8]*n[2]),
	}
	fn := mgl64.Vec3{
		dr[0]*fl[0] + dr[1]*fl[1] + dr[2]*fl[2],
		dr[3]*fl[0] + dr[4]*fl[1] + dr[5]*fl[2],
		dr[6]*fl[0] + dr[7]*fl[1] + dr[8]*fl[2],
	}
	t := max(h.T, 0)
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
