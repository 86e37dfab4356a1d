package cpubackend_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// squish returns s's vertices under a smooth deformation of amplitude amp
// (a fraction of the shape's size): a squash along y, a bulge in x–z and
// a wave.
func squish(s *narrow.Shape, amp, phase float64) []mgl64.Vec3 {
	c := s.Bounds().Center()
	out := make([]mgl64.Vec3, s.NumVertices())
	for i := range out {
		v := s.Vertex(i).Sub(c)
		r := v.Len() / s.Size()
		k := 1 + amp*math.Sin(3*r+phase)
		out[i] = c.Add(mgl64.Vec3{v[0] * k, v[1] * (1 - amp), v[2] * k}).
			Add(mgl64.Vec3{0, amp * s.Size() * math.Sin(2*v[0]/s.Size()+phase), 0})
	}
	return out
}

// TestDeformedShapesMatchReference runs the standard step on deformed
// meshes (narrow.Shape.Deform, a refitted hierarchy and no outside grid)
// against the brute-force reference, and checks that its contacts are
// those of the same meshes built anew by narrow.NewMesh, bit for bit.
func TestDeformedShapesMatchReference(t *testing.T) {
	rebuild := func(s *narrow.Shape) *narrow.Shape {
		vs := s.AppendVertices(nil)
		ts := s.AppendTriangles(nil)
		r, err := narrow.NewMesh(vs, ts)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		a, b       string
		deformBoth bool
	}{
		{"bunny", "torus", false},
		{"torus", "bunny", true},
		{"duck", "torus", true},
	} {
		t.Run(fmt.Sprintf("%s-%s", tc.a, tc.b), func(t *testing.T) {
			a0, b0 := loadMesh(t, tc.a), loadMesh(t, tc.b)
			for round, amp := range []float64{0.05, 0.15} {
				a, err := a0.Deform(squish(a0, amp, float64(round)))
				if err != nil {
					t.Fatal(err)
				}
				b := b0
				if tc.deformBoth {
					if b, err = b0.Deform(squish(b0, amp, 1+float64(round))); err != nil {
						t.Fatal(err)
					}
				}
				matchReference(t, a, b, 4, uint64(7+round))
				ra, rb := rebuild(a), rebuild(b)
				rng := rand.New(rand.NewPCG(3, uint64(round)))
				for i := 0; i < 6; i++ {
					pa, pb := reference.RandomOverlap(rng, a, b, 0.5)
					for _, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: narrow.MethodStandard, EdgeAngle: 0.3}} {
						got := detectOne(t, p, a, b, pa, pb)
						want := detectOne(t, p, ra, rb, pa, pb)
						sameContacts(t, fmt.Sprintf("round %d pose %d edges %v: deformed vs rebuilt", round, i, p.EdgeAngle > 0), got, want)
					}
				}
			}
		})
	}
}

// TestReshapeShape: a shape replaced by a deformation of it under its ID
// (Backend.ReshapeShape) keeps its pairs' temporal state. A pair whose
// shape deforms by a tiny amount at the same poses steps iteratively, and
// its contacts are those of a standard step on the deformed shape; one
// that deforms by more than Eq. 2's threshold takes a standard step,
// though its poses have not changed (the odometer of deformations counts
// as displacement). Bad replacements are refused, changing nothing.
func TestReshapeShape(t *testing.T) {
	a0, b := loadMesh(t, "bunny"), loadMesh(t, "torus")
	for _, method := range []narrow.Method{narrow.MethodIterative, narrow.MethodPredictive} {
		p := narrow.Params{Method: method}
		be, ia, ib := pairBackend(t, p, a0, b)
		rng := rand.New(rand.NewPCG(5, 6))
		var pa, pb narrow.Pose
		for {
			pa, pb = reference.RandomOverlap(rng, a0, b, 0.5)
			if len(reference.Contacts(a0, b, pa, pb)) > 10 {
				break
			}
		}
		step := func(label string) narrow.PairResult {
			t.Helper()
			var res narrow.Result
			if err := be.Detect(context.Background(), []narrow.Pair{{ID: 1, A: ia, B: ib, PoseA: pa, PoseB: pb}}, &res); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
			pr := res.Pairs[0]
			if pr.Err != nil {
				t.Fatalf("%s: %v", label, pr.Err)
			}
			pr.Contacts = slices.Clone(pr.Contacts)
			return pr
		}
		step("first step")
		prev := a0
		for _, tc := range []struct {
			amp       float64
			iterative bool
		}{{1e-6, true}, {1e-6, true}, {0.1, false}, {1e-6, true}} {
			a, err := a0.Deform(squish(a0, tc.amp, 0.3))
			if err != nil {
				t.Fatal(err)
			}
			if err := be.ReshapeShape(ia, a); err != nil {
				t.Fatal(err)
			}
			if be.Shape(ia) != a {
				t.Fatal("the backend does not hold the new shape")
			}
			label := fmt.Sprintf("%v, deformation %g", method, tc.amp)
			pr := step(label)
			if pr.Iterative != tc.iterative {
				t.Errorf("%s (%.3g from the last shape): iterative %v, want %v", label, a.MaxDisplacement(prev), pr.Iterative, tc.iterative)
			}
			if pr.Iterative {
				// The rays the standard step left, walked on the
				// deformed shape: the standard step's contacts there.
				want := detectOne(t, p, a, b, pa, pb)
				byVertex := map[[2]int32]narrow.Contact{}
				for _, c := range want {
					byVertex[[2]int32{int32(c.From), c.Vertex}] = c
				}
				for _, c := range pr.Contacts {
					w, ok := byVertex[[2]int32{int32(c.From), c.Vertex}]
					if !ok || math.Abs(w.Depth-c.Depth) > 1e-9 || w.Prim != c.Prim {
						t.Errorf("%s: %v vertex %d: depth %v prim %d, standard step %v (found %v)", label, c.From, c.Vertex, c.Depth, c.Prim, w, ok)
					}
				}
				if len(pr.Contacts) == 0 || len(pr.Contacts) < len(want)/2 {
					t.Errorf("%s: %d contacts, the standard step %d", label, len(pr.Contacts), len(want))
				}
			}
			prev = a
			a0 = a
		}
		a0 = loadMesh(t, "bunny")
	}

	be, ia, ib := pairBackend(t, narrow.Params{}, loadMesh(t, "bunny"), b)
	for _, tc := range []struct {
		name string
		id   narrow.ShapeID
		s    *narrow.Shape
		want error
	}{
		{"other topology", ia, b, narrow.ErrBadParams},
		{"nil", ia, nil, narrow.ErrBadParams},
		{"unknown id", 7, b, narrow.ErrUnknownShape},
	} {
		if err := be.ReshapeShape(tc.id, tc.s); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if be.Shape(ia) == nil || be.Shape(ia).NumVertices() != 453 || be.Shape(ib) != b {
		t.Error("a refused ReshapeShape changed the shapes")
	}
}
