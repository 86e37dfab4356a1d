package narrow

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// shapeSentinels are the sentinel errors of errors.go.
var shapeSentinels = []error{
	ErrEmpty, ErrNonFinite, ErrIndexRange, ErrDegenerate, ErrOpenBoundary,
	ErrNonManifold, ErrWinding, ErrSelfIntersect, ErrSyntax, ErrBadPose,
	ErrUnknownShape, ErrDimension, ErrDuplicatePair, ErrBadParams,
	ErrBackendClosed, ErrTooLarge,
}

// checkConstructorError checks that a constructor failure is a *ShapeError
// wrapping exactly one sentinel.
func checkConstructorError(t *testing.T, s *Shape, err error) {
	t.Helper()
	if s != nil {
		t.Fatalf("shape returned with error %v", err)
	}
	n := 0
	for _, k := range shapeSentinels {
		if errors.Is(err, k) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("error %q wraps %d sentinel errors, want 1", err, n)
	}
	var se *ShapeError
	if !errors.As(err, &se) {
		t.Fatalf("error %q (%T) is not a *ShapeError", err, err)
	}
	if err.Error() == "" {
		t.Fatal("empty error message")
	}
}

func isUnit(v mgl64.Vec3) bool {
	return math.Abs(v.Len()-1) <= 1e-9
}

// float64s decodes little-endian float64 values from b, at most max.
func float64s(b []byte, max int) []float64 {
	n := min(len(b)/8, max)
	f := make([]float64, n)
	for i := range f {
		f[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return f
}

func putFloat64s(b []byte, f ...float64) []byte {
	for _, x := range f {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// encodePolygon is the inverse of the decoding in FuzzNewPolygon.
func encodePolygon(outer []mgl64.Vec2, hole []mgl64.Vec2) []byte {
	split := byte(0)
	if hole != nil {
		split = byte(len(outer))
	}
	b := []byte{split}
	for _, v := range append(append([]mgl64.Vec2(nil), outer...), hole...) {
		b = putFloat64s(b, v[0], v[1])
	}
	return b
}

const fuzzMaxPolyVerts = 64

// FuzzNewPolygon decodes a split byte and up to 64 float64 pairs. With
// 0 < split < n, vertices [0, split) form the outer loop and the rest one
// hole; otherwise all vertices form the outer loop.
func FuzzNewPolygon(f *testing.F) {
	f.Add(encodePolygon(square(0, 0, 1), nil))
	f.Add(encodePolygon(reversed(square(0, 0, 1)), nil))
	f.Add(encodePolygon(lShape(), nil))
	f.Add(encodePolygon(star(64), nil))
	f.Add(encodePolygon(square(0, 0, 3), square(1, 1, 1)))
	f.Add(encodePolygon(square(0, 0, 3), reversed(square(1, 1, 1))))
	f.Add(encodePolygon(square(0, 0, 1), square(3, 3, 1)))
	f.Add(encodePolygon([]mgl64.Vec2{{0, 0}, {2, 2}, {2, 0}, {0, 1}}, nil))
	f.Add(encodePolygon([]mgl64.Vec2{{0, 0}, {2, 0}, {1, 1}, {2, 2}, {0, 2}, {1, 1}}, nil))
	f.Add(encodePolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {2, 0}}, nil))
	f.Add(encodePolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 0}, {0, 1}}, nil))
	f.Add(encodePolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {math.NaN(), 1}}, nil))
	f.Add([]byte{})
	f.Add([]byte{1})

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		split := int(data[0])
		fl := float64s(data[1:], 2*fuzzMaxPolyVerts)
		verts := make([]mgl64.Vec2, len(fl)/2)
		for i := range verts {
			verts[i] = mgl64.Vec2{fl[2*i], fl[2*i+1]}
		}
		loops := [][]mgl64.Vec2{verts}
		if split > 0 && split < len(verts) {
			loops = [][]mgl64.Vec2{verts[:split], verts[split:]}
		}
		s, err := NewPolygon(loops[0], loops[1:]...)
		if err != nil {
			checkConstructorError(t, s, err)
			return
		}
		if s == nil {
			t.Fatal("nil shape and nil error")
		}
		checkGridSurface(t, s)
		if s.Dim() != Dim2 || s.NumVertices() != len(verts) || s.NumPrims() != len(verts) {
			t.Fatalf("Dim/NumVertices/NumPrims = %v/%d/%d for %d vertices", s.Dim(), s.NumVertices(), s.NumPrims(), len(verts))
		}
		for i, v := range verts {
			if s.Vertex(i) != (mgl64.Vec3{v[0], v[1], 0}) {
				t.Fatalf("Vertex(%d) = %v, want %v", i, s.Vertex(i), v)
			}
			if vn := s.VertexNormal(i); !isUnit(vn) || vn[2] != 0 {
				t.Fatalf("VertexNormal(%d) = %v (|n| = %v)", i, vn, vn.Len())
			}
		}
		for i := 0; i < s.NumPrims(); i++ {
			p := s.Prim(i)
			if p[0] < 0 || int(p[0]) >= len(verts) || p[1] < 0 || int(p[1]) >= len(verts) || p[2] != -1 || p[0] == p[1] {
				t.Fatalf("Prim(%d) = %v", i, p)
			}
			prev, next := s.Adjacent(i, 0), s.Adjacent(i, 2)
			if s.Adjacent(i, 1) != -1 || prev < 0 || prev >= s.NumPrims() || next < 0 || next >= s.NumPrims() {
				t.Fatalf("Adjacent(%d, 0/1/2) = %d/%d/%d", i, prev, s.Adjacent(i, 1), next)
			}
			if s.Adjacent(next, 0) != i || s.Adjacent(prev, 2) != i {
				t.Fatalf("asymmetric links around segment %d: prev %d (next of it %d), next %d (prev of it %d)",
					i, prev, s.Adjacent(prev, 2), next, s.Adjacent(next, 0))
			}
			if s.Prim(next)[0] != p[1] || s.Prim(prev)[1] != p[0] {
				t.Fatalf("segment %d %v is not linked head to tail with %v and %v", i, p, s.Prim(prev), s.Prim(next))
			}
		}
	})
}

