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

// TestSweepMatchesBruteForce: Sweep's time of impact, with its culling by
// groups, blocks and leaves of vertices and by each vertex's path, equals
// the brute force's over every vertex and every primitive (and
// SweepBefore's is the lesser of it and the limit), for random motions of
// the test meshes and polygons towards each other, translating and
// turning, from apart or from touching; and a good share of the motions
// hit.
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
			for _, limit := range []float64{0.5 * want, want, 1.5 * want, rng.Float64()} {
				if got, want := SweepBefore(a, &d0.SrcToDst, &d1.SrcToDst, b, 1e-3, limit), min(want, limit); got != want {
					t.Fatalf("%s → %s: SweepBefore(limit %v) = %v, want %v", pr[0], pr[1], limit, got, want)
				}
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
	plate := centredBox(t, 2, 2, 0.01)
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

// TestSweepEdgesCrossingBars: a bar dropped across another (a "+") meets
// it edge on edge, with no vertex of either ever inside the other: Sweep
// sees nothing either way, SweepEdges the fraction where the bars' faces
// meet; moving away, or leaving the other bar, it sees nothing.
func TestSweepEdgesCrossingBars(t *testing.T) {
	fixed, err := NewBox(mgl64.Vec3{-2, -0.05, -0.05}, mgl64.Vec3{2, 0.05, 0.05})
	if err != nil {
		t.Fatal(err)
	}
	bar, err := NewBox(mgl64.Vec3{-0.05, -0.05, -1}, mgl64.Vec3{0.05, 0.05, 1})
	if err != nil {
		t.Fatal(err)
	}
	at := func(y float64) Transform {
		return Pose{Pos: mgl64.Vec3{0.3, y, 0.1}, Rot: mgl64.QuatIdent()}.Transform()
	}
	from, to, above, crossed := at(1), at(-1), at(3), at(-0.02)
	back, back2 := from.Inverse(), to.Inverse() // the fixed bar in the falling one's frame
	if got := min(Sweep(bar, &from, &to, fixed, 0), Sweep(fixed, &back, &back2, bar, 0)); got != 1 {
		t.Errorf("vertex sweeps: %v, want 1 (no vertex enters)", got)
	}
	// The bottom face (y − 0.05) reaches the top (0.05) at y = 0.1: after
	// 0.9 of the 2 travelled.
	want := 0.45
	for _, tc := range []struct {
		name     string
		got      float64
		fraction float64
	}{
		{"falling bar's edges", SweepEdges(bar, &from, &to, fixed, 0), want},
		{"fixed bar's edges", SweepEdges(fixed, &back, &back2, bar, 0), want},
		{"moving away", SweepEdges(bar, &from, &above, fixed, 0), 1},
		// Crossed a little, going on down: its top edges leave the
		// fixed bar through its bottom edges; nothing enters.
		{"leaving", SweepEdges(bar, &crossed, &to, fixed, 0), 1},
	} {
		if math.Abs(tc.got-tc.fraction) > 1e-12 {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.fraction)
		}
	}
	// advance is a distance along the longer path of an edge's ends.
	if got := SweepEdges(bar, &from, &to, fixed, 0.02); math.Abs(got-(want+0.01)) > 1e-12 {
		t.Errorf("advanced by 0.02 of 2: %v, want %v", got, want+0.01)
	}
}

