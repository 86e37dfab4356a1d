package gltfmesh_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/narrow/gltfmesh" // also: narrow reads .gltf and .glb
	"github.com/irtcd/irtcd/sim/rigid"
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

// A level read from glTF, each of its objects a static body of a sim/rigid
// world (here a floor and a wall, written in memory; a file would be read
// with LoadObjects), and a crate dropped against them.
func ExampleParseObjects() {
	doc := gltf.NewDocument()
	corners := [][3]float32{{-0.5, -0.5, -0.5}, {0.5, -0.5, -0.5}, {-0.5, 0.5, -0.5}, {0.5, 0.5, -0.5},
		{-0.5, -0.5, 0.5}, {0.5, -0.5, 0.5}, {-0.5, 0.5, 0.5}, {0.5, 0.5, 0.5}}
	var idx []uint16
	for _, t := range narrow.BoxTriangles() {
		idx = append(idx, uint16(t[0]), uint16(t[1]), uint16(t[2]))
	}
	doc.Meshes = []*gltf.Mesh{{Name: "box", Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, corners)},
		Indices:    gltf.Index(modeler.WriteIndices(doc, idx)),
	}}}}
	doc.Nodes = []*gltf.Node{
		{Name: "floor", Mesh: gltf.Index(0), Translation: [3]float64{0, -0.5, 0}, Scale: [3]float64{20, 1, 20}},
		{Name: "wall", Mesh: gltf.Index(0), Translation: [3]float64{3, 2, 0}, Scale: [3]float64{1, 4, 20}},
	}
	doc.Scenes[0].Nodes = []int{0, 1}
	var file bytes.Buffer
	enc := gltf.NewEncoder(&file)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		log.Fatal(err)
	}

	objects, err := gltfmesh.ParseObjects(&file, "level.glb", nil)
	if err != nil {
		log.Fatal(err)
	}
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()
	for _, o := range objects {
		s, err := narrow.NewMesh(o.Vertices, o.Triangles)
		if err != nil {
			log.Fatal(err)
		}
		def := rigid.NewBodyDef(s, narrow.Identity) // world coordinates: the identity pose
		def.Static, def.Name = true, o.Name
		if _, err := w.AddBody(def); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d triangles, from x = %.1f to %.1f\n", o.Name, s.NumPrims(), s.Bounds().Min[0], s.Bounds().Max[0])
	}
	crate, err := narrow.NewBox(mgl64.Vec3{-0.25, -0.25, -0.25}, mgl64.Vec3{0.25, 0.25, 0.25})
	if err != nil {
		log.Fatal(err)
	}
	def := rigid.NewBodyDef(crate, narrow.Pose{Pos: mgl64.Vec3{0, 1, 0}, Rot: mgl64.QuatIdent()})
	def.LinearVelocity = mgl64.Vec3{7, 0, 0} // thrown at the wall
	id, err := w.AddBody(def)
	if err != nil {
		log.Fatal(err)
	}
	for range 180 {
		if err := w.Step(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
	// Against the wall (its face at x = 2.5) and on the floor (y = 0),
	// within 2 cm (the solver lets contacts sink by up to its 5 mm slop).
	c := w.Body(id).CenterOfMass()
	fmt.Println("crate after 3 s, at rest against the wall:", math.Abs(c[0]-2.25) < 0.02 && math.Abs(c[1]-0.25) < 0.02 && w.Body(id).LinearVelocity().Len() < 0.01)
	// Output:
	// floor: 12 triangles, from x = -10.0 to 10.0
	// wall: 12 triangles, from x = 2.5 to 3.5
	// crate after 3 s, at rest against the wall: true
}
