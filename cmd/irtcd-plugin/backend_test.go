package main

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend"
)

// TestFactory checks the backends IRTCD_PLUGIN_BACKEND selects: cpu (and
// unset) serves the CPU backend, gpu the GPU backend or, without a
// device, an error wrapping optixbackend.ErrNoDevice, and an unknown name
// an error that names the variable.
func TestFactory(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, name := range []string{"", "cpu"} {
		be, err := factory(name)(narrow.Params{}, 1, log)
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		be.Close()
	}
	be, err := factory("gpu")(narrow.Params{}, 1, log)
	switch {
	case err == nil:
		if _, ok := be.(*optixbackend.Backend); !ok {
			t.Errorf("gpu: a %T", be)
		}
		be.Close()
	case !errors.Is(err, optixbackend.ErrNoDevice):
		t.Errorf("gpu without a device: %v", err)
	}
	if _, err := factory("tpu")(narrow.Params{}, 1, log); err == nil || !strings.Contains(err.Error(), backendEnv) {
		t.Errorf("tpu: %v", err)
	}
}
