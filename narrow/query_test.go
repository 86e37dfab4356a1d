package narrow

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// bruteQuery answers q over prims the way a tracer on another device does
// (RayQuery's rules, Primitive.Intersect, ties to the lower ID), in the
// order given: the specification of optixbackend's kernel.
func bruteQuery(prims []Primitive, q *RayQuery) (fwd, bwd Hit) {
	fwd, bwd = Hit{T: q.TMax, Prim: -1}, Hit{T: math.Inf(-1), Prim: -1}
	scanQuery(prims, q, &fwd, &bwd)
	return noHits(fwd, bwd)
}

// scanQuery tests prims against q and keeps the nearest hits in fwd and
// bwd (RayQuery's rules, ties to the lower ID).
func scanQuery(prims []Primitive, q *RayQuery, fwd, bwd *Hit) {
	for i := range prims {
		p := &prims[i]
		t, det, ok := p.Intersect(&q.O, &q.D)
		switch {
		case !ok:
		case t >= q.TLo:
			if det >= 0 && t <= -q.TLo {
				continue
			}
			if t < fwd.T || t == fwd.T && p.ID < fwd.Prim {
				*fwd = Hit{T: t, Prim: p.ID, Inside: det < 0}
			}
		case q.Back > 0 && t >= -q.Back:
			if t > bwd.T || t == bwd.T && p.ID < bwd.Prim {
				*bwd = Hit{T: t, Prim: p.ID, Inside: det < 0}
			}
		}
	}
}

// noHits turns searches that found nothing into NoHit.
func noHits(fwd, bwd Hit) (Hit, Hit) {
	if fwd.Prim < 0 {
		fwd = NoHit
	}
	if bwd.Prim < 0 {
		bwd = NoHit
	}
	return fwd, bwd
}

// bvhQuery answers q as bruteQuery does, walking the hierarchy of
// AppendBVH: children whose slab interval (float64 arithmetic on the
// float32 bounds, the inverse direction clamped to ±1e30) meets the
// current search interval [lower end, nearest forward hit] are visited,
// the nearer first, and a deferred child is dropped when its entry lies
// past the nearest forward hit found since. The specification of
// optixbackend's BVH kernel.
func bvhQuery(nodes []BVHNode, prims []Primitive, q *RayQuery) (fwd, bwd Hit) {
	if len(nodes) == 0 {
		return bruteQuery(prims, q)
	}
	fwd, bwd = Hit{T: q.TMax, Prim: -1}, Hit{T: math.Inf(-1), Prim: -1}
	var inv [3]float64
	for k := range 3 {
		inv[k] = max(-1e30, min(1e30, 1/q.D[k]))
	}
	lower := func() float64 {
		switch {
		case q.Back <= 0:
			return q.TLo
		case bwd.Prim >= 0:
			return bwd.T
		}
		return -q.Back
	}
	type entry struct {
		ref, count int32
		t0         float64
	}
	stack := []entry{{0, 0, math.Inf(-1)}}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if e.t0 > fwd.T {
			continue
		}
		if e.count > 0 {
			scanQuery(prims[e.ref:e.ref+e.count], q, &fwd, &bwd)
			continue
		}
		n := &nodes[e.ref]
		var a, x [2]float64
		for c := range 2 {
			a[c], x[c] = lower(), fwd.T
			for k := range 3 {
				lo, hi := float64(n.Box[0][k][c]), float64(n.Box[1][k][c])
				if inv[k] < 0 {
					lo, hi = hi, lo
				}
				a[c] = max(a[c], (lo-q.O[k])*inv[k])
				x[c] = min(x[c], (hi-q.O[k])*inv[k])
			}
		}
		near, far := 0, 1
		if a[1] < a[0] {
			near, far = 1, 0
		}
		for _, c := range []int{far, near} { // the near one on top
			if a[c] <= x[c] {
				stack = append(stack, entry{n.Child[c], n.Count[c], a[c]})
			}
		}
	}
	return noHits(fwd, bwd)
}

