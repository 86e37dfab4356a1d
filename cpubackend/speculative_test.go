package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// checkManifoldOrder checks that no manifold mixes contacts and speculative
// contacts and that the contacts' manifolds come first.
func checkManifoldOrder(t *testing.T, label string, ms []narrow.Manifold) {
	t.Helper()
	spec := false
	for k, m := range ms {
		if len(m.Points) == 0 {
			t.Errorf("%s: manifold %d is empty", label, k)
			continue
		}
		s := m.Points[0].Speculative()
		if spec && !s {
			t.Errorf("%s: manifold %d of contacts after a speculative one", label, k)
		}
		spec = s
		for _, p := range m.Points {
			if p.Speculative() != s {
				t.Errorf("%s: manifold %d mixes contacts and speculative contacts", label, k)
				break
			}
		}
	}
}

// TestSpeculativeMatchesReference checks a standard step's speculative
// contacts against the brute-force opposite ray: every prediction becomes
// one, on the nearest primitive the vertex's opposite ray crosses within
// CullingDist, which it enters, at depth −t·(d·n) along n (MTD) or −t
// along the ray; the step's contacts are those of the same step without
// speculative contacts.
func TestSpeculativeMatchesReference(t *testing.T) {
	shapes := []string{"bunny", "torus", "teddy"}
	rng := rand.New(rand.NewPCG(7, 11))
	for _, resp := range []narrow.Response{narrow.ResponseMTD, narrow.ResponseRay} {
		for _, an := range shapes {
			for _, bn := range shapes {
				a, b := loadMesh(t, an), loadMesh(t, bn)
				t.Run(fmt.Sprintf("%v/%s-%s", resp, an, bn), func(t *testing.T) {
					specTotal := 0
					for i := range 4 {
						pa, pb := reference.RandomOverlap(rng, a, b, 0.45+0.1*float64(i))
						p := narrow.Params{Response: resp, Speculative: true}
						got, ms, st := detectFull(t, p, a, b, pa, pb)
						p.Speculative = false
						plain := detectOne(t, p, a, b, pa, pb)
						label := fmt.Sprintf("pose %d", i)
						var real []narrow.Contact
						nspec := 0
						for _, c := range got {
							if !c.Speculative() {
								real = append(real, c)
								continue
							}
							nspec++
							checkGap(t, label, c, a, b, pa, pb, p.Resolve(a, b).CullingDist, resp)
						}
						sameContacts(t, label+" contacts with and without speculative ones", real, plain)
						if nspec != st.Speculative || nspec != st.Predictions || st.Contacts != len(real) {
							t.Errorf("%s: %d speculative contacts, stats say %d speculative, %d predictions; %d contacts, stats %d",
								label, nspec, st.Speculative, st.Predictions, len(real), st.Contacts)
						}
						checkManifoldOrder(t, label, ms)
						specTotal += nspec
					}
					if specTotal == 0 {
						t.Fatal("no speculative contact at all: the poses test nothing")
					}
				})
			}
		}
	}
}

// checkGap checks one speculative contact of a standard step against the
// brute-force opposite ray.
func checkGap(t *testing.T, label string, c narrow.Contact, a, b *narrow.Shape, pa, pb narrow.Pose, back float64, resp narrow.Response) {
	t.Helper()
	src, dst, ps, pd := a, b, pa, pb
	if c.From == narrow.SideB {
		src, dst, ps, pd = b, a, pb, pa
	}
	g, ok := reference.OppositeRay(src, dst, ps, pd, int(c.Vertex), back)
	if !ok {
		t.Errorf("%s: %v vertex %d: speculative contact (prim %d, depth %g), but its opposite ray crosses nothing within %g", label, c.From, c.Vertex, c.Prim, c.Depth, back)
		return
	}
	if g.Borderline {
		return
	}
	scale := max(a.Size(), b.Size())
	if !g.Entering || int(c.Prim) != g.Prim {
		t.Errorf("%s: %v vertex %d: speculative contact on prim %d, reference prim %d (entering %v, t %g)", label, c.From, c.Vertex, c.Prim, g.Prim, g.Entering, g.T)
		return
	}
	d := ps.Rot.Rotate(src.VertexNormal(int(c.Vertex))).Mul(-1) // the ray, inwards
	want, dir := -g.T, d
	if resp == narrow.ResponseMTD {
		want, dir = -g.T*d.Dot(g.Normal), g.Normal
	}
	if math.Abs(c.Depth-want) > 1e-7*scale || c.Dir.Sub(dir).Len() > 1e-6 {
		t.Errorf("%s: %v vertex %d: depth %.12g dir %v, reference %.12g dir %v", label, c.From, c.Vertex, c.Depth, c.Dir, want, dir)
	}
	if p := ps.Rot.Rotate(src.Vertex(int(c.Vertex))).Add(ps.Pos); c.P.Sub(p).Len() > 1e-9*scale {
		t.Errorf("%s: %v vertex %d: P %v, vertex at %v", label, c.From, c.Vertex, c.P, p)
	}
}

