package narrow

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/go-gl/mathgl/mgl64"
)

// meshParse parses a mesh stream of one format; name identifies it in
// errors.
type meshParse func(r io.Reader, name string) (*meshData, error)

// meshParser returns the parser of the mesh format that name's extension
// names (.obj, .stl or .ply, in any case, or one given to
// RegisterMeshFormat).
func meshParser(name string) (meshParse, error) {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".obj":
		return parseOBJ, nil
	case ".stl":
		return parseSTL, nil
	case ".ply":
		return parsePLY, nil
	default:
		if parse := registered(ext); parse != nil {
			return parse.data, nil
		}
		e := newShapeError(ErrFormat, fmt.Sprintf("extension %q, want %s", filepath.Ext(name), knownFormats()))
		e.File = name
		return nil, e
	}
}

// A MeshParser parses a mesh stream of one file format into the vertices
// and triangles that NewMesh takes, as ParseOBJ, ParseSTL and ParsePLY do;
// name identifies the stream in errors (usually its path). Its errors
// should be *ShapeError values wrapping this package's sentinels.
type MeshParser func(r io.Reader, name string) (vertices []mgl64.Vec3, triangles [][3]int, err error)

// data adapts a registered parser to the readers' meshData.
func (p MeshParser) data(r io.Reader, name string) (*meshData, error) {
	v, t, err := p(r, name)
	if err != nil {
		return nil, err
	}
	return &meshData{vertices: v, triangles: t}, nil
}

// formats holds the mesh formats registered with RegisterMeshFormat, by
// lower-case extension.
var formats struct {
	sync.RWMutex
	parse map[string]MeshParser
}

// RegisterMeshFormat makes LoadMesh and ParseMesh read the files whose
// extension is ext (such as ".glb", matched in any case) with parse, as
// package image's RegisterFormat lets packages add image formats. A
// package that reads a format registers it in its init function: import
// github.com/irtcd/irtcd/narrow/gltfmesh for its side effect and
// LoadMesh reads .gltf and .glb files.
//
// It panics, as database/sql's Register does, on what can only be a
// programming error: an ext that is not a dot and at least one more
// character, an extension this package reads itself or one registered
// before, or a nil parse.
func RegisterMeshFormat(ext string, parse MeshParser) {
	key := strings.ToLower(ext)
	if len(key) < 2 || key[0] != '.' || strings.ContainsAny(key[1:], "./\\") {
		panic(fmt.Sprintf("narrow: RegisterMeshFormat: extension %q is not a dot and a name", ext))
	}
	if parse == nil {
		panic(fmt.Sprintf("narrow: RegisterMeshFormat(%q): nil parser", ext))
	}
	switch key {
	case ".obj", ".stl", ".ply":
		panic(fmt.Sprintf("narrow: RegisterMeshFormat: %s is read by package narrow", key))
	}
	formats.Lock()
	defer formats.Unlock()
	if _, dup := formats.parse[key]; dup {
		panic(fmt.Sprintf("narrow: RegisterMeshFormat: %s registered twice", key))
	}
	if formats.parse == nil {
		formats.parse = make(map[string]MeshParser)
	}
	formats.parse[key] = parse
}

// registered returns the parser registered for the lower-case extension
// ext, or nil.
func registered(ext string) MeshParser {
	formats.RLock()
	defer formats.RUnlock()
	return formats.parse[ext]
}

// knownFormats lists the extensions LoadMesh reads, for errors: ".obj,
// .stl or .ply" and the registered ones in order.
func knownFormats() string {
	exts := []string{".obj", ".stl", ".ply"}
	formats.RLock()
	for ext := range formats.parse {
		exts = append(exts, ext)
	}
	formats.RUnlock()
	slices.Sort(exts[3:])
	return strings.Join(exts[:len(exts)-1], ", ") + " or " + exts[len(exts)-1]
}

// LoadMesh reads the mesh file at path in the format its extension names
// and builds a closed triangle mesh from it: .obj as LoadOBJ does, .stl as
// LoadSTL does, .ply as LoadPLY does (in any case), and an extension given
// to RegisterMeshFormat with its parser. Another extension is refused with
// a *ShapeError wrapping ErrFormat.
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
// (.obj: ParseOBJ, .stl: ParseSTL, .ply: ParsePLY, in any case; a
// registered extension: its parser) without building a shape.
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
