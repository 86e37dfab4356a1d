package narrow_test

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// massTensor builds a symmetric tensor from its diagonal and the products
// (xy, xz, yz) as stored, i.e. already negated.
func massTensor(xx, yy, zz, xy, xz, yz float64) mgl64.Mat3 {
	return mgl64.Mat3{
		xx, xy, xz,
		xy, yy, yz,
		xz, yz, zz,
	}
}

// massCheck compares got with want: the mass relative to want.Mass, the
// centroid relative to scale (a length of the shape), and the tensor
// entries relative to the largest entry of want.
func massCheck(t *testing.T, got, want narrow.MassProps, scale, tol float64) {
	t.Helper()
	if math.Abs(got.Mass-want.Mass) > tol*math.Abs(want.Mass) {
		t.Errorf("Mass = %.15g, want %.15g (rel. err %.2g, tol %g)", got.Mass, want.Mass, (got.Mass-want.Mass)/want.Mass, tol)
	}
	for i := 0; i < 3; i++ {
		if math.Abs(got.Centroid[i]-want.Centroid[i]) > tol*scale {
			t.Errorf("Centroid = %v, want %v (tol %g)", got.Centroid, want.Centroid, tol*scale)
			break
		}
	}
	imax := 0.0
	for _, v := range want.Inertia {
		imax = max(imax, math.Abs(v))
	}
	for k := range got.Inertia {
		if math.Abs(got.Inertia[k]-want.Inertia[k]) > tol*imax {
			t.Errorf("Inertia =\n%v\nwant\n%v(entry (%d,%d) off by %.3g, tol %.3g)",
				got.Inertia, want.Inertia, k%3, k/3, got.Inertia[k]-want.Inertia[k], tol*imax)
			break
		}
	}
}

// massRect is an axis-aligned rectangle [x0,x1]×[y0,y1] that adds (sign +1)
// or removes (sign −1) material.
type massRect struct {
	x0, y0, x1, y1, sign float64
}

// massRects returns the lamina properties of a union of disjoint
// rectangles (minus holes) at the given density, from the closed-form
// rectangle integrals ∫x² = (x1³−x0³)/3·(y1−y0) etc.
func massRects(density float64, rs ...massRect) narrow.MassProps {
	var a, sx, sy, sxx, syy, sxy float64
	for _, r := range rs {
		w, h := r.x1-r.x0, r.y1-r.y0
		ix := (r.x1*r.x1 - r.x0*r.x0) / 2
		iy := (r.y1*r.y1 - r.y0*r.y0) / 2
		ixx := (r.x1*r.x1*r.x1 - r.x0*r.x0*r.x0) / 3
		iyy := (r.y1*r.y1*r.y1 - r.y0*r.y0*r.y0) / 3
		a += r.sign * w * h
		sx += r.sign * ix * h
		sy += r.sign * iy * w
		sxx += r.sign * ixx * h
		syy += r.sign * iyy * w
		sxy += r.sign * ix * iy
	}
	cx, cy := sx/a, sy/a
	cxx, cyy, cxy := sxx-a*cx*cx, syy-a*cy*cy, sxy-a*cx*cy
	return narrow.MassProps{
		Mass:     density * a,
		Centroid: mgl64.Vec3{cx, cy, 0},
		Inertia:  massTensor(density*cyy, density*cxx, density*(cxx+cyy), -density*cxy, 0, 0),
	}
}

func massRectLoop(x0, y0, x1, y1 float64) []mgl64.Vec2 {
	return []mgl64.Vec2{{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}}
}

func massReversed(l []mgl64.Vec2) []mgl64.Vec2 {
	r := slices.Clone(l)
	slices.Reverse(r)
	return r
}

// massNGon is a regular n-gon of circumradius r centred at c.
func massNGon(n int, r float64, c mgl64.Vec2) []mgl64.Vec2 {
	l := make([]mgl64.Vec2, n)
	for i := range l {
		th := 2 * math.Pi * float64(i) / float64(n)
		l[i] = mgl64.Vec2{c[0] + r*math.Cos(th), c[1] + r*math.Sin(th)}
	}
	return l
}

