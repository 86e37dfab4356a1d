package narrow

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// gridBoxes reads two axis-aligned boxes from 12 bytes of fuzz input:
// half sizes 0.25 to 1.5 and centres −3 to 3, on a grid of quarters. It
// returns the boxes (made once per size, in cache), their half sizes,
// and their poses (translations).
func gridBoxes(t *testing.T, cache map[[3]int]*Shape, data []byte) (a, b *Shape, ha, hb mgl64.Vec3, pa, pb Pose) {
	box := func(h mgl64.Vec3) *Shape {
		k := [3]int{int(h[0] * 4), int(h[1] * 4), int(h[2] * 4)}
		if s := cache[k]; s != nil {
			return s
		}
		s := mustBox(t, h.Mul(-1), h)
		cache[k] = s
		return s
	}
	pa, pb = Pose{Rot: mgl64.QuatIdent()}, Pose{Rot: mgl64.QuatIdent()}
	for k := range 3 {
		ha[k], hb[k] = float64(1+int(data[k]%6))/4, float64(1+int(data[3+k]%6))/4
		pa.Pos[k] = float64(int(data[6+k]%25)-12) / 4
		pb.Pos[k] = float64(int(data[9+k]%25)-12) / 4
	}
	return box(ha), box(hb), ha, hb, pa, pb
}

// FuzzOverlapGridBoxes is TestOverlapGridBoxes fuzzed: two axis-aligned
// boxes on a grid of quarters (shared faces, edges and corners, faces in
// one plane) overlap exactly when their closed intervals meet on every
// axis, and Overlap must say so both ways round.
//
//	go test ./narrow -run '^$' -fuzz '^FuzzOverlapGridBoxes$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzOverlapGridBoxes(f *testing.F) {
	cache := map[[3]int]*Shape{}
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 18, 12, 12}) // faces shared
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 18, 18, 18}) // corners shared
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 19, 12, 12}) // apart by a quarter
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 12 {
			return
		}
		a, b, ha, hb, pa, pb := gridBoxes(t, cache, data)
		want := true
		for k := range 3 {
			want = want && math.Abs(pa.Pos[k]-pb.Pos[k]) <= ha[k]+hb[k]
		}
		ab, err1 := Overlap(a, b, pa, pb)
		ba, err2 := Overlap(b, a, pb, pa)
		if err1 != nil || err2 != nil || ab != want || ba != want {
			t.Fatalf("A %v at %v, B %v at %v: Overlap %v and %v (%v, %v), want %v", ha, pa.Pos, hb, pb.Pos, ab, ba, err1, err2, want)
		}
	})
}

// FuzzCastGridBoxes casts an axis-aligned box at another by a translation,
// both with sizes, places and motion on a grid of quarters, where the
// exact answer is known (the first time the closed boxes' intervals meet
// on every axis) and most touches are degenerate: faces sliding along
// faces, edges meeting edges, corners meeting corners, a touch for one
// instant, shapes touching at the start. CastShape must say whether they
// touch before the end, at that fraction (within 1e-9), with Start when
// they overlap or touch at the start; a touch at the very end may go
// either way. Run it with
//
//	go test ./narrow -run '^$' -fuzz '^FuzzCastGridBoxes$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzCastGridBoxes(f *testing.F) {
	cache := map[[3]int]*Shape{}
	// Seeds: a face sliding onto a face, edge to edge, corner to corner, a
	// graze, and boxes touching at the start.
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 20, 12, 12, 36, 24, 24})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 20, 16, 12, 36, 24, 24})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 20, 16, 16, 36, 24, 24})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 20, 16, 12, 36, 32, 24})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 16, 12, 12, 30, 24, 24})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 15 {
			return
		}
		a, b, ha, hb, pa, pb := gridBoxes(t, cache, data)
		ca, cb := pa.Pos, pb.Pos
		var m mgl64.Vec3
		for k := range 3 {
			m[k] = float64(int(data[12+k]%49)-24) / 4 // −6 … 6
		}
		// The closed boxes meet at t in [in, out]: per axis, where the
		// moving interval meets the other's.
		in, out := math.Inf(-1), math.Inf(1)
		for k := range 3 {
			lo := cb[k] - hb[k] - ca[k] - ha[k] // t·m ≥ lo
			hi := cb[k] + hb[k] - ca[k] + ha[k] // t·m ≤ hi
			switch {
			case m[k] > 0:
				in, out = max(in, lo/m[k]), min(out, hi/m[k])
			case m[k] < 0:
				in, out = max(in, hi/m[k]), min(out, lo/m[k])
			case lo > 0 || hi < 0:
				in = math.Inf(1) // never on this axis
			}
		}
		c, hit, err := CastShape(a, b, pa, pb, m)
		if err != nil {
			t.Fatal(err)
		}
		const eps = 1e-9
		switch {
		case in <= 0 && 0 <= out: // overlapping or touching at the start
			if !hit || !c.Start || c.Fraction != 0 {
				t.Fatalf("A %v at %v, B %v at %v, motion %v: touch at the start, got %+v %v", ha, ca, hb, cb, m, c, hit)
			}
		case in > 0 && in <= out && in < 1-eps:
			if !hit || c.Start || math.Abs(c.Fraction-in) > eps {
				t.Fatalf("A %v at %v, B %v at %v, motion %v: first touch at %v, got %+v %v", ha, ca, hb, cb, m, in, c, hit)
			}
		case in > 0 && in <= out && in <= 1+eps: // a touch at the end
			if hit && math.Abs(c.Fraction-in) > eps {
				t.Fatalf("A %v at %v, B %v at %v, motion %v: touch at the end (%v), got %+v", ha, ca, hb, cb, m, in, c)
			}
		default:
			if hit {
				t.Fatalf("A %v at %v, B %v at %v, motion %v: no touch, got %+v", ha, ca, hb, cb, m, c)
			}
		}
	})
}
