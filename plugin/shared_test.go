package plugin

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// sharedRequest lays out a region holding the request for pairs, as the
// host does, and returns it with its DetectShared message.
func sharedRequest(pairs []narrow.Pair, seq uint64, size int) ([]byte, *pb.DetectSharedRequest) {
	mem := make([]byte, size)
	copy(mem, regionMagic)
	putU64(mem[regionReqSeq:], seq)
	c := detectCall{pairs: pairs, step: 1}
	b := c.appendRequest(nil)
	copy(mem[regionHeader:], b)
	off := roundUp(regionHeader+len(b), regionAlign)
	return mem, &pb.DetectSharedRequest{Step: 1, Seq: seq, RequestOffset: regionHeader, RequestLength: uint64(len(b)),
		ResponseOffset: uint64(off), ResponseCapacity: uint64(max(0, size-off))}
}

// configuredServer is a server with the small scene's shapes.
func configuredServer(t testing.TB) (*Server, *scene) {
	sc := smallScene(t)
	srv := NewServer(CPUFactory, discard)
	ctx := context.Background()
	if _, err := srv.Configure(ctx, &pb.ConfigureRequest{Params: encodeParams(narrow.Params{}), Workers: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.RegisterShapes(ctx, shapeEntries(t, sc.shapes)); err != nil {
		t.Fatal(err)
	}
	return srv, sc
}

// TestServerSharedMalformed: a DetectShared request whose region or
// message is inconsistent gets InvalidArgument, and the server goes on
// serving; a valid one answers in the region, or inline when the room is
// too small, with the same result as Detect.
func TestServerSharedMalformed(t *testing.T) {
	srv, sc := configuredServer(t)
	defer srv.Close()
	ctx := context.Background()
	pairs := sc.steps[0]
	if _, err := srv.DetectShared(ctx, &pb.DetectSharedRequest{}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("no region: %v", err)
	}
	if _, err := srv.MapShared(ctx, &pb.MapSharedRequest{Path: "/nonexistent/irtcd-shm", Size: 1 << 20}); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("bad path: %v", err)
	}
	bad := map[string]func(mem []byte, r *pb.DetectSharedRequest){
		"seq":            func(mem []byte, r *pb.DetectSharedRequest) { r.Seq++ },
		"magic":          func(mem []byte, r *pb.DetectSharedRequest) { mem[0] = 'x' },
		"request offset": func(mem []byte, r *pb.DetectSharedRequest) { r.RequestOffset = 1 << 40 },
		"request length": func(mem []byte, r *pb.DetectSharedRequest) { r.RequestLength = 1<<64 - 1 },
		"header":         func(mem []byte, r *pb.DetectSharedRequest) { r.RequestOffset = 8 },
		"short request":  func(mem []byte, r *pb.DetectSharedRequest) { r.RequestLength -= 7 },
		"response room":  func(mem []byte, r *pb.DetectSharedRequest) { r.ResponseCapacity = 1<<64 - 1 },
		"overlap":        func(mem []byte, r *pb.DetectSharedRequest) { r.ResponseOffset = r.RequestOffset + 8 },
	}
	for name, breakIt := range bad {
		mem, req := sharedRequest(pairs, 7, 64<<10)
		breakIt(mem, req)
		srv.mu.Lock()
		srv.shm = mem
		srv.mu.Unlock()
		if _, err := srv.DetectShared(ctx, req); status.Code(err) != codes.InvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	want, err := srv.Detect(ctx, request(pairs))
	if err != nil {
		t.Fatal(err)
	}
	var ref narrow.Result
	var d decoder
	if err := d.decode(want, pairs, &ref); err != nil {
		t.Fatal(err)
	}
	const small = regionHeader + 1<<10 // room for the request, not the response
	for _, room := range []int{64 << 10, small} {
		mem, req := sharedRequest(pairs, 9, room)
		// A fresh server, as srv's Detect above was its first step.
		srv2, _ := configuredServer(t)
		srv2.shm = mem
		reply, err := srv2.DetectShared(ctx, req)
		srv2.Close()
		if err != nil {
			t.Fatalf("room %d: %v", room, err)
		}
		if inline := reply.GetInline() != nil; inline != (room == small) {
			t.Errorf("room %d: inline %v", room, inline)
		}
		var got narrow.Result
		c := detectCall{pairs: pairs, res: &got}
		if err := c.decodeShared(mem, 9, int(req.ResponseOffset), int(req.ResponseCapacity), reply); err != nil {
			t.Fatalf("room %d: host rejects the reply: %v", room, err)
		}
		if diff := diffResults(&got, &ref); diff != "" {
			t.Errorf("room %d: %s", room, diff)
		}
		if err := c.decodeShared(mem, 10, int(req.ResponseOffset), int(req.ResponseCapacity), reply); err == nil {
			t.Errorf("room %d: reply accepted for another sequence number", room)
		}
	}
}

// FuzzDetectShared feeds arbitrary region contents and offsets to the
// plugin's DetectShared: it never panics, rejects with InvalidArgument
// exactly what readShared and decodeRequest reject, and a response it
// writes to the region is accepted by the host and decodes as the inline
// response would. The seed corpus is valid regions of the small scene.
func FuzzDetectShared(f *testing.F) {
	sc := smallScene(f)
	for _, pairs := range sc.steps {
		mem, r := sharedRequest(pairs, 5, 16<<10)
		f.Add(mem, r.Seq, r.RequestOffset, r.RequestLength, r.ResponseOffset, r.ResponseCapacity)
	}
	mem, r := sharedRequest(sc.steps[0][:1], 1, 1<<10)
	f.Add(mem, r.Seq, r.RequestOffset, r.RequestLength, r.ResponseOffset, r.ResponseCapacity)
	srv, _ := configuredServer(f)
	defer srv.Close()
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, mem []byte, seq, ro, rl, po, pc uint64) {
		req := &pb.DetectSharedRequest{Seq: seq, RequestOffset: ro, RequestLength: rl, ResponseOffset: po, ResponseCapacity: pc}
		var msg pb.DetectRequest
		_, _, readErr := readShared(mem, req, &msg)
		var pairs []narrow.Pair
		if readErr == nil {
			pairs, _, readErr = decodeRequest(&msg, nil)
		}
		srv.mu.Lock()
		srv.shm = mem
		srv.mu.Unlock()
		reply, err := srv.DetectShared(ctx, req)
		if readErr != nil {
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("malformed region (%v) answered %v", readErr, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid region failed: %v", err)
		}
		var got narrow.Result
		c := detectCall{pairs: pairs, res: &got}
		if err := c.decodeShared(mem, seq, int(po), int(pc), reply); err != nil {
			t.Fatalf("the host rejects the reply: %v", err)
		}
		if len(got.Pairs) != len(pairs) || got.Stats.Pairs != len(pairs) {
			t.Fatalf("%d results, stats %d, for %d pairs", len(got.Pairs), got.Stats.Pairs, len(pairs))
		}
	})
}

// FuzzDecodeShared feeds arbitrary region contents to the host's decoding
// of a DetectShared reply: it never panics and accepts exactly what
// hostCodec accepts from the same bytes as a message.
func FuzzDecodeShared(f *testing.F) {
	sc := smallScene(f)
	be := newCPU(f, narrow.Params{}, sc.shapes)
	var res narrow.Result
	for _, pairs := range sc.steps {
		detect(f, be, pairs, &res)
		f.Add(marshal(f, encodeResponse(&res)), uint64(0))
	}
	pairs := sc.steps[0]
	f.Fuzz(func(t *testing.T, data []byte, n uint64) {
		mem := make([]byte, regionHeader+len(data))
		copy(mem, regionMagic)
		putU64(mem[regionRespSeq:], 3)
		copy(mem[regionHeader:], data)
		if n == 0 {
			n = uint64(len(data))
		}
		var got, want narrow.Result
		c := detectCall{pairs: pairs, res: &got}
		err := c.decodeShared(mem, 3, regionHeader, len(data), &pb.DetectSharedResponse{Seq: 3, ResponseLength: n})
		if n > uint64(len(data)) {
			if err == nil {
				t.Fatal("a response longer than its room accepted")
			}
			return
		}
		ref := detectCall{pairs: pairs, res: &want}
		refErr := ref.unmarshal(data[:n])
		if (err == nil) != (refErr == nil) {
			t.Fatalf("shared: %v; message: %v", err, refErr)
		}
		if err == nil {
			if d := diffResults(&got, &want); d != "" {
				t.Fatal(d)
			}
		}
	})
}

// TestRegionFile: a region made in any directory (as in the temporary
// directory when there is no /dev/shm) is a 0600 file the plugin side can
// map and see the host's writes through; unlinked, it is gone from the
// directory while both mappings stay; files too small or not regular are
// refused.
func TestRegionFile(t *testing.T) {
	if !sharedSupported {
		t.Skip("no shared memory on this system")
	}
	dir := t.TempDir()
	r, err := newRegionIn(dir, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	st, err := os.Stat(r.path)
	if err != nil || st.Mode().Perm() != 0o600 || st.Size() != 1<<16 {
		t.Fatalf("region file: %v, %v", st, err)
	}
	if _, err := openRegion(r.path, 1<<17); err == nil {
		t.Error("a region larger than its file mapped")
	}
	if _, err := openRegion(dir, 1<<10); err == nil {
		t.Error("a directory mapped")
	}
	mem, err := openRegion(r.path, 1<<16)
	if err != nil {
		t.Fatal(err)
	}
	defer unmap(mem)
	r.unlink()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files left after unlink", len(ents))
	}
	putU64(r.mem[100:], 42)
	if getU64(mem[100:]) != 42 {
		t.Error("the mappings do not share memory")
	}
}

// ringHost plays the host's side of the doorbell on a region mapped by a
// server under test.
type ringHost struct {
	t    *testing.T
	mem  []byte
	bell uint32
}

// step writes the request for pairs under sequence number seq, lets
// breakIt spoil its header fields, rings, and waits for the answer's
// status and response length.
func (h *ringHost) step(pairs []narrow.Pair, seq uint64, breakIt func(*pb.DetectSharedRequest)) (*pb.DetectSharedRequest, uint32, uint64) {
	h.t.Helper()
	img, req := sharedRequest(pairs, seq, len(h.mem))
	copy(h.mem[regionHeader:], img[regionHeader:])
	putU64(h.mem[regionReqSeq:], seq)
	if breakIt != nil {
		breakIt(req)
	}
	putRung(h.mem, req)
	h.bell++
	word(h.mem, regionBell).Store(h.bell)
	wakeWord(word(h.mem, regionBell))
	if !h.answered(10 * time.Second) {
		h.t.Fatalf("step %d: no answer", seq)
	}
	return req, getU32(h.mem[regionStatus:]), getU64(h.mem[regionRespLen:])
}

// answered waits at most d for the answer to the last ring.
func (h *ringHost) answered(d time.Duration) bool {
	answer := word(h.mem, regionAnswer)
	for end := time.Now().Add(d); time.Now().Before(end); {
		a := answer.Load()
		if a == h.bell {
			return true
		}
		waitWord(answer, a, time.Millisecond)
	}
	return false
}

// TestServerRing: steps rung through a mapped region's doorbell are
// answered as DetectShared calls: in the region, or through TakeShared
// (once) when the outcome is an error or a response too large for the
// room; a bad rung request leaves the server serving; mapping a new region
// stops the old one's waiter.
func TestServerRing(t *testing.T) {
	if !ringSupported {
		t.Skip("no doorbell on this system")
	}
	srv, sc := configuredServer(t)
	defer srv.Close()
	ref, _ := configuredServer(t) // the same steps through Detect
	defer ref.Close()
	ctx := context.Background()
	mapRegion := func() *region {
		r, err := newRegion(256 << 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.close)
		resp, err := srv.MapShared(ctx, &pb.MapSharedRequest{Path: r.path, Size: uint64(len(r.mem))})
		r.unlink()
		if err != nil || !resp.GetRing() {
			t.Fatalf("map shared: ring %v, %v", resp.GetRing(), err)
		}
		return r
	}
	h := &ringHost{t: t, mem: mapRegion().mem}
	check := func(k int, req *pb.DetectSharedRequest, reply *pb.DetectSharedResponse) {
		t.Helper()
		want, err := ref.Detect(ctx, request(sc.steps[k]))
		if err != nil {
			t.Fatal(err)
		}
		var wantRes, got narrow.Result
		var d decoder
		if err := d.decode(want, sc.steps[k], &wantRes); err != nil {
			t.Fatal(err)
		}
		c := detectCall{pairs: sc.steps[k], res: &got}
		if err := c.decodeShared(h.mem, req.Seq, int(req.ResponseOffset), int(req.ResponseCapacity), reply); err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
		if diff := diffResults(&got, &wantRes); diff != "" {
			t.Errorf("step %d: %s", k, diff)
		}
	}

	// A bad request: its error is taken, once.
	_, st, _ := h.step(sc.steps[0], 1, func(r *pb.DetectSharedRequest) { r.Seq++ })
	if st != ringTake {
		t.Fatalf("bad request: status %d", st)
	}
	if _, err := srv.TakeShared(ctx, &pb.TakeSharedRequest{Seq: 2}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("bad request's outcome: %v", err)
	}
	if _, err := srv.TakeShared(ctx, &pb.TakeSharedRequest{Seq: 2}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("outcome taken twice: %v", err)
	}

	// Answered in the region.
	req, st, n := h.step(sc.steps[0], 3, nil)
	if st != ringInRegion || n == 0 {
		t.Fatalf("status %d, %d bytes", st, n)
	}
	check(0, req, &pb.DetectSharedResponse{Seq: 3, ResponseLength: n})

	// No room: the response is taken inline.
	req, st, _ = h.step(sc.steps[1], 4, func(r *pb.DetectSharedRequest) { r.ResponseCapacity = 16 })
	if st != ringTake {
		t.Fatalf("no room: status %d", st)
	}
	reply, err := srv.TakeShared(ctx, &pb.TakeSharedRequest{Seq: 4})
	if err != nil || reply.GetInline() == nil {
		t.Fatalf("no room: inline %v, %v", reply.GetInline() != nil, err)
	}
	check(1, req, reply)

	// A new region: the old one's bell goes unanswered, the new one's not.
	old := h.mem
	h.mem, h.bell = mapRegion().mem, 0
	req, st, n = h.step(sc.steps[2], 5, nil)
	if st != ringInRegion {
		t.Fatalf("new region: status %d", st)
	}
	check(2, req, &pb.DetectSharedResponse{Seq: 5, ResponseLength: n})
	stale := &ringHost{t: t, mem: old, bell: word(old, regionBell).Load() + 1}
	word(old, regionBell).Store(stale.bell)
	wakeWord(word(old, regionBell))
	if stale.answered(100 * time.Millisecond) {
		t.Error("the old region's doorbell is still answered")
	}
}

// resultOnly hides a backend's DetectTo: the server then runs Detect and
// encodes the Result (its path for any other backend).
type resultOnly struct{ narrow.Backend }

// TestServerSharedStreaming: a backend that writes its output as it comes
// (cpubackend's DetectTo) has its response encoded straight into the
// region; over a scene of many steps (standard, iterative and failed
// pairs, manifolds) it decodes to exactly what the Result path gives, in
// a room of any size: the whole response, one that runs out among the
// pair records, among the contacts or after them (the encoding then
// moves out of the region and goes inline), or none.
func TestServerSharedStreaming(t *testing.T) {
	sc := newScene(t, 5, 24, 12)
	ctx := context.Background()
	newServer := func(hide bool) *Server {
		f := CPUFactory
		if hide {
			f = func(p narrow.Params, workers int, log *slog.Logger) (narrow.Backend, error) {
				be, err := CPUFactory(p, workers, log)
				return resultOnly{be}, err
			}
		}
		srv := NewServer(f, discard)
		t.Cleanup(func() { srv.Close() })
		if _, err := srv.Configure(ctx, &pb.ConfigureRequest{Params: encodeParams(narrow.Params{}), Workers: 2}); err != nil {
			t.Fatal(err)
		}
		if _, err := srv.RegisterShapes(ctx, shapeEntries(t, sc.shapes)); err != nil {
			t.Fatal(err)
		}
		return srv
	}
	// The response's size at the first step, to place the rooms' ends.
	mem, req := sharedRequest(sc.steps[0], 1, 1<<20)
	probe := newServer(false)
	probe.shm = mem
	reply, err := probe.DetectShared(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	full := int(reply.GetResponseLength())
	if full == 0 {
		t.Fatal("no response in the region")
	}
	for _, room := range []int{1 << 20, full, full - 1, full / 2, 40, 0} {
		stream, plain := newServer(false), newServer(true)
		inline := 0
		for s, pairs := range sc.steps {
			seq := uint64(s + 1)
			var got, want narrow.Result
			for k, srv := range []*Server{stream, plain} {
				mem, req := sharedRequest(pairs, seq, 2<<20)
				req.ResponseCapacity = uint64(room)
				srv.mu.Lock()
				srv.shm = mem
				srv.mu.Unlock()
				reply, err := srv.DetectShared(ctx, req)
				if err != nil {
					t.Fatalf("room %d, step %d: %v", room, s, err)
				}
				res := []*narrow.Result{&got, &want}[k]
				c := detectCall{pairs: pairs, res: res}
				if err := c.decodeShared(mem, seq, int(req.ResponseOffset), room, reply); err != nil {
					t.Fatalf("room %d, step %d: host rejects the reply: %v", room, s, err)
				}
				if k == 0 && reply.GetInline() != nil {
					inline++
				}
			}
			if want.Stats.Contacts == 0 || want.Stats.FailedPairs == 0 {
				t.Fatalf("step %d: weak scene: %+v", s, want.Stats)
			}
			if diff := diffResults(&got, &want); diff != "" {
				t.Fatalf("room %d, step %d: streamed and plain responses differ: %s", room, s, diff)
			}
		}
		if fits := room >= full*2; (inline == 0) != fits && room != full {
			t.Errorf("room %d: %d of %d steps inline", room, inline, len(sc.steps))
		}
	}
}
