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

// TestShapeEdges: a box lists its 12 edges, bent by π/2, and not the
// diagonals of its faces; the test meshes' counts of sharp edges are those
// Params.EdgeAngle's documentation gives; every listed edge is convex, its
// faces share its two vertices, and each block's box and sharpest bend
// bound its edges.
func TestShapeEdges(t *testing.T) {
	box, err := NewBox(mgl64.Vec3{-1, -2, -3}, mgl64.Vec3{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if n := box.NumEdges(); n != 12 {
		t.Fatalf("box: %d edges, want 12", n)
	}
	for i := range box.NumEdges() {
		e := box.Edge(i)
		if math.Abs(e.Angle-math.Pi/2) > 1e-12 {
			t.Errorf("box edge %d bends by %v, want π/2", i, e.Angle)
		}
		d := box.Vertex(int(e.V[1])).Sub(box.Vertex(int(e.V[0])))
		axes := 0
		for k := range 3 {
			if d[k] != 0 {
				axes++
			}
		}
		if axes != 1 {
			t.Errorf("box edge %d runs along %v: a face's diagonal", i, d)
		}
	}
	if got := box.SharpEdges(1.5); got != 12 {
		t.Errorf("box: SharpEdges(1.5) = %d, want 12", got)
	}
	if got := box.SharpEdges(1.6); got != 0 {
		t.Errorf("box: SharpEdges(1.6) = %d, want 0", got)
	}

	shapes := cullShapes(t)
	for _, tc := range []struct {
		name  string
		angle float64
		want  int
	}{
		{"bunny", math.Pi / 3, 115},
		{"bunny", 4 * math.Pi / 9, 56},
		{"torus", math.Pi / 6, 300},
		{"torus", math.Pi / 4, 0},
		{"star", 0, 0}, // polygons have no edges
	} {
		s := shapes[tc.name]
		if got := s.SharpEdges(tc.angle); got != tc.want {
			t.Errorf("%s: SharpEdges(%.4f) = %d, want %d", tc.name, tc.angle, got, tc.want)
		}
		for i := range s.NumEdges() {
			e := s.Edge(i)
			blk := s.edgeBlocks[i/edgeBlock]
			if e.Angle > blk.sharp || !blk.box.Contains(s.verts[e.V[0]]) || !blk.box.Contains(s.verts[e.V[1]]) {
				t.Fatalf("%s: edge %d outside its block's bounds %+v", tc.name, i, blk)
			}
			for _, f := range e.Faces {
				if p := s.Prim(int(f)); !slices.Contains(p[:], e.V[0]) || !slices.Contains(p[:], e.V[1]) {
					t.Fatalf("%s: edge %d's face %d %v lacks its vertices %v", tc.name, i, f, p, e.V)
				}
			}
			// Convex: the far vertex of each face lies behind the other.
			for k, f := range e.Faces {
				other := s.FaceNormal(int(e.Faces[1-k]))
				for _, v := range s.Prim(int(f)) {
					if v != e.V[0] && v != e.V[1] && s.Vertex(int(v)).Sub(s.Vertex(int(e.V[0]))).Dot(other) >= 0 {
						t.Fatalf("%s: edge %d is not convex", tc.name, i)
					}
				}
			}
		}
	}
}

// crossedBars returns two bars, each a box turned by 45° about its length,
// so that each has an edge on top and one below: b lies along x with its
// top edge on the x axis at z = 0, and a along y with its bottom edge at
// z = -depth, crossing b's top edge at the origin. No vertex of either lies
// inside the other.
func crossedBars(t *testing.T, depth float64) (a, b *Shape, pa, pb Pose) {
	t.Helper()
	h := 0.2
	var err error
	if a, err = NewBox(mgl64.Vec3{-h, -2, -h}, mgl64.Vec3{h, 2, h}); err != nil {
		t.Fatal(err)
	}
	if b, err = NewBox(mgl64.Vec3{-2, -h, -h}, mgl64.Vec3{2, h, h}); err != nil {
		t.Fatal(err)
	}
	r := h * math.Sqrt2
	pb = Pose{Pos: mgl64.Vec3{0, 0, -r}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})}
	pa = Pose{Pos: mgl64.Vec3{0, 0, r - depth}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0})}
	return a, b, pa, pb
}

