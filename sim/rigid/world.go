package rigid

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/adapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// World is a 3D rigid-body world whose narrow phase is irtcd. It is not
// safe for concurrent use; the narrow phase inside a step uses the
// backend's workers.
type World struct {
	cfg     Config
	backend narrow.Backend
	own     bool // the world created backend and closes it
	batch   *adapter.Batch
	closed  bool
	// noResults: RestoreState ran, or a step failed, since the last
	// step (Pairs and Results are empty until the next one).
	noResults bool

	// What later steps depend on, and the last step's reports: what a
	// State saves (state.go).
	persisted

	// Broad phase.
	filter func(a, b BodyID) bool // SetPairFilter
	keys   []uint64               // this step's pair IDs, sorted
	pairs  []Pair                 // this step's narrow-phase pairs, in key order

	// Sensors (sensor.go): this step's sensor pairs whose boxes overlap,
	// and a buffer for the next overlaps.
	sensorKeys   []uint64
	overlapsPrev []uint64
	eventsPrev   []SensorEvent

	// Contact events (events.go): buffers for the next touching pairs and
	// their changes.
	touchingPrev      []uint64
	contactEventsPrev []ContactEvent

	// Solver: buffers for the next points and impulses.
	contactsPrev []contact
	warmNext     []warmImpulse
	vel          []velocity // per body, during solve

	// Continuous collision detection: per body, the fraction of its
	// motion it keeps this step.
	toi []float64

	// Sleeping.
	parent  []int32
	minTime []float64
	wake    []bool

	// What a failing step puts back (undo.go).
	undo stepUndo

	// Pre-solve (presolve.go): the function, and what it is handed.
	preSolve  func(p *PreSolve)
	pre       PreSolve
	prePoints []PrePoint
}

// persisted is the part of a World that its later steps depend on, with
// the last step's reports: what World.SaveState copies into a State and
// RestoreState copies back.
type persisted struct {
	steps  int
	bodies []Body

	sapOrder []int32 // body indices sorted by aabb.Min.x, then index

	// Sensors (sensor.go): the pairs that overlap and the changes since
	// the step before.
	overlaps []uint64
	events   []SensorEvent
	// retestSensors: test every sensor pair at the next step, moved or
	// not (SetPairFilter).
	retestSensors bool

	// Contact events (events.go): the pairs that touch, and the changes.
	touching      []uint64
	contactEvents []ContactEvent

	// Solver: the last step's points, and their impulses by key for
	// warm starting.
	contacts []contact
	warm     []warmImpulse // sorted by key

	stats StepStats
}

// copyFrom makes p a copy of o, reusing p's slices.
func (p *persisted) copyFrom(o *persisted) {
	p.steps = o.steps
	p.bodies = append(p.bodies[:0], o.bodies...)
	p.sapOrder = append(p.sapOrder[:0], o.sapOrder...)
	p.overlaps = append(p.overlaps[:0], o.overlaps...)
	p.events = append(p.events[:0], o.events...)
	p.retestSensors = o.retestSensors
	p.touching = append(p.touching[:0], o.touching...)
	p.contactEvents = append(p.contactEvents[:0], o.contactEvents...)
	p.contacts = append(p.contacts[:0], o.contacts...)
	p.warm = append(p.warm[:0], o.warm...)
	p.stats = o.stats
}

// Pair is one narrow-phase pair of a step: bodies A < B with the poses the
// narrow phase saw (the poses at the start of the step).
type Pair struct {
	ID           uint64 // PairID(A, B)
	A, B         BodyID
	PoseA, PoseB narrow.Pose
}

// PairID returns the pair ID of bodies a and b: lo<<32 | hi. It is the ID
// under which the backend keeps the pair's temporal state, and the order of
// pairs in a step.
func PairID(a, b BodyID) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(uint32(a))<<32 | uint64(uint32(b))
}

