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

// BenchmarkBoxPile drops 125 boxes (a 5×5×5 grid 1.5 m apart, random orientations and
// proportions) onto the ground and simulates 5 s at 60 Hz, once per
// iteration, on one worker, without and with edge-on-edge contacts
// (narrow.Params.EdgeAngle = π/3). Metrics per step: the narrow phase's
// and the whole step's mean time, contacts and edge-on-edge contacts, and
// the run's deepest contact and its mean total interpenetration (Σ depth).
// The two runs diverge (their contacts differ), so they compare as
// simulations of the same scene, not step by step.
func BenchmarkBoxPile(b *testing.B) {
	for _, deg := range []int{0, 60} {
		b.Run(fmt.Sprintf("edges=%d", deg), func(b *testing.B) {
			var narrowT, stepT float64
			var steps, contacts, edges int
			var deepest, depthSum float64
			for i := 0; i < b.N; i++ {
				w, _ := newWorld(b, func(c *rigid.Config) { c.Params.EdgeAngle = float64(deg) * math.Pi / 180 })
				rng := rand.New(rand.NewPCG(3, 4))
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
					deepest = max(deepest, st.DepthMax)
					depthSum += st.DepthSum
					steps++
				}
			}
			b.ReportMetric(1e3*narrowT/float64(steps), "narrow-ms/step")
			b.ReportMetric(1e3*stepT/float64(steps), "step-ms/step")
			b.ReportMetric(float64(contacts)/float64(steps), "contacts/step")
			b.ReportMetric(float64(edges)/float64(steps), "edge-contacts/step")
			b.ReportMetric(deepest, "max-depth")
			b.ReportMetric(depthSum/float64(steps), "depth-sum/step")
		})
	}
}