// TestEdgeContactCrossedBars: two bars crossing edge on edge have one
// contact, at the crossing, with the exact depth and the vertical
// normal, and none once they are apart or parallel.
func TestEdgeContactCrossedBars(t *testing.T) {
	var sc EdgeScratch
	for _, depth := range []float64{1e-4, 0.003, 0.05} {
		a, b, pa, pb := crossedBars(t, depth)
		var d [2]Direction
		SetPair(&d, a, b, &pa, &pb)
		for _, trav := range []Traversal{TraversalBVH, TraversalBasic} {
			cs := d[0].AppendEdgeContacts(nil, &sc, math.Pi/4, 1, 0, trav)
			if len(cs) != 1 {
				t.Fatalf("depth %v, %v: %d contacts %v, want 1", depth, trav, len(cs), cs)
			}
			c := cs[0]
			if c.Feature != FeatureEdge || c.From != SideA {
				t.Errorf("contact %+v: want an edge contact from A", c)
			}
			if math.Abs(c.Depth-depth) > 1e-12 || c.P.Sub(mgl64.Vec3{0, 0, -depth}).Len() > 1e-12 || c.Dir.Sub(mgl64.Vec3{0, 0, 1}).Len() > 1e-12 {
				t.Errorf("depth %v: contact P %v depth %v dir %v, want (0, 0, %v), %v, (0, 0, 1)", depth, c.P, c.Depth, c.Dir, -depth, depth)
			}
			// The contact convention: moving A by Depth·Dir brings P to
			// B's surface (its top edge, the x axis).
			if q := c.P.Add(c.Dir.Mul(c.Depth)); math.Hypot(q[1], q[2]) > 1e-12 {
				t.Errorf("P + Depth·Dir = %v, not on B's top edge", q)
			}
			// From B's side, the same crossing, seen from B.
			cb := d[1].AppendEdgeContacts(nil, &sc, math.Pi/4, 1, 0, trav)
			if len(cb) != 1 || math.Abs(cb[0].Depth-depth) > 1e-12 || cb[0].Dir.Sub(mgl64.Vec3{0, 0, -1}).Len() > 1e-12 {
				t.Errorf("from B: %v", cb)
			}
		}
		// Beyond the depth bound the vertex rays take over.
		if cs := d[0].AppendEdgeContacts(nil, &sc, math.Pi/4, 0.9*depth, 0, TraversalBVH); len(cs) != 0 {
			t.Errorf("depth %v over the bound: %v", depth, cs)
		}
	}
	// Apart: no contact; a speculative one when the gap is within reach.
	a, b, pa, pb := crossedBars(t, -0.01)
	var d [2]Direction
	SetPair(&d, a, b, &pa, &pb)
	if cs := d[0].AppendEdgeContacts(nil, &sc, math.Pi/4, 1, 0.005, TraversalBVH); len(cs) != 0 {
		t.Errorf("bars 0.01 apart, gaps up to 0.005: %v", cs)
	}
	cs := d[0].AppendEdgeContacts(nil, &sc, math.Pi/4, 1, 0.02, TraversalBVH)
	if len(cs) != 1 || math.Abs(cs[0].Depth+0.01) > 1e-12 || !cs[0].Speculative() || cs[0].Dir.Sub(mgl64.Vec3{0, 0, 1}).Len() > 1e-12 ||
		cs[0].P.Add(cs[0].Dir.Mul(cs[0].Depth)).Sub(mgl64.Vec3{}).Len() > 1e-12 {
		t.Errorf("bars 0.01 apart, gaps up to 0.02: %v, want one speculative contact of depth −0.01 at (0, 0, 0.01), up", cs)
	}
	// Parallel bars, one sunk into the other along their common edge: the
	// edges are parallel, the vertex rays hold them.
	pa.Rot = pb.Rot
	SetPair(&d, b, b, &pa, &pb)
	if cs := d[0].AppendEdgeContacts(nil, &sc, math.Pi/4, 1, 0, TraversalBVH); len(cs) != 0 {
		t.Errorf("parallel bars: %v", cs)
	}
}

