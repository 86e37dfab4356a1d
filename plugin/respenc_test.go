package plugin

import (
	"math"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// TestResponseEncoder: the encoding responseEncoder writes in place reads,
// with the generated code, as the message encodeResponse builds (failed
// pairs, literal manifold points and all), and the host decodes it to the
// same result, bit for bit; reusing the encoder changes nothing.
func TestResponseEncoder(t *testing.T) {
	sc := newScene(t, 21, 12, 3)
	be := newCPU(t, narrow.Params{}, sc.shapes)
	var e responseEncoder
	for s, pairs := range sc.steps {
		var res narrow.Result
		detect(t, be, pairs, &res)
		if s == 2 { // manifold points that are no copy of their pair's contacts
			var odd narrow.Result
			for i := range res.Pairs {
				p := &res.Pairs[i]
				ms := make([]narrow.Manifold, len(p.Manifolds))
				for k, m := range p.Manifolds {
					ms[k] = narrow.Manifold{Normal: m.Normal, Points: append([]narrow.Contact(nil), m.Points...)}
					ms[k].Points[0].Depth = math.Nextafter(ms[k].Points[0].Depth, 2)
				}
				odd.Append(p.ID, p.Contacts, ms, p.Iterative, p.Err)
			}
			odd.Stats = res.Stats
			res = odd
		}
		want := encodeResponse(&res)
		if res.Stats.FailedPairs == 0 || (s == 2) != (len(want.Points) > 0) {
			t.Fatalf("step %d: %d failed pairs, %d literal points", s, res.Stats.FailedPairs, len(want.Points)/contactStride)
		}
		n := e.size(&res)
		buf := make([]byte, n+8)
		for k := range buf {
			buf[k] = 0xAA
		}
		if !e.write(buf[:n], &res) {
			t.Fatalf("step %d: write does not match size %d", s, n)
		}
		if buf[n] != 0xAA {
			t.Fatalf("step %d: wrote past its %d bytes", s, n)
		}
		var got pb.DetectResponse
		if err := proto.Unmarshal(buf[:n], &got); err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		if !proto.Equal(&got, want) {
			t.Fatalf("step %d: the in-place encoding reads as a different message", s)
		}
		var out narrow.Result
		c := &detectCall{pairs: pairs, res: &out}
		if err := c.unmarshal(buf[:n]); err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		if d := diffResults(&out, &res); d != "" {
			t.Fatalf("step %d: %s", s, d)
		}
	}
}
