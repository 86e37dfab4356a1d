package plugin

import (
	"math"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"google.golang.org/protobuf/proto"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin/pb"
)

// TestCodecs: the host's and the plugin's codecs speak plain protobuf:
// what the host writes, the generated code reads as encodeRequest's
// message; what the generated code writes, the host reads as decode does;
// other messages pass through.
func TestCodecs(t *testing.T) {
	sc := newScene(t, 13, 6, 2)
	pairs := sc.steps[1]
	c := &detectCall{step: 77, pairs: pairs}
	for round := 0; round < 2; round++ { // the second reuses the buffer
		data, err := hostCodec{}.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var got pb.DetectRequest
		if err := proto.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if got.Step != 77 || int(got.NumPairs) != len(pairs) || len(got.Pairs) != 0 || len(got.Poses) != 0 {
			t.Fatalf("round %d: the host's request reads back differently", round)
		}
		// Its records are the pairs bit for bit, read in place or not.
		back, _, err := decodeRequest(&got, nil)
		if err != nil {
			t.Fatal(err)
		}
		unaligned := append([]byte{0}, got.Records...)[1:]
		copied, _, err := decodeRequest(&pb.DetectRequest{NumPairs: got.NumPairs, Records: unaligned}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !samePairs(back, pairs) || !samePairs(copied, pairs) {
			t.Fatalf("round %d: the host's records read back differently", round)
		}
		var viaServer pb.DetectRequest
		if err := (serverCodec{}).Unmarshal(data, &viaServer); err != nil || !proto.Equal(&viaServer, &got) {
			t.Fatalf("serverCodec reads %v, %v", &viaServer, err)
		}
	}

	be := newCPU(t, narrow.Params{}, sc.shapes)
	var res, got narrow.Result
	detect(t, be, pairs, &res)
	data, err := serverCodec{}.Marshal(encodeResponse(&res))
	if err != nil {
		t.Fatal(err)
	}
	// Unknown fields are skipped, as the generated code does.
	var extra []byte
	extra = append(extra, 0x98, 0x06, 0x01) // field 99, varint 1
	c = &detectCall{pairs: pairs, res: &got}
	if err := (hostCodec{}).Unmarshal(append(data, extra...), c); err != nil {
		t.Fatal(err)
	}
	if d := diffResults(&got, &res); d != "" {
		t.Fatal(d)
	}

	for _, codec := range []interface {
		Marshal(any) ([]byte, error)
		Unmarshal([]byte, any) error
	}{hostCodec{}, serverCodec{}} {
		in := &pb.ConfigureRequest{Params: encodeParams(narrow.Params{Method: narrow.MethodIterative, Confidence: 2.5}), Workers: 3}
		b, err := codec.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out pb.ConfigureRequest
		if err := codec.Unmarshal(b, &out); err != nil || !proto.Equal(in, &out) {
			t.Errorf("%T: %v, %v", codec, &out, err)
		}
		if _, err := codec.Marshal(42); err == nil {
			t.Errorf("%T marshals an int", codec)
		}
	}
}

// TestWireParams: every field of narrow.Params crosses the wire, bit for
// bit (a field added to narrow.Params but not to the protocol fails here).
func TestWireParams(t *testing.T) {
	var p narrow.Params
	v := reflect.ValueOf(&p).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Float64:
			f.SetFloat(1.0/3 + float64(i))
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(2 + i))
		case reflect.Uint8:
			f.SetUint(uint64(i % 2))
		case reflect.Bool:
			f.SetBool(true)
		default:
			t.Fatalf("narrow.Params.%s: kind %v not handled", v.Type().Field(i).Name, f.Kind())
		}
	}
	b, err := proto.Marshal(encodeParams(p))
	if err != nil {
		t.Fatal(err)
	}
	var m pb.Params
	if err := proto.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	got, _ := decodeParams(&m) // the values need not be valid
	if got != p {
		t.Errorf("params %+v came back as %+v", p, got)
	}
}

