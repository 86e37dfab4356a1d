package experiment

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/irtcd/irtcd/sim/scene3d"
)

// curve is one series of a plot.
type curve struct {
	name   string
	xy     plotter.XYs
	col    color.RGBA
	dashed bool
	points bool // markers instead of a line
}

// marker is a vertical line at x (a phase boundary).
type marker struct {
	x    float64
	name string
}

// chart is a line plot.
type chart struct {
	file, title, xLabel, yLabel string
	logY                        bool
	curves                      []curve
	markers                     []marker
}

// Plot colours.
var (
	colStandard   = color.RGBA{0x55, 0x55, 0x55, 0xff}
	colIterative  = color.RGBA{0xd6, 0x4f, 0x2a, 0xff}
	colPredictive = color.RGBA{0x2a, 0x7a, 0xc6, 0xff}
	colBasicStd   = color.RGBA{0x9a, 0x7b, 0x2a, 0xff}
	colBasicIt    = color.RGBA{0x2a, 0x9a, 0x5a, 0xff}
	colBasicPred  = color.RGBA{0x8a, 0x3a, 0xa6, 0xff}
	colMarker     = color.RGBA{0xaa, 0xaa, 0xaa, 0xff}
)

// floorLog is the smallest value drawn on a log axis.
const floorLog = 1e-3

// draw writes the chart as a PNG under the config's plot directory and
// returns the report's Plot.
func (ch *chart) draw(c *Config, caption string) (Plot, error) {
	p := plot.New()
	p.Title.Text = ch.title
	p.X.Label.Text = ch.xLabel
	p.Y.Label.Text = ch.yLabel
	p.Add(plotter.NewGrid())
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, cv := range ch.curves {
		for i := range cv.xy {
			y := cv.xy[i].Y
			if ch.logY {
				y = math.Max(y, floorLog)
				cv.xy[i].Y = y
			}
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	if lo > hi {
		lo, hi = 0, 1
		if ch.logY {
			lo = floorLog
		}
	}
	if hi == lo {
		hi = lo + 1
	}
	for _, m := range ch.markers {
		l, err := plotter.NewLine(plotter.XYs{{X: m.x, Y: lo}, {X: m.x, Y: hi}})
		if err != nil {
			return Plot{}, fmt.Errorf("experiment: plot %s: %w", ch.file, err)
		}
		l.Color, l.Width, l.Dashes = colMarker, vg.Points(1), []vg.Length{vg.Points(2), vg.Points(2)}
		p.Add(l)
		lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: m.x, Y: hi}}, Labels: []string{" " + m.name}})
		if err == nil {
			p.Add(lab)
		}
	}
	for _, cv := range ch.curves {
		if len(cv.xy) == 0 {
			continue
		}
		if cv.points {
			s, err := plotter.NewScatter(cv.xy)
			if err != nil {
				return Plot{}, fmt.Errorf("experiment: plot %s: %w", ch.file, err)
			}
			s.GlyphStyle.Color, s.GlyphStyle.Shape, s.GlyphStyle.Radius = cv.col, draw.CircleGlyph{}, vg.Points(3)
			p.Add(s)
			p.Legend.Add(cv.name, s)
			continue
		}
		l, err := plotter.NewLine(cv.xy)
		if err != nil {
			return Plot{}, fmt.Errorf("experiment: plot %s: %w", ch.file, err)
		}
		l.Color, l.Width = cv.col, vg.Points(1.1)
		if cv.dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(cv.name, l)
	}
	// Room above the curves for the legend (top left).
	entries := 0
	for _, cv := range ch.curves {
		if len(cv.xy) > 0 {
			entries++
		}
	}
	f := math.Min(0.5, 0.055*float64(entries+1))
	if ch.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
		l0, l1 := math.Log10(lo), math.Log10(hi)
		p.Y.Min, p.Y.Max = lo, math.Pow(10, l0+(l1-l0)/(1-f))
	} else {
		p.Y.Min = math.Min(0, lo)
		p.Y.Max = p.Y.Min + (hi-p.Y.Min)/(1-f)
	}
	p.Legend.Top, p.Legend.Left = true, true
	file, rel, err := c.plotPath(ch.file)
	if err != nil {
		return Plot{}, err
	}
	if err := p.Save(9*vg.Inch, 4.5*vg.Inch, file); err != nil {
		return Plot{}, fmt.Errorf("experiment: plot %s: %w", file, err)
	}
	return Plot{Path: rel, Caption: caption}, nil
}

// perStep returns one point per step: x the simulated time at the step's
// end, y f of the step.
func perStep(t *scene3d.Trace, f func(*scene3d.StepMetrics) float64) plotter.XYs {
	xy := make(plotter.XYs, len(t.Steps))
	for i := range t.Steps {
		xy[i].X = float64(t.Steps[i].Step+1) * t.Dt
		xy[i].Y = f(&t.Steps[i])
	}
	return xy
}

// narrowMs is a step's narrow-phase time in ms.
func narrowMs(m *scene3d.StepMetrics) float64 { return ms(m.Narrow) }

// erroneousPct is a step's share of erroneous rays in percent (0 when no
// ray was compared).
func erroneousPct(m *scene3d.StepMetrics) float64 { return 100 * m.ErroneousShare() }

// phaseMarkers returns the boundaries of phases B and C as markers, in
// simulated time.
func phaseMarkers(ph [3]span, dt float64) []marker {
	var ms []marker
	for _, sp := range ph[1:] {
		if sp.to > sp.from {
			ms = append(ms, marker{x: float64(sp.from) * dt, name: sp.name[:1]})
		}
	}
	return ms
}
