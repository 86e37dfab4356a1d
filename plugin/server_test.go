package plugin

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// serveInProcess serves a Server over an in-memory gRPC connection, with
// the given largest message the server accepts, and returns a client.
func serveInProcess(t testing.TB, maxMsg int) (pb.NarrowClient, *Server) {
	t.Helper()
	srv := NewServer(CPUFactory, discard)
	lis := bufconn.Listen(1 << 20)
	gs := grpc.NewServer(grpc.MaxRecvMsgSize(maxMsg), grpc.MaxSendMsgSize(maxMsg))
	pb.RegisterNarrowServer(gs, srv)
	go gs.Serve(lis)
	conn, err := grpc.Dial("bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(math.MaxInt32), grpc.MaxCallRecvMsgSize(math.MaxInt32)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		gs.Stop()
		srv.Close()
	})
	return pb.NewNarrowClient(conn), srv
}

// shapeEntries returns registration entries (with data) for shapes.
func shapeEntries(t testing.TB, shapes []*narrow.Shape) *pb.RegisterShapesRequest {
	t.Helper()
	req := &pb.RegisterShapesRequest{}
	for _, s := range shapes {
		d, err := encodeShape(s)
		if err != nil {
			t.Fatal(err)
		}
		sum := shapeHash(d)
		req.Shapes = append(req.Shapes, &pb.ShapeEntry{Hash: sum[:], Data: d})
	}
	return req
}

func request(pairs []narrow.Pair) *pb.DetectRequest {
	var req pb.DetectRequest
	var a, b []byte
	encodeRequest(&req, pairs, &a, &b)
	return &req
}

// served is a configured server with a scene's shapes and an in-process
// reference fed the same valid steps.
type served struct {
	t      *testing.T
	client pb.NarrowClient
	sc     *scene
	ref    narrow.Backend
	step   int
}

func newServed(t *testing.T, maxMsg int) *served {
	client, _ := serveInProcess(t, maxMsg)
	sc := newScene(t, 10, 8, 40)
	ctx := context.Background()
	if _, err := client.Configure(ctx, &pb.ConfigureRequest{Params: encodeParams(narrow.Params{})}); err != nil {
		t.Fatal(err)
	}
	resp, err := client.RegisterShapes(ctx, shapeEntries(t, sc.shapes))
	if err != nil || len(resp.Ids) != len(sc.shapes) {
		t.Fatalf("RegisterShapes: %v, %v", resp, err)
	}
	return &served{t: t, client: client, sc: sc, ref: newCPU(t, narrow.Params{}, sc.shapes)}
}

// valid runs the scene's next step on the server and checks it against
// the reference.
func (s *served) valid() {
	s.t.Helper()
	pairs := s.sc.steps[s.step]
	s.step++
	resp, err := s.client.Detect(context.Background(), request(pairs))
	if err != nil {
		s.t.Fatalf("valid step %d: %v", s.step-1, err)
	}
	var got, want narrow.Result
	var d decoder
	if err := d.decode(resp, pairs, &got); err != nil {
		s.t.Fatalf("valid step %d: response: %v", s.step-1, err)
	}
	detect(s.t, s.ref, pairs, &want)
	if diff := diffResults(&got, &want); diff != "" {
		s.t.Fatalf("valid step %d: %s", s.step-1, diff)
	}
}

func wantCode(t *testing.T, what string, err error, code codes.Code) {
	t.Helper()
	if status.Code(err) != code {
		t.Errorf("%s: %v, want code %v", what, err, code)
	}
}

