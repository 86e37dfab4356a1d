package cpubackend_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// Comparison of irtcd's 2D standard method (MTD response) with box2d's
// polygon collision (github.com/ByteArena/box2d v1.0.2, a port of Box2D
// 2.3: SAT reference face + clipping).
//
// Conventions, checked on a hand-made case by TestBox2DConvention:
//   - box2d's B2WorldManifold.Normal points from A to B; irtcd's
//     Manifold.Normal and Contact.NormalA point from B to A, so the two
//     agree when irtcd's normal is minus box2d's.
//   - box2d gives every polygon a skin of b2_polygonRadius = 2·linearSlop =
//     0.01 and B2WorldManifold.Initialize subtracts both skins: with d the
//     signed distance of a clip point to the reference face (d < 0 inside),
//     cA = clip + (rA - d)·n, cB = clip - rB·n, so separation = (cB-cA)·n =
//     d - (rA + rB). The true penetration of the bare polygons is therefore
//     -(separation + totalRadius), totalRadius = 0.02; that is what irtcd's
//     Depth measures (no skin).

// b2Rad returns a polygon's skin radius (b2_polygonRadius).
func b2Rad(p *box2d.B2PolygonShape) float64 { return p.M_radius }

// b2Shape builds a box2d polygon from a CCW convex outline.
func b2Shape(pts []mgl64.Vec2) box2d.B2PolygonShape {
	vs := make([]box2d.B2Vec2, len(pts))
	for i, p := range pts {
		vs[i] = box2d.MakeB2Vec2(p[0], p[1])
	}
	s := box2d.MakeB2PolygonShape()
	s.Set(vs, len(vs))
	return s
}

// b2Xf is the box2d transform of irtcd's narrow.Pose2D(x, y, angle).
func b2Xf(x, y, angle float64) box2d.B2Transform {
	xf := box2d.MakeB2Transform()
	xf.Set(box2d.MakeB2Vec2(x, y), angle)
	return xf
}

// b2Result is box2d's answer for one pair.
type b2Result struct {
	points int
	normal mgl64.Vec3 // A to B
	pen    float64    // deepest manifold point: -(separation + totalRadius)
	sat    float64    // SAT penetration -max(sepA, sepB) (no skin, no clipping)
	// The reference face box2d chose (on B if refB, box2d's edge index),
	// the penetration along it (-separation of that polygon's best face),
	// and the incident polygon's deepest vertex along it (box2d's index).
	refB    bool
	refEdge int
	refPen  float64
	support int
}

func b2Collide(a, b *box2d.B2PolygonShape, xfA, xfB box2d.B2Transform) b2Result {
	var m box2d.B2Manifold
	box2d.B2CollidePolygons(&m, a, xfA, b, xfB)
	var r b2Result
	var ea, eb int
	sepA := box2d.B2FindMaxSeparation(&ea, a, xfA, b, xfB)
	sepB := box2d.B2FindMaxSeparation(&eb, b, xfB, a, xfA)
	r.sat = -max(sepA, sepB)
	r.points = m.PointCount
	if m.PointCount == 0 {
		r.pen = math.Inf(-1)
		return r
	}
	ref, inc, xfR, xfI := a, b, xfA, xfB
	r.refEdge, r.refPen = ea, -sepA
	if m.Type == box2d.B2Manifold_Type.E_faceB {
		ref, inc, xfR, xfI = b, a, xfB, xfA
		r.refB, r.refEdge, r.refPen = true, eb, -sepB
	}
	n := box2d.B2RotVec2Mul(xfR.Q, ref.M_normals[r.refEdge])
	best := math.Inf(1)
	for j := 0; j < inc.M_count; j++ {
		if d := box2d.B2Vec2Dot(n, box2d.B2TransformVec2Mul(xfI, inc.M_vertices[j])); d < best {
			best, r.support = d, j
		}
	}
	wm := box2d.MakeB2WorldManifold()
	wm.Initialize(&m, xfA, b2Rad(a), xfB, b2Rad(b))
	r.normal = mgl64.Vec3{wm.Normal.X, wm.Normal.Y, 0}
	r.pen = math.Inf(-1)
	total := b2Rad(a) + b2Rad(b)
	for i := 0; i < m.PointCount; i++ {
		r.pen = max(r.pen, -(wm.Separations[i] + total))
	}
	return r
}

