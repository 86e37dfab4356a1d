package sim

import (
	"fmt"
	"io"
	"time"

	"github.com/irtcd/irtcd/internal/stepplot"
)

// WritePlot draws the per-step narrow-phase and box2d times of a trace
// against simulated time, as a PNG of 8×4 inches at 96 dpi.
func WritePlot(w io.Writer, t *Trace) error {
	narrow := make([]time.Duration, len(t.Steps))
	box2d := make([]time.Duration, len(t.Steps))
	for i, m := range t.Steps {
		narrow[i], box2d[i] = m.Narrow, m.Box2D
	}
	if err := stepplot.Write(w, fmt.Sprintf("%s (N = %d): time per step", t.Scene, t.N), t.Dt,
		stepplot.Series{Name: "narrow phase (irtcd)", Color: colFill[tintGear], Times: narrow},
		stepplot.Series{Name: "box2d step", Color: colFill[tintBox], Times: box2d}); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	return nil
}
