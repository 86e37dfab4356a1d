package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/irtcd/irtcd/internal/stepplot"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim"
	"github.com/irtcd/irtcd/sim/gltfscene"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/scene3d"
	"github.com/irtcd/irtcd/sim/view3d"
)

const demo3dDoc = `usage: irtcd demo3d [-scene NAME] [-n N] [-steps N] [-method M] [-out FILE.gif] [flags]

Simulates one of the papers' 3D scenes in sim/rigid, a rigid-body world
whose narrow phase is irtcd (rigid.DefaultConfig: edge-on-edge contacts,
and speculative contacts with the predictive method), shows a progress bar
on standard error, writes an animated GIF of the run and a PNG of its last
frame (FILE.gif and FILE.png), with -glb an animated glTF scene of the
run to turn and step through in a glTF viewer, and prints a summary of the narrow phase's
work per phase of the run (A free fall, B impact, C rest) on standard
output: time, rays by kind, pairs by algorithm, contacts and depths.
Drawing the frames takes longer than simulating them; a larger
-frame-every, a smaller -width or -n speed the demo up. With -mesh, the
scene drops your own meshes instead of its own (scaled to their size).

Scenes (the demo's default sizes are smaller than the papers'; -n sets them):
%s
Interrupting the run (Ctrl-C) stops it after the current step; the frames
of the steps done are still drawn and written (interrupt again to stop
drawing), and the exit status is 1.

flags:
`

// demo3dN is the demo's default number of objects per scene: a few
// seconds of simulation, and frames that draw in a fraction of a second.
var demo3dN = map[string]int{"avalanche": 125, "spawner": 60, "tori100": 64}

