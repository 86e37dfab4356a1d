package experiment

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/irtcd/irtcd/narrow"
)

// ErrBadConfig is wrapped by the errors of a Config that cannot run.
var ErrBadConfig = errors.New("experiment: bad config")

// Config configures a bench run.
type Config struct {
	// Scale sizes every experiment: 1 is the paper's size (512 bunnies, 400
	// orientations, ...); smaller values shrink object counts, orientations
	// and, where noted, steps. Must be in (0, 1].
	Scale float64
	// Seed drives every random choice (scene layouts, orientations).
	Seed uint64
	// Workers is the CPU backend's thread count (0: every core).
	Workers int
	// TestData is the directory holding the OBJ meshes (bunny, torus,
	// teddy, duck).
	TestData string
	// PlotDir is where plots are written; Plot.Path is relative to
	// ReportDir.
	PlotDir   string
	ReportDir string
	// Logger receives progress lines (nil: discard).
	Logger *slog.Logger
	// Progress, if set, is called as work is done: the experiment's name,
	// units done and the total.
	Progress func(name string, done, total int)
	// NewBackend, if set, makes the narrow phase of each 3D scene run
	// (avalanche, spawner, tori) from the run's parameters; the run
	// closes it. nil: the CPU backend with Workers workers. The reference
	// runs (the standard algorithm the metrics compare against) and the
	// re-projection test stay on the CPU backend.
	NewBackend func(p narrow.Params) (narrow.Backend, error)

	// runs caches the scene runs that several experiments share (Run sets
	// it; nil: no sharing).
	runs *runCache
}

func (c *Config) check() error {
	if !(c.Scale > 0 && c.Scale <= 1) {
		return fmt.Errorf("%w: scale %v (want 0 < scale ≤ 1)", ErrBadConfig, c.Scale)
	}
	if c.Workers < 0 {
		return fmt.Errorf("%w: workers %d", ErrBadConfig, c.Workers)
	}
	if c.PlotDir == "" || c.ReportDir == "" {
		return fmt.Errorf("%w: PlotDir and ReportDir are required", ErrBadConfig)
	}
	return nil
}

func (c *Config) log() *slog.Logger {
	if c.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return c.Logger
}

func (c *Config) progress(name string) func(done, total int) {
	if c.Progress == nil {
		return func(int, int) {}
	}
	return func(done, total int) { c.Progress(name, done, total) }
}

// scaled returns max(lo, round(n·Scale)).
func (c *Config) scaled(n, lo int) int {
	return max(lo, int(math.Round(float64(n)*c.Scale)))
}

// plotPath returns the file path of a plot and its path relative to the
// report.
func (c *Config) plotPath(name string) (file, rel string, err error) {
	if err := os.MkdirAll(c.PlotDir, 0o755); err != nil {
		return "", "", fmt.Errorf("experiment: %w", err)
	}
	file = filepath.Join(c.PlotDir, name)
	rel, err = filepath.Rel(c.ReportDir, file)
	if err != nil {
		rel = file
	}
	return file, filepath.ToSlash(rel), nil
}

// An Experiment reproduces one part of the papers' results.
type Experiment struct {
	Name string // short name for -only
	Doc  string
	Run  func(ctx context.Context, cfg *Config) (*Section, error)
}

// Experiments returns every experiment in report order.
func Experiments() []Experiment {
	return []Experiment{
		{Name: "avalanche", Doc: "scene 1, 512 bunnies: iterative speed-ups per phase (2013 Fig. 7), wrong pairs, predictive rays (2013b Fig. 9, 11)", Run: runAvalanche},
		{Name: "spawner", Doc: "scene 2, up to 500 objects: iterative speed-ups, wrong pairs, predictive rays (2013; 2013b Fig. 10, 12)", Run: runSpawner},
		{Name: "threshold", Doc: "scene 1 at several Eq. 2 displacement thresholds: speed-up per phase against wrong pairs and erroneous rays (2013 §3.3)", Run: runThreshold},
		{Name: "reprojection-scenes", Doc: "total interpenetration with raw rays vs MTD re-projection in scenes 1 and 2 (2013b §5.4, Table 2)", Run: runReprojectionScenes},
		{Name: "tori", Doc: "100 tori: iterative speed-up and predictive overhead (Li & Yamaguchi Tables 2, 3), colliding pairs (Fig. 12), penetration depth vs time step (Fig. 14)", Run: runTori},
		{Name: "bunnies", Doc: "100 bunnies: iterative speed-up and predictive overhead (Li & Yamaguchi Tables 2, 3), colliding pairs (Fig. 10)", Run: runBunnies},
		{Name: "deviation", Doc: "re-projection test: a shape against the ground in 400 orientations × 20 depths (2013b §5.4, Table 1)", Run: runDeviation},
	}
}

// Names returns the experiments' names.
func Names() []string {
	var ns []string
	for _, e := range Experiments() {
		ns = append(ns, e.Name)
	}
	return ns
}

// Run runs the named experiments (all when names is empty) in report
// order and returns the report's sections.
func Run(ctx context.Context, cfg Config, names []string) ([]*Section, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	for _, n := range names {
		if !slices.Contains(Names(), n) {
			return nil, fmt.Errorf("%w: unknown experiment %q (have %s)", ErrBadConfig, n, strings.Join(Names(), ", "))
		}
	}
	if cfg.runs == nil {
		cfg.runs = &runCache{}
	}
	var out []*Section
	for _, e := range Experiments() {
		if len(names) > 0 && !slices.Contains(names, e.Name) {
			continue
		}
		cfg.log().Info("experiment", "name", e.Name)
		start := time.Now()
		s, err := e.Run(ctx, &cfg)
		if err != nil {
			return out, fmt.Errorf("experiment %s: %w", e.Name, err)
		}
		s.Wall = time.Since(start).Seconds()
		out = append(out, s)
	}
	return out, nil
}
