package rigid_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// BenchmarkBoxPile drops 125 boxes (a 5×5×5 grid 1.5 m apart, random
// orientations and proportions) onto the ground and simulates 5 s at
// 60 Hz, with 6 seeds per iteration (a pile is chaotic: one run says
// little of a change), on one worker, without and with edge-on-edge contacts
// (narrow.Params.EdgeAngle = π/3) and continuous collision detection
// (Config.CCDMotion = 0.05). Metrics per step: the narrow phase's and the
// whole step's mean time, contacts and edge-on-edge contacts, motions cut
// back to a time of impact, and the run's deepest contact and its mean
// total interpenetration (Σ depth), the sum of the vertex contacts' true
// depths (vertex-depth: each vertex's distance to the other body's
// surface, which re-projected depths overestimate where a ray crossed the
// other box to a far face); max-depth is the mean over the runs of their deepest contact. The variants diverge (their contacts differ), so
// they compare as simulations of the same scenes, not step by step.
func BenchmarkBoxPile(b *testing.B) {
	const seeds = 6
	for _, v := range []struct {
		deg int
		ccd float64
	}{{0, 0}, {60, 0}, {0, 0.05}, {60, 0.05}} {
		deg := v.deg
		b.Run(fmt.Sprintf("edges=%d/ccd=%g", deg, v.ccd), func(b *testing.B) {
			var narrowT, stepT float64
			var steps, contacts, edges int
			var deepest, depthSum, vertexDepth float64
			cut := 0
			for i := 0; i < b.N*seeds; i++ {
				w, _ := newWorld(b, func(c *rigid.Config) {
					c.Params.EdgeAngle = float64(deg) * math.Pi / 180
					c.CCDMotion = v.ccd
				})
				rng := rand.New(rand.NewPCG(uint64(1+i%seeds), 4))
				runMax := 0.0
				for k := range 125 {
					h := mgl64.Vec3{0.2 + 0.2*rng.Float64(), 0.2 + 0.2*rng.Float64(), 0.2 + 0.2*rng.Float64()}
					q := mgl64.QuatRotate(math.Pi*rng.Float64(), mgl64.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Normalize())
					pos := mgl64.Vec3{1.5 * float64(k%5-2), 1 + 1.5*float64(k/25), 1.5 * float64(k/5%5-2)} // 1.5 apart: no overlap at the start
					if _, err := w.AddBody(rigid.NewBodyDef(box(b, h), narrow.Pose{Pos: pos, Rot: q})); err != nil {
						b.Fatal(err)
					}
				}
				for range 300 {
					run(b, w, 1)
					st := w.Stats()
					narrowT += st.Narrow.Seconds()
					stepT += st.Total.Seconds()
					contacts += st.Contacts
					edges += st.Detect.EdgeContacts
					runMax = max(runMax, st.DepthMax)
					depthSum += st.DepthSum
					cut += st.Clamped
					steps++
					vertexDepth += vertexPenetration(w) // after the step: not timed
				}
				deepest += runMax
				w.Close()
			}
			b.ReportMetric(1e3*narrowT/float64(steps), "narrow-ms/step")
			b.ReportMetric(1e3*stepT/float64(steps), "step-ms/step")
			b.ReportMetric(float64(contacts)/float64(steps), "contacts/step")
			b.ReportMetric(float64(edges)/float64(steps), "edge-contacts/step")
			b.ReportMetric(deepest/float64(b.N*seeds), "max-depth")
			b.ReportMetric(depthSum/float64(steps), "depth-sum/step")
			b.ReportMetric(float64(cut)/float64(steps), "cuts/step")
			b.ReportMetric(vertexDepth/float64(steps), "vertex-depth/step")
		})
	}
}

// vertexPenetration returns the sum, over the last step's vertex contacts,
// of the vertex's distance to the other body's surface (narrow.Shape.
// Nearest): the interpenetration those contacts stand for, whatever the
// response that measured their depths.
func vertexPenetration(w *rigid.World) float64 {
	sum := 0.0
	pairs := w.Pairs()
	for i, r := range w.Results() {
		p := &pairs[i]
		for k := range r.Contacts {
			c := &r.Contacts[k]
			if c.Feature != narrow.FeatureVertex || c.Depth <= 0 {
				continue
			}
			other, pose := p.B, p.PoseB
			if c.From == narrow.SideB {
				other, pose = p.A, p.PoseA
			}
			tr := pose.Transform()
			inv := tr.Inverse()
			if _, d, _, inside := w.Body(other).Shape().Nearest(inv.Apply(c.P)); inside {
				sum += d
			}
		}
	}
	return sum
}
