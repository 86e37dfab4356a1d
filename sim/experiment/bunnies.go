package experiment

import (
	"context"
	"fmt"
)

// runBunnies is Li & Yamaguchi's scene 2 (100 bunnies): the iterative
// speed-up (Table 2), the cost of predictive rays (Table 3) and the
// colliding pairs against an exact test (Fig. 10, on their 30 bunnies).
func runBunnies(ctx context.Context, cfg *Config) (*Section, error) {
	sc := bunniesScene()
	n := cfg.scaled(toriN, 8)
	tr := newTracker(cfg, "bunnies")
	timing := lySpecs(sc, n)
	counts := pairCountRuns(sc, n)
	for range toriTimeReps {
		for i := range timing {
			tr.total += timing[i].stepsFor()
		}
	}
	tr.plan(cfg, counts[:]...)
	lt, err := cfg.timeMethods(ctx, timing, tr, "bunnies", toriShots(timing[lyPred].stepsFor()))
	if err != nil {
		return nil, err
	}
	pcs, err := cfg.countPairs(ctx, counts, tr)
	if err != nil {
		return nil, err
	}
	pc := pcs[0]
	s := &Section{Title: "100 bunnies: iterative speed-up, cost of predictive rays and colliding pairs (Li & Yamaguchi, Tables 2 and 3, Fig. 10)"}
	s.Intro = fmt.Sprintf(`
The rigid scene 2 of Li & Yamaguchi's deformable-object paper: 100 bunnies
of 453 vertices and 902 triangles falling on a planar ground, here as the
tori's scene with the bunny in the torus's place (%d bunnies scaled to
the torus's size, released one after the other over %g s), with the
same lockstep timing runs (standard, iterative, iterative + predictive;
%d runs of each, the median of the runs' means kept). The paper counts
colliding pairs against GJK in a scene of 30 bunnies (Fig. 10); we count
them in this scene against an exact test, on untimed runs, as for the
tori.`, n, toriRelease, toriTimeReps)
	t := lt.timingTable("scene 2 (100 bunnies)", bunniesLY.paper)
	pairRows(t, pcs)
	s.Tables = []*Table{t}
	tp, pp, err := bunniesLY.charts(cfg, lt, pc, n)
	if err != nil {
		return nil, err
	}
	s.Plots = append([]Plot{tp, pp}, lt.pics.plots...)
	s.Notes = append(s.Notes, fmt.Sprintf("\nTiming runs (mean narrow-phase ms/step of each run): %s.", lt.runsNote()))
	speed, over, pairs := bunniesLY.summary(lt, pcs)
	s.Summary = []SummaryRow{speed, over, pairs}
	bunniesLY.metrics(s, lt, pcs)
	return s, nil
}
