package plugin

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// Defaults of the host's options.
const (
	DefaultStepTimeout  = 30 * time.Second
	DefaultStartTimeout = 30 * time.Second
)

// Option configures a Host.
type Option func(*hostConfig)

type hostConfig struct {
	log          *slog.Logger
	workers      int
	stepTimeout  time.Duration
	startTimeout time.Duration
	maxMsg       int
	checksum     []byte
	shared       bool // use the shared-memory transport where it works
	noRing       bool // never ring steps through the region's doorbell (tests)
	regionSize   int  // initial size of the shared region (tests)
	responseRoom int  // if > 0, at most this room for responses in the region (tests)
}

// WithLogger routes the host's logs, and the plugin process's (through
// go-plugin's hclog), to l (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *hostConfig) { c.log = l } }

// WithWorkers sets the number of worker goroutines of the plugin's backend
// and of the CPU fallback (default: their default, GOMAXPROCS).
func WithWorkers(n int) Option { return func(c *hostConfig) { c.workers = max(0, n) } }

// WithStepTimeout sets the deadline of one try of a step's Detect call
// (default DefaultStepTimeout; 0: none besides the context's). A plugin
// that has not answered by then is taken as hung: it is restarted and the
// step retried.
func WithStepTimeout(d time.Duration) Option {
	return func(c *hostConfig) { c.stepTimeout = max(0, d) }
}

// WithStartTimeout bounds starting and configuring a plugin process, and
// sending it shapes (default DefaultStartTimeout).
func WithStartTimeout(d time.Duration) Option {
	return func(c *hostConfig) {
		if d > 0 {
			c.startTimeout = d
		}
	}
}

// WithMaxMessageSize sets the largest gRPC message either way, in bytes
// (default DefaultMaxMessageSize; at most 2 GiB - 1). The plugin rejects
// larger requests; a step whose request would be larger fails with
// narrow.ErrTooLarge.
func WithMaxMessageSize(n int) Option {
	return func(c *hostConfig) {
		if n > 0 {
			c.maxMsg = min(n, math.MaxInt32)
		}
	}
}

// WithChecksum pins the plugin binary: its SHA-256 must be sum (see
// FileChecksum), checked by go-plugin's SecureConfig before every start,
// restarts included.
func WithChecksum(sum []byte) Option {
	return func(c *hostConfig) { c.checksum = append([]byte(nil), sum...) }
}

// WithSharedMemory turns the shared-memory transport of the steps' bulk
// arrays on or off (default on, where the system supports it: unix). On,
// each step's request and response travel through a region of memory
// shared with the plugin process (a file of mode 0600 in /dev/shm, or
// else the temporary directory, unlinked as soon as both processes have
// mapped it), and only a small control message goes through gRPC. The
// bulk data then bypasses the connection's mutual TLS: like the two
// processes' own memory, it is open to the same user's processes (and
// root), and to no one else. Off, or where the region cannot be set up, the arrays
// travel in the gRPC messages, encrypted.
func WithSharedMemory(on bool) Option { return func(c *hostConfig) { c.shared = on } }

