package narrow

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
)

// Limits on what the OBJ reader accepts, so that a hostile or corrupt file
// cannot exhaust memory. They are variables only so that tests can lower them.
var (
	objMaxElements  = 1 << 26 // vertices, and triangles after fan triangulation
	objMaxLineBytes = 1 << 26 // bytes in one line, terminator included
)

// objMaxQuote is the longest token quoted verbatim in an error message.
const objMaxQuote = 32

// LoadOBJ reads the Wavefront OBJ file at path and builds a closed triangle
// mesh from it, as ReadOBJ does with name set to path. Errors opening or
// reading the file wrap the underlying os error.
func LoadOBJ(path string) (*Shape, error) {
	return loadMesh(path, parseOBJ)
}

// ReadOBJ parses a Wavefront OBJ stream with ParseOBJ and builds a closed
// triangle mesh from it with NewMesh. Vertex i of the shape is the i-th v
// statement of the file and triangle i is the i-th triangle produced by the
// fan triangulation of its f statements, in file order.
//
// name identifies the stream in errors; it is usually the file name. Every
// error describing bad content is a *ShapeError with File set to name and,
// where a statement is to blame, Line set to its 1-based line: for a problem
// NewMesh finds in triangle i it is the line of the f statement that produced
// the triangle, for one it finds in a vertex it is the line of that vertex's
// v statement.
func ReadOBJ(r io.Reader, name string) (*Shape, error) {
	return readMesh(r, name, parseOBJ)
}

// ParseOBJ parses the geometry of a Wavefront OBJ stream without building a
// shape, for tools that want the raw arrays. name identifies the stream in
// errors.
//
// It reads the statements
//
//	v x y z [w]
//	f v1 v2 v3 ...
//
// where each face corner has one of the forms v, v/vt, v/vt/vn or v//vn. The
// optional w coordinate is checked to be a number and otherwise ignored, as
// are the texture and normal references of a corner. A vertex reference n > 0
// is the n-th v statement of the file; n < 0 counts back from the last v
// statement before the face, so -1 is the most recent vertex. A face with k > 3
// corners c0 c1 ... is split into the fan of triangles (c0, c1, c2), (c0, c2,
// c3), ..., (c0, ck-2, ck-1). Comments (from # to the end of the line), blank
// lines and all other statements (vt, vn, o, g, s, usemtl, mtllib, l, p and so
// on) are ignored. Lines may end in LF or CRLF, and fields may be separated by
// any run of spaces and tabs.
//
// vertices holds the v statements in file order and triangles the 0-based
// vertex indices of the triangles in face order; faceLines[i] is the 1-based
// line of the f statement that produced triangles[i].
//
// An error in the content is a *ShapeError with File set to name, wrapping
// ErrSyntax (malformed statement, number or face corner, a face with fewer
// than three corners, vertex reference 0), ErrIndexRange (a reference to a
// vertex the file does not define), ErrNonFinite (a NaN or infinite
// coordinate; Vertex names the vertex), ErrEmpty (no vertex or no face) or
// ErrTooLarge (more than 1<<26 vertices, triangles or bytes in a line). Line
// is the 1-based line of the offending statement where there is one. An error
// from r is returned wrapped.
func ParseOBJ(r io.Reader, name string) (vertices []mgl64.Vec3, triangles [][3]int, faceLines []int, err error) {
	p, err := parseOBJ(r, name)
	if err != nil {
		return nil, nil, nil, err
	}
	return p.vertices, p.triangles, p.faceLines, nil
}

// meshData is a parsed mesh file: its vertices and triangles, and for a
// text format the lines that defined them.
type meshData struct {
	vertices    []mgl64.Vec3
	vertexLines []int // 1-based line of each vertex's definition (nil: none)
	triangles   [][3]int
	faceLines   []int // 1-based line of the statement of each triangle (nil: none)
}

// check refuses d if it has no vertex or no triangle, or a triangle that
// names a vertex it does not have (numbered from first in the message, as
// the file numbers them).
func (d *meshData) check(name string, first int) error {
	nv := len(d.vertices)
	if nv == 0 || len(d.triangles) == 0 {
		e := newShapeError(ErrEmpty, fmt.Sprintf("%d vertices, %d faces", nv, len(d.triangles)))
		e.File = name
		return e
	}
	for i, t := range d.triangles {
		for _, v := range t {
			if v >= nv {
				e := newShapeError(ErrIndexRange, fmt.Sprintf("vertex %d referenced, but the file defines %d", v+first, nv))
				e.File, e.Prim = name, i
				if i < len(d.faceLines) {
					e.Line = d.faceLines[i]
				}
				return e
			}
		}
	}
	return nil
}

