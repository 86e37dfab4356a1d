package narrow

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestPrimitives(t *testing.T) {
	const r, h = 0.4, 0.7
	tests := []struct {
		name   string
		build  func(segments int) (*Shape, error)
		volume float64                    // of the round shape
		dist   func(p mgl64.Vec3) float64 // from the round shape's surface, signed
		verts  func(segments int) int
	}{
		{"sphere", func(s int) (*Shape, error) { return NewSphere(r, s) }, 4.0 / 3 * math.Pi * r * r * r,
			func(p mgl64.Vec3) float64 { return p.Len() - r },
			func(s int) int { return 2 + s*(max(2, s/2)-1) }},
		{"capsule", func(s int) (*Shape, error) { return NewCapsule(r, h, s) }, 4.0/3*math.Pi*r*r*r + math.Pi*r*r*2*h,
			func(p mgl64.Vec3) float64 {
				y := max(-h, min(h, p[1]))
				return p.Sub(mgl64.Vec3{0, y, 0}).Len() - r
			},
			func(s int) int { return 2 + s*(2*max(1, s/4)) }},
		{"capsule of height 0", func(s int) (*Shape, error) { return NewCapsule(r, 0, s) }, 4.0 / 3 * math.Pi * r * r * r,
			func(p mgl64.Vec3) float64 { return p.Len() - r },
			func(s int) int { return 2 + s*(2*max(1, s/4)-1) }},
		{"cylinder", func(s int) (*Shape, error) { return NewCylinder(r, h, s) }, math.Pi * r * r * 2 * h,
			func(p mgl64.Vec3) float64 {
				return max(math.Hypot(p[0], p[2])-r, math.Abs(p[1])-h)
			},
			func(s int) int { return 2 + 2*s }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prevErr := math.Inf(1)
			for _, segs := range []int{3, 8, 16, 32, 64} {
				s, err := tt.build(segs)
				if err != nil {
					t.Fatalf("%d segments: %v", segs, err)
				}
				if s.NumVertices() != tt.verts(segs) || s.NumComponents() != 1 {
					t.Errorf("%d segments: %d vertices, %d components; want %d, 1", segs, s.NumVertices(), s.NumComponents(), tt.verts(segs))
				}
				for v := range s.NumVertices() {
					if d := tt.dist(s.Vertex(v)); math.Abs(d) > 1e-12 {
						t.Fatalf("%d segments: vertex %d at %v lies %v from the surface", segs, v, s.Vertex(v), d)
					}
				}
				m, err := s.MassProps(1)
				if err != nil {
					t.Fatal(err)
				}
				// Inscribed: below the round shape's volume, and closer
				// with every refinement.
				rel := (tt.volume - m.Mass) / tt.volume
				if !(rel > 0) || !(rel < prevErr) {
					t.Errorf("%d segments: volume %v, round %v: relative shortfall %v after %v", segs, m.Mass, tt.volume, rel, prevErr)
				}
				prevErr = rel
				if segs == 64 && rel > 0.01 {
					t.Errorf("64 segments: volume short by %.3f %%", 100*rel)
				}
			}
		})
	}
}

func TestPrimitivesErrors(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		kind error
	}{
		{"sphere of radius 0", second(NewSphere(0, 16)), ErrDegenerate},
		{"sphere of NaN radius", second(NewSphere(math.NaN(), 16)), ErrDegenerate},
		{"sphere of 2 segments", second(NewSphere(1, 2)), ErrDegenerate},
		{"sphere of too many segments", second(NewSphere(1, 1<<13)), ErrTooLarge},
		{"capsule of negative height", second(NewCapsule(1, -1, 16)), ErrDegenerate},
		{"capsule of infinite height", second(NewCapsule(1, math.Inf(1), 16)), ErrDegenerate},
		{"cylinder of height 0", second(NewCylinder(1, 0, 16)), ErrDegenerate},
		{"cylinder of infinite radius", second(NewCylinder(math.Inf(1), 1, 16)), ErrDegenerate},
	} {
		var se *ShapeError
		if !errors.Is(tt.err, tt.kind) || !errors.As(tt.err, &se) {
			t.Errorf("%s: %v, want a *ShapeError wrapping %v", tt.name, tt.err, tt.kind)
		}
	}
}

// second returns the error of a constructor's results.
func second(_ *Shape, err error) error { return err }