// StepStats describes the last step.
type StepStats struct {
	Narrow time.Duration // the narrow phase: adapter.Batch.Run around Backend.Detect
	Rays   time.Duration // of Narrow, the backend's ray work (narrow.DetectTimes.Rays; 0 if the backend does not time it)
	Total  time.Duration // the whole step (broad phase, narrow phase, solver, sleeping)
	Detect narrow.Stats  // the backend's statistics (rays by kind, pairs standard/iterative)

	Pairs        int     // narrow-phase pairs
	ContactPairs int     // pairs with at least one contact
	Contacts     int     // contacts of every pair (before manifold reduction), speculative ones aside
	DepthSum     float64 // sum of those contacts' depths: the step's total interpenetration
	DepthMax     float64 // the deepest of them
	Points       int     // manifold points handed to the solver, speculative ones included
	Manifolds    int     // manifolds handed to the solver

	Speculative       int // speculative contacts (gaps) of every pair, before manifold reduction
	SpeculativePoints int // speculative points handed to the solver (gaps that could close within the step)

	SensorTests int // sensor pairs tested with narrow.Overlap

	Swept   int // pairs swept for continuous collision detection (Config.CCDMotion)
	Turned  int // of those, the pairs whose turn the chords could not follow (narrow.CastMotion)
	Clamped int // bodies whose motion was cut back to a time of impact

	Awake int // dynamic bodies awake after the step
	Woken int // bodies woken during the step
	Slept int // bodies that fell asleep at the end of the step
}

// NewWorld returns an empty world. Close it when done.
func NewWorld(cfg Config) (*World, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	w := &World{cfg: cfg, backend: cfg.Backend}
	if w.backend == nil {
		var opts []cpubackend.Option
		if cfg.Workers > 0 {
			opts = append(opts, cpubackend.WithWorkers(cfg.Workers))
		}
		if cfg.Logger != nil {
			opts = append(opts, cpubackend.WithLogger(cfg.Logger))
		}
		be, err := cpubackend.New(cfg.Params, opts...)
		if err != nil {
			return nil, fmt.Errorf("rigid: %w", err)
		}
		w.backend, w.own = be, true
	}
	w.batch = adapter.NewBatch(w.backend)
	return w, nil
}

// Config returns the world's configuration.
func (w *World) Config() Config { return w.cfg }

// Backend returns the narrow phase.
func (w *World) Backend() narrow.Backend { return w.backend }

// Batch returns the world's adapter batch (its last Run's results are the
// last step's narrow phase).
func (w *World) Batch() *adapter.Batch { return w.batch }

// Close closes the backend if the world created it. The bodies stay
// readable; Step fails afterwards.
func (w *World) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	if w.own {
		if err := w.backend.Close(); err != nil {
			return fmt.Errorf("rigid: %w", err)
		}
	}
	return nil
}

// AddBody adds a body and returns its ID. Bad definitions are reported as
// *BodyError naming the ID it would have had; the world is then unchanged.
// The shape is registered with the narrow phase the first time it is seen.
func (w *World) AddBody(d BodyDef) (BodyID, error) {
	id := BodyID(len(w.bodies))
	fail := func(err error) (BodyID, error) { return -1, &BodyError{Body: id, Name: d.Name, Err: err} }
	if w.closed {
		return fail(ErrClosed)
	}
	b, err := d.build()
	if err != nil {
		return fail(err)
	}
	if _, err := w.batch.Register(d.Shape); err != nil {
		return fail(err)
	}
	w.computeAABB(&b)
	w.bodies = append(w.bodies, b)
	w.sapOrder = append(w.sapOrder, int32(id))
	return id, nil
}

