// Package golden checks deterministic runs against fingerprints kept in
// the repository: a Hash of every bit of a run's output (float64 bit
// patterns, integers), compared with the value a file of the package's
// testdata records under the run's name.
//
// A fingerprint changes when anything in the run changes in its last bit:
// a refactoring that should change nothing shows that it changed nothing,
// and a build for another architecture or instruction set (arm64, amd64
// v3) shows whether it computes what the reference build computes
// (docs/DESIGN.md, "Determinism across machines"). After a change meant
// to move the results, rewrite the fingerprints with
//
//	go test ./sim ./sim/scene3d ./sim/rigid -run Golden -golden.update
//
// and say in the commit why they moved.
package golden

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var update = flag.Bool("golden.update", false, "rewrite the golden fingerprints instead of checking them")

// Hash is a 64-bit FNV-1a hash of a run's output. The zero value is not
// ready: use New.
type Hash struct {
	h   hash.Hash64
	buf [8]byte
}

// New returns an empty Hash.
func New() *Hash { return &Hash{h: fnv.New64a()} }

// Float adds the bit patterns of xs (so −0 and 0, or two NaNs, differ).
func (h *Hash) Float(xs ...float64) {
	for _, x := range xs {
		binary.LittleEndian.PutUint64(h.buf[:], math.Float64bits(x))
		h.h.Write(h.buf[:])
	}
}

// Int adds xs.
func (h *Hash) Int(xs ...int) {
	for _, x := range xs {
		binary.LittleEndian.PutUint64(h.buf[:], uint64(x))
		h.h.Write(h.buf[:])
	}
}

// Bytes adds b's length and bytes.
func (h *Hash) Bytes(b []byte) {
	h.Int(len(b))
	h.h.Write(b)
}

// Sum returns the fingerprint of everything added so far.
func (h *Hash) Sum() uint64 { return h.h.Sum64() }

var mu sync.Mutex

// Check compares got with the fingerprint recorded for name in file
// (lines "name hex", a path relative to the test's package, usually under
// testdata), and reports a mismatch or a missing record with t.Errorf.
// With -golden.update it records got instead.
func Check(t testing.TB, file, name string, got uint64) {
	t.Helper()
	if strings.ContainsAny(name, " \t\n") {
		t.Fatalf("golden: name %q has white space", name)
	}
	mu.Lock()
	defer mu.Unlock()
	recs, err := read(file)
	if err != nil && !(*update && os.IsNotExist(err)) {
		t.Fatalf("golden: %v", err)
	}
	if *update {
		recs[name] = got
		if err := write(file, recs); err != nil {
			t.Fatalf("golden: %v", err)
		}
		return
	}
	want, ok := recs[name]
	switch {
	case !ok:
		t.Errorf("golden: %s has no fingerprint for %s (got %016x; record it with -golden.update)", file, name, got)
	case got != want:
		t.Errorf("golden: %s: fingerprint %016x, want %016x (%s): the run's output changed; if it was meant to, rewrite with -golden.update", name, got, want, file)
	}
}

// read parses file into a map; the map is empty and usable on error.
func read(file string) (map[string]uint64, error) {
	recs := map[string]uint64{}
	f, err := os.Open(file)
	if err != nil {
		return recs, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		name, hex, ok := strings.Cut(s, " ")
		if !ok {
			return recs, fmt.Errorf("%s:%d: want \"name fingerprint\", got %q", file, line, s)
		}
		v, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			return recs, fmt.Errorf("%s:%d: fingerprint of %s: %w", file, line, name, err)
		}
		recs[name] = v
	}
	if err := sc.Err(); err != nil {
		return recs, fmt.Errorf("%s: %w", file, err)
	}
	return recs, nil
}

// write records recs in file, sorted by name.
func write(file string, recs map[string]uint64) error {
	names := make([]string, 0, len(recs))
	for n := range recs {
		names = append(names, n)
	}
	slices.Sort(names)
	var b strings.Builder
	b.WriteString("# Fingerprints of deterministic runs (package internal/golden); rewrite with -golden.update.\n")
	for _, n := range names {
		fmt.Fprintf(&b, "%s %016x\n", n, recs[n])
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
