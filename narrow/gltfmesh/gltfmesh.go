// Package gltfmesh reads the triangles of glTF 2.0 files (.gltf: JSON with
// embedded or external buffers; .glb: the binary container) as the
// vertices and triangles that narrow.NewMesh takes.
//
// Importing it, even for its side effect only,
//
//	import _ "github.com/irtcd/irtcd/narrow/gltfmesh"
//
// registers .gltf and .glb with narrow.RegisterMeshFormat, so that
// narrow.LoadMesh and narrow.ParseMesh read them as they read OBJ, STL and
// PLY files. The document is decoded by github.com/qmuntal/gltf; this
// package checks what that decoder trusts (buffer lengths, offsets,
// strides, counts, indices) before it reads a byte, so that a malformed
// file is an error that names what is wrong, never a panic or an
// allocation its size does not justify.
//
// # What is read
//
// The triangles of the document's scene (its "scene", or else its first
// scene; with no scene, every node that is no other node's child; with no
// node, every mesh as it stands), node by node depth first in the order
// of each node's children, each mesh primitive in order, placed by its
// node's world transform (its "matrix", or translation × rotation ×
// scale, composed with its parents'). A transform that mirrors (negative
// determinant) has its triangles' corners swapped so that they stay
// counter-clockwise, as the glTF specification asks.
//
// Primitives of mode TRIANGLES, TRIANGLE_STRIP and TRIANGLE_FAN give
// triangles (a strip's triangles alternate their winding as the
// specification numbers them; strip and fan triangles with two equal
// indices, the joins that stitch strips, are dropped); POINTS and LINES
// primitives, and primitives without POSITION, give none. Positions may
// be floats or, as KHR_mesh_quantization allows, signed or unsigned 8-
// and 16-bit integers, normalized or not. Sparse accessors, of positions
// or of indices, read as the dense arrays they stand for (the bufferView's
// elements, or zeros without one, with the sparse values written over
// them). Morph targets, skins, normals
// and every other attribute are ignored (the mesh in its bind pose), and
// so are cameras, materials and images.
//
// Parse returns the whole scene as one mesh (for narrow.LoadMesh, one
// shape); ParseObjects and LoadObjects return each node's mesh apart, for a
// level whose walls, floor and props are bodies of their own.
//
// glTF writes a vertex per distinct set of attributes, so a mesh with
// hard edges or texture seams holds several vertices at one position:
// positions that are exactly equal after the transform are merged into
// one vertex (narrow.Weld), in order of first appearance.
//
// # Errors
//
// A malformed or unsupported file gives a *narrow.ShapeError with File
// set to the stream's name, wrapping narrow.ErrSyntax (a document that
// does not decode, an index of a mesh, node, accessor, buffer view or
// buffer out of range, data outside its buffer, a node reached twice, an
// unknown primitive mode), narrow.ErrFormat (what this package does not
// read: a required extension, an accessor with neither a buffer view
// nor sparse values, a component type positions or indices cannot have, an
// external buffer without a file system to read it from), narrow.ErrIndexRange (a
// triangle naming a vertex its primitive does not have; Prim is the
// triangle), narrow.ErrNonFinite (a NaN or infinite position or
// transform), narrow.ErrEmpty (no triangle) or narrow.ErrTooLarge (more
// than 1<<26 vertices or triangles, a stream over 1 GiB). Detail names
// the mesh, primitive, node, accessor or buffer at fault.
package gltfmesh

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"

	"github.com/irtcd/irtcd/narrow"
)

func init() {
	narrow.RegisterMeshFormat(".gltf", Parse)
	narrow.RegisterMeshFormat(".glb", Parse)
}

const (
	maxElements = 1 << 26 // vertices, and triangles
	maxBytes    = 1 << 30 // the stream
)

// Parse reads the glTF or GLB stream r (the form is told by its first
// bytes, not by name) and returns its triangles as described in the
// package documentation. Buffers named by a relative URI are read from
// the directory of name, taken as the stream's path; use ParseFS to
// read them from elsewhere.
func Parse(r io.Reader, name string) (vertices []mgl64.Vec3, triangles [][3]int, err error) {
	return ParseFS(r, name, os.DirFS(filepath.Dir(name)))
}

