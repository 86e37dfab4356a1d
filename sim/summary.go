package sim

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/irtcd/irtcd/internal/steploop"
)

// Summary aggregates a trace's steps.
type Summary struct {
	Steps  int
	Bodies int // dynamic bodies at the last step

	Narrow, Box2D         time.Duration // totals over the steps
	NarrowMean, Box2DMean time.Duration // per step
	NarrowMax, Box2DMax   time.Duration // slowest step
	NarrowMaxStep         int           // index of the slowest narrow phase

	StandardRays, PredictiveRays, IterativeRays int // totals

	Pairs, StandardPairs, IterativePairs int // totals over the steps
	PairsMax                             int // largest batch

	Points    int     // contact points handed to box2d, total
	DepthMean float64 // mean penetration depth of those points
	DepthMax  float64 // deepest point of the run

	// Every touching point of the world, irtcd's and box2d's own, as
	// box2d's solver sees them (StepMetrics.WorldPoints, WorldDepthMax):
	// the mean per step and the deepest of the run.
	WorldPointsMean float64
	WorldDepthMax   float64

	// Awake is the number of dynamic bodies awake after the last step,
	// and Asleep the first step after which none was (−1: never).
	Awake  int
	Asleep int
}

// Summary aggregates the trace's steps.
func (t *Trace) Summary() Summary {
	s := Summary{Steps: len(t.Steps), Asleep: -1}
	depthSum := 0.0
	for _, m := range t.Steps {
		s.Bodies = m.Bodies
		s.Narrow += m.Narrow
		s.Box2D += m.Box2D
		if m.Narrow > s.NarrowMax {
			s.NarrowMax, s.NarrowMaxStep = m.Narrow, m.Step
		}
		s.Box2DMax = max(s.Box2DMax, m.Box2D)
		s.StandardRays += m.StandardRays
		s.PredictiveRays += m.PredictiveRays
		s.IterativeRays += m.IterativeRays
		s.Pairs += m.Pairs
		s.StandardPairs += m.StandardPairs
		s.IterativePairs += m.IterativePairs
		s.PairsMax = max(s.PairsMax, m.Pairs)
		s.Points += m.Points
		depthSum += m.DepthSum
		s.DepthMax = max(s.DepthMax, m.DepthMax)
		s.WorldPointsMean += float64(m.WorldPoints)
		s.WorldDepthMax = max(s.WorldDepthMax, m.WorldDepthMax)
		s.Awake = m.Awake
		if m.Awake == 0 && s.Asleep < 0 && m.Bodies > 0 {
			s.Asleep = m.Step
		}
	}
	if s.Steps > 0 {
		s.NarrowMean = s.Narrow / time.Duration(s.Steps)
		s.Box2DMean = s.Box2D / time.Duration(s.Steps)
		s.WorldPointsMean /= float64(s.Steps)
	}
	if s.Points > 0 {
		s.DepthMean = depthSum / float64(s.Points)
	}
	return s
}

// WriteTo writes the summary as an aligned table, one phase per line.
func (s Summary) WriteTo(w io.Writer) (int64, error) {
	cw := &steploop.CountWriter{W: w}
	tw := tabwriter.NewWriter(cw, 0, 0, 2, ' ', 0)
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(time.Millisecond)) }
	pct := func(n, of int) string {
		if of == 0 {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
	}
	rays := s.StandardRays + s.PredictiveRays + s.IterativeRays
	fmt.Fprintf(tw, "steps\t%d\tbodies %d\n", s.Steps, s.Bodies)
	fmt.Fprintf(tw, "narrow phase\t%s total\tmean %s, max %s (step %d)\n", s.Narrow.Round(time.Millisecond), ms(s.NarrowMean), ms(s.NarrowMax), s.NarrowMaxStep)
	fmt.Fprintf(tw, "box2d step\t%s total\tmean %s, max %s\n", s.Box2D.Round(time.Millisecond), ms(s.Box2DMean), ms(s.Box2DMax))
	fmt.Fprintf(tw, "rays\t%d\tstandard %d, predictive %d, iterative %d (%s)\n", rays, s.StandardRays, s.PredictiveRays, s.IterativeRays, pct(s.IterativeRays, rays))
	fmt.Fprintf(tw, "pairs\t%d\tstandard %d, iterative %d (%s), largest batch %d\n", s.Pairs, s.StandardPairs, s.IterativePairs, pct(s.IterativePairs, s.StandardPairs+s.IterativePairs), s.PairsMax)
	fmt.Fprintf(tw, "contact points\t%d\tdepth mean %.5f, max %.5f\n", s.Points, s.DepthMean, s.DepthMax)
	fmt.Fprintf(tw, "world contacts\t%.0f points/step\tdeepest %.5f (box2d's and irtcd's, as box2d's solver sees them)\n", s.WorldPointsMean, s.WorldDepthMax)
	asleep := "never all asleep"
	if s.Asleep >= 0 {
		asleep = fmt.Sprintf("all asleep after step %d", s.Asleep)
	}
	fmt.Fprintf(tw, "awake\t%d of %d at the end\t%s\n", s.Awake, s.Bodies, asleep)
	err := tw.Flush()
	return cw.N, err
}