// massNGonProps is the closed form for a regular n-gon of circumradius r
// (n isosceles triangles of apex angle α = 2π/n): area n·r²·sin α/2, polar
// moment about the centre ρ·n·r⁴·sin α·(2+cos α)/12, isotropic in-plane
// second moments (Ixx = Iyy = Izz/2, no product) for n ≥ 3.
func massNGonProps(density float64, n int, r float64, c mgl64.Vec2) narrow.MassProps {
	al := 2 * math.Pi / float64(n)
	area := float64(n) * r * r * math.Sin(al) / 2
	j := density * float64(n) * r * r * r * r * math.Sin(al) * (2 + math.Cos(al)) / 12
	return narrow.MassProps{
		Mass:     density * area,
		Centroid: mgl64.Vec3{c[0], c[1], 0},
		Inertia:  massTensor(j/2, j/2, j, 0, 0, 0),
	}
}

type massPolygonCase struct {
	name    string
	outer   []mgl64.Vec2
	holes   [][]mgl64.Vec2
	density float64
	want    narrow.MassProps
	scale   float64 // length scale for the centroid tolerance
	tol     float64
}

func massPolygonCases() []massPolygonCase {
	// L: [0,2]×[0,1] plus [0,1]×[1,2]. Area 3, centroid (5/6, 5/6),
	// about the centroid ∫x² = ∫y² = 11/12 and ∫xy = −1/3.
	l := []mgl64.Vec2{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}
	lWant := narrow.MassProps{
		Mass:     3,
		Centroid: mgl64.Vec3{5.0 / 6, 5.0 / 6, 0},
		Inertia:  massTensor(11.0/12, 11.0/12, 22.0/12, 1.0/3, 0, 0),
	}
	holeWant := massRects(2.5, massRect{0, 0, 4, 4, 1}, massRect{1, 1, 2, 3, -1})
	return []massPolygonCase{
		{
			name: "unit square", outer: massRectLoop(0, 0, 1, 1), density: 1,
			want: narrow.MassProps{Mass: 1, Centroid: mgl64.Vec3{0.5, 0.5, 0},
				Inertia: massTensor(1.0/12, 1.0/12, 1.0/6, 0, 0, 0)},
			scale: 1, tol: 1e-14,
		},
		{
			// 4×1 rectangle: Ixx = m·h²/12, Iyy = m·w²/12.
			name: "offset rectangle", outer: massRectLoop(3, -2, 7, -1), density: 1,
			want: narrow.MassProps{Mass: 4, Centroid: mgl64.Vec3{5, -1.5, 0},
				Inertia: massTensor(4.0/12, 4*16.0/12, 4*17.0/12, 0, 0, 0)},
			scale: 4, tol: 1e-14,
		},
		{
			name: "clockwise rectangle", outer: massReversed(massRectLoop(3, -2, 7, -1)), density: 1,
			want:  massRects(1, massRect{3, -2, 7, -1, 1}),
			scale: 4, tol: 1e-14,
		},
		{name: "L concave", outer: l, density: 1, want: lWant, scale: 2, tol: 1e-14},
		{
			name: "L concave from rectangles", outer: l, density: 1,
			want:  massRects(1, massRect{0, 0, 2, 1, 1}, massRect{0, 1, 1, 2, 1}),
			scale: 2, tol: 1e-14,
		},
		{
			// NewPolygon takes loops in either orientation and stores the
			// hole clockwise; both must give the same (off-centre) result.
			name: "square with CCW hole", outer: massRectLoop(0, 0, 4, 4),
			holes: [][]mgl64.Vec2{massRectLoop(1, 1, 2, 3)}, density: 2.5,
			want: holeWant, scale: 4, tol: 1e-14,
		},
		{
			name: "square with CW hole", outer: massRectLoop(0, 0, 4, 4),
			holes: [][]mgl64.Vec2{massReversed(massRectLoop(1, 1, 2, 3))}, density: 2.5,
			want: holeWant, scale: 4, tol: 1e-14,
		},
		{
			name: "regular 64-gon", outer: massNGon(64, 2, mgl64.Vec2{1, -3}), density: 3,
			want:  massNGonProps(3, 64, 2, mgl64.Vec2{1, -3}),
			scale: 2, tol: 1e-13,
		},
	}
}

