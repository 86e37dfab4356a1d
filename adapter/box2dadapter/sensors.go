package box2dadapter

import (
	"fmt"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/narrow"
)

// Sensors. box2d updates a sensor contact in World.Step with its own
// overlap test (b2TestOverlap, through distance proxies), which knows only
// its own shape types: given an irtcd shape it would fail. So the adapter
// updates the sensor contacts of irtcd pairs itself, just before
// World.Step and with the same transforms, and keeps them out of box2d's
// contact list while box2d steps:
//
//   - updateSensors makes for each such contact the checks that box2d's
//     ContactManager.Collide makes before an update, in the same order:
//     a contact flagged for filtering that should no longer collide, or
//     whose fixtures' proxies no longer overlap, is left in the list for
//     Collide to destroy (with its EndContact); one whose bodies both
//     sleep or are static is left alone. The others are updated as box2d
//     updates sensors: touching is narrow.Overlap of the two shapes
//     (exact, and unlike contacts it catches shapes that cross without
//     a vertex inside the other), the manifold stays empty, the listener
//     gets BeginContact or EndContact when touching changes, and the
//     bodies are not woken. Then the contact leaves the list.
//   - showSensors puts them back at the head of the list after
//     World.Step, in the order they were taken out.
//
// Out of the list, Collide cannot update them; box2d's solver and its
// time-of-impact pass skip sensor contacts wherever they meet them (the
// bodies' contact edges, which still hold them, so no duplicate contact
// is created for their fixtures). A group's extra contacts (the clusters
// of a pair that was solid before its fixture became a sensor) are
// destroyed, with their EndContact: a sensor pair needs one contact.
func (a *Adapter) updateSensors() {
	if len(a.sensors) == 0 {
		return
	}
	w := a.world
	mgr := &w.M_contactManager
	// Callbacks run as they would inside World.Step: the world is locked
	// (box2d refuses to create or destroy bodies then).
	locked := w.M_flags & b2.B2World_Flags.E_locked
	w.M_flags |= b2.B2World_Flags.E_locked
	defer func() { w.M_flags = w.M_flags&^b2.B2World_Flags.E_locked | locked }()
	a.hidden = a.hidden[:0]
	for _, c := range a.sensors {
		if c.g == nil {
			continue // destroyed by a callback of this loop
		}
		if c.g.leader() != c {
			c.M_manifold.PointCount = 0 // a sensor's, for its EndContact
			mgr.Destroy(c)
			continue
		}
		fA, fB := c.M_fixtureA, c.M_fixtureB
		bA, bB := fA.M_body, fB.M_body
		if c.M_flags&b2.B2Contact_Flag.E_filterFlag != 0 {
			if !bB.ShouldCollide(bA) || mgr.M_contactFilter != nil && !mgr.M_contactFilter.ShouldCollide(fA, fB) {
				continue // Collide destroys it
			}
			c.M_flags &^= b2.B2Contact_Flag.E_filterFlag
		}
		activeA := awake(bA) && bA.M_type != b2.B2BodyType.B2_staticBody
		activeB := awake(bB) && bB.M_type != b2.B2BodyType.B2_staticBody
		if !activeA && !activeB {
			continue // box2d leaves it as it is
		}
		if !mgr.M_broadPhase.TestOverlap(fA.M_proxies[c.M_indexA].ProxyId, fB.M_proxies[c.M_indexB].ProxyId) {
			continue // Collide destroys it
		}
		touching := a.sensorOverlap(c)
		c.M_manifold.PointCount = 0
		was := c.M_flags&b2.B2Contact_Flag.E_touchingFlag != 0
		if touching {
			c.M_flags |= b2.B2Contact_Flag.E_touchingFlag
		} else {
			c.M_flags &^= b2.B2Contact_Flag.E_touchingFlag
		}
		a.stats.Sensors++
		// Out of the list before the callbacks, which may destroy it.
		a.unlink(c)
		a.hidden = append(a.hidden, c)
		if l := mgr.M_contactListener; l != nil && touching != was {
			if touching {
				l.BeginContact(c)
			} else {
				l.EndContact(c)
			}
		}
	}
}

// sensorOverlap reports whether the shapes of sensor contact c overlap at
// their bodies' transforms. A pair that cannot be tested (a native shape
// irtcd cannot convert) is logged and reported apart.
func (a *Adapter) sensorOverlap(c *contact) bool {
	hit, err := a.TestOverlap(c.M_fixtureA, c.M_indexA, c.M_fixtureB, c.M_indexB)
	if err != nil {
		a.log.Warn("box2dadapter: sensor pair skipped", "pair", c.g.id, "err", err)
		return false
	}
	return hit
}

