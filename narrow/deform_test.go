package narrow

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// wobble returns s's vertices moved by a smooth field: a stretch and
// shear, plus a sine wave of amplitude amp times the shape's size.
func wobble(s *Shape, rng *rand.Rand, amp float64) []mgl64.Vec3 {
	m := mgl64.Ident3()
	for i := range m {
		m[i] += 0.15 * (rng.Float64() - 0.5)
	}
	var k, ph [3]float64
	for a := range k {
		k[a] = (1 + 3*rng.Float64()) / s.Size()
		ph[a] = 2 * math.Pi * rng.Float64()
	}
	out := make([]mgl64.Vec3, s.NumVertices())
	for i := range out {
		v := s.Vertex(i)
		w := m.Mul3x1(v)
		for a := range w {
			w[a] += amp * s.Size() * math.Sin(k[a]*v[(a+1)%3]+ph[a])
		}
		out[i] = w
	}
	return out
}

// TestDeformMatchesNewMesh deforms the test meshes and checks the result
// against NewMesh on the same vertices: every derived datum the queries
// read is equal bit for bit (the hierarchy aside, which is refitted, not
// rebuilt; the convex edges included, in NewMesh's order, which edge
// contacts number them by), and the refitted hierarchy holds every
// primitive.
func TestDeformMatchesNewMesh(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, base := range testMeshes(t, "bunny", "torus", "teddy", "duck") {
		for round, amp := range []float64{0, 0.01, 0.03, 0.08} {
			verts := wobble(base, rng, amp)
			got, err := base.Deform(verts)
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			tris := base.AppendTriangles(nil)
			want, err := NewMesh(verts, tris)
			if err != nil {
				t.Fatalf("round %d: NewMesh: %v", round, err)
			}
			if x := got.exit[0]; x != 0 && got.vnorm[0] != ([3]float64{}) {
				t.Fatal("a deformed shape computed an exit before a query needed it")
			}
			got.Thickness() // every exit
			for _, f := range []struct {
				name      string
				got, want any
			}{
				{"verts", got.verts, want.verts},
				{"fnorm", got.fnorm, want.fnorm},
				{"vnorm", got.vnorm, want.vnorm},
				{"bounds", got.bounds, want.bounds},
				{"hull", [2][3]float64{got.hullMin, got.hullMax}, [2][3]float64{want.hullMin, want.hullMax}},
				{"scale", [6]float64{got.radius, got.avgSize, got.scale, got.areaTol, got.size, got.tEps}, [6]float64{want.radius, want.avgSize, want.scale, want.areaTol, want.size, want.tEps}},
				{"dop", got.dop, want.dop},
				{"exit", got.exit, want.exit},
				{"thick", got.Thickness(), want.Thickness()},
				{"edges", got.edges, want.edges},
				{"edgeSeg", got.edgeSeg, want.edgeSeg},
				{"edgeBlocks", got.edgeBlocks, want.edgeBlocks},
				{"edgeUp", got.edgeUp, want.edgeUp},
				{"edgeAngles", got.edgeAngles, want.edgeAngles},
				{"mass", got.mom, want.mom},
				{"components", got.compVerts, want.compVerts},
			} {
				if !reflect.DeepEqual(f.got, f.want) {
					t.Errorf("%d vertices, round %d: %s differs from NewMesh's", base.NumVertices(), round, f.name)
				}
			}
			// The bounding sphere keeps the base's centre and holds
			// every vertex.
			if got.centre != base.centre {
				t.Fatalf("round %d: centre %v, the base's %v", round, got.centre, base.centre)
			}
			for _, v := range got.verts {
				if len3(sub3(v, got.centre)) > got.cradius {
					t.Fatalf("round %d: vertex %v outside the bounding sphere", round, v)
				}
			}
			if got.grid != nil {
				t.Errorf("round %d: a deformed shape has an outside grid", round)
			}
			checkRefit(t, got)
			checkDeformQueries(t, rng, got)
		}
	}
}

// checkRefit checks that every node box of s's hierarchy holds its
// children's boxes and every leaf box its primitives, padded.
func checkRefit(t *testing.T, s *Shape) {
	t.Helper()
	if len(s.leaf) != len(s.prims) {
		t.Fatalf("%d leaf primitives for %d", len(s.leaf), len(s.prims))
	}
	seen := make([]bool, len(s.prims))
	for i := range s.fat {
		n := &s.fat[i]
		for k := 0; k < 2; k++ {
			var lo, hi [3]float64
			if c := n.count[k]; c > 0 {
				lo, hi = s.leafBox(n.child[k], c)
				for _, p := range s.leaf[n.child[k] : n.child[k]+c] {
					if want := s.makePrim(int(p.id)); p != want {
						t.Fatalf("leaf primitive %d is stale", p.id)
					}
					seen[p.id] = true
				}
			} else {
				lo, hi = s.fat[n.child[k]].bounds()
			}
			for a := 0; a < 3; a++ {
				if float64(n.box[0][a][k]) > lo[a] || float64(n.box[1][a][k]) < hi[a] {
					t.Fatalf("node %d child %d: box [%v, %v] on axis %d does not hold [%v, %v]", i, k, n.box[0][a][k], n.box[1][a][k], a, lo[a], hi[a])
				}
			}
		}
	}
	if s.fat != nil {
		for i, ok := range seen {
			if !ok {
				t.Fatalf("primitive %d in no leaf", i)
			}
		}
	}
}