func TestMassPropsPolygon(t *testing.T) {
	for _, tc := range massPolygonCases() {
		t.Run(tc.name, func(t *testing.T) {
			s, err := narrow.NewPolygon(tc.outer, tc.holes...)
			if err != nil {
				t.Fatalf("NewPolygon: %v", err)
			}
			got, err := s.MassProps(tc.density)
			if err != nil {
				t.Fatalf("MassProps: %v", err)
			}
			massCheck(t, got, tc.want, tc.scale, tc.tol)
			// Lamina: no z extent, perpendicular axis theorem.
			in := got.Inertia
			if got.Centroid[2] != 0 || in.At(0, 2) != 0 || in.At(2, 0) != 0 || in.At(1, 2) != 0 || in.At(2, 1) != 0 {
				t.Errorf("lamina has z content: centroid %v, inertia\n%v", got.Centroid, in)
			}
			if d := in.At(2, 2) - in.At(0, 0) - in.At(1, 1); math.Abs(d) > 1e-14*in.At(2, 2) {
				t.Errorf("Izz − Ixx − Iyy = %g, want 0", d)
			}
		})
	}
}

// TestMassPropsDisc compares a regular 64-gon with the disc it is inscribed
// in. The polygon's area is smaller by the factor sin α/α ≈ 1 − α²/6
// (α = 2π/64, 0.16 %) and its polar moment about the centre by about
// twice that (0.32 %); the stated tolerance is 0.5 %.
func TestMassPropsDisc(t *testing.T) {
	const r, density, tol = 1.5, 2.0, 5e-3
	s, err := narrow.NewPolygon(massNGon(64, r, mgl64.Vec2{-4, 7}))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.MassProps(density)
	if err != nil {
		t.Fatal(err)
	}
	m := density * math.Pi * r * r
	want := narrow.MassProps{
		Mass:     m,
		Centroid: mgl64.Vec3{-4, 7, 0},
		Inertia:  massTensor(m*r*r/4, m*r*r/4, m*r*r/2, 0, 0, 0),
	}
	massCheck(t, got, want, r, tol)
}

// TestMassPropsTranslation checks that mass and inertia do not change and
// the centroid moves with the shape, even far from the origin where fanning
// from the origin would lose about |offset|²/size²·ε of the moment.
func TestMassPropsTranslation(t *testing.T) {
	for _, tc := range massPolygonCases() {
		base, err := narrow.NewPolygon(tc.outer, tc.holes...)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := base.MassProps(tc.density)
		if err != nil {
			t.Fatal(err)
		}
		for _, off := range []mgl64.Vec2{{1e3, -2.5e3}, {-7.25e5, 3.5e5}, {1e7, 1e7}} {
			t.Run(fmt.Sprintf("%s/%v", tc.name, off), func(t *testing.T) {
				shift := func(l []mgl64.Vec2) []mgl64.Vec2 {
					r := make([]mgl64.Vec2, len(l))
					for i, v := range l {
						r[i] = v.Add(off)
					}
					return r
				}
				var holes [][]mgl64.Vec2
				for _, h := range tc.holes {
					holes = append(holes, shift(h))
				}
				s, err := narrow.NewPolygon(shift(tc.outer), holes...)
				if err != nil {
					t.Fatalf("NewPolygon: %v", err)
				}
				got, err := s.MassProps(tc.density)
				if err != nil {
					t.Fatalf("MassProps: %v", err)
				}
				want := ref
				want.Centroid = ref.Centroid.Add(mgl64.Vec3{off[0], off[1], 0})
				// Coordinates of size |off| carry an absolute rounding
				// error of |off|·ε into every vertex.
				tol := 1e-14 * max(1, off.Len()/tc.scale)
				massCheck(t, got, want, tc.scale, tol)
			})
		}
	}
}

// TestMassPropsDensityScaling checks that mass and inertia are linear in the
// density and the centroid does not depend on it, in 2D and 3D.
func TestMassPropsDensityScaling(t *testing.T) {
	poly, err := narrow.NewPolygon(massRectLoop(0, 0, 4, 4), massRectLoop(1, 1, 2, 3))
	if err != nil {
		t.Fatal(err)
	}
	box, err := narrow.NewBox(mgl64.Vec3{-1, 2, 0}, mgl64.Vec3{3, 2.5, 7})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*narrow.Shape{poly, box} {
		one, err := s.MassProps(1)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range []float64{1e-6, 0.3, 7.5, 1000, 1e12} {
			got, err := s.MassProps(d)
			if err != nil {
				t.Fatalf("density %g: %v", d, err)
			}
			want := narrow.MassProps{Mass: d * one.Mass, Centroid: one.Centroid, Inertia: one.Inertia.Mul(d)}
			t.Run(fmt.Sprintf("dim%d/density=%g", s.Dim(), d), func(t *testing.T) {
				massCheck(t, got, want, 1, 1e-15)
			})
		}
	}
}

