package narrow

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
)

// The binary STL layout: an 80-byte header, the triangle count (u32), then
// per triangle a normal and three vertices (12 float32) and a 16-bit
// attribute, all little endian.
const (
	stlHeaderBytes = 84
	stlTriBytes    = 50
	// stlSniffBytes is how much of a stream ReadSTL looks at to tell ASCII
	// from binary.
	stlSniffBytes = 512
)

// LoadSTL reads the STL file at path (ASCII or binary) and builds a closed
// triangle mesh from it, as ReadSTL does with name set to path. Errors
// opening or reading the file wrap the underlying os error.
func LoadSTL(path string) (*Shape, error) {
	return loadMesh(path, parseSTL)
}

// ReadSTL parses an STL stream with ParseSTL and builds a closed triangle
// mesh from it with NewMesh. Triangle i of the shape is the i-th triangle
// of the file; vertex i is the i-th distinct point in the order the
// triangles' corners name them (STL repeats a point at every corner; equal
// coordinates make one vertex, so the file's triangles must meet at exactly
// equal points).
//
// name identifies the stream in errors; it is usually the file name. Every
// error describing bad content is a *ShapeError with File set to name; in
// an ASCII file Line is the 1-based line to blame: for a problem NewMesh
// finds in triangle i, the line of its facet statement; for one in a
// vertex, the line where the point first appears.
func ReadSTL(r io.Reader, name string) (*Shape, error) {
	return readMesh(r, name, parseSTL)
}

// ParseSTL parses the geometry of an STL stream, ASCII or binary, without
// building a shape, for tools that want the raw arrays: vertices holds the
// distinct points in order of first appearance (equal coordinates are one
// vertex; −0 equals +0) and triangles their 0-based indices, one triangle
// per facet in file order. The facets' stored normals are not used:
// NewMesh takes the orientation from the corners' order
// (counter-clockwise seen from outside, as the format prescribes).
//
// A stream is read as ASCII when, after an optional UTF-8 byte order mark
// and white space, it starts with the keyword solid and its first 512
// bytes hold no control character other than white space; otherwise as
// binary (whose 80-byte header may also start with "solid", as some
// exporters write it). An ASCII stream is one or more blocks
//
//	solid [name]
//	  facet normal nx ny nz
//	    outer loop
//	      vertex x y z
//	      vertex x y z
//	      vertex x y z
//	    endloop
//	  endfacet
//	  ...
//	endsolid [name]
//
// with keywords in any case and any white space between tokens; the
// facets of all the blocks make one mesh. A binary stream must hold
// exactly the triangles its header counts.
//
// An error in the content is a *ShapeError with File set to name, wrapping
// ErrSyntax (an unexpected or missing keyword, a malformed number, a
// binary stream shorter or longer than its count says; Prim names the
// triangle where there is one), ErrNonFinite (a NaN or infinite coordinate;
// Prim names the triangle), ErrEmpty (no triangle) or ErrTooLarge (more
// than 1<<26 triangles, or a line over 1<<26 bytes). In an ASCII stream,
// Line is the 1-based line of the offending token. An error from r is
// returned wrapped.
func ParseSTL(r io.Reader, name string) (vertices []mgl64.Vec3, triangles [][3]int, err error) {
	return meshParse(parseSTL).arrays(r, name)
}

func parseSTL(r io.Reader, name string) (*meshData, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(stlSniffBytes)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, fmt.Errorf("narrow: read STL %s: %w", name, err)
	}
	w := welder{name: name, index: pointIndex{}}
	if isASCIISTL(head) {
		err = w.ascii(br)
	} else {
		err = w.binary(br)
	}
	if err != nil {
		return nil, err
	}
	if err := w.check(name, 0); err != nil {
		return nil, err
	}
	return &w.meshData, nil
}

// isASCIISTL tells an ASCII STL stream from a binary one by its first
// bytes (see ParseSTL).
func isASCIISTL(head []byte) bool {
	for _, c := range head {
		if c < 0x20 && !isSpace(c) && c != '\n' || c == 0x7f {
			return false
		}
	}
	kw, _ := nextField(bytes.TrimLeft(trimBOM(head), " \t\r\n\v\f"))
	return bytes.EqualFold(kw, []byte("solid"))
}

