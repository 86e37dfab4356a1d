package main

import (
	"errors"
	"flag"
	"io"
	"math"
	"strconv"

	"github.com/irtcd/irtcd/narrow"
)

const distanceDoc = `usage: irtcd distance -a FILE -b FILE [-pose-a POSE] [-pose-b POSE] [-max D] [flags]

Finds how far apart bodies a and b are, closed triangle meshes read from
Wavefront OBJ, STL, PLY or glTF files, and their closest points
(narrow.Distance: exact, concave shapes included); prints one JSON object
and a newline:

  {"near":true,"distance":d,"a":[x,y,z],"b":[x,y,z],"prim_a":i,"prim_b":j,"overlap":false}

"a" and "b" are the points of a's and b's surfaces d apart (world frame),
on their triangles prim_a and prim_b (file order). Shapes that overlap
(their surfaces meet, or one holds the other) print "overlap":true and
distance 0, without points; shapes farther apart than -max print
{"near":false}.

A POSE is "tx ty tz qw qx qy qz", as for irtcd contacts.

Errors print one line on standard error and exit with status 2.

flags:
`

// distanceJSON is the output of distance.
type distanceJSON struct {
	Near     bool        `json:"near"`
	Distance *float64    `json:"distance,omitempty"`
	A        *[3]float64 `json:"a,omitempty"`
	B        *[3]float64 `json:"b,omitempty"`
	PrimA    *int32      `json:"prim_a,omitempty"`
	PrimB    *int32      `json:"prim_b,omitempty"`
	Overlap  *bool       `json:"overlap,omitempty"`
}

// runDistance is the distance subcommand.
func runDistance(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("distance", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	bodies := addTwoBodies(fs, "body a")
	maxDist := fs.String("max", "inf", "the largest distance of interest, `D` (\"inf\": any)")
	fail := failer(stderr, "distance")
	if err := parseFlags(fs, args, stderr, func() string { return distanceDoc }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitUsage
		}
		return fail(exitUsage, "%v", err)
	}
	if err := bodies.missing("distance"); err != nil {
		return fail(exitUsage, "%v", err)
	}
	limit, err := strconv.ParseFloat(*maxDist, 64)
	if err != nil || math.IsNaN(limit) || limit < 0 {
		return fail(exitUsage, "-max: %q is not a distance (a number ≥ 0, or inf)", *maxDist)
	}
	a, b, pa, pb, err := bodies.load()
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	c, near, err := narrow.Distance(a, b, pa, pb, limit)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	out := distanceJSON{Near: near}
	if near {
		out.Distance, out.Overlap = &c.Dist, &c.Overlap
		if !c.Overlap {
			pA, pB := [3]float64(c.PA), [3]float64(c.PB)
			out.A, out.B, out.PrimA, out.PrimB = &pA, &pB, &c.PrimA, &c.PrimB
		}
	}
	return writeJSONLine(stdout, fail, out)
}
