package narrow

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// MassProps are the mass properties of a shape of uniform density, in the
// shape's own (local) frame.
//
// Inertia is the inertia tensor about the centroid, I = ∫ρ(|r|²·E − r·rᵀ) dV
// with r measured from Centroid, so the diagonal holds the moments
// (Ixx = ∫ρ(y²+z²), …) and the off-diagonal entries hold the negated
// products (Inertia.At(0,1) = −∫ρxy, …). It is symmetric, so mgl64's
// column-major storage does not matter; Inertia[8] is the zz entry.
//
// For a polygon (Dim2) the shape is a lamina of zero thickness in the z=0
// plane with areal density: Mass = density × area, Centroid[2] = 0,
// Ixx = ∫ρy², Iyy = ∫ρx², Ixy = Iyx = −∫ρxy, Izz = Ixx + Iyy (the polar
// moment, the only entry planar rigid-body dynamics needs) and the xz and
// yz entries are zero.
type MassProps struct {
	Mass     float64    // density × area (2D) or density × volume (3D)
	Centroid mgl64.Vec3 // centre of mass in shape-local coordinates (z = 0 in 2D)
	Inertia  mgl64.Mat3 // inertia tensor about Centroid (see the type's doc)
}

// MassProps returns the mass, centre of mass and inertia tensor about the
// centre of mass of the shape filled with material of the given uniform
// density (mass per unit area for polygons, per unit volume for meshes).
//
// The integrals come from the divergence theorem: the closed boundary is
// fanned into signed simplices from a reference point (the centre of the
// shape's bounding box, which keeps the sums free of the cancellation a far
// origin would cause), and exact simplex integrals are summed; holes and
// concavities subtract through the sign that their winding gives. A polygon
// contributes one triangle per segment (Green's theorem); a mesh one
// tetrahedron per triangle, whose second moments follow from the covariance
// of the canonical tetrahedron (Blow & Binstock 2004, "How to find the
// inertia tensor (or other mass properties) of a 3D solid body represented
// by a triangle mesh"; the same integrals as Eberly 2002, "Polyhedral Mass
// Properties (Revisited)", and Mirtich 1996, "Fast and Accurate Computation
// of Polyhedral Mass Properties"). The moments are then moved to the
// centroid with the parallel axis theorem.
//
// density must be finite and positive, otherwise the error wraps
// ErrBadParams (as Params.Validate reports a bad parameter). Problems of the
// shape itself are *ShapeError values: ErrEmpty for a shape with no
// primitives (a nil or zero-value Shape), ErrDegenerate when the enclosed
// area or volume is not positive (possible only through underflow for a
// shape built by NewMesh or NewPolygon), and ErrNonFinite when a result
// overflows (a density or coordinates too large).
func (s *Shape) MassProps(density float64) (MassProps, error) {
	if !finite(density) || !(density > 0) {
		return MassProps{}, fmt.Errorf("%w: density = %v (want a finite positive number)", ErrBadParams, density)
	}
	if s == nil || len(s.prims) == 0 || len(s.verts) == 0 {
		return MassProps{}, newShapeError(ErrEmpty, "mass properties: shape has no primitives")
	}
	if s.open {
		return MassProps{}, newShapeError(ErrOpenBoundary, "mass properties: a surface (NewSurface) encloses no volume")
	}
	ref, m := s.momentRef(), s.mom
	measure := "volume"
	if s.dim == Dim2 {
		measure = "area"
	}
	if !finite(m.vol) || !(m.vol > 0) {
		return MassProps{}, newShapeError(ErrDegenerate, fmt.Sprintf("mass properties: enclosed %s is %v, want a finite positive number", measure, m.vol))
	}

	// Centroid relative to ref, then the second moments about it
	// (parallel axis theorem: C_c = C − V·c·cᵀ).
	var c [3]float64
	for i := 0; i < 3; i++ {
		c[i] = m.first[i] / m.vol
	}
	var cov [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			cov[i][j] = m.second[i][j] - m.vol*c[i]*c[j]
		}
	}
	// Symmetrise so that rounding never makes the tensor asymmetric.
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			a := 0.5 * (cov[i][j] + cov[j][i])
			cov[i][j], cov[j][i] = a, a
		}
	}
	if s.dim == Dim2 {
		// A lamina in z=0: no extent along z at all.
		c[2] = 0
		for i := 0; i < 3; i++ {
			cov[2][i], cov[i][2] = 0, 0
		}
	}

	var p MassProps
	p.Mass = density * m.vol
	for i := 0; i < 3; i++ {
		p.Centroid[i] = ref[i] + c[i]
	}
	tr := cov[0][0] + cov[1][1] + cov[2][2]
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			v := -cov[i][j]
			if i == j {
				v += tr
			}
			p.Inertia.Set(i, j, density*v)
		}
	}

	if !finite(p.Mass) {
		return MassProps{}, newShapeError(ErrNonFinite, fmt.Sprintf("mass properties: mass %v overflows (density %v × %s %v)", p.Mass, density, measure, m.vol))
	}
	for i := 0; i < 3; i++ {
		if !finite(p.Centroid[i]) {
			return MassProps{}, newShapeError(ErrNonFinite, fmt.Sprintf("mass properties: centroid coordinate %d is %v", i, p.Centroid[i]))
		}
	}
	for k, v := range p.Inertia {
		if !finite(v) {
			return MassProps{}, newShapeError(ErrNonFinite, fmt.Sprintf("mass properties: inertia entry (%d,%d) is %v", k%3, k/3, v))
		}
	}
	return p, nil
}