// build makes the shape of d with NewMesh, completing its errors with the
// file's name and the line to blame: a triangle's statement, or a vertex's.
func (d *meshData) build(name string) (*Shape, error) {
	s, err := NewMesh(d.vertices, d.triangles)
	if err != nil {
		var se *ShapeError
		if errors.As(err, &se) {
			se.File = name
			switch {
			case se.Prim >= 0 && se.Prim < len(d.faceLines):
				se.Line = d.faceLines[se.Prim]
			case se.Vertex >= 0 && se.Vertex < len(d.vertexLines):
				se.Line = d.vertexLines[se.Vertex]
			}
		}
		return nil, err
	}
	return s, nil
}

// objParser holds the state of one parse.
type objParser struct {
	name    string
	line    int   // 1-based number of the current line
	corners []int // scratch for the corners of the current face
	meshData
}

// fail returns a *ShapeError of the given kind located at the current line.
func (p *objParser) fail(kind error, format string, args ...any) *ShapeError {
	e := newShapeError(kind, fmt.Sprintf(format, args...))
	e.File = p.name
	e.Line = p.line
	return e
}

func parseOBJ(r io.Reader, name string) (*meshData, error) {
	p := &objParser{name: name}
	br := bufio.NewReader(r)
	var long []byte // accumulates lines longer than br's buffer
	for {
		line, err := readLine(br, &long)
		if err == io.EOF {
			break
		}
		p.line++
		if err == errLineTooLong {
			return nil, p.fail(ErrTooLarge, "line longer than %d bytes", objMaxLineBytes)
		}
		if err != nil {
			return nil, fmt.Errorf("narrow: read OBJ %s: %w", name, err)
		}
		if p.line == 1 {
			line = trimBOM(line)
		}
		if err := p.statement(line); err != nil {
			return nil, err
		}
	}

	// Positive references may name vertices defined later in the file, so
	// they are checked against the final count.
	if err := p.check(name, 1); err != nil {
		return nil, err
	}
	return &p.meshData, nil
}

// errLineTooLong is returned by readLine for a line over objMaxLineBytes.
var errLineTooLong = errors.New("line too long")

// readLine returns the next line of br without its terminating '\n', or
// io.EOF when there is none. The result is valid until the next call. long is
// scratch space kept between calls.
func readLine(br *bufio.Reader, long *[]byte) ([]byte, error) {
	*long = (*long)[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		if len(*long)+len(chunk) > objMaxLineBytes {
			return nil, errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			*long = append(*long, chunk...)
			continue
		}
		line := chunk
		if len(*long) > 0 {
			*long = append(*long, chunk...)
			line = *long
		}
		switch {
		case err == io.EOF && len(line) > 0:
			return line, nil // last line has no terminator
		case err != nil:
			return nil, err
		}
		return line[:len(line)-1], nil
	}
}

// trimBOM removes a UTF-8 byte order mark from the start of b.
func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

// isSpace reports whether c separates fields. '\r' is included so that CRLF
// line endings need no special case.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// nextField splits the first whitespace-separated field off s. field is empty
// when s holds no more fields.
func nextField(s []byte) (field, rest []byte) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

