package scene3d

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/adapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/steploop"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// Options configures New and Run. The zero value runs the full-size scene
// for its default number of steps on a CPU backend with irtcd's default
// method (iterative + predictive).
type Options struct {
	// N is the number of objects (0: the scene's DefaultN), Seed seeds the
	// scene's random choices, MeshDir locates the meshes and Meshes
	// replaces them (see SceneParams).
	N       int
	Seed    uint64
	MeshDir string
	Meshes  []string
	// Params configures the backend New creates (ignored when Backend is
	// set): method, traversal, response, manifold size...
	Params narrow.Params
	// Backend runs the narrow phase (nil: cpubackend.New(Params) with
	// Workers workers, closed by Close). Run does not close a backend
	// given here.
	Backend narrow.Backend
	// Workers is the number of CPU backend workers (0: GOMAXPROCS), for
	// the backend New creates and the reference backend.
	Workers int
	// Steps is the number of steps Run takes (0: the scene's Steps(N)).
	Steps int
	// Config, if set, replaces rigid.DefaultConfig() as the world's
	// configuration (its Backend, Params, Workers and Logger fields are
	// overwritten; the scene's Configure still runs after it).
	Config *rigid.Config
	// Reference runs, after every step, a second CPU backend with
	// MethodStandard on the same pairs and poses, and fills the step's
	// reference metrics (see RayDiff). Its other parameters are Params,
	// or the given Backend's when it has a Params method
	// (as cpubackend.Backend does).
	Reference bool
	// RefRawRays runs the reference with narrow.ResponseRay whatever the
	// variant's response, so that RefDepthSum and RefDepthMax are raw ray
	// lengths |r|: "the cumulative length of all rays with a standard
	// algorithm" of Lehericey et al. (2013b, §5.2 and §5.4), the same
	// measure for variants with different responses (without it, the
	// reference's depths are r·n under ResponseMTD). The comparison (Diff)
	// is unchanged: before it, each reference contact is rewritten as the
	// variant's response makes it from the same hit (reprojection.Make).
	RefRawRays bool
	// DeferReference queues each step's reference comparison instead of
	// running it in Step: Sim.FlushReference runs the queued ones later
	// and fills in their steps' reference metrics. Its only use is to keep
	// the reference's work (a second backend over every pair) out of the
	// caches of the steps being timed: run inline, it slows a cheap
	// iterative step by about 40 %. The metrics are the same either way.
	// Run flushes the queue every DeferredSteps steps, so that it never
	// holds more than that many steps' pairs.
	DeferReference bool
	// DepthTol is the relative depth tolerance of the reference comparison
	// (0: DefaultDepthTol).
	DepthTol float64
	// Logger receives the backends' logs (nil: slog.Default()).
	Logger *slog.Logger
	// OnProgress, if set, is called by Run after every step with the
	// number of steps done and the total.
	OnProgress func(step, total int)
	// OnFrame, if set, is called by Run before the first step, after every
	// FrameEvery-th step (0: 1) and after the last one, e.g. to render
	// Sim.Instances. An error stops the run.
	OnFrame    func(*Sim) error
	FrameEvery int
}

