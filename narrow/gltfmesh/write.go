package gltfmesh

import (
	"fmt"
	"io"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/irtcd/irtcd/narrow"
)

// Write writes the triangle mesh s to w as a GLB file (binary glTF 2.0):
// one scene of one node holding one mesh, its vertices as float32
// positions (as STL stores them) and its triangles as 32-bit indices, in
// s's order. Parse reads it back to the same triangles at the
// float32-rounded points. A polygon (2D shape) is refused with an error
// wrapping narrow.ErrDimension.
func Write(w io.Writer, s *narrow.Shape) error {
	if s.Dim() != narrow.Dim3 {
		return fmt.Errorf("gltfmesh: write: %w: a %dD shape has no triangles", narrow.ErrDimension, s.Dim())
	}
	pos := make([][3]float32, s.NumVertices())
	for i := range pos {
		v := s.Vertex(i)
		pos[i] = [3]float32{float32(v[0]), float32(v[1]), float32(v[2])}
	}
	idx := make([]uint32, 0, 3*s.NumPrims())
	for i := range s.NumPrims() {
		p := s.Prim(i)
		idx = append(idx, uint32(p[0]), uint32(p[1]), uint32(p[2]))
	}
	doc := gltf.NewDocument()
	doc.Asset.Generator = "irtcd"
	a := modeler.WritePosition(doc, pos)
	b := modeler.WriteIndices(doc, idx)
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: a},
		Indices:    gltf.Index(b),
	}}}}
	doc.Nodes = []*gltf.Node{{Mesh: gltf.Index(0)}}
	doc.Scenes[0].Nodes = []int{0}
	enc := gltf.NewEncoder(w)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("gltfmesh: write: %w", err)
	}
	return nil
}
