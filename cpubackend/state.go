package cpubackend

import (
	"fmt"
	"math"

	"github.com/irtcd/irtcd/internal/binenc"
	"github.com/irtcd/irtcd/iterative"
	"github.com/irtcd/irtcd/narrow"
)

// State is a saved copy of a Backend's temporal state (SaveState,
// RestoreState): per pair, the rays and predictions its iterative steps
// update (Algorithms 1-2 of Lehericey et al. 2013 and the predictive rays
// of 2013b), its placement at its last standard step (Eq. 2's reference),
// its clearances and its kept pairs of edges. The backend's output at a
// step depends on its input and on this state alone, so a backend
// restored to the state it had after step k returns, for the pairs and
// poses of step k+1 and on, the same contacts, bit for bit, as it did the
// first time: what an engine that rolls back (rollback networking,
// replays, undo) needs from its narrow phase. The zero value is an empty
// state, ready for SaveState; its memory is reused by the next SaveState
// into it, so saving at every step allocates nothing once warm.
type State struct {
	params narrow.Params
	saved  bool
	// decoded: the state came from UnmarshalBinary; its shape IDs name
	// the restoring backend's shapes, and its indices are checked there.
	decoded bool
	shapes  []*narrow.Shape // the backend's shapes by ID when saved (nil: released)
	travel  []float64       // the odometers of their deformations by ID (ReshapeShape)
	pairs   iterative.Snapshot
}

// Stateful is implemented by the backends whose temporal state a State
// holds: Backend, optixbackend.Backend (whose state lives on its CPU
// side) and plugin.Host (whose state crosses the process boundary in the
// State's binary form).
type Stateful interface {
	SaveState(dst *State) error
	RestoreState(src *State) error
}

// Pairs returns the number of pair states held.
func (s *State) Pairs() int { return s.pairs.Len() }

