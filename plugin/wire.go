package plugin

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// Strides of the packed arrays (bytes per element); the layouts are
// documented in pb/irtcd.proto.
const (
	pairStride     = 16      // ID uint64, A int32, B int32
	poseStride     = 2 * 56  // two poses of 7 float64
	recordStride   = 128     // pairStride then poseStride bytes: a narrow.Pair
	infoStride     = 12      // contacts uint32, manifolds uint32, flags uint32
	contactStride  = 72      // P, Depth, Dir (7 float64), From uint8, 3 padding, Vertex int32, Prim int32, 4 padding
	manifoldStride = 28      // Normal (3 float64), points uint32
	refStride      = 4       // uint32: index among the pair's contacts, or literalRef
	vertexStride   = 24      // 3 float64
	primStride     = 12      // 3 int32
	loopStride     = 4       // uint32
	requestSlack   = 1 << 10 // bytes of a DetectRequest besides its arrays (an upper bound)
)

// literalRef marks a manifold point sent in full (not as one of its pair's
// contacts).
const literalRef = math.MaxUint32

// Flags of a pair's result.
const (
	flagIterative = 1 << 0
	flagFailed    = 1 << 1
)

// errMalformed is the cause of every error about a malformed message.
var errMalformed = errors.New("malformed message")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// errorKinds are the sentinels a pair's error can wrap, by wire code. Codes
// are part of the protocol: append, never reorder.
var errorKinds = [...]error{
	nil, // 0: none of the below
	narrow.ErrEmpty,
	narrow.ErrNonFinite,
	narrow.ErrIndexRange,
	narrow.ErrDegenerate,
	narrow.ErrOpenBoundary,
	narrow.ErrNonManifold,
	narrow.ErrWinding,
	narrow.ErrSelfIntersect,
	narrow.ErrSyntax,
	narrow.ErrBadPose,
	narrow.ErrUnknownShape,
	narrow.ErrDimension,
	narrow.ErrDuplicatePair,
	narrow.ErrBadParams,
	narrow.ErrBackendClosed,
	narrow.ErrTooLarge,
	context.Canceled,
	context.DeadlineExceeded,
}

// errorCode returns the wire code of the first sentinel err wraps, or 0.
func errorCode(err error) uint32 {
	for i := 1; i < len(errorKinds); i++ {
		if errors.Is(err, errorKinds[i]) {
			return uint32(i)
		}
	}
	return 0
}

// RemoteError is the error of a pair as the plugin process reported it: its
// message, and the narrow sentinel error it wrapped there (nil if none), so
// that errors.Is works on the host as it does in-process. A pair's Err in a
// Host's result is a *narrow.PairError whose cause is a *RemoteError, and
// prints exactly as the in-process error does.
type RemoteError struct {
	Msg  string
	Kind error
}

// Error returns the message the plugin process reported.
func (e *RemoteError) Error() string { return e.Msg }

// Unwrap returns the sentinel error the remote error wrapped.
func (e *RemoteError) Unwrap() error { return e.Kind }

// remoteError rebuilds the error of one failed pair; its code must be
// known.
func remoteError(f *pb.PairFailure) error {
	re := &RemoteError{Msg: f.GetMessage(), Kind: errorKinds[f.GetCode()]}
	if f.GetPairError() {
		return &narrow.PairError{ID: f.GetPairId(), Err: re}
	}
	return re
}

// failure encodes the error of pair index i.
func failure(i int, err error) *pb.PairFailure {
	f := &pb.PairFailure{Index: uint32(i)}
	if pe, ok := err.(*narrow.PairError); ok && pe.Err != nil {
		f.PairError, f.PairId = true, pe.ID
		err = pe.Err
	}
	f.Code, f.Message = errorCode(err), err.Error()
	return f
}

func putF64(b []byte, v float64) { binary.LittleEndian.PutUint64(b, math.Float64bits(v)) }
func getF64(b []byte) float64    { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }
func putU32(b []byte, v uint32)  { binary.LittleEndian.PutUint32(b, v) }
func getU32(b []byte) uint32     { return binary.LittleEndian.Uint32(b) }

