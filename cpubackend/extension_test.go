package cpubackend_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// TestDefaultExtensionLosesNothing checks the default distanceExtension
// with prediction (narrow.Params.DistanceExtension: just over the bound
// on the vertices that can touch, 0.6 × the displacement threshold)
// against one five times as large (three times the threshold, past the
// paper's "greater than displacementThreshold"), on every scripted motion
// and on concave pairs in 3D and 2D: a vertex farther than that bound
// from the other body cannot reach it before the bound fails and a
// standard step looks again (iterative.PairState.TouchDisplacement), so
// the predictions the larger zone adds are never used and the contacts of
// every step are the same. The larger zone must cast more rays in all.
func TestDefaultExtensionLosesNothing(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 60
	}
	bunny, torus, teddy := loadMesh(t, "bunny"), loadMesh(t, "torus"), loadMesh(t, "teddy")
	pairs := []struct {
		name string
		a, b *narrow.Shape
	}{
		{"bunny-bunny", bunny, bunny},
		{"torus-teddy", torus, teddy},
		{"comb-gear", itComb(t), itGear(t)},
	}
	var total [2]int // rays over every pair and script
	for _, pr := range pairs {
		dt := 0.05 * min(pr.a.Size(), pr.b.Size())
		params := []narrow.Params{
			{Method: narrow.MethodPredictive, DisplacementThreshold: dt},
			{Method: narrow.MethodPredictive, DisplacementThreshold: dt, DistanceExtension: 3 * dt},
		}
		for _, sc := range motion.Scripts() {
			label := pr.name + "/" + sc.Name
			script := sc.New(pr.a, pr.b, 1)
			var bes [2]*cpubackend.Backend
			var ids [2][2]narrow.ShapeID
			for i, p := range params {
				be, err := cpubackend.New(p)
				if err != nil {
					t.Fatal(err)
				}
				defer be.Close()
				bes[i] = be
				for k, s := range []*narrow.Shape{pr.a, pr.b} {
					if ids[i][k], err = be.RegisterShape(s); err != nil {
						t.Fatal(err)
					}
				}
			}
			var res [2]narrow.Result
			var stats [2]narrow.Stats
			for k := 0; k < steps; k++ {
				pa, pb := script(k)
				for i, be := range bes {
					pairs := []narrow.Pair{{ID: 1, A: ids[i][0], B: ids[i][1], PoseA: pa, PoseB: pb}}
					if err := be.Detect(context.Background(), pairs, &res[i]); err != nil {
						t.Fatal(err)
					}
					if err := res[i].Pairs[0].Err; err != nil {
						t.Fatalf("%s step %d: %v", label, k, err)
					}
					stats[i].Add(&res[i].Stats)
				}
				sameContacts(t, fmt.Sprintf("%s step %d (default vs 3× extension)", label, k), res[0].Pairs[0].Contacts, res[1].Pairs[0].Contacts)
			}
			t.Logf("%s: rays %d with the default extension, %d with 3×; predictions %d, %d", label, stats[0].Rays(), stats[1].Rays(), stats[0].Predictions, stats[1].Predictions)
			total[0] += stats[0].Rays()
			total[1] += stats[1].Rays()
		}
	}
	if total[0] >= total[1] {
		t.Errorf("rays: %d with the default extension, %d with 3× the threshold: the default casts no fewer", total[0], total[1])
	}
}
