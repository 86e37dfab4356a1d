package experiment

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// The methods of a matrix, in index order.
var methods = [3]narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive}

const (
	std  = 0 // standard (Hermann et al.) at every step: the non-iterative algorithm
	iter = 1 // IRTCD
	pred = 2 // IRTCD with predictive rays
)

// matrix holds the runs of one scene with the three methods and both
// traversals. The BVH runs have a reference (the standard algorithm on
// their own states, raw ray lengths); the basic runs, far slower, have
// none and may have fewer objects.
type matrix struct {
	scene      scene3d.Scene
	n, basicN  int
	bvh, basic [3]*scene3d.Trace
	spec       *scene3d.Trace    // BVH, iterative + predictive with speculative contacts (narrow.Params.Speculative)
	bullet     [2]*scene3d.Trace // BVH, iterative and iterative + predictive with Bullet's solver constants (bulletSolver)
	boxes      [3]*scene3d.Trace // BVH, the three methods with the papers' culling (narrow.CullBoxes)
	// seeds holds the runs of the cumulative ray length's comparisons at
	// each seed (sceneSeeds), indexed by the seed* constants: seed 0 is
	// the runs above; the predictive ones (plain, speculative, Bullet's
	// constants) are also Table 2's re-projection runs.
	seeds        [sceneSeeds][seedRuns]*scene3d.Trace
	pics         *pictures
	sameStd      bool // the basic and BVH standard runs saw the same pairs, contacts and depths (when basicN == n)
	sameIter     bool // likewise for the iterative runs
	samePred     bool
	basicReduced bool
}

// The runs of a matrix that are repeated at every seed, in index order.
const (
	seedIter       = iota // BVH iterative
	seedPred              // BVH iterative + predictive
	seedSpec              // … with speculative contacts
	seedBulletIter        // BVH iterative, Bullet's solver constants
	seedBulletPred        // BVH iterative + predictive, Bullet's solver constants
	seedRuns
)

// seedPairs returns the pairs of runs (a, b) of every seed.
func (m *matrix) seedPairs(a, b int) [][2]*scene3d.Trace {
	out := make([][2]*scene3d.Trace, len(m.seeds))
	for k := range m.seeds {
		out[k] = [2]*scene3d.Trace{m.seeds[k][a], m.seeds[k][b]}
	}
	return out
}

// matrixSpecs returns the runs of a matrix: BVH then basic, each
// standard, iterative, predictive; the BVH predictive run with
// speculative contacts; the BVH iterative and predictive runs with
// Bullet's solver constants (the latter is also Table 2's re-projection
// run with them, runReprojectionScenes); and the three BVH methods with
// the papers' culling, without reference; and the replicas at the other
// seeds of the runs the seed* constants name (reps[0] is seed 0's).
func matrixSpecs(sc scene3d.Scene, n, basicN int) (bvh, basic [3]runSpec, spec runSpec, bullet [2]runSpec, boxes [3]runSpec, reps [sceneSeeds][seedRuns]runSpec) {
	for k, m := range methods {
		bvh[k] = runSpec{scene: sc, n: n, params: narrow.Params{Method: m, Traversal: narrow.TraversalBVH}, ref: true}
		basic[k] = runSpec{scene: sc, n: basicN, params: narrow.Params{Method: m, Traversal: narrow.TraversalBasic}}
		boxes[k] = runSpec{scene: sc, n: n, params: narrow.Params{Method: m, Traversal: narrow.TraversalBVH, Culling: narrow.CullBoxes}}
	}
	spec = bvh[pred]
	spec.params.Speculative = true
	bullet = [2]runSpec{bvh[iter], bvh[pred]}
	for k := range bullet {
		bullet[k].bullet = true
	}
	for k := range reps {
		reps[k] = [seedRuns]runSpec{seedIter: bvh[iter], seedPred: bvh[pred], seedSpec: spec, seedBulletIter: bullet[0], seedBulletPred: bullet[1]}
		for i := range reps[k] {
			reps[k][i].replica = k
		}
	}
	return bvh, basic, spec, bullet, boxes, reps
}

