package narrow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// plyLayout varies how plyOf lays a shape out.
type plyLayout struct {
	coord       string // the coordinates' type ("": double)
	extra       bool   // a property before x, normals and colours after z
	facesFirst  bool   // the face element before the vertex element
	edges       bool   // an edge element (a scalar pair and a list) after the others
	cornersName string // "": vertex_indices
	eol         string // "": LF
}

// plyValue appends value x of the named PLY type to b, as ASCII text
// (order nil; a space before it unless first) or in binary.
func plyValue(b []byte, typ string, x float64, order binary.AppendByteOrder, first bool) []byte {
	if order == nil {
		if !first {
			b = append(b, ' ')
		}
		switch typ {
		case "float":
			return strconv.AppendFloat(b, x, 'g', -1, 32)
		case "double":
			return strconv.AppendFloat(b, x, 'g', -1, 64)
		}
		return strconv.AppendInt(b, int64(x), 10)
	}
	switch typ {
	case "char", "uchar":
		return append(b, byte(int64(x)))
	case "short", "ushort":
		return order.AppendUint16(b, uint16(int64(x)))
	case "int", "uint":
		return order.AppendUint32(b, uint32(int64(x)))
	case "float":
		return order.AppendUint32(b, math.Float32bits(float32(x)))
	}
	return order.AppendUint64(b, math.Float64bits(x))
}

// plyOf writes s (3D) as a PLY stream of the given format, laid out as l
// says: vertex i is s's vertex i and face i its triangle i.
func plyOf(s *Shape, format string, l plyLayout) string {
	coord, corners, eol := orDefault(l.coord, "double"), orDefault(l.cornersName, "vertex_indices"), orDefault(l.eol, "\n")
	var order binary.AppendByteOrder
	switch format {
	case "binary_little_endian":
		order = binary.LittleEndian
	case "binary_big_endian":
		order = binary.BigEndian
	}
	h := []string{"ply", "format " + format + " 1.0", "comment written by plyOf", "obj_info a test shape"}
	vertexHeader := []string{fmt.Sprintf("element vertex %d", s.NumVertices())}
	if l.extra {
		vertexHeader = append(vertexHeader, "property float confidence")
	}
	vertexHeader = append(vertexHeader, "property "+coord+" x", "property "+coord+" y", "comment between properties", "property "+coord+" z")
	if l.extra {
		vertexHeader = append(vertexHeader, "property float nx", "property float ny", "property float nz", "property uchar red", "property uchar green", "property uchar blue")
	}
	faceHeader := []string{fmt.Sprintf("element face %d", s.NumPrims()), "property list uchar int " + corners}
	if l.facesFirst {
		h = append(append(h, faceHeader...), vertexHeader...)
	} else {
		h = append(append(h, vertexHeader...), faceHeader...)
	}
	if l.edges {
		h = append(h, "element edge 2", "property int vertex1", "property list uchar short path", "property int vertex2")
	}
	h = append(h, "end_header")
	b := []byte(strings.Join(h, eol) + eol)
	line := func(vals ...any) {
		for i := 0; i < len(vals); i += 2 {
			b = plyValue(b, vals[i].(string), vals[i+1].(float64), order, i == 0)
		}
		if order == nil {
			b = append(b, eol...)
		}
	}
	vertices := func() {
		for i := range s.NumVertices() {
			v, n := s.Vertex(i), s.VertexNormal(i)
			if l.extra {
				line("float", 0.5, coord, v[0], coord, v[1], coord, v[2], "float", n[0], "float", n[1], "float", n[2], "uchar", 200.0, "uchar", 10.0, "uchar", float64(i%256))
			} else {
				line(coord, v[0], coord, v[1], coord, v[2])
			}
		}
	}
	faces := func() {
		for i := range s.NumPrims() {
			p := s.Prim(i)
			line("uchar", 3.0, "int", float64(p[0]), "int", float64(p[1]), "int", float64(p[2]))
		}
	}
	if l.facesFirst {
		faces()
		vertices()
	} else {
		vertices()
		faces()
	}
	if l.edges {
		line("int", 0.0, "uchar", 2.0, "short", -1.0, "short", 7.0, "int", 1.0)
		line("int", 2.0, "uchar", 0.0, "int", 3.0)
	}
	return string(b)
}

