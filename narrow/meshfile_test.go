package narrow

import (
	"bytes"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadMesh reads the same mesh through each format's extension, in
// any case, and refuses others.
func TestLoadMesh(t *testing.T) {
	bunny := testMeshes(t, "bunny")[0]
	dir := t.TempDir()
	var bin bytes.Buffer
	if err := WriteSTL(&bin, bunny); err != nil {
		t.Fatal(err)
	}
	obj, err := os.ReadFile(filepath.Join("..", "testdata", "bunny.obj"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"b.obj": obj, "b.OBJ": obj, "b.stl": bin.Bytes(), "b.Stl": []byte(asciiSTL(bunny, false, "\n")), "b.PLY": []byte(plyOf(bunny, "ascii", plyLayout{})), "b.off": obj, "b": obj}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			s, err := LoadMesh(path)
			verts, tris, perr := ParseMesh(bytes.NewReader(files[name]), path)
			ext := strings.ToLower(filepath.Ext(name))
			if ext != ".obj" && ext != ".stl" && ext != ".ply" {
				var se *ShapeError
				if !errors.Is(err, ErrFormat) || !errors.As(err, &se) || se.File != path || !errors.Is(perr, ErrFormat) {
					t.Fatalf("LoadMesh = %v, ParseMesh = %v; want *ShapeErrors wrapping ErrFormat naming %s", err, perr, path)
				}
				return
			}
			if err != nil || perr != nil {
				t.Fatalf("LoadMesh: %v; ParseMesh: %v", err, perr)
			}
			if s.NumVertices() != bunny.NumVertices() || s.NumPrims() != bunny.NumPrims() || len(verts) != s.NumVertices() || len(tris) != s.NumPrims() {
				t.Errorf("%d vertices, %d triangles (ParseMesh: %d, %d); want %d, %d", s.NumVertices(), s.NumPrims(), len(verts), len(tris), bunny.NumVertices(), bunny.NumPrims())
			}
		})
	}
	if _, err := LoadMesh(filepath.Join(dir, "missing.stl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadMesh(missing) = %v, want os.ErrNotExist", err)
	}
	if _, err := LoadSTL(filepath.Join(dir, "b.stl")); err != nil {
		t.Errorf("LoadSTL: %v", err)
	}
}

// BenchmarkReadMesh reads the duck (2,108 vertices, 4,212 triangles) from
// memory in each format and builds its shape: the parsers' cost beside
// NewMesh's (the row "shape only").
func BenchmarkReadMesh(b *testing.B) {
	obj, err := os.ReadFile(filepath.Join("..", "testdata", "duck.obj"))
	if err != nil {
		b.Fatal(err)
	}
	duck := testMeshes(b, "duck")[0]
	var stl bytes.Buffer
	if err := WriteSTL(&stl, duck); err != nil {
		b.Fatal(err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{"duck.obj", obj},
		{"duck.stl", stl.Bytes()},
		{"ascii/duck.stl", []byte(asciiSTL(duck, false, "\n"))},
		{"ascii/duck.ply", []byte(plyOf(duck, "ascii", plyLayout{}))},
		{"binary/duck.ply", []byte(plyOf(duck, "binary_little_endian", plyLayout{}))},
	}
	for _, f := range files {
		b.Run("file="+f.name, func(b *testing.B) {
			parse, err := meshParser(f.name)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(f.data)))
			for b.Loop() {
				if _, err := readMesh(bytes.NewReader(f.data), f.name, parse); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("shape only", func(b *testing.B) {
		verts, tris, _, err := ParseOBJ(bytes.NewReader(obj), "duck.obj")
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := NewMesh(verts, tris); err != nil {
				b.Fatal(err)
			}
		}
	})
}
