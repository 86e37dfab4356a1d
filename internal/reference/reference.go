// Package reference is the test oracle of irtcd: a brute-force
// implementation of Hermann et al.'s standard ray-traced collision detection
// that works in world coordinates over every primitive, with its own
// intersection arithmetic (plane crossing and edge functions, not
// Möller–Trumbore, no BVH, no culling). Tests check every fast path against
// it. It is deliberately simple and slow; never use it outside tests and
// tools that verify results.
package reference

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Contact is a reference contact.
type Contact struct {
	From       narrow.Side
	Vertex     int
	Prim       int
	T          float64    // ray length to the hit
	P          mgl64.Vec3 // world vertex
	RayDir     mgl64.Vec3 // world ray direction (inward normal)
	Normal     mgl64.Vec3 // world outward normal of the hit primitive
	Depth      float64    // MTD depth r·n
	Borderline bool       // the decision is within tolerance of flipping
}

type world struct {
	s     *narrow.Shape
	verts []mgl64.Vec3
	norms []mgl64.Vec3
}

func place(s *narrow.Shape, p narrow.Pose) world {
	w := world{s: s, verts: make([]mgl64.Vec3, s.NumVertices()), norms: make([]mgl64.Vec3, s.NumVertices())}
	for i := range w.verts {
		w.verts[i] = p.Rot.Rotate(s.Vertex(i)).Add(p.Pos)
		w.norms[i] = p.Rot.Rotate(s.VertexNormal(i))
	}
	return w
}

// cross returns where the line o + t·d crosses primitive i: t, the outward
// normal, whether it lies within the primitive (with relative tolerance
// tol), and how close to the primitive's border it is (barycentric margin).
func (w *world) cross(i int, o, d mgl64.Vec3, tol float64) (t float64, n mgl64.Vec3, in bool, margin float64, ok bool) {
	pr := w.s.Prim(i)
	p0, p1 := w.verts[pr[0]], w.verts[pr[1]]
	if pr[2] < 0 { // segment in the z=0 plane
		e := p1.Sub(p0)
		n = mgl64.Vec3{e[1], -e[0], 0}.Normalize()
		den := d.Dot(n)
		if math.Abs(den) < 1e-12 {
			return 0, n, false, 0, false
		}
		t = p0.Sub(o).Dot(n) / den
		h := o.Add(d.Mul(t))
		s := h.Sub(p0).Dot(e) / e.Dot(e)
		margin = min(s, 1-s)
		return t, n, margin >= -tol, margin, true
	}
	p2 := w.verts[pr[2]]
	nn := p1.Sub(p0).Cross(p2.Sub(p0))
	area2 := nn.Len()
	n = nn.Mul(1 / area2)
	den := d.Dot(n)
	if math.Abs(den) < 1e-12 {
		return 0, n, false, 0, false
	}
	t = p0.Sub(o).Dot(n) / den
	h := o.Add(d.Mul(t))
	// Barycentric weights from sub-triangle areas.
	w0 := p1.Sub(h).Cross(p2.Sub(h)).Dot(n) / area2
	w1 := p2.Sub(h).Cross(p0.Sub(h)).Dot(n) / area2
	w2 := 1 - w0 - w1
	margin = min(w0, w1, w2)
	return t, n, margin >= -tol, margin, true
}

// normal returns the outward unit normal of primitive i.
func (w *world) normal(i int) mgl64.Vec3 {
	pr := w.s.Prim(i)
	p0, p1 := w.verts[pr[0]], w.verts[pr[1]]
	if pr[2] < 0 {
		e := p1.Sub(p0)
		return mgl64.Vec3{e[1], -e[0], 0}.Normalize()
	}
	return p1.Sub(p0).Cross(w.verts[pr[2]].Sub(p0)).Normalize()
}

// Nearest returns the point of shape s at pose p nearest to x (world
// coordinates), its distance and its primitive (the lowest index among
// the nearest), by brute force over every primitive (see PrimNearest).
// tie is set when another point, more than tol away from it, lies within
// tol of the same distance: the direction from x to the surface is then
// ambiguous.
func Nearest(s *narrow.Shape, p narrow.Pose, x mgl64.Vec3, tol float64) (c mgl64.Vec3, dist float64, prim int, tie bool) {
	w := place(s, p)
	return w.nearest(x, tol)
}

