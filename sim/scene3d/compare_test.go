package scene3d

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// TestComparePair: each kind of difference between a variant's contacts
// and the reference's is counted once, and contacts that differ only in
// which of two equally near primitives they name are not differences.
func TestComparePair(t *testing.T) {
	up, side := mgl64.Vec3{0, 0, 1}, mgl64.Vec3{1, 0, 0}
	c := func(from narrow.Side, v, prim int32, depth float64, dir mgl64.Vec3) narrow.Contact {
		return narrow.Contact{From: from, Vertex: v, Prim: prim, Depth: depth, Dir: dir}
	}
	base := []narrow.Contact{c(narrow.SideA, 3, 10, 0.1, up), c(narrow.SideB, 1, 4, 0.2, side)}
	const tol = 1e-6
	for _, tc := range []struct {
		name    string
		variant []narrow.Contact
		want    RayDiff
	}{
		{"same", base, RayDiff{Compared: 2}},
		{"extra", append([]narrow.Contact{c(narrow.SideA, 2, 10, 0.1, up)}, base...), RayDiff{Compared: 3, Extra: 1}},
		{"missed", base[1:], RayDiff{Compared: 2, Missed: 1}},
		{"same vertex number, other side", []narrow.Contact{base[1], c(narrow.SideB, 3, 10, 0.1, up)}, RayDiff{Compared: 3, Missed: 1, Extra: 1}},
		{"depth", []narrow.Contact{c(narrow.SideA, 3, 10, 0.1+2*tol, up), base[1]}, RayDiff{Compared: 2, Mismatched: 1}},
		{"depth within tolerance", []narrow.Contact{c(narrow.SideA, 3, 10, 0.1+tol/2, up), base[1]}, RayDiff{Compared: 2}},
		{"other primitive, same contact", []narrow.Contact{c(narrow.SideA, 3, 11, 0.1, up), base[1]}, RayDiff{Compared: 2}},
		{"other primitive, other direction", []narrow.Contact{c(narrow.SideA, 3, 11, 0.1, side), base[1]}, RayDiff{Compared: 2, Mismatched: 1}},
		{"no contact at all", nil, RayDiff{Compared: 2, Missed: 2, WrongPairs: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d RayDiff
			d.comparePair(tc.variant, base, tol)
			if d != tc.want {
				t.Errorf("got %+v, want %+v", d, tc.want)
			}
		})
	}
}