// encodeMesh is the inverse of the decoding in FuzzNewMesh for meshes with
// at most 32 vertices and indices in [-1, len(verts)].
func encodeMesh(verts []mgl64.Vec3, tris [][3]int) []byte {
	b := []byte{byte(len(verts))}
	for _, v := range verts {
		b = putFloat64s(b, v[0], v[1], v[2])
	}
	for _, t := range tris {
		for _, i := range t {
			b = append(b, byte(i+1))
		}
	}
	return b
}

const (
	fuzzMaxMeshVerts = 32
	fuzzMaxMeshTris  = 128
)

// FuzzNewMesh decodes a vertex count n (at most 32), n float64 triples and
// then triangle corners, one byte each, mapped to indices in [-1, n].
func FuzzNewMesh(f *testing.F) {
	cv, ct := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	f.Add(encodeMesh(cv, ct))
	tv, tt := testTetraData()
	f.Add(encodeMesh(tv, tt))
	fv, ft := testBoxData(mgl64.Vec3{1, 2, 3}, mgl64.Vec3{1e4, -1e4, 0})
	f.Add(encodeMesh(fv, ft))
	// Two cubes, one of them inside out.
	{
		v, tr := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
		v2, tr2 := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{2, 0, 0})
		for _, t := range tr2 {
			tr = append(tr, flip([3]int{t[0] + 8, t[1] + 8, t[2] + 8}))
		}
		f.Add(encodeMesh(append(v, v2...), tr))
	}
	{
		v, tr := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
		tr[5] = flip(tr[5])
		f.Add(encodeMesh(v, tr))
		f.Add(encodeMesh(v, tr[:11]))
	}
	{
		v, tr := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
		v = append(v, mgl64.Vec3{0, -2, -0.5})
		f.Add(encodeMesh(v, append(tr, [3]int{0, 1, 8})))
	}
	{
		v, tr := testBoxData(mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
		v[2][0] = math.Inf(1)
		f.Add(encodeMesh(v, tr))
	}
	f.Add([]byte{})
	f.Add([]byte{3, 0, 1, 2})

	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		nv := int(data[0]) % (fuzzMaxMeshVerts + 1)
		fl := float64s(data[1:], 3*nv)
		nv = len(fl) / 3
		verts := make([]mgl64.Vec3, nv)
		for i := range verts {
			verts[i] = mgl64.Vec3{fl[3*i], fl[3*i+1], fl[3*i+2]}
		}
		rest := data[1+24*nv:]
		tris := make([][3]int, min(len(rest)/3, fuzzMaxMeshTris))
		for i := range tris {
			for k := 0; k < 3; k++ {
				tris[i][k] = int(rest[3*i+k])%(nv+2) - 1
			}
		}
		s, err := NewMesh(verts, tris)
		if err != nil {
			checkConstructorError(t, s, err)
			return
		}
		if s == nil {
			t.Fatal("nil shape and nil error")
		}
		checkGridSurface(t, s)
		if s.Dim() != Dim3 || s.NumVertices() != len(verts) || s.NumPrims() != len(tris) {
			t.Fatalf("Dim/NumVertices/NumPrims = %v/%d/%d for %d vertices, %d triangles", s.Dim(), s.NumVertices(), s.NumPrims(), len(verts), len(tris))
		}
		used := make([]bool, len(verts))
		for _, tr := range tris {
			for _, i := range tr {
				used[i] = true
			}
		}
		for i, v := range verts {
			if s.Vertex(i) != v {
				t.Fatalf("Vertex(%d) = %v, want %v", i, s.Vertex(i), v)
			}
			vn := s.VertexNormal(i)
			if used[i] && !isUnit(vn) {
				t.Fatalf("VertexNormal(%d) = %v (|n| = %v)", i, vn, vn.Len())
			}
			if !used[i] && vn != (mgl64.Vec3{}) {
				t.Fatalf("unused vertex %d has normal %v", i, vn)
			}
		}
		for i := 0; i < s.NumPrims(); i++ {
			p := s.Prim(i)
			for k := 0; k < 3; k++ {
				j := s.Adjacent(i, k)
				if j < 0 || j >= s.NumPrims() {
					t.Fatalf("Adjacent(%d, %d) = %d", i, k, j)
				}
				a, b := cornerOf(p, k)
				back := false
				for m := 0; m < 3; m++ {
					c, d := cornerOf(s.Prim(j), m)
					back = back || (s.Adjacent(j, m) == i && c == b && d == a)
				}
				if !back {
					t.Fatalf("triangle %d %v slot %d -> %d %v does not link back across %d-%d", i, p, k, j, s.Prim(j), a, b)
				}
			}
		}
		checkEdges(t, s)
	})
}

