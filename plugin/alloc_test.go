package plugin

import (
	"testing"

	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/narrow"
)

// TestHostSteadyStateAllocs checks the package's promise that, on the
// host, a warm step rung through the shared region allocates nothing:
// 16 frames of 200 pairs (benchscene.Cheap, bodies swaying in contact)
// run four times over to warm the state and buffers up, then each step
// again is counted. The steps must have gone through the doorbell, not
// gRPC, or the test proves nothing.
func TestHostSteadyStateAllocs(t *testing.T) {
	if !ringSupported {
		t.Skip("steps are rung through the region on Linux only; elsewhere every step is a gRPC call, which allocates")
	}
	shapes, frames, err := benchscene.Cheap(200, 16)
	if err != nil {
		t.Fatal(err)
	}
	h := newHost(t, pluginBin, narrow.Params{}, shapes)
	var res narrow.Result
	for range 4 {
		for _, f := range frames {
			detect(t, h, f, &res)
		}
	}
	rung, contacts, k := h.ringSteps, 0, 0
	allocs := testing.AllocsPerRun(2*len(frames), func() {
		detect(t, h, frames[k%len(frames)], &res)
		contacts += res.Stats.Contacts
		k++
	})
	if allocs != 0 {
		t.Errorf("a warm step rung through the region allocates %.1f times on the host, want 0", allocs)
	}
	if h.ringSteps-rung != k || contacts == 0 || h.Restarts() > 0 || h.FellBack() {
		t.Errorf("%d of %d steps rung, %d contacts, %d restarts, fell back %v: want every step rung, contacts, no failure",
			h.ringSteps-rung, k, contacts, h.Restarts(), h.FellBack())
	}
}