func putVec3(b []byte, v mgl64.Vec3) {
	putF64(b[0:], v[0])
	putF64(b[8:], v[1])
	putF64(b[16:], v[2])
}

func getVec3(b []byte) mgl64.Vec3 { return mgl64.Vec3{getF64(b[0:]), getF64(b[8:]), getF64(b[16:])} }

func putPose(b []byte, p *narrow.Pose) {
	putVec3(b[0:], p.Pos)
	putF64(b[24:], p.Rot.W)
	putVec3(b[32:], p.Rot.V)
}

func getPose(p *narrow.Pose, b []byte) {
	b = b[:56]
	p.Pos[0], p.Pos[1], p.Pos[2] = getF64(b[0:]), getF64(b[8:]), getF64(b[16:])
	p.Rot.W = getF64(b[24:])
	p.Rot.V[0], p.Rot.V[1], p.Rot.V[2] = getF64(b[32:]), getF64(b[40:]), getF64(b[48:])
}

func putContact(b []byte, c *narrow.Contact) {
	b = b[:contactStride]
	putVec3(b[0:], c.P)
	putF64(b[24:], c.Depth)
	putVec3(b[32:], c.Dir)
	putU32(b[56:], uint32(c.From)|uint32(c.Feature)<<8) // and 2 bytes of padding
	putU32(b[60:], uint32(c.Vertex))
	putU32(b[64:], uint32(c.Prim))
	putU32(b[68:], 0)
}

func getContact(b []byte, c *narrow.Contact) error {
	b = b[:contactStride]
	side, feat := b[56], b[57] // read once: b may be shared memory
	if side > byte(narrow.SideB) {
		return malformed("contact side %d", side)
	}
	if feat > byte(narrow.FeatureEdgeFace) {
		return malformed("contact feature %d", feat)
	}
	c.P[0], c.P[1], c.P[2] = getF64(b[0:]), getF64(b[8:]), getF64(b[16:])
	c.Depth = getF64(b[24:])
	c.Dir[0], c.Dir[1], c.Dir[2] = getF64(b[32:]), getF64(b[40:]), getF64(b[48:])
	c.From, c.Feature = narrow.Side(side), narrow.Feature(feat)
	c.Vertex = int32(getU32(b[60:]))
	c.Prim = int32(getU32(b[64:]))
	return nil
}

// nativeContacts reports that narrow.Contact's memory layout is the
// packed contacts' (a little-endian machine), so that contacts are copied
// to and from the wire as they are.
var nativeContacts = func() bool {
	var c narrow.Contact
	return littleEndian && unsafe.Sizeof(c) == contactStride &&
		unsafe.Offsetof(c.Depth) == 24 && unsafe.Offsetof(c.Dir) == 32 && unsafe.Sizeof(c.From) == 1 &&
		unsafe.Offsetof(c.From) == 56 && unsafe.Sizeof(c.Feature) == 1 && unsafe.Offsetof(c.Feature) == 57 && unsafe.Offsetof(c.Vertex) == 60 && unsafe.Offsetof(c.Prim) == 64
}()

// contactBytes returns the memory of cs as bytes (nativeContacts only).
func contactBytes(cs []narrow.Contact) []byte {
	if len(cs) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&cs[0])), len(cs)*contactStride)
}

// putContacts writes cs to b (contactStride bytes each).
func putContacts(b []byte, cs []narrow.Contact) {
	if nativeContacts {
		copy(b, contactBytes(cs))
		return
	}
	putContactFields(b, cs)
}

// putContactFields is putContacts field by field, on any machine.
func putContactFields(b []byte, cs []narrow.Contact) {
	for k := range cs {
		putContact(b[k*contactStride:], &cs[k])
	}
}

// getContactFields is getContacts field by field, on any machine.
func getContactFields(dst []narrow.Contact, b []byte) error {
	for k := range dst {
		if err := getContact(b[k*contactStride:], &dst[k]); err != nil {
			return err
		}
	}
	return nil
}

