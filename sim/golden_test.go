package sim

import (
	"context"
	"testing"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/golden"
	"github.com/irtcd/irtcd/narrow"
)

// TestGoldenTrajectories runs small 2D scenes (box2d with irtcd's narrow
// phase) with each detection method and checks every bit of the bodies'
// states after every step, with the step's counts of pairs, manifolds and
// rays, against fingerprints recorded in testdata/golden.txt. Like the 3D
// scenes' test of the same name (sim/scene3d), it fails when any result
// moves by one bit, and it is what other builds (instruction sets,
// architectures) are checked with (.ci/crossbuild).
func TestGoldenTrajectories(t *testing.T) {
	cases := []struct {
		scene  Scene2D
		n      int
		steps  int
		method narrow.Method
	}{
		{Avalanche(), 12, 200, narrow.MethodPredictive},
		{Avalanche(), 12, 200, narrow.MethodStandard},
		{Spawner(), 10, 200, narrow.MethodIterative},
		{Stack(), 4, 200, narrow.MethodPredictive},
		{Cup(), 6, 200, narrow.MethodPredictive},
	}
	for _, c := range cases {
		name := c.scene.Name + "-" + c.method.String()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			be, err := cpubackend.New(narrow.Params{Method: c.method, ManifoldSize: box2dadapter.ManifoldSize}, cpubackend.WithWorkers(2))
			if err != nil {
				t.Fatal(err)
			}
			defer be.Close()
			s, err := New(c.scene, Options{Params: Params2D{N: c.n, Seed: 3}, Backend: be})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			h := golden.New()
			manifolds := 0
			for range c.steps {
				m, err := s.Step(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				h.Int(m.Pairs, m.Manifolds, m.StandardRays, m.PredictiveRays, m.IterativeRays)
				manifolds += m.Manifolds
				for _, b := range s.States() {
					h.Float(b.X, b.Y, b.Angle, b.VX, b.VY, b.Omega)
				}
			}
			got := h.Sum()
			golden.Check(t, "testdata/golden.txt", name, got)
			t.Logf("%016x: %d manifolds over %d steps", got, manifolds, c.steps)
			if manifolds == 0 {
				t.Errorf("no manifold in %d steps: the run checks nothing of the contacts", c.steps)
			}
		})
	}
}