// FileChecksum returns the SHA-256 of the file at path, for WithChecksum.
func FileChecksum(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// Host is a narrow.Backend whose narrow phase runs in a plugin process
// (a binary that calls Serve, such as cmd/irtcd-plugin). See the package
// documentation for the protocol and the failure handling. Its methods are
// safe for concurrent use but are serialised.
type Host struct {
	path   string
	params narrow.Params
	cfg    hostConfig

	pid      atomic.Int64 // the plugin process's ID, 0 when none
	restarts atomic.Int64
	fused    atomic.Bool // the plugin's build fuses multiply-adds (its Configure answer)

	mu       sync.Mutex
	closed   bool
	shapes   []*narrow.Shape        // by ID; nil once released
	hashes   [][32]byte             // content hash of each shape, by ID
	data     map[[32]byte]*pb.Shape // wire form of each distinct shape registered
	refs     map[[32]byte]int       // registered (unreleased) IDs per content hash
	proc     *process               // nil: none running; start one before the next step
	fallback *cpubackend.Backend    // non-nil once the host has fallen back
	step     uint64

	call detectCall // the Detect call's buffers, reused step after step

	sharedReq   pb.DetectSharedRequest  // a shared step's request, reused
	sharedReply pb.DetectSharedResponse // a rung step's reply, reused

	regionSize int // size the next shared region is made with
	respHint   int // size of the last response, to size the region

	shmSteps, shmInline, shmGrows int // steps through the region, of which answered inline; regions grown (tests)
	ringSteps                     int // steps through the region rung through its doorbell (tests)
}

// process is one running plugin process.
type process struct {
	client   *goplugin.Client
	rpc      pb.NarrowClient
	conn     *grpc.ClientConn
	pid      int
	known    map[[32]byte]bool // shape hashes whose data the process has
	refs     map[[32]byte]int  // its registered (unreleased) shapes per content hash
	nshapes  int               // host shapes registered with it (IDs 0 to nshapes-1)
	release  []released        // shapes it has that the host released since the last step
	reshape  []reshaped        // shapes it has that the host reshaped since the last step
	reshapes bool              // its backend can reshape (ConfigureResponse.reshapes)
	shm      *region           // the region shared with it, nil: steps go through gRPC
	seq      uint64            // sequence number of the last DetectShared call
	ring     bool              // steps are rung through shm's doorbell
	bell     uint32            // the doorbell's last value
}

// released is a shape released by the host that a plugin process still
// has: its ID and content hash.
type released struct {
	id  int32
	sum [32]byte
}

// reshaped is a shape a plugin process has that the host reshaped since
// the last step: its ID and the content hash the process has it under.
type reshaped struct {
	id  int32
	was [32]byte
}

// ringSlice is the longest a host waits on a rung step's answer before
// it checks again that the plugin process is alive and the context live.
const ringSlice = 5 * time.Millisecond

// errExited: the plugin process exited during a rung step.
var errExited = errors.New("plugin process exited")

// New starts the plugin binary at path (a name without a slash is looked
// up in PATH) and configures its backend with p. It fails if the plugin
// cannot be started; later failures are handled by Detect (restart, then
// fallback to the CPU backend). Close the host to stop the process.
func New(path string, p narrow.Params, opts ...Option) (*Host, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	h := &Host{
		path:   path,
		params: p,
		cfg: hostConfig{
			log:          slog.Default(),
			stepTimeout:  DefaultStepTimeout,
			startTimeout: DefaultStartTimeout,
			maxMsg:       DefaultMaxMessageSize,
			shared:       sharedSupported,
		},
		data: make(map[[32]byte]*pb.Shape), refs: make(map[[32]byte]int),
	}
	for _, o := range opts {
		o(&h.cfg)
	}
	h.cfg.shared = h.cfg.shared && sharedSupported
	h.regionSize = regionMinSize
	if h.cfg.regionSize > 0 {
		h.regionSize = roundUp(h.cfg.regionSize, regionAlign)
	}
	if err := h.start(context.Background()); err != nil {
		return nil, fmt.Errorf("plugin: start %s: %w", path, err)
	}
	return h, nil
}

// Params returns the backend parameters.
func (h *Host) Params() narrow.Params { return h.params }

// PID returns the process ID of the running plugin, or 0 when none runs
// (between a failure and the restart, after the fallback, after Close).
func (h *Host) PID() int { return int(h.pid.Load()) }

// Restarts returns how many times the plugin process was restarted.
func (h *Host) Restarts() int { return int(h.restarts.Load()) }

// FusesMultiplyAdd reports whether the build that computes the contacts
// fuses multiply-adds (narrow.FusesMultiplyAdd): the plugin's, as it
// answered when it was last configured (plugins older than the answer
// report false), or the host's own once it has fallen back. Builds that
// fuse and builds that do not give contacts that differ in their last
// bits; the host logs a warning when the plugin's build and its own
// differ, since a restart's fallback would then change the results
// (docs/DESIGN.md, "Determinism across machines").
func (h *Host) FusesMultiplyAdd() bool {
	if h.FellBack() {
		return narrow.FusesMultiplyAdd()
	}
	return h.fused.Load()
}

// FellBack reports whether the host has fallen back to the in-process CPU
// backend, which then runs every later step.
func (h *Host) FellBack() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.fallback != nil
}

