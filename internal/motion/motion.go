// Package motion scripts the relative motion of one pair of shapes for
// tests that compare the collision detection methods of irtcd step by step,
// in the spirit of §5.2 of Lehericey et al. (JVRC 2013), which counts the
// rays whose result differs between the standard algorithm and the
// iterative ones.
//
// A script is deterministic: it maps a step number k (steps at Rate Hz) to
// the poses of the two bodies, whatever the order of the calls. Shapes are
// placed by the centres of their local bounding boxes, so the scripts do
// not depend on where a mesh's origin lies. Body A rests with its centre at
// the world origin; body B sits above it along +y, like the top body of a
// pile. 2D shapes (polygons in the z=0 plane) get planar poses: rotations
// about z and translations in the plane only.
//
// Distances are given as fractions of size, the smaller of the two shapes'
// Size. Penetrations are measured along y: B at penetration p is p lower
// than the height at which, lowered along -y, it first touches A. That
// height is estimated with vertical rays from the vertices of each body to
// the other (vertex-face contacts; edge-edge contacts are ignored, a small
// error for dense meshes).
package motion

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// Rate is the step frequency of the scripts, in Hz.
const Rate = 60

// Script returns the poses of A and B at step k ≥ 0.
type Script func(k int) (a, b narrow.Pose)

// Generator builds a script for shapes a and b. seed drives the scripts
// that use randomness; the others ignore it.
type Generator func(a, b *narrow.Shape, seed uint64) Script

// Entry is a named generator of the Scripts table.
type Entry struct {
	Name string
	New  Generator
}

// Scripts returns the motions of the package in a fixed order.
func Scripts() []Entry {
	return []Entry{
		{"Approach", Approach},
		{"Impact", Impact},
		{"RestingJitter", RestingJitter},
		{"Sliding", Sliding},
		{"Rotation", Rotation},
	}
}

// Parameters of the scripts, as fractions of size per step (or radians).
const (
	ApproachGap    = 0.2    // initial gap of Approach and Impact
	ApproachDepth  = 0.05   // final penetration of Approach, deepest of Impact
	ApproachSpeed  = 0.0025 // Approach: 0.15 size/s, contact after 80 steps, at rest after 100
	ImpactSpeed    = 0.025  // Impact: 1.5 size/s, deepest at step 10, back out at step 20
	RestDepth      = 0.02   // penetration of RestingJitter, Sliding and Rotation
	JitterMove     = 1e-4   // RestingJitter: translation noise
	JitterAngle    = 1e-3   // RestingJitter: rotation noise (radians)
	SlideSpeed     = 0.005  // Sliding: tangential speed
	SlideStart     = -0.3   // Sliding: initial tangential offset
	RotationSpeed  = 0.01   // Rotation: radians per step
	touchClearance = 0.1    // B starts this far above A when searching for the touching height
)

// Approach: B starts ApproachGap×size above A (above the height where it
// would touch A) and moves straight down along -y at ApproachSpeed×size
// per step until it penetrates A by ApproachDepth×size, where it stays.
// Orientations are fixed. Vertices enter contact progressively.
func Approach(a, b *narrow.Shape, _ uint64) Script {
	s := newScene(a, b)
	y0 := s.touchY(s.qb, 0, 0)
	top, bottom := y0+ApproachGap*s.size, y0-ApproachDepth*s.size
	return func(k int) (narrow.Pose, narrow.Pose) {
		y := max(bottom, top-ApproachSpeed*s.size*float64(k))
		return s.poses(s.qb, mgl64.Vec3{0, y, 0})
	}
}

// Impact: B starts ApproachGap×size above A, falls fast (ImpactSpeed×size
// per step) until it penetrates ApproachDepth×size, then bounces straight
// back up at the same speed to its starting height, where it stays. The
// pair's displacement exceeds the iterative threshold after a few steps, so
// most steps are standard steps; prediction matters for the vertices that
// enter contact between them.
func Impact(a, b *narrow.Shape, _ uint64) Script {
	s := newScene(a, b)
	y0 := s.touchY(s.qb, 0, 0)
	top := y0 + ApproachGap*s.size
	travel := (ApproachGap + ApproachDepth) * s.size
	return func(k int) (narrow.Pose, narrow.Pose) {
		d := ImpactSpeed * s.size * float64(k) // distance covered so far
		var y float64
		switch {
		case d <= travel:
			y = top - d
		case d <= 2*travel:
			y = top - (2*travel - d)
		default:
			y = top
		}
		return s.poses(s.qb, mgl64.Vec3{0, y, 0})
	}
}

