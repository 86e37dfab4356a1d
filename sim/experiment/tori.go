package experiment

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

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
func (ls *lyScene) summary(lt *lyTiming, pcs [3]*pairCounts) (speed, over, pairs SummaryRow) {
	paperSpeed, paperOver := ls.paper[lyStd]/ls.paper[lyIter], ls.paper[lyPred]/ls.paper[lyIter]-1
	speed = SummaryRow{"Iterative speed-up, " + ls.label + " (Li & Yamaguchi Table 2: ms/step without → with iterative)",
		num(ls.paper[lyStd], 1) + " → " + num(ls.paper[lyIter], 1) + " (" + num(paperSpeed, 2) + "×)",
		num(lt.ms[lyStd], 2) + " → " + num(lt.ms[lyIter], 2) + " (" + num(lt.speedup(), 2) + "×)", better(lt.speedup(), paperSpeed, true, 0)}
	over = SummaryRow{"Predictive rays' overhead, " + ls.label + " (ms/step iterative → iterative + predictive)",
		num(ls.paper[lyIter], 1) + " → " + num(ls.paper[lyPred], 1) + " (" + change(paperOver, 1) + ")",
		num(lt.ms[lyIter], 2) + " → " + num(lt.ms[lyPred], 2) + " (" + change(lt.overhead(), 1) + ")", better(lt.overhead(), paperOver, false, 0) + " (overhead)"}
	pairs = SummaryRow{"Colliding pairs per step against an exact test, " + ls.label + " (" + ls.fig + ls.figNote + "); overlapping pairs not detected over the run",
		"high concordance", pct(pcs[0].missShare(), 2) + " missed (standard algorithm " + pct(pcs[1].missShare(), 2) + ", with edge contacts " + pct(pcs[2].missShare(), 2) + ")",
		"n/a (no figure in the paper)"}
	return speed, over, pairs
}

// metrics records the scene's figures that the tests check.
func (ls *lyScene) metrics(s *Section, lt *lyTiming, pcs [3]*pairCounts) {
	s.metric("speedup", lt.speedup())
	s.metric("overhead", lt.overhead())
	s.metric("missShare", pcs[0].missShare())
	s.metric("missShareStandard", pcs[1].missShare())
	s.metric("missShareEdges", pcs[2].missShare())
	s.metric("missInside", float64(pcs[0].sumMissInside+pcs[1].sumMissInside+pcs[2].sumMissInside))
	s.metric("spurious", float64(pcs[0].sumSpu+pcs[1].sumSpu+pcs[2].sumSpu))
	s.metric("overlapping", float64(pcs[0].sumOverlap))
}

// timeCurves is the narrow phase's time per step of each method's last
// timing run.
func (lt *lyTiming) timeChart(file, title string) *chart {
	return timeChart(file, title, nil,
		curve{name: lyNames[lyStd], xy: perStep(lt.runs[lyStd], narrowMs), col: colStandard},
		curve{name: lyNames[lyIter], xy: perStep(lt.runs[lyIter], narrowMs), col: colIterative},
		curve{name: lyNames[lyPred], xy: perStep(lt.runs[lyPred], narrowMs), col: colPredictive, dashed: true},
	)
}

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

// countEdgeAngle is the EdgeAngle of the third of pairCountRuns: small
// enough that the edges of the tori and bunnies, smooth meshes, are
// edges (rigid.DefaultConfig's π/3 takes hardly any of them).
const countEdgeAngle = 0.1

// pairCountRuns are the untimed runs countPairs counts colliding pairs
// on: irtcd's default method, the standard algorithm, and the default
// method with edge-on-edge contacts (Params.EdgeAngle, an irtcd option
// the papers do not have) on edges bent by more than countEdgeAngle.
func pairCountRuns(sc scene3d.Scene, n int) [3]runSpec {
	return [3]runSpec{
		{scene: sc, n: n, params: narrow.Params{Method: narrow.MethodPredictive}},
		{scene: sc, n: n, params: narrow.Params{Method: narrow.MethodStandard}},
		{scene: sc, n: n, params: narrow.Params{Method: narrow.MethodPredictive, EdgeAngle: countEdgeAngle}},
	}
}

