package experiment

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// TestExperiments runs every experiment at a tiny scale, renders the
// report and checks its shape (paper columns, decodable plots, the summary
// table) and a few properties of the figures.
func TestExperiments(t *testing.T) {
	dir := t.TempDir()
	scale := 0.02
	if testing.Short() {
		scale = 0.01
	}
	var mu sync.Mutex
	last := map[string][2]int{}
	cfg := Config{
		Scale: scale, Seed: 1, Workers: 2, PlotDir: filepath.Join(dir, "results"), ReportDir: dir,
		Progress: func(name string, done, total int) {
			mu.Lock()
			defer mu.Unlock()
			if done > total || done < last[name][0] {
				t.Errorf("%s: progress %d/%d after %d/%d", name, done, total, last[name][0], last[name][1])
			}
			last[name] = [2]int{done, total}
		},
	}
	sections, err := Run(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sections) != len(Experiments()) {
		t.Fatalf("%d sections for %d experiments", len(sections), len(Experiments()))
	}
	for _, e := range Experiments() {
		if p := last[e.Name]; p[1] == 0 || p[0] != p[1] {
			t.Errorf("%s: last progress %d/%d, want done = total > 0", e.Name, p[0], p[1])
		}
	}
	// Table 2 reuses the avalanche's and spawner's re-projected runs (with
	// and without speculative contacts, and with Bullet's solver
	// constants, at every seed): it simulates only its raw-ray runs
	// (predictive, standard, predictive with speculative contacts and
	// predictive with Bullet's solver constants, two scenes), and all but
	// the standard one again at the other seeds; and both responses with
	// continuous collision detection, which no other experiment runs, at
	// every seed.
	av, sp := scene3d.Avalanche(), scene3d.Spawner()
	na, ns := cfg.scaled(avalancheN, 8), cfg.scaled(spawnerN, 8)
	runs := 4 + 3*(sceneSeeds-1) + 2*sceneSeeds
	if want := runs*av.Steps(na) + runs*sp.Steps(ns); last["reprojection-scenes"][1] != want {
		t.Errorf("reprojection-scenes simulated %d steps, want %d (the MTD runs shared)", last["reprojection-scenes"][1], want)
	}

	rep := &Report{Title: "test", Machine: "m", Commit: "c", Go: "go", Command: "irtcd bench", Scale: scale, Sections: sections}
	var buf bytes.Buffer
	if err := rep.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	if !strings.Contains(md, "| row | paper | irtcd | better? |") {
		t.Errorf("no summary table in the report:\n%s", md)
	}
	byName := map[string]*Section{}
	for i, s := range sections {
		byName[Experiments()[i].Name] = s
		if !strings.Contains(md, "## "+s.Title) {
			t.Errorf("section %q missing from the report", s.Title)
		}
		if len(s.Summary) == 0 {
			t.Errorf("%s: no summary rows", s.Title)
		}
		for _, r := range s.Summary {
			if r.Row == "" || r.Paper == "" || r.Ours == "" || r.Better == "" || !strings.Contains(md, r.Row) {
				t.Errorf("%s: summary row %+v", s.Title, r)
			}
		}
		// The first table puts the paper's figures next to ours.
		if len(s.Tables) == 0 {
			t.Fatalf("%s: no table", s.Title)
		}
		h := strings.ToLower(strings.Join(s.Tables[0].Header, "|"))
		if !strings.Contains(h, "paper") || !strings.Contains(h, "irtcd") {
			t.Errorf("%s: first table's header %q lacks the paper's and irtcd's columns", s.Title, s.Tables[0].Header)
		}
		for _, tb := range s.Tables {
			for _, row := range tb.Rows {
				if len(row) != len(tb.Header) {
					t.Errorf("%s: row %q has %d cells for %d columns", s.Title, row, len(row), len(tb.Header))
				}
			}
		}
		for _, p := range s.Plots {
			f, err := os.Open(filepath.Join(dir, filepath.FromSlash(p.Path)))
			if err != nil {
				t.Errorf("%s: plot: %v", s.Title, err)
				continue
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil || img.Bounds().Dx() < 100 || img.Bounds().Dy() < 100 {
				t.Errorf("%s: plot %s: %v", s.Title, p.Path, err)
			}
			if !strings.Contains(md, "]("+p.Path+")") {
				t.Errorf("%s: plot %s not embedded", s.Title, p.Path)
			}
		}
	}
	for _, name := range PictureScenes {
		pics := 0
		for _, p := range byName[name].Plots {
			if strings.Contains(p.Path, "-step") {
				pics++
			}
		}
		if len(byName[name].Plots) < 3 || pics != 3 {
			t.Errorf("%s: %d plots, %d pictures of the scene; want charts and 3 pictures", name, len(byName[name].Plots), pics)
		}
	}
	// Pictures draws the same pictures, byte for byte, from the same runs
	// alone.
	pcfg := cfg
	pcfg.Progress, pcfg.PlotDir = nil, filepath.Join(dir, "pictures")
	plots, err := Pictures(context.Background(), pcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plots) != 3*len(PictureScenes) {
		t.Errorf("%d pictures, want 3 of each scene", len(plots))
	}
	for _, p := range plots {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p.Path)))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, "results", filepath.Base(p.Path)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("picture %s (%s): differs from the experiments' (%v)", p.Path, p.Caption, err)
		}
	}
	if _, err := Pictures(context.Background(), pcfg, []string{"deviation"}); !errors.Is(err, ErrBadConfig) {
		t.Errorf("pictures of an unknown scene: %v, want ErrBadConfig", err)
	}

	// Properties.
	finitePos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	for _, name := range []string{"avalanche", "spawner"} {
		m := byName[name].metrics
		if !(m["errSharePredictive"] <= m["errShareIterative"]) || !(m["errShareIterative"] > 0) {
			t.Errorf("%s: erroneous rays %.4f with prediction, %.4f without; want fewer with", name, m["errSharePredictive"], m["errShareIterative"])
		}
		for _, k := range []string{"rayLengthIterative", "rayLengthPredictive", "predMeanA", "predMeanB", "specMeanA", "specMeanB", "bulletMeanA", "bulletMeanB"} {
			if !finitePos(m[k]) {
				t.Errorf("%s: cumulative ray length %s %v, want finite and positive", name, k, m[k])
			}
		}
		// The replicas run other trajectories: their changes differ.
		for _, c := range []string{"pred", "spec", "bullet"} {
			if l, h := m[c+"ChangeLeast"], m[c+"ChangeMost"]; !(l < h) {
				t.Errorf("%s: %s: change per seed from %v to %v, want a spread (replicas with other seeds)", name, c, l, h)
			}
		}
		// The papers' culling casts more rays for the same contacts.
		if m["boxesSameStandard"] != 1 || !(m["boxesRayRatio"] > 1) {
			t.Errorf("%s: with the papers' culling the standard run saw the same steps: %v, cast %.2f× the rays; want the same steps and more rays", name, m["boxesSameStandard"] == 1, m["boxesRayRatio"])
		}
		if !(m["specMeanB"] < m["predMeanB"]) {
			t.Errorf("%s: cumulative ray length %v with speculative contacts, %v without (means over the seeds); want less with", name, m["specMeanB"], m["predMeanB"])
		}
	}
	// A larger displacement threshold keeps pairs iterative longer: more
	// of their rays go wrong.
	if tm := byName["threshold"].metrics; !(tm["errShare×0.5"] < tm["errShare×4"]) || !(tm["errShare×0.5"] >= 0) {
		t.Errorf("threshold: erroneous rays %v at 0.5 × the default threshold, %v at 4 ×; want more at 4 ×", tm["errShare×0.5"], tm["errShare×4"])
	}
	// Taking the standard steps' estimated cost out can only raise the
	// speed-up (to +Inf when the estimate takes all the time).
	if tm := byName["threshold"].metrics; !(tm["boundC"] >= tm["speedupC×1"]) {
		t.Errorf("threshold: phase C speed-up bound %v below the speed-up %v", tm["boundC"], tm["speedupC×1"])
	}
	rm := byName["reprojection-scenes"].metrics
	for _, k := range []string{"scene1Ray", "scene1MTD", "scene2Ray", "scene2MTD"} {
		if !finitePos(rm[k]) {
			t.Errorf("reprojection-scenes: %s cumulative ray length %v, want finite and positive", k, rm[k])
		}
	}
	// The replicas run other trajectories: their pairs' changes differ.
	for _, name := range []string{"avalanche", "spawner"} {
		if l, m := rm[name+"ChangeLeast"], rm[name+"ChangeMost"]; !(l < m) {
			t.Errorf("reprojection-scenes: %s: change per seed from %v to %v, want a spread (replicas with other seeds)", name, l, m)
		}
	}
	if w := byName["deviation"].metrics["reprojectionWorst"]; !(w < 1e-9) {
		t.Errorf("deviation: re-projection's deviation %v %%, want 0", w)
	}
	tm := byName["tori"].metrics
	if !finitePos(tm["meanDepthIterative"]) || !finitePos(tm["meanDepthPredictive"]) || math.IsNaN(tm["minR2"]) {
		t.Errorf("tori: %v", tm)
	}
	// Li & Yamaguchi's scenes: Tables 2 and 3 are finite, and the pairs
	// with contacts are pairs whose shapes overlap, by the exact test;
	// few overlapping pairs go undetected, and those cross edge through
	// face without a vertex inside the other shape, out of every ray's
	// reach (the iterative runs may keep a stale miss or two).
	for _, name := range []string{"tori", "bunnies"} {
		m := byName[name].metrics
		if !finitePos(m["speedup"]) || math.IsNaN(m["overhead"]) || math.IsInf(m["overhead"], 0) {
			t.Errorf("%s: speed-up %v, overhead of prediction %v", name, m["speedup"], m["overhead"])
		}
		if m["spurious"] != 0 || !(m["overlapping"] > 0) {
			t.Errorf("%s: %v pairs detected without overlapping, %v overlapping; want 0 and some", name, m["spurious"], m["overlapping"])
		}
		for _, k := range []string{"missShare", "missShareStandard", "missShareEdges", "missShareShallow", "missShareFaces"} {
			if !(m[k] >= 0 && m[k] < 0.1) {
				t.Errorf("%s: %s %v of the overlapping pairs not detected, want under 10 %%", name, k, m[k])
			}
		}
		// Edge-through-face contacts leave no crossing without a
		// contact but the iterative runs' stale misses.
		if !(m["missShareFaces"] <= m["missShareShallow"]) {
			t.Errorf("%s: %v of the overlapping pairs not detected with edge-through-face contacts, more than without (%v)", name, m["missShareFaces"], m["missShareShallow"])
		}
		if !(m["missInside"] <= 3) {
			t.Errorf("%s: %v missed pairs with a vertex inside the other shape", name, m["missInside"])
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{Scale: 0, PlotDir: dir, ReportDir: dir}
	if _, err := Run(context.Background(), cfg, nil); !errors.Is(err, ErrBadConfig) {
		t.Errorf("scale 0: %v", err)
	}
	cfg.Scale = 0.01
	if _, err := Run(context.Background(), cfg, []string{"nope"}); !errors.Is(err, ErrBadConfig) || !strings.Contains(err.Error(), "avalanche") {
		t.Errorf("unknown experiment: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, e := range Experiments() {
		if _, err := Run(ctx, cfg, []string{e.Name}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s cancelled: %v", e.Name, err)
		}
	}
}

func TestHelpers(t *testing.T) {
	a, b, r2 := linearFit([]float64{1, 2, 3, 4}, []float64{3, 5, 7, 9})
	if math.Abs(a-1) > 1e-12 || math.Abs(b-2) > 1e-12 || math.Abs(r2-1) > 1e-12 {
		t.Errorf("linearFit: %v + %v x, R² %v", a, b, r2)
	}
	if _, _, r := linearFit([]float64{1}, []float64{1}); !math.IsNaN(r) {
		t.Errorf("linearFit of one point: R² %v", r)
	}
	if m := median([]float64{3, 1, 2, 10}); m != 2.5 {
		t.Errorf("median: %v", m)
	}
	for _, c := range []struct {
		v    float64
		want string
	}{{-0.312, "−31 %"}, {0.082, "+8 %"}, {math.NaN(), "—"}} {
		if got := change(c.v, 0); got != c.want {
			t.Errorf("change(%v) = %q, want %q", c.v, got, c.want)
		}
	}
	if better(2, 1, true, 0) != "yes" || better(2, 1, false, 0) != "no" || !strings.HasPrefix(better(1.01, 1, true, 0.05), "≈") || better(math.NaN(), 1, true, 0) != "n/a" {
		t.Error("better")
	}
	if r := reduction(0.1, 0.01); math.Abs(r-0.9) > 1e-12 {
		t.Errorf("reduction: %v", r)
	}
}

// TestBoundNote: the note on phase C's bound says that an estimate taking
// all the time bounds nothing, and otherwise gives the bound and how it
// compares with the paper's 6.9.
func TestBoundNote(t *testing.T) {
	for _, tc := range []struct {
		rest, bound float64
		want        []string
	}{
		{-0.2, math.Inf(1), []string{"bounds nothing"}},
		{1.5, 5, []string{"other 1.50 ms", "under about 5.0", "below the paper's 6.9"}},
		{0.5, 12, []string{"other 0.50 ms", "under about 12.0"}},
	} {
		got := boundNote(tc.rest, tc.bound)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("boundNote(%v, %v) = %q, want it to contain %q", tc.rest, tc.bound, got, w)
			}
		}
		if tc.bound > 6.9 && strings.Contains(got, "below") {
			t.Errorf("boundNote(%v, %v) = %q: not below the paper's figure", tc.rest, tc.bound, got)
		}
	}
}

