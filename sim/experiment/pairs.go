package experiment

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// pairCounts compares, at every step, the pairs the run detected (at
// least one contact) with the pairs whose shapes overlap
// (narrow.Overlap, exact, on the poses of the step's detection): Li &
// Yamaguchi's Fig. 10 and 12 count colliding pairs against GJK.
type pairCounts struct {
	t                           []float64 // simulated time at the step's end
	detected, overlapping       []int
	missed, spurious            []int // overlapping without contacts; contacts without overlap
	sumOverlap, sumMiss, sumSpu int
	// sumMissInside counts the missed pairs with a vertex of one shape
	// inside the other: a ray from that vertex could have found them. The
	// others cross edge through face only, out of every ray's reach.
	sumMissInside int
	// missDepth holds, per missed pair, how deep its shapes cross
	// (crossingDepth).
	missDepth []float64
	// narrow is the run's mean narrow-phase time a step (ms).
	narrow float64
}

func (pc *pairCounts) onFrame(s *scene3d.Sim) error {
	if s.StepCount() == 0 {
		return nil
	}
	w := s.World
	pairs, res := w.Pairs(), w.Results()
	if len(pairs) != len(res) {
		return fmt.Errorf("experiment: %d pairs, %d results", len(pairs), len(res))
	}
	var det, over, miss, spu int
	for i, p := range pairs {
		if res[i].ID != p.ID {
			return fmt.Errorf("experiment: pair %d has result %d", p.ID, res[i].ID)
		}
		hit := false
		for _, c := range res[i].Contacts {
			if !c.Speculative() {
				hit = true
				break
			}
		}
		ov, err := narrow.Overlap(w.Body(p.A).Shape(), w.Body(p.B).Shape(), p.PoseA, p.PoseB)
		if err != nil {
			return fmt.Errorf("experiment: pair %d: %w", p.ID, err)
		}
		if hit {
			det++
		}
		if ov {
			over++
		}
		if ov && !hit {
			miss++
			sa, sb := w.Body(p.A).Shape(), w.Body(p.B).Shape()
			if vertexInside(sa, sb, p.PoseA, p.PoseB) {
				pc.sumMissInside++
			}
			pc.missDepth = append(pc.missDepth, crossingDepth(sa, sb, p.PoseA, p.PoseB))
		}
		if hit && !ov {
			spu++
		}
	}
	pc.t = append(pc.t, s.Time())
	pc.detected, pc.overlapping = append(pc.detected, det), append(pc.overlapping, over)
	pc.missed, pc.spurious = append(pc.missed, miss), append(pc.spurious, spu)
	pc.sumOverlap, pc.sumMiss, pc.sumSpu = pc.sumOverlap+over, pc.sumMiss+miss, pc.sumSpu+spu
	return nil
}

// vertexInside reports whether a vertex of a lies inside b or one of b
// inside a, at the poses (Shape.Nearest's side test).
func vertexInside(a, b *narrow.Shape, pa, pb narrow.Pose) bool {
	ta, tb := pa.Transform(), pb.Transform()
	for k := 0; k < 2; k++ {
		var rel narrow.Transform
		rel.SetRelative(&tb, &ta) // a's coordinates into b's
		for v := range a.NumVertices() {
			if _, _, _, in := b.Nearest(rel.Apply([3]float64(a.Vertex(v)))); in {
				return true
			}
		}
		a, b, ta, tb = b, a, tb, ta
	}
	return false
}

// crossSamples is how many points crossingDepth tests along an edge.
const crossSamples = 16