// checkEdges checks a valid mesh's edge list (Shape.Edge): every edge
// joins two vertices of both its faces, bends by an angle in (0, π],
// SharpEdges counts agree with the list, and the edge test of the shape
// against itself, shifted by a third of its size, returns finite contacts
// within the depth bound.
func checkEdges(t *testing.T, s *Shape) {
	t.Helper()
	for i := range s.NumEdges() {
		e := s.Edge(i)
		for _, f := range e.Faces {
			if p := s.Prim(int(f)); !slices.Contains(p[:], e.V[0]) || !slices.Contains(p[:], e.V[1]) || e.V[0] == e.V[1] {
				t.Fatalf("edge %d %+v: face %d is %v", i, e, f, p)
			}
		}
		if !(e.Angle > 0 && e.Angle <= math.Pi) {
			t.Fatalf("edge %d bends by %v", i, e.Angle)
		}
	}
	for _, a := range []float64{0, 0.5, 1.5} {
		n := 0
		for i := range s.NumEdges() {
			if s.Edge(i).Angle > a {
				n++
			}
		}
		if got := s.SharpEdges(a); got != n {
			t.Fatalf("SharpEdges(%v) = %d, the list has %d", a, got, n)
		}
	}
	pb := Pose{Pos: mgl64.Vec3{s.size / 3, s.size / 5, s.size / 7}, Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 1, 0}.Normalize())}
	if !finite(pb.Pos[0]) {
		return
	}
	var d Direction
	d.SetPoses(SideA, s, s, &Identity, &pb)
	var sc EdgeScratch
	all := d.AppendEdgeContacts(nil, &sc, 0, s.size, s.size/10, TraversalBVH)
	for _, c := range all {
		if !(c.Depth > 0 && c.Depth <= s.size || c.Depth < 0 && -c.Depth <= s.size/10) || !finite(c.P[0]+c.P[1]+c.P[2]) || !isUnit(c.Dir) || c.Feature != FeatureEdge {
			t.Fatalf("edge contact %+v", c)
		}
	}
	// The pairs chosen with a margin give the same contacts where they
	// were chosen.
	pairs := d.AppendEdgePairs(nil, &sc, 0, s.size, s.size/10, s.size/20)
	if got := d.AppendEdgePairContacts(nil, pairs, s.size, s.size/10, TraversalBVH); !slices.Equal(got, all) {
		t.Fatalf("edge contacts of %d kept pairs %v, of all edges %v", len(pairs), got, all)
	}
}

