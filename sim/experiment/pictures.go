package experiment

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/irtcd/irtcd/sim/scene3d"
)

// PictureScenes are the experiments whose scenes Pictures draws.
var PictureScenes = []string{"avalanche", "spawner", "tori", "bunnies"}

// Pictures draws the pictures of the 3D scenes that Run's avalanche,
// spawner, tori and bunnies experiments draw — from the same runs (irtcd's
// default method, iterative + predictive with the BVH), at the same
// steps, into the same files of PlotDir — without the experiments' other
// runs, their reference comparisons or a report: to redraw them after a
// change to the pictures alone, in minutes rather than the hour the
// experiments take. A run's reference comparison does not feed back into
// it, so the trajectories are the experiments'. names selects the scenes
// (nil: all of PictureScenes). It returns the pictures written.
func Pictures(ctx context.Context, cfg Config, names []string) ([]Plot, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if !slices.Contains(PictureScenes, n) {
			return nil, fmt.Errorf("%w: no pictures for %q (have %s)", ErrBadConfig, n, strings.Join(PictureScenes, ", "))
		}
	}
	if cfg.runs == nil {
		cfg.runs = &runCache{}
	}
	var out []Plot
	for _, name := range PictureScenes {
		if len(names) > 0 && !slices.Contains(names, name) {
			continue
		}
		spec, shots := pictureRun(&cfg, name)
		pics := &pictures{cfg: &cfg, name: name, shots: shots}
		tr := newTracker(&cfg, name)
		tr.total = spec.stepsFor()
		if _, err := cfg.run(ctx, spec, tr, pics.onFrame); err != nil {
			return out, fmt.Errorf("pictures of %s: %w", name, err)
		}
		out = append(out, pics.plots...)
	}
	return out, nil
}

// pictureRun returns the run whose pictures the experiment name draws,
// without its reference, and the steps it pictures.
func pictureRun(cfg *Config, name string) (runSpec, []snapshot) {
	// The avalanche's and spawner's: their matrix's BVH predictive run.
	matrixRun := func(sc scene3d.Scene, n int, shots func(int) []snapshot) (runSpec, []snapshot) {
		bvh, _, _, _, _, _ := matrixSpecs(sc, n, n)
		spec := bvh[pred]
		spec.ref = false
		return spec, shots(spec.stepsFor())
	}
	switch name {
	case "avalanche":
		return matrixRun(scene3d.Avalanche(), cfg.scaled(avalancheN, 8), avalancheShots)
	case "spawner":
		return matrixRun(scene3d.Spawner(), cfg.scaled(spawnerN, 8), spawnerShots)
	case "tori":
		spec := lySpecs(toriScene(), cfg.scaled(toriN, 8))[lyPred]
		return spec, toriShots(spec.stepsFor())
	default: // bunnies
		spec := lySpecs(bunniesScene(), cfg.scaled(toriN, 8))[lyPred]
		return spec, toriShots(spec.stepsFor())
	}
}
