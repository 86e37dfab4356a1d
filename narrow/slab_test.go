package narrow

import (
	"math"
	"math/rand/v2"
	"path/filepath"
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
		{"inv", unsafe.Offsetof(r.inv), 24},
		{"near", unsafe.Offsetof(r.near), 48},
		{"far", unsafe.Offsetof(r.far), 72},
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
	var f fatNode
	var st travState
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"fatNode.child", unsafe.Offsetof(f.child), 48},
		{"fatNode.count", unsafe.Offsetof(f.count), 56},
		{"travState.hi", unsafe.Offsetof(st.hi), 8},
		{"travState.sp", unsafe.Offsetof(st.sp), 16},
		{"travState.stack", unsafe.Offsetof(st.stack), 32},
		{"stackEntry size", unsafe.Sizeof(st.stack[0]), 16},
		{"stackEntry.count", unsafe.Offsetof(st.stack[0].count), 4},
		{"stackEntry.t0", unsafe.Offsetof(st.stack[0].t0), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s at %d, the assembly expects %d", c.name, c.got, c.want)
		}
	}
	if n := unsafe.Sizeof(fatNode{}); n != 64 {
		t.Errorf("fatNode is %d bytes, want 64 (one cache line)", n)
	}
}

// TestBvhNextMatchesGo: the platform traversal step and the portable one
// return the same leaves in the same order and leave the same stack, on
// the test meshes and random rays (axis-parallel directions included),
// with the interval shrinking between leaves as hits are found.
func TestBvhNextMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, name := range []string{"bunny.obj", "torus.obj", "teddy.obj", "duck.obj"} {
		s, err := LoadOBJ(filepath.Join("..", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		c, r := s.bounds.Center(), s.Size()
		leaves := 0
		for i := 0; i < 20000; i++ {
			var o, d [3]float64
			for k := 0; k < 3; k++ {
				o[k] = c[k] + rng.NormFloat64()*r
				d[k] = rng.NormFloat64()
				if rng.IntN(8) == 0 {
					d[k] = 0
				}
			}
			sr := slabRay{o: o, inv: safeInv(d)}
			sr.setPlanes()
			var a, g travState
			a.lo, a.hi = -rng.ExpFloat64()*r, math.Inf(1)
			if rng.IntN(4) == 0 {
				a.hi = rng.ExpFloat64() * r
			}
			a.stack[0] = stackEntry{t0: math.Inf(-1)}
			a.sp = 1
			g = a
			for step := 0; ; step++ {
				f1, c1 := bvhNext(s.fat, &sr, &a)
				f2, c2 := bvhNextGo(s.fat, &sr, &g)
				if f1 != f2 || c1 != c2 || a.sp != g.sp || a.stack != g.stack {
					t.Fatalf("%s ray %d step %d: kernel leaf (%d, %d) sp %d, Go leaf (%d, %d) sp %d", name, i, step, f1, c1, a.sp, f2, c2, g.sp)
				}
				if c1 == 0 {
					break
				}
				leaves++
				if rng.IntN(3) == 0 { // a hit shrinks the interval
					a.hi = a.lo + (a.hi-a.lo)*rng.Float64()
					if math.IsInf(a.hi, 1) {
						a.hi = rng.ExpFloat64() * r
					}
					g.hi = a.hi
				}
			}
		}
		if leaves == 0 {
			t.Fatalf("%s: no ray reached a leaf", name)
		}
	}
}