// TestStandardQuerySplit checks that a standard ray split into its query
// (StandardQuery), a trace (Shape.TraceQuery with either traversal, and a
// brute force over AppendPrimitives in reverse order) and its completion
// (StandardOutcome) gives Standard's Outcome bit for bit; and that the
// walk of AppendBVH's nodes (bvhQuery) gives TraceQuery's hits, with and
// without a predictive part, on the test meshes and a 2D polygon at
// random poses, near and overlapping.
func TestStandardQuerySplit(t *testing.T) {
	shapes := testMeshes(t, "bunny", "torus", "duck")
	poly, err := NewPolygon(offStar())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 21))
	n := 6
	if testing.Short() {
		n = 3
	}
	var traced, skipped, contacts, backs, withBVH int
	check := func(a, b *Shape, pa, pb Pose, scale float64) {
		var d Direction
		d.Setup(SideA, a, b, pa, pb, 0.1*scale)
		d.Reach = 0.25 * min(a.Size(), b.Size())
		prims := b.AppendPrimitives(nil)
		if len(prims) != b.NumPrims() {
			t.Fatalf("%d primitives appended, shape has %d", len(prims), b.NumPrims())
		}
		nodes := b.AppendBVH(nil)
		if len(nodes) > 0 {
			withBVH++
		}
		reversed := slices.Clone(prims)
		slices.Reverse(reversed)
		for v := int32(0); v < int32(a.NumVertices()); v++ {
			for _, back := range []float64{0, 0.1 * scale} {
				for _, trav := range []Traversal{TraversalBVH, TraversalBasic} {
					var want, got Outcome
					d.Standard(&want, v, back, trav)
					var q RayQuery
					used, trace := d.StandardQuery(&q, v, back, trav)
					if !used {
						if want != (Outcome{Fwd: NoHit, Bwd: NoHit}) {
							t.Fatalf("vertex %d: unused, but Standard gives %+v", v, want)
						}
						continue
					}
					fwd, bwd := NoHit, NoHit
					if trace {
						traced++
						fwd, bwd = b.TraceQuery(&q, trav)
						if bf, bb := bruteQuery(reversed, &q); bf != fwd || bb != bwd {
							t.Fatalf("vertex %d (%v): brute force %+v %+v, TraceQuery %+v %+v", v, trav, bf, bb, fwd, bwd)
						}
						if bf, bb := bvhQuery(nodes, prims, &q); bf != fwd || bb != bwd {
							t.Fatalf("vertex %d (%v): AppendBVH's walk %+v %+v, TraceQuery %+v %+v", v, trav, bf, bb, fwd, bwd)
						}
					} else {
						skipped++
					}
					d.StandardOutcome(&got, v, &q, fwd, bwd)
					if got != want {
						t.Fatalf("vertex %d (%v, back %g): split %+v, Standard %+v", v, trav, back, got, want)
					}
					if got.Contact {
						contacts++
					}
					if got.Bwd.Prim >= 0 {
						backs++
					}
				}
			}
		}
	}
	randQuat := func() mgl64.Quat {
		return mgl64.QuatRotate(math.Pi*rng.Float64(), mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize())
	}
	for _, a := range shapes {
		for _, b := range shapes {
			scale := a.Size() + b.Size()
			for range n {
				off := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize().Mul(scale * (0.2 + 0.6*rng.Float64()))
				qa, qb := randQuat(), randQuat()
				pa := Pose{Pos: qa.Rotate(a.bounds.Center()).Mul(-1), Rot: qa}
				pb := Pose{Pos: qb.Rotate(b.bounds.Center()).Mul(-1).Add(off), Rot: qb}
				check(a, b, pa, pb, scale)
			}
		}
	}
	for range 4 * n {
		scale := 2 * poly.Size()
		pa := Pose{Rot: mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{0, 0, 1})}
		pb := Pose{Pos: mgl64.Vec3{scale * (rng.Float64() - 0.5), scale * (rng.Float64() - 0.5), 0}, Rot: mgl64.QuatRotate(2*math.Pi*rng.Float64(), mgl64.Vec3{0, 0, 1})}
		check(poly, poly, pa, pb, scale)
	}
	if traced == 0 || skipped == 0 || contacts == 0 || backs == 0 || withBVH == 0 {
		t.Errorf("cases not all met: traced %d, skipped %d, contacts %d, backward hits %d, shapes with a hierarchy %d", traced, skipped, contacts, backs, withBVH)
	}
	t.Logf("%d traced, %d skipped, %d contacts, %d backward hits", traced, skipped, contacts, backs)
}

// edgeQueries returns queries on box that pass exactly through its faces'
// diagonals, edges and corners, where two or more primitives are hit at
// the same distance (ties), from outside and from inside, with backward
// searches.
func edgeQueries(box *Shape) []RayQuery {
	var out []RayQuery
	lo, hi := box.Bounds().Min, box.Bounds().Max
	for axis := range 3 {
		for _, sign := range []float64{-1, 1} {
			for _, u := range []float64{0, 0.25, 0.5, 1} {
				for _, from := range []float64{3, 0.5} { // outside, inside
					var q RayQuery
					a, b := (axis+1)%3, (axis+2)%3
					q.O[a] = lo[a] + u*(hi[a]-lo[a])
					q.O[b] = lo[b] + u*(hi[b]-lo[b])
					q.O[axis] = 0.5*(lo[axis]+hi[axis]) - sign*from*(hi[axis]-lo[axis])
					q.D[axis] = sign
					q.TLo, q.TMax, q.Back = -box.TEps(), math.Inf(1), 10*box.Size()
					out = append(out, q)
				}
			}
		}
	}
	return out
}

// TestQueryTies checks rays through a box's edges and corners, where
// primitives tie: the brute force, the walk of AppendBVH and TraceQuery
// (both traversals) agree, ties going to the lower primitive ID.
func TestQueryTies(t *testing.T) {
	box, err := NewBox(mgl64.Vec3{-1, -2, -0.5}, mgl64.Vec3{1, 2, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	prims, nodes := box.AppendPrimitives(nil), box.AppendBVH(nil)
	ties := 0
	for i, q := range edgeQueries(box) {
		want, wantB := box.TraceQuery(&q, TraversalBasic)
		for _, trav := range []Traversal{TraversalBVH} {
			if f, b := box.TraceQuery(&q, trav); f != want || b != wantB {
				t.Errorf("query %d (%v): %+v %+v, basic traversal %+v %+v", i, trav, f, b, want, wantB)
			}
		}
		if f, b := bruteQuery(prims, &q); f != want || b != wantB {
			t.Errorf("query %d: brute force %+v %+v, TraceQuery %+v %+v", i, f, b, want, wantB)
		}
		if f, b := bvhQuery(nodes, prims, &q); f != want || b != wantB {
			t.Errorf("query %d: AppendBVH's walk %+v %+v, TraceQuery %+v %+v", i, f, b, want, wantB)
		}
		// A tie: another primitive is hit at the same distance.
		for _, p := range prims {
			if tt, _, ok := p.Intersect(&q.O, &q.D); ok && want.Prim >= 0 && p.ID != want.Prim && tt == want.T {
				if p.ID < want.Prim {
					t.Errorf("query %d: tie at t=%v went to primitive %d, not %d", i, tt, want.Prim, p.ID)
				}
				ties++
				break
			}
		}
	}
	if ties == 0 {
		t.Fatal("no tie among the queries: the test checks nothing")
	}
	t.Logf("%d queries with ties", ties)
}
