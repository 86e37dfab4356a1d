package plugin

import (
	"fmt"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// hostCodec is the gRPC codec of the host's Detect calls. On the wire it
// is plain protobuf (the plugin decodes it with the generated code), but it
// writes the DetectRequest's encoding straight from the pairs into a
// buffer reused from step to step, and reads the DetectResponse's encoding
// straight into the caller's narrow.Result, without an intermediate copy
// of the packed arrays. Other messages go through the protobuf codec.
type hostCodec struct{}

// Name is the codec's content-subtype: the plugin decodes with its
// standard protobuf codec.
func (hostCodec) Name() string { return "proto" }

// Marshal encodes a Detect call's request, or any protobuf message.
func (hostCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *detectCall:
		return m.marshal(), nil
	case proto.Message:
		return proto.Marshal(m)
	}
	return nil, fmt.Errorf("plugin: cannot marshal %T", v)
}

// Unmarshal decodes a Detect call's reply into its result, or any
// protobuf message.
func (hostCodec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *detectCall:
		return m.unmarshal(data)
	case proto.Message:
		return proto.Unmarshal(data, m)
	}
	return fmt.Errorf("plugin: cannot unmarshal %T", v)
}

// detectCall is the request and the reply of one Detect call with
// hostCodec.
type detectCall struct {
	step  uint64
	pairs []narrow.Pair
	res   *narrow.Result
	dec   decoder
	buf   []byte // the request's encoding; reused only after a call succeeded
	err   error  // why the reply was rejected
	small []byte // a private copy of a small field of the reply

	resp  pb.DetectResponse // views of the reply being decoded
	stats pb.Stats
}

// DetectRequest field numbers (pb/irtcd.proto).
const (
	reqStep     protowire.Number = 1
	reqNumPairs protowire.Number = 2
	reqPairs    protowire.Number = 3
	reqPoses    protowire.Number = 4
	reqRecords  protowire.Number = 5
)

// marshal returns the protobuf encoding of the DetectRequest for c.pairs,
// packing the pairs and poses in place.
func (c *detectCall) marshal() []byte {
	c.buf = c.appendRequest(c.buf[:0])
	return c.buf
}

// appendRequest appends the protobuf encoding of the DetectRequest for
// c.pairs to b (in place when b has room for requestSize bytes): the
// records first, then the step and the count.
func (c *detectCall) appendRequest(b []byte) []byte {
	n := len(c.pairs)
	b = slices.Grow(b, 32+n*recordStride)
	if n > 0 {
		b = protowire.AppendTag(b, reqRecords, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(n*recordStride))
		r0 := len(b)
		b = b[:r0+n*recordStride]
		packRecords(b[r0:], c.pairs)
	}
	b = protowire.AppendTag(b, reqStep, protowire.VarintType)
	b = protowire.AppendVarint(b, c.step)
	b = protowire.AppendTag(b, reqNumPairs, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(n))
	return b
}

// recordsPad returns how many bytes to leave before a request of n pairs
// written at an 8-byte boundary so that its records start at one too (and
// the plugin can read them in place).
func recordsPad(n int) int {
	if n == 0 {
		return 0
	}
	head := protowire.SizeTag(reqRecords) + protowire.SizeVarint(uint64(n*recordStride))
	return (8 - head%8) % 8
}

// decodeShared decodes the reply to a DetectShared call of sequence number
// seq into c.res: the inline response, or the one in the shared region mem
// at off (at most capacity bytes). The region is not trusted: the response
// is checked and decoded in place as a received message would be, every
// value read once or checked again where it is used, so that a plugin
// writing to the region meanwhile gets the step failed, never a panic or
// an inconsistent narrow.Result.
func (c *detectCall) decodeShared(mem []byte, seq uint64, off, capacity int, reply *pb.DetectSharedResponse) error {
	c.err = nil
	if reply.GetSeq() != seq {
		c.err = malformed("reply to request %d for request %d", reply.GetSeq(), seq)
		return c.err
	}
	if in := reply.GetInline(); in != nil {
		if reply.GetResponseLength() != 0 {
			c.err = malformed("response both inline and in the shared region")
		} else {
			c.err = c.dec.decode(in, c.pairs, c.res)
		}
		return c.err
	}
	n := reply.GetResponseLength()
	if n == 0 || n > uint64(capacity) || off < regionHeader || off > len(mem) || capacity > len(mem)-off {
		c.err = malformed("response of %d bytes in %d bytes of room", n, capacity)
		return c.err
	}
	if s := getU64(mem[regionRespSeq:]); s != seq {
		c.err = malformed("response %d in the shared region for request %d", s, seq)
		return c.err
	}
	return c.unmarshal(mem[off : off+int(n) : off+int(n)])
}

// DetectResponse field numbers (pb/irtcd.proto).
const (
	respPairs     protowire.Number = 1
	respContacts  protowire.Number = 2
	respManifolds protowire.Number = 3
	respPoints    protowire.Number = 4
	respStats     protowire.Number = 5
	respFailures  protowire.Number = 6
	respPointRefs protowire.Number = 7
)

