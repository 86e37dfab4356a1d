package reprojection

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Reducer reduces the contacts of one pair to manifolds. It keeps scratch
// space between calls, so a warm Reducer allocates nothing; use one per
// goroutine.
type Reducer struct {
	order   []int32      // contact indices, deepest first
	na      [][3]float64 // NormalA of each contact (by position in order)
	cluster []int32      // cluster of each contact (by position in order)
	seeds   []int32      // position in order of each cluster's seed
	uv      [][2]float64 // tangent-plane coordinates of a cluster's members
	member  []int32      // positions in order of a cluster's members
	mind    []float64    // squared distance to the nearest kept point
}

// Reduce clusters contacts by their separating normal (NormalA) — a
// contact joins the first cluster, in order of decreasing seed depth, whose
// seed normal is within the angle whose cosine is cosMax — and keeps, per
// cluster, at most size points: the deepest, then repeatedly the contact
// farthest (in the plane orthogonal to the cluster normal) from the points
// already kept, which spreads the manifold widest. Many-normal concave
// contacts become several manifolds; none is dropped.
//
// Manifolds and their points are appended to ms and pts (whose storage is
// reused); the returned manifolds' Points alias pts. The result depends
// only on the input and its order: equal depths and equal distances go to
// the earlier contact, so input sorted by From then Vertex (as backends
// produce it) breaks ties by From, then Vertex.
func (r *Reducer) Reduce(contacts []narrow.Contact, size int, cosMax float64, ms []narrow.Manifold, pts []narrow.Contact) ([]narrow.Manifold, []narrow.Contact) {
	n := len(contacts)
	if n == 0 {
		return ms, pts
	}
	// Deepest first; insertion sort is stable and fast for the usual few
	// dozen contacts.
	r.order = r.order[:0]
	for i := range contacts {
		r.order = append(r.order, int32(i))
		for j := len(r.order) - 1; j > 0 && contacts[r.order[j-1]].Depth < contacts[r.order[j]].Depth; j-- {
			r.order[j-1], r.order[j] = r.order[j], r.order[j-1]
		}
	}
	r.na = slices.Grow(r.na[:0], n)[:n]
	for oi, ci := range r.order {
		c := &contacts[ci]
		if c.From == narrow.SideB {
			r.na[oi] = [3]float64{-c.Dir[0], -c.Dir[1], -c.Dir[2]}
		} else {
			r.na[oi] = c.Dir
		}
	}
	r.cluster = slices.Grow(r.cluster[:0], n)[:n]
	r.seeds = r.seeds[:0]
	for oi := range r.order {
		a := &r.na[oi]
		k := int32(-1)
		for s, so := range r.seeds {
			b := &r.na[so]
			if a[0]*b[0]+a[1]*b[1]+a[2]*b[2] >= cosMax {
				k = int32(s)
				break
			}
		}
		if k < 0 {
			k = int32(len(r.seeds))
			r.seeds = append(r.seeds, int32(oi))
		}
		r.cluster[oi] = k
	}
	for k := range r.seeds {
		// Members, and the depth-weighted mean normal (zero depths count a
		// little so that resting contacts still have a normal).
		r.member = r.member[:0]
		var sx, sy, sz float64
		for oi, c := range r.cluster {
			if c != int32(k) {
				continue
			}
			r.member = append(r.member, int32(oi))
			w := contacts[r.order[oi]].Depth + 1e-9
			sx += w * r.na[oi][0]
			sy += w * r.na[oi][1]
			sz += w * r.na[oi][2]
		}
		nrm := r.na[r.seeds[k]]
		if l := math.Sqrt(sx*sx + sy*sy + sz*sz); l > 0 {
			il := 1 / l
			nrm = [3]float64{sx * il, sy * il, sz * il}
		}
		m := len(r.member)
		if m <= 2 {
			// Nothing to choose: the deepest, then the other unless it
			// coincides with it in the plane of the normal.
			p0 := len(pts)
			first := &contacts[r.order[r.member[0]]]
			pts = append(pts, *first)
			if m == 2 && size >= 2 {
				second := &contacts[r.order[r.member[1]]]
				d := second.P.Sub(first.P)
				dn := d[0]*nrm[0] + d[1]*nrm[1] + d[2]*nrm[2]
				if d.Dot(d)-dn*dn > 0 {
					pts = append(pts, *second)
				}
			}
			ms = append(ms, narrow.Manifold{Normal: mgl64.Vec3(nrm), Points: pts[p0:len(pts):len(pts)]})
			continue
		}
		u, v := tangents(nrm)
		r.uv = slices.Grow(r.uv[:0], m)[:m]
		r.mind = slices.Grow(r.mind[:0], m)[:m]
		for i, oi := range r.member {
			p := &contacts[r.order[oi]].P
			r.uv[i] = [2]float64{p[0]*u[0] + p[1]*u[1] + p[2]*u[2], p[0]*v[0] + p[1]*v[1] + p[2]*v[2]}
			r.mind[i] = math.Inf(1)
		}
		// The first member is the seed, the deepest.
		p0 := len(pts)
		last := 0
		pts = append(pts, contacts[r.order[r.member[0]]])
		r.mind[0] = -1
		for len(pts)-p0 < size {
			best, bestD := -1, 0.0
			lu := r.uv[last]
			for i, d := range r.mind {
				if d < 0 {
					continue
				}
				du, dv := r.uv[i][0]-lu[0], r.uv[i][1]-lu[1]
				d = min(d, du*du+dv*dv)
				r.mind[i] = d
				if d > bestD {
					best, bestD = i, d
				}
			}
			if best < 0 {
				break // the rest coincide with kept points
			}
			pts = append(pts, contacts[r.order[r.member[best]]])
			r.mind[best] = -1
			last = best
		}
		ms = append(ms, narrow.Manifold{Normal: mgl64.Vec3(nrm), Points: pts[p0:len(pts):len(pts)]})
	}
	return ms, pts
}

// tangents returns two unit vectors orthogonal to unit n and to each other.
func tangents(n [3]float64) (u, v [3]float64) {
	if math.Abs(n[0]) < 0.6 {
		u = [3]float64{0, n[2], -n[1]} // n × x̂
	} else {
		u = [3]float64{-n[2], 0, n[0]} // ŷ × n
	}
	il := 1 / math.Sqrt(u[0]*u[0]+u[1]*u[1]+u[2]*u[2])
	u = [3]float64{u[0] * il, u[1] * il, u[2] * il}
	v = [3]float64{n[1]*u[2] - n[2]*u[1], n[2]*u[0] - n[0]*u[2], n[0]*u[1] - n[1]*u[0]}
	return u, v
}