// TestOverlap reports whether child childA of fixture fA and child childB
// of fixture fB overlap at their bodies' current transforms, exactly
// (narrow.Overlap; touching counts), for irtcd shapes and box2d's own
// alike (native shapes as the adapter converts them, see nativePolygon):
// box2d's b2TestOverlap for worlds with irtcd shapes, which box2d's own
// cannot test. An error names a shape that cannot be converted.
func (a *Adapter) TestOverlap(fA *b2.B2Fixture, childA int, fB *b2.B2Fixture, childB int) (bool, error) {
	sa, err := a.shapeOf(fA, childA)
	if err != nil {
		return false, fmt.Errorf("box2dadapter: overlap: fixture A: %w", err)
	}
	sb, err := a.shapeOf(fB, childB)
	if err != nil {
		return false, fmt.Errorf("box2dadapter: overlap: fixture B: %w", err)
	}
	hit, err := narrow.Overlap(sa, sb, pose(fA.M_body.M_xf), pose(fB.M_body.M_xf))
	if err != nil {
		return false, fmt.Errorf("box2dadapter: overlap: %w", err)
	}
	return hit, nil
}

// unlink takes contact c out of the world's contact list.
func (a *Adapter) unlink(c *contact) {
	mgr := &a.world.M_contactManager
	prev, next := c.GetPrev(), c.GetNext()
	if prev != nil {
		prev.SetNext(next)
	}
	if next != nil {
		next.SetPrev(prev)
	}
	if mgr.M_contactList == b2.B2ContactInterface(c) {
		mgr.M_contactList = next
	}
	c.SetPrev(nil)
	c.SetNext(nil)
	mgr.M_contactCount--
	a.contacts.remove(c)
}

// showSensors puts the contacts updateSensors took out back at the head of
// the world's contact list, in the order they were taken out. Those that a
// callback destroyed meanwhile stay out.
func (a *Adapter) showSensors() {
	mgr := &a.world.M_contactManager
	for i := len(a.hidden) - 1; i >= 0; i-- {
		c := a.hidden[i]
		a.hidden[i] = nil
		if c.g == nil {
			// Destroyed by a callback: ContactManager.Destroy counted it
			// out again.
			mgr.M_contactCount++
			continue
		}
		c.SetPrev(nil)
		c.SetNext(mgr.M_contactList)
		if mgr.M_contactList != nil {
			mgr.M_contactList.SetPrev(c)
		}
		mgr.M_contactList = c
		mgr.M_contactCount++
		a.contacts.insert(c, nil)
	}
	a.hidden = a.hidden[:0]
	clear(a.sensors)
	a.sensors = a.sensors[:0]
}

// Distance returns how far apart child childA of fixture fA and child
// childB of fixture fB are at their bodies' current transforms, and their
// closest points (narrow.Distance: exact, concave outlines included; the
// points' z is 0), if they are at most max apart (math.Inf(1): any), and
// whether they are; fixtures that overlap are at distance 0
// (narrow.Closest.Overlap). It is box2d's b2Distance for worlds with
// irtcd shapes, which box2d's own cannot measure; box2d's own shapes are
// measured as the adapter converts them (see nativePolygon: a circle is
// its inscribed polygon, a polygon is grown by its skin). An error names
// a shape that cannot be converted, or a NaN or negative max
// (narrow.ErrBadParams).
func (a *Adapter) Distance(fA *b2.B2Fixture, childA int, fB *b2.B2Fixture, childB int, max float64) (narrow.Closest, bool, error) {
	sa, err := a.shapeOf(fA, childA)
	if err != nil {
		return narrow.Closest{}, false, fmt.Errorf("box2dadapter: distance: fixture A: %w", err)
	}
	sb, err := a.shapeOf(fB, childB)
	if err != nil {
		return narrow.Closest{}, false, fmt.Errorf("box2dadapter: distance: fixture B: %w", err)
	}
	c, ok, err := narrow.Distance(sa, sb, pose(fA.M_body.M_xf), pose(fB.M_body.M_xf), max)
	if err != nil {
		return narrow.Closest{}, false, fmt.Errorf("box2dadapter: distance: %w", err)
	}
	return c, ok, nil
}