// Inside reports whether x (world coordinates) lies inside shape s at
// pose p, by its winding number: the sum over the primitives of the solid
// angle each subtends at x (Van Oosterom and Strackee 1983) over 4π, or
// for a polygon of the angle each segment subtends over 2π. It is 1 inside
// a closed counter-clockwise surface and 0 outside; x is inside when it
// exceeds one half.
func Inside(s *narrow.Shape, p narrow.Pose, x mgl64.Vec3) bool {
	w := place(s, p)
	return w.winding(x) > 0.5
}

func (w *world) winding(x mgl64.Vec3) float64 {
	sum := 0.0
	for i := 0; i < w.s.NumPrims(); i++ {
		pr := w.s.Prim(i)
		a, b := w.verts[pr[0]].Sub(x), w.verts[pr[1]].Sub(x)
		if pr[2] < 0 {
			sum += math.Atan2(a[0]*b[1]-a[1]*b[0], a[0]*b[0]+a[1]*b[1]) / (2 * math.Pi)
			continue
		}
		c := w.verts[pr[2]].Sub(x)
		la, lb, lc := a.Len(), b.Len(), c.Len()
		num := a.Dot(b.Cross(c))
		den := la*lb*lc + a.Dot(b)*lc + b.Dot(c)*la + c.Dot(a)*lb
		sum += 2 * math.Atan2(num, den) / (4 * math.Pi)
	}
	return sum
}

// PrimNearest returns the point of primitive i of s at pose p nearest to
// x: on a triangle, the projection of x on its plane if that lies inside
// (by the same sub-triangle areas as the ray crossings here), else the
// nearest point of its three edges.
func PrimNearest(s *narrow.Shape, p narrow.Pose, i int, x mgl64.Vec3) mgl64.Vec3 {
	w := place(s, p)
	return w.primNearest(i, x)
}

func (w *world) primNearest(i int, x mgl64.Vec3) mgl64.Vec3 {
	onSegment := func(a, b mgl64.Vec3) mgl64.Vec3 {
		e := b.Sub(a)
		s := x.Sub(a).Dot(e) / e.Dot(e)
		return a.Add(e.Mul(max(0, min(1, s))))
	}
	pr := w.s.Prim(i)
	p0, p1 := w.verts[pr[0]], w.verts[pr[1]]
	if pr[2] < 0 {
		return onSegment(p0, p1)
	}
	p2 := w.verts[pr[2]]
	nn := p1.Sub(p0).Cross(p2.Sub(p0))
	n := nn.Normalize()
	h := x.Sub(n.Mul(x.Sub(p0).Dot(n)))
	area2 := nn.Len()
	w0 := p1.Sub(h).Cross(p2.Sub(h)).Dot(n) / area2
	w1 := p2.Sub(h).Cross(p0.Sub(h)).Dot(n) / area2
	if w0 >= 0 && w1 >= 0 && 1-w0-w1 >= 0 {
		return h
	}
	q := onSegment(p0, p1)
	for _, e := range [][2]mgl64.Vec3{{p1, p2}, {p2, p0}} {
		if r := onSegment(e[0], e[1]); r.Sub(x).Len() < q.Sub(x).Len() {
			q = r
		}
	}
	return q
}

// nearest is Nearest for a placed shape.
func (w *world) nearest(x mgl64.Vec3, tol float64) (c mgl64.Vec3, dist float64, prim int, tie bool) {
	pts := make([]mgl64.Vec3, w.s.NumPrims())
	prim, dist = -1, math.Inf(1)
	for i := range pts {
		pts[i] = w.primNearest(i, x)
		if d := pts[i].Sub(x).Len(); d < dist {
			prim, dist = i, d
		}
	}
	for _, q := range pts {
		if q.Sub(x).Len() <= dist+tol && q.Sub(pts[prim]).Len() > tol {
			tie = true
		}
	}
	return pts[prim], dist, prim, tie
}

