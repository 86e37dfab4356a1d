package reprojection_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/reprojection"
)

// key identifies a contact in expectations.
type key struct {
	from   narrow.Side
	vertex int32
}

func keysOf(cs []narrow.Contact) []key {
	ks := make([]key, len(cs))
	for i, c := range cs {
		ks[i] = key{c.From, c.Vertex}
	}
	return ks
}

// gridContacts is 25 contacts from A on the plane y = 0 with normal +y:
// x = 0..4, z = 0, 1.5, .., 6, vertex 5i+j for (x, z) = (i, 1.5j). The
// contact at (1, 1.5) (vertex 6) is the deepest; the others have distinct
// smaller depths. P.y = -Depth, so points differ along the normal too.
func gridContacts() []narrow.Contact {
	var cs []narrow.Contact
	for i := range 5 {
		for j := range 5 {
			v := int32(5*i + j)
			d := 0.1 + 0.01*float64(v)
			if v == 6 {
				d = 1
			}
			cs = append(cs, narrow.Contact{
				P:      mgl64.Vec3{float64(i), -d, 1.5 * float64(j)},
				Depth:  d,
				Dir:    mgl64.Vec3{0, 1, 0},
				From:   narrow.SideA,
				Vertex: v,
				Prim:   3,
			})
		}
	}
	return cs
}

func vtx(x, z int) key { return key{narrow.SideA, int32(5*x + z)} }

func TestReduceEmpty(t *testing.T) {
	var r reprojection.Reducer
	ms, pts := r.Reduce(nil, 4, 0.9, nil, nil)
	if len(ms) != 0 || len(pts) != 0 {
		t.Errorf("Reduce(nil) = %v, %v, want no manifold", ms, pts)
	}
	prev := []narrow.Manifold{{Normal: mgl64.Vec3{1, 0, 0}}}
	ms, _ = r.Reduce([]narrow.Contact{}, 4, 0.9, prev, nil)
	if len(ms) != 1 {
		t.Errorf("Reduce of no contacts changed ms to %v", ms)
	}
}