// runMatrix runs the matrix of scene sc, rendering shots from the BVH
// predictive run (irtcd's default).
func (c *Config) runMatrix(ctx context.Context, name string, sc scene3d.Scene, n, basicN int, shots []snapshot) (*matrix, error) {
	bvh, basic, spec, bullet, boxes, reps := matrixSpecs(sc, n, basicN)
	tr := newTracker(c, name)
	tr.plan(c, bvh[:]...)
	tr.plan(c, spec)
	tr.plan(c, basic[:]...)
	tr.plan(c, bullet[:]...)
	tr.plan(c, boxes[:]...)
	for k := 1; k < sceneSeeds; k++ {
		tr.plan(c, reps[k][:]...)
	}
	// The pictured run is always simulated: count it if it was cached.
	if _, ok := c.runs.get(bvh[pred].key(c)); ok {
		tr.total += bvh[pred].stepsFor()
	}
	m := &matrix{scene: sc, n: n, basicN: basicN, basicReduced: basicN != n}
	m.pics = &pictures{cfg: c, name: sc.Name, shots: shots}
	// The three methods of a traversal run in lockstep (the BVH ones with
	// the speculative run).
	frames := make([]func(*scene3d.Sim) error, 4)
	frames[pred] = m.pics.onFrame
	out, err := c.lockstep(ctx, append(bvh[:], spec), tr, frames)
	if err != nil {
		return nil, err
	}
	copy(m.bvh[:], out)
	m.spec = out[3]
	if out, err = c.lockstep(ctx, basic[:], tr, nil); err != nil {
		return nil, err
	}
	copy(m.basic[:], out)
	// Not timed: only their interpenetration is compared.
	if out, err = c.lockstep(ctx, bullet[:], tr, nil); err != nil {
		return nil, err
	}
	copy(m.bullet[:], out)
	// The papers' baseline: timed, in lockstep like the others.
	if out, err = c.lockstep(ctx, boxes[:], tr, nil); err != nil {
		return nil, err
	}
	copy(m.boxes[:], out)
	// The cumulative ray length's replicas: untimed.
	m.seeds[0] = [seedRuns]*scene3d.Trace{seedIter: m.bvh[iter], seedPred: m.bvh[pred], seedSpec: m.spec, seedBulletIter: m.bullet[0], seedBulletPred: m.bullet[1]}
	for k := 1; k < sceneSeeds; k++ {
		if out, err = c.lockstep(ctx, reps[k][:], tr, nil); err != nil {
			return nil, err
		}
		copy(m.seeds[k][:], out)
	}
	if !m.basicReduced {
		m.sameStd = identical(m.bvh[std].Steps, m.basic[std].Steps)
		m.sameIter = identical(m.bvh[iter].Steps, m.basic[iter].Steps)
		m.samePred = identical(m.bvh[pred].Steps, m.basic[pred].Steps)
	}
	return m, nil
}

// speedups returns the mean and median speed-ups of slow over fast in sp.
func speedups(slow, fast *scene3d.Trace, sp span) (mean, med float64) {
	return speedupsOf(slow, fast, sp, narrowOf)
}

// speedupsOf returns the mean and median speed-ups of slow over fast in sp
// of the time f of a step.
func speedupsOf(slow, fast *scene3d.Trace, sp span, f func(*scene3d.StepMetrics) time.Duration) (mean, med float64) {
	return div(meanTime(slow.Steps, sp, f), meanTime(fast.Steps, sp, f)), div(medianTime(slow.Steps, sp, f), medianTime(fast.Steps, sp, f))
}

// timeChart plots the narrow phase's time per step of the given runs.
func timeChart(file, title string, markers []marker, cs ...curve) *chart {
	return &chart{file: file, title: title, xLabel: "simulated time (s)", yLabel: "narrow phase, ms per step (log scale)",
		logY: true, curves: cs, markers: markers}
}

