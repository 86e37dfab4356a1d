package plugin

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// FuzzDecodeRequest feeds arbitrary bytes, as a DetectRequest, to the
// plugin side: decoding never panics, the plugin's codec reads what the
// generated code reads, a request is rejected with
// InvalidArgument exactly when its packed arrays are inconsistent, an
// accepted one is read bit for bit (re-encoding gives the same bytes), and
// its step runs on a real backend and gives a response the host accepts.
// The seed corpus is valid requests of small meshes and polygons (so that
// each execution is fast), touching and not, bad pairs included.
func FuzzDecodeRequest(f *testing.F) {
	sc := smallScene(f)
	for _, pairs := range sc.steps {
		f.Add(marshal(f, request(pairs)))
	}
	f.Add(marshal(f, request(sc.steps[0][:1])))
	f.Add(marshal(f, request(nil)))
	for _, pairs := range sc.steps { // as the host sends them: records
		c := detectCall{step: 3, pairs: pairs}
		f.Add(c.appendRequest(nil))
	}

	srv := NewServer(CPUFactory, discard)
	defer srv.Close()
	ctx := context.Background()
	if _, err := srv.Configure(ctx, &pb.ConfigureRequest{Params: encodeParams(narrow.Params{}), Workers: 1}); err != nil {
		f.Fatal(err)
	}
	if _, err := srv.RegisterShapes(ctx, shapeEntries(f, sc.shapes)); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		// The plugin reads requests with serverCodec; it must agree with
		// the generated code.
		var req, std pb.DetectRequest
		err := unmarshalRequest(data, &req)
		if stdErr := proto.Unmarshal(data, &std); (err == nil) != (stdErr == nil) {
			t.Fatalf("serverCodec: %v, proto.Unmarshal: %v", err, stdErr)
		}
		if err != nil {
			return
		}
		if req.Step != std.Step || req.NumPairs != std.NumPairs || !bytes.Equal(req.Pairs, std.Pairs) || !bytes.Equal(req.Poses, std.Poses) || !bytes.Equal(req.Records, std.Records) {
			t.Fatal("serverCodec and proto.Unmarshal read different requests")
		}
		pairs, _, decErr := decodeRequest(&req, nil)
		resp, err := srv.Detect(ctx, &req)
		if decErr != nil {
			if status.Code(err) != codes.InvalidArgument {
				t.Fatalf("malformed request (%v) answered %v", decErr, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("valid request failed: %v", err)
		}
		if len(req.Records) > 0 {
			again := make([]byte, len(pairs)*recordStride)
			packRecords(again, pairs)
			if len(pairs) != int(req.NumPairs) || !bytes.Equal(again, req.Records) {
				t.Fatal("the request's records do not re-encode to the same bytes")
			}
		} else if again := request(pairs); again.NumPairs != req.NumPairs || !bytes.Equal(again.Pairs, req.Pairs) || !bytes.Equal(again.Poses, req.Poses) {
			t.Fatal("the request does not re-encode to the same bytes")
		}
		var d decoder
		var res narrow.Result
		if err := d.decode(resp, pairs, &res); err != nil {
			t.Fatalf("the host rejects the response: %v", err)
		}
		if len(res.Pairs) != len(pairs) || res.Stats.Pairs != len(pairs) {
			t.Fatalf("%d results, stats %d, for %d pairs", len(res.Pairs), res.Stats.Pairs, len(pairs))
		}
	})
}

// smallScene is a few steps of boxes and squares, some touching, plus
// pairs every backend rejects.
func smallScene(t testing.TB) *scene {
	box, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	sq, err := narrow.NewPolygon([]mgl64.Vec2{{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {0, 0.2}, {-0.5, 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	sc := &scene{shapes: []*narrow.Shape{box, sq}}
	nan := narrow.Identity
	nan.Rot.W = math.NaN()
	for s := 0; s < 3; s++ {
		d := 0.9 + 0.02*float64(s)
		sc.steps = append(sc.steps, []narrow.Pair{
			{ID: 1, A: 0, B: 0, PoseA: narrow.Identity, PoseB: narrow.Pose{Pos: mgl64.Vec3{d, 0.1, 0}, Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1})}},
			{ID: 2, A: 1, B: 1, PoseA: narrow.Pose2D(0, 0, 0.1), PoseB: narrow.Pose2D(0.2, d, 0.5)},
			{ID: 3, A: 0, B: 0, PoseA: narrow.Identity, PoseB: narrow.Pose{Pos: mgl64.Vec3{3, 0, 0}, Rot: mgl64.QuatIdent()}},
			{ID: 4, A: 0, B: 1, PoseA: narrow.Identity, PoseB: narrow.Identity},
			{ID: 5, A: 0, B: 7, PoseA: nan, PoseB: narrow.Identity},
			{ID: 6, A: 1, B: 1, PoseA: nan, PoseB: narrow.Identity},
			{ID: 1, A: 0, B: 0, PoseA: narrow.Identity, PoseB: narrow.Identity},
		})
	}
	return sc
}

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzDecodeResponse feeds arbitrary bytes, as a DetectResponse, to the
// host's codec: it never panics, and accepts exactly what the generated
// code followed by the checks of decoder.decode accepts, with the same
// result. The seed corpus is responses to valid steps.
func FuzzDecodeResponse(f *testing.F) {
	sc := smallScene(f)
	be := newCPU(f, narrow.Params{}, sc.shapes)
	var res narrow.Result
	for _, pairs := range sc.steps {
		detect(f, be, pairs, &res)
		f.Add(marshal(f, encodeResponse(&res)))
	}
	pairs := sc.steps[0]
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want narrow.Result
		c := detectCall{pairs: pairs, res: &got}
		err := c.unmarshal(data)
		var resp pb.DetectResponse
		stdErr := proto.Unmarshal(data, &resp)
		if stdErr == nil {
			var d decoder
			stdErr = d.decode(&resp, pairs, &want)
		}
		if (err == nil) != (stdErr == nil) {
			t.Fatalf("hostCodec: %v; generated code: %v", err, stdErr)
		}
		if err == nil {
			if d := diffResults(&got, &want); d != "" {
				t.Fatal(d)
			}
		}
	})
}