// ParseFS is Parse with the buffers named by relative URIs read from fsys
// (nil: such a buffer is an error wrapping narrow.ErrFormat).
func ParseFS(r io.Reader, name string, fsys fs.FS) (vertices []mgl64.Vec3, triangles [][3]int, err error) {
	p, err := read(r, name, fsys)
	if err != nil {
		return nil, nil, err
	}
	vertices, triangles, _ = narrow.Weld(p.verts, p.tris)
	return vertices, triangles, nil
}

// An Object is one mesh of a glTF scene as one of its nodes places it: a
// level's wall, a prop, a piece of terrain, each a body of its own.
type Object struct {
	Name string // the node's name (the mesh's when the node has none)
	Node int    // the node's index in the document, or -1 for a mesh read without nodes
	Mesh int    // the mesh's index in the document
	// The triangles of the mesh's primitives in the node's world frame,
	// read as Parse reads them (mirrors turned back counter-clockwise,
	// equal positions welded), as narrow.NewMesh takes them.
	Vertices  []mgl64.Vec3
	Triangles [][3]int
}

// ParseObjects reads the glTF or GLB stream r as ParseFS does, but returns
// the scene's meshes one object per node that holds one, in the order
// ParseFS reads them, each with its own vertices (a mesh that two nodes
// place is two objects). Objects whose primitives give no triangle (points,
// lines) are left out; a scene with none is an error wrapping
// narrow.ErrEmpty.
//
// The vertices are in world coordinates: a shape built from them has its
// origin at the scene's, and a body that carries it rests at the identity
// pose where the file put it; recentre them (on the shape's centroid, say)
// for a body whose pose should start at its mesh.
func ParseObjects(r io.Reader, name string, fsys fs.FS) ([]Object, error) {
	p, err := read(r, name, fsys)
	if err != nil {
		return nil, err
	}
	objs := make([]Object, 0, len(p.objects))
	for i, o := range p.objects {
		tEnd, vEnd := len(p.tris), len(p.verts)
		if i+1 < len(p.objects) {
			tEnd, vEnd = p.objects[i+1].tris, p.objects[i+1].verts
		}
		if tEnd == o.tris {
			continue // points or lines only
		}
		tris := make([][3]int, tEnd-o.tris)
		for k, t := range p.tris[o.tris:tEnd] {
			tris[k] = [3]int{t[0] - o.verts, t[1] - o.verts, t[2] - o.verts}
		}
		v, t, _ := narrow.Weld(p.verts[o.verts:vEnd], tris)
		objs = append(objs, Object{Name: o.name, Node: o.node, Mesh: o.mesh, Vertices: v, Triangles: t})
	}
	return objs, nil
}

// LoadObjects reads the glTF or GLB file at path with ParseObjects, its
// external buffers from the file's directory.
func LoadObjects(path string) ([]Object, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gltfmesh: %w", err)
	}
	defer f.Close()
	return ParseObjects(f, path, os.DirFS(filepath.Dir(path)))
}

// read decodes r and gathers the triangles of its scene.
func read(r io.Reader, name string, fsys fs.FS) (*parser, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("gltfmesh: read %s: %w", name, err)
	}
	p := &parser{name: name}
	if len(data) > maxBytes {
		return nil, p.fail(narrow.ErrTooLarge, "more than %d bytes", maxBytes)
	}
	doc, err := p.decode(data, fsys)
	if err != nil {
		return nil, err
	}
	p.doc = doc
	if err := p.scene(); err != nil {
		return nil, err
	}
	if len(p.tris) == 0 {
		return nil, p.fail(narrow.ErrEmpty, "%d vertices, no triangle", len(p.verts))
	}
	return p, nil
}

// parser gathers the triangles of one document.
type parser struct {
	name  string
	doc   *gltf.Document
	verts []mgl64.Vec3
	tris  [][3]int
	seen  []bool // nodes reached
	at    string // what is being read, for errors ("mesh 0 primitive 1")

	// objects are the meshes placed, in order: each one's vertices and
	// triangles start at verts and tris and end where the next one's start.
	objects []placed
}