// getContacts reads len(dst) contacts from b into dst, and checks them.
// It copies first and checks the copy: b may be shared memory.
func getContacts(dst []narrow.Contact, b []byte) error {
	if !nativeContacts {
		return getContactFields(dst, b)
	}
	copy(contactBytes(dst), b[:len(dst)*contactStride])
	for k := range dst {
		if s := dst[k].From; s > narrow.SideB {
			return malformed("contact side %d", s)
		}
		if f := dst[k].Feature; f > narrow.FeatureEdgeFace {
			return malformed("contact feature %d", f)
		}
	}
	return nil
}

// requestSize returns the size of a DetectRequest for n pairs (an upper
// bound).
func requestSize(n int) int { return n*(pairStride+poseStride) + requestSlack }

// putPairIDs writes a pair's ID and shapes (pairStride bytes).
func putPairIDs(q []byte, p *narrow.Pair) {
	binary.LittleEndian.PutUint64(q[0:], p.ID)
	putU32(q[8:], uint32(p.A))
	putU32(q[12:], uint32(p.B))
}

// getPairIDs reads a pair's ID and shapes (pairStride bytes).
func getPairIDs(p *narrow.Pair, q []byte) {
	p.ID = binary.LittleEndian.Uint64(q[0:])
	p.A = narrow.ShapeID(int32(getU32(q[8:])))
	p.B = narrow.ShapeID(int32(getU32(q[12:])))
}

// littleEndian: this machine stores numbers little endian, as the wire.
var littleEndian = func() bool {
	one := uint16(1)
	return *(*byte)(unsafe.Pointer(&one)) == 1
}()

// nativeRecords reports that narrow.Pair's memory layout is the records'
// (a little-endian machine, no padding), so that the host copies its pairs
// into a request as they are and the plugin reads them in place.
var nativeRecords = func() bool {
	var p narrow.Pair
	return littleEndian && unsafe.Sizeof(p) == recordStride &&
		unsafe.Offsetof(p.A) == 8 && unsafe.Offsetof(p.B) == 12 &&
		unsafe.Offsetof(p.PoseA) == 16 && unsafe.Offsetof(p.PoseB) == 72 && unsafe.Sizeof(p.PoseA) == 56 &&
		unsafe.Offsetof(p.PoseA.Rot) == 24 && unsafe.Offsetof(p.PoseA.Rot.V) == 8
}()

// packRecords writes the pairs as records to b (recordStride bytes each).
func packRecords(b []byte, pairs []narrow.Pair) {
	if len(pairs) == 0 {
		return
	}
	if nativeRecords {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(&pairs[0])), len(pairs)*recordStride))
		return
	}
	packRecordFields(b, pairs)
}

// packRecordFields is packRecords field by field, on any machine.
func packRecordFields(b []byte, pairs []narrow.Pair) {
	for i := range pairs {
		p := &pairs[i]
		q := b[i*recordStride : (i+1)*recordStride]
		putPairIDs(q, p)
		putPose(q[16:], &p.PoseA)
		putPose(q[72:], &p.PoseB)
	}
}

// recordsView returns the records b as pairs in place, when the layouts
// agree and b is aligned for narrow.Pair (ok false otherwise). Any bytes
// are a valid narrow.Pair: it holds no pointers, and the backend checks
// shape IDs and poses.
func recordsView(b []byte) (pairs []narrow.Pair, ok bool) {
	if !nativeRecords || len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(narrow.Pair{}) != 0 {
		return nil, false
	}
	return unsafe.Slice((*narrow.Pair)(unsafe.Pointer(&b[0])), len(b)/recordStride), true
}

// unpackRecords reads len(dst) records from b, field by field.
func unpackRecords(dst []narrow.Pair, b []byte) {
	for i := range dst {
		p := &dst[i]
		q := b[i*recordStride : (i+1)*recordStride]
		getPairIDs(p, q)
		getPose(&p.PoseA, q[16:])
		getPose(&p.PoseB, q[72:])
	}
}

