package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim"
)

const demoDoc = `usage: irtcd demo [-scene NAME] [-n N] [-steps N] [-method M] [-out FILE.gif] [flags]

Simulates a 2D box2d scene whose concave shapes collide through irtcd, shows
a progress bar on standard error, writes an animated GIF of the run and a
PNG of its last frame (FILE.gif and FILE.png), and prints a summary of the
narrow phase's work per step on standard output: time, rays by kind, pairs
by algorithm, contact points and penetration depths. With -convex the
concave objects are built as box2d's own convex pieces instead, as box2d
users without irtcd build them: the same scene without irtcd, to compare.

Scenes:
%s
Interrupting the run (Ctrl-C) stops it after the current step; the images
of the steps done are still written, and the exit status is 1.

flags:
`

// demoFlags are the flags that demo and demo3d share.
type demoFlags struct {
	n, steps, workers, every, width *int
	gpuMin                          *int
	backend, pluginPath, method     *string
	out, plotFile                   *string
	seed                            *uint64
}

// addDemoFlags defines the shared flags in fs; out is -out's default.
func addDemoFlags(fs *flag.FlagSet, out string, width int) *demoFlags {
	return &demoFlags{
		n:          fs.Int("n", 0, "number of objects (0: the scene's default)"),
		steps:      fs.Int("steps", 0, "number of steps of 1/60 s (0: the scene's default for its size)"),
		backend:    fs.String("backend", "cpu", "narrow-phase `backend`: cpu (in-process), gpu (rays traced by CUDA kernels, the rest as cpu) or plugin (cpu, in an irtcd-plugin process)"),
		pluginPath: fs.String("plugin", "", "plugin binary `PATH` for -backend plugin (default: "+pluginBinary+" next to irtcd, then on PATH)"),
		gpuMin:     fs.Int("gpu-min-batch", -1, gpuMinUsage),
		method:     fs.String("method", "predictive", "`algorithm`: standard, iterative or predictive"),
		workers:    fs.Int("workers", 0, "CPU backend threads, in-process or in the plugin (0: every core)"),
		seed:       fs.Uint64("seed", 1, "seed of the scene's random choices"),
		out:        fs.String("out", out, "animated GIF `FILE`; the last frame goes to the same name with .png"),
		every:      fs.Int("frame-every", 4, "record a frame every `N` steps"),
		width:      fs.Int("width", width, "frame width in pixels"),
		plotFile:   fs.String("plot", "", "also plot the time per step as a PNG `FILE`"),
	}
}

// demoSetup is what check makes of the shared flags.
type demoSetup struct {
	binary  string // plugin binary, or ""
	method  narrow.Method
	pngPath string // the last frame's file
}

// check validates the shared flags (bad input, before anything runs).
func (f *demoFlags) check() (demoSetup, error) {
	var d demoSetup
	var err error
	if d.binary, err = checkBackend(*f.backend, *f.pluginPath, *f.gpuMin); err != nil {
		return d, err
	}
	if d.method, err = narrow.ParseMethod(*f.method); err != nil {
		return d, fmt.Errorf("-method: %w", err)
	}
	switch {
	case *f.n < 0:
		return d, fmt.Errorf("-n: %d objects", *f.n)
	case *f.steps < 0:
		return d, fmt.Errorf("-steps: %d", *f.steps)
	case *f.every < 1:
		return d, fmt.Errorf("-frame-every: %d, want at least 1", *f.every)
	case *f.width < 16 || *f.width > 4096:
		return d, fmt.Errorf("-width: %d pixels, want 16 to 4096", *f.width)
	case *f.workers < 0:
		return d, fmt.Errorf("-workers: %d", *f.workers)
	case *f.out == "":
		return d, errors.New("-out: empty file name")
	}
	d.pngPath = strings.TrimSuffix(*f.out, filepath.Ext(*f.out)) + ".png"
	if d.pngPath == *f.out {
		return d, fmt.Errorf("-out %s: the GIF's name must not end in .png (the last frame goes there)", *f.out)
	}
	for _, path := range []string{*f.out, *f.plotFile} {
		if path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return d, fmt.Errorf("%s: no directory %s to write to", path, filepath.Dir(path))
		}
	}
	return d, nil
}

// parse parses a demo command's arguments into fs (where f's flags are)
// and checks the shared flags. It returns flag.ErrHelp after printing the
// help, and errors that are bad input.
func (f *demoFlags) parse(fs *flag.FlagSet, args []string, stderr io.Writer, help func() string) (demoSetup, error) {
	if err := parseFlags(fs, args, stderr, help); err != nil {
		return demoSetup{}, err
	}
	return f.check()
}

// sizes returns the objects and steps of a run: the flags', else the
// scene's defaults (defaultN objects, steps(n) steps).
func (f *demoFlags) sizes(defaultN int, steps func(n int) int) (n, total int) {
	n, total = *f.n, *f.steps
	if n == 0 {
		n = defaultN
	}
	if total == 0 {
		total = steps(n)
	}
	return n, total
}

// demoLogger returns the demos' logger: warnings and errors to stderr.
func demoLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// workersUsed returns the number of CPU backend workers a run used.
func (f *demoFlags) workersUsed() int {
	if *f.workers == 0 {
		return runtime.GOMAXPROCS(0) // the CPU backend's default (the plugin's too, on this machine)
	}
	return *f.workers
}