// b2Irtcd is irtcd's answer for one pair: its contacts, the deepest one and
// the first manifold's normal (B to A; the first manifold holds the deepest
// contact).
type b2Irtcd struct {
	contacts []narrow.Contact
	found    bool
	depth    float64
	deepest  narrow.Contact
	normal   mgl64.Vec3
}

// b2Case is one pair: CCW outlines and planar poses of A and B.
type b2Case struct {
	a, b             []mgl64.Vec2
	xa, ya, aa       float64
	xb, yb, ab       float64
	sa, sb           *narrow.Shape
	polyA, polyB     box2d.B2PolygonShape
	box              b2Result
	irtcd            b2Irtcd
	insideA, insideB int // vertices of A strictly inside B, and of B inside A
}

func (c *b2Case) poses() (narrow.Pose, narrow.Pose) {
	return narrow.Pose2D(c.xa, c.ya, c.aa), narrow.Pose2D(c.xb, c.yb, c.ab)
}

// b2Detect runs irtcd's standard method (MTD) on all the pairs in one
// Detect call.
func b2Detect(t testing.TB, cases []*b2Case) {
	t.Helper()
	be, err := cpubackend.New(narrow.Params{Method: narrow.MethodStandard, Response: narrow.ResponseMTD})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	pairs := make([]narrow.Pair, len(cases))
	for i, c := range cases {
		ia, err := be.RegisterShape(c.sa)
		if err != nil {
			t.Fatal(err)
		}
		ib, err := be.RegisterShape(c.sb)
		if err != nil {
			t.Fatal(err)
		}
		pa, pb := c.poses()
		pairs[i] = narrow.Pair{ID: uint64(i), A: ia, B: ib, PoseA: pa, PoseB: pb}
	}
	var res narrow.Result
	if err := be.Detect(context.Background(), pairs, &res); err != nil {
		t.Fatal(err)
	}
	for i, pr := range res.Pairs {
		if pr.Err != nil {
			t.Fatalf("pair %d: %v", i, pr.Err)
		}
		r := &cases[i].irtcd
		r.contacts = slices.Clone(pr.Contacts)
		r.found = len(pr.Contacts) > 0
		r.depth = math.Inf(-1)
		for _, c := range pr.Contacts {
			if !degenFinite(c.Depth, c.Dir[0], c.Dir[1], c.Dir[2], c.P[0], c.P[1]) {
				t.Fatalf("pair %d: non-finite contact %+v", i, c)
			}
			if c.Depth > r.depth {
				r.depth, r.deepest = c.Depth, c
			}
		}
		if r.found != (len(pr.Manifolds) > 0) {
			t.Fatalf("pair %d: %d contacts but %d manifolds", i, len(pr.Contacts), len(pr.Manifolds))
		}
		if r.found {
			r.normal = pr.Manifolds[0].Normal
		}
	}
}

// b2Offset returns k such that box2d's vertex i of p is vertex (i+k) mod n
// of the outline (box2d's hull starts at the rightmost vertex; it keeps the
// CCW order and the exact coordinates). Box2d's edge i is then irtcd's
// segment (i+k) mod n.
func b2Offset(t testing.TB, outline []mgl64.Vec2, p *box2d.B2PolygonShape) int {
	for k, v := range outline {
		if v[0] == p.M_vertices[0].X && v[1] == p.M_vertices[0].Y {
			for i := 0; i < p.M_count; i++ {
				w := outline[(i+k)%len(outline)]
				if w[0] != p.M_vertices[i].X || w[1] != p.M_vertices[i].Y {
					t.Fatalf("box2d reordered the hull: vertex %d", i)
				}
			}
			return k
		}
	}
	t.Fatal("box2d hull vertex not found in the outline")
	return 0
}