// massBoxProps is the closed form for a solid box with edges (a, b, c) along
// x, y, z: Ixx = m(b²+c²)/12, Iyy = m(a²+c²)/12, Izz = m(a²+b²)/12.
func massBoxProps(density float64, lo, hi mgl64.Vec3) narrow.MassProps {
	d := hi.Sub(lo)
	m := density * d[0] * d[1] * d[2]
	return narrow.MassProps{
		Mass:     m,
		Centroid: lo.Add(hi).Mul(0.5),
		Inertia: massTensor(m*(d[1]*d[1]+d[2]*d[2])/12, m*(d[0]*d[0]+d[2]*d[2])/12,
			m*(d[0]*d[0]+d[1]*d[1])/12, 0, 0, 0),
	}
}

// massRotation is the rotation matrix of q (column k is q applied to e_k).
func massRotation(q mgl64.Quat) mgl64.Mat3 {
	var r mgl64.Mat3
	for k := 0; k < 3; k++ {
		var e mgl64.Vec3
		e[k] = 1
		c := q.Rotate(e)
		for i := 0; i < 3; i++ {
			r.Set(i, k, c[i])
		}
	}
	return r
}

// massTorusProps is the exact closed form for the polyhedral torus that
// testdata/torus.obj samples: nMinor-gon cross-sections of circumradius r
// centred at distance R from the y axis, swept through nMajor planar wedges
// whose faces are chords (planar trapezoids). In wedge coordinates
// (s along the wedge bisector, y, w across it) a wedge of angle Δ is
// {(s/cos(Δ/2), y) ∈ P, |w| ≤ s·tan(Δ/2)}; integrating gives, per wedge,
//
//	∫1 = sin Δ·∫_P ρ, ∫y² = sin Δ·∫_P ρy², ∫(x²+z²) = sin Δ·(cos²(Δ/2) + sin²(Δ/2)/3)·∫_P ρ³,
//
// and for the regular cross-section P (area A, polar moment J about its
// centre, centrally symmetric) ∫ρ = R·A, ∫ρy² = R·J/2, ∫ρ³ = R³A + 3R·J/2.
func massTorusProps(density, bigR, r float64, nMajor, nMinor int) narrow.MassProps {
	al := 2 * math.Pi / float64(nMinor)
	area := float64(nMinor) * r * r * math.Sin(al) / 2
	j := float64(nMinor) * r * r * r * r * math.Sin(al) * (2 + math.Cos(al)) / 12
	dl := 2 * math.Pi / float64(nMajor)
	n := float64(nMajor) * math.Sin(dl)
	ch, sh := math.Cos(dl/2), math.Sin(dl/2)
	vol := n * bigR * area
	yy := n * bigR * j / 2
	xz := n * (ch*ch + sh*sh/3) * (bigR*bigR*bigR*area + 1.5*bigR*j)
	return narrow.MassProps{
		Mass:    density * vol,
		Inertia: massTensor(density*(yy+xz/2), density*xz, density*(yy+xz/2), 0, 0, 0),
	}
}

