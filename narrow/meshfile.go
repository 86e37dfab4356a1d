package narrow

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
)

// meshParse parses a mesh stream of one format; name identifies it in
// errors.
type meshParse func(r io.Reader, name string) (*meshData, error)

// meshParser returns the parser of the mesh format that name's extension
// names (.obj, .stl or .ply, in any case).
func meshParser(name string) (meshParse, error) {
	switch ext := filepath.Ext(name); strings.ToLower(ext) {
	case ".obj":
		return parseOBJ, nil
	case ".stl":
		return parseSTL, nil
	case ".ply":
		return parsePLY, nil
	default:
		e := newShapeError(ErrFormat, fmt.Sprintf("extension %q, want .obj, .stl or .ply", ext))
		e.File = name
		return nil, e
	}
}

// LoadMesh reads the mesh file at path in the format its extension names
// and builds a closed triangle mesh from it: .obj as LoadOBJ does, .stl as
// LoadSTL does, .ply as LoadPLY does (in any case). Another extension is
// refused with a *ShapeError wrapping ErrFormat.
func LoadMesh(path string) (*Shape, error) {
	parse, err := meshParser(path)
	if err != nil {
		return nil, err
	}
	return loadMesh(path, parse)
}

// loadMesh opens the file at path and reads it with readMesh.
func loadMesh(path string, parse meshParse) (*Shape, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("narrow: load mesh: %w", err)
	}
	defer f.Close()
	return readMesh(f, path, parse)
}

// readMesh parses r with parse and builds its shape.
func readMesh(r io.Reader, name string, parse meshParse) (*Shape, error) {
	d, err := parse(r, name)
	if err != nil {
		return nil, err
	}
	return d.build(name)
}

// ParseMesh parses a mesh stream in the format name's extension names
// (.obj: ParseOBJ, .stl: ParseSTL, .ply: ParsePLY, in any case) without
// building a shape.
// Another extension is refused with a *ShapeError wrapping ErrFormat.
func ParseMesh(r io.Reader, name string) (vertices []mgl64.Vec3, triangles [][3]int, err error) {
	parse, err := meshParser(name)
	if err != nil {
		return nil, nil, err
	}
	return parse.arrays(r, name)
}

// arrays parses r with parse and returns its vertices and triangles.
func (parse meshParse) arrays(r io.Reader, name string) ([]mgl64.Vec3, [][3]int, error) {
	d, err := parse(r, name)
	if err != nil {
		return nil, nil, err
	}
	return d.vertices, d.triangles, nil
}

// tokens splits a text stream (ASCII STL, ASCII PLY data) into white-space
// separated tokens, keeping each one's line.
type tokens struct {
	br   *bufio.Reader
	long []byte
	rest []byte // what is left of the current line
	line int
	eof  bool
}

// next returns the next token (valid until the next call) or nil at the
// end of the stream.
func (s *tokens) next() ([]byte, error) {
	for {
		var tok []byte
		tok, s.rest = nextField(s.rest)
		switch {
		case len(tok) > 0:
			return tok, nil
		case s.eof:
			return nil, nil
		}
		line, err := readLine(s.br, &s.long)
		switch {
		case err == io.EOF:
			s.eof = true
			continue
		case err == errLineTooLong:
			s.line++
			return nil, ErrTooLarge
		case err != nil:
			return nil, err
		}
		s.line++
		if s.line == 1 {
			line = trimBOM(line)
		}
		s.rest = line
	}
}
