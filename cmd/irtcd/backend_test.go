package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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

// TestDemoPluginBackend: the demo through the plugin binary simulates
// exactly what it simulates in-process (the narrow phase's results are
// bit-identical): same work counts, same contacts, same last frame.
func TestDemoPluginBackend(t *testing.T) {
	bin := buildPlugin(t)
	dir := t.TempDir()
	outputs := map[string]string{}
	for _, backend := range []string{"cpu", "plugin"} {
		args := []string{"-scene", "stack", "-n", "4", "-steps", "40", "-width", "64", "-frame-every", "40",
			"-backend", backend, "-out", filepath.Join(dir, backend+".gif")}
		if backend == "plugin" {
			args = append(args, "-plugin", bin)
		}
		code, stdout, stderr := runDemoArgs(t, args...)
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
		outputs[backend] = strings.Join(keep, "\n")
	}
	if outputs["cpu"] != outputs["plugin"] || outputs["cpu"] == "" {
		t.Errorf("in-process:\n%s\nplugin:\n%s", outputs["cpu"], outputs["plugin"])
	}
	a, err := os.ReadFile(filepath.Join(dir, "cpu.png"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "plugin.png"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the last frames differ")
	}
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
