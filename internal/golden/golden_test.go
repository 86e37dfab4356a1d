package golden

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps its failures instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(f string, a ...any) {
	r.errs = append(r.errs, fmt.Sprintf(f, a...))
}
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...) }

func TestHashBits(t *testing.T) {
	sum := func(f func(h *Hash)) uint64 { h := New(); f(h); return h.Sum() }
	cases := []struct {
		name string
		a, b func(h *Hash)
	}{
		{"zero signs", func(h *Hash) { h.Float(0) }, func(h *Hash) { h.Float(math.Copysign(0, -1)) }},
		{"last bit", func(h *Hash) { h.Float(1) }, func(h *Hash) { h.Float(math.Nextafter(1, 2)) }},
		{"order", func(h *Hash) { h.Float(1, 2) }, func(h *Hash) { h.Float(2, 1) }},
		{"ints", func(h *Hash) { h.Int(1, 2) }, func(h *Hash) { h.Int(1, 3) }},
		{"bytes", func(h *Hash) { h.Bytes([]byte{1, 2}) }, func(h *Hash) { h.Bytes([]byte{1, 3}) }},
		{"byte runs", func(h *Hash) { h.Bytes([]byte{1}); h.Bytes([]byte{2, 3}) }, func(h *Hash) { h.Bytes([]byte{1, 2}); h.Bytes([]byte{3}) }},
	}
	for _, c := range cases {
		if sum(c.a) == sum(c.b) {
			t.Errorf("%s: same fingerprint", c.name)
		}
	}
	if sum(func(h *Hash) { h.Float(1.5, -2) }) != sum(func(h *Hash) { h.Float(1.5); h.Float(-2) }) {
		t.Error("one call and two calls with the same values differ")
	}
}

func TestCheck(t *testing.T) {
	file := filepath.Join(t.TempDir(), "testdata", "golden.txt")
	defer func(u bool) { *update = u }(*update)

	*update = true
	for _, rec := range []struct {
		name string
		v    uint64
	}{{"b-run", 0xfeed}, {"a-run", 0x1}} {
		r := &recorder{TB: t}
		Check(r, file, rec.name, rec.v)
		if len(r.errs) > 0 {
			t.Fatalf("update: %v", r.errs)
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a-run 0000000000000001\nb-run 000000000000feed\n"; !strings.HasSuffix(string(data), want) {
		t.Errorf("file:\n%s\nwant it to end with\n%s", data, want)
	}

	*update = false
	for _, c := range []struct {
		name string
		v    uint64
		want string // in the failure; "" for none
	}{
		{"a-run", 0x1, ""},
		{"b-run", 0xfeed, ""},
		{"b-run", 0xfeee, "fingerprint 000000000000feee, want 000000000000feed"},
		{"c-run", 0x2, "no fingerprint for c-run"},
		{"bad name", 0x2, "white space"},
	} {
		r := &recorder{TB: t}
		Check(r, file, c.name, c.v)
		got := strings.Join(r.errs, "; ")
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("Check(%s, %x): %q, want %q", c.name, c.v, got, c.want)
		}
	}

	if err := os.WriteFile(file, []byte("a-run 1\nno-fingerprint\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &recorder{TB: t}
	Check(r, file, "a-run", 1)
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "golden.txt:2") {
		t.Errorf("malformed line 2: %q", r.errs)
	}
}