// RemoveBody removes body id from the world: from the next step on, no
// pair names it and nothing moves it. Sleeping bodies whose boxes overlap
// its box (AABB) wake up with their islands, so that nothing is left
// resting on a body that is gone. Its ID is never reused: Body returns nil
// for it, and the setters and a second RemoveBody fail with a *BodyError
// wrapping ErrRemovedBody. Its shape is released from the narrow phase
// (adapter.Batch.Release) once no other body of the world uses it. The
// last step's Pairs, Results and ContactPoints may still name it, and the
// next step reports the end of its sensor overlaps (SensorEvents).
func (w *World) RemoveBody(id BodyID) error {
	b, err := w.body(id)
	if err != nil {
		return err
	}
	if w.closed {
		return &BodyError{Body: id, Name: b.name, Err: ErrClosed}
	}
	box := b.aabb
	for i := range w.bodies {
		if o := &w.bodies[i]; o.sleeping && !o.aabb.Intersect(box).Empty() {
			w.Wake(BodyID(i))
		}
	}
	*b = Body{name: b.name, shape: b.shape, static: true, removed: true, island: -1, pose: b.pose, rot: b.rot, com: b.com, aabb: b.aabb, sensor: b.sensor}
	w.sapOrder = slices.DeleteFunc(w.sapOrder, func(i int32) bool { return i == int32(id) })
	for i := range w.bodies {
		if o := &w.bodies[i]; !o.removed && o.shape == b.shape {
			return nil
		}
	}
	if err := w.batch.Release(b.shape); err != nil {
		return &BodyError{Body: id, Name: b.name, Err: err}
	}
	return nil
}

// SetPairFilter sets a filter on the pairs the broad phase finds: from the
// next step on, a pair of bodies a < b whose boxes overlap goes to the
// narrow phase only if f(a, b) returns true (and their Groups allow it:
// see BodyDef.Group). nil removes the filter. f must be deterministic for
// the world to be. Bodies asleep against each other stay asleep when a
// filter separates them: Wake them if they should fall apart.
func (w *World) SetPairFilter(f func(a, b BodyID) bool) {
	w.filter = f
	w.retestSensors = true // pairs the filter lets through again
}

// NumBodies returns the number of bodies added, removed ones included:
// IDs run from 0 to NumBodies()-1.
func (w *World) NumBodies() int { return len(w.bodies) }

// Body returns body id, or nil for an unknown ID or a removed body. The
// pointer stays valid until the next AddBody, RemoveBody or RestoreState.
func (w *World) Body(id BodyID) *Body {
	b, _ := w.body(id)
	return b
}

// body returns body id, or a *BodyError wrapping ErrUnknownBody or
// ErrRemovedBody.
func (w *World) body(id BodyID) (*Body, error) {
	if id < 0 || int(id) >= len(w.bodies) {
		return nil, &BodyError{Body: id, Err: ErrUnknownBody}
	}
	if b := &w.bodies[id]; b.removed {
		return nil, &BodyError{Body: id, Name: b.name, Err: ErrRemovedBody}
	}
	return &w.bodies[id], nil
}

// SetPose moves body id (the placement of its shape) and wakes it. A static
// body may be moved too: it teleports (contacts see no velocity), and
// sleeping bodies it now overlaps stay asleep until an awake body touches
// them.
func (w *World) SetPose(id BodyID, p narrow.Pose) error {
	b, err := w.body(id)
	if err != nil {
		return err
	}
	pose, err := narrow.NewPose(p.Pos, p.Rot)
	if err != nil {
		return &BodyError{Body: id, Name: b.name, Err: err}
	}
	b.setPose(pose)
	b.moved, b.placed = true, true
	w.computeAABB(b)
	w.Wake(id)
	return nil
}

