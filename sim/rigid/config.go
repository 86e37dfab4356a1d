package rigid

import (
	"fmt"
	"log/slog"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// Config configures a World. Start from DefaultConfig and change what you
// need: NewWorld takes every field as given and rejects out-of-range values
// with ErrBadConfig (zero is not "default").
type Config struct {
	// Gravity is the acceleration of every dynamic body (m/s²).
	Gravity mgl64.Vec3
	// Dt is the fixed time step (s).
	Dt float64

	// VelocityIterations is the number of sequential-impulse sweeps over
	// the contacts for velocities (normal, friction, restitution).
	VelocityIterations int
	// PositionIterations is the number of sweeps of the split-impulse
	// (pseudo-velocity) position correction; 0 turns position correction
	// off.
	PositionIterations int
	// Slop is the penetration depth (m) left uncorrected, so that resting
	// contacts persist from step to step.
	Slop float64
	// CorrectionRate is the share of the penetration beyond Slop that
	// position correction removes per step (Baumgarte's β, Bullet's ERP),
	// in (0, 1].
	CorrectionRate float64
	// DeepPenetration and DeepCorrectionRate strengthen the correction of
	// deep contacts: one deeper than DeepPenetration (m) has the share
	// DeepCorrectionRate of its penetration beyond Slop removed per step
	// instead of CorrectionRate (Bullet's erp2 beyond its split-impulse
	// penetration threshold). DeepCorrectionRate 0 (the default) turns
	// this off; otherwise it is in (0, 1].
	DeepPenetration    float64
	DeepCorrectionRate float64
	// MaxCorrectionVelocity caps the pseudo-velocity (m/s) that position
	// correction asks of one contact: concave shapes can meet deeply after
	// an impact, and removing such depths in one step would throw bodies
	// apart.
	MaxCorrectionVelocity float64
	// RestitutionThreshold is the approach speed (m/s) below which contacts
	// do not bounce.
	RestitutionThreshold float64
	// SpeculativeMargin (m): a speculative contact (a gap, see
	// narrow.Params.Speculative) goes to the solver when its gap is under
	// the distance its points approach in one step plus this margin, which
	// covers what the step's other impulses and gravity add.
	SpeculativeMargin float64
	// WarmStart scales the impulses carried over from the previous step
	// (1: all of them, 0: none). In [0, 1].
	WarmStart float64

	// LinearDamping and AngularDamping (1/s) slow dynamic bodies:
	// v ← v / (1 + Dt·damping) every step. 0 is none.
	LinearDamping, AngularDamping float64

	// Sleeping. A body is still when its speed is under LinearSleep (m/s)
	// and its angular speed under AngularSleep (rad/s); an island (bodies
	// linked by contacts) falls asleep when every body in it has been still
	// for TimeToSleep (s). DisableSleep keeps every body awake.
	LinearSleep, AngularSleep float64
	TimeToSleep               float64
	DisableSleep              bool

	// MarginFactor grows each dynamic body's world bounding box, for the
	// broad phase, by MarginFactor × its shape's Size plus the distance
	// its speed covers in one step. The default (0.1) is the predictive
	// algorithm's default distanceExtension, so a pair reaches the narrow
	// phase before its bodies touch and prediction can see it coming.
	MarginFactor float64

	// CCDMotion turns on continuous collision detection: a pair without
	// contact whose relative motion in a step may exceed CCDMotion × the
	// smaller shape's Size (a bound: the centres' relative displacement
	// plus each body's turn times its reach) is swept (narrow.Sweep: every
	// vertex's path traced against the other shape, both ways), and the
	// motions of both bodies are cut back to the earliest time of impact,
	// half a Slop past first touch, unless a body touches something in
	// the step (the solver answered for it, position correction
	// included). Their velocities stay: the next step's contact stops
	// them. Contacts and speculative contacts hold slower pairs;
	// a body that covers more than their reach in one step (0.1 × the
	// smaller Size by default: narrow.Params.DisplacementThreshold ×
	// Confidence) would otherwise sink deep into another, or pass through
	// a thin one. The cut costs the body the rest of the step, and its
	// impact is answered at the next step (with one more step of gravity
	// in its approach speed): a box dropped 1 m with restitution 0.6
	// bounces 12 % higher than e²·h (TestCCD). 0 (the default, as in
	// Bullet's defaults, which the papers' experiments ran) turns it off;
	// 0.05 sweeps what speculative contacts may miss.
	CCDMotion float64
	// CCDEdges makes continuous collision detection (CCDMotion) sweep the
	// shapes' edges too (narrow.SweepEdges): a body whose first touch of
	// another is edge on edge, its vertices never inside the other (a
	// fast bar dropped across a thin one), is stopped there rather than
	// passing through. The edges are swept below the vertices' time of
	// impact (narrow.SweepEdgesBefore), which keeps the cost near the
	// vertex sweep's (a third more in a small spawner of bunnies, tori,
	// teddies and ducks: sim/scene3d's BenchmarkSpawnerCCD). Off by
	// default: with it off the papers' experiments run as they did.
	CCDEdges bool
	// CCDTurns makes continuous collision detection (CCDMotion) follow
	// fast turns: a pair that turns by more than 0.35 rad relative to
	// each other in a step, so far that a vertex could stray from its
	// straight path by half a shape's thickness, is also cast along the
	// turn (narrow.CastMotionWithin; StepStats.Turned), and the broad
	// phase's boxes grow by the most a body's turn moves a point in a
	// step. A bar spinning at 120 rad/s past a post is stopped there
	// rather than spinning through it (TestCCDTurning). Off by default:
	// in a small spawner of tumbling bunnies, tori, teddies and ducks it
	// costs a quarter more a step than CCD without it (sim/scene3d's
	// BenchmarkSpawnerCCD).
	CCDTurns bool

	// Backend is the narrow phase. Nil: NewWorld creates
	// cpubackend.New(Params) with Workers workers (GOMAXPROCS when 0) and
	// Logger, and Close closes it. A backend given here is not closed by
	// the world.
	Backend narrow.Backend
	// Params configures the backend NewWorld creates (ignored with
	// Backend). The zero value is irtcd's default: iterative + predictive,
	// BVH, MTD re-projection, 4-point manifolds. DefaultConfig adds
	// speculative contacts (narrow.Params.Speculative), which this solver
	// supports: bodies sink into each other far less (docs/RESULTS.md);
	// and edge-on-edge contacts between edges bent by more than π/3
	// (narrow.Params.EdgeAngle), without which boxes crossing edge on edge
	// sink into each other and stacks of boxes topple. They cost boxes
	// little (a pile's whole step takes 1.3× as long, with their
	// speculative gaps) and meshes with many sharp edges much (2.3× the
	// narrow phase of 100 falling bunnies, whose 115 edges above π/3 come
	// from the mesh's coarseness; docs/BENCHMARKS.md, "Edge-on-edge
	// contacts" and "At sim/rigid's defaults"): set EdgeAngle to 0 for
	// those (docs/DESIGN.md, "Edge-on-edge contacts").
	Params  narrow.Params
	Workers int
	// Logger receives the backend's logs (nil: slog.Default()).
	Logger *slog.Logger
}

// DefaultConfig returns the default configuration: gravity 9.81 m/s² along
// −y, 1/60 s steps, 10 velocity and 4 position iterations, slop 5 mm,
// correction rate 0.2 capped at 2 m/s, restitution threshold 1 m/s,
// speculative contacts with a 1 cm margin, edge-on-edge contacts between
// edges bent by more than π/3, full warm starting, no
// damping, sleeping after 0.5 s under 0.05 m/s and 0.1 rad/s, broad-phase
// margin 0.1 × shape size, no continuous collision detection.
func DefaultConfig() Config {
	return Config{
		Gravity:               mgl64.Vec3{0, -9.81, 0},
		Dt:                    1.0 / 60,
		VelocityIterations:    10,
		PositionIterations:    4,
		Slop:                  0.005,
		CorrectionRate:        0.2,
		MaxCorrectionVelocity: 2,
		RestitutionThreshold:  1,
		SpeculativeMargin:     0.01,
		WarmStart:             1,
		LinearSleep:           0.05,
		AngularSleep:          0.1,
		TimeToSleep:           0.5,
		MarginFactor:          0.1,
		Params:                narrow.Params{Speculative: true, EdgeAngle: math.Pi / 3},
	}
}

// Validate reports the first out-of-range field.
func (c *Config) Validate() error {
	bad := func(name string, v any) error { return fmt.Errorf("%w: %s = %v", ErrBadConfig, name, v) }
	switch {
	case !finiteVec(c.Gravity):
		return bad("Gravity", c.Gravity)
	case !finite(c.Dt) || !(c.Dt > 0):
		return bad("Dt", c.Dt)
	case c.VelocityIterations < 1:
		return bad("VelocityIterations", c.VelocityIterations)
	case c.PositionIterations < 0:
		return bad("PositionIterations", c.PositionIterations)
	case !finite(c.Slop) || c.Slop < 0:
		return bad("Slop", c.Slop)
	case !finite(c.CorrectionRate) || !(c.CorrectionRate > 0) || c.CorrectionRate > 1:
		return bad("CorrectionRate", c.CorrectionRate)
	case !finite(c.DeepPenetration) || c.DeepPenetration < 0:
		return bad("DeepPenetration", c.DeepPenetration)
	case !finite(c.DeepCorrectionRate) || c.DeepCorrectionRate < 0 || c.DeepCorrectionRate > 1:
		return bad("DeepCorrectionRate", c.DeepCorrectionRate)
	case !finite(c.MaxCorrectionVelocity) || !(c.MaxCorrectionVelocity > 0):
		return bad("MaxCorrectionVelocity", c.MaxCorrectionVelocity)
	case !finite(c.RestitutionThreshold) || c.RestitutionThreshold < 0:
		return bad("RestitutionThreshold", c.RestitutionThreshold)
	case !finite(c.SpeculativeMargin) || c.SpeculativeMargin < 0:
		return bad("SpeculativeMargin", c.SpeculativeMargin)
	case !finite(c.WarmStart) || c.WarmStart < 0 || c.WarmStart > 1:
		return bad("WarmStart", c.WarmStart)
	case !finite(c.LinearDamping) || c.LinearDamping < 0:
		return bad("LinearDamping", c.LinearDamping)
	case !finite(c.AngularDamping) || c.AngularDamping < 0:
		return bad("AngularDamping", c.AngularDamping)
	case !finite(c.LinearSleep) || c.LinearSleep < 0:
		return bad("LinearSleep", c.LinearSleep)
	case !finite(c.AngularSleep) || c.AngularSleep < 0:
		return bad("AngularSleep", c.AngularSleep)
	case !finite(c.TimeToSleep) || c.TimeToSleep < 0:
		return bad("TimeToSleep", c.TimeToSleep)
	case !finite(c.MarginFactor) || c.MarginFactor < 0:
		return bad("MarginFactor", c.MarginFactor)
	case !finite(c.CCDMotion) || c.CCDMotion < 0:
		return bad("CCDMotion", c.CCDMotion)
	case c.Workers < 0:
		return bad("Workers", c.Workers)
	}
	return nil
}
