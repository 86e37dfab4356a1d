package rigid_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// emptyWorld returns a world with the default configuration and
// workers backend workers, changed by change (if not nil), closed at the
// end of the test.
func emptyWorld(t testing.TB, workers int, change func(*rigid.Config)) *rigid.World {
	t.Helper()
	cfg := rigid.DefaultConfig()
	cfg.Workers = workers
	if change != nil {
		change(&cfg)
	}
	w, err := rigid.NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

// newWorld returns a world with the default configuration (one worker
// unless cfg says otherwise) and a static ground box whose top is y = 0.
func newWorld(t testing.TB, change func(*rigid.Config)) (*rigid.World, rigid.BodyID) {
	t.Helper()
	w := emptyWorld(t, 1, change)
	ground, err := narrow.NewBox(mgl64.Vec3{-50, -1, -50}, mgl64.Vec3{50, 0, 50})
	if err != nil {
		t.Fatal(err)
	}
	def := rigid.NewBodyDef(ground, narrow.Identity)
	def.Static = true
	def.Name = "ground"
	g, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	return w, g
}

// addBody adds def to w and returns its ID, failing the test on error.
func addBody(t testing.TB, w *rigid.World, def rigid.BodyDef) rigid.BodyID {
	t.Helper()
	id, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// box returns a box shape of half extents h centred on its origin.
func box(t testing.TB, h mgl64.Vec3) *narrow.Shape {
	t.Helper()
	s, err := narrow.NewBox(h.Mul(-1), h)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mesh loads testdata/name.obj.
func mesh(t testing.TB, name string) *narrow.Shape {
	t.Helper()
	s, err := narrow.LoadOBJ("../../testdata/" + name + ".obj")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func at(x, y, z float64) narrow.Pose {
	return narrow.Pose{Pos: mgl64.Vec3{x, y, z}, Rot: mgl64.QuatIdent()}
}

func run(t testing.TB, w *rigid.World, steps int) {
	t.Helper()
	for i := 0; i < steps; i++ {
		if err := w.Step(context.Background()); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
}

func TestBoxRestsOnGround(t *testing.T) {
	w, _ := newWorld(t, nil)
	id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(0.3, 0.8, -0.2)))
	if err != nil {
		t.Fatal(err)
	}
	slept, timed := -1, 0
	for i := 0; i < 300; i++ {
		run(t, w, 1)
		if slept < 0 && w.Body(id).Sleeping() {
			slept = i
		}
		// The narrow phase's ray work (the CPU backend times it) is part
		// of the narrow phase.
		if st := w.Stats(); st.Rays < 0 || st.Rays > st.Narrow {
			t.Fatalf("step %d: ray work %v, narrow phase %v", i, st.Rays, st.Narrow)
		} else if st.Rays > 0 {
			timed++
		}
	}
	if timed == 0 {
		t.Error("no step timed its ray work")
	}
	b := w.Body(id)
	y := b.CenterOfMass()[1]
	t.Logf("height %.5f, slept at step %d, v %v, w %v, stats %+v", y, slept, b.LinearVelocity(), b.AngularVelocity(), w.Stats())
	if math.Abs(y-0.5) > 0.006 {
		t.Errorf("box centre at %.5f, want 0.5 ± 0.006", y)
	}
	if !b.Sleeping() {
		t.Errorf("box is not asleep after 5 s")
	}
}

func TestSpinningBoxSettles(t *testing.T) {
	w, _ := newWorld(t, nil)
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.25, 0.4}), at(0, 1.5, 0))
	def.AngularVelocity = mgl64.Vec3{3, 5, -2}
	def.LinearVelocity = mgl64.Vec3{1, 0, 0.5}
	id, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	slept := -1
	for i := 0; i < 600 && slept < 0; i++ {
		run(t, w, 1)
		if w.Body(id).Sleeping() {
			slept = i
		}
	}
	b := w.Body(id)
	y := b.CenterOfMass()[1]
	t.Logf("slept at step %d, height %.5f, pose %v", slept, y, b.Pose())
	if slept < 0 {
		t.Fatalf("spinning box still awake after 10 s: v %v, w %v", b.LinearVelocity(), b.AngularVelocity())
	}
	// It rests on one of its faces: its centre is one half extent up.
	best := math.Inf(1)
	for _, h := range []float64{0.5, 0.25, 0.4} {
		best = math.Min(best, math.Abs(y-h))
	}
	if best > 0.006 {
		t.Errorf("box centre at %.5f, want a half extent (0.25, 0.4, 0.5) ± 0.006", y)
	}
}

