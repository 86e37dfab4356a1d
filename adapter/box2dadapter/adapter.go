// Package box2dadapter makes irtcd the narrow phase of
// github.com/ByteArena/box2d (v1.0.2) worlds for concave polygons with any
// number of vertices, which box2d cannot collide natively (its polygons
// are convex with at most 8 vertices).
//
// Install it on a world, give bodies irtcd shapes (AddPolygon, NewShape,
// ShapeFromPath), and call Adapter.Step instead of World.Step. Every step,
// the adapter gathers the world's contacts that involve an irtcd shape,
// runs the configured narrow.Backend once for all of them (the engine-
// neutral adapter.Batch), and hands the contact points to box2d's own
// solver. Pairs of box2d's native shapes are left to box2d untouched;
// irtcd shapes against native circles, polygons, edges and chains go
// through irtcd (the native shape is converted once, see nativePolygon).
//
// How contacts reach box2d's solver: a box2d manifold holds one normal and
// at most two points, but a concave pair touches along several normals (a
// U on a wedge, a ball in a cup). The backend reduces each pair's contacts
// to one manifold per normal cluster (reprojection.Reducer); the adapter
// gives the pair one box2d contact per cluster, adding contacts to the
// world's contact list for the clusters beyond the first, and encodes each
// manifold so that box2d's separation of every point is exactly minus the
// irtcd penetration depth (encode).
//
// Continuous physics stays on: box2d's SolveTOI would panic on a shape type
// it does not know, so irtcd contacts answer its time-of-impact query
// themselves with sweep rays (see timeOfImpact), and fast bodies do not
// tunnel through thin irtcd shapes.
package box2dadapter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"time"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// Option configures Install.
type Option func(*Adapter)

// WithBackend runs the batched narrow phase on backend (default: the CPU
// backend with default parameters: iterative with predictive rays, BVH,
// every core). The adapter does not close a backend it was given.
func WithBackend(backend narrow.Backend) Option { return func(a *Adapter) { a.backend = backend } }

// WithLogger sets the logger for per-pair failures (default: slog.Default).
func WithLogger(l *slog.Logger) Option { return func(a *Adapter) { a.log = l } }

// StepStats describes the adapter's last Step.
type StepStats struct {
	Narrow        time.Duration // batched narrow phase (gathering pairs and Backend.Detect)
	Step          time.Duration // box2d's World.Step (solver, TOI, on-demand evaluations)
	Detect        narrow.Stats  // the backend's statistics: rays by kind, standard and iterative pairs
	Pairs         int           // irtcd pairs in the batch
	Shapes        int           // shapes registered with the batch's backend (irtcd shapes, and native ones met by irtcd shapes)
	Manifolds     int           // manifolds handed to box2d (one per normal cluster)
	Points        int           // contact points handed to box2d
	ExtraContacts int           // contacts added this step for extra clusters
	OnDemand      int           // pairs detected outside the batch (TOI sub-steps, new contacts)
	Kept          int           // points kept from the previous step across a small gap (see KeepGap)
	Sweeps        int           // time-of-impact sweeps cast
	Sensors       int           // sensor contacts updated by the adapter (narrow.Overlap)
	DepthSum      float64       // sum of the handed points' penetration depths (kept points count 0)
	DepthMax      float64       // deepest handed point
}

// ManifoldSize is the manifold size the adapter asks its own backends for:
// many more candidates than box2d's two points, from which prepare picks
// the two that hold the contact best (the deepest, and the deepest at
// least half as far from it as the farthest) and keeps last step's points
// when the choice is nearly a tie (keepDepth). A backend given with
// WithBackend should use the same (narrow.Params.ManifoldSize).
const ManifoldSize = 16

