package plugin

import (
	"errors"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// TestHostSaveRestoreState: the plugin's temporal state, saved through
// the host at step 10, brings the plugin back there (the steps after it
// come out again bit for bit), restores into an in-process CPU backend
// with the same shapes, and takes a CPU backend's state in turn. Bad
// states and other parameters give typed errors.
func TestHostSaveRestoreState(t *testing.T) {
	const at = 10
	sc := newScene(t, 9, 40, 24)
	p := narrow.Params{}
	h := newHost(t, pluginBin, p, sc.shapes)
	cpu := newCPU(t, p, sc.shapes)
	var res, cres narrow.Result
	var st cpubackend.State
	var want []*narrow.Result
	for k, pairs := range sc.steps {
		if k == at {
			if err := h.SaveState(&st); err != nil {
				t.Fatal(err)
			}
		}
		detect(t, h, pairs, &res)
		detect(t, cpu, pairs, &cres)
		if d := diffResults(&res, &cres); d != "" {
			t.Fatalf("step %d: plugin against CPU: %s", k, d)
		}
		if k >= at {
			want = append(want, res.Clone())
		}
	}
	if st.Pairs() == 0 {
		t.Fatal("no pair state saved")
	}
	replay := func(label string, be narrow.Backend) {
		t.Helper()
		for k, pairs := range sc.steps[at:] {
			detect(t, be, pairs, &res)
			if d := diffResults(&res, want[k]); d != "" {
				t.Fatalf("%s, step %d: %s", label, at+k, d)
			}
		}
	}
	if err := h.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	replay("plugin restored", h)
	if err := cpu.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	replay("CPU backend restored from the plugin's state", cpu)
	var fromCPU cpubackend.State
	if err := cpu.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	if err := cpu.SaveState(&fromCPU); err != nil {
		t.Fatal(err)
	}
	if err := h.RestoreState(&fromCPU); err != nil {
		t.Fatal(err)
	}
	replay("plugin restored from a CPU backend's state", h)

	// Errors: a State never filled, one saved with other parameters.
	if err := h.RestoreState(&cpubackend.State{}); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("RestoreState of an empty State = %v, want ErrBadParams", err)
	}
	other := newCPU(t, narrow.Params{Method: narrow.MethodIterative}, sc.shapes)
	var iter cpubackend.State
	if err := other.SaveState(&iter); err != nil {
		t.Fatal(err)
	}
	if err := h.RestoreState(&iter); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("RestoreState of an iterative backend's state = %v, want ErrBadParams", err)
	}
	if err := h.SaveState(nil); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("SaveState(nil) = %v, want ErrBadParams", err)
	}
	// A refused restore left the plugin as it was: restored to step 10
	// once more, it runs the same steps.
	if err := h.RestoreState(&st); err != nil {
		t.Fatal(err)
	}
	replay("plugin restored after refused states", h)
	h.Close()
	if err := h.SaveState(&st); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("SaveState after Close = %v, want ErrBackendClosed", err)
	}
	t.Logf("%d pair states carried across the process boundary", st.Pairs())
}
