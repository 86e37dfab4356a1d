package cpubackend_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// crossedBars returns two bars, boxes that barPoses turns by 45° about
// their length: b along x with its top edge on the x axis, a along y with
// its bottom edge depth below it, crossing b's top edge at (off, 0, 0). No
// vertex of either lies inside the other.
func crossedBars(t *testing.T) (a, b *narrow.Shape) {
	t.Helper()
	var err error
	if a, err = narrow.NewBox(mgl64.Vec3{-barH, -2, -barH}, mgl64.Vec3{barH, 2, barH}); err != nil {
		t.Fatal(err)
	}
	if b, err = narrow.NewBox(mgl64.Vec3{-2, -barH, -barH}, mgl64.Vec3{2, barH, barH}); err != nil {
		t.Fatal(err)
	}
	return a, b
}

// barsBackend returns a backend with parameters p and crossedBars'
// shapes registered, closed at the end of the test.
func barsBackend(t *testing.T, p narrow.Params, opts ...cpubackend.Option) (be *cpubackend.Backend, a, b narrow.ShapeID) {
	t.Helper()
	sa, sb := crossedBars(t)
	return shapesBackend(t, p, sa, sb, opts...)
}

// shapesBackend returns a backend with parameters p and shapes sa and sb
// registered, closed at the end of the test.
func shapesBackend(t *testing.T, p narrow.Params, sa, sb *narrow.Shape, opts ...cpubackend.Option) (be *cpubackend.Backend, a, b narrow.ShapeID) {
	t.Helper()
	be, err := cpubackend.New(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	if a, err = be.RegisterShape(sa); err != nil {
		t.Fatal(err)
	}
	if b, err = be.RegisterShape(sb); err != nil {
		t.Fatal(err)
	}
	return be, a, b
}

// barH is the bars' half thickness.
const barH = 0.2

// barPoses returns the poses of crossedBars' bars.
func barPoses(depth, off float64) (pa, pb narrow.Pose) {
	r := barH * math.Sqrt2
	pb = narrow.Pose{Pos: mgl64.Vec3{0, 0, -r}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})}
	pa = narrow.Pose{Pos: mgl64.Vec3{off, 0, r - depth}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0})}
	return pa, pb
}

// TestEdgeContacts runs two bars crossing edge on edge through the
// backend, with every method, over steps in which they slide along b's
// edge: with Params.EdgeAngle every step, standard or iterative, returns
// the one edge contact at the crossing, with its depth and the vertical
// normal, in its own manifold, counted in Stats; without it the pair has
// no contact (the limit of vertex rays). The steps allocate nothing.
func TestEdgeContacts(t *testing.T) {
	const depth = 0.004
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		for _, angle := range []float64{0, math.Pi / 4} {
			be, ia, ib := barsBackend(t, narrow.Params{Method: m, EdgeAngle: angle}, cpubackend.WithWorkers(2))
			var res narrow.Result
			pairs := make([]narrow.Pair, 1)
			iterative := 0
			step := func(k int) {
				off := 0.001 * float64(k%10) // slides along b's top edge
				pa, pb := barPoses(depth, off)
				pairs[0] = narrow.Pair{ID: 7, A: ia, B: ib, PoseA: pa, PoseB: pb}
				if err := be.Detect(context.Background(), pairs, &res); err != nil {
					t.Fatal(err)
				}
				pr := &res.Pairs[0]
				if pr.Err != nil {
					t.Fatal(pr.Err)
				}
				if pr.Iterative {
					iterative++
				}
				if angle == 0 {
					if len(pr.Contacts) != 0 {
						t.Fatalf("%v without edges, step %d: contacts %v", m, k, pr.Contacts)
					}
					return
				}
				if len(pr.Contacts) != 1 || res.Stats.Contacts != 1 || res.Stats.EdgeContacts != 1 {
					t.Fatalf("%v step %d: contacts %v, stats %+v; want one edge contact", m, k, pr.Contacts, res.Stats)
				}
				c := pr.Contacts[0]
				want := mgl64.Vec3{off, 0, -depth}
				if c.Feature != narrow.FeatureEdge || math.Abs(c.Depth-depth) > 1e-12 || c.P.Sub(want).Len() > 1e-12 || c.Dir.Sub(mgl64.Vec3{0, 0, 1}).Len() > 1e-12 {
					t.Fatalf("%v step %d: contact %+v, want an edge contact at %v, depth %v, up", m, k, c, want, depth)
				}
				if len(pr.Manifolds) != 1 || len(pr.Manifolds[0].Points) != 1 || pr.Manifolds[0].Points[0] != c {
					t.Fatalf("%v step %d: manifolds %+v", m, k, pr.Manifolds)
				}
			}
			for k := range 30 {
				step(k)
			}
			if m != narrow.MethodStandard && iterative == 0 {
				t.Errorf("%v: no iterative step", m)
			}
			k := 30
			if n := testing.AllocsPerRun(20, func() { step(k); k++ }); n != 0 {
				t.Errorf("%v, edge angle %v: %v allocations per step", m, angle, n)
			}
		}
	}
}