// accuracyReport adds the iterative and predictive runs' comparison with
// the standard algorithm to s: wrongly detected pairs, erroneous rays and
// the total interpenetration, with the paper's figures, and returns the
// erroneous-ray chart. paperWrong and paperDecrease are fractions.
func accuracyReport(c *Config, s *Section, m *matrix, scene string, paperWrong, paperDecrease float64, fig string, markers []marker) (Plot, error) {
	all := span{"all", 0, len(m.bvh[iter].Steps)}
	ai, ap, as := accuracyOf(m.bvh[iter].Steps, all), accuracyOf(m.bvh[pred].Steps, all), accuracyOf(m.bvh[std].Steps, all)
	worst, worstStep, worstPairs := worstWrongStep(m.bvh[iter].Steps, 100)
	worstAny, worstAnyStep, worstAnyPairs := worstWrongStep(m.bvh[iter].Steps, 1)
	worstP, _, _ := worstWrongStep(m.bvh[pred].Steps, 100)
	red, redAt, windows := maxWindowReduction(m.bvh[iter].Steps, m.bvh[pred].Steps)
	redAll := reduction(ai.errShare(), ap.errShare())
	asp := accuracyOf(m.spec.Steps, all)
	t := &Table{
		Caption: fmt.Sprintf("Exactness of IRTCD against the standard algorithm, %s (BVH runs; every step's pairs detected again by the standard algorithm at the same poses).", scene),
		Header:  []string{"row", "paper", "irtcd", "irtcd / paper"},
		Align:   "lrrr",
	}
	wstep := ""
	if worstStep >= 0 {
		wstep = fmt.Sprintf(" (step %d, %d pairs)", worstStep, worstPairs)
	}
	t.AddRow("wrongly detected pairs, iterative, worst step (steps with ≥ 100 pairs)", "≤ "+pct(paperWrong, 1), pct(worst, 2)+wstep, ratio(worst, paperWrong))
	ww, wwAt := worstWrongWindow(m.bvh[iter].Steps)
	t.AddRow("wrongly detected pairs, iterative, worst 0.5 s window", "—", pct(ww, 2)+fmt.Sprintf(" (steps %d–%d)", wwAt, wwAt+reductionWindow-1), "—")
	t.AddRow("wrongly detected pairs, iterative, whole run (Σ wrong / Σ pairs)", "—", pct(ai.wrongShare(), 3), "—")
	t.AddRow("wrongly detected pairs, iterative + predictive: worst step / whole run", "—", pct(worstP, 2)+" / "+pct(ap.wrongShare(), 3), "—")
	t.AddRow("erroneous rays, iterative, whole run", "—", pct(ai.errShare(), 2), "—")
	t.AddRow("erroneous rays, iterative + predictive, whole run", "—", pct(ap.errShare(), 2), "—")
	rat := ""
	if redAt >= 0 {
		rat = fmt.Sprintf(" (steps %d–%d)", redAt, redAt+reductionWindow-1)
	}
	t.AddRow("reduction of the share of erroneous rays by prediction, best 0.5 s window", "up to 91 %", pct(red, 1)+rat, ratio(red, 0.91))
	rs, rsAt := maxStepReduction(m.bvh[iter].Steps, m.bvh[pred].Steps)
	t.AddRow("reduction of the share of erroneous rays by prediction, best single step", "—", pct(rs, 1)+fmt.Sprintf(" (step %d)", rsAt), "—")
	t.AddRow("reduction of the share of erroneous rays by prediction, whole run", "—", pct(redAll, 1), "—")
	t.AddRow("cumulative ray length (raw |r|, standard algorithm), standard algorithm at every step (for scale)", "—", num(as.rayLength, 1), "—")
	t.AddRow("speculative contacts: wrongly detected pairs, worst step / whole run; erroneous rays, whole run", "—",
		pct(worstWrong(m.spec.Steps), 2)+" / "+pct(asp.wrongShare(), 3)+"; "+pct(asp.errShare(), 2), "—")
	lengths := &Table{
		Caption: fmt.Sprintf("Cumulative ray length (raw |r| of the standard algorithm on each run's states, summed over the run) and its change with prediction, %s, BVH: the bench's own seed and the means over %d seeds.", scene, sceneSeeds),
		Header:  []string{"comparison", "paper: change", "irtcd, this seed", fmt.Sprintf("irtcd, means of %d seeds", sceneSeeds), "irtcd: change of the means", "irtcd: change per seed (least … most)", "irtcd / paper (decrease)"},
		Align:   "lrrrrrr",
	}
	type cmp struct {
		row, summary, metric string
		a, b                 int
		dec                  float64 // change of the means (as a decrease)
		least, most          float64
	}
	cmps := []*cmp{
		{row: "iterative → iterative + predictive", metric: "pred", a: seedIter, b: seedPred,
			summary: "Cumulative ray length (total interpenetration) with prediction, %s"},
		{row: "iterative → iterative + predictive with speculative contacts (irtcd option, not in the paper)", metric: "spec", a: seedIter, b: seedSpec,
			summary: "Cumulative ray length with prediction and speculative contacts (irtcd option, not in the paper), %s"},
		{row: "with Bullet's solver constants (the paper's engine; see Table 2's section): iterative → iterative + predictive", metric: "bullet", a: seedBulletIter, b: seedBulletPred,
			summary: "Cumulative ray length with prediction, with Bullet's solver constants (the paper's engine; see Table 2's section), %s"},
	}
	for _, c := range cmps {
		ma, mb, least, most := seedSpread(m.seedPairs(c.a, c.b))
		c.dec, c.least, c.most = reduction(ma, mb), least, most
		oa, ob := wholeRun(m.seeds[0][c.a]).rayLength, wholeRun(m.seeds[0][c.b]).rayLength
		lengths.AddRow(c.row, change(-paperDecrease, 0),
			fmt.Sprintf("%s → %s (%s)", num(oa, 1), num(ob, 1), change(-reduction(oa, ob), 1)),
			num(ma, 1)+" → "+num(mb, 1), change(-c.dec, 1), change(least, 1)+" … "+change(most, 1), ratio(c.dec, paperDecrease))
		s.metric(c.metric+"MeanA", ma)
		s.metric(c.metric+"MeanB", mb)
		s.metric(c.metric+"ChangeLeast", least)
		s.metric(c.metric+"ChangeMost", most)
	}
	s.Tables = append(s.Tables, t, lengths)
	s.Tables = append(s.Tables, speculativeCost(m, scene))
	detail := &Table{
		Caption: "Erroneous rays by kind (whole run, BVH): missed = a contact of the standard algorithm only; extra = of the variant only; mismatched = both, at a depth differing by more than 1e-6 × the smaller shape's size, or on a different primitive in a direction differing by more than 1e-6.",
		Header:  []string{"method", "rays compared", "erroneous", "missed", "extra", "mismatched", "pairs tested", "wrong pairs"},
		Align:   "lrrrrrrr",
	}
	for _, r := range []struct {
		name string
		a    accuracy
	}{{"standard", as}, {"iterative", ai}, {"iterative + predictive", ap}} {
		detail.AddRow(r.name, fmt.Sprint(r.a.compared), fmt.Sprint(r.a.erroneous), fmt.Sprint(r.a.missed), fmt.Sprint(r.a.extra),
			fmt.Sprint(r.a.mism), fmt.Sprint(r.a.pairs), fmt.Sprint(r.a.wrongPairs))
	}
	s.Tables = append(s.Tables, detail)
	unrestricted := "it is also the worst of all steps"
	if worstAnyStep != worstStep {
		unrestricted = fmt.Sprintf("over all steps the worst is %s, step %d with %d pairs, where a handful of pairs makes one wrong pair a large share",
			pct(worstAny, 2), worstAnyStep, worstAnyPairs)
	}
	s.Notes = append(s.Notes, fmt.Sprintf(`
Definitions (exactness). A ray is one (pair, side, vertex); the rays
compared at a step are those with a contact in the variant, the standard
reference or both (scene3d.RayDiff). The share of erroneous rays is
Σ erroneous / Σ compared over the steps considered. A pair is wrongly
detected when it has contacts in one run and none in the other; its share
is over all the pairs the narrow phase tested. The worst step is taken over
the steps that tested at least 100 pairs (%s). The reduction by prediction
of the share of erroneous rays is 1 − share(predictive) / share(iterative),
over the whole run, over single steps and over consecutive windows of %d
steps (0.5 s), counting only the steps or windows in which the iterative
run has at least %d erroneous rays (%d such windows); "up to" is the best
window, our reading of the paper's "up to 91 %%" read off its Figures 9
and 10. The cumulative ray length is the sum over all steps of the raw ray
lengths |r| of the standard algorithm run on each variant's own states
(scene3d.Options.RefRawRays), the paper's "total interpenetration"; the
reference's detection is outside the narrow-phase timings. The scenes are
chaotic and Σ|r| follows the landings and jams of one trajectory, so the
runs of the cumulative-ray-length table (iterative; iterative + predictive,
also with speculative contacts and with Bullet's solver constants) are
repeated with %d seeds (other layouts, orientations and spawn order;
untimed), and its changes are those of the means over the seeds; the
exactness table is the bench's own seed. The paper's
scenes ran in Bullet, so the iterative and predictive runs are also made
with Bullet's solver constants in our solver (no slop, and a stronger
correction of contacts deeper than 4 cm; see the section on Table 2),
untimed: without a slop, resting contacts no longer keep irtcd's default
5 mm of penetration in every step's sum of both runs.`, unrestricted, reductionWindow, reductionMinErrors, windows, sceneSeeds))
	s.Summary = append(s.Summary,
		SummaryRow{fmt.Sprintf("Wrongly detected pairs, iterative, %s, worst step", scene), "≤ " + pct(paperWrong, 1), pct(worst, 2), better(worst, paperWrong, false, 0)},
		SummaryRow{fmt.Sprintf("Erroneous rays reduced by prediction, %s (best 0.5 s window / whole run)", scene), "up to 91 %", pct(red, 0) + " / " + pct(redAll, 0), better(red, 0.91, true, 0)},
	)
	for _, c := range cmps {
		s.Summary = append(s.Summary, SummaryRow{fmt.Sprintf(c.summary+" (change of the means of %d seeds; each seed's change in parentheses)", scene, sceneSeeds),
			change(-paperDecrease, 0), fmt.Sprintf("%s (%s … %s)", change(-c.dec, 0), change(c.least, 0), change(c.most, 0)), better(c.dec, paperDecrease, true, 0)})
	}
	s.metric("rayLengthSpeculative", asp.rayLength)
	s.metric("errShareIterative", ai.errShare())
	s.metric("errSharePredictive", ap.errShare())
	s.metric("rayLengthIterative", ai.rayLength)
	s.metric("rayLengthPredictive", ap.rayLength)
	s.metric("wrongWorst", worst)
	ch := &chart{
		file:   m.scene.Name + "-erroneous-rays.png",
		title:  fmt.Sprintf("%s (%d objects, BVH): erroneous rays per step", m.scene.Name, m.n),
		xLabel: "simulated time (s)", yLabel: "erroneous rays (% of compared rays)",
		markers: markers,
		curves: []curve{
			{name: "iterative", xy: perStep(m.bvh[iter], erroneousPct), col: colIterative},
			{name: "iterative + predictive", xy: perStep(m.bvh[pred], erroneousPct), col: colPredictive},
		},
	}
	return ch.draw(c, fmt.Sprintf("%s: share of erroneous rays per step, iterative against iterative + predictive (like %s of the interpenetration paper).", scene, fig))
}

