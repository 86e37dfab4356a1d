package rigid

import (
	"cmp"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// v3 is the solver's vector: a struct (unlike mgl64.Vec3, an array), so
// that the compiler keeps its components in registers in the hot loops.
type v3 struct{ x, y, z float64 }

func vec(a mgl64.Vec3) v3            { return v3{a[0], a[1], a[2]} }
func (a v3) vec3() mgl64.Vec3        { return mgl64.Vec3{a.x, a.y, a.z} }
func (a v3) sub(b v3) v3             { return v3{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a v3) scale(s float64) v3      { return v3{a.x * s, a.y * s, a.z * s} }
func (a v3) dot(b v3) float64        { return a.x*b.x + a.y*b.y + a.z*b.z }
func (a v3) madd(b v3, s float64) v3 { return v3{a.x + b.x*s, a.y + b.y*s, a.z + b.z*s} }

// contact is one manifold point in the solver.
type contact struct {
	a, b int32    // bodies: a is the pair's A (lower ID), b its B
	key  pointKey // warm starting's

	p     mgl64.Vec3 // world point where impulses act
	depth float64    // penetration along n; < 0: a speculative point's gap

	// The directions: n (unit, from B towards A), then tangents t1, t2,
	// with (t1, t2, n) orthonormal; per direction d, rA×d and rB×d and
	// the world inverse inertias applied to them, so that an iteration
	// needs no matrix.
	d      [3]v3
	ra, rb [3]v3
	ia, ib [3]v3

	mu     float64    // combined friction
	u      [3]float64 // velocity of A's surface relative to B's from their deformations, along the directions
	m      [3]float64 // effective masses along the directions
	bounce float64    // normal velocity target from restitution (until the targets are set, the combined restitution)
	bias   float64    // pseudo-velocity target of position correction

	ln, lt1, lt2 float64 // accumulated impulses: normal, tangents
	lp           float64 // accumulated pseudo-impulse
}

// velocity is a body's velocity in the solver.
type velocity struct {
	v, w v3
	im   float64 // effective inverse mass
}

// rel returns the velocity of A's material point relative to B's at c,
// along direction k.
func (c *contact) rel(a, b *velocity, k int) float64 {
	return c.d[k].dot(a.v.sub(b.v)) + a.w.dot(c.ra[k]) - b.w.dot(c.rb[k])
}

// push applies impulse l along direction k to A and −l to B.
func (c *contact) push(a, b *velocity, k int, l float64) {
	a.v = a.v.madd(c.d[k], l*a.im)
	b.v = b.v.madd(c.d[k], -l*b.im)
	a.w = a.w.madd(c.ia[k], l)
	b.w = b.w.madd(c.ib[k], -l)
}

// warmImpulse is a point's impulse kept for the next step.
type warmImpulse struct {
	key pointKey
	ln  float64
	lt  mgl64.Vec3 // friction impulse as a world vector
}

// pointKey identifies a point from step to step: its pair, and the vertex
// of one side it comes from (side 0 or 1, prim −1), or for an
// edge-on-edge contact (narrow.FeatureEdge) side edgeSide and its two
// edges.
type pointKey struct {
	pair   uint64
	side   uint8
	vertex int32
	prim   int32
}

// edgeSide is the pointKey side of edge-on-edge contacts, and
// edgeFaceSide + From that of edge-through-face contacts (narrow.
// FeatureEdgeFace: vertex the edge, prim the primitive it enters).
const (
	edgeSide     = 2
	edgeFaceSide = 3
)

// keyOf returns the key of contact pt of pair id.
func keyOf(id uint64, pt *narrow.Contact) pointKey {
	switch pt.Feature {
	case narrow.FeatureEdge:
		return pointKey{pair: id, side: edgeSide, vertex: pt.Vertex, prim: pt.Prim}
	case narrow.FeatureEdgeFace:
		return pointKey{pair: id, side: edgeFaceSide + uint8(pt.From), vertex: pt.Vertex, prim: pt.Prim}
	}
	return pointKey{pair: id, side: uint8(pt.From), vertex: pt.Vertex, prim: -1}
}

// cmp orders keys by pair, side, vertex, then prim.
func (k *pointKey) cmp(o *pointKey) int {
	switch {
	case k.pair != o.pair:
		return cmp.Compare(k.pair, o.pair)
	case k.side != o.side:
		return cmp.Compare(k.side, o.side)
	case k.vertex != o.vertex:
		return cmp.Compare(k.vertex, o.vertex)
	}
	return cmp.Compare(k.prim, o.prim)
}

// wakeTouched wakes the sleeping islands that an awake body touches: a
// pair with at least one contact between a body awake at the start of the
// step and a sleeping one wakes the sleeping body's whole island. Woken
// bodies keep still until the end of the step (their pairs with other
// sleeping or static bodies were not detected) and move from the next one.
func (w *World) wakeTouched(res []narrow.PairResult) {
	if len(w.wake) < len(w.bodies) {
		w.wake = make([]bool, len(w.bodies))
	}
	found := false
	for i := range res {
		if len(res[i].Touching()) == 0 {
			continue
		}
		a, b := &w.bodies[w.pairs[i].A], &w.bodies[w.pairs[i].B]
		switch {
		case a.sleeping && (b.Awake() || b.moving()):
			w.wake[a.island], found = true, true
		case b.sleeping && (a.Awake() || a.moving()):
			w.wake[b.island], found = true, true
		}
	}
	if !found {
		return
	}
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.sleeping && w.wake[b.island] {
			b.sleeping, b.woken, b.island, b.stillTime = false, true, -1, 0
			w.stats.Woken++
		}
	}
	clear(w.wake)
}

// prepareBodies integrates gravity and damping into the velocities of the
// moving bodies and sets every body's effective inverse mass and world
// inverse inertia (R·I⁻¹·Rᵀ) for the step: zero for static, kinematic,
// sleeping and just-woken bodies, which the solver treats as immovable (a
// kinematic body keeps its velocity, which the contacts see).
func (w *World) prepareBodies() {
	dt := w.cfg.Dt
	dv := w.cfg.Gravity.Mul(dt)
	ld := 1 / (1 + dt*w.cfg.LinearDamping)
	ad := 1 / (1 + dt*w.cfg.AngularDamping)
	for i := range w.bodies {
		b := &w.bodies[i]
		b.vp, b.wp = mgl64.Vec3{}, mgl64.Vec3{}
		if !b.Awake() || b.woken {
			b.im, b.iiw = 0, mat3{}
			if b.woken {
				b.v, b.w = mgl64.Vec3{}, mgl64.Vec3{}
			}
			continue
		}
		b.im = b.invMass
		b.iiw = rotateSym(&b.rot, &b.invInertia)
		b.v = b.v.Add(dv).Mul(ld)
		b.w = b.w.Mul(ad)
	}
}

// buildContacts turns the pairs' manifolds into solver points, records the
// step's contact statistics, warm-starts the points from the previous step
// and applies the warm-start impulses.
//
// Each pair's points go through the pre-solve function, if any
// (presolve.go), once sorted; a bad value it sets is the step's error.
//
// A speculative point (narrow.Params.Speculative: Depth < 0, a gap) becomes
// a solver point only if the gap could close within the step: if it is
// under the points' approach speed times Dt plus SpeculativeMargin. The
// others could not act and would only cost iterations.
func (w *World) buildContacts(res []narrow.PairResult) error {
	st := &w.stats
	w.contacts, w.contactsPrev = w.contactsPrev[:0], w.contacts
	w.undo.stage = stageContacts
	dt := w.cfg.Dt
	for i := range res {
		r := &res[i]
		touching := false
		for k := range r.Contacts {
			d := r.Contacts[k].Depth
			if d < 0 {
				st.Speculative++
				continue
			}
			touching = true
			st.Contacts++
			st.DepthSum += d
			st.DepthMax = max(st.DepthMax, d)
		}
		if touching {
			st.ContactPairs++
		}
		if len(r.Manifolds) == 0 {
			continue
		}
		ia, ib := int32(w.pairs[i].A), int32(w.pairs[i].B)
		a, b := &w.bodies[ia], &w.bodies[ib]
		if a.im == 0 && b.im == 0 {
			continue // nothing moves (a pair of woken bodies)
		}
		mu := math.Sqrt(a.friction * b.friction)
		// No point of A approaches a point of B faster than vmax: gaps
		// wider than reach cannot close within the step.
		vmax := a.v.Sub(b.v).Len() + a.w.Len()*a.reach + b.w.Len()*b.reach
		reach := vmax*dt + w.cfg.SpeculativeMargin
		c0 := len(w.contacts)
		for _, m := range r.Manifolds {
			nl := m.Normal.Len()
			if !(nl > 0) || !finite(nl) {
				continue
			}
			n := m.Normal.Mul(1 / nl)
			var t1, t2 mgl64.Vec3 // the tangents, once a point is met
			counted := false      // the manifold counted in the stats, once a point is kept
			for k := range m.Points {
				pt := &m.Points[k]
				if t1 == (mgl64.Vec3{}) {
					t1, t2 = tangents(n)
				}
				var u [3]float64
				if da, db := a.dstep == w.steps+1, b.dstep == w.steps+1; da || db {
					var su mgl64.Vec3
					if da {
						su = a.surfaceVelocity(pt, narrow.SideA)
					}
					if db {
						su = su.Sub(b.surfaceVelocity(pt, narrow.SideB))
					}
					u = [3]float64{n.Dot(su), t1.Dot(su), t2.Dot(su)}
				}
				var depth float64
				if pt.Depth >= 0 {
					depth = max(0, pt.Depth*pt.NormalA().Dot(n))
				} else {
					// The gap along n: the contact's along its own
					// direction, projected (at most |Depth|).
					depth = min(pt.Depth*max(pt.NormalA().Dot(n), 0), -math.SmallestNonzeroFloat64)
					if -depth > reach {
						continue
					}
					p := pt.P.Add(pt.Dir.Mul(0.5 * pt.Depth))
					ra, rb := p.Sub(a.com), p.Sub(b.com)
					vn := n.Dot(a.v.Add(a.w.Cross(ra)).Sub(b.v.Add(b.w.Cross(rb)))) + u[0]
					if -depth+vn*dt > w.cfg.SpeculativeMargin {
						continue // cannot close within the step
					}
					st.SpeculativePoints++
				}
				if !counted {
					counted = true
					st.Manifolds++
				}
				w.contacts = append(w.contacts, contact{
					a: ia, b: ib, key: keyOf(r.ID, pt),
					// The vertex P lies inside the other body and
					// P + Depth·Dir on its surface: act at the midpoint.
					p:     pt.P.Add(pt.Dir.Mul(0.5 * pt.Depth)),
					d:     [3]v3{vec(n), vec(t1), vec(t2)},
					depth: depth, mu: mu, u: u, bounce: math.Max(a.restitution, b.restitution),
				})
			}
		}
		// Sort the pair's points by (side, vertex): pairs come in ID
		// order, so the whole list is sorted by key for warm starting.
		cs := w.contacts[c0:]
		for x := 1; x < len(cs); x++ {
			for y := x; y > 0 && cs[y].key.cmp(&cs[y-1].key) < 0; y-- {
				cs[y], cs[y-1] = cs[y-1], cs[y]
			}
		}
		if w.preSolve != nil && len(cs) > 0 {
			kept, err := w.preSolvePair(r.ID, a, b, cs)
			if err != nil {
				return err
			}
			w.contacts = w.contacts[:c0+len(kept)]
		}
	}
	st.Points = len(w.contacts)

	rate := w.cfg.CorrectionRate / dt
	ws := w.cfg.WarmStart
	j := 0
	for i := range w.contacts {
		c := &w.contacts[i]
		a, b := &w.bodies[c.a], &w.bodies[c.b]
		ra, rb := c.p.Sub(a.com), c.p.Sub(b.com)
		for k := range c.d {
			d := c.d[k].vec3()
			xa, xb := ra.Cross(d), rb.Cross(d)
			ia, ib := a.iiw.mulVec(xa), b.iiw.mulVec(xb)
			c.ra[k], c.rb[k], c.ia[k], c.ib[k] = vec(xa), vec(xb), vec(ia), vec(ib)
			if kk := a.im + b.im + xa.Dot(ia) + xb.Dot(ib); kk > 0 {
				c.m[k] = 1 / kk
			}
		}
		vn := c.d[0].dot(vec(a.v).sub(vec(b.v))) + vec(a.w).dot(c.ra[0]) - vec(b.w).dot(c.rb[0]) + c.u[0]
		e := c.bounce // the restitution, until the target replaces it
		c.bounce = 0
		switch {
		case c.depth < 0:
			// Speculative: the gap may close, not more (no bounce, no
			// position correction).
			c.bounce = c.depth / dt
		case vn < -w.cfg.RestitutionThreshold:
			c.bounce = -e * vn
		}
		if c.depth > w.cfg.Slop {
			r := rate
			if w.cfg.DeepCorrectionRate > 0 && c.depth > w.cfg.DeepPenetration {
				r = w.cfg.DeepCorrectionRate / dt
			}
			c.bias = math.Min(r*(c.depth-w.cfg.Slop), w.cfg.MaxCorrectionVelocity)
		}
		// Merge-join with last step's impulses (both sorted by key).
		for j < len(w.warm) && w.warm[j].key.cmp(&c.key) < 0 {
			j++
		}
		if ws > 0 && j < len(w.warm) && w.warm[j].key.cmp(&c.key) == 0 {
			h := &w.warm[j]
			c.ln = ws * h.ln
			c.lt1 = ws * vec(h.lt).dot(c.d[1])
			c.lt2 = ws * vec(h.lt).dot(c.d[2])
		}
	}
	return nil
}

// solve runs the sequential-impulse iterations on the bodies' velocities:
// warm starting, then velocities (friction, then the normal impulse with
// restitution, each accumulated and clamped), then the split-impulse
// position correction on pseudo-velocities, which integrate moves the
// bodies by and then forgets.
func (w *World) solve() {
	// The solver works on a compact copy of the velocities.
	vel := slices.Grow(w.vel[:0], len(w.bodies))[:len(w.bodies)]
	w.vel = vel
	for i := range w.bodies {
		b := &w.bodies[i]
		vel[i] = velocity{v: vec(b.v), w: vec(b.w), im: b.im}
	}
	for i := range w.contacts {
		c := &w.contacts[i]
		if c.ln != 0 || c.lt1 != 0 || c.lt2 != 0 {
			a, b := &vel[c.a], &vel[c.b]
			c.push(a, b, 0, c.ln)
			c.push(a, b, 1, c.lt1)
			c.push(a, b, 2, c.lt2)
		}
	}
	for it := 0; it < w.cfg.VelocityIterations; it++ {
		for i := range w.contacts {
			c := &w.contacts[i]
			a, b := &vel[c.a], &vel[c.b]
			av, aw, bv, bw := a.v, a.w, b.v, b.w
			dv := av.sub(bv)

			// Friction: both tangents at once, the accumulated impulse
			// clamped to the disc of radius μ·λn (a round cone, so the
			// sliding threshold does not depend on the tangents' axes).
			n1 := c.lt1 - c.m[1]*(c.d[1].dot(dv)+aw.dot(c.ra[1])-bw.dot(c.rb[1])+c.u[1])
			n2 := c.lt2 - c.m[2]*(c.d[2].dot(dv)+aw.dot(c.ra[2])-bw.dot(c.rb[2])+c.u[2])
			lim := c.mu * c.ln
			if l2 := n1*n1 + n2*n2; l2 > lim*lim {
				s := 0.0
				if l2 > 0 {
					s = lim / math.Sqrt(l2)
				}
				n1, n2 = n1*s, n2*s
			}
			d1, d2 := n1-c.lt1, n2-c.lt2
			c.lt1, c.lt2 = n1, n2
			p := c.d[1].scale(d1).madd(c.d[2], d2)
			av = av.madd(p, a.im)
			bv = bv.madd(p, -b.im)
			aw = aw.madd(c.ia[1], d1).madd(c.ia[2], d2)
			bw = bw.madd(c.ib[1], -d1).madd(c.ib[2], -d2)

			// Normal: non-penetration with the restitution target.
			vn := c.d[0].dot(av.sub(bv)) + aw.dot(c.ra[0]) - bw.dot(c.rb[0]) + c.u[0]
			nl := math.Max(c.ln+c.m[0]*(c.bounce-vn), 0)
			d := nl - c.ln
			c.ln = nl
			a.v = av.madd(c.d[0], d*a.im)
			a.w = aw.madd(c.ia[0], d)
			b.v = bv.madd(c.d[0], -d*b.im)
			b.w = bw.madd(c.ib[0], -d)
		}
	}
	for i := range w.bodies {
		if b := &w.bodies[i]; b.im != 0 {
			b.v, b.w = vel[i].v.vec3(), vel[i].w.vec3()
		}
		vel[i].v, vel[i].w = v3{}, v3{}
	}
	// Split impulse: the same normal constraints on pseudo-velocities
	// that start from zero, with the position error as target.
	for it := 0; it < w.cfg.PositionIterations; it++ {
		for i := range w.contacts {
			c := &w.contacts[i]
			a, b := &vel[c.a], &vel[c.b]
			nl := math.Max(c.lp+c.m[0]*(c.bias-c.rel(a, b, 0)), 0)
			if d := nl - c.lp; d != 0 {
				c.lp = nl
				c.push(a, b, 0, d)
			}
		}
	}
	for i := range w.bodies {
		w.bodies[i].vp, w.bodies[i].wp = vel[i].v.vec3(), vel[i].w.vec3()
	}
	// Keep the impulses for the next step, in key order.
	w.warmNext = w.warmNext[:0]
	for i := range w.contacts {
		c := &w.contacts[i]
		w.warmNext = append(w.warmNext, warmImpulse{key: c.key,
			ln: c.ln, lt: c.d[1].scale(c.lt1).madd(c.d[2], c.lt2).vec3()})
	}
	w.warm, w.warmNext = w.warmNext, w.warm
	w.undo.stage = stageSolved
}

// integrate moves the moving bodies with semi-implicit Euler: the centre
// of mass by Dt·(v + pseudo-velocity), the orientation by the quaternion
// derivative ½·(0, ω + pseudo-ω)·q, renormalised.
func (w *World) integrate() error {
	dt := w.cfg.Dt
	for i := range w.bodies {
		b := &w.bodies[i]
		if b.im == 0 && !b.moving() {
			continue
		}
		b.moved = true
		b.com = b.com.Add(b.v.Add(b.vp).Mul(dt))
		om := b.w.Add(b.wp)
		q := b.pose.Rot
		dq := mgl64.Quat{W: 0, V: om}.Mul(q)
		q = normalizeQuat(mgl64.Quat{W: q.W + 0.5*dt*dq.W, V: q.V.Add(dq.V.Mul(0.5 * dt))})
		b.rot = rotation(q)
		b.pose = narrow.Pose{Pos: b.com.Sub(b.rot.mulVec(b.localCOM)), Rot: q}
		if !finiteVec(b.com) || !finiteVec(b.v) || !finiteVec(b.w) || !finite(q.W) || !finiteVec(q.V) {
			return &BodyError{Body: BodyID(i), Name: b.name, Err: ErrDiverged}
		}
	}
	if w.cfg.CCDMotion > 0 {
		w.sweep()
	}
	return nil
}

// sweep is continuous collision detection (Config.CCDMotion): it sweeps
// the pairs of the step without contact that moved far, from the poses the narrow phase
// saw (Pair.PoseA, PoseB) to the ones integrate just gave, and cuts each
// body's motion back to the earliest time of impact of its pairs. Each
// pair's time of impact comes from its relative motion; a body's fraction
// is the least of its pairs', whatever their order.
func (w *World) sweep() {
	w.toi = w.toi[:0]
	for range w.bodies {
		w.toi = append(w.toi, 1)
	}
	advance := 0.5 * w.cfg.Slop
	res := w.batch.Results()
	for i := range w.pairs {
		p := &w.pairs[i]
		a, b := &w.bodies[p.A], &w.bodies[p.B]
		if a.im == 0 && b.im == 0 || len(res[i].Touching()) > 0 {
			continue // a pair in contact is the solver's
		}
		bound := a.com.Sub(b.com).Sub(p.PoseA.Rot.Rotate(a.localCOM).Add(p.PoseA.Pos)).Add(p.PoseB.Rot.Rotate(b.localCOM).Add(p.PoseB.Pos)).Len() +
			narrow.Angle(p.PoseA.Rot, a.pose.Rot)*a.reach + narrow.Angle(p.PoseB.Rot, b.pose.Rot)*b.reach
		if bound <= w.cfg.CCDMotion*min(a.shape.Size(), b.shape.Size()) {
			continue
		}
		w.stats.Swept++
		ta0, ta1, tb0, tb1 := p.PoseA.Transform(), a.pose.Transform(), p.PoseB.Transform(), b.pose.Transform()
		var from, to narrow.Transform
		from.SetRelative(&tb0, &ta0)
		to.SetRelative(&tb1, &ta1)
		f := narrow.Sweep(a.shape, &from, &to, b.shape, advance)
		var back, back2 narrow.Transform
		back.SetRelative(&ta0, &tb0)
		back2.SetRelative(&ta1, &tb1)
		f = narrow.SweepBefore(b.shape, &back, &back2, a.shape, advance, f)
		if w.cfg.CCDEdges {
			// Only edges that meet before the vertices do matter.
			f = narrow.SweepEdgesBefore(a.shape, &from, &to, b.shape, advance, f)
		}
		if w.cfg.CCDTurns && f > 0 {
			f = w.sweepTurn(a, b, p, f, advance)
		}
		if f < 1 {
			for _, k := range [2]BodyID{p.A, p.B} {
				if w.bodies[k].im != 0 {
					w.toi[k] = min(w.toi[k], max(f, 0))
				}
			}
		}
	}
	// A body in contact keeps its motion: the solver answered for it,
	// position correction included.
	for i := range w.pairs {
		if len(res[i].Touching()) > 0 {
			w.toi[w.pairs[i].A], w.toi[w.pairs[i].B] = 1, 1
		}
	}
	for i := range w.pairs {
		p := &w.pairs[i]
		for _, k := range [2]BodyID{p.A, p.B} {
			if f := w.toi[k]; f < 1 {
				start := p.PoseA
				if k == p.B {
					start = p.PoseB
				}
				w.cut(&w.bodies[k], start, f)
				w.toi[k] = 1 // once
				w.stats.Clamped++
			}
		}
	}
}

// turnSweep is the least relative turn in a step (rad) that sweepTurn
// casts, and turnSteps the advancement steps it allows a cast.
const (
	turnSweep = 0.35
	turnSteps = 64
)

// sweepTurn is sweep's answer for a pair that turns too far in the step
// for the vertices' straight paths: a point r from its shape's origin
// turning by θ relative to the other body strays up to r·(1 − cos(θ/2))
// from its chord, and once the turn exceeds turnSweep and that stray
// could exceed half of either shape's thickness, a chord may pass by
// what the arc hits (a spinning bar past a post). Such pairs are cast
// along their relative motion turning at constant angular velocity
// (narrow.CastMotionWithin, to within advance), the body that turns more
// moving in the other's frame. A cast that finds the pair within advance
// at the start (a pair hovering without contact: the next step's
// contacts are its answer), or runs out of steps, changes nothing; else
// it returns the earlier of its fraction and f, the chords'.
func (w *World) sweepTurn(a, b *Body, p *Pair, f, advance float64) float64 {
	mover, frame, m0, f0 := a, b, p.PoseA, p.PoseB
	if narrow.Angle(p.PoseB.Rot, b.pose.Rot) > narrow.Angle(p.PoseA.Rot, a.pose.Rot) {
		mover, frame, m0, f0 = b, a, p.PoseB, p.PoseA
	}
	rel0, rel1 := narrow.Relative(f0, m0), narrow.Relative(frame.pose, mover.pose)
	turn := narrow.Angle(rel0.Rot, rel1.Rot)
	r := mover.reach + mover.localCOM.Len()
	if turn <= turnSweep || r*(1-math.Cos(0.5*turn)) <= 0.5*min(a.shape.Thickness(), b.shape.Thickness()) {
		return f
	}
	w.stats.Turned++
	tol := max(advance, 1e-6*mover.shape.Size())
	c, hit, out, err := narrow.CastMotionWithin(mover.shape, frame.shape, rel0, rel1, narrow.Identity, tol, turnSteps)
	if err != nil || !hit || out || c.Fraction == 0 {
		return f
	}
	return min(f, c.Fraction)
}

// cut moves body b back to the fraction f of its motion from the pose
// start: its centre of mass along the straight line, its orientation
// along the shorter arc (normalised linear blend).
func (w *World) cut(b *Body, start narrow.Pose, f float64) {
	c0 := start.Pos.Add(start.Rot.Rotate(b.localCOM))
	b.com = c0.Add(b.com.Sub(c0).Mul(f))
	q0, q1 := start.Rot, b.pose.Rot
	if q0.Dot(q1) < 0 {
		q1 = q1.Scale(-1)
	}
	q := normalizeQuat(mgl64.Quat{W: q0.W + f*(q1.W-q0.W), V: q0.V.Add(q1.V.Sub(q0.V).Mul(f))})
	b.rot = rotation(q)
	b.pose = narrow.Pose{Pos: b.com.Sub(b.rot.mulVec(b.localCOM)), Rot: q}
}
