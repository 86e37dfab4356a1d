package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/plot/plotter"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// Li & Yamaguchi's rigid scenes: 100 tori of 300 vertices (their scene 1)
// or 100 bunnies of 453 vertices (scene 2) falling on a planar ground. The
// paper measures its penetration depths "from the time 3 seconds after
// starting to the time 10 seconds when the last torus hits the ground",
// so its objects land over the whole of that window: ours are released
// one after the other over 9 s.
const (
	toriN        = 100
	toriSize     = 0.75 // half bounding-box diagonal (m): a torus 1.05 m across with a 0.2 m tube
	toriRelease  = 9.0  // s over which the objects are released
	toriHeight   = 3.0  // release height of the centres (m)
	toriRadius   = 3.5  // release disc's radius (m)
	toriEnd      = 10.0 // simulated seconds
	toriFrom     = 3.0  // the penetration window [toriFrom, toriEnd] s
	toriTimeReps = 3    // timing runs per method (in lockstep), the median kept

	// Li & Yamaguchi, Tables 2 and 3 (TrBVH, GTX 770M), ms a step.
	paperToriStd     = 56.7 // without iterative
	paperToriIter    = 36.2 // with iterative
	paperToriPred    = 37.2 // iterative + predictive
	paperBunniesStd  = 129.2
	paperBunniesIter = 116.3
	paperBunniesPred = 118.6
)

// Surface properties, as scene3d's scenes.
const (
	toriDensity     = 1000.0
	toriFriction    = 0.5
	toriRestitution = 0.1
)

// toriScene is Li & Yamaguchi's scene 1, 100 tori.
func toriScene() scene3d.Scene {
	return dropScene("tori", scene3d.MeshTorus, "100 tori (300 vertices) released one after the other over 9 s onto the ground (Li & Yamaguchi, scene 1)")
}

// bunniesScene is Li & Yamaguchi's scene 2, 100 bunnies.
func bunniesScene() scene3d.Scene {
	return dropScene("bunnies", scene3d.MeshBunny, "100 bunnies (453 vertices) released one after the other over 9 s onto the ground (Li & Yamaguchi, scene 2)")
}

// dropScene returns the scene: N objects of the named mesh (default 100),
// scaled to toriSize, released at regular intervals over toriRelease
// seconds at random places of a disc at toriHeight with random
// orientations, each at least an object's width (in the horizontal plane)
// from the last six released, so that none is released into another.
func dropScene(name, mesh, doc string) scene3d.Scene {
	return scene3d.Scene{
		Name:     name,
		Doc:      doc,
		DefaultN: toriN,
		StepsFor: func(int) int { return int(math.Round(toriEnd * 60)) },
		Build: func(w *rigid.World, p scene3d.SceneParams) (*scene3d.Setup, error) {
			dir, err := scene3d.FindMeshDir(p.MeshDir)
			if err != nil {
				return nil, err
			}
			shape, err := scene3d.LoadMesh(dir, mesh, toriSize)
			if err != nil {
				return nil, err
			}
			st := &scene3d.Setup{}
			ground, err := narrow.NewBox(mgl64.Vec3{-30, -1, -30}, mgl64.Vec3{30, 0, 30})
			if err != nil {
				return nil, err
			}
			gd := rigid.NewBodyDef(ground, narrow.Identity)
			gd.Static, gd.Name, gd.Friction, gd.Restitution = true, "ground", toriFriction, toriRestitution
			id, err := w.AddBody(gd)
			if err != nil {
				return nil, err
			}
			st.Statics = append(st.Statics, id)
			r := rand.New(rand.NewPCG(p.Seed, 0x7041))
			width := 2 * shape.Radius()
			var recent []mgl64.Vec3
			released := 0
			st.BeforeStep = func(step int, t float64) error {
				for released < p.N && float64(released)*toriRelease/float64(p.N) <= t+1e-9 {
					var pos mgl64.Vec3
					for try := 0; ; try++ {
						a, d := 2*math.Pi*r.Float64(), toriRadius*math.Sqrt(r.Float64())
						s, c := math.Sincos(a)
						pos = mgl64.Vec3{d * c, toriHeight, d * s}
						ok := true
						for _, q := range recent {
							if math.Hypot(q[0]-pos[0], q[2]-pos[2]) < width {
								ok = false
							}
						}
						if ok || try > 1000 {
							break
						}
					}
					recent = append(recent, pos)
					if len(recent) > 6 {
						recent = recent[1:]
					}
					d := rigid.NewBodyDef(shape, narrow.Pose{Pos: pos, Rot: randomRotation(r)})
					d.Name, d.Density, d.Friction, d.Restitution = fmt.Sprintf("%s-%d", mesh, released), toriDensity, toriFriction, toriRestitution
					id, err := w.AddBody(d)
					if err != nil {
						return err
					}
					st.Bodies = append(st.Bodies, id)
					released++
				}
				return nil
			}
			st.Camera = scene3d.Camera{Eye: mgl64.Vec3{6.5, 6.5, 10.5}, Target: mgl64.Vec3{0, 0.8, 0}, Up: mgl64.Vec3{0, 1, 0}, FovY: math.Pi / 4}
			return st, nil
		},
	}
}

