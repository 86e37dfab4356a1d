package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/irtcd/irtcd/narrow"
)

// TestMesh: irtcd mesh prints, per good file, its counts and the solid's
// volume and centroid (a cube's known exactly; the bunny's counts as the
// docs quote them), reports every refused file on stderr with its file
// and line, goes on with the next file, and exits 2 if any was refused.
func TestMesh(t *testing.T) {
	f := newFixture(t)
	code, out, errOut := runArgs(t, "", "mesh", f.half, f.open, f.badSyntax, "../../testdata/bunny.obj", f.dir+"/missing.obj")
	if code != exitUsage {
		t.Errorf("exit %d, want %d (some files refused)", code, exitUsage)
	}
	var got []meshJSON
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m meshJSON
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("output line %q: %v", line, err)
		}
		got = append(got, m)
	}
	if len(got) != 2 || got[0].File != f.half || got[1].File != "../../testdata/bunny.obj" {
		t.Fatalf("output %q: want the half cube's line, then the bunny's", out)
	}
	cube := got[0]
	const s = 0.5
	if cube.Vertices != 8 || cube.Triangles != 12 || cube.Components != 1 || !near(cube.Volume, s*s*s) || !nearVec(cube.Centroid, [3]float64{s / 2, s / 2, s / 2}) ||
		!near(cube.Size, s*math.Sqrt(3)/2) || cube.Edges != 12 || cube.EdgesOver60 != 12 || cube.Max != [3]float64{s, s, s} ||
		!near(cube.DisplacementThreshold, 0.05*cube.Size) {
		t.Errorf("half cube: %+v", cube)
	}
	if b := got[1]; b.Vertices != 453 || b.Triangles != 902 || b.Components != 1 || b.EdgesOver60 != 115 || !(b.Volume > 0) || b.BVHNodes == 0 {
		t.Errorf("bunny: %+v; want 453 vertices, 902 triangles, 115 edges bent by more than 60 degrees", b)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 3 {
		t.Fatalf("stderr %q: want one line per refused file", errOut)
	}
	for i, want := range []string{f.open + ":", f.badSyntax + ":2:", "missing.obj"} {
		if !strings.HasPrefix(lines[i], "irtcd mesh: ") || !strings.Contains(lines[i], want) {
			t.Errorf("stderr line %d %q: want it to name %q", i, lines[i], want)
		}
	}

	for _, args := range [][]string{{"mesh"}, {"mesh", "-h"}, {"mesh", "-x", f.unit}} {
		if code, out, errOut := runArgs(t, "", args...); code != exitUsage || out != "" || !strings.Contains(errOut, "mesh") {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want a usage message, exit 2", args, code, out, errOut)
		}
	}
	if out := mustRun(t, "", "mesh", f.unit); !strings.Contains(out, `"volume":1,`) {
		t.Errorf("unit cube: %s", out)
	}
}

// stlOf returns the OBJ file at path as binary STL (narrow.WriteSTL).
func stlOf(t *testing.T, path string) string {
	t.Helper()
	s, err := narrow.LoadOBJ(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := narrow.WriteSTL(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// selfContacts returns how many contacts irtcd contacts finds between the
// mesh file a and itself moved by (0.2, 0.9, 0).
func selfContacts(t *testing.T, a string) int {
	t.Helper()
	var out outputJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "contacts", "-a", a, "-b", a, "-pose-b", "0.2 0.9 0 1 0 0 0")), &out); err != nil {
		t.Fatal(err)
	}
	return len(out.Contacts)
}

