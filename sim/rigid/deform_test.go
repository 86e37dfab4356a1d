package rigid_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// waves is a heightfield whose heights travel as waves: its shape at
// time t refilled into one of two shapes by DeformInto.
type waves struct {
	base  *narrow.Shape
	n     int
	buf   []mgl64.Vec3
	shape [2]narrow.Shape
	k     int
}

const (
	waveN, waveD, waveBase = 33, 0.5, -3.0 // 16 m × 16 m, a point every 0.5 m
	waveOff                = -8.0          // the terrain's corner: it spans [-8, 8]²
)

func newWaves(t testing.TB) *waves {
	heights := make([][]float64, waveN)
	for i := range heights {
		heights[i] = make([]float64, waveN)
	}
	base, err := narrow.NewHeightfield(heights, waveD, waveD, waveBase)
	if err != nil {
		t.Fatal(err)
	}
	return &waves{base: base, n: waveN, buf: make([]mgl64.Vec3, base.NumVertices())}
}

// height is the surface's height at grid point (i, j) at time t: waves
// 0.3 m high, 10 m long, at 2.4 m/s.
func (wv *waves) height(i, j int, t float64) float64 {
	return 0.3 * math.Sin(0.3*float64(i)-1.5*t) * math.Cos(0.2*float64(j))
}

// fill sets wv.buf to the terrain's vertices at time t.
func (wv *waves) fill(time float64) {
	for v := range wv.buf {
		p := wv.base.Vertex(v)
		if v < wv.n*wv.n { // the surface's points (NewHeightfield's layout)
			p[1] = wv.height(v/wv.n, v%wv.n, time)
		}
		wv.buf[v] = p
	}
}

// at returns the terrain's shape at time t, in the shape DeformInto did
// not fill last.
func (wv *waves) at(t testing.TB, time float64) *narrow.Shape {
	wv.fill(time)
	dst := &wv.shape[wv.k]
	wv.k ^= 1
	if err := wv.base.DeformInto(dst, wv.buf); err != nil {
		t.Fatal(err)
	}
	return dst
}

