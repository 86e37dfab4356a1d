package narrow

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// inLoops is the even-odd point-in-polygon test of p against all the loops
// together (outer boundary and holes): true inside the material.
func inLoops(p mgl64.Vec2, loops ...[]mgl64.Vec2) bool {
	crossings := 0
	for _, l := range loops {
		n := len(l)
		for i := 0; i < n; i++ {
			a, b := l[i], l[(i+1)%n]
			if (a[1] <= p[1]) == (b[1] <= p[1]) {
				continue // the edge does not straddle the horizontal line
			}
			// x of the edge at height p[1]
			x := a[0] + (p[1]-a[1])*(b[0]-a[0])/(b[1]-a[1])
			if x > p[0] {
				crossings++
			}
		}
	}
	return crossings%2 == 1
}

// signedArea is the shoelace area (positive counter-clockwise).
func signedArea(l []mgl64.Vec2) float64 {
	a := 0.0
	for i := range l {
		p, q := l[i], l[(i+1)%len(l)]
		a += p[0]*q[1] - q[0]*p[1]
	}
	return a / 2
}

func reversed(l []mgl64.Vec2) []mgl64.Vec2 {
	r := slices.Clone(l)
	slices.Reverse(r)
	return r
}

func square(x0, y0, side float64) []mgl64.Vec2 {
	return []mgl64.Vec2{{x0, y0}, {x0 + side, y0}, {x0 + side, y0 + side}, {x0, y0 + side}}
}

// lShape is a concave L of 6 vertices, counter-clockwise.
func lShape() []mgl64.Vec2 {
	return []mgl64.Vec2{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}
}

// star has n vertices alternating between radius 1 and 0.5, counter-clockwise.
func star(n int) []mgl64.Vec2 {
	l := make([]mgl64.Vec2, n)
	for i := range l {
		r := 1.0
		if i%2 == 1 {
			r = 0.5
		}
		s, c := math.Sincos(2 * math.Pi * float64(i) / float64(n))
		l[i] = mgl64.Vec2{r * c, r * s}
	}
	return l
}

// comb is a counter-clockwise comb with 112 teeth (width and gap 0.5, base
// 0 ≤ y ≤ 1, teeth up to y = 2) and two extra collinear vertices on its base:
// 450 vertices in all.
func comb() []mgl64.Vec2 {
	const teeth = 112
	w := float64(teeth-1) + 0.5
	l := []mgl64.Vec2{{0, 0}, {w / 3, 0}, {2 * w / 3, 0}, {w, 0}}
	for i := teeth - 1; i >= 0; i-- {
		x := float64(i)
		l = append(l, mgl64.Vec2{x + 0.5, 2}, mgl64.Vec2{x, 2})
		if i > 0 {
			l = append(l, mgl64.Vec2{x, 1}, mgl64.Vec2{x - 0.5, 1})
		}
	}
	return l
}

