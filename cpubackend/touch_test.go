package cpubackend_test

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// TestPredictiveTurningOnGround: a bunny resting on a ground box twenty
// times its size turns about the vertical through its centre
// (motion.Rotation). Eq. 2 on every vertex (the plain iterative method,
// iterative.PairState.Within) calls for a standard step whenever the
// turn swings the ground's far corners by more than the threshold, which
// is nearly every step; with prediction only the vertices that can touch
// count (iterative.PairState.WithinTouch), and the bunny's own turn takes
// two steps to exceed narrow.Resolved.TouchThreshold (0.3 × the
// threshold): a standard step every second step. The predictive method
// must take far fewer standard steps and still return the standard
// algorithm's contacts.
func TestPredictiveTurningOnGround(t *testing.T) {
	steps := 120
	if testing.Short() {
		steps = 60
	}
	bunny := loadMesh(t, "bunny")
	s := 10 * bunny.Size()
	ground, err := narrow.NewBox(mgl64.Vec3{-s, -s / 20, -s}, mgl64.Vec3{s, s / 20, s})
	if err != nil {
		t.Fatal(err)
	}
	script := motion.Rotation(ground, bunny, 1)
	ls := itNewLockstep(t, ground, bunny, narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive)
	tol := 1e-6 * bunny.Size()
	var iterSteps [2]int
	var err2, union [2]int
	for k := 0; k < steps; k++ {
		pa, pb := script(k)
		rs := ls.step(t, pa, pb)
		if len(rs[0].Contacts) == 0 {
			t.Fatalf("step %d: no contact with the standard algorithm; the script should keep the bunny on the ground", k)
		}
		for m := range iterSteps {
			r := rs[m+1]
			itCheckContacts(t, fmt.Sprintf("step %d %s", k, ls.names[m+1]), r.Contacts)
			if r.Iterative {
				iterSteps[m]++
			}
			e, u := motion.Compare(rs[0].Contacts, r.Contacts, tol)
			err2[m] += e
			union[m] += u
		}
	}
	t.Logf("iterative steps of %d: iterative %d, predictive %d; erroneous rays: iterative %d/%d, predictive %d/%d",
		steps, iterSteps[0], iterSteps[1], err2[0], union[0], err2[1], union[1])
	if 4*iterSteps[0] > steps {
		t.Errorf("iterative method: %d iterative steps of %d, want at most a quarter (Eq. 2 on every vertex, the ground's corners swinging)", iterSteps[0], steps)
	}
	if 5*iterSteps[1] < 2*steps {
		t.Errorf("predictive method: %d iterative steps of %d, want at least two fifths", iterSteps[1], steps)
	}
	if sh := motion.Share(err2[1], union[1]); sh > 0.01 {
		t.Errorf("predictive method: %d erroneous rays of %d (%.2f%%), want at most 1%%", err2[1], union[1], 100*sh)
	}
}