// b2Hull is the strictly convex hull (Andrew's monotone chain), CCW.
func b2Hull(pts []mgl64.Vec2) []mgl64.Vec2 {
	ps := slices.Clone(pts)
	slices.SortFunc(ps, func(p, q mgl64.Vec2) int {
		if p[0] != q[0] {
			if p[0] < q[0] {
				return -1
			}
			return 1
		}
		if p[1] < q[1] {
			return -1
		}
		if p[1] > q[1] {
			return 1
		}
		return 0
	})
	cross := func(o, a, b mgl64.Vec2) float64 { return (a[0]-o[0])*(b[1]-o[1]) - (a[1]-o[1])*(b[0]-o[0]) }
	var h []mgl64.Vec2
	for pass := 0; pass < 2; pass++ {
		start := len(h)
		for _, p := range ps {
			for len(h) >= start+2 && cross(h[len(h)-2], h[len(h)-1], p) <= 0 {
				h = h[:len(h)-1]
			}
			h = append(h, p)
		}
		h = h[:len(h)-1] // the last point starts the other chain
		slices.Reverse(ps)
	}
	return h
}

// b2RandomConvex draws 3..8 points around the origin at radius size·[0.5, 1]
// (size in [0.5, 2]) and returns their hull, redrawn until it is a
// well-conditioned convex polygon: at least 3 vertices, edges longer than
// 5% of size (far above box2d's welding distance), every corner turning by
// more than about 3° (no near-collinear vertices that box2d's hull might
// drop), area at least 0.3·size².
func b2RandomConvex(rng *rand.Rand) []mgl64.Vec2 {
	for {
		n := 3 + rng.IntN(6)
		size := 0.5 + 1.5*rng.Float64()
		pts := make([]mgl64.Vec2, n)
		for i := range pts {
			s, c := math.Sincos(2 * math.Pi * rng.Float64())
			r := size * (0.5 + 0.5*rng.Float64())
			pts[i] = mgl64.Vec2{r * c, r * s}
		}
		h := b2Hull(pts)
		if len(h) < 3 {
			continue
		}
		ok, area := true, 0.0
		for i := range h {
			p, q, r := h[i], h[(i+1)%len(h)], h[(i+2)%len(h)]
			e1, e2 := q.Sub(p), r.Sub(q)
			area += p[0]*q[1] - q[0]*p[1]
			if e1.Len() < 0.05*size || (e1[0]*e2[1]-e1[1]*e2[0]) < 0.05*e1.Len()*e2.Len() {
				ok = false
			}
		}
		if ok && area/2 >= 0.3*size*size {
			var c mgl64.Vec2 // centre on the vertex mean: the origin is inside
			for _, v := range h {
				c = c.Add(v.Mul(1 / float64(len(h))))
			}
			for i := range h {
				h[i] = h[i].Sub(c)
			}
			return h
		}
	}
}

// b2Inside counts the vertices of p (at pose x, y, ang) strictly inside the
// convex CCW polygon q (at its pose), by a margin of 1e-9.
func b2Inside(p []mgl64.Vec2, x, y, ang float64, q []mgl64.Vec2, xq, yq, aq float64) int {
	place := func(v mgl64.Vec2, x, y, a float64) mgl64.Vec2 {
		s, c := math.Sincos(a)
		return mgl64.Vec2{c*v[0] - s*v[1] + x, s*v[0] + c*v[1] + y}
	}
	n := 0
	for _, v := range p {
		w := place(v, x, y, ang)
		in := true
		for i := range q {
			a, b := place(q[i], xq, yq, aq), place(q[(i+1)%len(q)], xq, yq, aq)
			e := b.Sub(a)
			if (e[0]*(w[1]-a[1])-e[1]*(w[0]-a[0]))/e.Len() <= 1e-9 {
				in = false
				break
			}
		}
		if in {
			n++
		}
	}
	return n
}