// Adapter is irtcd installed on one box2d world.
type Adapter struct {
	world   *b2.B2World
	backend narrow.Backend
	owned   narrow.Backend // backend created by Install (closed by Close)
	log     *slog.Logger
	batch   *adapter.Batch
	solo    *adapter.Batch // standard detection on demand (single pairs)
	// contacts holds the adapter's contacts in the world list's order.
	contacts contactList
	native   map[nativeKey]*narrow.Shape
	steps    uint64 // Steps run
	prune    bool   // scan for shapes that are gone at the next Step (see releaseGone)
	// Scratch of releaseGone: the shapes the world's fixtures hold.
	liveShapes map[*narrow.Shape]bool
	liveNative map[b2.B2ShapeInterface]bool
	nextID     uint64
	joining    *group // group that the next created contact joins (extra clusters)
	pending    []*contact
	sensors    []*contact  // this step's contacts with a sensor fixture (updateSensors)
	hidden     []*contact  // of those, the ones out of box2d's contact list during World.Step
	order      []int       // scratch: manifold index per slot
	carry      []carried   // scratch: a group's impulses of the last step (handImpulses)
	cold       []coldPoint // handImpulses' points without a past of their ID
	stats      StepStats
	treeStack  []int // scratch: the broad phase's tree walked (proxiesIn)
	proxyIDs   []int // scratch: the proxies found
}

// Install makes irtcd the narrow phase of world's irtcd shapes. world must
// be the world's address (box2d bodies point back to it). Install the
// adapter before stepping; use Adapter.Step instead of World.Step.
func Install(world *b2.B2World, opts ...Option) (*Adapter, error) {
	if world == nil {
		return nil, errors.New("box2dadapter: nil world")
	}
	if err := register(); err != nil {
		return nil, err
	}
	a := &Adapter{world: world, log: slog.Default(), native: map[nativeKey]*narrow.Shape{},
		liveShapes: map[*narrow.Shape]bool{}, liveNative: map[b2.B2ShapeInterface]bool{}}
	for _, o := range opts {
		o(a)
	}
	if a.backend == nil {
		be, err := cpubackend.New(narrow.Params{ManifoldSize: ManifoldSize})
		if err != nil {
			return nil, fmt.Errorf("box2dadapter: %w", err)
		}
		a.backend, a.owned = be, be
	}
	solo, err := cpubackend.New(narrow.Params{Method: narrow.MethodStandard, ManifoldSize: ManifoldSize}, cpubackend.WithWorkers(1))
	if err != nil {
		return nil, fmt.Errorf("box2dadapter: %w", err)
	}
	a.batch = adapter.NewBatch(a.backend)
	a.solo = adapter.NewBatch(solo)
	worldsMu.Lock()
	defer worldsMu.Unlock()
	if _, dup := worlds[world]; dup {
		return nil, errors.New("box2dadapter: an adapter is already installed on this world")
	}
	worlds[world] = a
	a.adopt()
	return a, nil
}

// adopt takes charge of the world's irtcd contacts that no adapter holds:
// those box2d made before Install (World.Step without an adapter, or the
// contacts of an adapter since closed), which would otherwise never get
// points until their fixtures part.
func (a *Adapter) adopt() {
	for ci := a.world.M_contactManager.M_contactList; ci != nil; ci = ci.GetNext() {
		if c, ok := ci.(*contact); ok && c.g == nil {
			c.ad, c.prep = a, prepared{}
			c.g = a.newGroup(c)
			a.contacts.insert(c, a.contacts.tail)
		}
	}
}

// Close uninstalls the adapter and closes the backends it created. The
// world's irtcd contacts then report no points until another adapter is
// installed, which takes them over; the extra contacts of pairs touching
// along several normals are destroyed (box2d calls the listener's
// EndContact for those touching). Close fails, and does nothing, while
// the world is locked (from a callback during a step).
func (a *Adapter) Close() error {
	worldsMu.Lock()
	if a.world.IsLocked() {
		worldsMu.Unlock()
		return errors.New("box2dadapter: Close during a step (the world is locked)")
	}
	if worlds[a.world] == a {
		delete(worlds, a.world)
	}
	worldsMu.Unlock()
	a.detach()
	err := a.solo.Backend().Close()
	if a.owned != nil {
		err = errors.Join(err, a.owned.Close())
	}
	return err
}

