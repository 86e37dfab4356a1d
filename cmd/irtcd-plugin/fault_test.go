package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

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

// TestFaultsDetectTo: DetectTo consumes the fault file as Detect does and
// writes what Detect returns, whether the served backend has a DetectTo
// or not.
func TestFaultsDetectTo(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	pairs := []narrow.Pair{
		{ID: 1, A: 0, B: 0, PoseA: narrow.Identity, PoseB: narrow.Pose{Pos: mgl64.Vec3{0.9, 0.1, 0}, Rot: mgl64.QuatIdent()}},
		{ID: 2, A: 0, B: 5, PoseA: narrow.Identity, PoseB: narrow.Identity}, // unknown shape: a failed pair
	}
	path := filepath.Join(t.TempDir(), "fault")
	for _, hide := range []bool{false, true} {
		newBackend := func() narrow.Backend {
			be, err := plugin.CPUFactory(narrow.Params{}, 1, slog.Default())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { be.Close() })
			if _, err := be.RegisterShape(box); err != nil {
				t.Fatal(err)
			}
			return be
		}
		var want narrow.Result
		if err := newBackend().Detect(context.Background(), pairs, &want); err != nil {
			t.Fatal(err)
		}
		inner := newBackend()
		if hide {
			inner = struct{ narrow.Backend }{inner} // no DetectTo
		}
		fb := &faultBackend{Backend: inner, path: path, log: slog.Default()}
		if err := os.WriteFile(path, []byte("nothing"), 0o644); err != nil {
			t.Fatal(err)
		}
		var got narrow.Result
		if err := fb.DetectTo(context.Background(), pairs, &got, &got.Stats); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("hide %v: the fault file was not consumed: %v", hide, err)
		}
		if got.Stats != want.Stats || len(got.Pairs) != len(want.Pairs) || want.Stats.Contacts == 0 || want.Stats.FailedPairs != 1 {
			t.Fatalf("hide %v: stats %+v, want %+v (with contacts and one failed pair)", hide, got.Stats, want.Stats)
		}
		for i := range got.Pairs {
			g, w := &got.Pairs[i], &want.Pairs[i]
			if g.ID != w.ID || len(g.Contacts) != len(w.Contacts) || (g.Err == nil) != (w.Err == nil) || g.Iterative != w.Iterative {
				t.Errorf("hide %v: pair %d: %+v, want %+v", hide, i, g, w)
			}
			for k := range g.Contacts {
				if g.Contacts[k] != w.Contacts[k] {
					t.Errorf("hide %v: pair %d contact %d differs", hide, i, k)
				}
			}
		}
	}
}
