// Package cloth simulates a square of cloth falling onto rigid obstacles:
// the experiment of Li & Yamaguchi's §6.6 (ray-traced CD for deformable
// objects), a 20 × 20-node cloth 0.4 apart dropped on a capsule, whose
// folds collide with themselves.
//
// The cloth is a grid of particles joined by distance constraints along
// the grid's edges, its diagonals and every second node (stretch, shear,
// bending), moved by position-based dynamics: each step predicts the
// particles' positions from their velocities and gravity, projects the
// constraints (Gauss–Seidel, in a fixed order), keeps the particles out of
// the obstacles (narrow.Shape.Nearest, exact for any closed mesh), and
// stops each particle's motion short of any other part of the cloth found
// on its way by Algorithm 1 of the paper (narrow.Shape.AppendSelfHits: a
// ray along the particle's motion and one against it, on the cloth's
// surface refitted every step, narrow.Shape.DeformInto), then puts back
// the particles that an exact continuous test finds crossing the cloth
// all the same (Config.Sweep: a part of the cloth swept over a particle,
// which rays along the particle's own motion cannot see). Same input,
// same run, bit for bit.
package cloth

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// Config describes a cloth and how it is stepped.
type Config struct {
	Nodes      int     // nodes along each side (the paper: 20)
	Spacing    float64 // distance between neighbouring nodes, m (the paper: 0.4)
	Dt         float64 // step, s
	Substeps   int     // substeps a step
	Iterations int     // constraint projections a substep
	Thickness  float64 // how close a particle may come to another part of the cloth or to an obstacle, m
	Gravity    mgl64.Vec3
	Damping    float64 // fraction of the velocity lost a substep
	Friction   float64 // fraction of a particle's sliding along an obstacle cancelled a projection (0 to 1)
	// SelfCollision turns Algorithm 1 on (the default); off, the cloth
	// passes through itself, which the metrics then show.
	SelfCollision bool
	// Sweep (on by default, with SelfCollision) adds to Algorithm 1 an
	// exact continuous test of each particle against the triangles near
	// its path (every vertex moving in a straight line over the substep),
	// which catches what the paper's rays, cast along each particle's own
	// motion, cannot see: a part of the cloth swept over a particle, as
	// when two flaps slide into each other. Off, the cloth runs the
	// paper's Algorithm 1 alone.
	Sweep bool
	// Measure makes every step count the particles that went through the
	// cloth (Stats.Crossings, Penetration) by testing every particle's
	// path against every triangle: a measurement for experiments and
	// tests, about as costly as the rest of the step.
	Measure bool
}

// DefaultConfig is the paper's cloth: 20 × 20 nodes 0.4 m apart, stepped
// at 60 Hz.
func DefaultConfig() Config {
	return Config{Nodes: 20, Spacing: 0.4, Dt: 1.0 / 60, Substeps: 4, Iterations: 8,
		Thickness: 0.05, Gravity: mgl64.Vec3{0, -9.81, 0}, Damping: 0.002, Friction: 0.3, SelfCollision: true, Sweep: true}
}

// ErrConfig is wrapped by the errors of New for a bad configuration.
var ErrConfig = errors.New("cloth: bad configuration")

// Obstacle is a rigid, still body the cloth falls on.
type Obstacle struct {
	Shape *narrow.Shape // a closed mesh
	Pose  narrow.Pose
}

// Cloth is a simulated cloth. It is not safe for concurrent use.
type Cloth struct {
	cfg       Config
	x, p, v   []mgl64.Vec3 // positions, predicted positions, velocities
	cons      []constraint
	rest      *narrow.Shape // the cloth's surface as built
	surf      [2]narrow.Shape
	cur       *narrow.Shape // the surface at x
	k         int
	obstacles []obstacle
	motion    []mgl64.Vec3
	start     []mgl64.Vec3 // the step's start positions (measure)
	hits      []narrow.SelfHit
	near      []int32       // the triangles near a particle's path (sweep)
	boxes     []narrow.AABB // the triangles' boxes over the substep (measure)
	stats     Stats
	steps     int
}

type constraint struct {
	i, j int32
	rest float64
}

type obstacle struct {
	shape *narrow.Shape
	tr    narrow.Transform
	inv   narrow.Transform
	near  narrow.AABB // the shape's box grown by the thickness (its frame)
}

