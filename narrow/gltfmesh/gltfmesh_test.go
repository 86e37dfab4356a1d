package gltfmesh_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/narrow/gltfmesh"
)

// builder assembles a glTF document by hand, one buffer, so that tests
// control every component type, stride and offset.
type builder struct {
	doc *gltf.Document
	buf []byte
}

func newBuilder() *builder {
	return &builder{doc: &gltf.Document{Asset: gltf.Asset{Version: "2.0"}}}
}

// view appends data (4-byte aligned) as a buffer view and returns it.
func (b *builder) view(data []byte, stride int) int {
	for len(b.buf)%4 != 0 {
		b.buf = append(b.buf, 0)
	}
	b.doc.BufferViews = append(b.doc.BufferViews, &gltf.BufferView{Buffer: 0, ByteOffset: len(b.buf), ByteLength: len(data), ByteStride: stride})
	b.buf = append(b.buf, data...)
	return len(b.doc.BufferViews) - 1
}

// accessor adds an accessor over view v and returns it.
func (b *builder) accessor(v int, ct gltf.ComponentType, at gltf.AccessorType, count int, normalized bool) int {
	b.doc.Accessors = append(b.doc.Accessors, &gltf.Accessor{BufferView: gltf.Index(v), ComponentType: ct, Type: at, Count: count, Normalized: normalized})
	return len(b.doc.Accessors) - 1
}

// positions adds float32 positions and returns their accessor.
func (b *builder) positions(vs []mgl64.Vec3) int {
	return b.accessor(b.view(float32s(vs), 0), gltf.ComponentFloat, gltf.AccessorVec3, len(vs), false)
}

// float32s encodes positions as float32 triples.
func float32s(vs []mgl64.Vec3) []byte {
	var data []byte
	for _, v := range vs {
		for _, c := range v {
			data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(c)))
		}
	}
	return data
}

// indices adds vertex indices of component type ct and returns their
// accessor.
func (b *builder) indices(idx []int, ct gltf.ComponentType) int {
	return b.accessor(b.view(unsigneds(idx, ct), 0), ct, gltf.AccessorScalar, len(idx), false)
}

// unsigneds encodes integers as unsigned bytes, shorts or (any other ct)
// ints.
func unsigneds(idx []int, ct gltf.ComponentType) []byte {
	var data []byte
	for _, i := range idx {
		switch ct {
		case gltf.ComponentUbyte:
			data = append(data, byte(i))
		case gltf.ComponentUshort:
			data = binary.LittleEndian.AppendUint16(data, uint16(i))
		default:
			data = binary.LittleEndian.AppendUint32(data, uint32(i))
		}
	}
	return data
}

// mesh adds a mesh of the given primitives and returns it.
func (b *builder) mesh(prims ...*gltf.Primitive) int {
	b.doc.Meshes = append(b.doc.Meshes, &gltf.Mesh{Primitives: prims})
	return len(b.doc.Meshes) - 1
}

// triangles adds a primitive of mode TRIANGLES.
func triangles(pos, idx int) *gltf.Primitive {
	p := &gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitiveTriangles}
	if idx >= 0 {
		p.Indices = gltf.Index(idx)
	}
	return p
}

// node adds a node and returns it.
func (b *builder) node(n *gltf.Node) int {
	if n.Matrix == ([16]float64{}) {
		n.Matrix = gltf.DefaultMatrix
	}
	if n.Rotation == ([4]float64{}) {
		n.Rotation = gltf.DefaultRotation
	}
	if n.Scale == ([3]float64{}) {
		n.Scale = gltf.DefaultScale
	}
	b.doc.Nodes = append(b.doc.Nodes, n)
	return len(b.doc.Nodes) - 1
}

// scene makes the document's scene the given root nodes.
func (b *builder) scene(roots ...int) {
	b.doc.Scenes = append(b.doc.Scenes, &gltf.Scene{Nodes: roots})
	b.doc.Scene = gltf.Index(len(b.doc.Scenes) - 1)
}

// form is how a document is written.
type form int

const (
	glb      form = iota // binary container
	embedded             // JSON, the buffer as a data URI
	external             // JSON, the buffer in mesh.bin
)

func (f form) String() string { return [...]string{"glb", "embedded", "external"}[f] }

// encode writes b's document in form f; files holds mesh.bin for an
// external buffer.
func (b *builder) encode(t testing.TB, f form) (data []byte, files fstest.MapFS) {
	t.Helper()
	buf := &gltf.Buffer{ByteLength: len(b.buf), Data: b.buf}
	switch f {
	case embedded:
		buf.EmbeddedResource()
	case external:
		buf.URI = "mesh.bin"
		files = fstest.MapFS{"mesh.bin": {Data: b.buf}}
	}
	b.doc.Buffers = []*gltf.Buffer{buf}
	var out bytes.Buffer
	enc := gltf.NewEncoder(&out)
	enc.AsBinary = f == glb
	if err := enc.Encode(b.doc); err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), files
}

// readOBJ reads a test mesh.
func readOBJ(t testing.TB, name string) ([]mgl64.Vec3, [][3]int) {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", name+".obj"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	v, tr, _, err := narrow.ParseOBJ(f, name+".obj")
	if err != nil {
		t.Fatal(err)
	}
	return v, tr
}

