package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// TestCast: the unit cube (corner at the origin) dropped from y = 3 onto
// another touches it after 2 of its 4 m, on its top face (normal +y);
// moved sideways it touches the other's side face; moved away it touches
// nothing; started inside it reports start.
func TestCast(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name     string
		args     []string
		hit      bool
		start    bool
		fraction float64
		normal   [3]float64
		pointY   float64
	}{
		{"dropped", []string{"-pose-a", "0.2 3 0.1 1 0 0 0", "-motion", "0 -4 0"}, true, false, 0.5, [3]float64{0, 1, 0}, 1},
		{"sideways", []string{"-pose-a", "-3 0.5 0 1 0 0 0", "-motion", "4 0 0"}, true, false, 0.5, [3]float64{-1, 0, 0}, math.NaN()},
		{"moving away", []string{"-pose-a", "0 3 0 1 0 0 0", "-motion", "0 4 0"}, false, false, 0, [3]float64{}, 0},
		{"starting inside", []string{"-pose-a", "0.5 0.5 0.5 1 0 0 0", "-motion", "0 4 0"}, true, true, 0, [3]float64{}, 0},
	} {
		out := mustRun(t, "", append([]string{"cast", "-a", f.unit, "-b", f.unit}, tc.args...)...)
		var got castJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil || !strings.HasSuffix(out, "}\n") {
			t.Fatalf("%s: output %q: %v", tc.name, out, err)
		}
		if got.Hit != tc.hit {
			t.Errorf("%s: %s, want hit %v", tc.name, out, tc.hit)
			continue
		}
		if !tc.hit {
			if got.Fraction != nil || got.Point != nil {
				t.Errorf("%s: %s, want only hit false", tc.name, out)
			}
			continue
		}
		if got.Start == nil || *got.Start != tc.start || got.Fraction == nil || got.Distance == nil {
			t.Errorf("%s: %s, want start %v with a fraction and distance", tc.name, out, tc.start)
			continue
		}
		if tc.start {
			if *got.Fraction != 0 || got.Point != nil || got.Normal != nil {
				t.Errorf("%s: %s, want fraction 0 and no point or normal", tc.name, out)
			}
			continue
		}
		if math.Abs(*got.Fraction-tc.fraction) > 1e-12 || math.Abs(*got.Distance-4*tc.fraction) > 1e-12 || got.Normal == nil || *got.Normal != tc.normal ||
			!math.IsNaN(tc.pointY) && math.Abs(got.Point[1]-tc.pointY) > 1e-12 {
			t.Errorf("%s: %s, want fraction %v, normal %v, point y %v", tc.name, out, tc.fraction, tc.normal, tc.pointY)
		}
	}
}

