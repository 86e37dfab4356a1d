package scene3d_test

import (
	"context"
	"fmt"
	"log"

	"github.com/irtcd/irtcd/sim"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// A GIF of a small avalanche: a Painter draws a frame every 10 steps,
// mapped to the palette of its colours.
func ExamplePainter() {
	anim, err := sim.NewAnimationPalette(17, scene3d.Palette()) // 10 steps of 1/60 s
	if err != nil {
		log.Fatal(err)
	}
	var painter scene3d.Painter
	tr, err := scene3d.Run(context.Background(), scene3d.Avalanche(), scene3d.Options{
		N: 8, Steps: 60, FrameEvery: 10,
		OnFrame: func(s *scene3d.Sim) error {
			img, err := painter.Paint(s, 320, 200, fmt.Sprintf("t = %.2f s", s.Time()))
			if err != nil {
				return err
			}
			anim.Add(img)
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(tr.Steps), "steps,", anim.Len(), "frames of", anim.Last().Bounds().Size())
	// anim.WriteGIF(f) writes the animation, anim.WritePNG(f) its last frame.

	// Output:
	// 60 steps, 7 frames of (320,200)
}
