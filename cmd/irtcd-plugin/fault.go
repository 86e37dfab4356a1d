package main

// TEST ONLY. Fault injection for the failure-handling tests of package
// plugin: when the environment variable below names a file, the first
// Detect that finds the file deletes it and then, by the file's content,
// hangs ("hang": never answers) or kills the process ("exit": dies in the
// middle of the step). Without the variable the backend is served as is.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin"
)

// testFaultEnv names the fault file. Only the tests of package plugin set it.
const testFaultEnv = "IRTCD_PLUGIN_TEST_FAULT_FILE"

// withTestFaults wraps f's backends with the test-only fault injection when
// testFaultEnv is set.
func withTestFaults(f plugin.Factory) plugin.Factory {
	path := os.Getenv(testFaultEnv)
	if path == "" {
		return f
	}
	return func(p narrow.Params, workers int, log *slog.Logger) (narrow.Backend, error) {
		be, err := f(p, workers, log)
		if err != nil {
			return nil, err
		}
		return &faultBackend{Backend: be, path: path, log: log}, nil
	}
}

// faultBackend is a backend whose Detect may hang or exit (tests only).
type faultBackend struct {
	narrow.Backend
	path string
	log  *slog.Logger
}

// ReshapeShape forwards to the served backend's (narrow.Reshaper), or
// says it cannot.
func (b *faultBackend) ReshapeShape(id narrow.ShapeID, s *narrow.Shape) error {
	r, ok := b.Backend.(narrow.Reshaper)
	if !ok {
		return fmt.Errorf("%T: %w", b.Backend, errors.ErrUnsupported)
	}
	return r.ReshapeShape(id, s)
}

// Detect consumes the fault file, if any, and acts on it before the step.
func (b *faultBackend) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	b.fault()
	return b.Backend.Detect(ctx, pairs, res)
}

// DetectTo is Detect writing to w, as the served backend's DetectTo does
// (so that the tests run the plugin's streaming path); a backend without
// one runs Detect and hands over its Result.
func (b *faultBackend) DetectTo(ctx context.Context, pairs []narrow.Pair, w narrow.ResultWriter, st *narrow.Stats) error {
	b.fault()
	if s, ok := b.Backend.(interface {
		DetectTo(context.Context, []narrow.Pair, narrow.ResultWriter, *narrow.Stats) error
	}); ok {
		return s.DetectTo(ctx, pairs, w, st)
	}
	var res narrow.Result
	if err := b.Backend.Detect(ctx, pairs, &res); err != nil {
		return err
	}
	for _, p := range res.Pairs {
		w.Append(p.ID, p.Contacts, p.Manifolds, p.Iterative, p.Err)
	}
	*st = res.Stats
	return nil
}

// SaveState is the served backend's (plugin.ErrNoState's case if it has
// none).
func (b *faultBackend) SaveState(dst *cpubackend.State) error {
	s, ok := b.Backend.(cpubackend.Stateful)
	if !ok {
		return plugin.ErrNoState
	}
	return s.SaveState(dst)
}

// RestoreState is the served backend's.
func (b *faultBackend) RestoreState(src *cpubackend.State) error {
	s, ok := b.Backend.(cpubackend.Stateful)
	if !ok {
		return plugin.ErrNoState
	}
	return s.RestoreState(src)
}

// fault consumes the fault file, if any, and acts on it.
func (b *faultBackend) fault() {
	if data, err := os.ReadFile(b.path); err == nil && os.Remove(b.path) == nil {
		switch strings.TrimSpace(string(data)) {
		case "hang":
			b.log.Warn("irtcd-plugin: test fault: hanging")
			time.Sleep(24 * time.Hour) // ignores ctx, as a real hang would
		case "exit":
			b.log.Warn("irtcd-plugin: test fault: exiting mid-step")
			os.Exit(3)
		}
	}
}