// SetShape gives body id a new shape, such as the next step's shape of a
// deforming mesh (narrow.Shape.Deform, DeformInto), and wakes it with the
// sleeping bodies its new box (AABB) overlaps. The pose stays: the new
// shape's local origin is placed where the old one's was. A dynamic body
// keeps its mass, velocities and angular velocity; its centre of mass
// and inertia become the new shape's (at the density that gives the same
// mass), so a body whose shape changes shape turns as it then should. A
// kinematic body's velocity stays that of its new shape's centroid.
//
// When no other body uses the old shape and the new one is a deformation
// of it (narrow.Shape.SameTopology), the narrow phase replaces it under
// its ID (adapter.Batch.Reshape): the body's pairs keep their iterative
// state, and their steps stay iterative while the motion, deformation
// included, stays under Eq. 2's threshold. Otherwise the new shape is
// registered afresh (its pairs take a standard step) and the old one
// released once no body uses it. Either way the old shape is free to
// refill, so a deforming body can alternate two shapes with DeformInto.
// RestoreState gives back the shape pointers that were saved, not their
// contents: a world rolled back across deformations needs those shapes
// kept unchanged (Deform, not DeformInto), and then replays bit for bit
// (the narrow phase's odometers of deformations go back with its pair
// states).
//
// Bad input is a *BodyError wrapping ErrNilShape, ErrNotMesh, ErrBadMass
// (a dynamic body's new shape has no positive volume), ErrUnknownBody,
// ErrRemovedBody or ErrClosed, or the narrow phase's error registering the
// shape; the body is then unchanged.
func (w *World) SetShape(id BodyID, s *narrow.Shape) error {
	b, err := w.body(id)
	if err != nil {
		return err
	}
	fail := func(err error) error { return &BodyError{Body: id, Name: b.name, Err: err} }
	switch {
	case w.closed:
		return fail(ErrClosed)
	case s == nil:
		return fail(ErrNilShape)
	case s.Dim() != narrow.Dim3:
		return fail(ErrNotMesh)
	case s == b.shape:
		return nil
	}
	nb := *b
	nb.shape = s
	switch {
	case b.kinematic:
		mp, err := s.MassProps(1)
		if err != nil {
			return fail(fmt.Errorf("%w: %w", ErrBadMass, err))
		}
		nb.localCOM = mp.Centroid
	case !b.static:
		vol, err := s.MassProps(1)
		if err != nil || !(vol.Mass > 0) {
			return fail(fmt.Errorf("%w: volume %v (%v)", ErrBadMass, vol.Mass, err))
		}
		if err := nb.setMass(s, b.mass/vol.Mass); err != nil {
			return fail(err)
		}
		nb.mass, nb.invMass = b.mass, b.invMass // not rounded through the density
	}
	old := b.shape
	shared := false // another body uses the old shape
	for i := range w.bodies {
		if o := &w.bodies[i]; o != b && !o.removed && o.shape == old {
			shared = true
			break
		}
	}
	if shared {
		if _, err := w.batch.Register(s); err != nil {
			return fail(err)
		}
	} else if _, err := w.batch.Reshape(old, s); err != nil {
		return fail(err)
	}
	nb.setDeformation(old, s, w.cfg.Dt, w.steps)
	nb.setReach()
	nb.setPose(nb.pose)
	nb.moved = true
	*b = nb
	w.computeAABB(b)
	for i := range w.bodies {
		if o := &w.bodies[i]; o.sleeping && !o.aabb.Intersect(b.aabb).Empty() {
			w.Wake(BodyID(i))
		}
	}
	w.Wake(id)
	return nil
}

// SetVelocity sets body id's linear velocity (of its centre of mass) and
// angular velocity (rad/s, world axes) and wakes it. This is how a
// kinematic body is driven.
func (w *World) SetVelocity(id BodyID, linear, angular mgl64.Vec3) error {
	b, err := w.body(id)
	if err != nil {
		return err
	}
	if b.static {
		return &BodyError{Body: id, Name: b.name, Err: ErrStatic}
	}
	if !finiteVec(linear) || !finiteVec(angular) {
		return &BodyError{Body: id, Name: b.name, Err: fmt.Errorf("%w: linear %v, angular %v", ErrBadVelocity, linear, angular)}
	}
	b.v, b.w = linear, angular
	w.Wake(id)
	return nil
}

