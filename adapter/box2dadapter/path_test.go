package box2dadapter

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	b2 "github.com/ByteArena/box2d"
)

func pv(xy ...float64) []b2.B2Vec2 {
	out := make([]b2.B2Vec2, len(xy)/2)
	for i := range out {
		out[i] = b2.B2Vec2{X: xy[2*i], Y: xy[2*i+1]}
	}
	return out
}

var parsePathCases = []struct {
	name string
	d    string
	want [][]b2.B2Vec2
}{
	{"absolute", "M 0 0 L 4 0 L 4 3 Z", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"absolute no Z", "M 0 0 L 4 0 L 4 3", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"doc example", "M 0 0 L 4 0 L 4 3 Z M 1 1 l 1 0 0 1 z",
		[][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3), pv(1, 1, 2, 1, 2, 2)}},
	{"relative", "m 1 1 l 2 0 l 0 2", [][]b2.B2Vec2{pv(1, 1, 3, 1, 3, 3)}},
	{"relative repeated", "m 1 1 l 2 0 0 2 -1 0", [][]b2.B2Vec2{pv(1, 1, 3, 1, 3, 3, 2, 3)}},
	{"implicit L after M", "M 0 0 4 0 4 3", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"implicit l after m", "m 1 1 2 0 0 2", [][]b2.B2Vec2{pv(1, 1, 3, 1, 3, 3)}},
	{"repeated L", "M 0 0 L 4 0 4 3 0 3", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3, 0, 3)}},
	{"H V", "M 0 0 H 4 V 3 H 0", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3, 0, 3)}},
	{"h v", "M 1 1 h 2 v 2 h -2", [][]b2.B2Vec2{pv(1, 1, 3, 1, 3, 3, 1, 3)}},
	{"repeated H", "M 0 0 H 1 2 V 1", [][]b2.B2Vec2{pv(0, 0, 1, 0, 2, 0, 2, 1)}},
	{"repeated v", "M 0 0 h 1 v 1 1", [][]b2.B2Vec2{pv(0, 0, 1, 0, 1, 1, 1, 2)}},
	{"commas", "M 0,0 L 4,0 L 4,3 Z", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"commas only", "M0,0,4,0,4,3", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"comma and space", "M 0 , 0 , L 4 ,0 ,L 4, 3", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"whitespace", "\t\n M\r\n0 0\fL 4\v0 L 4 3 Z \n", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"abutting", "M0,0L4,0L4,3Z", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"abutting signs", "M0-1L4-1L4+3", [][]b2.B2Vec2{pv(0, -1, 4, -1, 4, 3)}},
	{"abutting points", "M.5.5L1 0L1 1", [][]b2.B2Vec2{pv(.5, .5, 1, 0, 1, 1)}},
	{"abutting relative", "M0 0h4v3z", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"exponents", "M 0 0 L 4e0 0 L 4E+0 3e-0 L 1.5e1 -2.5E-1",
		[][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3, 15, -0.25)}},
	{"number forms", "M +1 -1 L 5. -.5 L .25e+2 +0.0", [][]b2.B2Vec2{pv(1, -1, 5, -.5, 25, 0)}},
	{"holes", "M 0 0 L 4 0 L 4 4 L 0 4 Z M 1 1 L 2 1 L 2 2 L 1 2 Z M 3 3 h .5 v .5 z",
		[][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 4, 0, 4), pv(1, 1, 2, 1, 2, 2, 1, 2), pv(3, 3, 3.5, 3, 3.5, 3.5)}},
	{"hole without Z", "M 0 0 L 4 0 L 4 4 M 1 1 L 2 1 L 2 2",
		[][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 4), pv(1, 1, 2, 1, 2, 2)}},
	{"closing point dropped", "M 0 0 L 4 0 L 4 3 L 0 0 Z", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"closing point dropped no Z", "M 0 0 L 4 0 L 4 3 L 0 0", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"closing point repeated", "M 0 0 L 4 0 L 4 3 L 0 0 0 0", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3)}},
	{"relative closing point", "m 1 1 l 4 0 0 3 -4 -3 z", [][]b2.B2Vec2{pv(1, 1, 5, 1, 5, 4)}},
	{"closing point dropped per subpath", "M 0 0 H 4 V 4 H 0 V 0 M 1 1 h 1 v 1 l -1 -1",
		[][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 4, 0, 4), pv(1, 1, 2, 1, 2, 2)}},
	{"inner duplicate kept", "M 0 0 L 4 0 L 4 0 L 4 3", [][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 0, 4, 3)}},
	{"m after Z is relative to start", "M 1 1 L 4 1 L 4 3 Z m 1 0 l 1 0 0 1",
		[][]b2.B2Vec2{pv(1, 1, 4, 1, 4, 3), pv(2, 1, 3, 1, 3, 2)}},
	{"m without Z is relative to current point", "M 1 1 L 4 1 L 4 3 m 1 0 l 1 0 0 1",
		[][]b2.B2Vec2{pv(1, 1, 4, 1, 4, 3), pv(5, 3, 6, 3, 6, 4)}},
	{"drawing after Z opens a subpath at the start", "M 0 0 L 4 0 L 4 3 Z l 0 -1 -1 0",
		[][]b2.B2Vec2{pv(0, 0, 4, 0, 4, 3), pv(0, 0, 0, -1, -1, -1)}},
	{"double Z", "M 0 0 L 1 0 L 1 1 Z Z", [][]b2.B2Vec2{pv(0, 0, 1, 0, 1, 1)}},
	{"collinear is a parse success", "M 0 0 L 1 0 L 2 0", [][]b2.B2Vec2{pv(0, 0, 1, 0, 2, 0)}},
	{"underflow is zero", "M 0 0 L 1 1e-400 L 1 1", [][]b2.B2Vec2{pv(0, 0, 1, 0, 1, 1)}},
}

