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

// asciiSTL writes s as an ASCII STL solid whose coordinates are s's own,
// digit for digit (shortest float64 text), with keywords in the given
// case and the given line ending.
func asciiSTL(s *Shape, upper bool, eol string) string {
	kw := func(k string) string {
		if upper {
			return strings.ToUpper(k)
		}
		return k
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var b strings.Builder
	b.WriteString(kw("solid") + " test" + eol)
	for i := range s.NumPrims() {
		n := s.FaceNormal(i)
		fmt.Fprintf(&b, "  %s %s %s %s %s%s    %s %s%s", kw("facet"), kw("normal"), f(n[0]), f(n[1]), f(n[2]), eol, kw("outer"), kw("loop"), eol)
		for _, v := range s.Prim(i) {
			p := s.Vertex(int(v))
			fmt.Fprintf(&b, "      %s %s %s %s%s", kw("vertex"), f(p[0]), f(p[1]), f(p[2]), eol)
		}
		b.WriteString("    " + kw("endloop") + eol + "  " + kw("endfacet") + eol)
	}
	b.WriteString(kw("endsolid") + " test" + eol)
	return b.String()
}

// binarySTL builds a binary STL stream: header (padded to 80 bytes),
// count, then one record per triangle of corners (normals zero).
func binarySTL(header string, count uint32, tris ...[3][3]float32) []byte {
	b := make([]byte, stlHeaderBytes, stlHeaderBytes+stlTriBytes*len(tris))
	copy(b[:80], header)
	binary.LittleEndian.PutUint32(b[80:], count)
	for _, t := range tris {
		var rec [stlTriBytes]byte
		for k := range t {
			for j := range t[k] {
				binary.LittleEndian.PutUint32(rec[12+12*k+4*j:], math.Float32bits(t[k][j]))
			}
		}
		b = append(b, rec[:]...)
	}
	return b
}

// stlTetra is objTetra's tetrahedron as binary STL triangles.
var stlTetra = [][3][3]float32{
	{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}},
	{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}},
	{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}},
	{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
}

// sameGeometry fails unless triangle i of got has the corners of triangle
// i of want (each coordinate rounded by round), and every vertex of got
// has the normal of want's vertex at the same place.
func sameGeometry(t *testing.T, got, want *Shape, round func(float64) float64) {
	t.Helper()
	if got.NumPrims() != want.NumPrims() || got.NumVertices() != want.NumVertices() {
		t.Fatalf("got %d vertices, %d triangles; want %d, %d", got.NumVertices(), got.NumPrims(), want.NumVertices(), want.NumPrims())
	}
	at := make(map[mgl64.Vec3]int, want.NumVertices())
	for i := range want.NumVertices() {
		at[want.Vertex(i)] = i
	}
	for i := range want.NumPrims() {
		for k := range 3 {
			g, w := got.Vertex(int(got.Prim(i)[k])), want.Vertex(int(want.Prim(i)[k]))
			for j := range 3 {
				if g[j] != round(w[j]) {
					t.Fatalf("triangle %d, corner %d: %v, want %v", i, k, g, w)
				}
			}
		}
	}
	if round(0.1) != 0.1 {
		return // the normals of rounded vertices differ
	}
	for i := range got.NumVertices() {
		w, ok := at[got.Vertex(i)]
		if !ok {
			t.Fatalf("vertex %d at %v is no vertex of the original", i, got.Vertex(i))
		}
		if got.VertexNormal(i) != want.VertexNormal(w) {
			t.Fatalf("vertex %d: normal %v, the original's %v", i, got.VertexNormal(i), want.VertexNormal(w))
		}
	}
}

