package box2dadapter

import (
	"math"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/narrow"
)

// group is one fixture pair (and child pair) that involves an irtcd shape.
// box2d creates one contact for it; the adapter adds one more contact per
// extra normal cluster, since a box2d manifold holds one normal and at
// most two points. slots[k] carries cluster k; the normal each slot carried
// last keeps a cluster in the same contact from step to step, so box2d's
// warm starting (which matches points by ID within a contact) works.
type group struct {
	id    uint64
	slots []*contact
	last  []b2.B2Vec2 // box2d normal (A→B, world) each slot carried last
}

// leader returns the first live contact of the group.
func (g *group) leader() *contact {
	for _, c := range g.slots {
		if c != nil {
			return c
		}
	}
	return nil
}

// point is a prepared manifold point: world position, depth, and the ID
// box2d uses to match it with the previous step's point.
type point struct {
	p      b2.B2Vec2
	pd     float64 // penetration depth; negative: a gap (a kept point, see keep)
	id     uint32
	from   narrow.Side // body whose vertex it is
	vertex int32       // the vertex
	prim   int32       // the other body's primitive it was found against
}

// prepared is one slot's manifold for a given pair of transforms.
type prepared struct {
	ok       bool // computed for xfA, xfB
	xfA, xfB b2.B2Transform
	n        int
	pts      [b2.B2_maxManifoldPoints]point
	d        b2.B2Vec2 // separating direction of A (world), from B towards A
	faceB    bool      // the normal is carried by B (points come from A's vertices)
	kept     bool      // the points are last step's, kept across a gap (Adapter.keep)
}

// contact is the box2d contact of an irtcd pair. Fixture A is always the
// irtcd shape of a mixed pair (register arranges it).
type contact struct {
	b2.B2Contact
	ad   *Adapter
	g    *group
	slot int
	prep prepared
	// The adapter's own list of its contacts (see contactList).
	prev, next *contact
	listed     bool
}

// createContact is box2d's factory for irtcd contacts. box2d (AddPair) and
// the adapter (addContact) both put the contact it returns at the head of
// the world's contact list, so it goes at the head of the adapter's own.
func createContact(fA *b2.B2Fixture, iA int, fB *b2.B2Fixture, iB int) b2.B2ContactInterface {
	c := &contact{B2Contact: b2.MakeB2Contact(fA, iA, fB, iB)}
	c.ad = adapterOf(fA)
	if c.ad != nil {
		c.g = c.ad.newGroup(c)
		c.ad.contacts.insert(c, nil)
	}
	return c
}

func destroyContact(ci b2.B2ContactInterface) {
	c, ok := ci.(*contact)
	if !ok || c.g == nil {
		return
	}
	// The backend drops the pair's temporal state once its ID is missing
	// from a step, so a group needs no other cleanup.
	c.g.slots[c.slot] = nil
	c.g = nil
	c.ad.contacts.remove(c)
}

// contactList is the adapter's own list of the contacts it made, in the
// order box2d's world contact list holds them: Adapter.Step walks it
// instead of the world's list, which also holds every contact of box2d's
// own shapes (thousands in a world of native boxes). The world's list
// only changes at its head (AddPair, addContact, showSensors) and by
// removals (ContactManager.Destroy, unlink), and the adapter mirrors each
// change, so the two orders agree: Step gathers its pairs, and so numbers
// its extra contacts, exactly as a walk of the world's list would.
type contactList struct {
	head, tail *contact
}

// insert puts c into the list after prev, or at its head if prev is nil.
func (l *contactList) insert(c, prev *contact) {
	c.prev, c.listed = prev, true
	if prev != nil {
		c.next, prev.next = prev.next, c
	} else {
		c.next, l.head = l.head, c
	}
	if c.next != nil {
		c.next.prev = c
	} else {
		l.tail = c
	}
}

// remove takes c out of the list, if it is in it.
func (l *contactList) remove(c *contact) {
	if !c.listed {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		l.head = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		l.tail = c.prev
	}
	c.prev, c.next, c.listed = nil, nil, false
}