func TestParsePath(t *testing.T) {
	for _, tc := range parsePathCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePath(tc.d)
			if err != nil {
				t.Fatalf("ParsePath(%q): %v", tc.d, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParsePath(%q) =\n %v\nwant\n %v", tc.d, got, tc.want)
			}
		})
	}
}

var parsePathErrorCases = []struct {
	name   string
	d      string
	offset int
	msg    string // substring of the message
}{
	{"empty", "", 0, "empty path"},
	{"blank", " ,\n\t, ", 0, "empty path"},
	{"no M", "L 1 2 3 4 5 6", 0, "must start with M"},
	{"leading number", " 1 2", 1, "must start with M"},
	{"curve C", "M 0 0 L 4 0 C 1 2 3 4 5 6", 12, "command C"},
	{"curve q abutting", "M0 0L4 0q1 1 2 2", 8, "command q"},
	{"arc A", "M 0 0 L 1 0 L 1 1 A 1 1 0 0 0 2 2", 18, "command A"},
	{"smooth s", "M 0 0 s 1 1 2 2", 6, "command s"},
	{"unknown letter", "M 0 0 L 1 0 L 1 1 X", 18, "unknown command X"},
	{"unknown character", "M 0 0 L 1 0 L 1 1 ;", 18, "unexpected character ';'"},
	{"invalid utf8", "M 0 0 L 1 0 L 1 1 \xff", 18, "unexpected byte 0xff"},
	{"non-ascii", "M 0 0 L 1 0 L 1 1 é", 18, "unexpected character 'é'"},
	{"L at end", "M 0 0 L", 7, "expected a number after L"},
	{"L missing y", "M 0 0 L 4", 9, "expected a number after L"},
	{"l missing y in repeat", "M 0 0 l 4 0 4", 13, "expected a number after l"},
	{"M missing y in repeat", "M 0 0 4", 7, "expected a number after M"},
	{"M without numbers", "M L 1 2", 2, "expected a number after M"},
	{"L letter arg", "M 0 0 L 4 0 L x", 14, "expected a number after L"},
	{"v at end", "M 0 0 h 1 v", 11, "expected a number after v"},
	{"lone point", "M 0 0 L . 1", 8, "expected a number after L"},
	{"lone sign", "M 0 0 L 1 1 L -", 14, "expected a number after L"},
	{"dangling exponent", "M 0 0 L 1e 1", 9, "expected a number after L"},
	{"overflow", "M 0 0 L 1e999 0 L 0 1", 8, "out of range"},
	{"negative overflow", "M 0 0 L 0 -1e400 L 0 1", 10, "out of range"},
	{"NaN", "M 0 0 L NaN 0 L 1 1", 8, "non-finite"},
	{"-Inf", "M 0 0 L -Inf 0 L 1 1", 8, "non-finite"},
	{"inf as command", "M 0 0 L 1 1 inf", 12, "non-finite"},
	{"relative overflow", "M 1e308 0 l 1e308 0 l 0 1", 12, "out of range"},
	{"h overflow", "M 0 0 v 1 h 1e308 1e308", 18, "out of range"},
	{"m overflow", "M 0 0 L 1 0 L 1 1 m 1e308 0 m 1e308 0", 30, "out of range"},
	{"number after Z", "M 0 0 L 1 0 L 1 1 Z 5 5", 20, "expected a command after Z"},
	{"number after z", "M 0 0 L 1 0 L 1 1 z-5", 19, "expected a command after z"},
	{"two points", "M 0 0 L 1 0", 0, "fewer than 3 distinct points"},
	{"one point", "M 0 0 Z", 0, "fewer than 3 distinct points"},
	{"lone moveto", "M 0 0 M 1 1 L 2 1 L 2 2", 0, "fewer than 3 distinct points"},
	{"repeated points", "M 0 0 L 0 0 L 0 0 L 0 0", 0, "fewer than 3 distinct points"},
	{"two distinct", "M 0 0 L 1 0 L 0 0 L 1 0 L 1 0", 0, "fewer than 3 distinct points"},
	{"second subpath closes to 2", "M 0 0 L 1 0 L 1 1 Z M 5 5 L 6 6 L 5 5", 20, "fewer than 3 distinct points"},
	{"subpath after Z", "M 0 0 L 1 0 L 1 1 Z L 2 2 Z", 20, "fewer than 3 distinct points"},
}

