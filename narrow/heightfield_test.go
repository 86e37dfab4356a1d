package narrow

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// wavy returns nx × nz heights of a wavy terrain.
func wavy(nx, nz int) [][]float64 {
	h := make([][]float64, nx)
	for i := range h {
		h[i] = make([]float64, nz)
		for j := range h[i] {
			h[i][j] = 0.3*math.Sin(0.7*float64(i)) + 0.2*math.Cos(0.5*float64(j)) + 0.01*float64(i*j%3)
		}
	}
	return h
}

// surfaceY returns the height of the triangulated surface of heights at
// (x, z): the plane of the cell's triangle (i, j)-(i, j+1)-(i+1, j+1) or
// (i, j)-(i+1, j+1)-(i+1, j) that holds the point.
func surfaceY(h [][]float64, dx, dz, x, z float64) float64 {
	i, j := int(x/dx), int(z/dz)
	u, v := x/dx-float64(i), z/dz-float64(j)
	a, b, c, d := h[i][j], h[i+1][j], h[i+1][j+1], h[i][j+1]
	if v >= u { // triangle (a, d, c)
		return a + v*(d-a) + u*(c-d)
	}
	return a + u*(b-a) + v*(c-b) // triangle (a, c, b)
}

func TestNewHeightfield(t *testing.T) {
	const nx, nz, dx, dz, base = 12, 9, 0.5, 0.7, -2.0
	h := wavy(nx, nz)
	s, err := NewHeightfield(h, dx, dz, base)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumVertices() != 2*nx*nz || s.NumPrims() != 4*(nx-1)*(nz-1)+4*(nx-1)+4*(nz-1) || s.NumComponents() != 1 {
		t.Errorf("%d vertices, %d triangles, %d components", s.NumVertices(), s.NumPrims(), s.NumComponents())
	}
	// The volume: over each triangle of the surface, the prism down to
	// the base.
	want := 0.0
	for i := range nx - 1 {
		for j := range nz - 1 {
			a, b, c, d := h[i][j], h[i+1][j], h[i+1][j+1], h[i][j+1]
			want += dx * dz / 2 * ((a+d+c)/3 - base + (a+c+b)/3 - base)
		}
	}
	m, err := s.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.Mass-want) > 1e-9*want {
		t.Errorf("volume %v, want %v", m.Mass, want)
	}
	// A ray straight down from above meets the surface at its height.
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		x, z := rng.Float64()*dx*(nx-1), rng.Float64()*dz*(nz-1)
		fwd, _ := s.Trace([3]float64{x, 5, z}, [3]float64{0, -1, 0}, 0, 0, TraversalBVH)
		if fwd.Prim < 0 {
			t.Fatalf("no hit at (%v, %v)", x, z)
		}
		if y, want := 5-fwd.T, surfaceY(h, dx, dz, x, z); math.Abs(y-want) > 1e-9 {
			t.Fatalf("at (%v, %v): surface at %v, want %v", x, z, y, want)
		}
	}
}

func TestNewHeightfieldErrors(t *testing.T) {
	flat := [][]float64{{0, 0}, {0, 0}}
	tests := []struct {
		name         string
		h            [][]float64
		dx, dz, base float64
		kind         error
		vertex, prim int
	}{
		{"no rows", nil, 1, 1, -1, ErrDegenerate, -1, -1},
		{"one row", [][]float64{{0, 0, 0}}, 1, 1, -1, ErrDegenerate, -1, -1},
		{"one column", [][]float64{{0}, {0}}, 1, 1, -1, ErrDegenerate, -1, -1},
		{"ragged", [][]float64{{0, 0}, {0, 0}, {0}}, 1, 1, -1, ErrIndexRange, -1, 2},
		{"NaN", [][]float64{{0, 0}, {0, math.NaN()}}, 1, 1, -1, ErrNonFinite, 3, -1},
		{"zero spacing", flat, 0, 1, -1, ErrDegenerate, -1, -1},
		{"infinite spacing", flat, 1, math.Inf(1), -1, ErrDegenerate, -1, -1},
		{"base at the lowest height", [][]float64{{1, 0}, {0, 2}}, 1, 1, 0, ErrDegenerate, -1, -1},
		{"NaN base", flat, 1, 1, math.NaN(), ErrDegenerate, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewHeightfield(tt.h, tt.dx, tt.dz, tt.base)
			var se *ShapeError
			if s != nil || !errors.Is(err, tt.kind) || !errors.As(err, &se) {
				t.Fatalf("NewHeightfield = %v, %v; want a *ShapeError wrapping %v", s, err, tt.kind)
			}
			if se.Vertex != tt.vertex || se.Prim != tt.prim {
				t.Errorf("Vertex %d, Prim %d; want %d, %d (%v)", se.Vertex, se.Prim, tt.vertex, tt.prim, err)
			}
		})
	}
}

// TestNewHeightfieldRandom: any finite heights over a base below them
// make a valid shape (flat stretches, steps and spikes included) whose
// volume is that of its prisms.
func TestNewHeightfieldRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		nx, nz := 2+rng.IntN(7), 2+rng.IntN(7)
		dx, dz := 0.01+rng.Float64()*3, 0.01+rng.Float64()*3
		h := make([][]float64, nx)
		lowest := math.Inf(1)
		for i := range h {
			h[i] = make([]float64, nz)
			for j := range h[i] {
				switch rng.IntN(3) {
				case 0:
					h[i][j] = 1 // flat stretches
				case 1:
					h[i][j] = math.Round(rng.Float64()*4) - 2 // steps
				default:
					h[i][j] = (rng.Float64() - 0.5) * 20 // spikes
				}
				lowest = min(lowest, h[i][j])
			}
		}
		base := lowest - 0.01 - rng.Float64()*5
		s, err := NewHeightfield(h, dx, dz, base)
		if err != nil {
			t.Fatalf("trial %d (%d × %d): %v", trial, nx, nz, err)
		}
		want := 0.0
		for i := range nx - 1 {
			for j := range nz - 1 {
				a, b, c, d := h[i][j], h[i+1][j], h[i+1][j+1], h[i][j+1]
				want += dx * dz / 2 * ((a+d+c)/3 + (a+c+b)/3 - 2*base)
			}
		}
		m, err := s.MassProps(1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(m.Mass-want) > 1e-9*want {
			t.Fatalf("trial %d: volume %v, want %v", trial, m.Mass, want)
		}
	}
}
