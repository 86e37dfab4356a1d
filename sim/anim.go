package sim

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"io"
)

// blendSteps is the number of intermediate shades between two of the
// renderer's colours in Palette (anti-aliased edges blend two colours).
const blendSteps = 6

// Palette returns the fixed palette of the GIF frames: the renderer's
// colours and six shades between every two of them (225 colours).
func Palette() color.Palette {
	base := []color.RGBA{colBackground, colOutline}
	base = append(base, colFill[:]...)
	pal := make(color.Palette, 0, 256)
	for _, c := range base {
		pal = append(pal, c)
	}
	lerp := func(a, b uint8, t float64) uint8 { return uint8(float64(a) + (float64(b)-float64(a))*t + 0.5) }
	for i := range base {
		for j := i + 1; j < len(base); j++ {
			for k := 1; k <= blendSteps; k++ {
				t := float64(k) / (blendSteps + 1)
				a, b := base[i], base[j]
				pal = append(pal, color.RGBA{lerp(a.R, b.R, t), lerp(a.G, b.G, t), lerp(a.B, b.B, t), 0xff})
			}
		}
	}
	return pal
}

// Animation collects frames for an animated GIF and keeps the last one,
// unquantised, for a PNG. Frames are quantised to Palette by nearest
// colour (no dithering: the renderer draws with the palette's colours).
type Animation struct {
	// Delay is each frame's duration in hundredths of a second.
	Delay int

	frames []*image.Paletted
	last   *image.RGBA
	pal    color.Palette
	index  map[color.RGBA]uint8 // nearest palette entry of colours seen
}

// NewAnimation returns an empty animation whose frames last delay
// hundredths of a second.
func NewAnimation(delay int) *Animation {
	return &Animation{Delay: max(1, delay), pal: Palette(), index: map[color.RGBA]uint8{}}
}

// NewAnimationPalette returns an empty animation whose frames last delay
// hundredths of a second and are quantised to pal (1 to 256 colours, as
// color.RGBA) by nearest colour, e.g. view3d.Palette's for pictures of
// 3D scenes. Other sizes give an error.
func NewAnimationPalette(delay int, pal color.Palette) (*Animation, error) {
	if len(pal) == 0 || len(pal) > 256 {
		return nil, fmt.Errorf("sim: animation palette of %d colours (want 1 to 256)", len(pal))
	}
	rgba := make(color.Palette, len(pal))
	for i, c := range pal {
		rgba[i] = color.RGBAModel.Convert(c)
	}
	return &Animation{Delay: max(1, delay), pal: rgba, index: map[color.RGBA]uint8{}}, nil
}

// Len returns the number of frames.
func (a *Animation) Len() int { return len(a.frames) }

// Last returns the last frame added, or nil.
func (a *Animation) Last() *image.RGBA { return a.last }

// Add appends a frame. The animation keeps img as its last frame: do not
// modify it afterwards.
func (a *Animation) Add(img *image.RGBA) {
	b := img.Bounds()
	p := image.NewPaletted(b, a.pal)
	var prev color.RGBA
	var prevIdx uint8
	havePrev := false
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[img.PixOffset(b.Min.X, y):]
		out := p.Pix[p.PixOffset(b.Min.X, y):]
		for x := range b.Dx() {
			c := color.RGBA{row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]}
			if !havePrev || c != prev {
				prev, prevIdx, havePrev = c, a.nearest(c), true
			}
			out[x] = prevIdx
		}
	}
	a.frames = append(a.frames, p)
	a.last = img
}

// nearest returns the index of the palette colour closest to c.
func (a *Animation) nearest(c color.RGBA) uint8 {
	if i, ok := a.index[c]; ok {
		return i
	}
	best, bestD := 0, int(^uint(0)>>1)
	for i, pc := range a.pal {
		q := pc.(color.RGBA)
		dr, dg, db := int(c.R)-int(q.R), int(c.G)-int(q.G), int(c.B)-int(q.B)
		if d := dr*dr + dg*dg + db*db; d < bestD {
			best, bestD = i, d
		}
	}
	a.index[c] = uint8(best)
	return uint8(best)
}

// Record returns an Options.OnFrame that renders every frame with r and
// adds it to the animation.
func (a *Animation) Record(r *Renderer) func(Frame) error {
	return func(f Frame) error {
		img, err := r.Render(f)
		if err != nil {
			return err
		}
		a.Add(img)
		return nil
	}
}

// WriteGIF encodes the frames as an animated GIF that loops forever; the
// last frame is held for two seconds.
func (a *Animation) WriteGIF(w io.Writer) error {
	if len(a.frames) == 0 {
		return errors.New("sim: animation has no frames")
	}
	g := &gif.GIF{Image: a.frames, Delay: make([]int, len(a.frames))}
	for i := range g.Delay {
		g.Delay[i] = a.Delay
	}
	g.Delay[len(g.Delay)-1] = max(a.Delay, 200)
	if err := gif.EncodeAll(w, g); err != nil {
		return fmt.Errorf("sim: encode GIF: %w", err)
	}
	return nil
}

// WritePNG encodes the last frame as a PNG.
func (a *Animation) WritePNG(w io.Writer) error {
	if a.last == nil {
		return errors.New("sim: animation has no frames")
	}
	if err := png.Encode(w, a.last); err != nil {
		return fmt.Errorf("sim: encode PNG: %w", err)
	}
	return nil
}