// checkPolygon checks a polygon built from loops against its definition.
func checkPolygon(t *testing.T, s *Shape, loops [][]mgl64.Vec2) {
	t.Helper()
	nv := 0
	for _, l := range loops {
		nv += len(l)
	}
	if s.Dim() != Dim2 {
		t.Errorf("Dim = %v, want 2", s.Dim())
	}
	if s.NumVertices() != nv || s.NumPrims() != nv {
		t.Fatalf("NumVertices/NumPrims = %d/%d, want %d/%d", s.NumVertices(), s.NumPrims(), nv, nv)
	}
	// Vertex indices keep the input order, outer loop first.
	bounds := AABB{Min: mgl64.Vec3{math.Inf(1), math.Inf(1), 0}, Max: mgl64.Vec3{math.Inf(-1), math.Inf(-1), 0}}
	radius, perimeter := 0.0, 0.0
	base := 0
	for _, l := range loops {
		for i, v := range l {
			if got := s.Vertex(base + i); got != (mgl64.Vec3{v[0], v[1], 0}) {
				t.Errorf("Vertex(%d) = %v, want %v", base+i, got, v)
			}
			for k := 0; k < 2; k++ {
				bounds.Min[k] = min(bounds.Min[k], v[k])
				bounds.Max[k] = max(bounds.Max[k], v[k])
			}
			radius = max(radius, v.Len())
			perimeter += l[(i+1)%len(l)].Sub(v).Len()
		}
		base += len(l)
	}
	const tol = 1e-12
	if b := s.Bounds(); !nearVec(b.Min, bounds.Min, tol) || !nearVec(b.Max, bounds.Max, tol) {
		t.Errorf("Bounds = %v, want %v", b, bounds)
	}
	if !near(s.Radius(), radius, tol*(1+radius)) {
		t.Errorf("Radius = %v, want %v", s.Radius(), radius)
	}
	if want := perimeter / float64(nv); !near(s.AvgPrimSize(), want, tol*(1+want)) {
		t.Errorf("AvgPrimSize = %v, want %v", s.AvgPrimSize(), want)
	}

	base = 0
	for li, l := range loops {
		n := len(l)
		// Outer counter-clockwise and holes clockwise after reorientation.
		wantCCW := li == 0
		flipped := (signedArea(l) > 0) != wantCCW
		for k := 0; k < n; k++ {
			i := base + k
			a, b := int32(base+k), int32(base+(k+1)%n)
			prev, next := base+(k+n-1)%n, base+(k+1)%n
			if flipped {
				a, b = b, a
				prev, next = next, prev
			}
			if got := s.Prim(i); got != [3]int32{a, b, -1} {
				t.Errorf("loop %d: Prim(%d) = %v, want %v", li, i, got, [3]int32{a, b, -1})
			}
			if s.Adjacent(i, 0) != prev || s.Adjacent(i, 2) != next || s.Adjacent(i, 1) != -1 {
				t.Errorf("loop %d: Adjacent(%d, 0/1/2) = %d/%d/%d, want %d/-1/%d", li, i,
					s.Adjacent(i, 0), s.Adjacent(i, 1), s.Adjacent(i, 2), prev, next)
			}

			// The face normal points out of the material: into the
			// exterior for the outer loop, into the hole for holes.
			n3 := s.FaceNormal(i)
			if !near(n3.Len(), 1, 1e-12) || n3[2] != 0 {
				t.Errorf("FaceNormal(%d) = %v is not a unit vector of the plane", i, n3)
			}
			nrm := mgl64.Vec2{n3[0], n3[1]}
			pa, pb := s.Vertex(int(a)), s.Vertex(int(b))
			d := pb.Sub(pa)
			if !near(nrm.Dot(mgl64.Vec2{d[0], d[1]}), 0, 1e-12*d.Len()) {
				t.Errorf("FaceNormal(%d) = %v is not perpendicular to the segment %v", i, n3, d)
			}
			mid := mgl64.Vec2{(pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2}
			out, in := mid.Add(nrm.Mul(1e-3)), mid.Sub(nrm.Mul(1e-3))
			if inLoops(out, loops...) {
				t.Errorf("loop %d segment %d: midpoint + 1e-3·normal %v is inside", li, i, out)
			}
			if !inLoops(in, loops...) {
				t.Errorf("loop %d segment %d: midpoint - 1e-3·normal %v is outside", li, i, in)
			}
			if li > 0 && !inLoops(out, l) {
				t.Errorf("hole %d segment %d: normal does not point into the hole", li, i)
			}
		}
		// Following Adjacent(·, 2) walks the whole ring once.
		seen := make(map[int]bool, n)
		for i, steps := base, 0; steps < n; steps++ {
			if seen[i] {
				t.Errorf("loop %d: ring revisits segment %d after %d steps", li, i, steps)
				break
			}
			seen[i] = true
			j := s.Adjacent(i, 2)
			if s.Prim(j)[0] != s.Prim(i)[1] || s.Adjacent(j, 0) != i {
				t.Errorf("segments %d %v and %d %v are not linked head to tail", i, s.Prim(i), j, s.Prim(j))
			}
			i = j
		}
		base += n
	}

	// Vertex normals: unit, in the plane, pointing out of the material.
	for i := 0; i < nv; i++ {
		vn := s.VertexNormal(i)
		if !near(vn.Len(), 1, 1e-12) || vn[2] != 0 {
			t.Errorf("VertexNormal(%d) = %v is not a unit vector of the plane", i, vn)
			continue
		}
		v := s.Vertex(i)
		p := mgl64.Vec2{v[0] + 1e-6*vn[0], v[1] + 1e-6*vn[1]}
		q := mgl64.Vec2{v[0] - 1e-6*vn[0], v[1] - 1e-6*vn[1]}
		if inLoops(p, loops...) || !inLoops(q, loops...) {
			t.Errorf("VertexNormal(%d) = %v does not point out of the material", i, vn)
		}
	}
}

func TestNewPolygonValid(t *testing.T) {
	cases := []struct {
		name  string
		loops [][]mgl64.Vec2
	}{
		{"square", [][]mgl64.Vec2{square(0, 0, 1)}},
		{"square clockwise", [][]mgl64.Vec2{reversed(square(0, 0, 1))}},
		{"triangle", [][]mgl64.Vec2{{{0, 0}, {1, 0}, {0, 1}}}},
		{"L-shape", [][]mgl64.Vec2{lShape()}},
		{"L-shape clockwise", [][]mgl64.Vec2{reversed(lShape())}},
		{"star 100", [][]mgl64.Vec2{star(100)}},
		{"star 100 clockwise", [][]mgl64.Vec2{reversed(star(100))}},
		{"comb 450", [][]mgl64.Vec2{comb()}},
		{"comb 450 clockwise", [][]mgl64.Vec2{reversed(comb())}},
		{"square with hole (hole clockwise)", [][]mgl64.Vec2{square(0, 0, 3), reversed(square(1, 1, 1))}},
		{"square with hole (hole counter-clockwise)", [][]mgl64.Vec2{square(0, 0, 3), square(1, 1, 1)}},
		{"clockwise square with hole", [][]mgl64.Vec2{reversed(square(0, 0, 3)), square(1, 1, 1)}},
		{"square with two holes", [][]mgl64.Vec2{square(0, 0, 5), square(1, 1, 1), reversed(square(3, 3, 1))}},
		{"L-shape with a hole", [][]mgl64.Vec2{lShape(), square(0.25, 0.25, 0.5)}},
		{"far from origin", [][]mgl64.Vec2{{{1e4, 1e4}, {1e4 + 1, 1e4}, {1e4 + 1, 1e4 + 1}, {1e4, 1e4 + 1}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewPolygon(c.loops[0], c.loops[1:]...)
			if err != nil {
				t.Fatalf("NewPolygon: %v", err)
			}
			checkPolygon(t, s, c.loops)
		})
	}
}

func TestNewPolygonCopiesInput(t *testing.T) {
	sq := square(0, 0, 1)
	s, err := NewPolygon(sq)
	if err != nil {
		t.Fatal(err)
	}
	sq[0] = mgl64.Vec2{5, 5}
	if s.Vertex(0) != (mgl64.Vec3{}) {
		t.Errorf("shape aliases its input: Vertex(0) = %v", s.Vertex(0))
	}
}

func TestNewPolygonErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(-1)
	type tc struct {
		name  string
		loops [][]mgl64.Vec2
		kind  error
		check func(t *testing.T, e *ShapeError)
	}
	fields := func(loop, vertex, prim, other int) func(t *testing.T, e *ShapeError) {
		return func(t *testing.T, e *ShapeError) {
			t.Helper()
			if e.Loop != loop || e.Vertex != vertex || e.Prim != prim || e.Other != other {
				t.Errorf("Loop/Vertex/Prim/Other = %d/%d/%d/%d, want %d/%d/%d/%d",
					e.Loop, e.Vertex, e.Prim, e.Other, loop, vertex, prim, other)
			}
			msg := e.Error()
			if loop >= 0 {
				wantMention(t, msg, "loop", loop)
			}
			if vertex >= 0 {
				wantMention(t, msg, "vertex", vertex)
			}
			if prim >= 0 {
				wantMention(t, msg, "primitive", prim)
			}
			if other >= 0 {
				wantMention(t, msg, "primitive", other)
			}
		}
	}
	// crossing checks that Prim < Other are both set and both in set.
	crossing := func(set ...int) func(t *testing.T, e *ShapeError) {
		return func(t *testing.T, e *ShapeError) {
			t.Helper()
			if e.Prim < 0 || e.Other <= e.Prim || !slices.Contains(set, e.Prim) || !slices.Contains(set, e.Other) {
				t.Errorf("Prim/Other = %d/%d, want two of %v", e.Prim, e.Other, set)
			}
			wantMention(t, e.Error(), "primitive", e.Prim)
			wantMention(t, e.Error(), "primitive", e.Other)
		}
	}
	hole := func(loop int) func(t *testing.T, e *ShapeError) {
		return func(t *testing.T, e *ShapeError) {
			t.Helper()
			if !errors.Is(e, ErrHole) {
				t.Errorf("error %v does not wrap ErrHole", e)
			}
			if e.Loop != loop {
				t.Errorf("Loop = %d, want %d", e.Loop, loop)
			}
			wantMention(t, e.Error(), "loop", loop)
		}
	}
	cases := []tc{
		{name: "no vertices", loops: [][]mgl64.Vec2{nil}, kind: ErrEmpty},
		{name: "one vertex", loops: [][]mgl64.Vec2{{{0, 0}}}, kind: ErrDegenerate, check: fields(0, -1, -1, -1)},
		{name: "two vertices", loops: [][]mgl64.Vec2{{{0, 0}, {1, 0}}}, kind: ErrDegenerate, check: fields(0, -1, -1, -1)},
		{name: "hole with two vertices", loops: [][]mgl64.Vec2{square(0, 0, 3), {{1, 1}, {2, 1}}}, kind: ErrDegenerate, check: fields(1, -1, -1, -1)},
		{name: "empty hole", loops: [][]mgl64.Vec2{square(0, 0, 3), {}}, kind: ErrDegenerate, check: fields(1, -1, -1, -1)},
		{name: "NaN x", loops: [][]mgl64.Vec2{{{0, 0}, {1, 0}, {nan, 1}, {0, 1}}}, kind: ErrNonFinite, check: fields(0, 2, -1, -1)},
		{name: "NaN y", loops: [][]mgl64.Vec2{{{0, nan}, {1, 0}, {1, 1}}}, kind: ErrNonFinite, check: fields(0, 0, -1, -1)},
		{name: "-Inf in a hole", loops: [][]mgl64.Vec2{square(0, 0, 3), {{1, 1}, {2, inf}, {2, 2}}}, kind: ErrNonFinite, check: fields(1, 5, -1, -1)},
		{name: "repeated consecutive vertex", loops: [][]mgl64.Vec2{{{0, 0}, {1, 0}, {1, 0}, {1, 1}, {0, 1}}}, kind: ErrDegenerate, check: fields(0, 2, 1, -1)},
		{name: "closing vertex repeated", loops: [][]mgl64.Vec2{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}, kind: ErrDegenerate, check: fields(0, 0, 4, -1)},
		{name: "repeated vertex in a hole", loops: [][]mgl64.Vec2{square(0, 0, 3), {{1, 1}, {2, 1}, {2, 2}, {2, 2}}}, kind: ErrDegenerate, check: fields(1, 7, 6, -1)},
		{name: "collinear", loops: [][]mgl64.Vec2{{{0, 0}, {1, 0}, {2, 0}}}, kind: ErrDegenerate, check: fields(0, -1, -1, -1)},
		{name: "collinear diagonal", loops: [][]mgl64.Vec2{{{0, 0}, {1, 1}, {3, 3}, {2, 2}}}, kind: ErrDegenerate, check: fields(0, -1, -1, -1)},
		{name: "collinear hole", loops: [][]mgl64.Vec2{square(0, 0, 3), {{1, 1}, {1.5, 1.5}, {2, 2}}}, kind: ErrDegenerate, check: fields(1, -1, -1, -1)},
		{name: "bow-tie", loops: [][]mgl64.Vec2{{{0, 0}, {2, 2}, {2, 0}, {0, 1}}}, kind: ErrSelfIntersect, check: fields(-1, -1, 0, 2)},
		{name: "bow-tie clockwise", loops: [][]mgl64.Vec2{reversed([]mgl64.Vec2{{0, 0}, {2, 2}, {2, 0}, {0, 1}})}, kind: ErrSelfIntersect, check: crossing(0, 2)},
		{
			// Two triangles meeting at the point (1,1), visited twice.
			name:  "outline touches itself at a vertex",
			loops: [][]mgl64.Vec2{{{0, 0}, {2, 0}, {1, 1}, {2, 2}, {0, 2}, {1, 1}}},
			kind:  ErrSelfIntersect, check: crossing(1, 2, 4, 5),
		},
		{
			// Vertex 4 (2,0) lies inside segment 0.
			name:  "vertex on another segment",
			loops: [][]mgl64.Vec2{{{0, 0}, {4, 0}, {4, 4}, {3, 4}, {2, 0}, {1, 4}, {0, 4}}},
			kind:  ErrSelfIntersect, check: crossing(0, 3, 4),
		},
		{
			// A spike out and back along the same line.
			name:  "outline doubles back",
			loops: [][]mgl64.Vec2{{{0, 0}, {2, 0}, {2, 1}, {3, 1}, {2.5, 1}, {2, 2}, {0, 2}}},
			kind:  ErrSelfIntersect, check: crossing(1, 2, 3, 4),
		},
		{name: "hole outside the outer loop", loops: [][]mgl64.Vec2{square(0, 0, 1), square(3, 3, 1)}, kind: ErrSelfIntersect, check: hole(1)},
		{name: "outer loop inside the hole", loops: [][]mgl64.Vec2{square(1, 1, 1), square(0, 0, 3)}, kind: ErrSelfIntersect, check: hole(1)},
		{name: "hole crossing the outer loop", loops: [][]mgl64.Vec2{square(0, 0, 2), square(1, 1, 2)}, kind: ErrSelfIntersect, check: crossing(1, 2, 4, 7)},
		{name: "hole touching the outer loop", loops: [][]mgl64.Vec2{square(0, 0, 2), {{1, 0}, {1.5, 1}, {0.5, 1}}}, kind: ErrSelfIntersect, check: crossing(0, 4, 6)},
		{name: "overlapping holes", loops: [][]mgl64.Vec2{square(0, 0, 5), square(1, 1, 2), square(2, 2, 2)}, kind: ErrSelfIntersect, check: crossing(5, 6, 8, 11)},
		{name: "hole inside another hole", loops: [][]mgl64.Vec2{square(0, 0, 5), square(1, 1, 3), square(2, 2, 1)}, kind: ErrSelfIntersect, check: hole(2)},
		{name: "hole around another hole", loops: [][]mgl64.Vec2{square(0, 0, 5), square(2, 2, 1), square(1, 1, 3)}, kind: ErrSelfIntersect, check: hole(1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := NewPolygon(c.loops[0], c.loops[1:]...)
			if s != nil {
				t.Errorf("got a shape with the error %v", err)
			}
			e := wantShapeError(t, err, c.kind)
			if c.check != nil {
				c.check(t, e)
			}
			t.Logf("%v", err)
		})
	}
}