func TestBoxStack(t *testing.T) {
	// Two equal boxes put every resting corner exactly on the lower box's
	// vertical edges, where its ray enters that box at t = 0 (the narrow
	// phase must see the exit through the top face). Narrowing boxes put
	// the corners inside the lower box's top face. A taller stack of
	// equal boxes, every other one set off diagonally by 2 mm, keeps only
	// two corners (one of each box) over the other box: the crossings of
	// the boxes' edges hold it up, and without edge-on-edge contacts
	// (narrow.Params.EdgeAngle) it topples (the control case).
	for _, tc := range []struct {
		name    string
		n       int
		shrink  float64 // half extent lost per level
		drift   float64 // every other box set off by this in x and z
		edges   float64 // narrow.Params.EdgeAngle
		faces   bool    // narrow.Params.EdgeFaces
		topples bool
	}{
		{"equal", 2, 0, 0, 0, false, false},
		{"narrowing", 5, 0.05, 0, 0, false, false},
		{"equal-drifted-edges", 6, 0, 0.002, math.Pi / 3, false, false},
		{"equal-drifted-edge-faces", 6, 0, 0.002, math.Pi / 3, true, false},
		{"equal-drifted-no-edges", 6, 0, 0.002, 0, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newWorld(t, func(c *rigid.Config) { c.Params.EdgeAngle, c.Params.EdgeFaces = tc.edges, tc.faces })
			var ids []rigid.BodyID
			y := 0.0
			for i := 0; i < tc.n; i++ {
				h := 0.5 - tc.shrink*float64(i)
				off := tc.drift * float64(i%2)
				id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{h, 0.5, h}), at(off, y+0.5, off)))
				if err != nil {
					t.Fatal(err)
				}
				y += 1
				ids = append(ids, id)
			}
			run(t, w, 300)
			top := w.Body(ids[tc.n-1])
			t.Logf("top %v, sleeping %v", top.CenterOfMass(), top.Sleeping())
			if tc.topples {
				if h := top.CenterOfMass()[1]; h > float64(tc.n)-1 {
					t.Errorf("top box at height %.3f: the stack stands without edge contacts", h)
				}
				return
			}
			for i, id := range ids {
				c := w.Body(id).CenterOfMass()
				want := 0.5 + float64(i)
				if math.Abs(c[1]-want) > 0.005*float64(i+2) || math.Hypot(c[0], c[2]) > 0.01+tc.drift*math.Sqrt2 {
					t.Errorf("box %d at %v, want (0, %.3f, 0)", i, c, want)
				}
			}
			if !top.Sleeping() {
				t.Errorf("stack still awake after 5 s")
			}
		})
	}
}

// incline adds a static slab tilted by angle (radians) about z and a box
// resting on it, and returns the box's ID and the slope's downhill
// direction.
func incline(t *testing.T, angle, mu float64) (*rigid.World, rigid.BodyID, mgl64.Vec3) {
	w, _ := newWorld(t, nil)
	q := mgl64.QuatRotate(angle, mgl64.Vec3{0, 0, 1})
	slab := rigid.NewBodyDef(box(t, mgl64.Vec3{5, 0.25, 2}), narrow.Pose{Pos: mgl64.Vec3{0, 4, 0}, Rot: q})
	slab.Static = true
	slab.Friction = mu
	if _, err := w.AddBody(slab); err != nil {
		t.Fatal(err)
	}
	up := q.Rotate(mgl64.Vec3{0, 1, 0})
	pos := mgl64.Vec3{0, 4, 0}.Add(up.Mul(0.25 + 0.25))
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{0.25, 0.25, 0.25}), narrow.Pose{Pos: pos, Rot: q})
	def.Friction = mu
	id, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	down := q.Rotate(mgl64.Vec3{-1, 0, 0})
	return w, id, down
}

func TestFrictionIncline(t *testing.T) {
	const mu = 0.5 // atan(0.5) = 26.6°
	for _, c := range []struct {
		deg   float64
		slide bool
	}{{15, false}, {22, false}, {31, true}, {40, true}} {
		w, id, down := incline(t, c.deg*math.Pi/180, mu)
		p0 := w.Body(id).CenterOfMass()
		run(t, w, 120)
		moved := w.Body(id).CenterOfMass().Sub(p0).Dot(down)
		t.Logf("%v°: moved %.4f m downhill in 2 s", c.deg, moved)
		if c.slide && moved < 0.5 {
			t.Errorf("%v° > atan(%v): box moved %.4f m, want it to slide", c.deg, mu, moved)
		}
		if !c.slide && math.Abs(moved) > 0.02 {
			t.Errorf("%v° < atan(%v): box moved %.4f m, want it to stay", c.deg, mu, moved)
		}
	}
}

func TestRestitution(t *testing.T) {
	const e, h0 = 0.6, 1.0
	peak := bounce(t, nil, e, h0)
	t.Logf("bounce height %.4f, want about e²·h = %.4f", peak, e*e*h0)
	if math.Abs(peak-e*e*h0) > 0.1*e*e*h0 {
		t.Errorf("bounce height %.4f, want %.4f ± 10%%", peak, e*e*h0)
	}
}

// bounce drops a box of side 0.5 with restitution e from height h0 onto
// the ground, in a world changed by change, and returns the height of its
// lowest face at the top of its first bounce.
func bounce(t *testing.T, change func(*rigid.Config), e, h0 float64) float64 {
	t.Helper()
	w, _ := newWorld(t, change)
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{0.25, 0.25, 0.25}), at(0, 0.25+h0, 0))
	def.Restitution = e
	id, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	// Fall, bounce, and record the highest point after the first bounce.
	bounced, peak := false, 0.0
	for i := 0; i < 150; i++ {
		run(t, w, 1)
		b := w.Body(id)
		if b.LinearVelocity()[1] > 0 {
			bounced = true
		}
		if bounced {
			peak = math.Max(peak, b.CenterOfMass()[1]-0.25)
			if b.LinearVelocity()[1] < 0 && b.CenterOfMass()[1] < peak+0.25-0.01 {
				break
			}
		}
	}
	return peak
}