// StepMetrics describes one step.
type StepMetrics struct {
	Step   int // index of the step, from 0
	Bodies int // dynamic bodies during the step
	Awake  int // dynamic bodies awake after it

	Narrow  time.Duration // narrow phase: adapter.Batch.Run (Backend.Detect)
	RayTime time.Duration // of Narrow, the backend's ray work (narrow.DetectTimes.Rays; 0 if the backend does not time it)
	Total   time.Duration // the world's whole step (broad phase, narrow phase, solver, sleeping)

	StandardRays   int // Hermann rays of standard steps
	PredictiveRays int // opposite (predictive) rays
	IterativeRays  int // rays updated by iterative walks
	LostRays       int // iterative rays that found nothing within maxIt
	Predictions    int // predictions kept for the next step

	Pairs          int // narrow-phase pairs
	StandardPairs  int // pairs processed with the standard algorithm
	IterativePairs int // pairs updated iteratively
	ContactPairs   int // pairs with at least one contact

	Contacts            int     // contacts (rays that hit), before manifold reduction
	Points              int     // manifold points handed to the solver
	Speculative         int     // of which speculative points (gaps that could close within the step)
	SpeculativeContacts int     // speculative contacts (gaps, narrow.Params.Speculative), before manifold reduction
	DepthSum            float64 // sum of the contacts' depths (the variant's cumulative ray length)
	DepthMax            float64 // deepest contact

	// Continuous collision detection (rigid.Config.CCDMotion; zero
	// without it).
	Swept   int // pairs swept
	Clamped int // bodies whose motion was cut back to a time of impact

	// Reference metrics (zero unless Options.Reference): the standard
	// algorithm on the same pairs and poses.
	Ref             bool
	RefContacts     int
	RefContactPairs int
	RefDepthSum     float64 // cumulative ray length: the total interpenetration of the step (raw |r| with Options.RefRawRays, else in the variant's response)
	RefDepthMax     float64
	Diff            RayDiff // the variant against the reference

	// Physical state after the step (dynamic bodies).
	MaxSpeed      float64 // fastest centre of mass, m/s
	KineticEnergy float64 // J (density 1000 kg/m³)
	MinHeight     float64 // lowest centre of mass above the floor, m
}

// Rays returns the step's rays of every kind.
func (m *StepMetrics) Rays() int { return m.StandardRays + m.PredictiveRays + m.IterativeRays }

// DepthMean returns the mean depth of the step's contacts.
func (m *StepMetrics) DepthMean() float64 { return ratio(m.DepthSum, m.Contacts) }

// RefDepthMean returns the mean depth of the reference's contacts.
func (m *StepMetrics) RefDepthMean() float64 { return ratio(m.RefDepthSum, m.RefContacts) }

// ErroneousShare returns the share of erroneous rays among the compared
// ones (0 when none were compared).
func (m *StepMetrics) ErroneousShare() float64 {
	return ratio(float64(m.Diff.Erroneous()), m.Diff.Compared)
}

// WrongPairShare returns the share of wrongly detected pairs among the
// step's pairs.
func (m *StepMetrics) WrongPairShare() float64 { return ratio(float64(m.Diff.WrongPairs), m.Pairs) }

func ratio(a float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return a / float64(n)
}

// BodyState is a dynamic body's state.
type BodyState struct {
	Pose    narrow.Pose
	Linear  mgl64.Vec3 // velocity of the centre of mass
	Angular mgl64.Vec3 // angular velocity
	Center  mgl64.Vec3 // world centre of mass
	Asleep  bool
}

// Trace is the record of a run.
type Trace struct {
	Scene  string
	N      int
	Seed   uint64
	Dt     float64
	Method narrow.Method // the narrow phase's method (Options.Params', or the given backend's if it has a Params method)
	Floor  float64
	Steps  []StepMetrics // one per step done
	Final  []BodyState   // the dynamic bodies after the last step, in creation order
	Wall   time.Duration // wall-clock time of the run
}

// Sim is a scene being simulated, for callers that step it themselves;
// Run is the usual way to use it.
type Sim struct {
	World  *rigid.World
	Setup  *Setup
	Scene  Scene
	Params SceneParams // N resolved

	ownBackend narrow.Backend // created by New, closed by Close
	ref        *adapter.Batch
	refBackend narrow.Backend
	depthTol   float64
	method     narrow.Method
	response   narrow.Response // the variant's
	refRaw     bool            // the reference runs with ResponseRay (Options.RefRawRays)
	conv       []narrow.Contact
	defer_     bool             // Options.DeferReference
	queue      []queued         // steps whose reference comparison waits for FlushReference
	qPairs     []refPair        // their pairs, step after step
	qContacts  []narrow.Contact // the variant's contacts of qPairs, pair after pair
	steps      int
	closed     bool
	inst       []rigid.Instance
}

// refPair is a pair as the reference needs it: its ID, shapes and poses,
// and (queued) where its variant contacts lie in Sim.qContacts.
type refPair struct {
	id           uint64
	a, b         *narrow.Shape
	poseA, poseB narrow.Pose
	c0, c1       int
}

// queued is a step whose reference comparison is deferred: its index and
// its pairs, s.qPairs[p0:p1].
type queued struct {
	step   int
	p0, p1 int
}