// orDefault returns s, or def if s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// TestPLYTestdata writes each test mesh as PLY in every format and layout
// and reads it back: the same vertices (rounded to float32 when stored as
// float) and triangles, in the same order.
func TestPLYTestdata(t *testing.T) {
	f32 := func(x float64) float64 { return float64(float32(x)) }
	same := func(x float64) float64 { return x }
	layouts := []struct {
		name   string
		format string
		l      plyLayout
		round  func(float64) float64
	}{
		{"ascii", "ascii", plyLayout{}, same},
		{"ascii/extra/faces first/edges/CRLF", "ascii", plyLayout{extra: true, facesFirst: true, edges: true, cornersName: "vertex_index", eol: "\r\n"}, same},
		{"ascii/float", "ascii", plyLayout{coord: "float"}, f32},
		{"little endian", "binary_little_endian", plyLayout{}, same},
		{"little endian/extra/edges", "binary_little_endian", plyLayout{extra: true, edges: true}, same},
		{"big endian/float/faces first", "binary_big_endian", plyLayout{coord: "float", facesFirst: true}, f32},
		{"big endian/extra/edges", "binary_big_endian", plyLayout{extra: true, edges: true, cornersName: "vertex_index"}, same},
	}
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		want := testMeshes(t, name)[0]
		for _, tt := range layouts {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				got, err := ReadPLY(strings.NewReader(plyOf(want, tt.format, tt.l)), name+".ply")
				if err != nil {
					t.Fatal(err)
				}
				if got.NumVertices() != want.NumVertices() || got.NumPrims() != want.NumPrims() {
					t.Fatalf("got %d vertices, %d triangles; want %d, %d", got.NumVertices(), got.NumPrims(), want.NumVertices(), want.NumPrims())
				}
				for i := range want.NumVertices() {
					g, w := got.Vertex(i), want.Vertex(i)
					if g != (mgl64.Vec3{tt.round(w[0]), tt.round(w[1]), tt.round(w[2])}) {
						t.Fatalf("vertex %d: %v, want %v", i, g, w)
					}
				}
				for i := range want.NumPrims() {
					if got.Prim(i) != want.Prim(i) {
						t.Fatalf("triangle %d: %v, want %v", i, got.Prim(i), want.Prim(i))
					}
				}
			})
		}
	}
}

// plyTetraFaces is objTetra's faces (0-based) as PLY lines.
const plyTetraFaces = "3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n"

// plyTetra is objTetra as an ASCII PLY stream: vertices on lines 10 to
// 13, faces on lines 14 to 17.
const plyTetra = "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n" +
	"element face 4\nproperty list uchar int vertex_indices\nend_header\n" +
	"0 0 0\n1 0 0\n0 1 0\n0 0 1\n" + plyTetraFaces

func TestParsePLY(t *testing.T) {
	tetraVerts := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	tetraTris := [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}
	tests := []struct {
		name      string
		src       string
		verts     []mgl64.Vec3
		triangles [][3]int
	}{
		{"tetrahedron", plyTetra, tetraVerts, tetraTris},
		{
			"integer and old-style types, a quad, values across lines",
			"\xEF\xBB\xBFply\r\nformat ascii 1.0\r\nelement vertex 5\r\nproperty int8 x\r\nproperty short y\r\nproperty uint z\r\n" +
				"element face 2\r\nproperty list uint8 uint32 vertex_index\r\nend_header\r\n" +
				"0 0 0\r\n-1 0 0 1 1\r\n0 0 1 0\r\n0 0 7\r\n4 0 1 2 3\r\n3\r\n2 3 4\r\n\r\n",
			[]mgl64.Vec3{{0, 0, 0}, {-1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 7}},
			[][3]int{{0, 1, 2}, {0, 2, 3}, {2, 3, 4}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verts, tris, err := ParsePLY(strings.NewReader(tt.src), "t.ply")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(verts, tt.verts) || !slices.Equal(tris, tt.triangles) {
				t.Errorf("got %v, %v; want %v, %v", verts, tris, tt.verts, tt.triangles)
			}
		})
	}
}

