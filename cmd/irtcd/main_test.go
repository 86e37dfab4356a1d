package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Meshes of the repository's testdata, as the spec names them.
const (
	bunnyPath = "../../testdata/bunny.obj"
	torusPath = "../../testdata/torus.obj"
)

// cubeOBJ returns an axis-aligned cube [0,s]³ written with quads, wound
// counter-clockwise seen from outside. Vertices, in file order:
//
//	0 (0,0,0)  1 (s,0,0)  2 (s,s,0)  3 (0,s,0)
//	4 (0,0,s)  5 (s,0,s)  6 (s,s,s)  7 (0,s,s)
//
// Faces (two triangles each after fan triangulation, diagonal from the
// first corner): bottom 0-1, top 2-3, y=0 4-5, y=s 6-7, x=0 8-9, x=s 10-11.
func cubeOBJ(s float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# cube of side %g\n", s)
	for _, v := range [8][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}} {
		fmt.Fprintf(&b, "v %g %g %g\n", v[0]*s, v[1]*s, v[2]*s)
	}
	b.WriteString("f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 4 8 7 3\nf 1 5 8 4\nf 2 3 7 6\n")
	return b.String()
}

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fixture holds the small meshes of the tests, in a temporary directory.
type fixture struct {
	dir                          string
	unit, half                   string // cubes of side 1 and 0.5
	badSyntax, nonManifold, open string
	empty                        string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	return &fixture{
		dir:       dir,
		unit:      writeFile(t, dir, "unit.obj", cubeOBJ(1)),
		half:      writeFile(t, dir, "half.obj", cubeOBJ(0.5)),
		badSyntax: writeFile(t, dir, "syntax.obj", "v 0 0 0\nv 1 0 x\nv 0 1 0\nf 1 2 3\n"),
		// A cube with a fin on edge 1-2: that edge is shared by 4 triangles.
		nonManifold: writeFile(t, dir, "nonmanifold.obj", cubeOBJ(1)+"v 0.5 -1 0\nf 1 2 9\nf 2 1 9\n"),
		// A tetrahedron missing a face.
		open:  writeFile(t, dir, "open.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\n"),
		empty: writeFile(t, dir, "empty.obj", "# nothing\n"),
	}
}