// welder builds a mesh from the corners of an STL stream, one vertex per
// distinct point.
type welder struct {
	name  string
	index pointIndex
	meshData
}

// fail returns a *ShapeError of the given kind in file w.name at line (0:
// none) and triangle prim (-1: none).
func (w *welder) fail(kind error, line, prim int, format string, args ...any) *ShapeError {
	e := newShapeError(kind, fmt.Sprintf(format, args...))
	e.File, e.Prim = w.name, prim
	if line > 0 {
		e.Line = line
	}
	return e
}

// triangle adds a facet's corners (line: its facet statement's, 0 in a
// binary stream; lines: each corner's).
func (w *welder) triangle(c *[3][3]float64, line int, lines *[3]int) error {
	t := len(w.triangles)
	if t >= objMaxElements {
		return w.fail(ErrTooLarge, line, -1, "more than %d triangles", objMaxElements)
	}
	var tri [3]int
	for k := range c {
		for j, x := range c[k] {
			if !finite(x) {
				return w.fail(ErrNonFinite, lines[k], t, "corner %d, coordinate %d is %v", k, j, x)
			}
		}
		i, added := w.index.add(c[k], len(w.vertices))
		if added {
			w.vertices = append(w.vertices, w.index.point(c[k]))
			if line > 0 {
				w.vertexLines = append(w.vertexLines, lines[k])
			}
		}
		tri[k] = i
	}
	w.triangles = append(w.triangles, tri)
	if line > 0 {
		w.faceLines = append(w.faceLines, line)
	}
	return nil
}

// binary reads a binary STL stream.
func (w *welder) binary(br *bufio.Reader) error {
	var head [stlHeaderBytes]byte
	if n, err := io.ReadFull(br, head[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return w.fail(ErrSyntax, 0, -1, "%d bytes: not ASCII STL (no solid keyword), and shorter than a binary STL's %d-byte header", n, stlHeaderBytes)
		}
		return fmt.Errorf("narrow: read STL %s: %w", w.name, err)
	}
	count := binary.LittleEndian.Uint32(head[80:])
	if count > uint32(objMaxElements) {
		return w.fail(ErrTooLarge, 0, -1, "the header counts %d triangles, more than %d", count, objMaxElements)
	}
	var rec [stlTriBytes]byte
	var c [3][3]float64
	var noLines [3]int
	for t := range int(count) {
		if _, err := io.ReadFull(br, rec[:]); err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return w.fail(ErrSyntax, 0, t, "the stream ends in triangle %d of the %d its header counts", t, count)
			}
			return fmt.Errorf("narrow: read STL %s: %w", w.name, err)
		}
		for k := range c {
			for j := range c[k] {
				at := 12 + 12*k + 4*j
				c[k][j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[at:])))
			}
		}
		if err := w.triangle(&c, 0, &noLines); err != nil {
			return err
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		if err != nil {
			return fmt.Errorf("narrow: read STL %s: %w", w.name, err)
		}
		return w.fail(ErrSyntax, 0, -1, "more bytes than the %d triangles its header counts", count)
	}
	return nil
}