// Stats are the last step's measurements.
type Stats struct {
	// SelfHits counts the hits of Algorithm 1's rays (forward and
	// behind) over the step's substeps; Stopped, the particles whose
	// motion a hit cut short; Swept, the particles the sweep test
	// (Config.Sweep) put back on their side of a triangle.
	SelfHits, Stopped, Swept int
	// With Config.Measure: Crossings counts the particles that went
	// through another part of the cloth during one of the step's
	// substeps (the particle and a triangle not its own, each vertex
	// moving in a straight line over the substep, meet inside the
	// triangle: a particle swept over by the cloth counts as well as one
	// that moved through it), and Penetration is the deepest of them past
	// that triangle's plane at the substep's end: the penetration depth
	// of self-collision the paper plots (Figure 16).
	Crossings   int
	Penetration float64
	// ObstacleDepth is the deepest any particle lies inside an obstacle
	// after the step.
	ObstacleDepth float64
}

// New returns a flat cloth of cfg's nodes laid out in the x–z plane of
// place (its corner at place's origin, node (i, j) at (i, 0, j) times the
// spacing), on the obstacles given.
func New(cfg Config, place narrow.Pose, obstacles ...Obstacle) (*Cloth, error) {
	switch {
	case cfg.Nodes < 2 || cfg.Nodes > 1000:
		return nil, fmt.Errorf("%w: %d nodes a side (want 2 to 1000)", ErrConfig, cfg.Nodes)
	case !(cfg.Spacing > 0) || !(cfg.Dt > 0) || math.IsInf(cfg.Spacing, 0) || math.IsInf(cfg.Dt, 0):
		return nil, fmt.Errorf("%w: spacing %v, step %v (want finite positive)", ErrConfig, cfg.Spacing, cfg.Dt)
	case cfg.Substeps < 1 || cfg.Iterations < 1:
		return nil, fmt.Errorf("%w: %d substeps, %d iterations (want at least 1)", ErrConfig, cfg.Substeps, cfg.Iterations)
	case !(cfg.Thickness >= 0) || !(cfg.Damping >= 0 && cfg.Damping < 1) || !(cfg.Friction >= 0 && cfg.Friction <= 1) || !finite(cfg.Gravity):
		return nil, fmt.Errorf("%w: thickness %v, damping %v, friction %v, gravity %v", ErrConfig, cfg.Thickness, cfg.Damping, cfg.Friction, cfg.Gravity)
	}
	place, err := narrow.NewPose(place.Pos, place.Rot)
	if err != nil {
		return nil, fmt.Errorf("%w: placement: %w", ErrConfig, err)
	}
	tr := place.Transform()
	n := cfg.Nodes
	c := &Cloth{cfg: cfg}
	for i := range n {
		for j := range n {
			c.x = append(c.x, tr.Apply([3]float64{float64(i) * cfg.Spacing, 0, float64(j) * cfg.Spacing}))
		}
	}
	var tris [][3]int
	for i := range n - 1 {
		for j := range n - 1 {
			a, b, cc, d := i*n+j, (i+1)*n+j, (i+1)*n+j+1, i*n+j+1
			tris = append(tris, [3]int{a, cc, b}, [3]int{a, d, cc}) // counter-clockwise seen from +y
		}
	}
	rest, err := narrow.NewSurface(c.x, tris)
	if err != nil {
		return nil, fmt.Errorf("cloth: %w", err)
	}
	c.rest, c.cur = rest, rest
	link := func(a, b int) {
		c.cons = append(c.cons, constraint{int32(a), int32(b), c.x[a].Sub(c.x[b]).Len()})
	}
	for i := range n {
		for j := range n {
			a := i*n + j
			for _, d := range [][2]int{{1, 0}, {0, 1}, {1, 1}, {1, -1}, {2, 0}, {0, 2}} {
				if ii, jj := i+d[0], j+d[1]; ii < n && jj >= 0 && jj < n {
					link(a, ii*n+jj)
				}
			}
		}
	}
	for k, o := range obstacles {
		if o.Shape == nil || o.Shape.Open() || o.Shape.Dim() != narrow.Dim3 {
			return nil, fmt.Errorf("%w: obstacle %d is not a closed mesh", ErrConfig, k)
		}
		pose, err := narrow.NewPose(o.Pose.Pos, o.Pose.Rot)
		if err != nil {
			return nil, fmt.Errorf("%w: obstacle %d: %w", ErrConfig, k, err)
		}
		ob := obstacle{shape: o.Shape, tr: pose.Transform()}
		ob.inv = ob.tr.Inverse()
		ob.near = o.Shape.Bounds().Grow(cfg.Thickness)
		c.obstacles = append(c.obstacles, ob)
	}
	c.p = make([]mgl64.Vec3, len(c.x))
	c.v = make([]mgl64.Vec3, len(c.x))
	c.motion = make([]mgl64.Vec3, len(c.x))
	return c, nil
}