// Contacts returns the contacts of the standard algorithm for shapes a and b
// at poses pa and pb (a hit from outside within tEps of the vertex is an
// entry at a vertex on the surface and is skipped, as in
// narrow.Direction.Standard), sorted by From then Vertex, with the default reach of
// narrow.Params (see ContactsReach).
func Contacts(a, b *narrow.Shape, pa, pb narrow.Pose) []Contact {
	return ContactsReach(a, b, pa, pb, narrow.Params{}.Resolve(a, b).Reach)
}

// ContactsReach is Contacts with an explicit reach (narrow.Params.Reach): a
// hit from inside that the ray meets after leaving its own shape still
// counts when it lies within reach. reach = 0 is Hermann's rule unchanged.
// A pair without a contact gets the backends' fallback for a buried body
// (reprojection.AppendBuried; see appendBuried).
func ContactsReach(a, b *narrow.Shape, pa, pb narrow.Pose, reach float64) []Contact {
	wa, wb := place(a, pa), place(b, pb)
	var out []Contact
	out = appendDir(out, narrow.SideA, &wa, &wb, reach)
	out = appendDir(out, narrow.SideB, &wb, &wa, reach)
	// The fallback runs where the fast path finds no contact: surely so
	// if the rays' contacts here are all borderline (the fast path may
	// have found some), and then its contacts are borderline too.
	certain, border := false, false
	for _, c := range out {
		certain, border = certain || !c.Borderline, border || c.Borderline
	}
	if !certain {
		n := len(out)
		var buried []Contact
		buried = appendBuried(buried, narrow.SideA, &wa, &wb, pa, pb)
		buried = appendBuried(buried, narrow.SideB, &wb, &wa, pb, pa)
	next:
		for _, c := range buried {
			for _, o := range out[:n] {
				if o.From == c.From && o.Vertex == c.Vertex {
					continue next // borderline already
				}
			}
			c.Borderline = c.Borderline || border
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].Vertex < out[j].Vertex
	})
	return out
}

const (
	tolBary   = 1e-9 // same acceptance as the fast path
	tolBorder = 1e-6 // decisions this close to flipping are borderline
)

