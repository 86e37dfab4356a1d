package narrow

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// plusBars returns two bars crossed as a "+", with no vertex of either
// inside the other: a along x, centred at the origin, and b along y, its
// bottom face depth below a's top face (z = 0.2). Each of a's two top
// edges passes through b, and each of b's two bottom edges through a.
func plusBars(t *testing.T, depth float64) (a, b *Shape, pa, pb Pose) {
	t.Helper()
	var err error
	if a, err = NewBox(mgl64.Vec3{-2, -0.2, -0.2}, mgl64.Vec3{2, 0.2, 0.2}); err != nil {
		t.Fatal(err)
	}
	if b, err = NewBox(mgl64.Vec3{-0.2, -2, -0.2}, mgl64.Vec3{0.2, 2, 0.2}); err != nil {
		t.Fatal(err)
	}
	pa = Pose{Rot: mgl64.QuatIdent()}
	pb = Pose{Pos: mgl64.Vec3{0, 0, 0.4 - depth}, Rot: mgl64.QuatIdent()}
	return a, b, pa, pb
}

// TestEdgeFaceContactPlusBars: two bars crossed as a "+" have an
// edge-through-face contact for each edge through the other bar, at the
// middle of its part inside, with the exact depth and the vertical
// normal; none when the crossing is deeper than the bound, when the bars
// are apart, or where an end of the edge lies inside the other bar.
func TestEdgeFaceContactPlusBars(t *testing.T) {
	var sc EdgeScratch
	for _, depth := range []float64{1e-3, 0.05, 0.15} {
		a, b, pa, pb := plusBars(t, depth)
		var d [2]Direction
		SetPair(&d, a, b, &pa, &pb)
		for _, trav := range []Traversal{TraversalBVH, TraversalBasic} {
			for k, dir := range []struct {
				p   [2]mgl64.Vec3 // the contacts' points, in the order of the edges
				dir mgl64.Vec3
			}{
				{[2]mgl64.Vec3{{0, -0.2, 0.2}, {0, 0.2, 0.2}}, mgl64.Vec3{0, 0, -1}},
				{[2]mgl64.Vec3{{-0.2, 0, 0.2 - depth}, {0.2, 0, 0.2 - depth}}, mgl64.Vec3{0, 0, 1}},
			} {
				cs := d[k].AppendEdgeFaceContacts(nil, &sc, 0.1, 1, trav)
				if len(cs) != 2 {
					t.Fatalf("depth %v, %v, from %v: %d contacts %v, want 2", depth, trav, d[k].From, len(cs), cs)
				}
				slices.SortFunc(cs, func(x, y Contact) int { return cmp.Compare(x.P[0]+x.P[1], y.P[0]+y.P[1]) })
				for i, c := range cs {
					if c.Feature != FeatureEdgeFace || c.From != d[k].From {
						t.Errorf("contact %+v: want an edge-face contact from %v", c, d[k].From)
					}
					if math.Abs(c.Depth-depth) > 1e-12 || c.P.Sub(dir.p[i]).Len() > 1e-12 || c.Dir.Sub(dir.dir).Len() > 1e-9 {
						t.Errorf("depth %v, from %v: contact P %v depth %v dir %v, want %v, %v, %v", depth, d[k].From, c.P, c.Depth, c.Dir, dir.p[i], depth, dir.dir)
					}
					// The contact convention: moving the From bar by
					// Depth·Dir brings P to the other bar's surface.
					q := c.P.Add(c.Dir.Mul(c.Depth))
					other, pose := b, pb
					if c.From == SideB {
						other, pose = a, pa
					}
					local := pose.Rot.Inverse().Rotate(q.Sub(pose.Pos))
					if _, dist, _, _ := other.Nearest([3]float64(local)); dist > 1e-12 {
						t.Errorf("P + Depth·Dir = %v, %v off the other bar's surface", q, dist)
					}
				}
			}
		}
		if cs := d[0].AppendEdgeFaceContacts(nil, &sc, 0.1, 0.9*depth, TraversalBVH); len(cs) != 0 {
			t.Errorf("depth %v over the bound: %v", depth, cs)
		}
	}
	// Apart: nothing.
	a, b, pa, pb := plusBars(t, -0.01)
	var d [2]Direction
	SetPair(&d, a, b, &pa, &pb)
	if cs := d[0].AppendEdgeFaceContacts(nil, &sc, 0.1, 1, TraversalBVH); len(cs) != 0 {
		t.Errorf("bars apart: %v", cs)
	}
	// b moved to a's end (x = 1.9): a's top edges end inside b, whose
	// vertex rays hold the crossing; b's bottom edges still pass through a.
	a, b, pa, pb = plusBars(t, 0.05)
	pb.Pos[0] = 1.9
	SetPair(&d, a, b, &pa, &pb)
	if cs := d[0].AppendEdgeFaceContacts(nil, &sc, 0.1, 1, TraversalBVH); len(cs) != 0 {
		t.Errorf("a's edges ending inside b: %v", cs)
	}
	if cs := d[1].AppendEdgeFaceContacts(nil, &sc, 0.1, 1, TraversalBVH); len(cs) != 1 {
		t.Errorf("b's bottom edges through a's end: %v, want the one whose part inside a lies inside its x range", cs)
	}
}