// detach lets go of the adapter's contacts (see Close).
func (a *Adapter) detach() {
	for c := a.contacts.head; c != nil; {
		next := c.next
		if c.g.leader() != c {
			a.world.M_contactManager.Destroy(c) // destroyContact unlists it
		}
		c = next
	}
	for c := a.contacts.head; c != nil; c = a.contacts.head {
		a.contacts.remove(c)
		c.g, c.ad, c.prep = nil, nil, prepared{}
	}
}

// Stats returns the statistics of the last Step.
func (a *Adapter) Stats() StepStats { return a.stats }

// Backend returns the backend of the batched narrow phase.
func (a *Adapter) Backend() narrow.Backend { return a.backend }

func (a *Adapter) newGroup(c *contact) *group {
	if g := a.joining; g != nil {
		for k, s := range g.slots {
			if s == nil {
				g.slots[k], c.slot = c, k
				return g
			}
		}
		g.slots = append(g.slots, c)
		g.last = append(g.last, b2.B2Vec2{})
		c.slot = len(g.slots) - 1
		return g
	}
	a.nextID++
	return &group{id: a.nextID, slots: []*contact{c}, last: []b2.B2Vec2{{}}}
}

// shapeOf returns the narrow-phase polygon of a fixture's child.
func (a *Adapter) shapeOf(f *b2.B2Fixture, child int) (*narrow.Shape, error) {
	if s, ok := f.M_shape.(*Shape); ok {
		return s.poly, nil
	}
	k := nativeKey{f.M_shape, child}
	if p, ok := a.native[k]; ok {
		return p, nil
	}
	p, err := nativePolygon(f.M_shape, child)
	if err != nil {
		return nil, err
	}
	a.native[k] = p
	return p, nil
}

func pose(xf b2.B2Transform) narrow.Pose { return narrow.Pose2D(xf.P.X, xf.P.Y, xf.Q.GetAngle()) }

func awake(b *b2.B2Body) bool { return b.M_flags&b2.B2Body_Flags.E_awakeFlag != 0 }