// round32 rounds v to float32, as glTF stores positions.
func round32(v mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{float64(float32(v[0])), float64(float32(v[1])), float64(float32(v[2]))}
}

// sameTriangles fails unless the triangles of (gv, gt) are those of
// (v, t) at the given transform of the float32-rounded points, in order.
func sameTriangles(t *testing.T, gv []mgl64.Vec3, gt [][3]int, v []mgl64.Vec3, tr [][3]int, place func(mgl64.Vec3) mgl64.Vec3, tol float64) {
	t.Helper()
	if len(gt) != len(tr) {
		t.Fatalf("%d triangles, want %d", len(gt), len(tr))
	}
	for i := range tr {
		for c := range 3 {
			got, want := gv[gt[i][c]], place(round32(v[tr[i][c]]))
			if got.Sub(want).Len() > tol {
				t.Fatalf("triangle %d corner %d at %v, want %v", i, c, got, want)
			}
		}
	}
}

// volume returns s's volume (its mass at density 1).
func volume(t *testing.T, s *narrow.Shape) float64 {
	t.Helper()
	m, err := s.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	return m.Mass
}

func identity(v mgl64.Vec3) mgl64.Vec3 { return v }

// TestParseTestMeshes writes every test mesh as GLB and as JSON with an
// embedded and an external buffer, indexed with 16- and 32-bit indices and
// unindexed (a vertex per corner, as exporters write flat-shaded meshes),
// and reads it back: the same triangles at the same points, welded to the
// OBJ's vertices, and the same shape.
func TestParseTestMeshes(t *testing.T) {
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		v, tr := readOBJ(t, name)
		ref, err := narrow.NewMesh(v, tr)
		if err != nil {
			t.Fatal(err)
		}
		for _, layout := range []string{"ushort", "uint", "unindexed"} {
			b := newBuilder()
			var prim *gltf.Primitive
			switch layout {
			case "unindexed":
				corners := make([]mgl64.Vec3, 0, 3*len(tr))
				for _, f := range tr {
					corners = append(corners, v[f[0]], v[f[1]], v[f[2]])
				}
				prim = triangles(b.positions(corners), -1)
			default:
				ct := gltf.ComponentUshort
				if layout == "uint" {
					ct = gltf.ComponentUint
				}
				idx := make([]int, 0, 3*len(tr))
				for _, f := range tr {
					idx = append(idx, f[:]...)
				}
				prim = triangles(b.positions(v), b.indices(idx, ct))
			}
			b.scene(b.node(&gltf.Node{Mesh: gltf.Index(b.mesh(prim))}))
			for _, f := range []form{glb, embedded, external} {
				t.Run(name+"/"+layout+"/"+f.String(), func(t *testing.T) {
					data, files := b.encode(t, f)
					gv, gt, err := gltfmesh.ParseFS(bytes.NewReader(data), name+".gltf", files)
					if err != nil {
						t.Fatal(err)
					}
					if len(gv) != len(v) {
						t.Errorf("%d vertices, want the OBJ's %d", len(gv), len(v))
					}
					sameTriangles(t, gv, gt, v, tr, identity, 0)
					s, err := narrow.NewMesh(gv, gt)
					if err != nil {
						t.Fatal(err)
					}
					got, want := volume(t, s), volume(t, ref)
					if math.Abs(got-want) > 1e-6*math.Abs(want) {
						t.Errorf("volume %v, want %v", got, want)
					}
				})
			}
		}
	}
}

// cube returns the unit cube's corners and triangles (narrow.BoxCorners).
func cube() ([]mgl64.Vec3, [][3]int) {
	return narrow.BoxCorners(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5}), narrow.BoxTriangles()
}

// flat lists the corners of triangles.
func flat(tr [][3]int) []int {
	var idx []int
	for _, f := range tr {
		idx = append(idx, f[:]...)
	}
	return idx
}

