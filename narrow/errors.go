package narrow

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors for the kinds of bad input irtcd rejects. Every error the
// package returns for bad input wraps exactly one of them, so callers can
// branch with errors.Is and still print a message that names the offending
// element (file, line, vertex, primitive, pair).
var (
	ErrEmpty         = errors.New("empty shape")
	ErrNonFinite     = errors.New("non-finite value")
	ErrIndexRange    = errors.New("index out of range")
	ErrDegenerate    = errors.New("degenerate primitive")
	ErrOpenBoundary  = errors.New("open boundary")
	ErrNonManifold   = errors.New("non-manifold edge")
	ErrWinding       = errors.New("inconsistent winding")
	ErrSelfIntersect = errors.New("self-intersecting polygon")
	ErrSyntax        = errors.New("syntax error")
	ErrBadPose       = errors.New("invalid pose")
	ErrUnknownShape  = errors.New("unknown shape")
	ErrDimension     = errors.New("dimension mismatch")
	ErrDuplicatePair = errors.New("duplicate pair id")
	ErrBadParams     = errors.New("invalid parameters")
	ErrBackendClosed = errors.New("backend closed")
	ErrTooLarge      = errors.New("shape too large")
	ErrBadState      = errors.New("malformed saved state")
	ErrFormat        = errors.New("unknown file format")
	ErrBadMotion     = errors.New("invalid motion")
)

// ShapeError reports bad geometry. The fields that do not apply are -1 (or
// empty for File); Err is one of the sentinel errors above.
type ShapeError struct {
	File   string // source file, when the shape came from one
	Line   int    // 1-based line in File, or -1
	Loop   int    // polygon loop (0 = outer), or -1
	Vertex int    // vertex index (file order), or -1
	Prim   int    // primitive index (triangle, or segment for polygons), or -1
	Other  int    // a second primitive involved (e.g. the crossing segment), or -1
	Edge   [2]int // vertex indices of the edge involved, or {-1,-1}
	Detail string // human-readable specifics
	Err    error  // sentinel kind
}

func newShapeError(kind error, detail string) *ShapeError {
	return &ShapeError{Line: -1, Loop: -1, Vertex: -1, Prim: -1, Other: -1, Edge: [2]int{-1, -1}, Detail: detail, Err: kind}
}

// Error implements error.
func (e *ShapeError) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	b.WriteString(e.Err.Error())
	if e.Loop >= 0 {
		fmt.Fprintf(&b, ": loop %d", e.Loop)
	}
	if e.Prim >= 0 {
		fmt.Fprintf(&b, ": primitive %d", e.Prim)
	}
	if e.Other >= 0 {
		fmt.Fprintf(&b, " and primitive %d", e.Other)
	}
	if e.Vertex >= 0 {
		fmt.Fprintf(&b, ": vertex %d", e.Vertex)
	}
	if e.Edge[0] >= 0 {
		fmt.Fprintf(&b, ": edge %d-%d", e.Edge[0], e.Edge[1])
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

// Unwrap returns the sentinel kind.
func (e *ShapeError) Unwrap() error { return e.Err }

// PairError reports a pair that could not be processed. The other pairs of the
// batch are unaffected.
type PairError struct {
	ID  uint64
	Err error
}

// Error implements error.
func (e *PairError) Error() string { return fmt.Sprintf("pair %d: %v", e.ID, e.Err) }

// Unwrap returns the cause.
func (e *PairError) Unwrap() error { return e.Err }
