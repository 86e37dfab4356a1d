package plugin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// ProtocolVersion is the version of the plugin protocol (the messages of
// pb/irtcd.proto and their packed layouts). Host and plugin must agree on
// it in go-plugin's handshake. Version 2 added the shared region's
// doorbell (a 128-byte header) and TakeShared; version 3
// UnregisterShapes and released entries; version 4 SaveState and
// RestoreState; version 5 Params.edge_depth (an older plugin would drop
// it and bound edge contacts by the default) and the backend state's
// format 3, which carries it; version 6 Params.edge_faces and
// Stats.edge_face_contacts (an older plugin would drop the flag and
// return no edge-through-face contacts), contacts of feature 2
// (narrow.FeatureEdgeFace), and the backend state's format 5.
const ProtocolVersion = 6

// Handshake is the go-plugin handshake of irtcd narrow-phase plugins: the
// protocol version and the magic cookie. A plugin binary started by hand,
// without the cookie in its environment, says it is a plugin and exits.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "IRTCD_NARROW_PLUGIN",
	MagicCookieValue: "a4c1d3e0-irtcd-narrow-phase-v1", // the cookie names the plugin kind, not the version
}

// pluginName is the name the narrow phase is dispensed under.
const pluginName = "narrow"

// DefaultMaxMessageSize is the default largest gRPC message, in bytes, either
// way (256 MiB: about two million pairs per step).
const DefaultMaxMessageSize = 256 << 20

// HTTP/2 flow-control windows and socket buffers of both ends: large
// enough that a step's request or response crosses in one go, without
// waiting for window updates.
const (
	windowSize = 64 << 20
	bufferSize = 1 << 20
)

// Environment variables the host sets for the plugin process.
const (
	envMaxMessage = "IRTCD_PLUGIN_MAX_MESSAGE" // largest message in bytes
	envLogLevel   = "IRTCD_PLUGIN_LOG_LEVEL"   // most verbose level the host logs (hclog names)
)

// Factory makes the backend a plugin serves, with the host's parameters
// and worker count (0: the backend's default), logging to log. It is
// called on every Configure; the previous backend is closed first.
//
// The backend must number shapes 0, 1, 2, ... in registration order, as
// cpubackend does: the host relies on it so that shape IDs, and the errors
// that name them, are the same in and out of process.
type Factory func(p narrow.Params, workers int, log *slog.Logger) (narrow.Backend, error)

// CPUFactory is the Factory of the in-process CPU backend (package
// cpubackend); cmd/irtcd-plugin serves it.
func CPUFactory(p narrow.Params, workers int, log *slog.Logger) (narrow.Backend, error) {
	opts := []cpubackend.Option{cpubackend.WithLogger(log)}
	if workers > 0 {
		opts = append(opts, cpubackend.WithWorkers(workers))
	}
	return cpubackend.New(p, opts...)
}

// Server is the plugin side of the protocol: it implements the gRPC
// service of package pb on a backend made by a Factory. Serve runs one in a
// plugin process; tests can call its methods directly.
//
// Every request is checked before use: a malformed or inconsistent request
// gets an InvalidArgument error and changes nothing, and the server goes on
// serving. Its methods are safe for concurrent use (they are serialised).
type Server struct {
	pb.UnimplementedNarrowServer

	factory Factory
	log     *slog.Logger

	mu      sync.Mutex
	be      narrow.Backend
	nshapes int                        // shapes registered with be
	byHash  map[[32]byte]*narrow.Shape // the shapes received, by content hash, while registered
	hashOf  [][32]byte                 // by ID: the content hash of each shape registered with be
	shapeOf []*narrow.Shape            // by ID: the shape registered with be (or reshaped since)
	live    []bool                     // by ID: registered and not released
	refs    map[[32]byte]int           // live IDs per content hash
	pairs   []narrow.Pair              // scratch of Detect
	res     narrow.Result              // scratch of Detect

	shm       []byte           // the shared region of DetectShared, nil when none
	shmMapped bool             // shm is a mapping (not a test's slice)
	shmReq    pb.DetectRequest // scratch of DetectShared: the request, read in place
	enc       responseEncoder  // scratch of DetectShared: the response's encoder
	stream    streamEncoder    // scratch of DetectShared: the encoder of a backend that streams

	ring     *ringWaiter             // the goroutine answering shm's doorbell, nil when none
	ringReq  pb.DetectSharedRequest  // scratch of a rung step: its request
	ringResp pb.DetectSharedResponse // scratch of a rung step: its reply
	pending  *takeable               // the outcome of the last rung step, until taken
}

