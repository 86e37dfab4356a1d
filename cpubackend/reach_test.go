package cpubackend_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// TestReachMatchesReference: with the own-body rule relaxed within Reach
// (off, default, long), the BVH and basic traversals give the contacts of
// the brute-force reference, and a longer reach never loses a contact.
func TestReachMatchesReference(t *testing.T) {
	a, b := loadMesh(t, "bunny"), loadMesh(t, "torus")
	poses := 12
	if testing.Short() {
		poses = 4
	}
	for _, tc := range []struct {
		name  string
		reach float64 // Params.Reach
	}{
		{"off", -1},
		{"default", 0},
		{"long", 0.8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			refReach := max(tc.reach, 0)
			if tc.reach == 0 {
				refReach = narrow.Params{}.Resolve(a, b).Reach
			}
			rng := rand.New(rand.NewPCG(7, 11))
			total := 0
			for i := range poses {
				pa, pb := reference.RandomOverlap(rng, a, b, 0.45)
				ref := reference.ContactsReach(a, b, pa, pb, refReach)
				label := fmt.Sprintf("pose %d", i)
				p := narrow.Params{Method: narrow.MethodStandard, Reach: tc.reach}
				bvh := detectOne(t, p, a, b, pa, pb)
				p.Traversal = narrow.TraversalBasic
				sameContacts(t, label+" bvh vs basic", bvh, detectOne(t, p, a, b, pa, pb))
				compareWithReference(t, label, bvh, ref, max(a.Size(), b.Size()))
				total += len(ref)
			}
			if total == 0 {
				t.Fatal("no contacts at all")
			}
		})
	}
}

// TestReachKeepsBuriedThinFeature: a comb of teeth 0.01 wide buried 0.05
// deep in a box. Hermann's rule alone (Reach < 0) finds no contact from
// the teeth, since each inward ray leaves its tooth sideways first; with
// the default reach every tooth tip vertex is a contact of depth 0.05
// pushing the comb straight out.
func TestReachKeepsBuriedThinFeature(t *testing.T) {
	const (
		teeth = 10
		w     = 0.01 // tooth width
		gap   = 0.09
		h     = 0.3 // tooth height
		back  = 0.2 // thickness of the comb's back
	)
	// Outline, counter-clockwise, teeth pointing down from y = 0.
	var outline []mgl64.Vec2
	x := 0.0
	for i := range teeth {
		outline = append(outline, mgl64.Vec2{x, 0}, mgl64.Vec2{x + w, 0}, mgl64.Vec2{x + w, h})
		if i < teeth-1 {
			outline = append(outline, mgl64.Vec2{x + w + gap, h})
		}
		x += w + gap
	}
	right := x - gap
	outline = append(outline, mgl64.Vec2{right, h + back}, mgl64.Vec2{0, h + back})
	comb, err := narrow.NewPolygon(outline)
	if err != nil {
		t.Fatal(err)
	}
	ground, err := narrow.NewPolygon([]mgl64.Vec2{{-5, -2}, {5, -2}, {5, 0}, {-5, 0}})
	if err != nil {
		t.Fatal(err)
	}
	const buried = 0.05
	pa := narrow.Pose2D(0, -buried, 0)
	pb := narrow.Pose2D(0, 0, 0)
	for _, reach := range []float64{-1, 0} {
		cs := detectOne(t, narrow.Params{Method: narrow.MethodStandard, Reach: reach}, comb, ground, pa, pb)
		tips := 0
		for _, c := range cs {
			if c.From != narrow.SideA {
				continue
			}
			tips++
			if reach < 0 {
				t.Errorf("reach off: contact from comb vertex %d (depth %g): Hermann's rule should discard it", c.Vertex, c.Depth)
				continue
			}
			if math.Abs(c.Depth-buried) > 1e-12 || c.Dir.Sub(mgl64.Vec3{0, 1, 0}).Len() > 1e-12 {
				t.Errorf("vertex %d: depth %g dir %v, want %g along +y", c.Vertex, c.Depth, c.Dir, buried)
			}
		}
		if reach == 0 && tips != 2*teeth {
			t.Errorf("default reach: %d contacts from the comb, want %d (both corners of every tooth)", tips, 2*teeth)
		}
		refReach := 0.0
		if reach == 0 {
			refReach = narrow.Params{}.Resolve(comb, ground).Reach
		}
		ref := reference.ContactsReach(comb, ground, pa, pb, refReach)
		compareWithReference(t, fmt.Sprintf("reach %v", reach), cs, ref, 1)
	}
}
