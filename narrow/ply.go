package narrow

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
)

// plyMaxHeader bounds the elements and properties a PLY header may
// declare, so that a hostile header cannot exhaust memory.
const plyMaxHeader = 1 << 10

// LoadPLY reads the PLY file at path (ASCII or binary) and builds a closed
// triangle mesh from it, as ReadPLY does with name set to path. Errors
// opening or reading the file wrap the underlying os error.
func LoadPLY(path string) (*Shape, error) {
	return loadMesh(path, parsePLY)
}

// ReadPLY parses a PLY stream with ParsePLY and builds a closed triangle
// mesh from it with NewMesh. Vertex i of the shape is the file's vertex i
// and triangle i the i-th triangle of the fan triangulation of its faces,
// in file order.
//
// name identifies the stream in errors; it is usually the file name. Every
// error describing bad content is a *ShapeError with File set to name; in
// an ASCII file Line is the 1-based line to blame: for a problem NewMesh
// finds in triangle i, the line of the face that produced it; for one in a
// vertex, that vertex's line.
func ReadPLY(r io.Reader, name string) (*Shape, error) {
	return readMesh(r, name, parsePLY)
}

// ParsePLY parses the geometry of a PLY (Stanford polygon file format)
// stream without building a shape, for tools that want the raw arrays:
// vertices holds the x, y and z properties of the vertex element in file
// order, triangles the 0-based indices of the fan triangulation of each
// face (corners c0 c1 ... ck-1 give (c0, c1, c2), (c0, c2, c3), ...).
//
// The header is
//
//	ply
//	format ascii|binary_little_endian|binary_big_endian 1.0
//	element vertex N
//	property float x        (any scalar type: char uchar short ushort
//	property float y         int uint float double, or int8 uint8 int16
//	property float z         uint16 int32 uint32 float32 float64)
//	element face M
//	property list uchar int vertex_indices   (or vertex_index)
//	end_header
//
// with comment and obj_info lines anywhere, other properties (normals,
// colours, texture coordinates) and other elements (edges, materials)
// read and ignored, in any order, so long as the data follow the header's
// order of elements. Lines may end in LF or CRLF. A binary stream must end
// with the last element's data; an ASCII one may end with white space.
//
// An error in the content is a *ShapeError with File set to name, wrapping
// ErrSyntax (a malformed header line or value, a missing vertex
// coordinate or face list, a face with fewer than three corners, the
// stream ending early or holding more than its header says), ErrIndexRange
// (a face corner naming a vertex the file does not have; Prim names a
// triangle of that face), ErrNonFinite (a NaN or infinite coordinate;
// Vertex names the vertex), ErrEmpty (no vertex or no face) or ErrTooLarge
// (more than 1<<26 vertices, triangles or bytes in a line, or more than
// 1024 elements or properties). In an ASCII stream, Line is the 1-based
// line of the offending header line, vertex or face. An error from r is
// returned wrapped.
func ParsePLY(r io.Reader, name string) (vertices []mgl64.Vec3, triangles [][3]int, err error) {
	return meshParse(parsePLY).arrays(r, name)
}

// plyType is the type of a PLY value.
type plyType uint8

const (
	plyNone plyType = iota
	plyInt8
	plyUint8
	plyInt16
	plyUint16
	plyInt32
	plyUint32
	plyFloat32
	plyFloat64
)

// plyTypes maps the header's type names, old and new, to types.
var plyTypes = map[string]plyType{
	"char": plyInt8, "int8": plyInt8, "uchar": plyUint8, "uint8": plyUint8,
	"short": plyInt16, "int16": plyInt16, "ushort": plyUint16, "uint16": plyUint16,
	"int": plyInt32, "int32": plyInt32, "uint": plyUint32, "uint32": plyUint32,
	"float": plyFloat32, "float32": plyFloat32, "double": plyFloat64, "float64": plyFloat64,
}

// size returns the bytes of a binary value of type t.
func (t plyType) size() int {
	return [...]int{0, 1, 1, 2, 2, 4, 4, 4, 8}[t]
}

// integer reports whether t is an integer type.
func (t plyType) integer() bool { return t >= plyInt8 && t <= plyUint32 }

// plyProp is a property of an element: a scalar of type typ, or a list
// (count not plyNone) of count's type holding values of type typ.
type plyProp struct {
	name       string
	typ, count plyType
}

// plyElement is an element of the header: n instances of its properties.
type plyElement struct {
	name  string
	n     int
	props []plyProp
	roles []int // per property: plyOther, plyX, plyY, plyZ or plyCorners
	line  int   // the header line declaring it
}