// unmarshal reads the protobuf encoding of a DetectResponse, as
// proto.Unmarshal would (unknown fields skipped, the last of repeated
// scalar fields kept, embedded messages merged), and decodes it into c.res.
// The views into data do not outlive the call.
func (c *detectCall) unmarshal(data []byte) error {
	c.err = c.parse(data)
	if c.err == nil {
		c.err = c.dec.decode(&c.resp, c.pairs, c.res)
	}
	c.resp.Pairs, c.resp.Contacts, c.resp.Manifolds, c.resp.Points, c.resp.PointRefs = nil, nil, nil, nil, nil
	c.resp.Failures = nil
	return c.err
}

func (c *detectCall) parse(data []byte) error {
	c.resp.Pairs, c.resp.Contacts, c.resp.Manifolds, c.resp.Points, c.resp.PointRefs = nil, nil, nil, nil, nil
	c.resp.Stats, c.resp.Failures = nil, nil
	proto.Reset(&c.stats)
	merge := proto.UnmarshalOptions{Merge: true}
	for len(data) > 0 {
		num, typ, n, err := consumeTag(data)
		if err != nil {
			return malformed("response: %v", err)
		}
		data = data[n:]
		if num < respPairs || num > respPointRefs || typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, data); n < 0 {
				return malformed("response field %d: %v", num, protowire.ParseError(n))
			}
			data = data[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return malformed("response field %d: %v", num, protowire.ParseError(n))
		}
		data = data[n:]
		switch num {
		case respPairs:
			c.resp.Pairs = v
		case respContacts:
			c.resp.Contacts = v
		case respManifolds:
			c.resp.Manifolds = v
		case respPoints:
			c.resp.Points = v
		case respPointRefs:
			c.resp.PointRefs = v
		case respStats:
			c.small = append(c.small[:0], v...) // a private copy: data may be shared memory
			if err := merge.Unmarshal(c.small, &c.stats); err != nil {
				return malformed("response stats: %v", err)
			}
			c.resp.Stats = &c.stats
		case respFailures:
			f := &pb.PairFailure{}
			c.small = append(c.small[:0], v...)
			if err := proto.Unmarshal(c.small, f); err != nil {
				return malformed("response error: %v", err)
			}
			c.resp.Failures = append(c.resp.Failures, f)
		}
	}
	return nil
}

// serverCodec is the plugin's gRPC codec: plain protobuf, except that a
// DetectRequest's packed arrays are read in place (views into the received
// message, which gRPC hands to a codec for good) instead of being copied.
type serverCodec struct{}

// Name is the codec's content-subtype.
func (serverCodec) Name() string { return "proto" }

// Marshal encodes a protobuf message.
func (serverCodec) Marshal(v any) ([]byte, error) {
	m, ok := v.(proto.Message)
	if !ok {
		return nil, fmt.Errorf("plugin: cannot marshal %T", v)
	}
	return proto.Marshal(m)
}

// Unmarshal decodes a protobuf message, a DetectRequest in place.
func (serverCodec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *pb.DetectRequest:
		return unmarshalRequest(data, m)
	case proto.Message:
		return proto.Unmarshal(data, m)
	}
	return fmt.Errorf("plugin: cannot unmarshal %T", v)
}

// unmarshalRequest reads the protobuf encoding of a DetectRequest as
// proto.Unmarshal would (unknown fields skipped, the last of repeated
// fields kept), with its byte fields aliasing data.
func unmarshalRequest(data []byte, m *pb.DetectRequest) error {
	proto.Reset(m)
	for len(data) > 0 {
		num, typ, n, err := consumeTag(data)
		if err != nil {
			return err
		}
		data = data[n:]
		switch {
		case (num == reqStep || num == reqNumPairs) && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(data)
			if n < 0 {
				return protowire.ParseError(n)
			}
			data = data[n:]
			if num == reqStep {
				m.Step = v
			} else {
				m.NumPairs = uint32(v)
			}
		case (num == reqPairs || num == reqPoses || num == reqRecords) && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(data)
			if n < 0 {
				return protowire.ParseError(n)
			}
			data = data[n:]
			switch num {
			case reqPairs:
				m.Pairs = v
			case reqPoses:
				m.Poses = v
			default:
				m.Records = v
			}
		default:
			n := protowire.ConsumeFieldValue(num, typ, data)
			if n < 0 {
				return protowire.ParseError(n)
			}
			data = data[n:]
		}
	}
	return nil
}

// consumeTag is protowire.ConsumeTag, also rejecting field numbers above
// the largest valid one, as proto.Unmarshal does.
func consumeTag(b []byte) (protowire.Number, protowire.Type, int, error) {
	num, typ, n := protowire.ConsumeTag(b)
	if n < 0 {
		return 0, 0, n, protowire.ParseError(n)
	}
	if num > protowire.MaxValidNumber {
		return 0, 0, -1, fmt.Errorf("invalid field number %d", num)
	}
	return num, typ, n, nil
}