// interpenetrationChart plots the per-step total interpenetration of the
// BVH runs.
func interpenetrationChart(c *Config, m *matrix, markers []marker) (Plot, error) {
	rl := func(s *scene3d.StepMetrics) float64 { return s.RefDepthSum }
	ch := &chart{
		file:   m.scene.Name + "-interpenetration.png",
		title:  fmt.Sprintf("%s (%d objects, BVH): total interpenetration per step", m.scene.Name, m.n),
		xLabel: "simulated time (s)", yLabel: "Σ raw ray length |r| of the standard algorithm (m)",
		markers: markers,
		curves: []curve{
			{name: "standard", xy: perStep(m.bvh[std], rl), col: colStandard},
			{name: "iterative", xy: perStep(m.bvh[iter], rl), col: colIterative},
			{name: "iterative + predictive", xy: perStep(m.bvh[pred], rl), col: colPredictive},
			{name: "iterative + predictive, speculative contacts", xy: perStep(m.spec, rl), col: colBasicPred, dashed: true},
		},
	}
	return ch.draw(c, "Total interpenetration per step: the sum of the standard algorithm's raw ray lengths on each run's own states (their sum over the run is the cumulative ray length).")
}

// sameNote says whether the basic and BVH runs agree.
func (m *matrix) sameNote() string {
	if m.basicReduced {
		return fmt.Sprintf("The basic-traversal runs have %d objects instead of %d (see above), so their trajectories differ from the BVH runs'.", m.basicN, m.n)
	}
	yn := func(b bool) string {
		if b {
			return "identical"
		}
		return "not identical"
	}
	return fmt.Sprintf("Both traversals find the same hits, so the basic and BVH runs should follow the same trajectory: per-step pairs, contacts and depths are %s for the standard runs, %s for the iterative runs and %s for the predictive runs.",
		yn(m.sameStd), yn(m.sameIter), yn(m.samePred))
}