// RestingJitter: B rests on A at a fixed penetration of RestDepth×size and
// every step is displaced from that rest pose by a random translation of
// length JitterMove×size and a random rotation of JitterAngle radians about
// its centre (not accumulated: the noise of step k depends only on seed and
// k). This is the resting contact of a pile, where the iterative algorithm
// should run almost every step.
func RestingJitter(a, b *narrow.Shape, seed uint64) Script {
	s := newScene(a, b)
	y := s.touchY(s.qb, 0, 0) - RestDepth*s.size
	return func(k int) (narrow.Pose, narrow.Pose) {
		rng := rand.New(rand.NewPCG(seed, uint64(k)))
		dir := s.randomDir(rng)
		c := mgl64.Vec3{0, y, 0}.Add(dir.Mul(JitterMove * s.size))
		axis := mgl64.Vec3{0, 0, 1}
		if !s.planar {
			axis = s.randomDir(rng)
		} else if rng.IntN(2) == 0 {
			axis = mgl64.Vec3{0, 0, -1}
		}
		q := mgl64.QuatRotate(JitterAngle, axis).Mul(s.qb)
		return s.poses(q, c)
	}
}

// Sliding: B slides along +x at SlideSpeed×size per step, starting at an
// offset of SlideStart×size from above A's centre, with its orientation
// fixed. Its height follows A's surface so that the penetration stays
// RestDepth×size: new vertices enter contact at the front and others leave
// it at the back.
func Sliding(a, b *narrow.Shape, _ uint64) Script {
	s := newScene(a, b)
	return func(k int) (narrow.Pose, narrow.Pose) {
		x := (SlideStart + SlideSpeed*float64(k)) * s.size
		y := s.touchY(s.qb, x, 0) - RestDepth*s.size
		return s.poses(s.qb, mgl64.Vec3{x, y, 0})
	}
}

// Rotation: B turns about the axis through its bounding-box centre along
// the contact direction (+y; +z, the only axis, for 2D shapes) at
// RotationSpeed radians per step, its height following the contact so that
// the penetration stays RestDepth×size. The contact region sweeps over both
// surfaces.
func Rotation(a, b *narrow.Shape, _ uint64) Script {
	s := newScene(a, b)
	axis := mgl64.Vec3{0, 1, 0}
	if s.planar {
		axis = mgl64.Vec3{0, 0, 1}
	}
	return func(k int) (narrow.Pose, narrow.Pose) {
		q := mgl64.QuatRotate(RotationSpeed*float64(k), axis).Mul(s.qb).Normalize()
		y := s.touchY(q, 0, 0) - RestDepth*s.size
		return s.poses(q, mgl64.Vec3{0, y, 0})
	}
}

// scene holds what every script needs about a pair: the two shapes, the
// centres of their local bounding boxes and their rest orientations.
type scene struct {
	a, b   *narrow.Shape
	planar bool
	ca, cb mgl64.Vec3 // local bounding-box centres
	qa, qb mgl64.Quat // rest orientations
	size   float64
}

func newScene(a, b *narrow.Shape) *scene {
	s := &scene{a: a, b: b, planar: a.Dim() == narrow.Dim2, size: min(a.Size(), b.Size())}
	s.ca, s.cb = a.Bounds().Center(), b.Bounds().Center()
	if s.planar {
		s.qa = mgl64.QuatIdent()
		s.qb = mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1})
	} else {
		// Both bodies upright (meshes are y-up), turned about the vertical
		// and B tilted a little, so that the contact is not a symmetric
		// one.
		s.qa = mgl64.QuatRotate(math.Pi, mgl64.Vec3{1, 0, 0}).Mul(mgl64.QuatRotate(0.5, mgl64.Vec3{0, 1, 0})).Normalize()
		s.qb = mgl64.QuatRotate(0.05, mgl64.Vec3{1, 0, 0.3}.Normalize()).Mul(mgl64.QuatRotate(-1.2, mgl64.Vec3{0, 1, 0})).Normalize()
	}
	return s
}

// place returns the pose that puts the local point centre of a shape at
// world point at, with rotation q.
func place(centre mgl64.Vec3, q mgl64.Quat, at mgl64.Vec3) narrow.Pose {
	return narrow.Pose{Pos: at.Sub(q.Rotate(centre)), Rot: q}
}

// poses returns A at rest (centre at the origin) and B with rotation q and
// its centre at c.
func (s *scene) poses(q mgl64.Quat, c mgl64.Vec3) (narrow.Pose, narrow.Pose) {
	if s.planar {
		c[2] = 0
	}
	return place(s.ca, s.qa, mgl64.Vec3{}), place(s.cb, q, c)
}

// randomDir returns a uniformly distributed unit vector (in the z=0 plane
// for 2D scenes).
func (s *scene) randomDir(rng *rand.Rand) mgl64.Vec3 {
	for {
		v := mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		if s.planar {
			v[2] = 0
		}
		if l := v.Len(); l > 1e-3 && l <= 1 {
			return v.Mul(1 / l)
		}
	}
}