// TestParseTransforms places a cube by node transforms: translation,
// rotation (not of unit length: normalized) and scale, a matrix, a parent
// and its child, a mirror (whose triangles are turned back
// counter-clockwise) and two nodes sharing one mesh (two cubes).
func TestParseTransforms(t *testing.T) {
	v, tr := cube()
	q := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	trs := mgl64.Translate3D(1, 2, 3).Mul4(q.Mat4()).Mul4(mgl64.Scale3D(2, 3, 4))
	mirror := mgl64.Scale3D(-1, 1, 1)
	tests := []struct {
		name   string
		nodes  func(b *builder, mesh int) []int
		places []mgl64.Mat4 // one per instance of the cube, in order
		volume float64
	}{
		{"trs", func(b *builder, mesh int) []int {
			return []int{b.node(&gltf.Node{Mesh: &mesh, Translation: [3]float64{1, 2, 3},
				Rotation: [4]float64{2 * q.V[0], 2 * q.V[1], 2 * q.V[2], 2 * q.W}, Scale: [3]float64{2, 3, 4}})}
		}, []mgl64.Mat4{trs}, 24},
		{"matrix", func(b *builder, mesh int) []int {
			return []int{b.node(&gltf.Node{Mesh: &mesh, Matrix: trs})}
		}, []mgl64.Mat4{trs}, 24},
		{"parent and child", func(b *builder, mesh int) []int {
			child := b.node(&gltf.Node{Mesh: &mesh, Translation: [3]float64{0, 0, 5}})
			return []int{b.node(&gltf.Node{Children: []int{child}, Scale: [3]float64{2, 2, 2}})}
		}, []mgl64.Mat4{mgl64.Scale3D(2, 2, 2).Mul4(mgl64.Translate3D(0, 0, 5))}, 8},
		{"mirror", func(b *builder, mesh int) []int {
			return []int{b.node(&gltf.Node{Mesh: &mesh, Scale: [3]float64{-1, 1, 1}})}
		}, []mgl64.Mat4{mirror}, 1},
		{"two instances", func(b *builder, mesh int) []int {
			return []int{
				b.node(&gltf.Node{Mesh: &mesh}),
				b.node(&gltf.Node{Mesh: &mesh, Translation: [3]float64{3, 0, 0}}),
			}
		}, []mgl64.Mat4{mgl64.Ident4(), mgl64.Translate3D(3, 0, 0)}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuilder()
			mesh := b.mesh(triangles(b.positions(v), b.indices(flat(tr), gltf.ComponentUbyte)))
			b.scene(tt.nodes(b, mesh)...)
			data, _ := b.encode(t, glb)
			gv, gt, err := gltfmesh.ParseFS(bytes.NewReader(data), "cube.glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			for k, m := range tt.places {
				place := func(p mgl64.Vec3) mgl64.Vec3 { return m.Mul4x1(p.Vec4(1)).Vec3() }
				part := gt[k*len(tr) : (k+1)*len(tr)]
				want := tr
				if m.Mat3().Det() < 0 {
					want = make([][3]int, len(tr))
					for i, f := range tr {
						want[i] = [3]int{f[0], f[2], f[1]}
					}
				}
				sameTriangles(t, gv, part, v, want, place, 1e-12)
			}
			s, err := narrow.NewMesh(gv, gt)
			if err != nil {
				t.Fatal(err)
			}
			if got := volume(t, s); math.Abs(got-tt.volume) > 1e-9 {
				t.Errorf("volume %v, want %v", got, tt.volume)
			}
		})
	}
}