// TestSpeculativeEdgeContacts: with speculative contacts, bars crossing
// edge on edge 4 mm apart have one speculative edge-on-edge contact (Depth
// −0.004, counted as speculative), in a manifold of its own after none
// of contacts; without speculative contacts, none.
func TestSpeculativeEdgeContacts(t *testing.T) {
	for _, spec := range []bool{false, true} {
		be, ia, ib := barsBackend(t, narrow.Params{EdgeAngle: math.Pi / 4, Speculative: spec})
		var res narrow.Result
		for k := range 12 {
			pa, pb := barPoses(-0.004, 0.001*float64(k))
			if err := be.Detect(context.Background(), []narrow.Pair{{ID: 3, A: ia, B: ib, PoseA: pa, PoseB: pb}}, &res); err != nil {
				t.Fatal(err)
			}
			pr := &res.Pairs[0]
			if !spec {
				if len(pr.Contacts) != 0 {
					t.Fatalf("step %d, no speculative contacts: %v", k, pr.Contacts)
				}
				continue
			}
			if len(pr.Contacts) != 1 || res.Stats.Speculative != 1 || res.Stats.Contacts != 0 || res.Stats.EdgeContacts != 0 {
				t.Fatalf("step %d: contacts %v, stats %+v; want one speculative edge contact", k, pr.Contacts, res.Stats)
			}
			c := pr.Contacts[0]
			if c.Feature != narrow.FeatureEdge || math.Abs(c.Depth+0.004) > 1e-12 || c.Dir.Sub(mgl64.Vec3{0, 0, 1}).Len() > 1e-12 {
				t.Fatalf("step %d: %+v, want a speculative edge contact of depth −0.004, up", k, c)
			}
			if len(pr.Touching()) != 0 || len(pr.Manifolds) != 1 {
				t.Fatalf("step %d: manifolds %+v", k, pr.Manifolds)
			}
		}
	}
}