// runDemo3D is the demo3d subcommand.
func runDemo3D(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo3d", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var names []string
	for _, s := range scene3d.Scenes() {
		names = append(names, s.Name)
	}
	scene := fs.String("scene", "avalanche", "`scene` to run: "+strings.Join(names, ", "))
	meshDir := fs.String("testdata", "", "`DIR` holding bunny.obj, torus.obj, teddy.obj and duck.obj (default: testdata here or in a parent directory)")
	var meshes []string
	fs.Func("mesh", "a mesh `FILE` (.obj, .stl, .ply, .gltf or .glb; closed, oriented) to drop instead of the scene's meshes; repeat it for several, taken in turn", func(path string) error {
		meshes = append(meshes, path)
		return nil
	})
	f := addDemoFlags(fs, "demo3d.gif", 640)
	ccd := fs.Float64("ccd", 0, "continuous collision detection: sweep each pair whose relative motion in a step may exceed `F` × the smaller\nbody's size, and cut the motions back to the time of impact (rigid.Config.CCDMotion; 0: off; 0.05 sweeps\nwhat speculative contacts may miss)")
	ccdEdges := fs.Bool("ccd-edges", false, "with -ccd, sweep the bodies' edges too (rigid.Config.CCDEdges): bodies that first touch edge on edge")
	ccdTurns := fs.Bool("ccd-turns", false, "with -ccd, cast fast turns too (rigid.Config.CCDTurns): spinning bodies")
	glbOut := fs.String("glb", "", "also write the run as an animated glTF scene to `FILE.glb` (sim/gltfscene: a node per body,\nkeyed at every frame of the GIF), for a glTF viewer")

	fail := failer(stderr, "demo3d")
	help := func() string {
		var list strings.Builder
		for _, s := range scene3d.Scenes() {
			fmt.Fprintf(&list, "  %-10s %s (default -n %d; the paper's: %d)\n", s.Name, s.Doc, demo3dN[s.Name], s.DefaultN)
		}
		return fmt.Sprintf(demo3dDoc, list.String())
	}
	d, err := f.parse(fs, args, stderr, help)
	if errors.Is(err, flag.ErrHelp) {
		return exitUsage
	} else if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if !(*ccd >= 0) || math.IsInf(*ccd, 1) {
		return fail(exitUsage, "-ccd %v: want 0 (off) or a finite fraction of a body's size", *ccd)
	}
	if *ccdEdges && *ccd == 0 {
		return fail(exitUsage, "-ccd-edges: needs -ccd (continuous collision detection) above 0")
	}
	if *glbOut != "" && !strings.EqualFold(filepath.Ext(*glbOut), ".glb") {
		return fail(exitUsage, "-glb %s: want a .glb file", *glbOut)
	}
	sc, err := scene3d.SceneByName(*scene)
	if err != nil {
		return fail(exitUsage, "-scene: %v", err)
	}
	var dir string
	if len(meshes) == 0 {
		if dir, err = scene3d.FindMeshDir(*meshDir); err != nil {
			return fail(exitUsage, "-testdata: %v", err)
		}
	}
	for _, path := range meshes {
		if _, err := scene3d.LoadMeshFile(path, 0); err != nil {
			return fail(exitUsage, "-mesh: %v", err)
		}
	}

	cfg := rigid.DefaultConfig()
	cfg.CCDMotion, cfg.CCDEdges, cfg.CCDTurns = *ccd, *ccdEdges, *ccdTurns
	params := cfg.Params
	params.Method = d.method
	params.Speculative = params.Speculative && d.method == narrow.MethodPredictive
	logger := demoLogger(stderr)
	be, err := newBackend(*f.backend, d.binary, params, *f.workers, *f.gpuMin, logger)
	if err != nil {
		return fail(exitFail, "backend: %v", err)
	}
	defer be.Close()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	size, total := f.sizes(demo3dN[sc.Name], sc.Steps)
	width, height := *f.width, max(1, *f.width*5/8)
	bar := newBar(total, sc.Name, "steps", stderr)
	anim, err := sim.NewAnimationPalette(gifDelay(*f.every), scene3d.Palette())
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	var painter scene3d.Painter
	var snaps []scene3d.Snapshot
	var rec *gltfscene.Recorder
	if *glbOut != "" {
		rec = new(gltfscene.Recorder)
	}
	var rb recordedBodies

	tr, runErr := scene3d.Run(ctx, sc, scene3d.Options{
		N: size, Seed: *f.seed, MeshDir: dir, Meshes: meshes,
		Params: params, Backend: be, Workers: *f.workers, Config: &cfg,
		Steps: total, Logger: logger,
		FrameEvery: *f.every,
		OnFrame: func(s *scene3d.Sim) error {
			snaps = append(snaps, scene3d.Snapshot{})
			painter.Snapshot(s, fmt.Sprintf("%s, %d objects, %s: t = %.2f s", sc.Name, s.Params.N, d.method, s.Time()), &snaps[len(snaps)-1])
			if rec != nil {
				return rec.Frame(s.Time(), rb.of(s))
			}
			return nil
		},
		OnProgress: func(step, _ int) { bar.Set(step) },
	})
	if runErr != nil {
		bar.Exit()
		fmt.Fprintln(stderr)
		if tr == nil {
			return fail(exitFail, "%v", runErr)
		}
	}
	// The frames are drawn after the run, on every core, so that drawing
	// (slower than simulating) does not weigh on the timings.
	stop() // a first Ctrl-C stopped the run; a second one stops the drawing
	drawCtx, stopDraw := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stopDraw()
	drawStart := time.Now()
	if err := drawFrames(drawCtx, anim, snaps, width, height, newBar(len(snaps), "frames", "frames", stderr)); err != nil {
		runErr = errors.Join(runErr, err)
	}
	drawing := time.Since(drawStart)

	code := exitOK
	if runErr != nil {
		code = fail(exitFail, "%v", runErr)
	}
	if err := f.writeImages(d, anim, func(w io.Writer) error { return writePlot3D(w, tr) }); err != nil {
		return fail(exitFail, "%v", err)
	}
	s := tr.Summary()
	fmt.Fprintf(stdout, "scene %s: %d objects, %d steps (%.2f s simulated) on %s/%s with %d workers, %.2f s wall, then %.2f s drawing %d frames\n",
		tr.Scene, tr.N, s.All.Steps, float64(s.All.Steps)*tr.Dt, *f.backend, d.method, f.workersUsed(), tr.Wall.Seconds(), drawing.Seconds(), anim.Len())
	if _, err := s.WriteTo(stdout); err != nil {
		return fail(exitFail, "write summary: %v", err)
	}
	if *ccd > 0 {
		swept, clamped := 0, 0
		for i := range tr.Steps {
			swept += tr.Steps[i].Swept
			clamped += tr.Steps[i].Clamped
		}
		what := "vertices"
		if *ccdEdges {
			what = "vertices and edges"
		}
		fmt.Fprintf(stdout, "continuous collision detection (%s): %d pairs swept, %d motions cut back to a time of impact\n", what, swept, clamped)
	}
	f.printWritten(stdout, d, anim)
	if rec != nil && rec.Frames() > 0 {
		if err := writeRecording(*glbOut, rec); err != nil {
			return fail(exitFail, "-glb: %v", err)
		}
		fmt.Fprintf(stdout, "wrote %s (%d frames)\n", *glbOut, rec.Frames())
	}
	return code
}