// decodeRequest returns a step's pairs: a view of the request's records
// when they can be read in place, or else unpacked into dst (reusing its
// storage), which it returns as scratch. It checks every array's length;
// shape IDs and poses are checked by the backend, per pair, exactly as
// in-process.
func decodeRequest(req *pb.DetectRequest, dst []narrow.Pair) (pairs, scratch []narrow.Pair, err error) {
	n := int(req.GetNumPairs())
	if recs := req.GetRecords(); len(recs) > 0 {
		if len(req.GetPairs()) != 0 || len(req.GetPoses()) != 0 {
			return nil, dst, malformed("both records and pairs or poses")
		}
		if len(recs) != n*recordStride {
			return nil, dst, malformed("%d pairs need %d bytes of records, got %d", n, n*recordStride, len(recs))
		}
		if v, ok := recordsView(recs); ok {
			return v, dst, nil
		}
		if cap(dst) < n {
			dst = make([]narrow.Pair, n)
		}
		dst = dst[:n]
		unpackRecords(dst, recs)
		return dst, dst, nil
	}
	if len(req.GetPairs()) != n*pairStride {
		return nil, dst, malformed("%d pairs need %d bytes of pairs, got %d", n, n*pairStride, len(req.GetPairs()))
	}
	if len(req.GetPoses()) != n*poseStride {
		return nil, dst, malformed("%d pairs need %d bytes of poses, got %d", n, n*poseStride, len(req.GetPoses()))
	}
	if cap(dst) < n {
		dst = make([]narrow.Pair, n)
	}
	dst = dst[:n]
	ids, poses := req.GetPairs(), req.GetPoses()
	for i := range dst {
		p := &dst[i]
		getPairIDs(p, ids[i*pairStride:(i+1)*pairStride])
		q := poses[i*poseStride : (i+1)*poseStride]
		getPose(&p.PoseA, q[0:])
		getPose(&p.PoseB, q[56:])
	}
	return dst, dst, nil
}

// encodeResponse packs a step's result. A manifold point that is a copy
// of one of its pair's contacts (as the reduction makes them) travels as
// that contact's index.
func encodeResponse(res *narrow.Result) *pb.DetectResponse {
	nc, nm, np := 0, 0, 0
	for i := range res.Pairs {
		p := &res.Pairs[i]
		nc += len(p.Contacts)
		nm += len(p.Manifolds)
		for k := range p.Manifolds {
			np += len(p.Manifolds[k].Points)
		}
	}
	out := &pb.DetectResponse{
		Pairs:     make([]byte, len(res.Pairs)*infoStride),
		Contacts:  make([]byte, nc*contactStride),
		Manifolds: make([]byte, nm*manifoldStride),
		PointRefs: make([]byte, np*refStride),
		Stats:     encodeStats(&res.Stats),
	}
	c, m, r := out.Contacts, out.Manifolds, out.PointRefs
	for i := range res.Pairs {
		p := &res.Pairs[i]
		flags := pairFlags(p)
		if p.Err != nil {
			out.Failures = append(out.Failures, failure(i, p.Err))
		}
		b := out.Pairs[i*infoStride:]
		putU32(b[0:], uint32(len(p.Contacts)))
		putU32(b[4:], uint32(len(p.Manifolds)))
		putU32(b[8:], flags)
		putContacts(c, p.Contacts)
		c = c[len(p.Contacts)*contactStride:]
		next := 0
		for k := range p.Manifolds {
			mf := &p.Manifolds[k]
			putVec3(m, mf.Normal)
			putU32(m[24:], uint32(len(mf.Points)))
			m = m[manifoldStride:]
			for j := range mf.Points {
				ref := pointRef(p.Contacts, &mf.Points[j], &next)
				if ref == literalRef {
					n := len(out.Points)
					out.Points = append(out.Points, make([]byte, contactStride)...)
					putContact(out.Points[n:], &mf.Points[j])
				}
				putU32(r, ref)
				r = r[refStride:]
			}
		}
	}
	return out
}

// contactIndex returns the index of a contact bit-identical to pt among
// cs (sorted by narrow.CompareContacts), or -1. (A binary search by hand: the
// contacts are large, and slices.BinarySearchFunc would copy one per
// comparison.)
func contactIndex(cs []narrow.Contact, pt *narrow.Contact) int {
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if narrow.CompareContacts(&cs[m], pt) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(cs) && sameContact(&cs[lo], pt) && uint64(lo) < literalRef {
		return lo
	}
	return -1
}

