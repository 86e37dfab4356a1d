package experiment

import (
	"context"
	"fmt"
	"strings"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// toriShots are the steps the pictures of the tori and bunnies show, of st.
func toriShots(st int) []snapshot {
	return []snapshot{{st / 5, "the first objects land"}, {st / 2, "half of them released"}, {st, "the end"}}
}

// toriLY and bunniesLY are Li & Yamaguchi's two rigid scenes as the
// report names them.
var (
	toriLY = lyScene{name: "tori", label: "100 tori", timeFile: "tori-time-prediction.png", fig: "Fig. 12", figNote: ": against GJK",
		paper: [3]float64{paperToriStd, paperToriIter, paperToriPred}}
	bunniesLY = lyScene{name: "bunnies", label: "100 bunnies", timeFile: "bunnies-time.png", fig: "Fig. 10", figNote: ", 30 bunnies: against GJK",
		paper: [3]float64{paperBunniesStd, paperBunniesIter, paperBunniesPred}}
)

// lyMethods are the methods Li & Yamaguchi's Tables 2 and 3 time, in
// their order: without iterative, with iterative, iterative + predictive.
var (
	lyMethods = [3]narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive}
	lyNames   = [3]string{"standard", "iterative", "iterative + predictive"}
)

// The indices of lyMethods.
const (
	lyStd = iota
	lyIter
	lyPred
)

// lySpecs returns the timing runs of sc with n objects, one per method of
// lyMethods.
func lySpecs(sc scene3d.Scene, n int) [3]runSpec {
	var sp [3]runSpec
	for i, m := range lyMethods {
		sp[i] = runSpec{scene: sc, n: n, params: narrow.Params{Method: m}, fresh: true}
	}
	return sp
}

// lyTiming is the narrow phase's time per step of one scene under each
// method of lyMethods (Li & Yamaguchi's Tables 2 and 3).
type lyTiming struct {
	ms     [3]float64        // the median over the runs of each run's mean, ms a step
	perRun [3][]float64      // each run's mean, ms a step
	runs   [3]*scene3d.Trace // the last run of each method
	pics   *pictures         // drawn from the first run with prediction
}

// timeMethods runs the specs (lySpecs) in lockstep toriTimeReps times
// (blocks of lockBlock steps of each in turn) and keeps, per method, the
// median of the runs' mean narrow-phase times. The runs of one method are
// identical but for their timings. The first predictive run draws the
// pictures at shots.
func (c *Config) timeMethods(ctx context.Context, specs [3]runSpec, tr *tracker, name string, shots []snapshot) (*lyTiming, error) {
	lt := &lyTiming{pics: &pictures{cfg: c, name: name, shots: shots}}
	for rep := range toriTimeReps {
		frames := make([]func(*scene3d.Sim) error, len(specs))
		if rep == 0 {
			frames[lyPred] = lt.pics.onFrame
		}
		out, err := c.lockstep(ctx, specs[:], tr, frames)
		if err != nil {
			return nil, err
		}
		for i, t := range out {
			lt.runs[i] = t
			lt.perRun[i] = append(lt.perRun[i], meanNarrow(t.Steps, span{"", 0, len(t.Steps)}))
		}
	}
	for i := range lt.ms {
		lt.ms[i] = median(lt.perRun[i])
	}
	return lt, nil
}

// speedup is Table 2's ratio: the standard algorithm's time over the
// iterative algorithm's.
func (lt *lyTiming) speedup() float64 { return div(lt.ms[lyStd], lt.ms[lyIter]) }

// overhead is Table 3's: iterative + predictive over iterative, less 1.
func (lt *lyTiming) overhead() float64 { return div(lt.ms[lyPred], lt.ms[lyIter]) - 1 }

// timingTable is Li & Yamaguchi's Tables 2 and 3 for one scene, the
// paper's ms a step (std, iter, pred) next to ours.
func (lt *lyTiming) timingTable(scene string, paper [3]float64) *Table {
	t := &Table{
		Caption: fmt.Sprintf("Iterative and predictive ray performance, %s: narrow-phase time per step (Li & Yamaguchi, Tables 2 and 3; the paper's GPU times and ours compare as ratios only).", scene),
		Header:  []string{"row", "paper", "irtcd", "irtcd / paper"},
		Align:   "lrrr",
	}
	for i, name := range lyNames {
		t.AddRow(name+", ms/step", num(paper[i], 1), num(lt.ms[i], 3), ratio(lt.ms[i], paper[i]))
	}
	ps, po := paper[lyStd]/paper[lyIter], paper[lyPred]/paper[lyIter]-1
	t.AddRow("iterative speed-up (standard / iterative), Table 2", num(ps, 2)+"×", num(lt.speedup(), 2)+"×", ratio(lt.speedup(), ps))
	t.AddRow("overhead of prediction, Table 3", change(po, 1), change(lt.overhead(), 1), ratio(lt.overhead(), po))
	for i, name := range lyNames {
		var rays, contacts, iter, pairs float64
		for _, m := range lt.runs[i].Steps {
			rays += float64(m.Rays())
			contacts += float64(m.Contacts)
			iter += float64(m.IterativePairs)
			pairs += float64(m.Pairs)
		}
		k := float64(max(1, len(lt.runs[i].Steps)))
		t.AddRow(name+": rays, contacts and pairs per step (iterative share of the pairs)", "—",
			fmt.Sprintf("%s, %s, %s (%s)", num(rays/k, 0), num(contacts/k, 0), num(pairs/k, 0), pct(div(iter, pairs), 0)), "—")
	}
	return t
}