// crossingDepth returns how deep a and b cross at the poses, as the
// deepest of crossSamples-1 points evenly spaced inside each triangle
// edge of one shape that lie inside the other (Shape.Nearest's distance):
// a lower bound of the crossing's depth, within about an edge's length
// over crossSamples.
func crossingDepth(a, b *narrow.Shape, pa, pb narrow.Pose) float64 {
	ta, tb := pa.Transform(), pb.Transform()
	deep := 0.0
	for k := 0; k < 2; k++ {
		var rel narrow.Transform
		rel.SetRelative(&tb, &ta) // a's coordinates into b's
		box := b.Bounds()
		for i := range a.NumPrims() {
			p := a.Prim(i)
			for e := range 3 {
				u, v := rel.Apply([3]float64(a.Vertex(int(p[e])))), rel.Apply([3]float64(a.Vertex(int(p[(e+1)%3]))))
				if !segmentMeetsBox(u, v, box) {
					continue
				}
				for j := 1; j < crossSamples; j++ {
					f := float64(j) / crossSamples
					x := [3]float64{u[0] + f*(v[0]-u[0]), u[1] + f*(v[1]-u[1]), u[2] + f*(v[2]-u[2])}
					if _, d, _, in := b.Nearest(x); in {
						deep = math.Max(deep, d)
					}
				}
			}
		}
		a, b, ta, tb = b, a, tb, ta
	}
	return deep
}

// segmentMeetsBox reports whether the box of the segment uv meets box.
func segmentMeetsBox(u, v [3]float64, box narrow.AABB) bool {
	for k := range 3 {
		if math.Max(u[k], v[k]) < box.Min[k] || math.Min(u[k], v[k]) > box.Max[k] {
			return false
		}
	}
	return true
}

// costOver is the run's narrow-phase time over base's.
func (pc *pairCounts) costOver(base *pairCounts) float64 { return div(pc.narrow, base.narrow) }

// missShare is the share of overlapping pairs (summed over the steps)
// that the run did not detect.
func (pc *pairCounts) missShare() float64 { return div(float64(pc.sumMiss), float64(pc.sumOverlap)) }

// worstMiss is the largest share of a step's overlapping pairs missed,
// over the steps with at least minPairs overlapping pairs.
func (pc *pairCounts) worstMiss(minPairs int) float64 {
	w := 0.0
	for i, o := range pc.overlapping {
		if o >= minPairs {
			w = math.Max(w, float64(pc.missed[i])/float64(o))
		}
	}
	return w
}

// countEdgeAngle is the EdgeAngle of the last three of pairCountRuns:
// small enough that the edges of the tori and bunnies, smooth meshes, are
// edges (rigid.DefaultConfig's π/3 takes hardly any of them).
const countEdgeAngle = 0.1

// countEdgeDepth × the shapes' Size (toriSize) is the EdgeDepth of the
// last two of pairCountRuns: a shallow bound, for smooth meshes (see
// narrow.Params.EdgeDepth).
const countEdgeDepth = 0.04

// The runs of pairCountRuns, by index.
const (
	pcPred = iota
	pcStd
	pcEdges
	pcShallow
	pcFaces
	pcRuns
)

// pcNames names the runs of pairCountRuns in the report.
var pcNames = [pcRuns]string{
	"iterative + predictive",
	"standard",
	fmt.Sprintf("iterative + predictive with edge contacts (EdgeAngle %g)", countEdgeAngle),
	fmt.Sprintf("iterative + predictive with edge contacts (EdgeAngle %g, EdgeDepth %g × Size)", countEdgeAngle, countEdgeDepth),
	fmt.Sprintf("iterative + predictive with edge-on-edge and edge-through-face contacts (EdgeAngle %g, EdgeDepth %g × Size, EdgeFaces)", countEdgeAngle, countEdgeDepth),
}

// pairCountRuns are the untimed runs countPairs counts colliding pairs
// on: irtcd's default method, the standard algorithm, and the default
// method with edge-on-edge contacts (Params.EdgeAngle, an irtcd option
// the papers do not have) on edges bent by more than countEdgeAngle, with
// the default EdgeDepth and with a shallow one, and with edge-through-face
// contacts too (Params.EdgeFaces).
func pairCountRuns(sc scene3d.Scene, n int) [pcRuns]runSpec {
	return [pcRuns]runSpec{
		pcPred:    {scene: sc, n: n, params: narrow.Params{Method: narrow.MethodPredictive}},
		pcStd:     {scene: sc, n: n, params: narrow.Params{Method: narrow.MethodStandard}},
		pcEdges:   {scene: sc, n: n, params: narrow.Params{Method: narrow.MethodPredictive, EdgeAngle: countEdgeAngle}},
		pcShallow: {scene: sc, n: n, params: narrow.Params{Method: narrow.MethodPredictive, EdgeAngle: countEdgeAngle, EdgeDepth: countEdgeDepth * toriSize}},
		pcFaces:   {scene: sc, n: n, params: narrow.Params{Method: narrow.MethodPredictive, EdgeAngle: countEdgeAngle, EdgeDepth: countEdgeDepth * toriSize, EdgeFaces: true}},
	}
}