// RegisterShape makes s available to pairs under the returned ID (0, 1,
// 2, ... in registration order, as cpubackend numbers them). The host keeps
// the shape; it is sent to the plugin before the next step, only once per
// distinct content (by SHA-256 of its geometry), and again to a restarted
// plugin.
func (h *Host) RegisterShape(s *narrow.Shape) (narrow.ShapeID, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return -1, narrow.ErrBackendClosed
	}
	if s == nil {
		return -1, fmt.Errorf("%w: nil shape", narrow.ErrUnknownShape)
	}
	if size := shapeWireSize(s); size > h.cfg.maxMsg-requestSlack {
		return -1, fmt.Errorf("%w: %d vertices and %d primitives need about %d bytes, over the plugin's %d-byte message limit (see WithMaxMessageSize)",
			narrow.ErrTooLarge, s.NumVertices(), s.NumPrims(), size, h.cfg.maxMsg)
	}
	d, err := encodeShape(s)
	if err != nil {
		return -1, err
	}
	sum := shapeHash(d)
	if _, ok := h.data[sum]; !ok {
		h.data[sum] = d
	}
	h.refs[sum]++
	if h.fallback != nil {
		id, err := h.fallback.RegisterShape(s)
		if err != nil {
			return -1, err
		}
		if int(id) != len(h.shapes) {
			return -1, fmt.Errorf("plugin: fallback backend gave shape %d ID %d", len(h.shapes), id)
		}
	}
	h.shapes = append(h.shapes, s)
	h.hashes = append(h.hashes, sum)
	return narrow.ShapeID(len(h.shapes) - 1), nil
}

// UnregisterShape releases shape id (see narrow.Backend): the host forgets
// it (and its wire form with its last registration), and the plugin
// process releases it before the next step. A restarted plugin gets a
// placeholder in its slot, so that IDs keep their numbers.
func (h *Host) UnregisterShape(id narrow.ShapeID) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.checkShape(id); err != nil {
		return err
	}
	if h.fallback != nil {
		if err := h.fallback.UnregisterShape(id); err != nil {
			return err
		}
	}
	sum := h.hashes[id]
	h.shapes[id], h.hashes[id] = nil, [32]byte{}
	h.unref(sum)
	if p := h.proc; p != nil && int(id) < p.nshapes {
		had := sum // the hash the process has it under
		for k, r := range p.reshape {
			if r.id == int32(id) { // reshaped, not sent yet: released instead
				had = r.was
				p.reshape = slices.Delete(p.reshape, k, k+1)
				break
			}
		}
		p.release = append(p.release, released{int32(id), had})
	}
	return nil
}

// checkShape reports why shape id cannot be changed, if it cannot: the
// host is closed, or id is not a registered shape. h.mu is held.
func (h *Host) checkShape(id narrow.ShapeID) error {
	if h.closed {
		return narrow.ErrBackendClosed
	}
	if id < 0 || int(id) >= len(h.shapes) || h.shapes[id] == nil {
		return fmt.Errorf("%w: id %d", narrow.ErrUnknownShape, id)
	}
	return nil
}

// unref drops a registration of the wire form of hash sum, and the form
// with its last registration.
func (h *Host) unref(sum [32]byte) {
	if h.refs[sum]--; h.refs[sum] <= 0 {
		delete(h.refs, sum)
		delete(h.data, sum)
	}
}