// TestParseModes reads a tetrahedron as strips and fans, with points and
// lines beside it that give no triangle.
func TestParseModes(t *testing.T) {
	v := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	want := [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}
	tests := []struct {
		name  string
		prims func(b *builder, pos int) []*gltf.Primitive
	}{
		{"triangles", func(b *builder, pos int) []*gltf.Primitive {
			return []*gltf.Primitive{triangles(pos, b.indices(flat(want), gltf.ComponentUshort))}
		}},
		// By glTF's rule (triangle i is i, i+1+i%2, i+2−i%2) the strip
		// 0 2 1 3 0 2 is (0 2 1) (2 3 1) (1 3 0) (3 2 0); the leading and
		// trailing repeats give degenerate triangles, dropped.
		{"strip with joins", func(b *builder, pos int) []*gltf.Primitive {
			return []*gltf.Primitive{
				{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitiveTriangleStrip,
					Indices: gltf.Index(b.indices([]int{0, 0, 0, 2, 1, 3, 0, 2, 2, 2}, gltf.ComponentUint))},
			}
		}},
		{"fan and points and lines", func(b *builder, pos int) []*gltf.Primitive {
			return []*gltf.Primitive{
				{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitiveTriangleFan,
					Indices: gltf.Index(b.indices([]int{0, 2, 1, 3, 2}, gltf.ComponentUbyte))},
				{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitivePoints},
				{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitiveLines,
					Indices: gltf.Index(b.indices([]int{0, 1, 2, 9}, gltf.ComponentUbyte))},
				{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitiveTriangleFan,
					Indices: gltf.Index(b.indices([]int{1, 2, 3}, gltf.ComponentUbyte))},
				{Attributes: gltf.PrimitiveAttributes{"NORMAL": pos}, Mode: gltf.PrimitiveTriangles},
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBuilder()
			b.scene(b.node(&gltf.Node{Mesh: gltf.Index(b.mesh(tt.prims(b, b.positions(v))...))}))
			data, _ := b.encode(t, embedded)
			gv, gt, err := gltfmesh.ParseFS(bytes.NewReader(data), "tetra.gltf", nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := narrow.NewMesh(gv, gt)
			if err != nil {
				t.Fatalf("%v (triangles %v)", err, gt)
			}
			if got := volume(t, s); math.Abs(got-1.0/6) > 1e-12 {
				t.Errorf("volume %v, want 1/6 (triangles %v)", got, gt)
			}
		})
	}
}

// TestParseQuantized reads positions stored as integers
// (KHR_mesh_quantization), normalized or not, interleaved with another
// attribute (a byte stride) and at an accessor offset.
func TestParseQuantized(t *testing.T) {
	v, tr := cube()
	tests := []struct {
		ct         gltf.ComponentType
		normalized bool
		scale      float64 // the cube's half size in stored units
		unit       float64 // what the stored unit reads as
		size       int
	}{
		{gltf.ComponentByte, false, 100, 1, 1},
		{gltf.ComponentByte, true, 127, 1.0 / 127, 1},
		{gltf.ComponentShort, false, 1000, 1, 2},
		{gltf.ComponentShort, true, 32767, 1.0 / 32767, 2},
	}
	for _, tt := range tests {
		t.Run(tt.ct.String()+map[bool]string{false: "", true: "/normalized"}[tt.normalized], func(t *testing.T) {
			b := newBuilder()
			const stride, offset = 12, 4 // each vertex: 4 bytes of something else, then x y z
			data := make([]byte, stride*len(v))
			for i, p := range v {
				for c := range 3 {
					q := int(2 * p[c] * tt.scale)
					at := i*stride + offset + c*tt.size
					if tt.size == 1 {
						data[at] = byte(int8(q))
					} else {
						binary.LittleEndian.PutUint16(data[at:], uint16(int16(q)))
					}
				}
			}
			pos := b.accessor(b.view(data, stride), tt.ct, gltf.AccessorVec3, len(v), tt.normalized)
			b.doc.Accessors[pos].ByteOffset = offset
			b.doc.ExtensionsUsed = []string{"KHR_mesh_quantization"}
			b.doc.ExtensionsRequired = []string{"KHR_mesh_quantization"}
			b.scene(b.node(&gltf.Node{Mesh: gltf.Index(b.mesh(triangles(pos, b.indices(flat(tr), gltf.ComponentUshort))))}))
			enc, _ := b.encode(t, glb)
			gv, gt, err := gltfmesh.ParseFS(bytes.NewReader(enc), "q.glb", nil)
			if err != nil {
				t.Fatal(err)
			}
			half := tt.scale * tt.unit
			sameTriangles(t, gv, gt, v, tr, func(p mgl64.Vec3) mgl64.Vec3 { return p.Mul(2 * half) }, 1e-12)
		})
	}
}

// TestParseSparse: sparse accessors (glTF 2.0 §3.6.2.3) read as their
// dense equivalents: positions whose bufferView holds wrong values for
// some vertices that sparse values replace, positions with no bufferView
// at all (zeros) all given by sparse values, and sparse indices; sparse
// indices of each component type.
func TestParseSparse(t *testing.T) {
	v, tr := cube()
	idx := flat(tr)
	for _, ct := range []gltf.ComponentType{gltf.ComponentUbyte, gltf.ComponentUshort, gltf.ComponentUint} {
		sparse := func(b *builder, which []int, values []byte) *gltf.Sparse {
			return &gltf.Sparse{Count: len(which), Indices: gltf.SparseIndices{BufferView: b.view(unsigneds(which, ct), 0), ComponentType: ct},
				Values: gltf.SparseValues{BufferView: b.view(values, 0)}}
		}
		for _, tc := range []struct {
			name  string
			build func(b *builder) (pos, ind int)
		}{
			{"positions over wrong ones", func(b *builder) (int, int) {
				wrong := slices.Clone(v)
				fix := []int{1, 4, 6}
				for _, i := range fix {
					wrong[i] = mgl64.Vec3{9, 9, 9}
				}
				pos := b.positions(wrong)
				var vals []mgl64.Vec3
				for _, i := range fix {
					vals = append(vals, v[i])
				}
				b.doc.Accessors[pos].Sparse = sparse(b, fix, float32s(vals))
				return pos, b.indices(idx, gltf.ComponentUshort)
			}},
			{"positions over zeros", func(b *builder) (int, int) {
				b.doc.Accessors = append(b.doc.Accessors, &gltf.Accessor{ComponentType: gltf.ComponentFloat, Type: gltf.AccessorVec3, Count: len(v)})
				pos := len(b.doc.Accessors) - 1
				all := make([]int, len(v))
				for i := range all {
					all[i] = i
				}
				b.doc.Accessors[pos].Sparse = sparse(b, all, float32s(v))
				return pos, b.indices(idx, gltf.ComponentUshort)
			}},
			{"indices", func(b *builder) (int, int) {
				pos := b.positions(v)
				wrong := slices.Clone(idx)
				wrong[0], wrong[5] = 7, 7
				ind := b.indices(wrong, gltf.ComponentUshort)
				b.doc.Accessors[ind].Sparse = sparse(b, []int{0, 5}, unsigneds([]int{idx[0], idx[5]}, gltf.ComponentUshort))
				return pos, ind
			}},
		} {
			t.Run(ct.String()+"/"+tc.name, func(t *testing.T) {
				b := newBuilder()
				pos, ind := tc.build(b)
				b.scene(b.node(&gltf.Node{Mesh: gltf.Index(b.mesh(triangles(pos, ind)))}))
				data, _ := b.encode(t, glb)
				gv, gt, err := gltfmesh.ParseFS(bytes.NewReader(data), "sparse.glb", nil)
				if err != nil {
					t.Fatal(err)
				}
				sameTriangles(t, gv, gt, v, tr, identity, 0)
			})
		}
	}
}

// TestLoadMesh reads GLB and glTF files (the latter with its buffer in a
// file beside it) through narrow.LoadMesh, which the package's import
// taught the extensions, in any case.
func TestLoadMesh(t *testing.T) {
	v, tr := readOBJ(t, "torus")
	b := newBuilder()
	b.scene(b.node(&gltf.Node{Mesh: gltf.Index(b.mesh(triangles(b.positions(v), b.indices(flat(tr), gltf.ComponentUint))))}))
	dir := t.TempDir()
	data, _ := b.encode(t, glb)
	if err := os.WriteFile(filepath.Join(dir, "torus.GLB"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	data, files := b.encode(t, external)
	if err := os.WriteFile(filepath.Join(dir, "torus.gltf"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mesh.bin"), files["mesh.bin"].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"torus.GLB", "torus.gltf"} {
		s, err := narrow.LoadMesh(filepath.Join(dir, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s.NumVertices() != len(v) || s.NumPrims() != len(tr) {
			t.Errorf("%s: %d vertices, %d triangles, want %d, %d", name, s.NumVertices(), s.NumPrims(), len(v), len(tr))
		}
	}
	// Without its buffer's file, the glTF is refused, naming the buffer.
	if err := os.Remove(filepath.Join(dir, "mesh.bin")); err != nil {
		t.Fatal(err)
	}
	_, err := narrow.LoadMesh(filepath.Join(dir, "torus.gltf"))
	var se *narrow.ShapeError
	if !errors.As(err, &se) || !errors.Is(err, narrow.ErrSyntax) || !strings.Contains(err.Error(), "mesh.bin") {
		t.Errorf("missing buffer file: %v", err)
	}
	// An extension nobody registered names the ones read.
	_, err = narrow.LoadMesh(filepath.Join(dir, "torus.fbx"))
	if !errors.Is(err, narrow.ErrFormat) || !strings.Contains(err.Error(), ".glb or .gltf") {
		t.Errorf("unknown extension: %v", err)
	}
}

// tetra returns a builder holding a tetrahedron (positions accessor 0,
// ushort indices accessor 1, mesh 0, node 0, scene 0).
func tetra() *builder {
	b := newBuilder()
	v := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	tr := [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}
	b.scene(b.node(&gltf.Node{Mesh: gltf.Index(b.mesh(triangles(b.positions(v), b.indices(flat(tr), gltf.ComponentUshort))))}))
	return b
}

// glbBytes assembles a GLB container by hand: header, a JSON chunk and,
// if bin is not nil, a binary chunk; the header's length is total, or the
// container's own if total is -1.
func glbBytes(version uint32, js string, bin []byte, total int) []byte {
	if total < 0 {
		total = 20 + len(js)
		if bin != nil {
			total += 8 + len(bin)
		}
	}
	out := binary.LittleEndian.AppendUint32(nil, 0x46546C67)
	out = binary.LittleEndian.AppendUint32(out, version)
	out = binary.LittleEndian.AppendUint32(out, uint32(total))
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = binary.LittleEndian.AppendUint32(out, 0x4E4F534A)
	out = append(out, js...)
	if bin != nil {
		out = binary.LittleEndian.AppendUint32(out, uint32(len(bin)))
		out = binary.LittleEndian.AppendUint32(out, 0x004E4942)
		out = append(out, bin...)
	}
	return out
}

// TestParseErrors: every malformed or unsupported document is a
// *narrow.ShapeError naming the file and what is wrong, never a panic.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		form   form
		mutate func(b *builder)         // on a valid tetrahedron
		edit   func(data []byte) []byte // on its encoding
		raw    []byte                   // instead of both
		want   error
		detail string // in the message
		prim   int    // ShapeError.Prim, or -1
		vertex int    // ShapeError.Vertex, or -1
	}{
		{name: "not a document", raw: []byte("hello"), want: narrow.ErrSyntax, detail: "document"},
		{name: "empty stream", raw: []byte{}, want: narrow.ErrSyntax, detail: "document"},
		{name: "GLB header cut", raw: []byte("glTF\x02\x00\x00\x00"), want: narrow.ErrSyntax, detail: "GLB header: 8 bytes"},
		{name: "GLB version 1", raw: glbBytes(1, "{}", nil, 22), want: narrow.ErrFormat, detail: "GLB version 1"},
		{name: "GLB longer than the stream", raw: glbBytes(2, "{}", nil, 1000), want: narrow.ErrSyntax, detail: "length 1000"},
		{name: "GLB JSON chunk past the end", raw: glbBytes(2, "{}", nil, 21), want: narrow.ErrSyntax, detail: "first chunk"},
		{name: "GLB binary chunk past the end", raw: func() []byte {
			d := glbBytes(2, `{"asset":{"version":"2.0"}}`, make([]byte, 8), -1)
			binary.LittleEndian.PutUint32(d[20+27:], 1<<30)
			return d
		}(), want: narrow.ErrSyntax, detail: "binary chunk of 1073741824 bytes"},
		{name: "GLB buffer larger than its chunk", raw: glbBytes(2, `{"asset":{"version":"2.0"},"buffers":[{"byteLength":2000000000}]}`, make([]byte, 8), -1),
			want: narrow.ErrSyntax, detail: "byteLength 2000000000, binary chunk of 8 bytes"},
		{name: "GLB buffer without a binary chunk", raw: glbBytes(2, `{"asset":{"version":"2.0"},"buffers":[{"byteLength":8}]}`, nil, -1),
			want: narrow.ErrSyntax, detail: "no binary chunk"},
		{name: "negative byteLength", form: embedded, edit: replace(`"byteLength":`, `"byteLength":-`), want: narrow.ErrSyntax, detail: "buffer 0: byteLength -"},
		{name: "required extension", mutate: func(b *builder) { b.doc.ExtensionsRequired = []string{"KHR_draco_mesh_compression"} },
			want: narrow.ErrFormat, detail: `"KHR_draco_mesh_compression" required`},
		{name: "unknown mode", form: embedded, mutate: func(b *builder) { b.doc.Meshes[0].Primitives[0].Mode = gltf.PrimitiveTriangleFan },
			edit: replace(`"mode":6`, `"mode":9`), want: narrow.ErrSyntax, detail: "mesh 0 primitive 0: mode 9"},
		{name: "external buffer, no file system", form: external, want: narrow.ErrFormat, detail: `external uri "mesh.bin"`},
		{name: "scene out of range", mutate: func(b *builder) { b.doc.Scene = gltf.Index(3) }, want: narrow.ErrSyntax, detail: "scene 3 of 1"},
		{name: "child out of range", mutate: func(b *builder) { b.doc.Nodes[0].Children = []int{7} }, want: narrow.ErrSyntax, detail: "node 7 of 1"},
		{name: "cycle", mutate: func(b *builder) { b.doc.Nodes[0].Children = []int{0} }, want: narrow.ErrSyntax, detail: "node 0 reached twice"},
		{name: "mesh out of range", mutate: func(b *builder) { b.doc.Nodes[0].Mesh = gltf.Index(4) }, want: narrow.ErrSyntax, detail: "mesh 4 of 1"},
		{name: "accessor out of range", mutate: func(b *builder) { b.doc.Meshes[0].Primitives[0].Indices = gltf.Index(9) },
			want: narrow.ErrSyntax, detail: "mesh 0 primitive 0: indices accessor 9 of 2"},
		// Sparse positions: indices from the tetrahedron's index view (0, 2,
		// 1, 0, ... as unsigned shorts), values from its positions.
		{name: "sparse indices not increasing", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 3, Indices: gltf.SparseIndices{BufferView: 1, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrSyntax, detail: "POSITION accessor 0: sparse index 2 is 1, after 2"},
		{name: "sparse index past the count", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 1, Indices: gltf.SparseIndices{BufferView: 1, ByteOffset: 2, ComponentType: gltf.ComponentUint}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrSyntax, detail: "sparse index 0 is 65538"},
		{name: "sparse indices of floats", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 1, Indices: gltf.SparseIndices{BufferView: 1, ComponentType: gltf.ComponentFloat}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrFormat, detail: "sparse indices of component type"},
		{name: "sparse values past their view", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 2, Indices: gltf.SparseIndices{BufferView: 1, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0, ByteOffset: 36}}
		}, want: narrow.ErrSyntax, detail: "2 sparse values of 12 bytes from byte 36, past the end of bufferView 0"},
		{name: "sparse indices past their view", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 4, Indices: gltf.SparseIndices{BufferView: 1, ByteOffset: 20, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrSyntax, detail: "4 sparse indices of 2 bytes from byte 20"},
		{name: "sparse count 0", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 0, Indices: gltf.SparseIndices{BufferView: 1, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrSyntax, detail: "sparse count 0 for 4 elements"},
		{name: "sparse zeros beyond the buffers", mutate: func(b *builder) {
			b.doc.Accessors[0].BufferView = nil
			b.doc.Accessors[0].Count = 1 << 20
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 1, Indices: gltf.SparseIndices{BufferView: 1, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrTooLarge, detail: "POSITION accessor 0: 1048576 elements of 12 bytes, mostly zeros"},
		{name: "sparse view out of range", mutate: func(b *builder) {
			b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 1, Indices: gltf.SparseIndices{BufferView: 7, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0}}
		}, want: narrow.ErrSyntax, detail: "bufferView 7 of 2"},
		{name: "no buffer view", mutate: func(b *builder) { b.doc.Accessors[0].BufferView = nil }, want: narrow.ErrFormat, detail: "POSITION accessor 0 has no bufferView"},
		{name: "view past its buffer", mutate: func(b *builder) { b.doc.BufferViews[1].ByteLength = 1000 }, want: narrow.ErrSyntax, detail: "bufferView 1: bytes [48, +1000)"},
		{name: "count past its view", mutate: func(b *builder) { b.doc.Accessors[0].Count = 5 }, want: narrow.ErrSyntax, detail: "POSITION accessor 0: 5 elements"},
		{name: "stride too small", mutate: func(b *builder) { b.doc.BufferViews[0].ByteStride = 8 }, want: narrow.ErrSyntax, detail: "byteStride 8 for elements of 12 bytes"},
		{name: "negative offset", mutate: func(b *builder) { b.doc.Accessors[0].ByteOffset = -12 }, want: narrow.ErrSyntax, detail: "byteOffset -12"},
		{name: "huge count", mutate: func(b *builder) { b.doc.Accessors[0].Count = 1 << 40 }, want: narrow.ErrTooLarge, detail: "count 1099511627776"},
		{name: "positions of VEC2", mutate: func(b *builder) { b.doc.Accessors[0].Type = gltf.AccessorVec2 }, want: narrow.ErrFormat, detail: "want VEC3"},
		{name: "positions of uint", mutate: func(b *builder) { b.doc.Accessors[0].ComponentType = gltf.ComponentUint }, want: narrow.ErrFormat, detail: "component type"},
		{name: "indices of float", mutate: func(b *builder) {
			b.doc.Accessors[1].ComponentType = gltf.ComponentFloat
			b.doc.Accessors[1].Count = 6
		}, want: narrow.ErrFormat, detail: "indices accessor 1: component type"},
		{name: "index out of range", mutate: func(b *builder) {
			binary.LittleEndian.PutUint16(b.buf[48+2*7:], 4)
		}, want: narrow.ErrIndexRange, detail: "triangle 2 of the primitive names vertex 4, the primitive has 4", prim: 2},
		{name: "indices not in threes", mutate: func(b *builder) { b.doc.Accessors[1].Count = 11 }, want: narrow.ErrSyntax, detail: "11 indices"},
		{name: "NaN position", mutate: func(b *builder) {
			binary.LittleEndian.PutUint32(b.buf[2*12+4:], math.Float32bits(float32(math.NaN())))
		}, want: narrow.ErrNonFinite, detail: "element 2", vertex: 2},
		{name: "transform overflows", mutate: func(b *builder) {
			b.doc.Nodes[0].Scale = [3]float64{1e300, 1e300, 1e300}
			b.node(&gltf.Node{Children: []int{0}, Scale: [3]float64{1e300, 1, 1}})
			b.doc.Scenes[0].Nodes = []int{1}
		}, want: narrow.ErrNonFinite, detail: "node 0: transform [1e+300 0 0 0 0 1e+300"},
		{name: "lines only", mutate: func(b *builder) { b.doc.Meshes[0].Primitives[0].Mode = gltf.PrimitiveLines }, want: narrow.ErrEmpty, detail: "no triangle"},
		{name: "null primitive", form: embedded, edit: replace(`"primitives":[`, `"primitives":[null,`), want: narrow.ErrSyntax, detail: "mesh 0 primitive 0: null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := tt.raw
			if data == nil {
				b := tetra()
				if tt.mutate != nil {
					tt.mutate(b)
				}
				data, _ = b.encode(t, tt.form)
				if tt.edit != nil {
					data = tt.edit(data)
				}
			}
			_, _, err := gltfmesh.ParseFS(bytes.NewReader(data), "bad.gltf", nil)
			var se *narrow.ShapeError
			if !errors.As(err, &se) || !errors.Is(err, tt.want) {
				t.Fatalf("error %v, want a *narrow.ShapeError wrapping %v", err, tt.want)
			}
			if se.File != "bad.gltf" || !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %q, want one naming bad.gltf and %q", err, tt.detail)
			}
			if tt.prim != 0 && se.Prim != tt.prim {
				t.Errorf("Prim %d, want %d", se.Prim, tt.prim)
			}
			if tt.vertex != 0 && se.Vertex != tt.vertex {
				t.Errorf("Vertex %d, want %d", se.Vertex, tt.vertex)
			}
		})
	}
}

// replace returns an edit replacing the first old by new.
func replace(old, new string) func([]byte) []byte {
	return func(data []byte) []byte {
		if !bytes.Contains(data, []byte(old)) {
			panic("no " + old + " in " + string(data))
		}
		return bytes.Replace(data, []byte(old), []byte(new), 1)
	}
}

// TestWrite writes every test mesh with Write and reads it back: the same
// triangles at the float32-rounded points, and the same vertices.
func TestWrite(t *testing.T) {
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		v, tr := readOBJ(t, name)
		s, err := narrow.NewMesh(v, tr)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := gltfmesh.Write(&out, s); err != nil {
			t.Fatal(err)
		}
		gv, gt, err := gltfmesh.ParseFS(&out, name+".glb", nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(gv) != s.NumVertices() {
			t.Errorf("%s: %d vertices, want %d", name, len(gv), s.NumVertices())
		}
		sameTriangles(t, gv, gt, v, tr, identity, 0)
	}
	sq, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := gltfmesh.Write(io.Discard, sq); !errors.Is(err, narrow.ErrDimension) {
		t.Errorf("polygon: %v, want ErrDimension", err)
	}
}

// BenchmarkParse reads the duck (4,212 triangles) as GLB from memory:
// parsing alone, and parsing and building the shape (compare with
// narrow's BenchmarkReadMesh for the other formats).
//
//	go test ./narrow/gltfmesh -run '^$' -bench Parse -benchtime 20x -count 3
func BenchmarkParse(b *testing.B) {
	v, tr := readOBJ(b, "duck")
	s, err := narrow.NewMesh(v, tr)
	if err != nil {
		b.Fatal(err)
	}
	var glb bytes.Buffer
	if err := gltfmesh.Write(&glb, s); err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		b.SetBytes(int64(glb.Len()))
		for b.Loop() {
			if _, _, err := gltfmesh.ParseFS(bytes.NewReader(glb.Bytes()), "duck.glb", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parse and build", func(b *testing.B) {
		b.SetBytes(int64(glb.Len()))
		for b.Loop() {
			v, tr, err := gltfmesh.ParseFS(bytes.NewReader(glb.Bytes()), "duck.glb", nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := narrow.NewMesh(v, tr); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestParseObjects reads a small level, a floor and two crates sharing a
// mesh, one of them a child, beside a node of lines: three objects in node
// order, each its own closed mesh in world coordinates, together the
// triangles ParseFS reads; a document of meshes without nodes gives one
// object per mesh.
func TestParseObjects(t *testing.T) {
	v, tr := cube()
	b := newBuilder()
	pos, idx := b.positions(v), b.indices(flat(tr), gltf.ComponentUbyte)
	box := b.mesh(triangles(pos, idx))
	b.doc.Meshes[box].Name = "box"
	lines := b.mesh(&gltf.Primitive{Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos}, Mode: gltf.PrimitiveLines, Indices: gltf.Index(idx)})
	crate2 := b.node(&gltf.Node{Mesh: &box, Translation: [3]float64{0, 1, 0}})
	b.scene(
		b.node(&gltf.Node{Name: "floor", Mesh: &box, Translation: [3]float64{0, -0.5, 0}, Scale: [3]float64{10, 1, 10}}),
		b.node(&gltf.Node{Name: "guide", Mesh: &lines}),
		b.node(&gltf.Node{Name: "crate", Mesh: &box, Translation: [3]float64{2, 0.5, 0}, Children: []int{crate2}}),
	)
	data, _ := b.encode(t, glb)
	objs, err := gltfmesh.ParseObjects(bytes.NewReader(data), "level.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name   string
		node   int
		volume float64
		min    mgl64.Vec3
	}{
		{"floor", 1, 100, mgl64.Vec3{-5, -1, -5}},
		{"crate", 3, 1, mgl64.Vec3{1.5, 0, -0.5}},
		{"box", 0, 1, mgl64.Vec3{1.5, 1, -0.5}}, // the child: no name of its own
	}
	if len(objs) != len(want) {
		t.Fatalf("%d objects, want %d", len(objs), len(want))
	}
	total := 0
	for i, o := range objs {
		w := want[i]
		if o.Name != w.name || o.Node != w.node || o.Mesh != box || len(o.Vertices) != 8 || len(o.Triangles) != 12 {
			t.Errorf("object %d: %q node %d mesh %d, %d vertices, %d triangles; want %q node %d mesh %d, 8, 12",
				i, o.Name, o.Node, o.Mesh, len(o.Vertices), len(o.Triangles), w.name, w.node, box)
		}
		s, err := narrow.NewMesh(o.Vertices, o.Triangles)
		if err != nil {
			t.Fatalf("object %d: %v", i, err)
		}
		if got := volume(t, s); math.Abs(got-w.volume) > 1e-9 {
			t.Errorf("object %d: volume %v, want %v", i, got, w.volume)
		}
		if lo := s.Bounds().Min; lo.Sub(w.min).Len() > 1e-12 {
			t.Errorf("object %d: lowest corner %v, want %v", i, lo, w.min)
		}
		total += len(o.Triangles)
	}
	_, all, err := gltfmesh.ParseFS(bytes.NewReader(data), "level.glb", nil)
	if err != nil || len(all) != total {
		t.Errorf("ParseFS: %d triangles, %v; want the objects' %d", len(all), err, total)
	}

	// Meshes without nodes: one object each, Node -1, named by the mesh.
	b = newBuilder()
	box = b.mesh(triangles(b.positions(v), b.indices(flat(tr), gltf.ComponentUshort)))
	b.doc.Meshes[box].Name = "box"
	data, _ = b.encode(t, embedded)
	objs, err = gltfmesh.ParseObjects(bytes.NewReader(data), "meshes.gltf", nil)
	if err != nil || len(objs) != 1 || objs[0].Node != -1 || objs[0].Name != "box" || len(objs[0].Triangles) != 12 {
		t.Errorf("meshes without nodes: %+v, %v", objs, err)
	}

	// LoadObjects reads a file, with its external buffer beside it.
	dir := t.TempDir()
	data, files := b.encode(t, external)
	for name, content := range map[string][]byte{"level.gltf": data, "mesh.bin": files["mesh.bin"].Data} {
		if err := os.WriteFile(filepath.Join(dir, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if objs, err := gltfmesh.LoadObjects(filepath.Join(dir, "level.gltf")); err != nil || len(objs) != 1 {
		t.Errorf("LoadObjects: %d objects, %v", len(objs), err)
	}
	if _, err := gltfmesh.LoadObjects(filepath.Join(dir, "missing.glb")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadObjects(missing): %v, want ErrNotExist", err)
	}
}