// pile drops a 3×3×2 grid of bunnies (and boxes) onto the ground.
func pile(t testing.TB, change func(*rigid.Config)) *rigid.World {
	t.Helper()
	w, _ := newWorld(t, change)
	bunny := mesh(t, "bunny")
	cube := box(t, mgl64.Vec3{0.4, 0.4, 0.4})
	for i := 0; i < 18; i++ {
		s := bunny
		if i%3 == 1 {
			s = cube
		}
		q := mgl64.QuatRotate(float64(i)*0.7, mgl64.Vec3{1, float64(i % 2), 0.5}.Normalize())
		pos := mgl64.Vec3{float64(i%3)*2.4 - 2.4, 1.5 + float64(i/9)*2.4, float64((i/3)%3)*2.4 - 2.4}
		if _, err := w.AddBody(rigid.NewBodyDef(s, narrow.Pose{Pos: pos, Rot: q})); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func TestSteadyStateAllocations(t *testing.T) {
	w := pile(t, func(c *rigid.Config) { c.DisableSleep = true })
	run(t, w, 240) // land and settle; buffers reach their size
	allocs := testing.AllocsPerRun(60, func() {
		if err := w.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.2f allocations per step, %d pairs, %d points", allocs, w.Stats().Pairs, w.Stats().Points)
	if allocs > 0.5 {
		t.Errorf("%.2f allocations per steady-state step, want none", allocs)
	}
}

func TestWakeIsland(t *testing.T) {
	w, _ := newWorld(t, nil)
	lower, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{1, 0.5, 1}), at(0, 0.5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	upper, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.8, 0.5, 0.8}), at(0, 1.5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	aside, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(5, 0.5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	run(t, w, 120)
	for _, id := range []rigid.BodyID{lower, upper, aside} {
		if !w.Body(id).Sleeping() {
			t.Fatalf("body %d awake after 2 s at rest", id)
		}
	}
	if w.Stats().Pairs != 0 {
		t.Errorf("%d narrow-phase pairs while everything sleeps, want 0", w.Stats().Pairs)
	}
	// A box dropped on the upper one wakes the stack (one island), not
	// the box aside.
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{0.3, 0.3, 0.3}), at(0.2, 3, 0.1))
	def.LinearVelocity = mgl64.Vec3{0, -3, 0}
	drop, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	woken := false
	for i := 0; i < 60 && !woken; i++ {
		run(t, w, 1)
		woken = !w.Body(lower).Sleeping() && !w.Body(upper).Sleeping()
		if !w.Body(lower).Sleeping() != !w.Body(upper).Sleeping() {
			t.Fatalf("step %d: only one box of the sleeping stack woke", i)
		}
	}
	if !woken {
		t.Fatalf("the falling box did not wake the stack")
	}
	if !w.Body(aside).Sleeping() {
		t.Errorf("the box aside woke")
	}
	run(t, w, 180)
	for _, id := range []rigid.BodyID{lower, upper, drop} {
		b := w.Body(id)
		if !b.Sleeping() {
			t.Errorf("body %d awake 3 s after the impact", id)
		}
	}
	if y := w.Body(upper).CenterOfMass()[1]; math.Abs(y-1.5) > 0.015 {
		t.Errorf("upper box at height %.4f after the impact, want 1.5", y)
	}
}

// TestOffCentreShape drops a box whose local origin is a corner: the world
// integrates the centre of mass and keeps the pose (the shape's origin)
// consistent with it.
func TestOffCentreShape(t *testing.T) {
	w, _ := newWorld(t, nil)
	s, err := narrow.NewBox(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0.6, 0.8})
	if err != nil {
		t.Fatal(err)
	}
	def := rigid.NewBodyDef(s, narrow.Pose{Pos: mgl64.Vec3{2, 1.5, -1}, Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 0, 1}.Normalize())})
	def.AngularVelocity = mgl64.Vec3{0, 2, 0}
	id, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	b := w.Body(id)
	if c := b.LocalCenterOfMass(); c.Sub(mgl64.Vec3{0.5, 0.3, 0.4}).Len() > 1e-12 {
		t.Fatalf("local centre of mass %v, want (0.5, 0.3, 0.4)", c)
	}
	run(t, w, 240)
	p := b.Pose()
	if d := p.Pos.Add(p.Rot.Rotate(b.LocalCenterOfMass())).Sub(b.CenterOfMass()).Len(); d > 1e-12 {
		t.Errorf("pose and centre of mass disagree by %g", d)
	}
	y := b.CenterOfMass()[1]
	best := math.Inf(1)
	for _, h := range []float64{0.5, 0.3, 0.4} {
		best = math.Min(best, math.Abs(y-h))
	}
	if best > 0.006 || !b.Sleeping() {
		t.Errorf("centre of mass at height %.4f (asleep %v), want a half extent (0.3, 0.4, 0.5) and asleep", y, b.Sleeping())
	}
}

// TestSpeculativeContacts throws a box at the ground at 2.5 m/s (without
// gravity, so that it meets the ground 2/3 of a step after a step 1.3 cm
// above it): with speculative contacts (narrow.Params.Speculative) it stops
// at the surface; without them it sinks in by 2.8 cm before being pushed
// out. Both come to rest at the same height.
func TestSpeculativeContacts(t *testing.T) {
	for _, tc := range []struct {
		spec               bool
		minDepth, maxDepth float64 // bounds on the deepest contact of the run
	}{
		{spec: false, minDepth: 0.015, maxDepth: 0.05},
		{spec: true, minDepth: 0, maxDepth: 0.002},
	} {
		w, _ := newWorld(t, func(c *rigid.Config) {
			c.Params.Speculative = tc.spec
			c.Gravity = mgl64.Vec3{}
		})
		def := rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(0, 0.5+0.43, 0))
		def.LinearVelocity = mgl64.Vec3{0, -2.5, 0}
		id, err := w.AddBody(def)
		if err != nil {
			t.Fatal(err)
		}
		deepest, spec := 0.0, 0
		for i := 0; i < 120; i++ {
			if err := w.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
			st := w.Stats()
			deepest = max(deepest, st.DepthMax)
			spec += st.SpeculativePoints
			if st.Detect.Speculative != st.Speculative {
				t.Errorf("step %d: the backend returned %d speculative contacts, the world counted %d", i, st.Detect.Speculative, st.Speculative)
			}
		}
		if deepest < tc.minDepth || deepest > tc.maxDepth {
			t.Errorf("speculative %v: deepest contact %.4f m, want in [%g, %g]", tc.spec, deepest, tc.minDepth, tc.maxDepth)
		}
		if tc.spec != (spec > 0) {
			t.Errorf("speculative %v: %d speculative points went to the solver", tc.spec, spec)
		}
		y := w.Body(id).Pose().Pos[1]
		if math.Abs(y-0.5) > 0.01 {
			t.Errorf("speculative %v: the box rests at y = %.4f, want 0.5 ± 0.01", tc.spec, y)
		}
		t.Logf("speculative %v: deepest contact %.4f m, %d speculative points, rests at y = %.4f", tc.spec, deepest, spec, y)
	}
}

