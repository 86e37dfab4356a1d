package iterative

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/irtcd/irtcd/narrow"
)

// The binary form of a Snapshot (AppendBinary, UnmarshalBinary), little
// endian, fixed width so that one snapshot has one encoding:
//
//	u32 states
//	per state: u64 pair ID, i32 batch index of the last step (-1: none),
//	  i32 shape A, i32 shape B, u8 flags (bit 0 Valid, 1 HasLast,
//	  2 HasEdges, 3 HasEdgeRel, 4-5 Quiet), 2 f64 Clear, 3 Rel (RelNI,
//	  Last, EdgeRel: 10 f64 each), f64 EdgeMargin, f64 EdgeGap,
//	  i32 EdgeSteps, then per direction u32 rays and each ray's
//	  i32 vertex, i32 primitive, u8 predicted (0 or 1), then u32 edge
//	  pairs and each one's i32 Src, i32 Dst.
//
// The resolved parameters (PairState.Params) are not encoded: they are
// resolved again from the backend's parameters and the shapes.
const (
	rayBytes       = 9
	edgeBytes      = 8
	stateBytes     = 8 + 4 + 4 + 4 + 1 + 2*8 + 3*10*8 + 8 + 8 + 4 + 3*4 // without rays and edges
	maxPos         = 1 << 24                                            // batch indices beyond this are refused
	flagValid      = 1 << 0
	flagHasLast    = 1 << 1
	flagHasEdges   = 1 << 2
	flagHasEdgeRel = 1 << 3
	flagQuiet0     = 1 << 4
	flagQuiet1     = 1 << 5
	flagsAll       = 1<<6 - 1
)

func appendF64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}
func appendI32(b []byte, v int32) []byte { return binary.LittleEndian.AppendUint32(b, uint32(v)) }

func appendRel(b []byte, r *Rel) []byte {
	for _, v := range r.BinA {
		b = appendF64(b, v)
	}
	for _, v := range r.AinB {
		b = appendF64(b, v)
	}
	for _, v := range r.Q {
		b = appendF64(b, v)
	}
	return b
}

// AppendBinary appends the snapshot's binary form to b (see the format
// above); it implements encoding.BinaryAppender.
func (sn *Snapshot) AppendBinary(b []byte) ([]byte, error) {
	b = binary.LittleEndian.AppendUint32(b, uint32(sn.n))
	for i := range sn.states[:sn.n] {
		s := &sn.states[i]
		b = binary.LittleEndian.AppendUint64(b, s.id)
		b = appendI32(b, s.pos)
		b = appendI32(b, int32(s.A))
		b = appendI32(b, int32(s.B))
		var f byte
		for bit, on := range []bool{s.Valid, s.HasLast, s.HasEdges, s.HasEdgeRel, s.Quiet[0], s.Quiet[1]} {
			if on {
				f |= 1 << bit
			}
		}
		b = append(b, f)
		b = appendF64(b, s.Clear[0])
		b = appendF64(b, s.Clear[1])
		b = appendRel(b, &s.RelNI)
		b = appendRel(b, &s.Last)
		b = appendRel(b, &s.EdgeRel)
		b = appendF64(b, s.EdgeMargin)
		b = appendF64(b, s.EdgeGap)
		b = appendI32(b, s.EdgeSteps)
		for k := range s.Rays {
			b = binary.LittleEndian.AppendUint32(b, uint32(len(s.Rays[k])))
			for _, r := range s.Rays[k] {
				b = appendI32(b, r.Vertex)
				b = appendI32(b, r.Prim)
				p := byte(0)
				if r.Predicted {
					p = 1
				}
				b = append(b, p)
			}
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s.Edges)))
		for _, e := range s.Edges {
			b = appendI32(b, e.Src)
			b = appendI32(b, e.Dst)
		}
	}
	return b, nil
}