// TestBox2DConvention pins the sign and skin offset on a hand-made case:
// A is the square [-1, 1]², B the square [-0.5, 0.5]² at (1.3, 0.2). They
// overlap by 0.2 along x. box2d: reference face = A's right face, normal
// (1, 0) (A to B), two clip points (B's left corners) with separation
// -0.2 - 0.02 = -0.22. irtcd: B's left corners are contacts of depth 0.2,
// Dir (1, 0) (A's face normal, From B), so NormalA = manifold normal =
// (-1, 0) = -box2d normal, and depth = -(separation + totalRadius).
func TestBox2DConvention(t *testing.T) {
	sqA := []mgl64.Vec2{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}
	sqB := []mgl64.Vec2{{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}}
	c := &b2Case{a: sqA, b: sqB, xb: 1.3, yb: 0.2}
	c.polyA, c.polyB = b2Shape(sqA), b2Shape(sqB)
	c.sa, c.sb = exact2dPolygon(t, sqA), exact2dPolygon(t, sqB)
	c.box = b2Collide(&c.polyA, &c.polyB, b2Xf(0, 0, 0), b2Xf(1.3, 0.2, 0))
	if b2Rad(&c.polyA) != 0.01 || b2Rad(&c.polyB) != 0.01 || box2d.B2_polygonRadius != 0.01 {
		t.Fatalf("skin radii %g, %g", b2Rad(&c.polyA), b2Rad(&c.polyB))
	}
	var m box2d.B2Manifold
	box2d.B2CollidePolygons(&m, &c.polyA, b2Xf(0, 0, 0), &c.polyB, b2Xf(1.3, 0.2, 0))
	wm := box2d.MakeB2WorldManifold()
	wm.Initialize(&m, b2Xf(0, 0, 0), 0.01, b2Xf(1.3, 0.2, 0), 0.01)
	if m.PointCount != 2 || m.Type != box2d.B2Manifold_Type.E_faceA {
		t.Fatalf("box2d: %d points, type %d", m.PointCount, m.Type)
	}
	for i := 0; i < 2; i++ {
		if math.Abs(wm.Separations[i]-(-0.22)) > 1e-12 {
			t.Errorf("box2d separation %d = %.15g, want -0.22 (true -0.2 minus skins 0.02)", i, wm.Separations[i])
		}
	}
	if c.box.normal.Sub(mgl64.Vec3{1, 0, 0}).Len() > 1e-12 || math.Abs(c.box.pen-0.2) > 1e-12 || math.Abs(c.box.sat-0.2) > 1e-12 {
		t.Errorf("box2d: %+v, want normal (1,0), penetration 0.2", c.box)
	}
	b2Detect(t, []*b2Case{c})
	r := c.irtcd
	if !r.found || math.Abs(r.depth-0.2) > 1e-12 || r.deepest.From != narrow.SideB ||
		r.deepest.Dir.Sub(mgl64.Vec3{1, 0, 0}).Len() > 1e-12 || r.normal.Sub(mgl64.Vec3{-1, 0, 0}).Len() > 1e-12 {
		t.Errorf("irtcd: %+v, want depth 0.2 from B, Dir (1,0), manifold normal (-1,0)", r)
	}
}

