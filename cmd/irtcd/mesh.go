package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/narrow/gltfmesh" // also teaches narrow.LoadMesh .gltf and .glb
)

const meshDoc = `usage: irtcd mesh [-weld [-weld-within D] | -hull] [-o OUT.stl|OUT.glb] FILE...

Checks mesh files as irtcd reads them (closed, consistently oriented
2-manifold triangle meshes): Wavefront OBJ (.obj, faces fan-triangulated),
STL (.stl, ASCII or binary, corners at equal coordinates welded into one
vertex), PLY (.ply, ASCII or binary, faces fan-triangulated) and glTF 2.0
(.gltf, .glb: the triangles of the default scene placed by its nodes,
equal positions welded; narrow/gltfmesh). It prints
one JSON object per good file, one per line:

  {"file":"bunny.obj","vertices":453,"triangles":902,"components":1,"min":[x,y,z],"max":[x,y,z],
   "size":s,"volume":v,"centroid":[x,y,z],"avg_triangle":a,"thickness":t,
   "edges":n,"edges_over_60":n,"bvh_nodes":n,"bvh_depth":d,
   "displacement_threshold":s}

"components" counts the closed surfaces the mesh is made of (two for two
separate parts); "size" is half the bounding box's diagonal, the scale
from which irtcd derives its per-pair defaults ("displacement_threshold" is the default
Params.DisplacementThreshold of a pair of two such shapes, 0.05 × size);
"volume" and "centroid" those of the solid; "avg_triangle" the mean
triangle size that sets the iterative walks' maxIt (Eq. 1); "thickness"
the shortest way a vertex's inward ray goes before it leaves the solid (how
thin it is at its vertices); "edges" the
convex edges (narrow.Shape.Edge), "edges_over_60" those bent by more than
60 degrees, which edge-on-edge contacts test with -edges 60. A file that
irtcd refuses is reported on standard error, naming the file, line and
element at fault; the others are still checked. Exit status 2 if any file
was refused.

With -weld, the vertices at exactly equal coordinates are merged first
(narrow.Weld), as for files written one vertex per triangle corner or
split at texture seams, which are otherwise refused with open boundaries;
errors then name the welded mesh's vertices and triangles, without lines.
With -weld-within D as well, a vertex within distance D of an earlier kept
vertex joins it (narrow.WeldWithin), for files whose corners differ in
their last bits, and triangles collapsed by the merge (slivers thinner
than D) are dropped.
With -hull, the file's vertices are read (its faces need not make a
closed mesh) and their convex hull (narrow.NewConvexHull) is checked
instead: a convex stand-in for a mesh too detailed or too broken to
collide as it is. With -o, the one FILE's shape (welded, or its hull) is
also written to OUT.stl as binary STL or to OUT.glb as binary glTF.
`

// meshJSON is one line of irtcd mesh's output.
type meshJSON struct {
	File                  string     `json:"file"`
	Vertices              int        `json:"vertices"`
	Triangles             int        `json:"triangles"`
	Components            int        `json:"components"`
	Min                   [3]float64 `json:"min"`
	Max                   [3]float64 `json:"max"`
	Size                  float64    `json:"size"`
	Volume                float64    `json:"volume"`
	Centroid              [3]float64 `json:"centroid"`
	AvgTriangle           float64    `json:"avg_triangle"`
	Thickness             float64    `json:"thickness"`
	Edges                 int        `json:"edges"`
	EdgesOver60           int        `json:"edges_over_60"`
	BVHNodes              int        `json:"bvh_nodes"`
	BVHDepth              int        `json:"bvh_depth"`
	DisplacementThreshold float64    `json:"displacement_threshold"`
}

// shapeFrom says how loadShape builds a shape from a file.
type shapeFrom int

const (
	asIs   shapeFrom = iota // the file's mesh (narrow.LoadMesh)
	welded                  // its vertices welded first (narrow.Weld)
	asHull                  // the convex hull of its vertices
)