// TestSTLTestdata writes each test mesh as binary STL (WriteSTL) and as
// ASCII STL and reads both back: the same triangles in the same order at
// the same points (rounded to float32 in the binary form), welded into the
// same number of vertices.
func TestSTLTestdata(t *testing.T) {
	f32 := func(x float64) float64 { return float64(float32(x)) }
	same := func(x float64) float64 { return x }
	for _, name := range []string{"bunny", "torus", "teddy", "duck"} {
		want := testMeshes(t, name)[0]
		t.Run(name+"/binary", func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteSTL(&buf, want); err != nil {
				t.Fatal(err)
			}
			if n := buf.Len(); n != stlHeaderBytes+stlTriBytes*want.NumPrims() {
				t.Fatalf("WriteSTL wrote %d bytes for %d triangles", n, want.NumPrims())
			}
			got, err := ReadSTL(&buf, name+".stl")
			if err != nil {
				t.Fatal(err)
			}
			sameGeometry(t, got, want, f32)
		})
		for _, upper := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/ascii/upper=%v", name, upper), func(t *testing.T) {
				eol := "\n"
				if upper {
					eol = "\r\n"
				}
				got, err := ReadSTL(strings.NewReader(asciiSTL(want, upper, eol)), name+".stl")
				if err != nil {
					t.Fatal(err)
				}
				sameGeometry(t, got, want, same)
			})
		}
	}
}

func TestParseSTL(t *testing.T) {
	tetra := asciiSTL(testTetra(t), false, "\n")
	tests := []struct {
		name      string
		src       []byte
		verts     []mgl64.Vec3
		triangles [][3]int
	}{
		{
			name:      "binary",
			src:       binarySTL("tetra", 4, stlTetra...),
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}},
			triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 1}, {2, 1, 3}},
		},
		{
			name:      "binary, header starting with solid",
			src:       binarySTL("solid tetra exported by a CAD tool", 4, stlTetra...),
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}},
			triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 1}, {2, 1, 3}},
		},
		{
			name:      "ascii",
			src:       []byte(tetra),
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}},
			triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 1}, {2, 1, 3}},
		},
		{
			name: "ascii, two solids, byte order mark, tabs, -0, no final newline",
			src: []byte("\xEF\xBB\xBFsolid a\n\tfacet normal 0 0 -1 outer loop vertex -0 0 0 vertex 0 1 0 vertex 1 0 0 endloop endfacet\nendsolid a\n" +
				"solid b\nfacet normal 0 0 0\nouter loop\nvertex 0 -0 0\nvertex 1 0 0\nvertex 0 0 1\nendloop\nendfacet\nendsolid"),
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}},
			triangles: [][3]int{{0, 1, 2}, {0, 2, 3}},
		},
		{
			name:      "ascii, blank lines and spaces after endsolid",
			src:       []byte(tetra + "\n  \n\t\r\n   "),
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {0, 0, 1}},
			triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 1}, {2, 1, 3}},
		},
		{
			name:      "ascii, the solid's name and endsolid's on their lines only",
			src:       []byte("solid facet normal\nfacet normal 0 0 1 outer loop vertex 0 0 0 vertex 0 1 0 vertex 1 0 0 endloop endfacet\nendsolid facet\n"),
			verts:     []mgl64.Vec3{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}},
			triangles: [][3]int{{0, 1, 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			verts, tris, err := ParseSTL(bytes.NewReader(tt.src), "t.stl")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(verts, tt.verts) || !slices.Equal(tris, tt.triangles) {
				t.Errorf("got %v, %v; want %v, %v", verts, tris, tt.verts, tt.triangles)
			}
			for _, v := range verts {
				for _, x := range v {
					if math.Signbit(x) {
						t.Errorf("vertex %v keeps a -0", v)
					}
				}
			}
		})
	}
}

// testTetra is objTetra as a shape.
func testTetra(t *testing.T) *Shape {
	t.Helper()
	s, err := ReadOBJ(strings.NewReader(objTetra), "tetra.obj")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stlFacetLines returns the 1-based lines of an ASCII STL source's facet
// statements.
func stlFacetLines(src string) []int {
	var lines []int
	for i, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "facet") {
			lines = append(lines, i+1)
		}
	}
	return lines
}

