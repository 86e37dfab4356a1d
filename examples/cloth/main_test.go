package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRun: 1.6 simulated seconds, the cloth's flaps swinging together:
// without self-collision particles go through the cloth, with Algorithm 1
// none does; both pictures are written.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "cloth.png"), filepath.Join(dir, "pen.png")
	res, err := run(out, plot, 1.6)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].crossings != 0 || res[1].crossings == 0 {
		t.Errorf("%d particles through the cloth with Algorithm 1 (want 0), %d without (want some)", res[0].crossings, res[1].crossings)
	}
	for _, f := range []string{out, plot} {
		if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