// TestCrossingDepth: a beam, turned 45° about its length, dips one edge
// 0.1 into a box's top face with every vertex of both outside the other.
// The shapes overlap (narrow.Overlap), no vertex is inside, and the
// crossing is 0.1 deep; moved up by 0.2 they are apart.
func TestCrossingDepth(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	const s = 0.3 // the beam's half side; its diagonal section's half diagonal is s·√2
	beam, err := narrow.NewBox(mgl64.Vec3{-3, -s, -s}, mgl64.Vec3{3, s, s})
	if err != nil {
		t.Fatal(err)
	}
	rot := mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})
	for _, tc := range []struct {
		lift        float64
		over, depth bool
	}{{0, true, true}, {0.2, false, false}} {
		pb := narrow.Pose{Pos: mgl64.Vec3{0, 0.9 + s*math.Sqrt2 + tc.lift, 0}, Rot: rot}
		over, err := narrow.Overlap(beam, box, pb, narrow.Identity)
		if err != nil || over != tc.over {
			t.Errorf("lift %v: overlap %v (%v), want %v", tc.lift, over, err, tc.over)
		}
		if vertexInside(beam, box, pb, narrow.Identity) {
			t.Errorf("lift %v: a vertex inside", tc.lift)
		}
		d := crossingDepth(beam, box, pb, narrow.Identity)
		want := 0.0
		if tc.depth {
			want = 0.1
		}
		if math.Abs(d-want) > 1e-9 {
			t.Errorf("lift %v: crossing depth %v, want %v", tc.lift, d, want)
		}
	}
	// A short beam in the same place has its bottom vertices in the box.
	short, err := narrow.NewBox(mgl64.Vec3{-0.5, -s, -s}, mgl64.Vec3{0.5, s, s})
	if err != nil {
		t.Fatal(err)
	}
	if pb := (narrow.Pose{Pos: mgl64.Vec3{0, 0.9 + s*math.Sqrt2, 0}, Rot: rot}); !vertexInside(short, box, pb, narrow.Identity) {
		t.Error("a short beam's bottom vertices are inside the box: vertexInside says no")
	}
}