// b2Draw draws one pair. A is placed near the origin, B along a random
// direction from it. deep: B's centre at (0.2..1)·(rA+rB) from A's, mostly
// deep overlaps. Otherwise (contact regime) B is first brought to touching
// along that direction (bisection on box2d's SAT separation), then pushed
// in by (0.002..0.1)·min(rA, rB): the shallow penetrations of resting and
// colliding bodies.
func b2Draw(t testing.TB, rng *rand.Rand, deep bool) *b2Case {
	c := &b2Case{a: b2RandomConvex(rng), b: b2RandomConvex(rng)}
	c.polyA, c.polyB = b2Shape(c.a), b2Shape(c.b)
	if c.polyA.M_count != len(c.a) || c.polyB.M_count != len(c.b) {
		t.Fatalf("box2d changed a hull: %d/%d, %d/%d vertices", c.polyA.M_count, len(c.a), c.polyB.M_count, len(c.b))
	}
	var rA, rB float64
	for _, v := range c.a {
		rA = max(rA, v.Len())
	}
	for _, v := range c.b {
		rB = max(rB, v.Len())
	}
	c.xa, c.ya, c.aa = rng.Float64()-0.5, rng.Float64()-0.5, 2*math.Pi*rng.Float64()
	c.ab = 2 * math.Pi * rng.Float64()
	sn, cs := math.Sincos(2 * math.Pi * rng.Float64())
	sat := func(d float64) float64 {
		var e int
		xfA, xfB := b2Xf(c.xa, c.ya, c.aa), b2Xf(c.xa+d*cs, c.ya+d*sn, c.ab)
		return -max(box2d.B2FindMaxSeparation(&e, &c.polyA, xfA, &c.polyB, xfB), box2d.B2FindMaxSeparation(&e, &c.polyB, xfB, &c.polyA, xfA))
	}
	var d float64
	if deep {
		d = (0.2 + 0.8*rng.Float64()) * (rA + rB)
	} else {
		lo, hi := 0.0, rA+rB+1e-3 // overlapping at lo (both origins inside), apart at hi
		for k := 0; k < 60; k++ {
			if mid := (lo + hi) / 2; sat(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		d = lo - (0.002+0.098*rng.Float64())*min(rA, rB)
	}
	c.xb, c.yb = c.xa+d*cs, c.ya+d*sn
	c.box = b2Collide(&c.polyA, &c.polyB, b2Xf(c.xa, c.ya, c.aa), b2Xf(c.xb, c.yb, c.ab))
	c.sa, c.sb = exact2dPolygon(t, c.a), exact2dPolygon(t, c.b)
	c.insideA = b2Inside(c.a, c.xa, c.ya, c.aa, c.b, c.xb, c.yb, c.ab)
	c.insideB = b2Inside(c.b, c.xb, c.yb, c.ab, c.a, c.xa, c.ya, c.aa)
	return c
}

// b2Stats counts the outcomes of one regime.
type b2Stats struct {
	drawn, overlapping, separated int
	colliding, detected           int // box2d points with penetration > b2PenMin; irtcd found contacts
	vertexFree, occluded          int // misses: no vertex inside / inside vertices' rays leave their own polygon first
	depthOK, normalOK, bothOK     int // agreement within tolerance (manifold normal)
	deepNorm, deepBoth            int // the deepest contact's NormalA instead of the manifold normal
	supportHits                   int // the SAT support vertex's ray hits box2d's reference face
	deeper, shallower             int // irtcd's deepest contact vs box2d's penetration
	mixed                         int // first manifold's cluster mixes normals
	maxAngle                      float64
}

const b2PenMin = 1e-3

// b2Compare checks one regime's pairs and counts agreement. Every check
// here is exact (t.Errorf); the rates are asserted by the caller.
func b2Compare(t *testing.T, cases []*b2Case) b2Stats {
	var st b2Stats
	st.drawn = len(cases)
	for i, c := range cases {
		r, bx := c.irtcd, c.box
		if bx.sat > 0 {
			st.overlapping++
		}
		// "Colliding or not", both ways, beyond 1e-3.
		if bx.sat < -b2PenMin {
			st.separated++
			if r.found {
				t.Errorf("case %d: separated by %g (SAT) but irtcd reports depth %g", i, -bx.sat, r.depth)
			}
		}
		if r.found && r.depth > b2PenMin && bx.points == 0 {
			t.Errorf("case %d: irtcd depth %g, box2d reports no points (SAT %g)", i, r.depth, bx.sat)
		}
		if bx.points == 0 || !(bx.pen > b2PenMin) {
			continue
		}
		st.colliding++
		if !r.found {
			// A miss must be the method's: the reference finds no contact
			// either (beyond borderline ones).
			pa, pb := c.poses()
			for _, rc := range reference.Contacts(c.sa, c.sb, pa, pb) {
				if !rc.Borderline {
					t.Errorf("case %d: irtcd finds nothing, the reference has %+v", i, rc)
				}
			}
			if c.insideA+c.insideB == 0 {
				st.vertexFree++
			} else {
				st.occluded++
			}
			continue
		}
		st.detected++

		// The contact of the SAT support vertex on box2d's reference face,
		// if its ray hits that face: its depth is exactly the separation
		// along that face and its normal is exactly box2d's.
		incSide, incOutline, incPoly, refOutline, refPoly := narrow.SideB, c.b, &c.polyB, c.a, &c.polyA
		if bx.refB {
			incSide, incOutline, incPoly, refOutline, refPoly = narrow.SideA, c.a, &c.polyA, c.b, &c.polyB
		}
		sv := int32((bx.support + b2Offset(t, incOutline, incPoly)) % len(incOutline))
		rf := int32((bx.refEdge + b2Offset(t, refOutline, refPoly)) % len(refOutline))
		want := bx.normal.Mul(-1) // irtcd's normals point from B to A
		support := false
		for _, ct := range r.contacts {
			if ct.From != incSide || ct.Vertex != sv {
				continue
			}
			if ct.Prim == rf {
				support = true
				if math.Abs(ct.Depth-bx.refPen) > 1e-9 || ct.NormalA().Sub(want).Len() > 1e-9 {
					t.Errorf("case %d: support vertex on the reference face: depth %.15g normal %v, box2d %.15g %v", i, ct.Depth, ct.NormalA(), bx.refPen, want)
				}
			}
		}
		if support {
			st.supportHits++
		}

		tol := 1e-6 + 1e-3*bx.pen
		dOK := math.Abs(r.depth-bx.pen) <= tol
		angle := func(n mgl64.Vec3) float64 { return math.Acos(min(1, n.Dot(want))) }
		nOK := angle(r.normal) <= 1e-6
		dnOK := angle(r.deepest.NormalA()) <= 1e-6
		st.maxAngle = max(st.maxAngle, angle(r.normal))
		// The first manifold is the cluster of contacts within 20° of the
		// deepest one; with a single normal its mean is that normal.
		seed := r.deepest.NormalA()
		pure := true
		for _, ct := range r.contacts {
			if na := ct.NormalA(); na.Dot(seed) >= math.Cos(0.35) && na.Sub(seed).Len() > 1e-9 {
				pure = false
			}
		}
		if !pure {
			st.mixed++
		} else if r.normal.Sub(seed).Len() > 1e-9 {
			t.Errorf("case %d: single-normal cluster %v but manifold normal %v", i, seed, r.normal)
		}
		switch {
		case r.depth > bx.pen+tol:
			// Deeper than SAT: the deepest contact is not the support
			// vertex on the reference face (box2d never clipped below
			// SAT here), so some ray met a face farther than the SAT one.
			st.deeper++
			onRef := r.deepest.From == incSide && r.deepest.Vertex == sv && r.deepest.Prim == rf
			if onRef && bx.pen >= bx.refPen-1e-9 {
				t.Errorf("case %d: deepest contact is the support vertex on the reference face, depth %g, box2d %g", i, r.depth, bx.pen)
			}
		case r.depth < bx.pen-tol:
			// Shallower: then the support vertex's ray cannot have hit the
			// reference face (that contact alone has the SAT depth).
			st.shallower++
			if support {
				t.Errorf("case %d: irtcd depth %g < box2d %g although the support vertex hits the reference face", i, r.depth, bx.pen)
			}
		}
		if dOK {
			st.depthOK++
		}
		if nOK {
			st.normalOK++
		}
		if dOK && nOK {
			st.bothOK++
		}
		if dnOK {
			st.deepNorm++
		}
		if dOK && dnOK {
			st.deepBoth++
		}
	}
	pct := func(k, of int) float64 { return 100 * float64(k) / float64(max(of, 1)) }
	t.Logf("%d pairs: %d overlapping (SAT), %d separated by > %g", st.drawn, st.overlapping, st.separated, b2PenMin)
	t.Logf("box2d colliding (points, penetration > %g): %d; irtcd detects %d (%.1f%%); misses: %d with no vertex inside, %d with every inside ray leaving its own polygon first",
		b2PenMin, st.colliding, st.detected, pct(st.detected, st.colliding), st.vertexFree, st.occluded)
	t.Logf("of %d detected: depth agrees %d (%.1f%%); manifold normal %d (%.1f%%), both %d (%.1f%%); deepest contact's normal %d (%.1f%%), both %d (%.1f%%)",
		st.detected, st.depthOK, pct(st.depthOK, st.detected), st.normalOK, pct(st.normalOK, st.detected),
		st.bothOK, pct(st.bothOK, st.detected), st.deepNorm, pct(st.deepNorm, st.detected), st.deepBoth, pct(st.deepBoth, st.detected))
	t.Logf("support vertex's ray hits box2d's reference face: %d (%.1f%%); irtcd deeper %d, shallower %d; first cluster mixes normals %d; largest manifold normal angle %.3g rad",
		st.supportHits, pct(st.supportHits, st.detected), st.deeper, st.shallower, st.mixed, st.maxAngle)
	return st
}

// TestBox2DRandomConvex compares irtcd with box2d on random pairs of convex
// polygons (3..8 vertices, sizes 0.5..2, random planar poses): 300
// overlapping pairs in the contact regime (shallow penetration), and 300 in
// the deep regime, plus the separated pairs drawn on the way.
//
// Tolerances, for pairs where box2d reports points and a penetration above
// 1e-3: depths agree within 1e-6 + 1e-3 relative, normals within 1e-6 rad
// (irtcd's first manifold normal against minus box2d's normal).
//
// Exact agreement does not hold for every pair; what is exact, and why the
// rest differs:
//   - Asserted for every pair: separated pairs (SAT separation > 1e-3)
//     give no irtcd contact; an irtcd depth > 1e-3 implies box2d points;
//     when the SAT support vertex's ray hits box2d's reference face, that
//     contact's depth and normal equal box2d's to 1e-9; a depth
//     disagreement is always one of the two kinds explained below; a first
//     cluster with a single normal has exactly that manifold normal; and
//     every collision irtcd misses is missed by the reference too.
//   - box2d's depth is the SAT penetration (over all face normals, the
//     smallest of the deepest-vertex depths), with a 0.1·linearSlop bias
//     towards A's faces; irtcd's deepest contact is the deepest vertex as
//     seen by its own ray: a vertex's MTD depth is its distance to the face
//     its inward ray hits. They coincide when the support vertex's ray hits
//     the reference face and no other vertex's ray finds a farther face.
//     Otherwise irtcd is deeper (another vertex's ray meets a face farther
//     than the SAT distance: the face hit is not the closest one) or
//     shallower (the support vertex's ray hits a nearer neighbouring face,
//     or leaves its own polygon first). This grows with the penetration:
//     shallow contacts agree far more often than deep overlaps.
//   - The manifold normal is the depth-weighted mean of the contacts within
//     20° of the deepest one, so it differs from box2d's face normal as soon
//     as such a cluster mixes faces, even when the depth agrees.
//   - irtcd detects a pair only through vertices inside the other polygon
//     whose rays reach the other's boundary before their own. Convex
//     polygons can overlap with no vertex inside the other, or with only
//     vertices whose rays cross their own polygon first (deep overlaps);
//     the reference confirms every such miss.
func TestBox2DRandomConvex(t *testing.T) {
	const n = 300
	// Lower bounds on the agreement rates, a few points under the rates
	// measured with these seeds (contact: detected 99.3%, depth 97.7%,
	// depth and deepest normal 97.7%, depth and manifold normal 85.6%,
	// support ray on the reference face 100%; deep: 90.0%, 65.2%, 65.2%,
	// 52.2%, 84.8%). The cases are deterministic; the margin leaves room
	// for legitimate changes of tie-breaks or manifold reduction while a
	// real regression in contact generation trips them.
	type bounds struct{ detected, depth, deepBoth, manifoldBoth, support float64 }
	for _, regime := range []struct {
		name string
		deep bool
		seed uint64
		min  bounds
	}{
		{"contact", false, 1, bounds{0.98, 0.95, 0.95, 0.80, 0.97}},
		{"deep", true, 2, bounds{0.85, 0.58, 0.58, 0.45, 0.78}},
	} {
		t.Run(regime.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(2013, regime.seed))
			var cases []*b2Case
			for overlapping := 0; overlapping < n; {
				c := b2Draw(t, rng, regime.deep)
				if c.box.sat > 0 {
					overlapping++
				}
				cases = append(cases, c)
			}
			b2Detect(t, cases)
			st := b2Compare(t, cases)
			if st.colliding < n*9/10 {
				t.Fatalf("only %d of %d overlapping pairs penetrate by more than %g", st.colliding, n, b2PenMin)
			}
			atLeast := func(what string, k, of int, want float64) {
				if got := float64(k) / float64(of); got < want {
					t.Errorf("%s: %d of %d (%.1f%%), want at least %.0f%%", what, k, of, 100*got, 100*want)
				}
			}
			atLeast("irtcd detects box2d's collisions", st.detected, st.colliding, regime.min.detected)
			atLeast("depth agrees", st.depthOK, st.detected, regime.min.depth)
			atLeast("depth and deepest contact's normal agree", st.deepBoth, st.detected, regime.min.deepBoth)
			atLeast("depth and manifold normal agree", st.bothOK, st.detected, regime.min.manifoldBoth)
			atLeast("support vertex's ray hits the reference face", st.supportHits, st.detected, regime.min.support)
		})
	}
}