// sameContact reports whether two contacts are equal bit for bit.
func sameContact(a, b *narrow.Contact) bool {
	for k := 0; k < 3; k++ {
		if math.Float64bits(a.P[k]) != math.Float64bits(b.P[k]) || math.Float64bits(a.Dir[k]) != math.Float64bits(b.Dir[k]) {
			return false
		}
	}
	return math.Float64bits(a.Depth) == math.Float64bits(b.Depth) && a.From == b.From && a.Feature == b.Feature && a.Vertex == b.Vertex && a.Prim == b.Prim
}

// decoder unpacks DetectResponses into a narrow.Result. It keeps no
// state: the type groups the decoding with the detectCall that owns it.
type decoder struct{}

// errPending marks, while a response is decoded, a failed pair whose error
// is still to come (the errors follow the arrays).
var errPending = errors.New("plugin: pair error pending")

// decode fills res with the response to a request for pairs, checking that
// every count, length and index is consistent. It makes one pass over the
// pairs: the arrays' lengths give the totals, which the pairs' counts must
// use exactly. Every count is read once and checked against what is left
// where it is used: a response read in place from the shared region may
// change under the decoder, which must then fail, never panic.
//
// On error res is left empty (as after Reset), never half filled.
func (d *decoder) decode(resp *pb.DetectResponse, pairs []narrow.Pair, res *narrow.Result) error {
	err := d.fill(resp, pairs, res)
	if err != nil {
		res.Reset()
	}
	return err
}

// fill is decode, but may leave res half filled on error.
func (d *decoder) fill(resp *pb.DetectResponse, pairs []narrow.Pair, res *narrow.Result) error {
	n := len(pairs)
	info := resp.GetPairs()
	if len(info) != n*infoStride {
		return malformed("%d pairs need %d bytes of results, got %d", n, n*infoStride, len(info))
	}
	wc, wm, refs, lits := resp.GetContacts(), resp.GetManifolds(), resp.GetPointRefs(), resp.GetPoints()
	if len(wc)%contactStride != 0 || len(wm)%manifoldStride != 0 || len(refs)%refStride != 0 || len(lits)%contactStride != 0 {
		return malformed("arrays of %d, %d, %d and %d bytes for contacts, manifolds, point references and points",
			len(wc), len(wm), len(refs), len(lits))
	}
	if resp.GetStats() == nil {
		return malformed("no stats")
	}
	nc, nm, np, nl := len(wc)/contactStride, len(wm)/manifoldStride, len(refs)/refStride, len(lits)/contactStride

	// Straight into res's storage: every contact at once, then pair by
	// pair its manifolds, whose points are references to the pair's
	// contacts or the next literal point.
	contacts, manifolds, points := res.Alloc(n, nc, nm, np)
	if err := getContacts(contacts, wc); err != nil {
		return err
	}
	ci, mi, pi, li, nf := 0, 0, 0, 0, 0
	for i := 0; i < n; i++ {
		b := info[i*infoStride : (i+1)*infoStride]
		c, m, flags := int(getU32(b[0:])), int(getU32(b[4:])), getU32(b[8:])
		if flags&^(flagIterative|flagFailed) != 0 {
			return malformed("pair %d: flags %#x", i, flags)
		}
		if c > nc-ci || m > nm-mi {
			return malformed("pair %d: more contacts or manifolds than sent", i)
		}
		pc := contacts[ci : ci+c : ci+c]
		m0 := mi
		for ; m > 0; m-- {
			mb := wm[mi*manifoldStride : (mi+1)*manifoldStride]
			p0 := pi
			cnt := int(getU32(mb[24:]))
			if cnt > np-pi {
				return malformed("pair %d: more manifold points than sent", i)
			}
			for ; cnt > 0; cnt-- {
				switch ref := getU32(refs[pi*refStride:]); {
				case ref == literalRef:
					if li >= nl {
						return malformed("pair %d: more literal manifold points than sent", i)
					}
					if err := getContact(lits[li*contactStride:], &points[pi]); err != nil {
						return err
					}
					li++
				case uint64(ref) < uint64(c):
					points[pi] = pc[ref]
				default:
					return malformed("pair %d: manifold point refers to contact %d of %d", i, ref, c)
				}
				pi++
			}
			mf := &manifolds[mi]
			mf.Normal[0], mf.Normal[1], mf.Normal[2] = getF64(mb[0:]), getF64(mb[8:]), getF64(mb[16:])
			mf.Points = points[p0:pi:pi]
			mi++
		}
		var perr error
		if flags&flagFailed != 0 {
			perr = errPending
			nf++
		}
		res.Pairs[i] = narrow.PairResult{ID: pairs[i].ID, Contacts: pc, Manifolds: manifolds[m0:mi:mi], Iterative: flags&flagIterative != 0, Err: perr}
		ci += c
	}
	if ci != nc || mi != nm || pi != np || li != nl {
		return malformed("%d contacts, %d manifolds, %d manifold points and %d literal points sent, %d, %d, %d and %d used",
			nc, nm, np, nl, ci, mi, pi, li)
	}
	// Each failed pair gets exactly one error: as many errors as failed
	// pairs, each for a distinct one.
	if len(resp.GetFailures()) != nf {
		return malformed("%d failed pairs but %d errors", nf, len(resp.GetFailures()))
	}
	for k, f := range resp.GetFailures() {
		i := int(f.GetIndex())
		if i >= n || res.Pairs[i].Err != errPending {
			return malformed("error %d for pair %d", k, i)
		}
		if int(f.GetCode()) >= len(errorKinds) {
			return malformed("pair %d: unknown error code %d", i, f.GetCode())
		}
		res.Pairs[i].Err = remoteError(f)
	}
	res.Stats = decodeStats(resp.Stats)
	return nil
}