// spikeNote counts each run's spikes.
func (m *matrix) spikeNote() string {
	var parts []string
	for _, tv := range []struct {
		name string
		runs [3]*scene3d.Trace
	}{{"BVH", m.bvh}, {"basic", m.basic}} {
		for k, name := range []string{"non-iterative", "iterative", "iterative + predictive"} {
			parts = append(parts, fmt.Sprintf("%s %s %d", tv.name, name, spikes(tv.runs[k].Steps, spikeFactor, spikeHalf)))
		}
	}
	return fmt.Sprintf(`Steps far slower than their neighbours (over %g× the median of the same
run's steps within ±%d steps): %s. Such a step mostly waited for the host of
this shared virtual machine (in an iterative run it can also be many pairs
falling back to the standard algorithm at once). They weigh on the ratios of
means (the paper's definition, our headline); the ratios of medians are
insensitive to them.`, spikeFactor, spikeHalf, strings.Join(parts, ", "))
}

// The spike criterion.
const (
	spikeFactor = 10.0
	spikeHalf   = 30
)

// fmtMs formats milliseconds.
func fmtMs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v < 1:
		return num(v, 3)
	case v < 100:
		return num(v, 2)
	}
	return num(v, 0)
}

// worstWrong returns the largest share of wrongly detected pairs over the
// steps that tested at least 100 pairs.
func worstWrong(steps []scene3d.StepMetrics) float64 {
	w, _, _ := worstWrongStep(steps, 100)
	return w
}

