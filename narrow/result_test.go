package narrow

import (
	"errors"
	"reflect"
	"testing"
)

// TestResultAlloc: Alloc hands out storage of the asked sizes, zero
// PairResults even where an earlier step left errors and slices, and the
// storage of earlier steps once it is large enough.
func TestResultAlloc(t *testing.T) {
	var r Result
	c := []Contact{{Depth: 1, Vertex: 3}, {Depth: 2, From: SideB}}
	for i := 0; i < 5; i++ {
		r.Append(uint64(i), c, []Manifold{{Points: c[:1]}}, true, errors.New("bad"))
	}
	for _, tc := range []struct{ n, nc, nm, np int }{{3, 4, 2, 2}, {0, 0, 0, 0}, {8, 20, 6, 9}, {5, 10, 5, 5}} {
		contacts, manifolds, points := r.Alloc(tc.n, tc.nc, tc.nm, tc.np)
		if len(r.Pairs) != tc.n || len(contacts) != tc.nc || len(manifolds) != tc.nm || len(points) != tc.np {
			t.Fatalf("%+v: got %d pairs, %d contacts, %d manifolds, %d points", tc, len(r.Pairs), len(contacts), len(manifolds), len(points))
		}
		for i := range r.Pairs {
			p := &r.Pairs[i]
			if p.ID != 0 || p.Contacts != nil || p.Manifolds != nil || p.Iterative || p.Err != nil {
				t.Fatalf("%+v: pair %d not zero: %+v", tc, i, *p)
			}
		}
		if r.Stats != (Stats{}) {
			t.Fatalf("%+v: stats not reset", tc)
		}
		// Fill it as a decoder would, so that the next round reuses it.
		for i := range r.Pairs {
			r.Pairs[i].ID, r.Pairs[i].Err, r.Pairs[i].Iterative = uint64(i), errors.New("x"), true
			if tc.nc > 0 {
				r.Pairs[i].Contacts = contacts[:1:1]
			}
		}
	}
	before := &r.contacts[:1][0]
	if contacts, _, _ := r.Alloc(1, 1, 0, 0); &contacts[0] != before {
		t.Error("storage large enough was not reused")
	}
	if n := testing.AllocsPerRun(10, func() { r.Alloc(5, 10, 5, 5) }); n != 0 {
		t.Errorf("%v allocations per Alloc of a size seen before", n)
	}
}

// TestResultClone: a clone holds the same pairs, contacts, manifolds and
// stats, and none of its slices share the original's storage: the
// original can be reset and refilled without changing it.
func TestResultClone(t *testing.T) {
	var r Result
	c := []Contact{{Depth: 1, Vertex: 3}, {Depth: 2, From: SideB}}
	bad := errors.New("bad")
	r.Append(7, c, []Manifold{{Normal: [3]float64{0, 1, 0}, Points: c[:1]}, {Points: c}}, true, nil)
	r.Append(8, nil, nil, false, bad)
	r.Stats.Pairs, r.Stats.Contacts = 2, 2
	k := r.Clone()
	if !reflect.DeepEqual(k, &r) {
		t.Fatalf("clone %+v, want %+v", k, &r)
	}
	r.Reset()
	r.Append(9, []Contact{{Depth: 5}, {Depth: 6}}, []Manifold{{Points: []Contact{{Depth: 7}}}, {Points: []Contact{{Depth: 8}, {Depth: 9}}}}, false, nil)
	p := &k.Pairs[0]
	if len(k.Pairs) != 2 || p.ID != 7 || p.Contacts[0].Depth != 1 || p.Manifolds[0].Points[0].Depth != 1 || p.Manifolds[1].Points[1].Depth != 2 ||
		k.Pairs[1].Err != bad || k.Stats.Pairs != 2 {
		t.Errorf("the clone changed with the original: %+v", k)
	}
}