// loadShape reads the mesh file at path and builds its shape as how says;
// welded merges the vertices within tol of each other (narrow.WeldWithin;
// 0: at equal coordinates).
func loadShape(path string, how shapeFrom, tol float64) (*narrow.Shape, error) {
	if how == asIs {
		return narrow.LoadMesh(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	verts, tris, err := narrow.ParseMesh(f, path)
	if err != nil {
		return nil, err
	}
	if how == asHull {
		s, err := narrow.NewConvexHull(verts)
		if err != nil {
			return nil, fmt.Errorf("%s (hull): %w", path, err)
		}
		return s, nil
	}
	verts, tris, _, err = narrow.WeldWithin(verts, tris, tol)
	if err != nil {
		return nil, err
	}
	s, err := narrow.NewMesh(verts, tris)
	if err != nil {
		return nil, fmt.Errorf("%s (welded): %w", path, err)
	}
	return s, nil
}

// writeShape writes s to path as binary STL or, for a .glb path, as
// binary glTF.
func writeShape(path string, s *narrow.Shape) error {
	write := narrow.WriteSTL
	if strings.EqualFold(filepath.Ext(path), ".glb") {
		write = gltfmesh.Write
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// runMesh is the mesh subcommand.
func runMesh(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mesh", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	weld := fs.Bool("weld", false, "merge the vertices at equal coordinates first")
	within := fs.Float64("weld-within", 0, "with -weld, merge the vertices within this `distance` of an earlier one\n(narrow.WeldWithin; 0: at equal coordinates only)")
	hull := fs.Bool("hull", false, "check the convex hull of the file's vertices instead")
	out := fs.String("o", "", "also write the shape to `OUT.stl` or OUT.glb (one FILE only)")
	usage := func(msg string) int {
		fmt.Fprintf(stderr, "irtcd mesh: %s (run 'irtcd mesh -h' for usage)\n", msg)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stderr, meshDoc)
			return exitUsage
		}
		return usage(oneLine(err.Error()))
	}
	switch {
	case fs.NArg() == 0:
		return usage("need at least one mesh file (.obj, .stl, .ply, .gltf or .glb)")
	case *weld && *hull:
		return usage("-weld and -hull exclude each other")
	case *within != 0 && !*weld:
		return usage("-weld-within needs -weld")
	case !(*within >= 0) || math.IsInf(*within, 0):
		return usage(fmt.Sprintf("-weld-within %v: want a distance ≥ 0", *within))
	case *out != "" && (fs.NArg() != 1 || !slices.ContainsFunc([]string{".stl", ".glb"}, func(ext string) bool { return strings.EqualFold(filepath.Ext(*out), ext) })):
		return usage("-o writes one FILE's shape to a .stl or .glb file")
	}
	how := asIs
	if *weld {
		how = welded
	} else if *hull {
		how = asHull
	}
	enc := json.NewEncoder(stdout)
	status := exitOK
	for _, path := range fs.Args() {
		s, err := loadShape(path, how, *within)
		if err != nil {
			fmt.Fprintf(stderr, "irtcd mesh: %s\n", oneLine(err.Error()))
			status = exitUsage
			continue
		}
		if *out != "" {
			if err := writeShape(*out, s); err != nil {
				fmt.Fprintf(stderr, "irtcd mesh: -o: %s\n", oneLine(err.Error()))
				return exitFail
			}
		}
		m, err := describeMesh(path, s)
		if err != nil {
			fmt.Fprintf(stderr, "irtcd mesh: %s: %s\n", path, oneLine(err.Error()))
			status = exitUsage
			continue
		}
		if err := enc.Encode(m); err != nil {
			fmt.Fprintf(stderr, "irtcd mesh: write output: %s\n", oneLine(err.Error()))
			return exitFail
		}
	}
	return status
}

// describeMesh returns the mesh's line of output.
func describeMesh(path string, s *narrow.Shape) (meshJSON, error) {
	mp, err := s.MassProps(1)
	if err != nil {
		return meshJSON{}, err
	}
	p := narrow.Params{}.Resolve(s, s)
	b := s.Bounds()
	return meshJSON{
		File: path, Vertices: s.NumVertices(), Triangles: s.NumPrims(), Components: s.NumComponents(),
		Min: b.Min, Max: b.Max, Size: s.Size(),
		Volume: mp.Mass, Centroid: mp.Centroid,
		AvgTriangle: s.AvgPrimSize(), Thickness: s.Thickness(),
		Edges: s.NumEdges(), EdgesOver60: s.SharpEdges(math.Pi / 3),
		BVHNodes: s.BVHNodes(), BVHDepth: s.BVHDepth(),
		DisplacementThreshold: p.DisplacementThreshold,
	}, nil
}
