// Command box-edges shows what edge-on-edge contacts (narrow.Params.
// EdgeAngle) change in a 3D rigid-body world (package sim/rigid): two
// scenes, each simulated for 3 s without and with them, drawn side by side
// in box-edges.png.
//
//   - A stack of six equal boxes, every other one set off diagonally by
//     2 mm: only one corner of each box lies over the box below, and the
//     crossings of their edges must hold it up.
//   - A bar dropped, edge down, across a static bar turned edge up: they
//     meet edge on edge, with no vertex of either inside the other.
//
// Without edge contacts the stack topples and the bar falls through the
// other; with them both stay up.
//
//	go run ./examples/box-edges [-out box-edges.png]
package main

import (
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"log"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/view3d"
)

func main() {
	out := flag.String("out", "box-edges.png", "output PNG `file`")
	flag.Parse()
	const w, h = 360, 360
	img := image.NewRGBA(image.Rect(0, 0, 2*w, 2*h))
	for row, sc := range []scene{stack, bars} {
		for col, edges := range []float64{0, math.Pi / 3} {
			world, err := simulate(sc, edges)
			if err != nil {
				log.Fatal(err)
			}
			title := fmt.Sprintf("%s, vertex rays only", sc.name)
			if edges > 0 {
				title = fmt.Sprintf("%s, with edge contacts", sc.name)
			}
			tile, err := render(world, sc.cam, w, h, title)
			world.Close()
			if err != nil {
				log.Fatal(err)
			}
			draw.Draw(img, image.Rect(col*w, row*h, (col+1)*w, (row+1)*h), tile, image.Point{}, draw.Src)
		}
	}
	if err := view3d.SavePNG(*out, img); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", *out)
}

// scene adds its bodies to a world and says where to look at it from.
type scene struct {
	name string
	add  func(*rigid.World) error
	cam  view3d.Camera
}

var stack = scene{
	name: "6 boxes, set off by 2 mm",
	add: func(w *rigid.World) error {
		for i := range 6 {
			off := 0.002 * float64(i%2)
			s, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
			if err != nil {
				return err
			}
			if _, err := w.AddBody(rigid.NewBodyDef(s, narrow.Pose{Pos: mgl64.Vec3{off, 0.5 + float64(i), off}, Rot: mgl64.QuatIdent()})); err != nil {
				return err
			}
		}
		return nil
	},
	cam: view3d.Camera{Eye: mgl64.Vec3{7, 5, 9}, Target: mgl64.Vec3{0, 2.5, 0}, Up: mgl64.Vec3{0, 1, 0}},
}

var bars = scene{
	name: "a bar dropped across a bar",
	add: func(w *rigid.World) error {
		const top, r = 1.0, 0.1 * math.Sqrt2
		lo, err := narrow.NewBox(mgl64.Vec3{-1, -0.1, -0.1}, mgl64.Vec3{1, 0.1, 0.1})
		if err != nil {
			return err
		}
		def := rigid.NewBodyDef(lo, narrow.Pose{Pos: mgl64.Vec3{0, top - r, 0}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{1, 0, 0})})
		def.Static = true
		if _, err := w.AddBody(def); err != nil {
			return err
		}
		hi, err := narrow.NewBox(mgl64.Vec3{-0.1, -0.1, -1}, mgl64.Vec3{0.1, 0.1, 1})
		if err != nil {
			return err
		}
		_, err = w.AddBody(rigid.NewBodyDef(hi, narrow.Pose{Pos: mgl64.Vec3{0, top + r + 0.2, 0}, Rot: mgl64.QuatRotate(math.Pi/4, mgl64.Vec3{0, 0, 1})}))
		return err
	},
	cam: view3d.Camera{Eye: mgl64.Vec3{2.6, 2.2, 3.4}, Target: mgl64.Vec3{0, 0.6, 0}, Up: mgl64.Vec3{0, 1, 0}},
}

// simulate runs sc for 3 s on a ground whose top is y = 0, with
// narrow.Params.EdgeAngle = edges.
func simulate(sc scene, edges float64) (*rigid.World, error) {
	cfg := rigid.DefaultConfig()
	cfg.Params.EdgeAngle = edges
	w, err := rigid.NewWorld(cfg)
	if err != nil {
		return nil, err
	}
	ground, err := narrow.NewBox(mgl64.Vec3{-20, -1, -20}, mgl64.Vec3{20, 0, 20})
	if err != nil {
		return nil, err
	}
	def := rigid.NewBodyDef(ground, narrow.Identity)
	def.Static = true
	if _, err := w.AddBody(def); err != nil {
		return nil, err
	}
	if err := sc.add(w); err != nil {
		return nil, err
	}
	for range 180 {
		if err := w.Step(context.Background()); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// render draws the world's bodies but the ground (body 0), over a grid.
func render(w *rigid.World, cam view3d.Camera, width, height int, title string) (*image.RGBA, error) {
	var inst []view3d.Instance
	for i, b := range w.Instances(nil)[1:] {
		c := color.RGBA{0xd9, 0x8c, 0x3d, 0xff}
		if i%2 == 1 {
			c = color.RGBA{0x3d, 0x85, 0xc6, 0xff}
		}
		if b.Static {
			c = color.RGBA{0x80, 0x80, 0x80, 0xff}
		}
		inst = append(inst, view3d.Instance{Shape: b.Shape, Pose: b.Pose, Color: c})
	}
	return view3d.Render(width, height, cam, inst,
		view3d.WithGrid(view3d.Grid{Normal: mgl64.Vec3{0, 1, 0}, Spacing: 0.5, Lines: 12, Color: color.RGBA{0xb0, 0xb0, 0xb0, 0xff}}),
		view3d.WithTitle(title))
}
