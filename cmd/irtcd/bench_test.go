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

// TestBenchPictures: -pictures redraws the chosen scenes' pictures into the
// plots directory, with a progress bar, and writes no report; a scene
// without pictures is a usage error.
func TestBenchPictures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.md")
	code, stdout, stderr := runArgs(t, "", "bench", "-pictures", "-scale", "0.02", "-only", "tori", "-testdata", "../../testdata", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if n := strings.Count(stdout, "wrote "+filepath.Join(dir, "results", "tori-step")); n != 3 {
		t.Errorf("%d pictures reported, want 3:\n%s", n, stdout)
	}
	files, err := filepath.Glob(filepath.Join(dir, "results", "tori-step*.png"))
	if err != nil || len(files) != 3 {
		t.Errorf("pictures written: %v (%v)", files, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("-pictures wrote a report")
	}
	if !strings.Contains(stderr, "tori") {
		t.Errorf("no progress on stderr: %q", stderr)
	}
	code, _, stderr = runArgs(t, "", "bench", "-pictures", "-q", "-scale", "0.02", "-only", "deviation", "-testdata", "../../testdata", "-out", out)
	if code != exitUsage || !strings.Contains(stderr, `no pictures for "deviation"`) {
		t.Errorf("-pictures -only deviation: exit %d, stderr %q", code, stderr)
	}
}
