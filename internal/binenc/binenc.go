// Package binenc reads and writes the fixed-width little-endian binary
// forms of irtcd's saved states (iterative.Snapshot, cpubackend.State,
// rigid.State): appenders for the values, and a Reader that checks every
// read against the bytes left and remembers the first error, naming its
// byte offset.
package binenc

import (
	"encoding/binary"
	"fmt"
	"math"
)

// AppendU32 appends v.
func AppendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }

// AppendU64 appends v.
func AppendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendI32 appends v.
func AppendI32(b []byte, v int32) []byte { return AppendU32(b, uint32(v)) }

// AppendF64 appends v's IEEE 754 bits.
func AppendF64(b []byte, v float64) []byte { return AppendU64(b, math.Float64bits(v)) }

// AppendF64s appends each of vs.
func AppendF64s(b []byte, vs ...float64) []byte {
	for _, v := range vs {
		b = AppendF64(b, v)
	}
	return b
}

// AppendBool appends 1 for true, 0 for false.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// Reader reads a binary form. After the first failure every read returns
// zero and Err the failure, which wraps the Reader's sentinel error.
type Reader struct {
	b    []byte
	off  int
	err  error
	kind error
}

// NewReader returns a Reader of data whose errors wrap kind.
func NewReader(data []byte, kind error) *Reader { return &Reader{b: data, kind: kind} }

// Err returns the first failure, or nil.
func (r *Reader) Err() error { return r.err }

// Offset returns the number of bytes read.
func (r *Reader) Offset() int { return r.off }

// Left returns the number of bytes not read yet.
func (r *Reader) Left() int { return len(r.b) - r.off }

// Failf records a failure at offset off (the start of the element at
// fault), unless one was recorded already.
func (r *Reader) Failf(off int, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: byte %d: %s", r.kind, off, fmt.Sprintf(format, args...))
	}
}

// Bytes returns the next n bytes (aliasing the data).
func (r *Reader) Bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || r.Left() < n {
		r.Failf(r.off, "%d bytes needed, %d left", n, r.Left())
		return nil
	}
	p := r.b[r.off : r.off+n]
	r.off += n
	return p
}

// U8 reads a byte.
func (r *Reader) U8() byte {
	if p := r.Bytes(1); p != nil {
		return p[0]
	}
	return 0
}

// U32 reads a uint32.
func (r *Reader) U32() uint32 {
	if p := r.Bytes(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

// U64 reads a uint64.
func (r *Reader) U64() uint64 {
	if p := r.Bytes(8); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// I32 reads an int32.
func (r *Reader) I32() int32 { return int32(r.U32()) }

// F64 reads a float64.
func (r *Reader) F64() float64 { return math.Float64frombits(r.U64()) }

// F64s fills vs.
func (r *Reader) F64s(vs []float64) {
	for i := range vs {
		vs[i] = r.F64()
	}
}

// Bool reads a byte that must be 0 or 1.
func (r *Reader) Bool(what string) bool {
	at := r.off
	switch r.U8() {
	case 0:
		return false
	case 1:
		return true
	}
	r.Failf(at, "%s is not 0 or 1", what)
	return false
}

// Count reads a uint32 count of elements of at least size bytes each,
// refusing one that the bytes left cannot hold.
func (r *Reader) Count(size int, what string) int {
	at := r.off
	n := r.U32()
	if r.err == nil && uint64(n)*uint64(max(size, 1)) > uint64(r.Left()) {
		r.Failf(at, "%d %s do not fit in the %d bytes left", n, what, r.Left())
		return 0
	}
	return int(n)
}

// End fails unless every byte was read.
func (r *Reader) End() error {
	if r.err == nil && r.Left() != 0 {
		r.Failf(r.off, "%d bytes after the end", r.Left())
	}
	return r.err
}
