package rigid

import "math"

// find returns the root of i's island (union-find with path halving).
func (w *World) find(i int32) int32 {
	p := w.parent
	for p[i] != i {
		p[i] = p[p[i]]
		i = p[i]
	}
	return i
}

// updateSleep advances the bodies' still-time, builds islands with
// union-find over the step's contacts between awake dynamic bodies (static
// and kinematic bodies do not link islands), and puts to sleep every island
// whose bodies have all been still for TimeToSleep (a body touched by a
// moving kinematic body is not still). An island's root, and the tag its
// sleeping bodies share, is its lowest body index.
func (w *World) updateSleep() {
	st := &w.stats
	defer func() {
		for i := range w.bodies {
			b := &w.bodies[i]
			b.woken = false
			if b.Awake() {
				st.Awake++
			}
		}
	}()
	if w.cfg.DisableSleep {
		return
	}
	n := len(w.bodies)
	if cap(w.parent) < n {
		w.parent = make([]int32, n, 2*n)
		w.minTime = make([]float64, n, 2*n)
	}
	w.parent, w.minTime = w.parent[:n], w.minTime[:n]
	lin2, ang2 := w.cfg.LinearSleep*w.cfg.LinearSleep, w.cfg.AngularSleep*w.cfg.AngularSleep
	for i := range w.bodies {
		b := &w.bodies[i]
		w.minTime[i] = math.Inf(1)
		if !b.Awake() {
			w.parent[i] = -1
			continue
		}
		w.parent[i] = int32(i)
		if b.v.Dot(b.v) > lin2 || b.w.Dot(b.w) > ang2 {
			b.stillTime = 0
		} else {
			b.stillTime += w.cfg.Dt
		}
	}
	for k := range w.contacts {
		c := &w.contacts[k]
		if c.depth < 0 && c.ln == 0 {
			continue // a speculative point links bodies once it acts
		}
		// A body that a moving kinematic body touches is being moved: it
		// is not still, whatever its speed.
		if a, b := &w.bodies[c.a], &w.bodies[c.b]; a.moving() {
			b.stillTime = 0
		} else if b.moving() {
			a.stillTime = 0
		}
		if w.parent[c.a] < 0 || w.parent[c.b] < 0 {
			continue
		}
		ra, rb := w.find(c.a), w.find(c.b)
		switch {
		case ra < rb:
			w.parent[rb] = ra
		case rb < ra:
			w.parent[ra] = rb
		}
	}
	for i := range w.bodies {
		if w.parent[i] < 0 {
			continue
		}
		r := w.find(int32(i))
		w.minTime[r] = math.Min(w.minTime[r], w.bodies[i].stillTime)
	}
	for i := range w.bodies {
		if w.parent[i] < 0 {
			continue
		}
		r := w.find(int32(i))
		if w.minTime[r] < w.cfg.TimeToSleep {
			continue
		}
		b := &w.bodies[i]
		b.sleeping, b.island = true, r
		b.v, b.w = [3]float64{}, [3]float64{}
		w.computeAABB(b)
		st.Slept++
	}
}