// TestDeepCorrection checks the position correction's rates: a box sunk
// 0.2 m into the ground, without gravity, rises in one step by the share
// of its depth beyond Slop that the rate for its depth asks, within the
// cap on the correction velocity.
func TestDeepCorrection(t *testing.T) {
	const depth, slop = 0.2, 0.005
	for _, c := range []struct {
		name           string
		rate, deepRate float64
		deepAt, maxVel float64
		want           float64 // rise in one step
	}{
		{"default rate, capped", 0.2, 0, 0, 2, 2.0 / 60},
		{"default rate", 0.2, 0, 0, 100, 0.2 * (depth - slop)},
		{"deep rate", 0.2, 0.8, 0.05, 100, 0.8 * (depth - slop)},
		{"deep rate, shallower than its threshold", 0.2, 0.8, 0.5, 100, 0.2 * (depth - slop)},
		{"deep rate, capped", 0.2, 0.8, 0.05, 2, 2.0 / 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			w, _ := newWorld(t, func(cfg *rigid.Config) {
				cfg.Gravity = mgl64.Vec3{}
				cfg.Slop = slop
				cfg.CorrectionRate, cfg.DeepCorrectionRate = c.rate, c.deepRate
				cfg.DeepPenetration, cfg.MaxCorrectionVelocity = c.deepAt, c.maxVel
			})
			y0 := 0.5 - depth
			id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(0, y0, 0)))
			if err != nil {
				t.Fatal(err)
			}
			run(t, w, 1)
			rise := w.Body(id).CenterOfMass()[1] - y0
			if math.Abs(rise-c.want) > 0.1*c.want {
				t.Errorf("rose %.4f m in one step, want %.4f ± 10 %%", rise, c.want)
			}
		})
	}
}

// TestCrossedBars drops a bar, turned edge down, across a static bar
// turned edge up: the bars meet edge on edge, with no vertex of either
// inside the other (their ends stick out). With edge-on-edge contacts
// (narrow.Params.EdgeAngle) the dropped bar stays on top of the static
// one, and so it does with edge-through-face contacts added
// (narrow.Params.EdgeFaces, without speculative contacts, so that it
// sinks in a little), whose solver points keep their feature and side; with vertex rays alone it falls through it onto the ground (the
// control case).
func TestCrossedBars(t *testing.T) {
	const top = 1.0 // height of the static bar's top edge
	for _, tc := range []struct {
		name   string
		edges  float64
		faces  bool
		stays  bool
		points bool // edge-on-edge solver points seen
	}{
		{"edges", math.Pi / 3, false, true, true},
		{"edge-faces", math.Pi / 3, true, true, true},
		{"no-edges", 0, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newWorld(t, func(c *rigid.Config) {
				c.Params.EdgeAngle, c.Params.EdgeFaces = tc.edges, tc.faces
				// Without speculative contacts the bars sink in a little
				// before their contacts hold them: edges then pass
				// through faces.
				c.Params.Speculative = c.Params.Speculative && !tc.faces
			})
			r := 0.1 * math.Sqrt2 // a bar's half diagonal
			low := rigid.NewBodyDef(box(t, mgl64.Vec3{1, 0.1, 0.1}), narrow.Pose{Pos: mgl64.Vec3{0, top - r, 0}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})})
			low.Static = true
			if _, err := w.AddBody(low); err != nil {
				t.Fatal(err)
			}
			id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.1, 0.1, 1}), narrow.Pose{Pos: mgl64.Vec3{0, top + r + 0.2, 0}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 0, 1})}))
			if err != nil {
				t.Fatal(err)
			}
			var pts []rigid.ContactPoint
			edgePoints := 0
			var facePoints [2]int // by From
			for i := 0; i < 180; i++ {
				run(t, w, 1)
				pts = w.ContactPoints(pts[:0])
				for _, p := range pts {
					switch p.Feature {
					case narrow.FeatureEdge:
						edgePoints++
					case narrow.FeatureEdgeFace:
						facePoints[p.From]++
					}
				}
			}
			if got := facePoints[0] > 0 && facePoints[1] > 0; got != tc.faces {
				t.Errorf("edge-through-face solver points from A and B: %v, want some of each %v", facePoints, tc.faces)
			}
			y := w.Body(id).CenterOfMass()[1]
			t.Logf("dropped bar's centre at height %.4f after 3 s; %d edge-on-edge solver points", y, edgePoints)
			if stays := y > top; stays != tc.stays {
				t.Errorf("dropped bar's centre at height %.4f, static bar's top at %v: stays on top %v, want %v", y, top, stays, tc.stays)
			}
			if (edgePoints > 0) != tc.points {
				t.Errorf("%d edge-on-edge solver points", edgePoints)
			}
		})
	}
}