// checkGridSurface checks that the shape's outside grid, if any, bounds
// no point of the surface away from 0: its vertices (those primitives
// use) and the centroids of its primitives lie in cells holding 0.
func checkGridSurface(t *testing.T, s *Shape) {
	t.Helper()
	g := s.grid
	if g == nil {
		return
	}
	for i, v := range s.verts {
		if s.vnorm[i] == ([3]float64{}) {
			continue // used by no primitive: not on the surface
		}
		if k, _ := g.cell(v[0], v[1], v[2]); k != 0 {
			t.Fatalf("vertex %d %v lies in a grid cell of value %d", i, v, k)
		}
	}
	for i, p := range s.prims {
		a, b := s.verts[p[0]], s.verts[p[1]]
		c := b
		if p[2] >= 0 {
			c = s.verts[p[2]]
		}
		m := [3]float64{(a[0] + b[0] + c[0]) / 3, (a[1] + b[1] + c[1]) / 3, (a[2] + b[2] + c[2]) / 3}
		if k, _ := g.cell(m[0], m[1], m[2]); k != 0 {
			t.Fatalf("the centroid %v of primitive %d lies in a grid cell of value %d", m, i, k)
		}
	}
}

// FuzzDeform deforms a box (and then its deformation again, chained) by
// offsets of its vertices read from the input, NaN, infinities and huge
// values included: Deform either fails with a *ShapeError wrapping one
// sentinel, or returns a shape whose normals are unit, whose hierarchy
// holds its triangles and answers rays as brute force does.
func FuzzDeform(f *testing.F) {
	f.Add(putFloat64s(nil, 0.1, -0.2, 0.05))
	f.Add(putFloat64s(nil, 0, 0, 0, 0, 0, 0.5, 0, 0, -1))
	f.Add(putFloat64s(nil, math.NaN(), 1, 2))
	f.Add(putFloat64s(nil, 1e300, -1e300, 1e-300, 3, 4, 5))
	f.Add([]byte{})
	base, err := NewBox(mgl64.Vec3{-1, -0.5, -0.25}, mgl64.Vec3{1, 0.5, 0.25})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		off := float64s(data, 3*base.NumVertices())
		verts := make([]mgl64.Vec3, base.NumVertices())
		for i := range verts {
			verts[i] = base.Vertex(i)
			for k := 0; k < 3 && 3*i+k < len(off); k++ {
				verts[i][k] += off[3*i+k]
			}
		}
		var dst Shape
		from := base
		for round := 0; round < 2; round++ { // the second from the first's result
			s, err := from.Deform(verts)
			if err != nil {
				checkConstructorError(t, s, err)
				if err := from.DeformInto(&dst, verts); err == nil || dst.NumVertices() != 0 {
					t.Fatalf("DeformInto: %v, %d vertices left, where Deform failed", err, dst.NumVertices())
				}
				return
			}
			for i := range verts {
				if n := s.VertexNormal(i); !isUnit(n) {
					t.Fatalf("VertexNormal(%d) = %v", i, n)
				}
			}
			for i := 0; i < s.NumPrims(); i++ {
				if n := s.FaceNormal(i); !isUnit(n) {
					t.Fatalf("FaceNormal(%d) = %v", i, n)
				}
			}
			if err := from.DeformInto(&dst, verts); err != nil {
				t.Fatalf("DeformInto: %v, where Deform succeeded", err)
			}
			c := s.Bounds().Center()
			prims := s.AppendPrimitives(nil)
			for _, d := range []mgl64.Vec3{{1, 0, 0}, {0, -1, 0}, {0.3, 0.4, -0.8}} {
				q := RayQuery{O: c.Sub(d.Mul(10 * s.Size())), D: d.Normalize(), TMax: math.Inf(1)}
				wf, wb := bruteQuery(prims, &q)
				if f, b := s.TraceQuery(&q, TraversalBVH); f != wf || b != wb {
					t.Fatalf("ray along %v: %+v %+v, brute force %+v %+v", d, f, b, wf, wb)
				}
			}
			from = s
		}
	})
}
