package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRun: 1.6 simulated seconds, the cloth's flaps swinging together:
// without self-collision particles go through the cloth, and with
// Algorithm 1 alone some still do (swept over by the other flap); with
// the sweep test too none does; both pictures are written.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	out, plot := filepath.Join(dir, "cloth.png"), filepath.Join(dir, "pen.png")
	res, err := run(out, plot, 1.6)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].crossings != 0 || res[1].crossings == 0 || res[2].crossings == 0 {
		t.Errorf("particles through the cloth: %d with the sweep test (want 0), %d with Algorithm 1 alone, %d without (want some)", res[0].crossings, res[1].crossings, res[2].crossings)
	}
	for _, f := range []string{out, plot} {
		if st, err := os.Stat(f); err != nil || st.Size() < 1000 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