// TestCCD shoots a small box at 30 m/s (0.5 m a step) down at a static
// plate 2 cm thick. With continuous collision detection (Config.CCDMotion)
// the box's motion is cut back at the plate and it stays on top; without,
// it passes through in one step (no vertex is ever inside the plate) and
// lands on the ground below (the control case). With it, a box dropped
// 1 m with restitution 0.6 still bounces to about e²·h.
func TestCCD(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ccd   float64
		stays bool
	}{
		{"ccd", 0.05, true},
		{"none", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := newWorld(t, func(c *rigid.Config) { c.CCDMotion = tc.ccd })
			plate := rigid.NewBodyDef(box(t, mgl64.Vec3{2, 0.01, 2}), at(0, 2, 0))
			plate.Static = true
			if _, err := w.AddBody(plate); err != nil {
				t.Fatal(err)
			}
			id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.1, 0.1, 0.1}), at(0.3, 3, -0.2)))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.SetVelocity(id, mgl64.Vec3{0, -30, 0}, mgl64.Vec3{}); err != nil {
				t.Fatal(err)
			}
			clamped := 0
			for range 120 {
				run(t, w, 1)
				clamped += w.Stats().Clamped
			}
			y := w.Body(id).CenterOfMass()[1]
			t.Logf("box at height %.4f after 2 s, %d cut motions", y, clamped)
			if stays := y > 2; stays != tc.stays {
				t.Errorf("box at height %.4f, plate at 2: stays on it %v, want %v", y, stays, tc.stays)
			}
			if (clamped > 0) != (tc.ccd > 0) {
				t.Errorf("%d cut motions", clamped)
			}
		})
	}
	t.Run("bounce", func(t *testing.T) {
		const e, h0 = 0.6, 1.0
		peak := bounce(t, func(c *rigid.Config) { c.CCDMotion = 0.05 }, e, h0)
		t.Logf("bounce height %.4f (e²·h = %.4f)", peak, e*e*h0)
		if peak < 0.9*e*e*h0 || peak > 1.2*e*e*h0 {
			t.Errorf("bounce height %.4f, want e²·h = %.4f, −10 … +20 %%", peak, e*e*h0)
		}
	})
}

// TestCCDEdges: a bar dropped at 30 m/s across a static bar 0.1 m thick
// (a "+": no vertex of either ever inside the other) passes through it
// with the vertex sweeps of CCDMotion alone, and is stopped on it when
// CCDEdges sweeps the edges too. (Balanced on an edge, it later tips
// over and falls off, as a bar would: the test looks at the impact.)
func TestCCDEdges(t *testing.T) {
	for _, edges := range []bool{false, true} {
		t.Run(fmt.Sprintf("edges=%v", edges), func(t *testing.T) {
			w, _ := newWorld(t, func(c *rigid.Config) { c.CCDMotion, c.CCDEdges = 0.05, edges })
			fixed := rigid.NewBodyDef(box(t, mgl64.Vec3{2, 0.05, 0.05}), at(0, 2, 0))
			fixed.Static = true
			if _, err := w.AddBody(fixed); err != nil {
				t.Fatal(err)
			}
			id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.05, 0.05, 1}), at(0.2, 3, 0)))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.SetVelocity(id, mgl64.Vec3{0, -30, 0}, mgl64.Vec3{}); err != nil {
				t.Fatal(err)
			}
			clamped := 0
			for range 12 {
				run(t, w, 1)
				clamped += w.Stats().Clamped
			}
			y := w.Body(id).CenterOfMass()[1]
			t.Logf("bar at height %.4f after 0.2 s, %d cut motions", y, clamped)
			if clamped == 0 {
				t.Error("no motion was cut")
			}
			if stays := y > 2; stays != edges {
				t.Errorf("bar at height %.4f, the fixed bar at 2: stays on it %v, want %v", y, stays, edges)
			}
		})
	}
}