// TestSpeculativeIterative moves overlapping pairs by small steps, so that
// most steps are iterative, and checks each speculative contact: its
// vertex's opposite ray crosses the primitive it names, inside it and
// entering, at the gap its depth gives, within CullingDist; and the
// contacts are those of the same steps without speculative contacts.
// Speculative contacts keep the gate at 0.6 × the threshold where plain
// prediction has 0.3 × (narrow.Resolved.TouchThreshold): the plain
// backend gets twice the threshold and half the confidence, hence the
// same gate, the same predictive reach (CullingDist, MaxIt) and the same
// standard steps; its smaller distance extension loses nothing.
func TestSpeculativeIterative(t *testing.T) {
	a, b := loadMesh(t, "bunny"), loadMesh(t, "torus")
	rng := rand.New(rand.NewPCG(3, 5))
	p := narrow.Params{Speculative: true}
	var ids [2][2]narrow.ShapeID
	be, ia, ib := pairBackend(t, p, a, b)
	r := p.Resolve(a, b)
	pp := narrow.Params{DisplacementThreshold: 2 * r.DisplacementThreshold, Confidence: r.Confidence / 2}
	if rp := pp.Resolve(a, b); rp.TouchThreshold != r.TouchThreshold || rp.CullingDist != r.CullingDist || rp.MaxIt != r.MaxIt {
		t.Fatalf("plain backend: gate %v, culling distance %v, maxIt %v; speculative: %v, %v, %v", rp.TouchThreshold, rp.CullingDist, rp.MaxIt, r.TouchThreshold, r.CullingDist, r.MaxIt)
	}
	plain, pa0, pb0 := pairBackend(t, pp, a, b)
	ids[0], ids[1] = [2]narrow.ShapeID{ia, ib}, [2]narrow.ShapeID{pa0, pb0}
	cull := p.Resolve(a, b).CullingDist
	scale := max(a.Size(), b.Size())
	pa, pb := reference.RandomOverlap(rng, a, b, 0.6)
	vel := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize().Mul(0.004)
	spin := mgl64.QuatRotate(0.003, mgl64.Vec3{0, 1, 1}.Normalize())
	var res, pres narrow.Result
	iterSteps, checked := 0, 0
	for step := range 40 {
		pa.Pos = pa.Pos.Add(vel)
		pa.Rot = spin.Mul(pa.Rot).Normalize()
		if err := be.Detect(context.Background(), []narrow.Pair{{ID: 9, A: ids[0][0], B: ids[0][1], PoseA: pa, PoseB: pb}}, &res); err != nil {
			t.Fatal(err)
		}
		if err := plain.Detect(context.Background(), []narrow.Pair{{ID: 9, A: ids[1][0], B: ids[1][1], PoseA: pa, PoseB: pb}}, &pres); err != nil {
			t.Fatal(err)
		}
		r := &res.Pairs[0]
		if r.Iterative {
			iterSteps++
		}
		label := fmt.Sprintf("step %d", step)
		var real []narrow.Contact
		for _, c := range r.Contacts {
			if !c.Speculative() {
				real = append(real, c)
				continue
			}
			src, dst, ps, pd := a, b, pa, pb
			if c.From == narrow.SideB {
				src, dst, ps, pd = b, a, pb, pa
			}
			o := ps.Rot.Rotate(src.Vertex(int(c.Vertex))).Add(ps.Pos)
			n := ps.Rot.Rotate(src.VertexNormal(int(c.Vertex))) // the opposite ray
			tt, fn, margin, ok := reference.CrossPrim(dst, pd, int(c.Prim), o, n)
			gap := -c.Depth / n.Mul(-1).Dot(fn)
			switch {
			case !ok || margin < -1e-9:
				t.Errorf("%s: %v vertex %d: the opposite ray misses prim %d (margin %g)", label, c.From, c.Vertex, c.Prim, margin)
			case n.Dot(fn) >= 0:
				t.Errorf("%s: %v vertex %d: the opposite ray leaves prim %d", label, c.From, c.Vertex, c.Prim)
			case tt < 0 || tt > cull*(1+1e-9):
				t.Errorf("%s: %v vertex %d: prim %d is %g along the opposite ray, outside [0, %g]", label, c.From, c.Vertex, c.Prim, tt, cull)
			case math.Abs(gap-tt) > 1e-7*scale:
				t.Errorf("%s: %v vertex %d: gap %g from the depth, %g by the reference", label, c.From, c.Vertex, gap, tt)
			}
			checked++
		}
		sameContacts(t, label+" contacts with and without speculative ones", real, pres.Pairs[0].Contacts)
		checkManifoldOrder(t, label, r.Manifolds)
	}
	if iterSteps < 10 || checked == 0 {
		t.Fatalf("%d iterative steps, %d speculative contacts checked: the motion tests too little", iterSteps, checked)
	}
	t.Logf("%d iterative steps of 40, %d speculative contacts checked", iterSteps, checked)
}