// TestEdgeContactsFollowMotion runs every scripted motion (internal/
// motion) on boxes, crossed bars and bunnies through the iterative methods
// with edge-on-edge contacts, and checks each step's edge contacts against
// narrow.Direction.AppendEdgeContacts at the step's poses: a pair keeps
// the edges it tests from step to step (AppendEdgePairs with a margin),
// and must find what a search of all of them finds. With speculative
// contacts the backend narrows each step's gaps, so its edge contacts are
// those of the widest gap less some gaps. Steps run on 1 and 3 workers.
// A backend that searches all edges at every step (WithAllEdges) returns
// the same contacts, bit for bit, gaps included, and with EdgeFaces the
// same edge-through-face contacts, which the pair traces only through the
// edges it keeps (AppendFaceEdges).
func TestEdgeContactsFollowMotion(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	barA, barB := crossedBars(t)
	bunny := loadMesh(t, "bunny")
	const angle = math.Pi / 4
	type params struct {
		m     narrow.Method
		spec  bool
		depth float64 // Params.EdgeDepth as a share of the smaller Size; 0: the default
		faces bool    // Params.EdgeFaces
	}
	checked, gaps, faces := 0, 0, 0
	for _, sh := range []struct {
		name string
		a, b *narrow.Shape
	}{{"box", box, box}, {"bars", barA, barB}, {"bunny", bunny, bunny}} {
		for _, e := range motion.Scripts() {
			for i, p := range []params{{narrow.MethodIterative, false, 0, false}, {narrow.MethodPredictive, false, 0, false}, {narrow.MethodPredictive, true, 0, false},
				{narrow.MethodPredictive, false, 0.03, false}, {narrow.MethodPredictive, true, 0.03, false}, {narrow.MethodIterative, false, 0, true}, {narrow.MethodPredictive, true, 0.03, true}} {
				depth := p.depth * min(sh.a.Size(), sh.b.Size())
				be, err := cpubackend.New(narrow.Params{Method: p.m, Speculative: p.spec, EdgeAngle: angle, EdgeDepth: depth, EdgeFaces: p.faces}, cpubackend.WithWorkers(1+2*(i%2)))
				if err != nil {
					t.Fatal(err)
				}
				ia, _ := be.RegisterShape(sh.a)
				ib, _ := be.RegisterShape(sh.b)
				// The same backend searching all edges at every step.
				all, err := cpubackend.New(be.Params(), cpubackend.WithWorkers(1), cpubackend.WithAllEdges())
				if err != nil {
					t.Fatal(err)
				}
				all.RegisterShape(sh.a)
				all.RegisterShape(sh.b)
				var allRes narrow.Result
				r := be.Params().Resolve(sh.a, sh.b)
				if depth > 0 && r.EdgeDepth != depth {
					t.Fatalf("EdgeDepth %v resolved as %v", depth, r.EdgeDepth)
				}
				maxGap := 0.0
				if p.spec {
					maxGap = r.CullingDist
				}
				script := e.New(sh.a, sh.b, 3)
				var res narrow.Result
				var sc narrow.EdgeScratch
				var want []narrow.Contact
				iterativeSteps := 0
				for k := range 120 {
					pa, pb := script(k)
					if err := be.Detect(context.Background(), []narrow.Pair{{ID: 1, A: ia, B: ib, PoseA: pa, PoseB: pb}}, &res); err != nil {
						t.Fatal(err)
					}
					pr := &res.Pairs[0]
					if pr.Iterative {
						iterativeSteps++
					}
					if err := all.Detect(context.Background(), []narrow.Pair{{ID: 1, A: ia, B: ib, PoseA: pa, PoseB: pb}}, &allRes); err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(pr.Contacts, allRes.Pairs[0].Contacts) {
						t.Fatalf("%s %s %v spec=%v step %d: contacts %v, searching all edges %v", sh.name, e.Name, p.m, p.spec, k, pr.Contacts, allRes.Pairs[0].Contacts)
					}
					var got []narrow.Contact
					for _, c := range pr.Contacts {
						switch c.Feature {
						case narrow.FeatureEdge:
							got = append(got, c)
						case narrow.FeatureEdgeFace:
							faces++ // compared with all edges' above
						}
					}
					var d [2]narrow.Direction
					narrow.SetPair(&d, sh.a, sh.b, &pa, &pb)
					want = d[0].AppendEdgeContacts(want[:0], &sc, r.EdgeAngle, r.EdgeDepth, maxGap, r.Traversal)
					// got is want less some of its gaps, in order (the
					// backend maps the poses its own way: to rounding).
					same := func(g, w *narrow.Contact) bool {
						return narrow.CompareContacts(g, w) == 0 && math.Abs(g.Depth-w.Depth) < 1e-12 &&
							g.P.Sub(w.P).Len() < 1e-12 && g.Dir.Sub(w.Dir).Len() < 1e-12
					}
					x := 0
					for _, c := range want {
						if x < len(got) && same(&got[x], &c) {
							x++
						} else if c.Depth >= 0 {
							t.Fatalf("%s %s %v spec=%v step %d: edge contacts %v, want %v", sh.name, e.Name, p.m, p.spec, k, got, want)
						}
					}
					if x != len(got) {
						t.Fatalf("%s %s %v spec=%v step %d: edge contacts %v, want %v (less gaps)", sh.name, e.Name, p.m, p.spec, k, got, want)
					}
					checked += len(got)
					for _, c := range got {
						if c.Depth > r.EdgeDepth {
							t.Fatalf("%s %s step %d: edge contact %v deeper than EdgeDepth %v", sh.name, e.Name, k, c, r.EdgeDepth)
						}
						if c.Depth < 0 {
							gaps++
						}
					}
				}
				be.Close()
				all.Close()
				if iterativeSteps == 0 {
					t.Errorf("%s %s %v: no iterative step", sh.name, e.Name, p.m)
				}
			}
		}
	}
	t.Logf("%d edge contacts compared, %d of them gaps; %d edge-through-face contacts", checked, gaps, faces)
	if faces == 0 {
		t.Error("no edge-through-face contact compared")
	}
	if checked < 500 || gaps == 0 {
		t.Errorf("%d edge contacts compared (%d gaps): the test tests little", checked, gaps)
	}
}

