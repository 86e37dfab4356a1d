package main

import (
	"errors"
	"flag"
	"io"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

const castDoc = `usage: irtcd cast -a FILE -b FILE (-motion "x y z" | -to POSE) [-pose-a POSE] [-pose-b POSE] [flags]

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

With -to POSE instead of -motion, body a moves from its pose to POSE,
turning at constant angular velocity on the way (narrow.CastMotion:
conservative advancement, exact to within -tol); "distance" is then the
part of the translation covered.

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
	bodies := addTwoBodies(fs, "the moving body a")
	motion := fs.String("motion", "", "the translation of body a: \"`x y z`\"")
	turnTo := fs.String("to", "", "instead of -motion, the `POSE` body a moves and turns to (narrow.CastMotion)")
	tol := fs.Float64("tol", 1e-4, "with -to, how near a touch is (the cast stops that far from b)")
	fail := failer(stderr, "cast")
	if err := parseFlags(fs, args, stderr, func() string { return castDoc }); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitUsage
		}
		return fail(exitUsage, "%v", err)
	}
	if err := bodies.missing("cast"); err != nil {
		return fail(exitUsage, "%v", err)
	}
	if (*motion == "") == (*turnTo == "") {
		return fail(exitUsage, "need -motion \"x y z\" or -to POSE, not both")
	}
	var m mgl64.Vec3
	var to narrow.Pose
	var err error
	if *motion != "" {
		if err := parseNumbers(*motion, []string{"x", "y", "z"}, m[:]); err != nil {
			return fail(exitUsage, "-motion: %v", err)
		}
	} else if to, err = parsePoseString(*turnTo); err != nil {
		return fail(exitUsage, "-to: %v", err)
	}
	a, b, pa, pb, err := bodies.load()
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	var c narrow.Cast
	var hit bool
	if *motion != "" {
		c, hit, err = narrow.CastShape(a, b, pa, pb, m)
	} else {
		m = to.Pos.Sub(pa.Pos)
		c, hit, err = narrow.CastMotion(a, b, pa, to, pb, *tol)
	}
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
	return writeJSONLine(stdout, fail, out)
}
