package main

import (
	"bytes"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runDemoArgs runs "irtcd demo args..." and returns its exit status and
// outputs.
func runDemoArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"demo"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestDemoWritesImages: a tiny run of every scene writes a GIF with the
// expected frames, a PNG of the last frame and the plot, and prints the
// summary.
func TestDemoWritesImages(t *testing.T) {
	for _, scene := range []string{"avalanche", "spawner", "stack", "cup"} {
		t.Run(scene, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "run.gif")
			plot := filepath.Join(dir, "plot.png")
			code, stdout, stderr := runDemoArgs(t, "-scene", scene, "-n", "3", "-steps", "12", "-frame-every", "5",
				"-width", "120", "-workers", "2", "-method", "iterative", "-out", out, "-plot", plot)
			if code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			for _, want := range []string{"scene " + scene + ": 3 objects, 12 steps", "narrow phase", "rays", "pairs", "contact points", "run.gif (4 frames)"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, "12/12") {
				t.Errorf("no finished progress bar on stderr:\n%q", stderr)
			}
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			g, err := gif.DecodeAll(f)
			if err != nil {
				t.Fatal(err)
			}
			if len(g.Image) != 4 || g.Image[0].Bounds().Dx() != 120 {
				t.Errorf("GIF: %d frames of %v, want 4 (steps 0, 5, 10, 12) of width 120", len(g.Image), g.Image[0].Bounds())
			}
			for _, p := range []string{filepath.Join(dir, "run.png"), plot} {
				pf, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := png.Decode(pf); err != nil {
					t.Errorf("%s: %v", p, err)
				}
				pf.Close()
			}
		})
	}
}

// TestDemoBadInput: bad flags exit with status 2 and one line on stderr,
// before simulating anything.
func TestDemoBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-backend", "tpu"}, `-backend: unknown backend "tpu" (want cpu, gpu, plugin)`},
		{[]string{"-backend", "plugin", "-plugin", filepath.Join(dir, "missing")}, `no such plugin binary; build it with 'go build -o ` + filepath.Join(dir, "missing") + ` ./cmd/irtcd-plugin'`},
		{[]string{"-plugin", filepath.Join(dir, "missing")}, `only -backend plugin runs a plugin`},
		{[]string{"-scene", "nope"}, `-scene: sim: unknown scene "nope"`},
		{[]string{"-method", "fast"}, `-method:`},
		{[]string{"-n", "-1"}, `-n:`},
		{[]string{"-frame-every", "0"}, `-frame-every:`},
		{[]string{"-width", "3"}, `-width:`},
		{[]string{"-out", filepath.Join(dir, "x.png")}, `must not end in .png`},
		{[]string{"-bogus"}, `flag provided but not defined`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, stdout, stderr := runDemoArgs(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input wrote %d files", len(entries))
	}
}

// TestDemoHelp: -h prints the usage with the scenes and flags.
func TestDemoHelp(t *testing.T) {
	code, _, stderr := runDemoArgs(t, "-h")
	if code != exitUsage {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"usage: irtcd demo", "avalanche", "spawner", "stack", "cup", "-frame-every", "-backend"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestDemoUnwritableOutput: an output in a missing directory is bad input
// (exit 2, before simulating); one that cannot be created exits 1.
func TestDemoUnwritableOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "missing", "run.gif")
	code, stdout, stderr := runDemoArgs(t, "-scene", "stack", "-n", "2", "-steps", "2", "-width", "32", "-out", out)
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "no directory") {
		t.Errorf("missing directory: exit %d, stderr %q", code, stderr)
	}
	// A directory where the PNG should go: the GIF is written, the PNG fails.
	if err := os.Mkdir(filepath.Join(dir, "run.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runDemoArgs(t, "-scene", "stack", "-n", "2", "-steps", "2", "-width", "32", "-out", filepath.Join(dir, "run.gif"))
	if code != exitFail || !strings.Contains(stderr, "run.png") {
		t.Errorf("unwritable PNG: exit %d, stderr %q", code, stderr)
	}
}
