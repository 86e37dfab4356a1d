package rigid

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// mat3 is a 3×3 matrix stored row-major (the layout of narrow.Transform.R).
type mat3 [9]float64

// mulVec returns m·v.
func (m *mat3) mulVec(v mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// mulTVec returns mᵀ·v.
func (m *mat3) mulTVec(v mgl64.Vec3) mgl64.Vec3 {
	return mgl64.Vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// rotateSym returns R·S·Rᵀ for a rotation R and a symmetric S.
func rotateSym(r, s *mat3) mat3 {
	var t, o mat3
	// t = R·S
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			t[3*i+j] = r[3*i]*s[j] + r[3*i+1]*s[3+j] + r[3*i+2]*s[6+j]
		}
	}
	// o = t·Rᵀ, symmetric: compute the upper triangle and mirror it.
	for i := 0; i < 3; i++ {
		for j := i; j < 3; j++ {
			v := t[3*i]*r[3*j] + t[3*i+1]*r[3*j+1] + t[3*i+2]*r[3*j+2]
			o[3*i+j], o[3*j+i] = v, v
		}
	}
	return o
}

// invertSym inverts a symmetric 3×3 matrix. ok is false when it is singular
// or the result is not finite.
func invertSym(m *mat3) (inv mat3, ok bool) {
	a, b, c := m[0], m[1], m[2]
	d, e, f := m[3], m[4], m[5]
	g, h, k := m[6], m[7], m[8]
	c00 := e*k - f*h
	c01 := -(d*k - f*g)
	c02 := d*h - e*g
	det := a*c00 + b*c01 + c*c02
	if !(math.Abs(det) > 0) || !finite(det) {
		return inv, false
	}
	id := 1 / det
	inv = mat3{
		c00 * id, -(b*k - c*h) * id, (b*f - c*e) * id,
		c01 * id, (a*k - c*g) * id, -(a*f - c*d) * id,
		c02 * id, -(a*h - b*g) * id, (a*e - b*d) * id,
	}
	// Symmetrise against rounding.
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			s := 0.5 * (inv[3*i+j] + inv[3*j+i])
			inv[3*i+j], inv[3*j+i] = s, s
		}
	}
	for _, x := range inv {
		if !finite(x) {
			return inv, false
		}
	}
	return inv, true
}

// rotation returns the row-major rotation matrix of a unit quaternion (the
// matrix of narrow.Pose.Transform).
func rotation(q mgl64.Quat) mat3 {
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	xx, yy, zz := x*x, y*y, z*z
	xy, xz, yz := x*y, x*z, y*z
	wx, wy, wz := w*x, w*y, w*z
	return mat3{
		1 - 2*(yy+zz), 2 * (xy - wz), 2 * (xz + wy),
		2 * (xy + wz), 1 - 2*(xx+zz), 2 * (yz - wx),
		2 * (xz - wy), 2 * (yz + wx), 1 - 2*(xx+yy),
	}
}

// normalizeQuat returns q scaled to unit length: the identity for a zero
// quaternion (which integration cannot produce from a unit one), a NaN
// one for a q with a NaN or infinite component, so that integrate
// reports the divergence. Components whose squares overflow or underflow
// (an angular velocity near the largest float64) are scaled by the
// largest of them first, not taken for zero.
func normalizeQuat(q mgl64.Quat) mgl64.Quat {
	n := math.Sqrt(q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2])
	if !(n > 0) || math.IsInf(n, 1) {
		s := max(math.Abs(q.W), math.Abs(q.V[0]), math.Abs(q.V[1]), math.Abs(q.V[2]))
		switch {
		case s == 0:
			return mgl64.QuatIdent()
		case math.IsNaN(s) || math.IsInf(s, 1):
			return mgl64.Quat{W: math.NaN(), V: mgl64.Vec3{math.NaN(), math.NaN(), math.NaN()}}
		}
		q = mgl64.Quat{W: q.W / s, V: mgl64.Vec3{q.V[0] / s, q.V[1] / s, q.V[2] / s}}
		n = math.Sqrt(q.W*q.W + q.V[0]*q.V[0] + q.V[1]*q.V[1] + q.V[2]*q.V[2])
	}
	inv := 1 / n
	return mgl64.Quat{W: q.W * inv, V: mgl64.Vec3{q.V[0] * inv, q.V[1] * inv, q.V[2] * inv}}
}

// tangents returns two unit vectors that complete the unit vector n to a
// right-handed orthonormal basis (t1, t2, n), as a fixed function of n.
func tangents(n mgl64.Vec3) (t1, t2 mgl64.Vec3) {
	if math.Abs(n[0]) >= 0.57735 {
		t1 = mgl64.Vec3{n[1], -n[0], 0}
	} else {
		t1 = mgl64.Vec3{0, n[2], -n[1]}
	}
	t1 = t1.Mul(1 / t1.Len())
	t2 = n.Cross(t1)
	return t1, t2
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func finiteVec(v mgl64.Vec3) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }
