package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

const contactsDoc = `usage: irtcd contacts -a FILE -b FILE [-pose-a POSE] [-pose-b POSE] [flags]
       irtcd contacts -cases FILE [flags]

Computes the contacts of two closed triangle meshes read from Wavefront OBJ,
STL, PLY or glTF files (.obj, .stl, .ply, .gltf, .glb) and prints them as
one JSON object followed by a newline:

  {"contacts":[{"from":"a","vertex":12,"prim":345,"p":[x,y,z],"depth":d,"dir":[x,y,z]}]}

A contact comes from vertex "vertex" of body "from" ("a" or "b") whose ray hit
primitive "prim" of the other body. "p" is the world position of that vertex,
and moving the "from" body by depth·dir brings p onto the other body's
surface. In an OBJ or PLY file, vertex indices follow the file's vertices
and primitive indices its faces after fan triangulation; in an STL file,
primitives are its facets and vertices its distinct points in order of
first appearance; in a glTF file, primitives are the triangles of its
scene in node order and vertices its distinct positions in order of first
appearance; all from 0. Contacts are sorted by "from"
("a" first) then "vertex"; no contact prints {"contacts":[]}. With
-speculative (and -method predictive) a negative depth is a speculative
contact: p lies outside the other body, and moving the "from" body by
depth·dir (against dir) brings it onto the surface its opposite ray enters.
With -edges, edge-on-edge contacts follow the vertex contacts: "edge" (two
vertex indices) of body "from" crosses "other_edge" of the other body,
"vertex" and "prim" are -1, p is the point of "edge" deepest inside the other
body, and moving "from" by depth·dir brings p onto "other_edge".

A POSE is "tx ty tz qw qx qy qz": world = R(q)·local + t, applied to the
coordinates exactly as they stand in the file (no re-centring). A non-unit
quaternion is normalised; a zero or non-finite one is an error.

With -cases FILE ("-" for standard input) each non-blank line of FILE is one
JSON case, {"a":"path","b":"path","pose_a":[7 numbers],"pose_b":[7 numbers]}
(poses default to the identity, other fields are ignored, paths are relative
to the working directory), and one output line is printed per case, in order.
Every case is an independent query: no temporal state carries from one case
to the next, whatever -method says. Each file is parsed once per run. The
run stops at the first bad case with exit status 2, after printing the
outputs of the cases before it.

Errors print one line on standard error and exit with status 2.

flags:
`

// identityPose is the default of -pose-a and -pose-b.
const identityPose = "0 0 0 1 0 0 0"

// contactJSON is one contact of the output.
type contactJSON struct {
	From   string     `json:"from"`
	Vertex int32      `json:"vertex"`
	Prim   int32      `json:"prim"`
	P      [3]float64 `json:"p"`
	Depth  float64    `json:"depth"`
	Dir    [3]float64 `json:"dir"`
	// An edge-on-edge contact (-edges) gives the two edges by their
	// vertices: "edge" of body "from", crossing "other_edge" of the other.
	// An edge-through-face contact (-edge-faces) gives "edge" and the
	// primitive "prim" of the other body it enters.
	Edge      *[2]int32 `json:"edge,omitempty"`
	OtherEdge *[2]int32 `json:"other_edge,omitempty"`
}

// outputJSON is the output of one query.
type outputJSON struct {
	Contacts []contactJSON `json:"contacts"`
}

// caseJSON is one line of a -cases file. Pointers and raw messages tell a
// missing field from an empty one.
type caseJSON struct {
	A     *string         `json:"a"`
	B     *string         `json:"b"`
	PoseA json.RawMessage `json:"pose_a"`
	PoseB json.RawMessage `json:"pose_b"`
}

// inputError is bad input: it exits with status 2. Other errors exit 1.
type inputError struct{ err error }

// Error implements error.
func (e *inputError) Error() string { return e.err.Error() }

// Unwrap returns the cause.
func (e *inputError) Unwrap() error { return e.err }

