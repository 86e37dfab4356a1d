// Package steploop is the stepping loop shared by the scene runners (the
// 2D box2d scenes of package sim and the 3D scenes of sim/scene3d): steps,
// cancellation, progress and frame callbacks, each with the same error
// wording.
package steploop

import (
	"context"
	"fmt"
	"io"
)

// Loop describes one run.
type Loop[M any] struct {
	Prefix string // error prefix, e.g. "sim" or "scene3d"
	Scene  string // scene name for errors
	Total  int    // steps to take
	Every  int    // call Frame after every Every-th step (≤ 0: 1)

	// Step takes one step and returns its metrics.
	Step func(ctx context.Context) (M, error)
	// Frame, if set, is called before the first step, after every
	// Every-th step and after the last one; done is the number of steps
	// taken. An error stops the run.
	Frame func(done int) error
	// Progress, if set, is called after every step.
	Progress func(done, total int)
	// After, if set, is called after every step (after Progress, before
	// Frame) with the metrics of every step so far, which it may update
	// in place. An error stops the run.
	After func(ctx context.Context, out []M) error
}

// Run takes l.Total steps, appending each step's metrics to out, and
// returns out. It stops at the first error (a cancelled ctx, a failed step
// or frame) and returns the metrics of the steps done with it.
func (l *Loop[M]) Run(ctx context.Context, out []M) ([]M, error) {
	every := max(1, l.Every)
	frame := func(done int) error {
		if l.Frame == nil {
			return nil
		}
		if err := l.Frame(done); err != nil {
			return fmt.Errorf("%s: %s frame at step %d: %w", l.Prefix, l.Scene, done, err)
		}
		return nil
	}
	if err := frame(0); err != nil {
		return out, err
	}
	for i := range l.Total {
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("%s: %s stopped before step %d: %w", l.Prefix, l.Scene, i, err)
		}
		m, err := l.Step(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, m)
		if l.Progress != nil {
			l.Progress(i+1, l.Total)
		}
		if l.After != nil {
			if err := l.After(ctx, out); err != nil {
				return out, err
			}
		}
		if (i+1)%every == 0 || i+1 == l.Total {
			if err := frame(i + 1); err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// CountWriter counts the bytes written through it (for WriteTo methods).
type CountWriter struct {
	W io.Writer
	N int64
}

// Write implements io.Writer.
func (c *CountWriter) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	c.N += int64(n)
	return n, err
}