// TestWireStats: every field of narrow.Stats crosses the wire, through the
// generated protobuf code and through the hand-written encoding of the
// shared-memory transports alike.
func TestWireStats(t *testing.T) {
	var s narrow.Stats
	v := reflect.ValueOf(&s).Elem()
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).Kind() != reflect.Int {
			t.Fatalf("narrow.Stats.%s: kind %v not handled", v.Type().Field(i).Name, v.Field(i).Kind())
		}
		v.Field(i).SetInt(int64(3 + 5*i))
	}
	b, err := proto.Marshal(encodeStats(&s))
	if err != nil {
		t.Fatal(err)
	}
	for name, enc := range map[string][]byte{"protobuf": b, "appendStats": appendStats(nil, &s)} {
		var m pb.Stats
		if err := proto.Unmarshal(enc, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := decodeStats(&m); got != s {
			t.Errorf("%s: stats %+v came back as %+v", name, s, got)
		}
	}
}

// samePairs reports whether two batches of pairs are equal bit for bit.
func samePairs(a, b []narrow.Pair) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := &a[i], &b[i]
		if x.ID != y.ID || x.A != y.A || x.B != y.B || !samePose(&x.PoseA, &y.PoseA) || !samePose(&x.PoseB, &y.PoseB) {
			return false
		}
	}
	return true
}

func samePose(a, b *narrow.Pose) bool {
	v := [7]float64{a.Pos[0], a.Pos[1], a.Pos[2], a.Rot.W, a.Rot.V[0], a.Rot.V[1], a.Rot.V[2]}
	w := [7]float64{b.Pos[0], b.Pos[1], b.Pos[2], b.Rot.W, b.Rot.V[0], b.Rot.V[1], b.Rot.V[2]}
	for k := range v {
		if math.Float64bits(v[k]) != math.Float64bits(w[k]) {
			return false
		}
	}
	return true
}

// TestNativeLayouts: where the records and contacts are copied as they lie
// in memory, the bytes are those written field by field (as on machines of
// another layout), and read back field by field to the same values; a
// contact with a bad side is refused either way.
func TestNativeLayouts(t *testing.T) {
	t.Logf("native records %v, native contacts %v", nativeRecords, nativeContacts)
	sc := newScene(t, 21, 40, 2)
	pairs := sc.steps[1]
	fast, slow := make([]byte, len(pairs)*recordStride), make([]byte, len(pairs)*recordStride)
	packRecords(fast, pairs)
	packRecordFields(slow, pairs)
	back := make([]narrow.Pair, len(pairs))
	unpackRecords(back, fast)
	if !reflect.DeepEqual(fast, slow) || !samePairs(back, pairs) {
		t.Error("records differ between the copy and the field-by-field packing")
	}

	var res narrow.Result
	be := newCPU(t, narrow.Params{}, sc.shapes)
	detect(t, be, pairs, &res)
	var cs []narrow.Contact
	for _, p := range res.Pairs {
		cs = append(cs, p.Contacts...)
	}
	if len(cs) == 0 {
		t.Fatal("no contacts")
	}
	// And an edge-on-edge one, whose feature byte travels too.
	cs = append(cs, narrow.Contact{P: mgl64.Vec3{1, 2, 3}, Depth: -0.25, Dir: mgl64.Vec3{0, 0, 1}, From: narrow.SideA, Feature: narrow.FeatureEdge, Vertex: 7, Prim: 11})
	fast, slow = make([]byte, len(cs)*contactStride), make([]byte, len(cs)*contactStride)
	putContacts(fast, cs)
	putContactFields(slow, cs)
	a, b := make([]narrow.Contact, len(cs)), make([]narrow.Contact, len(cs))
	if err := getContacts(a, fast); err != nil {
		t.Fatal(err)
	}
	if err := getContactFields(b, slow); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fast, slow) || !reflect.DeepEqual(a, cs) || !reflect.DeepEqual(b, cs) {
		t.Error("contacts differ between the copy and the field-by-field packing")
	}
	fast[len(fast)-contactStride+56] = 2 // the last contact's side
	if getContacts(a, fast) == nil || getContactFields(b, fast) == nil {
		t.Error("a contact of side 2 accepted")
	}
	fast[len(fast)-contactStride+56] = 0
	fast[len(fast)-contactStride+57] = byte(narrow.FeatureEdgeFace) + 1 // its feature, past the last
	if getContacts(a, fast) == nil || getContactFields(b, fast) == nil {
		t.Errorf("a contact of feature %d accepted", narrow.FeatureEdgeFace+1)
	}
}