// countPairs simulates pairCountRuns and counts their colliding pairs.
func (c *Config) countPairs(ctx context.Context, specs [3]runSpec, tr *tracker) ([3]*pairCounts, error) {
	var pcs [3]*pairCounts
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
func pairRows(t *Table, pcs [3]*pairCounts) {
	pc := pcs[0]
	k := float64(max(1, len(pc.t)))
	var det int
	for _, d := range pc.detected {
		det += d
	}
	t.AddRow("colliding pairs per step, iterative + predictive: detected / overlapping (exact test)", "high concordance (Fig. 10, 12)",
		num(float64(det)/k, 1)+" / "+num(float64(pc.sumOverlap)/k, 1), "—")
	for i, name := range []string{"iterative + predictive", "standard", fmt.Sprintf("iterative + predictive with edge contacts (EdgeAngle %g)", countEdgeAngle)} {
		t.AddRow("overlapping pairs not detected over the run (worst step with ≥ 10 overlapping pairs), "+name, "—",
			pct(pcs[i].missShare(), 2)+" ("+pct(pcs[i].worstMiss(10), 1)+")", "—")
	}
	for i, name := range []string{"iterative + predictive", "standard"} {
		d := slices.Clone(pcs[i].missDepth)
		slices.Sort(d)
		if len(d) == 0 {
			continue
		}
		t.AddRow("how deep the pairs not detected cross (m; deepest point sampled along the edges): median / 99th percentile / deepest, "+name, "—",
			num(d[len(d)/2], 4)+" / "+num(d[len(d)*99/100], 4)+" / "+num(d[len(d)-1], 4), "—")
	}
	t.AddRow(fmt.Sprintf("narrow-phase time of the counting runs, with edge contacts (EdgeAngle %g) over without", countEdgeAngle), "—",
		num(div(pcs[2].narrow, pcs[0].narrow), 1)+"×", "—")
	spu, miss, inside := 0, 0, 0
	for _, p := range pcs {
		spu, miss, inside = spu+p.sumSpu, miss+p.sumMiss, inside+p.sumMissInside
	}
	t.AddRow("pairs detected without overlapping, the three runs", "—", num(float64(spu), 0), "—")
	t.AddRow("of the pairs not detected, those with a vertex of one shape inside the other (the rest cross edge through face only), the three runs", "—",
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
standard algorithm; iterative + predictive with edge-on-edge contacts): a
pair is detected when the step found at least one contact, and
overlapping when narrow.Overlap (exact: edges against faces, then
containment) says the two shapes meet at the poses the step detected at.
A pair whose shapes cross only edge through face, no vertex of either
inside the other, has no ray to find it: the rays of the standard
algorithm miss it as well. Edge-on-edge contacts find such crossings
where the edges are bent enough to be listed, which on these smooth
meshes takes a small EdgeAngle and costs far more than the rays (the
counting runs' time, slowed alike by the counting, is their ratio's
only measure here). Penetration depths are the runs' own contact depths (MTD re-projection:
r·n, every ray that hit, before manifold reduction), per step, averaged
over the steps with contacts that end in the window; the time step changes
the solver's step too (rigid.Config.Dt); the scene's release times are in
seconds, so every run releases the same tori at the same times.

Li & Yamaguchi's Table 1 (updating the acceleration structure every step:
3.1 ms with TrBVH, 0.7 ms with HLBVH, for 56.7 and 72.0 ms of narrow
phase) has no counterpart in a rigid scene: irtcd builds a shape's
hierarchy once, in the shape's frame, and never updates it. For shapes
that do deform, docs/BENCHMARKS.md, "Deformable shapes", times the
refit (100 tori refitted in 5.9 ms on one core: not beaten).`, lt.runsNote()))
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