// ReshapeShape replaces shape id by s, a deformation of it (see
// narrow.Reshaper): the plugin process gets the new vertex positions
// before the next step and deforms its own copy, so that its pairs keep
// their temporal state; a restarted process registers the shape as it is
// now. Another topology is narrow.ErrBadParams, an unknown or released ID
// narrow.ErrUnknownShape. A plugin whose backend cannot reshape
// (ConfigureResponse.reshapes) makes it an error wrapping
// errors.ErrUnsupported, and nothing changes: register the new shape
// instead (adapter.Batch.Reshape does).
func (h *Host) ReshapeShape(id narrow.ShapeID, s *narrow.Shape) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := h.checkShape(id); err != nil {
		return err
	}
	if s == nil || !s.SameTopology(h.shapes[id]) {
		return fmt.Errorf("%w: shape %d can only be replaced by a deformation of it (the same triangles over as many vertices)", narrow.ErrBadParams, id)
	}
	if p := h.proc; h.fallback == nil && p != nil && !p.reshapes {
		return fmt.Errorf("plugin: reshape shape %d: %w: the plugin's backend cannot reshape", id, errors.ErrUnsupported)
	}
	d, err := encodeShape(s)
	if err != nil {
		return err
	}
	if h.fallback != nil {
		if err := h.fallback.ReshapeShape(id, s); err != nil {
			return err
		}
	}
	sum, old := shapeHash(d), h.hashes[id]
	if _, ok := h.data[sum]; !ok {
		h.data[sum] = d
	}
	h.refs[sum]++
	h.unref(old)
	h.shapes[id], h.hashes[id] = s, sum
	if p := h.proc; p != nil && int(id) < p.nshapes && !slices.ContainsFunc(p.reshape, func(r reshaped) bool { return r.id == int32(id) }) {
		p.reshape = append(p.reshape, reshaped{int32(id), old})
	}
	return nil
}

// Detect runs one step in the plugin process. See narrow.Backend and the
// package documentation: a plugin that dies, hangs past the step timeout
// or answers nonsense is restarted and the step retried once; if that fails
// too, the step and every later one run on an in-process CPU backend. When
// ctx is cancelled or its deadline passes, Detect returns ctx's error (the
// whole step failed) and the plugin is restarted before the next step.
func (h *Host) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return narrow.ErrBackendClosed
	}
	if res == nil {
		return fmt.Errorf("%w: Detect needs a non-nil *narrow.Result", narrow.ErrBadParams)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if h.fallback != nil {
		return h.fallback.Detect(ctx, pairs, res)
	}
	if size := requestSize(len(pairs)); size > h.cfg.maxMsg {
		return fmt.Errorf("%w: %d pairs make a %d-byte request, over the plugin's %d-byte message limit (see WithMaxMessageSize)",
			narrow.ErrTooLarge, len(pairs), size, h.cfg.maxMsg)
	}
	h.step++

	var err error
	for try := 0; try < 2; try++ {
		if h.proc == nil {
			if err = h.start(ctx); err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				err = fmt.Errorf("restart: %w", err)
				break
			}
			h.restarts.Add(1)
		}
		if err = h.detect(ctx, pairs, res); err == nil {
			return nil
		}
		// Dead, hung, or out of step with the host: either way its
		// temporal state can no longer be trusted.
		h.stop(true)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		h.cfg.log.Warn("irtcd plugin: step failed; restarting the plugin", "step", h.step, "try", try+1, "err", err)
	}
	if ferr := h.startFallback(); ferr != nil {
		return fmt.Errorf("plugin: step %d failed (%v) and the CPU fallback could not start: %w", h.step, err, ferr)
	}
	h.cfg.log.Warn("irtcd plugin: plugin unusable; falling back to the in-process CPU backend for this and every later step",
		"path", h.path, "step", h.step, "err", err)
	return h.fallback.Detect(ctx, pairs, res)
}