// ringWaiter is the goroutine that waits on a region's doorbell. Once
// stopped it unmaps the region itself, when it no longer touches it.
type ringWaiter struct {
	mem  []byte
	stop atomic.Bool
}

// takeable is the outcome of a rung step for TakeShared.
type takeable struct {
	seq  uint64
	resp *pb.DetectSharedResponse
	err  error
}

// ringPoll bounds a wait on the doorbell, so that a waiter that missed its
// stop (it cannot: stopping rings the bell) would still notice it.
const ringPoll = time.Second

// NewServer returns a server whose backend f makes (at the first
// Configure), logging to log (nil: slog.Default()).
func NewServer(f Factory, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	return &Server{factory: f, log: log, byHash: make(map[[32]byte]*narrow.Shape), refs: make(map[[32]byte]int)}
}

// placeholder is the shape a released entry registers (and releases at
// once): a tetrahedron.
var placeholder = sync.OnceValue(func() *narrow.Shape {
	s, err := narrow.NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}})
	if err != nil {
		panic("plugin: placeholder shape: " + err.Error())
	}
	return s
})

// Configure (re)creates the backend with the host's parameters. Shape
// registrations start afresh (shapes received before stay known by their
// hash).
func (s *Server) Configure(_ context.Context, req *pb.ConfigureRequest) (*pb.ConfigureResponse, error) {
	p, err := decodeParams(req.GetParams())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "configure: %v", err)
	}
	if req.GetWorkers() < 0 || req.GetWorkers() > 1<<16 {
		return nil, status.Errorf(codes.InvalidArgument, "configure: %d workers", req.GetWorkers())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.be != nil {
		s.be.Close()
		s.be, s.nshapes = nil, 0
		s.hashOf, s.live, s.shapeOf = s.hashOf[:0], s.live[:0], s.shapeOf[:0]
		clear(s.refs)
	}
	be, err := s.factory(p, int(req.GetWorkers()), s.log)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "configure: %v", err)
	}
	s.be = be
	desc := fmt.Sprintf("%T", be)
	s.log.Info("irtcd plugin: backend configured", "backend", desc, "method", p.Method.String(),
		"traversal", p.Traversal.String(), "response", p.Response.String(), "workers", req.GetWorkers())
	_, reshapes := be.(narrow.Reshaper)
	return &pb.ConfigureResponse{Pid: int64(os.Getpid()), Backend: desc, FusesMultiplyAdd: narrow.FusesMultiplyAdd(), Reshapes: reshapes}, nil
}

// RegisterShapes registers shapes in order. An entry without data must name
// the hash of a shape received before. On error the entries before the
// failing one stay registered.
func (s *Server) RegisterShapes(_ context.Context, req *pb.RegisterShapesRequest) (*pb.RegisterShapesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.be == nil {
		return nil, status.Error(codes.FailedPrecondition, "register shapes: not configured")
	}
	out := &pb.RegisterShapesResponse{Ids: make([]int32, 0, len(req.GetShapes()))}
	for i, e := range req.GetShapes() {
		if e.GetReleased() {
			if len(e.GetHash()) != 0 || e.GetData() != nil {
				return nil, status.Errorf(codes.InvalidArgument, "register shapes: entry %d: a released entry with a hash or data", i)
			}
			if err := s.register(placeholder(), [32]byte{}); err != nil {
				return nil, status.Errorf(codes.Internal, "register shapes: entry %d: %v", i, err)
			}
			if err := s.be.UnregisterShape(narrow.ShapeID(s.nshapes - 1)); err != nil {
				return nil, status.Errorf(codes.Internal, "register shapes: entry %d: %v", i, err)
			}
			s.live[s.nshapes-1] = false
			out.Ids = append(out.Ids, int32(s.nshapes-1))
			continue
		}
		if len(e.GetHash()) != 32 {
			return nil, status.Errorf(codes.InvalidArgument, "register shapes: entry %d: hash of %d bytes", i, len(e.GetHash()))
		}
		key := [32]byte(e.GetHash())
		sh := s.byHash[key]
		if d := e.GetData(); d != nil {
			if shapeHash(d) != key {
				return nil, status.Errorf(codes.InvalidArgument, "register shapes: entry %d: content does not match its hash", i)
			}
			if sh == nil {
				var err error
				if sh, err = decodeShape(d); err != nil {
					return nil, status.Errorf(codes.InvalidArgument, "register shapes: entry %d: %v", i, err)
				}
				s.byHash[key] = sh
			}
		}
		if sh == nil {
			return nil, status.Errorf(codes.FailedPrecondition, "register shapes: entry %d: unknown shape hash %x and no data", i, key[:8])
		}
		if err := s.register(sh, key); err != nil {
			return nil, status.Errorf(codes.Internal, "register shapes: entry %d: %v", i, err)
		}
		s.refs[key]++
		out.Ids = append(out.Ids, int32(s.nshapes-1))
	}
	return out, nil
}