func TestReadSTLErrors(t *testing.T) {
	tetra := asciiSTL(testTetra(t), false, "\n")
	facets := stlFacetLines(tetra)
	lastLine := strings.Count(tetra, "\n")
	nan := float32(math.NaN())
	flipped := slices.Clone(stlTetra)
	flipped[2][1], flipped[2][2] = flipped[2][2], flipped[2][1]
	tests := []struct {
		name string
		src  []byte
		kind error
		line int // -1: none
		prim int // -1: none; -2: any, whose facet line is line's
	}{
		{"empty", nil, ErrSyntax, -1, -1},
		{"short header", []byte("not an stl file"), ErrSyntax, -1, -1},
		{"binary, no triangle", binarySTL("", 0), ErrEmpty, -1, -1},
		{"binary, truncated", binarySTL("", 4, stlTetra[:3]...), ErrSyntax, -1, 3},
		{"binary, cut in a record", binarySTL("", 4, stlTetra...)[:stlHeaderBytes+2*stlTriBytes+7], ErrSyntax, -1, 2},
		{"binary, trailing byte", append(binarySTL("", 4, stlTetra...), 0), ErrSyntax, -1, -1},
		{"binary, count too large", binarySTL("", 1<<27), ErrTooLarge, -1, -1},
		{"binary, NaN", binarySTL("", 4, stlTetra[0], stlTetra[1], [3][3]float32{{0, 0, 0}, {0, 0, 1}, {0, nan, 0}}, stlTetra[3]), ErrNonFinite, -1, 2},
		{"binary, open", binarySTL("", 3, stlTetra[:3]...), ErrOpenBoundary, -1, -2},
		{"binary, flipped face", binarySTL("", 4, flipped...), ErrWinding, -1, -2},
		{"ascii, no facet", []byte("solid x\nendsolid x\n"), ErrEmpty, -1, -1},
		{"ascii, no endsolid", []byte(strings.TrimSuffix(tetra, "endsolid test\n")), ErrSyntax, lastLine - 1, -1},
		{"ascii, junk after endsolid", []byte(tetra + "junk\n"), ErrSyntax, lastLine + 1, -1},
		{"ascii, no normal keyword", []byte("solid x\nfacet outer loop\n"), ErrSyntax, 2, 0},
		{"ascii, short normal", []byte("solid x\nfacet normal 0 0"), ErrSyntax, 2, 0},
		{"ascii, two coordinates", []byte(strings.Replace(tetra, "vertex 0 0 1\n", "vertex 0 0\n", 1)), ErrSyntax, 14, 1},
		{"ascii, bad number", []byte(strings.Replace(tetra, "vertex 0 0 1\n", "vertex 0 0 one\n", 1)), ErrSyntax, 13, 1},
		{"ascii, four corners", []byte(strings.Replace(tetra, "vertex 0 0 1\n", "vertex 0 0 1\nvertex 1 1 1\n", 1)), ErrSyntax, 14, 1},
		{"ascii, ends in a corner", []byte("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0"), ErrSyntax, 4, 0},
		{"ascii, overflow", []byte(strings.Replace(tetra, "vertex 0 0 1\n", "vertex 0 0 1e999\n", 1)), ErrNonFinite, 13, 1},
		{"ascii, degenerate", []byte(strings.Replace(tetra, "vertex 0 0 1\n", "vertex 0 0 0\n", 1)), ErrDegenerate, facets[1], 1},
		{"ascii, open", []byte(asciiSTLTris(stlTetra[:3])), ErrOpenBoundary, -1, -2},
		{"ascii, flipped face", []byte(asciiSTLTris(flipped)), ErrWinding, -1, -2},
		{"ascii, not solid", []byte("solid x\nendsolid x\nsolids\n"), ErrSyntax, 3, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadSTL(bytes.NewReader(tt.src), "bad.stl")
			var se *ShapeError
			if s != nil || !errors.Is(err, tt.kind) || !errors.As(err, &se) {
				t.Fatalf("ReadSTL = %v, %v; want a *ShapeError wrapping %v", s, err, tt.kind)
			}
			if se.File != "bad.stl" {
				t.Errorf("File = %q, want bad.stl", se.File)
			}
			switch tt.prim {
			case -2:
				if se.Prim < 0 {
					t.Errorf("Prim = %d, want a triangle", se.Prim)
				}
				if lines := stlFacetLines(string(tt.src)); tt.line < 0 && len(lines) > 0 {
					if se.Line != lines[se.Prim] {
						t.Errorf("Line = %d, want %d, the line of triangle %d", se.Line, lines[se.Prim], se.Prim)
					}
					return
				}
			default:
				if se.Prim != tt.prim {
					t.Errorf("Prim = %d, want %d", se.Prim, tt.prim)
				}
			}
			if se.Line != tt.line {
				t.Errorf("Line = %d, want %d (%v)", se.Line, tt.line, err)
			}
			if _, _, perr := ParseSTL(bytes.NewReader(tt.src), "bad.stl"); perr != nil && perr.Error() != err.Error() {
				t.Errorf("ParseSTL error %v, ReadSTL error %v", perr, err)
			}
		})
	}
}