// detect is one try of a step on the running plugin: the shapes it does
// not have yet (within the start timeout, as building them may take a
// while), then the step (within the step timeout).
func (h *Host) detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	if h.proc.nshapes < len(h.shapes) || len(h.proc.release) > 0 || len(h.proc.reshape) > 0 {
		fctx, cancel := context.WithTimeout(ctx, h.cfg.startTimeout)
		err := h.flush(fctx)
		cancel()
		if err != nil {
			return fmt.Errorf("register shapes: %w", err)
		}
	}
	if h.proc.shm != nil {
		h.fitRegion(ctx, len(pairs))
	}
	if p := h.proc; p.shm != nil && p.ring {
		return h.detectShared(ctx, pairs, res) // h.ring applies the step timeout
	}
	if h.cfg.stepTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, h.cfg.stepTimeout)
		defer cancel()
	}
	if h.proc.shm != nil {
		return h.detectShared(ctx, pairs, res)
	}
	c := &h.call
	c.step, c.pairs, c.res, c.err = h.step, pairs, res, nil
	err := h.proc.conn.Invoke(ctx, pb.Narrow_Detect_FullMethodName, c, c, grpc.ForceCodec(hostCodec{}))
	c.pairs, c.res = nil, nil
	if err != nil {
		// gRPC may still hold the request's bytes after a failed call:
		// the next call packs into a new buffer.
		c.buf = nil
		if c.err != nil {
			return fmt.Errorf("response: %w", c.err)
		}
		return err
	}
	return nil
}

// regionNeed returns the size of a region with room for a request of n
// pairs and the response expected.
func (h *Host) regionNeed(n int) int {
	resp := max(min(h.respHint+h.respHint/4, h.cfg.maxMsg), n*infoStride+4<<10)
	return regionHeader + roundUp(requestSize(n), regionAlign) + resp
}

// fitRegion replaces the shared region by a larger one when a step of n
// pairs may not fit (a response that does not fit anyway comes inline).
// If that fails, the process's steps go through gRPC.
func (h *Host) fitRegion(ctx context.Context, n int) {
	p := h.proc
	need := h.regionNeed(n)
	if need <= len(p.shm.mem) {
		return
	}
	old := h.regionSize
	h.regionSize = roundUp(need+need/2, regionPageAlign)
	mctx, cancel := context.WithTimeout(ctx, h.cfg.startTimeout)
	defer cancel()
	if err := h.mapRegion(mctx, p); err != nil {
		h.cfg.log.Warn("irtcd plugin: cannot grow the shared region; this process's steps go through gRPC", "size", h.regionSize, "err", err)
		h.regionSize = old
		p.shm.close()
		p.shm = nil
		return
	}
	h.shmGrows++
}

// mapRegion makes a shared region of h.regionSize bytes, has the plugin
// map it in place of its previous one, and unlinks its file.
func (h *Host) mapRegion(ctx context.Context, p *process) error {
	r, err := newRegion(h.regionSize)
	if err != nil {
		return err
	}
	resp, err := p.rpc.MapShared(ctx, &pb.MapSharedRequest{Path: r.path, Size: uint64(len(r.mem))})
	r.unlink()
	if err != nil {
		r.close()
		return err
	}
	if p.shm != nil {
		p.shm.close()
	}
	p.shm = r
	p.ring, p.bell = ringSupported && !h.cfg.noRing && resp.GetRing(), 0
	return nil
}

