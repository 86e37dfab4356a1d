// Package fuzzread reads the scripts of the API fuzz targets
// (rigid.FuzzWorldOps, cpubackend.FuzzDetect, box2dadapter.FuzzWorld,
// plugin.FuzzHostDetect) from fuzz input: bytes, numbers that are plain
// most of the time and otherwise non-finite, huge, tiny or signed zero,
// and vectors, quaternions and poses made of them.
package fuzzread

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// Specials are the numbers beyond the plain range (Reader.Num): signed
// zero, non-finite values, and magnitudes that overflow when squared or
// multiplied by a time step.
var Specials = []float64{
	math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300,
	1e-300, math.MaxFloat64, 1e6, -1e6, 1e3, 1e-9,
}

// Reader reads a script from fuzz input; past its end it reads zeros.
type Reader struct {
	data []byte
	i    int
}

// New returns a Reader of data.
func New(data []byte) *Reader { return &Reader{data: data} }

// Done reports whether every byte has been read.
func (r *Reader) Done() bool { return r.i >= len(r.data) }

// Byte reads a byte.
func (r *Reader) Byte() byte {
	if r.i >= len(r.data) {
		return 0
	}
	b := r.data[r.i]
	r.i++
	return b
}

// Num reads a number: (b−100)/20 for a byte b under 200 (−5 to 4.95 in
// steps of 0.05; Plain writes one), else one of Specials.
func (r *Reader) Num() float64 {
	b := r.Byte()
	if b < 200 {
		return float64(int(b)-100) / 20
	}
	return Specials[int(b-200)%len(Specials)]
}

// Plain returns the byte Num reads as x, a multiple of 0.05 in
// [−5, 4.95]: for writing seeds.
func Plain(x float64) byte { return byte(math.Round(x*20 + 100)) }

// Vec reads three numbers.
func (r *Reader) Vec() mgl64.Vec3 { return mgl64.Vec3{r.Num(), r.Num(), r.Num()} }

// Quat reads a quaternion, w first: it may be zero or not finite.
func (r *Reader) Quat() mgl64.Quat {
	w := r.Num()
	return mgl64.Quat{W: w, V: r.Vec()}
}

// Pose reads a position and a quaternion.
func (r *Reader) Pose() narrow.Pose {
	p := r.Vec()
	return narrow.Pose{Pos: p, Rot: r.Quat()}
}