func TestMassPropsMesh(t *testing.T) {
	rot := mgl64.QuatRotate(0.7, mgl64.Vec3{1, 2, 3}.Normalize())
	rm := massRotation(rot)
	rlo, rhi := mgl64.Vec3{-1, -0.5, -2}, mgl64.Vec3{1, 0.5, 2}
	rt := mgl64.Vec3{5, -3, 2}
	var rverts []mgl64.Vec3
	for _, c := range narrow.BoxCorners(rlo, rhi) {
		rverts = append(rverts, rot.Rotate(c).Add(rt))
	}
	rwant := massBoxProps(0.8, rlo, rhi)
	rwant.Centroid = rt
	rwant.Inertia = rm.Mul3(rwant.Inertia).Mul3(rm.Transpose())

	tests := []struct {
		name    string
		build   func() (*narrow.Shape, error)
		density float64
		want    narrow.MassProps
		scale   float64
		tol     float64
	}{
		{
			name: "centred box",
			build: func() (*narrow.Shape, error) {
				return narrow.NewBox(mgl64.Vec3{-1, -1.5, -0.25}, mgl64.Vec3{1, 1.5, 0.25})
			},
			density: 1,
			want:    massBoxProps(1, mgl64.Vec3{-1, -1.5, -0.25}, mgl64.Vec3{1, 1.5, 0.25}),
			scale:   3, tol: 1e-14,
		},
		{
			name:    "offset box",
			build:   func() (*narrow.Shape, error) { return narrow.NewBox(mgl64.Vec3{10, -20, 5}, mgl64.Vec3{12, -17, 5.5}) },
			density: 7800,
			want:    massBoxProps(7800, mgl64.Vec3{10, -20, 5}, mgl64.Vec3{12, -17, 5.5}),
			scale:   3, tol: 1e-14,
		},
		{
			name: "far box",
			build: func() (*narrow.Shape, error) {
				return narrow.NewBox(mgl64.Vec3{1e6, 2e6, -3e6}, mgl64.Vec3{1e6 + 1, 2e6 + 2, -3e6 + 3})
			},
			density: 1,
			want:    massBoxProps(1, mgl64.Vec3{1e6, 2e6, -3e6}, mgl64.Vec3{1e6 + 1, 2e6 + 2, -3e6 + 3}),
			scale:   3, tol: 1e-12,
		},
		{
			// I = R·diag(box)·Rᵀ, centroid at the translation.
			name:    "rotated box",
			build:   func() (*narrow.Shape, error) { return narrow.NewMesh(rverts, narrow.BoxTriangles()) },
			density: 0.8,
			want:    rwant,
			scale:   4, tol: 1e-13,
		},
		{
			// Corner tetrahedron 0, e1, e2, e3: V = 1/6, centroid 1/4,
			// about the centroid ∫x² = 1/160 and ∫xy = −1/480, so
			// Ixx = 1/80 and the stored product is +1/480.
			name: "unit tetrahedron",
			build: func() (*narrow.Shape, error) {
				return narrow.NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
					[][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}})
			},
			density: 6,
			want: narrow.MassProps{Mass: 1, Centroid: mgl64.Vec3{0.25, 0.25, 0.25},
				Inertia: massTensor(6.0/80, 6.0/80, 6.0/80, 6.0/480, 6.0/480, 6.0/480)},
			scale: 1, tol: 1e-14,
		},
		{
			// torus.obj: R = 2, r = 0.5 about the y axis, 30 × 10
			// vertices (vertex 1 is (2.5, 0, 0), ring 2 starts at
			// (2.445, 0, 0.52)). The file rounds coordinates to 1e-3;
			// moving the 10-gon's edges by up to 5e-4 changes its area
			// (0.73) by up to perimeter·5e-4 ≈ 2e-3 relative. Observed:
			// 6.6e-4 in mass, 8e-4 in Izz; tolerance 2e-3.
			name:    "torus.obj polyhedral",
			build:   func() (*narrow.Shape, error) { return narrow.LoadOBJ(filepath.Join("..", "testdata", "torus.obj")) },
			density: 1,
			want:    massTorusProps(1, 2, 0.5, 30, 10),
			scale:   2.5, tol: 2e-3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := tc.build()
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			got, err := s.MassProps(tc.density)
			if err != nil {
				t.Fatalf("MassProps: %v", err)
			}
			massCheck(t, got, tc.want, tc.scale, tc.tol)
		})
	}
}