// detectShared runs the step through the shared region: the request is
// written to it, and the response read from it (or from the reply, when it
// did not fit).
func (h *Host) detectShared(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	p := h.proc
	mem := p.shm.mem
	c := &h.call
	c.step, c.pairs, c.res, c.err = h.step, pairs, res, nil
	defer func() { c.pairs, c.res = nil, nil }()
	ro := regionHeader + recordsPad(len(pairs)) // the records 8-aligned: read in place
	b := c.appendRequest(mem[ro:ro:len(mem)])
	if len(b) == 0 || &b[0] != &mem[ro] {
		return fmt.Errorf("request of %d bytes does not fit the %d-byte shared region", len(b), len(mem)) // fitRegion prevents it
	}
	off := roundUp(ro+len(b), regionAlign)
	capacity := max(0, len(mem)-off)
	if h.cfg.responseRoom > 0 {
		capacity = min(capacity, h.cfg.responseRoom)
	}
	p.seq++
	putU64(mem[regionReqSeq:], p.seq)
	req := &h.sharedReq
	req.Step, req.Seq = h.step, p.seq
	req.RequestOffset, req.RequestLength = uint64(ro), uint64(len(b))
	req.ResponseOffset, req.ResponseCapacity = uint64(min(off, len(mem))), uint64(capacity)
	var reply *pb.DetectSharedResponse
	var err error
	if p.ring {
		reply, err = h.ring(ctx, p, req)
	} else {
		reply, err = p.rpc.DetectShared(ctx, req)
	}
	if err != nil {
		return err
	}
	h.shmSteps++
	if p.ring {
		h.ringSteps++
	}
	if reply.GetInline() != nil {
		h.shmInline++
	}
	if sz := reply.GetResponseSize(); sz <= uint64(h.cfg.maxMsg) {
		h.respHint = int(sz)
	}
	if err := c.decodeShared(mem, p.seq, min(off, len(mem)), capacity, reply); err != nil {
		return fmt.Errorf("response: %w", err)
	}
	return nil
}

// ring runs a shared step through the region's doorbell instead of a
// DetectShared call: it writes req into the header, rings, and waits on
// the answer word (in slices of ringSlice, checking that the plugin lives
// and ctx is not done). It returns the reply DetectShared would have
// returned, taking it with TakeShared when the answer says so.
func (h *Host) ring(ctx context.Context, p *process, req *pb.DetectSharedRequest) (*pb.DetectSharedResponse, error) {
	mem := p.shm.mem
	putRung(mem, req)
	p.bell++
	bell, answer := word(mem, regionBell), word(mem, regionAnswer)
	var limit time.Time // the step timeout (no context made: it would allocate)
	if h.cfg.stepTimeout > 0 {
		limit = time.Now().Add(h.cfg.stepTimeout)
	}
	bell.Store(p.bell)
	wakeWord(bell)
	for {
		a := answer.Load()
		if a == p.bell {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.client.Exited() {
			return nil, errExited
		}
		d := ringSlice
		if dl, ok := ctx.Deadline(); ok {
			d = min(d, time.Until(dl))
		}
		if !limit.IsZero() {
			left := time.Until(limit)
			if left <= 0 {
				return nil, fmt.Errorf("no answer within the step timeout of %v: %w", h.cfg.stepTimeout, context.DeadlineExceeded)
			}
			d = min(d, left)
		}
		waitWord(answer, a, max(d, 50*time.Microsecond))
	}
	switch st := getU32(mem[regionStatus:]); st {
	case ringInRegion:
		out := &h.sharedReply
		out.Seq, out.Inline = req.Seq, nil
		out.ResponseLength, out.ResponseSize = getU64(mem[regionRespLen:]), getU64(mem[regionRespSize:])
		return out, nil
	case ringTake:
		if !limit.IsZero() {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, limit)
			defer cancel()
		}
		return p.rpc.TakeShared(ctx, &pb.TakeSharedRequest{Seq: req.Seq})
	default:
		return nil, malformed("rung step answered with status %d", st)
	}
}

