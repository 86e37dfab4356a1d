package narrow

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func quatLen(q mgl64.Quat) float64 {
	return math.Sqrt(q.W*q.W + q.V.Dot(q.V))
}

func TestNewPose(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	ident := mgl64.QuatIdent()
	bad := []struct {
		name string
		pos  mgl64.Vec3
		rot  mgl64.Quat
	}{
		{"NaN position x", mgl64.Vec3{nan, 0, 0}, ident},
		{"+Inf position y", mgl64.Vec3{0, inf, 0}, ident},
		{"-Inf position z", mgl64.Vec3{0, 0, -inf}, ident},
		{"NaN quaternion W", mgl64.Vec3{}, mgl64.Quat{W: nan}},
		{"NaN quaternion V", mgl64.Vec3{}, mgl64.Quat{W: 1, V: mgl64.Vec3{0, nan, 0}}},
		{"Inf quaternion", mgl64.Vec3{}, mgl64.Quat{W: 1, V: mgl64.Vec3{0, 0, inf}}},
		{"zero quaternion", mgl64.Vec3{1, 2, 3}, mgl64.Quat{}},
		{"near-zero quaternion", mgl64.Vec3{}, mgl64.Quat{W: 1e-13, V: mgl64.Vec3{1e-13, 0, 0}}},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			p, err := NewPose(c.pos, c.rot)
			if !errors.Is(err, ErrBadPose) {
				t.Fatalf("NewPose(%v, %v) = %v, %v; want ErrBadPose", c.pos, c.rot, p, err)
			}
			if p != (Pose{}) {
				t.Errorf("pose %v returned with the error", p)
			}
			if err.Error() == "" {
				t.Error("empty message")
			}
			if verr := (Pose{Pos: c.pos, Rot: c.rot}).Validate(); !errors.Is(verr, ErrBadPose) {
				t.Errorf("Validate = %v, want ErrBadPose", verr)
			}
		})
	}

	good := []struct {
		name string
		rot  mgl64.Quat
		want mgl64.Quat
	}{
		{"identity", ident, ident},
		{"scaled identity", mgl64.Quat{W: 2}, ident},
		{"scaled z", mgl64.Quat{V: mgl64.Vec3{0, 0, -3}}, mgl64.Quat{V: mgl64.Vec3{0, 0, -1}}},
		{"all ones", mgl64.Quat{W: 1, V: mgl64.Vec3{1, 1, 1}}, mgl64.Quat{W: 0.5, V: mgl64.Vec3{0.5, 0.5, 0.5}}},
		{"small", mgl64.Quat{W: 3e-6, V: mgl64.Vec3{0, 4e-6, 0}}, mgl64.Quat{W: 0.6, V: mgl64.Vec3{0, 0.8, 0}}},
		{"large", mgl64.Quat{W: 3e6, V: mgl64.Vec3{0, 4e6, 0}}, mgl64.Quat{W: 0.6, V: mgl64.Vec3{0, 0.8, 0}}},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			pos := mgl64.Vec3{1, -2, 3}
			p, err := NewPose(pos, c.rot)
			if err != nil {
				t.Fatal(err)
			}
			if p.Pos != pos {
				t.Errorf("Pos = %v, want %v", p.Pos, pos)
			}
			if !p.Rot.ApproxEqualThreshold(c.want, 1e-15) || !near(quatLen(p.Rot), 1, 1e-15) {
				t.Errorf("Rot = %v, want %v", p.Rot, c.want)
			}
			// Validate accepts the input and leaves its receiver alone.
			in := Pose{Pos: pos, Rot: c.rot}
			if err := in.Validate(); err != nil || in.Rot != c.rot {
				t.Errorf("Validate = %v, Rot after = %v", err, in.Rot)
			}
		})
	}
}

