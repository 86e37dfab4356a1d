// Command sim-gif runs the "cup" scene of package sim, writes it as an
// animated GIF (cup.gif) with a PNG of its last frame (cup.png), and
// prints the narrow phase's summary.
//
//	go run ./examples/sim-gif
package main

import (
	"context"
	"log"
	"os"

	"github.com/irtcd/irtcd/sim"
)

func main() {
	anim := sim.NewAnimation(5) // 5/100 s per frame: 3 steps of 1/60 s
	tr, err := sim.Run(context.Background(), sim.Cup(), sim.Options{
		Params:     sim.Params2D{N: 20, Seed: 1},
		FrameEvery: 3,
		OnFrame:    anim.Record(&sim.Renderer{Width: 480}),
	})
	if err != nil {
		log.Fatal(err)
	}
	for name, write := range map[string]func(*os.File) error{
		"cup.gif": func(f *os.File) error { return anim.WriteGIF(f) },
		"cup.png": func(f *os.File) error { return anim.WritePNG(f) },
	} {
		f, err := os.Create(name)
		if err != nil {
			log.Fatal(err)
		}
		if err := write(f); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
	if _, err := tr.Summary().WriteTo(os.Stdout); err != nil {
		log.Fatal(err)
	}
}