func finite(v mgl64.Vec3) bool {
	return !math.IsNaN(v[0]+v[1]+v[2]) && !math.IsInf(v[0]+v[1]+v[2], 0)
}

// Config returns the cloth's configuration.
func (c *Cloth) Config() Config { return c.cfg }

// Positions returns the particles' positions (row by row: node (i, j) is
// i·Nodes + j). The slice is the cloth's: do not modify it.
func (c *Cloth) Positions() []mgl64.Vec3 { return c.x }

// Surface returns the cloth's surface at its current positions (a
// narrow.NewSurface deformed, valid until the step after next).
func (c *Cloth) Surface() *narrow.Shape { return c.cur }

// Stats returns the last step's measurements.
func (c *Cloth) Stats() Stats { return c.stats }

// Steps returns the number of steps done.
func (c *Cloth) Steps() int { return c.steps }

// Step advances the cloth by one step of Config.Dt.
func (c *Cloth) Step() error {
	cfg := &c.cfg
	h := cfg.Dt / float64(cfg.Substeps)
	c.stats = Stats{}
	for range cfg.Substeps {
		c.start = append(c.start[:0], c.x...) // for the crossings
		for i := range c.x {
			c.v[i] = c.v[i].Add(cfg.Gravity.Mul(h)).Mul(1 - cfg.Damping)
			c.p[i] = c.x[i].Add(c.v[i].Mul(h))
		}
		for range cfg.Iterations {
			c.project()
			c.collideObstacles()
		}
		if cfg.SelfCollision {
			if err := c.selfCollide(); err != nil {
				return err
			}
			if cfg.Sweep {
				if err := c.sweep(); err != nil {
					return err
				}
			}
			c.collideObstacles()
		}
		for i := range c.x {
			c.v[i] = c.p[i].Sub(c.x[i]).Mul(1 / h)
			c.x[i] = c.p[i]
		}
		if err := c.refresh(); err != nil {
			return err
		}
		if cfg.Measure {
			c.crossings(c.start)
		}
	}
	c.obstacleDepth()
	c.steps++
	return nil
}

// project moves the predicted positions towards every distance
// constraint's rest length, in a fixed order.
func (c *Cloth) project() {
	for _, k := range c.cons {
		a, b := &c.p[k.i], &c.p[k.j]
		d := b.Sub(*a)
		l := d.Len()
		if !(l > 0) {
			continue
		}
		corr := d.Mul(0.5 * (l - k.rest) / l)
		*a = a.Add(corr)
		*b = b.Sub(corr)
	}
}

// collideObstacles moves every predicted position that lies inside an
// obstacle, or closer to its surface than the thickness, out to that
// distance along the way to the nearest surface point.
func (c *Cloth) collideObstacles() {
	th := c.cfg.Thickness
	for _, o := range c.obstacles {
		for i := range c.p {
			local := o.inv.Apply(c.p[i])
			if !o.near.Contains(local) {
				continue
			}
			q, dist, prim, inside := o.shape.Nearest(local)
			if prim < 0 || !inside && dist >= th {
				continue
			}
			var out [3]float64 // unit, from the surface outwards
			switch {
			case dist > 0 && inside:
				out = [3]float64{(q[0] - local[0]) / dist, (q[1] - local[1]) / dist, (q[2] - local[2]) / dist}
			case dist > 0:
				out = [3]float64{(local[0] - q[0]) / dist, (local[1] - q[1]) / dist, (local[2] - q[2]) / dist}
			default:
				out = o.shape.FaceNormal(int(prim))
			}
			p := mgl64.Vec3(o.tr.Apply([3]float64{q[0] + th*out[0], q[1] + th*out[1], q[2] + th*out[2]}))
			// Friction: cancel part of the sliding along the surface
			// since the substep's start.
			n := mgl64.Vec3(o.tr.ApplyDir(out))
			d := p.Sub(c.x[i])
			slide := d.Sub(n.Mul(d.Dot(n)))
			c.p[i] = p.Sub(slide.Mul(c.cfg.Friction))
		}
	}
}

