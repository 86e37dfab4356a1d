package cpubackend_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/narrow"
)

// TestMixedSteps rests a bunny on a large static box, a ground 60 wide,
// sunk by 1 % of its size, and turns and shifts it a little every step.
// The ground's displacement in the bunny's frame grows with the ground's
// radius, so the paper's per-pair Eq. 2 fails on most steps; the bunny's
// own vertices, whose rays touch the ground, move less than the
// threshold, and the ground's corners stay far from the bunny. With mixed
// steps (decide) the pair is updated iteratively; without, it takes
// standard steps. The bunny's rays then get what they get on a ground of
// its own size, where the per-pair Eq. 2 holds: the same share of
// erroneous rays against the standard algorithm (the iterative method
// misses the vertices that come into contact until its next standard
// step; prediction catches them).
func TestMixedSteps(t *testing.T) {
	bunny := loadMesh(t, "bunny")
	size := bunny.Size()
	ground, err := narrow.NewBox(mgl64.Vec3{-30, -1, -30}, mgl64.Vec3{30, 0, 30})
	if err != nil {
		t.Fatal(err)
	}
	small, err := narrow.NewBox(mgl64.Vec3{-2 * size, -size, -2 * size}, mgl64.Vec3{2 * size, 0, 2 * size})
	if err != nil {
		t.Fatal(err)
	}
	const steps = 120
	rng := rand.New(rand.NewPCG(5, 6))
	q, x := mgl64.QuatIdent(), mgl64.Vec3{}
	poses := make([]narrow.Pose, steps)
	for k := range poses {
		axis := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		q = mgl64.QuatRotate(0.002*rng.NormFloat64(), axis).Mul(q).Normalize()
		x = x.Add(mgl64.Vec3{rng.NormFloat64(), 0, rng.NormFloat64()}.Mul(2e-4 * size))
		low := math.Inf(1)
		for v := range bunny.NumVertices() {
			low = min(low, q.Rotate(bunny.Vertex(v))[1])
		}
		poses[k] = narrow.Pose{Pos: x.Add(mgl64.Vec3{0, -low - 0.01*size, 0}), Rot: q}
	}
	// run detects every step with a standard backend and one of method m
	// on the bunny and ground g, and returns the latter's standard steps
	// and erroneous rays against the former.
	run := func(t *testing.T, m narrow.Method, g *narrow.Shape, opts ...cpubackend.Option) (std, bad, union int) {
		var bes [2]*cpubackend.Backend
		for i, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: m}} {
			be, err := cpubackend.New(p, opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { be.Close() })
			for _, s := range []*narrow.Shape{bunny, g} { // IDs 0 and 1
				if _, err := be.RegisterShape(s); err != nil {
					t.Fatal(err)
				}
			}
			bes[i] = be
		}
		var res [2]narrow.Result
		for k, pose := range poses {
			pairs := []narrow.Pair{{ID: 1, A: 0, B: 1, PoseA: pose, PoseB: narrow.Identity}}
			for i, be := range bes {
				btDetect(t, be, pairs, &res[i])
				if res[i].Pairs[0].Err != nil {
					t.Fatalf("step %d: %v", k, res[i].Pairs[0].Err)
				}
			}
			if len(res[0].Pairs[0].Contacts) == 0 {
				t.Fatalf("step %d: the bunny does not touch the ground", k)
			}
			std += res[1].Stats.StandardPairs
			e, u := motion.Compare(res[0].Pairs[0].Contacts, res[1].Pairs[0].Contacts, 1e-6*size)
			bad, union = bad+e, union+u
		}
		return std, bad, union
	}
	for _, m := range []narrow.Method{narrow.MethodIterative, narrow.MethodPredictive} {
		t.Run(m.String(), func(t *testing.T) {
			std, bad, union := run(t, m, ground)
			stdOff, _, _ := run(t, m, ground, cpubackend.WithoutMixedSteps())
			stdSmall, badSmall, unionSmall := run(t, m, small)
			t.Logf("%d steps: standard steps %d with mixed steps, %d without, %d on a small ground; erroneous rays %d of %d (small ground: %d of %d)",
				steps, std, stdOff, stdSmall, bad, union, badSmall, unionSmall)
			if stdOff < steps/2 {
				t.Fatalf("without mixed steps, %d standard steps of %d: the scene does not break the per-pair Eq. 2", stdOff, steps)
			}
			if std > stdSmall+1 {
				t.Errorf("with mixed steps, %d standard steps, %d on a small ground", std, stdSmall)
			}
			if sh, small := motion.Share(bad, union), motion.Share(badSmall, unionSmall); sh > small+0.01 {
				t.Errorf("erroneous rays with mixed steps %.2f%%, %.2f%% on a small ground", 100*sh, 100*small)
			}
			if m == narrow.MethodPredictive && motion.Share(bad, union) >= 0.05 {
				t.Errorf("erroneous rays with prediction %.2f%%, want < 5%%", 100*motion.Share(bad, union))
			}
		})
	}
}
