package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/gif"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/narrow/gltfmesh"
	"github.com/irtcd/irtcd/sim"
	"github.com/irtcd/irtcd/sim/scene3d"
	"github.com/irtcd/irtcd/sim/view3d"
)

// runDemoArgs runs "irtcd demo args..." and returns its exit status and
// outputs.
func runDemoArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCommand(t, "demo", args...)
}

// runCommand runs "irtcd name args..." and returns its exit status and
// outputs.
func runCommand(t *testing.T, name string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{name}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// checkDemoImages checks a demo's outputs: the GIF out with frames frames
// of w×h pixels, the PNG of its last frame beside it and the plot.
func checkDemoImages(t *testing.T, out, plot string, frames, w, h int) {
	t.Helper()
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := g.Image[0].Bounds(); len(g.Image) != frames || b.Dx() != w || b.Dy() != h {
		t.Errorf("GIF: %d frames of %v, want %d of %d×%d", len(g.Image), b, frames, w, h)
	}
	for _, p := range []string{strings.TrimSuffix(out, ".gif") + ".png", plot} {
		pf, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(pf); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		pf.Close()
	}
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
			// Frames at steps 0, 5, 10 and 12; the 2D renderer's height follows the scene.
			f, err := os.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := gif.DecodeConfig(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			checkDemoImages(t, out, plot, 4, 120, cfg.Height)
		})
	}
}

// TestDemoSolverIterations: the solver's iterations reach box2d: the
// header names them, and a stack settles differently with more of them.
func TestDemoSolverIterations(t *testing.T) {
	summary := func(args ...string) string {
		out := filepath.Join(t.TempDir(), "run.gif")
		code, stdout, stderr := runDemoArgs(t, append([]string{"-scene", "stack", "-n", "4", "-steps", "60", "-frame-every", "60", "-width", "64", "-out", out}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr:\n%s", args, code, stderr)
		}
		return stdout
	}
	def, more := summary(), summary("-velocity-iterations", "30", "-position-iterations", "10")
	if !strings.Contains(def, "box2d solver 8/3 iterations") || !strings.Contains(more, "box2d solver 30/10 iterations") {
		t.Errorf("headers do not name the iterations:\n%s\n%s", def, more)
	}
	depths := func(s string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "contact points") {
				return l
			}
		}
		t.Fatalf("no contact points line in\n%s", s)
		return ""
	}
	if depths(def) == depths(more) {
		t.Errorf("the same contact depths with 8/3 and 30/10 iterations: %q", depths(def))
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
		{[]string{"-gpu-min-batch", "0"}, `-gpu-min-batch 0: only -backend gpu has a minimum batch`},
		{[]string{"-backend", "gpu", "-gpu-min-batch", "-2"}, `-gpu-min-batch -2: want -1 (the default), 0 or more rays`},
		{[]string{"-scene", "nope"}, `-scene: sim: unknown scene "nope"`},
		{[]string{"-method", "fast"}, `-method:`},
		{[]string{"-n", "-1"}, `-n:`},
		{[]string{"-frame-every", "0"}, `-frame-every:`},
		{[]string{"-width", "3"}, `-width:`},
		{[]string{"-velocity-iterations", "0"}, `-velocity-iterations 0: want 1 or more`},
		{[]string{"-position-iterations", "-1"}, `-position-iterations -1: want 1 or more`},
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

// runDemo3DArgs runs "irtcd demo3d args..." and returns its exit status
// and outputs.
func runDemo3DArgs(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runCommand(t, "demo3d", args...)
}

// TestDemo3DWritesImages: a tiny run of every 3D scene, with each method,
// writes a GIF with the expected frames (width × 5/8), a PNG of the last
// frame and the plot, and prints the per-phase summary.
func TestDemo3DWritesImages(t *testing.T) {
	for _, tc := range []struct{ scene, method string }{
		{"avalanche", "predictive"}, {"spawner", "iterative"}, {"tori100", "standard"},
	} {
		t.Run(tc.scene, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "run.gif")
			plot := filepath.Join(dir, "plot.png")
			code, stdout, stderr := runDemo3DArgs(t, "-scene", tc.scene, "-n", "4", "-steps", "12", "-frame-every", "5",
				"-width", "120", "-workers", "2", "-method", tc.method, "-testdata", "../../testdata", "-out", out, "-plot", plot)
			if code != exitOK {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			for _, want := range []string{"scene " + tc.scene + ": 4 objects, 12 steps", "cpu/" + tc.method, "drawing 4 frames",
				"method " + tc.method, "narrow ms/step", "A free fall", "run.gif (4 frames)"} {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			for _, want := range []string{"12/12", "4/4"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("no finished progress bar %q on stderr:\n%q", want, stderr)
				}
			}
			checkDemoImages(t, out, plot, 4, 120, 75) // steps 0, 5, 10, 12; 120 × 5/8
		})
	}
}

