package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// clearWalk returns a random motion of a pair: B starts about two sizes
// from A, wanders towards it until they interpenetrate, then away, both
// turning a little every step (about z only for polygons), so that the
// pair is apart, near, in contact and apart again. Every step moves.
func clearWalk(rng *rand.Rand, a, b *narrow.Shape, steps int) [][2]narrow.Pose {
	planar := a.Dim() == narrow.Dim2
	size := a.Size() + b.Size()
	axis := func() mgl64.Vec3 {
		if planar {
			return mgl64.Vec3{0, 0, 1}
		}
		return mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
	}
	flat := func(v mgl64.Vec3) mgl64.Vec3 {
		if planar {
			v[2] = 0
		}
		return v
	}
	qa := mgl64.QuatRotate(2*math.Pi*rng.Float64(), axis())
	qb := mgl64.QuatRotate(2*math.Pi*rng.Float64(), axis())
	ca := mgl64.Vec3{}
	cb := flat(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}).Normalize().Mul(0.8 * size)
	var out [][2]narrow.Pose
	for k := 0; k < steps; k++ {
		// Towards A for the first half, away for the second, with noise:
		// about 0.9 size each way, whatever the number of steps.
		toward := ca.Sub(cb).Normalize()
		if k >= steps/2 {
			toward = toward.Mul(-1)
		}
		speed := size * 3.2 / float64(steps) * (0.2 + 1.6*rng.Float64())
		if (k/8)%2 == 1 {
			speed *= 0.1 // slow stretches: pairs stay clear for several steps
		}
		cb = cb.Add(flat(toward.Add(flat(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}).Mul(0.5))).Normalize().Mul(speed))
		ca = ca.Add(flat(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}).Mul(0.002 * size))
		qa = mgl64.QuatRotate(0.01*rng.NormFloat64(), axis()).Mul(qa).Normalize()
		qb = mgl64.QuatRotate(0.03*rng.NormFloat64(), axis()).Mul(qb).Normalize()
		// Poses that put the shapes' box centres at ca and cb.
		pa := narrow.Pose{Pos: ca.Sub(qa.Rotate(a.Bounds().Center())), Rot: qa}
		pb := narrow.Pose{Pos: cb.Sub(qb.Rotate(b.Bounds().Center())), Rot: qb}
		out = append(out, [2]narrow.Pose{pa, pb})
	}
	return out
}

// TestClearPathMatchesStandard checks the clear path alone: with a
// displacement threshold so small that Eq. 2 never lets a moving pair
// update iteratively, a pair still skips standard steps while its
// directions without rays stay clear (narrow.Direction.Clearance), and
// every step must then return exactly the standard algorithm's contacts,
// bit for bit, with or without prediction, on the test meshes (the duck
// with its file's origin, far off its centre) and on polygons; the
// standard contacts are checked against the brute-force oracle too.
func TestClearPathMatchesStandard(t *testing.T) {
	steps := 160
	if testing.Short() {
		steps = 60
	}
	cases := []struct {
		name string
		a, b *narrow.Shape
		runs int
	}{
		{"bunny-bunny", loadMesh(t, "bunny"), loadMesh(t, "bunny"), 3},
		{"duck-torus", loadMesh(t, "duck"), loadMesh(t, "torus"), 2},
		{"teddy-bunny", loadMesh(t, "teddy"), loadMesh(t, "bunny"), 1},
		{"comb-gear", itComb(t), itGear(t), 3},
	}
	const tiny = 1e-12
	var last []narrow.Contact
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(21, uint64(len(tc.name))))
			cleared, contacts := [2]int{}, 0
			for run := 0; run < tc.runs; run++ {
				last = last[:0]
				ls := itNewLockstepParams(t, tc.a, tc.b,
					narrow.Params{Method: narrow.MethodStandard},
					narrow.Params{Method: narrow.MethodIterative, DisplacementThreshold: tiny},
					narrow.Params{Method: narrow.MethodPredictive, DisplacementThreshold: tiny})
				for k, p := range clearWalk(rng, tc.a, tc.b, steps) {
					rs := ls.step(t, p[0], p[1])
					label := fmt.Sprintf("run %d step %d", run, k)
					for m := 1; m < len(rs); m++ {
						sameContacts(t, label+" "+ls.names[m]+" vs standard", rs[m].Contacts, rs[0].Contacts)
						if rs[m].Iterative {
							cleared[m-1]++
						}
					}
					contacts += len(rs[0].Contacts)
					if k%40 == 0 || (len(rs[0].Contacts) > 0) != (len(last) > 0) {
						// The oracle (slow): every 40th step and whenever
						// contact begins or ends.
						ref := reference.Contacts(tc.a, tc.b, p[0], p[1])
						compareWithReference(t, label, rs[0].Contacts, ref, max(tc.a.Size(), tc.b.Size()))
					}
					last = append(last[:0], rs[0].Contacts...)
					if t.Failed() {
						t.FailNow()
					}
				}
			}
			t.Logf("%d steps: %d standard contacts; steps skipped by the clear path: iterative %d, predictive %d", tc.runs*steps, contacts, cleared[0], cleared[1])
			if contacts == 0 {
				t.Error("the bodies never touched: the walk tests nothing")
			}
			if cleared[0] == 0 || cleared[1] == 0 {
				t.Error("no step took the clear path")
			}
		})
	}
}

