package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBenchReport: a small bench on the CPU backend writes a report whose
// header names the machine, its speed at both ends of the run, the commit
// and Go; without the test meshes it fails before any experiment, naming
// the file it looked for.
func TestBenchReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.md")
	code, stdout, stderr := runArgs(t, "", "bench", "-q", "-scale", "0.02", "-only", "deviation", "-testdata", "../../testdata", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "wrote "+out+" (1 sections") {
		t.Errorf("stdout %q", stdout)
	}
	rep, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile(`(?s)- machine: [^\n]+ logical cores[^\n]*\n- machine speed at the start / end of the run: [0-9.]+ M rays/s, [0-9]+ ns a load / [0-9.]+ M rays/s, [0-9]+ ns a load \(one core[^\n]*over 64 MiB[^\n]*\n- commit: [^\n]+\n- Go: go`)
	if !head.Match(rep) {
		t.Errorf("report header:\n%.900s", rep)
	}

	missing := filepath.Join(dir, "nothing")
	code, _, stderr = runArgs(t, "", "bench", "-q", "-scale", "0.02", "-only", "deviation", "-testdata", missing, "-out", filepath.Join(dir, "s.md"))
	if code != exitFail || !strings.Contains(stderr, "speed probe") || !strings.Contains(stderr, filepath.Join(missing, "bunny.obj")) {
		t.Errorf("without meshes: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.md")); err == nil {
		t.Error("a report was written without meshes")
	}
}
