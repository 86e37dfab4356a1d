package cpubackend_test

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// FuzzGridBoxContacts detects two axis-aligned boxes with sizes and places
// on a grid of quarters, where contacts are degenerate: vertices exactly
// on faces, edges and corners of the other box, faces in one plane, rays
// through shared edges. The standard step's contacts must be the same bit
// for bit with the hierarchy and with the basic traversal, in the
// backend's order, and match the brute-force reference (internal/
// reference) but for its borderline rays. Run it with
//
//	go test ./cpubackend -run '^$' -fuzz '^FuzzGridBoxContacts$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzGridBoxContacts(f *testing.F) {
	boxes := gridBoxes{}
	// Seeds: a cube on a slab (vertices on its face), cubes corner to
	// corner and edge to edge, a cube sunk into a larger one.
	f.Add([]byte{2, 2, 2, 6, 1, 6, 12, 14, 12, 12, 12, 12})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 15, 15, 15})
	f.Add([]byte{2, 2, 2, 2, 2, 2, 12, 12, 12, 15, 15, 12})
	f.Add([]byte{2, 2, 2, 4, 4, 4, 12, 17, 12, 12, 12, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 12 {
			return
		}
		var ha, hb [3]int
		var ca, cb mgl64.Vec3
		for k := range 3 {
			ha[k], hb[k] = 1+int(data[k]%6), 1+int(data[3+k]%6)
			ca[k] = float64(int(data[6+k]%25)-12) / 4
			cb[k] = float64(int(data[9+k]%25)-12) / 4
		}
		a, b := boxes.get(t, ha), boxes.get(t, hb)
		pa := narrow.Pose{Pos: ca, Rot: mgl64.QuatIdent()}
		pb := narrow.Pose{Pos: cb, Rot: mgl64.QuatIdent()}
		label := fmt.Sprintf("A %v at %v, B %v at %v", ha, ca, hb, cb)
		bvh := detectOne(t, narrow.Params{Method: narrow.MethodStandard}, a, b, pa, pb)
		basic := detectOne(t, narrow.Params{Method: narrow.MethodStandard, Traversal: narrow.TraversalBasic}, a, b, pa, pb)
		sameContacts(t, label+": bvh vs basic", bvh, basic)
		checkContactOrder(t, label, bvh)
		compareWithReference(t, label, bvh, reference.Contacts(a, b, pa, pb), max(a.Size(), b.Size()))
	})
}

// gridBoxes makes axis-aligned boxes centred on their origin, by half
// sizes in quarters, once each (the grid fuzz targets' shapes).
type gridBoxes map[[3]int]*narrow.Shape

func (c gridBoxes) get(t *testing.T, h [3]int) *narrow.Shape {
	if s := c[h]; s != nil {
		return s
	}
	half := mgl64.Vec3{float64(h[0]) / 4, float64(h[1]) / 4, float64(h[2]) / 4}
	s, err := narrow.NewBox(half.Mul(-1), half)
	if err != nil {
		t.Fatal(err)
	}
	c[h] = s
	return s
}
