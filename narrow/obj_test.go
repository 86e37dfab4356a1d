package narrow

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestLoadOBJTestdata(t *testing.T) {
	tests := []struct {
		file       string
		verts, tri int
	}{
		{"bunny.obj", 453, 902},
		{"torus.obj", 300, 600},
		{"teddy.obj", 1598, 3192},
		{"duck.obj", 2108, 4212},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s, err := LoadOBJ(filepath.Join("..", "testdata", tt.file))
			if err != nil {
				t.Fatalf("LoadOBJ: %v", err)
			}
			if s.Dim() != Dim3 {
				t.Errorf("Dim = %v, want %v", s.Dim(), Dim3)
			}
			if s.NumVertices() != tt.verts || s.NumPrims() != tt.tri {
				t.Errorf("got %d vertices, %d triangles; want %d, %d", s.NumVertices(), s.NumPrims(), tt.verts, tt.tri)
			}
		})
	}
}

func TestLoadOBJMissingFile(t *testing.T) {
	_, err := LoadOBJ(filepath.Join(t.TempDir(), "nope.obj"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("LoadOBJ(missing) error = %v, want one wrapping os.ErrNotExist", err)
	}
}

// objTetra is a closed tetrahedron, counter-clockwise seen from outside.
// Its faces are on lines 6 to 9.
const objTetra = `# tetrahedron
v 0 0 0
v 1 0 0
v 0 1 0
v 0 0 1
f 1 3 2
f 1 2 4
f 1 4 3
f 2 3 4
`

// objCube is a closed unit cube made of quads.
const objCube = `v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
v 0 0 1
v 1 0 1
v 1 1 1
v 0 1 1
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 3 4 8 7
f 1 5 8 4
f 2 3 7 6
`

// objValid are small OBJ strings that ParseOBJ accepts. Not all of them are
// closed meshes.
var objValid = []struct {
	name      string
	src       string
	verts     []mgl64.Vec3
	tris      [][3]int
	faceLines []int
}{
	{
		name:      "plain",
		src:       "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{4},
	},
	{
		name:      "v/vt",
		src:       "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nf 1/1 2/2 3/3\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{7},
	},
	{
		name:      "v/vt/vn",
		src:       "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 3/1/1 1/2/1 2/3/1\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{2, 0, 1}},
		faceLines: []int{5},
	},
	{
		name:      "v//vn",
		src:       "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 2//1 3//1 1//1\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{1, 2, 0}},
		faceLines: []int{5},
	},
	{
		name:      "w coordinate",
		src:       "v 0 0 0 1\nv 1 0 0 0.5\nv 0 1 0\nf 1 2 3\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{4},
	},
	{
		name:      "quad",
		src:       "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}, {0, 2, 3}},
		faceLines: []int{5, 5},
	},
	{
		name:      "pentagon",
		src:       "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nf 5 4 3 2 1\nf 1 2 3\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}},
		tris:      [][3]int{{4, 3, 2}, {4, 2, 1}, {4, 1, 0}, {0, 1, 2}},
		faceLines: []int{6, 6, 6, 7},
	},
	{
		name:      "negative indices",
		src:       "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nf -4 -1 -3\nf 1/1 -1/-1 2/2\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		tris:      [][3]int{{0, 1, 2}, {0, 3, 1}, {0, 3, 1}},
		faceLines: []int{4, 6, 7},
	},
	{
		name:      "forward reference",
		src:       "v 0 0 0\nf 1 2 3\nv 1 0 0\nv 0 1 0\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{2},
	},
	{
		name:      "CRLF",
		src:       "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\n\r\nf 1 2 3\r\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{5},
	},
	{
		name:      "whitespace",
		src:       "  v\t0  0\t\t0   \nv 1 0 0\t\nv\t0 1 0\n\t\n   \nf   1\t2  3  \n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{6},
	},
	{
		name: "comments and ignored statements",
		src: "# made by hand\nmtllib x.mtl\no thing\ng part\ns off\nusemtl red\n" +
			"v 0 0 0 # origin\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\n" +
			"l 1 2\np 3\n#f 1 1 1\nf 1 2 3# trailing\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{15},
	},
	{
		name:      "no final newline",
		src:       "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{4},
	},
	{
		name:      "byte order mark",
		src:       "\uFEFFv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
		verts:     []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{4},
	},
	{
		name:      "number forms",
		src:       "v -1.5e0 +2 .25\nv 1E-3 0. -0\nv 3 4 5\nf 1 2 3\n",
		verts:     []mgl64.Vec3{{-1.5, 2, 0.25}, {1e-3, 0, 0}, {3, 4, 5}},
		tris:      [][3]int{{0, 1, 2}},
		faceLines: []int{4},
	},
}

func TestParseOBJ(t *testing.T) {
	for _, tt := range objValid {
		t.Run(tt.name, func(t *testing.T) {
			verts, tris, lines, err := ParseOBJ(strings.NewReader(tt.src), "test.obj")
			if err != nil {
				t.Fatalf("ParseOBJ: %v", err)
			}
			if !slices.Equal(verts, tt.verts) {
				t.Errorf("vertices = %v, want %v", verts, tt.verts)
			}
			if !slices.Equal(tris, tt.tris) {
				t.Errorf("triangles = %v, want %v", tris, tt.tris)
			}
			if !slices.Equal(lines, tt.faceLines) {
				t.Errorf("faceLines = %v, want %v", lines, tt.faceLines)
			}
		})
	}
}

func TestParseOBJLongLine(t *testing.T) {
	// A polygon on one line of well over 64 KiB.
	const n = 40000
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("v 0 0 0\n")
	}
	b.WriteString("f")
	for i := 1; i <= n; i++ {
		b.WriteString(" 00") // leading zeros are allowed
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("\r\nf 1 2 3\n")
	if b.Len() < 1<<17 {
		t.Fatalf("test input is only %d bytes", b.Len())
	}
	_, tris, lines, err := ParseOBJ(strings.NewReader(b.String()), "long.obj")
	if err != nil {
		t.Fatalf("ParseOBJ: %v", err)
	}
	if len(tris) != n-2+1 {
		t.Fatalf("got %d triangles, want %d", len(tris), n-2+1)
	}
	if last := tris[n-3]; last != [3]int{0, n - 2, n - 1} {
		t.Errorf("last fan triangle = %v, want %v", last, [3]int{0, n - 2, n - 1})
	}
	if lines[0] != n+1 || lines[n-2] != n+2 {
		t.Errorf("faceLines[0], faceLines[%d] = %d, %d; want %d, %d", n-2, lines[0], lines[n-2], n+1, n+2)
	}
}

func TestReadOBJ(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		verts int
		prims [][3]int32
	}{
		{"tetrahedron", objTetra, 4, [][3]int32{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}},
		{"tetrahedron CRLF", strings.ReplaceAll(objTetra, "\n", "\r\n"), 4, [][3]int32{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}},
		{"cube of quads", objCube, 8, [][3]int32{
			{0, 3, 2}, {0, 2, 1},
			{4, 5, 6}, {4, 6, 7},
			{0, 1, 5}, {0, 5, 4},
			{2, 3, 7}, {2, 7, 6},
			{0, 4, 7}, {0, 7, 3},
			{1, 2, 6}, {1, 6, 5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadOBJ(strings.NewReader(tt.src), tt.name)
			if err != nil {
				t.Fatalf("ReadOBJ: %v", err)
			}
			if s.NumVertices() != tt.verts {
				t.Errorf("NumVertices = %d, want %d", s.NumVertices(), tt.verts)
			}
			var prims [][3]int32
			for i := 0; i < s.NumPrims(); i++ {
				prims = append(prims, s.Prim(i))
			}
			if !slices.Equal(prims, tt.prims) {
				t.Errorf("prims = %v, want %v", prims, tt.prims)
			}
		})
	}
}

// objInvalid are OBJ strings that ReadOBJ rejects. line is the expected
// ShapeError.Line (-1 for none).
var objInvalid = []struct {
	name string
	src  string
	kind error
	line int
}{
	{"empty", "", ErrEmpty, -1},
	{"blank lines", "\n\r\n  \n", ErrEmpty, -1},
	{"comments only", "# nothing\n# here\n", ErrEmpty, -1},
	{"no faces", "v 0 0 0\nv 1 0 0\nv 0 1 0\n", ErrEmpty, -1},
	{"no vertices", "f 1 2 3\n", ErrEmpty, -1},
	{"missing coordinate", "v 0 0 0\nv 1 0\nv 0 1 0\nf 1 2 3\n", ErrSyntax, 2},
	{"no coordinates", "v 0 0 0\nv 1 0 0\nv\nf 1 2 3\n", ErrSyntax, 3},
	{"bad number", "v 0 0 0\nv 1 0 x\nv 0 1 0\nf 1 2 3\n", ErrSyntax, 2},
	{"bad number suffix", "v 0 0 0\nv 1 0 0\nv 0 1 0z\nf 1 2 3\n", ErrSyntax, 3},
	{"bad w", "v 0 0 0 w\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", ErrSyntax, 1},
	{"five coordinates", "v 0 0 0\nv 1 0 0 1 1\nv 0 1 0\nf 1 2 3\n", ErrSyntax, 2},
	{"NaN", "v 0 0 0\nv 1 0 0\n\nv 0 NaN 0\nf 1 2 3\n", ErrNonFinite, 4},
	{"Inf", "v 0 0 0\nv 1 0 0\nv 0 1 -Inf\nf 1 2 3\n", ErrNonFinite, 3},
	{"overflow", "v 1e999 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", ErrNonFinite, 1},
	{"two corners", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\n", ErrSyntax, 4},
	{"no corners", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf\n", ErrSyntax, 5},
	{"index 0", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", ErrSyntax, 4},
	{"index 0 with vt", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/1 0/1\n", ErrSyntax, 4},
	{"letter corner", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n", ErrSyntax, 4},
	{"float corner", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3.0\n", ErrSyntax, 4},
	{"trailing slash", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/ 2/ 3/\n", ErrSyntax, 4},
	{"empty vertex ref", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf /1 /2 /3\n", ErrSyntax, 4},
	{"four parts", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n", ErrSyntax, 4},
	{"missing normal", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1// 2// 3//\n", ErrSyntax, 4},
	{"garbage statement", "v 0 0 0\nv 1 0 0\n1 2 3\nv 0 1 0\nf 1 2 3\n", ErrSyntax, 3},
	{"garbage byte", "v 0 0 0\n\x00\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", ErrSyntax, 2},
	{"index past end", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\nf 1 2 4\n", ErrIndexRange, 6},
	{"relative index before start", "v 0 0 0\nv 1 0 0\nf -1 -2 -3\nv 0 1 0\n", ErrIndexRange, 3},
	{"huge index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999999\n", ErrIndexRange, 4},
	{"huge negative index", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -99999999999999999999999\n", ErrIndexRange, 4},
	// Errors found by NewMesh and located by ReadOBJ.
	{"repeated vertex", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 1 2\n", ErrDegenerate, 5},
	{"collinear", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n", ErrDegenerate, 4},
	{"open triangle", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 3\n", ErrOpenBoundary, 5},
	{"tetrahedron inside out", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n# reversed\nf 2 3 1\nf 4 2 1\nf 3 4 1\nf 4 3 2\n", ErrWinding, 6},
	{"duplicate face", objTetra + "f 1 3 2\n", ErrNonManifold, 6},
}

func TestReadOBJErrors(t *testing.T) {
	for _, tt := range objInvalid {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReadOBJ(strings.NewReader(tt.src), "bad.obj")
			if err == nil {
				t.Fatalf("ReadOBJ succeeded, want error %v", tt.kind)
			}
			if s != nil {
				t.Errorf("ReadOBJ returned a shape with error %v", err)
			}
			if !errors.Is(err, tt.kind) {
				t.Errorf("error %q is not %v", err, tt.kind)
			}
			var se *ShapeError
			if !errors.As(err, &se) {
				t.Fatalf("error %q (%T) is not a *ShapeError", err, err)
			}
			if se.File != "bad.obj" {
				t.Errorf("File = %q, want %q", se.File, "bad.obj")
			}
			if se.Line != tt.line {
				t.Errorf("Line = %d, want %d (error %q)", se.Line, tt.line, err)
			}
		})
	}
}

func TestReadOBJNonFiniteVertex(t *testing.T) {
	_, err := ReadOBJ(strings.NewReader("v 0 0 0\nvt 0 0\nv 1 0 0\nv 0 nan 0\nf 1 2 3\n"), "nan.obj")
	var se *ShapeError
	if !errors.As(err, &se) || !errors.Is(err, ErrNonFinite) {
		t.Fatalf("error = %v, want a *ShapeError wrapping ErrNonFinite", err)
	}
	if se.Vertex != 2 || se.Line != 4 {
		t.Errorf("Vertex, Line = %d, %d; want 2, 4", se.Vertex, se.Line)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "nan.obj:4: ") || !strings.Contains(msg, "vertex 2") {
		t.Errorf("message %q does not name nan.obj:4 and vertex 2", msg)
	}
}

// objLines returns the 1-based lines of src that start with prefix.
func objLines(src, prefix string) []int {
	var lines []int
	for i, l := range strings.Split(src, "\n") {
		if strings.HasPrefix(l, prefix) {
			lines = append(lines, i+1)
		}
	}
	return lines
}

func TestReadOBJFlippedFace(t *testing.T) {
	faces := objLines(objTetra, "f ")
	for i, line := range faces {
		lines := strings.Split(objTetra, "\n")
		c := strings.Fields(lines[line-1]) // "f", a, b, c
		lines[line-1] = strings.Join([]string{"f", c[1], c[3], c[2]}, " ")
		src := strings.Join(lines, "\n")
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			_, err := ReadOBJ(strings.NewReader(src), "flip.obj")
			if !errors.Is(err, ErrWinding) {
				t.Fatalf("error = %v, want ErrWinding", err)
			}
			var se *ShapeError
			if !errors.As(err, &se) {
				t.Fatalf("error %T is not a *ShapeError", err)
			}
			// NewMesh names the lower-numbered triangle of the first bad
			// edge (and the other one in Other). Either way the reported line
			// must be that of triangle Prim, and one of the two must be the
			// flipped face.
			if se.Prim < 0 || se.Prim >= len(faces) || se.Line != faces[se.Prim] {
				t.Fatalf("Prim %d, Line %d do not match the face lines %v", se.Prim, se.Line, faces)
			}
			if se.Prim != i && se.Other != i {
				t.Errorf("Prim %d, Other %d; want one of them to be the flipped face %d", se.Prim, se.Other, i)
			}
			if i == 0 && se.Line != line {
				t.Errorf("Line = %d, want %d", se.Line, line)
			}
		})
	}
}

func TestReadOBJMissingFace(t *testing.T) {
	faces := objLines(objTetra, "f ")
	src := strings.Replace(objTetra, "f 2 3 4\n", "", 1)
	_, err := ReadOBJ(strings.NewReader(src), "open.obj")
	if !errors.Is(err, ErrOpenBoundary) {
		t.Fatalf("error = %v, want ErrOpenBoundary", err)
	}
	var se *ShapeError
	if !errors.As(err, &se) {
		t.Fatalf("error %T is not a *ShapeError", err)
	}
	if se.Prim < 0 || se.Prim >= len(faces)-1 || se.Line != faces[se.Prim] {
		t.Errorf("Prim %d, Line %d do not match the face lines %v", se.Prim, se.Line, faces)
	}
}

func TestReadOBJTooLarge(t *testing.T) {
	defer func(e, l int) { objMaxElements, objMaxLineBytes = e, l }(objMaxElements, objMaxLineBytes)
	objMaxElements, objMaxLineBytes = 4, 1<<10

	tests := []struct {
		name string
		src  string
		line int
	}{
		{"vertices", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 1 1 1\nf 1 2 3\n", 5},
		{"triangles", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3 4\nf 1 2 3 4 1 2 3\n", 6},
		{"line", "v 0 0 0\n#" + strings.Repeat(" ", 1<<10) + "\n", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadOBJ(strings.NewReader(tt.src), "big.obj")
			var se *ShapeError
			if !errors.Is(err, ErrTooLarge) || !errors.As(err, &se) {
				t.Fatalf("error = %v, want a *ShapeError wrapping ErrTooLarge", err)
			}
			if se.Line != tt.line {
				t.Errorf("Line = %d, want %d", se.Line, tt.line)
			}
		})
	}
}

// errReader fails after returning its data.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadOBJReaderError(t *testing.T) {
	boom := errors.New("boom")
	_, err := ReadOBJ(&errReader{data: []byte(objTetra), err: boom}, "r.obj")
	if !errors.Is(err, boom) {
		t.Fatalf("error = %v, want one wrapping %v", err, boom)
	}
	if !strings.Contains(err.Error(), "r.obj") {
		t.Errorf("error %q does not name the stream", err)
	}
	var se *ShapeError
	if errors.As(err, &se) {
		t.Errorf("reader error reported as a *ShapeError: %v", err)
	}
}

var objSentinels = []error{
	ErrEmpty, ErrNonFinite, ErrIndexRange, ErrDegenerate, ErrOpenBoundary,
	ErrNonManifold, ErrWinding, ErrSyntax, ErrTooLarge,
}

// checkRead fails unless a mesh reader returned either a shape or an
// error, and the error is a *ShapeError naming file and wrapping one of
// the sentinel errors.
func checkRead(t *testing.T, s *Shape, err error, file string) {
	t.Helper()
	if err == nil {
		if s == nil || s.NumVertices() <= 0 {
			t.Fatalf("no error and shape %v", s)
		}
		return
	}
	if s != nil {
		t.Fatalf("a shape and error %v", err)
	}
	if !slices.ContainsFunc(objSentinels, func(k error) bool { return errors.Is(err, k) }) {
		t.Fatalf("error %q (%T) wraps none of the sentinel errors", err, err)
	}
	var se *ShapeError
	if !errors.As(err, &se) || se.File != file {
		t.Fatalf("error %q is not a *ShapeError naming %s", err, file)
	}
}

// checkParse fails unless a Parse function agreed with its Read twin (s,
// err): the same error, or arrays whose corners name their vertices and
// which have the shape's counts if there is one. It reports whether the
// arrays are there (perr nil).
func checkParse(t *testing.T, s *Shape, err error, verts []mgl64.Vec3, tris [][3]int, perr error) bool {
	t.Helper()
	if perr != nil {
		if err == nil || perr.Error() != err.Error() {
			t.Fatalf("Parse error %v, Read error %v", perr, err)
		}
		return false
	}
	for i, tri := range tris {
		for _, v := range tri {
			if v < 0 || v >= len(verts) {
				t.Fatalf("triangle %d = %v refers outside %d vertices", i, tri, len(verts))
			}
		}
	}
	if s != nil && (s.NumVertices() != len(verts) || s.NumPrims() != len(tris)) {
		t.Fatalf("shape has %d vertices, %d triangles; Parse %d, %d", s.NumVertices(), s.NumPrims(), len(verts), len(tris))
	}
	return true
}

func FuzzReadOBJ(f *testing.F) {
	for _, tt := range objValid {
		f.Add([]byte(tt.src))
	}
	for _, tt := range objInvalid {
		f.Add([]byte(tt.src))
	}
	f.Add([]byte(objTetra))
	f.Add([]byte(objCube))
	// Extreme but finite coordinates.
	const tetraFaces = "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
	for _, x := range []string{"1e308", "5e-324", "1e-160", "1e160"} {
		f.Add([]byte("v 0 0 0\nv " + x + " 0 0\nv 0 " + x + " 0\nv 0 0 " + x + "\n" + tetraFaces))
	}
	f.Add([]byte("v -1e308 -1e308 -1e308\nv 1e308 -1e308 -1e308\nv -1e308 1e308 -1e308\nv -1e308 -1e308 1e308\n" + tetraFaces))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadOBJ(bytes.NewReader(data), "fuzz.obj")
		checkRead(t, s, err, "fuzz.obj")

		verts, tris, lines, perr := ParseOBJ(bytes.NewReader(data), "fuzz.obj")
		if checkParse(t, s, err, verts, tris, perr) && len(lines) != len(tris) {
			t.Fatalf("%d triangles but %d face lines", len(tris), len(lines))
		}
	})
}
