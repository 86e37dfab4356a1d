package experiment

import (
	"context"
	"fmt"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// Table 2 of Lehericey et al. 2013b: the cumulative length of all rays
// along the simulation, without and with re-projection.
var paperTable2 = [2][2]float64{{16115, 10793}, {66094, 38398}}

// seededDetections are the detections of runReprojectionScenes that run
// at every seed: iterative + predictive, with speculative contacts, with
// Bullet's solver constants and with continuous collision detection (not
// the standard algorithm, 1).
var seededDetections = []int{0, 2, 3, 4}

// table2Detections is the number of detections of runReprojectionScenes.
const table2Detections = 5

// table2Runs holds one scene's runs of runReprojectionScenes.
type table2Runs struct {
	label string
	sc    scene3d.Scene
	n     int
	paper [2]float64
	// [detection: predictive, standard, predictive with speculative
	// contacts, predictive with Bullet's solver constants, predictive
	// with continuous collision detection][response: ray, mtd]
	specs [table2Detections][2]runSpec
	runs  [table2Detections][2]*scene3d.Trace
	// [seed][detection][response]: the runs at every seed; seed 0 is
	// specs. The standard detection (1) runs at seed 0 only.
	reps    [sceneSeeds][table2Detections][2]runSpec
	repRuns [sceneSeeds][table2Detections][2]*scene3d.Trace
}

// seedPairs returns the raw-ray and re-projection runs of detection i at
// every seed.
func (sr *table2Runs) seedPairs(i int) [][2]*scene3d.Trace {
	out := make([][2]*scene3d.Trace, len(sr.repRuns))
	for k := range sr.repRuns {
		out[k] = sr.repRuns[k][i]
	}
	return out
}

// runReprojectionScenes compares, in scenes 1 and 2, the total
// interpenetration of a simulation whose contacts are Hermann et al.'s raw
// rays (ResponseRay) with one whose contacts are re-projected on the hit
// surface's normal (ResponseMTD), 2013b §5.4, Table 2.
func runReprojectionScenes(ctx context.Context, cfg *Config) (*Section, error) {
	scenes := []*table2Runs{
		{label: "scene 1 (avalanche)", sc: scene3d.Avalanche(), n: cfg.scaled(avalancheN, 8), paper: paperTable2[0]},
		{label: "scene 2 (spawner)", sc: scene3d.Spawner(), n: cfg.scaled(spawnerN, 8), paper: paperTable2[1]},
	}
	tr := newTracker(cfg, "reprojection-scenes")
	for _, sr := range scenes {
		for i, m := range []narrow.Method{narrow.MethodPredictive, narrow.MethodStandard, narrow.MethodPredictive, narrow.MethodPredictive, narrow.MethodPredictive} {
			for j, r := range []narrow.Response{narrow.ResponseRay, narrow.ResponseMTD} {
				sr.specs[i][j] = runSpec{scene: sr.sc, n: sr.n, params: narrow.Params{Method: m, Response: r, Speculative: i == 2}, ref: true, bullet: i == 3, ccd: i == 4}
				tr.plan(cfg, sr.specs[i][j])
			}
		}
		sr.reps[0] = sr.specs
		for k := 1; k < sceneSeeds; k++ {
			for _, i := range seededDetections {
				for j := range sr.reps[k][i] {
					sr.reps[k][i][j] = sr.specs[i][j]
					sr.reps[k][i][j].replica = k
					tr.plan(cfg, sr.reps[k][i][j])
				}
			}
		}
	}
	for _, sr := range scenes {
		for i := range sr.specs {
			for j := range sr.specs[i] {
				t, err := cfg.run(ctx, sr.specs[i][j], tr, nil)
				if err != nil {
					return nil, err
				}
				sr.runs[i][j] = t
			}
		}
		sr.repRuns[0] = sr.runs
		for k := 1; k < sceneSeeds; k++ {
			for _, i := range seededDetections {
				for j := range sr.reps[k][i] {
					t, err := cfg.run(ctx, sr.reps[k][i][j], tr, nil)
					if err != nil {
						return nil, err
					}
					sr.repRuns[k][i][j] = t
				}
			}
		}
	}
	s := &Section{Title: "Re-projection in the scenes: total interpenetration (2013b §5.4, Table 2)"}
	s.Intro = fmt.Sprintf(`
Scenes 1 and 2 (%d bunnies; %d objects, BVH traversal) are simulated twice:
with Hermann et al.'s raw rays as contacts (ResponseRay: depth |r| along
the ray) and with the rays re-projected on the normal of the surface they
hit (ResponseMTD: depth r·n along n, irtcd's default); everything else is
the same (irtcd's default detection, iterative + predictive, and the same
solver with contact reduction). The measure is the paper's: "the
cumulative length of all rays with a standard algorithm" along the
simulation. At every step the pairs are detected again by the standard
algorithm at the run's poses, **with raw rays in both runs**
(scene3d.Options.RefRawRays), and the lengths |r| of all its rays that hit
are summed over the steps. Measuring r·n under re-projection instead would
shrink the re-projected run's figure by the measure alone. Absolute values
depend on the scenes' units and sizes (ours: metres, bunnies about 2 m
tall), so the comparison is the decrease, the paper's last column.

The paper's scenes ran in Bullet, whose solver removes penetration
differently from ours: no slop, and 0.8 of a contact's depth per step
beyond 4 cm (0.2 below), where ours leaves 5 mm and removes 0.2 of the
rest per step, at most 2 m/s. A gentler correction leaves the deep
penetrations of landings longer, and there the depth each response
reports matters most. The detail table therefore also runs both
responses with Bullet's constants in our solver (rigid.Config's Slop 0,
CorrectionRate 0.2, DeepCorrectionRate 0.8 beyond DeepPenetration 4 cm,
no cap; experiment.bulletSolver). These are Bullet's constants, not
Bullet, and not irtcd's defaults: without a slop, bodies at rest jitter,
which costs the iterative algorithm standard steps.

The deep penetrations of landings can also be kept from happening: with
continuous collision detection (rigid.Config.CCDMotion = 0.05, an irtcd
option, off in the other runs as in Bullet's defaults), a pair without
contact whose bodies move more than 0.05 × the smaller size in a step is
swept by rays along its vertices' paths, and the bodies' motions are cut
back to the time of impact: they land on the pile instead of in it.

The scenes are chaotic: a different depth anywhere sends every later
step down another trajectory, and Σ|r| follows the landings and jams of
that trajectory. The pairs of runs with irtcd's detection (plain, with
speculative contacts, with Bullet's solver constants, with continuous
collision detection) are therefore
repeated with %d seeds (other layouts, orientations and spawn order), and
the first table gives the means and the change of each seed's pair; the
detail table (which adds the standard algorithm at every step and each
run's own depths) and the plots use the bench's own seed.`,
		scenes[0].n, scenes[1].n, sceneSeeds)
	t := &Table{
		Caption: fmt.Sprintf("Cumulative length of all rays along the simulation without (raw rays) and with ray re-projection; irtcd: means of %d seeds.", sceneSeeds),
		Header: []string{"scene", "paper: standard", "paper: re-projection", "paper: change",
			fmt.Sprintf("irtcd: raw rays (mean of %d seeds)", sceneSeeds), "irtcd: re-projection (mean)", "irtcd: change of the means",
			"irtcd: change per seed (least … most)", "irtcd / paper (decrease)"},
		Align: "lrrrrrrrr",
	}
	detail := &Table{
		Caption: "The bench's own seed: the same with the standard algorithm at every step instead of IRTCD, with speculative contacts (narrow.Params.Speculative, an irtcd option the paper does not have: predictions whose gap could close within a step go to the solver as gaps that may close but not overshoot), with Bullet's solver constants and with continuous collision detection (above), and each run's own contact depths (Σ depth of its contacts in its own response: |r| for raw rays, r·n for re-projection).",
		Header:  []string{"scene, detection", "raw rays: Σ|r| (standard)", "re-projection: Σ|r| (standard)", "change", "raw rays: own Σ depth", "re-projection: own Σ depth (r·n)"},
		Align:   "lrrrrr",
	}
	for k, sr := range scenes {
		rayLen, mtdLen, least, most := seedSpread(sr.seedPairs(0))
		dec := reduction(rayLen, mtdLen)
		pdec := reduction(sr.paper[0], sr.paper[1])
		printed := []string{"59 %", "42 %"}[k]
		t.AddRow(sr.label, num(sr.paper[0], 0), num(sr.paper[1], 0), change(-pdec, 1)+" (printed: "+printed+")",
			num(rayLen, 1), num(mtdLen, 1), change(-dec, 1), change(least, 1)+" … "+change(most, 1), ratio(dec, pdec))
		for i, name := range []string{"iterative + predictive", "standard", "iterative + predictive, speculative contacts", "iterative + predictive, Bullet's solver constants", "iterative + predictive, continuous collision detection"} {
			a, b := wholeRun(sr.runs[i][0]), wholeRun(sr.runs[i][1])
			detail.AddRow(sr.label+", "+name, num(a.rayLength, 1), num(b.rayLength, 1), change(-reduction(a.rayLength, b.rayLength), 1),
				num(a.ownDepth, 1), num(b.ownDepth, 1))
		}
		s.Summary = append(s.Summary, SummaryRow{
			Row:   fmt.Sprintf("Total interpenetration, raw rays → re-projection, %s", sr.label),
			Paper: fmt.Sprintf("%s → %s (%s)", num(sr.paper[0], 0), num(sr.paper[1], 0), change(-pdec, 0)),
			Ours: fmt.Sprintf("%s → %s (%s; means of %d seeds, each seed %s … %s)", num(rayLen, 0), num(mtdLen, 0), change(-dec, 0),
				sceneSeeds, change(least, 0), change(most, 0)),
			Better: better(dec, pdec, true, 0) + " (decrease)",
		})
		for _, v := range []struct {
			run  int
			what string
		}{
			{2, "with speculative contacts (irtcd option, not in the paper)"},
			{3, "with Bullet's solver constants (the paper's engine; see the section)"},
			{4, "with continuous collision detection (irtcd option, not in the paper; see the section)"},
		} {
			a, b, least, most := seedSpread(sr.seedPairs(v.run))
			dec := reduction(a, b)
			t.AddRow(sr.label+", "+v.what, num(sr.paper[0], 0), num(sr.paper[1], 0), change(-pdec, 1),
				num(a, 1), num(b, 1), change(-dec, 1), change(least, 1)+" … "+change(most, 1), ratio(dec, pdec))
			s.Summary = append(s.Summary, SummaryRow{
				Row:   fmt.Sprintf("Total interpenetration, raw rays → re-projection, %s, %s", v.what, sr.label),
				Paper: fmt.Sprintf("%s → %s (%s)", num(sr.paper[0], 0), num(sr.paper[1], 0), change(-pdec, 0)),
				Ours: fmt.Sprintf("%s → %s (%s; means of %d seeds, each seed %s … %s)", num(a, 0), num(b, 0), change(-dec, 0),
					sceneSeeds, change(least, 0), change(most, 0)),
				Better: better(dec, pdec, true, 0) + " (decrease)",
			})
		}
		s.metric(fmt.Sprintf("scene%dRay", k+1), rayLen)
		s.metric(fmt.Sprintf("scene%dMTD", k+1), mtdLen)
		s.metric(sr.sc.Name+"Ray", rayLen)
		s.metric(sr.sc.Name+"MTD", mtdLen)
		s.metric(sr.sc.Name+"ChangeLeast", least)
		s.metric(sr.sc.Name+"ChangeMost", most)
	}
	s.Tables = []*Table{t, detail}
	for _, sr := range scenes {
		ray, mtd := s.metrics[sr.sc.Name+"Ray"], s.metrics[sr.sc.Name+"MTD"]
		if mtd >= ray {
			note := fmt.Sprintf(`
In %s re-projection does not lower the total interpenetration here: %s
with raw rays, %s with re-projection (means over the seeds). Re-projection still lowers the depths
the solver is given (the detail table's own Σ depth, r·n ≤ |r|).`, sr.label, num(ray, 0), num(mtd, 0))
			if sr.sc.Name == "spawner" {
				note += ` The excess
comes from the landings: objects fall 8 m and reach the pile at about
13 m/s, a fifth of their size per step, and the deep penetrations this
leaves are undone more slowly from r·n along the hit face's normal than
from |r| along the ray. With the standard algorithm at scale 0.25 and one
kind of object at a time (60 objects), re-projection added 17 % (bunny),
40 % (torus), 6 % (teddy) and 43 % (duck); with the same objects dropped
from 2.5 m at rest, 1 % (torus, duck); a 1 mm slop instead of 5 mm left it
(+9 % against +7 %, the four kinds together). These variants of the scene
are not part of the bench.`
			}
			s.Notes = append(s.Notes, note)
		}
	}
	for _, sr := range scenes {
		rl := func(m *scene3d.StepMetrics) float64 { return m.RefDepthSum }
		ch := &chart{
			file:   sr.sc.Name + "-reprojection.png",
			title:  fmt.Sprintf("%s (%d objects): total interpenetration per step", sr.sc.Name, sr.n),
			xLabel: "simulated time (s)", yLabel: "Σ raw ray length |r| of the standard algorithm (m)",
			curves: []curve{
				{name: "raw rays (ResponseRay)", xy: perStep(sr.runs[0][0], rl), col: colIterative},
				{name: "re-projection (ResponseMTD)", xy: perStep(sr.runs[0][1], rl), col: colPredictive},
			},
		}
		p, err := ch.draw(cfg, fmt.Sprintf("%s: total interpenetration per step with raw rays and with re-projection (iterative + predictive, BVH).", sr.label))
		if err != nil {
			return nil, err
		}
		s.Plots = append(s.Plots, p)
	}
	s.Notes = append(s.Notes, `
The paper's Table 2 prints a 59 % decrease for scene 1, but its own figures
give 1 − 10 793 / 16 115 = 33.0 % (scene 2: 1 − 38 398 / 66 094 = 41.9 %,
printed 42 %); its text says "up to 59 %" and its conclusion "up to 52 %".
We compare with the decrease computed from its figures. The paper does not
say which detection algorithm ran its Table 2 simulations; ours is irtcd's
default (iterative + predictive), and the detail table gives the standard
algorithm too.`)
	return s, nil
}
