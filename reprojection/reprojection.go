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
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Make builds the contact of the ray of vertex v of dir.Src whose forward hit
// on dir.Dst is h (h.T is the ray length |r|), following the contact
// convention of package narrow. ok is false when the hit makes no contact
// (see Fill).
func Make(mode narrow.Response, dir *narrow.Direction, v int32, h narrow.Hit) (c narrow.Contact, ok bool) {
	var o, d [3]float64
	dir.Ray(v, &o, &d)
	ok = Fill(&c, mode, dir, v, &o, &d, h)
	return c, ok
}

// Fill is Make for callers that already have the ray in dir.Dst's frame
// (origin o, unit direction d, as from Direction.Ray): it writes the
// contact into c without recomputing the ray, and reports whether there
// is one.
//
// With MTD re-projection, a contact that only narrow.Params.Reach keeps
// (Direction.ReachOnly: the ray crossed empty space before the hit) is the
// vertex's own minimum translational distance instead: Depth is its
// distance to dir.Dst's surface and Dir points from it to the nearest
// surface point (the outward normal of Prim, the primitive that point
// lies on, where the distance is within the surface tolerance). Eq. 2 of
// Lehericey et al. 2013b assumes the ray lies in both bodies; here it
// does not, and the hit can be a far face met at a grazing angle, whose
// plane may lie up to Reach away while the vertex sits just under another
// face. Such a hit whose vertex lies outside dir.Dst beyond the surface
// tolerance (Shape.Nearest's side test) is no contact, and Fill reports
// false: the direction to the surface would point into the other body.
// That happens to an iterative ray whose vertex left the other body
// sideways, through another face than the one its ray still meets. (The
// comparison responses keep the ray, as Hermann et al. would have, had
// they kept the hit.)
func Fill(c *narrow.Contact, mode narrow.Response, dir *narrow.Direction, v int32, o, d *[3]float64, h narrow.Hit) bool {
	if mode == narrow.ResponseMTD && dir.ReachOnly(v, h.T) {
		return fillNearest(c, dir, v, o)
	}
	fill(c, mode, dir, v, o, d, h.Prim, max(h.T, 0))
	return true
}

// AppendBuried appends to dst the contacts of dir.Src's vertices that lie
// inside dir.Dst, each its own minimum translational distance (Depth its
// distance to dir.Dst's surface, Dir from it to the nearest surface point,
// Prim the primitive that point lies on, as Fill gives a contact that only
// Reach keeps), in vertex order, provided the centre of dir.Src's
// bounding box lies inside dir.Dst (Shape.Nearest's side test, beyond the
// surface tolerance). Otherwise it appends nothing.
//
// It is the backends' fallback for a pair whose standard step finds no
// contact at all although the bodies overlap: a thin body driven wholly
// into another in one step. Every ray of its vertices then leaves its own
// body before it meets the other's surface (Hermann's own-body rule), and
// the standard algorithm of the papers returns nothing; the body's centre
// lies inside the other, and its vertices are pushed out the shortest
// way. It costs a point-in-box test, and when the centre is in the other's
// box, a lookup in its outside grid (Shape.Outside) and, unless that
// clears it, a nearest-point query; then a query per vertex that passes
// dir's culling (Direction.InCull, conservative for the vertices inside
// dir.Dst), so dir must be set up for a standard step (Setup, or SetCull
// after SetPoses).
func AppendBuried(dst []narrow.Contact, dir *narrow.Direction) []narrow.Contact {
	b, db := dir.Src.Bounds(), dir.Dst.Bounds()
	c := b.Center()
	x := dir.SrcToDst.Apply([3]float64{c[0], c[1], c[2]})
	if !db.Contains(x) || dir.Dst.Outside(x) {
		return dst
	}
	if _, dist, _, inside := dir.Dst.Nearest(x); !inside || dist <= dir.Dst.TEps() {
		return dst
	}
	var o, d [3]float64
	for v := range int32(dir.Src.NumVertices()) {
		if dir.Src.VertexNormal(int(v)) == (mgl64.Vec3{}) {
			continue // on no primitive
		}
		if !dir.InCull(v) {
			continue // not inside dir.Dst: InCull is conservative
		}
		dir.Ray(v, &o, &d)
		dst = append(dst, narrow.Contact{})
		if c := &dst[len(dst)-1]; !fillNearest(c, dir, v, &o) || c.Depth <= 0 {
			dst = dst[:len(dst)-1]
		}
	}
	return dst
}

