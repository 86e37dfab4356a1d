package plugin

import (
	"encoding/binary"
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/irtcd/irtcd/narrow"
)

// responseEncoder writes the protobuf encoding of a step's DetectResponse
// straight into a buffer (the shared region), without building the
// message: the same packed arrays as encodeResponse, in two passes over
// the result (sizes, then bytes). Its scratch buffers are reused from step
// to step, so a steady-state step allocates nothing (save for the errors
// of failed pairs).
type responseEncoder struct {
	refs     []uint32 // every manifold point's reference (see encodeResponse)
	failures []byte   // the encoded failures fields, in order
	stats    []byte   // the encoded Stats message

	nc, nm, np, nlit int // contacts, manifolds, manifold points, literal points
}

// size prepares the encoding of res and returns its length in bytes.
func (e *responseEncoder) size(res *narrow.Result) int {
	e.nc, e.nm, e.np, e.nlit = 0, 0, 0, 0
	e.refs, e.failures = e.refs[:0], e.failures[:0]
	for i := range res.Pairs {
		p := &res.Pairs[i]
		e.nc += len(p.Contacts)
		e.nm += len(p.Manifolds)
		next := 0 // the contact after the last point found: the likeliest next one
		for k := range p.Manifolds {
			mf := &p.Manifolds[k]
			e.np += len(mf.Points)
			for j := range mf.Points {
				ref := pointRef(p.Contacts, &mf.Points[j], &next)
				if ref == literalRef {
					e.nlit++
				}
				e.refs = append(e.refs, ref)
			}
		}
		if p.Err != nil {
			e.failures = appendFailure(e.failures, i, p.Err)
		}
	}
	e.stats = appendStats(e.stats[:0], &res.Stats)
	return bytesFieldSize(len(res.Pairs)*infoStride) + bytesFieldSize(e.nc*contactStride) +
		bytesFieldSize(e.nm*manifoldStride) + bytesFieldSize(e.np*refStride) +
		bytesFieldSize(e.nlit*contactStride) + bytesFieldSize(len(e.stats)) + len(e.failures)
}

// pointRef returns how a manifold point travels: as the index of a
// contact of its pair bit-identical to it, or literalRef (sent in full).
// *next is where the last point was found plus one, the likeliest place
// of the next (points usually follow their contacts' order): tried before
// a search, and updated.
func pointRef(contacts []narrow.Contact, pt *narrow.Contact, next *int) uint32 {
	c := -1
	if n := *next; n < len(contacts) && uint64(n) < literalRef && sameContact(&contacts[n], pt) {
		c = n
	} else {
		c = contactIndex(contacts, pt)
	}
	if c < 0 {
		return literalRef
	}
	*next = c + 1
	return uint32(c)
}

// appendFailure appends the failures field of pair i's error.
func appendFailure(b []byte, i int, err error) []byte {
	f := failure(i, err)
	b = protowire.AppendTag(b, respFailures, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(proto.Size(f)))
	b, _ = proto.MarshalOptions{}.MarshalAppend(b, f) // cannot fail
	return b
}

// bytesFieldSize is the size of a length-delimited field of n bytes whose
// number is below 16.
func bytesFieldSize(n int) int { return 1 + protowire.SizeVarint(uint64(n)) + n }

// appendField appends the tag and the length of a length-delimited field
// of n bytes, and returns b grown by the n bytes of its value, and where
// they start.
func appendField(b []byte, num protowire.Number, n int) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	start := len(b)
	return b[:start+n], start
}

