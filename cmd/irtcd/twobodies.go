package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/irtcd/irtcd/narrow"
)

// twoBodies are the flags of the subcommands that take two meshes at two
// poses (cast, distance): -a, -b, -pose-a, -pose-b and -weld.
type twoBodies struct {
	fileA, fileB, poseA, poseB *string
	weld                       *bool
}

// addTwoBodies registers the flags on fs; whatA says what body a is for.
func addTwoBodies(fs *flag.FlagSet, whatA string) *twoBodies {
	return &twoBodies{
		fileA: fs.String("a", "", "mesh `FILE` of "+whatA+" (.obj, .stl, .ply, .gltf or .glb)"),
		fileB: fs.String("b", "", "mesh `FILE` of body b"),
		poseA: fs.String("pose-a", identityPose, "`POSE` of body a: \"tx ty tz qw qx qy qz\""),
		poseB: fs.String("pose-b", identityPose, "`POSE` of body b"),
		weld:  fs.Bool("weld", false, "merge each mesh's vertices at equal coordinates first (narrow.Weld)"),
	}
}

// missing returns the usage error for absent files of subcommand cmd, or
// nil.
func (t *twoBodies) missing(cmd string) error {
	if *t.fileA == "" || *t.fileB == "" {
		return fmt.Errorf("need -a FILE and -b FILE (run 'irtcd %s -h' for usage)", cmd)
	}
	return nil
}

// load parses the poses and reads the meshes; an error names the flag.
func (t *twoBodies) load() (a, b *narrow.Shape, pa, pb narrow.Pose, err error) {
	if pa, err = parsePoseString(*t.poseA); err != nil {
		return nil, nil, pa, pb, fmt.Errorf("-pose-a: %w", err)
	}
	if pb, err = parsePoseString(*t.poseB); err != nil {
		return nil, nil, pa, pb, fmt.Errorf("-pose-b: %w", err)
	}
	how := asIs
	if *t.weld {
		how = welded
	}
	if a, err = loadShape(*t.fileA, how, 0); err != nil {
		return nil, nil, pa, pb, fmt.Errorf("-a: %w", err)
	}
	if b, err = loadShape(*t.fileB, how, 0); err != nil {
		return nil, nil, pa, pb, fmt.Errorf("-b: %w", err)
	}
	return a, b, pa, pb, nil
}

// writeJSONLine prints v as one line of JSON on stdout, and returns
// exitOK, or fail's code for exitFail.
func writeJSONLine(stdout io.Writer, fail func(code int, format string, a ...any) int, v any) int {
	data, err := json.Marshal(v)
	if err != nil {
		return fail(exitFail, "%v", err)
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", data); err != nil {
		return fail(exitFail, "write: %v", err)
	}
	return exitOK
}