// plyParser holds the state of one parse.
type plyParser struct {
	name    string
	tok     tokens
	order   binary.ByteOrder // nil: ASCII
	inData  bool             // past the header
	buf     [8]byte
	corners []int
	meshData
}

// fail returns a *ShapeError of the given kind at the current line (none
// in binary data).
func (p *plyParser) fail(kind error, format string, args ...any) *ShapeError {
	e := newShapeError(kind, fmt.Sprintf(format, args...))
	e.File = p.name
	if p.tok.line > 0 && (p.order == nil || !p.inData) {
		e.Line = p.tok.line
	}
	return e
}

func parsePLY(r io.Reader, name string) (*meshData, error) {
	p := &plyParser{name: name, tok: tokens{br: bufio.NewReaderSize(r, 64<<10)}}
	elems, err := p.header()
	if err != nil {
		return nil, err
	}
	if err := p.data(elems); err != nil {
		return nil, err
	}
	// Faces may come before the vertices: their corners are checked
	// against the final count.
	if err := p.check(name, 0); err != nil {
		return nil, err
	}
	return &p.meshData, nil
}

// headerLine returns the fields of the header's next line.
func (p *plyParser) headerLine() ([][]byte, error) {
	line, err := readLine(p.tok.br, &p.tok.long)
	switch {
	case err == io.EOF:
		return nil, p.fail(ErrSyntax, "the stream ends in the header (no end_header)")
	case err == errLineTooLong:
		p.tok.line++
		return nil, p.fail(ErrTooLarge, "line longer than %d bytes", objMaxLineBytes)
	case err != nil:
		return nil, fmt.Errorf("narrow: read PLY %s: %w", p.name, err)
	}
	p.tok.line++
	if p.tok.line == 1 {
		line = trimBOM(line)
	}
	return bytes.FieldsFunc(line, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }), nil
}

// header reads the header, up to end_header, and returns its elements.
func (p *plyParser) header() ([]plyElement, error) {
	f, err := p.headerLine()
	if err != nil {
		return nil, err
	}
	if len(f) != 1 || string(f[0]) != "ply" {
		return nil, p.fail(ErrSyntax, "not a PLY stream: the first line is not ply")
	}
	var elems []plyElement
	props, format := 0, false
	for {
		f, err := p.headerLine()
		if err != nil {
			return nil, err
		}
		if len(f) == 0 {
			continue
		}
		switch kw := string(f[0]); {
		case kw == "comment" || kw == "obj_info":
		case kw == "format":
			if format || len(f) != 3 || string(f[2]) != "1.0" {
				return nil, p.fail(ErrSyntax, "want one format line: format ascii|binary_little_endian|binary_big_endian 1.0")
			}
			switch string(f[1]) {
			case "ascii":
			case "binary_little_endian":
				p.order = binary.LittleEndian
			case "binary_big_endian":
				p.order = binary.BigEndian
			default:
				return nil, p.fail(ErrSyntax, "unknown format %s", quote(f[1]))
			}
			format = true
		case kw == "element":
			if len(f) != 3 {
				return nil, p.fail(ErrSyntax, "want element NAME COUNT")
			}
			n, err := strconv.ParseUint(string(f[2]), 10, 63)
			switch {
			case err != nil && !errors.Is(err, strconv.ErrRange):
				return nil, p.fail(ErrSyntax, "element %s: bad count %s", quote(f[1]), quote(f[2]))
			case err != nil || n > uint64(objMaxElements):
				return nil, p.fail(ErrTooLarge, "element %s: more than %d", quote(f[1]), objMaxElements)
			case len(elems) == plyMaxHeader:
				return nil, p.fail(ErrTooLarge, "more than %d elements", plyMaxHeader)
			}
			elems = append(elems, plyElement{name: string(f[1]), n: int(n), line: p.tok.line})
		case kw == "property":
			if len(elems) == 0 {
				return nil, p.fail(ErrSyntax, "property before any element")
			}
			if props++; props > plyMaxHeader {
				return nil, p.fail(ErrTooLarge, "more than %d properties", plyMaxHeader)
			}
			var pr plyProp
			switch {
			case len(f) == 3:
				pr = plyProp{name: string(f[2]), typ: plyTypes[string(f[1])]}
			case len(f) == 5 && string(f[1]) == "list":
				pr = plyProp{name: string(f[4]), count: plyTypes[string(f[2])], typ: plyTypes[string(f[3])]}
				if pr.count == plyNone || !pr.count.integer() {
					return nil, p.fail(ErrSyntax, "property %s: a list's count type must be an integer type", quote(f[4]))
				}
			default:
				return nil, p.fail(ErrSyntax, "want property TYPE NAME or property list COUNTTYPE TYPE NAME")
			}
			if pr.typ == plyNone {
				return nil, p.fail(ErrSyntax, "property %s: unknown type", quote([]byte(pr.name)))
			}
			el := &elems[len(elems)-1]
			for _, q := range el.props {
				if q.name == pr.name {
					return nil, p.fail(ErrSyntax, "element %s: property %s given twice", quote([]byte(el.name)), quote([]byte(pr.name)))
				}
			}
			el.props = append(el.props, pr)
		case kw == "end_header":
			if !format {
				return nil, p.fail(ErrSyntax, "end_header before the format line")
			}
			return elems, p.checkHeader(elems)
		default:
			return nil, p.fail(ErrSyntax, "unknown header keyword %s", quote(f[0]))
		}
	}
}