// New builds scene into a fresh world. Close the Sim when done.
func New(scene Scene, opts Options) (*Sim, error) {
	if scene.Build == nil {
		return nil, fmt.Errorf("scene3d: scene %q has no Build", scene.Name)
	}
	p := SceneParams{N: opts.N, Seed: opts.Seed, MeshDir: opts.MeshDir, Meshes: opts.Meshes}
	if p.N <= 0 {
		p.N = scene.DefaultN
	}
	cfg := rigid.DefaultConfig()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	// The parameters in force: the given backend's when it tells them.
	np := opts.Params
	if pb, ok := opts.Backend.(interface{ Params() narrow.Params }); ok {
		np = pb.Params()
	}
	s := &Sim{Scene: scene, Params: p, depthTol: opts.DepthTol, method: np.Method, response: np.Response, refRaw: opts.RefRawRays, defer_: opts.DeferReference}
	if s.depthTol == 0 {
		s.depthTol = DefaultDepthTol
	}
	if !(s.depthTol >= 0) || math.IsInf(s.depthTol, 0) {
		return nil, fmt.Errorf("scene3d: bad DepthTol %v", opts.DepthTol)
	}
	var bopts []cpubackend.Option
	if opts.Workers > 0 {
		bopts = append(bopts, cpubackend.WithWorkers(opts.Workers))
	}
	if opts.Logger != nil {
		bopts = append(bopts, cpubackend.WithLogger(opts.Logger))
	}
	be := opts.Backend
	if be == nil {
		b, err := cpubackend.New(opts.Params, bopts...)
		if err != nil {
			return nil, fmt.Errorf("scene3d: %w", err)
		}
		be, s.ownBackend = b, b
	}
	if opts.Reference {
		rp := np
		rp.Method, rp.Speculative = narrow.MethodStandard, false
		if opts.RefRawRays {
			rp.Response = narrow.ResponseRay
		}
		rb, err := cpubackend.New(rp, bopts...)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("scene3d: reference: %w", err)
		}
		s.refBackend = rb
		s.ref = adapter.NewBatch(rb)
	}
	cfg.Backend, cfg.Params, cfg.Workers, cfg.Logger = be, np, opts.Workers, opts.Logger
	if scene.Configure != nil {
		scene.Configure(&cfg, p)
	}
	w, err := rigid.NewWorld(cfg)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("scene3d: %w", err)
	}
	s.World = w
	setup, err := scene.Build(w, p)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("scene3d: scene %q: %w", scene.Name, err)
	}
	s.Setup = setup
	return s, nil
}

// StepCount returns the number of steps done.
func (s *Sim) StepCount() int { return s.steps }

// Time returns the simulated time in seconds.
func (s *Sim) Time() float64 { return s.World.Time() }

// Instances returns every body (statics first, in creation order) with
// its shape, pose and static flag, for rendering. The slice is reused by
// the next call.
func (s *Sim) Instances() []rigid.Instance {
	s.inst = s.World.Instances(s.inst[:0])
	return s.inst
}

