package narrow

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestSlabRayLayout pins the field offsets the assembly kernel uses.
func TestSlabRayLayout(t *testing.T) {
	var r slabRay
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"o", unsafe.Offsetof(r.o), 0},
		{"inv", unsafe.Offsetof(r.inv), 48},
		{"near", unsafe.Offsetof(r.near), 96},
		{"far", unsafe.Offsetof(r.far), 120},
	} {
		if c.got != c.want {
			t.Errorf("slabRay.%s at offset %d, the assembly expects %d", c.name, c.got, c.want)
		}
	}
	var b nodeBox
	for mm := 0; mm < 2; mm++ {
		for axis := 0; axis < 3; axis++ {
			want := uintptr(unsafe.Pointer(&b[mm][axis])) - uintptr(unsafe.Pointer(&b))
			if got := planeOffset(mm, axis); got != want {
				t.Errorf("planeOffset(%d, %d) = %d, want %d", mm, axis, got, want)
			}
		}
	}
	if n := unsafe.Sizeof(fatNode{}); n != 64 {
		t.Errorf("fatNode is %d bytes, want 64 (one cache line)", n)
	}
}

// TestSlab2MatchesGo: the platform kernel and the portable one give the
// same entry/exit distances (up to the sign of zero) on random boxes and
// rays, including axis-parallel directions.
func TestSlab2MatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	same := func(a, b float64) bool { return a == b || (math.IsInf(a, 0) && a == b) }
	for i := 0; i < 200000; i++ {
		var b nodeBox
		for k := 0; k < 3; k++ {
			for c := 0; c < 2; c++ {
				lo := rng.NormFloat64() * 3
				b[0][k][c] = down32(lo)
				b[1][k][c] = up32(lo + rng.ExpFloat64())
			}
		}
		var o, d [3]float64
		for k := 0; k < 3; k++ {
			o[k] = rng.NormFloat64() * 4
			d[k] = rng.NormFloat64()
			if rng.IntN(8) == 0 {
				d[k] = 0
			}
		}
		var r slabRay
		r.init(o, safeInv(d))
		lo, hi := -rng.ExpFloat64(), rng.ExpFloat64()*10
		if rng.IntN(4) == 0 {
			hi = math.Inf(1)
		}
		a0, e0, a1, e1 := slab2(&b, &r, lo, hi)
		g0, f0, g1, f1 := slab2Go(&b, &r, lo, hi)
		if !same(a0, g0) || !same(e0, f0) || !same(a1, g1) || !same(e1, f1) {
			t.Fatalf("case %d: kernel (%v %v %v %v), Go (%v %v %v %v)", i, a0, e0, a1, e1, g0, f0, g1, f1)
		}
	}
}
