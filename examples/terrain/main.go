// Command terrain drops boxes, bunnies and tori onto hilly terrain (a
// heightfield, narrow.NewHeightfield, as a static body of a sim/rigid
// world), lets them settle for 6 s, prints how deep the deepest vertex of
// each kind of body sits under the surface and how many are asleep, and
// draws the scene in terrain.png.
//
//	go run ./examples/terrain [-out terrain.png]
package main

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/view3d"
)

// The terrain: n × n heights every d metres, its corner at (off, 0, off).
const (
	n   = 49
	d   = 0.5
	off = -12.0
)

// height is the terrain's height at grid point (i, j): two crossing waves
// and a hill.
func height(i, j int) float64 {
	x, z := off+float64(i)*d, off+float64(j)*d
	return 0.5*math.Sin(0.35*x)*math.Cos(0.3*z) + 1.5*math.Exp(-(x*x+z*z)/18)
}

func main() {
	out := flag.String("out", "terrain.png", "output PNG `file`")
	flag.Parse()
	if err := run(*out); err != nil {
		log.Fatal(err)
	}
}

func run(out string) error {
	heights := make([][]float64, n)
	for i := range heights {
		heights[i] = make([]float64, n)
		for j := range heights[i] {
			heights[i][j] = height(i, j)
		}
	}
	terrain, err := narrow.NewHeightfield(heights, d, d, -3)
	if err != nil {
		return err
	}
	cube, err := narrow.NewBox(mgl64.Vec3{-0.3, -0.3, -0.3}, mgl64.Vec3{0.3, 0.3, 0.3})
	if err != nil {
		return err
	}
	shapes := []*narrow.Shape{cube}
	for _, name := range []string{"bunny", "torus"} {
		s, err := narrow.LoadMesh("testdata/" + name + ".obj")
		if err != nil {
			return err
		}
		shapes = append(shapes, s)
	}
	names := []string{"boxes", "bunnies", "tori"}

	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		return err
	}
	defer w.Close()
	def := rigid.NewBodyDef(terrain, narrow.Pose{Pos: mgl64.Vec3{off, 0, off}, Rot: mgl64.QuatIdent()})
	def.Static, def.Name = true, "terrain"
	if _, err := w.AddBody(def); err != nil {
		return err
	}
	var kinds []int
	for k := range 36 {
		x, z := -7.5+float64(k%6)*3, -7.5+float64(k/6)*3
		pose := narrow.Pose{Pos: mgl64.Vec3{x, 4 + 0.4*float64(k%5), z}, Rot: mgl64.QuatRotate(0.7*float64(k), mgl64.Vec3{1, 1, 0}.Normalize())}
		if _, err := w.AddBody(rigid.NewBodyDef(shapes[k%3], pose)); err != nil {
			return err
		}
		kinds = append(kinds, k%3)
	}
	for range 360 {
		if err := w.Step(context.Background()); err != nil {
			return err
		}
	}

	// How deep each kind of body sits: its vertices against the surface
	// under them (the terrain's triangle there, as the mesh has it).
	deepest, asleep := make([]float64, len(shapes)), 0
	for k, kind := range kinds {
		b := w.Body(rigid.BodyID(k + 1))
		if b.Sleeping() {
			asleep++
		}
		tr := b.Pose().Transform()
		for v := range b.Shape().NumVertices() {
			p := tr.Apply(b.Shape().Vertex(v))
			deepest[kind] = max(deepest[kind], surface(terrain, p[0], p[2])-p[1])
		}
	}
	for kind, name := range names {
		fmt.Printf("%-8s deepest vertex %.4f m under the surface\n", name, deepest[kind])
	}
	fmt.Printf("%d of %d bodies asleep after %.0f s\n", asleep, len(kinds), w.Time())

	var inst []view3d.Instance
	palette := []color.RGBA{{0xd9, 0x8c, 0x3d, 0xff}, {0x3d, 0x85, 0xc6, 0xff}, {0x6a, 0xa8, 0x4f, 0xff}}
	for i, b := range w.Instances(nil) {
		c := color.RGBA{0xa0, 0x9a, 0x90, 0xff}
		if i > 0 {
			c = palette[kinds[i-1]]
		}
		inst = append(inst, view3d.Instance{Shape: b.Shape, Pose: b.Pose, Color: c})
	}
	img, err := view3d.Render(720, 450, view3d.Camera{Eye: mgl64.Vec3{14, 11, 17}, Target: mgl64.Vec3{0, 0, 0}, Up: mgl64.Vec3{0, 1, 0}}, inst,
		view3d.WithTitle(fmt.Sprintf("36 bodies on a heightfield of %dx%d points, t = %.0f s", n, n, w.Time())))
	if err != nil {
		return err
	}
	if err := view3d.SavePNG(out, img); err != nil {
		return err
	}
	fmt.Println("wrote", out)
	return nil
}

// surface returns the terrain's height at world (x, z): where a ray
// straight down from above meets it (the terrain's frame is the world's
// moved by (off, 0, off)).
func surface(terrain *narrow.Shape, x, z float64) float64 {
	const top = 100
	hit, _ := terrain.Trace([3]float64{x - off, top, z - off}, [3]float64{0, -1, 0}, 0, 0, narrow.TraversalBVH)
	return top - hit.T
}