// Evaluate writes the contact's manifold: the batch's result when box2d
// evaluates at the transforms the step's batch used, otherwise (TOI
// sub-steps, contacts born inside the step) a standard detection of the
// pair on demand at the given transforms.
func (c *contact) Evaluate(m *b2.B2Manifold, xfA, xfB b2.B2Transform) {
	m.PointCount = 0
	if c.ad == nil || c.g == nil {
		return
	}
	if !c.prep.ok || c.prep.xfA != xfA || c.prep.xfB != xfB {
		c.ad.evaluateNow(c, xfA, xfB)
	}
	if c.prep.n == 0 {
		return
	}
	rA := c.GetFixtureA().GetShape().GetRadius()
	rB := c.GetFixtureB().GetShape().GetRadius()
	encode(m, &c.prep, rA+rB)
}

// GetFlags reports a cached time of impact to box2d's SolveTOI for every
// irtcd contact, so that SolveTOI asks GetTOI instead of building box2d
// distance proxies (which panic on shape types it does not know).
func (c *contact) GetFlags() uint32 { return c.M_flags | b2.B2Contact_Flag.E_toiFlag }

// GetTOI returns the contact's time of impact within the step, computed by
// sweep rays (toi.go) the first time SolveTOI asks after the flag is
// cleared.
func (c *contact) GetTOI() float64 {
	if c.M_flags&b2.B2Contact_Flag.E_toiFlag != 0 {
		return c.M_toi
	}
	alpha := 1.0
	if c.ad != nil {
		alpha = c.ad.timeOfImpact(c)
	}
	c.M_toi = alpha
	c.M_flags |= b2.B2Contact_Flag.E_toiFlag
	return alpha
}

// encode writes prepared points into a box2d manifold so that box2d's
// separation of point i is exactly -pd_i, in the world manifold (velocity
// solver) and in the position solver alike. R is the sum of the two
// shapes' skin radii, which box2d subtracts from every separation. The
// normal is carried by the body that owns the hit face, so the frozen
// manifold follows the bodies' motion during position iterations.
func encode(m *b2.B2Manifold, p *prepared, R float64) {
	// The face normal nc, carried by body "carrier" (frame xfC); points
	// are stored in the other body's frame xfO. For e_faceA nc is box2d's
	// A→B normal (−d); for e_faceB it is B's outward normal d.
	nc, xfC, xfO := b2.B2Vec2{X: -p.d.X, Y: -p.d.Y}, p.xfA, p.xfB
	m.Type = b2.B2Manifold_Type.E_faceA
	if p.faceB {
		nc, xfC, xfO = p.d, p.xfB, p.xfA
		m.Type = b2.B2Manifold_Type.E_faceB
	}
	// A plane point such that point 0 has separation −pd_0; every point
	// then slides along nc only (its normal lever arm is unchanged) to the
	// separation −pd_i.
	w0 := b2.B2Vec2Sub(p.pts[0].p, b2.B2Vec2MulScalar(R-p.pts[0].pd, nc))
	m.PointCount = p.n
	m.LocalNormal = b2.B2RotVec2MulT(xfC.Q, nc)
	m.LocalPoint = b2.B2TransformVec2MulT(xfC, w0)
	for i := 0; i < p.n; i++ {
		q := p.pts[i]
		shift := (R - q.pd) - b2.B2Vec2Dot(b2.B2Vec2Sub(q.p, w0), nc)
		clip := b2.B2Vec2Add(q.p, b2.B2Vec2MulScalar(shift, nc))
		m.Points[i].LocalPoint = b2.B2TransformVec2MulT(xfO, clip)
		m.Points[i].Id = contactID(q.id)
	}
}

// contactID packs a 32-bit key into box2d's four-byte contact ID (its
// Key() reads the bytes back as the same number).
func contactID(k uint32) b2.B2ContactID {
	return b2.B2ContactID{IndexA: uint8(k), IndexB: uint8(k >> 8), TypeA: uint8(k >> 16), TypeB: uint8(k >> 24)}
}

// pointKey identifies a contact point by its source side and vertex.
func pointKey(c *narrow.Contact) uint32 {
	return uint32(c.Vertex)&0x7fffffff | uint32(c.From)<<31
}

