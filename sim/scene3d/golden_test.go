package scene3d_test

import (
	"context"
	"math"
	"testing"

	"github.com/irtcd/irtcd/internal/golden"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// goldenFile records the fingerprints of TestGoldenTrajectories.
const goldenFile = "testdata/golden.txt"

// TestGoldenTrajectories runs small versions of the papers' scenes with
// each detection method and checks every bit of their trajectories (body
// poses and velocities, and the solver's contact points with their
// impulses, after every step) against fingerprints recorded in
// testdata/golden.txt. The same fingerprints must come out of every build
// that is to agree with the reference one: other GOMAXPROCS and worker
// counts (TestDeterminism checks those on the same build), other
// instruction sets, and other architectures built without fused
// multiply-adds (.ci/crossbuild; docs/DESIGN.md, "Determinism across
// machines"). A change that moves any result by one bit fails it: rewrite
// the fingerprints with -golden.update when that is the intent.
func TestGoldenTrajectories(t *testing.T) {
	edges := narrow.Params{Speculative: true, EdgeAngle: math.Pi / 3}
	cases := []struct {
		name   string
		scene  scene3d.Scene
		n      int
		steps  int
		params narrow.Params
	}{
		{"avalanche-predictive", scene3d.Avalanche(), 18, 150, narrow.Params{}},
		{"avalanche-standard", scene3d.Avalanche(), 18, 150, narrow.Params{Method: narrow.MethodStandard}},
		{"avalanche-iterative-basic", scene3d.Avalanche(), 8, 120, narrow.Params{Method: narrow.MethodIterative, Traversal: narrow.TraversalBasic}},
		{"avalanche-speculative-edges", scene3d.Avalanche(), 18, 150, edges},
		{"avalanche-raw-rays", scene3d.Avalanche(), 18, 150, narrow.Params{Response: narrow.ResponseRay}},
		{"spawner-speculative-edges", scene3d.Spawner(), 8, 150, edges},
		{"tori-predictive", scene3d.Tori100(), 12, 150, narrow.Params{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s, err := scene3d.New(c.scene, scene3d.Options{N: c.n, Seed: 5, Params: c.params, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			h := golden.New()
			var pts []rigid.ContactPoint
			contacts, rays := 0, 0
			for i := 0; i < c.steps; i++ {
				m, err := s.Step(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				rays += m.Rays()
				for _, b := range s.States() {
					p := b.Pose
					h.Float(p.Pos[0], p.Pos[1], p.Pos[2], p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2])
					h.Float(b.Linear[0], b.Linear[1], b.Linear[2], b.Angular[0], b.Angular[1], b.Angular[2])
				}
				pts = s.World.ContactPoints(pts[:0])
				h.Int(len(pts))
				contacts += len(pts)
				for _, q := range pts {
					h.Int(int(q.A), int(q.B), int(q.From), int(q.Vertex), int(q.Feature), int(q.Prim))
					h.Float(q.Point[0], q.Point[1], q.Point[2], q.Normal[0], q.Normal[1], q.Normal[2], q.Depth)
					h.Float(q.NormalImpulse, q.FrictionImpulse[0], q.FrictionImpulse[1], q.FrictionImpulse[2])
				}
			}
			got := h.Sum()
			golden.Check(t, goldenFile, c.name, got)
			t.Logf("%016x: %d solver points, %d rays over %d steps", got, contacts, rays, c.steps)
			if contacts == 0 {
				t.Errorf("no contact in %d steps: the run checks nothing of the contacts", c.steps)
			}
		})
	}
}