// runsNote lists each method's timing runs.
func (lt *lyTiming) runsNote() string {
	var each []string
	for i, name := range lyNames {
		parts := make([]string, len(lt.perRun[i]))
		for j, v := range lt.perRun[i] {
			parts[j] = num(v, 3)
		}
		each = append(each, name+": "+strings.Join(parts, ", "))
	}
	return strings.Join(each, "; ")
}

// lyScene names one of Li & Yamaguchi's scenes in the report.
type lyScene struct {
	name     string     // file prefix: "tori"
	label    string     // "100 tori"
	timeFile string     // the time chart's file
	fig      string     // the paper's figure of colliding pairs: "Fig. 12"
	figNote  string     // what the summary adds to it: ": against GJK"
	paper    [3]float64 // Tables 2 and 3, ms a step, in lyMethods' order
}

// charts draws the scene's narrow-phase time per step (lt) and colliding
// pairs per step (pc) of n objects.
func (ls *lyScene) charts(cfg *Config, lt *lyTiming, pc *pairCounts, n int) (tp, pp Plot, err error) {
	tp, err = lt.timeChart(ls.timeFile, fmt.Sprintf("%s (%d): narrow phase per step, standard, iterative, iterative + predictive", ls.name, n)).
		draw(cfg, "Narrow-phase time per step without the iterative algorithm, with it, and with predictive rays (last timing run of each).")
	if err != nil {
		return tp, pp, err
	}
	pp, err = pc.chart(ls.name+"-pairs.png", fmt.Sprintf("%s (%d): colliding pairs per step", ls.name, n)).
		draw(cfg, "Colliding pairs per step: detected by irtcd (iterative + predictive) and overlapping by the exact test on the same poses (like "+ls.fig+" of Li & Yamaguchi, which compares with GJK).")
	return tp, pp, err
}

// summary returns the scene's summary rows: Table 2's speed-up, Table 3's
// overhead and the colliding pairs (countPairs).
func (ls *lyScene) summary(lt *lyTiming, pcs [pcRuns]*pairCounts) (speed, over, pairs SummaryRow) {
	paperSpeed, paperOver := ls.paper[lyStd]/ls.paper[lyIter], ls.paper[lyPred]/ls.paper[lyIter]-1
	speed = SummaryRow{"Iterative speed-up, " + ls.label + " (Li & Yamaguchi Table 2: ms/step without → with iterative)",
		num(ls.paper[lyStd], 1) + " → " + num(ls.paper[lyIter], 1) + " (" + num(paperSpeed, 2) + "×)",
		num(lt.ms[lyStd], 2) + " → " + num(lt.ms[lyIter], 2) + " (" + num(lt.speedup(), 2) + "×)", better(lt.speedup(), paperSpeed, true, 0)}
	over = SummaryRow{"Predictive rays' overhead, " + ls.label + " (ms/step iterative → iterative + predictive)",
		num(ls.paper[lyIter], 1) + " → " + num(ls.paper[lyPred], 1) + " (" + change(paperOver, 1) + ")",
		num(lt.ms[lyIter], 2) + " → " + num(lt.ms[lyPred], 2) + " (" + change(lt.overhead(), 1) + ")", better(lt.overhead(), paperOver, false, 0) + " (overhead)"}
	pairs = SummaryRow{"Colliding pairs per step against an exact test, " + ls.label + " (" + ls.fig + ls.figNote + "); overlapping pairs not detected over the run",
		"high concordance", pct(pcs[pcPred].missShare(), 2) + " missed (standard algorithm " + pct(pcs[pcStd].missShare(), 2) + ", with edge contacts " + pct(pcs[pcEdges].missShare(), 2) +
			" at " + num(pcs[pcEdges].costOver(pcs[pcPred]), 1) + "× the narrow phase, " + pct(pcs[pcShallow].missShare(), 2) + " at " + num(pcs[pcShallow].costOver(pcs[pcPred]), 1) + "× with EdgeDepth " + num(countEdgeDepth, 2) + " × Size, " +
			pct(pcs[pcFaces].missShare(), 2) + " at " + num(pcs[pcFaces].costOver(pcs[pcPred]), 1) + "× with edge-through-face contacts too)",
		"n/a (no figure in the paper)"}
	return speed, over, pairs
}

// metrics records the scene's figures that the tests check.
func (ls *lyScene) metrics(s *Section, lt *lyTiming, pcs [pcRuns]*pairCounts) {
	s.metric("speedup", lt.speedup())
	s.metric("overhead", lt.overhead())
	s.metric("missShare", pcs[pcPred].missShare())
	s.metric("missShareStandard", pcs[pcStd].missShare())
	s.metric("missShareEdges", pcs[pcEdges].missShare())
	s.metric("missShareShallow", pcs[pcShallow].missShare())
	s.metric("missShareFaces", pcs[pcFaces].missShare())
	inside, spu := 0, 0
	for _, pc := range pcs {
		inside, spu = inside+pc.sumMissInside, spu+pc.sumSpu
	}
	s.metric("missInside", float64(inside))
	s.metric("spurious", float64(spu))
	s.metric("overlapping", float64(pcs[pcPred].sumOverlap))
}

// timeChart plots the narrow phase's time per step of each method's last
// timing run.
func (lt *lyTiming) timeChart(file, title string) *chart {
	return timeChart(file, title, nil,
		curve{name: lyNames[lyStd], xy: perStep(lt.runs[lyStd], narrowMs), col: colStandard},
		curve{name: lyNames[lyIter], xy: perStep(lt.runs[lyIter], narrowMs), col: colIterative},
		curve{name: lyNames[lyPred], xy: perStep(lt.runs[lyPred], narrowMs), col: colPredictive, dashed: true},
	)
}
