package box2dadapter

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	b2 "github.com/ByteArena/box2d"
)

// MaxPathPoints is the most points ParsePath accepts in one path (all
// subpaths together, closing points included), to bound the memory a
// hostile path can make it allocate.
const MaxPathPoints = 1 << 20

// PathError reports a malformed path: Offset is the byte offset in the
// path string of the offending token (len(d) for a premature end), Msg
// says what is wrong. It wraps nothing.
type PathError struct {
	Offset int
	Msg    string
}

// Error implements error.
func (e *PathError) Error() string {
	return fmt.Sprintf("box2dadapter: path: offset %d: %s", e.Offset, e.Msg)
}

// ParsePath parses an SVG-like path ("M 0 0 L 4 0 L 4 3 Z M 1 1 l 1 0 0 1 z")
// into closed loops, one per subpath, in path order.
//
// Grammar (a subset of SVG path data, polygons only):
//
//   - M x y / m dx dy: moveto; starts a new subpath. The path must begin
//     with M or m (a leading m is relative to the origin, so it is
//     absolute). Further coordinate pairs after M are implicit L commands,
//     after m implicit l commands.
//   - L x y / l dx dy: lineto; may repeat its pair ("L 1 2 3 4").
//   - H x / h dx: horizontal lineto; may repeat its number.
//   - V y / v dy: vertical lineto; may repeat its number.
//   - Z / z: closepath. It is optional at the end of a subpath: every
//     subpath is closed implicitly. After Z the current point returns to
//     the subpath's start; a drawing command (L, H, V) that follows Z
//     without an M starts a new subpath there. Z takes no numbers.
//   - Lower-case commands are relative to the current point, which starts
//     at the origin.
//   - Numbers are decimal floats as in Go's syntax, with an optional sign
//     and exponent: "3", "-4.5", ".5", "5.", "+1e-3", "2E+10". Hex floats,
//     digit underscores and the words NaN/Inf are not accepted, nor are
//     numbers (or coordinates they lead to) that overflow to ±Inf.
//   - Tokens are separated by any run of whitespace and/or commas; no
//     separator is needed where the boundary is unambiguous, so commands
//     may abut numbers ("M0,0L4,0") and a sign starts a new number
//     ("M0-1" is M 0 -1).
//   - Curve and arc commands (C, S, Q, T, A, either case) and any other
//     character are errors naming the command or character.
//
// Each subpath must have at least 3 distinct points. A closing point that
// repeats the subpath's first point exactly ("M 0 0 L 1 0 L 1 1 L 0 0 Z")
// is dropped; other points are kept as written. An empty path (nothing
// but whitespace and commas) is an error, and so is a path of more than
// MaxPathPoints points. Every error is a *PathError; ParsePath never
// panics.
func ParsePath(d string) ([][]b2.B2Vec2, error) {
	p := pathParser{s: d}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.loops, nil
}

// ShapeFromPath builds a Shape from a path (see ParsePath for the
// grammar): the first subpath is the outer loop, the others are holes.
// A malformed path gives a *PathError; a well-formed path with a bad
// outline (zero area, self-intersection, holes outside the outer loop...)
// gives NewShape's error.
func ShapeFromPath(d string) (*Shape, error) {
	loops, err := ParsePath(d)
	if err != nil {
		return nil, err
	}
	return NewShape(loops[0], loops[1:]...)
}

type pathParser struct {
	s     string
	i     int
	loops [][]b2.B2Vec2

	cur      []b2.B2Vec2 // open subpath, nil when none
	curOff   int         // offset of the command that opened cur
	pt       b2.B2Vec2   // current point
	start    b2.B2Vec2   // first point of the current subpath
	npts     int         // points so far, all subpaths
	begun    bool        // an M has been seen
	afterCmd byte        // last command read
}