// badInput returns an *inputError with a formatted message (%w allowed).
func badInput(format string, args ...any) error {
	return &inputError{fmt.Errorf(format, args...)}
}

// runContacts is the contacts subcommand.
func runContacts(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("contacts", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported below, in one line
	fileA := fs.String("a", "", "mesh `FILE` of body a (.obj, .stl, .ply, .gltf or .glb)")
	fileB := fs.String("b", "", "mesh `FILE` of body b (.obj, .stl, .ply, .gltf or .glb)")
	poseA := fs.String("pose-a", identityPose, "`POSE` of body a: \"tx ty tz qw qx qy qz\"")
	poseB := fs.String("pose-b", identityPose, "`POSE` of body b: \"tx ty tz qw qx qy qz\"")
	method := fs.String("method", "standard", "`algorithm`: standard, iterative or predictive. A single query has no\n"+
		"previous step, so standard (Hermann et al.'s ray-traced detection at every step)\n"+
		"is the exact algorithm for it; iterative and predictive only differ from it over\n"+
		"a sequence of steps, and every case of -cases is a separate query")
	traversal := fs.String("traversal", "bvh", "ray `traversal`: bvh or basic (every primitive)")
	response := fs.String("response", "mtd", "contact `response`: mtd (re-projection on the hit normal), ray (raw ray)\nor weighted (ray depth times the cosine to the hit normal)")
	casesFile := fs.String("cases", "", "read JSON cases, one per line, from `FILE` (- for standard input)")
	edges := fs.Float64("edges", 0, "edge-on-edge contacts between the convex edges bent by more than this `angle`\n"+
		"(degrees, between the two faces' normals; 0: none, as vertex rays alone); a box's\n"+
		"edges bend by 90")
	edgeDepth := fs.Float64("edge-depth", 0, "with -edges, the deepest edge-on-edge contact, a `distance` (narrow.Params.EdgeDepth;\n"+
		"0: a quarter of the smaller shape's size); deeper crossings are left to the vertex rays")
	edgeFaces := fs.Bool("edge-faces", false, "with -edges, also edge-through-face contacts: each convex edge bent by more than\n"+
		"the angle that passes through the other body with both ends outside (narrow.Params.EdgeFaces)")
	weld := fs.Bool("weld", false, "merge each mesh's vertices at equal coordinates first (narrow.Weld;\nvertex indices are then the welded mesh's)")
	within := fs.Float64("weld-within", 0, "with -weld, merge the vertices within this `distance` of an earlier one\n(narrow.WeldWithin; triangles that collapse are dropped)")
	speculative := fs.Bool("speculative", false, "with -method predictive, also print the predictions as speculative\ncontacts: depth < 0 is minus the gap to the surface the vertex's opposite ray enters")

	fail := func(err error) int {
		fmt.Fprintf(stderr, "irtcd contacts: %s\n", oneLine(err.Error()))
		var ie *inputError
		if errors.As(err, &ie) {
			return exitUsage
		}
		return exitFail
	}

	if err := parseFlags(fs, args, stderr, func() string { return contactsDoc }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitUsage
		}
		return fail(&inputError{err})
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	var p narrow.Params
	var err error
	if p.Method, err = narrow.ParseMethod(*method); err != nil {
		return fail(badInput("-method: %w", err))
	}
	if p.Traversal, err = narrow.ParseTraversal(*traversal); err != nil {
		return fail(badInput("-traversal: %w", err))
	}
	if p.Response, err = narrow.ParseResponse(*response); err != nil {
		return fail(badInput("-response: %w", err))
	}
	switch {
	case *within != 0 && !*weld:
		return fail(badInput("-weld-within needs -weld"))
	case !(*within >= 0) || math.IsInf(*within, 0):
		return fail(badInput("-weld-within %v: want a distance ≥ 0", *within))
	}
	if *edges < 0 || *edges >= 180 || math.IsNaN(*edges) {
		return fail(badInput("-edges %v: want an angle in [0, 180) degrees", *edges))
	}
	p.EdgeAngle = *edges * math.Pi / 180
	if !(*edgeDepth >= 0) || math.IsInf(*edgeDepth, 0) {
		return fail(badInput("-edge-depth %v: want a distance ≥ 0", *edgeDepth))
	}
	p.EdgeDepth = *edgeDepth
	if p.EdgeFaces = *edgeFaces; p.EdgeFaces && p.EdgeAngle == 0 {
		return fail(badInput("-edge-faces needs -edges"))
	}
	if p.Speculative = *speculative; p.Speculative && p.Method != narrow.MethodPredictive {
		return fail(badInput("-speculative needs -method predictive"))
	}

	if set["cases"] {
		for _, name := range []string{"a", "b", "pose-a", "pose-b"} {
			if set[name] {
				return fail(badInput("-cases cannot be combined with -%s", name))
			}
		}
		if *casesFile == "" {
			return fail(badInput("-cases: empty file name"))
		}
	} else {
		switch {
		case *fileA == "" && *fileB == "":
			return fail(badInput("need -a FILE and -b FILE, or -cases FILE (run 'irtcd contacts -h' for usage)"))
		case *fileA == "":
			return fail(badInput("need -a FILE"))
		case *fileB == "":
			return fail(badInput("need -b FILE"))
		}
	}

	d, err := newDetector(p)
	if err != nil {
		return fail(err)
	}
	defer d.close()
	if *weld {
		d.how, d.tol = welded, *within
	}

	if set["cases"] {
		return d.runCases(*casesFile, stdin, stdout, fail)
	}

	pa, err := parsePoseString(*poseA)
	if err != nil {
		return fail(badInput("-pose-a: %w", err))
	}
	pb, err := parsePoseString(*poseB)
	if err != nil {
		return fail(badInput("-pose-b: %w", err))
	}
	ia, err := d.shape(*fileA)
	if err != nil {
		return fail(badInput("-a: %w", err))
	}
	ib, err := d.shape(*fileB)
	if err != nil {
		return fail(badInput("-b: %w", err))
	}
	out, err := d.detect(ia, ib, pa, pb)
	if err != nil {
		return fail(err)
	}
	if _, err := stdout.Write(out); err != nil {
		return fail(fmt.Errorf("write output: %w", err))
	}
	return exitOK
}

// runCases runs the queries of a -cases file and writes one output line per
// case. It stops at the first bad case.
func (d *detector) runCases(name string, stdin io.Reader, stdout io.Writer, fail func(error) int) int {
	var r io.Reader
	label := name
	if name == "-" {
		r, label = stdin, "<stdin>"
	} else {
		f, err := os.Open(name)
		if err != nil {
			return fail(badInput("-cases: %w", err))
		}
		defer f.Close()
		r = f
	}

	w := bufio.NewWriter(stdout)
	// flushFail writes the outputs of the earlier cases before reporting err.
	flushFail := func(err error) int {
		if ferr := w.Flush(); ferr != nil {
			fail(fmt.Errorf("write output: %w", ferr))
		}
		return fail(err)
	}

	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxCaseLine)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		out, err := d.runCase(text)
		if err != nil {
			var ie *inputError
			if errors.As(err, &ie) {
				return flushFail(badInput("%s:%d: %w", label, line, err))
			}
			return flushFail(fmt.Errorf("%s:%d: %w", label, line, err))
		}
		if _, err := w.Write(out); err != nil {
			return fail(fmt.Errorf("write output: %w", err))
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return flushFail(badInput("%s:%d: line longer than %d bytes", label, line+1, maxCaseLine))
		}
		return flushFail(badInput("%s: read: %w", label, err))
	}
	if err := w.Flush(); err != nil {
		return fail(fmt.Errorf("write output: %w", err))
	}
	return exitOK
}