// runArgs calls run and returns its exit status, stdout and stderr.
func runArgs(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// mustRun calls run and fails the test unless it succeeds.
func mustRun(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	code, out, errOut := runArgs(t, stdin, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("run %q: exit %d, stderr %q", args, code, errOut)
	}
	return out
}

// decode parses one output object into the output type.
func decode(t *testing.T, out string) []contactJSON {
	t.Helper()
	var o struct {
		Contacts *[]contactJSON `json:"contacts"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("decode %q: %v", out, err)
	}
	if o.Contacts == nil {
		t.Fatalf("output %q: contacts missing or null", out)
	}
	return *o.Contacts
}

const eps = 1e-9

func near(a, b float64) bool { return math.Abs(a-b) <= eps*(1+math.Abs(b)) }

func nearVec(a, b [3]float64) bool { return near(a[0], b[0]) && near(a[1], b[1]) && near(a[2], b[2]) }

// box is a world-space axis-aligned box, the region of a posed cube whose
// rotation maps axes onto axes.
type box struct{ lo, hi [3]float64 }

func (b box) contains(p [3]float64) bool {
	for i := range 3 {
		if p[i] < b.lo[i]-eps || p[i] > b.hi[i]+eps {
			return false
		}
	}
	return true
}

func (b box) onSurface(p [3]float64) bool {
	if !b.contains(p) {
		return false
	}
	for i := range 3 {
		if math.Abs(p[i]-b.lo[i]) <= eps || math.Abs(p[i]-b.hi[i]) <= eps {
			return true
		}
	}
	return false
}

// worldVertex returns vertex v of the OBJ file at path placed by pose
// (tx ty tz qw qx qy qz, normalised here), computed independently of the
// command.
func worldVertex(t *testing.T, path string, pose [7]float64, v int) [3]float64 {
	t.Helper()
	s, err := narrow.LoadOBJ(path)
	if err != nil {
		t.Fatal(err)
	}
	q := mgl64.Quat{W: pose[3], V: mgl64.Vec3{pose[4], pose[5], pose[6]}}.Normalize()
	return q.Rotate(s.Vertex(v)).Add(mgl64.Vec3{pose[0], pose[1], pose[2]})
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"help"}, {"-h"}, {"help", "nope"}, {"nope"}} {
		code, out, errOut := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "usage: irtcd <command>") || !strings.Contains(errOut, "contacts") {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want usage listing contacts on stderr, exit 2", args, code, out, errOut)
		}
	}
	for _, args := range [][]string{{"help", "contacts"}, {"contacts", "-h"}} {
		code, out, errOut := runArgs(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "-pose-a") || !strings.Contains(errOut, "exact") {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want contacts flags on stderr, exit 2", args, code, out, errOut)
		}
	}
}

func TestContactsCubes(t *testing.T) {
	f := newFixture(t)
	type want struct {
		from   string
		vertex int32
		prim   int32 // -1: not checked
		depth  float64
		dir    [3]float64
	}
	// The unit cube at the identity against a cube of the same region
	// shifted by (0.9, 0.2, 0.3): they overlap by 0.1 along x. Corner 6
	// (1,1,1) of a is inside b and corner 0 of b, at (0.9,0.2,0.3), inside
	// a. Their rays (along the inverted corner normals) hit the x faces off
	// the triangles' shared diagonal.
	overlap := box{[3]float64{0.9, 0.2, 0.3}, [3]float64{1.9, 1.2, 1.3}}
	unitBox := box{hi: [3]float64{1, 1, 1}}
	sq3 := math.Sqrt(3)
	rayDir := [3]float64{-1 / sq3, -1 / sq3, -1 / sq3}
	tests := []struct {
		name         string
		a, b         string
		poseA, poseB [7]float64
		boxA, boxB   box // world regions of a and b
		flags        []string
		want         []want
		// damped: the weighted response shortens the ray, so moving by
		// depth·dir does not reach the other body's surface.
		damped bool
	}{
		{
			name: "overlap 0.1 along x",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{0.9, 0.2, 0.3, 1, 0, 0, 0},
			boxA: unitBox, boxB: overlap,
			want: []want{
				{"a", 6, 9, 0.1, [3]float64{-1, 0, 0}},
				{"b", 0, 11, 0.1, [3]float64{1, 0, 0}},
			},
		},
		{
			name: "overlap with bvh made explicit and basic traversal",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{0.9, 0.2, 0.3, 1, 0, 0, 0},
			boxA: unitBox, boxB: overlap,
			flags: []string{"-traversal", "basic", "-method", "standard", "-response", "mtd"},
			want: []want{
				{"a", 6, 9, 0.1, [3]float64{-1, 0, 0}},
				{"b", 0, 11, 0.1, [3]float64{1, 0, 0}},
			},
		},
		{
			// b rotated 90° about z occupies the same region; its corner at
			// (0.9,0.2,0.3) is now local vertex 3, (0,1,0).
			name: "b rotated 90 degrees about z",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{1.9, 0.2, 0.3, math.Sqrt2 / 2, 0, 0, math.Sqrt2 / 2},
			boxA: unitBox, boxB: overlap,
			want: []want{
				{"a", 6, -1, 0.1, [3]float64{-1, 0, 0}},
				{"b", 3, 11, 0.1, [3]float64{1, 0, 0}},
			},
		},
		{
			name: "both posed",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{10, 20, 30, 1, 0, 0, 0}, poseB: [7]float64{10.9, 20.2, 30.3, 1, 0, 0, 0},
			boxA: box{[3]float64{10, 20, 30}, [3]float64{11, 21, 31}}, boxB: box{[3]float64{10.9, 20.2, 30.3}, [3]float64{11.9, 21.2, 31.3}},
			want: []want{
				{"a", 6, 9, 0.1, [3]float64{-1, 0, 0}},
				{"b", 0, 11, 0.1, [3]float64{1, 0, 0}},
			},
		},
		{
			name: "raw ray response",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{0.9, 0.2, 0.3, 1, 0, 0, 0},
			boxA: unitBox, boxB: overlap,
			flags: []string{"-response", "ray"},
			want: []want{
				{"a", 6, 9, 0.1 * sq3, rayDir},
				{"b", 0, 11, 0.1 * sq3, [3]float64{1 / sq3, 1 / sq3, 1 / sq3}},
			},
		},
		{
			name: "weighted response",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{0.9, 0.2, 0.3, 1, 0, 0, 0},
			boxA: unitBox, boxB: overlap,
			flags:  []string{"-response", "weighted"},
			damped: true,
			want: []want{
				{"a", 6, 9, 0.1, rayDir},
				{"b", 0, 11, 0.1, [3]float64{1 / sq3, 1 / sq3, 1 / sq3}},
			},
		},
		{
			// The small cube's x=0 face pokes 0.1 into the unit cube: its
			// four corners there are contacts from b pushing b along +x.
			name: "small b poking into a",
			a:    f.unit, b: f.half,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{0.9, 0.25, 0.25, 1, 0, 0, 0},
			boxA: unitBox, boxB: box{[3]float64{0.9, 0.25, 0.25}, [3]float64{1.4, 0.75, 0.75}},
			want: []want{
				{"b", 0, -1, 0.1, [3]float64{1, 0, 0}},
				{"b", 3, -1, 0.1, [3]float64{1, 0, 0}},
				{"b", 4, -1, 0.1, [3]float64{1, 0, 0}},
				{"b", 7, -1, 0.1, [3]float64{1, 0, 0}},
			},
		},
		{
			name: "small a poking into b",
			a:    f.half, b: f.unit,
			poseA: [7]float64{-0.4, 0.25, 0.25, 1, 0, 0, 0}, poseB: [7]float64{0, 0, 0, 1, 0, 0, 0},
			boxA: box{[3]float64{-0.4, 0.25, 0.25}, [3]float64{0.1, 0.75, 0.75}}, boxB: unitBox,
			want: []want{
				{"a", 1, -1, 0.1, [3]float64{-1, 0, 0}},
				{"a", 2, -1, 0.1, [3]float64{-1, 0, 0}},
				{"a", 5, -1, 0.1, [3]float64{-1, 0, 0}},
				{"a", 6, -1, 0.1, [3]float64{-1, 0, 0}},
			},
		},
		{
			name: "disjoint",
			a:    f.unit, b: f.unit,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{1.5, 0, 0, 1, 0, 0, 0},
		},
		{
			name: "disjoint and rotated",
			a:    f.unit, b: f.half,
			poseA: [7]float64{0, 0, 0, 1, 0, 0, 0}, poseB: [7]float64{3, 3, 3, 0.3, 0.5, -0.2, 0.7},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"contacts", "-a", tc.a, "-b", tc.b, "-pose-a", poseString(tc.poseA), "-pose-b", poseString(tc.poseB)}, tc.flags...)
			out := mustRun(t, "", args...)
			if len(tc.want) == 0 {
				if out != "{\"contacts\":[]}\n" {
					t.Fatalf("output %q, want {\"contacts\":[]} and a newline", out)
				}
				return
			}
			got := decode(t, out)
			if len(got) != len(tc.want) {
				t.Fatalf("%d contacts, want %d: %s", len(got), len(tc.want), out)
			}
			for i, w := range tc.want {
				c := got[i]
				if c.From != w.from || c.Vertex != w.vertex || (w.prim >= 0 && c.Prim != w.prim) {
					t.Errorf("contact %d: from %s vertex %d prim %d, want from %s vertex %d prim %d", i, c.From, c.Vertex, c.Prim, w.from, w.vertex, w.prim)
				}
				if !near(c.Depth, w.depth) || !nearVec(c.Dir, w.dir) {
					t.Errorf("contact %d: depth %v dir %v, want depth %v dir %v", i, c.Depth, c.Dir, w.depth, w.dir)
				}
				// p is the From body's vertex, placed by its pose.
				file, pose, self, other := tc.a, tc.poseA, tc.boxA, tc.boxB
				if c.From == "b" {
					file, pose, self, other = tc.b, tc.poseB, tc.boxB, tc.boxA
				}
				if wp := worldVertex(t, file, pose, int(c.Vertex)); !nearVec(c.P, wp) {
					t.Errorf("contact %d: p %v, want vertex %d at %v", i, c.P, c.Vertex, wp)
				}
				// The convention: p lies in the other body, and moving the
				// From body by depth·dir brings p onto its surface.
				if !self.onSurface(c.P) || !other.contains(c.P) {
					t.Errorf("contact %d: p %v is not a surface point of %s inside the other body", i, c.P, c.From)
				}
				moved := [3]float64{c.P[0] + c.Depth*c.Dir[0], c.P[1] + c.Depth*c.Dir[1], c.P[2] + c.Depth*c.Dir[2]}
				if !tc.damped && !other.onSurface(moved) {
					t.Errorf("contact %d: p + depth·dir = %v is not on the other body's surface %v", i, moved, other)
				}
			}
		})
	}
}

// poseString formats a pose for -pose-a and -pose-b with full precision.
// TestContactsSpeculative holds the unit cube 0.03 under another one,
// offset so that one corner of each faces the other's face: with
// -speculative those corners come out as speculative contacts, depth
// −0.03 along the face normals, and without it nothing does.
func TestContactsSpeculative(t *testing.T) {
	f := newFixture(t)
	args := []string{"contacts", "-a", f.unit, "-b", f.unit, "-pose-b", "0.2 1.03 0.3 1 0 0 0", "-method", "predictive"}
	if got := decode(t, mustRun(t, "", args...)); len(got) != 0 {
		t.Fatalf("without -speculative: %+v, want no contact", got)
	}
	got := decode(t, mustRun(t, "", append(args, "-speculative")...))
	want := []struct {
		from   string
		vertex int32
		dir    [3]float64
	}{{"a", 6, [3]float64{0, -1, 0}}, {"b", 0, [3]float64{0, 1, 0}}}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %d speculative contacts", got, len(want))
	}
	for i, w := range want {
		if g := got[i]; g.From != w.from || g.Vertex != w.vertex || !near(g.Depth, -0.03) || !nearVec(g.Dir, w.dir) {
			t.Errorf("contact %d: %+v, want from %s vertex %d depth -0.03 dir %v", i, g, w.from, w.vertex, w.dir)
		}
	}
}

func poseString(p [7]float64) string {
	s := make([]string, len(p))
	for i, x := range p {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, " ")
}

// TestOutputFormat checks the JSON field names and shapes on meshes with
// many contacts, and their order.
func TestOutputFormat(t *testing.T) {
	tests := []struct {
		name         string
		a, b         string
		poseA, poseB [7]float64
	}{
		{"bunny on bunny", bunnyPath, bunnyPath, [7]float64{0, 0, 0, 1, 0, 0, 0}, [7]float64{0.2, 0.05, 0, 1, 0, 0, 0}},
		{"rotated bunny on torus", bunnyPath, torusPath, [7]float64{0.1, -0.2, 0.3, 0.9, 0.1, 0.3, 0.2}, [7]float64{-2.2, 0.1, 0, 0.9, 0.1, 0.3, 0.2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustRun(t, "", "contacts", "-a", tc.a, "-b", tc.b, "-pose-a", poseString(tc.poseA), "-pose-b", poseString(tc.poseB))
			if !strings.HasSuffix(out, "}\n") || strings.Count(out, "\n") != 1 {
				t.Fatalf("output is not one line ending in a newline: %.200q", out)
			}
			var top map[string]any
			if err := json.Unmarshal([]byte(out), &top); err != nil {
				t.Fatal(err)
			}
			if len(top) != 1 {
				t.Errorf("top-level keys %v, want only contacts", slices.Sorted(mapKeys(top)))
			}
			list, ok := top["contacts"].([]any)
			if !ok {
				t.Fatalf("contacts is %T, want an array", top["contacts"])
			}
			shapes := map[string]*narrow.Shape{}
			for _, p := range []string{tc.a, tc.b} {
				s, err := narrow.LoadOBJ(p)
				if err != nil {
					t.Fatal(err)
				}
				shapes[p] = s
			}
			count := map[string]int{}
			prevFrom, prevVertex := "", -1
			for i, e := range list {
				c, ok := e.(map[string]any)
				if !ok {
					t.Fatalf("contact %d is %T", i, e)
				}
				keys := slices.Sorted(mapKeys(c))
				if !slices.Equal(keys, []string{"depth", "dir", "from", "p", "prim", "vertex"}) {
					t.Fatalf("contact %d keys %v", i, keys)
				}
				from, ok := c["from"].(string)
				if !ok || (from != "a" && from != "b") {
					t.Fatalf("contact %d: from %v", i, c["from"])
				}
				count[from]++
				self, other, pose := shapes[tc.a], shapes[tc.b], tc.poseA
				if from == "b" {
					self, other, pose = shapes[tc.b], shapes[tc.a], tc.poseB
				}
				vertex := integer(t, c["vertex"], self.NumVertices())
				integer(t, c["prim"], other.NumPrims())
				p, dir := vec3(t, c["p"]), vec3(t, c["dir"])
				depth, ok := c["depth"].(float64)
				if !ok || depth < 0 {
					t.Errorf("contact %d: depth %v", i, c["depth"])
				}
				if n := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2]); math.Abs(n-1) > 1e-9 {
					t.Errorf("contact %d: |dir| = %v", i, n)
				}
				file := tc.a
				if from == "b" {
					file = tc.b
				}
				if wp := worldVertex(t, file, pose, vertex); !nearVec(p, wp) {
					t.Errorf("contact %d: p %v, want vertex %d of %s at %v", i, p, vertex, from, wp)
				}
				// Sorted by from, then strictly by vertex (one ray per vertex).
				if from < prevFrom || (from == prevFrom && vertex <= prevVertex) {
					t.Errorf("contact %d (%s %d) after (%s %d): not sorted", i, from, vertex, prevFrom, prevVertex)
				}
				prevFrom, prevVertex = from, vertex
			}
			if count["a"] == 0 || count["b"] == 0 {
				t.Errorf("contacts per side %v: the test wants both sides", count)
			}
		})
	}
}

func mapKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// integer checks that v is a JSON integer in [0, n).
func integer(t *testing.T, v any, n int) int {
	t.Helper()
	x, ok := v.(float64)
	if !ok || x != math.Trunc(x) || x < 0 || x >= float64(n) {
		t.Fatalf("index %v: want an integer in [0, %d)", v, n)
	}
	return int(x)
}

// vec3 checks that v is a JSON array of 3 numbers.
func vec3(t *testing.T, v any) [3]float64 {
	t.Helper()
	a, ok := v.([]any)
	if !ok || len(a) != 3 {
		t.Fatalf("%v: want an array of 3 numbers", v)
	}
	var r [3]float64
	for i, e := range a {
		if r[i], ok = e.(float64); !ok {
			t.Fatalf("%v: want an array of 3 numbers", v)
		}
	}
	return r
}

// TestQuaternionNormalisation checks that a non-unit quaternion is
// normalised: 2q gives exactly the output of q.
func TestQuaternionNormalisation(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name       string
		a, b       string
		poseB      string
		scaledB    string
		wantNonNil bool
	}{
		{"identity cube", f.unit, f.unit, "0.9 0.2 0.3 1 0 0 0", "0.9 0.2 0.3 2 0 0 0", true},
		{"rotated cube", f.unit, f.unit, "1.9 0.2 0.3 0.7071067811865476 0 0 0.7071067811865476", "1.9 0.2 0.3 1.4142135623730951 0 0 1.4142135623730951", true},
		{"rotated bunny", bunnyPath, bunnyPath, "0.1 0.05 0 0.9 0.1 0.3 0.2", "0.1 0.05 0 1.8 0.2 0.6 0.4", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unit := mustRun(t, "", "contacts", "-a", tc.a, "-b", tc.b, "-pose-b", tc.poseB)
			scaled := mustRun(t, "", "contacts", "-a", tc.a, "-b", tc.b, "-pose-b", tc.scaledB)
			if unit != scaled {
				t.Errorf("2q output differs from q output:\n%s\n%s", unit, scaled)
			}
			if len(decode(t, unit)) == 0 {
				t.Errorf("no contacts; the test wants some")
			}
			// The same holds for pose a.
			scaledA := mustRun(t, "", "contacts", "-a", tc.a, "-b", tc.b, "-pose-a", "0 0 0 3 0 0 0", "-pose-b", tc.poseB)
			if unit != scaledA {
				t.Errorf("pose-a 3·identity differs from identity")
			}
		})
	}
}

// TestCases checks -cases against single runs.
func TestCases(t *testing.T) {
	f := newFixture(t)
	bunny, err := filepath.Abs(bunnyPath)
	if err != nil {
		t.Fatal(err)
	}
	torus, err := filepath.Abs(torusPath)
	if err != nil {
		t.Fatal(err)
	}
	type single struct{ a, b, poseA, poseB string }
	cases := []single{
		{f.unit, f.unit, "0 0 0 1 0 0 0", "0.9 0.2 0.3 1 0 0 0"},
		{f.unit, f.unit, "0 0 0 1 0 0 0", "1.5 0 0 1 0 0 0"},
		{bunny, torus, "0.1 -0.2 0.3 0.9 0.1 0.3 0.2", "-2.2 0.1 0 0.9 0.1 0.3 0.2"},
		// A small displacement of the case before: an iterative step would
		// apply if state carried over.
		{bunny, torus, "0.1 -0.2 0.3 0.9 0.1 0.3 0.2", "-2.21 0.1 0 0.9 0.1 0.3 0.2"},
		{bunny, bunny, "0 0 0 1 0 0 0", "0.2 0.05 0 1 0 0 0"},
	}
	var want strings.Builder
	var lines []string
	for _, c := range cases {
		want.WriteString(mustRun(t, "", "contacts", "-a", c.a, "-b", c.b, "-pose-a", c.poseA, "-pose-b", c.poseB))
		lines = append(lines, fmt.Sprintf(`{"a":%q,"b":%q,"pose_a":[%s],"pose_b":[%s],"note":{"x":[1,2]},"id":7}`,
			c.a, c.b, strings.ReplaceAll(c.poseA, " ", ","), strings.ReplaceAll(c.poseB, " ", ",")))
	}
	input := "\n" + strings.Join(lines[:2], "\n") + "\n  \n" + strings.Join(lines[2:], "\r\n") // blank lines, CRLF, no final newline
	casesFile := writeFile(t, f.dir, "cases.jsonl", input)

	for _, method := range []string{"standard", "iterative", "predictive"} {
		t.Run(method, func(t *testing.T) {
			got := mustRun(t, "", "contacts", "-method", method, "-cases", casesFile)
			if got != want.String() {
				t.Errorf("-cases output differs from single runs:\n got %.300q\nwant %.300q", got, want.String())
			}
			if n := strings.Count(got, "\n"); n != len(cases) {
				t.Errorf("%d output lines, want %d", n, len(cases))
			}
		})
	}
	t.Run("stdin", func(t *testing.T) {
		if got := mustRun(t, input, "contacts", "-cases", "-"); got != want.String() {
			t.Errorf("-cases - output differs from single runs")
		}
	})
	t.Run("three lines", func(t *testing.T) {
		got := mustRun(t, strings.Join(lines[:3], "\n")+"\n", "contacts", "-cases", "-")
		if strings.Count(got, "\n") != 3 || !strings.HasPrefix(want.String(), got) {
			t.Errorf("3 cases: output %.300q is not the first 3 single runs", got)
		}
	})
	t.Run("default poses", func(t *testing.T) {
		got := mustRun(t, fmt.Sprintf("{\"b\":%q,\"a\":%q}\n{\"a\":%q,\"b\":%q,\"pose_a\":null}\n", f.unit, f.half, f.unit, f.half), "contacts", "-cases", "-")
		one := mustRun(t, "", "contacts", "-a", f.half, "-b", f.unit)
		two := mustRun(t, "", "contacts", "-a", f.unit, "-b", f.half)
		if got != one+two {
			t.Errorf("output %q, want %q", got, one+two)
		}
	})
	t.Run("empty input", func(t *testing.T) {
		if got := mustRun(t, "\n\n", "contacts", "-cases", "-"); got != "" {
			t.Errorf("output %q for no cases", got)
		}
	})
}

// TestCasesRelativePaths checks that case paths are relative to the working
// directory and that each file is loaded and registered once.
func TestCasesRelativePaths(t *testing.T) {
	f := newFixture(t)
	t.Chdir(f.dir)
	in := `{"a":"unit.obj","b":"./unit.obj","pose_b":[0.9,0.2,0.3,1,0,0,0]}
{"a":"half.obj","b":"unit.obj","pose_a":[-0.4,0.25,0.25,1,0,0,0]}
{"a":"unit.obj","b":"sub/../half.obj","pose_b":[0.9,0.25,0.25,1,0,0,0]}
`
	want := mustRun(t, "", "contacts", "-a", "unit.obj", "-b", "unit.obj", "-pose-b", "0.9 0.2 0.3 1 0 0 0") +
		mustRun(t, "", "contacts", "-a", "half.obj", "-b", "unit.obj", "-pose-a", "-0.4 0.25 0.25 1 0 0 0") +
		mustRun(t, "", "contacts", "-a", "unit.obj", "-b", "half.obj", "-pose-b", "0.9 0.25 0.25 1 0 0 0")
	if err := os.Mkdir("sub", 0o755); err != nil {
		t.Fatal(err)
	}

	d, err := newDetector(narrow.Params{Method: narrow.MethodStandard})
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	var out, errOut bytes.Buffer
	fail := func(err error) int { fmt.Fprintln(&errOut, err); return 2 }
	if code := d.runCases("-", strings.NewReader(in), &out, fail); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if out.String() != want {
		t.Errorf("output %q, want %q", out.String(), want)
	}
	if len(d.shapes) != 2 {
		t.Errorf("%d shapes registered, want 2 (unit.obj and half.obj once each)", len(d.shapes))
	}
}

func TestErrors(t *testing.T) {
	f := newFixture(t)
	t.Chdir(f.dir)
	unit := "unit.obj"
	good := fmt.Sprintf(`{"a":%q,"b":%q,"pose_b":[0.9,0.2,0.3,1,0,0,0]}`, unit, unit)
	writeFile(t, f.dir, "cases.jsonl", good+"\n\n"+`{"a":"unit.obj","b":"unit.obj","pose_a":[0,0,0,1,0,0]}`+"\n"+good+"\n")

	tests := []struct {
		name      string
		args      []string
		stdin     string
		want      []string // substrings of stderr
		exact     string   // whole stderr line, when set
		goodLines int      // output lines printed before the error
	}{
		// Shape files.
		{name: "missing file", args: []string{"-a", "nope.obj", "-b", unit}, want: []string{"-a", "nope.obj", "no such file"}},
		{name: "missing file b", args: []string{"-a", unit, "-b", "nope.obj"}, want: []string{"-b", "nope.obj"}},
		{name: "syntax", args: []string{"-a", "syntax.obj", "-b", unit}, want: []string{"syntax.obj:2", "syntax error", "coordinate 2"}},
		{name: "non-manifold", args: []string{"-a", unit, "-b", "nonmanifold.obj"}, want: []string{"-b", "nonmanifold.obj:", "non-manifold edge"}},
		{name: "open boundary", args: []string{"-a", "open.obj", "-b", unit}, want: []string{"open.obj:", "open boundary"}},
		{name: "empty", args: []string{"-a", "empty.obj", "-b", unit}, want: []string{"empty.obj", "empty shape"}},
		{name: "directory", args: []string{"-a", ".", "-b", unit}, want: []string{"-a"}},
		// Poses.
		{name: "pose count", args: []string{"-a", unit, "-b", unit, "-pose-a", "0 0 0 1 0 0"}, exact: `irtcd contacts: -pose-a: want 7 numbers "tx ty tz qw qx qy qz", got 6`},
		{name: "pose too many", args: []string{"-a", unit, "-b", unit, "-pose-b", "0 0 0 1 0 0 0 0"}, want: []string{"-pose-b", "got 8"}},
		{name: "pose empty", args: []string{"-a", unit, "-b", unit, "-pose-b", ""}, want: []string{"-pose-b", "got 0"}},
		{name: "pose non-numeric", args: []string{"-a", unit, "-b", unit, "-pose-b", "0 0 x 1 0 0 0"}, want: []string{"-pose-b", "tz", `bad number "x"`}},
		{name: "pose NaN", args: []string{"-a", unit, "-b", unit, "-pose-a", "0 0 0 NaN 0 0 0"}, want: []string{"-pose-a", "qw", "not a finite number"}},
		{name: "pose Inf", args: []string{"-a", unit, "-b", unit, "-pose-a", "Inf 0 0 1 0 0 0"}, want: []string{"-pose-a", "tx", "not a finite number"}},
		{name: "pose overflow", args: []string{"-a", unit, "-b", unit, "-pose-a", "0 1e999 0 1 0 0 0"}, want: []string{"-pose-a", "ty", "not a finite number"}},
		{name: "zero quaternion", args: []string{"-a", unit, "-b", unit, "-pose-b", "1 2 3 0 0 0 0"}, want: []string{"-pose-b", "invalid pose", "quaternion"}},
		{name: "tiny quaternion", args: []string{"-a", unit, "-b", unit, "-pose-b", "1 2 3 1e-300 0 0 0"}, want: []string{"-pose-b", "invalid pose"}},
		// Flags.
		{name: "no flags", args: nil, want: []string{"-a FILE", "-cases"}},
		{name: "no -b", args: []string{"-a", unit}, want: []string{"need -b"}},
		{name: "no -a", args: []string{"-b", unit}, want: []string{"need -a"}},
		{name: "unknown flag", args: []string{"-a", unit, "-b", unit, "-nope"}, want: []string{"-nope"}},
		{name: "flag without value", args: []string{"-a", unit, "-b", unit, "-method"}, want: []string{"-method"}},
		{name: "method", args: []string{"-a", unit, "-b", unit, "-method", "fast"}, want: []string{"-method", `"fast"`}},
		{name: "traversal", args: []string{"-a", unit, "-b", unit, "-traversal", "kd"}, want: []string{"-traversal", `"kd"`}},
		{name: "response", args: []string{"-a", unit, "-b", unit, "-response", "spring"}, want: []string{"-response", `"spring"`}},
		{name: "speculative without prediction", args: []string{"-a", unit, "-b", unit, "-speculative"}, exact: "irtcd contacts: -speculative needs -method predictive"},
		{name: "positional", args: []string{"-a", unit, "-b", unit, "extra"}, want: []string{`"extra"`}},
		{name: "cases with -a", args: []string{"-cases", "cases.jsonl", "-a", unit}, want: []string{"-cases", "-a"}},
		{name: "cases with -pose-b", args: []string{"-cases", "cases.jsonl", "-pose-b", "0 0 0 1 0 0 0"}, want: []string{"-cases", "-pose-b"}},
		// Case lines.
		{name: "cases file missing", args: []string{"-cases", "nope.jsonl"}, want: []string{"nope.jsonl"}},
		{name: "cases spec message", args: []string{"-cases", "cases.jsonl"}, exact: "irtcd contacts: cases.jsonl:3: pose_a: want 7 numbers, got 6", goodLines: 1},
		{name: "invalid JSON", args: []string{"-cases", "-"}, stdin: good + "\n{\"a\":\n", want: []string{"<stdin>:2", "invalid JSON"}, goodLines: 1},
		{name: "trailing garbage", args: []string{"-cases", "-"}, stdin: good + " x\n", want: []string{"<stdin>:1", "invalid JSON"}},
		{name: "not an object", args: []string{"-cases", "-"}, stdin: "[1,2]\n", want: []string{"<stdin>:1", "JSON object"}},
		{name: "missing a", args: []string{"-cases", "-"}, stdin: good + "\n" + good + "\n" + `{"b":"unit.obj"}`, want: []string{"<stdin>:3", `missing "a"`}, goodLines: 2},
		{name: "missing b", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj"}`, want: []string{"<stdin>:1", `missing "b"`}},
		{name: "null a", args: []string{"-cases", "-"}, stdin: `{"a":null,"b":"unit.obj"}`, want: []string{"<stdin>:1", `missing "a"`}},
		{name: "empty a", args: []string{"-cases", "-"}, stdin: `{"a":"","b":"unit.obj"}`, want: []string{"<stdin>:1", `"a": empty path`}},
		{name: "a not a string", args: []string{"-cases", "-"}, stdin: `{"a":5,"b":"unit.obj"}`, want: []string{"<stdin>:1", "a: want a string", "number"}},
		{name: "pose not an array", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj","b":"unit.obj","pose_b":"0 0 0 1 0 0 0"}`, want: []string{"<stdin>:1", "pose_b", "array of 7 numbers"}},
		{name: "pose element string", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj","b":"unit.obj","pose_b":[0,0,0,"1",0,0,0]}`, want: []string{"<stdin>:1", "pose_b", "qw", "want a number"}},
		{name: "pose element NaN", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj","b":"unit.obj","pose_a":[0,0,0,"NaN",0,0,0]}`, want: []string{"<stdin>:1", "pose_a", "want a number"}},
		{name: "pose element overflow", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj","b":"unit.obj","pose_a":[0,1e999,0,1,0,0,0]}`, want: []string{"<stdin>:1", "pose_a", "ty", "not a finite number"}},
		{name: "pose element null", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj","b":"unit.obj","pose_a":[0,null,0,1,0,0,0]}`, want: []string{"<stdin>:1", "pose_a", "want a number"}},
		{name: "case zero quaternion", args: []string{"-cases", "-"}, stdin: `{"a":"unit.obj","b":"unit.obj","pose_b":[1,2,3,0,0,0,0]}`, want: []string{"<stdin>:1", "pose_b", "invalid pose"}},
		{name: "case missing shape", args: []string{"-cases", "-"}, stdin: good + "\n" + `{"a":"unit.obj","b":"gone.obj"}`, want: []string{"<stdin>:2", "b:", "gone.obj"}, goodLines: 1},
		{name: "case bad shape", args: []string{"-cases", "-"}, stdin: `{"a":"nonmanifold.obj","b":"half.obj"}`, want: []string{"<stdin>:1", "a:", "nonmanifold.obj:", "non-manifold"}},
		{name: "case shape after good ones", args: []string{"-cases", "-"}, stdin: good + "\n" + good + "\n\n" + `{"a":"half.obj","b":"syntax.obj"}`, want: []string{"<stdin>:4", "syntax.obj:2"}, goodLines: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runArgs(t, tc.stdin, append([]string{"contacts"}, tc.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if !strings.HasPrefix(errOut, "irtcd contacts: ") || !strings.HasSuffix(errOut, "\n") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr %q: want one line starting with \"irtcd contacts: \"", errOut)
			}
			if tc.exact != "" && errOut != tc.exact+"\n" {
				t.Errorf("stderr %q, want %q", errOut, tc.exact)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not mention %q", errOut, w)
				}
			}
			if n := strings.Count(out, "\n"); n != tc.goodLines {
				t.Errorf("stdout has %d lines, want %d: %.200q", n, tc.goodLines, out)
			}
		})
	}
}

// Example_contacts runs one query on two unit cubes overlapping by 0.1
// along x. The numbers are rounded so that the example does not depend on
// the last bits of floating-point arithmetic.
func Example_contacts() {
	dir, err := os.MkdirTemp("", "irtcd-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	cube := filepath.Join(dir, "cube.obj")
	if err := os.WriteFile(cube, []byte(cubeOBJ(1)), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"contacts", "-a", cube, "-b", cube, "-pose-b", "0.9 0.2 0.3 1 0 0 0"}, nil, &stdout, &stderr)
	fmt.Println("exit", code)
	fmt.Print(stderr.String())
	var out struct {
		Contacts []struct {
			From   string
			Vertex int
			Prim   int
			P      [3]float64
			Depth  float64
			Dir    [3]float64
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		fmt.Println(err)
		return
	}
	r := func(v [3]float64) [3]float64 {
		for i := range v {
			v[i] = math.Round(v[i]*1000)/1000 + 0 // + 0 turns -0 into 0
		}
		return v
	}
	for _, c := range out.Contacts {
		fmt.Printf("from %s vertex %d prim %d p %v depth %.3f dir %v\n", c.From, c.Vertex, c.Prim, r(c.P), c.Depth, r(c.Dir))
	}
	// Output:
	// exit 0
	// from a vertex 6 prim 9 p [1 1 1] depth 0.100 dir [-1 0 0]
	// from b vertex 0 prim 11 p [0.9 0.2 0.3] depth 0.100 dir [1 0 0]
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, fmt.Errorf("disk full") }

// TestWriteError checks that an output that cannot be written exits 1.
func TestWriteError(t *testing.T) {
	f := newFixture(t)
	line := fmt.Sprintf("{\"a\":%q,\"b\":%q}\n", f.unit, f.unit)
	for _, args := range [][]string{{"contacts", "-a", f.unit, "-b", f.unit}, {"contacts", "-cases", "-"}} {
		var stderr bytes.Buffer
		code := run(args, strings.NewReader(line), failWriter{}, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), "write output: disk full") {
			t.Errorf("run %q: exit %d, stderr %q; want exit 1 and the write error", args, code, stderr.String())
		}
	}
}

// TestContactsEdges: two unit cubes turned by 45° cross edge on edge, 0.01
// deep, with no vertex of either inside the other: vertex rays find
// nothing, and -edges 45 finds the one edge-on-edge contact, with its
// depth, direction and the two edges' vertices.
func TestContactsEdges(t *testing.T) {
	fx := newFixture(t)
	centre := mgl64.Vec3{0.5, 0.5, 0.5}
	pose := func(at mgl64.Vec3, q mgl64.Quat) string {
		tr := at.Sub(q.Rotate(centre))
		return fmt.Sprintf("%.17g %.17g %.17g %.17g %.17g %.17g %.17g", tr[0], tr[1], tr[2], q.W, q.V[0], q.V[1], q.V[2])
	}
	const depth = 0.01
	pa := pose(mgl64.Vec3{0, 0, math.Sqrt2 - depth}, mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 1, 0}))
	pb := pose(mgl64.Vec3{}, mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0}))
	args := []string{"contacts", "-a", fx.unit, "-b", fx.unit, "-pose-a", pa, "-pose-b", pb}
	if cs := decode(t, mustRun(t, "", args...)); len(cs) != 0 {
		t.Fatalf("without -edges: %+v, want none", cs)
	}
	cs := decode(t, mustRun(t, "", append(args, "-edges", "45")...))
	if len(cs) != 1 {
		t.Fatalf("-edges 45: %+v, want one contact", cs)
	}
	c := cs[0]
	if c.From != "a" || c.Vertex != -1 || c.Prim != -1 || c.Edge == nil || c.OtherEdge == nil {
		t.Fatalf("contact %+v: want an edge-on-edge contact from a", c)
	}
	if math.Abs(c.Depth-depth) > 1e-12 || mgl64.Vec3(c.Dir).Sub(mgl64.Vec3{0, 0, 1}).Len() > 1e-12 ||
		mgl64.Vec3(c.P).Sub(mgl64.Vec3{0, 0, math.Sqrt2/2 - depth}).Len() > 1e-12 {
		t.Errorf("contact %+v: want depth %v, dir (0, 0, 1), p (0, 0, %v)", c, depth, math.Sqrt2/2-depth)
	}
	// A's edge runs along y, B's along x.
	edgeDir := func(e *[2]int32, v [][3]float64) [3]float64 {
		a, b := v[e[0]], v[e[1]]
		return [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
	}
	cube := [][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}}
	if d := edgeDir(c.Edge, cube); d[0] != 0 || d[2] != 0 {
		t.Errorf("edge %v of a runs along %v, want y", *c.Edge, d)
	}
	if d := edgeDir(c.OtherEdge, cube); d[1] != 0 || d[2] != 0 {
		t.Errorf("edge %v of b runs along %v, want x", *c.OtherEdge, d)
	}
	for _, bad := range []string{"-1", "180", "NaN"} {
		if code, _, errOut := runArgs(t, "", append(args, "-edges", bad)...); code != exitUsage || !strings.Contains(errOut, "-edges") {
			t.Errorf("-edges %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
	// -edge-depth bounds the contact's depth: 0.02 keeps it, 0.005 drops it.
	if cs := decode(t, mustRun(t, "", append(args, "-edges", "45", "-edge-depth", "0.02")...)); len(cs) != 1 {
		t.Errorf("-edge-depth 0.02: %+v, want the contact", cs)
	}
	if cs := decode(t, mustRun(t, "", append(args, "-edges", "45", "-edge-depth", "0.005")...)); len(cs) != 0 {
		t.Errorf("-edge-depth 0.005: %+v, want none (the crossing is 0.01 deep)", cs)
	}
	for _, bad := range []string{"-0.1", "NaN", "+Inf"} {
		if code, _, errOut := runArgs(t, "", append(args, "-edges", "45", "-edge-depth", bad)...); code != exitUsage || !strings.Contains(errOut, "-edge-depth") {
			t.Errorf("-edge-depth %s: exit %d, stderr %q", bad, code, errOut)
		}
	}
	// -edge-faces adds each cube's edge through the other (a's edge
	// along y dips into b under its top edge, b's along x into a), after
	// the edge-on-edge contact: "edge" set, "other_edge" not, the
	// primitive entered, no deeper than the crossing.
	cs = decode(t, mustRun(t, "", append(args, "-edges", "45", "-edge-faces")...))
	if len(cs) != 3 || cs[0].OtherEdge == nil {
		t.Fatalf("-edge-faces: %+v, want the edge-on-edge contact and two edge-through-face ones", cs)
	}
	for k, c := range cs[1:] {
		if want := []string{"a", "b"}[k]; c.From != want || c.Vertex != -1 || c.Prim < 0 || c.Edge == nil || c.OtherEdge != nil || !(c.Depth > 0 && c.Depth <= depth) {
			t.Errorf("-edge-faces contact %d: %+v, want an edge of %s through a primitive, depth in (0, %v]", k+1, c, want, depth)
		}
	}
	if d := edgeDir(cs[1].Edge, cube); d[0] != 0 || d[2] != 0 {
		t.Errorf("-edge-faces: edge %v of a runs along %v, want y", *cs[1].Edge, d)
	}
	if code, _, errOut := runArgs(t, "", append(args, "-edge-faces")...); code != exitUsage || !strings.Contains(errOut, "-edge-faces") {
		t.Errorf("-edge-faces without -edges: exit %d, stderr %q", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"version"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok {
			t.Fatalf("line %q is not \"key: value\"", line)
		}
		got[k] = v
	}
	want := map[string]string{
		"go":                  runtime.Version(),
		"fuses multiply-adds": fmt.Sprint(narrow.FusesMultiplyAdd()),
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	if tg := got["target"]; !strings.HasPrefix(tg, runtime.GOOS+"/"+runtime.GOARCH) {
		t.Errorf("target %q, want %s/%s first", tg, runtime.GOOS, runtime.GOARCH)
	}
	for _, k := range []string{"module", "commit", "gcflags"} {
		if got[k] == "" {
			t.Errorf("no %s line in %q", k, out.String())
		}
	}
	for _, args := range [][]string{{"version", "x"}, {"version", "-bogus"}} {
		errb.Reset()
		if code := run(args, nil, &out, &errb); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}