// write writes the encoding prepared by size (of the same res) to dst,
// which must have exactly that length. It reports whether it did (false
// would be a bug).
func (e *responseEncoder) write(dst []byte, res *narrow.Result) bool {
	b := dst[:0]
	b, s := appendField(b, respPairs, len(res.Pairs)*infoStride)
	for i := range res.Pairs {
		p := &res.Pairs[i]
		q := b[s+i*infoStride : s+(i+1)*infoStride]
		putU32(q[0:], uint32(len(p.Contacts)))
		putU32(q[4:], uint32(len(p.Manifolds)))
		putU32(q[8:], pairFlags(p))
	}
	b, s = appendField(b, respContacts, e.nc*contactStride)
	for i := range res.Pairs {
		if cs := res.Pairs[i].Contacts; len(cs) > 0 { // no call for a pair without contacts
			putContacts(b[s:s+len(cs)*contactStride], cs)
			s += len(cs) * contactStride
		}
	}
	b, s = appendField(b, respManifolds, e.nm*manifoldStride)
	for i := range res.Pairs {
		ms := res.Pairs[i].Manifolds
		for k := range ms {
			q := b[s : s+manifoldStride]
			putVec3(q, ms[k].Normal)
			putU32(q[24:], uint32(len(ms[k].Points)))
			s += manifoldStride
		}
	}
	b, s = appendField(b, respPointRefs, e.np*refStride)
	for _, r := range e.refs {
		putU32(b[s:s+refStride], r)
		s += refStride
	}
	b, s = appendField(b, respPoints, e.nlit*contactStride)
	if e.nlit > 0 {
		k := 0
		for i := range res.Pairs {
			for _, mf := range res.Pairs[i].Manifolds {
				for j := range mf.Points {
					if e.refs[k] == literalRef {
						putContact(b[s:s+contactStride], &mf.Points[j])
						s += contactStride
					}
					k++
				}
			}
		}
	}
	b, s = appendField(b, respStats, len(e.stats))
	copy(b[s:], e.stats)
	b = append(b, e.failures...)
	return len(b) == len(dst) && (len(b) == 0 || &b[0] == &dst[0])
}

// Stats field numbers (pb/irtcd.proto), in order.
const statsFields = 15

// appendStats appends the protobuf encoding of the Stats message of s
// (proto3: zero fields left out).
func appendStats(b []byte, s *narrow.Stats) []byte {
	vals := [statsFields]int{s.Pairs, s.StandardPairs, s.IterativePairs, s.FailedPairs, s.StandardRays,
		s.OcclusionRays, s.PredictiveRays, s.IterativeRays, s.IterativeSteps, s.LostRays, s.Predictions, s.Contacts, s.Speculative, s.EdgeContacts, s.EdgeFaceContacts}
	for k, v := range vals {
		if v != 0 {
			b = protowire.AppendTag(b, protowire.Number(k+1), protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(int64(v)))
		}
	}
	return b
}

// streamEncoder encodes a step's DetectResponse while a backend hands it
// the pairs' outcomes one by one (it is a narrow.ResultWriter), straight
// into the shared region's response room: the same fields as
// responseEncoder, without a narrow.Result built first and then copied.
// The pair records (whose number is known) and the contacts are written
// in place as they come; the contacts' length, known only at the end, is
// a varint of fixed width (protobuf parsers take padded varints); the
// manifolds, point references, literal points and errors wait in scratch
// buffers and follow the contacts. Should the room run out, the encoding
// moves to a buffer of its own and goes on there (the response then goes
// inline). Its buffers are reused from step to step: a steady-state step
// allocates nothing (save for the errors of failed pairs).
type streamEncoder struct {
	b        []byte // the encoding so far: the room (cap its size) or heap
	heap     []byte // where it moves when the room runs out
	inRoom   bool
	n, i     int // pairs announced, pairs written
	info     int // offset of the pair records
	cs, nc   int // offset and count of the contacts
	man      []byte
	refs     []byte
	lits     []byte
	failures []byte
	stats    []byte
}

// contactsLenWidth is the fixed width of the contacts field's length.
const contactsLenWidth = 5

// begin starts the encoding of a step of n pairs into room.
func (e *streamEncoder) begin(room []byte, n int) {
	e.b, e.inRoom = room[:0], true
	e.n, e.i, e.nc = n, 0, 0
	e.man, e.refs, e.lits, e.failures = e.man[:0], e.refs[:0], e.lits[:0], e.failures[:0]
	var s int
	e.b, s = e.appendField(respPairs, n*infoStride)
	e.info = s
	e.grow(protowire.SizeTag(respContacts) + contactsLenWidth)
	t := e.b[len(e.b)-protowire.SizeTag(respContacts)-contactsLenWidth:]
	protowire.AppendTag(t[:0], respContacts, protowire.BytesType)
	e.cs = len(e.b)
}