// register registers sh with the backend as the next ID, of content hash
// key.
func (s *Server) register(sh *narrow.Shape, key [32]byte) error {
	id, err := s.be.RegisterShape(sh)
	if err != nil {
		return err
	}
	if int(id) != s.nshapes {
		return fmt.Errorf("backend gave shape %d ID %d (plugin backends must number shapes in registration order)", s.nshapes, id)
	}
	s.nshapes++
	s.hashOf = append(s.hashOf, key)
	s.live = append(s.live, true)
	s.shapeOf = append(s.shapeOf, sh)
	return nil
}

// ReshapeShapes replaces registered shapes by deformations of them
// (narrow.Shape.Deform of the shape held, to the vertices sent) under
// their IDs, with the served backend's narrow.Reshaper. The new shape's
// content is not kept by hash (it was never sent whole): its ID counts
// under the new hash until released or reshaped again, as the host
// counts it. On error the entries before the failing one stay reshaped.
func (s *Server) ReshapeShapes(_ context.Context, req *pb.ReshapeShapesRequest) (*pb.ReshapeShapesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.be == nil {
		return nil, status.Error(codes.FailedPrecondition, "reshape shapes: not configured")
	}
	r, ok := s.be.(narrow.Reshaper)
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "reshape shapes: the served backend (%T) cannot reshape", s.be)
	}
	for i, e := range req.GetShapes() {
		id := e.GetId()
		if id < 0 || int(id) >= s.nshapes || !s.live[id] {
			return nil, status.Errorf(codes.InvalidArgument, "reshape shapes: entry %d: shape %d is not registered", i, id)
		}
		cur := s.shapeOf[id]
		vs := e.GetVertices()
		if len(e.GetHash()) != 32 || len(vs) != cur.NumVertices()*vertexStride {
			return nil, status.Errorf(codes.InvalidArgument, "reshape shapes: entry %d: %d bytes of vertices for %d vertices, hash of %d bytes", i, len(vs), cur.NumVertices(), len(e.GetHash()))
		}
		verts := make([]mgl64.Vec3, cur.NumVertices())
		for v := range verts {
			verts[v] = getVec3(vs[v*vertexStride:])
		}
		next, err := cur.Deform(verts)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "reshape shapes: entry %d: %v", i, err)
		}
		d, err := encodeShape(next)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "reshape shapes: entry %d: %v", i, err)
		}
		key := [32]byte(e.GetHash())
		if shapeHash(d) != key {
			return nil, status.Errorf(codes.InvalidArgument, "reshape shapes: entry %d: content does not match its hash", i)
		}
		if err := r.ReshapeShape(narrow.ShapeID(id), next); err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "reshape shapes: entry %d: %v", i, err)
		}
		old := s.hashOf[id]
		if s.refs[old]--; s.refs[old] <= 0 {
			delete(s.refs, old)
			delete(s.byHash, old)
		}
		s.hashOf[id], s.shapeOf[id] = key, next
		s.refs[key]++
	}
	return &pb.ReshapeShapesResponse{}, nil
}

// UnregisterShapes releases registered shapes, in order. A shape's data is
// forgotten with its last registration. On error the entries before the
// failing one stay released.
func (s *Server) UnregisterShapes(_ context.Context, req *pb.UnregisterShapesRequest) (*pb.UnregisterShapesResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.be == nil {
		return nil, status.Error(codes.FailedPrecondition, "unregister shapes: not configured")
	}
	for i, id := range req.GetIds() {
		if id < 0 || int(id) >= s.nshapes || !s.live[id] {
			return nil, status.Errorf(codes.InvalidArgument, "unregister shapes: entry %d: shape %d is not registered", i, id)
		}
		if err := s.be.UnregisterShape(narrow.ShapeID(id)); err != nil {
			return nil, status.Errorf(codes.Internal, "unregister shapes: entry %d: %v", i, err)
		}
		s.live[id] = false
		key := s.hashOf[id]
		if s.refs[key]--; s.refs[key] <= 0 {
			delete(s.refs, key)
			delete(s.byHash, key)
		}
	}
	return &pb.UnregisterShapesResponse{}, nil
}