// TestEdgeFaceContacts runs two bars crossed as a "+", with no vertex of
// either inside the other, through the backend with every method, over
// steps in which one slides along the other: with Params.EdgeFaces every
// step, standard or iterative, returns the four edge-through-face
// contacts (each bar's two edges through the other), with their depth and
// the vertical normal, after any other contact, in CompareContacts order,
// and counts them in Stats; without it there are none. The steps
// allocate nothing. EdgeFaces without EdgeAngle is refused.
func TestEdgeFaceContacts(t *testing.T) {
	const depth = 0.01
	a, err := narrow.NewBox(mgl64.Vec3{-2, -barH, -barH}, mgl64.Vec3{2, barH, barH})
	if err != nil {
		t.Fatal(err)
	}
	b, err := narrow.NewBox(mgl64.Vec3{-barH, -2, -barH}, mgl64.Vec3{barH, 2, barH})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		for _, faces := range []bool{false, true} {
			be, ia, ib := shapesBackend(t, narrow.Params{Method: m, EdgeAngle: math.Pi / 4, EdgeFaces: faces}, a, b, cpubackend.WithWorkers(2))
			var res narrow.Result
			pairs := make([]narrow.Pair, 1)
			step := func(k int) {
				off := 0.002 * float64(k%10) // b slides along a
				pa := narrow.Pose{Rot: mgl64.QuatIdent()}
				pb := narrow.Pose{Pos: mgl64.Vec3{off, 0, 2*barH - depth}, Rot: mgl64.QuatIdent()}
				pairs[0] = narrow.Pair{ID: 3, A: ia, B: ib, PoseA: pa, PoseB: pb}
				if err := be.Detect(context.Background(), pairs, &res); err != nil {
					t.Fatal(err)
				}
				pr := &res.Pairs[0]
				if pr.Err != nil {
					t.Fatal(pr.Err)
				}
				n := 0
				for i, c := range pr.Contacts {
					if i > 0 && narrow.CompareContacts(&pr.Contacts[i-1], &c) >= 0 {
						t.Fatalf("%v step %d: contacts out of order: %v", m, k, pr.Contacts)
					}
					if c.Feature != narrow.FeatureEdgeFace {
						continue
					}
					n++
					up := mgl64.Vec3{0, 0, 1}
					if c.From == narrow.SideA {
						up = up.Mul(-1)
					}
					if math.Abs(c.Depth-depth) > 1e-9 || c.Dir.Sub(up).Len() > 1e-9 {
						t.Fatalf("%v step %d: contact %+v, want depth %v along %v", m, k, c, depth, up)
					}
				}
				want := 0
				if faces {
					want = 4
				}
				if n != want || res.Stats.EdgeFaceContacts != want {
					t.Fatalf("%v, EdgeFaces %v, step %d: %d edge-face contacts (stats %d) in %v, want %d", m, faces, k, n, res.Stats.EdgeFaceContacts, pr.Contacts, want)
				}
			}
			for k := range 30 {
				step(k)
			}
			k := 30
			if n := testing.AllocsPerRun(20, func() { step(k); k++ }); n != 0 {
				t.Errorf("%v, EdgeFaces %v: %v allocations per step", m, faces, n)
			}
		}
	}
	if _, err := cpubackend.New(narrow.Params{EdgeFaces: true}); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("EdgeFaces without EdgeAngle: %v, want ErrBadParams", err)
	}
}