func TestPose2DTransform(t *testing.T) {
	for _, a := range []float64{0, 0.3, math.Pi / 2, 2, math.Pi, -math.Pi / 2, 4.5, -7} {
		p := Pose2D(1.5, -2.5, a)
		if err := p.Validate(); err != nil {
			t.Fatalf("Pose2D(%v): %v", a, err)
		}
		if !p.planar() {
			t.Errorf("Pose2D(%v) is not planar", a)
		}
		tr := p.Transform()
		s, c := math.Sincos(a)
		if got, want := tr.ApplyDir([3]float64{1, 0, 0}), (mgl64.Vec3{c, s, 0}); !nearVec(got, want, 1e-15) {
			t.Errorf("angle %v: x axis -> %v, want %v", a, got, want)
		}
		if got, want := tr.ApplyDir([3]float64{0, 1, 0}), (mgl64.Vec3{-s, c, 0}); !nearVec(got, want, 1e-15) {
			t.Errorf("angle %v: y axis -> %v, want %v", a, got, want)
		}
		if got, want := tr.Apply([3]float64{1, 0, 0}), (mgl64.Vec3{1.5 + c, -2.5 + s, 0}); !nearVec(got, want, 1e-15) {
			t.Errorf("angle %v: (1,0,0) -> %v, want %v", a, got, want)
		}
		if got := tr.ApplyDir([3]float64{0, 0, 1}); got != ([3]float64{0, 0, 1}) {
			t.Errorf("angle %v: z axis -> %v, want it unchanged", a, got)
		}
	}
}

// randomPose returns a pose with position in [-10,10)³ and a uniformly
// random rotation.
func randomPose(tb testing.TB, rng *rand.Rand) Pose {
	tb.Helper()
	pos := mgl64.Vec3{20*rng.Float64() - 10, 20*rng.Float64() - 10, 20*rng.Float64() - 10}
	q := mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}
	p, err := NewPose(pos, q)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func randomPoint(rng *rand.Rand) [3]float64 {
	return [3]float64{10*rng.Float64() - 5, 10*rng.Float64() - 5, 10*rng.Float64() - 5}
}

func isIdentity(tr Transform, tol float64) bool {
	for i := 0; i < 9; i++ {
		want := 0.0
		if i%4 == 0 {
			want = 1
		}
		if !near(tr.R[i], want, tol) {
			return false
		}
	}
	return nearVec(tr.T, mgl64.Vec3{}, tol)
}

func TestTransformInverseMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 1000; n++ {
		pa, pb := randomPose(t, rng), randomPose(t, rng)
		a, b := pa.Transform(), pb.Transform()
		inv := a.Inverse()
		if m := a.Mul(&inv); !isIdentity(m, 1e-12) {
			t.Fatalf("pose %v: T∘T⁻¹ = %v", pa, m)
		}
		if m := inv.Mul(&a); !isIdentity(m, 1e-12) {
			t.Fatalf("pose %v: T⁻¹∘T = %v", pa, m)
		}
		// R is orthonormal with determinant +1.
		r, rt := Transform{R: a.R}, Transform{R: inv.R}
		rrt := r.Mul(&rt)
		if !isIdentity(rrt, 1e-12) {
			t.Fatalf("pose %v: R·Rᵀ = %v", pa, rrt.R)
		}
		det := a.R[0]*(a.R[4]*a.R[8]-a.R[5]*a.R[7]) - a.R[1]*(a.R[3]*a.R[8]-a.R[5]*a.R[6]) + a.R[2]*(a.R[3]*a.R[7]-a.R[4]*a.R[6])
		if !near(det, 1, 1e-12) {
			t.Fatalf("pose %v: det R = %v", pa, det)
		}

		x := randomPoint(rng)
		// The matrix agrees with the quaternion.
		if got, want := a.Apply(x), pa.Rot.Rotate(x).Add(pa.Pos); !nearVec(got, want, 1e-12) {
			t.Fatalf("pose %v: Apply(%v) = %v, quaternion gives %v", pa, x, got, want)
		}
		// Mul is composition, applying its argument first.
		ab := a.Mul(&b)
		bx := b.Apply(x)
		if got, want := ab.Apply(x), a.Apply(bx); !nearVec(got, want, 1e-12) {
			t.Fatalf("(a∘b)(x) = %v, a(b(x)) = %v", got, want)
		}
		if got := inv.Apply(a.Apply(x)); !nearVec(got, x, 1e-12) {
			t.Fatalf("T⁻¹(T(x)) = %v, want %v", got, x)
		}
		if got, want := a.ApplyDir(x), mgl64.Vec3(a.Apply(x)).Sub(a.T); !nearVec(got, want, 1e-12) {
			t.Fatalf("ApplyDir(%v) = %v, want %v", x, got, want)
		}
	}
}

