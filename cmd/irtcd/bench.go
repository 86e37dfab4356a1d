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
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend"
	"github.com/irtcd/irtcd/sim/experiment"
)

const benchDoc = `usage: irtcd bench [-scale S] [-only NAME,...] [-out FILE.md] [-pictures] [flags]

Runs the experiments of the IRTCD papers on irtcd (3D rigid-body scenes, the
re-projection test) with a progress bar on standard error, and writes a
Markdown report with each paper's table next to ours (same rows, same
units, the paper's figure, ours and the ratio) and PNG plots of the
per-step curves. -scale 1 is the papers' size; smaller scales shrink the
scenes for a quick look.

Experiments:
%s
flags:
`

// runBench is the bench subcommand.
func runBench(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	scale := fs.Float64("scale", 1, "size of the experiments, in (0, 1]: 1 is the papers' size")
	only := fs.String("only", "", "comma-separated `names` of the experiments to run (default: all)")
	out := fs.String("out", "docs/RESULTS.md", "Markdown report `FILE`")
	plots := fs.String("plots", "", "`DIR` for the PNG plots (default: results/ next to the report)")
	seed := fs.Uint64("seed", 1, "seed of the scenes' random choices")
	workers := fs.Int("workers", 0, "CPU backend threads (0: every core)")
	testdata := fs.String("testdata", "testdata", "`DIR` holding bunny.obj, torus.obj, teddy.obj and duck.obj")
	quiet := fs.Bool("q", false, "no progress bar")
	backend := fs.String("backend", "cpu", "narrow-phase `backend` of the 3D scene runs: cpu, gpu or plugin (the references stay on cpu)")
	pluginPath := fs.String("plugin", "", "plugin binary `PATH` for -backend plugin (default: "+pluginBinary+" next to irtcd, then on PATH)")
	gpuMin := fs.Int("gpu-min-batch", -1, gpuMinUsage)
	picturesOnly := fs.Bool("pictures", false, "only redraw the pictures of the 3D scenes ("+strings.Join(experiment.PictureScenes, ", ")+"; -only picks some)\nfrom the runs the experiments draw them from, into the plots directory; no report")
	fail := failer(stderr, "bench")
	help := func() string {
		var list strings.Builder
		for _, e := range experiment.Experiments() {
			fmt.Fprintf(&list, "  %-*s %s\n", nameWidth(), e.Name, e.Doc)
		}
		return fmt.Sprintf(benchDoc, list.String())
	}
	if err := parseFlags(fs, args, stderr, help); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitUsage
		}
		return fail(exitUsage, "%v", err)
	}
	binary, err := checkBackend(*backend, *pluginPath, *gpuMin)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	var names []string
	if *only != "" {
		names = strings.Split(*only, ",")
	}
	reportDir := filepath.Dir(*out)
	if *plots == "" {
		*plots = filepath.Join(reportDir, "results")
	}
	cfg := experiment.Config{
		Scale: *scale, Seed: *seed, Workers: *workers, TestData: *testdata,
		PlotDir: *plots, ReportDir: reportDir,
		Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	mach := machine()
	if *backend != "cpu" {
		// Open one first, so that a missing device or plugin is reported
		// before any experiment runs, and the report names the device.
		be, err := newBackend(*backend, binary, narrow.Params{}, *workers, *gpuMin, cfg.Logger)
		if err != nil {
			return fail(exitFail, "backend: %v", err)
		}
		mach += "; narrow phase of the scene runs on the " + *backend + " backend"
		if g, ok := be.(*optixbackend.Backend); ok {
			mach += " (" + g.Device() + ")"
		}
		be.Close()
		cfg.NewBackend = func(p narrow.Params) (narrow.Backend, error) {
			return newBackend(*backend, binary, p, *workers, *gpuMin, cfg.Logger)
		}
	}
	var bar *progressbar.ProgressBar
	cur := ""
	finishBar := func() {
		if bar != nil {
			bar.Finish()
			fmt.Fprintln(stderr)
		}
	}
	if !*quiet {
		cfg.Progress = func(name string, done, total int) {
			if bar == nil || name != cur {
				finishBar()
				cur = name
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
					progressbar.OptionSetDescription(fmt.Sprintf("%-*s", nameWidth(), name)),
					progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true),
					progressbar.OptionThrottle(100_000_000))
			}
			bar.Set(done)
		}
	}
	// The revision the experiments run, read before they start: a binary
	// without VCS stamps (go run, -buildvcs=false) asks git, whose HEAD
	// may move during a half-hour bench.
	rev := commit()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *picturesOnly {
		pics, err := experiment.Pictures(ctx, cfg, names)
		finishBar()
		for _, p := range pics {
			fmt.Fprintf(stdout, "wrote %s: %s\n", filepath.Join(reportDir, filepath.FromSlash(p.Path)), p.Caption)
		}
		switch {
		case errors.Is(err, experiment.ErrBadConfig):
			return fail(exitUsage, "%v", err)
		case err != nil:
			return fail(exitFail, "%v", err)
		}
		return exitOK
	}
	probe, err := narrow.LoadOBJ(filepath.Join(*testdata, "bunny.obj"))
	if err != nil {
		return fail(exitFail, "speed probe: %v", err)
	}
	speed := func() (experiment.Speed, error) {
		return experiment.MeasureSpeed(ctx, probe, speedRays, speedWords)
	}
	start, err := speed()
	var sections []*experiment.Section
	if err == nil {
		sections, err = experiment.Run(ctx, cfg, names)
	}
	var end experiment.Speed
	if err == nil {
		end, err = speed()
	}
	finishBar()
	if err != nil {
		if errors.Is(err, experiment.ErrBadConfig) {
			return fail(exitUsage, "%v", err)
		}
		return fail(exitFail, "%v", err)
	}
	cmdline := "irtcd bench"
	if len(args) > 0 {
		cmdline += " " + strings.Join(args, " ")
	}
	rep := &experiment.Report{
		Title:      "irtcd against the IRTCD papers: results",
		Machine:    mach,
		Commit:     rev,
		Go:         runtime.Version(),
		SpeedStart: start,
		SpeedEnd:   end,
		Command:    "go run ./cmd/" + cmdline,
		Scale:      *scale,
		Sections:   sections,
	}
	if err := os.MkdirAll(reportDir, 0o755); err != nil {
		return fail(exitFail, "%v", err)
	}
	f, err := os.Create(*out)
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	if err := rep.WriteMarkdown(f); err != nil {
		f.Close()
		return fail(exitFail, "write %s: %v", *out, err)
	}
	if err := f.Close(); err != nil {
		return fail(exitFail, "write %s: %v", *out, err)
	}
	fmt.Fprintf(stdout, "wrote %s (%d sections, plots in %s)\n", *out, len(sections), *plots)
	return exitOK
}

// The speed probe's size (experiment.MeasureSpeed): about two seconds at
// each end of a bench, its loads over 64 MiB, more than any cache of the
// machines it runs on.
const (
	speedRays  = 200_000
	speedWords = 16 << 20
)

// nameWidth is the length of the longest experiment name.
func nameWidth() int {
	w := 0
	for _, n := range experiment.Names() {
		w = max(w, len(n))
	}
	return w
}

// machine describes the CPU: its model (from /proc/cpuinfo where there is
// one) and the number of logical cores.
func machine() string {
	model := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s, %d logical cores (%s/%s)", model, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
}

// commit returns the source revision: the one stamped in the binary, else
// git's HEAD (go run does not stamp it), else "unknown".
func commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += " (with uncommitted changes)"
			}
			return rev
		}
	}
	if b, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil {
		rev := strings.TrimSpace(string(b))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			rev += " (with uncommitted changes)"
		}
		return rev
	}
	return "unknown"
}