// TestMassPropsTorusSmooth compares torus.obj with the smooth torus
// (R = 2, r = 0.5): V = 2π²Rr², Iyy = m(R² + 3r²/4), Ixx = Izz =
// m(R²/2 + 5r²/8). The 10-gon cross-section holds sin α/α = 6.5 % less
// area than its circle and the 30 wedges sin Δ/Δ = 0.7 % less than the
// round sweep, 7.1 % in all: the mass tolerance is 8 %. The squared radii
// of gyration (I/m) come out about 1.2 % smaller: tolerance 2 %.
func TestMassPropsTorusSmooth(t *testing.T) {
	const bigR, r = 2.0, 0.5
	s, err := narrow.LoadOBJ(filepath.Join("..", "testdata", "torus.obj"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	m := 2 * math.Pi * math.Pi * bigR * r * r
	if e := math.Abs(got.Mass-m) / m; e > 0.08 {
		t.Errorf("Mass = %g, smooth torus %g (rel. err %.3g > 8 %%)", got.Mass, m, e)
	}
	want := [3]float64{bigR*bigR/2 + 5*r*r/8, bigR*bigR + 3*r*r/4, bigR*bigR/2 + 5*r*r/8}
	for i := 0; i < 3; i++ {
		g := got.Inertia.At(i, i) / got.Mass
		if e := math.Abs(g-want[i]) / want[i]; e > 0.02 {
			t.Errorf("I%d%d/m = %g, smooth torus %g (rel. err %.3g > 2 %%)", i, i, g, want[i], e)
		}
	}
	if got.Centroid.Len() > 1e-3 {
		t.Errorf("Centroid = %v, want the origin", got.Centroid)
	}
}

// massColumns estimates the unit-density moments of a closed mesh without
// the divergence theorem: a grid of n×n vertical lines (jittered off the
// vertices) is cut by every triangle, the crossings along each line are
// paired into inside intervals, and ∫dz, ∫z dz, ∫z² dz over them are exact;
// the midpoint rule sums the columns. It returns the mass properties and
// the number of lines with an odd crossing count (skipped).
func massColumns(s *narrow.Shape, n int) (narrow.MassProps, int) {
	b := s.Bounds()
	hx := (b.Max[0] - b.Min[0]) / float64(n)
	hy := (b.Max[1] - b.Min[1]) / float64(n)
	x0 := b.Min[0] + hx*(0.5+0.0123456789)
	y0 := b.Min[1] + hy*(0.5-0.0234567891)
	cross := make([][]float64, n*n)
	for i := 0; i < s.NumPrims(); i++ {
		p := s.Prim(i)
		a, bb, c := s.Vertex(int(p[0])), s.Vertex(int(p[1])), s.Vertex(int(p[2]))
		// Twice the signed projected area; vertical triangles are skipped.
		d := (bb[0]-a[0])*(c[1]-a[1]) - (bb[1]-a[1])*(c[0]-a[0])
		if d == 0 {
			continue
		}
		ilo := max(0, int(math.Floor((min(a[0], bb[0], c[0])-x0)/hx)))
		ihi := min(n-1, int(math.Ceil((max(a[0], bb[0], c[0])-x0)/hx)))
		jlo := max(0, int(math.Floor((min(a[1], bb[1], c[1])-y0)/hy)))
		jhi := min(n-1, int(math.Ceil((max(a[1], bb[1], c[1])-y0)/hy)))
		for ii := ilo; ii <= ihi; ii++ {
			x := x0 + float64(ii)*hx
			for jj := jlo; jj <= jhi; jj++ {
				y := y0 + float64(jj)*hy
				u := ((bb[0]-x)*(c[1]-y) - (bb[1]-y)*(c[0]-x)) / d
				v := ((c[0]-x)*(a[1]-y) - (c[1]-y)*(a[0]-x)) / d
				w := 1 - u - v
				if u < 0 || v < 0 || w < 0 {
					continue
				}
				cross[ii*n+jj] = append(cross[ii*n+jj], u*a[2]+v*bb[2]+w*c[2])
			}
		}
	}
	var vol float64
	var s1 [3]float64
	var s2 [3][3]float64
	odd := 0
	for ii := 0; ii < n; ii++ {
		x := x0 + float64(ii)*hx
		for jj := 0; jj < n; jj++ {
			y := y0 + float64(jj)*hy
			zs := cross[ii*n+jj]
			if len(zs)%2 != 0 {
				odd++
				continue
			}
			slices.Sort(zs)
			var l, z1, z2 float64
			for k := 0; k < len(zs); k += 2 {
				lo, hi := zs[k], zs[k+1]
				l += hi - lo
				z1 += (hi*hi - lo*lo) / 2
				z2 += (hi*hi*hi - lo*lo*lo) / 3
			}
			vol += l
			s1[0] += x * l
			s1[1] += y * l
			s1[2] += z1
			s2[0][0] += x * x * l
			s2[1][1] += y * y * l
			s2[2][2] += z2
			s2[0][1] += x * y * l
			s2[0][2] += x * z1
			s2[1][2] += y * z1
		}
	}
	da := hx * hy
	vol *= da
	var c [3]float64
	for i := range c {
		c[i] = s1[i] * da / vol
	}
	var cov [3][3]float64
	for i := 0; i < 3; i++ {
		for j := i; j < 3; j++ {
			cov[i][j] = s2[i][j]*da - vol*c[i]*c[j]
			cov[j][i] = cov[i][j]
		}
	}
	tr := cov[0][0] + cov[1][1] + cov[2][2]
	var in mgl64.Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			v := -cov[i][j]
			if i == j {
				v += tr
			}
			in.Set(i, j, v)
		}
	}
	return narrow.MassProps{Mass: vol, Centroid: c, Inertia: in}, odd
}

