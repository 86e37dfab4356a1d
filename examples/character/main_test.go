package main

import (
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// TestRun: the character reaches the platform without ever overlapping
// the level (run fails otherwise), and the picture is written.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "character.png")
	if err := run(out, "../../testdata"); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 800 || b.Dy() != 500 {
		t.Errorf("picture %v, want 800×500", b)
	}
}