func encodeStats(s *narrow.Stats) *pb.Stats {
	return &pb.Stats{
		Pairs:            int64(s.Pairs),
		StandardPairs:    int64(s.StandardPairs),
		IterativePairs:   int64(s.IterativePairs),
		FailedPairs:      int64(s.FailedPairs),
		StandardRays:     int64(s.StandardRays),
		OcclusionRays:    int64(s.OcclusionRays),
		PredictiveRays:   int64(s.PredictiveRays),
		IterativeRays:    int64(s.IterativeRays),
		IterativeSteps:   int64(s.IterativeSteps),
		LostRays:         int64(s.LostRays),
		Predictions:      int64(s.Predictions),
		Contacts:         int64(s.Contacts),
		Speculative:      int64(s.Speculative),
		EdgeContacts:     int64(s.EdgeContacts),
		EdgeFaceContacts: int64(s.EdgeFaceContacts),
	}
}

func decodeStats(s *pb.Stats) narrow.Stats {
	return narrow.Stats{
		Pairs:            int(s.GetPairs()),
		StandardPairs:    int(s.GetStandardPairs()),
		IterativePairs:   int(s.GetIterativePairs()),
		FailedPairs:      int(s.GetFailedPairs()),
		StandardRays:     int(s.GetStandardRays()),
		OcclusionRays:    int(s.GetOcclusionRays()),
		PredictiveRays:   int(s.GetPredictiveRays()),
		IterativeRays:    int(s.GetIterativeRays()),
		IterativeSteps:   int(s.GetIterativeSteps()),
		LostRays:         int(s.GetLostRays()),
		Predictions:      int(s.GetPredictions()),
		Contacts:         int(s.GetContacts()),
		Speculative:      int(s.GetSpeculative()),
		EdgeContacts:     int(s.GetEdgeContacts()),
		EdgeFaceContacts: int(s.GetEdgeFaceContacts()),
	}
}

// encodeParams packs backend parameters.
func encodeParams(p narrow.Params) *pb.Params {
	return &pb.Params{
		Method:                uint32(p.Method),
		Traversal:             uint32(p.Traversal),
		Response:              uint32(p.Response),
		Culling:               uint32(p.Culling),
		DisplacementThreshold: p.DisplacementThreshold,
		Confidence:            p.Confidence,
		DistanceExtension:     p.DistanceExtension,
		MaxIt:                 int64(p.MaxIt),
		ManifoldSize:          int64(p.ManifoldSize),
		ManifoldAngle:         p.ManifoldAngle,
		Reach:                 p.Reach,
		Speculative:           p.Speculative,
		EdgeAngle:             p.EdgeAngle,
		EdgeDepth:             p.EdgeDepth,
		EdgeFaces:             p.EdgeFaces,
	}
}