// Detect runs one step. A malformed request gets InvalidArgument; bad
// pairs (unknown shapes, NaN poses, ...) get their per-pair errors from the
// backend, exactly as in-process.
func (s *Server) Detect(ctx context.Context, req *pb.DetectRequest) (*pb.DetectResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.detect(ctx, req)
}

// detect runs one step; s.mu is held.
func (s *Server) detect(ctx context.Context, req *pb.DetectRequest) (*pb.DetectResponse, error) {
	if err := s.run(ctx, req); err != nil {
		return nil, err
	}
	return encodeResponse(&s.res), nil
}

// run decodes a request and runs its step into s.res; s.mu is held.
func (s *Server) run(ctx context.Context, req *pb.DetectRequest) error {
	if s.be == nil {
		return status.Error(codes.FailedPrecondition, "detect: not configured")
	}
	pairs, err := s.requestPairs(req)
	if err != nil {
		return err
	}
	if err := s.be.Detect(ctx, pairs, &s.res); err != nil {
		return detectStatus(err)
	}
	return nil
}

// requestPairs returns a request's pairs, read in place or unpacked into
// s.pairs; s.mu is held.
func (s *Server) requestPairs(req *pb.DetectRequest) ([]narrow.Pair, error) {
	pairs, scratch, err := decodeRequest(req, s.pairs)
	s.pairs = scratch
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "detect: %v", err)
	}
	return pairs, nil
}

// detectStatus is the gRPC status of a backend's failed step.
func detectStatus(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return status.FromContextError(err).Err()
	}
	return status.Errorf(codes.Internal, "detect: %v", err)
}