// edgeRef is the brute-force reference of AppendEdgeContacts: every pair
// of edges, the closest points of their lines solved on their own, and the
// emptiness of the segment between them checked against every primitive.
func edgeRef(d *Direction, angle, maxDepth, maxGap float64) []Contact {
	src, dst := d.Src, d.Dst
	var out []Contact
	tol := max(src.tEps, dst.tEps)
	back := d.SrcToDst.Inverse()
	for i, e := range src.edges {
		if e.Angle <= angle {
			continue
		}
		a0, a1 := d.SrcToDst.Apply(src.verts[e.V[0]]), d.SrcToDst.Apply(src.verts[e.V[1]])
		na0, na1 := d.SrcToDst.ApplyDir(src.fnorm[e.Faces[0]]), d.SrcToDst.ApplyDir(src.fnorm[e.Faces[1]])
		for j, f := range dst.edges {
			if f.Angle <= angle {
				continue
			}
			b0, b1 := dst.verts[f.V[0]], dst.verts[f.V[1]]
			nb0, nb1 := dst.fnorm[f.Faces[0]], dst.fnorm[f.Faces[1]]
			u, v := mgl64.Vec3(sub3(a1, a0)), mgl64.Vec3(sub3(b1, b0))
			n := u.Cross(v)
			if n.Len() <= 1e-6*u.Len()*v.Len() {
				continue
			}
			n = n.Normalize()
			// The closest points: P − Q ∥ n, so P − Q = ((a0 − b0)·n) n,
			// and a0 + s u − (b0 + t v) − ((a0 − b0)·n) n = 0 is solved
			// in the plane of u and v by Cramer's rule.
			w := mgl64.Vec3(sub3(a0, b0))
			w = w.Sub(n.Mul(w.Dot(n)))
			m := mgl64.Mat2{u.Dot(u), u.Dot(v), -u.Dot(v), -v.Dot(v)} // column-major
			st := m.Inv().Mul2x1(mgl64.Vec2{-w.Dot(u), -w.Dot(v)})
			s, tt := st[0], st[1]
			if s <= 0 || s >= 1 || tt <= 0 || tt >= 1 {
				continue
			}
			bis := mgl64.Vec3(add3(nb0, nb1))
			if n.Dot(bis) < 0 {
				n = n.Mul(-1)
			}
			inArc := func(x, n0, n1 mgl64.Vec3) bool {
				// x ⊥ the edge; within the arc iff both angles sum to the
				// arc's.
				return math.Abs(math.Acos(min(1, x.Dot(n0)))+math.Acos(min(1, x.Dot(n1)))-math.Acos(min(1, n0.Dot(n1)))) < 1e-9
			}
			if !inArc(n, nb0, nb1) || !inArc(n.Mul(-1), na0, na1) {
				continue
			}
			p := mgl64.Vec3(a0).Add(u.Mul(s))
			q := mgl64.Vec3(b0).Add(v.Mul(tt))
			depth := q.Sub(p).Dot(n)
			if !(depth > 0 && depth <= maxDepth || depth < 0 && -depth <= maxGap) {
				continue
			}
			// From Q along −n behind both faces of f (into Dst), from P
			// along n behind both faces of e (into Src): a contact's P
			// and Q start inside the other body, a gap's leave their own.
			if n.Dot(nb0) < -1e-12 || n.Dot(nb1) < -1e-12 || n.Dot(na0) > 1e-12 || n.Dot(na1) > 1e-12 {
				continue
			}
			if segmentCrosses(dst, q, p, 4*tol) || segmentCrosses(src, mgl64.Vec3(back.Apply(p)), mgl64.Vec3(back.Apply(q)), 4*tol) {
				continue
			}
			out = append(out, Contact{P: d.DstWorld.Apply(p), Depth: depth, Dir: d.DstWorld.ApplyDir(n), From: d.From, Feature: FeatureEdge, Vertex: int32(i), Prim: int32(j)})
		}
	}
	return out
}