// checkDeformQueries casts random rays at s and checks the refitted
// hierarchy's answers against brute force over every primitive.
func checkDeformQueries(t *testing.T, rng *rand.Rand, s *Shape) {
	t.Helper()
	prims := s.AppendPrimitives(nil)
	c := s.Bounds().Center()
	hits := 0
	for i := 0; i < 300; i++ {
		o := c.Add(randVec(rng, false).Mul(4 * s.Size()))
		aim := c.Add(randVec(rng, false).Mul(s.Size()))
		d := aim.Sub(o).Normalize()
		q := RayQuery{O: o, D: d, TLo: 0, TMax: math.Inf(1), Back: 0}
		if i%3 == 0 {
			q.Back = math.Inf(1)
		}
		wf, wb := bruteQuery(prims, &q)
		for _, trav := range []Traversal{TraversalBasic, TraversalBVH} {
			if f, b := s.TraceQuery(&q, trav); f != wf || b != wb {
				t.Fatalf("ray %d (%v): %+v %+v, brute force %+v %+v", i, trav, f, b, wf, wb)
			}
		}
		if wf.Prim >= 0 {
			hits++
		}
	}
	if hits < 100 {
		t.Fatalf("only %d of 300 rays hit: the test casts past the shape", hits)
	}
}

// TestDeformStretched: a deformation far beyond the tree's shape (the
// bunny stretched threefold and twisted) leaves the refitted hierarchy
// loose but exact.
func TestDeformStretched(t *testing.T) {
	base := testMeshes(t, "bunny")[0]
	verts := make([]mgl64.Vec3, base.NumVertices())
	for i := range verts {
		v := base.Vertex(i)
		a := 3 * v[1] / base.Size()
		verts[i] = mgl64.Vec3{3 * (v[0]*math.Cos(a) - v[2]*math.Sin(a)), v[1], v[0]*math.Sin(a) + v[2]*math.Cos(a)}
	}
	s, err := base.Deform(verts)
	if err != nil {
		t.Fatal(err)
	}
	checkRefit(t, s)
	checkDeformQueries(t, rand.New(rand.NewPCG(3, 4)), s)
	// Deforming the deformed shape back gives the base's geometry.
	back := base.AppendVertices(nil)
	again, err := s.Deform(back)
	if err != nil {
		t.Fatal(err)
	}
	again.Thickness()
	if !reflect.DeepEqual(again.exit, base.exit) || !reflect.DeepEqual(again.fat, base.fat) {
		t.Error("deformed back: exits or hierarchy differ from the original's")
	}
}

// TestDeformIntoAllocates: alternating two shapes, a deformation
// allocates nothing once both are filled, and a failed call leaves the
// target empty but reusable.
func TestDeformIntoAllocates(t *testing.T) {
	base := testMeshes(t, "torus")[0]
	rng := rand.New(rand.NewPCG(1, 2))
	frames := [][]mgl64.Vec3{wobble(base, rng, 0.02), wobble(base, rng, 0.02)}
	var a, b Shape
	n := 0
	step := func() {
		dst := &a
		if n%2 == 1 {
			dst = &b
		}
		if err := base.DeformInto(dst, frames[n%2]); err != nil {
			t.Fatal(err)
		}
		n++
	}
	step()
	step()
	if allocs := testing.AllocsPerRun(20, step); allocs != 0 {
		t.Errorf("DeformInto: %v allocations a call, want 0", allocs)
	}
	bad := append([]mgl64.Vec3(nil), frames[0]...)
	bad[5][1] = math.NaN()
	if err := base.DeformInto(&a, bad); !errors.Is(err, ErrNonFinite) {
		t.Fatalf("NaN: %v", err)
	}
	if a.NumVertices() != 0 || a.NumPrims() != 0 {
		t.Errorf("after a failed call the target holds %d vertices, %d triangles", a.NumVertices(), a.NumPrims())
	}
	if err := base.DeformInto(&a, frames[0]); err != nil {
		t.Fatal(err)
	}
	want, err := base.Deform(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	a.Thickness()
	want.Thickness()
	if !reflect.DeepEqual(a.exit, want.exit) || !reflect.DeepEqual(a.fat, want.fat) || !reflect.DeepEqual(a.edgeSeg, want.edgeSeg) {
		t.Error("target refilled after a failed call differs from a fresh Deform")
	}
}

func TestDeformBadInput(t *testing.T) {
	base := testMeshes(t, "torus")[0]
	verts := func() []mgl64.Vec3 {
		v := base.AppendVertices(nil)
		return v
	}
	p := base.Prim(10)
	squash := verts()
	squash[p[1]], squash[p[2]] = squash[p[0]], squash[p[0]]
	mirror := verts()
	for i := range mirror {
		mirror[i][0] = -mirror[i][0]
	}
	nan := verts()
	nan[17][2] = math.Inf(1)
	poly, err := NewPolygon(offStar())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		s      *Shape
		v      []mgl64.Vec3
		kind   error
		vertex int
		prim   int
	}{
		{"too few", base, verts()[1:], ErrIndexRange, -1, -1},
		{"non-finite", base, nan, ErrNonFinite, 17, -1},
		{"squashed triangle", base, squash, ErrDegenerate, -1, -1},
		{"inside out", base, mirror, ErrWinding, -1, 0},
		{"polygon", poly, verts()[:poly.NumVertices()], ErrDimension, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.s.Deform(tc.v)
			var se *ShapeError
			if got != nil || !errors.Is(err, tc.kind) || !errors.As(err, &se) {
				t.Fatalf("got %v, %v; want a *ShapeError of %v", got, err, tc.kind)
			}
			if se.Vertex != tc.vertex || tc.prim >= 0 && se.Prim != tc.prim {
				t.Errorf("%v: vertex %d, primitive %d; want %d, %d", err, se.Vertex, se.Prim, tc.vertex, tc.prim)
			}
			if tc.kind == ErrDegenerate && se.Prim < 0 {
				t.Errorf("%v names no triangle", err)
			}
		})
	}
	if err := base.DeformInto(base, verts()); !errors.Is(err, ErrBadParams) {
		t.Errorf("onto itself: %v", err)
	}
	if base.NumVertices() == 0 {
		t.Fatal("a refused DeformInto onto itself emptied the shape")
	}
}

