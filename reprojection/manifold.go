package reprojection

import (
	"math"

	"github.com/irtcd/irtcd/narrow"
)

// Reducer reduces the contacts of one pair to manifolds. It keeps scratch
// space between calls, so a warm Reducer allocates nothing; use one per
// goroutine.
type Reducer struct {
	es      []entry // the contacts, in input order
	members []int32 // the current cluster's members, in input order
	rest    []int32 // the contacts not in a cluster yet, in input order
}

// entry is what Reduce needs of one contact.
type entry struct {
	n       [3]float64 // NormalA
	depth   float64
	u, v    float64 // coordinates in the cluster's tangent plane
	mind    float64 // squared distance to the nearest kept point; < 0 once kept
	cluster int32   // -1 until assigned
}

// Reduce clusters contacts by their separating normal (NormalA) — a
// contact joins the first cluster, in order of decreasing seed depth, whose
// seed normal is within the angle whose cosine is cosMax — and keeps, per
// cluster, at most size points: the deepest, then repeatedly the contact
// farthest (in the plane orthogonal to the cluster normal) from the points
// already kept, which spreads the manifold widest. Many-normal concave
// contacts become several manifolds; none is dropped. Speculative contacts
// (Depth < 0) only join clusters of speculative contacts: they come after
// every contact in depth order, so their manifolds follow the contacts'.
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
	if cap(r.es) < n {
		r.es = make([]entry, n, 2*n)
		r.members = make([]int32, 0, 2*n)
		r.rest = make([]int32, 0, 2*n)
	}
	es := r.es[:n]
	rest := r.rest[:0]
	seed, sd := int32(0), 0.0
	for i := range contacts {
		c, e := &contacts[i], &es[i]
		sg := 1.0
		if c.From == narrow.SideB {
			sg = -1
		}
		e.n[0], e.n[1], e.n[2], e.depth, e.cluster = sg*c.Dir[0], sg*c.Dir[1], sg*c.Dir[2], c.Depth, -1
		rest = append(rest, int32(i))
		if i == 0 || e.depth > sd {
			seed, sd = int32(i), e.depth
		}
	}
	// No sort: the clusters' seeds in depth order are found by repeated
	// search, which is cheaper for the few clusters of a pair. The seed of
	// cluster k is the deepest contact that matches no earlier seed (the
	// first of equals), and its members are the contacts left that match
	// it — the same clusters as assigning contacts in depth order to the
	// first matching seed. One pass over the contacts left takes a
	// cluster's members out of them and finds the next seed among the
	// rest.
	for k := int32(0); ; k++ {
		sx, sy, sz := es[seed].n[0], es[seed].n[1], es[seed].n[2]
		spec := sd < 0
		m := append(r.members[:0], seed)
		es[seed].cluster = k
		next, nd := int32(-1), 0.0
		left := rest[:0]
		for _, i := range rest {
			e := &es[i]
			switch {
			case i == seed:
			case (e.depth < 0) == spec && e.n[0]*sx+e.n[1]*sy+e.n[2]*sz >= cosMax:
				e.cluster = k
				m = append(m, i)
			default:
				left = append(left, i)
				if next < 0 || e.depth > nd {
					next, nd = i, e.depth
				}
			}
		}
		r.members, rest = m, left
		ms, pts = reduceCluster(contacts, es, m, size, ms, pts)
		if next < 0 {
			break
		}
		seed, sd = next, nd
	}
	r.rest = rest
	return ms, pts
}

// reduceCluster appends the manifold of one cluster: its members g
// (indices into es and contacts) are the seed, then the others in input
// order.
func reduceCluster(contacts []narrow.Contact, es []entry, g []int32, size int, ms []narrow.Manifold, pts []narrow.Contact) ([]narrow.Manifold, []narrow.Contact) {
	// The depth-weighted mean normal (zero depths count a little so that
	// resting contacts still have a normal; speculative ones count alike).
	var sx, sy, sz float64
	for _, i := range g {
		e := &es[i]
		w := max(e.depth, 0) + 1e-9
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
	pts = appendContact(pts, first)
	switch {
	case len(g) == 1:
	case len(g) == 2:
		// Nothing to choose: the other point unless it coincides with the
		// deepest in the plane of the normal.
		if second := &contacts[g[1]]; size >= 2 {
			dx, dy, dz := second.P[0]-first.P[0], second.P[1]-first.P[1], second.P[2]-first.P[2]
			dn := dx*nx + dy*ny + dz*nz
			if dx*dx+dy*dy+dz*dz-dn*dn > 0 {
				pts = appendContact(pts, second)
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
			e, p := &es[i], &contacts[i].P
			e.u = p[0]*ux + p[1]*uy + p[2]*uz
			e.v = p[0]*vx + p[1]*vy + p[2]*vz
			e.mind = math.Inf(1)
		}
		seed.mind = -1
		lu, lv := seed.u, seed.v
		// Equal distances go to the earlier contact: g[1:] is in input
		// order and only a strictly larger distance replaces the best.
		for len(pts)-p0 < size {
			best, bestD := int32(-1), 0.0
			for _, i := range g[1:] {
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
			e := &es[best]
			pts = appendContact(pts, &contacts[best])
			e.mind = -1
			lu, lv = e.u, e.v
		}
	}
	if len(ms) < cap(ms) {
		ms = ms[:len(ms)+1]
	} else {
		ms = append(ms, narrow.Manifold{})
	}
	m := &ms[len(ms)-1]
	m.Points = pts[p0:len(pts):len(pts)]
	m.Normal[0], m.Normal[1], m.Normal[2] = nx, ny, nz
	return ms, pts
}

// appendContact is append(pts, *c) without the temporary copy append makes
// of its argument: the copy of a 72-byte struct through a temporary stalls
// on amd64 (its last two 16-byte moves overlap).
func appendContact(pts []narrow.Contact, c *narrow.Contact) []narrow.Contact {
	if len(pts) < cap(pts) {
		pts = pts[:len(pts)+1]
	} else {
		pts = append(pts, narrow.Contact{})
	}
	pts[len(pts)-1] = *c
	return pts
}
