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
by algorithm, contact points and penetration depths.

Scenes:
%s
Interrupting the run (Ctrl-C) stops it after the current step; the images
of the steps done are still written, and the exit status is 1.

flags:
`

// runDemo is the demo subcommand.
func runDemo(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	scene := fs.String("scene", "avalanche", "`scene` to run: "+strings.Join(sim.SceneNames(), ", "))
	n := fs.Int("n", 0, "number of objects (0: the scene's default)")
	steps := fs.Int("steps", 0, "number of steps of 1/60 s (0: the scene's default for its size)")
	backend := fs.String("backend", "cpu", "narrow-phase `backend`: cpu (in-process), gpu (rays traced by CUDA kernels, the rest as cpu) or plugin (cpu, in an irtcd-plugin process)")
	pluginPath := fs.String("plugin", "", "plugin binary `PATH` for -backend plugin (default: "+pluginBinary+" next to irtcd, then on PATH)")
	method := fs.String("method", "predictive", "`algorithm`: standard, iterative or predictive")
	workers := fs.Int("workers", 0, "CPU backend threads, in-process or in the plugin (0: every core)")
	seed := fs.Uint64("seed", 1, "seed of the scene's random choices")
	out := fs.String("out", "demo.gif", "animated GIF `FILE`; the last frame goes to the same name with .png")
	every := fs.Int("frame-every", 4, "record a frame every `N` steps")
	width := fs.Int("width", sim.DefaultWidth, "frame width in pixels")
	plotFile := fs.String("plot", "", "also plot the time per step as a PNG `FILE`")

	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "irtcd demo: %s\n", oneLine(fmt.Sprintf(format, a...)))
		return code
	}
	help := func() string {
		var list strings.Builder
		for _, s := range sim.Scenes() {
			fmt.Fprintf(&list, "  %-10s %s (default -n %d)\n", s.Name, s.Doc, s.DefaultN)
		}
		return fmt.Sprintf(demoDoc, list.String())
	}
	if err := parseFlags(fs, args, stderr, help); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitUsage
		}
		return fail(exitUsage, "%v", err)
	}
	sc, err := sim.SceneByName(*scene)
	if err != nil {
		return fail(exitUsage, "-scene: %v", err)
	}
	binary, err := checkBackend(*backend, *pluginPath)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	m, err := narrow.ParseMethod(*method)
	if err != nil {
		return fail(exitUsage, "-method: %v", err)
	}
	switch {
	case *n < 0:
		return fail(exitUsage, "-n: %d objects", *n)
	case *steps < 0:
		return fail(exitUsage, "-steps: %d", *steps)
	case *every < 1:
		return fail(exitUsage, "-frame-every: %d, want at least 1", *every)
	case *width < 16 || *width > 4096:
		return fail(exitUsage, "-width: %d pixels, want 16 to 4096", *width)
	case *workers < 0:
		return fail(exitUsage, "-workers: %d", *workers)
	case *out == "":
		return fail(exitUsage, "-out: empty file name")
	}
	pngPath := strings.TrimSuffix(*out, filepath.Ext(*out)) + ".png"
	if pngPath == *out {
		return fail(exitUsage, "-out %s: the GIF's name must not end in .png (the last frame goes there)", *out)
	}

	for _, path := range []string{*out, *plotFile} {
		if path == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
			return fail(exitUsage, "%s: no directory %s to write to", path, filepath.Dir(path))
		}
	}

	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	be, err := newBackend(*backend, binary, narrow.Params{Method: m, ManifoldSize: box2dadapter.ManifoldSize}, *workers, logger)
	if err != nil {
		return fail(exitFail, "backend: %v", err)
	}
	defer be.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	size := *n
	if size == 0 {
		size = sc.DefaultN
	}
	total := *steps
	if total == 0 {
		total = sc.Steps(size)
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription(sc.Name),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("steps"),
		progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(stderr) }),
	)
	anim := sim.NewAnimation(max(2, (*every*100+30)/60)) // the GIF plays in real time (GIF delays are in 1/100 s)
	renderer := &sim.Renderer{Width: *width}

	tr, runErr := sim.Run(ctx, sc, sim.Options{
		Params:     sim.Params2D{N: size, Seed: *seed},
		Steps:      total,
		Backend:    be,
		Logger:     logger,
		FrameEvery: *every,
		OnFrame:    anim.Record(renderer),
		OnProgress: func(step, _ int) { bar.Set(step) },
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
	if anim.Len() > 0 {
		if err := writeOutput(*out, anim.WriteGIF); err != nil {
			return fail(exitFail, "%v", err)
		}
		if err := writeOutput(pngPath, anim.WritePNG); err != nil {
			return fail(exitFail, "%v", err)
		}
	}
	if *plotFile != "" {
		if err := writeOutput(*plotFile, func(w io.Writer) error { return sim.WritePlot(w, tr) }); err != nil {
			return fail(exitFail, "%v", err)
		}
	}

	s := tr.Summary()
	workersUsed := *workers
	if workersUsed == 0 {
		workersUsed = runtime.GOMAXPROCS(0) // the CPU backend's default (the plugin's too, on this machine)
	}
	fmt.Fprintf(stdout, "scene %s: %d objects, %d steps (%.2f s simulated) on %s/%s with %d workers, %.2f s wall\n",
		tr.Scene, tr.N, s.Steps, float64(s.Steps)*tr.Dt, *backend, m, workersUsed, tr.Wall.Seconds())
	if _, err := s.WriteTo(stdout); err != nil {
		return fail(exitFail, "write summary: %v", err)
	}
	if anim.Len() > 0 {
		fmt.Fprintf(stdout, "wrote %s (%d frames) and %s", *out, anim.Len(), pngPath)
		if *plotFile != "" {
			fmt.Fprintf(stdout, " and %s", *plotFile)
		}
		fmt.Fprintln(stdout)
	}
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