// TestRemoveBody: a stack of three boxes comes to rest and falls asleep;
// removing the middle box (the only one of its shape) wakes the box above,
// which falls onto the bottom one and rests there; the removed body is in
// no pair and no Instance, its ID fails every setter and is not reused,
// and its shape is released from the narrow phase. Removing the ground
// then wakes the resting boxes, which fall.
func TestRemoveBody(t *testing.T) {
	w, ground := newWorld(t, nil)
	cube, thin := box(t, mgl64.Vec3{0.5, 0.5, 0.5}), box(t, mgl64.Vec3{0.5, 0.25, 0.5})
	var ids [3]rigid.BodyID
	for i, b := range []struct {
		s *narrow.Shape
		y float64
	}{{cube, 0.5}, {thin, 1.25}, {cube, 2}} {
		id, err := w.AddBody(rigid.NewBodyDef(b.s, at(0, b.y, 0)))
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	run(t, w, 240)
	for _, id := range ids {
		if !w.Body(id).Sleeping() {
			t.Fatalf("body %d awake after 4 s: the stack should rest", id)
		}
	}
	shapes, n := w.Batch().Shapes(), w.NumBodies()
	mid, top := ids[1], ids[2]
	if err := w.RemoveBody(mid); err != nil {
		t.Fatal(err)
	}
	if w.Body(mid) != nil || w.NumBodies() != n || w.Batch().Shapes() != shapes-1 {
		t.Errorf("after RemoveBody: Body %v, %d bodies, %d shapes; want nil, %d, %d", w.Body(mid), w.NumBodies(), w.Batch().Shapes(), n, shapes-1)
	}
	if w.Body(top).Sleeping() {
		t.Errorf("the box resting on the removed one is still asleep")
	}
	for name, err := range map[string]error{
		"RemoveBody again": w.RemoveBody(mid),
		"SetPose":          w.SetPose(mid, at(0, 5, 0)),
		"SetVelocity":      w.SetVelocity(mid, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{}),
	} {
		var be *rigid.BodyError
		if !errors.Is(err, rigid.ErrRemovedBody) || !errors.As(err, &be) || be.Body != mid {
			t.Errorf("%s on a removed body: %v, want a *BodyError for body %d wrapping ErrRemovedBody", name, err, mid)
		}
	}
	for _, in := range w.Instances(nil) {
		if in.Body == mid {
			t.Errorf("Instances lists the removed body")
		}
	}
	for i := range 240 {
		run(t, w, 1)
		for _, p := range w.Pairs() {
			if p.A == mid || p.B == mid {
				t.Fatalf("step %d after the removal: pair %d names the removed body", i, p.ID)
			}
		}
	}
	if c := w.Body(top).CenterOfMass(); math.Abs(c[1]-1.5) > 0.02 || math.Hypot(c[0], c[2]) > 0.02 || !w.Body(top).Sleeping() {
		t.Errorf("top box at %v, sleeping %v: want at rest on the bottom box, at (0, 1.5, 0)", c, w.Body(top).Sleeping())
	}
	id, err := w.AddBody(rigid.NewBodyDef(thin, at(5, 0.25, 0)))
	if err != nil || id != rigid.BodyID(n) {
		t.Errorf("AddBody after a removal: ID %d, %v; want %d (IDs are not reused)", id, err, n)
	}

	if err := w.RemoveBody(ground); err != nil {
		t.Fatal(err)
	}
	run(t, w, 60)
	for _, id := range []rigid.BodyID{ids[0], top} {
		if b := w.Body(id); b.Sleeping() || b.CenterOfMass()[1] > -1 {
			t.Errorf("body %d at %v, sleeping %v, a second after the ground was removed: want falling", id, b.CenterOfMass(), b.Sleeping())
		}
	}
}

// TestApplyImpulse: an impulse through the centre of mass changes only
// the linear velocity, by j/m; one off the centre adds the angular
// velocity I⁻¹·(r × j) (a cube: I = m·s²/6 about any axis); an impulse
// wakes a sleeping body, which then moves; static bodies, bad vectors and
// unknown IDs are refused with typed errors.
func TestApplyImpulse(t *testing.T) {
	w, ground := newWorld(t, func(c *rigid.Config) { c.Gravity = mgl64.Vec3{} })
	const side, density = 1.0, 2.0
	def := rigid.NewBodyDef(box(t, mgl64.Vec3{side / 2, side / 2, side / 2}), at(0, 5, 0))
	def.Density = density
	id, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	b := w.Body(id)
	m := density * side * side * side
	if math.Abs(b.Mass()-m) > 1e-9*m {
		t.Fatalf("mass %v, want %v", b.Mass(), m)
	}
	near := func(got, want mgl64.Vec3) bool { return got.Sub(want).Len() <= 1e-9*(1+want.Len()) }

	j := mgl64.Vec3{3, -1, 2}
	if err := w.ApplyImpulse(id, j, b.CenterOfMass()); err != nil {
		t.Fatal(err)
	}
	if v := b.LinearVelocity(); !near(v, j.Mul(1/m)) || b.AngularVelocity().Len() != 0 {
		t.Errorf("impulse %v at the centre: v %v, ω %v; want %v, 0", j, v, b.AngularVelocity(), j.Mul(1/m))
	}
	v0 := b.LinearVelocity()
	if err := w.ApplyImpulse(id, mgl64.Vec3{0, 0, 1}, b.CenterOfMass().Add(mgl64.Vec3{1, 0, 0})); err != nil {
		t.Fatal(err)
	}
	inertia := m * side * side / 6
	if v, om := b.LinearVelocity(), b.AngularVelocity(); !near(v, v0.Add(mgl64.Vec3{0, 0, 1 / m})) || !near(om, mgl64.Vec3{0, -1 / inertia, 0}) {
		t.Errorf("impulse (0, 0, 1) 1 m off the centre along x: v %v, ω %v; want %v, (0, %v, 0)", v, om, v0.Add(mgl64.Vec3{0, 0, 1 / m}), -1/inertia)
	}

	// A body asleep on the ground wakes and moves.
	w2, g2 := newWorld(t, nil)
	rest, err := w2.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(0, 0.5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	run(t, w2, 120)
	rb := w2.Body(rest)
	if !rb.Sleeping() {
		t.Fatal("box on the ground still awake after 2 s")
	}
	y0 := rb.CenterOfMass()[1]
	if err := w2.ApplyImpulse(rest, mgl64.Vec3{0, 5 * rb.Mass(), 0}, rb.CenterOfMass()); err != nil {
		t.Fatal(err)
	}
	if rb.Sleeping() {
		t.Errorf("an impulse left the body asleep")
	}
	run(t, w2, 10)
	if y := rb.CenterOfMass()[1]; y < y0+0.5 {
		t.Errorf("kicked up at 5 m/s, the box rose from %.3f to %.3f in 10 steps", y0, y)
	}

	nan := math.NaN()
	v1, w1 := b.LinearVelocity(), b.AngularVelocity()
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"static", w.ApplyImpulse(ground, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{}), rigid.ErrStatic},
		{"NaN impulse", w.ApplyImpulse(id, mgl64.Vec3{nan, 0, 0}, mgl64.Vec3{}), rigid.ErrBadImpulse},
		{"infinite point", w.ApplyImpulse(id, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, math.Inf(1), 0}), rigid.ErrBadImpulse},
		{"unknown", w.ApplyImpulse(42, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{}), rigid.ErrUnknownBody},
		{"static ground of the second world", w2.ApplyImpulse(g2, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{}), rigid.ErrStatic},
	} {
		var be *rigid.BodyError
		if !errors.Is(c.err, c.want) || !errors.As(c.err, &be) {
			t.Errorf("%s: %v, want a *BodyError wrapping %v", c.name, c.err, c.want)
		}
	}
	if b.LinearVelocity() != v1 || b.AngularVelocity() != w1 {
		t.Errorf("refused impulses changed the body: v %v, ω %v; was %v, %v", b.LinearVelocity(), b.AngularVelocity(), v1, w1)
	}
}

