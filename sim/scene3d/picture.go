package scene3d

import (
	"image"
	"image/color"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/view3d"
)

// MeshColors are the colours a Painter gives the scenes' meshes, in the
// order in which they first appear.
var MeshColors = []color.RGBA{
	{0xd9, 0x8c, 0x4a, 0xff}, // orange
	{0x3d, 0x85, 0xc6, 0xff}, // blue
	{0x8c, 0x5a, 0x3c, 0xff}, // brown
	{0xe8, 0xc5, 0x3a, 0xff}, // yellow
}

// Colours of what a Painter draws besides the meshes.
var (
	staticColor = color.RGBA{0xa0, 0xa0, 0xa0, 0xff}
	gridLines   = color.RGBA{0x9a, 0x9a, 0x9a, 0xff}
	gridFill    = color.RGBA{0xe6, 0xe3, 0xdc, 0xff}
)

// Painter draws a Sim's bodies as seen from its Setup's camera with
// package view3d: the ground (the scene's first static body) as a grid,
// the other static bodies grey and every dynamic body in the colour of its
// mesh (MeshColors, by order of first appearance, so that a mesh keeps
// its colour from frame to frame). The zero Painter is ready to use; it
// reuses its buffers between frames and is not safe for concurrent use.
type Painter struct {
	r    view3d.Renderer
	cols map[*narrow.Shape]color.RGBA
	snap Snapshot
}

// Snapshot is what a Painter draws of a Sim at one moment: its bodies
// (with their colours), camera and ground. It holds no reference to the
// Sim, so it can be drawn while the simulation goes on, on another
// goroutine with a Renderer of its own.
type Snapshot struct {
	Instances []view3d.Instance
	Camera    view3d.Camera
	Floor     float64 // world y of the ground's top surface, drawn as a grid
	Title     string  // written at the top ("" for none)
}

// Snapshot records s's current state with title into dst (whose
// Instances it reuses) for Snapshot.Draw.
func (p *Painter) Snapshot(s *Sim, title string, dst *Snapshot) {
	if p.cols == nil {
		p.cols = map[*narrow.Shape]color.RGBA{}
	}
	ground := rigid.BodyID(-1)
	if len(s.Setup.Statics) > 0 {
		ground = s.Setup.Statics[0]
	}
	dst.Instances = dst.Instances[:0]
	for _, in := range s.Instances() {
		if in.Body == ground {
			continue
		}
		col := staticColor
		if !in.Static {
			c, ok := p.cols[in.Shape]
			if !ok {
				c = MeshColors[len(p.cols)%len(MeshColors)]
				p.cols[in.Shape] = c
			}
			col = c
		}
		dst.Instances = append(dst.Instances, view3d.Instance{Shape: in.Shape, Pose: in.Pose, Color: col})
	}
	cam := s.Setup.Camera
	dst.Camera = view3d.Camera{Eye: cam.Eye, Target: cam.Target, Up: cam.Up, FOV: cam.FovY}
	dst.Floor, dst.Title = s.Setup.Floor, title
}

// Draw renders the snapshot with r in a new w×h image.
func (sn *Snapshot) Draw(r *view3d.Renderer, w, h int) (*image.RGBA, error) {
	opts := []view3d.Option{view3d.WithGrid(view3d.Grid{Center: mgl64.Vec3{0, sn.Floor, 0}, Normal: mgl64.Vec3{0, 1, 0},
		Spacing: 1, Lines: 30, Color: gridLines, Fill: gridFill})}
	if sn.Title != "" {
		opts = append(opts, view3d.WithTitle(sn.Title))
	}
	return r.Render(w, h, sn.Camera, sn.Instances, opts...)
}

// Paint renders s's current state in a new w×h image with title written
// at the top ("" for none).
func (p *Painter) Paint(s *Sim, w, h int, title string) (*image.RGBA, error) {
	p.Snapshot(s, title, &p.snap)
	return p.snap.Draw(&p.r, w, h)
}

// Palette returns a palette for GIF frames of a Painter's pictures:
// view3d.Palette of the colours it paints with.
func Palette() color.Palette {
	pal, err := view3d.Palette(append(slices.Clone(MeshColors), staticColor, gridLines, gridFill)...)
	if err != nil {
		panic(err) // a fixed, valid number of colours
	}
	return pal
}