func TestRelative(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 1000; n++ {
		pa, pb := randomPose(t, rng), randomPose(t, rng)
		rel := Relative(pa, pb)
		if !near(quatLen(rel.Rot), 1, 1e-12) {
			t.Fatalf("Relative quaternion %v is not unit", rel.Rot)
		}
		ta, tb, tr := pa.Transform(), pb.Transform(), rel.Transform()
		x := randomPoint(rng)
		if got, want := ta.Apply(tr.Apply(x)), tb.Apply(x); !nearVec(got, want, 1e-12) {
			t.Fatalf("a∘Relative(a,b) maps %v to %v, b maps it to %v", x, got, want)
		}
		// The same identity on the matrix forms.
		inv := ta.Inverse()
		m := inv.Mul(&tb)
		for i := 0; i < 9; i++ {
			if !near(m.R[i], tr.R[i], 1e-12) {
				t.Fatalf("R of a⁻¹·b = %v, of Relative = %v", m.R, tr.R)
			}
		}
		if !nearVec(m.T, tr.T, 1e-12) {
			t.Fatalf("T of a⁻¹·b = %v, of Relative = %v", m.T, tr.T)
		}
	}
	// Relative to the identity is the pose itself.
	p := Pose2D(3, 4, 0.5)
	if r := Relative(Identity, p); !nearVec(r.Pos, p.Pos, 1e-15) || !r.Rot.ApproxEqualThreshold(p.Rot, 1e-15) {
		t.Errorf("Relative(Identity, %v) = %v", p, r)
	}
}

func TestAngle(t *testing.T) {
	ident := mgl64.QuatIdent()
	half := mgl64.Quat{W: 0.5, V: mgl64.Vec3{0.5, 0.5, 0.5}} // 120° about (1,1,1)
	cases := []struct {
		name   string
		q1, q2 mgl64.Quat
		want   float64
	}{
		{"identity, identity", ident, ident, 0},
		{"q, q", half, half, 0},
		{"q, -q (same rotation)", half, half.Scale(-1), 0},
		{"x half-turn, itself", mgl64.Quat{V: mgl64.Vec3{1, 0, 0}}, mgl64.Quat{V: mgl64.Vec3{1, 0, 0}}, 0},
		{"90° about z", ident, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1}), math.Pi / 2},
		{"90° about x, reversed", mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0}), ident, math.Pi / 2},
		{"-90° about y", ident, mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{0, 1, 0}), math.Pi / 2},
		{"half-turn", ident, mgl64.Quat{V: mgl64.Vec3{0, 1, 0}}, math.Pi},
		{"120°", ident, half, 2 * math.Pi / 3},
		{"270° is 90°", ident, mgl64.QuatRotate(3*math.Pi/2, mgl64.Vec3{0, 0, 1}), math.Pi / 2},
		{"between two 2D poses", Pose2D(0, 0, 0.25).Rot, Pose2D(0, 0, 1.25).Rot, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Angle(c.q1, c.q2)
			if c.want == 0 && got != 0 {
				t.Errorf("Angle = %v, want exactly 0", got)
			}
			if !near(got, c.want, 1e-12) {
				t.Errorf("Angle = %v, want %v", got, c.want)
			}
			if back := Angle(c.q2, c.q1); back != got {
				t.Errorf("Angle is not symmetric: %v vs %v", got, back)
			}
		})
	}
	// A known rotation on top of a random orientation.
	rng := rand.New(rand.NewPCG(5, 6))
	for n := 0; n < 200; n++ {
		q := randomPose(t, rng).Rot
		theta := 0.1 + 3*rng.Float64()
		axis := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		q2 := q.Mul(mgl64.QuatRotate(theta, axis))
		if got := Angle(q, q2); !near(got, theta, 1e-9) {
			t.Fatalf("Angle(q, q·rot(%v)) = %v", theta, got)
		}
	}
}