// edgeFaceRef is the brute-force reference of AppendEdgeFaceContacts:
// every edge bent by more than angle, traced against every primitive (no
// culling, no hierarchy), its crossings followed as AppendEdgeFaceContacts
// follows them.
func edgeFaceRef(d *Direction, angle, maxDepth float64) []Contact {
	src, dst := d.Src, d.Dst
	tol := max(src.tEps, dst.tEps)
	var out []Contact
	// hit is the nearest crossing with t in [lo, hi), ties to the lower
	// primitive.
	hit := func(o, u *[3]float64, lo, hi float64) Hit {
		h := NoHit
		for i := range dst.prims {
			tt, uu, vv, inside, ok := dst.Barycentric(int32(i), o, u)
			if !ok || uu < -BaryEps || uu > 1+BaryEps || vv < -BaryEps || uu+vv > 1+BaryEps || tt < lo || tt >= hi {
				continue
			}
			if tt < h.T {
				h = Hit{T: tt, Prim: int32(i), Inside: inside}
			}
		}
		return h
	}
	for i, e := range src.edges {
		if e.Angle <= angle {
			continue
		}
		p0, p1 := d.SrcToDst.Apply(src.verts[e.V[0]]), d.SrcToDst.Apply(src.verts[e.V[1]])
		u := sub3(p1, p0)
		l := len3(u)
		u = scale3(u, 1/l)
		first := len(out)
		t := 0.0
		for range maxEdgeCrossings {
			in := hit(&p0, &u, t, l)
			if in.Prim < 0 {
				break
			}
			if in.Inside {
				t = in.T + tol
				continue
			}
			ex := hit(&p0, &u, in.T+tol, l)
			if ex.Prim < 0 {
				break
			}
			if !ex.Inside {
				t = ex.T
				continue
			}
			p := along(p0, u, 0.5*(in.T+ex.T))
			t = ex.T + tol
			q, depth, _, inside := dst.Nearest(p)
			if !inside || depth <= tol || depth > maxDepth {
				continue
			}
			out = append(out, Contact{P: d.DstWorld.Apply(p), Depth: depth, Dir: d.DstWorld.ApplyDir(scale3(sub3(q, p), 1/depth)),
				From: d.From, Feature: FeatureEdgeFace, Vertex: int32(i), Prim: in.Prim})
		}
		slices.SortStableFunc(out[first:], func(x, y Contact) int { return cmp.Compare(x.Prim, y.Prim) })
	}
	return out
}