// TestCollisionFilter: a box dropped onto another of the same Group falls
// through it to the ground, where the control (no Group) comes to rest on
// the other box; a pair filter that rules out one box's pair with the
// ground lets that box fall through the ground while the others rest.
// No filtered pair ever reaches the narrow phase, and the filter sees
// every pair as a < b.
func TestCollisionFilter(t *testing.T) {
	for _, group := range []uint32{0, 7} {
		w, _ := newWorld(t, nil)
		cube := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
		lowDef, highDef := rigid.NewBodyDef(cube, at(0, 0.5, 0)), rigid.NewBodyDef(cube, at(0, 2.5, 0))
		lowDef.Group, highDef.Group = group, group
		low, err := w.AddBody(lowDef)
		if err != nil {
			t.Fatal(err)
		}
		high, err := w.AddBody(highDef)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 180 {
			run(t, w, 1)
			for _, p := range w.Pairs() {
				if group != 0 && p.ID == rigid.PairID(low, high) {
					t.Fatalf("group %d, step %d: the two boxes of one group are a pair", group, i)
				}
			}
		}
		want := 1.5 // resting on the low box
		if group != 0 {
			want = 0.5 // through it, on the ground
		}
		if y := w.Body(high).CenterOfMass()[1]; math.Abs(y-want) > 0.02 {
			t.Errorf("group %d: the dropped box rests at height %.3f, want %.1f", group, y, want)
		}
	}

	w, ground := newWorld(t, nil)
	cube := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
	var ids []rigid.BodyID
	for i := range 3 {
		id, err := w.AddBody(rigid.NewBodyDef(cube, at(3*float64(i), 0.6, 0)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	sinker := ids[1]
	unordered := 0
	w.SetPairFilter(func(a, b rigid.BodyID) bool {
		if a >= b {
			unordered++
		}
		return !(a == ground && b == sinker)
	})
	for i := range 60 {
		run(t, w, 1)
		for _, p := range w.Pairs() {
			if p.ID == rigid.PairID(ground, sinker) {
				t.Fatalf("step %d: the filtered pair reached the narrow phase", i)
			}
		}
	}
	if unordered > 0 {
		t.Errorf("the filter saw %d pairs with a ≥ b", unordered)
	}
	for _, id := range ids {
		y := w.Body(id).CenterOfMass()[1]
		if id == sinker && y > -1 || id != sinker && math.Abs(y-0.5) > 0.02 {
			t.Errorf("box %d at height %.3f after 1 s (box %d is filtered out of the ground)", id, y, sinker)
		}
	}
}

// TestKinematic: a kinematic platform driven at constant velocity moves
// exactly by its velocity, whatever rests on it, and carries a box by
// friction; stopped, it lets the box fall asleep, and started again it
// wakes and carries it; it passes through a static wall (kinematic and
// static bodies do not meet) and pushes a box on the ground ahead of it;
// a kinematic turntable turns by ω·t. Kinematic bodies have no energy,
// refuse impulses and cannot be static too.
func TestKinematic(t *testing.T) {
	w, _ := newWorld(t, nil)
	slab := box(t, mgl64.Vec3{1, 0.1, 1})
	pdef := rigid.NewBodyDef(slab, at(0, 1, 0))
	pdef.Kinematic = true
	pdef.LinearVelocity = mgl64.Vec3{0.5, 0, 0}
	platform, err := w.AddBody(pdef)
	if err != nil {
		t.Fatal(err)
	}
	cargo, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.25, 0.25, 0.25}), at(0, 1.35, 0)))
	if err != nil {
		t.Fatal(err)
	}
	wall := rigid.NewBodyDef(box(t, mgl64.Vec3{0.1, 0.25, 2}), at(1.8, 0.8, 0)) // the platform's height, below the cargo
	wall.Static = true
	if _, err := w.AddBody(wall); err != nil {
		t.Fatal(err)
	}
	pushed, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.25, 0.25, 0.25}), at(1.8, 0.25, 4)))
	if err != nil {
		t.Fatal(err)
	}
	pushDef := rigid.NewBodyDef(box(t, mgl64.Vec3{0.1, 0.3, 0.5}), at(0.5, 0.35, 4))
	pushDef.Kinematic = true
	pushDef.LinearVelocity = mgl64.Vec3{0.5, 0, 0}
	pusher, err := w.AddBody(pushDef)
	if err != nil {
		t.Fatal(err)
	}
	p, c := w.Body(platform), w.Body(cargo)
	for i := range 240 { // 4 s: the platform goes 2 m, through the wall
		run(t, w, 1)
		if want := 0.5 * float64(i+1) / 60; math.Abs(p.Pose().Pos[0]-want) > 1e-9 || p.Pose().Pos[1] != 1 || p.LinearVelocity() != (mgl64.Vec3{0.5, 0, 0}) {
			t.Fatalf("step %d: platform at %v, velocity %v; want x = %v, y = 1, velocity (0.5, 0, 0)", i, p.Pose().Pos, p.LinearVelocity(), want)
		}
	}
	if d := c.CenterOfMass().Sub(p.Pose().Pos.Add(mgl64.Vec3{0, 0.35, 0})); d.Len() > 0.03 || c.Sleeping() {
		t.Errorf("cargo %v off its place on the platform (%v), sleeping %v", d, p.Pose().Pos, c.Sleeping())
	}
	if x := w.Body(pushed).CenterOfMass()[0]; x < w.Body(pusher).Pose().Pos[0]+0.3 || x > 3 {
		t.Errorf("pushed box at x = %.3f, pusher at %.3f: want just ahead of it", x, w.Body(pusher).Pose().Pos[0])
	}

	// Stopped, the platform lets the cargo fall asleep; started again, it
	// wakes the cargo and carries it.
	for _, id := range []rigid.BodyID{platform, pusher} {
		if err := w.SetVelocity(id, mgl64.Vec3{}, mgl64.Vec3{}); err != nil {
			t.Fatal(err)
		}
	}
	run(t, w, 120)
	if !c.Sleeping() {
		t.Fatalf("cargo still awake 2 s after the platform stopped")
	}
	x0 := c.CenterOfMass()[0]
	if err := w.SetVelocity(platform, mgl64.Vec3{0, 0, -0.5}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	run(t, w, 60)
	if d := c.CenterOfMass().Sub(mgl64.Vec3{x0, c.CenterOfMass()[1], -0.5}); c.Sleeping() || math.Abs(d[0]) > 0.03 || c.CenterOfMass()[2] > -0.45 {
		t.Errorf("cargo at %v, sleeping %v, a second after the platform set off along −z: want carried to z ≈ -0.5", c.CenterOfMass(), c.Sleeping())
	}

	// Slower than the sleep threshold, the platform still keeps its cargo
	// awake: a body a moving kinematic body touches is never still.
	if err := w.SetVelocity(platform, mgl64.Vec3{0.02, 0, 0}, mgl64.Vec3{}); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		if run(t, w, 1); c.Sleeping() {
			t.Fatalf("step %d: the cargo of a platform moving at 2 cm/s fell asleep", i)
		}
	}

	// A turntable.
	tdef := rigid.NewBodyDef(slab, at(10, 1, 0))
	tdef.Kinematic = true
	tdef.AngularVelocity = mgl64.Vec3{0, 1, 0}
	table, err := w.AddBody(tdef)
	if err != nil {
		t.Fatal(err)
	}
	run(t, w, 60)
	tb := w.Body(table)
	if a := narrow.Angle(mgl64.QuatIdent(), tb.Pose().Rot); math.Abs(a-1) > 1e-3 || tb.CenterOfMass().Sub(mgl64.Vec3{10, 1, 0}).Len() > 1e-9 {
		t.Errorf("turntable turned by %v about %v in 1 s at 1 rad/s, want 1 about (10, 1, 0)", a, tb.CenterOfMass())
	}

	if tb.KineticEnergy() != 0 || !tb.Kinematic() || tb.Awake() {
		t.Errorf("turntable: energy %v, Kinematic %v, Awake %v; want 0, true, false", tb.KineticEnergy(), tb.Kinematic(), tb.Awake())
	}
	var kin int
	for _, in := range w.Instances(nil) {
		if in.Kinematic {
			kin++
		}
	}
	if kin != 3 {
		t.Errorf("%d kinematic instances, want 3", kin)
	}
	if err := w.ApplyImpulse(table, mgl64.Vec3{1, 0, 0}, tb.CenterOfMass()); !errors.Is(err, rigid.ErrKinematic) {
		t.Errorf("impulse on a kinematic body: %v, want ErrKinematic", err)
	}
	both := rigid.NewBodyDef(slab, at(0, 5, 0))
	both.Static, both.Kinematic = true, true
	if _, err := w.AddBody(both); !errors.Is(err, rigid.ErrBadKind) {
		t.Errorf("a static kinematic body: %v, want ErrBadKind", err)
	}
}