// selfPasses is the most passes of selfCollide a substep: a correction can
// move a particle into another triangle's way, which the next pass sees.
const selfPasses = 3

// selfCollide runs Algorithm 1 on the surface at the predicted positions,
// each particle's ray along its motion this substep and against it
// (narrow.Shape.AppendSelfHits), and corrects what it finds: a particle
// whose opposite ray meets another part of the cloth within its motion
// went through it (the paper's penetrating case) and goes back to the
// side it came from, a thickness short (at most back to where it
// started); one whose forward ray meets a
// part closer than the thickness backs off to that distance. It repeats
// while a pass corrects a crossing, at most selfPasses times.
func (c *Cloth) selfCollide() error {
	th := c.cfg.Thickness
	for range selfPasses {
		for i := range c.x {
			c.motion[i] = c.p[i].Sub(c.x[i])
		}
		dst := &c.surf[c.k]
		if err := c.rest.DeformInto(dst, c.p); err != nil {
			return fmt.Errorf("cloth: step %d: %w", c.steps, err)
		}
		c.hits = dst.AppendSelfHits(c.hits[:0], c.motion, th)
		c.stats.SelfHits += len(c.hits)
		crossed := false
		last := int32(-1)
		for _, hit := range c.hits {
			i := hit.Vertex
			m := c.motion[i]
			l := m.Len()
			d := m.Mul(1 / l)
			switch {
			case hit.Behind && hit.T <= l && i != last:
				// Back through the triangle, a thickness short of it,
				// but not past where the substep started.
				c.p[i] = c.p[i].Sub(d.Mul(math.Min(hit.T+th, l)))
				crossed, last = true, i
				c.stats.Stopped++
			case !hit.Behind && hit.T < th:
				c.p[i] = c.p[i].Sub(d.Mul(th - hit.T))
				last = i
				c.stats.Stopped++
			}
		}
		if !crossed {
			break
		}
	}
	return nil
}

// sweep finds, by exact continuous tests (crossed), the particles that
// would go through another part of the cloth during the substep, from x
// to p, every vertex moving in a straight line, and puts each back on the
// side of the triangle it started on, as far from the triangle's plane
// where the triangle ends the substep as it started from the plane where
// it began (at least a quarter thickness, at most a thickness). The candidates of a particle
// are the triangles of the surface at p whose boxes meet the box of its
// path grown by the longest motion of any particle (a triangle's box over
// the substep lies within that distance of its box at p). It repeats
// while a pass moves a particle, at most selfPasses times.
func (c *Cloth) sweep() error {
	th := c.cfg.Thickness
	for range selfPasses {
		dst := &c.surf[c.k]
		if err := c.rest.DeformInto(dst, c.p); err != nil {
			return fmt.Errorf("cloth: step %d: %w", c.steps, err)
		}
		reach := 0.0
		for i := range c.p {
			reach = math.Max(reach, c.p[i].Sub(c.x[i]).Len())
		}
		moved := false
		for v := range c.p {
			a := c.x[v]
			lo, hi := sweptBox(a, c.p[v])
			c.near = dst.AppendPrimsInBox(c.near[:0], narrow.AABB{Min: lo, Max: hi}.Grow(reach))
			for _, t := range c.near {
				tri := dst.Prim(int(t))
				if tri[0] == int32(v) || tri[1] == int32(v) || tri[2] == int32(v) {
					continue
				}
				t0 := [3]mgl64.Vec3{c.x[tri[0]], c.x[tri[1]], c.x[tri[2]]}
				t1 := [3]mgl64.Vec3{c.p[tri[0]], c.p[tri[1]], c.p[tri[2]]}
				if !crossed(a, c.p[v], t0, t1) {
					continue
				}
				// Back to the side it started on (by the triangle's normal
				// then: the same winding as at the end), as far from the
				// plane as it started, a quarter thickness to a thickness:
				// no closer, so that it does not cross again at once, and
				// no farther, so that the correction is inelastic along
				// the normal rather than a kick.
				n0 := t0[1].Sub(t0[0]).Cross(t0[2].Sub(t0[0]))
				d0 := a.Sub(t0[0]).Dot(n0) / n0.Len()
				target := math.Copysign(math.Min(math.Max(math.Abs(d0), th/4), th), d0)
				n := mgl64.Vec3(dst.FaceNormal(int(t)))
				c.p[v] = c.p[v].Add(n.Mul(target - c.p[v].Sub(t1[0]).Dot(n)))
				c.stats.Swept++
				moved = true
				break
			}
		}
		if !moved {
			break
		}
	}
	return nil
}