// randomRotation returns a uniformly distributed unit quaternion
// (Shoemake's method).
func randomRotation(r *rand.Rand) mgl64.Quat {
	u1, u2, u3 := r.Float64(), r.Float64(), r.Float64()
	a, b := math.Sqrt(1-u1), math.Sqrt(u1)
	s2, c2 := math.Sincos(2 * math.Pi * u2)
	s3, c3 := math.Sincos(2 * math.Pi * u3)
	return mgl64.Quat{W: b * c3, V: mgl64.Vec3{a * s2, a * c2, b * s3}}
}

// depthStats records, per step, the mean, maximum and standard deviation
// of the depths of the step's contacts (every ray that hit, before
// manifold reduction; the run's own response).
type depthStats struct {
	t                []float64 // simulated time at the step's end
	mean, max, stdev []float64
}

func (d *depthStats) onFrame(s *scene3d.Sim) error {
	if s.StepCount() == 0 {
		return nil
	}
	var n int
	var sum, sq, mx float64
	for _, r := range s.World.Results() {
		for _, c := range r.Contacts {
			n++
			sum += c.Depth
			sq += c.Depth * c.Depth
			mx = math.Max(mx, c.Depth)
		}
	}
	if n == 0 {
		return nil
	}
	mean := sum / float64(n)
	d.t = append(d.t, s.Time())
	d.mean = append(d.mean, mean)
	d.max = append(d.max, mx)
	d.stdev = append(d.stdev, math.Sqrt(math.Max(sq/float64(n)-mean*mean, 0)))
	return nil
}

// window returns the means over the steps ending in [from, to] s, and
// the number of such steps with contacts.
func (d *depthStats) window(from, to float64) (mean, max, stdev float64, steps int) {
	for i, t := range d.t {
		if t < from-1e-9 || t > to+1e-9 {
			continue
		}
		steps++
		mean += d.mean[i]
		max += d.max[i]
		stdev += d.stdev[i]
	}
	if steps == 0 {
		return math.NaN(), math.NaN(), math.NaN(), 0
	}
	k := float64(steps)
	return mean / k, max / k, stdev / k, steps
}

// linearFit returns the least-squares line y = a + b·x and its R².
func linearFit(x, y []float64) (a, b, r2 float64) {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	den := n*sxx - sx*sx
	if len(x) < 2 || den == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	b = (n*sxy - sx*sy) / den
	a = (sy - b*sx) / n
	var ssr, sst float64
	my := sy / n
	for i := range x {
		e := y[i] - (a + b*x[i])
		ssr += e * e
		sst += (y[i] - my) * (y[i] - my)
	}
	r2 = 1 - div(ssr, sst)
	return a, b, r2
}