// MapShared maps the shared region at req.Path for DetectShared, in place
// of the one mapped before, and (on Linux) starts waiting on its doorbell.
// A region that cannot be mapped gets FailedPrecondition (the host then
// uses Detect).
func (s *Server) MapShared(_ context.Context, req *pb.MapSharedRequest) (*pb.MapSharedResponse, error) {
	mem, err := openRegion(req.GetPath(), req.GetSize())
	if err != nil {
		return nil, status.Errorf(codes.FailedPrecondition, "map shared: %v", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unmapShared()
	s.shm, s.shmMapped = mem, true
	if !ringSupported {
		return &pb.MapSharedResponse{}, nil
	}
	s.ring = &ringWaiter{mem: mem}
	go s.answerRing(s.ring)
	return &pb.MapSharedResponse{Ring: true}, nil
}

// unmapShared unmaps the shared region, or has its doorbell's waiter unmap
// it; s.mu is held.
func (s *Server) unmapShared() {
	switch {
	case s.ring != nil:
		// Stop the waiter: ring its bell (the host no longer uses this
		// region) so that a wait in progress ends at once.
		w := s.ring
		w.stop.Store(true)
		word(w.mem, regionBell).Add(1)
		wakeWord(word(w.mem, regionBell))
		s.ring = nil
	case s.shm != nil && s.shmMapped:
		unmap(s.shm)
	}
	s.shm, s.shmMapped, s.pending = nil, false, nil
}

// answerRing waits on w's doorbell and answers each step rung, until
// stopped; then it unmaps the region.
func (s *Server) answerRing(w *ringWaiter) {
	defer unmap(w.mem)
	bell := word(w.mem, regionBell)
	seen := uint32(0) // a new region's; the host may ring before this goroutine runs
	for !w.stop.Load() {
		v := bell.Load()
		if v == seen {
			waitWord(bell, v, ringPoll)
			continue
		}
		seen = v
		s.answerStep(w, v)
	}
}

// answerStep runs the step rung with doorbell value v exactly as a
// DetectShared call with the header's fields would, writes the answer's
// fields and then the answer word, and wakes the host. An outcome that
// does not fit in the header (an error, an inline response) waits for
// TakeShared.
func (s *Server) answerStep(w *ringWaiter, v uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w.stop.Load() {
		return
	}
	mem := w.mem
	req, out := &s.ringReq, &s.ringResp
	getRung(mem, req)
	err := s.detectShared(context.Background(), req, out)
	st := uint32(ringInRegion)
	s.pending = nil
	if err != nil || out.Inline != nil {
		st = ringTake
		s.pending = &takeable{seq: req.Seq, err: err}
		if err == nil {
			s.pending.resp = &pb.DetectSharedResponse{Seq: out.Seq, ResponseLength: out.ResponseLength, Inline: out.Inline, ResponseSize: out.ResponseSize}
		}
		out.Inline = nil
	}
	putU32(mem[regionStatus:], st)
	putU64(mem[regionRespLen:], out.ResponseLength)
	putU64(mem[regionRespSize:], out.ResponseSize)
	word(mem, regionAnswer).Store(v)
	wakeWord(word(mem, regionAnswer))
}

// TakeShared returns the outcome of the last step rung through the
// doorbell when its answer said to take it: what DetectShared would have
// returned. It can be taken once.
func (s *Server) TakeShared(_ context.Context, req *pb.TakeSharedRequest) (*pb.DetectSharedResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.pending
	if t == nil || t.seq != req.GetSeq() {
		return nil, status.Errorf(codes.FailedPrecondition, "take shared: no outcome of step %d to take", req.GetSeq())
	}
	s.pending = nil
	return t.resp, t.err
}

// DetectShared runs one step whose request is in the shared region (see
// pb/irtcd.proto). The region is checked as a message would be: a header,
// offset or length that does not fit, a sequence number that does not
// match or a malformed request gets InvalidArgument, and the server goes on
// serving. The response goes to the region when it fits, inline otherwise.
func (s *Server) DetectShared(ctx context.Context, req *pb.DetectSharedRequest) (*pb.DetectSharedResponse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := &pb.DetectSharedResponse{}
	if err := s.detectShared(ctx, req, out); err != nil {
		return nil, err
	}
	return out, nil
}

// detectShared is DetectShared into out (every field set); s.mu is held.
func (s *Server) detectShared(ctx context.Context, req *pb.DetectSharedRequest, out *pb.DetectSharedResponse) error {
	out.Seq, out.ResponseLength, out.ResponseSize, out.Inline = req.GetSeq(), 0, 0, nil
	if s.shm == nil {
		return status.Error(codes.FailedPrecondition, "detect shared: no shared region mapped")
	}
	msg := &s.shmReq
	off, capacity, err := readShared(s.shm, req, msg)
	if err != nil {
		return status.Errorf(codes.InvalidArgument, "detect shared: %v", err)
	}
	if w, ok := s.be.(resultWriterBackend); ok {
		return s.streamShared(ctx, w, msg, req.GetSeq(), off, capacity, out)
	}
	err = s.run(ctx, msg)
	msg.Pairs, msg.Poses = nil, nil // views of the region
	if err != nil {
		return err
	}
	size := s.enc.size(&s.res)
	out.ResponseSize = uint64(size)
	if size <= capacity && s.enc.write(s.shm[off:off+size:off+size], &s.res) {
		putU64(s.shm[regionRespSeq:], req.GetSeq())
		out.ResponseLength = uint64(size)
		return nil
	}
	out.Inline = encodeResponse(&s.res)
	return nil
}

// resultWriterBackend is a backend that can hand its output to any
// narrow.ResultWriter (cpubackend.Backend can).
type resultWriterBackend interface {
	DetectTo(ctx context.Context, pairs []narrow.Pair, w narrow.ResultWriter, st *narrow.Stats) error
}

// streamShared is detectShared for a backend that writes its output as it
// comes: the response is encoded straight into the region's room at off
// (or inline, when it does not fit), without a narrow.Result in between.
func (s *Server) streamShared(ctx context.Context, be resultWriterBackend, msg *pb.DetectRequest, seq uint64, off, capacity int, out *pb.DetectSharedResponse) error {
	pairs, err := s.requestPairs(msg)
	msg.Pairs, msg.Poses = nil, nil // views of the region
	if err != nil {
		return err
	}
	s.stream.begin(s.shm[off:off:off+capacity], len(pairs))
	var st narrow.Stats
	if err := be.DetectTo(ctx, pairs, &s.stream, &st); err != nil {
		return detectStatus(err)
	}
	resp, inRoom, err := s.stream.end(&st)
	if err != nil {
		return status.Errorf(codes.Internal, "detect: %v", err)
	}
	out.ResponseSize = uint64(len(resp))
	if inRoom {
		putU64(s.shm[regionRespSeq:], seq)
		out.ResponseLength = uint64(len(resp))
		return nil
	}
	out.Inline = &pb.DetectResponse{}
	if err := proto.Unmarshal(resp, out.Inline); err != nil {
		return status.Errorf(codes.Internal, "detect: own response: %v", err)
	}
	return nil
}

// readShared checks a DetectShared request against the region mem and
// reads the DetectRequest it holds into msg (whose arrays alias mem). It
// returns where the response may go.
func readShared(mem []byte, req *pb.DetectSharedRequest, msg *pb.DetectRequest) (off, capacity int, err error) {
	size := uint64(len(mem))
	if size < regionHeader || string(mem[:len(regionMagic)]) != regionMagic {
		return 0, 0, malformed("shared region of %d bytes without its header", size)
	}
	if seq := getU64(mem[regionReqSeq:]); seq != req.GetSeq() {
		return 0, 0, malformed("request %d in the shared region, %d announced", seq, req.GetSeq())
	}
	ro, rl := req.GetRequestOffset(), req.GetRequestLength()
	po, pc := req.GetResponseOffset(), req.GetResponseCapacity()
	if ro < regionHeader || ro > size || rl > size-ro {
		return 0, 0, malformed("request of %d bytes at %d in a %d-byte region", rl, ro, size)
	}
	if po < regionHeader || po > size || pc > size-po || (po < ro+rl && ro < po+pc) {
		return 0, 0, malformed("response room of %d bytes at %d in a %d-byte region, request at %d", pc, po, size, ro)
	}
	if err := unmarshalRequest(mem[ro:ro+rl], msg); err != nil {
		return 0, 0, malformed("request: %v", err)
	}
	return int(po), int(pc), nil
}

// Close closes the backend.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unmapShared()
	if s.be == nil {
		return nil
	}
	err := s.be.Close()
	s.be = nil
	return err
}

// grpcPlugin is the go-plugin glue of the narrow phase: the plugin side
// registers srv with the gRPC server, the host side gets a gRPC client.
type grpcPlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	srv *Server
}