// TestCastBadInput: bad flags, numbers and files exit with status 2 and
// one line naming what is wrong.
func TestCastBadInput(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-b", f.unit, "-motion", "0 1 0"}, "need -a FILE and -b FILE"},
		{[]string{"-a", f.unit, "-b", f.unit}, `need -motion "x y z"`},
		{[]string{"-a", f.unit, "-b", f.unit, "-motion", "0 1"}, `-motion: want 3 numbers "x y z", got 2`},
		{[]string{"-a", f.unit, "-b", f.unit, "-motion", "0 NaN 1"}, `-motion: y: "NaN" is not a finite number`},
		{[]string{"-a", f.unit, "-b", f.unit, "-motion", "0 1 0", "-pose-a", "0 0 0 0 0 0 0"}, "-pose-a:"},
		{[]string{"-a", f.badSyntax, "-b", f.unit, "-motion", "0 1 0"}, "-a: " + f.badSyntax},
		{[]string{"-a", f.unit, "-b", filepath.Join(f.dir, "missing.obj"), "-motion", "0 1 0"}, "-b: "},
		{[]string{"-a", f.unit, "-b", f.unit, "-motion", "0 1 0", "extra"}, `unexpected argument "extra"`},
	} {
		code, stdout, stderr := runArgs(t, "", append([]string{"cast"}, tc.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestDistance: two unit cubes (corners at the origin) 3 apart along x
// are 2 apart, between a's face x = 1 and b's face x = 3; within -max 1
// they are not near; moved into each other they overlap.
func TestDistance(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name    string
		args    []string
		near    bool
		overlap bool
		dist    float64
	}{
		{"apart", []string{"-pose-b", "3 0 0 1 0 0 0"}, true, false, 2},
		{"apart, within 2", []string{"-pose-b", "3 0 0 1 0 0 0", "-max", "2"}, true, false, 2},
		{"farther than -max", []string{"-pose-b", "3 0 0 1 0 0 0", "-max", "1"}, false, false, 0},
		{"overlapping", []string{"-pose-b", "0.5 0.5 0 1 0 0 0"}, true, true, 0},
	} {
		out := mustRun(t, "", append([]string{"distance", "-a", f.unit, "-b", f.unit}, tc.args...)...)
		var got distanceJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil || !strings.HasSuffix(out, "}\n") {
			t.Fatalf("%s: output %q: %v", tc.name, out, err)
		}
		switch {
		case got.Near != tc.near:
			t.Errorf("%s: %s, want near %v", tc.name, out, tc.near)
		case !tc.near:
			if got.Distance != nil {
				t.Errorf("%s: %s, want only near false", tc.name, out)
			}
		case got.Overlap == nil || *got.Overlap != tc.overlap || got.Distance == nil || *got.Distance != tc.dist:
			t.Errorf("%s: %s, want overlap %v at distance %v", tc.name, out, tc.overlap, tc.dist)
		case tc.overlap:
			if got.A != nil || got.PrimA != nil {
				t.Errorf("%s: %s, want no points", tc.name, out)
			}
		case got.A == nil || got.B == nil || got.PrimA == nil || got.A[0] != 1 || got.B[0] != 3:
			t.Errorf("%s: %s, want points on x = 1 and x = 3", tc.name, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-a", f.unit}, "need -a FILE and -b FILE (run 'irtcd distance -h' for usage)"},
		{[]string{"-a", f.unit, "-b", f.unit, "-max", "-1"}, `-max: "-1" is not a distance`},
		{[]string{"-a", f.unit, "-b", f.unit, "-max", "NaN"}, `-max: "NaN" is not a distance`},
		{[]string{"-a", f.unit, "-b", f.unit, "-pose-b", "0 0 0 0 0 0 0"}, "-pose-b:"},
		{[]string{"-a", f.badSyntax, "-b", f.unit}, "-a: " + f.badSyntax},
	} {
		code, stdout, stderr := runArgs(t, "", append([]string{"distance"}, tc.args...)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}

// TestCastTurning: -to gives narrow.CastMotion's answer. Without a turn,
// the dropped cube stops within -tol above the other (fraction 0.5 of
// the 4 m at most, and no more than tol/4 less); turned a quarter turn on
// the way, it still stops on the other's top face.
func TestCastTurning(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		name string
		to   string
	}{
		{"straight", "0.2 -1 0.1 1 0 0 0"},
		{"turning", "0.2 -1 0.1 0.70710678 0 0.70710678 0"},
	} {
		out := mustRun(t, "", "cast", "-a", f.unit, "-b", f.unit, "-pose-a", "0.2 3 0.1 1 0 0 0", "-to", tc.to, "-tol", "1e-4")
		var got castJSON
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%s: output %q: %v", tc.name, out, err)
		}
		if !got.Hit || got.Fraction == nil || got.Normal == nil {
			t.Fatalf("%s: %s, want a hit", tc.name, out)
		}
		if fr := *got.Fraction; fr > 0.5 || tc.name == "straight" && fr < 0.5-1e-4/4-1e-12 {
			t.Errorf("%s: fraction %v, want at most 0.5", tc.name, fr)
		}
		if n := *got.Normal; math.Abs(n[1]-1) > 1e-3 {
			t.Errorf("%s: normal %v, want +y (the top face)", tc.name, n)
		}
	}
}
