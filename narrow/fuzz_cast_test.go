package narrow

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

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
	boxes := map[[3]int]*Shape{}
	box := func(t *testing.T, h [3]int) *Shape {
		if s := boxes[h]; s != nil {
			return s
		}
		half := mgl64.Vec3{float64(h[0]) / 4, float64(h[1]) / 4, float64(h[2]) / 4}
		s := mustBox(t, half.Mul(-1), half)
		boxes[h] = s
		return s
	}
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
		var ha, hb [3]int
		var ca, cb, m mgl64.Vec3
		for k := range 3 {
			ha[k], hb[k] = 1+int(data[k]%6), 1+int(data[3+k]%6) // half sizes 0.25 … 1.5
			ca[k] = float64(int(data[6+k]%25)-12) / 4           // −3 … 3
			cb[k] = float64(int(data[9+k]%25)-12) / 4
			m[k] = float64(int(data[12+k]%49)-24) / 4 // −6 … 6
		}
		a, b := box(t, ha), box(t, hb)
		pa := Pose{Pos: ca, Rot: mgl64.QuatIdent()}
		pb := Pose{Pos: cb, Rot: mgl64.QuatIdent()}
		// The closed boxes meet at t in [in, out]: per axis, where the
		// moving interval meets the other's.
		in, out := math.Inf(-1), math.Inf(1)
		for k := range 3 {
			lo := cb[k] - float64(hb[k])/4 - ca[k] - float64(ha[k])/4 // t·m ≥ lo
			hi := cb[k] + float64(hb[k])/4 - ca[k] + float64(ha[k])/4 // t·m ≤ hi
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
