package sim

import (
	"fmt"
	"image"
	"image/color"
	"math"

	b2 "github.com/ByteArena/box2d"
	"github.com/fogleman/gg"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
	"github.com/irtcd/irtcd/narrow"
)

// The renderer's colours. Palette is built from exactly these, so that
// frames quantise without dithering.
var (
	colBackground = color.RGBA{0xf7, 0xf5, 0xf0, 0xff}
	colOutline    = color.RGBA{0x2b, 0x2b, 0x2b, 0xff}
	// colFill is indexed by Tint (tintStatic, tintGear, ...).
	colFill = [...]color.RGBA{
		{0x9e, 0x9a, 0x92, 0xff}, // static
		{0xe0, 0x7a, 0x5f, 0xff}, // gear
		{0xf2, 0xcc, 0x8f, 0xff}, // star
		{0x81, 0xb2, 0x9a, 0xff}, // blob
		{0x3d, 0x85, 0xc6, 0xff}, // box
		{0xd1, 0x49, 0x5b, 0xff}, // ball
		{0x6c, 0x5b, 0x7b, 0xff}, // cup
	}
)

// DefaultWidth is the width of frames when Renderer.Width is zero.
const DefaultWidth = 640

// Renderer draws frames of a box2d world: every fixture of every body,
// irtcd shapes by their exact outline (holes included), box2d circles,
// polygons, edges and chains, with a line of text naming the scene and the
// time. A body's colour comes from its user data when that is a Tint
// (static bodies are grey). A Renderer caches the outlines of the irtcd
// shapes it has seen; it is not safe for concurrent use.
type Renderer struct {
	// Width is the image width in pixels (0: DefaultWidth); the height
	// follows the view's aspect ratio.
	Width int

	loops map[*narrow.Shape][][]b2.B2Vec2
}

// Size returns the image size for view.
func (r *Renderer) Size(view Rect) (w, h int) {
	w = r.Width
	if w <= 0 {
		w = DefaultWidth
	}
	h = 1
	if view.Dx() > 0 && view.Dy() > 0 {
		h = max(1, int(math.Round(float64(w)*view.Dy()/view.Dx())))
	}
	return w, h
}

// Render draws f into a new image.
func (r *Renderer) Render(f Frame) (*image.RGBA, error) {
	view := f.View
	if !(view.Dx() > 0 && view.Dy() > 0) {
		return nil, fmt.Errorf("sim: render: empty view %+v", view)
	}
	w, h := r.Size(view)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	dc := gg.NewContextForRGBA(img)
	dc.SetColor(colBackground)
	dc.Clear()
	scale := math.Min(float64(w)/view.Dx(), float64(h)/view.Dy())
	px := func(p b2.B2Vec2) (float64, float64) {
		return (p.X - view.MinX) * scale, float64(h) - (p.Y-view.MinY)*scale
	}
	dc.SetLineWidth(1)
	bodies := 0
	if f.World != nil {
		for b := f.World.M_bodyList; b != nil; b = b.M_next {
			if b.M_type != b2.B2BodyType.B2_staticBody {
				bodies++
			}
			fill := colFill[tintStatic]
			if t, ok := b.M_userData.(Tint); ok && int(t) < len(colFill) && b.M_type != b2.B2BodyType.B2_staticBody {
				fill = colFill[t]
			} else if b.M_type != b2.B2BodyType.B2_staticBody {
				fill = colFill[tintGear]
			}
			xf := b.M_xf
			for fx := b.M_fixtureList; fx != nil; fx = fx.M_next {
				r.drawShape(dc, fx.M_shape, xf, fill, scale, px)
			}
		}
	}
	label := fmt.Sprintf("%s   t = %5.2f s   step %d   bodies %d", f.Scene, f.Time, f.Step, bodies)
	tw, _ := dc.MeasureString(label)
	dc.SetColor(colBackground)
	dc.DrawRectangle(0, 0, tw+12, 20)
	dc.Fill()
	dc.SetColor(colOutline)
	dc.DrawString(label, 6, 15)
	return img, nil
}

// drawShape fills and outlines one fixture's shape.
func (r *Renderer) drawShape(dc *gg.Context, s b2.B2ShapeInterface, xf b2.B2Transform, fill color.RGBA, scale float64, px func(b2.B2Vec2) (float64, float64)) {
	path := func(loop []b2.B2Vec2, closed bool) {
		for i, v := range loop {
			x, y := px(b2.B2TransformVec2Mul(xf, v))
			if i == 0 {
				dc.MoveTo(x, y)
			} else {
				dc.LineTo(x, y)
			}
		}
		if closed {
			dc.ClosePath()
		}
	}
	paint := func() {
		dc.SetColor(fill)
		dc.FillPreserve()
		dc.SetColor(colOutline)
		dc.Stroke()
	}
	switch t := s.(type) {
	case *box2dadapter.Shape:
		for _, l := range r.outline(t.Narrow()) {
			dc.NewSubPath()
			path(l, true)
		}
		dc.SetFillRuleEvenOdd()
		paint()
		dc.SetFillRuleWinding()
	case *b2.B2CircleShape:
		c := b2.B2TransformVec2Mul(xf, t.M_p)
		x, y := px(c)
		dc.DrawCircle(x, y, t.M_radius*scale)
		paint()
		ex, ey := px(b2.B2Vec2Add(c, b2.B2RotVec2Mul(xf.Q, b2.B2Vec2{X: t.M_radius})))
		dc.DrawLine(x, y, ex, ey) // shows the rotation
		dc.SetColor(colOutline)
		dc.Stroke()
	case *b2.B2PolygonShape:
		path(t.M_vertices[:t.M_count], true)
		paint()
	case *b2.B2EdgeShape:
		path([]b2.B2Vec2{t.M_vertex1, t.M_vertex2}, false)
		dc.SetColor(colOutline)
		dc.Stroke()
	case *b2.B2ChainShape:
		path(t.M_vertices[:t.M_count], false)
		dc.SetColor(colOutline)
		dc.Stroke()
	}
}

// outline returns the loops of a 2D polygon in body coordinates, in
// segment order (outer boundary, then holes), cached per shape.
func (r *Renderer) outline(s *narrow.Shape) [][]b2.B2Vec2 {
	if l, ok := r.loops[s]; ok {
		return l
	}
	if r.loops == nil {
		r.loops = map[*narrow.Shape][][]b2.B2Vec2{}
	}
	n := s.NumPrims()
	seen := make([]bool, n)
	var loops [][]b2.B2Vec2
	for start := range n {
		if seen[start] {
			continue
		}
		var loop []b2.B2Vec2
		for i, k := start, 0; k < n && !seen[i]; i, k = s.Adjacent(i, 2), k+1 {
			seen[i] = true
			v := s.Vertex(int(s.Prim(i)[0]))
			loop = append(loop, b2.B2Vec2{X: v[0], Y: v[1]})
			if s.Adjacent(i, 2) < 0 {
				break
			}
		}
		loops = append(loops, loop)
	}
	r.loops[s] = loops
	return loops
}
