package reprojection

import (
	"cmp"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Reducer reduces the contacts of one pair to manifolds. It keeps scratch
// space between calls, so a warm Reducer allocates nothing; use one per
// goroutine.
type Reducer struct {
	order   []int32
	cluster []int32 // cluster of each contact (by position in order)
	seeds   []int32 // seed contact of each cluster
	chosen  []int32
	mind    []float64
	normals []mgl64.Vec3
}

// Reduce clusters contacts by their separating normal (NormalA) — a
// contact joins the first cluster, in order of decreasing seed depth, whose
// seed normal is within the angle whose cosine is cosMax — and keeps, per
// cluster, at most size points: the deepest, then repeatedly the contact
// farthest (in the plane orthogonal to the cluster normal) from the points
// already kept, which spreads the manifold widest. Many-normal concave
// contacts become several manifolds, none is dropped.
//
// Manifolds and their points are appended to ms and pts (whose storage is
// reused); the returned manifolds' Points alias pts. The result depends
// only on the input (ties go to the lower From, then Vertex).
func (r *Reducer) Reduce(contacts []narrow.Contact, size int, cosMax float64, ms []narrow.Manifold, pts []narrow.Contact) ([]narrow.Manifold, []narrow.Contact) {
	n := len(contacts)
	if n == 0 {
		return ms, pts
	}
	r.order = r.order[:0]
	for i := range contacts {
		r.order = append(r.order, int32(i))
	}
	slices.SortStableFunc(r.order, func(a, b int32) int {
		return cmp.Compare(contacts[b].Depth, contacts[a].Depth)
	})
	r.cluster = slices.Grow(r.cluster[:0], n)[:n]
	r.seeds = r.seeds[:0]
	r.normals = r.normals[:0]
	for oi, ci := range r.order {
		na := contacts[ci].NormalA()
		k := -1
		for s, sn := range r.normals {
			if na.Dot(sn) >= cosMax {
				k = s
				break
			}
		}
		if k < 0 {
			k = len(r.seeds)
			r.seeds = append(r.seeds, int32(oi))
			r.normals = append(r.normals, na)
		}
		r.cluster[oi] = int32(k)
	}
	r.mind = slices.Grow(r.mind[:0], n)[:n]
	for k := range r.seeds {
		// Depth-weighted mean normal of the cluster (zero depths count a little).
		var sum mgl64.Vec3
		for oi, ci := range r.order {
			if r.cluster[oi] == int32(k) {
				sum = sum.Add(contacts[ci].NormalA().Mul(contacts[ci].Depth + 1e-9))
			}
		}
		nrm := r.normals[k]
		if l := sum.Len(); l > 0 {
			nrm = sum.Mul(1 / l)
		}
		p0 := len(pts)
		seed := r.order[r.seeds[k]]
		pts = append(pts, contacts[seed])
		for oi := range r.order {
			r.mind[oi] = -1
			if r.cluster[oi] == int32(k) && int32(oi) != r.seeds[k] {
				r.mind[oi] = planarDist2(contacts[r.order[oi]].P, contacts[seed].P, nrm)
			}
		}
		for len(pts)-p0 < size {
			best, bestD := -1, 0.0
			for oi, d := range r.mind {
				if d > bestD {
					best, bestD = oi, d
				}
			}
			if best < 0 {
				break
			}
			c := contacts[r.order[best]]
			pts = append(pts, c)
			r.mind[best] = -1
			for oi, d := range r.mind {
				if d > 0 {
					r.mind[oi] = min(d, planarDist2(contacts[r.order[oi]].P, c.P, nrm))
				}
			}
		}
		ms = append(ms, narrow.Manifold{Normal: nrm, Points: pts[p0:len(pts):len(pts)]})
	}
	return ms, pts
}

// planarDist2 is the squared distance between a and b in the plane
// orthogonal to unit n.
func planarDist2(a, b, n mgl64.Vec3) float64 {
	d := a.Sub(b)
	d = d.Sub(n.Mul(d.Dot(n)))
	return d.Dot(d)
}