// decodeParams unpacks and validates backend parameters.
func decodeParams(m *pb.Params) (narrow.Params, error) {
	if m == nil {
		return narrow.Params{}, malformed("no parameters")
	}
	if m.Method > math.MaxUint8 || m.Traversal > math.MaxUint8 || m.Response > math.MaxUint8 || m.Culling > math.MaxUint8 {
		return narrow.Params{}, malformed("method %d, traversal %d, response %d, culling %d", m.Method, m.Traversal, m.Response, m.Culling)
	}
	if m.MaxIt < 0 || m.MaxIt > math.MaxInt32 || m.ManifoldSize < 0 || m.ManifoldSize > math.MaxInt32 {
		return narrow.Params{}, malformed("MaxIt %d, ManifoldSize %d", m.MaxIt, m.ManifoldSize)
	}
	p := narrow.Params{
		Method:                narrow.Method(m.Method),
		Traversal:             narrow.Traversal(m.Traversal),
		Response:              narrow.Response(m.Response),
		Culling:               narrow.Culling(m.Culling),
		DisplacementThreshold: m.DisplacementThreshold,
		Confidence:            m.Confidence,
		DistanceExtension:     m.DistanceExtension,
		MaxIt:                 int(m.MaxIt),
		ManifoldSize:          int(m.ManifoldSize),
		ManifoldAngle:         m.ManifoldAngle,
		Reach:                 m.Reach,
		Speculative:           m.Speculative,
		EdgeAngle:             m.EdgeAngle,
		EdgeDepth:             m.EdgeDepth,
		EdgeFaces:             m.EdgeFaces,
	}
	return p, p.Validate()
}

// shapeHash is a shape's content hash: SHA-256 of a canonical encoding
// of its wire form (dimension, then each array with its length).
func shapeHash(d *pb.Shape) [32]byte {
	h := sha256.New()
	var b [8]byte
	h.Write([]byte("irtcd shape v1\x00"))
	putU32(b[:], d.GetDim())
	h.Write(b[:4])
	for _, a := range [][]byte{d.GetVertices(), d.GetPrims(), d.GetLoops()} {
		binary.LittleEndian.PutUint64(b[:], uint64(len(a)))
		h.Write(b[:])
		h.Write(a)
	}
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}

// shapeWireSize returns the size of s's wire form (an upper bound).
func shapeWireSize(s *narrow.Shape) int {
	return s.NumVertices()*vertexStride + s.NumPrims()*(primStride+loopStride) + 128
}

// encodeShape returns the wire form of s: its vertices and primitives and,
// for a polygon, the length of each loop.
func encodeShape(s *narrow.Shape) (*pb.Shape, error) {
	nv, np := s.NumVertices(), s.NumPrims()
	d := &pb.Shape{Dim: uint32(s.Dim()), Vertices: make([]byte, nv*vertexStride), Prims: make([]byte, np*primStride)}
	for i := 0; i < nv; i++ {
		putVec3(d.Vertices[i*vertexStride:], s.Vertex(i))
	}
	for i := 0; i < np; i++ {
		p := s.Prim(i)
		for k := 0; k < 3; k++ {
			putU32(d.Prims[i*primStride+4*k:], uint32(p[k]))
		}
	}
	if s.Dim() == narrow.Dim2 {
		// NewPolygon numbers vertices and segments loop by loop, segment
		// k of a loop joining its vertices k and k+1 (either way round);
		// a loop ends at the segment that returns to its first vertex.
		if np != nv {
			return nil, fmt.Errorf("plugin: polygon with %d vertices and %d segments", nv, np)
		}
		for base := 0; base < nv; {
			end := -1
			for i := base + 1; i < np; i++ {
				if p := s.Prim(i); p[0] == int32(base) || p[1] == int32(base) {
					end = i
					break
				}
			}
			if end < 0 {
				return nil, fmt.Errorf("plugin: polygon loop at vertex %d does not close", base)
			}
			d.Loops = binary.LittleEndian.AppendUint32(d.Loops, uint32(end-base+1))
			base = end + 1
		}
	}
	return d, nil
}