// Step runs the scene's BeforeStep and one world step, and returns the
// step's metrics (with the reference comparison when enabled).
func (s *Sim) Step(ctx context.Context) (StepMetrics, error) {
	if s.closed {
		return StepMetrics{}, errors.New("scene3d: step after Close")
	}
	if f := s.Setup.BeforeStep; f != nil {
		if err := f(s.steps, s.Time()); err != nil {
			return StepMetrics{}, fmt.Errorf("scene3d: %s step %d: %w", s.Scene.Name, s.steps, err)
		}
	}
	if err := s.World.Step(ctx); err != nil {
		return StepMetrics{}, fmt.Errorf("scene3d: %s step %d: %w", s.Scene.Name, s.steps, err)
	}
	st := s.World.Stats()
	m := StepMetrics{
		Step:                s.steps,
		Bodies:              len(s.Setup.Bodies),
		Awake:               st.Awake,
		Narrow:              st.Narrow,
		RayTime:             st.Rays,
		Total:               st.Total,
		StandardRays:        st.Detect.StandardRays,
		PredictiveRays:      st.Detect.PredictiveRays,
		IterativeRays:       st.Detect.IterativeRays,
		LostRays:            st.Detect.LostRays,
		Predictions:         st.Detect.Predictions,
		Pairs:               st.Pairs,
		StandardPairs:       st.Detect.StandardPairs,
		IterativePairs:      st.Detect.IterativePairs,
		ContactPairs:        st.ContactPairs,
		Contacts:            st.Contacts,
		Points:              st.Points,
		Speculative:         st.SpeculativePoints,
		SpeculativeContacts: st.Speculative,
		DepthSum:            st.DepthSum,
		DepthMax:            st.DepthMax,
		Swept:               st.Swept,
		Clamped:             st.Clamped,
	}
	if s.ref != nil {
		if err := s.reference(ctx, &m); err != nil {
			return m, err
		}
	}

	m.MinHeight = math.Inf(1)
	for _, id := range s.Setup.Bodies {
		b := s.World.Body(id)
		if b == nil {
			continue // removed (rigid.World.RemoveBody)
		}
		m.MaxSpeed = math.Max(m.MaxSpeed, b.LinearVelocity().Len())
		m.KineticEnergy += b.KineticEnergy()
		m.MinHeight = math.Min(m.MinHeight, b.CenterOfMass()[1]-s.Setup.Floor)
	}
	if len(s.Setup.Bodies) == 0 {
		m.MinHeight = 0
	}
	s.steps++
	return m, nil
}

// reference detects the step's pairs again with the standard algorithm
// and compares contact by contact, or queues them for FlushReference.
func (s *Sim) reference(ctx context.Context, m *StepMetrics) error {
	pairs, res := s.World.Pairs(), s.World.Results()
	if len(res) != len(pairs) {
		return fmt.Errorf("scene3d: reference: %d results for %d pairs", len(res), len(pairs))
	}
	p0 := len(s.qPairs)
	for i := range pairs {
		p := &pairs[i]
		c0 := len(s.qContacts)
		for k := range res[i].Contacts {
			// Speculative contacts are gaps: the standard algorithm has
			// none to compare them with.
			if c := &res[i].Contacts[k]; !c.Speculative() {
				s.qContacts = append(s.qContacts, *c)
			}
		}
		s.qPairs = append(s.qPairs, refPair{id: p.ID, a: s.World.Body(p.A).Shape(), b: s.World.Body(p.B).Shape(),
			poseA: p.PoseA, poseB: p.PoseB, c0: c0, c1: len(s.qContacts)})
	}
	if s.defer_ {
		s.queue = append(s.queue, queued{step: s.steps, p0: p0, p1: len(s.qPairs)})
		return nil
	}
	err := s.compare(ctx, m, s.qPairs[p0:])
	s.qPairs, s.qContacts = s.qPairs[:0], s.qContacts[:0]
	return err
}

// FlushReference runs the reference comparisons that Options.DeferReference
// queued and fills in the reference metrics of those steps in steps, which
// must hold them (found by StepMetrics.Step, as Run's Trace.Steps does).
func (s *Sim) FlushReference(ctx context.Context, steps []StepMetrics) error {
	defer func() {
		s.queue, s.qPairs, s.qContacts = s.queue[:0], s.qPairs[:0], s.qContacts[:0]
	}()
	for _, q := range s.queue {
		k := q.step
		if k >= len(steps) || steps[k].Step != q.step {
			k = slices.IndexFunc(steps, func(m StepMetrics) bool { return m.Step == q.step })
			if k < 0 {
				return fmt.Errorf("scene3d: reference: step %d is not among the %d steps given", q.step, len(steps))
			}
		}
		if err := s.compare(ctx, &steps[k], s.qPairs[q.p0:q.p1]); err != nil {
			return err
		}
	}
	return nil
}