// recordedBodies turns a Sim's bodies into a frame of a glTF recording,
// coloured as scene3d.Painter colours them (a colour per mesh, statics
// grey).
type recordedBodies struct {
	cols   map[*narrow.Shape]color.RGBA
	bodies []gltfscene.Body
}

// of returns the bodies of s now (valid until the next call).
func (rb *recordedBodies) of(s *scene3d.Sim) []gltfscene.Body {
	if rb.cols == nil {
		rb.cols = map[*narrow.Shape]color.RGBA{}
	}
	rb.bodies = rb.bodies[:0]
	for _, in := range s.Instances() {
		var c color.RGBA // grey
		if !in.Static {
			var ok bool
			if c, ok = rb.cols[in.Shape]; !ok {
				c = scene3d.MeshColors[len(rb.cols)%len(scene3d.MeshColors)]
				rb.cols[in.Shape] = c
			}
		}
		rb.bodies = append(rb.bodies, gltfscene.Body{Key: int64(in.Body), Shape: in.Shape, Pose: in.Pose, Color: c})
	}
	return rb.bodies
}

// writeRecording writes rec to path.
func writeRecording(path string, rec *gltfscene.Recorder) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := rec.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writePlot3D draws a 3D run's narrow-phase and whole-step times per step.
func writePlot3D(w io.Writer, tr *scene3d.Trace) error {
	narrowT := make([]time.Duration, len(tr.Steps))
	whole := make([]time.Duration, len(tr.Steps))
	for i, m := range tr.Steps {
		narrowT[i], whole[i] = m.Narrow, m.Total
	}
	return stepplot.Write(w, fmt.Sprintf("%s (N = %d, %s): time per step", tr.Scene, tr.N, tr.Method), tr.Dt,
		stepplot.Series{Name: "narrow phase (irtcd)", Color: scene3d.MeshColors[0], Times: narrowT},
		stepplot.Series{Name: "whole step (broad phase, narrow phase, solver)", Color: scene3d.MeshColors[1], Times: whole})
}

// drawFrames draws the snapshots on every core and adds them to anim in
// order, advancing bar by one a frame. It stops at the first error or
// when ctx is cancelled, keeping the frames added so far.
func drawFrames(ctx context.Context, anim *sim.Animation, snaps []scene3d.Snapshot, w, h int, bar *progressbar.ProgressBar) error {
	imgs := make([]*image.RGBA, len(snaps))
	errs := make([]error, len(snaps))
	ready := make([]chan struct{}, len(snaps))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	var next atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(snaps)) {
		wg.Go(func() {
			var r view3d.Renderer
			for {
				i := int(next.Add(1) - 1)
				if i >= len(snaps) {
					return
				}
				switch {
				case stop.Load():
					errs[i] = errors.New("stopped")
				case ctx.Err() != nil:
					errs[i] = ctx.Err()
				default:
					imgs[i], errs[i] = snaps[i].Draw(&r, w, h)
				}
				close(ready[i])
			}
		})
	}
	var err error
	for i := range snaps {
		<-ready[i]
		if errs[i] != nil {
			err = fmt.Errorf("frame %d: %w", i, errs[i])
			stop.Store(true)
			break
		}
		anim.Add(imgs[i])
		imgs[i] = nil
		bar.Add(1)
	}
	wg.Wait()
	if err != nil {
		bar.Exit()
	}
	return err
}