// matchBruteForce fails the test unless got holds the contacts of want,
// in the same order, to rounding (lengths relative to scale).
func matchBruteForce(t *testing.T, what string, got, want []Contact, scale float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d contacts, brute force %d\n got %v\nwant %v", what, len(got), len(want), got, want)
	}
	for k := range got {
		g, w := got[k], want[k]
		if CompareContacts(&g, &w) != 0 || math.Abs(g.Depth-w.Depth) > 1e-9*scale ||
			g.P.Sub(w.P).Len() > 1e-9*scale || g.Dir.Sub(w.Dir).Len() > 1e-9 {
			t.Fatalf("%s contact %d: %+v, brute force %+v", what, k, g, w)
		}
	}
}

// segmentCrosses reports whether any primitive of s meets the segment
// from x to y at a distance from x in (lo, |y − x| − lo).
func segmentCrosses(s *Shape, x, y mgl64.Vec3, lo float64) bool {
	l := y.Sub(x).Len()
	dir := [3]float64(y.Sub(x).Mul(1 / l))
	o := [3]float64(x)
	for i := range s.prims {
		t, u, v, _, ok := s.Barycentric(int32(i), &o, &dir)
		if ok && u >= -BaryEps && v >= -BaryEps && u+v <= 1+BaryEps && t > lo && t < l-lo {
			return true
		}
	}
	return false
}

// edgeShapes returns cullShapes' meshes with a box and a bar added.
func edgeShapes(t *testing.T) map[string]*Shape {
	t.Helper()
	shapes := cullShapes(t)
	var err error
	if shapes["box"], err = NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if shapes["bar"], err = NewBox(mgl64.Vec3{-2, -0.3, -0.2}, mgl64.Vec3{2, 0.3, 0.2}); err != nil {
		t.Fatal(err)
	}
	return shapes
}

