package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/internal/steploop"
	"github.com/irtcd/irtcd/narrow"
)

// Defaults of Options.
const (
	DefaultDt                 = 1.0 / 60
	DefaultVelocityIterations = 8
	DefaultPositionIterations = 3
	Gravity                   = -10.0 // m/s², along y
)

// ErrDiverged reports a body whose position or velocity became NaN or
// infinite.
var ErrDiverged = errors.New("simulation diverged")

// Options configures New and Run. The zero value runs the scene at its
// default size for its default number of steps on the adapter's default
// backend.
type Options struct {
	Params Params2D // size and seed of the scene
	// Steps is the number of steps Run takes (0: the scene's Steps(N)).
	Steps int
	// Dt is the time step (0: DefaultDt); VelocityIterations and
	// PositionIterations are box2d's solver iterations (0: 8 and 3).
	Dt                 float64
	VelocityIterations int
	PositionIterations int
	// Backend runs the narrow phase (nil: the adapter's default CPU
	// backend). Run does not close it.
	Backend narrow.Backend
	// Logger receives the adapter's per-pair warnings (nil: slog.Default).
	Logger *slog.Logger
	// OnProgress, if set, is called by Run after every step with the
	// number of steps done and the total.
	OnProgress func(step, total int)
	// OnFrame, if set, is called by Run with the world before the first
	// step, after every FrameEvery-th step and after the last one. An
	// error stops the run.
	OnFrame func(Frame) error
	// FrameEvery is the interval of OnFrame in steps (0: 1).
	FrameEvery int
}

// StepMetrics describes one step.
type StepMetrics struct {
	Step   int           // index of the step, from 0
	Bodies int           // the scene's dynamic bodies during the step
	Narrow time.Duration // irtcd's batched narrow phase (adapter: gathering pairs and Backend.Detect)
	Box2D  time.Duration // box2d's World.Step (solver, TOI, on-demand detections)

	StandardRays   int // Hermann rays of standard steps
	PredictiveRays int // opposite (predictive) rays
	IterativeRays  int // rays updated by iterative walks

	Pairs          int // irtcd pairs in the batch
	StandardPairs  int // pairs processed with the standard algorithm
	IterativePairs int // pairs updated iteratively

	Manifolds int     // manifolds handed to box2d
	Points    int     // contact points handed to box2d
	DepthSum  float64 // sum of the points' penetration depths
	DepthMax  float64 // deepest point

	// Every touching contact of the world after the step, irtcd's and
	// box2d's own, as box2d's solver sees them: the points, and the
	// deepest point's penetration (minus its separation), from the
	// manifolds the step solved at the bodies' new positions
	// (b2Contact.GetWorldManifold). The same measure with and without
	// irtcd (Params2D.Convex).
	WorldPoints   int
	WorldDepthMax float64

	// Awake is the number of the scene's dynamic bodies awake after the
	// step (box2d puts a body to sleep once it and everything touching
	// it have been still for half a second).
	Awake int
}

// Rays returns the step's rays of every kind.
func (m StepMetrics) Rays() int { return m.StandardRays + m.PredictiveRays + m.IterativeRays }

// BodyState is a dynamic body's position and velocity.
type BodyState struct {
	X, Y, Angle float64
	VX, VY      float64 // linear velocity
	Omega       float64 // angular velocity
}

// Speed returns the body's linear speed.
func (s BodyState) Speed() float64 { return math.Hypot(s.VX, s.VY) }

// Frame is the world as OnFrame sees it. World is only valid during the
// call.
type Frame struct {
	Scene string
	Step  int     // steps done
	Time  float64 // simulated seconds
	World *b2.B2World
	View  Rect
}

// Trace is the record of a run.
type Trace struct {
	Scene string
	N     int
	Seed  uint64
	Dt    float64
	Floor float64       // the scene's Setup2D.Floor
	Steps []StepMetrics // one per step done
	Final []BodyState   // the scene's dynamic bodies after the last step, in creation order
	Wall  time.Duration // wall-clock time of the run (stepping and callbacks)
}

// Sim is a scene being simulated, for callers that step it themselves.
// Run is the usual way to use it.
type Sim struct {
	World   *b2.B2World           // the world, gravity Gravity along y
	Adapter *box2dadapter.Adapter // irtcd installed on World
	Setup   *Setup2D              // what the scene built
	Scene   Scene2D               // the scene
	Params  Params2D              // its size and seed, N resolved

	dt     float64
	velIt  int
	posIt  int
	step   int
	closed bool
}

// New builds scene into a fresh world with gravity and irtcd installed.
// Close the Sim when done.
func New(scene Scene2D, opts Options) (*Sim, error) {
	if scene.Build == nil {
		return nil, fmt.Errorf("sim: scene %q has no Build", scene.Name)
	}
	p := opts.Params
	if p.N <= 0 {
		p.N = scene.DefaultN
	}
	if p.N <= 0 {
		return nil, fmt.Errorf("sim: scene %q: no number of objects", scene.Name)
	}
	s := &Sim{
		World:  new(b2.B2World),
		Scene:  scene,
		Params: p,
		dt:     cmp.Or(opts.Dt, DefaultDt),
		velIt:  cmp.Or(opts.VelocityIterations, DefaultVelocityIterations),
		posIt:  cmp.Or(opts.PositionIterations, DefaultPositionIterations),
	}
	if !(s.dt > 0) || math.IsInf(s.dt, 0) {
		return nil, fmt.Errorf("sim: bad time step %v", s.dt)
	}
	*s.World = b2.MakeB2World(b2.B2Vec2{X: 0, Y: Gravity}) // before anything points to it
	var aopts []box2dadapter.Option
	if opts.Backend != nil {
		aopts = append(aopts, box2dadapter.WithBackend(opts.Backend))
	}
	if opts.Logger != nil {
		aopts = append(aopts, box2dadapter.WithLogger(opts.Logger))
	}
	ad, err := box2dadapter.Install(s.World, aopts...)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	s.Adapter = ad
	setup, err := scene.Build(s.World, p)
	if err != nil {
		ad.Close()
		return nil, fmt.Errorf("sim: scene %q: %w", scene.Name, err)
	}
	s.Setup = setup
	return s, nil
}