// decoder reads the binary form, remembering the first error.
type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: byte %d: %s", narrow.ErrBadState, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b)-d.off < n {
		d.fail("%d bytes needed, %d left", n, len(d.b)-d.off)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *decoder) u32() uint32 {
	if p := d.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if p := d.take(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *decoder) i32() int32   { return int32(d.u32()) }
func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) u8() byte {
	if p := d.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (d *decoder) rel(r *Rel) {
	for i := range r.BinA {
		r.BinA[i] = d.f64()
	}
	for i := range r.AinB {
		r.AinB[i] = d.f64()
	}
	for i := range r.Q {
		r.Q[i] = d.f64()
	}
}

// count reads a u32 count of items of size bytes each, refusing one that
// the bytes left cannot hold.
func (d *decoder) count(size int, what string) int {
	n := d.u32()
	if d.err == nil && uint64(n)*uint64(size) > uint64(len(d.b)-d.off) {
		d.fail("%d %s do not fit in the %d bytes left", n, what, len(d.b)-d.off)
		return 0
	}
	return int(n)
}

// UnmarshalBinary replaces the snapshot with the one data encodes (see
// AppendBinary). Malformed data, including a pair ID given twice, a batch
// index out of range, a negative shape ID or rays out of vertex order,
// is refused with an error wrapping narrow.ErrBadState that names the
// byte, and leaves the snapshot empty. Whether the vertex, primitive and
// edge indices exist is for Validate to say, once the shapes are known.
func (sn *Snapshot) UnmarshalBinary(data []byte) error {
	d := &decoder{b: data}
	err := sn.decode(d)
	if err == nil && d.off != len(data) {
		d.fail("%d bytes after the last state", len(data)-d.off)
		err = d.err
	}
	if err != nil {
		sn.n = 0
	}
	return err
}

func (sn *Snapshot) decode(d *decoder) error {
	n := d.count(stateBytes, "pair states")
	sn.n = 0
	seen := make(map[uint64]bool, n)
	for range n {
		if sn.n == len(sn.states) {
			sn.states = append(sn.states, PairState{})
		}
		s := &sn.states[sn.n]
		s.reset(0, 0)
		at := d.off
		s.id = d.u64()
		s.pos = d.i32()
		s.A, s.B = narrow.ShapeID(d.i32()), narrow.ShapeID(d.i32())
		f := d.u8()
		s.Clear[0], s.Clear[1] = d.f64(), d.f64()
		d.rel(&s.RelNI)
		d.rel(&s.Last)
		d.rel(&s.EdgeRel)
		s.EdgeMargin, s.EdgeGap = d.f64(), d.f64()
		s.EdgeSteps = d.i32()
		for k := range s.Rays {
			for range d.count(rayBytes, "rays") {
				r := Ray{Vertex: d.i32(), Prim: d.i32()}
				switch d.u8() {
				case 0:
				case 1:
					r.Predicted = true
				default:
					d.fail("pair %d: a ray's predicted flag is not 0 or 1", s.id)
				}
				if l := len(s.Rays[k]); l > 0 && s.Rays[k][l-1].Vertex > r.Vertex {
					d.fail("pair %d: rays out of vertex order", s.id)
				}
				s.Rays[k] = append(s.Rays[k], r)
			}
		}
		for range d.count(edgeBytes, "edge pairs") {
			s.Edges = append(s.Edges, narrow.EdgePair{Src: d.i32(), Dst: d.i32()})
		}
		if d.err != nil {
			return d.err
		}
		switch {
		case seen[s.id]:
			d.off = at
			d.fail("pair %d given twice", s.id)
		case s.pos < -1 || s.pos >= maxPos:
			d.off = at
			d.fail("pair %d: batch index %d out of range", s.id, s.pos)
		case s.A < 0 || s.B < 0:
			d.off = at
			d.fail("pair %d: shape IDs %d and %d", s.id, s.A, s.B)
		case f&^flagsAll != 0:
			d.off = at
			d.fail("pair %d: unknown flags %#x", s.id, f)
		}
		if d.err != nil {
			return d.err
		}
		seen[s.id] = true
		s.Valid, s.HasLast = f&flagValid != 0, f&flagHasLast != 0
		s.HasEdges, s.HasEdgeRel = f&flagHasEdges != 0, f&flagHasEdgeRel != 0
		s.Quiet = [2]bool{f&flagQuiet0 != 0, f&flagQuiet1 != 0}
		sn.n++
	}
	return d.err
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
	}
	return nil
}