func TestCheckPair(t *testing.T) {
	box := testBox(t, mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	sq, err := NewPolygon(square(-0.5, -0.5, 1))
	if err != nil {
		t.Fatal(err)
	}
	tilt := Pose{Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.QuatRotate(0.3, mgl64.Vec3{1, 0, 0})}
	lifted := Pose2D(1, 2, 0.3)
	lifted.Pos[2] = 0.5
	cases := []struct {
		name   string
		a, b   *Shape
		pa, pb Pose
		kind   error  // nil: accepted
		side   string // "pose A" / "pose B" expected in the message
	}{
		{"3D pair", box, box, Identity, tilt, nil, ""},
		{"2D pair", sq, sq, Pose2D(0, 0, 1), Pose2D(2, 3, -1), nil, ""},
		{"2D pair, identity", sq, sq, Identity, Identity, nil, ""},
		{"3D and 2D", box, sq, Identity, Identity, ErrDimension, ""},
		{"2D and 3D", sq, box, Identity, Identity, ErrDimension, ""},
		{"2D pair, A rotated about x", sq, sq, tilt, Identity, ErrBadPose, "pose A"},
		{"2D pair, B rotated about x", sq, sq, Identity, tilt, ErrBadPose, "pose B"},
		{"2D pair, B off the plane", sq, sq, Identity, lifted, ErrBadPose, "pose B"},
		{"3D pair, NaN position", box, box, Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}, Identity, ErrBadPose, "pose A"},
		{"3D pair, zero quaternion", box, box, Identity, Pose{}, ErrBadPose, "pose B"},
		{"2D pair, zero quaternion", sq, sq, Pose{}, Identity, ErrBadPose, "pose A"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pr := Pair{ID: 7, PoseA: c.pa, PoseB: c.pb}
			err := CheckPair(&pr, c.a, c.b)
			if c.kind == nil {
				if err != nil {
					t.Fatalf("CheckPair: %v", err)
				}
				return
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("CheckPair = %v, want %v", err, c.kind)
			}
			if !strings.Contains(err.Error(), c.side) {
				t.Errorf("message %q does not name %q", err, c.side)
			}
		})
	}

	// CheckPair normalises the quaternions in place.
	pr := Pair{PoseA: Pose{Rot: mgl64.Quat{W: 2}}, PoseB: Pose{Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.Quat{V: mgl64.Vec3{0, 0, 5}}}}
	if err := CheckPair(&pr, sq, sq); err != nil {
		t.Fatal(err)
	}
	if pr.PoseA.Rot != mgl64.QuatIdent() || pr.PoseB.Rot != (mgl64.Quat{V: mgl64.Vec3{0, 0, 1}}) {
		t.Errorf("quaternions after CheckPair: %v, %v", pr.PoseA.Rot, pr.PoseB.Rot)
	}
}