// StepCount returns the number of steps done.
func (s *Sim) StepCount() int { return s.step }

// Time returns the simulated time in seconds.
func (s *Sim) Time() float64 { return float64(s.step) * s.dt }

// Frame returns the current world for drawing.
func (s *Sim) Frame() Frame {
	return Frame{Scene: s.Scene.Name, Step: s.step, Time: s.Time(), World: s.World, View: s.Setup.View}
}

// Step advances the world by one time step (the scene's BeforeStep, then
// the adapter's narrow phase and box2d's step) and returns its metrics.
func (s *Sim) Step(ctx context.Context) (StepMetrics, error) {
	if s.closed {
		return StepMetrics{}, errors.New("sim: step after Close")
	}
	if f := s.Setup.BeforeStep; f != nil {
		if err := f(s.step, s.Time()); err != nil {
			return StepMetrics{}, fmt.Errorf("sim: %s step %d: %w", s.Scene.Name, s.step, err)
		}
	}
	if err := s.Adapter.Step(ctx, s.dt, s.velIt, s.posIt); err != nil {
		return StepMetrics{}, fmt.Errorf("sim: %s step %d: %w", s.Scene.Name, s.step, err)
	}
	st := s.Adapter.Stats()
	m := StepMetrics{
		Step:           s.step,
		Bodies:         len(s.Setup.Bodies),
		Narrow:         st.Narrow,
		Box2D:          st.Step,
		StandardRays:   st.Detect.StandardRays,
		PredictiveRays: st.Detect.PredictiveRays,
		IterativeRays:  st.Detect.IterativeRays,
		Pairs:          st.Pairs,
		StandardPairs:  st.Detect.StandardPairs,
		IterativePairs: st.Detect.IterativePairs,
		Manifolds:      st.Manifolds,
		Points:         st.Points,
		DepthSum:       st.DepthSum,
		DepthMax:       st.DepthMax,
	}
	m.WorldPoints, m.WorldDepthMax = worldDepths(s.World)
	for i, b := range s.Setup.Bodies {
		if b.IsAwake() {
			m.Awake++
		}
		p, v := b.GetPosition(), b.GetLinearVelocity()
		if !finite(p.X, p.Y, v.X, v.Y, b.GetAngle(), b.GetAngularVelocity()) {
			return m, fmt.Errorf("sim: %s step %d: body %d: %w", s.Scene.Name, s.step, i, ErrDiverged)
		}
	}
	s.step++
	return m, nil
}

// worldDepths returns the points of w's touching contacts and the
// deepest one's penetration, from box2d's world manifolds.
func worldDepths(w *b2.B2World) (points int, deepest float64) {
	var wm b2.B2WorldManifold
	for c := w.GetContactList(); c != nil; c = c.GetNext() {
		if !c.IsTouching() || !c.IsEnabled() {
			continue
		}
		c.GetWorldManifold(&wm)
		n := c.GetManifold().PointCount
		points += n
		for i := range n {
			deepest = max(deepest, -wm.Separations[i])
		}
	}
	return points, deepest
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// States returns the position and velocity of the scene's dynamic bodies,
// in creation order.
func (s *Sim) States() []BodyState {
	out := make([]BodyState, len(s.Setup.Bodies))
	for i, b := range s.Setup.Bodies {
		p, v := b.GetPosition(), b.GetLinearVelocity()
		out[i] = BodyState{X: p.X, Y: p.Y, Angle: b.GetAngle(), VX: v.X, VY: v.Y, Omega: b.GetAngularVelocity()}
	}
	return out
}

// Close uninstalls the adapter and closes the backend it created. The
// world's bodies stay readable.
func (s *Sim) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.Adapter.Close(); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}

// Run simulates scene with opts and returns the trace of every step. It
// stops early when ctx is cancelled, a step fails or OnFrame returns an
// error; the trace of the steps done so far is returned with the error.
func Run(ctx context.Context, scene Scene2D, opts Options) (tr *Trace, err error) {
	start := time.Now()
	s, err := New(scene, opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		err = errors.Join(err, s.Close())
		tr.Final = s.States()
		tr.Wall = time.Since(start)
	}()
	total := opts.Steps
	if total <= 0 {
		total = scene.Steps(s.Params.N)
	}
	tr = &Trace{Scene: scene.Name, N: s.Params.N, Seed: s.Params.Seed, Dt: s.dt, Floor: s.Setup.Floor}
	loop := steploop.Loop[StepMetrics]{
		Prefix: "sim", Scene: scene.Name, Total: total, Every: opts.FrameEvery,
		Step: s.Step, Progress: opts.OnProgress,
	}
	if opts.OnFrame != nil {
		loop.Frame = func(int) error { return opts.OnFrame(s.Frame()) }
	}
	tr.Steps, err = loop.Run(ctx, make([]StepMetrics, 0, total))
	return tr, err
}
