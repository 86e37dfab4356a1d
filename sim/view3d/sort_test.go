package view3d

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortFarFirst checks the painter's radix sort against a comparison
// sort on (depth descending, instance, triangle), on depths of every kind:
// ties, both zeros, negatives, infinities and NaN, near and far apart.
func TestSortFarFirst(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1), math.NaN(), 1e-300, -1e-300, math.MaxFloat64, 5.000000000000001}
	var r Renderer
	for _, tc := range []struct {
		name  string
		n     int
		depth func(i int) float64
	}{
		{"empty", 0, nil},
		{"one", 1, func(int) float64 { return 3 }},
		{"a frame's spread", 5000, func(int) float64 { return 5 + 25*rng.Float64() }},
		{"narrow spread, many ties", 5000, func(int) float64 { return 7 + float64(rng.IntN(40))/64 }},
		{"all equal", 300, func(int) float64 { return 2 }},
		{"special values", 2000, func(int) float64 { return special[rng.IntN(len(special))] }},
		{"both signs, every magnitude", 5000, func(int) float64 { return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20)) }},
	} {
		// Twice into the same Renderer: the second reuses its buffers.
		for range 2 {
			r.items = r.items[:0]
			for i := range tc.n {
				r.items = append(r.items, item{depth: tc.depth(i), inst: int32(i / 97), tri: int32(i % 97)})
			}
			want := slices.Clone(r.items)
			slices.SortFunc(want, func(x, y item) int {
				if c := cmp.Compare(y.depth, x.depth); c != 0 {
					return c
				}
				if c := cmp.Compare(x.inst, y.inst); c != 0 {
					return c
				}
				return cmp.Compare(x.tri, y.tri)
			})
			r.sortFarFirst()
			for i := range want {
				g, w := r.items[i], want[i]
				if g.inst != w.inst || g.tri != w.tri || math.Float64bits(g.depth) != math.Float64bits(w.depth) {
					t.Fatalf("%s: item %d is (%v, %d, %d), want (%v, %d, %d)", tc.name, i, g.depth, g.inst, g.tri, w.depth, w.inst, w.tri)
				}
			}
		}
	}
}