// prepare fills p from one manifold of the pair's result, choosing the
// (at most) two points box2d can take: the deepest, and the deepest of
// those at least half as far from it along the contact plane as the
// farthest (secondReach). The backend's manifold lists the deepest point
// first, then the ones that spread it widest (up to ManifoldSize). A
// point box2d had last step is kept while it is within keepDepth of the
// deepest choice (a box resting flat on another has corners of the same
// depth; a pile at rest has many near-ties), so that the contact IDs —
// and with them box2d's warm-started impulses — do not flip between
// equivalent choices; a point that takes the place of last step's nearby
// takes its impulses too (Adapter.handImpulses).
//
// Why not the farthest point: a body resting on two rounded feet has
// many vertices in the support under each foot, deepest in the middle of
// the foot. The farthest of them is the outer end of the other foot,
// barely inside, which box2d's position solver leaves alone (it corrects
// only depths beyond its slop): it corrected the deepest point's foot
// only, the other foot's middle became the deepest at the next step, and
// the body rocked from foot to foot every step, creeping sideways (a
// period-2 cycle found in the 2D avalanche; docs/BENCHMARKS.md, "Falling
// asleep"). The deepest point of the other foot is corrected like the
// first, and the choice stays put.
func prepare(p *prepared, m *narrow.Manifold, xfA, xfB b2.B2Transform) {
	var prev [b2.B2_maxManifoldPoints]uint32
	np := p.n
	for i := 0; i < np; i++ {
		prev[i] = p.pts[i].id
	}
	had := func(c *narrow.Contact) bool {
		k := pointKey(c)
		for i := 0; i < np; i++ {
			if prev[i] == k {
				return true
			}
		}
		return false
	}
	pts := m.Points
	p.ok, p.xfA, p.xfB, p.kept = true, xfA, xfB, false
	p.d = b2.B2Vec2{X: m.Normal[0], Y: m.Normal[1]}
	p.n = 0
	if len(pts) == 0 {
		return
	}
	// pick returns the deepest candidate that ok admits, or the first
	// point of last step's within keepDepth of it.
	pick := func(ok func(i int) bool) int {
		b := -1
		for i := range pts {
			if ok(i) && (b < 0 || pts[i].Depth > pts[b].Depth) {
				b = i
			}
		}
		if b < 0 || had(&pts[b]) {
			return b
		}
		for i := range pts {
			if ok(i) && had(&pts[i]) && pts[i].Depth >= pts[b].Depth-keepDepth {
				return i
			}
		}
		return b
	}
	first := pick(func(int) bool { return true })
	p.pts[0] = toPoint(&pts[first])
	p.n = 1
	// Points from A's vertices lie in B's faces: B carries the normal.
	p.faceB = pts[first].From == narrow.SideA
	// Second point: of the points at least secondReach times as far from
	// the first along the contact plane as the farthest, the deepest.
	spread := func(c *narrow.Contact) float64 {
		dx, dy := c.P[0]-pts[first].P[0], c.P[1]-pts[first].P[1]
		return math.Abs(dx*m.Normal[1] - dy*m.Normal[0])
	}
	best := 0.0
	for i := range pts {
		if i != first {
			best = max(best, spread(&pts[i]))
		}
	}
	if best == 0 {
		return // every candidate is where the first is
	}
	second := pick(func(i int) bool { return i != first && spread(&pts[i]) >= secondReach*best })
	p.pts[1] = toPoint(&pts[second])
	p.n = 2
}

// secondReach is how far from a manifold's first point its second point
// must lie along the contact plane, as a share of the farthest candidate's
// distance (see prepare): the other half of the contact. Over 12 seeds of
// the 100-object avalanche (standard method, sleeping off, steps 600-900;
// sim's BenchmarkAvalancheAtRest), the share of body-steps above box2d's
// sleep tolerance was 7.1 % with this rule (and keepDepth), against
// 26.6 % with the farthest point; seeds alone spread from 2 % to 46 %.
// Shares of 0.3 and 0.5 measured alike.
const secondReach = 0.5

// keepDepth is how much shallower than the deepest choice a point of last
// step's may be and still be kept (see prepare): a fiftieth of box2d's
// linear slop, 0.1 mm. Until the twenty-first session it was a tenth (0.5
// mm), for the first point only; with ManifoldSize's many candidates such
// a point stayed chosen while the contact moved on (a gear's tooth
// leaving the mesh while the next one went in unseen), and piles of
// toothed gears collapsed more often. With none at all, piles at rest
// slept later: docs/BENCHMARKS.md, "Falling asleep", has the runs.
const keepDepth = 0.02 * b2.B2_linearSlop

func toPoint(c *narrow.Contact) point {
	return point{p: b2.B2Vec2{X: c.P[0], Y: c.P[1]}, pd: c.Depth, id: pointKey(c), from: c.From, vertex: c.Vertex, prim: c.Prim}
}