// Step runs the batched narrow phase for every irtcd contact of the world,
// then box2d's World.Step(dt, velocityIterations, positionIterations). If
// the narrow phase fails as a whole (cancelled ctx, closed backend) the
// world is not stepped and the error is returned; a single bad pair only
// loses its own contacts (logged). Sensor contacts that involve an irtcd
// shape are updated by the adapter with narrow.Overlap before box2d steps
// (see updateSensors): the contact listener's BeginContact and EndContact
// are called for them then, with the world locked as during World.Step.
func (a *Adapter) Step(ctx context.Context, dt float64, velocityIterations, positionIterations int) error {
	w := a.world
	a.stats = StepStats{}
	start := time.Now()
	if a.prune || a.steps%pruneEvery == 0 {
		a.releaseGone()
	}
	a.steps++
	// Contacts of fixtures created since the last step are born inside
	// World.Step; create them now so that this step's batch has them.
	if w.M_flags&b2.B2World_Flags.E_newFixture != 0 {
		w.M_contactManager.FindNewContacts()
		w.M_flags &^= b2.B2World_Flags.E_newFixture
	}
	a.batch.Begin()
	a.pending = a.pending[:0]
	a.sensors = a.sensors[:0]
	for c := a.contacts.head; c != nil; c = c.next {
		c.prep.ok = false
		fA, fB := c.M_fixtureA, c.M_fixtureB
		if fA.M_isSensor || fB.M_isSensor {
			a.sensors = append(a.sensors, c) // sensors.go
			continue
		}
		if c.g.leader() != c {
			continue
		}
		bA, bB := fA.M_body, fB.M_body
		activeA := awake(bA) && bA.M_type != b2.B2BodyType.B2_staticBody
		activeB := awake(bB) && bB.M_type != b2.B2BodyType.B2_staticBody
		if !activeA && !activeB {
			continue // box2d will not update it either
		}
		if !w.M_contactManager.M_broadPhase.TestOverlap(fA.M_proxies[c.M_indexA].ProxyId, fB.M_proxies[c.M_indexB].ProxyId) {
			continue // box2d destroys it in Collide
		}
		sa, err := a.shapeOf(fA, c.M_indexA)
		if err == nil {
			var sb *narrow.Shape
			if sb, err = a.shapeOf(fB, c.M_indexB); err == nil {
				err = a.batch.Add(c.g.id, sa, sb, pose(bA.M_xf), pose(bB.M_xf))
			}
		}
		if err != nil {
			a.log.Warn("box2dadapter: pair skipped", "pair", c.g.id, "err", err)
			continue
		}
		a.pending = append(a.pending, c)
	}
	if err := a.batch.Run(ctx); err != nil {
		return fmt.Errorf("box2dadapter: step: %w", err)
	}
	for _, c := range a.pending {
		g := c.g
		res := a.batch.Result(g.id)
		var ms []narrow.Manifold
		if res != nil {
			if res.Err != nil {
				a.log.Warn("box2dadapter: pair failed", "pair", g.id, "err", res.Err)
			} else {
				ms = res.Touching() // box2d has no speculative points
			}
		}
		for a.live(g) < len(ms) {
			a.addContact(g)
		}
		a.collectImpulses(g)
		a.distribute(g, ms, c.M_fixtureA.M_body.M_xf, c.M_fixtureB.M_body.M_xf)
		a.handImpulses(g)
	}
	a.stats.Pairs = a.batch.Len()
	a.stats.Shapes = a.batch.Shapes()
	a.stats.Detect = a.batch.Stats()
	a.updateSensors()
	a.stats.Narrow = time.Since(start)
	start = time.Now()
	defer a.showSensors()
	w.Step(dt, velocityIterations, positionIterations)
	a.stats.Step = time.Since(start)
	return nil
}

// carried is a contact point's accumulated impulses at the end of the
// last step, by the point's ID (pointKey).
type carried struct {
	key             uint32
	normal, tangent float64
	from            *contact  // the contact the point was in
	p               b2.B2Vec2 // where it was (valid if at)
	at              bool
	taken           bool
}

// collectImpulses records the impulses box2d solved last step for the
// points of every contact of group g, with where each point was.
func (a *Adapter) collectImpulses(g *group) {
	a.carry = a.carry[:0]
	for _, c := range g.slots {
		if c == nil || c.M_manifold == nil {
			continue
		}
		m := c.M_manifold
		for i := 0; i < m.PointCount; i++ {
			mp := &m.Points[i]
			cr := carried{key: mp.Id.Key(), normal: mp.NormalImpulse, tangent: mp.TangentImpulse, from: c}
			// c.prep still holds the points prepared last step.
			for k := 0; k < c.prep.n; k++ {
				if q := &c.prep.pts[k]; q.id == cr.key {
					cr.p, cr.at = q.p, true
					break
				}
			}
			a.carry = append(a.carry, cr)
		}
	}
}

// handRadius is how far from a point of last step, in the same box2d
// contact, a point new to its pair may be and take that point's impulses
// when no point of this step has its ID (see handImpulses).
const handRadius = 2 * b2.B2_linearSlop