// TestMeshFormats: the mesh and contacts subcommands read STL files (here
// the bunny as binary STL, narrow.WriteSTL) and PLY files as they read OBJ
// files, and name a refused one.
func TestMeshFormats(t *testing.T) {
	f := newFixture(t)
	bin := stlOf(t, "../../testdata/bunny.obj")
	stl := writeFile(t, f.dir, "bunny.STL", bin)
	cut := writeFile(t, f.dir, "cut.stl", bin[:len(bin)-30])

	var fromOBJ, fromSTL meshJSON
	for _, m := range []struct {
		path string
		dst  *meshJSON
	}{{"../../testdata/bunny.obj", &fromOBJ}, {stl, &fromSTL}} {
		if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", m.path)), m.dst); err != nil {
			t.Fatal(err)
		}
	}
	if fromSTL.Vertices != 453 || fromSTL.Triangles != 902 || fromSTL.Components != 1 || math.Abs(fromSTL.Volume-fromOBJ.Volume) > 1e-6*fromOBJ.Volume {
		t.Errorf("bunny.STL: %+v; want the OBJ's counts and volume %v", fromSTL, fromOBJ.Volume)
	}
	code, _, errOut := runArgs(t, "", "mesh", cut)
	if code != exitUsage || !strings.Contains(errOut, "cut.stl: syntax error: primitive 901") {
		t.Errorf("truncated STL: exit %d, stderr %q", code, errOut)
	}

	// The half cube as PLY: its quads fan-triangulated, as in OBJ.
	var ply strings.Builder
	ply.WriteString("ply\nformat ascii 1.0\nelement vertex 8\nproperty double x\nproperty double y\nproperty double z\nelement face 6\nproperty list uchar int vertex_indices\nend_header\n")
	for _, v := range [8][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}} {
		fmt.Fprintf(&ply, "%g %g %g\n", v[0]/2, v[1]/2, v[2]/2)
	}
	ply.WriteString("4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 3 7 6 2\n4 0 4 7 3\n4 1 2 6 5\n")
	var cube meshJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", writeFile(t, f.dir, "half.ply", ply.String()))), &cube); err != nil {
		t.Fatal(err)
	}
	if cube.Vertices != 8 || cube.Triangles != 12 || !near(cube.Volume, 0.125) {
		t.Errorf("half.ply: %+v; want 8 vertices, 12 triangles, volume 0.125", cube)
	}

	if n, m := selfContacts(t, "../../testdata/bunny.obj"), selfContacts(t, stl); n == 0 || n != m {
		t.Errorf("contacts: %d from the OBJ files, %d from the STL files; want the same, not 0", n, m)
	}
}

// TestMeshWeld: a cube written with four vertices of its own per face is
// refused with a hint to weld, and read with -weld (mesh and contacts).
func TestMeshWeld(t *testing.T) {
	f := newFixture(t)
	corners := [8][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	var obj strings.Builder
	for i, face := range [6][4]int{{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}} {
		for _, c := range face {
			fmt.Fprintf(&obj, "v %g %g %g\n", corners[c][0], corners[c][1], corners[c][2])
		}
		fmt.Fprintf(&obj, "f %d %d %d %d\n", 4*i+1, 4*i+2, 4*i+3, 4*i+4)
	}
	path := writeFile(t, f.dir, "faces.obj", obj.String())
	code, _, errOut := runArgs(t, "", "mesh", path)
	if code != exitUsage || !strings.Contains(errOut, "open boundary") || !strings.Contains(errOut, "16 vertices lie exactly where another does: narrow.Weld") {
		t.Errorf("unwelded cube: exit %d, stderr %q; want an open boundary and the hint", code, errOut)
	}
	var m meshJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", "-weld", path)), &m); err != nil {
		t.Fatal(err)
	}
	if m.Vertices != 8 || m.Triangles != 12 || !near(m.Volume, 1) {
		t.Errorf("mesh -weld: %+v; want 8 vertices, 12 triangles, volume 1", m)
	}
	if out := mustRun(t, "", "contacts", "-weld", "-a", path, "-b", path, "-pose-b", "0.9 0.2 0.3 1 0 0 0"); !strings.Contains(out, `"from":"a"`) {
		t.Errorf("contacts -weld: %s; want contacts of the two cubes", out)
	}
	if code, _, errOut := runArgs(t, "", "mesh", "-weld", f.open); code != exitUsage || !strings.Contains(errOut, "(welded): open boundary") {
		t.Errorf("mesh -weld on an open mesh: exit %d, stderr %q", code, errOut)
	}

	// The same cube with each face's corners off by up to 3e-7: -weld
	// alone cannot close it, -weld -weld-within 1e-6 does.
	obj.Reset()
	for i, face := range [6][4]int{{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4}, {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}} {
		for k, c := range face {
			e := 1e-7 * float64((i+k)%4)
			fmt.Fprintf(&obj, "v %.9f %.9f %.9f\n", corners[c][0]+e, corners[c][1]-e, corners[c][2]+e)
		}
		fmt.Fprintf(&obj, "f %d %d %d %d\n", 4*i+1, 4*i+2, 4*i+3, 4*i+4)
	}
	noisy := writeFile(t, f.dir, "noisy.obj", obj.String())
	if code, _, errOut := runArgs(t, "", "mesh", "-weld", noisy); code != exitUsage || !strings.Contains(errOut, "(welded): open boundary") {
		t.Errorf("mesh -weld on the noisy cube: exit %d, stderr %q", code, errOut)
	}
	m = meshJSON{}
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", "-weld", "-weld-within", "1e-6", noisy)), &m); err != nil {
		t.Fatal(err)
	}
	if m.Vertices != 8 || m.Triangles != 12 || math.Abs(m.Volume-1) > 1e-5 {
		t.Errorf("mesh -weld -weld-within 1e-6: %+v; want 8 vertices, 12 triangles, volume 1", m)
	}
	if out := mustRun(t, "", "contacts", "-weld", "-weld-within", "1e-6", "-a", noisy, "-b", noisy, "-pose-b", "0.9 0.2 0.3 1 0 0 0"); !strings.Contains(out, `"from":"a"`) {
		t.Errorf("contacts -weld -weld-within: %s; want contacts of the two cubes", out)
	}
	for _, args := range [][]string{
		{"mesh", "-weld-within", "1e-6", noisy},
		{"mesh", "-weld", "-weld-within", "-1", noisy},
		{"contacts", "-weld-within", "1e-6", "-a", noisy, "-b", noisy},
		{"contacts", "-weld", "-weld-within", "NaN", "-a", noisy, "-b", noisy},
	} {
		if code, _, errOut := runArgs(t, "", args...); code != exitUsage || !strings.Contains(errOut, "-weld-within") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming -weld-within", args, code, errOut)
		}
	}
}

