package optixbackend

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// TestReshapeShape: a bunny deformed a little at every step and handed to
// ReshapeShape gives, on the device (the kernel run on the host), the CPU
// backend's results bit for bit, iterative steps included; the new shape
// takes the old one's place in the device arrays.
func TestReshapeShape(t *testing.T) {
	shapes := loadShapes(t)
	bunny, torus := shapes[0], shapes[1]
	gpu, cpu := hostAndCPU(t, openHost(t), &config{})
	var ia, ib narrow.ShapeID
	var err error
	for _, be := range []narrow.Backend{gpu, cpu} {
		if ia, err = be.RegisterShape(bunny); err != nil {
			t.Fatal(err)
		}
		if ib, err = be.RegisterShape(torus); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	var pairs []narrow.Pair
	for len(pairs) < 6 {
		pa, pb := reference.RandomOverlap(rng, bunny, torus, 0.5)
		if len(reference.Contacts(bunny, torus, pa, pb)) > 0 {
			pairs = append(pairs, narrow.Pair{ID: uint64(len(pairs) + 1), A: ia, B: ib, PoseA: pa, PoseB: pb})
		}
	}
	var want, got narrow.Result
	cur, iterative, standard := bunny, 0, 0
	for k := range 12 {
		next, err := motion.Breathe(bunny, k)
		if err != nil {
			t.Fatal(err)
		}
		_, wasOn := gpu.tr.spans[cur]
		before := len(gpu.tr.prims)
		for _, r := range []narrow.Reshaper{gpu, cpu} {
			if err := r.ReshapeShape(ia, next); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := gpu.tr.spans[cur]; ok {
			t.Fatalf("step %d: the replaced shape is still on the device", k)
		}
		if _, on := gpu.tr.spans[next]; wasOn && (!on || len(gpu.tr.prims) != before) {
			t.Fatalf("step %d: the new shape did not take the old one's place on the device", k)
		}
		cur = next
		stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
		iterative += got.Stats.IterativePairs
		standard += got.Stats.StandardPairs
	}
	t.Logf("%d iterative and %d standard pair steps", iterative, standard)
	if iterative == 0 || standard <= len(pairs) {
		t.Error("the test covers iterative steps across reshapes, and standard ones after the first step, or not")
	}
	if err := gpu.ReshapeShape(ia, torus); err == nil {
		t.Error("a shape of other triangles replaced the bunny")
	}
}