// GRPCServer registers the narrow-phase service (plugin side).
func (p *grpcPlugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	pb.RegisterNarrowServer(s, p.srv)
	return nil
}

// GRPCClient returns the host's end of the connection.
func (p *grpcPlugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &remote{rpc: pb.NewNarrowClient(c), conn: c}, nil
}

// remote is the host's end of the connection: the generated client, and
// the connection for Detect calls with hostCodec.
type remote struct {
	rpc  pb.NarrowClient
	conn *grpc.ClientConn
}

// Serve serves the backends f makes to the host that started this process,
// over go-plugin in gRPC mode (mutual TLS when the host asks for it, as
// Host does), and returns when the host closes the connection. Call it from
// a plugin binary's main. Logs go, as hclog JSON lines on standard error,
// to the host's slog.Logger; the host sets the level and the largest
// message size through the environment.
func Serve(f Factory) {
	maxMsg := DefaultMaxMessageSize
	if v, err := strconv.Atoi(os.Getenv(envMaxMessage)); err == nil && v > 0 && v <= math.MaxInt32 {
		maxMsg = v
	}
	level := hclog.LevelFromString(os.Getenv(envLogLevel))
	if level == hclog.NoLevel {
		level = hclog.Info
	}
	hl := hclog.New(&hclog.LoggerOptions{
		Name:       "irtcd-plugin",
		Level:      level,
		Output:     os.Stderr,
		JSONFormat: true,
	})
	srv := NewServer(f, slog.New(newSlogHandler(hl)))
	defer srv.Close()
	goplugin.Serve(&goplugin.ServeConfig{
		HandshakeConfig: Handshake,
		Plugins:         goplugin.PluginSet{pluginName: &grpcPlugin{srv: srv}},
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			opts = append(opts, grpc.ForceServerCodec(serverCodec{}),
				grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg),
				grpc.InitialWindowSize(windowSize), grpc.InitialConnWindowSize(windowSize),
				grpc.ReadBufferSize(bufferSize), grpc.WriteBufferSize(bufferSize))
			return grpc.NewServer(opts...)
		},
		Logger: hl,
	})
}