// TestSweepEdgesTimeOfImpact: for translations, the lesser of Sweep and
// SweepEdges, both ways, is the time of first touch that narrow.Overlap
// (exact, edges included) sees: just before it the shapes are apart and
// no sample of the motion before it overlaps; just after it they
// overlap (but for a grazing touch). Bars, plates, boxes and the test
// meshes, from apart, moving through each other; in some motions the
// first touch is edge on edge, which Sweep alone misses.
func TestSweepEdgesTimeOfImpact(t *testing.T) {
	shapes := cullShapes(t)
	mk := func(x, y, z float64) *Shape { return centredBox(t, x, y, z) }
	bar, plate, cube := mk(1, 0.04, 0.04), mk(0.6, 0.03, 0.6), mk(0.3, 0.3, 0.3)
	rng := rand.New(rand.NewPCG(7, 21))
	const samples = 200
	var hits, edgeFirst, grazing, total int
	for _, pr := range [][2]*Shape{{bar, bar}, {bar, plate}, {cube, bar}, {bar, shapes["torus"]}, {shapes["bunny"], cube}} {
		a, b := pr[0], pr[1]
		for range 40 {
			total++
			m := newThroughMotion(rng, a, b)
			ab0, ab1, ba0, ba1 := &m.ab0, &m.ab1, &m.ba0, &m.ba1
			vertex := min(Sweep(a, &ab0.SrcToDst, &ab1.SrcToDst, b, 0), Sweep(b, &ba0.SrcToDst, &ba1.SrcToDst, a, 0))
			toi := min(vertex, SweepEdges(a, &ab0.SrcToDst, &ab1.SrcToDst, b, 0), SweepEdges(b, &ba0.SrcToDst, &ba1.SrcToDst, a, 0))
			overlaps := func(f float64) bool { return m.overlaps(t, f) }
			if overlaps(0) {
				total--
				continue // it must start apart
			}
			first := m.firstOverlap(t, samples)
			eps := 1e-6
			if toi > first+eps {
				t.Logf("sweeps: vertex ab %v ba %v, edges ab %v ba %v; overlap 0.115 %v 0.118 %v 0.12 %v; pa %v move %v pb %v",
					Sweep(a, &ab0.SrcToDst, &ab1.SrcToDst, b, 0), Sweep(b, &ba0.SrcToDst, &ba1.SrcToDst, a, 0),
					SweepEdges(a, &ab0.SrcToDst, &ab1.SrcToDst, b, 0), SweepEdges(b, &ba0.SrcToDst, &ba1.SrcToDst, a, 0),
					overlaps(0.115), overlaps(0.118), overlaps(0.12), m.pa, m.move, m.pb)
				t.Fatalf("pair %d: time of impact %v (vertices %v), but the shapes overlap at %v", total, toi, vertex, first)
			}
			if toi < 1 {
				hits++
				if overlaps(toi - eps) {
					t.Fatalf("time of impact %v, but they overlap before it", toi)
				}
				if !overlaps(min(1, toi+eps)) {
					grazing++
				}
				if vertex > first+eps {
					edgeFirst++
				}
			}
		}
	}
	t.Logf("%d motions: %d hit, %d of them edge on edge first, %d grazing", total, hits, edgeFirst, grazing)
	if hits < total/2 || edgeFirst == 0 || grazing > hits/10 {
		t.Errorf("%d of %d motions hit, %d edge on edge first, %d grazing: the test exercises too little", hits, total, edgeFirst, grazing)
	}
}

// sweepEdgesRef is SweepEdges by brute force: every edge of src against
// every edge of dst, no culling.
func sweepEdgesRef(src *Shape, from, to *Transform, dst *Shape, advance float64) float64 {
	best := 1.0
	for i := range src.edges {
		seg := &src.edgeSeg[i]
		p0, q0, p1, q1 := from.Apply(seg[0]), from.Apply(seg[1]), to.Apply(seg[0]), to.Apply(seg[1])
		travel := max(len3(sub3(p1, p0)), len3(sub3(q1, q0)))
		if !(travel > 0) {
			continue
		}
		for k := range dst.edges {
			if t, _, _, ok := edgeCrossing(p0, q0, p1, q1, dst, k); ok {
				best = min(best, t+advance/travel)
			}
		}
	}
	return best
}