// asciiSTLTris writes the given triangles as an ASCII STL solid.
func asciiSTLTris(tris [][3][3]float32) string {
	var b strings.Builder
	b.WriteString("solid t\n")
	for _, t := range tris {
		b.WriteString("facet normal 0 0 0\nouter loop\n")
		for _, p := range t {
			fmt.Fprintf(&b, "vertex %v %v %v\n", p[0], p[1], p[2])
		}
		b.WriteString("endloop\nendfacet\n")
	}
	b.WriteString("endsolid t\n")
	return b.String()
}

func TestReadSTLLongLine(t *testing.T) {
	defer func(n int) { objMaxLineBytes = n }(objMaxLineBytes)
	objMaxLineBytes = 1 << 10
	_, err := ReadSTL(strings.NewReader("solid x\nfacet normal 0 0 1"+strings.Repeat(" ", 1<<10)+"\n"), "long.stl")
	var se *ShapeError
	if !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) || se.Line != 2 {
		t.Fatalf("error = %v, want a *ShapeError wrapping ErrTooLarge at line 2", err)
	}
}

func TestReadSTLReaderError(t *testing.T) {
	boom := errors.New("boom")
	bunny := testMeshes(t, "bunny")[0]
	var bin bytes.Buffer
	if err := WriteSTL(&bin, bunny); err != nil {
		t.Fatal(err)
	}
	// Short streams fail while ReadSTL looks at their start, long ones
	// while it parses them.
	for _, src := range [][]byte{binarySTL("", 4, stlTetra...), []byte(asciiSTL(testTetra(t), false, "\n")), bin.Bytes(), []byte(asciiSTL(bunny, false, "\n"))} {
		_, err := ReadSTL(&errReader{data: src[:len(src)-20], err: boom}, "r.stl")
		var se *ShapeError
		if !errors.Is(err, boom) || errors.As(err, &se) || !strings.Contains(err.Error(), "r.stl") {
			t.Errorf("error = %v, want one naming r.stl and wrapping %v, not a *ShapeError", err, boom)
		}
	}
}

func TestWriteSTL2D(t *testing.T) {
	sq, err := NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSTL(&bytes.Buffer{}, sq); !errors.Is(err, ErrDimension) {
		t.Fatalf("WriteSTL(polygon) = %v, want ErrDimension", err)
	}
}

func FuzzReadSTL(f *testing.F) {
	tetra, err := ReadOBJ(strings.NewReader(objTetra), "tetra.obj")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(binarySTL("tetra", 4, stlTetra...))
	f.Add(binarySTL("solid tetra", 4, stlTetra...))
	f.Add(binarySTL("", 3, stlTetra[:3]...))
	f.Add([]byte(asciiSTL(tetra, false, "\n")))
	f.Add([]byte(asciiSTL(tetra, true, "\r\n")))
	f.Add([]byte(asciiSTLTris(stlTetra[:3])))
	f.Add([]byte("solid x\nendsolid x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSTL(bytes.NewReader(data), "fuzz.stl")
		verts, tris, perr := ParseSTL(bytes.NewReader(data), "fuzz.stl")
		checkRead(t, s, err, "fuzz.stl")
		if !checkParse(t, s, err, verts, tris, perr) || err != nil {
			return
		}
		// A binary stream's coordinates are float32: written back, it
		// reads back the same.
		if isASCIISTL(data[:min(len(data), stlSniffBytes)]) {
			return
		}
		var buf bytes.Buffer
		if err := WriteSTL(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := ReadSTL(&buf, "back.stl")
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		sameGeometry(t, back, s, func(x float64) float64 { return x })
	})
}