// flush releases in the plugin the shapes the host released, then
// registers the shapes it does not have yet, in messages under the size
// limit, sending each distinct shape's data once (and again after the
// process dropped it with its last registration; released slots go as
// placeholders).
func (h *Host) flush(ctx context.Context) error {
	p := h.proc
	for len(p.release) > 0 {
		n := min(len(p.release), max(1, h.cfg.maxMsg/16))
		req := &pb.UnregisterShapesRequest{Ids: make([]int32, n)}
		for k, r := range p.release[:n] {
			req.Ids[k] = r.id
		}
		if _, err := p.rpc.UnregisterShapes(ctx, req); err != nil {
			return err
		}
		for _, r := range p.release[:n] {
			if p.refs[r.sum]--; p.refs[r.sum] <= 0 {
				delete(p.refs, r.sum)
				delete(p.known, r.sum)
			}
		}
		p.release = p.release[n:]
	}
	p.release = nil
	for p.nshapes < len(h.shapes) {
		first := p.nshapes
		req := &pb.RegisterShapesRequest{}
		sent := make(map[[32]byte]bool)
		size := 0
		for i := first; i < len(h.shapes); i++ {
			if h.shapes[i] == nil {
				if len(req.Shapes) > 0 && size+16 > h.cfg.maxMsg/2 {
					break
				}
				size += 16
				req.Shapes = append(req.Shapes, &pb.ShapeEntry{Released: true})
				continue
			}
			sum := h.hashes[i]
			e := &pb.ShapeEntry{Hash: sum[:]}
			add := 64
			if !p.known[sum] && !sent[sum] {
				e.Data = h.data[sum]
				add += shapeWireSize(h.shapes[i])
			}
			if len(req.Shapes) > 0 && size+add > h.cfg.maxMsg/2 {
				break
			}
			if e.Data != nil {
				sent[sum] = true
			}
			size += add
			req.Shapes = append(req.Shapes, e)
		}
		resp, err := p.rpc.RegisterShapes(ctx, req)
		if err != nil {
			return err
		}
		if len(resp.GetIds()) != len(req.Shapes) {
			return fmt.Errorf("%d IDs for %d shapes", len(resp.GetIds()), len(req.Shapes))
		}
		for k, id := range resp.GetIds() {
			if int(id) != first+k {
				return fmt.Errorf("plugin gave shape %d ID %d", first+k, id)
			}
		}
		for sum := range sent {
			p.known[sum] = true
		}
		for k := range req.Shapes {
			if h.shapes[first+k] != nil {
				p.refs[h.hashes[first+k]]++
			}
		}
		p.nshapes += len(req.Shapes)
	}
	// The shapes reshaped since the last step, their vertices as they are
	// now; the process then holds each under its new hash.
	for len(p.reshape) > 0 {
		req := &pb.ReshapeShapesRequest{}
		size := 0
		for _, r := range p.reshape {
			n := h.shapes[r.id].NumVertices() * vertexStride
			if len(req.Shapes) > 0 && size+n+64 > h.cfg.maxMsg/2 {
				break
			}
			sum := h.hashes[r.id]
			req.Shapes = append(req.Shapes, &pb.ReshapeEntry{Id: r.id, Hash: sum[:], Vertices: h.data[sum].GetVertices()})
			size += n + 64
		}
		if _, err := p.rpc.ReshapeShapes(ctx, req); err != nil {
			return err
		}
		for _, r := range p.reshape[:len(req.Shapes)] {
			if p.refs[r.was]--; p.refs[r.was] <= 0 {
				delete(p.refs, r.was)
				delete(p.known, r.was)
			}
			p.refs[h.hashes[r.id]]++
		}
		p.reshape = p.reshape[len(req.Shapes):]
	}
	p.reshape = nil
	return nil
}