// TestSweepEdgesMatchesBruteForce: SweepEdges, with its culling by
// blocks and by the part of each quad before the earliest fraction so
// far, equals the brute force over every pair of edges, bit for bit,
// for random motions of the test meshes and boxes towards and through
// each other, translating and turning, with and without an advance;
// and SweepEdgesBefore returns that fraction when it is below its
// limit, the limit otherwise.
func TestSweepEdgesMatchesBruteForce(t *testing.T) {
	shapes := cullShapes(t)
	bar, err := NewBox(mgl64.Vec3{-1, -0.04, -0.04}, mgl64.Vec3{1, 0.04, 0.04})
	if err != nil {
		t.Fatal(err)
	}
	shapes["bar"] = bar
	rng := rand.New(rand.NewPCG(5, 8))
	hits, total, limited := 0, 0, 0
	for _, pr := range [][2]string{{"bunny", "torus"}, {"torus", "bunny"}, {"bar", "torus"}, {"bar", "bar"}, {"torus", "torus"}} {
		a, b := shapes[pr[0]], shapes[pr[1]]
		for k := range 18 {
			total++
			dist := (a.size + b.size) * (0.3 + 0.6*rng.Float64())
			pa, pb := randomPoses(rng, a, b, dist)
			move := pb.Pos.Sub(pa.Pos).Add(randVec(rng, false).Mul(0.3 * b.size)).Mul(0.5 + rng.Float64())
			turn := mgl64.QuatIdent()
			if k%2 == 1 {
				turn = mgl64.QuatRotate(0.6*rng.Float64(), randAxis(rng, false))
			}
			pa1 := Pose{Pos: pa.Pos.Add(move), Rot: turn.Mul(pa.Rot)}
			var d0, d1 Direction
			d0.SetPoses(SideA, a, b, &pa, &pb)
			d1.SetPoses(SideA, a, b, &pa1, &pb)
			advance := 0.0
			if k%3 == 0 {
				advance = 1e-3 * b.size
			}
			got := SweepEdges(a, &d0.SrcToDst, &d1.SrcToDst, b, advance)
			want := sweepEdgesRef(a, &d0.SrcToDst, &d1.SrcToDst, b, advance)
			if got != want {
				t.Fatalf("%s → %s, motion %d: SweepEdges %v, brute force %v", pr[0], pr[1], k, got, want)
			}
			if got < 1 {
				hits++
			}
			for _, limit := range []float64{0.5 * want, want, 1.5 * want, rng.Float64()} {
				wantLim := limit
				if want < limit {
					wantLim = want
					limited++
				}
				if got := SweepEdgesBefore(a, &d0.SrcToDst, &d1.SrcToDst, b, advance, limit); got != wantLim {
					t.Fatalf("%s → %s, motion %d: SweepEdgesBefore(limit %v) = %v, want %v", pr[0], pr[1], k, limit, got, wantLim)
				}
			}
		}
	}
	t.Logf("%d of %d motions hit; %d limited searches found the hit", hits, total, limited)
	if hits < total/3 {
		t.Errorf("only %d of %d motions hit: the comparison tests little", hits, total)
	}
}

// BenchmarkSweep times Sweep and SweepEdges of a test mesh against
// itself: a step of 0.3 × its size towards the other from just apart
// (motion=step), and a motion from 0.9 × its size away through and
// past the other (motion=through), where every edge's quad spans the
// other shape and the edge pairs' boxes cull little.
func BenchmarkSweep(b *testing.B) {
	shapes := cullShapes(&testing.T{})
	for _, name := range []string{"bunny", "torus"} {
		s := shapes[name]
		for _, motion := range []string{"step", "through"} {
			rng := rand.New(rand.NewPCG(1, 2))
			pa, pb := randomPoses(rng, s, s, 1.05*s.size)
			pa1 := Pose{Pos: pa.Pos.Add(pb.Pos.Sub(pa.Pos).Normalize().Mul(0.3 * s.size)), Rot: pa.Rot}
			if motion == "through" {
				pa, pb = randomPoses(rng, s, s, 0.9*s.size)
				pa1 = Pose{Pos: pa.Pos.Add(pb.Pos.Sub(pa.Pos).Mul(1.5)), Rot: pa.Rot}
			}
			var d0, d1 Direction
			d0.SetPoses(SideA, s, s, &pa, &pb)
			d1.SetPoses(SideA, s, s, &pa1, &pb)
			b.Run(name+"/motion="+motion+"/vertices", func(b *testing.B) {
				for range b.N {
					Sweep(s, &d0.SrcToDst, &d1.SrcToDst, s, 0)
				}
			})
			b.Run(name+"/motion="+motion+"/edges", func(b *testing.B) {
				for range b.N {
					SweepEdges(s, &d0.SrcToDst, &d1.SrcToDst, s, 0)
				}
			})
			// As continuous collision detection calls it: below the
			// vertices' time of impact, both ways.
			var e0, e1 Direction
			e0.SetPoses(SideB, s, s, &pb, &pa)
			e1.SetPoses(SideB, s, s, &pb, &pa1)
			limit := min(Sweep(s, &d0.SrcToDst, &d1.SrcToDst, s, 0), Sweep(s, &e0.SrcToDst, &e1.SrcToDst, s, 0))
			b.Run(name+"/motion="+motion+"/edges-below-vertices", func(b *testing.B) {
				b.ReportMetric(limit, "limit")
				for range b.N {
					SweepEdgesBefore(s, &d0.SrcToDst, &d1.SrcToDst, s, 0, limit)
				}
			})
		}
	}
}