// placed is a mesh as a node placed it, for ParseObjects.
type placed struct {
	name        string
	node, mesh  int
	verts, tris int // where its vertices and triangles start
}

// fail returns a *narrow.ShapeError for p's stream.
func (p *parser) fail(kind error, format string, args ...any) *narrow.ShapeError {
	detail := fmt.Sprintf(format, args...)
	if p.at != "" {
		detail = p.at + ": " + detail
	}
	return &narrow.ShapeError{File: p.name, Line: -1, Loop: -1, Vertex: -1, Prim: -1, Other: -1,
		Edge: [2]int{-1, -1}, Detail: detail, Err: kind}
}

// precheck holds what decode checks before the decoder trusts it.
type precheck struct {
	ExtensionsRequired []string `json:"extensionsRequired"`
	Buffers            []struct {
		ByteLength int64  `json:"byteLength"`
		URI        string `json:"uri"`
	} `json:"buffers"`
	Meshes []struct {
		Primitives []struct {
			Mode *int64 `json:"mode"`
		} `json:"primitives"`
	} `json:"meshes"`
}

// GLB container constants (glTF 2.0 §4.4).
const (
	glbMagic     = 0x46546C67 // "glTF"
	glbChunkJSON = 0x4E4F534A // "JSON"
	glbChunkBIN  = 0x004E4942 // "BIN\x00"
)

// decode checks data's container and the lengths, URIs and modes the
// decoder would trust, then decodes the document with its buffers.
func (p *parser) decode(data []byte, fsys fs.FS) (doc *gltf.Document, err error) {
	js, bin, err := p.container(data)
	if err != nil {
		return nil, err
	}
	var pre precheck
	if err := json.Unmarshal(js, &pre); err != nil {
		return nil, p.fail(narrow.ErrSyntax, "document: %v", err)
	}
	for _, ext := range pre.ExtensionsRequired {
		if ext != "KHR_mesh_quantization" {
			return nil, p.fail(narrow.ErrFormat, "extension %q required", ext)
		}
	}
	for i, b := range pre.Buffers {
		switch {
		case b.ByteLength < 1:
			return nil, p.fail(narrow.ErrSyntax, "buffer %d: byteLength %d", i, b.ByteLength)
		case i == 0 && b.URI == "" && bin == nil:
			return nil, p.fail(narrow.ErrSyntax, "buffer 0 has no uri and the stream no binary chunk")
		case i == 0 && b.URI == "" && b.ByteLength > int64(len(bin)):
			return nil, p.fail(narrow.ErrSyntax, "buffer 0: byteLength %d, binary chunk of %d bytes", b.ByteLength, len(bin))
		case b.URI == "" && i > 0:
			return nil, p.fail(narrow.ErrSyntax, "buffer %d has no uri", i)
		case b.URI != "" && !isDataURI(b.URI) && fsys == nil:
			return nil, p.fail(narrow.ErrFormat, "buffer %d: external uri %q and no file system to read it from", i, b.URI)
		}
	}
	for m, mesh := range pre.Meshes {
		for k, prim := range mesh.Primitives {
			if prim.Mode != nil && (*prim.Mode < 0 || *prim.Mode > 6) {
				return nil, p.fail(narrow.ErrSyntax, "mesh %d primitive %d: mode %d", m, k, *prim.Mode)
			}
		}
	}
	// The checks above cover every panic of the decoder known to us; a
	// panic left in it is still this stream's error, not the caller's.
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, p.fail(narrow.ErrSyntax, "document: decoder failed: %v", r)
		}
	}()
	doc = new(gltf.Document)
	if err := gltf.NewDecoderFS(bytes.NewReader(data), fsys).Decode(doc); err != nil {
		return nil, p.fail(narrow.ErrSyntax, "document: %v", err)
	}
	return doc, nil
}

// isDataURI reports whether uri embeds its data (a base64 data URI).
func isDataURI(uri string) bool {
	b := gltf.Buffer{URI: uri}
	return b.IsEmbeddedResource()
}

