package cpubackend_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// TestBuriedBody drives a thin plate wholly into a ground box, where every
// ray of its vertices leaves the plate before it meets the box's surface
// (Hermann's own-body rule: no contact), and keeps it there for a few
// steps of small motions. The backends' fallback (reprojection.
// AppendBuried) gives each of its vertices a contact towards the box's
// top face, the nearest, equal to the brute-force reference's, at every
// step and with every method: an iterative method has no rays to follow
// from them, so the pair stays on standard steps. Raised out of the box,
// the plate has no contact; half out, the rays' own contacts return.
// (sim/scene3d's TestThinTorusLanding lands a torus this way.)
func TestBuriedBody(t *testing.T) {
	plate, err := narrow.NewBox(mgl64.Vec3{-1, -0.05, -0.7}, mgl64.Vec3{1, 0.05, 0.7})
	if err != nil {
		t.Fatal(err)
	}
	ground, err := narrow.NewBox(mgl64.Vec3{-20, -10, -20}, mgl64.Vec3{20, 0, 20})
	if err != nil {
		t.Fatal(err)
	}
	const thick = 0.1
	// The plate lies flat, its top 0.95 under the ground's surface (farther
	// than narrow.Params.Reach, which would keep the rays' hits: a quarter
	// of the plate's size, 0.61), turned off the box's axes and diagonals,
	// and drifts sideways by a tenth of its thickness per step.
	turn := mgl64.QuatRotate(0.3, mgl64.Vec3{0, 1, 0})
	at := func(k int, lift float64) narrow.Pose {
		return narrow.Pose{Pos: mgl64.Vec3{0.123 + 0.01*float64(k), -10*thick + lift, 0.0789}, Rot: turn}
	}
	for _, p := range []narrow.Params{
		{Method: narrow.MethodStandard},
		{Method: narrow.MethodIterative},
		{Method: narrow.MethodPredictive},
		{Method: narrow.MethodPredictive, Speculative: true},
	} {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%v/speculative=%v/workers=%d", p.Method, p.Speculative, workers), func(t *testing.T) {
				be, err := cpubackend.New(p, cpubackend.WithWorkers(workers))
				if err != nil {
					t.Fatal(err)
				}
				defer be.Close()
				tid, _ := be.RegisterShape(plate)
				gid, _ := be.RegisterShape(ground)
				var res narrow.Result
				step := func(pose narrow.Pose) []narrow.Contact {
					t.Helper()
					pairs := []narrow.Pair{{ID: 7, A: gid, B: tid, PoseA: narrow.Identity, PoseB: pose}}
					if err := be.Detect(context.Background(), pairs, &res); err != nil {
						t.Fatal(err)
					}
					if err := res.Pairs[0].Err; err != nil {
						t.Fatal(err)
					}
					return res.Pairs[0].Contacts
				}
				for k := range 4 {
					pose := at(k, 0)
					got := step(pose)
					if len(got) == 0 || res.Stats.StandardPairs != 1 {
						t.Fatalf("step %d: %d contacts, %d standard pairs", k, len(got), res.Stats.StandardPairs)
					}
					for _, c := range got {
						if c.From != narrow.SideB || c.Depth <= 0 || c.Dir.Sub(mgl64.Vec3{0, 1, 0}).Len() > 1e-9 {
							t.Fatalf("step %d: contact %+v, want one of the plate's, pushing it up", k, c)
						}
					}
					ref := reference.Contacts(ground, plate, narrow.Identity, pose)
					if n := compareWithReference(t, fmt.Sprintf("step %d", k), got, ref, 40); n > 0 || len(ref) != len(got) {
						t.Errorf("step %d: %d contacts, the reference %d (%d borderline)", k, len(got), len(ref), n)
					}
				}
				if got := step(at(4, 12*thick)); len(got) != 0 {
					t.Errorf("raised out of the ground: %d contacts", len(got))
				}
				// Half out: the rays find the ground's surface inside the
				// plate, and the fallback has nothing to add.
				got := step(at(5, 9.5*thick))
				ref := reference.Contacts(ground, plate, narrow.Identity, at(5, 9.5*thick))
				compareWithReference(t, "half out", got, ref, 40)
				if len(got) == 0 || len(got) >= plate.NumVertices() {
					t.Errorf("half out: %d contacts of the plate's %d vertices", len(got), plate.NumVertices())
				}
			})
		}
	}
}