func TestParsePathErrors(t *testing.T) {
	for _, tc := range parsePathErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePath(tc.d)
			if err == nil {
				t.Fatalf("ParsePath(%q) = %v, want an error", tc.d, got)
			}
			if got != nil {
				t.Errorf("ParsePath(%q) returned loops %v with its error", tc.d, got)
			}
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("ParsePath(%q): %T %v, want *PathError", tc.d, err, err)
			}
			if pe.Offset != tc.offset {
				t.Errorf("ParsePath(%q): offset %d, want %d (%v)", tc.d, pe.Offset, tc.offset, err)
			}
			if !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("ParsePath(%q): message %q, want it to contain %q", tc.d, pe.Msg, tc.msg)
			}
		})
	}
}

func TestPathErrorFormat(t *testing.T) {
	_, err := ParsePath("M 0 0 L 4 0 L")
	const want = "box2dadapter: path: offset 13: expected a number after L"
	if err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
	if errors.Unwrap(err) != nil {
		t.Errorf("PathError wraps %v, want nothing", errors.Unwrap(err))
	}
}

func TestParsePathMaxPoints(t *testing.T) {
	// "M0 0" is point 1; every "h1" adds one.
	at := "M0 0" + strings.Repeat("h1", MaxPathPoints-1)
	loops, err := ParsePath(at)
	if err != nil {
		t.Fatalf("path of exactly MaxPathPoints points: %v", err)
	}
	if len(loops) != 1 || len(loops[0]) != MaxPathPoints {
		t.Fatalf("got %d loops, first of %d points; want 1 of %d", len(loops), len(loops[0]), MaxPathPoints)
	}
	_, err = ParsePath(at + "h1")
	var pe *PathError
	if !errors.As(err, &pe) {
		t.Fatalf("path of MaxPathPoints+1 points: %v, want *PathError", err)
	}
	if want := len(at) + 1; pe.Offset != want || !strings.Contains(pe.Msg, "points") {
		t.Errorf("got %v, want offset %d and a message about points", err, want)
	}
	// The limit counts all subpaths together.
	tri := "M0 0h1v1"
	n := MaxPathPoints / 3
	_, err = ParsePath(strings.Repeat(tri, n) + tri)
	if !errors.As(err, &pe) {
		t.Fatalf("%d triangles: %v, want *PathError", n+1, err)
	}
}