// decodeShape rebuilds a shape from its wire form with narrow.NewMesh or
// narrow.NewPolygon, and checks that the result has exactly the vertices
// and primitives sent.
func decodeShape(d *pb.Shape) (*narrow.Shape, error) {
	verts, prims := d.GetVertices(), d.GetPrims()
	if len(verts)%vertexStride != 0 || len(prims)%primStride != 0 || len(d.GetLoops())%loopStride != 0 {
		return nil, malformed("shape arrays of %d, %d and %d bytes", len(verts), len(prims), len(d.GetLoops()))
	}
	nv, np := len(verts)/vertexStride, len(prims)/primStride
	var s *narrow.Shape
	var err error
	switch narrow.Dim(d.GetDim()) {
	case narrow.Dim3:
		if len(d.GetLoops()) != 0 {
			return nil, malformed("a mesh has no loops")
		}
		if d.GetDim() != uint32(narrow.Dim3) {
			return nil, malformed("dimension %d", d.GetDim())
		}
		vs := make([]mgl64.Vec3, nv)
		for i := range vs {
			vs[i] = getVec3(verts[i*vertexStride:])
		}
		tris := make([][3]int, np)
		for i := range tris {
			for k := 0; k < 3; k++ {
				tris[i][k] = int(int32(getU32(prims[i*primStride+4*k:])))
			}
		}
		s, err = narrow.NewMesh(vs, tris)
	case narrow.Dim2:
		if d.GetDim() != uint32(narrow.Dim2) {
			return nil, malformed("dimension %d", d.GetDim())
		}
		loopLens := d.GetLoops()
		if len(loopLens) == 0 {
			return nil, malformed("a polygon needs loops")
		}
		loops := make([][]mgl64.Vec2, len(loopLens)/loopStride)
		v := 0
		for li := range loops {
			n := int(getU32(loopLens[li*loopStride:]))
			if n > nv-v {
				return nil, malformed("loop %d of %d vertices: only %d left", li, n, nv-v)
			}
			loops[li] = make([]mgl64.Vec2, n)
			for k := range loops[li] {
				p := getVec3(verts[v*vertexStride:])
				if p[2] != 0 || math.Signbit(p[2]) {
					return nil, malformed("polygon vertex %d has z = %v", v, p[2])
				}
				loops[li][k] = mgl64.Vec2{p[0], p[1]}
				v++
			}
		}
		if v != nv {
			return nil, malformed("loops hold %d of %d vertices", v, nv)
		}
		s, err = narrow.NewPolygon(loops[0], loops[1:]...)
	default:
		return nil, malformed("dimension %d", d.GetDim())
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMalformed, err)
	}
	if s.NumVertices() != nv || s.NumPrims() != np {
		return nil, malformed("rebuilt shape has %d vertices and %d primitives, sent %d and %d", s.NumVertices(), s.NumPrims(), nv, np)
	}
	for i := 0; i < nv; i++ {
		w := s.Vertex(i)
		b := verts[i*vertexStride:]
		for k := 0; k < 3; k++ {
			if math.Float64bits(w[k]) != binary.LittleEndian.Uint64(b[8*k:]) {
				return nil, malformed("rebuilt vertex %d differs", i)
			}
		}
	}
	for i := 0; i < np; i++ {
		p := s.Prim(i)
		for k := 0; k < 3; k++ {
			if uint32(p[k]) != getU32(prims[i*primStride+4*k:]) {
				return nil, malformed("rebuilt primitive %d differs", i)
			}
		}
	}
	return s, nil
}

// pairFlags returns the flags word of a pair's info record.
func pairFlags(p *narrow.PairResult) uint32 {
	var flags uint32
	if p.Iterative {
		flags |= flagIterative
	}
	if p.Err != nil {
		flags |= flagFailed
	}
	return flags
}