func TestReadPLYErrors(t *testing.T) {
	head := "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\nelement face 4\nproperty list uchar int vertex_indices\nend_header\n"
	verts := "0 0 0\n1 0 0\n0 1 0\n0 0 1\n"
	little := func(h string, data ...any) string {
		b := []byte(strings.Replace(h, "ascii", "binary_little_endian", 1))
		for i := 0; i < len(data); i += 2 {
			b = plyValue(b, data[i].(string), data[i+1].(float64), binary.LittleEndian, false)
		}
		return string(b)
	}
	var binTetra []any
	for _, v := range [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}} {
		binTetra = append(binTetra, "float", v[0], "float", v[1], "float", v[2])
	}
	for _, f := range [][3]float64{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}} {
		binTetra = append(binTetra, "uchar", 3.0, "int", f[0], "int", f[1], "int", f[2])
	}
	nanTetra := slices.Clone(binTetra)
	nanTetra[3*2*2+1] = math.NaN() // vertex 2's x
	tests := []struct {
		name       string
		src        string
		kind       error
		line       int // -1: none
		prim, vert int // -1: none
	}{
		{"empty", "", ErrSyntax, -1, -1, -1},
		{"not ply", "solid x\n", ErrSyntax, 1, -1, -1},
		{"no end_header", "ply\nformat ascii 1.0\n", ErrSyntax, 2, -1, -1},
		{"no format", "ply\nelement vertex 0\nend_header\n", ErrSyntax, 3, -1, -1},
		{"bad format", "ply\nformat ascii 2.0\n", ErrSyntax, 2, -1, -1},
		{"unknown format", "ply\nformat binary 1.0\n", ErrSyntax, 2, -1, -1},
		{"unknown keyword", "ply\nformat ascii 1.0\nelements vertex 3\n", ErrSyntax, 3, -1, -1},
		{"bad count", "ply\nformat ascii 1.0\nelement vertex -3\n", ErrSyntax, 3, -1, -1},
		{"huge count", "ply\nformat ascii 1.0\nelement vertex 99999999999999999999\n", ErrTooLarge, 3, -1, -1},
		{"property first", "ply\nformat ascii 1.0\nproperty float x\n", ErrSyntax, 3, -1, -1},
		{"unknown type", "ply\nformat ascii 1.0\nelement vertex 1\nproperty real x\n", ErrSyntax, 4, -1, -1},
		{"float list count", "ply\nformat ascii 1.0\nelement face 1\nproperty list float int vertex_indices\n", ErrSyntax, 4, -1, -1},
		{"property twice", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty double x\n", ErrSyntax, 5, -1, -1},
		{"no z", strings.Replace(head, "property float z\n", "", 1), ErrSyntax, 3, -1, -1},
		{"float corners", strings.Replace(head, "uchar int", "uchar float", 1), ErrSyntax, 7, -1, -1},
		{"no corners", strings.Replace(head, "vertex_indices", "corners", 1), ErrSyntax, 7, -1, -1},
		{"two vertex elements", strings.Replace(head, "element face 4\nproperty list uchar int vertex_indices\n", "element vertex 0\nproperty float x\nproperty float y\nproperty float z\n", 1) + verts, ErrSyntax, 7, -1, -1},
		{"element without properties", strings.Replace(head, "end_header", "element junk 1000000\nend_header", 1) + verts + plyTetraFaces, ErrSyntax, 9, -1, -1},
		{"no face", "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n", ErrEmpty, -1, -1, -1},
		{"bad number", head + strings.Replace(verts, "0 1 0", "0 one 0", 1) + plyTetraFaces, ErrSyntax, 12, -1, -1},
		{"bad corner", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "3 0 1 3.5", 1), ErrSyntax, 15, -1, -1},
		{"count out of range", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "300 0 1 3", 1), ErrSyntax, 15, -1, -1},
		{"negative corner", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "3 0 -1 3", 1), ErrIndexRange, 15, 1, -1},
		{"corner too large", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "3 0 4 3", 1), ErrIndexRange, 15, 1, -1},
		{"two corners", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "2 0 1", 1), ErrSyntax, 15, -1, -1},
		{"ends early", head + verts + "3 0 2 1\n3 0 1", ErrSyntax, 15, -1, -1},
		{"trailing value", head + verts + plyTetraFaces + "7\n", ErrSyntax, 18, -1, -1},
		{"overflow", head + strings.Replace(verts, "0 1 0", "0 1e999 0", 1) + plyTetraFaces, ErrNonFinite, 12, -1, 2},
		{"degenerate", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "3 0 1 1", 1), ErrDegenerate, 15, 1, -1},
		{"flipped", head + verts + strings.Replace(plyTetraFaces, "3 0 1 3", "3 0 3 1", 1), ErrWinding, -2, -2, -1},
		{"binary ends early", little(head, binTetra[:len(binTetra)-4]...), ErrSyntax, -1, -1, -1},
		{"binary trailing byte", little(head, binTetra...) + "\x00", ErrSyntax, -1, -1, -1},
		{"binary NaN", little(head, nanTetra...), ErrNonFinite, -1, -1, 2},
		{"binary header error", "ply\nformat binary_big_endian 1.0\nelement vertex x\n", ErrSyntax, 3, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadPLY(strings.NewReader(tt.src), "bad.ply")
			var se *ShapeError
			if s != nil || !errors.Is(err, tt.kind) || !errors.As(err, &se) {
				t.Fatalf("ReadPLY = %v, %v; want a *ShapeError wrapping %v", s, err, tt.kind)
			}
			if se.File != "bad.ply" {
				t.Errorf("File = %q, want bad.ply", se.File)
			}
			if tt.line == -2 { // the line of the face of triangle se.Prim
				if se.Prim < 0 || se.Line != 14+se.Prim {
					t.Errorf("Prim %d, Line %d: want a triangle and its face's line", se.Prim, se.Line)
				}
				return
			}
			if se.Line != tt.line || se.Vertex != tt.vert || (tt.prim >= 0 && se.Prim != tt.prim) {
				t.Errorf("Line %d, Vertex %d, Prim %d; want %d, %d, %d (%v)", se.Line, se.Vertex, se.Prim, tt.line, tt.vert, tt.prim, err)
			}
		})
	}
}