// container returns the JSON of data and, for a GLB stream, its binary
// chunk (nil if none), after checking the chunks' lengths against data.
func (p *parser) container(data []byte) (js, bin []byte, err error) {
	if len(data) < 4 || binary.LittleEndian.Uint32(data) != glbMagic {
		return data, nil, nil
	}
	if len(data) < 20 {
		return nil, nil, p.fail(narrow.ErrSyntax, "GLB header: %d bytes", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[4:]); v != 2 {
		return nil, nil, p.fail(narrow.ErrFormat, "GLB version %d, want 2", v)
	}
	total := int64(binary.LittleEndian.Uint32(data[8:]))
	if total < 20 || total > int64(len(data)) {
		return nil, nil, p.fail(narrow.ErrSyntax, "GLB header: length %d, stream of %d bytes", total, len(data))
	}
	data = data[:total]
	n := int64(binary.LittleEndian.Uint32(data[12:]))
	if binary.LittleEndian.Uint32(data[16:]) != glbChunkJSON || 20+n > total {
		return nil, nil, p.fail(narrow.ErrSyntax, "GLB: first chunk is not JSON within the stream")
	}
	js, rest := data[20:20+n], data[20+n:]
	if len(rest) >= 8 {
		m := int64(binary.LittleEndian.Uint32(rest))
		if binary.LittleEndian.Uint32(rest[4:]) == glbChunkBIN {
			if 8+m > int64(len(rest)) {
				return nil, nil, p.fail(narrow.ErrSyntax, "GLB: binary chunk of %d bytes, %d left in the stream", m, len(rest)-8)
			}
			bin = rest[8 : 8+m]
		}
	}
	return js, bin, nil
}

// scene reads the triangles of the document's scene.
func (p *parser) scene() error {
	doc := p.doc
	p.seen = make([]bool, len(doc.Nodes))
	identity := mgl64.Ident4()
	var roots []int
	switch {
	case doc.Scene != nil || len(doc.Scenes) > 0:
		s := 0
		if doc.Scene != nil {
			s = *doc.Scene
		}
		if s < 0 || s >= len(doc.Scenes) || doc.Scenes[s] == nil {
			return p.fail(narrow.ErrSyntax, "scene %d of %d", s, len(doc.Scenes))
		}
		roots = doc.Scenes[s].Nodes
	case len(doc.Nodes) > 0:
		child := make([]bool, len(doc.Nodes))
		for i, n := range doc.Nodes {
			if n == nil {
				return p.fail(narrow.ErrSyntax, "node %d is null", i)
			}
			for _, c := range n.Children {
				if c >= 0 && c < len(child) {
					child[c] = true
				}
			}
		}
		for i := range doc.Nodes {
			if !child[i] {
				roots = append(roots, i)
			}
		}
	default:
		for m := range doc.Meshes {
			if err := p.mesh(-1, m, &identity); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range roots {
		if err := p.node(n, &identity); err != nil {
			return err
		}
	}
	return nil
}

// node reads node n and its children under the parent transform.
func (p *parser) node(n int, parent *mgl64.Mat4) error {
	p.at = ""
	if n < 0 || n >= len(p.doc.Nodes) || p.doc.Nodes[n] == nil {
		return p.fail(narrow.ErrSyntax, "node %d of %d", n, len(p.doc.Nodes))
	}
	if p.seen[n] {
		return p.fail(narrow.ErrSyntax, "node %d reached twice (a cycle, or two parents)", n)
	}
	p.seen[n] = true
	nd := p.doc.Nodes[n]
	local, err := p.local(n, nd)
	if err != nil {
		return err
	}
	world := parent.Mul4(local)
	if !finite(&world) {
		return p.fail(narrow.ErrNonFinite, "node %d: transform %g composed with its parents' overflows", n, [16]float64(local))
	}
	if nd.Mesh != nil {
		if err := p.mesh(n, *nd.Mesh, &world); err != nil {
			return err
		}
	}
	for _, c := range nd.Children {
		if err := p.node(c, &world); err != nil {
			return err
		}
	}
	return nil
}

// local returns node n's transform relative to its parent.
func (p *parser) local(n int, nd *gltf.Node) (mgl64.Mat4, error) {
	var m mgl64.Mat4
	if mat := nd.MatrixOrDefault(); mat != gltf.DefaultMatrix {
		m = mgl64.Mat4(mat) // both column-major
	} else {
		q := nd.RotationOrDefault() // x, y, z, w
		rot := mgl64.Quat{W: q[3], V: mgl64.Vec3{q[0], q[1], q[2]}}
		l := rot.Len()
		if !(l > 0) || math.IsInf(l, 0) {
			return m, p.fail(narrow.ErrNonFinite, "node %d: rotation %v", n, q)
		}
		s, t := nd.ScaleOrDefault(), nd.TranslationOrDefault()
		m = mgl64.Translate3D(t[0], t[1], t[2]).
			Mul4(rot.Scale(1 / l).Mat4()).
			Mul4(mgl64.Scale3D(s[0], s[1], s[2]))
	}
	if !finite(&m) {
		return m, p.fail(narrow.ErrNonFinite, "node %d: transform %g", n, [16]float64(m))
	}
	return m, nil
}

// finite reports whether every entry of m is finite.
func finite(m *mgl64.Mat4) bool {
	for _, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// mesh reads the primitives of mesh m placed by world, the transform of
// node n (-1: none).
func (p *parser) mesh(n, m int, world *mgl64.Mat4) error {
	p.at = ""
	if m < 0 || m >= len(p.doc.Meshes) || p.doc.Meshes[m] == nil {
		return p.fail(narrow.ErrSyntax, "mesh %d of %d", m, len(p.doc.Meshes))
	}
	name := p.doc.Meshes[m].Name
	if n >= 0 && p.doc.Nodes[n].Name != "" {
		name = p.doc.Nodes[n].Name
	}
	p.objects = append(p.objects, placed{name: name, node: n, mesh: m, verts: len(p.verts), tris: len(p.tris)})
	flip := world.Mat3().Det() < 0
	for k, prim := range p.doc.Meshes[m].Primitives {
		p.at = fmt.Sprintf("mesh %d primitive %d", m, k)
		if prim == nil {
			return p.fail(narrow.ErrSyntax, "null")
		}
		if err := p.primitive(prim, world, flip); err != nil {
			return err
		}
	}
	p.at = ""
	return nil
}

// primitive appends the triangles of prim.
func (p *parser) primitive(prim *gltf.Primitive, world *mgl64.Mat4, flip bool) error {
	switch prim.Mode {
	case gltf.PrimitiveTriangles, gltf.PrimitiveTriangleStrip, gltf.PrimitiveTriangleFan:
	default:
		return nil // points and lines: no surface
	}
	pos, ok := prim.Attributes[gltf.POSITION]
	if !ok {
		return nil
	}
	base := len(p.verts)
	if err := p.positions(pos, world); err != nil {
		return err
	}
	nv := len(p.verts) - base
	var idx []uint32
	if prim.Indices != nil {
		var err error
		if idx, err = p.indices(*prim.Indices); err != nil {
			return err
		}
	} else {
		idx = make([]uint32, nv)
		for i := range idx {
			idx[i] = uint32(i)
		}
	}
	first := len(p.tris)
	add := func(a, b, c uint32, skipDegenerate bool) error {
		if skipDegenerate && (a == b || b == c || a == c) {
			return nil
		}
		t := [3]int{int(a), int(b), int(c)}
		for _, v := range t {
			if v >= nv {
				e := p.fail(narrow.ErrIndexRange, "triangle %d of the primitive names vertex %d, the primitive has %d", len(p.tris)-first, v, nv)
				e.Prim = len(p.tris)
				return e
			}
		}
		if len(p.tris) >= maxElements {
			return p.fail(narrow.ErrTooLarge, "more than %d triangles", maxElements)
		}
		if flip {
			t[1], t[2] = t[2], t[1]
		}
		p.tris = append(p.tris, [3]int{t[0] + base, t[1] + base, t[2] + base})
		return nil
	}
	n := len(idx)
	switch prim.Mode {
	case gltf.PrimitiveTriangles:
		if n%3 != 0 {
			return p.fail(narrow.ErrSyntax, "%d indices, not a multiple of 3", n)
		}
		for i := 0; i+2 < n; i += 3 {
			if err := add(idx[i], idx[i+1], idx[i+2], false); err != nil {
				return err
			}
		}
	case gltf.PrimitiveTriangleStrip:
		for i := 0; i+2 < n; i++ {
			// glTF 2.0 §3.7.2.1: triangle i is p_i, p_{i+(1+i%2)}, p_{i+(2−i%2)}.
			if err := add(idx[i], idx[i+1+i%2], idx[i+2-i%2], true); err != nil {
				return err
			}
		}
	case gltf.PrimitiveTriangleFan:
		for i := 1; i+1 < n; i++ {
			if err := add(idx[i], idx[i+1], idx[0], true); err != nil {
				return err
			}
		}
	}
	return nil
}

// view returns the bytes of accessor a: its elements' bytes, the stride
// between them, after the checks every accessor needs. A sparse accessor
// (glTF 2.0 §3.6.2.3) comes back dense: its bufferView's elements (zeros
// without one) with the sparse values written over the elements they
// replace.
func (p *parser) view(a int, what string) (acr *gltf.Accessor, data []byte, stride int, err error) {
	doc := p.doc
	if a < 0 || a >= len(doc.Accessors) || doc.Accessors[a] == nil {
		return nil, nil, 0, p.fail(narrow.ErrSyntax, "%s accessor %d of %d", what, a, len(doc.Accessors))
	}
	acr = doc.Accessors[a]
	switch {
	case acr.BufferView == nil && acr.Sparse == nil:
		return nil, nil, 0, p.fail(narrow.ErrFormat, "%s accessor %d has no bufferView", what, a)
	case acr.Count < 0 || acr.Count > maxElements*3:
		return nil, nil, 0, p.fail(narrow.ErrTooLarge, "%s accessor %d: count %d", what, a, acr.Count)
	}
	size := gltf.SizeOfElement(acr.ComponentType, acr.Type)
	if acr.BufferView != nil {
		v := *acr.BufferView
		if data, err = p.bufferView(v); err != nil {
			return nil, nil, 0, err
		}
		stride = doc.BufferViews[v].ByteStride
		switch {
		case stride == 0:
			stride = size
		case stride < size || stride > 252:
			return nil, nil, 0, p.fail(narrow.ErrSyntax, "bufferView %d: byteStride %d for elements of %d bytes", v, stride, size)
		}
		if acr.ByteOffset < 0 || acr.ByteOffset > len(data) {
			return nil, nil, 0, p.fail(narrow.ErrSyntax, "%s accessor %d: byteOffset %d in a bufferView of %d bytes", what, a, acr.ByteOffset, len(data))
		}
		data = data[acr.ByteOffset:]
		if acr.Count > 0 && int64(acr.Count-1)*int64(stride)+int64(size) > int64(len(data)) {
			return nil, nil, 0, p.fail(narrow.ErrSyntax, "%s accessor %d: %d elements of %d bytes, %d apart, past the end of bufferView %d", what, a, acr.Count, size, stride, v)
		}
	}
	if acr.Sparse == nil {
		return acr, data, stride, nil
	}
	dense, err := p.sparse(acr, a, what, data, stride, size)
	return acr, dense, size, err
}

// bufferView returns the bytes of bufferView v.
func (p *parser) bufferView(v int) ([]byte, error) {
	doc := p.doc
	if v < 0 || v >= len(doc.BufferViews) || doc.BufferViews[v] == nil {
		return nil, p.fail(narrow.ErrSyntax, "bufferView %d of %d", v, len(doc.BufferViews))
	}
	bv := doc.BufferViews[v]
	if bv.Buffer < 0 || bv.Buffer >= len(doc.Buffers) || doc.Buffers[bv.Buffer] == nil {
		return nil, p.fail(narrow.ErrSyntax, "bufferView %d: buffer %d of %d", v, bv.Buffer, len(doc.Buffers))
	}
	buf := doc.Buffers[bv.Buffer].Data
	if len(buf) == 0 {
		return nil, p.fail(narrow.ErrFormat, "buffer %d (uri %q) holds no data that could be read", bv.Buffer, doc.Buffers[bv.Buffer].URI)
	}
	if bv.ByteOffset < 0 || bv.ByteLength < 0 || int64(bv.ByteOffset)+int64(bv.ByteLength) > int64(len(buf)) {
		return nil, p.fail(narrow.ErrSyntax, "bufferView %d: bytes [%d, +%d) of buffer %d's %d", v, bv.ByteOffset, bv.ByteLength, bv.Buffer, len(buf))
	}
	return buf[bv.ByteOffset : bv.ByteOffset+bv.ByteLength], nil
}

// sparse returns the elements of sparse accessor acr (number a), each of
// size bytes, packed: those of base (stride apart; zeros if base is nil)
// with the sparse values written over the elements their indices name.
// The indices must increase strictly and stay below the accessor's count.
func (p *parser) sparse(acr *gltf.Accessor, a int, what string, base []byte, stride, size int) ([]byte, error) {
	sp := acr.Sparse
	if sp.Count < 1 || sp.Count > acr.Count {
		return nil, p.fail(narrow.ErrSyntax, "%s accessor %d: sparse count %d for %d elements", what, a, sp.Count, acr.Count)
	}
	// Without a bufferView, the zeros cost no bytes of the file: a few
	// sparse values could ask for any number of them. The dense array may
	// not outgrow the document's buffers.
	total := int64(0)
	for _, b := range p.doc.Buffers {
		if b != nil {
			total += int64(len(b.Data))
		}
	}
	if base == nil && int64(acr.Count)*int64(size) > total {
		return nil, p.fail(narrow.ErrTooLarge, "%s accessor %d: %d elements of %d bytes, mostly zeros, more than the %d bytes of the buffers", what, a, acr.Count, size, total)
	}
	dense := make([]byte, acr.Count*size)
	if base != nil {
		for i := range acr.Count {
			copy(dense[i*size:(i+1)*size], base[i*stride:])
		}
	}
	var width int
	switch sp.Indices.ComponentType {
	case gltf.ComponentUbyte:
		width = 1
	case gltf.ComponentUshort:
		width = 2
	case gltf.ComponentUint:
		width = 4
	default:
		return nil, p.fail(narrow.ErrFormat, "%s accessor %d: sparse indices of component type %v", what, a, sp.Indices.ComponentType)
	}
	idx, err := p.bufferView(sp.Indices.BufferView)
	if err != nil {
		return nil, err
	}
	if off := sp.Indices.ByteOffset; off < 0 || int64(off)+int64(sp.Count)*int64(width) > int64(len(idx)) {
		return nil, p.fail(narrow.ErrSyntax, "%s accessor %d: %d sparse indices of %d bytes from byte %d, past the end of bufferView %d", what, a, sp.Count, width, off, sp.Indices.BufferView)
	}
	idx = idx[sp.Indices.ByteOffset:]
	vals, err := p.bufferView(sp.Values.BufferView)
	if err != nil {
		return nil, err
	}
	if off := sp.Values.ByteOffset; off < 0 || int64(off)+int64(sp.Count)*int64(size) > int64(len(vals)) {
		return nil, p.fail(narrow.ErrSyntax, "%s accessor %d: %d sparse values of %d bytes from byte %d, past the end of bufferView %d", what, a, sp.Count, size, off, sp.Values.BufferView)
	}
	vals = vals[sp.Values.ByteOffset:]
	le := binary.LittleEndian
	last := int64(-1)
	for k := range sp.Count {
		var i int64
		switch width {
		case 1:
			i = int64(idx[k])
		case 2:
			i = int64(le.Uint16(idx[2*k:]))
		default:
			i = int64(le.Uint32(idx[4*k:]))
		}
		if i <= last || i >= int64(acr.Count) {
			return nil, p.fail(narrow.ErrSyntax, "%s accessor %d: sparse index %d is %d, after %d, for %d elements (they must increase, below the count)", what, a, k, i, last, acr.Count)
		}
		last = i
		copy(dense[i*int64(size):(i+1)*int64(size)], vals[k*size:(k+1)*size])
	}
	return dense, nil
}

// positions appends the vertices of accessor a, placed by world.
func (p *parser) positions(a int, world *mgl64.Mat4) error {
	acr, data, stride, err := p.view(a, "POSITION")
	if err != nil {
		return err
	}
	if acr.Type != gltf.AccessorVec3 {
		return p.fail(narrow.ErrFormat, "POSITION accessor %d: type %v, want VEC3", a, acr.Type)
	}
	comp, err := component(acr.ComponentType, acr.Normalized)
	if err != nil {
		return p.fail(narrow.ErrFormat, "POSITION accessor %d: %v", a, err)
	}
	if len(p.verts)+acr.Count > maxElements {
		return p.fail(narrow.ErrTooLarge, "more than %d vertices", maxElements)
	}
	width := gltf.SizeOfElement(acr.ComponentType, gltf.AccessorScalar)
	for i := 0; i < acr.Count; i++ {
		e := data[i*stride:]
		var v mgl64.Vec3
		for c := range v {
			v[c] = comp(e[c*width:])
		}
		w := world.Mul4x1(v.Vec4(1)).Vec3()
		for c := range w {
			if math.IsNaN(w[c]) || math.IsInf(w[c], 0) {
				e := p.fail(narrow.ErrNonFinite, "POSITION accessor %d: element %d is %v, placed at %v", a, i, v, w)
				e.Vertex = len(p.verts)
				return e
			}
		}
		p.verts = append(p.verts, w)
	}
	return nil
}

// errComponent is the error of a component type positions cannot have.
var errComponent = errors.New("component type")

// component returns the reader of one coordinate of the component type t
// (glTF 2.0 §3.11 for normalized integers).
func component(t gltf.ComponentType, normalized bool) (func([]byte) float64, error) {
	le := binary.LittleEndian
	switch t {
	case gltf.ComponentFloat:
		return func(b []byte) float64 { return float64(math.Float32frombits(le.Uint32(b))) }, nil
	case gltf.ComponentByte:
		if normalized {
			return func(b []byte) float64 { return math.Max(float64(int8(b[0]))/127, -1) }, nil
		}
		return func(b []byte) float64 { return float64(int8(b[0])) }, nil
	case gltf.ComponentUbyte:
		if normalized {
			return func(b []byte) float64 { return float64(b[0]) / 255 }, nil
		}
		return func(b []byte) float64 { return float64(b[0]) }, nil
	case gltf.ComponentShort:
		if normalized {
			return func(b []byte) float64 { return math.Max(float64(int16(le.Uint16(b)))/32767, -1) }, nil
		}
		return func(b []byte) float64 { return float64(int16(le.Uint16(b))) }, nil
	case gltf.ComponentUshort:
		if normalized {
			return func(b []byte) float64 { return float64(le.Uint16(b)) / 65535 }, nil
		}
		return func(b []byte) float64 { return float64(le.Uint16(b)) }, nil
	}
	return nil, fmt.Errorf("%w %v", errComponent, t)
}

// indices returns the vertex indices of accessor a.
func (p *parser) indices(a int) ([]uint32, error) {
	acr, data, stride, err := p.view(a, "indices")
	if err != nil {
		return nil, err
	}
	if acr.Type != gltf.AccessorScalar {
		return nil, p.fail(narrow.ErrFormat, "indices accessor %d: type %v, want SCALAR", a, acr.Type)
	}
	le := binary.LittleEndian
	idx := make([]uint32, acr.Count)
	for i := range idx {
		e := data[i*stride:]
		switch acr.ComponentType {
		case gltf.ComponentUbyte:
			idx[i] = uint32(e[0])
		case gltf.ComponentUshort:
			idx[i] = uint32(le.Uint16(e))
		case gltf.ComponentUint:
			idx[i] = le.Uint32(e)
		default:
			return nil, p.fail(narrow.ErrFormat, "indices accessor %d: component type %v", a, acr.ComponentType)
		}
	}
	return idx, nil
}