// speculativeCost tabulates what speculative contacts cost: the BVH
// predictive run without and with them, narrow phase and whole step
// (same lockstep, so the same machine load).
func speculativeCost(m *matrix, scene string) *Table {
	all := span{"all", 0, len(m.bvh[pred].Steps)}
	t := &Table{
		Caption: fmt.Sprintf("Speculative contacts (narrow.Params.Speculative, an irtcd option the papers do not have), %s, BVH: the predictions whose gap could close within a step also go to the solver, as gaps that may close but not overshoot. Means per step over the whole run; both runs in the same lockstep.", scene),
		Header:  []string{"run", "narrow phase (ms)", "whole step (ms)", "contacts", "speculative contacts", "solver points (speculative)", "cumulative ray length"},
		Align:   "lrrrrrr",
	}
	for _, r := range []struct {
		name string
		tr   *scene3d.Trace
	}{{"iterative + predictive", m.bvh[pred]}, {"… with speculative contacts", m.spec}} {
		var tot time.Duration
		var contacts, specs, points, specPts int
		for _, st := range r.tr.Steps {
			tot += st.Total
			contacts += st.Contacts
			specs += st.SpeculativeContacts
			points += st.Points
			specPts += st.Speculative
		}
		n := float64(len(r.tr.Steps))
		t.AddRow(r.name, num(meanNarrow(r.tr.Steps, all), 2), num(ms(tot)/n, 2), num(float64(contacts)/n, 0), num(float64(specs)/n, 0),
			fmt.Sprintf("%s (%s)", num(float64(points)/n, 0), num(float64(specPts)/n, 0)), num(accuracyOf(r.tr.Steps, all).rayLength, 1))
	}
	return t
}