// TestServerMalformed: requests with bad packed arrays, shapes or
// parameters, sent straight to the gRPC server, get errors; the server
// keeps serving valid requests, with its state intact.
func TestServerMalformed(t *testing.T) {
	s := newServed(t, DefaultMaxMessageSize)
	ctx := context.Background()
	s.valid()

	good := request(s.sc.steps[1])
	n := good.NumPairs
	for _, tc := range []struct {
		name string
		req  *pb.DetectRequest
	}{
		{"more pairs than sent", &pb.DetectRequest{NumPairs: n + 1, Pairs: good.Pairs, Poses: good.Poses}},
		{"fewer pairs than sent", &pb.DetectRequest{NumPairs: n - 1, Pairs: good.Pairs, Poses: good.Poses}},
		{"short pairs", &pb.DetectRequest{NumPairs: n, Pairs: good.Pairs[1:], Poses: good.Poses}},
		{"short poses", &pb.DetectRequest{NumPairs: n, Pairs: good.Pairs, Poses: good.Poses[:len(good.Poses)-8]}},
		{"long poses", &pb.DetectRequest{NumPairs: n, Pairs: good.Pairs, Poses: append(good.Poses[:len(good.Poses):len(good.Poses)], 0)}},
		{"huge count", &pb.DetectRequest{NumPairs: math.MaxUint32}},
		{"no count", &pb.DetectRequest{Pairs: good.Pairs, Poses: good.Poses}},
	} {
		_, err := s.client.Detect(ctx, tc.req)
		wantCode(t, tc.name, err, codes.InvalidArgument)
		s.valid()
	}

	// Shapes.
	st, _, _ := polygons(t)
	bun, _ := meshes(t)
	entry := func(d *pb.Shape) *pb.RegisterShapesRequest {
		sum := shapeHash(d)
		return &pb.RegisterShapesRequest{Shapes: []*pb.ShapeEntry{{Hash: sum[:], Data: d}}}
	}
	mesh, err := encodeShape(bun)
	if err != nil {
		t.Fatal(err)
	}
	poly, err := encodeShape(st)
	if err != nil {
		t.Fatal(err)
	}
	edit := func(d *pb.Shape, f func(d *pb.Shape)) *pb.Shape {
		c := &pb.Shape{Dim: d.Dim, Vertices: append([]byte(nil), d.Vertices...), Prims: append([]byte(nil), d.Prims...), Loops: append([]byte(nil), d.Loops...)}
		f(c)
		return c
	}
	hashed := entry(mesh)
	hashed.Shapes[0].Hash[3] ^= 1
	unknown := entry(mesh)
	unknown.Shapes[0].Hash[0] ^= 1
	unknown.Shapes[0].Data = nil
	shortHash := entry(mesh)
	shortHash.Shapes[0].Hash = shortHash.Shapes[0].Hash[:31]
	for _, tc := range []struct {
		name string
		req  *pb.RegisterShapesRequest
		code codes.Code
	}{
		{"hash mismatch", hashed, codes.InvalidArgument},
		{"short hash", shortHash, codes.InvalidArgument},
		{"unknown hash, no data", unknown, codes.FailedPrecondition},
		{"ragged vertices", entry(edit(mesh, func(d *pb.Shape) { d.Vertices = d.Vertices[:len(d.Vertices)-1] })), codes.InvalidArgument},
		{"ragged prims", entry(edit(mesh, func(d *pb.Shape) { d.Prims = d.Prims[:len(d.Prims)-5] })), codes.InvalidArgument},
		{"index out of range", entry(edit(mesh, func(d *pb.Shape) { putU32(d.Prims[4:], 1<<30) })), codes.InvalidArgument},
		{"NaN vertex", entry(edit(mesh, func(d *pb.Shape) { putF64(d.Vertices[8:], math.NaN()) })), codes.InvalidArgument},
		{"mesh with loops", entry(edit(mesh, func(d *pb.Shape) { d.Loops = []byte{3, 0, 0, 0} })), codes.InvalidArgument},
		{"bad dimension", entry(edit(mesh, func(d *pb.Shape) { d.Dim = 259 })), codes.InvalidArgument},
		{"polygon without loops", entry(edit(poly, func(d *pb.Shape) { d.Loops = nil })), codes.InvalidArgument},
		{"polygon loops too long", entry(edit(poly, func(d *pb.Shape) { putU32(d.Loops, 1<<31) })), codes.InvalidArgument},
		{"polygon loops too short", entry(edit(poly, func(d *pb.Shape) { putU32(d.Loops, getU32(d.Loops)-1) })), codes.InvalidArgument},
		{"polygon off the plane", entry(edit(poly, func(d *pb.Shape) { putF64(d.Vertices[16:], 0.5) })), codes.InvalidArgument},
		{"polygon prims differ", entry(edit(poly, func(d *pb.Shape) { d.Prims[0], d.Prims[4] = d.Prims[4], d.Prims[0] })), codes.InvalidArgument},
		{"empty shape", entry(&pb.Shape{Dim: 3}), codes.InvalidArgument},
	} {
		_, err := s.client.RegisterShapes(ctx, tc.req)
		wantCode(t, tc.name, err, tc.code)
		s.valid()
	}
	// Nothing was registered: the next shape gets the next ID, and a known
	// hash needs no data.
	known := entry(mesh)
	known.Shapes[0].Data = nil
	if resp, err := s.client.RegisterShapes(ctx, known); err != nil || len(resp.Ids) != 1 || int(resp.Ids[0]) != len(s.sc.shapes) {
		t.Errorf("register a known hash: %v, %v", resp, err)
	}
	s.ref.RegisterShape(bun)
	s.valid()

	// Releases: bad entries are rejected; a good one is done (also in the
	// reference), and the entries before a bad one stay done.
	last := int32(len(s.sc.shapes))
	for _, tc := range []struct {
		name string
		ids  []int32
	}{
		{"negative ID", []int32{-1}},
		{"ID not registered yet", []int32{last + 1}},
		{"released twice", []int32{last, last}},
	} {
		_, err := s.client.UnregisterShapes(ctx, &pb.UnregisterShapesRequest{Ids: tc.ids})
		wantCode(t, tc.name, err, codes.InvalidArgument)
		if tc.name == "released twice" {
			if err := s.ref.UnregisterShape(narrow.ShapeID(last)); err != nil {
				t.Fatal(err)
			}
		}
		s.valid()
	}
	if _, err := s.client.UnregisterShapes(ctx, &pb.UnregisterShapesRequest{Ids: []int32{last}}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("release of a released shape: %v, want InvalidArgument", err)
	}
	withHash := &pb.RegisterShapesRequest{Shapes: []*pb.ShapeEntry{{Released: true, Hash: known.Shapes[0].Hash}}}
	_, err = s.client.RegisterShapes(ctx, withHash)
	wantCode(t, "released entry with a hash", err, codes.InvalidArgument)
	// The bunny's content is still held by the scene's bunny; a released
	// entry takes the next ID.
	two := &pb.RegisterShapesRequest{Shapes: []*pb.ShapeEntry{{Released: true}, known.Shapes[0]}}
	if resp, err := s.client.RegisterShapes(ctx, two); err != nil || len(resp.Ids) != 2 || resp.Ids[0] != last+1 || resp.Ids[1] != last+2 {
		t.Errorf("register a released slot and a known hash: %v, %v", resp, err)
	}
	if id, err := s.ref.RegisterShape(st); err != nil || s.ref.UnregisterShape(id) != nil {
		t.Fatal(id, err)
	}
	s.ref.RegisterShape(bun)
	s.valid()

	// Reshapes: bad entries are rejected, and nothing changes.
	meshID, polyID := -1, -1
	for i, sh := range s.sc.shapes {
		switch {
		case sh.Dim() == narrow.Dim3 && meshID < 0:
			meshID = i
		case sh.Dim() == narrow.Dim2 && polyID < 0:
			polyID = i
		}
	}
	reshape := func(id int, f func(e *pb.ReshapeEntry)) *pb.ReshapeShapesRequest {
		sh := s.sc.shapes[max(id, 0)]
		moved := sh.AppendVertices(nil)
		for i := range moved {
			moved[i] = moved[i].Mul(1.01)
		}
		d, err := encodeShape(sh)
		if err != nil {
			t.Fatal(err)
		}
		vs := make([]byte, len(moved)*vertexStride)
		for i, v := range moved {
			putVec3(vs[i*vertexStride:], v)
		}
		sum := shapeHash(&pb.Shape{Dim: d.Dim, Vertices: vs, Prims: d.Prims, Loops: d.Loops})
		e := &pb.ReshapeEntry{Id: int32(id), Hash: sum[:], Vertices: vs}
		if f != nil {
			f(e)
		}
		return &pb.ReshapeShapesRequest{Shapes: []*pb.ReshapeEntry{e}}
	}
	for _, tc := range []struct {
		name string
		req  *pb.ReshapeShapesRequest
	}{
		{"negative ID", reshape(meshID, func(e *pb.ReshapeEntry) { e.Id = -1 })},
		{"ID not registered yet", reshape(meshID, func(e *pb.ReshapeEntry) { e.Id = last + 10 })},
		{"released ID", reshape(meshID, func(e *pb.ReshapeEntry) { e.Id = last })},
		{"short vertices", reshape(meshID, func(e *pb.ReshapeEntry) { e.Vertices = e.Vertices[:len(e.Vertices)-1] })},
		{"short hash", reshape(meshID, func(e *pb.ReshapeEntry) { e.Hash = e.Hash[:31] })},
		{"hash mismatch", reshape(meshID, func(e *pb.ReshapeEntry) { e.Hash[5] ^= 1 })},
		{"NaN vertex", reshape(meshID, func(e *pb.ReshapeEntry) { putF64(e.Vertices[8:], math.NaN()) })},
		{"a polygon", reshape(polyID, nil)},
	} {
		_, err := s.client.ReshapeShapes(ctx, tc.req)
		wantCode(t, tc.name, err, codes.InvalidArgument)
	}
	s.valid()

	// Parameters: rejected without touching the running backend.
	for _, tc := range []struct {
		name string
		req  *pb.ConfigureRequest
	}{
		{"no params", &pb.ConfigureRequest{}},
		{"bad method", &pb.ConfigureRequest{Params: &pb.Params{Method: 9}}},
		{"huge method", &pb.ConfigureRequest{Params: &pb.Params{Method: 1 << 20}}},
		{"bad confidence", &pb.ConfigureRequest{Params: &pb.Params{Confidence: 0.5}}},
		{"NaN threshold", &pb.ConfigureRequest{Params: &pb.Params{DisplacementThreshold: math.NaN()}}},
		{"negative MaxIt", &pb.ConfigureRequest{Params: &pb.Params{MaxIt: -1}}},
		{"negative workers", &pb.ConfigureRequest{Params: &pb.Params{}, Workers: -1}},
	} {
		_, err := s.client.Configure(ctx, tc.req)
		wantCode(t, tc.name, err, codes.InvalidArgument)
		s.valid()
	}
}