// newBar returns a progress bar of total items (its string: "steps",
// "frames") named name.
func newBar(total int, name, items string, stderr io.Writer) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(name),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString(items),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }),
	)
}

// writeImages writes a run's animation (GIF and last frame) and, with
// -plot, its time plot.
func (f *demoFlags) writeImages(d demoSetup, anim *sim.Animation, plot func(io.Writer) error) error {
	if anim.Len() > 0 {
		if err := writeOutput(*f.out, anim.WriteGIF); err != nil {
			return err
		}
		if err := writeOutput(d.pngPath, anim.WritePNG); err != nil {
			return err
		}
	}
	if *f.plotFile != "" {
		if err := writeOutput(*f.plotFile, plot); err != nil {
			return err
		}
	}
	return nil
}

// printWritten names the files writeImages wrote.
func (f *demoFlags) printWritten(w io.Writer, d demoSetup, anim *sim.Animation) {
	if anim.Len() == 0 {
		return
	}
	fmt.Fprintf(w, "wrote %s (%d frames) and %s", *f.out, anim.Len(), d.pngPath)
	if *f.plotFile != "" {
		fmt.Fprintf(w, " and %s", *f.plotFile)
	}
	fmt.Fprintln(w)
}

// gifDelay returns the GIF frame delay (1/100 s) that plays frames taken
// every `every` steps of 1/60 s in real time.
func gifDelay(every int) int { return max(2, (every*100+30)/60) }

// runDemo is the demo subcommand.
func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	scene := fs.String("scene", "avalanche", "`scene` to run: "+strings.Join(sim.SceneNames(), ", "))
	convex := fs.Bool("convex", false, "build the concave objects as box2d's own convex polygons (sim.ConvexPieces, up to 8 vertices each) instead of irtcd shapes: the scene without irtcd, for comparison (much slower)")
	f := addDemoFlags(fs, "demo.gif", sim.DefaultWidth)
	velIt := fs.Int("velocity-iterations", sim.DefaultVelocityIterations, "box2d's velocity solver iterations a step (more let large piles fall asleep)")
	posIt := fs.Int("position-iterations", sim.DefaultPositionIterations, "box2d's position solver iterations a step")

	fail := failer(stderr, "demo")
	help := func() string {
		var list strings.Builder
		for _, s := range sim.Scenes() {
			fmt.Fprintf(&list, "  %-10s %s (default -n %d)\n", s.Name, s.Doc, s.DefaultN)
		}
		return fmt.Sprintf(demoDoc, list.String())
	}
	d, err := f.parse(fs, args, stderr, help)
	if errors.Is(err, flag.ErrHelp) {
		return exitUsage
	} else if err != nil {
		return fail(exitUsage, "%v", err)
	}
	sc, err := sim.SceneByName(*scene)
	if err != nil {
		return fail(exitUsage, "-scene: %v", err)
	}
	for _, it := range []struct {
		name string
		n    int
	}{{"velocity-iterations", *velIt}, {"position-iterations", *posIt}} {
		if it.n < 1 {
			return fail(exitUsage, "-%s %d: want 1 or more", it.name, it.n)
		}
	}

	logger := demoLogger(stderr)
	be, err := newBackend(*f.backend, d.binary, narrow.Params{Method: d.method, ManifoldSize: box2dadapter.ManifoldSize}, *f.workers, *f.gpuMin, logger)
	if err != nil {
		return fail(exitFail, "backend: %v", err)
	}
	defer be.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	size, total := f.sizes(sc.DefaultN, sc.Steps)
	bar := newBar(total, sc.Name, "steps", stderr)
	anim := sim.NewAnimation(gifDelay(*f.every))
	renderer := &sim.Renderer{Width: *f.width}

	tr, runErr := sim.Run(ctx, sc, sim.Options{
		Params:             sim.Params2D{N: size, Seed: *f.seed, Convex: *convex},
		Steps:              total,
		VelocityIterations: *velIt,
		PositionIterations: *posIt,
		Backend:            be,
		Logger:             logger,
		FrameEvery:         *f.every,
		OnFrame:            anim.Record(renderer),
		OnProgress:         func(step, _ int) { bar.Set(step) },
	})
	if runErr != nil {
		bar.Exit()
		fmt.Fprintln(stderr)
		if tr == nil {
			return fail(exitFail, "%v", runErr)
		}
	}

	code := exitOK
	if runErr != nil {
		code = fail(exitFail, "%v", runErr)
	}
	if err := f.writeImages(d, anim, func(w io.Writer) error { return sim.WritePlot(w, tr) }); err != nil {
		return fail(exitFail, "%v", err)
	}
	s := tr.Summary()
	fmt.Fprintf(stdout, "scene %s: %d objects, %d steps (%.2f s simulated) on %s/%s with %d workers, box2d solver %d/%d iterations, %.2f s wall\n",
		tr.Scene, tr.N, s.Steps, float64(s.Steps)*tr.Dt, *f.backend, d.method, f.workersUsed(), *velIt, *posIt, tr.Wall.Seconds())
	if _, err := s.WriteTo(stdout); err != nil {
		return fail(exitFail, "write summary: %v", err)
	}
	f.printWritten(stdout, d, anim)
	return code
}

// writeOutput creates path and writes it with write.
func writeOutput(path string, write func(io.Writer) error) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return w.Flush()
}