// validKeyword reports whether kw can name an OBJ statement: an ASCII letter
// followed by letters, digits or underscores.
func validKeyword(kw []byte) bool {
	for i, c := range kw {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || !(c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return len(kw) > 0
}

// quote formats a token for an error message, shortening long ones.
func quote(b []byte) string {
	if len(b) > objMaxQuote {
		return strconv.Quote(string(b[:objMaxQuote])) + "..."
	}
	return strconv.Quote(string(b))
}

// statement parses one line.
func (p *objParser) statement(line []byte) error {
	for i, c := range line {
		if c == '#' {
			line = line[:i]
			break
		}
	}
	kw, rest := nextField(line)
	switch {
	case len(kw) == 0:
		return nil
	case string(kw) == "v":
		return p.vertex(rest)
	case string(kw) == "f":
		return p.face(rest)
	case !validKeyword(kw):
		return p.fail(ErrSyntax, "unrecognised statement %s", quote(kw))
	}
	return nil
}

// vertex parses the arguments of a v statement.
func (p *objParser) vertex(args []byte) error {
	if len(p.vertices) >= objMaxElements {
		return p.fail(ErrTooLarge, "more than %d vertices", objMaxElements)
	}
	var v mgl64.Vec3
	n := 0
	for {
		var tok []byte
		tok, args = nextField(args)
		if len(tok) == 0 {
			break
		}
		if n == 4 {
			return p.fail(ErrSyntax, "vertex has more than 4 coordinates: unexpected %s", quote(tok))
		}
		x, err := strconv.ParseFloat(string(tok), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return p.fail(ErrSyntax, "coordinate %d: bad number %s", n, quote(tok))
		}
		if n < 3 {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				e := p.fail(ErrNonFinite, "coordinate %d is %s", n, quote(tok))
				e.Vertex = len(p.vertices)
				return e
			}
			v[n] = x
		}
		n++
	}
	if n < 3 {
		return p.fail(ErrSyntax, "vertex has %d coordinates, want 3 (or 4 with w)", n)
	}
	p.vertices = append(p.vertices, v)
	p.vertexLines = append(p.vertexLines, p.line)
	return nil
}

// face parses the arguments of an f statement and appends its fan of
// triangles.
func (p *objParser) face(args []byte) error {
	p.corners = p.corners[:0]
	nv := len(p.vertices)
	for {
		var tok []byte
		tok, args = nextField(args)
		if len(tok) == 0 {
			break
		}
		ref, err := p.corner(tok)
		if err != nil {
			return err
		}
		switch {
		case ref < 0:
			if ref < -nv {
				return p.fail(ErrIndexRange, "corner %d: relative reference %d, but only %d vertices are defined so far", len(p.corners), ref, nv)
			}
			p.corners = append(p.corners, nv+ref)
		default:
			// ref > 0; checked against the final vertex count by parseOBJ.
			p.corners = append(p.corners, ref-1)
		}
		if len(p.triangles)+len(p.corners)-2 > objMaxElements {
			return p.fail(ErrTooLarge, "more than %d triangles", objMaxElements)
		}
	}
	if len(p.corners) < 3 {
		return p.fail(ErrSyntax, "face has %d corners, want at least 3", len(p.corners))
	}
	c := p.corners
	for i := 1; i+1 < len(c); i++ {
		p.triangles = append(p.triangles, [3]int{c[0], c[i], c[i+1]})
		p.faceLines = append(p.faceLines, p.line)
	}
	return nil
}

// corner parses one face corner (v, v/vt, v/vt/vn or v//vn) and returns its
// vertex reference, which is nonzero.
func (p *objParser) corner(tok []byte) (int, error) {
	var part [3][]byte
	n := 0
	start := 0
	for i := 0; i <= len(tok); i++ {
		if i < len(tok) && tok[i] != '/' {
			continue
		}
		if n == 3 {
			return 0, p.fail(ErrSyntax, "corner %d: bad face corner %s", len(p.corners), quote(tok))
		}
		part[n] = tok[start:i]
		n++
		start = i + 1
	}
	ok := isInteger(part[0])
	switch n {
	case 2: // v/vt
		ok = ok && isInteger(part[1])
	case 3: // v/vt/vn or v//vn
		ok = ok && (len(part[1]) == 0 || isInteger(part[1])) && isInteger(part[2])
	}
	if !ok {
		return 0, p.fail(ErrSyntax, "corner %d: bad face corner %s", len(p.corners), quote(tok))
	}
	ref, err := strconv.Atoi(string(part[0]))
	switch {
	case err != nil: // out of range for int
		return 0, p.fail(ErrIndexRange, "corner %d: vertex reference %s out of range", len(p.corners), quote(part[0]))
	case ref == 0:
		return 0, p.fail(ErrSyntax, "corner %d: vertex reference 0 (references start at 1)", len(p.corners))
	}
	return ref, nil
}

// isInteger reports whether b is an optionally signed, non-empty string of
// decimal digits.
func isInteger(b []byte) bool {
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		b = b[1:]
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(b) > 0
}
