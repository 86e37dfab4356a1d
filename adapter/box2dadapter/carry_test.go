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