// start starts and configures a plugin process; the shapes follow with the
// next step.
func (h *Host) start(ctx context.Context) error {
	cmd := exec.Command(h.path)
	cmd.Env = append(os.Environ(),
		envMaxMessage+"="+strconv.Itoa(h.cfg.maxMsg),
		envLogLevel+"="+lowestLevel(h.cfg.log).String())
	var secure *goplugin.SecureConfig
	if h.cfg.checksum != nil {
		secure = &goplugin.SecureConfig{Checksum: h.cfg.checksum, Hash: sha256.New()}
	}
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  Handshake,
		Plugins:          goplugin.PluginSet{pluginName: &grpcPlugin{}},
		Cmd:              cmd,
		SkipHostEnv:      true, // cmd.Env has it, before the host's own variables
		SecureConfig:     secure,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Logger:           newHCLogger(h.cfg.log, "plugin"),
		StartTimeout:     h.cfg.startTimeout,
		GRPCDialOptions: []grpc.DialOption{
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(h.cfg.maxMsg), grpc.MaxCallSendMsgSize(h.cfg.maxMsg)),
			grpc.WithInitialWindowSize(windowSize), grpc.WithInitialConnWindowSize(windowSize),
			grpc.WithReadBufferSize(bufferSize), grpc.WithWriteBufferSize(bufferSize),
		},
	})
	cp, err := client.Client()
	if err != nil {
		client.Kill()
		return err
	}
	raw, err := cp.Dispense(pluginName)
	if err != nil {
		client.Kill()
		return err
	}
	r, ok := raw.(*remote)
	if !ok {
		client.Kill()
		return fmt.Errorf("dispensed %T", raw)
	}
	rpc := r.rpc
	cctx, cancel := context.WithTimeout(ctx, h.cfg.startTimeout)
	defer cancel()
	resp, err := rpc.Configure(cctx, &pb.ConfigureRequest{Params: encodeParams(h.params), Workers: int32(min(h.cfg.workers, 1<<16))})
	if err != nil {
		client.Kill()
		return fmt.Errorf("configure: %w", err)
	}
	pid := int(resp.GetPid())
	if rc := client.ReattachConfig(); rc != nil && rc.Pid > 0 {
		pid = rc.Pid
	}
	h.proc = &process{client: client, rpc: rpc, conn: r.conn, pid: pid, known: make(map[[32]byte]bool), refs: make(map[[32]byte]int), reshapes: resp.GetReshapes()}
	h.pid.Store(int64(pid))
	if h.cfg.shared {
		if err := h.mapRegion(cctx, h.proc); err != nil {
			h.cfg.log.Debug("irtcd plugin: no shared memory; steps go through gRPC", "err", err)
		}
	}
	h.fused.Store(resp.GetFusesMultiplyAdd())
	if f := resp.GetFusesMultiplyAdd(); f != narrow.FusesMultiplyAdd() {
		h.cfg.log.Warn("irtcd plugin: the plugin's build and the host's differ in fusing multiply-adds; their contacts differ in the last bits, so the in-process fallback would change the results",
			"path", h.path, "plugin fuses", f, "host fuses", !f)
	}
	h.cfg.log.Debug("irtcd plugin: started", "path", h.path, "pid", pid, "backend", resp.GetBackend())
	return nil
}

// stop ends the plugin process. With force it is killed at once (it may be
// hung); otherwise go-plugin asks it to exit first.
func (h *Host) stop(force bool) {
	p := h.proc
	if p == nil {
		return
	}
	h.proc = nil
	h.pid.Store(0)
	if force && !p.client.Exited() {
		if pr, err := os.FindProcess(p.pid); err == nil {
			pr.Kill()
		}
	}
	p.client.Kill()
	if p.shm != nil {
		p.shm.close()
		p.shm = nil
	}
}

// exited reports whether the current plugin process has exited (true when
// none runs).
func (h *Host) exited() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.proc == nil || h.proc.client.Exited()
}

// startFallback makes the in-process CPU backend and registers every
// shape with it.
func (h *Host) startFallback() error {
	var opts []cpubackend.Option
	if h.cfg.workers > 0 {
		opts = append(opts, cpubackend.WithWorkers(h.cfg.workers))
	}
	be, err := cpubackend.New(h.params, append(opts, cpubackend.WithLogger(h.cfg.log))...)
	if err != nil {
		return err
	}
	for i, s := range h.shapes {
		gone := s == nil
		if gone {
			s = placeholder() // a released slot keeps its number
		}
		id, err := be.RegisterShape(s)
		if err == nil && int(id) != i {
			err = fmt.Errorf("shape %d got ID %d", i, id)
		}
		if err == nil && gone {
			err = be.UnregisterShape(id)
		}
		if err != nil {
			be.Close()
			return err
		}
	}
	h.fallback = be
	return nil
}

// Close stops the plugin process (and the fallback backend). Later calls
// fail with narrow.ErrBackendClosed.
func (h *Host) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	h.stop(false)
	if h.fallback != nil {
		return h.fallback.Close()
	}
	return nil
}
