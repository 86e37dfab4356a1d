package reprojection

import (
	"math"

	"github.com/irtcd/irtcd/narrow"
)

// Reducer reduces the contacts of one pair to manifolds. It keeps scratch
// space between calls, so a warm Reducer allocates nothing; use one per
// goroutine.
type Reducer struct {
	byInput []entry // the contacts, in input order
	order   []int32 // indices into byInput, deepest first
	grouped []int32 // indices into byInput grouped by cluster, deepest first within
	seeds   []int32 // index into byInput of each cluster's seed
	count   []int32 // members per cluster, then the end of each group
}

// entry is what Reduce needs of one contact, kept contiguous so that the
// loops below run over plain ranges.
type entry struct {
	n       [3]float64 // NormalA
	depth   float64
	u, v    float64 // coordinates in the cluster's tangent plane
	mind    float64 // squared distance to the nearest kept point; < 0 once kept
	cluster int32
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
	if cap(r.byInput) < n {
		r.byInput = make([]entry, n, 2*n)
		r.grouped = make([]int32, n, 2*n)
		r.order = make([]int32, n, 2*n)
	}
	es, order := r.byInput[:n], r.order[:n]
	for i := range contacts {
		c, e := &contacts[i], &es[i]
		e.n, e.depth = c.Dir, c.Depth
		if c.From == narrow.SideB {
			e.n = [3]float64{-c.Dir[0], -c.Dir[1], -c.Dir[2]}
		}
		// Deepest first: insertion sort, stable and fast for the usual
		// few dozen contacts.
		j := i
		for ; j > 0 && es[order[j-1]].depth < c.Depth; j-- {
			order[j] = order[j-1]
		}
		order[j] = int32(i)
	}
	// Clusters, seeded in depth order.
	r.seeds = r.seeds[:0]
	r.count = r.count[:0]
	for _, i := range order {
		a := &es[i].n
		k := int32(-1)
		for s, si := range r.seeds {
			b := &es[si].n
			if a[0]*b[0]+a[1]*b[1]+a[2]*b[2] >= cosMax {
				k = int32(s)
				break
			}
		}
		if k < 0 {
			k = int32(len(r.seeds))
			r.seeds = append(r.seeds, i)
			r.count = append(r.count, 0)
		}
		es[i].cluster = k
		r.count[k]++
	}
	// Group by cluster, keeping depth order within a group.
	off := int32(0)
	for k, c := range r.count {
		r.count[k] = off
		off += c
	}
	grouped := r.grouped[:n]
	for _, i := range order {
		k := es[i].cluster
		grouped[r.count[k]] = i
		r.count[k]++
	}
	for lo := 0; lo < n; {
		hi := lo + 1
		for hi < n && es[grouped[hi]].cluster == es[grouped[lo]].cluster {
			hi++
		}
		ms, pts = reduceCluster(contacts, es, grouped[lo:hi], size, ms, pts)
		lo = hi
	}
	return ms, pts
}

// reduceCluster appends the manifold of one cluster, whose members g
// (indices into es and contacts) are in depth order.
func reduceCluster(contacts []narrow.Contact, es []entry, g []int32, size int, ms []narrow.Manifold, pts []narrow.Contact) ([]narrow.Manifold, []narrow.Contact) {
	// The depth-weighted mean normal (zero depths count a little so that
	// resting contacts still have a normal).
	var sx, sy, sz float64
	for _, i := range g {
		e := &es[i]
		w := e.depth + 1e-9
		sx += w * e.n[0]
		sy += w * e.n[1]
		sz += w * e.n[2]
	}
	seed := &es[g[0]]
	nx, ny, nz := seed.n[0], seed.n[1], seed.n[2]
	if l := math.Sqrt(sx*sx + sy*sy + sz*sz); l > 0 {
		il := 1 / l
		nx, ny, nz = sx*il, sy*il, sz*il
	}
	p0 := len(pts)
	first := &contacts[g[0]]
	pts = append(pts, *first)
	switch {
	case len(g) == 1:
	case len(g) == 2:
		// Nothing to choose: the other point unless it coincides with the
		// deepest in the plane of the normal.
		if second := &contacts[g[1]]; size >= 2 {
			dx, dy, dz := second.P[0]-first.P[0], second.P[1]-first.P[1], second.P[2]-first.P[2]
			dn := dx*nx + dy*ny + dz*nz
			if dx*dx+dy*dy+dz*dz-dn*dn > 0 {
				pts = append(pts, *second)
			}
		}
	default:
		// Two vectors orthogonal to the normal and to each other, of equal
		// length (between 0.8 and 1): the distances below are all scaled
		// by the same factor, which keeps their order.
		ux, uy, uz := 0.0, nz, -ny // n × x̂
		if math.Abs(nx) >= 0.6 {
			ux, uy, uz = -nz, 0, nx // ŷ × n
		}
		vx, vy, vz := ny*uz-nz*uy, nz*ux-nx*uz, nx*uy-ny*ux
		for _, i := range g {
			p, e := &contacts[i].P, &es[i]
			e.u = p[0]*ux + p[1]*uy + p[2]*uz
			e.v = p[0]*vx + p[1]*vy + p[2]*vz
			e.mind = math.Inf(1)
		}
		// The first member is the seed, the deepest.
		seed.mind = -1
		lu, lv := seed.u, seed.v
		for len(pts)-p0 < size {
			best, bestD := int32(-1), 0.0
			for _, i := range g {
				e := &es[i]
				if e.mind < 0 {
					continue
				}
				du, dv := e.u-lu, e.v-lv
				d := min(e.mind, du*du+dv*dv)
				e.mind = d
				if d > bestD {
					best, bestD = i, d
				}
			}
			if best < 0 {
				break // the rest coincide with kept points
			}
			pts = append(pts, contacts[best])
			es[best].mind = -1
			lu, lv = es[best].u, es[best].v
		}
	}
	ms = append(ms, narrow.Manifold{Points: pts[p0:len(pts):len(pts)]})
	m := &ms[len(ms)-1]
	m.Normal[0], m.Normal[1], m.Normal[2] = nx, ny, nz
	return ms, pts
}