func TestShapeFromPath(t *testing.T) {
	for _, d := range []string{
		"M 0 0 L 4 0 L 4 4 L 0 4 Z M 1 1 L 2 1 L 2 2 L 1 2 Z", // hole same winding
		"M0,0 H4 V4 H0 z m1,1 v1 h1 v-1 z",                    // hole opposite winding, relative
	} {
		s, err := ShapeFromPath(d)
		if err != nil {
			t.Fatalf("ShapeFromPath(%q): %v", d, err)
		}
		if a := s.Area(); math.Abs(a-(16-1)) > 1e-9 {
			t.Errorf("ShapeFromPath(%q).Area() = %v, want 15", d, a)
		}
	}
	s, err := ShapeFromPath("M 0 0 L 4 0 L 4 3 Z")
	if err != nil {
		t.Fatal(err)
	}
	if a := s.Area(); math.Abs(a-6) > 1e-9 {
		t.Errorf("triangle area %v, want 6", a)
	}

	var pe *PathError
	if _, err := ShapeFromPath("M 0 0 Q 1 1 2 2"); !errors.As(err, &pe) || pe.Offset != 6 {
		t.Errorf("ShapeFromPath with a curve: %v, want *PathError at offset 6", err)
	}
	// Well-formed path, bad outline: NewShape's error, not a PathError.
	_, err = ShapeFromPath("M 0 0 L 1 1 L 1 0 L 0 1 Z") // bow tie
	if err == nil || errors.As(err, &pe) {
		t.Errorf("ShapeFromPath(bow tie): %v, want a non-PathError error", err)
	}
}

func FuzzParsePath(f *testing.F) {
	for _, tc := range parsePathCases {
		f.Add(tc.d)
	}
	for _, tc := range parsePathErrorCases {
		f.Add(tc.d)
	}
	for _, d := range []string{
		"M0 0L1 0 1 1ZM2 2l1 0 0 1z",
		"m-1-1h2v2h-2z",
		"M1e308 1e308 l1e308 0 0 1",
		"M 0 0 L 4.5e-3,2 -3,+.5e+2 Z z Z",
		"M0 0 1 0 1 1 z l 5 5 6 6",
		"M\x00",
		"M 0 0 L 1 1 L 1 0 l nan inf",
	} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, d string) {
		loops, err := ParsePath(d)
		if err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				t.Fatalf("ParsePath(%q): %T %v, want *PathError", d, err, err)
			}
			if pe.Offset < 0 || pe.Offset > len(d) {
				t.Fatalf("ParsePath(%q): offset %d outside [0, %d]", d, pe.Offset, len(d))
			}
			if loops != nil {
				t.Fatalf("ParsePath(%q): loops with an error", d)
			}
			return
		}
		if len(loops) == 0 {
			t.Fatalf("ParsePath(%q): no loops and no error", d)
		}
		total := 0
		for i, l := range loops {
			if len(l) < 3 {
				t.Fatalf("ParsePath(%q): loop %d has %d points", d, i, len(l))
			}
			total += len(l)
			for _, v := range l {
				if math.IsNaN(v.X) || math.IsNaN(v.Y) || math.IsInf(v.X, 0) || math.IsInf(v.Y, 0) {
					t.Fatalf("ParsePath(%q): loop %d has a non-finite point %v", d, i, v)
				}
			}
			if l[len(l)-1] == l[0] {
				t.Fatalf("ParsePath(%q): loop %d keeps its closing point", d, i)
			}
		}
		if total > MaxPathPoints {
			t.Fatalf("ParsePath(%q): %d points", d, total)
		}
	})
}
