package iterative

import (
	"fmt"

	"github.com/irtcd/irtcd/internal/binenc"
	"github.com/irtcd/irtcd/narrow"
)

// The binary form of a Snapshot (AppendBinary, UnmarshalBinary), little
// endian, fixed width so that one snapshot has one encoding:
//
//	u32 states
//	per state: u64 pair ID, i32 batch index of the last step (-1: none),
//	  i32 shape A, i32 shape B, u8 flags (bit 0 Valid, 1 HasLast,
//	  2 HasEdges, 3 HasEdgeRel, 4-5 Quiet), 2 f64 Clear, 3 Rel (RelNI,
//	  Last, EdgeRel: 12 f64 each), f64 EdgeMargin, f64 EdgeGap,
//	  i32 EdgeSteps, then per direction u32 rays and each ray's
//	  i32 vertex, i32 primitive, u8 predicted (0 or 1), then u32 edge
//	  pairs and each one's i32 Src, i32 Dst, then per side (A, B) u32
//	  face edges (FaceEdges) and each one's i32 edge.
//
// The resolved parameters (PairState.Params) are not encoded: they are
// resolved again from the backend's parameters and the shapes.
const (
	rayBytes       = 9
	edgeBytes      = 8
	faceEdgeBytes  = 4
	stateBytes     = 8 + 4 + 4 + 4 + 1 + 2*8 + 3*12*8 + 8 + 8 + 4 + 5*4 // without rays and edges
	maxPos         = 1 << 24                                            // batch indices beyond this are refused
	flagValid      = 1 << 0
	flagHasLast    = 1 << 1
	flagHasEdges   = 1 << 2
	flagHasEdgeRel = 1 << 3
	flagQuiet0     = 1 << 4
	flagQuiet1     = 1 << 5
	flagsAll       = 1<<6 - 1
)

func appendRel(b []byte, r *Rel) []byte {
	b = binenc.AppendF64s(b, r.BinA[:]...)
	b = binenc.AppendF64s(b, r.AinB[:]...)
	b = binenc.AppendF64s(b, r.Q[:]...)
	return binenc.AppendF64s(b, r.Travel[:]...)
}

func readRel(d *binenc.Reader, r *Rel) {
	d.F64s(r.BinA[:])
	d.F64s(r.AinB[:])
	d.F64s(r.Q[:])
	d.F64s(r.Travel[:])
}

// AppendBinary appends the snapshot's binary form to b (see the format
// above); it implements encoding.BinaryAppender.
func (sn *Snapshot) AppendBinary(b []byte) ([]byte, error) {
	b = binenc.AppendU32(b, uint32(sn.n))
	for i := range sn.states[:sn.n] {
		s := &sn.states[i]
		b = binenc.AppendU64(b, s.id)
		b = binenc.AppendI32(b, s.pos)
		b = binenc.AppendI32(b, int32(s.A))
		b = binenc.AppendI32(b, int32(s.B))
		var f byte
		for bit, on := range []bool{s.Valid, s.HasLast, s.HasEdges, s.HasEdgeRel, s.Quiet[0], s.Quiet[1]} {
			if on {
				f |= 1 << bit
			}
		}
		b = append(b, f)
		b = binenc.AppendF64(b, s.Clear[0])
		b = binenc.AppendF64(b, s.Clear[1])
		b = appendRel(b, &s.RelNI)
		b = appendRel(b, &s.Last)
		b = appendRel(b, &s.EdgeRel)
		b = binenc.AppendF64(b, s.EdgeMargin)
		b = binenc.AppendF64(b, s.EdgeGap)
		b = binenc.AppendI32(b, s.EdgeSteps)
		for k := range s.Rays {
			b = binenc.AppendU32(b, uint32(len(s.Rays[k])))
			for _, r := range s.Rays[k] {
				b = binenc.AppendI32(b, r.Vertex)
				b = binenc.AppendI32(b, r.Prim)
				b = binenc.AppendBool(b, r.Predicted)
			}
		}
		b = binenc.AppendU32(b, uint32(len(s.Edges)))
		for _, e := range s.Edges {
			b = binenc.AppendI32(b, e.Src)
			b = binenc.AppendI32(b, e.Dst)
		}
		for k := range s.FaceEdges {
			b = binenc.AppendU32(b, uint32(len(s.FaceEdges[k])))
			for _, e := range s.FaceEdges[k] {
				b = binenc.AppendI32(b, e)
			}
		}
	}
	return b, nil
}

// UnmarshalBinary replaces the snapshot with the one data encodes (see
// AppendBinary). Malformed data, including a pair ID given twice, a batch
// index out of range, a negative shape ID or rays out of vertex order,
// is refused with an error wrapping narrow.ErrBadState that names the
// byte, and leaves the snapshot empty. Whether the vertex, primitive and
// edge indices exist is for Validate to say, once the shapes are known.
func (sn *Snapshot) UnmarshalBinary(data []byte) error {
	d := binenc.NewReader(data, narrow.ErrBadState)
	sn.decode(d)
	if err := d.End(); err != nil {
		sn.n = 0
		return err
	}
	return nil
}