// fillNearest writes the contact of vertex v of dir.Src, at o in dir.Dst's
// frame, from the point of dir.Dst's surface nearest to it; false if the
// vertex lies outside dir.Dst beyond the surface tolerance.
func fillNearest(c *narrow.Contact, dir *narrow.Direction, v int32, o *[3]float64) bool {
	q, dist, prim, inside := dir.Dst.Nearest(*o)
	n := [3]float64{q[0] - o[0], q[1] - o[1], q[2] - o[2]}
	switch {
	case dist > dir.Dst.TEps() && inside:
		n[0], n[1], n[2] = n[0]/dist, n[1]/dist, n[2]/dist
	case dist > dir.Dst.TEps():
		return false
	default: // on the surface: touching
		n[0], n[1], n[2] = dir.Dst.FaceNormalXYZ(prim)
		if !inside {
			dist = 0
		}
	}
	c.P = worldPoint(dir, o)
	c.Dir = worldVec(dir, n[0], n[1], n[2])
	c.From, c.Vertex, c.Prim = dir.From, v, prim
	c.Depth = dist
	return true
}

// worldPoint maps a point of dir.Dst's frame to the world.
func worldPoint(dir *narrow.Direction, o *[3]float64) mgl64.Vec3 {
	r, t := &dir.DstWorld.R, &dir.DstWorld.T
	return mgl64.Vec3{
		r[0]*o[0] + r[1]*o[1] + r[2]*o[2] + t[0],
		r[3]*o[0] + r[4]*o[1] + r[5]*o[2] + t[1],
		r[6]*o[0] + r[7]*o[1] + r[8]*o[2] + t[2],
	}
}

// worldVec rotates a vector of dir.Dst's frame into the world.
func worldVec(dir *narrow.Direction, x, y, z float64) mgl64.Vec3 {
	r := &dir.DstWorld.R
	return mgl64.Vec3{
		r[0]*x + r[1]*y + r[2]*z,
		r[3]*x + r[4]*y + r[5]*z,
		r[6]*x + r[7]*y + r[8]*z,
	}
}

// FillSpeculative writes the speculative contact (narrow.Contact) of the
// prediction of vertex v of dir.Src, whose opposite ray, o − t·d, enters
// dir.Dst at h (h.T < 0 on the ray's line: the gap along it is −h.T). The
// depth is −gap in the response's terms: −|r| for the raw ray, −r·n (the
// vertex's distance to the plane of the entered primitive) re-projected.
func FillSpeculative(c *narrow.Contact, mode narrow.Response, dir *narrow.Direction, v int32, o, d *[3]float64, h narrow.Hit) {
	fill(c, mode, dir, v, o, d, h.Prim, min(h.T, 0))
	if !(c.Depth < 0) {
		// A gap of (rounded to) zero is still a gap: the vertex is not
		// known to touch.
		c.Depth = -math.SmallestNonzeroFloat64
	}
}

// Gap returns the gap (−Depth) of the speculative contact FillSpeculative
// would make of the same prediction, without making it: −h.T along the
// ray for ResponseRay, −h.T·(d·n) otherwise.
func Gap(mode narrow.Response, dir *narrow.Direction, d *[3]float64, h narrow.Hit) float64 {
	g := -min(h.T, 0)
	if mode == narrow.ResponseRay {
		return g
	}
	fx, fy, fz := dir.Dst.FaceNormalXYZ(h.Prim)
	return g * max(d[0]*fx+d[1]*fy+d[2]*fz, 0)
}

// fill writes the contact of a ray of length dist (negative: a gap) that
// meets primitive prim.
func fill(c *narrow.Contact, mode narrow.Response, dir *narrow.Direction, v int32, o, d *[3]float64, prim int32, dist float64) {
	fx, fy, fz := dir.Dst.FaceNormalXYZ(prim) // outward normal, Dst frame
	c.P = worldPoint(dir, o)
	c.From, c.Vertex, c.Prim = dir.From, v, prim
	cos := d[0]*fx + d[1]*fy + d[2]*fz // ray · normal, > 0 for contacts and predictions
	switch mode {
	case narrow.ResponseRay, narrow.ResponseWeighted:
		c.Dir = worldVec(dir, d[0], d[1], d[2])
		c.Depth = dist
		if mode == narrow.ResponseWeighted {
			c.Depth = dist * max(cos, 0)
		}
	default: // MTD re-projection, Eq. 2 of 2013b: pd = r·n, d = n
		c.Dir = worldVec(dir, fx, fy, fz)
		c.Depth = dist * max(cos, 0)
	}
}