// SaveState copies the backend's temporal state into dst, replacing what
// it held. Call it between steps (it waits for a running Detect to end).
func (b *Backend) SaveState(dst *State) error {
	if dst == nil {
		return fmt.Errorf("%w: SaveState needs a non-nil *cpubackend.State", narrow.ErrBadParams)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	dst.params, dst.saved, dst.decoded = b.params, true, false
	dst.shapes = append(dst.shapes[:0], b.shapes...)
	dst.travel = append(dst.travel[:0], b.travel...)
	b.store.Save(&dst.pairs)
	return nil
}

// RestoreState replaces the backend's temporal state with src, saved by
// SaveState from this backend or another one with the same parameters
// (else an error wrapping narrow.ErrBadParams). Pair states follow their
// shapes, not their shape IDs: a state saved for shapes that are now
// registered under other IDs (registered again after a release, or with
// another backend) is restored under the new ones; one whose shapes are
// not registered now is dropped, and its pair starts afresh with a
// standard step. A state decoded by UnmarshalBinary names shapes by ID
// alone: it is restored onto the shapes registered under those IDs here
// (the sender and this backend registered the same shapes in the same
// order, as peers that build the same world do), after a check that its
// rays and edge pairs fit them (else an error wrapping
// narrow.ErrBadState, and nothing changes). src is left unchanged and can
// be restored again.
func (b *Backend) RestoreState(src *State) error {
	if src == nil || !src.saved {
		return fmt.Errorf("%w: RestoreState needs a state filled by SaveState", narrow.ErrBadParams)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return narrow.ErrBackendClosed
	}
	if src.params != b.params {
		return fmt.Errorf("%w: the state was saved by a backend with other parameters (%+v, not %+v)", narrow.ErrBadParams, src.params, b.params)
	}
	if src.decoded {
		if err := src.pairs.Validate(b.Shape); err != nil {
			return err
		}
		for x, t := range src.travel {
			if b.Shape(narrow.ShapeID(x)) != nil {
				b.travel[x] = t
			}
		}
		b.store.Restore(&src.pairs, func(x, y narrow.ShapeID) (narrow.ShapeID, narrow.ShapeID, bool) {
			return x, y, b.Shape(x) != nil && b.Shape(y) != nil
		})
		return nil
	}
	clear(b.remap)
	mapped := false
	id := func(x narrow.ShapeID) (narrow.ShapeID, bool) {
		if x < 0 || int(x) >= len(src.shapes) || src.shapes[x] == nil {
			return -1, false
		}
		s := src.shapes[x]
		if int(x) < len(b.shapes) && b.shapes[x] == s {
			return x, true
		}
		if !mapped {
			// The shapes' current IDs, the latest registration of each.
			if b.remap == nil {
				b.remap = make(map[*narrow.Shape]narrow.ShapeID)
			}
			for i, t := range b.shapes {
				if t != nil {
					b.remap[t] = narrow.ShapeID(i)
				}
			}
			mapped = true
		}
		n, ok := b.remap[s]
		return n, ok
	}
	// Each shape's odometer goes back with the pair states, which measure
	// their deformations from it (iterative.Rel.Travel).
	for x := range src.travel {
		if n, ok := id(narrow.ShapeID(x)); ok {
			b.travel[n] = src.travel[x]
		}
	}
	b.store.Restore(&src.pairs, func(x, y narrow.ShapeID) (narrow.ShapeID, narrow.ShapeID, bool) {
		na, okA := id(x)
		nb, okB := id(y)
		return na, nb, okA && okB
	})
	return nil
}

// stateMagic opens the binary form of a State: "irtcdst" and the format's
// version.
var stateMagic = []byte("irtcdst\x05")

// AppendBinary appends the state's binary form to b: a header, the
// backend's parameters, the odometers of the shapes' deformations (u32
// count, f64 each, by shape ID), then every pair state
// (iterative.Snapshot's format). It implements encoding.BinaryAppender. Shapes are not encoded:
// the pair states name them by ID, and a backend that restores a decoded
// state takes the shapes it has under those IDs (see RestoreState).
func (s *State) AppendBinary(b []byte) ([]byte, error) {
	if !s.saved {
		return b, fmt.Errorf("%w: the State was not filled by SaveState", narrow.ErrBadState)
	}
	b = append(b, stateMagic...)
	b = appendParams(b, &s.params)
	b = binenc.AppendU32(b, uint32(len(s.travel)))
	b = binenc.AppendF64s(b, s.travel...)
	return s.pairs.AppendBinary(b)
}

// MarshalBinary returns the state's binary form (AppendBinary): to send a
// late-joining peer the narrow phase's state with the world's, or keep it
// in a saved game.
func (s *State) MarshalBinary() ([]byte, error) { return s.AppendBinary(nil) }

// UnmarshalBinary replaces s with the state data encodes. Malformed data
// is refused with an error wrapping narrow.ErrBadState naming the byte,
// and leaves s unusable for RestoreState until a successful SaveState or
// UnmarshalBinary.
func (s *State) UnmarshalBinary(data []byte) error {
	s.saved, s.decoded, s.shapes = false, true, s.shapes[:0]
	if len(data) < len(stateMagic) || string(data[:len(stateMagic)]) != string(stateMagic) {
		return fmt.Errorf("%w: not an irtcd backend state (header)", narrow.ErrBadState)
	}
	n := len(stateMagic)
	p, m, err := decodeParams(data[n:])
	if err != nil {
		return fmt.Errorf("%w: byte %d: parameters: %v", narrow.ErrBadState, n, err)
	}
	n += m
	if len(data) < n+4 {
		return fmt.Errorf("%w: byte %d: the count of shapes' odometers is cut off", narrow.ErrBadState, n)
	}
	r := binenc.NewReader(data[n:n+4], narrow.ErrBadState)
	nt := int(r.U32())
	if nt > (len(data)-n-4)/8 {
		return fmt.Errorf("%w: byte %d: %d odometers in %d bytes", narrow.ErrBadState, n, nt, len(data)-n-4)
	}
	s.travel = s.travel[:0]
	for i := range nt {
		r := binenc.NewReader(data[n+4+8*i:n+12+8*i], narrow.ErrBadState)
		t := r.F64()
		if !(t >= 0) || math.IsInf(t, 0) {
			return fmt.Errorf("%w: byte %d: odometer %d is %v", narrow.ErrBadState, n+4+8*i, i, t)
		}
		s.travel = append(s.travel, t)
	}
	n += 4 + 8*nt
	if err := s.pairs.UnmarshalBinary(data[n:]); err != nil {
		return fmt.Errorf("after %d bytes of header, parameters and odometers: %w", n, err)
	}
	s.params, s.saved = p, true
	return nil
}

// paramsBytes is the size of encoded parameters: four method bytes,
// seven f64 and integers (DisplacementThreshold, Confidence,
// DistanceExtension, MaxIt, Reach, ManifoldSize, ManifoldAngle), the
// speculative byte, EdgeAngle and EdgeDepth, and the EdgeFaces byte.
const paramsBytes = 4 + 7*8 + 1 + 2*8 + 1

func appendParams(b []byte, p *narrow.Params) []byte {
	b = append(b, byte(p.Method), byte(p.Traversal), byte(p.Response), byte(p.Culling))
	b = binenc.AppendF64s(b, p.DisplacementThreshold, p.Confidence, p.DistanceExtension)
	b = binenc.AppendU64(b, uint64(int64(p.MaxIt)))
	b = binenc.AppendF64(b, p.Reach)
	b = binenc.AppendU64(b, uint64(int64(p.ManifoldSize)))
	b = binenc.AppendF64(b, p.ManifoldAngle)
	b = binenc.AppendBool(b, p.Speculative)
	b = binenc.AppendF64s(b, p.EdgeAngle, p.EdgeDepth)
	return binenc.AppendBool(b, p.EdgeFaces)
}

// decodeParams reads parameters written by appendParams and checks them
// (narrow.Params.Validate); it returns the bytes read.
func decodeParams(data []byte) (narrow.Params, int, error) {
	var p narrow.Params
	if len(data) < paramsBytes {
		return p, 0, fmt.Errorf("%d bytes, want %d", len(data), paramsBytes)
	}
	r := binenc.NewReader(data[:paramsBytes], narrow.ErrBadState)
	p.Method, p.Traversal, p.Response, p.Culling = narrow.Method(r.U8()), narrow.Traversal(r.U8()), narrow.Response(r.U8()), narrow.Culling(r.U8())
	p.DisplacementThreshold, p.Confidence, p.DistanceExtension = r.F64(), r.F64(), r.F64()
	p.MaxIt, p.Reach = int(int64(r.U64())), r.F64()
	p.ManifoldSize, p.ManifoldAngle = int(int64(r.U64())), r.F64()
	p.Speculative = r.Bool("the speculative flag")
	p.EdgeAngle, p.EdgeDepth = r.F64(), r.F64()
	p.EdgeFaces = r.Bool("the EdgeFaces flag")
	if err := r.End(); err != nil {
		return p, 0, err
	}
	if err := p.Validate(); err != nil {
		return p, 0, err
	}
	return p, paramsBytes, nil
}

var _ Stateful = (*Backend)(nil)
