package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/irtcd/irtcd/narrow"
)

const meshDoc = `usage: irtcd mesh [-weld] FILE...

Checks mesh files as irtcd reads them (closed, consistently oriented
2-manifold triangle meshes): Wavefront OBJ (.obj, faces fan-triangulated),
STL (.stl, ASCII or binary, corners at equal coordinates welded into one
vertex) and PLY (.ply, ASCII or binary, faces fan-triangulated). It prints
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

// loadShape reads the mesh file at path (narrow.LoadMesh), welding its
// vertices first if weld is set.
func loadShape(path string, weld bool) (*narrow.Shape, error) {
	if !weld {
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
	verts, tris, _ = narrow.Weld(verts, tris)
	s, err := narrow.NewMesh(verts, tris)
	if err != nil {
		return nil, fmt.Errorf("%s (welded): %w", path, err)
	}
	return s, nil
}

// runMesh is the mesh subcommand.
func runMesh(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mesh", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	weld := fs.Bool("weld", false, "merge the vertices at equal coordinates first")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stderr, meshDoc)
			return exitUsage
		}
		fmt.Fprintf(stderr, "irtcd mesh: %s (run 'irtcd mesh -h' for usage)\n", oneLine(err.Error()))
		return exitUsage
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "irtcd mesh: need at least one mesh file (.obj, .stl or .ply) (run 'irtcd mesh -h' for usage)")
		return exitUsage
	}
	enc := json.NewEncoder(stdout)
	status := exitOK
	for _, path := range fs.Args() {
		s, err := loadShape(path, *weld)
		if err != nil {
			fmt.Fprintf(stderr, "irtcd mesh: %s\n", oneLine(err.Error()))
			status = exitUsage
			continue
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