// The roles of the properties p.data looks for.
const (
	plyOther = iota
	plyX
	plyY
	plyZ
	plyCorners
)

// headerFail returns a *ShapeError wrapping ErrSyntax at the header line
// that declares el.
func (p *plyParser) headerFail(el *plyElement, format string, args ...any) *ShapeError {
	e := newShapeError(ErrSyntax, fmt.Sprintf(format, args...))
	e.File, e.Line = p.name, el.line
	return e
}

// roles returns the role of each property of el, checking that the vertex
// element has scalar x, y and z and the face element an integer list of
// corners.
func (p *plyParser) roles(el *plyElement) ([]int, error) {
	roles := make([]int, len(el.props))
	var found [plyCorners + 1]bool
	for i, pr := range el.props {
		role := plyOther
		switch {
		case el.name == "vertex" && pr.count == plyNone && (pr.name == "x" || pr.name == "y" || pr.name == "z"):
			role = plyX + int(pr.name[0]-'x')
		case el.name == "face" && pr.count != plyNone && (pr.name == "vertex_indices" || pr.name == "vertex_index"):
			if !pr.typ.integer() {
				return nil, p.headerFail(el, "face property %s: corners must be integers", pr.name)
			}
			role = plyCorners
		}
		if found[role] && role != plyOther {
			return nil, p.headerFail(el, "element %s has two %s properties", el.name, pr.name)
		}
		found[role], roles[i] = true, role
	}
	switch {
	case el.name == "vertex" && !(found[plyX] && found[plyY] && found[plyZ]):
		return nil, p.headerFail(el, "the vertex element lacks a scalar x, y or z property")
	case el.name == "face" && !found[plyCorners]:
		return nil, p.headerFail(el, "the face element lacks a list property vertex_indices")
	}
	return roles, nil
}

// checkHeader checks the header's elements as a whole and sets their
// properties' roles.
func (p *plyParser) checkHeader(elems []plyElement) error {
	seen := map[string]bool{}
	for k := range elems {
		el := &elems[k]
		if el.name == "vertex" || el.name == "face" {
			if seen[el.name] {
				return p.headerFail(el, "two %s elements", el.name)
			}
			seen[el.name] = true
		}
		if el.n > 0 && len(el.props) == 0 {
			return p.headerFail(el, "element %s has instances but no property", quote([]byte(el.name)))
		}
		var err error
		if el.roles, err = p.roles(el); err != nil {
			return err
		}
	}
	return nil
}

// data reads the elements' instances.
func (p *plyParser) data(elems []plyElement) error {
	p.inData = true
	for k := range elems {
		for i := range elems[k].n {
			if err := p.instance(&elems[k], i); err != nil {
				return err
			}
		}
	}
	if p.order == nil {
		t, err := p.tok.next()
		if err != nil {
			return p.readErr(err)
		}
		if t != nil {
			return p.fail(ErrSyntax, "%s after the last element", quote(t))
		}
		return nil
	}
	if _, err := p.tok.br.ReadByte(); err != io.EOF {
		if err != nil {
			return p.readErr(err)
		}
		return p.fail(ErrSyntax, "more bytes than the header's elements hold")
	}
	return nil
}

// readErr returns the error for err from reading the stream.
func (p *plyParser) readErr(err error) error {
	if errors.Is(err, ErrTooLarge) {
		return p.fail(ErrTooLarge, "line longer than %d bytes", objMaxLineBytes)
	}
	return fmt.Errorf("narrow: read PLY %s: %w", p.name, err)
}

