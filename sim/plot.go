package sim

import (
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

// WritePlot draws the per-step narrow-phase and box2d times of a trace
// against simulated time, as a PNG of 8×4 inches at 96 dpi.
func WritePlot(w io.Writer, t *Trace) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s (N = %d): time per step", t.Scene, t.N)
	p.X.Label.Text = "simulated time (s)"
	p.Y.Label.Text = "ms"
	p.Add(plotter.NewGrid())
	series := []struct {
		name string
		col  color.RGBA
		of   func(StepMetrics) time.Duration
	}{
		{"narrow phase (irtcd)", colFill[tintGear], func(m StepMetrics) time.Duration { return m.Narrow }},
		{"box2d step", colFill[tintBox], func(m StepMetrics) time.Duration { return m.Box2D }},
	}
	for _, s := range series {
		xy := make(plotter.XYs, len(t.Steps))
		for i, m := range t.Steps {
			xy[i].X = float64(m.Step+1) * t.Dt
			xy[i].Y = float64(s.of(m)) / float64(time.Millisecond)
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("sim: plot %s: %w", s.name, err)
		}
		l.Color = s.col
		l.Width = vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Legend.Top, p.Legend.Left = true, true
	c := vgimg.NewWith(vgimg.UseWH(8*vg.Inch, 4*vg.Inch), vgimg.UseDPI(96))
	p.Draw(draw.New(c))
	if _, err := (vgimg.PngCanvas{Canvas: c}).WriteTo(w); err != nil {
		return fmt.Errorf("sim: write plot: %w", err)
	}
	return nil
}
