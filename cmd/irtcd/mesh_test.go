package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
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
