package narrow_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// parseXYZ reads a test format: a line "x y z" per vertex, then a line
// "f a b c" per triangle.
func parseXYZ(r io.Reader, name string) ([]mgl64.Vec3, [][3]int, error) {
	var v []mgl64.Vec3
	var t [][3]int
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var p mgl64.Vec3
		var f [3]int
		if _, err := fmt.Sscanf(sc.Text(), "f %d %d %d", &f[0], &f[1], &f[2]); err == nil {
			t = append(t, f)
		} else if _, err := fmt.Sscanf(sc.Text(), "%g %g %g", &p[0], &p[1], &p[2]); err == nil {
			v = append(v, p)
		} else {
			return nil, nil, &narrow.ShapeError{File: name, Line: -1, Loop: -1, Vertex: -1, Prim: -1, Other: -1, Edge: [2]int{-1, -1}, Err: narrow.ErrSyntax, Detail: sc.Text()}
		}
	}
	return v, t, sc.Err()
}

func init() { narrow.RegisterMeshFormat(".xyzTest", parseXYZ) }

// TestRegisterMeshFormat: LoadMesh and ParseMesh read a registered
// extension (in any case) with its parser, NewMesh's errors name the file,
// and misuse panics.
func TestRegisterMeshFormat(t *testing.T) {
	tetra := "0 0 0\n1 0 0\n0 1 0\n0 0 1\nf 0 2 1\nf 0 1 3\nf 0 3 2\nf 1 2 3\n"
	dir := t.TempDir()
	path := filepath.Join(dir, "tetra.XYZTEST")
	if err := os.WriteFile(path, []byte(tetra), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := narrow.LoadMesh(path)
	if err != nil || s.NumPrims() != 4 {
		t.Fatalf("LoadMesh: %v", err)
	}
	v, tr, err := narrow.ParseMesh(strings.NewReader(tetra), "t.xyztest")
	if err != nil || len(v) != 4 || len(tr) != 4 {
		t.Fatalf("ParseMesh: %d vertices, %d triangles, %v", len(v), len(tr), err)
	}
	open := filepath.Join(dir, "open.xyztest")
	if err := os.WriteFile(open, []byte(strings.TrimSuffix(tetra, "f 1 2 3\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	var se *narrow.ShapeError
	if _, err := narrow.LoadMesh(open); !errors.As(err, &se) || se.File != open || !errors.Is(err, narrow.ErrOpenBoundary) {
		t.Errorf("open mesh: %v, want an open boundary in %s", err, open)
	}
	if _, err := narrow.LoadMesh(filepath.Join(dir, "bad.xyztest")); err == nil {
		t.Error("missing file: no error")
	}
	if _, err := narrow.LoadMesh("x.fbx"); !errors.Is(err, narrow.ErrFormat) || !strings.Contains(err.Error(), ".obj, .stl, .ply or .xyztest") {
		t.Errorf("unknown extension: %v, want one listing the registered extension", err)
	}

	for _, tt := range []struct {
		ext   string
		parse narrow.MeshParser
	}{
		{"", parseXYZ}, {"xyz", parseXYZ}, {".", parseXYZ}, {".a/b", parseXYZ}, {".a.b", parseXYZ},
		{".OBJ", parseXYZ}, {".stl", parseXYZ}, {".xyzTEST", parseXYZ}, {".new", nil},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterMeshFormat(%q, %v): no panic", tt.ext, tt.parse != nil)
				}
			}()
			narrow.RegisterMeshFormat(tt.ext, tt.parse)
		}()
	}
}
