// Package benchscene builds the synthetic batches of pairs that the
// backends' benchmarks share, so that their figures are of the same scene.
package benchscene

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// Cheap returns the shapes and frames of n deliberately cheap pairs: unit
// cubes (12 triangles; even pairs) and unit squares (odd pairs), each pair
// on its own spot of a grid. One pair in four interpenetrates slightly
// (B's near corners 2 % inside A), the others are 10 % apart. Every pair
// sways and turns a little, periodically over the frames, so that cycling
// over them is a smooth motion and the iterative methods keep their state.
// Shape IDs are 0 (cube) and 1 (square), as registered in that order.
func Cheap(n, frames int) ([]*narrow.Shape, [][]narrow.Pair, error) {
	cube, err := narrow.NewBox(mgl64.Vec3{-0.5, -0.5, -0.5}, mgl64.Vec3{0.5, 0.5, 0.5})
	if err != nil {
		return nil, nil, err
	}
	square, err := narrow.NewPolygon([]mgl64.Vec2{{-0.5, -0.5}, {0.5, -0.5}, {0.5, 0.5}, {-0.5, 0.5}})
	if err != nil {
		return nil, nil, err
	}
	out := make([][]narrow.Pair, frames)
	for f := range out {
		phase := 2 * math.Pi * float64(f) / float64(frames)
		out[f] = make([]narrow.Pair, n)
		for i := range out[f] {
			x, y := 3*float64(i%100), 3*float64(i/100)
			dx, dy := 1.1, 0.0
			if i%4 == 0 {
				dx, dy = 0.98, 0.3
			}
			s := 0.005 * math.Sin(phase+float64(i))
			turn := 0.01 * math.Cos(phase+float64(i))
			p := narrow.Pair{ID: uint64(i), A: narrow.ShapeID(i % 2), B: narrow.ShapeID(i % 2)}
			if i%2 == 0 {
				p.PoseA = narrow.Pose{Pos: mgl64.Vec3{x, y, 0}, Rot: mgl64.QuatIdent()}
				p.PoseB = narrow.Pose{Pos: mgl64.Vec3{x + dx + s, y + dy + s, dy}, Rot: mgl64.QuatRotate(turn, mgl64.Vec3{0, 0, 1})}
			} else {
				p.PoseA = narrow.Pose2D(x, y, 0)
				p.PoseB = narrow.Pose2D(x+dx+s, y+dy+s, turn)
			}
			out[f][i] = p
		}
	}
	return []*narrow.Shape{cube, square}, out, nil
}
