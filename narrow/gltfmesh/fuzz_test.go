package gltfmesh_test

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"testing/fstest"

	"github.com/qmuntal/gltf"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/narrow/gltfmesh"
)

// FuzzParse feeds arbitrary streams to ParseFS: it must return either a
// *narrow.ShapeError or vertices that are finite and triangles that name
// them, NewMesh must take the result without panicking, and ParseObjects
// must read the same triangles, split by object.
//
//	go test ./narrow/gltfmesh -run '^$' -fuzz FuzzParse -fuzztime 60s -fuzzminimizetime 1s
func FuzzParse(f *testing.F) {
	for _, fm := range []form{glb, embedded, external} {
		data, _ := tetra().encode(f, fm)
		f.Add(data)
	}
	b := tetra()
	b.doc.Meshes[0].Primitives[0].Mode = gltf.PrimitiveTriangleStrip
	b.node(&gltf.Node{Children: []int{0}, Translation: [3]float64{1, 2, 3}})
	b.doc.Scenes[0].Nodes = []int{1}
	data, _ := b.encode(f, glb)
	f.Add(data)
	// Sparse positions over the tetrahedron's own: indices from its index
	// view, values from its positions.
	b = tetra()
	b.doc.Accessors[0].Sparse = &gltf.Sparse{Count: 2, Indices: gltf.SparseIndices{BufferView: 1, ComponentType: gltf.ComponentUshort}, Values: gltf.SparseValues{BufferView: 0}}
	data, _ = b.encode(f, glb)
	f.Add(data)
	f.Add(glbBytes(2, `{"asset":{"version":"2.0"},"buffers":[{"byteLength":8}]}`, make([]byte, 8), -1))
	f.Add([]byte(`{"asset":{"version":"2.0"}}`))
	files := fstest.MapFS{"mesh.bin": {Data: bytes.Repeat([]byte{0, 0, 128, 63}, 40)}}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, tr, err := gltfmesh.ParseFS(bytes.NewReader(data), "fuzz.glb", files)
		if err != nil {
			var se *narrow.ShapeError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *narrow.ShapeError", err)
			}
			return
		}
		for i, p := range v {
			for _, c := range p {
				if math.IsNaN(c) || math.IsInf(c, 0) {
					t.Fatalf("vertex %d is %v", i, p)
				}
			}
		}
		for i, f := range tr {
			for _, k := range f {
				if k < 0 || k >= len(v) {
					t.Fatalf("triangle %d is %v, %d vertices", i, f, len(v))
				}
			}
		}
		_, _ = narrow.NewMesh(v, tr)
		objs, err := gltfmesh.ParseObjects(bytes.NewReader(data), "fuzz.glb", files)
		if err != nil {
			t.Fatalf("ParseFS read the stream, ParseObjects did not: %v", err)
		}
		n := 0
		for _, o := range objs {
			n += len(o.Triangles)
		}
		if n != len(tr) {
			t.Fatalf("objects hold %d triangles, ParseFS read %d", n, len(tr))
		}
	})
}