// compare detects pairs with the reference and compares them with the
// variant's contacts, into m.
func (s *Sim) compare(ctx context.Context, m *StepMetrics, pairs []refPair) error {
	s.ref.Begin()
	for i := range pairs {
		p := &pairs[i]
		if err := s.ref.Add(p.id, p.a, p.b, p.poseA, p.poseB); err != nil {
			return fmt.Errorf("scene3d: reference: %w", err)
		}
	}
	if err := s.ref.Run(ctx); err != nil {
		return fmt.Errorf("scene3d: reference: %w", err)
	}
	rr := s.ref.Results()
	if len(rr) != len(pairs) {
		return fmt.Errorf("scene3d: reference: %d results for %d pairs", len(rr), len(pairs))
	}
	m.Ref = true
	for i := range rr {
		r, p := &rr[i], &pairs[i]
		if r.Err != nil {
			return fmt.Errorf("scene3d: reference: %w", r.Err)
		}
		if len(r.Contacts) > 0 {
			m.RefContactPairs++
		}
		m.RefContacts += len(r.Contacts)
		for k := range r.Contacts {
			d := r.Contacts[k].Depth
			m.RefDepthSum += d
			m.RefDepthMax = math.Max(m.RefDepthMax, d)
		}
		rc := r.Contacts
		if s.refRaw && s.response != narrow.ResponseRay {
			s.conv = fromRays(s.conv[:0], rc, s.response, p.a, p.b, p.poseA, p.poseB)
			rc = s.conv
		}
		m.Diff.comparePair(s.qContacts[p.c0:p.c1], rc, s.depthTol*math.Min(p.a.Size(), p.b.Size()))
	}
	return nil
}

// States returns the dynamic bodies' states in creation order (the zero
// BodyState for a body removed from the world).
func (s *Sim) States() []BodyState {
	out := make([]BodyState, len(s.Setup.Bodies))
	for i, id := range s.Setup.Bodies {
		b := s.World.Body(id)
		if b == nil {
			continue
		}
		out[i] = BodyState{Pose: b.Pose(), Linear: b.LinearVelocity(), Angular: b.AngularVelocity(), Center: b.CenterOfMass(), Asleep: b.Sleeping()}
	}
	return out
}

// Close closes the world and the backends New created. The bodies stay
// readable.
func (s *Sim) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.World != nil {
		errs = append(errs, s.World.Close())
	}
	if s.ownBackend != nil {
		errs = append(errs, s.ownBackend.Close())
	}
	if s.refBackend != nil {
		errs = append(errs, s.refBackend.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("scene3d: %w", err)
	}
	return nil
}

// DeferredSteps is how many steps' reference comparisons Run lets
// Options.DeferReference queue before it runs them. The queue holds those
// steps' pairs (about 150 bytes each) and contacts: a whole run's would
// take hundreds of megabytes and keep the garbage collector busy during
// the steps being timed.
const DeferredSteps = 10

// Run simulates scene with opts and returns the trace of every step. It
// stops early when ctx is cancelled, a step fails or OnFrame returns an
// error; the trace of the steps done so far is returned with the error.
func Run(ctx context.Context, scene Scene, opts Options) (tr *Trace, err error) {
	start := time.Now()
	s, err := New(scene, opts)
	if err != nil {
		return nil, err
	}
	total := opts.Steps
	if total <= 0 {
		total = scene.Steps(s.Params.N)
	}
	tr = &Trace{Scene: scene.Name, N: s.Params.N, Seed: s.Params.Seed, Dt: s.World.Config().Dt,
		Method: s.method, Floor: s.Setup.Floor, Steps: make([]StepMetrics, 0, total)}
	defer func() {
		tr.Final = s.States()
		err = errors.Join(err, s.Close())
		tr.Wall = time.Since(start)
	}()
	loop := steploop.Loop[StepMetrics]{
		Prefix: "scene3d", Scene: scene.Name, Total: total, Every: opts.FrameEvery,
		Step: s.Step, Progress: opts.OnProgress,
	}
	if opts.OnFrame != nil {
		loop.Frame = func(int) error { return opts.OnFrame(s) }
	}
	if s.defer_ {
		loop.After = func(ctx context.Context, steps []StepMetrics) error {
			if len(s.queue) < DeferredSteps {
				return nil
			}
			return s.FlushReference(ctx, steps)
		}
	}
	tr.Steps, err = loop.Run(ctx, tr.Steps)
	if err == nil {
		err = s.FlushReference(ctx, tr.Steps)
	}
	return tr, err
}
