package view3d_test

import (
	"bytes"
	"fmt"
	"image/color"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/view3d"
)

// A box on a ground grid, written as PNG.
func ExampleRender() {
	box, err := narrow.NewBox(mgl64.Vec3{-1, -1, 0}, mgl64.Vec3{1, 1, 2})
	if err != nil {
		panic(err)
	}
	cam := view3d.Camera{Eye: mgl64.Vec3{4, -6, 4}, Target: mgl64.Vec3{0, 0, 1}} // z up
	img, err := view3d.Render(320, 240, cam,
		[]view3d.Instance{{Shape: box, Pose: narrow.Identity, Color: color.RGBA{0xe0, 0x7a, 0x5f, 0xff}}},
		view3d.WithGrid(view3d.Grid{Spacing: 1, Lines: 5, Color: color.RGBA{0x99, 0x99, 0x99, 0xff}}),
		view3d.WithTitle("a box"))
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer // or an *os.File
	if err := view3d.WritePNG(&buf, img); err != nil {
		panic(err)
	}
	x, y, _, _ := cam.Project(320, 240, mgl64.Vec3{0, 0, 1})
	fmt.Println(img.Bounds(), img.RGBAAt(int(x), int(y)) != img.RGBAAt(0, 239), buf.Len() > 0)
	// Output: (0,0)-(320,240) true true
}