// BenchmarkDeform times a mesh's shape at a new step, built anew by
// NewMesh or refitted by DeformInto (two shapes alternating, as an engine
// does), and the refit alone (the hierarchy's primitives and boxes, the
// paper's "updating data structure").
func BenchmarkDeform(b *testing.B) {
	heights := make([][]float64, 41)
	for i := range heights {
		heights[i] = make([]float64, 41)
	}
	pool, err := NewHeightfield(heights, 0.5, 0.5, -3)
	if err != nil {
		b.Fatal(err)
	}
	for _, base := range append(testMeshes(b, "bunny", "torus"), pool) {
		rng := rand.New(rand.NewPCG(1, 2))
		frames := [][]mgl64.Vec3{wobble(base, rng, 0.02), wobble(base, rng, 0.02)}
		tris := base.AppendTriangles(nil)
		name := fmt.Sprintf("%dv", base.NumVertices())
		b.Run(name+"/NewMesh", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, err := NewMesh(frames[i%2], tris); err != nil {
					b.Fatal(err)
				}
			}
		})
		var s [2]Shape
		b.Run(name+"/DeformInto", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := base.DeformInto(&s[i%2], frames[i%2]); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/refit", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				s[i%2].refit(base, s[i%2].def)
			}
		})
	}
}

// TestAppendVerticesTriangles: a mesh's vertices and triangles read back
// build the same mesh; a polygon's segments end in -1; both append.
func TestAppendVerticesTriangles(t *testing.T) {
	for _, s := range testMeshes(t, "bunny", "torus") {
		again, err := NewMesh(s.AppendVertices(nil), s.AppendTriangles(nil))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again.verts, s.verts) || !reflect.DeepEqual(again.prims, s.prims) {
			t.Errorf("%d vertices: rebuilt mesh differs", s.NumVertices())
		}
	}
	poly, err := NewPolygon(offStar())
	if err != nil {
		t.Fatal(err)
	}
	tris := poly.AppendTriangles([][3]int{{7, 7, 7}})
	verts := poly.AppendVertices([]mgl64.Vec3{{9, 9, 9}})
	if len(tris) != 1+poly.NumPrims() || tris[0] != [3]int{7, 7, 7} || tris[1][2] != -1 || len(verts) != 1+poly.NumVertices() || verts[1] != poly.Vertex(0) {
		t.Errorf("polygon: %d segments %v…, %d vertices", len(tris), tris[:2], len(verts))
	}
}

// TestSelectLeast: the quickselect of spatialOrder splits a set exactly
// where a sort by (coordinate, index) would, ties in the coordinate
// included.
func TestSelectLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for round := range 300 {
		n := 1 + rng.IntN(200)
		verts := make([][3]float64, n)
		for i := range verts {
			for a := range 3 {
				verts[i][a] = float64(rng.IntN(1 + round%7)) // many ties
			}
		}
		axis, k := rng.IntN(3), rng.IntN(n+1)
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		want := append([]int32(nil), idx...)
		sort.Slice(want, func(i, j int) bool {
			a, b := want[i], want[j]
			if verts[a][axis] != verts[b][axis] {
				return verts[a][axis] < verts[b][axis]
			}
			return a < b
		})
		selectLeast(verts, idx, axis, k)
		got := append([]int32(nil), idx[:k]...)
		sort.Slice(got, func(i, j int) bool { return got[i] < got[j] })
		w := append([]int32(nil), want[:k]...)
		sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("round %d (n %d, k %d): %v, want %v", round, n, k, got, w)
		}
	}
}
