package cpubackend_test

import (
	"fmt"
	"testing"

	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// TestDefaultExtensionLosesNothing checks the default distanceExtension
// with prediction (narrow.Params.DistanceExtension: just over the bound
// on the vertices that can touch, 0.3 × the displacement threshold)
// against one ten times as large (three times the threshold, past the
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
			ls := itNewLockstepParams(t, pr.a, pr.b, params...)
			var stats [2]narrow.Stats
			for k := 0; k < steps; k++ {
				pa, pb := script(k)
				rs := ls.step(t, pa, pb)
				for i := range stats {
					stats[i].Add(&ls.res[i].Stats)
				}
				sameContacts(t, fmt.Sprintf("%s step %d (default vs 3× extension)", label, k), rs[0].Contacts, rs[1].Contacts)
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
