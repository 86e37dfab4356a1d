package narrow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestStandardPredictiveSkipsForward checks the shortcuts of Standard with
// a predictive ray: the forward search is clipped where the ray leaves its
// own body (or at Reach), as without prediction, and skipped for a vertex
// outside Dst's box. On the test meshes at random poses, near and
// overlapping, for every vertex and both traversals, the contact, the
// predictive hit and the prediction rule of predictive.FromStandard equal
// those of the untruncated search, and a forward hit is only dropped
// beyond the clip or, for vertices outside the box or placed outside by
// Dst's outside grid, where the full search meets Dst from outside first.
// Some predictive rays miss Dst's box altogether, and with the basic
// traversal some the outside grid shows to stay clear of Dst's surface
// (neither is traced at all).
func TestStandardPredictiveSkipsForward(t *testing.T) {
	shapes := testMeshes(t, "bunny", "torus", "duck")
	rng := rand.New(rand.NewPCG(4, 12))
	n := 8
	if testing.Short() {
		n = 4
	}
	skipped, clipped, missed, cleared := 0, 0, 0, 0
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
						outside := !b.nearBounds(&q.o) || b.grid.outside(q.o[0], q.o[1], q.o[2])
						switch {
						case !b.nearBounds(&q.o) && !b.meetsHull(&q.slabRay, -back, q.tLo):
							missed++
						case trav == TraversalBasic && outside && b.grid.clearAlong(&q.o, &q.d, -back):
							cleared++
						}
						contact := fwd.Prim >= 0 && fwd.Inside && !d.Blocked(v, fwd.T)
						occluded := fwd.Prim >= 0 && fwd.Inside && !contact
						// predictive.FromStandard's rule (that package imports this one).
						predicts := func(contact, occluded bool, bwd Hit) bool {
							return !contact && !occluded && bwd.Prim >= 0 && bwd.Inside && -bwd.T <= back
						}
						if got.Contact != contact || got.Occluded && !occluded || got.Bwd != bwd ||
							predicts(got.Contact, got.Occluded, got.Bwd) != predicts(contact, occluded, bwd) {
							t.Fatalf("vertex %d (%v): contact %v occluded %v bwd %+v; full search: %v %v %+v", v, trav, got.Contact, got.Occluded, got.Bwd, contact, occluded, bwd)
						}
						if got.Fwd != fwd {
							clip := max(a.exitOf(v)+2*a.tEps, d.Reach)
							switch {
							case got.Fwd != NoHit:
								t.Fatalf("vertex %d (%v): forward hit %+v, full search %+v", v, trav, got.Fwd, fwd)
							case fwd.T > clip:
								clipped++
							case fwd.Inside || b.nearBounds(&q.o) && !b.grid.outside(q.o[0], q.o[1], q.o[2]):
								t.Fatalf("vertex %d (%v): forward hit dropped before the clip: full search %+v", v, trav, fwd)
							default:
								skipped++
							}
						}
					}
				}
			}
		}
	}
	if skipped == 0 {
		t.Error("no forward search was skipped: the test does not exercise the shortcut")
	}
	if clipped == 0 {
		t.Error("no forward hit lay beyond the clip: the test does not exercise it")
	}
	if cleared == 0 {
		t.Error("no predictive ray was cleared by the outside grid: the test does not exercise it")
	}
	if missed == 0 {
		t.Error("no predictive ray missed Dst's box: the test does not exercise that shortcut")
	}
	t.Logf("%d forward hits skipped, %d clipped, %d rays outside the box, %d cleared by the grid", skipped, clipped, missed, cleared)
}
