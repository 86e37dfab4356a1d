package experiment

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/scene3d"
	"github.com/irtcd/irtcd/sim/view3d"
)

// runSpec is one run of a 3D scene. Every run with a reference uses
// scene3d.Options.RefRawRays: the standard algorithm on the run's own
// states, measuring raw ray lengths |r| whatever the run's response.
type runSpec struct {
	scene  scene3d.Scene
	n      int // objects
	steps  int // 0: the scene's for n
	dt     float64
	params narrow.Params
	ref    bool
	fresh  bool // always simulate (timing repetitions), never take from the cache
	bullet bool // the solver takes Bullet's correction constants (bulletSolver)
	ccd    bool // the world cuts fast motions back to their time of impact (rigid.Config.CCDMotion = ccdMotion)
	// replica repeats the run with another seed: Config.Seed + replica
	// (0: the bench's own run). The scenes are chaotic, so a figure from
	// one trajectory carries that trajectory's luck.
	replica int
}

// ccdMotion is rigid.Config.CCDMotion in the runs with continuous
// collision detection (runSpec.ccd): the scale below which speculative
// contacts hold the pairs.
const ccdMotion = 0.05

// sceneSeeds is how many seeds the headline runs of the cumulative ray
// length's comparisons are run with, in scenes 1 and 2: iterative against
// iterative + predictive (the scenes' experiments) and raw rays against
// re-projection (Table 2). Seed 0 is the bench's own run; the others are
// replicas (runSpec.replica). Σ|r| sums the penetrations of a chaotic
// trajectory, so one pair of runs compares two trajectories' luck as much
// as the two variants.
const sceneSeeds = 5

// seedSpread returns, over the pairs of runs of runs (one pair per seed),
// the mean cumulative ray length of each side (a, b) and the least and
// most change from a to b of a single seed's pair.
func seedSpread(runs [][2]*scene3d.Trace) (a, b, least, most float64) {
	least, most = math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		ra, rb := wholeRun(r[0]).rayLength, wholeRun(r[1]).rayLength
		a += ra / float64(len(runs))
		b += rb / float64(len(runs))
		c := -reduction(ra, rb)
		least, most = min(least, c), max(most, c)
	}
	return a, b, least, most
}

// seed returns the run's seed.
func (r *runSpec) seed(c *Config) uint64 { return c.Seed + uint64(r.replica) }

// bulletSolver sets the position-correction constants of Bullet's
// sequential-impulse solver (btContactSolverInfo of Bullet 2.8x, the engine
// of Lehericey et al. 2013b, §5): no slop (m_linearSlop 0), rate 0.2
// (m_erp), and 0.8 (m_erp2) for contacts deeper than 4 cm
// (m_splitImpulsePenetrationThreshold), uncapped. Everything else stays
// irtcd's (rigid.DefaultConfig), so this is Bullet's constants in our
// split-impulse solver, not Bullet.
func bulletSolver(c *rigid.Config) {
	c.Slop = 0
	c.CorrectionRate = 0.2
	c.DeepCorrectionRate, c.DeepPenetration = 0.8, 0.04
	c.MaxCorrectionVelocity = 1e3
}

// stepsFor returns the number of steps the run takes.
func (r *runSpec) stepsFor() int {
	st := r.steps
	if st <= 0 {
		st = r.scene.Steps(r.n)
	}
	return st
}

// key identifies the run's outcome (the trajectory and its metrics).
func (r *runSpec) key(c *Config) string {
	return fmt.Sprintf("%s n=%d steps=%d dt=%g ref=%v bullet=%v ccd=%v seed=%d workers=%d params=%+v",
		r.scene.Name, r.n, r.stepsFor(), r.dt, r.ref, r.bullet, r.ccd, r.seed(c), c.Workers, r.params)
}

// label names the run in logs and legends.
func (r *runSpec) label() string {
	solver := ""
	if r.bullet {
		solver = " (Bullet's solver constants)"
	}
	if r.ccd {
		solver += " (CCD)"
	}
	if r.replica > 0 {
		solver += fmt.Sprintf(" (seed +%d)", r.replica)
	}
	return fmt.Sprintf("%s %s/%s/%s n=%d%s", r.scene.Name, r.params.Traversal, r.params.Method, r.params.Response, r.n, solver)
}