// ApplyImpulse applies the impulse j (N·s, world axes) at the world point p
// to body id and wakes it: the velocity of its centre of mass changes by
// j/m and its angular velocity by I⁻¹·((p − c) × j), I the world inertia
// tensor about the centre of mass c. A force f acting for a step is the
// impulse f·Dt. An impulse, a point or velocities that would not be
// finite are refused with ErrBadImpulse, the body unchanged.
func (w *World) ApplyImpulse(id BodyID, j, p mgl64.Vec3) error {
	b, err := w.body(id)
	if err != nil {
		return err
	}
	switch {
	case b.static:
		return &BodyError{Body: id, Name: b.name, Err: ErrStatic}
	case b.kinematic:
		return &BodyError{Body: id, Name: b.name, Err: ErrKinematic}
	}
	if !finiteVec(j) || !finiteVec(p) {
		return &BodyError{Body: id, Name: b.name, Err: fmt.Errorf("%w: impulse %v at %v", ErrBadImpulse, j, p)}
	}
	iw := rotateSym(&b.rot, &b.invInertia)
	v, om := b.v.Add(j.Mul(b.invMass)), b.w.Add(iw.mulVec(p.Sub(b.com).Cross(j)))
	if !finiteVec(v) || !finiteVec(om) {
		return &BodyError{Body: id, Name: b.name, Err: fmt.Errorf("%w: impulse %v at %v gives the velocities %v, %v", ErrBadImpulse, j, p, v, om)}
	}
	b.v, b.w = v, om
	w.Wake(id)
	return nil
}

// Wake wakes body id and every body of the island it fell asleep with.
// Unknown and removed bodies are ignored.
func (w *World) Wake(id BodyID) {
	b := w.Body(id)
	if b == nil {
		return
	}
	if !b.sleeping {
		b.stillTime = 0
		return
	}
	tag := b.island
	for i := range w.bodies {
		o := &w.bodies[i]
		if o.sleeping && o.island == tag {
			o.sleeping, o.island, o.stillTime = false, -1, 0
		}
	}
}

// StepCount returns the number of steps done.
func (w *World) StepCount() int { return w.steps }

// Time returns the simulated time (s).
func (w *World) Time() float64 { return float64(w.steps) * w.cfg.Dt }

// Stats returns the last step's statistics.
func (w *World) Stats() StepStats { return w.stats }

// Pairs returns the last step's narrow-phase pairs in batch order (sorted
// by ID), with the poses the narrow phase saw. The slice is reused by the
// next step. After RestoreState it is empty until the next step.
func (w *World) Pairs() []Pair { return w.pairs }

// Results returns the backend's result for each of Pairs, in the same
// order. It aliases the batch's storage and stays valid until the next
// step. After RestoreState it is empty until the next step.
func (w *World) Results() []narrow.PairResult {
	if w.noResults {
		return nil
	}
	return w.batch.Results()
}

// Instance is a body as a renderer needs it.
type Instance struct {
	Body      BodyID
	Shape     *narrow.Shape
	Pose      narrow.Pose
	Static    bool
	Kinematic bool
	Sensor    bool
	Sleeping  bool
}

// Instances appends every body but the removed ones, in ID order, to dst
// and returns it.
func (w *World) Instances(dst []Instance) []Instance {
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.removed {
			continue
		}
		dst = append(dst, Instance{Body: BodyID(i), Shape: b.shape, Pose: b.pose, Static: b.static, Kinematic: b.kinematic, Sensor: b.sensor, Sleeping: b.sleeping})
	}
	return dst
}

// ContactPoint is one manifold point the solver used in the last step.
type ContactPoint struct {
	A, B   BodyID
	Point  mgl64.Vec3 // world point where impulses act (see the package doc)
	Normal mgl64.Vec3 // unit, from B towards A (the manifold's normal)
	Depth  float64    // penetration along Normal
	From   narrow.Side
	Vertex int32
	// Feature is narrow.FeatureEdge for an edge-on-edge contact
	// (narrow.Params.EdgeAngle): Vertex is then an edge of the From body
	// (A) and Prim the edge of B it crosses (narrow.Shape.Edge); and
	// narrow.FeatureEdgeFace for an edge-through-face contact
	// (narrow.Params.EdgeFaces): Vertex an edge of the From body, Prim
	// the primitive of the other it enters.
	Feature narrow.Feature
	Prim    int32
	// NormalImpulse and FrictionImpulse are the accumulated impulses
	// (N·s) applied to A (B receives the opposite).
	NormalImpulse   float64
	FrictionImpulse mgl64.Vec3
}