func TestReduceOneNormal(t *testing.T) {
	cs := gridContacts()
	tests := []struct {
		name string
		in   []narrow.Contact
		size int
		want []key
	}{
		// Deepest (1, 1.5), then (4, 6), then (0, 6), then (4, 0): farthest
		// point sampling in the xz plane.
		{"grid, size 4", cs, 4, []key{vtx(1, 1), vtx(4, 4), vtx(0, 4), vtx(4, 0)}},
		{"grid, size 2", cs, 2, []key{vtx(1, 1), vtx(4, 4)}},
		{"grid, size 3", cs, 3, []key{vtx(1, 1), vtx(4, 4), vtx(0, 4)}},
		{"fewer contacts than size", []narrow.Contact{cs[0], cs[6], cs[24]}, 4, []key{vtx(1, 1), vtx(4, 4), vtx(0, 0)}},
		{"one contact", []narrow.Contact{cs[10]}, 4, []key{vtx(2, 0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r reprojection.Reducer
			ms, pts := r.Reduce(tc.in, tc.size, math.Cos(0.2), nil, nil)
			if len(ms) != 1 {
				t.Fatalf("%d manifolds, want 1", len(ms))
			}
			m := ms[0]
			if got := keysOf(m.Points); !slices.Equal(got, tc.want) {
				t.Errorf("points %v, want %v", got, tc.want)
			}
			if !near(m.Normal, mgl64.Vec3{0, 1, 0}, 1e-12) {
				t.Errorf("Normal = %v, want (0,1,0)", m.Normal)
			}
			if len(pts) != len(m.Points) || &pts[0] != &m.Points[0] {
				t.Error("manifold points do not alias pts")
			}
			for i, p := range m.Points {
				if src := tc.in[indexOf(tc.in, p)]; src != p {
					t.Errorf("point %d = %+v, not a copy of input %+v", i, p, src)
				}
			}
		})
	}
}

func indexOf(cs []narrow.Contact, c narrow.Contact) int {
	for i := range cs {
		if cs[i].From == c.From && cs[i].Vertex == c.Vertex {
			return i
		}
	}
	return -1
}

func contactN(from narrow.Side, v int32, p, dir mgl64.Vec3, depth float64) narrow.Contact {
	return narrow.Contact{P: p, Depth: depth, Dir: dir, From: from, Vertex: v}
}

func TestReduceClusters(t *testing.T) {
	up, side := mgl64.Vec3{0, 1, 0}, mgl64.Vec3{1, 0, 0}
	a, b := narrow.SideA, narrow.SideB
	cos := math.Cos(0.2)
	tests := []struct {
		name    string
		in      []narrow.Contact
		cosMax  float64
		normals []mgl64.Vec3
		points  [][]key
	}{
		{
			name: "two normals 90° apart, ordered by deepest contact",
			in: []narrow.Contact{
				contactN(a, 0, mgl64.Vec3{0, 0, 0}, up, 0.2),
				contactN(a, 1, mgl64.Vec3{1, 0, 0}, up, 0.3),
				contactN(a, 2, mgl64.Vec3{2, 1, 0}, side, 0.5),
				contactN(a, 3, mgl64.Vec3{2, 2, 0}, side, 0.1),
			},
			cosMax:  cos,
			normals: []mgl64.Vec3{side, up},
			points:  [][]key{{{a, 2}, {a, 3}}, {{a, 1}, {a, 0}}},
		},
		{
			name: "a contact from B with Dir -n joins contacts from A with Dir n",
			in: []narrow.Contact{
				contactN(a, 4, mgl64.Vec3{0, 0, 0}, up, 0.3),
				contactN(b, 1, mgl64.Vec3{1, 0, 0}, up.Mul(-1), 0.5),
			},
			cosMax:  cos,
			normals: []mgl64.Vec3{up},
			points:  [][]key{{{b, 1}, {a, 4}}},
		},
		{
			name: "a contact from B with Dir n opposes contacts from A with Dir n",
			in: []narrow.Contact{
				contactN(a, 4, mgl64.Vec3{0, 0, 0}, up, 0.3),
				contactN(b, 1, mgl64.Vec3{1, 0, 0}, up, 0.5),
			},
			cosMax:  cos,
			normals: []mgl64.Vec3{up.Mul(-1), up},
			points:  [][]key{{{b, 1}}, {{a, 4}}},
		},
		{
			// Contacts join the cluster whose seed normal is close, not a
			// chain of close normals.
			name: "clusters compare with the seed normal",
			in: []narrow.Contact{
				contactN(a, 0, mgl64.Vec3{0, 0, 0}, up, 0.9),
				contactN(a, 1, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{math.Sin(0.15), math.Cos(0.15), 0}, 0.8),
				contactN(a, 2, mgl64.Vec3{2, 0, 0}, mgl64.Vec3{math.Sin(0.3), math.Cos(0.3), 0}, 0.7),
			},
			cosMax:  cos,
			normals: nil, // not checked
			points:  [][]key{{{a, 0}, {a, 1}}, {{a, 2}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r reprojection.Reducer
			ms, pts := r.Reduce(tc.in, 4, tc.cosMax, nil, nil)
			if len(ms) != len(tc.points) {
				t.Fatalf("%d manifolds, want %d: %+v", len(ms), len(tc.points), ms)
			}
			total := 0
			for i, m := range ms {
				if got := keysOf(m.Points); !slices.Equal(got, tc.points[i]) {
					t.Errorf("manifold %d: points %v, want %v", i, got, tc.points[i])
				}
				if tc.normals != nil && !near(m.Normal, tc.normals[i], 1e-12) {
					t.Errorf("manifold %d: Normal %v, want %v", i, m.Normal, tc.normals[i])
				}
				for _, p := range m.Points {
					if n := p.NormalA(); n.Dot(m.Normal) < tc.cosMax-1e-9 && len(m.Points) > 1 {
						t.Errorf("manifold %d: point %d/%d normal %v far from %v", i, p.From, p.Vertex, n, m.Normal)
					}
				}
				total += len(m.Points)
			}
			if len(pts) != total {
				t.Errorf("len(pts) = %d, want %d", len(pts), total)
			}
		})
	}
}

func TestReduceCosBoundary(t *testing.T) {
	const theta = 0.3
	n2 := mgl64.Vec3{math.Sin(theta), math.Cos(theta), 0}
	c := n2.Dot(mgl64.Vec3{0, 1, 0}) // the seed normal is +y
	in := []narrow.Contact{
		contactN(narrow.SideA, 0, mgl64.Vec3{0, 0, 0}, mgl64.Vec3{0, 1, 0}, 0.5),
		contactN(narrow.SideA, 1, mgl64.Vec3{1, 0, 0}, n2, 0.4),
	}
	tests := []struct {
		name   string
		cosMax float64
		want   int
	}{
		{"well inside", math.Cos(theta + 0.1), 1},
		{"just inside", c - 1e-12, 1},
		{"on the boundary", c, 1},
		{"just outside", c + 1e-12, 2},
		{"well outside", math.Cos(theta - 0.1), 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r reprojection.Reducer
			ms, _ := r.Reduce(in, 4, tc.cosMax, nil, nil)
			if len(ms) != tc.want {
				t.Errorf("cosMax %.17g (cos θ = %.17g): %d manifolds, want %d", tc.cosMax, c, len(ms), tc.want)
			}
		})
	}
}

// TestReduceTies checks the promised tie-break on input sorted by From then
// Vertex (the order of PairResult.Contacts): among equal depths the seed is
// the lower From, then Vertex, and so are equidistant spread points.
func TestReduceTies(t *testing.T) {
	up := mgl64.Vec3{0, 1, 0}
	a, b := narrow.SideA, narrow.SideB
	tests := []struct {
		name string
		in   []narrow.Contact // sorted by From then Vertex
		size int
		want []key
	}{
		{
			name: "seed is the lowest From, then Vertex",
			in: []narrow.Contact{
				contactN(a, 5, mgl64.Vec3{0, 0, 0}, up, 0.2),
				contactN(a, 7, mgl64.Vec3{1, 0, 0}, up, 0.2),
				contactN(b, 0, mgl64.Vec3{3, 0, 0}, up.Mul(-1), 0.2),
				contactN(b, 1, mgl64.Vec3{4, 0, 0}, up.Mul(-1), 0.2),
			},
			size: 2,
			want: []key{{a, 5}, {b, 1}},
		},
		{
			name: "equidistant spread points go to the lower Vertex",
			in: []narrow.Contact{
				contactN(a, 0, mgl64.Vec3{0, 0, 0}, up, 0.2),
				contactN(a, 1, mgl64.Vec3{1, 0, 0}, up, 0.2),
				contactN(a, 2, mgl64.Vec3{0, 0, 1}, up, 0.2),
				contactN(a, 3, mgl64.Vec3{1, 0, 1}, up, 0.2),
			},
			size: 3,
			want: []key{{a, 0}, {a, 3}, {a, 1}},
		},
		{
			name: "equidistant spread points go to the lower From",
			in: []narrow.Contact{
				contactN(a, 0, mgl64.Vec3{0, 0, 0}, up, 0.2),
				contactN(a, 1, mgl64.Vec3{1, 0, 0}, up, 0.2),
				contactN(b, 0, mgl64.Vec3{0, 0, 1}, up.Mul(-1), 0.2),
				contactN(b, 5, mgl64.Vec3{1, 0, 1}, up.Mul(-1), 0.2),
			},
			size: 3,
			want: []key{{a, 0}, {b, 5}, {a, 1}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var r reprojection.Reducer
			ms, _ := r.Reduce(tc.in, tc.size, 0.9, nil, nil)
			if len(ms) != 1 {
				t.Fatalf("%d manifolds, want 1", len(ms))
			}
			if got := keysOf(ms[0].Points); !slices.Equal(got, tc.want) {
				t.Errorf("points %v, want %v", got, tc.want)
			}
			// Same input, same output, also from a Reducer that has
			// reduced something else before.
			var warm reprojection.Reducer
			warm.Reduce(gridContacts(), 4, 0.5, nil, nil)
			ms2, _ := warm.Reduce(tc.in, tc.size, 0.9, nil, nil)
			if got := keysOf(ms2[0].Points); !slices.Equal(got, tc.want) {
				t.Errorf("warm Reducer: points %v, want %v", got, tc.want)
			}
		})
	}
}

// TestReduceDistinctDepthsOrderFree checks that with distinct depths and
// distances the input order does not matter.
func TestReduceDistinctDepthsOrderFree(t *testing.T) {
	cs := gridContacts()
	var r reprojection.Reducer
	ms, _ := r.Reduce(cs, 4, math.Cos(0.2), nil, nil)
	want := keysOf(ms[0].Points)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 10 {
		sh := append([]narrow.Contact(nil), cs...)
		rng.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		got, _ := r.Reduce(sh, 4, math.Cos(0.2), nil, nil)
		if len(got) != 1 || !slices.Equal(keysOf(got[0].Points), want) {
			t.Errorf("shuffle %d: %v, want %v", i, keysOf(got[0].Points), want)
		}
	}
}

// TestReduceClustersMatchReference checks Reduce's clusters against the
// rule its doc states, applied the plain way: contacts taken in order of
// decreasing depth (equal depths in input order), each joining the first
// earlier seed of its kind (speculative or not) whose normal is within
// the angle, else seeding a cluster of its own. Random contacts, sorted by
// From then Vertex as backends give them, with few distinct normals and
// depths so that clusters, ties and speculative contacts are many. Each
// manifold must be one reference cluster, in seed order, led by its seed,
// and hold only that cluster's contacts.
func TestReduceClustersMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	dirs := []mgl64.Vec3{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}, {0.6, 0.8, 0}, {0, -1, 0}, {-0.8, 0, 0.6}}
	var r reprojection.Reducer
	for round := range 300 {
		n := 1 + rng.IntN(60)
		cs := make([]narrow.Contact, n)
		for i := range cs {
			d := dirs[rng.IntN(len(dirs))]
			d = d.Add(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(0.1)).Normalize()
			from := narrow.SideA
			if i >= n/2 {
				from = narrow.SideB
			}
			depth := 0.01 * float64(rng.IntN(7)-2) // −0.02 … 0.04: ties and speculative ones
			p := mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
			cs[i] = contactN(from, int32(i), p, d, depth)
		}
		cosMax := math.Cos(0.1 + 0.5*rng.Float64())
		// The reference clusters.
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(i, j int) int {
			switch {
			case cs[i].Depth > cs[j].Depth:
				return -1
			case cs[i].Depth < cs[j].Depth:
				return 1
			}
			return 0
		})
		normal := func(c narrow.Contact) mgl64.Vec3 {
			if c.From == narrow.SideB {
				return c.Dir.Mul(-1)
			}
			return c.Dir
		}
		var seeds []int
		cluster := make([]int, n)
		for _, i := range order {
			cluster[i] = -1
			for k, s := range seeds {
				if (cs[i].Depth < 0) == (cs[s].Depth < 0) && normal(cs[i]).Dot(normal(cs[s])) >= cosMax {
					cluster[i] = k
					break
				}
			}
			if cluster[i] < 0 {
				cluster[i] = len(seeds)
				seeds = append(seeds, i)
			}
		}
		ms, _ := r.Reduce(cs, 4, cosMax, nil, nil)
		if len(ms) != len(seeds) {
			t.Fatalf("round %d: %d manifolds, want %d", round, len(ms), len(seeds))
		}
		for k, m := range ms {
			if v := m.Points[0].Vertex; v != int32(seeds[k]) {
				t.Fatalf("round %d: manifold %d led by contact %d, want the seed %d", round, k, v, seeds[k])
			}
			for _, p := range m.Points {
				if cluster[p.Vertex] != k {
					t.Fatalf("round %d: manifold %d holds contact %d of cluster %d", round, k, p.Vertex, cluster[p.Vertex])
				}
			}
		}
	}
}