func TestParamsValidate(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		p    Params
		ok   bool
	}{
		{"zero (all defaults)", Params{}, true},
		{"explicit", Params{Method: MethodIterative, Traversal: TraversalBasic, Response: ResponseWeighted, DisplacementThreshold: 0.1, Confidence: 3, DistanceExtension: 0.2, MaxIt: 5, ManifoldSize: 2, ManifoldAngle: 0.5}, true},
		{"Confidence 1", Params{Confidence: 1}, true},
		{"ManifoldAngle π", Params{ManifoldAngle: math.Pi}, true},
		{"only DistanceExtension", Params{DistanceExtension: 0.3}, true},
		{"Confidence 0.5", Params{Confidence: 0.5}, false},
		{"negative Confidence", Params{Confidence: -2}, false},
		{"NaN Confidence", Params{Confidence: nan}, false},
		{"+Inf Confidence", Params{Confidence: math.Inf(1)}, false},
		{"negative DisplacementThreshold", Params{DisplacementThreshold: -0.1}, false},
		{"NaN DisplacementThreshold", Params{DisplacementThreshold: nan}, false},
		{"+Inf DisplacementThreshold", Params{DisplacementThreshold: math.Inf(1)}, false},
		{"negative DistanceExtension", Params{DistanceExtension: -1}, false},
		{"NaN DistanceExtension", Params{DistanceExtension: nan}, false},
		{"DistanceExtension = DisplacementThreshold", Params{DisplacementThreshold: 0.1, DistanceExtension: 0.1}, true},
		{"DistanceExtension just over the touching bound", Params{DisplacementThreshold: 0.1, DistanceExtension: 0.031}, true},
		{"DistanceExtension = the touching bound", Params{DisplacementThreshold: 0.1, DistanceExtension: 0.03}, false},
		{"DistanceExtension < the touching bound", Params{DisplacementThreshold: 0.1, DistanceExtension: 0.02}, false},
		{"speculative, DistanceExtension over DisplacementThreshold", Params{Method: MethodPredictive, Speculative: true, DisplacementThreshold: 0.1, DistanceExtension: 0.11}, true},
		{"speculative, DistanceExtension = DisplacementThreshold", Params{Method: MethodPredictive, Speculative: true, DisplacementThreshold: 0.1, DistanceExtension: 0.1}, false},
		{"speculative, DistanceExtension under DisplacementThreshold", Params{Method: MethodPredictive, Speculative: true, DisplacementThreshold: 0.1, DistanceExtension: 0.08}, false},
		{"negative MaxIt", Params{MaxIt: -1}, false},
		{"ManifoldSize 1", Params{ManifoldSize: 1}, false},
		{"negative ManifoldSize", Params{ManifoldSize: -4}, false},
		{"NaN ManifoldAngle", Params{ManifoldAngle: nan}, false},
		{"negative ManifoldAngle", Params{ManifoldAngle: -0.1}, false},
		{"ManifoldAngle > π", Params{ManifoldAngle: 3.2}, false},
		{"unknown Method", Params{Method: MethodStandard + 1}, false},
		{"unknown Traversal", Params{Traversal: TraversalBasic + 1}, false},
		{"unknown Response", Params{Response: ResponseWeighted + 1}, false},
		{"the papers' culling", Params{Culling: CullBoxes}, true},
		{"unknown Culling", Params{Culling: CullBoxes + 1}, false},
		{"Speculative, predictive", Params{Method: MethodPredictive, Speculative: true}, true},
		{"Speculative, iterative", Params{Method: MethodIterative, Speculative: true}, false},
		{"Speculative, standard", Params{Method: MethodStandard, Speculative: true}, false},
		{"EdgeDepth", Params{EdgeAngle: 0.1, EdgeDepth: 0.01}, true},
		{"EdgeDepth without EdgeAngle", Params{EdgeDepth: 0.01}, true},
		{"negative EdgeDepth", Params{EdgeAngle: 0.1, EdgeDepth: -0.01}, false},
		{"NaN EdgeDepth", Params{EdgeAngle: 0.1, EdgeDepth: nan}, false},
		{"+Inf EdgeDepth", Params{EdgeAngle: 0.1, EdgeDepth: math.Inf(1)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.Validate()
			switch {
			case c.ok && err != nil:
				t.Errorf("Validate = %v, want nil", err)
			case !c.ok && !errors.Is(err, ErrBadParams):
				t.Errorf("Validate = %v, want ErrBadParams", err)
			case !c.ok && err.Error() == "":
				t.Error("empty message")
			}
		})
	}
}