// ContactPoints appends the last step's solver points to dst and returns
// it, in solver order (pair ID, then From side, then vertex; a pair's
// edge-on-edge points, then its edge-through-face points last).
func (w *World) ContactPoints(dst []ContactPoint) []ContactPoint {
	for i := range w.contacts {
		c := &w.contacts[i]
		dst = append(dst, ContactPoint{
			A: BodyID(c.a), B: BodyID(c.b), Point: c.p, Normal: c.d[0].vec3(), Depth: c.depth,
			From: narrow.Side(c.key.side), Vertex: c.key.vertex, Prim: -1,
			NormalImpulse: c.ln, FrictionImpulse: c.d[1].scale(c.lt1).madd(c.d[2], c.lt2).vec3(),
		})
		switch p := &dst[len(dst)-1]; {
		case c.key.side == edgeSide:
			p.From, p.Feature, p.Prim = narrow.SideA, narrow.FeatureEdge, c.key.prim
		case c.key.side >= edgeFaceSide:
			p.From, p.Feature, p.Prim = narrow.Side(c.key.side-edgeFaceSide), narrow.FeatureEdgeFace, c.key.prim
		}
	}
	return dst
}

// Step advances the world by Dt: broad phase, one narrow-phase batch for
// every pair, waking, the contact solver, integration and sleeping. A
// step that fails leaves the world as it was: the bodies (poses,
// velocities, sleep), the last step's reports (ContactEvents, Touching,
// SensorEvents, SensorOverlaps, ContactPoints, Stats) and the step count;
// Pairs and Results are empty until the next step. The narrow phase
// keeps what it learnt from the poses it saw, which are the bodies'
// poses again. It returns ctx's error (wrapped) when ctx is done before
// or during the narrow phase, a *PairError when the narrow phase (or a
// sensor's overlap test) rejected a pair, and a *BodyError wrapping
// ErrDiverged when a body's state would have become non-finite: remove
// the body, or change its velocity or the forces on it, and step again.
func (w *World) Step(ctx context.Context) error {
	if w.closed {
		return fmt.Errorf("rigid: step: %w", ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("rigid: step %d: %w", w.steps, err)
	}
	w.beginStep()
	if err := w.step(ctx); err != nil {
		w.rollback()
		return err
	}
	return nil
}

// step is Step once it has recorded what a failure puts back.
func (w *World) step(ctx context.Context) error {
	start := time.Now()
	st := &w.stats
	*st = StepStats{}
	w.noResults = false

	w.broadPhase()
	if err := w.updateSensors(); err != nil {
		return err
	}
	w.batch.Begin()
	for i := range w.pairs {
		p := &w.pairs[i]
		if err := w.batch.Add(p.ID, w.bodies[p.A].shape, w.bodies[p.B].shape, p.PoseA, p.PoseB); err != nil {
			return &PairError{ID: p.ID, A: p.A, B: p.B, Err: err}
		}
	}
	t0 := time.Now()
	err := w.batch.Run(ctx)
	st.Narrow = time.Since(t0)
	if err != nil {
		return fmt.Errorf("rigid: step %d: %w", w.steps, err)
	}
	res := w.batch.Results()
	if len(res) != len(w.pairs) {
		return fmt.Errorf("rigid: step %d: backend returned %d results for %d pairs", w.steps, len(res), len(w.pairs))
	}
	for i := range res {
		r := &res[i]
		if r.Err != nil || r.ID != w.pairs[i].ID {
			p := &w.pairs[i]
			err := r.Err
			if err == nil {
				err = fmt.Errorf("backend returned pair %d at the place of pair %d", r.ID, p.ID)
			}
			return &PairError{ID: p.ID, A: p.A, B: p.B, Err: err}
		}
	}
	st.Pairs = len(w.pairs)
	st.Detect = w.batch.Stats()
	if dt, ok := w.batch.DetectTimes(); ok {
		st.Rays = dt.Rays
	}

	w.updateTouching(res)
	w.wakeTouched(res)
	w.prepareBodies()
	if err := w.buildContacts(res); err != nil {
		return err
	}
	w.solve()
	if err := w.integrate(); err != nil {
		return err
	}
	w.updateSleep() // nothing fails from here on
	w.steps++
	st.Total = time.Since(start)
	return nil
}
