package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Pose is a rigid placement of a shape: world = R(Rot)·local + Pos. The
// local coordinates are the shape's own, exactly as given (no re-centring).
type Pose struct {
	Pos mgl64.Vec3
	Rot mgl64.Quat
}

// Identity is the pose that leaves local coordinates unchanged.
var Identity = Pose{Rot: mgl64.QuatIdent()}

// NewPose validates and returns a pose. The quaternion is normalised; NaN,
// Inf and zero (or near-zero) quaternions are rejected with ErrBadPose.
func NewPose(pos mgl64.Vec3, rot mgl64.Quat) (Pose, error) {
	p := Pose{Pos: pos, Rot: rot}
	if err := p.normalize(); err != nil {
		return Pose{}, err
	}
	return p, nil
}

// Pose2D returns the pose of a planar shape: translation (x, y) in the z=0
// plane and rotation angle (radians, counter-clockwise) about z.
func Pose2D(x, y, angle float64) Pose {
	s, c := math.Sincos(angle / 2)
	return Pose{Pos: mgl64.Vec3{x, y, 0}, Rot: mgl64.Quat{W: c, V: mgl64.Vec3{0, 0, s}}}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// normalize validates p in place and makes its quaternion unit length.
func (p *Pose) normalize() error {
	for i := 0; i < 3; i++ {
		if !finite(p.Pos[i]) {
			return fmt.Errorf("%w: position component %d is %v", ErrBadPose, i, p.Pos[i])
		}
	}
	q := [4]float64{p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]}
	big := 0.0
	for i, c := range q {
		if !finite(c) {
			return fmt.Errorf("%w: quaternion component %d is %v", ErrBadPose, i, c)
		}
		big = max(big, math.Abs(c))
	}
	if !(big > 1e-12) {
		return fmt.Errorf("%w: quaternion (%g %g %g %g) is zero", ErrBadPose, q[0], q[1], q[2], q[3])
	}
	n2 := 0.0
	for _, c := range q {
		n2 += (c / big) * (c / big) // scaled so that huge components cannot overflow
	}
	if n2 != 1 || big != 1 {
		inv := 1 / (big * math.Sqrt(n2))
		p.Rot.W *= inv
		p.Rot.V = p.Rot.V.Mul(inv)
	}
	return nil
}

// Validate reports whether p is usable, without changing it.
func (p Pose) Validate() error { return p.normalize() }

// planar reports whether p keeps the z=0 plane in place (rotation about z only,
// no z translation), within a small tolerance.
func (p Pose) planar() bool {
	const tol = 1e-9
	return math.Abs(p.Pos[2]) <= tol*(1+math.Abs(p.Pos[0])+math.Abs(p.Pos[1])) &&
		math.Abs(p.Rot.V[0]) <= tol && math.Abs(p.Rot.V[1]) <= tol
}

// Transform is an affine rigid map x ↦ R·x + T with R stored row-major.
// It is the form poses take on the hot path.
type Transform struct {
	R [9]float64
	T [3]float64
}

// Transform returns the matrix form of a (normalised) pose.
func (p Pose) Transform() Transform {
	w, x, y, z := p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]
	xx, yy, zz := x*x, y*y, z*z
	xy, xz, yz := x*y, x*z, y*z
	wx, wy, wz := w*x, w*y, w*z
	return Transform{
		R: [9]float64{
			1 - 2*(yy+zz), 2 * (xy - wz), 2 * (xz + wy),
			2 * (xy + wz), 1 - 2*(xx+zz), 2 * (yz - wx),
			2 * (xz - wy), 2 * (yz + wx), 1 - 2*(xx+yy),
		},
		T: p.Pos,
	}
}

// Apply maps a point.
func (t *Transform) Apply(v [3]float64) [3]float64 {
	r := &t.R
	return [3]float64{
		r[0]*v[0] + r[1]*v[1] + r[2]*v[2] + t.T[0],
		r[3]*v[0] + r[4]*v[1] + r[5]*v[2] + t.T[1],
		r[6]*v[0] + r[7]*v[1] + r[8]*v[2] + t.T[2],
	}
}

// ApplyDir maps a direction (rotation only).
func (t *Transform) ApplyDir(v [3]float64) [3]float64 {
	r := &t.R
	return [3]float64{
		r[0]*v[0] + r[1]*v[1] + r[2]*v[2],
		r[3]*v[0] + r[4]*v[1] + r[5]*v[2],
		r[6]*v[0] + r[7]*v[1] + r[8]*v[2],
	}
}

// Inverse returns the inverse rigid map.
func (t *Transform) Inverse() Transform {
	r := &t.R
	var o Transform
	o.R = [9]float64{r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]}
	o.T = [3]float64{
		-(o.R[0]*t.T[0] + o.R[1]*t.T[1] + o.R[2]*t.T[2]),
		-(o.R[3]*t.T[0] + o.R[4]*t.T[1] + o.R[5]*t.T[2]),
		-(o.R[6]*t.T[0] + o.R[7]*t.T[1] + o.R[8]*t.T[2]),
	}
	return o
}

// Mul returns the composition t∘u (apply u first).
func (t *Transform) Mul(u *Transform) Transform {
	var o Transform
	a, b := &t.R, &u.R
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			o.R[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	o.T = t.Apply(u.T)
	return o
}

// Relative returns the pose of b expressed in a's frame: a⁻¹·b, with a unit
// quaternion. This is the (t, q) of Eq. 2 of Lehericey et al. 2013 (§3.3).
func Relative(a, b Pose) Pose {
	inv := a.Rot.Conjugate()
	return Pose{Pos: inv.Rotate(b.Pos.Sub(a.Pos)), Rot: inv.Mul(b.Rot).Normalize()}
}

// Angle returns the rotation angle in [0, π] between two unit quaternions,
// the angle(q_ni, q) of Eq. 2 (§3.3 of Lehericey et al. 2013).
// It is computed as 2·atan2(|v|, |w|) of q1⁻¹·q2, which stays accurate
// for tiny angles (acos of a dot product loses half the digits there).
func Angle(q1, q2 mgl64.Quat) float64 {
	r := q1.Conjugate().Mul(q2)
	return 2 * math.Atan2(r.V.Len(), math.Abs(r.W))
}
