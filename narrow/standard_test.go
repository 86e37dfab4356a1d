package narrow

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestStandardPredictiveSkipsForward checks the shortcut of Standard with a
// predictive ray: for a vertex outside Dst's box the forward search is
// skipped. On the test meshes at random poses, near and overlapping, for
// every vertex and both traversals, the outcome (contact, occlusion and
// the predictive hit) equals that of the untruncated search, and the
// forward hit is only dropped for vertices whose full search meets Dst from
// outside first. Some predictive rays miss Dst's box altogether (and are not
// traced at all).
func TestStandardPredictiveSkipsForward(t *testing.T) {
	var shapes []*Shape
	for _, name := range []string{"bunny.obj", "torus.obj", "duck.obj"} {
		s, err := LoadOBJ(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		shapes = append(shapes, s)
	}
	rng := rand.New(rand.NewPCG(4, 12))
	n := 8
	if testing.Short() {
		n = 4
	}
	skipped, missed := 0, 0
	for _, a := range shapes {
		for _, b := range shapes {
			scale := a.Size() + b.Size()
			for i := 0; i < n; i++ {
				off := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize().Mul(scale * (0.3 + 0.8*rng.Float64()))
				qa := mgl64.QuatRotate(math.Pi*rng.Float64(), mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize())
				qb := mgl64.QuatRotate(math.Pi*rng.Float64(), mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize())
				pa := Pose{Pos: qa.Rotate(a.bounds.Center()).Mul(-1), Rot: qa}
				pb := Pose{Pos: qb.Rotate(b.bounds.Center()).Mul(-1).Add(off), Rot: qb}
				var d Direction
				d.Setup(SideA, a, b, pa, pb, 0.1*scale)
				d.Reach = 0.25 * min(a.Size(), b.Size())
				back := 0.1 * scale
				for v := int32(0); v < int32(a.NumVertices()); v++ {
					for _, trav := range []Traversal{TraversalBVH, TraversalBasic} {
						var got Outcome
						d.Standard(&got, v, back, trav)
						// The same query without the shortcut.
						var q lineQuery
						d.Ray(v, &q.o, &q.d)
						q.start(-b.tEps, back)
						q.onSurf = true
						b.trace(&q, trav)
						fwd, bwd := q.result()
						if !b.nearBounds(&q.o) && !b.meetsHull(&q.slabRay, -back, q.tLo) {
							missed++
						}
						contact := fwd.Prim >= 0 && fwd.Inside && !d.Blocked(v, fwd.T)
						occluded := fwd.Prim >= 0 && fwd.Inside && !contact
						if got.Contact != contact || got.Occluded != occluded || got.Bwd != bwd {
							t.Fatalf("vertex %d (%v): contact %v occluded %v bwd %+v; full search: %v %v %+v", v, trav, got.Contact, got.Occluded, got.Bwd, contact, occluded, bwd)
						}
						if got.Fwd != fwd {
							if got.Fwd != NoHit || fwd.Inside || b.nearBounds(&q.o) {
								t.Fatalf("vertex %d (%v): forward hit %+v, full search %+v", v, trav, got.Fwd, fwd)
							}
							skipped++
						}
					}
				}
			}
		}
	}
	if skipped == 0 {
		t.Error("no forward search was skipped: the test does not exercise the shortcut")
	}
	if missed == 0 {
		t.Error("no predictive ray missed Dst's box: the test does not exercise that shortcut")
	}
	t.Logf("%d forward hits skipped, %d rays outside the box", skipped, missed)
}