func appendDir(out []Contact, from narrow.Side, src, dst *world, reach float64) []Contact {
	scale := max(dst.s.Size(), src.s.Size(), 1e-300)
	tEpsDst := dst.s.TEps()
	tEpsSrc := src.s.TEps()
	for v := range src.verts {
		if src.s.VertexNormal(v) == (mgl64.Vec3{}) {
			continue
		}
		o, d := src.verts[v], src.norms[v].Mul(-1)
		best, bestT, bestMargin := -1, math.Inf(1), 0.0
		var bestN mgl64.Vec3
		border := false
		for i := 0; i < dst.s.NumPrims(); i++ {
			t, n, in, margin, ok := dst.cross(i, o, d, tolBary)
			if !ok {
				continue
			}
			if math.Abs(margin) < tolBorder && t >= -tEpsDst && t < bestT+tolBorder*scale {
				border = true // the ray grazes an edge near the first hit
			}
			if !in || t < -tEpsDst {
				if in && math.Abs(t+tEpsDst) < tolBorder*scale {
					border = true
				}
				continue
			}
			if d.Dot(n) <= 0 && t <= tEpsDst {
				// Entering Dst at the origin: the vertex lies on Dst's
				// surface, the hit is skipped and the exit decides.
				if math.Abs(t-tEpsDst) < tolBorder*scale || math.Abs(d.Dot(n)) < tolBorder {
					border = true
				}
				continue
			}
			if t < bestT-tolBorder*scale {
				// clearly nearer
			} else if t <= bestT+tolBorder*scale {
				border = border || (best >= 0 && n.Dot(d)*bestN.Dot(d) <= 0)
			}
			if t < bestT || (t == bestT && i < best) {
				best, bestT, bestN, bestMargin = i, t, n, margin
			}
		}
		_ = bestMargin
		if best < 0 {
			continue
		}
		cos := d.Dot(bestN)
		if math.Abs(cos) < tolBorder {
			border = true
		}
		if cos <= 0 {
			if border {
				out = append(out, Contact{From: from, Vertex: v, Prim: best, T: bestT, Borderline: true, P: o, RayDir: d, Normal: bestN})
			}
			continue
		}
		// Leaves its own shape first?
		occluded := false
		for i := 0; i < src.s.NumPrims(); i++ {
			pr := src.s.Prim(i)
			if int(pr[0]) == v || int(pr[1]) == v || int(pr[2]) == v {
				continue
			}
			t, _, in, margin, ok := src.cross(i, o, d, tolBary)
			if !ok || !in {
				if ok && math.Abs(margin) < tolBorder && t > tEpsSrc && t < bestT {
					border = true
				}
				continue
			}
			if t > tEpsSrc && t < bestT-tEpsSrc {
				occluded = true
				if math.Abs(t-bestT) < tolBorder*scale || math.Abs(margin) < tolBorder {
					border = true
				}
			} else if math.Abs(t-bestT) < tolBorder*scale || math.Abs(t-tEpsSrc) < tolBorder*scale {
				border = true
			}
		}
		if occluded && bestT <= reach {
			// Within reach the own-body rule does not apply; the decision
			// can only flip where the hit is about as far as reach. The
			// contact is the vertex's distance to dst's surface (see
			// reprojection.Fill).
			if math.Abs(bestT-reach) < tolBorder*scale {
				border = true
			}
			// A vertex outside dst (an entry at its origin skipped, see
			// Contacts) has no contact.
			q, dist, prim, tie := dst.nearest(o, tolBorder*scale)
			border = border || tie || dist < tolBorder*scale
			n := q.Sub(o).Mul(1 / dist)
			inside := dst.winding(o) > 0.5
			switch {
			case dist <= tEpsDst:
				n = dst.normal(prim)
				if !inside {
					dist = 0
				}
			case !inside:
				if border {
					out = append(out, Contact{From: from, Vertex: v, Prim: prim, T: bestT, P: o, RayDir: d, Normal: n, Borderline: true})
				}
				continue
			}
			out = append(out, Contact{
				From: from, Vertex: v, Prim: prim, T: bestT, P: o, RayDir: d, Normal: n,
				Depth: dist, Borderline: border,
			})
			continue
		}
		if occluded && !border {
			continue
		}
		out = append(out, Contact{
			From: from, Vertex: v, Prim: best, T: bestT, P: o, RayDir: d, Normal: bestN,
			Depth: max(bestT*cos, 0), Borderline: border || occluded,
		})
	}
	return out
}

// appendBuried is the backends' fallback for a pair whose standard rays
// found no contact (reprojection.AppendBuried), by brute force: when the
// centre of src's bounding box lies inside dst (in dst's box, its
// winding number over one half, farther than dst's surface tolerance from
// its surface), every vertex of src inside dst is a contact at its
// distance to dst's surface, towards the nearest surface point (dst's
// face normal within the tolerance). ps and pd are the poses of src and
// dst.
func appendBuried(out []Contact, from narrow.Side, src, dst *world, ps, pd narrow.Pose) []Contact {
	scale := max(dst.s.Size(), src.s.Size(), 1e-300)
	tol := tolBorder * scale
	c := ps.Rot.Rotate(src.s.Bounds().Center()).Add(ps.Pos)
	local := pd.Rot.Conjugate().Rotate(c.Sub(pd.Pos))
	db := dst.s.Bounds()
	for k := range 3 {
		if local[k] < db.Min[k] || local[k] > db.Max[k] {
			return out
		}
	}
	_, dist, _, _ := dst.nearest(c, tol)
	if dst.winding(c) <= 0.5 || dist <= dst.s.TEps() {
		return out
	}
	border := dist-dst.s.TEps() < tol
	for v := range src.verts {
		if src.s.VertexNormal(v) == (mgl64.Vec3{}) {
			continue
		}
		o := src.verts[v]
		q, dist, prim, tie := dst.nearest(o, tol)
		if dst.winding(o) <= 0.5 {
			if dist < tol {
				out = append(out, Contact{From: from, Vertex: v, Prim: prim, P: o, Normal: dst.normal(prim), Borderline: true})
			}
			continue
		}
		n := dst.normal(prim)
		if dist > dst.s.TEps() {
			n = q.Sub(o).Mul(1 / dist)
		}
		out = append(out, Contact{From: from, Vertex: v, Prim: prim, P: o, Normal: n, Depth: dist, Borderline: border || tie || dist < tol})
	}
	return out
}