// handImpulses writes the points each contact of group g has prepared for
// this step into the manifold box2d will keep as the contact's old one,
// with the impulses that last step's point of the same ID (the same
// vertex) had in any contact of the group, so that box2d's warm start
// follows a point from one contact to another.
//
// box2d matches a new point with an old one only within one contact, and a
// box2d contact holds one normal cluster. When two clusters merge or split
// (a vertex near a corner of the other body whose ray switches between the
// corner's two faces turns its normal by tens of degrees), a point changes
// contact: box2d would restart its impulse from zero, and in a pile, where
// 8 velocity iterations from zero do not rebuild the support, the body
// drops for a step. Each past impulse goes to one point: the first contact
// in slot order that has the ID, fresh points (this step's detection)
// before kept ones (KeepGap).
//
// A point whose vertex had no point last step then takes, in the same
// order, the impulses of the nearest point of last step in its own
// contact that no point of this step took, within handRadius (1 cm). Of
// the many vertices of a flat or gently curved support, the deepest
// changes from step to step as depths change by micrometres, where
// box2d's own polygons keep a point's ID while it stays on the same
// edges: 1.4 to 2 % of a pile's points at rest were new to their pair
// at each step, each restarting its support from zero, and piles kept
// shaking above box2d's sleep tolerances (docs/BENCHMARKS.md, "Falling
// asleep"). Steps run outside Adapter.Step (time of impact, contacts
// born inside the step) keep box2d's own matching. A contact listener's
// PreSolve receives this manifold as the old one: this step's point IDs
// with last step's impulses.
func (a *Adapter) handImpulses(g *group) {
	a.cold = a.cold[:0]
	for _, kept := range [2]bool{false, true} {
		for _, c := range g.slots {
			if c == nil || c.M_manifold == nil || c.prep.kept != kept {
				continue
			}
			m := c.M_manifold
			m.PointCount = c.prep.n
			for i := 0; i < c.prep.n; i++ {
				mp, id := &m.Points[i], c.prep.pts[i].id
				mp.Id = contactID(id)
				mp.NormalImpulse, mp.TangentImpulse = 0, 0
				warm := false
				for j := range a.carry {
					if cr := &a.carry[j]; cr.key == id && !cr.taken {
						mp.NormalImpulse, mp.TangentImpulse, cr.taken = cr.normal, cr.tangent, true
						warm = true
						break
					}
				}
				if !warm {
					a.cold = append(a.cold, coldPoint{c, i})
				}
			}
		}
	}
	for _, cp := range a.cold {
		c, i := cp.c, cp.i
		q := &c.prep.pts[i]
		best, bj := math.Inf(1), -1
		for j := range a.carry {
			if cr := &a.carry[j]; cr.from == c && cr.at && !cr.taken {
				if d := b2.B2Vec2DistanceSquared(cr.p, q.p); d <= handRadius*handRadius && d < best {
					best, bj = d, j
				}
			}
		}
		if bj >= 0 {
			cr, mp := &a.carry[bj], &c.M_manifold.Points[i]
			mp.NormalImpulse, mp.TangentImpulse, cr.taken = cr.normal, cr.tangent, true
		}
	}
}

// coldPoint is a point of this step that no point of last step's had the
// ID of: point i of contact c.
type coldPoint struct {
	c *contact
	i int
}

func (a *Adapter) live(g *group) int {
	n := 0
	for _, c := range g.slots {
		if c != nil {
			n++
		}
	}
	return n
}

// addContact adds one more box2d contact to group g, linked into the
// world's and the bodies' contact lists the way box2d's AddPair links its
// own (box2d then updates, solves and destroys it like any other).
func (a *Adapter) addContact(g *group) {
	l := g.leader()
	mgr := &a.world.M_contactManager
	a.joining = g
	ci := b2.B2ContactFactory(l.M_fixtureA, l.M_indexA, l.M_fixtureB, l.M_indexB)
	a.joining = nil
	c := ci.(*contact)
	bodyA, bodyB := c.M_fixtureA.M_body, c.M_fixtureB.M_body
	c.SetPrev(nil)
	c.SetNext(mgr.M_contactList)
	if mgr.M_contactList != nil {
		mgr.M_contactList.SetPrev(c)
	}
	mgr.M_contactList = c
	nA, nB := c.GetNodeA(), c.GetNodeB()
	nA.Contact, nA.Other, nA.Prev, nA.Next = c, bodyB, nil, bodyA.M_contactList
	if bodyA.M_contactList != nil {
		bodyA.M_contactList.Prev = nA
	}
	bodyA.M_contactList = nA
	nB.Contact, nB.Other, nB.Prev, nB.Next = c, bodyA, nil, bodyB.M_contactList
	if bodyB.M_contactList != nil {
		bodyB.M_contactList.Prev = nB
	}
	bodyB.M_contactList = nB
	mgr.M_contactCount++
	a.stats.ExtraContacts++
}