// ascii reads an ASCII STL stream (see ParseSTL).
func (w *welder) ascii(br *bufio.Reader) error {
	s := tokens{br: br}
	tok := func() ([]byte, error) {
		t, err := s.next()
		switch {
		case errors.Is(err, ErrTooLarge):
			return nil, w.fail(ErrTooLarge, s.line, -1, "line longer than %d bytes", objMaxLineBytes)
		case err != nil:
			return nil, fmt.Errorf("narrow: read STL %s: %w", w.name, err)
		}
		return t, nil
	}
	expect := func(want string) error {
		t, err := tok()
		if err != nil {
			return err
		}
		if !bytes.EqualFold(t, []byte(want)) {
			return w.fail(ErrSyntax, s.line, len(w.triangles), "%s where %s was expected", stlQuote(t), want)
		}
		return nil
	}
	var c [3][3]float64
	var lines [3]int
	for blocks := 0; ; blocks++ {
		t, err := tok()
		if err != nil {
			return err
		}
		if t == nil && blocks > 0 {
			return nil
		}
		if !bytes.EqualFold(t, []byte("solid")) {
			return w.fail(ErrSyntax, s.line, -1, "%s where solid was expected", stlQuote(t))
		}
		s.rest = nil // the solid's name
		for {
			t, err := tok()
			if err != nil {
				return err
			}
			if bytes.EqualFold(t, []byte("endsolid")) {
				s.rest = nil
				break
			}
			if !bytes.EqualFold(t, []byte("facet")) {
				return w.fail(ErrSyntax, s.line, -1, "%s where facet or endsolid was expected", stlQuote(t))
			}
			line := s.line
			if err := expect("normal"); err != nil {
				return err
			}
			for range 3 { // the stored normal: three tokens, not used
				if t, err := tok(); err != nil || t == nil {
					if err == nil {
						err = w.fail(ErrSyntax, s.line, len(w.triangles), "the stream ends in a facet's normal")
					}
					return err
				}
			}
			if err := expect("outer"); err != nil {
				return err
			}
			if err := expect("loop"); err != nil {
				return err
			}
			for k := range c {
				if err := expect("vertex"); err != nil {
					return err
				}
				lines[k] = s.line
				for j := range c[k] {
					t, err := tok()
					if err != nil {
						return err
					}
					if t == nil {
						return w.fail(ErrSyntax, s.line, len(w.triangles), "the stream ends in corner %d", k)
					}
					x, perr := strconv.ParseFloat(string(t), 64)
					if perr != nil && !errors.Is(perr, strconv.ErrRange) {
						return w.fail(ErrSyntax, s.line, len(w.triangles), "corner %d, coordinate %d: bad number %s", k, j, stlQuote(t))
					}
					c[k][j] = x
				}
			}
			if err := expect("endloop"); err != nil {
				return err
			}
			if err := expect("endfacet"); err != nil {
				return err
			}
			if err := w.triangle(&c, line, &lines); err != nil {
				return err
			}
		}
	}
}

// stlQuote formats a token for an error message; nil is the end of the
// stream.
func stlQuote(t []byte) string {
	if t == nil {
		return "the end of the stream"
	}
	return quote(t)
}

// WriteSTL writes s, a 3D shape, as a binary STL stream: triangle i is the
// shape's primitive i with its face normal, and every coordinate is rounded
// to float32, as the format stores it (so reading the stream back gives the
// shape only up to that rounding). The header's 80 bytes hold a short
// description of the shape.
func WriteSTL(w io.Writer, s *Shape) error {
	if s.Dim() != Dim3 {
		return fmt.Errorf("narrow: write STL: %w: a %dD shape has no triangles", ErrDimension, s.Dim())
	}
	bw := bufio.NewWriter(w)
	var head [stlHeaderBytes]byte
	copy(head[:80], fmt.Sprintf("binary STL written by irtcd: %d vertices, %d triangles", s.NumVertices(), s.NumPrims()))
	binary.LittleEndian.PutUint32(head[80:], uint32(s.NumPrims()))
	if _, err := bw.Write(head[:]); err != nil {
		return fmt.Errorf("narrow: write STL: %w", err)
	}
	var rec [stlTriBytes]byte
	put := func(at int, v mgl64.Vec3) {
		for j := range 3 {
			binary.LittleEndian.PutUint32(rec[at+4*j:], math.Float32bits(float32(v[j])))
		}
	}
	for i := range s.NumPrims() {
		put(0, s.FaceNormal(i))
		for k, v := range s.Prim(i) {
			put(12+12*k, s.Vertex(int(v)))
		}
		if _, err := bw.Write(rec[:]); err != nil {
			return fmt.Errorf("narrow: write STL: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("narrow: write STL: %w", err)
	}
	return nil
}
