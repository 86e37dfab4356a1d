package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend"
)

// buildPlugin builds cmd/irtcd-plugin, with the go command on PATH, into a
// temporary directory.
func buildPlugin(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), pluginBinary)
	out, err := exec.Command("go", "build", "-o", path, "github.com/irtcd/irtcd/cmd/irtcd-plugin").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ./cmd/irtcd-plugin: %v\n%s", err, out)
	}
	return path
}

// demoRun runs the demo on a scene on the given backend (extra flags
// after) and returns the summary's work lines (rays, pairs, contact
// points: the narrow phase's results, without the timings) and the last
// frame.
func demoRun(t *testing.T, dir, backend string, scene []string, extra ...string) (summary string, last []byte) {
	t.Helper()
	args := append(append([]string(nil), scene...), "-width", "64", "-backend", backend, "-out", filepath.Join(dir, backend+".gif"))
	code, stdout, stderr := runDemoArgs(t, append(args, extra...)...)
	if code != exitOK {
		t.Fatalf("%s: exit %d, stderr:\n%s", backend, code, stderr)
	}
	if !strings.Contains(stdout, "on "+backend+"/predictive") {
		t.Errorf("%s: summary:\n%s", backend, stdout)
	}
	var keep []string
	for _, line := range strings.Split(stdout, "\n") {
		for _, p := range []string{"rays", "pairs", "contact points"} {
			if strings.HasPrefix(line, p) {
				keep = append(keep, strings.Join(strings.Fields(line), " ")) // columns align with the timings
			}
		}
	}
	last, err := os.ReadFile(filepath.Join(dir, backend+".png"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(keep, "\n"), last
}

// demoSame runs the demo on a scene on the CPU backend and on another,
// and checks that both simulate exactly the same (the narrow phase's
// results are bit-identical): same work counts, same contacts, same last
// frame.
func demoSame(t *testing.T, scene []string, backend string, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	want, wantLast := demoRun(t, dir, "cpu", scene)
	got, gotLast := demoRun(t, dir, backend, scene, extra...)
	if want != got || want == "" {
		t.Errorf("cpu:\n%s\n%s:\n%s", want, backend, got)
	}
	if !bytes.Equal(wantLast, gotLast) {
		t.Error("the last frames differ")
	}
}

// TestDemoPluginBackend: the demo through the plugin binary simulates
// exactly what it simulates in-process.
func TestDemoPluginBackend(t *testing.T) {
	bin := buildPlugin(t)
	demoSame(t, []string{"-scene", "stack", "-n", "4", "-steps", "40", "-frame-every", "40"}, "plugin", "-plugin", bin)
}

// TestDemoGPUBackend: the demo on the GPU backend simulates exactly what
// it simulates on the CPU backend, 24 bunnies of the avalanche falling
// into a pile. It needs a CUDA device: without one it checks that the
// demo fails with a message that says so (or fails itself where
// IRTCD_REQUIRE_GPU is set).
func TestDemoGPUBackend(t *testing.T) {
	scene := []string{"-scene", "avalanche", "-n", "24", "-steps", "150", "-frame-every", "150"}
	be, err := optixbackend.New(narrow.Params{})
	if err != nil {
		if os.Getenv("IRTCD_REQUIRE_GPU") != "" {
			t.Fatalf("IRTCD_REQUIRE_GPU is set: %v", err)
		}
		code, _, stderr := runDemoArgs(t, append(scene, "-backend", "gpu", "-out", filepath.Join(t.TempDir(), "gpu.gif"))...)
		if code != exitFail || !strings.Contains(stderr, "no usable CUDA device") {
			t.Fatalf("-backend gpu without a device: exit %d, stderr:\n%s", code, stderr)
		}
		t.Logf("no device: %s", strings.TrimSpace(stderr))
		return
	}
	be.Close()
	demoSame(t, scene, "gpu")
}

// TestFindPlugin: -plugin PATH is used as given (a bare name as a file
// here); without it the binary is looked up next to the executable, then
// on PATH, and the error says how to build it.
func TestFindPlugin(t *testing.T) {
	bin := buildPlugin(t)
	if p, err := findPlugin(bin); err != nil || p != bin {
		t.Errorf("findPlugin(%s) = %s, %v", bin, p, err)
	}
	t.Chdir(filepath.Dir(bin))
	if p, err := findPlugin(pluginBinary); err != nil || p != "."+string(filepath.Separator)+pluginBinary {
		t.Errorf("findPlugin(%s) = %s, %v", pluginBinary, p, err)
	}
	t.Setenv("PATH", filepath.Dir(bin))
	if p, err := findPlugin(""); err != nil || p != bin {
		t.Errorf("on PATH: %s, %v", p, err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err := findPlugin("")
	if err == nil || !strings.Contains(err.Error(), "go build -o irtcd-plugin ./cmd/irtcd-plugin") {
		t.Errorf("not found: %v", err)
	}
}

// TestBenchBackend: bench -backend rejects an unknown backend as bad
// usage, and without a CUDA device -backend gpu fails before running any
// experiment, saying why.
func TestBenchBackend(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.md")
	code, _, stderr := runArgs(t, "", "bench", "-q", "-backend", "tpu", "-out", out)
	if code != exitUsage || !strings.Contains(stderr, `unknown backend "tpu"`) {
		t.Errorf("-backend tpu: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runArgs(t, "", "bench", "-q", "-gpu-min-batch", "0", "-out", out)
	if code != exitUsage || !strings.Contains(stderr, "only -backend gpu has a minimum batch") {
		t.Errorf("-gpu-min-batch on the CPU backend: exit %d, stderr %q", code, stderr)
	}
	if be, err := optixbackend.New(narrow.Params{}); err == nil {
		be.Close()
		t.Skip("a CUDA device is present: the bench would run on it")
	}
	for _, m := range []string{"-1", "0", "4096"} {
		code, _, stderr = runArgs(t, "", "bench", "-q", "-scale", "0.01", "-only", "tori", "-backend", "gpu", "-gpu-min-batch", m, "-out", out)
		if code != exitFail || !strings.Contains(stderr, "no usable CUDA device") {
			t.Errorf("-backend gpu -gpu-min-batch %s without a device: exit %d, stderr %q", m, code, stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a report was written")
	}
}

// TestBenchPluginBackend: bench -backend plugin runs the scene runs in
// the plugin binary and says so in the report.
func TestBenchPluginBackend(t *testing.T) {
	bin := buildPlugin(t)
	out := filepath.Join(t.TempDir(), "r.md")
	code, _, stderr := runArgs(t, "", "bench", "-q", "-scale", "0.02", "-only", "tori", "-backend", "plugin", "-plugin", bin,
		"-testdata", "../../testdata", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	rep, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rep), "scene runs on the plugin backend") {
		t.Errorf("the report does not name the backend:\n%.600s", rep)
	}
}

// TestDemoPluginGPUBackend: with IRTCD_PLUGIN_BACKEND=gpu the plugin
// serves the GPU backend: the demo simulates what it simulates in
// process where there is a device, and fails saying why where there is
// none.
func TestDemoPluginGPUBackend(t *testing.T) {
	bin := buildPlugin(t)
	t.Setenv("IRTCD_PLUGIN_BACKEND", "gpu")
	scene := []string{"-scene", "stack", "-n", "4", "-steps", "40", "-frame-every", "40"}
	be, err := optixbackend.New(narrow.Params{})
	if err != nil {
		if os.Getenv("IRTCD_REQUIRE_GPU") != "" {
			t.Fatalf("IRTCD_REQUIRE_GPU is set: %v", err)
		}
		code, _, stderr := runDemoArgs(t, append(scene, "-backend", "plugin", "-plugin", bin, "-out", filepath.Join(t.TempDir(), "p.gif"))...)
		if code != exitFail || !strings.Contains(stderr, "no usable CUDA device") {
			t.Fatalf("plugin on the GPU backend without a device: exit %d, stderr:\n%s", code, stderr)
		}
		t.Logf("no device: %s", strings.TrimSpace(stderr))
		return
	}
	be.Close()
	demoSame(t, scene, "plugin", "-plugin", bin)
}

// demo3DSame runs demo3d on the CPU backend and on another, and checks
// that both simulate exactly the same: the GIFs (every frame) are the
// same bytes.
func demo3DSame(t *testing.T, backend string, extra ...string) {
	t.Helper()
	dir := t.TempDir()
	var gifs [2][]byte
	for i, be := range []string{"cpu", backend} {
		out := filepath.Join(dir, be+".gif")
		args := []string{"-n", "8", "-steps", "90", "-frame-every", "10", "-width", "64", "-testdata", "../../testdata", "-backend", be, "-out", out}
		if i == 1 {
			args = append(args, extra...)
		}
		code, stdout, stderr := runDemo3DArgs(t, args...)
		if code != exitOK || !strings.Contains(stdout, "on "+be+"/predictive") {
			t.Fatalf("%s: exit %d, stdout:\n%s\nstderr:\n%s", be, code, stdout, stderr)
		}
		var err error
		if gifs[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(gifs[0], gifs[1]) {
		t.Errorf("the animations on cpu and %s differ", backend)
	}
}

// TestDemo3DPluginBackend: demo3d through the plugin binary simulates
// exactly what it simulates in-process, frame for frame.
func TestDemo3DPluginBackend(t *testing.T) {
	demo3DSame(t, "plugin", "-plugin", buildPlugin(t))
}

// TestDemo3DGPUBackend: demo3d on the GPU backend, frame for frame the CPU
// backend's. Without a CUDA device it checks that the demo fails with a
// message that says so (or fails itself where IRTCD_REQUIRE_GPU is set).
func TestDemo3DGPUBackend(t *testing.T) {
	be, err := optixbackend.New(narrow.Params{})
	if err != nil {
		if os.Getenv("IRTCD_REQUIRE_GPU") != "" {
			t.Fatalf("IRTCD_REQUIRE_GPU is set: %v", err)
		}
		code, _, stderr := runDemo3DArgs(t, "-n", "8", "-steps", "10", "-backend", "gpu", "-testdata", "../../testdata", "-out", filepath.Join(t.TempDir(), "gpu.gif"))
		if code != exitFail || !strings.Contains(stderr, "no usable CUDA device") {
			t.Fatalf("-backend gpu without a device: exit %d, stderr:\n%s", code, stderr)
		}
		return
	}
	be.Close()
	demo3DSame(t, "gpu")
}