// touchY returns the height of B's centre at which B, with rotation q and
// its centre at (x, ·, z), first touches A when lowered along -y from far
// above. It casts a vertical ray down from each vertex of B onto A and up
// from each vertex of A onto B, and takes the shortest. When no ray meets
// the other body (the bodies do not overlap seen from above), it returns
// the height at which the bounding boxes touch.
func (s *scene) touchY(q mgl64.Quat, x, z float64) float64 {
	if s.planar {
		z = 0
	}
	// Extent of A above its centre and of B below its centre, in world axes.
	topA := math.Inf(-1)
	for i := 0; i < s.a.NumVertices(); i++ {
		topA = max(topA, s.qa.Rotate(s.a.Vertex(i).Sub(s.ca))[1])
	}
	botB := math.Inf(1)
	for i := 0; i < s.b.NumVertices(); i++ {
		botB = min(botB, q.Rotate(s.b.Vertex(i).Sub(s.cb))[1])
	}
	h := topA - botB + touchClearance*s.size // B entirely above A
	cB := mgl64.Vec3{x, h, z}
	pa, pb := s.poses(q, cB)
	gap := math.Inf(1)
	// B's vertices down onto A, in A's frame.
	invA := pa.Rot.Conjugate()
	down := invA.Rotate(mgl64.Vec3{0, -1, 0})
	for i := 0; i < s.b.NumVertices(); i++ {
		w := pb.Rot.Rotate(s.b.Vertex(i)).Add(pb.Pos)
		o := invA.Rotate(w.Sub(pa.Pos))
		if hit, _ := s.a.Trace(o, down, 0, 0, narrow.TraversalBVH); hit.Prim >= 0 {
			gap = min(gap, hit.T)
		}
	}
	// A's vertices up onto B, in B's frame.
	invB := pb.Rot.Conjugate()
	up := invB.Rotate(mgl64.Vec3{0, 1, 0})
	for i := 0; i < s.a.NumVertices(); i++ {
		w := pa.Rot.Rotate(s.a.Vertex(i)).Add(pa.Pos)
		o := invB.Rotate(w.Sub(pb.Pos))
		if hit, _ := s.b.Trace(o, up, 0, 0, narrow.TraversalBVH); hit.Prim >= 0 {
			gap = min(gap, hit.T)
		}
	}
	if math.IsInf(gap, 1) {
		gap = touchClearance * s.size
	}
	return h - gap
}

func cmpContact(x, y narrow.Contact) int { return narrow.CompareContacts(&x, &y) }

// Compare counts, for one step of one pair, the rays whose result differs
// between the standard algorithm (std) and another method (got) on the same
// poses — the "incorrect rays" of §5.2 of Lehericey et al. (JVRC 2013). A
// ray, identified by (From, Vertex) (an edge-on-edge contact by its two
// edges: narrow.CompareContacts), is erroneous when it is a contact in
// one list and not in the other, or a contact in both whose depths differ
// by more than tol. union is the number of rays that are contacts in either
// list; the share of erroneous rays is erroneous/union (0 when union is 0).
//
// The lists are expected sorted by narrow.CompareContacts, as in
// narrow.PairResult; unsorted lists are sorted on a copy. A ray that
// appears twice in one list counts once (its first occurrence).
func Compare(std, got []narrow.Contact, tol float64) (erroneous, union int) {
	if !slices.IsSortedFunc(std, cmpContact) {
		std = slices.Clone(std)
		slices.SortStableFunc(std, cmpContact)
	}
	if !slices.IsSortedFunc(got, cmpContact) {
		got = slices.Clone(got)
		slices.SortStableFunc(got, cmpContact)
	}
	i, j := 0, 0
	for i < len(std) || j < len(got) {
		var c int
		switch {
		case i == len(std):
			c = 1
		case j == len(got):
			c = -1
		default:
			c = narrow.CompareContacts(&std[i], &got[j])
		}
		union++
		switch {
		case c < 0: // only in std
			erroneous++
			i = skip(std, i)
		case c > 0: // only in got
			erroneous++
			j = skip(got, j)
		default:
			if d := std[i].Depth - got[j].Depth; !(math.Abs(d) <= tol) {
				erroneous++
			}
			i, j = skip(std, i), skip(got, j)
		}
	}
	return erroneous, union
}

// skip returns the index of the first contact after i of another ray.
func skip(cs []narrow.Contact, i int) int {
	k := i
	for i++; i < len(cs) && narrow.CompareContacts(&cs[i], &cs[k]) == 0; i++ {
	}
	return i
}

// Share returns erroneous/union, or 0 when union is 0.
func Share(erroneous, union int) float64 {
	if union == 0 {
		return 0
	}
	return float64(erroneous) / float64(union)
}

// Breathe returns shape s at step k of a breathing deformation, for the
// tests of reshaped shapes (narrow.Reshaper): each vertex scaled about the
// shape's origin by 1 + a·sin(k + y), y its height, with a = 0.002 (a
// motion within Eq. 2's threshold for the test meshes) except at every
// fourth step (k = 3, 7, ...), where a = 0.05 calls for a standard step.
func Breathe(s *narrow.Shape, k int) (*narrow.Shape, error) {
	a := 0.002
	if k%4 == 3 {
		a = 0.05
	}
	verts := s.AppendVertices(nil)
	for i := range verts {
		verts[i] = verts[i].Mul(1 + a*math.Sin(float64(k)+verts[i][1]))
	}
	return s.Deform(verts)
}