func (sn *Snapshot) decode(d *binenc.Reader) {
	n := d.Count(stateBytes, "pair states")
	sn.n = 0
	seen := make(map[uint64]bool, n)
	for range n {
		if sn.n == len(sn.states) {
			sn.states = append(sn.states, PairState{})
		}
		s := &sn.states[sn.n]
		s.reset(0, 0)
		at := d.Offset()
		s.id = d.U64()
		s.pos = d.I32()
		s.A, s.B = narrow.ShapeID(d.I32()), narrow.ShapeID(d.I32())
		f := d.U8()
		s.Clear[0], s.Clear[1] = d.F64(), d.F64()
		readRel(d, &s.RelNI)
		readRel(d, &s.Last)
		readRel(d, &s.EdgeRel)
		s.EdgeMargin, s.EdgeGap = d.F64(), d.F64()
		s.EdgeSteps = d.I32()
		for k := range s.Rays {
			for range d.Count(rayBytes, "rays") {
				ra := d.Offset()
				r := Ray{Vertex: d.I32(), Prim: d.I32(), Predicted: d.Bool("a ray's predicted flag")}
				if l := len(s.Rays[k]); l > 0 && s.Rays[k][l-1].Vertex > r.Vertex {
					d.Failf(ra, "pair %d: rays out of vertex order", s.id)
				}
				s.Rays[k] = append(s.Rays[k], r)
			}
		}
		for range d.Count(edgeBytes, "edge pairs") {
			s.Edges = append(s.Edges, narrow.EdgePair{Src: d.I32(), Dst: d.I32()})
		}
		for k := range s.FaceEdges {
			for range d.Count(faceEdgeBytes, "face edges") {
				s.FaceEdges[k] = append(s.FaceEdges[k], d.I32())
			}
		}
		if d.Err() != nil {
			return
		}
		switch {
		case seen[s.id]:
			d.Failf(at, "pair %d given twice", s.id)
		case s.pos < -1 || s.pos >= maxPos:
			d.Failf(at, "pair %d: batch index %d out of range", s.id, s.pos)
		case s.A < 0 || s.B < 0:
			d.Failf(at, "pair %d: shape IDs %d and %d", s.id, s.A, s.B)
		case f&^flagsAll != 0:
			d.Failf(at, "pair %d: unknown flags %#x", s.id, f)
		}
		if d.Err() != nil {
			return
		}
		seen[s.id] = true
		s.Valid, s.HasLast = f&flagValid != 0, f&flagHasLast != 0
		s.HasEdges, s.HasEdgeRel = f&flagHasEdges != 0, f&flagHasEdgeRel != 0
		s.Quiet = [2]bool{f&flagQuiet0 != 0, f&flagQuiet1 != 0}
		sn.n++
	}
}

// Validate checks that the snapshot's rays and edge pairs name vertices,
// primitives and edges that exist on the shapes shape returns for its
// states' shape IDs (nil: not registered; such states are not checked,
// Restore leaves them out). Ray k of a state goes from shape A's vertices
// to B's primitives for k = 0, the other way for k = 1; an edge pair's
// Src is an edge of A, Dst of B. The error wraps narrow.ErrBadState and
// names the pair.
func (sn *Snapshot) Validate(shape func(narrow.ShapeID) *narrow.Shape) error {
	for i := range sn.states[:sn.n] {
		s := &sn.states[i]
		a, b := shape(s.A), shape(s.B)
		if a == nil || b == nil {
			continue
		}
		for k, src := range [2]*narrow.Shape{a, b} {
			dst := [2]*narrow.Shape{b, a}[k]
			for _, r := range s.Rays[k] {
				if r.Vertex < 0 || int(r.Vertex) >= src.NumVertices() || r.Prim < 0 || int(r.Prim) >= dst.NumPrims() {
					return fmt.Errorf("%w: pair %d: ray from vertex %d to primitive %d, but the shapes have %d vertices and %d primitives",
						narrow.ErrBadState, s.id, r.Vertex, r.Prim, src.NumVertices(), dst.NumPrims())
				}
			}
		}
		for _, e := range s.Edges {
			if e.Src < 0 || int(e.Src) >= a.NumEdges() || e.Dst < 0 || int(e.Dst) >= b.NumEdges() {
				return fmt.Errorf("%w: pair %d: edges %d and %d, but the shapes have %d and %d", narrow.ErrBadState, s.id, e.Src, e.Dst, a.NumEdges(), b.NumEdges())
			}
		}
		for k, src := range [2]*narrow.Shape{a, b} {
			for _, e := range s.FaceEdges[k] {
				if e < 0 || int(e) >= src.NumEdges() {
					return fmt.Errorf("%w: pair %d: face edge %d of shape %c, which has %d edges", narrow.ErrBadState, s.id, e, "AB"[k], src.NumEdges())
				}
			}
		}
	}
	return nil
}