// distribute prepares the group's contacts from the pair's manifolds:
// each manifold goes to the slot whose last normal is closest to its own
// (so that a cluster stays in one box2d contact and keeps its warm-started
// impulses), the rest to free slots; slots left over get no points.
func (a *Adapter) distribute(g *group, ms []narrow.Manifold, xfA, xfB b2.B2Transform) {
	a.order = a.order[:0]
	for range g.slots {
		a.order = append(a.order, -1)
	}
	used := uint64(0) // manifolds assigned (pairs have few clusters; more than 64 are dropped)
	for k, c := range g.slots {
		if c == nil || g.last[k] == (b2.B2Vec2{}) {
			continue
		}
		best, bestDot := -1, 0.7
		for j := range ms {
			if j >= 64 || used&(1<<j) != 0 {
				continue
			}
			n := ms[j].Normal
			if dot := -(n[0]*g.last[k].X + n[1]*g.last[k].Y); dot > bestDot {
				best, bestDot = j, dot
			}
		}
		if best >= 0 {
			a.order[k] = best
			used |= 1 << best
		}
	}
	for j := range ms {
		if j >= 64 || used&(1<<j) != 0 {
			continue
		}
		for k, c := range g.slots {
			if c != nil && a.order[k] < 0 {
				a.order[k] = j
				used |= 1 << j
				break
			}
		}
	}
	for k, c := range g.slots {
		if c == nil {
			continue
		}
		j := a.order[k]
		if j < 0 {
			if !a.keep(c, xfA, xfB) {
				c.prep = prepared{ok: true, xfA: xfA, xfB: xfB}
				g.last[k] = b2.B2Vec2{}
				continue
			}
			a.stats.Kept += c.prep.n
		} else {
			prepare(&c.prep, &ms[j], xfA, xfB)
			g.last[k] = b2.B2Vec2{X: -ms[j].Normal[0], Y: -ms[j].Normal[1]}
		}
		a.stats.Manifolds++
		a.stats.Points += c.prep.n
		for i := 0; i < c.prep.n; i++ {
			pd := max(0, c.prep.pts[i].pd)
			a.stats.DepthSum += pd
			a.stats.DepthMax = max(a.stats.DepthMax, pd)
		}
	}
}

// evaluateNow detects c's pair at the given transforms with the standard
// algorithm and prepares every contact of its group from the result.
func (a *Adapter) evaluateNow(c *contact, xfA, xfB b2.B2Transform) {
	a.stats.OnDemand++
	g := c.g
	c.prep = prepared{ok: true, xfA: xfA, xfB: xfB}
	sa, err := a.shapeOf(c.M_fixtureA, c.M_indexA)
	if err != nil {
		return
	}
	sb, err := a.shapeOf(c.M_fixtureB, c.M_indexB)
	if err != nil {
		return
	}
	a.solo.Begin()
	if err := a.solo.Add(g.id, sa, sb, pose(xfA), pose(xfB)); err != nil {
		return
	}
	if err := a.solo.Run(context.Background()); err != nil {
		return
	}
	res := a.solo.Result(g.id)
	if res == nil || res.Err != nil {
		return
	}
	a.distribute(g, res.Touching(), xfA, xfB)
}

// pruneEvery is how many Steps pass between two scans for the shapes of
// fixtures that are gone (releaseGone); DestroyBody asks for one at the
// next Step.
const pruneEvery = 256

