package rigid_test

import (
	"math"
	"testing"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// TestTerrain drops boxes and bunnies on hilly terrain (narrow.NewHeightfield,
// a static body): after 6 s every body rests on the surface, none sunk
// through it or left at speed.
func TestTerrain(t *testing.T) {
	const n, d, base = 41, 0.5, -3.0 // 20 m × 20 m, a point every 0.5 m
	heights := make([][]float64, n)
	for i := range heights {
		heights[i] = make([]float64, n)
		for j := range heights[i] {
			heights[i][j] = 0.4 * math.Sin(0.3*float64(i)) * math.Cos(0.25*float64(j))
		}
	}
	terrain, err := narrow.NewHeightfield(heights, d, d, base)
	if err != nil {
		t.Fatal(err)
	}
	w := emptyWorld(t, 1, nil)
	const off = -10.0 // the terrain's corner, so that it spans [-10, 10]²
	def := rigid.NewBodyDef(terrain, at(off, 0, off))
	def.Static, def.Name = true, "terrain"
	if _, err := w.AddBody(def); err != nil {
		t.Fatal(err)
	}
	// surface returns the terrain's height under world (x, z): where a
	// ray straight down meets it (narrow's tests check such rays against
	// the heights).
	surface := func(x, z float64) float64 {
		hit, _ := terrain.Trace([3]float64{x - off, 10, z - off}, [3]float64{0, -1, 0}, 0, 0, narrow.TraversalBVH)
		if hit.Prim < 0 {
			t.Fatalf("no terrain under (%v, %v)", x, z)
		}
		return 10 - hit.T
	}
	cube, bunny := box(t, [3]float64{0.3, 0.3, 0.3}), mesh(t, "bunny")
	var ids []rigid.BodyID
	for k := range 12 {
		x, z := -7+float64(k%4)*4.5, -6+float64(k/4)*5.5
		s := cube
		if k%3 == 2 {
			s = bunny
		}
		id, err := w.AddBody(rigid.NewBodyDef(s, at(x, surface(x, z)+1.5, z)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	run(t, w, 360)
	for k, id := range ids {
		b := w.Body(id)
		c := b.CenterOfMass()
		// Every point of the body: none far below the surface under it.
		lowest := math.Inf(1)
		s, tr := b.Shape(), b.Pose().Transform()
		for v := range s.NumVertices() {
			p := tr.Apply(s.Vertex(v))
			lowest = min(lowest, p[1]-surface(p[0], p[2]))
		}
		speed := b.LinearVelocity().Len()
		t.Logf("body %d at (%.2f, %.2f, %.2f): deepest vertex %.4f m under the surface, speed %.4f m/s, asleep %v", k, c[0], c[1], c[2], -lowest, speed, b.Sleeping())
		if lowest < -0.01 {
			t.Errorf("body %d: a vertex %.3f m under the surface", k, -lowest)
		}
		if speed > 0.05 {
			t.Errorf("body %d still moves at %.3f m/s", k, speed)
		}
	}
}
