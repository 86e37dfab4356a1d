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
	// The usual case first: a finite position and a nearly unit quaternion
	// (n2 in range implies finite components; a NaN or Inf among the
	// position's makes s-s NaN). Everything else takes the careful path.
	w, x, y, z := p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]
	n2 := w*w + x*x + y*y + z*z
	if s := p.Pos[0] + p.Pos[1] + p.Pos[2]; s-s == 0 && n2 >= 0.25 && n2 <= 4 {
		if n2 != 1 {
			inv := 1 / math.Sqrt(n2)
			p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2] = w*inv, x*inv, y*inv, z*inv
		}
		return nil
	}
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
	n2 = 0
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
	var t Transform
	t.SetPose(&p)
	return t
}

// SetPose sets t to the matrix form of a (normalised) pose.
//
// The Set methods write through their receiver from scalar locals: on the
// hot path, returning or copying a freshly written Transform costs more
// than computing it (wide loads of narrow stores stall on amd64).
func (t *Transform) SetPose(p *Pose) {
	w, x, y, z := p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]
	xx, yy, zz := x*x, y*y, z*z
	xy, xz, yz := x*y, x*z, y*z
	wx, wy, wz := w*x, w*y, w*z
	r := &t.R
	r[0], r[1], r[2] = 1-2*(yy+zz), 2*(xy-wz), 2*(xz+wy)
	r[3], r[4], r[5] = 2*(xy+wz), 1-2*(xx+zz), 2*(yz-wx)
	r[6], r[7], r[8] = 2*(xz-wy), 2*(yz+wx), 1-2*(xx+yy)
	t.T[0], t.T[1], t.T[2] = p.Pos[0], p.Pos[1], p.Pos[2]
}

// SetInverse sets t to the inverse of the rigid map u (t may be u).
func (t *Transform) SetInverse(u *Transform) {
	r0, r1, r2, r3, r4, r5, r6, r7, r8 := u.R[0], u.R[1], u.R[2], u.R[3], u.R[4], u.R[5], u.R[6], u.R[7], u.R[8]
	tx, ty, tz := u.T[0], u.T[1], u.T[2]
	r := &t.R
	r[0], r[1], r[2] = r0, r3, r6
	r[3], r[4], r[5] = r1, r4, r7
	r[6], r[7], r[8] = r2, r5, r8
	t.T[0] = -(r0*tx + r3*ty + r6*tz)
	t.T[1] = -(r1*tx + r4*ty + r7*tz)
	t.T[2] = -(r2*tx + r5*ty + r8*tz)
}

// SetRelative sets t to frame⁻¹∘u: u's map expressed in frame's local
// coordinates (t may be neither argument).
func (t *Transform) SetRelative(frame, u *Transform) {
	f, g := &frame.R, &u.R
	dx, dy, dz := u.T[0]-frame.T[0], u.T[1]-frame.T[1], u.T[2]-frame.T[2]
	r := &t.R
	for i := 0; i < 3; i++ {
		// Row i of frameᵀ is column i of frame.
		a, b, c := f[i], f[3+i], f[6+i]
		r[3*i] = a*g[0] + b*g[3] + c*g[6]
		r[3*i+1] = a*g[1] + b*g[4] + c*g[7]
		r[3*i+2] = a*g[2] + b*g[5] + c*g[8]
		t.T[i] = a*dx + b*dy + c*dz
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
	var o Transform
	o.SetInverse(t)
	return o
}

// Mul returns the composition t∘u (apply u first).
func (t *Transform) Mul(u *Transform) Transform {
	var o Transform
	a, b := &t.R, &u.R
	for i := 0; i < 3; i++ {
		a0, a1, a2 := a[3*i], a[3*i+1], a[3*i+2]
		o.R[3*i] = a0*b[0] + a1*b[3] + a2*b[6]
		o.R[3*i+1] = a0*b[1] + a1*b[4] + a2*b[7]
		o.R[3*i+2] = a0*b[2] + a1*b[5] + a2*b[8]
		o.T[i] = a0*u.T[0] + a1*u.T[1] + a2*u.T[2] + t.T[i]
	}
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