// maxCaseLine is the longest line a -cases file may hold.
const maxCaseLine = 16 << 20

// runCase runs one case line and returns its output.
func (d *detector) runCase(text []byte) ([]byte, error) {
	if text[0] != '{' {
		return nil, badInput("want a JSON object, got %s", clip(string(text)))
	}
	var c caseJSON
	if err := json.Unmarshal(text, &c); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, badInput("%s: want a %s, got a JSON %s", te.Field, te.Type, te.Value)
		}
		return nil, badInput("invalid JSON: %w", err)
	}
	switch {
	case c.A == nil:
		return nil, badInput(`missing "a"`)
	case c.B == nil:
		return nil, badInput(`missing "b"`)
	case *c.A == "":
		return nil, badInput(`"a": empty path`)
	case *c.B == "":
		return nil, badInput(`"b": empty path`)
	}
	pa, err := parsePoseJSON(c.PoseA)
	if err != nil {
		return nil, badInput("pose_a: %w", err)
	}
	pb, err := parsePoseJSON(c.PoseB)
	if err != nil {
		return nil, badInput("pose_b: %w", err)
	}
	ia, err := d.shape(*c.A)
	if err != nil {
		return nil, badInput("a: %w", err)
	}
	ib, err := d.shape(*c.B)
	if err != nil {
		return nil, badInput("b: %w", err)
	}
	return d.detect(ia, ib, pa, pb)
}