// TestClearPathChangesNothing: at the default parameters the clear path
// only skips work. Several pairs (meshes, the off-centre duck, polygons)
// wander in one batch, in contact and apart; a backend with the clear
// path and one without it must return the same contacts and manifolds,
// bit for bit, at every step, with and without prediction, and with the
// papers' culling too (whose standard steps also predict from vertices
// farther than DistanceExtension, which a clear step skips), while the
// first takes fewer standard steps.
func TestClearPathChangesNothing(t *testing.T) {
	steps := 200
	if testing.Short() {
		steps = 80
	}
	bunny, duck, torus := loadMesh(t, "bunny"), loadMesh(t, "duck"), loadMesh(t, "torus")
	comb, gear := itComb(t), itGear(t)
	type walk struct {
		a, b  *narrow.Shape
		poses [][2]narrow.Pose
	}
	rng := rand.New(rand.NewPCG(33, 1))
	var walks []walk
	for _, p := range [][2]*narrow.Shape{{bunny, bunny}, {duck, torus}, {torus, bunny}, {duck, duck}, {comb, gear}, {gear, gear}} {
		for r := 0; r < 2; r++ {
			walks = append(walks, walk{p[0], p[1], clearWalk(rng, p[0], p[1], steps)})
		}
	}
	for _, p := range []narrow.Params{{Method: narrow.MethodIterative}, {Method: narrow.MethodPredictive},
		{Method: narrow.MethodIterative, Culling: narrow.CullBoxes}, {Method: narrow.MethodPredictive, Culling: narrow.CullBoxes}} {
		t.Run(p.Method.String()+"/culling="+p.Culling.String(), func(t *testing.T) {
			var bes [2]*cpubackend.Backend
			ids := [2]map[*narrow.Shape]narrow.ShapeID{{}, {}}
			for i, opts := range [][]cpubackend.Option{nil, {cpubackend.WithoutClearPath()}} {
				be, err := cpubackend.New(p, opts...)
				if err != nil {
					t.Fatal(err)
				}
				defer be.Close()
				for _, s := range []*narrow.Shape{bunny, duck, torus, comb, gear} {
					if ids[i][s], err = be.RegisterShape(s); err != nil {
						t.Fatal(err)
					}
				}
				bes[i] = be
			}
			var res [2]narrow.Result
			var std [2]int
			for k := 0; k < steps; k++ {
				for i, be := range bes {
					batch := make([]narrow.Pair, len(walks))
					for w, wk := range walks {
						batch[w] = narrow.Pair{ID: uint64(w + 1), A: ids[i][wk.a], B: ids[i][wk.b], PoseA: wk.poses[k][0], PoseB: wk.poses[k][1]}
					}
					if err := be.Detect(context.Background(), batch, &res[i]); err != nil {
						t.Fatal(err)
					}
					std[i] += res[i].Stats.StandardPairs
				}
				for p := range res[0].Pairs {
					got, want := &res[0].Pairs[p], &res[1].Pairs[p]
					label := fmt.Sprintf("step %d pair %d", k, got.ID)
					sameContacts(t, label, got.Contacts, want.Contacts)
					if len(got.Manifolds) != len(want.Manifolds) {
						t.Fatalf("%s: %d manifolds, %d without the clear path", label, len(got.Manifolds), len(want.Manifolds))
					}
					for i := range got.Manifolds {
						if got.Manifolds[i].Normal != want.Manifolds[i].Normal {
							t.Fatalf("%s: manifold %d normal %v, %v without the clear path", label, i, got.Manifolds[i].Normal, want.Manifolds[i].Normal)
						}
						sameContacts(t, label, got.Manifolds[i].Points, want.Manifolds[i].Points)
					}
					if t.Failed() {
						t.FailNow()
					}
				}
			}
			t.Logf("%d pair-steps: standard steps %d with the clear path, %d without", steps*len(walks), std[0], std[1])
			if !(std[0] < std[1]) {
				t.Errorf("the clear path saved no standard step (%d vs %d)", std[0], std[1])
			}
		})
	}
}

// TestBoxCullingSameContacts: the papers' culling (narrow.CullBoxes, every
// vertex in the world boxes' intersection) casts from a superset of
// irtcd's vertices, and every vertex it adds lies outside the other body,
// so the standard method returns the same contacts, bit for bit, at every
// step of pairs wandering in and out of contact, casting more rays.
func TestBoxCullingSameContacts(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 50
	}
	rng := rand.New(rand.NewPCG(44, 2))
	for _, tc := range []struct {
		name string
		a, b *narrow.Shape
	}{
		{"bunny-bunny", loadMesh(t, "bunny"), loadMesh(t, "bunny")},
		{"duck-torus", loadMesh(t, "duck"), loadMesh(t, "torus")},
		{"comb-gear", itComb(t), itGear(t)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ls := itNewLockstepParams(t, tc.a, tc.b,
				narrow.Params{Method: narrow.MethodStandard},
				narrow.Params{Method: narrow.MethodStandard, Culling: narrow.CullBoxes})
			var rays [2]int
			contacts := 0
			for k, p := range clearWalk(rng, tc.a, tc.b, steps) {
				rs := ls.step(t, p[0], p[1])
				sameContacts(t, fmt.Sprintf("step %d, boxes vs tight", k), rs[1].Contacts, rs[0].Contacts)
				if t.Failed() {
					t.FailNow()
				}
				contacts += len(rs[0].Contacts)
				for i := range rays {
					rays[i] += ls.res[i].Stats.StandardRays
				}
			}
			t.Logf("%d steps, %d contacts; standard rays: %d tight, %d boxes", steps, contacts, rays[0], rays[1])
			if contacts == 0 {
				t.Error("the bodies never touched: the walk tests nothing")
			}
			if rays[1] <= rays[0] {
				t.Errorf("the boxes cast %d rays, no more than the tight culling's %d", rays[1], rays[0])
			}
		})
	}
}