// rideWaves drops boxes and bunnies on the waves and runs the world for
// steps, the terrain deformed before every step; it returns the poses of
// the bodies at the end and the deepest contact of any step.
func rideWaves(t *testing.T, workers, steps int) ([]narrow.Pose, float64, *rigid.World, *waves, []rigid.BodyID) {
	w := emptyWorld(t, workers, nil)
	wv := newWaves(t)
	def := rigid.NewBodyDef(wv.at(t, 0), at(waveOff, 0, waveOff))
	def.Static, def.Name = true, "waves"
	terrain, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	cube, bunny := box(t, mgl64.Vec3{0.3, 0.3, 0.3}), mesh(t, "bunny")
	var ids []rigid.BodyID
	for k := range 9 {
		x, z := -5+float64(k%3)*5, -5+float64(k/3)*5
		s := cube
		if k%3 == 1 {
			s = bunny
		}
		id, err := w.AddBody(rigid.NewBodyDef(s, at(x, 1, z)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	deepest := 0.0
	var pairs, iterative int
	for step := range steps {
		if err := w.SetShape(terrain, wv.at(t, w.Time()+w.Config().Dt)); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if err := w.Step(context.Background()); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if step > 60 { // after the landings
			deepest = max(deepest, w.Stats().DepthMax)
			pairs += w.Stats().Detect.Pairs
			iterative += w.Stats().Detect.IterativePairs
		}
		if n := w.Batch().Shapes(); n > 4 {
			t.Fatalf("step %d: %d shapes registered (the waves' old ones are not released)", step, n)
		}
	}
	// The terrain is replaced under its ID (adapter.Batch.Reshape): its
	// pairs keep their state and step iteratively while the motion allows.
	if iterative*5 < pairs {
		t.Errorf("%d iterative pairs of %d after the landings, want at least a fifth", iterative, pairs)
	}
	poses := make([]narrow.Pose, len(ids))
	for k, id := range ids {
		poses[k] = w.Body(id).Pose()
	}
	return poses, deepest, w, wv, ids
}

// TestDeformingTerrain: waves run across a heightfield, a static body
// whose shape is refilled every step (narrow.Shape.DeformInto, two shapes
// alternating) and handed to World.SetShape. Boxes and bunnies ride them
// for 5 s: no contact deeper than 12 mm after the landings (the surface
// velocity at the contacts lifts them; without it the deepest was 42 mm),
// no vertex under the surface at the end, none thrown off the terrain,
// and the run is the same bit for bit with one worker or two.
func TestDeformingTerrain(t *testing.T) {
	steps := 300
	if testing.Short() {
		steps = 120
	}
	poses, deepest, w, _, ids := rideWaves(t, 1, steps)
	t.Logf("deepest contact after the landings: %.4f m", deepest)
	if deepest > 0.012 {
		t.Errorf("a contact %.3f m deep: the bodies sink into the moving surface", deepest)
	}
	// The surface under world (x, z) now: a ray straight down.
	terrain := w.Body(0).Shape()
	surface := func(x, z float64) float64 {
		hit, _ := terrain.Trace([3]float64{x - waveOff, 10, z - waveOff}, [3]float64{0, -1, 0}, 0, 0, narrow.TraversalBVH)
		if hit.Prim < 0 {
			t.Fatalf("no terrain under (%v, %v)", x, z)
		}
		return 10 - hit.T
	}
	for k, id := range ids {
		b := w.Body(id)
		c := b.CenterOfMass()
		if math.Abs(c[0]) > 7.5 || math.Abs(c[2]) > 7.5 || c[1] > 1.5 {
			t.Errorf("body %d thrown to (%.2f, %.2f, %.2f)", k, c[0], c[1], c[2])
			continue
		}
		lowest := math.Inf(1)
		s, tr := b.Shape(), b.Pose().Transform()
		for v := range s.NumVertices() {
			p := tr.Apply(s.Vertex(v))
			lowest = min(lowest, p[1]-surface(p[0], p[2]))
		}
		if lowest < -0.03 {
			t.Errorf("body %d: a vertex %.3f m under the surface", k, -lowest)
		}
	}
	again, _, _, _, _ := rideWaves(t, 2, steps)
	for k := range poses {
		if poses[k] != again[k] {
			t.Fatalf("body %d: %v with one worker, %v with two", k, poses[k], again[k])
		}
	}
}

// TestSetShapeDynamic inflates a resting bunny by 30 % over 2 s (a new
// shape each step by Deform): its mass stays, its centre of mass is its
// new shape's, and it stays on the ground, neither sinking nor thrown.
func TestSetShapeDynamic(t *testing.T) {
	w, _ := newWorld(t, nil)
	base := mesh(t, "bunny")
	lo := base.Bounds().Min
	id, err := w.AddBody(rigid.NewBodyDef(base, at(0, -lo[1], 0)))
	if err != nil {
		t.Fatal(err)
	}
	run(t, w, 60)
	mass := w.Body(id).Mass()
	verts := make([]mgl64.Vec3, base.NumVertices())
	for step := range 120 {
		k := 1 + 0.3*float64(step+1)/120
		for v := range verts {
			p := base.Vertex(v)
			verts[v] = mgl64.Vec3{p[0] * k, (p[1]-lo[1])*k + lo[1], p[2] * k}
		}
		s, err := base.Deform(verts)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.SetShape(id, s); err != nil {
			t.Fatal(err)
		}
		b := w.Body(id)
		mp, err := s.MassProps(1)
		if err != nil {
			t.Fatal(err)
		}
		if b.Mass() != mass || b.LocalCenterOfMass() != mp.Centroid {
			t.Fatalf("step %d: mass %v (was %v), centre %v (the shape's %v)", step, b.Mass(), mass, b.LocalCenterOfMass(), mp.Centroid)
		}
		run(t, w, 1)
		if d := w.Stats().DepthMax; d > 0.02 {
			t.Errorf("step %d: a contact %.3f m deep", step, d)
		}
	}
	run(t, w, 60)
	b := w.Body(id)
	lowest := math.Inf(1)
	tr := b.Pose().Transform()
	for v := range b.Shape().NumVertices() {
		lowest = min(lowest, tr.Apply(b.Shape().Vertex(v))[1])
	}
	if lowest < -0.01 || lowest > 0.01 || b.LinearVelocity().Len() > 0.05 {
		t.Errorf("inflated bunny: lowest point at %.4f m, speed %.3f m/s; want resting on the ground", lowest, b.LinearVelocity().Len())
	}
	if n := w.Batch().Shapes(); n != 2 {
		t.Errorf("%d shapes registered, want the ground's and the bunny's last", n)
	}
}

func TestSetShapeBadInput(t *testing.T) {
	w, ground := newWorld(t, nil)
	cube := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
	id, err := w.AddBody(rigid.NewBodyDef(cube, at(0, 2, 0)))
	if err != nil {
		t.Fatal(err)
	}
	gone, err := w.AddBody(rigid.NewBodyDef(cube, at(3, 2, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveBody(gone); err != nil {
		t.Fatal(err)
	}
	poly, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		id   rigid.BodyID
		s    *narrow.Shape
		want error
	}{
		{"nil shape", id, nil, rigid.ErrNilShape},
		{"polygon", id, poly, rigid.ErrNotMesh},
		{"unknown body", 99, cube, rigid.ErrUnknownBody},
		{"removed body", gone, cube, rigid.ErrRemovedBody},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := *w.Body(id)
			err := w.SetShape(tc.id, tc.s)
			var be *rigid.BodyError
			if !errors.Is(err, tc.want) || !errors.As(err, &be) || be.Body != tc.id {
				t.Fatalf("got %v, want a *BodyError for body %d wrapping %v", err, tc.id, tc.want)
			}
			if after := *w.Body(id); after.Shape() != before.Shape() || after.Pose() != before.Pose() {
				t.Error("a refused SetShape changed the body")
			}
		})
	}
	// The ground, static, takes a new shape: a lower box.
	low, err := narrow.NewBox(mgl64.Vec3{-50, -1, -50}, mgl64.Vec3{50, -0.5, 50})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.SetShape(ground, low); err != nil {
		t.Fatal(err)
	}
	run(t, w, 120)
	if y := w.Body(id).CenterOfMass()[1]; math.Abs(y-0) > 0.02 {
		t.Errorf("cube's centre at y = %.3f on the lowered ground, want about 0", y)
	}
	w.Close()
	if err := w.SetShape(id, cube); !errors.Is(err, rigid.ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestDeformingRollback: a world whose terrain deforms every step (fresh
// shapes by Deform, kept) is saved, run on, restored and run again with
// the same shapes: the bodies' poses are the same bit for bit as the first
// time, the narrow phase's iterative steps included (each shape's
// odometer of deformations goes back with the pair states).
func TestDeformingRollback(t *testing.T) {
	w := emptyWorld(t, 1, nil)
	wv := newWaves(t)
	shapes := make([]*narrow.Shape, 121)
	var err error
	for k := range shapes {
		wv.fill(float64(k) * w.Config().Dt)
		if shapes[k], err = wv.base.Deform(wv.buf); err != nil {
			t.Fatal(err)
		}
	}
	def := rigid.NewBodyDef(shapes[0], at(waveOff, 0, waveOff))
	def.Static = true
	terrain, err := w.AddBody(def)
	if err != nil {
		t.Fatal(err)
	}
	var ids []rigid.BodyID
	for k := range 4 {
		id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.3, 0.3, 0.3}), at(-3+2*float64(k), 0.6, 0)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	step := func(k int) {
		t.Helper()
		if err := w.SetShape(terrain, shapes[k]); err != nil {
			t.Fatal(err)
		}
		run(t, w, 1)
	}
	for k := 1; k <= 60; k++ {
		step(k)
	}
	var saved rigid.State
	if err := w.SaveState(&saved); err != nil {
		t.Fatal(err)
	}
	record := func() ([]narrow.Pose, int) {
		iterative := 0
		for k := 61; k <= 120; k++ {
			step(k)
			iterative += w.Stats().Detect.IterativePairs
		}
		poses := make([]narrow.Pose, len(ids))
		for i, id := range ids {
			poses[i] = w.Body(id).Pose()
		}
		return poses, iterative
	}
	first, it1 := record()
	if err := w.RestoreState(&saved); err != nil {
		t.Fatal(err)
	}
	again, it2 := record()
	if it1 == 0 || it1 != it2 {
		t.Errorf("iterative pairs: %d the first time, %d after the rollback; want the same, not 0", it1, it2)
	}
	for i := range first {
		if first[i] != again[i] {
			t.Fatalf("body %d: %v the first time, %v after the rollback", i, first[i], again[i])
		}
	}
}