// releaseGone releases the shapes no fixture of the world holds any more,
// so that a world whose bodies come and go does not grow the backends or
// the cache of converted native shapes: the native conversions of shapes
// no longer in the world are dropped, and the batches release every shape
// that is neither an irtcd fixture's nor a live native conversion.
func (a *Adapter) releaseGone() {
	a.prune = false
	clear(a.liveShapes)
	clear(a.liveNative)
	for b := a.world.M_bodyList; b != nil; b = b.M_next {
		for f := b.M_fixtureList; f != nil; f = f.M_next {
			if s, ok := f.M_shape.(*Shape); ok {
				a.liveShapes[s.poly] = true
			} else {
				a.liveNative[f.M_shape] = true
			}
		}
	}
	for k, p := range a.native {
		if a.liveNative[k.s] {
			a.liveShapes[p] = true
		} else {
			delete(a.native, k)
		}
	}
	keep := func(s *narrow.Shape) bool { return a.liveShapes[s] }
	for _, bt := range [2]*adapter.Batch{a.batch, a.solo} {
		if _, err := bt.Prune(keep); err != nil {
			a.log.Warn("box2dadapter: releasing the shapes of destroyed fixtures", "err", err)
		}
	}
}

// DestroyBody destroys body b and its fixtures. Use it instead of
// World.DestroyBody for bodies with irtcd shapes: box2d's fixture
// destruction only knows its own shape types and would panic. Their
// shapes are released from the backends at the next Step, unless other
// fixtures hold them (bodies with native shapes only may be destroyed with
// World.DestroyBody: theirs are released within pruneEvery steps).
func (a *Adapter) DestroyBody(b *b2.B2Body) {
	a.prune = true
	for ce := b.M_contactList; ce != nil; {
		next := ce.Next
		a.world.M_contactManager.Destroy(ce.Contact)
		ce = next
	}
	for f := b.M_fixtureList; f != nil; f = f.M_next {
		if _, ok := f.M_shape.(*Shape); ok {
			f.M_shape = b2.NewB2CircleShape() // box2d's Destroy switch needs a known type
		}
	}
	a.world.DestroyBody(b)
}

// AddPolygon attaches shape s to body as a fixture of the given density,
// with box2d's default friction and collision filter. Like any fixture,
// it may be made a sensor (Fixture.SetSensor).
func AddPolygon(body *b2.B2Body, s *Shape, density float64) *b2.B2Fixture {
	def := b2.MakeB2FixtureDef()
	def.Shape = s
	def.Density = density
	def.Filter = b2.MakeB2Filter()
	return body.CreateFixtureFromDef(&def)
}

// AddOutline builds a shape from an outline (and holes) and attaches it to
// body: the one-line way to give a body a concave polygon.
func AddOutline(body *b2.B2Body, density float64, outer []b2.B2Vec2, holes ...[]b2.B2Vec2) (*b2.B2Fixture, error) {
	s, err := NewShape(outer, holes...)
	if err != nil {
		return nil, err
	}
	return AddPolygon(body, s, density), nil
}

// AddPath builds a shape from an SVG-like path (see ParsePath: the first
// subpath is the outline, the others holes) and attaches it to body.
func AddPath(body *b2.B2Body, density float64, d string) (*b2.B2Fixture, error) {
	s, err := ShapeFromPath(d)
	if err != nil {
		return nil, err
	}
	return AddPolygon(body, s, density), nil
}

// slideTol returns how far (m) encode may slide a point of depth d along
// the normal to the plane of a manifold's first point, of depth d0:
// box2d's skin, within which its own manifolds place their points, plus
// the deeper of the two depths, by which the points of one cluster differ
// as a matter of course (a box resting on another has corners in both
// faces, a penetration apart).
//
// A box2d manifold has one plane; encode measures every point's separation
// against it by sliding the point along the normal. Points that no plane
// fits (parallel faces of different teeth, the teeth of two gears
// interlocked) are slid by as much as they lie apart along the normal,
// onto a point that does not exist: the friction's lever arm and the
// position correction act there. Adapter.keep keeps only the points within slideTol. (Splitting
// the backend's manifolds the same way, into one box2d contact per plane,
// made piles of toothed gears less calm: see docs/BENCHMARKS.md.)
func slideTol(d, d0 float64) float64 {
	return b2.B2_polygonRadius + max(math.Abs(d), math.Abs(d0))
}