// TestMeshHull: -hull checks the convex hull of a file's vertices, even
// of an open mesh, and -o writes it as STL, which reads back the same.
func TestMeshHull(t *testing.T) {
	f := newFixture(t)
	out := filepath.Join(f.dir, "hull.stl")
	var hull meshJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", "-hull", "-o", out, f.open)), &hull); err != nil {
		t.Fatal(err)
	}
	if hull.Vertices != 4 || hull.Triangles != 4 || !near(hull.Volume, 1.0/6) {
		t.Errorf("hull of the open tetrahedron: %+v; want 4 vertices, 4 triangles, volume 1/6", hull)
	}
	var back meshJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", out)), &back); err != nil {
		t.Fatal(err)
	}
	if back.Vertices != 4 || back.Triangles != 4 || !near(back.Volume, hull.Volume) {
		t.Errorf("hull.stl read back: %+v", back)
	}
	var bunny meshJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", "-hull", "../../testdata/bunny.obj")), &bunny); err != nil {
		t.Fatal(err)
	}
	if bunny.Vertices != 90 || bunny.Components != 1 {
		t.Errorf("hull of the bunny: %+v; want 90 vertices", bunny)
	}
	for _, args := range [][]string{{"mesh", "-weld", "-hull", f.unit}, {"mesh", "-o", out, f.unit, f.half}, {"mesh", "-o", filepath.Join(f.dir, "x.obj"), f.unit}} {
		if code, _, errOut := runArgs(t, "", args...); code != exitUsage || !strings.Contains(errOut, "irtcd mesh:") {
			t.Errorf("run %q: exit %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
}

// TestMeshGLTF: the bunny written as GLB by mesh -o is read back by mesh
// and contacts as the OBJ is (same counts, volume and contacts), and a GLB
// cut short is refused naming the file.
func TestMeshGLTF(t *testing.T) {
	dir := t.TempDir()
	glb := filepath.Join(dir, "bunny.glb")
	var fromOBJ, fromGLB meshJSON
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", "-o", glb, "../../testdata/bunny.obj")), &fromOBJ); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(mustRun(t, "", "mesh", glb)), &fromGLB); err != nil {
		t.Fatal(err)
	}
	if fromGLB.Vertices != 453 || fromGLB.Triangles != 902 || math.Abs(fromGLB.Volume-fromOBJ.Volume) > 1e-6*fromOBJ.Volume {
		t.Errorf("bunny.glb: %+v; want the OBJ's counts and volume %v", fromGLB, fromOBJ.Volume)
	}
	if n, m := selfContacts(t, "../../testdata/bunny.obj"), selfContacts(t, glb); n == 0 || n != m {
		t.Errorf("contacts: %d from the OBJ files, %d from the GLB files; want the same, not 0", n, m)
	}
	data, err := os.ReadFile(glb)
	if err != nil {
		t.Fatal(err)
	}
	cut := writeFile(t, dir, "cut.glb", string(data[:len(data)-100]))
	code, _, errOut := runArgs(t, "", "mesh", cut)
	if code != exitUsage || !strings.Contains(errOut, "cut.glb: syntax error: GLB header: length") {
		t.Errorf("truncated GLB: exit %d, stderr %q", code, errOut)
	}
	code, _, errOut = runArgs(t, "", "mesh", "-o", filepath.Join(dir, "x.obj"), glb)
	if code != exitUsage || !strings.Contains(errOut, ".stl or .glb") {
		t.Errorf("-o x.obj: exit %d, stderr %q", code, errOut)
	}
}