// refresh makes the surface follow the positions: DeformInto the shape not
// in use, the two taking turns.
func (c *Cloth) refresh() error {
	dst := &c.surf[c.k]
	if err := c.rest.DeformInto(dst, c.x); err != nil {
		return fmt.Errorf("cloth: step %d: %w", c.steps, err)
	}
	c.cur, c.k = dst, c.k^1
	return nil
}

// crossings counts the particles that went through another part of the
// cloth between start and now, both moving: a particle and a triangle not
// its own cross when, with every vertex moving in a straight line over
// the substep, the particle meets the triangle's plane inside the
// triangle (crossTime). It also records the deepest of them past the
// triangle's plane at the substep's end. It tests every pair whose swept
// boxes meet: a measure, not part of the method.
func (c *Cloth) crossings(start []mgl64.Vec3) {
	s := c.cur
	c.boxes = c.boxes[:0]
	for t := range s.NumPrims() {
		tri := s.Prim(t)
		lo, hi := sweptBox(start[tri[0]], c.x[tri[0]])
		for _, k := range tri[1:] {
			l, h := sweptBox(start[k], c.x[k])
			for i := range 3 {
				lo[i], hi[i] = math.Min(lo[i], l[i]), math.Max(hi[i], h[i])
			}
		}
		c.boxes = append(c.boxes, narrow.AABB{Min: lo, Max: hi})
	}
	for v := range c.x {
		a, b := start[v], c.x[v]
		lo, hi := sweptBox(a, b)
		for t, box := range c.boxes {
			if lo[0] > box.Max[0] || hi[0] < box.Min[0] || lo[1] > box.Max[1] || hi[1] < box.Min[1] || lo[2] > box.Max[2] || hi[2] < box.Min[2] {
				continue
			}
			tri := s.Prim(t)
			if tri[0] == int32(v) || tri[1] == int32(v) || tri[2] == int32(v) {
				continue
			}
			if !crossed(a, b, [3]mgl64.Vec3{start[tri[0]], start[tri[1]], start[tri[2]]}, [3]mgl64.Vec3{c.x[tri[0]], c.x[tri[1]], c.x[tri[2]]}) {
				continue
			}
			c.stats.Crossings++
			c.stats.Penetration = math.Max(c.stats.Penetration, math.Abs(b.Sub(c.x[tri[0]]).Dot(s.FaceNormal(t))))
			break
		}
	}
}

// sweptBox returns the box of the segment from a to b.
func sweptBox(a, b mgl64.Vec3) (lo, hi mgl64.Vec3) {
	for i := range 3 {
		lo[i], hi[i] = math.Min(a[i], b[i]), math.Max(a[i], b[i])
	}
	return lo, hi
}