func TestParseMethodTraversal(t *testing.T) {
	for s, want := range map[string]Method{"standard": MethodStandard, "iterative": MethodIterative, "predictive": MethodPredictive, "iterative+predictive": MethodPredictive} {
		if got, err := ParseMethod(s); err != nil || got != want {
			t.Errorf("ParseMethod(%q) = %v, %v", s, got, err)
		}
	}
	for _, m := range []Method{MethodStandard, MethodIterative, MethodPredictive} {
		if got, err := ParseMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseMethod(%v.String()) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseMethod("Standard"); !errors.Is(err, ErrBadParams) {
		t.Errorf("ParseMethod(Standard) = %v", err)
	}
	for _, tr := range []Traversal{TraversalBVH, TraversalBasic} {
		if got, err := ParseTraversal(tr.String()); err != nil || got != tr {
			t.Errorf("ParseTraversal(%v.String()) = %v, %v", tr, got, err)
		}
	}
	if _, err := ParseTraversal(""); !errors.Is(err, ErrBadParams) {
		t.Errorf("ParseTraversal(\"\") = %v", err)
	}
	for _, c := range []Culling{CullTight, CullBoxes} {
		if got, err := ParseCulling(c.String()); err != nil || got != c {
			t.Errorf("ParseCulling(%v.String()) = %v, %v", c, got, err)
		}
	}
	if _, err := ParseCulling("box"); !errors.Is(err, ErrBadParams) {
		t.Errorf("ParseCulling(\"box\") = %v", err)
	}
}

func TestParamsResolve(t *testing.T) {
	cube := testBox(t, mgl64.Vec3{0.5, 0.5, 0.5}, mgl64.Vec3{})
	big := testBox(t, mgl64.Vec3{10, 1, 2}, mgl64.Vec3{3, 0, 0})
	sq, err := NewPolygon(square(0, 0, 1))
	if err != nil {
		t.Fatal(err)
	}
	st, err := NewPolygon(star(100))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		p        Params
		a, b     *Shape
		manifold int
	}{
		{"cubes, defaults", Params{}, cube, cube, 4},
		{"cube and long box, defaults", Params{}, cube, big, 4},
		{"long box and cube, iterative", Params{Method: MethodIterative}, big, cube, 4},
		{"cubes, standard", Params{Method: MethodStandard}, cube, cube, 4},
		{"squares, defaults", Params{}, sq, sq, 2},
		{"square and star, defaults", Params{}, sq, st, 2},
		{"cubes, Confidence 1", Params{Confidence: 1}, cube, cube, 4},
		{"cubes, Confidence 5", Params{Confidence: 5}, cube, big, 4},
		{"cubes, explicit threshold", Params{DisplacementThreshold: 0.01}, cube, cube, 4},
		{"cubes, explicit everything", Params{DisplacementThreshold: 0.2, Confidence: 3, DistanceExtension: 0.7, MaxIt: 9, ManifoldSize: 6, ManifoldAngle: 0.1}, cube, big, 6},
		{"cubes, speculative", Params{Method: MethodPredictive, Speculative: true}, cube, big, 4},
		{"cubes, extension under the default", Params{DisplacementThreshold: 0.2, DistanceExtension: 0.062}, cube, cube, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.p.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			r := c.p.Resolve(c.a, c.b)
			if r.Method != c.p.Method || r.Traversal != c.p.Traversal || r.Response != c.p.Response {
				t.Errorf("Method/Traversal/Response = %v/%v/%v", r.Method, r.Traversal, r.Response)
			}
			wantConf := c.p.Confidence
			if wantConf == 0 {
				wantConf = 2
			}
			if r.Confidence != wantConf {
				t.Errorf("Confidence = %v, want %v", r.Confidence, wantConf)
			}
			wantDT := c.p.DisplacementThreshold
			if wantDT == 0 {
				// 0.05 × the smaller Size, at least 2 × the larger mean
				// primitive size.
				wantDT = 0.05 * min(c.a.Size(), c.b.Size())
			}
			if !(r.DisplacementThreshold > 0) || !near(r.DisplacementThreshold, wantDT, 1e-15*wantDT) {
				t.Errorf("DisplacementThreshold = %v, want %v", r.DisplacementThreshold, wantDT)
			}
			if !near(r.CullingDist, r.Confidence*r.DisplacementThreshold, 1e-15*r.CullingDist) {
				t.Errorf("CullingDist = %v, want Confidence × DisplacementThreshold = %v", r.CullingDist, r.Confidence*r.DisplacementThreshold)
			}
			switch {
			case c.p.Method == MethodPredictive:
				bound := r.TouchThreshold // the vertices that can touch (Params.DistanceExtension)
				if c.p.Speculative {
					bound = r.DisplacementThreshold
				}
				if want := max(c.p.DistanceExtension, 1.1*bound); r.DistanceExtension != want {
					t.Errorf("DistanceExtension = %v, want %v", r.DistanceExtension, want)
				}
				f := 0.3
				if c.p.Speculative {
					f = 0.6
				}
				if want := f * r.DisplacementThreshold; r.TouchThreshold != want {
					t.Errorf("TouchThreshold = %v, want %v × DisplacementThreshold = %v", r.TouchThreshold, f, want)
				}
			case c.p.Method != MethodPredictive:
				if want := max(c.a.TEps(), c.b.TEps()); r.DistanceExtension != want {
					t.Errorf("DistanceExtension = %v, want the touching tolerance %v", r.DistanceExtension, want)
				}
				if r.TouchThreshold != 0 {
					t.Errorf("TouchThreshold = %v without prediction, want 0", r.TouchThreshold)
				}
			}
			if c.p.Method == MethodPredictive && !(r.DistanceExtension > r.TouchThreshold) {
				t.Errorf("DistanceExtension %v does not exceed TouchThreshold %v", r.DistanceExtension, r.TouchThreshold)
			}
			if c.p.Speculative && !(r.DistanceExtension > r.DisplacementThreshold) {
				t.Errorf("speculative: DistanceExtension %v does not exceed DisplacementThreshold %v", r.DistanceExtension, r.DisplacementThreshold)
			}
			for i, target := range [2]*Shape{c.b, c.a} {
				want := c.p.MaxIt
				if want == 0 {
					want = max(2, int(math.Ceil(r.Confidence*r.DisplacementThreshold/target.AvgPrimSize())))
				}
				if r.MaxIt[i] != want || r.MaxIt[i] < 2 {
					t.Errorf("MaxIt[%d] = %d, want %d (≥ 2)", i, r.MaxIt[i], want)
				}
			}
			if r.ManifoldSize != c.manifold {
				t.Errorf("ManifoldSize = %d, want %d", r.ManifoldSize, c.manifold)
			}
			ang := c.p.ManifoldAngle
			if ang == 0 {
				ang = 0.35
			}
			if !near(r.ManifoldCos, math.Cos(ang), 1e-15) {
				t.Errorf("ManifoldCos = %v, want cos(%v)", r.ManifoldCos, ang)
			}
		})
	}
}

func TestPairResultTouching(t *testing.T) {
	contact := func(depth float64) Contact { return Contact{Depth: depth} }
	m := func(depths ...float64) Manifold {
		var m Manifold
		for _, d := range depths {
			m.Points = append(m.Points, contact(d))
		}
		return m
	}
	cases := []struct {
		name string
		ms   []Manifold
		want int
	}{
		{"none", nil, 0},
		{"contacts only", []Manifold{m(0.1, 0), m(0.2)}, 2},
		{"speculative only", []Manifold{m(-0.1), m(-0.2, -0.3)}, 0},
		{"both", []Manifold{m(0.1), m(0), m(-0.01, -0.02)}, 2},
	}
	for _, c := range cases {
		r := PairResult{Manifolds: c.ms}
		got := r.Touching()
		if len(got) != c.want {
			t.Errorf("%s: %d manifolds touching, want %d", c.name, len(got), c.want)
		}
		for _, g := range got {
			if g.Points[0].Speculative() {
				t.Errorf("%s: a speculative manifold among the touching ones", c.name)
			}
		}
	}
}