// instance reads instance i of element el.
func (p *plyParser) instance(el *plyElement, i int) error {
	var v mgl64.Vec3
	line := 0 // of the instance's first value (ASCII)
	for j, pr := range el.props {
		role := el.roles[j]
		if pr.count == plyNone {
			x, err := p.value(pr.typ, el, i, pr.name)
			if err != nil {
				return err
			}
			if role >= plyX && role <= plyZ {
				v[role-plyX] = x
			}
			line = cmp.Or(line, p.tok.line)
			continue
		}
		n, err := p.value(pr.count, el, i, pr.name)
		if err != nil {
			return err
		}
		line = cmp.Or(line, p.tok.line)
		if n < 0 || n > float64(objMaxElements) {
			return p.fail(ErrSyntax, "%s %d: list %s of %v values", el.name, i, pr.name, n)
		}
		p.corners = p.corners[:0]
		for range int(n) {
			x, err := p.value(pr.typ, el, i, pr.name)
			if err != nil {
				return err
			}
			if role == plyCorners {
				if x < 0 {
					e := p.fail(ErrIndexRange, "face %d: corner %v", i, x)
					e.Prim = len(p.triangles)
					return e
				}
				p.corners = append(p.corners, int(x))
			}
		}
		if role == plyCorners {
			if err := p.face(i, line); err != nil {
				return err
			}
		}
	}
	if el.name == "vertex" { // at most objMaxElements: the header's bound
		for k, x := range v {
			if !finite(x) {
				e := p.fail(ErrNonFinite, "coordinate %d is %v", k, x)
				e.Vertex = len(p.vertices)
				return e
			}
		}
		p.vertices = append(p.vertices, v)
		if p.order == nil {
			p.vertexLines = append(p.vertexLines, line)
		}
	}
	return nil
}

// face appends the fan of triangles of face i's corners.
func (p *plyParser) face(i, line int) error {
	c := p.corners
	if len(c) < 3 {
		return p.fail(ErrSyntax, "face %d has %d corners, want at least 3", i, len(c))
	}
	if len(p.triangles)+len(c)-2 > objMaxElements {
		return p.fail(ErrTooLarge, "more than %d triangles", objMaxElements)
	}
	for k := 1; k+1 < len(c); k++ {
		p.triangles = append(p.triangles, [3]int{c[0], c[k], c[k+1]})
		if p.order == nil {
			p.faceLines = append(p.faceLines, line)
		}
	}
	return nil
}

// value reads one value of type t (of property prop of instance i of el).
func (p *plyParser) value(t plyType, el *plyElement, i int, prop string) (float64, error) {
	if p.order == nil {
		tok, err := p.tok.next()
		if err != nil {
			return 0, p.readErr(err)
		}
		if tok == nil {
			return 0, p.fail(ErrSyntax, "the stream ends in %s %d of %d", el.name, i, el.n)
		}
		if t.integer() {
			x, err := strconv.ParseInt(string(tok), 10, 64)
			if err != nil || x < plyMin[t] || x > plyMax[t] {
				return 0, p.fail(ErrSyntax, "%s %d, %s: bad %s %s", el.name, i, prop, plyTypeName[t], quote(tok))
			}
			return float64(x), nil
		}
		bits := 64
		if t == plyFloat32 {
			bits = 32 // the float32 nearest the text, as binary data would hold
		}
		x, err := strconv.ParseFloat(string(tok), bits)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return 0, p.fail(ErrSyntax, "%s %d, %s: bad number %s", el.name, i, prop, quote(tok))
		}
		return x, nil
	}
	b := p.buf[:t.size()]
	if _, err := io.ReadFull(p.tok.br, b); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			e := p.fail(ErrSyntax, "the stream ends in %s %d of %d", el.name, i, el.n)
			return 0, e
		}
		return 0, p.readErr(err)
	}
	o := p.order
	switch t {
	case plyInt8:
		return float64(int8(b[0])), nil
	case plyUint8:
		return float64(b[0]), nil
	case plyInt16:
		return float64(int16(o.Uint16(b))), nil
	case plyUint16:
		return float64(o.Uint16(b)), nil
	case plyInt32:
		return float64(int32(o.Uint32(b))), nil
	case plyUint32:
		return float64(o.Uint32(b)), nil
	case plyFloat32:
		return float64(math.Float32frombits(o.Uint32(b))), nil
	default:
		return math.Float64frombits(o.Uint64(b)), nil
	}
}

// The ranges and names of the integer types, for ASCII values.
var (
	plyMin      = [...]int64{plyInt8: math.MinInt8, plyUint8: 0, plyInt16: math.MinInt16, plyUint16: 0, plyInt32: math.MinInt32, plyUint32: 0}
	plyMax      = [...]int64{plyInt8: math.MaxInt8, plyUint8: math.MaxUint8, plyInt16: math.MaxInt16, plyUint16: math.MaxUint16, plyInt32: math.MaxInt32, plyUint32: math.MaxUint32}
	plyTypeName = [...]string{plyInt8: "int8", plyUint8: "uint8", plyInt16: "int16", plyUint16: "uint16", plyInt32: "int32", plyUint32: "uint32"}
)