func TestReduceAppendsAndReuses(t *testing.T) {
	cs := gridContacts()
	var r reprojection.Reducer
	prevM := []narrow.Manifold{{Normal: mgl64.Vec3{0, 0, 1}}}
	prevP := []narrow.Contact{{Vertex: 99}}
	ms, pts := r.Reduce(cs, 4, math.Cos(0.2), prevM, prevP)
	if len(ms) != 2 || ms[0].Normal != (mgl64.Vec3{0, 0, 1}) {
		t.Fatalf("Reduce did not append to ms: %+v", ms)
	}
	if len(pts) != 5 || pts[0].Vertex != 99 {
		t.Fatalf("Reduce did not append to pts: %+v", pts)
	}
	if &ms[1].Points[0] != &pts[1] {
		t.Error("appended manifold does not alias the appended points")
	}
}

func TestReduceNoAllocs(t *testing.T) {
	cs := gridContacts()
	// A second cluster, so both clustering and several manifolds run.
	for i := range 6 {
		cs = append(cs, contactN(narrow.SideB, int32(i), mgl64.Vec3{5, float64(i), 0}, mgl64.Vec3{1, 0, 0}, 0.05*float64(i)))
	}
	var r reprojection.Reducer
	ms, pts := r.Reduce(cs, 4, math.Cos(0.2), nil, nil)
	if len(ms) != 2 {
		t.Fatalf("%d manifolds, want 2", len(ms))
	}
	allocs := testing.AllocsPerRun(100, func() {
		ms, pts = r.Reduce(cs, 4, math.Cos(0.2), ms[:0], pts[:0])
	})
	if allocs != 0 {
		t.Errorf("warm Reduce allocates %v times per call, want 0", allocs)
	}
}

// BenchmarkReduce reduces what a resting bunny pair gives per step (10
// contacts, 5 from each side, whose normals form two clusters) to manifolds
// of 4 points.
func BenchmarkReduce(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cs []narrow.Contact
	for i := range 10 {
		side, dir := narrow.SideA, mgl64.Vec3{0, 1, 0}
		if i%2 == 1 {
			side, dir = narrow.SideB, mgl64.Vec3{-0.6, -0.8, 0} // a second cluster
		}
		cs = append(cs, narrow.Contact{
			P:     mgl64.Vec3{rng.Float64(), 0.01 * rng.Float64(), rng.Float64()},
			Depth: 0.01 * rng.Float64(),
			Dir:   dir, From: side, Vertex: int32(i), Prim: int32(i),
		})
	}
	var r reprojection.Reducer
	var ms []narrow.Manifold
	var pts []narrow.Contact
	cosMax := math.Cos(0.5)
	b.ReportAllocs()
	for b.Loop() {
		ms, pts = r.Reduce(cs, 4, cosMax, ms[:0], pts[:0])
	}
	if len(ms) == 0 {
		b.Fatal("no manifold")
	}
}
