package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin"
)

// TestFaults: without the test-only variable the backend is served as is;
// with it, a fault file is consumed by the next Detect (an unknown fault
// does nothing).
func TestFaults(t *testing.T) {
	t.Setenv(testFaultEnv, "")
	be, err := withTestFaults(plugin.CPUFactory)(narrow.Params{}, 1, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := be.(*faultBackend); ok {
		t.Error("fault injection without the variable")
	}
	be.Close()

	path := filepath.Join(t.TempDir(), "fault")
	t.Setenv(testFaultEnv, path)
	be, err = withTestFaults(plugin.CPUFactory)(narrow.Params{}, 1, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if err := os.WriteFile(path, []byte("nothing"), 0o644); err != nil {
		t.Fatal(err)
	}
	var res narrow.Result
	if err := be.Detect(context.Background(), nil, &res); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the fault file was not consumed: %v", err)
	}
}