// momentRef is the point the moments of s are taken about: the centre of
// its bounds (in the plane for a polygon), which keeps the products small.
func (s *Shape) momentRef() [3]float64 {
	ref := [3]float64(s.bounds.Center())
	if s.dim == Dim2 {
		ref[2] = 0
	}
	return ref
}

// moments returns the moments of s about momentRef; finish computes them
// once, so that MassProps costs nothing per call (a world adds many bodies
// of one shape).
func (s *Shape) moments() moments {
	if s.dim == Dim2 {
		return s.polygonMoments(s.momentRef())
	}
	return s.meshMoments(s.momentRef())
}

// moments are the unit-density integrals of 1, r and r·rᵀ over the shape,
// with r measured from a reference point.
type moments struct {
	vol    float64       // ∫1: area (2D) or volume (3D)
	first  [3]float64    // ∫r
	second [3][3]float64 // ∫r·rᵀ
}

// polygonMoments integrates over the polygon with Green's theorem: segment
// a→b contributes the signed triangle (ref, a, b). With a, b relative to
// ref and A = (a×b)_z/2,
//
//	∫1 = A, ∫r = A(a+b)/3, ∫r·rᵀ = A/12·(a·aᵀ + b·bᵀ + (a+b)(a+b)ᵀ).
//
// The outer loop is counter-clockwise and holes clockwise, so holes
// subtract.
func (s *Shape) polygonMoments(ref [3]float64) moments {
	var m moments
	for _, p := range s.prims {
		a := sub3(s.verts[p[0]], ref)
		b := sub3(s.verts[p[1]], ref)
		ar := 0.5 * (a[0]*b[1] - a[1]*b[0])
		sx, sy := a[0]+b[0], a[1]+b[1]
		m.vol += ar
		m.first[0] += ar * sx / 3
		m.first[1] += ar * sy / 3
		k := ar / 12
		m.second[0][0] += k * (a[0]*a[0] + b[0]*b[0] + sx*sx)
		m.second[1][1] += k * (a[1]*a[1] + b[1]*b[1] + sy*sy)
		m.second[0][1] += k * (a[0]*a[1] + b[0]*b[1] + sx*sy)
	}
	m.second[1][0] = m.second[0][1]
	return m
}

// meshMoments integrates over the solid with the divergence theorem:
// triangle (a, b, c), counter-clockwise from outside, contributes the signed
// tetrahedron (ref, a, b, c). With a, b, c relative to ref, V = a·(b×c)/6
// and d = a+b+c, the covariance of the canonical tetrahedron mapped onto it
// gives
//
//	∫1 = V, ∫r = V·d/4, ∫r·rᵀ = V/20·(a·aᵀ + b·bᵀ + c·cᵀ + d·dᵀ).
func (s *Shape) meshMoments(ref [3]float64) moments {
	var m moments
	for _, p := range s.prims {
		a := sub3(s.verts[p[0]], ref)
		b := sub3(s.verts[p[1]], ref)
		c := sub3(s.verts[p[2]], ref)
		v := dot3(a, cross3(b, c)) / 6
		d := add3(add3(a, b), c)
		m.vol += v
		k := v / 20
		for i := 0; i < 3; i++ {
			m.first[i] += v * d[i] / 4
			for j := i; j < 3; j++ {
				m.second[i][j] += k * (a[i]*a[j] + b[i]*b[j] + c[i]*c[j] + d[i]*d[j])
			}
		}
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < i; j++ {
			m.second[i][j] = m.second[j][i]
		}
	}
	return m
}