// detector holds the backend of a run and the shapes registered with it.
type detector struct {
	how    shapeFrom // asIs, or welded with -weld
	tol    float64   // -weld-within
	be     *cpubackend.Backend
	shapes map[string]narrow.ShapeID // by cleaned path
	res    narrow.Result
	nextID uint64
}

func newDetector(p narrow.Params) (*detector, error) {
	be, err := cpubackend.New(p)
	if err != nil {
		return nil, badInput("%w", err)
	}
	return &detector{be: be, shapes: make(map[string]narrow.ShapeID)}, nil
}

func (d *detector) close() { d.be.Close() }

// shape loads the mesh file at path, once per run, and registers it.
func (d *detector) shape(path string) (narrow.ShapeID, error) {
	key := filepath.Clean(path)
	if id, ok := d.shapes[key]; ok {
		return id, nil
	}
	s, err := loadShape(path, d.how, d.tol)
	if err != nil {
		return -1, err
	}
	id, err := d.be.RegisterShape(s)
	if err != nil {
		return -1, fmt.Errorf("register %s: %w", path, err)
	}
	d.shapes[key] = id
	return id, nil
}

// detect runs one independent query and returns its JSON output line.
// Every query gets a fresh pair ID and the temporal state is reset, so with
// any method it is a standard step.
func (d *detector) detect(a, b narrow.ShapeID, pa, pb narrow.Pose) ([]byte, error) {
	d.nextID++
	d.be.Reset()
	pair := narrow.Pair{ID: d.nextID, A: a, B: b, PoseA: pa, PoseB: pb}
	if err := d.be.Detect(context.Background(), []narrow.Pair{pair}, &d.res); err != nil {
		return nil, fmt.Errorf("detect: %w", err)
	}
	if len(d.res.Pairs) != 1 {
		return nil, fmt.Errorf("detect: backend returned %d results for 1 pair", len(d.res.Pairs))
	}
	pr := &d.res.Pairs[0]
	if pr.Err != nil {
		return nil, badInput("%w", pr.Err)
	}
	out := outputJSON{Contacts: make([]contactJSON, 0, len(pr.Contacts))}
	var edges []contactJSON
	for _, c := range pr.Contacts {
		cj := contactJSON{
			From:   c.From.String(),
			Vertex: c.Vertex,
			Prim:   c.Prim,
			P:      c.P,
			Depth:  c.Depth,
			Dir:    c.Dir,
		}
		if c.Feature == narrow.FeatureEdge {
			from, other := d.be.Shape(a), d.be.Shape(b)
			if c.From == narrow.SideB {
				from, other = other, from
			}
			e, f := from.Edge(int(c.Vertex)).V, other.Edge(int(c.Prim)).V
			cj.Vertex, cj.Prim, cj.Edge, cj.OtherEdge = -1, -1, &e, &f
			edges = append(edges, cj)
			continue
		}
		if c.Feature == narrow.FeatureEdgeFace {
			from := d.be.Shape(a)
			if c.From == narrow.SideB {
				from = d.be.Shape(b)
			}
			e := from.Edge(int(c.Vertex)).V
			cj.Vertex, cj.Edge = -1, &e
			edges = append(edges, cj)
			continue
		}
		out.Contacts = append(out.Contacts, cj)
	}
	slices.SortStableFunc(out.Contacts, func(x, y contactJSON) int {
		return cmp.Or(cmp.Compare(x.From, y.From), cmp.Compare(x.Vertex, y.Vertex))
	})
	out.Contacts = append(out.Contacts, edges...)
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(&out); err != nil {
		return nil, fmt.Errorf("encode output: %w", err)
	}
	return buf.Bytes(), nil
}

