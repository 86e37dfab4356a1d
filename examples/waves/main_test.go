package main

import (
	"path/filepath"
	"testing"
)

// TestRun: two simulated seconds on the wave pool; after the landings no
// contact is deeper than 5 cm, no vertex of a body sits more than 2 cm
// under the surface, and every body stays in the pool.
func TestRun(t *testing.T) {
	sum, err := run(filepath.Join(t.TempDir(), "waves.png"), "../../testdata", 3)
	if err != nil {
		t.Fatal(err)
	}
	if sum.deepest > 0.05 || sum.lowest > 0.02 || sum.farthest > 9.5 {
		t.Errorf("deepest contact %.4f m, deepest vertex %.4f m under the surface, farthest body %.2f m from the centre", sum.deepest, sum.lowest, sum.farthest)
	}
}