// crossed reports whether a point moving from a to b meets the triangle
// moving from t0 to t1 (each vertex in a straight line, all in the same
// time) inside the triangle: the roots in [0, 1] of the cubic
// f(τ) = (x − p0)·((p1 − p0) × (p2 − p0)), whose sign is the point's side
// of the triangle's plane, found by bisection on the intervals where f is
// monotone, and the point tested inside the triangle at each.
func crossed(a, b mgl64.Vec3, t0, t1 [3]mgl64.Vec3) bool {
	q0, dq := a.Sub(t0[0]), b.Sub(t1[0]).Sub(a.Sub(t0[0]))
	e10, e20 := t0[1].Sub(t0[0]), t0[2].Sub(t0[0])
	de1, de2 := t1[1].Sub(t1[0]).Sub(e10), t1[2].Sub(t1[0]).Sub(e20)
	n0, n1, n2 := e10.Cross(e20), e10.Cross(de2).Add(de1.Cross(e20)), de1.Cross(de2)
	c3, c2, c1, c0 := dq.Dot(n2), q0.Dot(n2)+dq.Dot(n1), q0.Dot(n1)+dq.Dot(n0), q0.Dot(n0)
	f := func(t float64) float64 { return ((c3*t+c2)*t+c1)*t + c0 }
	// The breakpoints: 0, the roots of f' in (0, 1), 1.
	knots := [4]float64{0}
	nk := 1
	if qa, qb, qc := 3*c3, 2*c2, c1; qa != 0 {
		if disc := qb*qb - 4*qa*qc; disc > 0 {
			r := math.Sqrt(disc)
			x1, x2 := (-qb-r)/(2*qa), (-qb+r)/(2*qa)
			if x1 > x2 {
				x1, x2 = x2, x1
			}
			for _, x := range []float64{x1, x2} {
				if x > 0 && x < 1 {
					knots[nk] = x
					nk++
				}
			}
		}
	} else if qb != 0 {
		if x := -qc / qb; x > 0 && x < 1 {
			knots[nk] = x
			nk++
		}
	}
	knots[nk] = 1
	nk++
	for k := 0; k+1 < nk; k++ {
		lo, hi := knots[k], knots[k+1]
		flo, fhi := f(lo), f(hi)
		if flo*fhi > 0 || flo == 0 && fhi == 0 {
			continue
		}
		for range 60 {
			mid := 0.5 * (lo + hi)
			if fm := f(mid); fm*flo > 0 {
				lo, flo = mid, fm
			} else {
				hi = mid
			}
		}
		t := 0.5 * (lo + hi)
		lerp := func(p, q mgl64.Vec3) mgl64.Vec3 { return p.Add(q.Sub(p).Mul(t)) }
		x, p0, p1, p2 := lerp(a, b), lerp(t0[0], t1[0]), lerp(t0[1], t1[1]), lerp(t0[2], t1[2])
		if n := p1.Sub(p0).Cross(p2.Sub(p0)); n.Len() > 0 && inTriangle(x, p0, p1, p2, n) {
			return true
		}
	}
	return false
}

// obstacleDepth records how deep any particle lies in an obstacle.
func (c *Cloth) obstacleDepth() {
	for _, o := range c.obstacles {
		for _, p := range c.x {
			local := o.inv.Apply(p)
			if !o.near.Contains(local) {
				continue
			}
			_, dist, prim, inside := o.shape.Nearest(local)
			if prim >= 0 && inside {
				c.stats.ObstacleDepth = math.Max(c.stats.ObstacleDepth, dist)
			}
		}
	}
}

// inTriangle reports whether x, on the plane of triangle (a, b, c) of
// normal n, lies in the triangle.
func inTriangle(x, a, b, c, n mgl64.Vec3) bool {
	return b.Sub(a).Cross(x.Sub(a)).Dot(n) >= 0 && c.Sub(b).Cross(x.Sub(b)).Dot(n) >= 0 && a.Sub(c).Cross(x.Sub(c)).Dot(n) >= 0
}

// NewCapsuleScene returns the paper's §6.6 scene as this package builds
// it: the cloth of cfg, level, its corner at (−3.8, 1, −3.8) (a 20 × 20
// cloth 0.4 apart is centred on the origin), falls on a capsule of radius
// 0.4 lying along z (4 m between its hemispheres' centres) at height 0.5,
// over a floor whose top is at y = −3, where the hanging parts fold onto
// themselves.
func NewCapsuleScene(cfg Config) (*Cloth, error) {
	capsule, err := narrow.NewCapsule(0.4, 2, 32)
	if err != nil {
		return nil, err
	}
	floor, err := narrow.NewBox(mgl64.Vec3{-10, -4, -10}, mgl64.Vec3{10, -3, 10})
	if err != nil {
		return nil, err
	}
	lying := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
	half := float64(cfg.Nodes-1) * cfg.Spacing / 2 // centred over the capsule's middle
	return New(cfg, narrow.Pose{Pos: mgl64.Vec3{-half, 1, -half}, Rot: mgl64.QuatIdent()},
		Obstacle{Shape: capsule, Pose: narrow.Pose{Pos: mgl64.Vec3{0, 0.5, 0}, Rot: lying}},
		Obstacle{Shape: floor, Pose: narrow.Identity})
}