// planeOffset returns how far p lies from ref along the normal of a
// manifold whose first point, ref, is a vertex of side from: along n (from
// B towards A) for A's vertices, against it for B's (encode's carried
// normal).
func planeOffset(n, ref, p b2.B2Vec2, from narrow.Side) float64 {
	h := (p.X-ref.X)*n.X + (p.Y-ref.Y)*n.Y
	if from == narrow.SideB {
		h = -h
	}
	return h
}

// KeepGap is how far apart (box2d's linear slop) a contact point found in
// the previous step may have moved from the face it touched and still be
// handed to box2d, with its gap as a negative depth.
//
// Ray-traced contacts exist only while a vertex is inside the other body;
// box2d's own polygons carry a skin and keep their manifold while the
// skins overlap, which is what lets stacks rest: a box that lifts off by a
// micrometre in one step keeps its contact, so its velocity constraint
// stops it from falling back in. KeepGap gives irtcd pairs the same
// persistence: a cluster that the narrow phase no longer finds keeps the
// points it had, re-evaluated exactly against the same faces at the new
// poses, for as long as each stays within KeepGap of its face plane and
// over the face. The solver then sees a positive separation (no position
// correction) and only prevents approach.
const KeepGap = b2.B2_linearSlop

// keep re-evaluates contact c's previous points at the new transforms and
// keeps those still over their face within KeepGap (see KeepGap); it
// reports whether any is left.
func (a *Adapter) keep(c *contact, xfA, xfB b2.B2Transform) bool {
	p := &c.prep
	if p.n == 0 {
		return false
	}
	sa, err := a.shapeOf(c.M_fixtureA, c.M_indexA)
	if err != nil {
		return false
	}
	sb, err := a.shapeOf(c.M_fixtureB, c.M_indexB)
	if err != nil {
		return false
	}
	n := 0
	var d b2.B2Vec2
	for i := 0; i < p.n; i++ {
		q := p.pts[i]
		src, dst, xfS, xfD := sa, sb, xfA, xfB
		if q.from == narrow.SideB {
			src, dst, xfS, xfD = sb, sa, xfB, xfA
		}
		v := src.Vertex(int(q.vertex))
		pw := b2.B2TransformVec2Mul(xfS, b2.B2Vec2{X: v[0], Y: v[1]})
		pr := dst.Prim(int(q.prim))
		e0v, e1v, fn := dst.Vertex(int(pr[0])), dst.Vertex(int(pr[1])), dst.FaceNormal(int(q.prim))
		e0 := b2.B2TransformVec2Mul(xfD, b2.B2Vec2{X: e0v[0], Y: e0v[1]})
		e1 := b2.B2TransformVec2Mul(xfD, b2.B2Vec2{X: e1v[0], Y: e1v[1]})
		nw := b2.B2RotVec2Mul(xfD.Q, b2.B2Vec2{X: fn[0], Y: fn[1]})
		rel := b2.B2Vec2Sub(pw, e0)
		gap := b2.B2Vec2Dot(rel, nw)
		seg := b2.B2Vec2Sub(e1, e0)
		u := b2.B2Vec2Dot(rel, seg) / b2.B2Vec2Dot(seg, seg)
		if gap > KeepGap || gap < -KeepGap || u < 0 || u > 1 {
			continue // lifted off, pushed through, or slid off its face
		}
		if q.from == narrow.SideB {
			nw = nw.OperatorNegate() // separating direction of A
		}
		if n == 0 {
			d = nw
		} else if f := &p.pts[0]; math.Abs(planeOffset(d, f.p, pw, f.from)-gap-f.pd) > slideTol(-gap, f.pd) {
			continue // off the first kept point's plane (see slideTol)
		}
		q.p, q.pd = pw, -gap
		p.pts[n] = q
		n++
	}
	if n == 0 {
		return false
	}
	p.ok, p.xfA, p.xfB, p.n, p.d, p.kept = true, xfA, xfB, n, d, true
	return true
}