// TestSpeculativeGapBound moves a small box down onto a wide one, the same
// distance every step, and checks which predictions become speculative
// contacts: none at rest after the first step, none whose gap exceeds
// twice the step's travel plus a tenth of DisplacementThreshold, and the
// box's four lower corners at the step before it would sink in.
func TestSpeculativeGapBound(t *testing.T) {
	small, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	wide, err := narrow.NewBox(mgl64.Vec3{-2, -1, -2}, mgl64.Vec3{2, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	p := narrow.Params{Speculative: true}
	res := p.Resolve(small, wide)
	const v = 0.01 // travel per step
	bound := 2*v + 0.1*res.DisplacementThreshold
	for _, moving := range []bool{false, true} {
		t.Run(fmt.Sprintf("moving=%v", moving), func(t *testing.T) {
			be, ia, ib := pairBackend(t, p, small, wide)
			gap := 0.04
			var r narrow.Result
			closing := 0
			for step := 0; step < 4; step++ {
				pa := narrow.Pose{Pos: mgl64.Vec3{0.13, 0.5 + gap, 0.21}, Rot: mgl64.QuatIdent()}
				if err := be.Detect(context.Background(), []narrow.Pair{{ID: 1, A: ia, B: ib, PoseA: pa, PoseB: narrow.Identity}}, &r); err != nil {
					t.Fatal(err)
				}
				var specs []narrow.Contact
				for _, c := range r.Pairs[0].Contacts {
					if c.Speculative() {
						specs = append(specs, c)
					}
				}
				st := r.Stats
				switch {
				case st.Predictions == 0:
					t.Fatalf("step %d (gap %.3f): no prediction, the scene tests nothing", step, gap)
				case step == 0 && len(specs) != st.Predictions:
					t.Errorf("step 0: %d speculative contacts for %d predictions, want all", len(specs), st.Predictions)
				case step > 0 && !moving && len(specs) != 0:
					t.Errorf("step %d at rest: %d speculative contacts, want none", step, len(specs))
				}
				for _, c := range specs {
					if step > 0 && -c.Depth > bound*(1+1e-9) {
						t.Errorf("step %d: speculative contact with gap %.4f, above the bound %.4f", step, -c.Depth, bound)
					}
					if math.Abs(-c.Depth-gap) > 1e-9 || c.From != narrow.SideA {
						t.Errorf("step %d: speculative contact from %v, gap %.6f, want A's corners at %.6f", step, c.From, -c.Depth, gap)
					}
				}
				if moving && step > 0 && gap <= v+1e-9 {
					closing++
					if len(specs) != 4 {
						t.Errorf("step %d: gap %.3f closes next step, %d speculative contacts, want the 4 lower corners", step, gap, len(specs))
					}
				}
				if moving {
					gap -= v
				}
			}
			if moving && closing == 0 {
				t.Fatal("no step before the boxes meet")
			}
		})
	}
}
