package narrow

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// sweepRef is Sweep by brute force: every vertex, every primitive.
func sweepRef(src *Shape, from, to *Transform, dst *Shape, advance float64) float64 {
	best := 1.0
	for v := range src.verts {
		if src.vnorm[v] == ([3]float64{}) {
			continue
		}
		p, q := from.Apply(src.verts[v]), to.Apply(src.verts[v])
		d := sub3(q, p)
		l := len3(d)
		if !(l > 0) {
			continue
		}
		h, _ := dst.Trace(p, scale3(d, 1/l), 0, 0, TraversalBasic)
		if h.Prim < 0 || h.Inside || h.T > l {
			continue
		}
		best = min(best, (h.T+advance)/l)
	}
	return best
}

// TestSweepMatchesBruteForce: Sweep's time of impact, with its block and
// segment culling, equals the brute force's over every vertex and every
// primitive, for random motions of the test meshes and polygons towards
// each other, translating and turning, from apart or from touching; and
// a good share of the motions hit.
func TestSweepMatchesBruteForce(t *testing.T) {
	shapes := cullShapes(t)
	rng := rand.New(rand.NewPCG(11, 3))
	hits, total := 0, 0
	for _, pr := range [][2]string{{"bunny", "duck"}, {"torus", "teddy"}, {"duck", "torus"}, {"star", "star"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		for range 60 {
			total++
			planar := a.dim == Dim2
			// a starts apart from b and moves through it, turning.
			dist := (a.size + b.size) * (0.6 + 0.6*rng.Float64())
			pa, pb := randomPoses(rng, a, b, dist)
			if planar {
				pa = Pose2D(rng.Float64(), rng.Float64(), 2*math.Pi*rng.Float64())
				pb = Pose2D(dist, 0, 2*math.Pi*rng.Float64())
			}
			var d0 Direction
			d0.SetPoses(SideA, a, b, &pa, &pb)
			move := pb.Pos.Sub(pa.Pos).Mul(1 + rng.Float64())
			turn := mgl64.QuatRotate(0.5*rng.Float64(), randAxis(rng, planar))
			pa1 := Pose{Pos: pa.Pos.Add(move), Rot: turn.Mul(pa.Rot)}
			var d1 Direction
			d1.SetPoses(SideA, a, b, &pa1, &pb)
			got := Sweep(a, &d0.SrcToDst, &d1.SrcToDst, b, 1e-3)
			want := sweepRef(a, &d0.SrcToDst, &d1.SrcToDst, b, 1e-3)
			if got != want {
				t.Fatalf("%s → %s: Sweep %v, brute force %v", pr[0], pr[1], got, want)
			}
			if got < 1 {
				hits++
			}
		}
	}
	t.Logf("%d of %d motions hit", hits, total)
	if hits < total/3 {
		t.Errorf("only %d of %d motions hit: the comparison tests little", hits, total)
	}
}

// TestSweepThinPlate: a small box shot through a thin plate in one step
// (its vertices before and after are all outside the plate) hits it at the
// fraction where its leading face reaches the plate, from above or below;
// moving away, or leaving the plate from inside, it does not.
func TestSweepThinPlate(t *testing.T) {
	plate, err := NewBox(mgl64.Vec3{-2, -2, -0.01}, mgl64.Vec3{2, 2, 0.01})
	if err != nil {
		t.Fatal(err)
	}
	cube, err := NewBox(mgl64.Vec3{-0.1, -0.1, -0.1}, mgl64.Vec3{0.1, 0.1, 0.1})
	if err != nil {
		t.Fatal(err)
	}
	at := func(z float64) Transform {
		return Pose{Pos: mgl64.Vec3{0.3, 0.2, z}, Rot: mgl64.QuatIdent()}.Transform()
	}
	from, to := at(1.11), at(-1)
	// The bottom face (z − 0.1) reaches the top (0.01) at z = 0.11: after
	// 1.0 of the 2.11 travelled.
	if got, want := Sweep(cube, &from, &to, plate, 0), 1.0/2.11; math.Abs(got-want) > 1e-12 {
		t.Errorf("through the plate: %v, want %v", got, want)
	}
	// From below, the top face (z + 0.1) reaches the bottom (−0.01) at
	// z = −0.11: after 0.89.
	if got, want := Sweep(cube, &to, &from, plate, 0), 0.89/2.11; math.Abs(got-want) > 1e-12 {
		t.Errorf("through the plate from below: %v, want %v", got, want)
	}
	up := at(3)
	if got := Sweep(cube, &from, &up, plate, 0); got != 1 {
		t.Errorf("moving away: %v, want 1", got)
	}
	// Its lower vertices in the plate move down out of it; the upper ones
	// stay above.
	inside, lower := at(0.1), at(0.05)
	if got := Sweep(cube, &inside, &lower, plate, 0); got != 1 {
		t.Errorf("starting inside: %v, want 1", got)
	}
}