// runCache keeps the traces of runs that several experiments share (the
// avalanche's and spawner's MTD runs are Table 2's re-projection runs).
type runCache struct {
	mu     sync.Mutex
	traces map[string]*scene3d.Trace
}

func (rc *runCache) get(key string) (*scene3d.Trace, bool) {
	if rc == nil {
		return nil, false
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	t, ok := rc.traces[key]
	return t, ok
}

func (rc *runCache) put(key string, t *scene3d.Trace) {
	if rc == nil {
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.traces == nil {
		rc.traces = map[string]*scene3d.Trace{}
	}
	rc.traces[key] = t
}

// tracker reports an experiment's progress in steps over all its runs.
type tracker struct {
	report      func(done, total int)
	done, total int
}

func newTracker(c *Config, name string) *tracker {
	return &tracker{report: c.progress(name)}
}

// plan adds the steps of the runs that will be simulated (not cached) to
// the total.
func (t *tracker) plan(c *Config, specs ...runSpec) {
	for i := range specs {
		if _, ok := c.runs.get(specs[i].key(c)); !ok || specs[i].fresh {
			t.total += specs[i].stepsFor()
		}
	}
}

func (t *tracker) set(done int) {
	t.done = done
	t.report(min(done, t.total), t.total)
}

// run simulates spec, or returns its cached trace when onFrame is nil and
// spec is not fresh. A run with an onFrame (pictures) is always simulated
// and then cached.
func (c *Config) run(ctx context.Context, spec runSpec, tr *tracker, onFrame func(*scene3d.Sim) error) (*scene3d.Trace, error) {
	out, err := c.lockstep(ctx, []runSpec{spec}, tr, []func(*scene3d.Sim) error{onFrame})
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// lockBlock is how many steps of one run lockstep takes before it turns to
// the next run.
const lockBlock = 10

// lockstep simulates the runs of specs together, lockBlock steps of each
// in turn, so that the machine's load at any moment (this is a shared
// virtual machine) weighs on all of them alike: their per-step times stay
// comparable. Blocks rather than single steps, and the reference
// comparisons deferred to the end of each block (scene3d's
// Options.DeferReference), keep the other runs' work out of the caches
// of all but the first step of a block: a cheap iterative step that
// follows another run's step, or the reference's detection, takes about
// 40 % longer. onFrame[i], if set, is called for run i before its first
// step and after every step. Runs found in the cache (no onFrame, not
// fresh) are not simulated again. Every simulated run is cached.
func (c *Config) lockstep(ctx context.Context, specs []runSpec, tr *tracker, onFrame []func(*scene3d.Sim) error) (_ []*scene3d.Trace, err error) {
	type live struct {
		spec  *runSpec
		sim   *scene3d.Sim
		trace *scene3d.Trace
		steps int
		frame func(*scene3d.Sim) error
		be    narrow.Backend // made by c.NewBackend
	}
	out := make([]*scene3d.Trace, len(specs))
	var runs []*live
	defer func() {
		for _, l := range runs {
			if l.sim != nil {
				err = errors.Join(err, l.sim.Close())
			}
			if l.be != nil {
				err = errors.Join(err, l.be.Close())
			}
		}
	}()
	start := time.Now()
	for i := range specs {
		sp := &specs[i]
		var frame func(*scene3d.Sim) error
		if i < len(onFrame) {
			frame = onFrame[i]
		}
		if frame == nil && !sp.fresh {
			if t, ok := c.runs.get(sp.key(c)); ok {
				c.log().Info("run (cached)", "run", sp.label())
				out[i] = t
				continue
			}
		}
		opts := scene3d.Options{
			N: sp.n, Seed: sp.seed(c), MeshDir: c.TestData, Params: sp.params, Workers: c.Workers,
			Reference: sp.ref, RefRawRays: sp.ref, DeferReference: true, Logger: c.log(),
		}
		if sp.dt > 0 || sp.bullet || sp.ccd {
			wc := rigid.DefaultConfig()
			if sp.ccd {
				wc.CCDMotion = ccdMotion
			}
			if sp.dt > 0 {
				wc.Dt = sp.dt
			}
			if sp.bullet {
				bulletSolver(&wc)
			}
			opts.Config = &wc
		}
		var be narrow.Backend
		if c.NewBackend != nil {
			if be, err = c.NewBackend(sp.params); err != nil {
				return nil, fmt.Errorf("%s: backend: %w", sp.label(), err)
			}
			opts.Backend = be
		}
		sim, err := scene3d.New(sp.scene, opts)
		if err != nil {
			if be != nil {
				be.Close()
			}
			return nil, fmt.Errorf("%s: %w", sp.label(), err)
		}
		l := &live{spec: sp, sim: sim, steps: sp.stepsFor(), frame: frame, be: be}
		runs = append(runs, l)
		l.trace = &scene3d.Trace{Scene: sp.scene.Name, N: sim.Params.N, Seed: sim.Params.Seed, Dt: sim.World.Config().Dt,
			Method: sp.params.Method, Floor: sim.Setup.Floor, Steps: make([]scene3d.StepMetrics, 0, l.steps)}
		out[i] = l.trace
		if frame != nil {
			if err := frame(sim); err != nil {
				return nil, fmt.Errorf("%s: frame at step 0: %w", sp.label(), err)
			}
		}
	}
	base, done := tr.done, 0
	for first := 0; ; first += lockBlock {
		active := false
		for _, l := range runs {
			for step := first; step < min(first+lockBlock, l.steps); step++ {
				active = true
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("%s stopped before step %d: %w", l.spec.label(), step, err)
				}
				m, err := l.sim.Step(ctx)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", l.spec.label(), err)
				}
				l.trace.Steps = append(l.trace.Steps, m)
				if l.frame != nil {
					if err := l.frame(l.sim); err != nil {
						return nil, fmt.Errorf("%s: frame at step %d: %w", l.spec.label(), step+1, err)
					}
				}
				done++
				tr.set(base + done)
			}
			if err := l.sim.FlushReference(ctx, l.trace.Steps); err != nil {
				return nil, fmt.Errorf("%s: %w", l.spec.label(), err)
			}
		}
		if !active {
			break
		}
	}
	for _, l := range runs {
		l.trace.Final = l.sim.States()
		l.trace.Wall = time.Since(start)
		c.log().Info("run", "run", l.spec.label(), "steps", len(l.trace.Steps), "wall", l.trace.Wall.Round(time.Millisecond))
		c.runs.put(l.spec.key(c), l.trace)
	}
	return out, nil
}

// ---- pictures ----

// snapshot is a step to render and what it shows.
type snapshot struct {
	step int // steps done when rendered (0: the initial state)
	what string
}

// pictures renders a scene at chosen steps (Run's OnFrame).
type pictures struct {
	cfg     *Config
	name    string // file prefix
	shots   []snapshot
	plots   []Plot
	painter scene3d.Painter
}

func (p *pictures) onFrame(s *scene3d.Sim) error {
	k := slices.IndexFunc(p.shots, func(sh snapshot) bool { return sh.step == s.StepCount() })
	if k < 0 {
		return nil
	}
	sh := p.shots[k]
	title := fmt.Sprintf("%s, %d objects: step %d (t = %.2f s), %s", s.Scene.Name, s.Params.N, sh.step, s.Time(), sh.what)
	img, err := p.painter.Paint(s, 960, 600, title)
	if err != nil {
		return err
	}
	file, rel, err := p.cfg.plotPath(fmt.Sprintf("%s-step%04d.png", p.name, sh.step))
	if err != nil {
		return err
	}
	if err := view3d.SavePNG(file, img); err != nil {
		return fmt.Errorf("experiment: %w", err)
	}
	p.plots = append(p.plots, Plot{Path: rel, Caption: title})
	return nil
}

// ---- statistics over traces ----

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// span is a range of steps [from, to).
type span struct {
	name     string
	from, to int
}

// clip limits sp to n steps.
func (sp span) clip(n int) span {
	sp.from, sp.to = min(sp.from, n), min(sp.to, n)
	return sp
}

func (sp span) String() string { return fmt.Sprintf("%s [%d, %d)", sp.name, sp.from, sp.to) }

// phaseSpans returns the avalanche's phases A, B and C of a trace
// (scene3d.PhaseBounds).
func phaseSpans(steps []scene3d.StepMetrics) [3]span {
	b, c := scene3d.PhaseBounds(steps)
	return [3]span{{"A (free fall)", 0, b}, {"B (impact)", b, c}, {"C (rest)", c, len(steps)}}
}

// narrowOf and rayOf are the times of a step that speed-ups compare: the
// whole narrow phase, and its ray work alone (scene3d.StepMetrics.RayTime,
// what the papers time as "time spent on ray-tracing").
func narrowOf(m *scene3d.StepMetrics) time.Duration { return m.Narrow }
func rayOf(m *scene3d.StepMetrics) time.Duration    { return m.RayTime }

// meanNarrow returns the mean narrow-phase time per step, in ms, over sp
// (NaN for no step).
func meanNarrow(steps []scene3d.StepMetrics, sp span) float64 {
	return meanTime(steps, sp, narrowOf)
}

// meanTime returns the mean of f per step, in ms, over sp (NaN for no
// step).
func meanTime(steps []scene3d.StepMetrics, sp span, f func(*scene3d.StepMetrics) time.Duration) float64 {
	sp = sp.clip(len(steps))
	if sp.to <= sp.from {
		return math.NaN()
	}
	var sum time.Duration
	for i := sp.from; i < sp.to; i++ {
		sum += f(&steps[i])
	}
	return ms(sum) / float64(sp.to-sp.from)
}

// medianNarrow returns the median narrow-phase time per step, in ms.
func medianNarrow(steps []scene3d.StepMetrics, sp span) float64 {
	return medianTime(steps, sp, narrowOf)
}

// medianTime returns the median of f per step, in ms, over sp.
func medianTime(steps []scene3d.StepMetrics, sp span, f func(*scene3d.StepMetrics) time.Duration) float64 {
	sp = sp.clip(len(steps))
	if sp.to <= sp.from {
		return math.NaN()
	}
	v := make([]float64, 0, sp.to-sp.from)
	for i := sp.from; i < sp.to; i++ {
		v = append(v, ms(f(&steps[i])))
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	v = slices.Clone(v)
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// div returns a/b, NaN when b is zero or either is NaN.
func div(a, b float64) float64 {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

// accuracy sums a run's reference comparison over a span.
type accuracy struct {
	steps               int
	compared, erroneous int
	missed, extra, mism int
	pairs, wrongPairs   int
	rayLength           float64 // Σ of the reference's raw ray lengths: the total interpenetration
	ownDepth            float64 // Σ of the run's own contact depths (its response)
	contacts            int
}

// wholeRun returns the reference comparison of every step of run t.
func wholeRun(t *scene3d.Trace) accuracy { return accuracyOf(t.Steps, span{"", 0, len(t.Steps)}) }

func accuracyOf(steps []scene3d.StepMetrics, sp span) accuracy {
	sp = sp.clip(len(steps))
	var a accuracy
	for _, m := range steps[sp.from:sp.to] {
		a.steps++
		a.compared += m.Diff.Compared
		a.erroneous += m.Diff.Erroneous()
		a.missed += m.Diff.Missed
		a.extra += m.Diff.Extra
		a.mism += m.Diff.Mismatched
		a.pairs += m.Pairs
		a.wrongPairs += m.Diff.WrongPairs
		a.rayLength += m.RefDepthSum
		a.ownDepth += m.DepthSum
		a.contacts += m.Contacts
	}
	return a
}

// errShare returns the share of erroneous rays among the compared ones
// (NaN when none was compared).
func (a accuracy) errShare() float64 {
	return div(float64(a.erroneous), float64(a.compared))
}

// wrongShare returns the share of wrongly detected pairs among the pairs
// tested.
func (a accuracy) wrongShare() float64 { return div(float64(a.wrongPairs), float64(a.pairs)) }

// worstWrongStep returns the largest per-step share of wrongly detected
// pairs over the steps with at least minPairs pairs, its step and its pair
// count (NaN, -1 when no step qualifies).
func worstWrongStep(steps []scene3d.StepMetrics, minPairs int) (share float64, step, pairs int) {
	share, step = math.NaN(), -1
	for _, m := range steps {
		if m.Pairs < max(minPairs, 1) {
			continue
		}
		s := float64(m.Diff.WrongPairs) / float64(m.Pairs)
		if step < 0 || s > share {
			share, step, pairs = s, m.Step, m.Pairs
		}
	}
	return share, step, pairs
}

// spikes counts the steps whose narrow-phase time exceeds factor times
// the median of the run's steps within half steps either side: on a
// shared virtual machine, a step sometimes waits for the host for far
// longer than it computes.
func spikes(steps []scene3d.StepMetrics, factor float64, half int) int {
	n := 0
	win := make([]float64, 0, 2*half+1)
	for i := range steps {
		win = win[:0]
		for j := max(0, i-half); j < min(len(steps), i+half+1); j++ {
			win = append(win, ms(steps[j].Narrow))
		}
		if m := median(win); m > 0 && ms(steps[i].Narrow) > factor*m {
			n++
		}
	}
	return n
}

// worstWrongWindow returns the largest share of wrongly detected pairs
// over windows of reductionWindow steps, and the window's first step.
func worstWrongWindow(steps []scene3d.StepMetrics) (share float64, at int) {
	share, at = math.NaN(), -1
	for from := 0; from < len(steps); from += reductionWindow {
		a := accuracyOf(steps, span{"", from, min(len(steps), from+reductionWindow)})
		if s := a.wrongShare(); !math.IsNaN(s) && (at < 0 || s > share) {
			share, at = s, from
		}
	}
	return share, at
}

// Windows of the erroneous-ray reduction.
const (
	reductionWindow    = 30 // steps (0.5 s at 60 Hz)
	reductionMinErrors = 50 // erroneous rays of the iterative run in a window for it to count
)

// reduction returns 1 − p/i, the relative reduction from i to p.
func reduction(i, p float64) float64 { return 1 - div(p, i) }

// maxWindowReduction returns the largest reduction of the share of
// erroneous rays from run it to run pr over windows of reductionWindow
// steps in which it has at least reductionMinErrors erroneous rays, and
// the window's first step (NaN, -1 when no window qualifies).
func maxWindowReduction(it, pr []scene3d.StepMetrics) (red float64, at, windows int) {
	red, at = math.NaN(), -1
	n := min(len(it), len(pr))
	for from := 0; from < n; from += reductionWindow {
		sp := span{"", from, min(n, from+reductionWindow)}
		ai, ap := accuracyOf(it, sp), accuracyOf(pr, sp)
		if ai.erroneous < reductionMinErrors || ap.compared == 0 {
			continue
		}
		windows++
		if r := reduction(ai.errShare(), ap.errShare()); at < 0 || r > red {
			red, at = r, from
		}
	}
	return red, at, windows
}

// maxStepReduction is maxWindowReduction over single steps with at least
// reductionMinErrors erroneous rays in run it.
func maxStepReduction(it, pr []scene3d.StepMetrics) (red float64, at int) {
	red, at = math.NaN(), -1
	for i := range min(len(it), len(pr)) {
		if it[i].Diff.Erroneous() < reductionMinErrors || pr[i].Diff.Compared == 0 {
			continue
		}
		if r := reduction(it[i].ErroneousShare(), pr[i].ErroneousShare()); at < 0 || r > red {
			red, at = r, i
		}
	}
	return red, at
}

// identical reports whether two traces have the same per-step pairs,
// contacts and depths (the same trajectory as far as the narrow phase
// sees).
func identical(a, b []scene3d.StepMetrics) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Pairs != b[i].Pairs || a[i].Contacts != b[i].Contacts || a[i].DepthSum != b[i].DepthSum {
			return false
		}
	}
	return true
}

// ---- formatting ----

func pct(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return num(100*v, decimals) + " %"
}

// change formats a relative change (ours/base − 1) with its sign: "−31 %",
// "+8 %".
func change(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "—"
	}
	if v < 0 {
		return "−" + num(-100*v, decimals) + " %"
	}
	return "+" + num(100*v, decimals) + " %"
}

// workers describes Config.Workers.
func (c *Config) workers() string {
	if c.Workers == 0 {
		return fmt.Sprintf("one worker per core (%d)", runtime.GOMAXPROCS(0))
	}
	return fmt.Sprintf("%d workers", c.Workers)
}

func times(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return num(v, decimals) + "×"
}

// better compares ours with the paper's figure: "yes" when ours is
// better (higher when higherBetter), "no" when worse, "≈" within tol
// (relative).
func better(ours, paper float64, higherBetter bool, tol float64) string {
	switch {
	case math.IsNaN(ours) || math.IsNaN(paper):
		return "n/a"
	case math.Abs(ours-paper) <= tol*math.Abs(paper):
		return "≈ (within " + num(100*tol, 0) + " %)"
	case (ours > paper) == higherBetter:
		return "yes"
	}
	return "no"
}