// TestEdgeContactsMatchBruteForce compares AppendEdgeContacts, with both
// traversals, against the brute-force reference at random poses of boxes,
// bars and the test meshes, overlapping by a little or a lot: the same
// contacts in the same order, to rounding.
func TestEdgeContactsMatchBruteForce(t *testing.T) {
	shapes := edgeShapes(t)
	rng := rand.New(rand.NewPCG(5, 77))
	var sc EdgeScratch
	total := 0
	for _, pr := range [][2]string{{"box", "box"}, {"bar", "box"}, {"bar", "bar"}, {"bunny", "box"}, {"teddy", "bunny"}, {"bunny", "bunny"}, {"duck", "bar"}, {"bar", "duck"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		const angle = math.Pi / 6
		na, nb := a.SharpEdges(angle), b.SharpEdges(angle)
		found, gaps := 0, 0
		trials := 400
		if a.NumEdges() > 100 && b.NumEdges() > 100 {
			trials = 100 // the brute force is slow
		}
		if testing.Short() {
			trials /= 4
		}
		for range trials {
			// From deep overlaps to grazing ones.
			dist := (a.size + b.size) * (0.55 + 0.5*rng.Float64())
			pa, pb := randomPoses(rng, a, b, dist)
			var d [2]Direction
			SetPair(&d, a, b, &pa, &pb)
			maxDepth, maxGap := 0.25*min(a.size, b.size), 0.1*min(a.size, b.size)
			want := edgeRef(&d[0], angle, maxDepth, maxGap)
			for _, trav := range []Traversal{TraversalBVH, TraversalBasic} {
				got := d[0].AppendEdgeContacts(nil, &sc, angle, maxDepth, maxGap, trav)
				matchBruteForce(t, fmt.Sprintf("%s/%s %v", pr[0], pr[1], trav), got, want, a.scale)
			}
			found += len(want)
			for _, c := range want {
				if c.Depth < 0 {
					gaps++
				}
			}
		}
		t.Logf("%s/%s: %d edge contacts (%d of them gaps) over %d poses (%d × %d sharp edges)", pr[0], pr[1], found, gaps, trials, na, nb)
		total += found
	}
	least := 100
	if testing.Short() {
		least = 25
	}
	if total < least {
		t.Errorf("only %d edge contacts over all poses: the comparison tests little", total)
	}
}

// TestEdgeContactAllocs: with a reused scratch and output, the edge test
// allocates nothing.
func TestEdgeContactAllocs(t *testing.T) {
	a, b, pa, pb := crossedBars(t, 0.01)
	var d [2]Direction
	SetPair(&d, a, b, &pa, &pb)
	var sc EdgeScratch
	cs := d[0].AppendEdgeContacts(nil, &sc, 1, 1, 0, TraversalBVH)
	if n := testing.AllocsPerRun(100, func() {
		cs = d[0].AppendEdgeContacts(cs[:0], &sc, 1, 1, 0, TraversalBVH)
	}); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
}

// moveAbout returns pose p of shape s moved by a rigid motion that moves
// no point of s by more than m: a translation of u·m and a rotation by
// (1 − u)·m / r about s's bounding-sphere centre, r its radius.
func moveAbout(rng *rand.Rand, s *Shape, p Pose, m float64) Pose {
	u := rng.Float64()
	q := mgl64.QuatRotate((1-u)*m/s.cradius, randAxis(rng, false))
	c := p.Rot.Rotate(mgl64.Vec3(s.centre)).Add(p.Pos)
	t := randVec(rng, false).Normalize().Mul(u * m)
	return Pose{Pos: c.Add(q.Rotate(p.Pos.Sub(c))).Add(t), Rot: q.Mul(p.Rot).Normalize()}
}

// TestEdgePairsFollowMotion checks AppendEdgePairs against
// AppendEdgeContacts: pairs chosen at random poses with a margin, then
// tested by AppendEdgePairContacts after either body moves by up to the
// margin, give exactly AppendEdgeContacts' contacts there, with and
// without gaps. After a motion five times the margin some contacts are
// missed (the test can fail), and the pairs are far fewer than all pairs
// of sharp edges.
func TestEdgePairsFollowMotion(t *testing.T) {
	shapes := edgeShapes(t)
	rng := rand.New(rand.NewPCG(8, 13))
	var sc EdgeScratch
	var pairs []EdgePair
	var want, got []Contact
	checked, missedFar := 0, 0
	for _, pr := range [][2]string{{"box", "box"}, {"bar", "box"}, {"bar", "bar"}, {"bunny", "box"}, {"teddy", "bunny"}, {"bunny", "bunny"}, {"duck", "bar"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		const angle = math.Pi / 6
		small := min(a.size, b.size)
		maxDepth, margin := 0.25*small, 0.05*small
		nPairs, sharp := 0, a.SharpEdges(angle)*b.SharpEdges(angle)
		trials := 300
		if testing.Short() {
			trials /= 4
		}
		for i := range trials {
			maxGap := 0.0
			if i%2 == 1 {
				maxGap = 0.1 * small
			}
			dist := (a.size + b.size) * (0.55 + 0.5*rng.Float64())
			pa, pb := randomPoses(rng, a, b, dist)
			var d [2]Direction
			SetPair(&d, a, b, &pa, &pb)
			pairs = d[0].AppendEdgePairs(pairs[:0], &sc, angle, maxDepth, maxGap, margin)
			nPairs += len(pairs)
			if !slices.IsSortedFunc(pairs, func(x, y EdgePair) int {
				return cmp.Or(cmp.Compare(x.Src, y.Src), cmp.Compare(x.Dst, y.Dst))
			}) {
				t.Fatalf("%s/%s: pairs not in edge order: %v", pr[0], pr[1], pairs)
			}
			for k, f := range []float64{0, 0.5, 1, 5} {
				// Either body moves (alternately), by up to f × margin.
				qa, qb := pa, pb
				if k%2 == 0 {
					qa = moveAbout(rng, a, pa, f*margin)
				} else {
					qb = moveAbout(rng, b, pb, f*margin)
				}
				SetPair(&d, a, b, &qa, &qb)
				trav := []Traversal{TraversalBVH, TraversalBasic}[k%2]
				// The pairs cover any gap up to the one they were chosen with.
				g := maxGap * rng.Float64()
				want = d[0].AppendEdgeContacts(want[:0], &sc, angle, maxDepth, g, trav)
				got = d[0].AppendEdgePairContacts(got[:0], pairs, maxDepth, g, trav)
				if f > 1 {
					if len(got) < len(want) {
						missedFar++
					}
					continue
				}
				checked += len(want)
				if !slices.EqualFunc(got, want, func(x, y Contact) bool { return x == y }) {
					t.Fatalf("%s/%s trial %d, motion %v × margin: %d contacts from %d pairs, AppendEdgeContacts %d\n got %v\nwant %v", pr[0], pr[1], i, f, len(got), len(pairs), len(want), got, want)
				}
			}
		}
		t.Logf("%s/%s: %.1f pairs per pose (of %d pairs of sharp edges)", pr[0], pr[1], float64(nPairs)/float64(trials), sharp)
		if nPairs >= trials*sharp/4 {
			t.Errorf("%s/%s: %d pairs over %d poses: hardly culled", pr[0], pr[1], nPairs, trials)
		}
	}
	t.Logf("%d contacts compared; %d poses moved 5 × the margin missed some", checked, missedFar)
	if checked < 100 || missedFar == 0 {
		t.Errorf("%d contacts compared, %d misses beyond the margin: the test tests little", checked, missedFar)
	}
}

// TestEdgeBlockBalls checks the bounds selectEdges skips blocks of edges
// by: every end of a block's edges lies within its ball; clearBall, where
// it holds, leaves every point within ρ ≤ r of the centre outside the
// shape and farther than r − ρ from its surface (the exact distance,
// surfaceDistance); and meetsBall agrees with the distance from the
// centre to the box.
func TestEdgeBlockBalls(t *testing.T) {
	shapes := edgeShapes(t)
	rng := rand.New(rand.NewPCG(3, 31))
	for _, name := range []string{"bunny", "teddy", "duck", "torus", "box", "bar"} {
		s := shapes[name]
		for b, blk := range s.edgeBlocks {
			for i := b * edgeBlock; i < min((b+1)*edgeBlock, len(s.edges)); i++ {
				for _, p := range s.edgeSeg[i] {
					if d := len3(sub3(p, blk.centre)); d > blk.radius {
						t.Fatalf("%s block %d: edge %d's end %v at %v from the centre, radius %v", name, b, i, p, d, blk.radius)
					}
				}
			}
		}
		g := s.grid
		if g == nil {
			continue
		}
		cleared := 0
		for range 400 {
			var c [3]float64
			for a := range 3 {
				c[a] = g.lo[a] + rng.Float64()*g.fn[a]*g.h
			}
			r := rng.Float64() * 0.3 * s.size
			if !g.clearBall(c, r) {
				continue
			}
			cleared++
			for range 20 {
				rho := r * rng.Float64()
				x := add3(c, scale3([3]float64(randVec(rng, false).Normalize()), rho))
				if dist, inside := surfaceDistance(s, x); inside || dist <= r-rho-1e-9*s.size {
					t.Fatalf("%s: ball at %v of radius %v cleared, but %v at %v from its centre is at %v from the surface (inside %v)", name, c, r, x, rho, dist, inside)
				}
			}
		}
		if cleared < 20 {
			t.Errorf("%s: %d of 400 balls cleared: the check tests little", name, cleared)
		}
	}
	box := AABB{Min: mgl64.Vec3{-1, -2, -3}, Max: mgl64.Vec3{1, 2, 3}}
	for range 2000 {
		c := [3]float64(randVec(rng, false).Mul(6))
		r := 3 * rng.Float64()
		q := [3]float64{}
		for a := range 3 {
			q[a] = max(box.Min[a], min(box.Max[a], c[a]))
		}
		if d := len3(sub3(q, c)); box.meetsBall(c, r) != (d <= r) {
			t.Fatalf("ball at %v of radius %v, %v from the box: meetsBall %v", c, r, d, box.meetsBall(c, r))
		}
	}
}