// TestCCDTurning spins a bar 2 m long at 120 rad/s (2 rad a step) about
// its centre, in no gravity, beside a post 2 m tall standing 0.85 m from
// the centre, 1 rad round: the bar's arm crosses the post within the
// first step, but its corners' straight paths pass inside the post and
// the post's corners lie far above and below the bar, so the chords of
// both see nothing. With Config.CCDTurns the boxes grow by the turn, the
// turn is cast (narrow.CastMotionWithin), the motion is cut back before
// the post, and the next step's contacts knock the bar away; with
// continuous collision detection alone the bar spins through the post
// untouched.
func TestCCDTurning(t *testing.T) {
	for _, turns := range []bool{true, false} {
		w := emptyWorld(t, 1, func(c *rigid.Config) {
			c.Gravity = mgl64.Vec3{}
			c.CCDMotion, c.CCDTurns = 0.05, turns
		})
		post := rigid.NewBodyDef(box(t, mgl64.Vec3{0.05, 0.05, 1}), at(0.85*math.Cos(1), 0.85*math.Sin(1), 0))
		post.Static = true
		addBody(t, w, post)
		bd := rigid.NewBodyDef(box(t, mgl64.Vec3{1, 0.05, 0.05}), narrow.Identity)
		bd.AngularVelocity = mgl64.Vec3{0, 0, 120}
		bar := addBody(t, w, bd)
		run(t, w, 1)
		q := w.Body(bar).Pose().Rot
		first := 2 * math.Atan2(q.V[2], q.W) // the bar's angle after the first step
		turned := w.Stats().Turned
		run(t, w, 29)
		v, om := w.Body(bar).LinearVelocity(), w.Body(bar).AngularVelocity()
		switch {
		case turns && (turned != 1 || first > 0.9 || v.Len() < 1 || om[2] > 100):
			t.Errorf("with CCDTurns: %d turning casts, the bar at %.3f rad after the first step (the post's face near 0.9), then v %v, ω %v: want it cut before the post and knocked away",
				turned, first, v, om)
		case !turns && (v.Len() != 0 || om[2] != 120):
			t.Errorf("without CCDTurns: v %v, ω %v: want the bar spinning through the post untouched", v, om)
		}
	}
}
