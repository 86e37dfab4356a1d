package box2dadapter

import (
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/narrow"
)

// TestHandImpulses: a point keeps its warm-start impulses when it moves
// to another box2d contact of its pair (two clusters merged or split),
// each impulse goes to one point only, fresh points before kept ones, and
// points without a past start from zero.
func TestHandImpulses(t *testing.T) {
	type pt struct {
		key             uint32
		normal, tangent float64
	}
	slot := func(old []pt, prep []uint32, kept bool) *contact {
		c := &contact{}
		c.M_manifold = &b2.B2Manifold{PointCount: len(old)}
		for i, p := range old {
			c.M_manifold.Points[i] = b2.B2ManifoldPoint{Id: contactID(p.key), NormalImpulse: p.normal, TangentImpulse: p.tangent}
		}
		c.prep = prepared{ok: true, n: len(prep), kept: kept}
		for i, k := range prep {
			c.prep.pts[i] = point{id: k, from: narrow.Side(k >> 31), vertex: int32(k & 0x7fffffff)}
		}
		return c
	}
	b := uint32(1) << 31 // B's vertices
	tests := []struct {
		name  string
		slots []*contact
		want  [][]pt // per slot, the manifold box2d will match against
	}{
		{
			name: "merge: B's point 30 joins the slot of A's point 23",
			slots: []*contact{
				slot([]pt{{23, 0.03, 0.001}}, []uint32{23, b | 30}, false),
				slot([]pt{{b | 30, 0.23, -0.01}}, nil, false),
			},
			want: [][]pt{{{23, 0.03, 0.001}, {b | 30, 0.23, -0.01}}, {}},
		},
		{
			name: "split: the points go to two slots, one of them new",
			slots: []*contact{
				slot([]pt{{23, 0.05, 0}, {b | 30, 0.2, 0.02}}, []uint32{23}, false),
				slot(nil, []uint32{b | 30}, false),
			},
			want: [][]pt{{{23, 0.05, 0}}, {{b | 30, 0.2, 0.02}}},
		},
		{
			name: "a new point starts from zero",
			slots: []*contact{
				slot([]pt{{5, 0.4, 0.1}}, []uint32{5, 9}, false),
			},
			want: [][]pt{{{5, 0.4, 0.1}, {9, 0, 0}}},
		},
		{
			name: "a point both kept and fresh: the fresh one has the impulse",
			slots: []*contact{
				slot([]pt{{7, 0.3, 0.05}}, []uint32{7}, true),
				slot(nil, []uint32{7, 8}, false),
			},
			want: [][]pt{{{7, 0, 0}}, {{7, 0.3, 0.05}, {8, 0, 0}}},
		},
		{
			name: "the same point kept in two slots: each takes its own past impulse",
			slots: []*contact{
				slot([]pt{{4, 0.1, 0}}, []uint32{4}, true),
				slot([]pt{{4, 0.2, 0}}, []uint32{4}, true),
			},
			want: [][]pt{{{4, 0.1, 0}}, {{4, 0.2, 0}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Adapter{}
			g := &group{slots: tt.slots}
			a.collectImpulses(g)
			a.handImpulses(g)
			for k, c := range g.slots {
				m := c.M_manifold
				if m.PointCount != len(tt.want[k]) {
					t.Fatalf("slot %d: %d points, want %d", k, m.PointCount, len(tt.want[k]))
				}
				for i, w := range tt.want[k] {
					got := pt{m.Points[i].Id.Key(), m.Points[i].NormalImpulse, m.Points[i].TangentImpulse}
					if got != w {
						t.Errorf("slot %d point %d: %+v, want %+v", k, i, got, w)
					}
				}
			}
		})
	}
}

// TestHandImpulsesNear: a point new to its pair takes the impulses of the
// nearest point of last step in its own contact that no point of this
// step took, within handRadius; points matched by ID come first, and
// points of another contact, or farther, give nothing. The contacts go
// through the adapter's order: last step's points prepared, impulses
// collected, this step's points prepared, impulses handed.
func TestHandImpulsesNear(t *testing.T) {
	type old struct {
		key             uint32
		x               float64 // where the point was, on y = 0
		normal, tangent float64
	}
	type cur struct {
		key uint32
		x   float64
	}
	type slotCase struct {
		last []old
		now  []cur
	}
	setup := func(sc slotCase) *contact {
		c := &contact{}
		c.M_manifold = &b2.B2Manifold{PointCount: len(sc.last)}
		c.prep = prepared{ok: true, n: len(sc.last)}
		for i, p := range sc.last {
			c.M_manifold.Points[i] = b2.B2ManifoldPoint{Id: contactID(p.key), NormalImpulse: p.normal, TangentImpulse: p.tangent}
			c.prep.pts[i] = point{id: p.key, p: b2.B2Vec2{X: p.x}}
		}
		return c
	}
	r := handRadius
	tests := []struct {
		name  string
		slots []slotCase
		want  [][2]float64 // per point of this step, in slot order: normal and tangent impulse
	}{
		{
			name:  "the deepest vertex moved to its neighbour",
			slots: []slotCase{{last: []old{{1, 0, 0.5, 0.1}, {9, 0.3, 0.2, 0}}, now: []cur{{2, 0.6 * r}, {9, 0.3}}}},
			want:  [][2]float64{{0.5, 0.1}, {0.2, 0}},
		},
		{
			name:  "too far: from zero",
			slots: []slotCase{{last: []old{{1, 0, 0.5, 0.1}}, now: []cur{{2, 1.5 * r}}}},
			want:  [][2]float64{{0, 0}},
		},
		{
			name:  "a point that kept its ID is not taken by a new neighbour",
			slots: []slotCase{{last: []old{{1, 0, 0.5, 0.1}}, now: []cur{{2, 0.1 * r}, {1, 0.2 * r}}}},
			want:  [][2]float64{{0, 0}, {0.5, 0.1}},
		},
		{
			name:  "the nearest of two",
			slots: []slotCase{{last: []old{{1, 0, 0.5, 0}, {3, 0.8 * r, 0.7, 0}}, now: []cur{{2, 0.7 * r}}}},
			want:  [][2]float64{{0.7, 0}},
		},
		{
			name: "another contact's point gives nothing",
			slots: []slotCase{
				{last: []old{{1, 0, 0.5, 0}}, now: []cur{{1, 0}}},
				{last: []old{{4, 0.1 * r, 0.3, 0}}, now: nil},
				{last: nil, now: []cur{{5, 0.1 * r}}},
			},
			want: [][2]float64{{0.5, 0}, {0, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &Adapter{}
			g := &group{}
			for _, sc := range tt.slots {
				g.slots = append(g.slots, setup(sc))
			}
			a.collectImpulses(g)
			for k, sc := range tt.slots {
				c := g.slots[k]
				c.prep = prepared{ok: true, n: len(sc.now)}
				for i, p := range sc.now {
					c.prep.pts[i] = point{id: p.key, p: b2.B2Vec2{X: p.x}}
				}
			}
			a.handImpulses(g)
			var got [][2]float64
			for _, c := range g.slots {
				for i := 0; i < c.M_manifold.PointCount; i++ {
					got = append(got, [2]float64{c.M_manifold.Points[i].NormalImpulse, c.M_manifold.Points[i].TangentImpulse})
				}
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d points, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("point %d: %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
