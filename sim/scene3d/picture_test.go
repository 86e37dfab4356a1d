package scene3d_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"sync"
	"testing"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
	"github.com/irtcd/irtcd/sim/view3d"
)

// TestPainter: a Painter draws the same picture of the same state every
// time, a Snapshot drawn on other goroutines gives that picture too, and
// each mesh keeps one colour of MeshColors (the ground is left to the
// grid, the container's walls are grey).
func TestPainter(t *testing.T) {
	s, err := scene3d.New(scene3d.Spawner(), scene3d.Options{N: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 60 { // the first four objects, one of each mesh
		if _, err := s.Step(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	const w, h = 160, 100
	var p scene3d.Painter
	first, err := p.Paint(s, w, h, "spawner")
	if err != nil {
		t.Fatal(err)
	}
	again, err := p.Paint(s, w, h, "spawner")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Pix, again.Pix) {
		t.Error("two pictures of one state differ")
	}

	var snap scene3d.Snapshot
	p.Snapshot(s, "spawner", &snap)
	if want := len(s.Setup.Bodies) + len(s.Setup.Statics) - 1; len(snap.Instances) != want {
		t.Errorf("%d instances drawn, want %d (every body but the ground)", len(snap.Instances), want)
	}
	cols := map[*narrow.Shape]color.RGBA{}
	var meshes, walls int
	for _, in := range snap.Instances {
		if c, ok := cols[in.Shape]; ok && c != in.Color {
			t.Errorf("one mesh in %v and %v", c, in.Color)
		}
		cols[in.Shape] = in.Color
		if in.Color == (color.RGBA{0xa0, 0xa0, 0xa0, 0xff}) {
			walls++
		} else {
			meshes++
		}
	}
	if walls == 0 || meshes != len(s.Setup.Bodies) {
		t.Errorf("%d grey walls and %d coloured bodies, want some walls and %d bodies", walls, meshes, len(s.Setup.Bodies))
	}
	seen := map[color.RGBA]bool{}
	for _, c := range cols {
		seen[c] = true
	}
	for _, c := range scene3d.MeshColors {
		if !seen[c] {
			t.Errorf("mesh colour %v unused with four meshes in the scene", c)
		}
	}

	var wg sync.WaitGroup
	imgs := make([]*image.RGBA, 3)
	errs := make([]error, 3)
	for i := range imgs {
		wg.Go(func() {
			var r view3d.Renderer
			imgs[i], errs[i] = snap.Draw(&r, w, h)
		})
	}
	wg.Wait()
	for i, img := range imgs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(img.Pix, first.Pix) {
			t.Errorf("snapshot drawn on goroutine %d differs from Paint's picture", i)
		}
	}

	pal := scene3d.Palette()
	if len(pal) == 0 || len(pal) > 256 {
		t.Errorf("palette of %d colours", len(pal))
	}
	for _, c := range scene3d.MeshColors {
		if pal[pal.Index(c)] != c {
			t.Errorf("mesh colour %v not in the palette", c)
		}
	}
}
