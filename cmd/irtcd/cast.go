package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

const castDoc = `usage: irtcd cast -a FILE -b FILE -motion "x y z" [-pose-a POSE] [-pose-b POSE] [flags]

Moves body a, a closed triangle mesh read from a Wavefront OBJ, STL, PLY or
glTF file, from its pose by a translation and finds where it first touches
body b (narrow.CastShape: every vertex's path traced both ways, and the
edges' swept quads, exactly); prints one JSON object and a newline:

  {"hit":true,"fraction":f,"distance":d,"point":[x,y,z],"normal":[x,y,z],"start":false}

"fraction" is the part of the motion a covers before it touches b,
"distance" that part's length, "point" where they touch and "normal" b's
outward unit normal there (world frame): the direction to slide along b or
push a away from it. Shapes that already overlap print "start":true and
fraction 0, without point or normal; a motion that touches nothing prints
{"hit":false}.

A POSE is "tx ty tz qw qx qy qz", as for irtcd contacts.

Errors print one line on standard error and exit with status 2.

flags:
`

// castJSON is the output of a cast.
type castJSON struct {
	Hit      bool        `json:"hit"`
	Fraction *float64    `json:"fraction,omitempty"`
	Distance *float64    `json:"distance,omitempty"`
	Point    *[3]float64 `json:"point,omitempty"`
	Normal   *[3]float64 `json:"normal,omitempty"`
	Start    *bool       `json:"start,omitempty"`
}

// runCast is the cast subcommand.
func runCast(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("cast", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fileA := fs.String("a", "", "mesh `FILE` of the moving body a (.obj, .stl, .ply, .gltf or .glb)")
	fileB := fs.String("b", "", "mesh `FILE` of body b")
	poseA := fs.String("pose-a", identityPose, "`POSE` of body a at the start: \"tx ty tz qw qx qy qz\"")
	poseB := fs.String("pose-b", identityPose, "`POSE` of body b")
	motion := fs.String("motion", "", "the translation of body a: \"`x y z`\"")
	weld := fs.Bool("weld", false, "merge each mesh's vertices at equal coordinates first (narrow.Weld)")
	fail := failer(stderr, "cast")
	if err := parseFlags(fs, args, stderr, func() string { return castDoc }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitUsage
		}
		return fail(exitUsage, "%v", err)
	}
	switch {
	case *fileA == "" || *fileB == "":
		return fail(exitUsage, "need -a FILE and -b FILE (run 'irtcd cast -h' for usage)")
	case *motion == "":
		return fail(exitUsage, "need -motion \"x y z\"")
	}
	var m mgl64.Vec3
	if err := parseNumbers(*motion, []string{"x", "y", "z"}, m[:]); err != nil {
		return fail(exitUsage, "-motion: %v", err)
	}
	pa, err := parsePoseString(*poseA)
	if err != nil {
		return fail(exitUsage, "-pose-a: %v", err)
	}
	pb, err := parsePoseString(*poseB)
	if err != nil {
		return fail(exitUsage, "-pose-b: %v", err)
	}
	how := asIs
	if *weld {
		how = welded
	}
	a, err := loadShape(*fileA, how, 0)
	if err != nil {
		return fail(exitUsage, "-a: %v", err)
	}
	b, err := loadShape(*fileB, how, 0)
	if err != nil {
		return fail(exitUsage, "-b: %v", err)
	}
	c, hit, err := narrow.CastShape(a, b, pa, pb, m)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	out := castJSON{Hit: hit}
	if hit {
		d := c.Fraction * m.Len()
		out.Fraction, out.Distance, out.Start = &c.Fraction, &d, &c.Start
		if !c.Start {
			p, n := [3]float64(c.Point), [3]float64(c.Normal)
			out.Point, out.Normal = &p, &n
		}
	}
	data, err := json.Marshal(out)
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", data); err != nil {
		return fail(exitFail, "write: %v", err)
	}
	return exitOK
}
