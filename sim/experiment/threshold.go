package experiment

import (
	"context"
	"fmt"
	"math"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// thresholdFactors are the displacement thresholds the threshold
// experiment tries, as multiples of irtcd's default (0.05 × the smaller
// shape's Size, narrow.Params.DisplacementThreshold).
var thresholdFactors = []float64{0.5, 1, 2, 4}

// runThreshold measures what the displacement threshold of Eq. 2
// (Lehericey et al. 2013, §3.3) trades in scene 1: the iterative
// algorithm's speed-up per phase against its exactness (wrongly detected
// pairs, erroneous rays) and the total interpenetration. The paper does
// not give its threshold; this answers whether its speed-ups could be had
// here with a larger one at the paper's error budget.
func runThreshold(ctx context.Context, cfg *Config) (*Section, error) {
	sc := scene3d.Avalanche()
	n := cfg.scaled(avalancheN, 8)
	dir, err := scene3d.FindMeshDir(cfg.TestData)
	if err != nil {
		return nil, err
	}
	bunny, err := scene3d.LoadMesh(dir, scene3d.MeshBunny, 0)
	if err != nil {
		return nil, err
	}
	// Every pair of the scene has a bunny as its smaller shape (the other
	// is a bunny or the ground), so the default is one length.
	def := 0.05 * bunny.Size()
	specs := []runSpec{{scene: sc, n: n, params: narrow.Params{Method: narrow.MethodStandard}, fresh: true}}
	for _, f := range thresholdFactors {
		specs = append(specs, runSpec{scene: sc, n: n, params: narrow.Params{Method: narrow.MethodIterative, DisplacementThreshold: f * def}, ref: true, fresh: true})
	}
	tr := newTracker(cfg, "threshold")
	tr.plan(cfg, specs...)
	runs, err := cfg.lockstep(ctx, specs, tr, nil)
	if err != nil {
		return nil, err
	}
	std := runs[0]
	ph := phaseSpans(std.Steps)
	all := span{"all", 0, len(std.Steps)}

	s := &Section{Title: "Displacement threshold: speed-up against exactness, scene 1 (2013 §3.3, Eq. 2)"}
	s.Intro = fmt.Sprintf(`
Eq. 2 of Lehericey et al. 2013 sends a pair back to the standard algorithm
once its relative displacement since its last standard step exceeds
displacementThreshold. The paper does not give the value it used; irtcd's
default is 0.05 × the smaller shape's Size (half its bounding-box
diagonal), %s m for the bunny. A larger threshold lets a pair stay
iterative longer, at the price of rays that miss what moved. This
experiment runs scene 1 (%d bunnies, BVH) with the iterative algorithm at
%s × the default, in lockstep (blocks of %d steps) with one standard run,
and compares each with the standard algorithm at its own states as the
avalanche experiment does (phases of the standard run: A [%d, %d), B
[%d, %d), C [%d, %d)). The question it answers: would a larger threshold
buy the paper's speed-ups at the paper's error budget (at most 1.7 %%
wrongly detected pairs)?`,
		num(def, 4), n, factorList(), lockBlock, ph[0].from, ph[0].to, ph[1].from, ph[1].to, ph[2].from, ph[2].to)

	t := &Table{
		Caption: "Iterative algorithm at several displacement thresholds, scene 1, BVH: speed-up of the narrow phase per phase (ratio of means against the standard run) and exactness against the standard algorithm (the paper: speed-ups — / 2.1 / 6.9, wrongly detected pairs ≤ 1.7 %).",
		Header:  []string{"threshold (× default)", "threshold (m)", "paper: speed-up A / B / C", "irtcd: speed-up A / B / C", "whole run", "standard pairs, phase C", "paper: wrong pairs, worst step", "irtcd: wrong pairs, worst step", "wrong pairs, whole run", "erroneous rays", "cumulative ray length"},
		Align:   "rrrrrrrrrrr",
	}
	bestC, bestF := math.NaN(), math.NaN()
	var stdC, spC, worstAt []float64
	stdMs, itMs, perPairUs, boundC := math.NaN(), math.NaN(), math.NaN(), math.NaN()
	for i, f := range thresholdFactors {
		it := runs[i+1]
		var sp [3]float64
		for k, p := range ph {
			sp[k], _ = speedups(std, it, p.clip(len(it.Steps)))
		}
		c := sp[2]
		whole, _ := speedups(std, it, all)
		worst, _, _ := worstWrongStep(it.Steps, 100)
		acc := accuracyOf(it.Steps, all)
		share := standardShare(it.Steps, ph[2])
		if f == 1 {
			// What the standard steps of phase C cost the iterative run,
			// if they cost what the standard run's do on average.
			pc := ph[2].clip(len(it.Steps))
			perPair := div(meanNarrow(std.Steps, pc), meanPairs(std.Steps, pc))
			stdMs = share * meanPairs(it.Steps, pc) * perPair
			itMs, perPairUs = meanNarrow(it.Steps, pc), 1000*perPair
			boundC = div(meanNarrow(std.Steps, pc), itMs-stdMs)
			if itMs-stdMs <= 0 {
				// The estimate leaves no time to the other pairs (on a
				// small pile, or a slow spell of the machine during the
				// standard run): it sets no bound.
				boundC = math.Inf(1)
			}
			s.metric("boundC", boundC)
		}
		stdC, spC, worstAt = append(stdC, share), append(spC, c), append(worstAt, worst)
		t.AddRow(num(f, 2), num(f*def, 4), "— / 2.1 / 6.9", num(sp[0], 2)+" / "+num(sp[1], 2)+" / "+num(sp[2], 2), num(whole, 2), pct(share, 2),
			"≤ 1.7 %", pct(worst, 2), pct(acc.wrongShare(), 3), pct(acc.errShare(), 2), num(acc.rayLength, 1))
		s.metric(fmt.Sprintf("speedupC×%g", f), c)
		s.metric(fmt.Sprintf("wrong×%g", f), acc.wrongShare())
		s.metric(fmt.Sprintf("errShare×%g", f), acc.errShare())
		if worst <= 0.017 && (math.IsNaN(bestC) || c > bestC) {
			bestC, bestF = c, f
		}
	}
	s.Tables = append(s.Tables, t)
	list := func(v []float64, f func(float64) string) string {
		out := ""
		for i, x := range v {
			if i > 0 {
				out += " / "
			}
			out += f(x)
		}
		return out
	}
	pct2 := func(v float64) string { return pct(v, 2) }
	num2 := func(v float64) string { return num(v, 2) }
	s.Notes = append(s.Notes, fmt.Sprintf(`
At %s × the default, the pairs of phase C that take a standard step are
%s of the pairs, the phase's speed-up is %s and the worst step's wrongly
detected pairs %s. A larger threshold keeps a pair iterative longer, and
its contacts are less exact: compare the erroneous rays and the
cumulative ray length (the total interpenetration) above.

At the default threshold, if its standard steps cost what the standard
run's cost on average (%s µs a pair), they take about %s ms of the
iterative run's %s ms per step in phase C. %s`,
		list(thresholdFactors, func(v float64) string { return num(v, 1) }), list(stdC, pct2), list(spC, num2), list(worstAt, pct2),
		num(perPairUs, 2), num(stdMs, 2), num(itMs, 2), boundNote(itMs-stdMs, boundC)))
	bestRow := "none within 1.7 %"
	if !math.IsNaN(bestF) {
		bestRow = fmt.Sprintf("%s (at %s × the default threshold)", num(bestC, 2), num(bestF, 2))
	}
	s.Summary = append(s.Summary, SummaryRow{
		Row:    "Iterative speed-up, scene 1, BVH, phase C, at the best displacement threshold whose worst-step wrong pairs stay within the paper's 1.7 % (" + factorList() + " × the default tried)",
		Paper:  "6.9 (threshold not given)",
		Ours:   bestRow,
		Better: better(bestC, 6.9, true, 0.05),
	})
	return s, nil
}

// factorList returns thresholdFactors as "0.5, 1, 2 and 4".
func factorList() string {
	out := ""
	for i, f := range thresholdFactors {
		switch {
		case i == 0:
		case i == len(thresholdFactors)-1:
			out += " and "
		default:
			out += ", "
		}
		out += num(f, 1)
	}
	return out
}

// standardShare returns the share of the pairs of sp that took a standard
// step.
func standardShare(steps []scene3d.StepMetrics, sp span) float64 {
	sp = sp.clip(len(steps))
	var std, pairs int
	for _, m := range steps[sp.from:sp.to] {
		std += m.StandardPairs
		pairs += m.Pairs
	}
	return div(float64(std), float64(pairs))
}

// meanPairs returns the mean number of pairs per step over sp.
func meanPairs(steps []scene3d.StepMetrics, sp span) float64 {
	sp = sp.clip(len(steps))
	n := 0
	for _, m := range steps[sp.from:sp.to] {
		n += m.Pairs
	}
	return div(float64(n), float64(sp.to-sp.from))
}

// below returns ", below the paper's X" when v < paper, else "".
// boundNote says what the iterative steps other than the standard ones,
// rest ms a step, would leave of phase C's speed-up (bound).
func boundNote(rest, bound float64) string {
	if math.IsInf(bound, 1) {
		return `By this estimate the standard steps take all of it, so it
bounds nothing here.`
	}
	return fmt.Sprintf(`The other %s ms, the iterative steps of the other
pairs (Eq. 2, the stored rays' walks, the contacts and their manifolds),
alone would hold the phase's speed-up under about %s with no standard step
at all%s.`, num(rest, 2), num(bound, 1), below(bound, paperAvalancheBVH[2]))
}

func below(v, paper float64) string {
	if v < paper {
		return ", below the paper's " + num(paper, 1)
	}
	return ""
}