// grow extends e.b by k bytes (their contents unspecified), moving the
// encoding to e.heap if the room is too small.
func (e *streamEncoder) grow(k int) {
	if len(e.b)+k > cap(e.b) {
		if e.inRoom {
			e.heap = append(e.heap[:0], e.b...)
			e.b, e.inRoom = e.heap, false
		}
		e.b = slices.Grow(e.b, k)
		e.heap = e.b // keep the grown array for the next steps
	}
	e.b = e.b[:len(e.b)+k]
}

// appendField appends the tag and length of a length-delimited field of
// n bytes and then room for them; it returns e.b and where the n bytes
// start.
func (e *streamEncoder) appendField(num protowire.Number, n int) ([]byte, int) {
	h := protowire.SizeTag(num) + protowire.SizeVarint(uint64(n))
	e.grow(h + n)
	at := len(e.b) - n - h
	protowire.AppendVarint(protowire.AppendTag(e.b[at:at], num, protowire.BytesType), uint64(n))
	return e.b, at + h
}

// Append writes the outcome of the next pair (narrow.ResultWriter).
func (e *streamEncoder) Append(_ uint64, contacts []narrow.Contact, manifolds []narrow.Manifold, iterative bool, err error) {
	if e.i >= e.n {
		return // more pairs than announced: end reports it
	}
	q := e.b[e.info+e.i*infoStride : e.info+(e.i+1)*infoStride]
	putU32(q[0:], uint32(len(contacts)))
	putU32(q[4:], uint32(len(manifolds)))
	putU32(q[8:], pairFlags(&narrow.PairResult{Iterative: iterative, Err: err}))
	if len(contacts) > 0 {
		e.grow(len(contacts) * contactStride)
		putContacts(e.b[len(e.b)-len(contacts)*contactStride:], contacts)
		e.nc += len(contacts)
	}
	next := 0 // the contact after the last point found: the likeliest next one
	for k := range manifolds {
		mf := &manifolds[k]
		m := len(e.man)
		e.man = append(e.man, make([]byte, manifoldStride)...)
		putVec3(e.man[m:], mf.Normal)
		putU32(e.man[m+24:], uint32(len(mf.Points)))
		for j := range mf.Points {
			ref := pointRef(contacts, &mf.Points[j], &next)
			if ref == literalRef {
				l := len(e.lits)
				e.lits = append(e.lits, make([]byte, contactStride)...)
				putContact(e.lits[l:], &mf.Points[j])
			}
			e.refs = binary.LittleEndian.AppendUint32(e.refs, ref)
		}
	}
	if err != nil {
		e.failures = appendFailure(e.failures, e.i, err)
	}
	e.i++
}

// end completes the encoding with the step's statistics and returns it,
// and whether it lies in the room given to begin (at its start). It fails
// if the backend wrote another number of pairs than announced (a bug).
func (e *streamEncoder) end(st *narrow.Stats) (resp []byte, inRoom bool, err error) {
	if e.i != e.n {
		return nil, false, fmt.Errorf("the backend wrote %d results for %d pairs", e.i, e.n)
	}
	// The contacts' length, padded to its fixed width.
	l := e.b[e.cs-contactsLenWidth : e.cs]
	v := uint64(e.nc * contactStride)
	for k := range contactsLenWidth {
		l[k] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	l[contactsLenWidth-1] &^= 0x80
	if v != 0 {
		return nil, false, fmt.Errorf("%d contacts: too many for one response", e.nc)
	}
	for _, f := range []struct {
		num protowire.Number
		b   []byte
	}{{respManifolds, e.man}, {respPointRefs, e.refs}, {respPoints, e.lits}} {
		var s int
		e.b, s = e.appendField(f.num, len(f.b))
		copy(e.b[s:], f.b)
	}
	e.stats = appendStats(e.stats[:0], st)
	var s int
	e.b, s = e.appendField(respStats, len(e.stats))
	copy(e.b[s:], e.stats)
	e.grow(len(e.failures))
	copy(e.b[len(e.b)-len(e.failures):], e.failures)
	return e.b, e.inRoom, nil
}