func TestReadPLYLongLine(t *testing.T) {
	defer func(n int) { objMaxLineBytes = n }(objMaxLineBytes)
	objMaxLineBytes = 1 << 10
	for _, src := range []string{"ply\nformat ascii 1.0\ncomment " + strings.Repeat("x", 1<<10) + "\n", plyTetra + strings.Repeat(" ", 1<<10+10)} {
		_, err := ReadPLY(strings.NewReader(src), "long.ply")
		if !errors.Is(err, ErrTooLarge) {
			t.Errorf("error = %v, want ErrTooLarge", err)
		}
	}
}

func TestReadPLYReaderError(t *testing.T) {
	boom := errors.New("boom")
	bunny := testMeshes(t, "bunny")[0]
	for _, src := range []string{plyTetra, plyOf(bunny, "ascii", plyLayout{}), plyOf(bunny, "binary_little_endian", plyLayout{})} {
		_, err := ReadPLY(&errReader{data: []byte(src[:len(src)-20]), err: boom}, "r.ply")
		var se *ShapeError
		if !errors.Is(err, boom) || errors.As(err, &se) || !strings.Contains(err.Error(), "r.ply") {
			t.Errorf("error = %v, want one naming r.ply and wrapping %v, not a *ShapeError", err, boom)
		}
	}
}

func FuzzReadPLY(f *testing.F) {
	tetra, err := ReadOBJ(strings.NewReader(objTetra), "tetra.obj")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(plyTetra))
	for _, format := range []string{"ascii", "binary_little_endian", "binary_big_endian"} {
		f.Add([]byte(plyOf(tetra, format, plyLayout{})))
		f.Add([]byte(plyOf(tetra, format, plyLayout{extra: true, facesFirst: true, edges: true, coord: "float"})))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadPLY(bytes.NewReader(data), "fuzz.ply")
		checkRead(t, s, err, "fuzz.ply")
		verts, tris, perr := ParsePLY(bytes.NewReader(data), "fuzz.ply")
		checkParse(t, s, err, verts, tris, perr)
	})
}