// TestMassPropsBunny checks the bunny's properties for plausibility and
// against an independent column-integration estimate (400×400 vertical
// lines, about 20 ms); the estimate differs by about 1e-4 relative (mass
// 4e-5, largest tensor entry error 1.5e-4 of the largest entry), the
// stated tolerance is 2e-3.
func TestMassPropsBunny(t *testing.T) {
	s, err := narrow.LoadOBJ(filepath.Join("..", "testdata", "bunny.obj"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	if !(got.Mass > 0) {
		t.Fatalf("Mass = %g, want > 0", got.Mass)
	}
	b := s.Bounds()
	if !b.Contains(got.Centroid) {
		t.Errorf("Centroid %v outside the bounds %v", got.Centroid, b)
	}
	in := got.Inertia
	if in != in.Transpose() {
		t.Errorf("Inertia not symmetric:\n%v", in)
	}
	// Sylvester: the leading principal minors are positive.
	m1 := in.At(0, 0)
	m2 := in.At(0, 0)*in.At(1, 1) - in.At(0, 1)*in.At(1, 0)
	if !(m1 > 0 && m2 > 0 && in.Det() > 0) {
		t.Errorf("Inertia not positive definite (minors %g %g %g):\n%v", m1, m2, in.Det(), in)
	}
	// Triangle inequality of the moments: Ixx + Iyy − Izz = 2∫z² ≥ 0, …
	for i := 0; i < 3; i++ {
		a, bb, c := in.At(i, i), in.At((i+1)%3, (i+1)%3), in.At((i+2)%3, (i+2)%3)
		if a+bb < c {
			t.Errorf("moments %g + %g < %g", a, bb, c)
		}
	}

	start := time.Now()
	est, odd := massColumns(s, 400)
	el := time.Since(start)
	t.Logf("column estimate in %v (%d odd lines): mass %.6g vs %.6g", el, odd, est.Mass, got.Mass)
	if odd > 10 {
		t.Errorf("%d of the estimate's lines had an odd crossing count", odd)
	}
	d := b.Max.Sub(b.Min)
	massCheck(t, got, est, max(d[0], d[1], d[2]), 2e-3)
}

func TestMassPropsErrors(t *testing.T) {
	poly, err := narrow.NewPolygon(massRectLoop(0, 0, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	box, err := narrow.NewBox(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*narrow.Shape{poly, box} {
		for _, d := range []float64{0, math.Copysign(0, -1), -1, math.NaN(), math.Inf(1), math.Inf(-1)} {
			_, err := s.MassProps(d)
			if !errors.Is(err, narrow.ErrBadParams) {
				t.Errorf("dim %d, density %v: error %v, want one wrapping ErrBadParams", s.Dim(), d, err)
			}
		}
	}
	// Finite inputs whose product overflows (area 4, volume 8).
	big2, err := narrow.NewPolygon(massRectLoop(0, 0, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	big3, err := narrow.NewBox(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 2, 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*narrow.Shape{big2, big3} {
		_, err := s.MassProps(math.MaxFloat64)
		var se *narrow.ShapeError
		if !errors.Is(err, narrow.ErrNonFinite) || !errors.As(err, &se) {
			t.Errorf("dim %d, density MaxFloat64: error %v, want a *ShapeError wrapping ErrNonFinite", s.Dim(), err)
		}
	}
	var empty narrow.Shape
	for _, s := range []*narrow.Shape{nil, &empty} {
		if _, err := s.MassProps(1); !errors.Is(err, narrow.ErrEmpty) {
			t.Errorf("MassProps on %p: error %v, want one wrapping ErrEmpty", s, err)
		}
	}
}
