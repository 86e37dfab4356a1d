package rigid

import (
	"slices"

	"github.com/irtcd/irtcd/narrow"
)

// computeAABB updates b's broad-phase box: the shape's local bounds mapped
// by its pose, grown (dynamic bodies only) by MarginFactor × the shape's
// Size plus the distance its speed covers in one step, and with
// Config.CCDTurns by the most its turn moves a point in one step.
func (w *World) computeAABB(b *Body) {
	t := narrow.Transform{R: b.rot, T: b.pose.Pos}
	box := b.shape.Bounds().Transformed(&t)
	if !b.static {
		g := w.cfg.MarginFactor*b.shape.Size() + b.v.Len()*w.cfg.Dt
		if w.cfg.CCDMotion > 0 && w.cfg.CCDTurns {
			// The most the turn moves a point in a step: continuous
			// collision detection sweeps turns (sweepTurn).
			g += min(b.w.Len()*w.cfg.Dt, 2) * b.reach
		}
		box = box.Grow(g)
	}
	b.aabb = box
}

// less orders bodies for the sweep: by the low x of their boxes, then by
// index, a total order, so the sweep's result never depends on the order
// it started from.
func (w *World) less(i, j int32) bool {
	a, b := w.bodies[i].aabb.Min[0], w.bodies[j].aabb.Min[0]
	if a != b {
		return a < b
	}
	return i < j
}

// broadPhase is sweep-and-prune on x: it refreshes the boxes of the bodies
// that move, insertion-sorts the persistent order (nearly sorted from one
// step to the next, so this is close to linear), sweeps it for boxes that
// overlap on all three axes, and fills w.pairs sorted by pair ID. Pairs of
// which neither body is awake and dynamic (static-static, static-sleeping,
// sleeping-sleeping, and kinematic with static, kinematic or, unless the
// kinematic body moves, sleeping) are skipped, and so are those that
// BodyDef.Group or the pair filter (SetPairFilter) rule out. Pairs with a
// sensor go to w.sensorKeys instead (see updateSensors), awake or not:
// a body asleep in a sensor stays in it.
func (w *World) broadPhase() {
	for i := range w.bodies {
		if b := &w.bodies[i]; b.Awake() || b.moving() {
			w.computeAABB(b)
		}
	}
	ord := w.sapOrder
	for i := 1; i < len(ord); i++ {
		x := ord[i]
		j := i
		for ; j > 0 && w.less(x, ord[j-1]); j-- {
			ord[j] = ord[j-1]
		}
		ord[j] = x
	}
	w.keys = w.keys[:0]
	w.sensorKeys = w.sensorKeys[:0]
	for i, bi := range ord {
		a := &w.bodies[bi]
		maxX := a.aabb.Max[0]
		for _, bj := range ord[i+1:] {
			b := &w.bodies[bj]
			if b.aabb.Min[0] > maxX {
				break
			}
			sensor := a.sensor || b.sensor
			switch {
			case sensor && (a.sensor && b.sensor || a.sensor && b.static || b.sensor && a.static):
				continue // a sensor detects dynamic and kinematic bodies only
			case !sensor && !a.Awake() && !b.Awake() && !(a.moving() && b.sleeping) && !(b.moving() && a.sleeping):
				continue
			}
			if b.aabb.Min[1] > a.aabb.Max[1] || a.aabb.Min[1] > b.aabb.Max[1] ||
				b.aabb.Min[2] > a.aabb.Max[2] || a.aabb.Min[2] > b.aabb.Max[2] {
				continue
			}
			if a.group != 0 && a.group == b.group || w.filter != nil && !w.filter(BodyID(min(bi, bj)), BodyID(max(bi, bj))) {
				continue
			}
			if sensor {
				w.sensorKeys = append(w.sensorKeys, PairID(BodyID(bi), BodyID(bj)))
				continue
			}
			w.keys = append(w.keys, PairID(BodyID(bi), BodyID(bj)))
		}
	}
	slices.Sort(w.keys)
	slices.Sort(w.sensorKeys)
	w.pairs = w.pairs[:0]
	for _, k := range w.keys {
		a, b := BodyID(k>>32), BodyID(uint32(k))
		w.pairs = append(w.pairs, Pair{ID: k, A: a, B: b, PoseA: w.bodies[a].pose, PoseB: w.bodies[b].pose})
	}
}