// poseNames names the seven components of a pose, for error messages.
var poseNames = [7]string{"tx", "ty", "tz", "qw", "qx", "qy", "qz"}

// parsePoseString parses "tx ty tz qw qx qy qz".
func parsePoseString(s string) (narrow.Pose, error) {
	var v [7]float64
	if err := parseNumbers(s, poseNames[:], v[:]); err != nil {
		return narrow.Pose{}, err
	}
	return newPose(v)
}

// parseNumbers parses len(names) finite numbers separated by spaces into
// dst; an error names the number that is wrong.
func parseNumbers(s string, names []string, dst []float64) error {
	f := strings.Fields(s)
	if len(f) != len(names) {
		return fmt.Errorf("want %d numbers \"%s\", got %d", len(names), strings.Join(names, " "), len(f))
	}
	for i, tok := range f {
		x, err := strconv.ParseFloat(tok, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("%s: bad number %s", names[i], shorten(tok))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: %s is not a finite number", names[i], shorten(tok))
		}
		dst[i] = x
	}
	return nil
}

// parsePoseJSON parses a JSON array of 7 numbers; a missing or null pose is
// the identity.
func parsePoseJSON(raw json.RawMessage) (narrow.Pose, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return narrow.Identity, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return narrow.Pose{}, fmt.Errorf("want an array of 7 numbers, got %s", clip(string(raw)))
	}
	if len(elems) != 7 {
		return narrow.Pose{}, fmt.Errorf("want 7 numbers, got %d", len(elems))
	}
	var v [7]float64
	for i, e := range elems {
		tok := string(bytes.TrimSpace(e))
		if tok == "" || !(tok[0] == '-' || tok[0] >= '0' && tok[0] <= '9') {
			return narrow.Pose{}, fmt.Errorf("%s (element %d): want a number, got %s", poseNames[i], i, clip(tok))
		}
		x, err := strconv.ParseFloat(tok, 64)
		if err != nil || math.IsInf(x, 0) {
			return narrow.Pose{}, fmt.Errorf("%s (element %d): %s is not a finite number", poseNames[i], i, clip(tok))
		}
		v[i] = x
	}
	return newPose(v)
}

// newPose validates and normalises a pose with narrow.NewPose.
func newPose(v [7]float64) (narrow.Pose, error) {
	return narrow.NewPose(mgl64.Vec3{v[0], v[1], v[2]}, mgl64.Quat{W: v[3], V: mgl64.Vec3{v[4], v[5], v[6]}})
}

// shorten quotes s for an error message, cutting long strings.
func shorten(s string) string {
	const maxLen = 40
	if len(s) > maxLen {
		return strconv.Quote(s[:maxLen]) + "..."
	}
	return strconv.Quote(s)
}

// clip cuts a JSON text for an error message, keeping it as it is written.
func clip(s string) string {
	const maxLen = 40
	if len(s) <= maxLen {
		return s
	}
	n := maxLen
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// oneLine keeps a diagnostic on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}