// RandomRotation returns a uniformly distributed unit quaternion.
func RandomRotation(rng *rand.Rand) mgl64.Quat {
	for {
		q := mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}
		if l := q.Len(); l > 1e-6 {
			return q.Scale(1 / l)
		}
	}
}

// RandomOverlap returns random poses of a and b whose bounding-box centres
// are at most frac × (a.Size() + b.Size()) apart, with random orientations
// (about z only for 2D shapes). frac around 0.5 gives overlapping pairs.
func RandomOverlap(rng *rand.Rand, a, b *narrow.Shape, frac float64) (narrow.Pose, narrow.Pose) {
	planar := a.Dim() == narrow.Dim2
	pose := func(s *narrow.Shape, at mgl64.Vec3) narrow.Pose {
		var q mgl64.Quat
		if planar {
			ang := rng.Float64() * 2 * math.Pi
			q = mgl64.Quat{W: math.Cos(ang / 2), V: mgl64.Vec3{0, 0, math.Sin(ang / 2)}}
		} else {
			q = RandomRotation(rng)
		}
		return narrow.Pose{Pos: at.Sub(q.Rotate(s.Bounds().Center())), Rot: q}
	}
	var off mgl64.Vec3
	for {
		off = mgl64.Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
		if planar {
			off[2] = 0
		}
		if l := off.Len(); l <= 1 && l > 1e-3 {
			break
		}
	}
	off = off.Mul(frac * (a.Size() + b.Size()))
	return pose(a, mgl64.Vec3{}), pose(b, off)
}

// Gap is a reference speculative contact (narrow.Params.Speculative): where
// the opposite ray of a vertex, from the vertex along its outward normal,
// first crosses the other shape's surface.
type Gap struct {
	Prim       int
	T          float64    // distance along the opposite ray
	Normal     mgl64.Vec3 // world outward normal of the primitive crossed
	Entering   bool       // the opposite ray enters the shape there
	Borderline bool       // another crossing is about as near, or the ray grazes an edge
}

// OppositeRay returns the first crossing, within distance back, of the
// opposite ray of vertex v of src at pose ps with dst at pose pd, and
// whether there is one.
func OppositeRay(src, dst *narrow.Shape, ps, pd narrow.Pose, v int, back float64) (Gap, bool) {
	ws, wd := place(src, ps), place(dst, pd)
	scale := max(dst.Size(), src.Size(), 1e-300)
	o, d := ws.verts[v], ws.norms[v] // the opposite ray: along the outward normal
	g := Gap{Prim: -1, T: math.Inf(1)}
	for i := 0; i < dst.NumPrims(); i++ {
		t, n, in, margin, ok := wd.cross(i, o, d, tolBary)
		if !ok || t < 0 || t > back {
			continue
		}
		if math.Abs(margin) < tolBorder {
			g.Borderline = g.Borderline || t < g.T+tolBorder*scale
		}
		if !in {
			continue
		}
		if math.Abs(t-g.T) < tolBorder*scale || math.Abs(t-back) < tolBorder*scale {
			g.Borderline = true
		}
		if t < g.T {
			g.Prim, g.T, g.Normal = i, t, n
		}
	}
	if g.Prim < 0 {
		return g, false
	}
	g.Entering = d.Dot(g.Normal) < 0
	return g, true
}

// CrossPrim returns where the line o + t·d crosses primitive prim of s at
// pose p: t, the world outward normal, and the barycentric margin (≥ 0
// within the primitive).
func CrossPrim(s *narrow.Shape, p narrow.Pose, prim int, o, d mgl64.Vec3) (t float64, n mgl64.Vec3, margin float64, ok bool) {
	w := place(s, p)
	t, n, _, margin, ok = w.cross(prim, o, d, tolBary)
	return t, n, margin, ok
}