// TestServerNotConfigured: before Configure every call fails cleanly.
func TestServerNotConfigured(t *testing.T) {
	client, _ := serveInProcess(t, DefaultMaxMessageSize)
	ctx := context.Background()
	_, err := client.Detect(ctx, request(nil))
	wantCode(t, "detect", err, codes.FailedPrecondition)
	_, err = client.RegisterShapes(ctx, &pb.RegisterShapesRequest{})
	wantCode(t, "register", err, codes.FailedPrecondition)
	_, err = client.UnregisterShapes(ctx, &pb.UnregisterShapesRequest{Ids: []int32{0}})
	wantCode(t, "unregister", err, codes.FailedPrecondition)
	_, err = client.ReshapeShapes(ctx, &pb.ReshapeShapesRequest{})
	wantCode(t, "reshape", err, codes.FailedPrecondition)
}

// TestServerOversized: a request over the server's message limit gets
// ResourceExhausted from gRPC, and the server keeps serving.
func TestServerOversized(t *testing.T) {
	const limit = 64 << 10
	s := newServed(t, limit)
	s.valid()
	big := make([]narrow.Pair, 1000) // 128 kB of pairs and poses
	for i := range big {
		big[i] = narrow.Pair{ID: uint64(i), PoseA: narrow.Identity, PoseB: narrow.Identity}
	}
	_, err := s.client.Detect(context.Background(), request(big))
	wantCode(t, "oversized", err, codes.ResourceExhausted)
	s.valid()
	s.valid()
}