// countPairs simulates pairCountRuns and counts their colliding pairs.
func (c *Config) countPairs(ctx context.Context, specs [pcRuns]runSpec, tr *tracker) ([pcRuns]*pairCounts, error) {
	var pcs [pcRuns]*pairCounts
	for i, sp := range specs {
		pcs[i] = &pairCounts{}
		t, err := c.run(ctx, sp, tr, pcs[i].onFrame)
		if err != nil {
			return pcs, err
		}
		pcs[i].narrow = meanNarrow(t.Steps, span{"", 0, len(t.Steps)})
	}
	return pcs, nil
}

// pairRows adds the rows of the colliding pairs' counts (countPairs) to t.
func pairRows(t *Table, pcs [pcRuns]*pairCounts) {
	pc := pcs[pcPred]
	k := float64(max(1, len(pc.t)))
	var det int
	for _, d := range pc.detected {
		det += d
	}
	t.AddRow("colliding pairs per step, iterative + predictive: detected / overlapping (exact test)", "high concordance (Fig. 10, 12)",
		num(float64(det)/k, 1)+" / "+num(float64(pc.sumOverlap)/k, 1), "—")
	for i, name := range pcNames {
		t.AddRow("overlapping pairs not detected over the run (worst step with ≥ 10 overlapping pairs), "+name, "—",
			pct(pcs[i].missShare(), 2)+" ("+pct(pcs[i].worstMiss(10), 1)+")", "—")
	}
	for _, i := range []int{pcPred, pcStd} {
		d := slices.Clone(pcs[i].missDepth)
		slices.Sort(d)
		if len(d) == 0 {
			continue
		}
		t.AddRow("how deep the pairs not detected cross (m; deepest point sampled along the edges): median / 99th percentile / deepest, "+pcNames[i], "—",
			num(d[len(d)/2], 4)+" / "+num(d[len(d)*99/100], 4)+" / "+num(d[len(d)-1], 4), "—")
	}
	for _, i := range []int{pcEdges, pcShallow, pcFaces} {
		t.AddRow("narrow-phase time of the counting runs, "+pcNames[i]+" over "+pcNames[pcPred], "—",
			num(pcs[i].costOver(pcs[pcPred]), 1)+"×", "—")
	}
	spu, miss, inside := 0, 0, 0
	for _, p := range pcs {
		spu, miss, inside = spu+p.sumSpu, miss+p.sumMiss, inside+p.sumMissInside
	}
	t.AddRow(fmt.Sprintf("pairs detected without overlapping, the %d runs", pcRuns), "—", num(float64(spu), 0), "—")
	t.AddRow(fmt.Sprintf("of the pairs not detected, those with a vertex of one shape inside the other (the rest cross edge through face only), the %d runs", pcRuns), "—",
		fmt.Sprintf("%d of %d", inside, miss), "—")
}

// chart plots the detected and overlapping pairs per step.
func (pc *pairCounts) chart(file, title string) *chart {
	det, over := make(plotter.XYs, len(pc.t)), make(plotter.XYs, len(pc.t))
	for i, t := range pc.t {
		det[i] = plotter.XY{X: t, Y: float64(pc.detected[i])}
		over[i] = plotter.XY{X: t, Y: float64(pc.overlapping[i])}
	}
	return &chart{file: file, title: title, xLabel: "time (s)", yLabel: "colliding pairs",
		curves: []curve{
			{name: "overlapping (exact test, narrow.Overlap)", xy: over, col: colStandard},
			{name: "detected (iterative + predictive)", xy: det, col: colPredictive, dashed: true},
		}}
}