// TestEdgeFaceContactsMatchBruteForce compares AppendEdgeFaceContacts,
// with both traversals and in both directions, against the brute-force
// reference at random poses of boxes, bars and the test meshes, moved
// into each other by a little or a lot past their first overlap: the
// same contacts in the same order, to rounding. The culling (the boxes, Dst's outside grid) drops no
// crossing.
func TestEdgeFaceContactsMatchBruteForce(t *testing.T) {
	shapes := edgeShapes(t)
	rng := rand.New(rand.NewPCG(9, 41))
	var sc EdgeScratch
	total := 0
	for _, pr := range [][2]string{{"box", "box"}, {"bar", "box"}, {"bar", "bar"}, {"bunny", "box"}, {"teddy", "bunny"}, {"bunny", "bunny"}, {"torus", "duck"}, {"bar", "duck"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		found := 0
		trials := 100
		if a.NumEdges() > 100 && b.NumEdges() > 100 {
			trials = 25 // the brute force is slow
		}
		if testing.Short() {
			trials /= 4
		}
		for range trials {
			// Just past the first overlap of a motion through each
			// other, and deeper: edges through faces are likelier there
			// than at random overlapping poses, where vertices are in.
			m := newThroughMotion(rng, a, b)
			f := m.firstOverlap(t, 8)
			f = m.bisect(t, 0, f)
			f += (0.002 + 0.1*rng.Float64()) * min(a.size, b.size) / m.move.Len()
			pa, pb := m.poseAt(f), m.pb
			var d [2]Direction
			SetPair(&d, a, b, &pa, &pb)
			for _, angle := range []float64{0.005, math.Pi / 6} {
				maxDepth := 0.25 * min(a.size, b.size)
				for k := range d {
					want := edgeFaceRef(&d[k], angle, maxDepth)
					for _, trav := range []Traversal{TraversalBVH, TraversalBasic} {
						got := d[k].AppendEdgeFaceContacts(nil, &sc, angle, maxDepth, trav)
						matchBruteForce(t, fmt.Sprintf("%s/%s from %v, angle %v, %v", pr[0], pr[1], d[k].From, angle, trav), got, want, a.scale)
						for x, g := range got {
							if x > 0 && CompareContacts(&got[x-1], &g) >= 0 {
								t.Fatalf("%s/%s: contacts %d and %d out of order: %+v, %+v", pr[0], pr[1], x-1, x, got[x-1], g)
							}
						}
						// The same after the edge-on-edge contacts, with
						// Src's edges chosen once for both.
						for _, gap := range []float64{0, 0.05 * a.size} {
							edge := d[k].AppendEdgeContacts(nil, &sc, angle, maxDepth, gap, trav)
							both := d[k].AppendEdgeAndFaceContacts(nil, &sc, angle, maxDepth, gap, trav)
							what := fmt.Sprintf("%s/%s from %v, angle %v, %v, gap %v, with edge-on-edge", pr[0], pr[1], d[k].From, angle, trav, gap)
							if len(both) < len(edge) || !slices.Equal(both[:len(edge)], edge) {
								t.Fatalf("%s: starts %v, want %v", what, both, edge)
							}
							matchBruteForce(t, what, both[len(edge):], want, a.scale)
						}
					}
					found += len(want)
				}
			}
		}
		t.Logf("%s/%s: %d edge-face contacts over %d poses", pr[0], pr[1], found, trials)
		total += found
	}
	if least := 200; total < least {
		t.Errorf("only %d edge-face contacts over all poses: the comparison tests little", total)
	}
}

// TestEdgeFaceContactsFindCrossings: meshes moved through each other
// from random poses, just past their first overlap (Overlap, bisected),
// where no vertex of either lies inside the other (the vertex rays have
// nothing there): the edge-through-face contacts of the two directions,
// with every convex edge, find the crossing.
func TestEdgeFaceContactsFindCrossings(t *testing.T) {
	shapes := edgeShapes(t)
	rng := rand.New(rand.NewPCG(3, 14))
	var sc EdgeScratch
	crossings := 0
	motions := 150
	if testing.Short() {
		motions = 40
	}
	for _, pr := range [][2]string{{"bunny", "bunny"}, {"torus", "bunny"}, {"teddy", "duck"}, {"bar", "torus"}, {"box", "bunny"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		n, found := 0, 0
		for range motions {
			m := newThroughMotion(rng, a, b)
			hi := m.firstOverlap(t, 8)
			if !m.overlaps(t, hi) {
				continue
			}
			hi = m.bisect(t, 0, hi)
			// 0.2 % of the smaller size past the first overlap.
			f := hi + 2e-3*min(a.size, b.size)/m.move.Len()
			pa := m.poseAt(f)
			if vertexInside(a, b, pa, m.pb) || vertexInside(b, a, m.pb, pa) {
				continue
			}
			var d [2]Direction
			SetPair(&d, a, b, &pa, &m.pb)
			cs := d[0].AppendEdgeFaceContacts(nil, &sc, 1e-6, math.Inf(1), TraversalBVH)
			cs = d[1].AppendEdgeFaceContacts(cs, &sc, 1e-6, math.Inf(1), TraversalBVH)
			n++
			if len(cs) > 0 {
				found++
			}
		}
		t.Logf("%s/%s: %d of %d crossings without a vertex inside found", pr[0], pr[1], found, n)
		if found < n {
			t.Errorf("%s/%s: %d of %d crossings without a vertex inside have no edge-face contact", pr[0], pr[1], n-found, n)
		}
		crossings += n
	}
	if crossings < 20 {
		t.Errorf("only %d crossings without a vertex inside: the test tests little", crossings)
	}
}

// bisect returns the fraction of the motion at which a and b first
// overlap, to 1e-12, between lo (apart) and hi (overlapping).
func (m *throughMotion) bisect(t testing.TB, lo, hi float64) float64 {
	for hi-lo > 1e-12 {
		if mid := 0.5 * (lo + hi); m.overlaps(t, mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// vertexInside reports whether a vertex of s (at pose ps) lies inside o
// (at pose po).
func vertexInside(s, o *Shape, ps, po Pose) bool {
	ts, to := ps.Transform(), po.Transform()
	var m Transform
	m.SetRelative(&to, &ts)
	for _, v := range s.verts {
		if _, _, _, in := o.Nearest(m.Apply(v)); in {
			return true
		}
	}
	return false
}

// TestFaceEdgesFollowMotion checks AppendFaceEdges against
// AppendEdgeFaceContacts: edges chosen just past the first overlap of
// random motions, with a margin, then traced by
// AppendListedEdgeFaceContacts after either body moves by up to the
// margin, give exactly AppendEdgeFaceContacts' contacts there, in both
// directions. After a motion five times the margin some contacts are
// missed (the test can fail), and the edges chosen are far fewer than
// the sharp edges.
func TestFaceEdgesFollowMotion(t *testing.T) {
	shapes := edgeShapes(t)
	rng := rand.New(rand.NewPCG(4, 27))
	var sc EdgeScratch
	var edges []int32
	var want, got []Contact
	checked, missedFar := 0, 0
	trials := 40
	if testing.Short() {
		trials /= 4
	}
	for _, pr := range [][2]string{{"box", "box"}, {"bar", "box"}, {"bunny", "box"}, {"teddy", "bunny"}, {"bunny", "bunny"}, {"bar", "duck"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		const angle = 0.1
		small := min(a.size, b.size)
		maxDepth, margin := 0.25*small, 0.02*small
		chosen, sharp := 0, a.SharpEdges(angle)+b.SharpEdges(angle)
		for i := range trials {
			m := newThroughMotion(rng, a, b)
			f := m.bisect(t, 0, m.firstOverlap(t, 8)) + 0.05*rng.Float64()*small/m.move.Len()
			pa, pb := m.poseAt(f), m.pb
			var d [2]Direction
			SetPair(&d, a, b, &pa, &pb)
			for dir := range d {
				edges = d[dir].AppendFaceEdges(edges[:0], &sc, angle, margin)
				chosen += len(edges)
				if !slices.IsSorted(edges) {
					t.Fatalf("%s/%s: edges not in order: %v", pr[0], pr[1], edges)
				}
				for k, f := range []float64{0, 0.5, 1, 5} {
					// Either body moves (alternately), by up to f × margin.
					qa, qb := pa, pb
					if k%2 == 0 {
						qa = moveAbout(rng, a, pa, f*margin)
					} else {
						qb = moveAbout(rng, b, pb, f*margin)
					}
					var e [2]Direction
					SetPair(&e, a, b, &qa, &qb)
					trav := []Traversal{TraversalBVH, TraversalBasic}[k%2]
					want = e[dir].AppendEdgeFaceContacts(want[:0], &sc, angle, maxDepth, trav)
					got = e[dir].AppendListedEdgeFaceContacts(got[:0], edges, maxDepth, trav)
					if f > 1 {
						if len(got) < len(want) {
							missedFar++
						}
						continue
					}
					checked += len(want)
					if !slices.EqualFunc(got, want, func(x, y Contact) bool { return x == y }) {
						t.Fatalf("%s/%s trial %d from %v, motion %v × margin: %d contacts from %d edges, AppendEdgeFaceContacts %d\n got %v\nwant %v", pr[0], pr[1], i, d[dir].From, f, len(got), len(edges), len(want), got, want)
					}
				}
			}
		}
		t.Logf("%s/%s: %.1f edges chosen per pose (of %d sharp edges)", pr[0], pr[1], float64(chosen)/float64(trials), sharp)
		if chosen >= trials*sharp/4 {
			t.Errorf("%s/%s: %d edges over %d poses: hardly culled", pr[0], pr[1], chosen, trials)
		}
	}
	t.Logf("%d contacts compared; %d poses moved 5 × the margin missed some", checked, missedFar)
	// The short run's few poses may all keep their contacts five
	// margins on.
	if checked < 100 || missedFar == 0 && !testing.Short() {
		t.Errorf("%d contacts compared, %d misses beyond the margin: the test tests little", checked, missedFar)
	}
}
