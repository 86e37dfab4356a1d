// Package stepplot draws per-step times of a simulation against simulated
// time with gonum/plot: the time plots of the demos (package sim's 2D
// scenes and sim/scene3d's 3D ones).
package stepplot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Series is one curve: the time of every step, in step order.
type Series struct {
	Name  string
	Color color.RGBA
	Times []time.Duration
}

// Write draws the series against simulated time (step i ends at
// (i+1)·dt seconds) under title, as a PNG of 8×4 inches at 96 dpi.
func Write(w io.Writer, title string, dt float64, series ...Series) error {
	if !(dt > 0) {
		return fmt.Errorf("stepplot: time step %v, want > 0", dt)
	}
	if len(series) == 0 {
		return errors.New("stepplot: no series to plot")
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "simulated time (s)"
	p.Y.Label.Text = "ms"
	p.Add(plotter.NewGrid())
	for _, s := range series {
		xy := make(plotter.XYs, len(s.Times))
		for i, d := range s.Times {
			xy[i].X = float64(i+1) * dt
			xy[i].Y = float64(d) / float64(time.Millisecond)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("stepplot: %s: %w", s.Name, err)
		}
		l.Color = s.Color
		l.Width = vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(s.Name, l)
	}
	p.Legend.Top, p.Legend.Left = true, true
	c := vgimg.NewWith(vgimg.UseWH(8*vg.Inch, 4*vg.Inch), vgimg.UseDPI(96))
	p.Draw(draw.New(c))
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("stepplot: write PNG: %w", err)
	}
	return nil
}
