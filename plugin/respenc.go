package plugin

import (
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
				pt, c := &mf.Points[j], -1
				if next < len(p.Contacts) && uint64(next) < literalRef && sameContact(&p.Contacts[next], pt) {
					c = next
				} else {
					c = contactIndex(p.Contacts, pt)
				}
				ref := uint32(literalRef)
				if c >= 0 {
					ref, next = uint32(c), c+1
				} else {
					e.nlit++
				}
				e.refs = append(e.refs, ref)
			}
		}
		if p.Err != nil {
			f := failure(i, p.Err)
			e.failures = protowire.AppendTag(e.failures, respFailures, protowire.BytesType)
			e.failures = protowire.AppendVarint(e.failures, uint64(proto.Size(f)))
			e.failures, _ = proto.MarshalOptions{}.MarshalAppend(e.failures, f) // cannot fail
		}
	}
	e.stats = appendStats(e.stats[:0], &res.Stats)
	return bytesFieldSize(len(res.Pairs)*infoStride) + bytesFieldSize(e.nc*contactStride) +
		bytesFieldSize(e.nm*manifoldStride) + bytesFieldSize(e.np*refStride) +
		bytesFieldSize(e.nlit*contactStride) + bytesFieldSize(len(e.stats)) + len(e.failures)
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
const statsFields = 12

// appendStats appends the protobuf encoding of the Stats message of s
// (proto3: zero fields left out).
func appendStats(b []byte, s *narrow.Stats) []byte {
	vals := [statsFields]int{s.Pairs, s.StandardPairs, s.IterativePairs, s.FailedPairs, s.StandardRays,
		s.OcclusionRays, s.PredictiveRays, s.IterativeRays, s.IterativeSteps, s.LostRays, s.Predictions, s.Contacts}
	for k, v := range vals {
		if v != 0 {
			b = protowire.AppendTag(b, protowire.Number(k+1), protowire.VarintType)
			b = protowire.AppendVarint(b, uint64(int64(v)))
		}
	}
	return b
}