// TestWireShapes: every kind of shape travels exactly: the rebuilt shape
// has the same vertices, primitives and hash, whatever the loops'
// orientation.
func TestWireShapes(t *testing.T) {
	bun, tor := meshes(t)
	st, ho, l := polygons(t)
	box, err := narrow.NewBox(mgl64.Vec3{-1, -2, -3}, mgl64.Vec3{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	// Clockwise outline, counter-clockwise holes (NewPolygon flips them).
	cw, err := narrow.NewPolygon(
		[]mgl64.Vec2{{0, 0}, {0, 4}, {4, 4}, {4, 0}},
		[]mgl64.Vec2{{1, 1}, {2, 1}, {2, 2}, {1, 2}},
		[]mgl64.Vec2{{2.5, 2.5}, {3.5, 2.5}, {3, 3.5}})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []*narrow.Shape{bun, tor, st, ho, l, box, cw} {
		d, err := encodeShape(s)
		if err != nil {
			t.Fatalf("shape %d: %v", i, err)
		}
		back, err := decodeShape(d)
		if err != nil {
			t.Fatalf("shape %d: %v", i, err)
		}
		d2, err := encodeShape(back)
		if err != nil {
			t.Fatal(err)
		}
		if shapeHash(d) != shapeHash(d2) || back.Dim() != s.Dim() || back.Size() != s.Size() || back.BVHNodes() != s.BVHNodes() {
			t.Errorf("shape %d does not survive the wire", i)
		}
	}
	if d, _ := encodeShape(cw); len(d.Loops) != 12 || getU32(d.Loops) != 4 || getU32(d.Loops[4:]) != 4 || getU32(d.Loops[8:]) != 3 {
		t.Errorf("loops %v", d.Loops)
	}
}

// TestWireErrors: a per-pair error crosses the wire as a *narrow.PairError
// that prints the same and wraps the same sentinel.
func TestWireErrors(t *testing.T) {
	for _, s := range sentinels {
		for _, in := range []error{
			&narrow.PairError{ID: 42, Err: s},
			&narrow.PairError{ID: 7, Err: &narrow.ShapeError{Line: -1, Loop: -1, Vertex: 3, Prim: -1, Other: -1, Edge: [2]int{-1, -1}, Err: s}},
			s,
		} {
			out := remoteError(failure(5, in))
			if out.Error() != in.Error() {
				t.Errorf("%q came back as %q", in, out)
			}
			for _, s2 := range sentinels {
				if errors.Is(out, s2) != errors.Is(in, s2) {
					t.Errorf("%q: errors.Is(%v) differs", in, s2)
				}
			}
			if _, ok := in.(*narrow.PairError); ok != isPairError(out) {
				t.Errorf("%q: PairError %v", in, isPairError(out))
			}
		}
	}
}

// TestDecodeResponseMalformed: the host rejects inconsistent responses
// instead of misreading them.
func TestDecodeResponseMalformed(t *testing.T) {
	sc := newScene(t, 11, 6, 2)
	be := newCPU(t, narrow.Params{}, sc.shapes)
	var res narrow.Result
	detect(t, be, sc.steps[0], &res)
	pairs := sc.steps[0]
	good := encodeResponse(&res)
	var d decoder
	var out narrow.Result
	if err := d.decode(good, pairs, &out); err != nil || diffResults(&out, &res) != "" {
		t.Fatalf("valid response: %v %s", err, diffResults(&out, &res))
	}
	clone := func(f func(r *pb.DetectResponse)) *pb.DetectResponse {
		r := &pb.DetectResponse{
			Pairs:     append([]byte(nil), good.Pairs...),
			Contacts:  append([]byte(nil), good.Contacts...),
			Manifolds: append([]byte(nil), good.Manifolds...),
			Points:    append([]byte(nil), good.Points...),
			PointRefs: append([]byte(nil), good.PointRefs...),
			Stats:     good.Stats,
			Failures:  append([]*pb.PairFailure(nil), good.Failures...),
		}
		f(r)
		return r
	}
	for _, tc := range []struct {
		name string
		resp *pb.DetectResponse
	}{
		{"short pairs", clone(func(r *pb.DetectResponse) { r.Pairs = r.Pairs[:len(r.Pairs)-1] })},
		{"short contacts", clone(func(r *pb.DetectResponse) { r.Contacts = r.Contacts[:len(r.Contacts)-contactStride] })},
		{"extra points", clone(func(r *pb.DetectResponse) { r.Points = append(r.Points, make([]byte, contactStride)...) })},
		{"huge count", clone(func(r *pb.DetectResponse) { putU32(r.Pairs, math.MaxUint32) })},
		{"bad flags", clone(func(r *pb.DetectResponse) { putU32(r.Pairs[8:], 4) })},
		{"bad side", clone(func(r *pb.DetectResponse) { r.Contacts[56] = 2 })},
		{"no stats", clone(func(r *pb.DetectResponse) { r.Stats = nil })},
		{"point ref out of range", clone(func(r *pb.DetectResponse) { putU32(r.PointRefs, 1<<20) })},
		{"missing literal point", clone(func(r *pb.DetectResponse) { putU32(r.PointRefs, literalRef) })},
		{"ragged point refs", clone(func(r *pb.DetectResponse) { r.PointRefs = r.PointRefs[:len(r.PointRefs)-1] })},
		{"missing error", clone(func(r *pb.DetectResponse) { r.Failures = r.Failures[1:] })},
		{"error index", clone(func(r *pb.DetectResponse) {
			r.Failures[0] = &pb.PairFailure{Index: 0, Code: 1}
		})},
		{"two errors for one pair", clone(func(r *pb.DetectResponse) { r.Failures[1] = r.Failures[0] })},
		{"extra manifold", clone(func(r *pb.DetectResponse) { r.Manifolds = append(r.Manifolds, make([]byte, manifoldStride)...) })},
		{"ragged contacts", clone(func(r *pb.DetectResponse) { r.Contacts = append(r.Contacts, 0) })},
		{"error code", clone(func(r *pb.DetectResponse) {
			f := r.Failures[0]
			r.Failures[0] = &pb.PairFailure{Index: f.Index, Code: 1000, Message: f.Message}
		})},
	} {
		if err := d.decode(tc.resp, pairs, &out); err == nil {
			t.Errorf("%s: accepted", tc.name)
		} else if len(out.Pairs) != 0 || out.Stats != (narrow.Stats{}) {
			t.Errorf("%s: rejected, but left %d pairs in the result", tc.name, len(out.Pairs))
		}
	}
}

func isPairError(err error) bool {
	_, ok := err.(*narrow.PairError)
	return ok
}

// TestWireManifoldPoints: manifold points that copy their pair's contacts
// (all of the CPU backend's) travel as indices; others travel in full.
func TestWireManifoldPoints(t *testing.T) {
	sc := newScene(t, 14, 8, 1)
	be := newCPU(t, narrow.Params{}, sc.shapes)
	var res narrow.Result
	detect(t, be, sc.steps[0], &res)
	resp := encodeResponse(&res)
	if len(resp.Points) != 0 || len(resp.PointRefs) == 0 {
		t.Fatalf("%d literal points, %d references", len(resp.Points)/contactStride, len(resp.PointRefs)/refStride)
	}

	// A backend whose manifold points are its own: one moved, one made up.
	var odd narrow.Result
	for i := range res.Pairs {
		p := &res.Pairs[i]
		ms := make([]narrow.Manifold, len(p.Manifolds))
		for k, m := range p.Manifolds {
			ms[k] = narrow.Manifold{Normal: m.Normal, Points: append([]narrow.Contact(nil), m.Points...)}
		}
		if len(ms) > 0 {
			ms[0].Points[0].Depth = math.Nextafter(ms[0].Points[0].Depth, 1)
			ms[0].Points = append(ms[0].Points, narrow.Contact{Vertex: -7, From: narrow.SideB})
		}
		odd.Append(p.ID, p.Contacts, ms, p.Iterative, p.Err)
	}
	odd.Stats = res.Stats
	resp = encodeResponse(&odd)
	if n := len(resp.Points) / contactStride; n < 2 {
		t.Fatalf("%d literal points", n)
	}
	var d decoder
	var got narrow.Result
	if err := d.decode(resp, sc.steps[0], &got); err != nil {
		t.Fatal(err)
	}
	if diff := diffResults(&got, &odd); diff != "" {
		t.Fatal(diff)
	}
}

// grow returns b resized to n bytes, reusing its storage when it can.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n, n+n/4)
	}
	return b[:n]
}

// encodeRequest packs pairs into req in the request's other form, pairs
// and poses (the plugin accepts it; the host sends records), reusing the
// buffers *pairBuf and *poseBuf.
func encodeRequest(req *pb.DetectRequest, pairs []narrow.Pair, pairBuf, poseBuf *[]byte) {
	n := len(pairs)
	*pairBuf, *poseBuf = grow(*pairBuf, n*pairStride), grow(*poseBuf, n*poseStride)
	packPairs(*pairBuf, pairs)
	packPoses(*poseBuf, pairs)
	req.NumPairs, req.Pairs, req.Poses = uint32(n), *pairBuf, *poseBuf
}

// packPairs writes the pairs' IDs and shapes to b (pairStride bytes each).
func packPairs(b []byte, pairs []narrow.Pair) {
	for i := range pairs {
		putPairIDs(b[i*pairStride:(i+1)*pairStride], &pairs[i])
	}
}

// packPoses writes the pairs' poses to b (poseStride bytes each).
func packPoses(b []byte, pairs []narrow.Pair) {
	for i := range pairs {
		q := b[i*poseStride : (i+1)*poseStride]
		putPose(q[0:], &pairs[i].PoseA)
		putPose(q[56:], &pairs[i].PoseB)
	}
}
