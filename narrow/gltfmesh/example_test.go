package gltfmesh_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/irtcd/irtcd/narrow"
	_ "github.com/irtcd/irtcd/narrow/gltfmesh" // narrow reads .gltf and .glb
)

// A GLB file, here written in memory, read through narrow.ParseMesh once
// the package is imported: the tetrahedron's triangles placed by its
// node's translation.
func Example() {
	doc := gltf.NewDocument()
	pos := modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
	idx := modeler.WriteIndices(doc, []uint16{0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3})
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos},
		Indices:    gltf.Index(idx),
	}}}}
	doc.Nodes = []*gltf.Node{{Mesh: gltf.Index(0), Translation: [3]float64{0, 5, 0}}}
	doc.Scenes[0].Nodes = []int{0}
	var file bytes.Buffer
	enc := gltf.NewEncoder(&file)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		log.Fatal(err)
	}

	vertices, triangles, err := narrow.ParseMesh(&file, "tetra.glb")
	if err != nil {
		log.Fatal(err)
	}
	shape, err := narrow.NewMesh(vertices, triangles)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(shape.NumVertices(), "vertices,", shape.NumPrims(), "triangles")
	fmt.Println("apex at", vertices[3])
	// Output:
	// 4 vertices, 4 triangles
	// apex at [0 5 1]
}