// runTori is Li & Yamaguchi's scene 1 (100 tori): the iterative speed-up
// (Table 2), the cost of predictive rays (Table 3), the colliding pairs
// against an exact test (Fig. 12) and the penetration depth against the
// time step (Fig. 14).
func runTori(ctx context.Context, cfg *Config) (*Section, error) {
	sc := toriScene()
	n := cfg.scaled(toriN, 8)
	tr := newTracker(cfg, "tori")
	timing := lySpecs(sc, n)
	var ks []int
	for k := 2; k <= 8; k++ {
		ks = append(ks, k)
	}
	depthSpec := func(k int) runSpec {
		dt := float64(k) / 120
		return runSpec{scene: sc, n: n, dt: dt, steps: int(math.Ceil(toriEnd/dt - 1e-9)), params: narrow.Params{Method: narrow.MethodPredictive}}
	}
	for range toriTimeReps {
		for i := range timing {
			tr.total += timing[i].stepsFor()
		}
	}
	for _, k := range ks {
		sp := depthSpec(k)
		tr.total += sp.stepsFor()
	}
	counts := pairCountRuns(sc, n)
	tr.plan(cfg, counts[:]...)

	// Tables 2 and 3: lockstep timing runs, the median of the runs' means.
	lt, err := cfg.timeMethods(ctx, timing, tr, "tori", toriShots(timing[lyPred].stepsFor()))
	if err != nil {
		return nil, err
	}
	runs := lt.runs

	// Fig. 12: colliding pairs.
	pcs, err := cfg.countPairs(ctx, counts, tr)
	if err != nil {
		return nil, err
	}
	pc := pcs[0]

	// Fig. 14: penetration depth against the time step.
	var xs, means, maxs, stdevs []float64
	fig := &Table{
		Caption: fmt.Sprintf("Penetration depth against the time step, iterative + predictive, means over the steps ending in [%g s, %g s] of the per-step mean, maximum and standard deviation of the contacts' depths (m).", toriFrom, toriEnd),
		Header:  []string{"time step", "steps (in window)", "mean depth", "mean of max depth", "mean of std dev", "contacts/step"},
		Align:   "lrrrrr",
	}
	for _, k := range ks {
		sp := depthSpec(k)
		ds := &depthStats{}
		t, err := cfg.run(ctx, sp, tr, ds.onFrame)
		if err != nil {
			return nil, err
		}
		mean, mx, sd, steps := ds.window(toriFrom, toriEnd)
		contacts := 0
		for _, m := range t.Steps {
			contacts += m.Contacts
		}
		fig.AddRow(fmt.Sprintf("%d/120 s", k), fmt.Sprintf("%d (%d)", len(t.Steps), steps), num(mean, 4), num(mx, 4), num(sd, 4), num(div(float64(contacts), float64(len(t.Steps))), 0))
		if steps > 0 {
			xs = append(xs, sp.dt)
			means, maxs, stdevs = append(means, mean), append(maxs, mx), append(stdevs, sd)
		}
	}
	type fit struct {
		name    string
		y       []float64
		a, b, r float64
	}
	fits := []*fit{{name: "mean", y: means}, {name: "mean of max", y: maxs}, {name: "mean of std dev", y: stdevs}}
	for _, f := range fits {
		f.a, f.b, f.r = linearFit(xs, f.y)
	}

	s := &Section{Title: "100 tori: iterative speed-up, cost of predictive rays, colliding pairs and penetration depth against the time step (Li & Yamaguchi, Tables 2 and 3, Fig. 12 and 14)"}
	s.Intro = fmt.Sprintf(`
The rigid scene 1 of Li & Yamaguchi's deformable-object paper: 100 tori of
300 vertices and 600 triangles falling on a planar ground. scene3d.Tori100
mixes 100 tori with 100 bunnies in one grid drop, so this experiment has its
own scene: %d tori (ours: 1.05 m across, a 0.2 m tube) released one after
the other over %g s from %g m high at random places of a disc of radius
%g m, so that, as in the paper, tori land throughout the window from 3 s to
10 s in which the paper measures penetration. 10 s are simulated, with the
BVH traversal and irtcd's defaults otherwise.

Tables 2 and 3 compare the narrow phase's mean time per step without the
iterative algorithm (the standard algorithm at every step), with it, and
with iterative + predictive rays, at 1/60 s; the three run in lockstep
(blocks of %d steps of each in turn), %d times, and the median of the
runs' means is kept (the runs of one method are identical; only the
timings vary). The paper ran TrBVH on a GTX 770M GPU, rebuilding its
acceleration structure every step for deformable objects; we run rigid
meshes on the CPU, so only the ratios are compared.`, n, toriRelease, toriHeight, toriRadius, lockBlock, toriTimeReps)
	t3 := lt.timingTable("scene 1 (100 tori)", toriLY.paper)
	w := span{"", 0, len(runs[lyIter].Steps)}
	dIt, dPr := accuracyOf(runs[lyIter].Steps, w), accuracyOf(runs[lyPred].Steps, w)
	meanIt, meanPr := div(dIt.ownDepth, float64(dIt.contacts)), div(dPr.ownDepth, float64(dPr.contacts))
	t3.AddRow("mean contact depth over the run (m), iterative → iterative + predictive (their Fig. 9: always smaller with prediction)", "smaller", num(meanIt, 4)+" → "+num(meanPr, 4), "—")
	pairRows(t3, pcs)

	ft := &Table{
		Caption: "Linear fits of the penetration depth against the time step (Fig. 14: \"all three lines show a near linear change with the time-step\").",
		Header:  []string{"series", "paper", "irtcd: intercept (m)", "irtcd: slope (m/s)", "irtcd: R²"},
		Align:   "lrrrr",
	}
	minR2 := math.Inf(1)
	for _, f := range fits {
		ft.AddRow(f.name, "near-linear", num(f.a, 4), num(f.b, 3), num(f.r, 3))
		minR2 = math.Min(minR2, f.r)
	}
	s.Tables = []*Table{t3, fig, ft}

	tp, pp, err := toriLY.charts(cfg, lt, pc, n)
	if err != nil {
		return nil, err
	}
	dch := &chart{
		file:   "tori-depth-timestep.png",
		title:  fmt.Sprintf("tori (%d): penetration depth against the time step, %g-%g s", n, toriFrom, toriEnd),
		xLabel: "time step (s)", yLabel: "penetration depth (m)",
	}
	cols := []curve{{col: colPredictive}, {col: colIterative}, {col: colStandard}}
	for i, f := range fits {
		pts := make(plotter.XYs, len(xs))
		line := make(plotter.XYs, len(xs))
		for j := range xs {
			pts[j] = plotter.XY{X: xs[j], Y: f.y[j]}
			line[j] = plotter.XY{X: xs[j], Y: f.a + f.b*xs[j]}
		}
		dch.curves = append(dch.curves,
			curve{name: f.name, xy: pts, col: cols[i].col, points: true},
			curve{name: fmt.Sprintf("fit (R² = %.3f)", f.r), xy: line, col: cols[i].col, dashed: true})
	}
	dp, err := dch.draw(cfg, "Mean penetration depth, mean of the per-step maximum and mean of the per-step standard deviation against the time step, with least-squares lines (like Fig. 14 of Li & Yamaguchi).")
	if err != nil {
		return nil, err
	}
	s.Plots = append([]Plot{dp, tp, pp}, lt.pics.plots...)
	s.Notes = append(s.Notes, fmt.Sprintf(`
Timing runs (mean narrow-phase ms/step of each run): %s.

Colliding pairs are counted on untimed runs (iterative + predictive; the
standard algorithm; iterative + predictive with edge-on-edge contacts,
with the default EdgeDepth and with EdgeDepth %g × Size, and the last
with edge-through-face contacts too, Params.EdgeFaces): a
pair is detected when the step found at least one contact, and
overlapping when narrow.Overlap (exact: edges against faces, then
containment) says the two shapes meet at the poses the step detected at.
A pair whose shapes cross only edge through face, no vertex of either
inside the other, has no ray to find it: the rays of the standard
algorithm miss it as well. Edge-on-edge contacts find such crossings
where the edges are bent enough to be listed, which on these smooth
meshes takes a small EdgeAngle. They cost far more than the rays with
the default EdgeDepth (a quarter of the Size: every pair of edges that
close is tested at every step), and much less with a shallow one, which
is enough here: the crossings that no ray finds are at most a few
centimetres deep (the counting runs' time, slowed alike by the counting,
is their ratio's only measure here; BenchmarkEdgeDepthReplay measures
both on the same poses). Edge-through-face contacts (rays along the
convex edges near the other body, the Mochi paper's Reduction 4) find
every crossing, edge on edge or not. Penetration depths are the runs' own contact depths (MTD re-projection:
r·n, every ray that hit, before manifold reduction), per step, averaged
over the steps with contacts that end in the window; the time step changes
the solver's step too (rigid.Config.Dt); the scene's release times are in
seconds, so every run releases the same tori at the same times.

Li & Yamaguchi's Table 1 (updating the acceleration structure every step:
3.1 ms with TrBVH, 0.7 ms with HLBVH, for 56.7 and 72.0 ms of narrow
phase) has no counterpart in a rigid scene: irtcd builds a shape's
hierarchy once, in the shape's frame, and never updates it. For shapes
that do deform, docs/BENCHMARKS.md, "Deformable shapes", times the
refit (100 tori refitted in 5.9 ms on one core: not beaten).`, lt.runsNote(), countEdgeDepth))
	speed, over, pairs := toriLY.summary(lt, pcs)
	s.Summary = []SummaryRow{
		speed, over,
		{"Mean penetration depth with prediction below without, 100 tori", "yes (Fig. 9)", num(meanPr, 4) + " m with, " + num(meanIt, 4) + " m without", yesNo(meanPr < meanIt)},
		pairs,
		{"Penetration depth linear in the time step 2/120 … 8/120 s (Fig. 14), lowest R² of mean / max / std dev", "near-linear", num(minR2, 3), linearVerdict(minR2)},
	}
	toriLY.metrics(s, lt, pcs)
	s.metric("minR2", minR2)
	s.metric("meanDepthIterative", meanIt)
	s.metric("meanDepthPredictive", meanPr)
	return s, nil
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// linearVerdict compares an R² with the paper's "near-linear".
func linearVerdict(r2 float64) string {
	switch {
	case math.IsNaN(r2):
		return "n/a"
	case r2 >= 0.95:
		return "≈ (near-linear too)"
	}
	return "no (less linear)"
}
