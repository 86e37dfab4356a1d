package plugin

import (
	"bytes"
	"reflect"
	"testing"

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
		want := request(pairs)
		if got.Step != 77 || got.NumPairs != want.NumPairs || !bytes.Equal(got.Pairs, want.Pairs) || !bytes.Equal(got.Poses, want.Poses) {
			t.Fatalf("round %d: the host's request reads back differently", round)
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