// TestDemo3DMeshes: -mesh drops the given meshes (taken in turn; OBJ or
// STL) instead of the scene's, with no test meshes directory needed.
func TestDemo3DMeshes(t *testing.T) {
	dir := t.TempDir()
	torusSTL := writeFile(t, dir, "torus.stl", stlOf(t, "../../testdata/torus.obj"))
	out := filepath.Join(dir, "own.gif")
	code, stdout, stderr := runDemo3DArgs(t, "-mesh", "../../testdata/duck.obj", "-mesh", torusSTL, "-testdata", dir,
		"-n", "4", "-steps", "20", "-frame-every", "10", "-width", "64", "-out", out)
	if code != exitOK || !strings.Contains(stdout, "scene avalanche: 4 objects, 20 steps") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	_, _, stderr = runDemo3DArgs(t, "-n", "4", "-steps", "20", "-frame-every", "10", "-width", "64", "-testdata", "../../testdata", "-out", filepath.Join(dir, "bunnies.gif"))
	own, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	bunnies, err := os.ReadFile(filepath.Join(dir, "bunnies.gif"))
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if bytes.Equal(own, bunnies) {
		t.Error("the run with -mesh drew the same frames as the bunnies'")
	}
}

// TestDemo3DGLB: -glb writes the run as an animated glTF scene: the
// ground and the bodies, read back by narrow/gltfmesh one object each, and
// keyed at every frame of the GIF.
func TestDemo3DGLB(t *testing.T) {
	dir := t.TempDir()
	glb := filepath.Join(dir, "run.glb")
	code, stdout, stderr := runDemo3DArgs(t, "-testdata", "../../testdata", "-n", "4", "-steps", "30", "-frame-every", "10",
		"-width", "64", "-out", filepath.Join(dir, "run.gif"), "-glb", glb)
	if code != exitOK || !strings.Contains(stdout, "wrote "+glb+" (4 frames)") {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	objs, err := gltfmesh.LoadObjects(glb)
	if err != nil {
		t.Fatal(err)
	}
	bunnies := 0
	for _, o := range objs {
		if len(o.Triangles) == 902 && len(o.Vertices) == 453 {
			bunnies++
		}
	}
	if len(objs) != 5 || bunnies != 4 {
		t.Errorf("%d objects, %d of them bunnies; want the ground and 4 bunnies", len(objs), bunnies)
	}
}

// TestDemo3DCCD: -ccd turns on continuous collision detection (and
// -ccd-edges its edge sweep): the spawner's falling objects are swept and
// the run reports how many pairs were and how many motions were cut; a
// run without it reports nothing of the kind.
func TestDemo3DCCD(t *testing.T) {
	dir := t.TempDir()
	args := []string{"-scene", "spawner", "-n", "6", "-steps", "90", "-frame-every", "45", "-width", "64", "-workers", "2",
		"-testdata", "../../testdata", "-out", filepath.Join(dir, "run.gif")}
	for _, tc := range []struct {
		flags []string
		what  string
	}{
		{nil, ""},
		{[]string{"-ccd", "0.05"}, "vertices"},
		{[]string{"-ccd", "0.05", "-ccd-edges"}, "vertices and edges"},
	} {
		code, stdout, stderr := runDemo3DArgs(t, append(tc.flags, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr:\n%s", tc.flags, code, stderr)
		}
		i := strings.Index(stdout, "continuous collision detection")
		if tc.what == "" {
			if i >= 0 {
				t.Errorf("without -ccd: %s", stdout[i:])
			}
			continue
		}
		var swept, cut int
		if i < 0 {
			t.Fatalf("%v: no report of continuous collision detection:\n%s", tc.flags, stdout)
		}
		if _, err := fmt.Sscanf(stdout[i:], "continuous collision detection ("+tc.what+"): %d pairs swept, %d motions cut", &swept, &cut); err != nil {
			t.Fatalf("%v: %v in %q", tc.flags, err, stdout[i:])
		}
		t.Logf("%v: %d pairs swept, %d motions cut", tc.flags, swept, cut)
		if swept == 0 {
			t.Errorf("%v: no pair swept", tc.flags)
		}
	}
}

// TestDemo3DBadInput: bad flags exit with status 2 and one line on
// stderr, before simulating anything.
func TestDemo3DBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scene", "cup"}, `-scene: scene3d: unknown scene "cup"`},
		{[]string{"-testdata", dir}, `-testdata: scene3d: test meshes not found`},
		{[]string{"-mesh", filepath.Join(dir, "missing.obj")}, `-mesh: scene3d: open ` + filepath.Join(dir, "missing.obj")},
		{[]string{"-mesh", "../../testdata/bunny.obj", "-mesh", "demo_test.go"}, `-mesh: scene3d: demo_test.go:`},
		{[]string{"-method", "fast"}, `-method:`},
		{[]string{"-n", "-1"}, `-n:`},
		{[]string{"-width", "5000"}, `-width:`},
		{[]string{"-out", filepath.Join(dir, "x.png")}, `must not end in .png`},
		{[]string{"-backend", "tpu"}, `-backend: unknown backend "tpu"`},
		{[]string{"-backend", "plugin", "-gpu-min-batch", "100"}, `-gpu-min-batch 100: only -backend gpu has a minimum batch`},
		{[]string{"-glb", filepath.Join(dir, "run.gltf")}, `-glb ` + filepath.Join(dir, "run.gltf") + `: want a .glb file`},
		{[]string{"-ccd", "-0.1"}, `-ccd -0.1: want 0 (off) or a finite fraction`},
		{[]string{"-ccd", "NaN"}, `-ccd NaN: want 0 (off)`},
		{[]string{"-ccd", "+Inf"}, `-ccd +Inf: want 0 (off)`},
		{[]string{"-ccd-edges"}, `-ccd-edges: needs -ccd`},
		{[]string{"extra"}, `unexpected argument "extra"`},
	} {
		code, stdout, stderr := runDemo3DArgs(t, tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("bad input wrote %d files", len(entries))
	}
}

// TestDemo3DHelp: -h prints the usage with the scenes and flags.
func TestDemo3DHelp(t *testing.T) {
	code, _, stderr := runDemo3DArgs(t, "-h")
	if code != exitUsage {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{"usage: irtcd demo3d", "avalanche", "spawner", "tori100", "-testdata", "-frame-every", "-backend", "-ccd F", "-ccd-edges"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

// TestDrawFrames: frames drawn on several goroutines reach the animation
// in order; a frame that cannot be drawn stops the drawing there, and so
// does a cancelled context.
func TestDrawFrames(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	snaps := make([]scene3d.Snapshot, 6)
	for i := range snaps {
		snaps[i] = scene3d.Snapshot{
			Instances: []view3d.Instance{{Shape: box, Pose: narrow.Pose{Pos: mgl64.Vec3{float64(i), 0, 0}, Rot: mgl64.QuatIdent()}}},
			Camera:    view3d.Camera{Eye: mgl64.Vec3{0, 3, 12}, Target: mgl64.Vec3{2.5, 0, 0}, Up: mgl64.Vec3{0, 1, 0}},
			Floor:     -1,
		}
	}
	newAnim := func() *sim.Animation {
		a, err := sim.NewAnimationPalette(5, scene3d.Palette())
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	quiet := newBar(len(snaps), "frames", "frames", io.Discard)

	anim := newAnim()
	if err := drawFrames(context.Background(), anim, snaps, 64, 40, quiet); err != nil {
		t.Fatal(err)
	}
	if anim.Len() != len(snaps) {
		t.Fatalf("%d frames, want %d", anim.Len(), len(snaps))
	}
	var r view3d.Renderer
	want, err := snaps[len(snaps)-1].Draw(&r, 64, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(anim.Last().Pix, want.Pix) {
		t.Error("the last frame added is not the last snapshot's picture")
	}

	bad := slices.Clone(snaps)
	bad[2].Camera.Eye = bad[2].Camera.Target // no direction to look in
	anim = newAnim()
	if err := drawFrames(context.Background(), anim, bad, 64, 40, quiet); err == nil || !strings.Contains(err.Error(), "frame 2") {
		t.Errorf("error %v, want one naming frame 2", err)
	}
	if anim.Len() != 2 {
		t.Errorf("%d frames kept, want the 2 before the bad one", anim.Len())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	anim = newAnim()
	if err := drawFrames(ctx, anim, snaps, 64, 40, quiet); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if anim.Len() != 0 {
		t.Errorf("cancelled before drawing: %d frames", anim.Len())
	}
}

// TestDemoConvex: -convex runs the scene with box2d's own convex pieces:
// no irtcd pair, and box2d's touching points in the summary.
func TestDemoConvex(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.gif")
	code, stdout, stderr := runDemoArgs(t, "-convex", "-n", "2", "-steps", "40", "-width", "120", "-out", out)
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	if !regexp.MustCompile(`(?m)^pairs\s+0\s`).MatchString(stdout) {
		t.Errorf("irtcd pairs in a run without irtcd shapes:\n%s", stdout)
	}
	if !regexp.MustCompile(`(?m)^world contacts\s+[1-9][0-9]* points/step`).MatchString(stdout) {
		t.Errorf("no touching points reported:\n%s", stdout)
	}
}