func (p *pathParser) errf(off int, format string, args ...any) error {
	return &PathError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func isPathSep(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == ','
}

func pathIsDigit(c byte) bool { return '0' <= c && c <= '9' }

func (p *pathParser) skipSep() {
	for p.i < len(p.s) && isPathSep(p.s[p.i]) {
		p.i++
	}
}

// atNumber skips separators and reports whether a number (or something
// meant as one: a sign or a point) starts there.
func (p *pathParser) atNumber() bool {
	p.skipSep()
	if p.i >= len(p.s) {
		return false
	}
	c := p.s[p.i]
	return pathIsDigit(c) || c == '.' || c == '+' || c == '-'
}

// pathNonFinite reports whether s starts with a NaN or Inf spelling.
func pathNonFinite(s string) bool {
	if len(s) < 3 {
		return false
	}
	w := strings.ToLower(s[:3])
	return w == "nan" || w == "inf"
}

// number reads one number, an argument of command cmd.
func (p *pathParser) number(cmd byte) (float64, int, error) {
	p.skipSep()
	s, off := p.s, p.i
	j := off
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if pathNonFinite(s[j:]) {
		return 0, off, p.errf(off, "non-finite number after %c", cmd)
	}
	digits := 0
	for j < len(s) && pathIsDigit(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && pathIsDigit(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, off, p.errf(off, "expected a number after %c", cmd)
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && pathIsDigit(s[k]) {
			for k < len(s) && pathIsDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	v, err := strconv.ParseFloat(s[off:j], 64)
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, off, p.errf(off, "number %s out of range", s[off:j])
	}
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		// Cannot happen for the syntax scanned above; kept so that a
		// strconv surprise is an error, not a silent 0.
		return 0, off, p.errf(off, "malformed number %q", s[off:j])
	}
	p.i = j
	return v, off, nil
}

func (p *pathParser) pair(cmd byte) (b2.B2Vec2, int, error) {
	x, off, err := p.number(cmd)
	if err != nil {
		return b2.B2Vec2{}, off, err
	}
	y, _, err := p.number(cmd)
	if err != nil {
		return b2.B2Vec2{}, off, err
	}
	return b2.B2Vec2{X: x, Y: y}, off, nil
}

// add appends v (read at off) to the open subpath as the new current
// point.
func (p *pathParser) add(v b2.B2Vec2, off int) error {
	if math.IsInf(v.X, 0) || math.IsInf(v.Y, 0) || math.IsNaN(v.X) || math.IsNaN(v.Y) {
		return p.errf(off, "coordinate out of range")
	}
	if p.npts >= MaxPathPoints {
		return p.errf(off, "more than %d points", MaxPathPoints)
	}
	p.npts++
	p.cur = append(p.cur, v)
	p.pt = v
	return nil
}

// open starts a subpath at v for the command at off.
func (p *pathParser) open(v b2.B2Vec2, off int) error {
	if err := p.finish(); err != nil {
		return err
	}
	p.cur = make([]b2.B2Vec2, 0, 8)
	p.curOff = off
	if err := p.add(v, off); err != nil {
		return err
	}
	p.start = v
	return nil
}

// finish closes the open subpath, if any, and stores it.
func (p *pathParser) finish() error {
	if p.cur == nil {
		return nil
	}
	l := p.cur
	p.cur = nil
	for len(l) > 1 && l[len(l)-1] == l[0] {
		l = l[:len(l)-1]
	}
	if !pathThreeDistinct(l) {
		return p.errf(p.curOff, "subpath has fewer than 3 distinct points")
	}
	p.loops = append(p.loops, l)
	return nil
}

func pathThreeDistinct(l []b2.B2Vec2) bool {
	if len(l) < 3 {
		return false
	}
	a := l[0]
	i := 1
	for i < len(l) && l[i] == a {
		i++
	}
	if i == len(l) {
		return false
	}
	b := l[i]
	for _, c := range l[i+1:] {
		if c != a && c != b {
			return true
		}
	}
	return false
}

func (p *pathParser) parse() error {
	p.skipSep()
	if p.i >= len(p.s) {
		return p.errf(0, "empty path")
	}
	for {
		p.skipSep()
		if p.i >= len(p.s) {
			break
		}
		off := p.i
		c := p.s[off]
		if pathIsDigit(c) || c == '.' || c == '+' || c == '-' {
			// Numbers are consumed by their command's repeat loop, so
			// one here follows Z or starts the path.
			if !p.begun {
				return p.errf(off, "path must start with M or m")
			}
			return p.errf(off, "expected a command after %c", p.afterCmd)
		}
		switch c {
		case 'M', 'm', 'L', 'l', 'H', 'h', 'V', 'v', 'Z', 'z':
		case 'C', 'c', 'S', 's', 'Q', 'q', 'T', 't', 'A', 'a':
			return p.errf(off, "unsupported command %c (curves and arcs are not supported)", c)
		default:
			if pathNonFinite(p.s[off:]) {
				return p.errf(off, "non-finite number")
			}
			if r, size := utf8.DecodeRuneInString(p.s[off:]); r != utf8.RuneError || size > 1 {
				if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
					return p.errf(off, "unknown command %c", c)
				}
				return p.errf(off, "unexpected character %q", r)
			}
			return p.errf(off, "unexpected byte %#02x", c)
		}
		if !p.begun && c != 'M' && c != 'm' {
			return p.errf(off, "path must start with M or m")
		}
		p.begun = true
		p.i++
		if err := p.command(c, off); err != nil {
			return err
		}
	}
	return p.finish()
}

// command runs command c (at off) with its arguments and their implicit
// repeats.
func (p *pathParser) command(c byte, off int) error {
	rel := c >= 'a'
	p.afterCmd = c
	switch c {
	case 'Z', 'z':
		if err := p.finish(); err != nil {
			return err
		}
		p.pt = p.start
		return nil
	case 'M', 'm':
		v, voff, err := p.pair(c)
		if err != nil {
			return err
		}
		if rel {
			v = b2.B2Vec2{X: p.pt.X + v.X, Y: p.pt.Y + v.Y}
		}
		if math.IsInf(v.X, 0) || math.IsInf(v.Y, 0) {
			return p.errf(voff, "coordinate out of range")
		}
		if err := p.open(v, off); err != nil {
			return err
		}
	default:
		if p.cur == nil { // drawing right after Z: a new subpath at its start
			if err := p.open(p.pt, off); err != nil {
				return err
			}
		}
		if err := p.draw(c, rel); err != nil {
			return err
		}
	}
	for p.atNumber() {
		if err := p.draw(c, rel); err != nil {
			return err
		}
	}
	return nil
}

// draw reads one argument set of drawing command c (M/m repeats draw as
// L/l) and adds its point.
func (p *pathParser) draw(c byte, rel bool) error {
	v := p.pt
	var off int
	switch c {
	case 'H', 'h':
		x, o, err := p.number(c)
		if err != nil {
			return err
		}
		off = o
		if rel {
			x += v.X
		}
		v.X = x
	case 'V', 'v':
		y, o, err := p.number(c)
		if err != nil {
			return err
		}
		off = o
		if rel {
			y += v.Y
		}
		v.Y = y
	default: // L, l, M, m
		d, o, err := p.pair(c)
		if err != nil {
			return err
		}
		off = o
		if rel {
			d = b2.B2Vec2{X: v.X + d.X, Y: v.Y + d.Y}
		}
		v = d
	}
	return p.add(v, off)
}