// papersBaseline returns the table that times IRTCD against the papers'
// own baseline: the BVH runs with narrow.CullBoxes, whose standard
// algorithm casts from every vertex in the world boxes' intersection
// (Hermann et al.'s culling, which the papers' standard algorithm uses),
// over the spans sps with the papers' figures paper (NaN: none
// published), and returns, per span, the iterative speed-up (ratio of
// means) and the time cost of prediction (iterative over predictive
// time). It records in s whether the standard runs with either culling saw
// the same pairs, contacts and depths at every step (metric
// "boxesSameStandard", 1 or 0; they must, culling drops no contact) and
// the ratio of their standard rays over the whole run ("boxesRayRatio").
// raySpeedup is the iterative speed-up of the ray work alone
// (scene3d.StepMetrics.RayTime, ratio of means): the papers' measure
// ("time spent on ray-tracing") against the papers' baseline.
func papersBaseline(s *Section, m *matrix, scene string, sps []span, paper []float64) (t *Table, speedup, raySpeedup, predCost []float64) {
	same := 0.0
	if identical(m.boxes[std].Steps, m.bvh[std].Steps) {
		same = 1
	}
	s.metric("boxesSameStandard", same)
	t = &Table{
		Caption: fmt.Sprintf("Against the papers' own baseline, %s (BVH): the three methods again with the papers' culling, narrow.CullBoxes (a standard step casts from every vertex in the intersection of the two world bounding boxes grown by distanceExtension, Hermann et al.'s ray-count optimisation, 2013b §3.1), run in lockstep like the others. Iterative speed-up (ratio of means / of medians) against the paper's, and that of the ray work alone (the work items: culling, rays, walks and contacts, narrow.DetectTimes.Rays; ratio of means), the papers' measure (\"time spent on ray-tracing\") against their baseline; the standard algorithm's time per step and rays per step with the papers' culling and with irtcd's; the time cost of prediction (iterative time over iterative + predictive time).", scene),
		Header:  []string{"steps", "paper", "iterative speed-up, mean / median", "irtcd / paper", "ray work alone: iterative speed-up", "irtcd / paper", "standard, ms/step: papers' culling / irtcd's", "standard rays/step: papers' culling / irtcd's", "prediction t_it / t_pred"},
		Align:   "lrrrrrrrr",
	}
	b, ours := m.boxes, m.bvh[std]
	all := span{"all", 0, len(ours.Steps)}
	s.metric("boxesRayRatio", div(standardRays(b[std], all), standardRays(ours, all)))
	for k, sp := range sps {
		sp := sp.clip(len(b[std].Steps))
		mean, med := speedups(b[std], b[iter], sp)
		rays, _ := speedupsOf(b[std], b[iter], sp, rayOf)
		cost, _ := speedups(b[iter], b[pred], sp)
		speedup, raySpeedup, predCost = append(speedup, mean), append(raySpeedup, rays), append(predCost, cost)
		p := num(paper[k], 1)
		if math.IsNaN(paper[k]) {
			p = "—"
		}
		t.AddRow(sp.String(), p, num(mean, 2)+" / "+num(med, 2), ratio(mean, paper[k]), num(rays, 2), ratio(rays, paper[k]),
			fmtMs(meanNarrow(b[std].Steps, sp))+" / "+fmtMs(meanNarrow(ours.Steps, sp)),
			num(standardRays(b[std], sp), 0)+" / "+num(standardRays(ours, sp), 0), times(cost, 2))
	}
	return t, speedup, raySpeedup, predCost
}

// standardRays returns the mean standard rays per step of tr in sp.
func standardRays(tr *scene3d.Trace, sp span) float64 {
	n := 0
	for _, st := range tr.Steps[sp.from:sp.to] {
		n += st.StandardRays
	}
	return div(float64(n), float64(sp.to-sp.from))
}
