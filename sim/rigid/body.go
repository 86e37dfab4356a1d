package rigid

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// BodyID identifies a body of a World: bodies are numbered from 0 in the
// order they are added, and IDs are never reused, not even those of
// removed bodies.
type BodyID int32

// BodyDef describes a body to add. NewBodyDef fills in the defaults.
type BodyDef struct {
	// Name, optional, appears in error messages.
	Name string
	// Shape is the body's closed triangle mesh (narrow.Dim3). Any number
	// of bodies may share one shape; it is registered with the narrow
	// phase once.
	Shape *narrow.Shape
	// Pose places the shape: world = R·local + Pos, the shape's local
	// coordinates as given (the body's position is the shape's local
	// origin, not its centre of mass). The quaternion is normalised.
	Pose narrow.Pose
	// Static bodies never move (infinite mass); Density is then ignored.
	Static bool
	// Kinematic bodies move with the velocities they are given
	// (LinearVelocity and AngularVelocity here, World.SetVelocity later)
	// whatever touches them: infinite mass, no gravity. They push the
	// dynamic bodies in their way and carry those resting on them by
	// friction; they do not meet static or other kinematic bodies. Their
	// linear velocity is that of their shape's centroid, about which they
	// turn; Density is ignored. A body cannot be both Static and
	// Kinematic.
	Kinematic bool
	// Density (mass per unit volume) of a dynamic body; mass, centre of
	// mass and inertia come from Shape.MassProps(Density).
	Density float64
	// Friction coefficient (≥ 0); a contact uses √(μa·μb).
	Friction float64
	// Restitution (≥ 0, usually ≤ 1); a contact uses the larger of the
	// two.
	Restitution float64
	// LinearVelocity (of the centre of mass) and AngularVelocity (rad/s,
	// world axes) at the start; ignored for static bodies.
	LinearVelocity, AngularVelocity mgl64.Vec3
	// Group: bodies with the same non-zero Group never collide with each
	// other (the parts of one assembly); 0 collides with every body. See
	// also World.SetPairFilter.
	Group uint32
	// Sensor makes the body a trigger volume: it touches nothing, and
	// the world reports which dynamic and kinematic bodies overlap it
	// (World.SensorEvents, World.SensorOverlaps), by narrow.Overlap, an
	// exact test of the two meshes. A sensor must be Static or Kinematic
	// (a kinematic one is moved by its velocity, or by SetPose); sensors
	// do not detect each other or static bodies. Group and the pair
	// filter apply to its pairs as to others. A pair neither of whose
	// bodies moved since the last step (a body asleep in a static
	// sensor) keeps its answer without a new test. RayCast and QueryBox
	// see sensors like other bodies (their filters can leave them out).
	Sensor bool
}

// NewBodyDef returns a dynamic body definition for shape at pose with
// density 1, friction 0.5 and no restitution.
func NewBodyDef(shape *narrow.Shape, pose narrow.Pose) BodyDef {
	return BodyDef{Shape: shape, Pose: pose, Density: 1, Friction: 0.5}
}

// Body is one rigid body of a World. Read it through its methods; change it
// through the World's setters. A *Body from World.Body stays valid until
// the next AddBody, RemoveBody or RestoreState.
type Body struct {
	name      string
	shape     *narrow.Shape
	static    bool
	kinematic bool // moved by its velocity alone (BodyDef.Kinematic)

	pose     narrow.Pose // the shape's placement
	com      mgl64.Vec3  // world centre of mass
	localCOM mgl64.Vec3  // centre of mass in shape coordinates
	rot      mat3        // rotation of pose.Rot
	v, w     mgl64.Vec3  // linear (of the centre of mass) and angular velocity

	mass        float64
	invMass     float64
	inertia     mat3 // local inertia tensor about the centre of mass
	invInertia  mat3 // its inverse
	friction    float64
	restitution float64

	// Solver state of the current step.
	im     float64    // effective inverse mass: 0 unless the body moves this step
	iiw    mat3       // effective world inverse inertia
	vp, wp mgl64.Vec3 // pseudo-velocities of the split impulse

	group     uint32 // BodyDef.Group
	sensor    bool   // BodyDef.Sensor
	moved     bool   // placed (AddBody, SetPose) or moved since the last sensor update
	placed    bool   // placed by SetPose since the last contact update (updateTouching)
	removed   bool   // World.RemoveBody: inert (static, out of the broad phase), its ID never reused
	sleeping  bool
	woken     bool    // woken during this step: immovable until it ends
	stillTime float64 // time spent under the sleep thresholds
	island    int32   // while sleeping: the island it fell asleep with

	aabb  narrow.AABB // world bounds grown by the margin, for the broad phase
	reach float64     // farthest distance of the shape's points from the centre of mass (at most)

	dvel  []mgl64.Vec3 // velocities of the shape's vertices from its last deformation (local; setDeformation)
	dstep int          // 1 + the step dvel applies to (0: none)
}

// Name returns the body's name from its BodyDef.
func (b *Body) Name() string { return b.name }

// Shape returns the body's shape.
func (b *Body) Shape() *narrow.Shape { return b.shape }

// Static reports whether the body is static.
func (b *Body) Static() bool { return b.static }

// Pose returns the shape's placement (position of its local origin and
// rotation).
func (b *Body) Pose() narrow.Pose { return b.pose }

// CenterOfMass returns the world position of the centre of mass.
func (b *Body) CenterOfMass() mgl64.Vec3 { return b.com }

// LocalCenterOfMass returns the centre of mass in shape coordinates.
func (b *Body) LocalCenterOfMass() mgl64.Vec3 { return b.localCOM }

// LinearVelocity returns the velocity of the centre of mass.
func (b *Body) LinearVelocity() mgl64.Vec3 { return b.v }

// AngularVelocity returns the angular velocity (rad/s, world axes).
func (b *Body) AngularVelocity() mgl64.Vec3 { return b.w }

// Mass returns the mass (0 for static bodies).
func (b *Body) Mass() float64 { return b.mass }

// Friction returns the friction coefficient.
func (b *Body) Friction() float64 { return b.friction }

// Restitution returns the restitution coefficient.
func (b *Body) Restitution() float64 { return b.restitution }

// Sleeping reports whether the body is asleep (static bodies never are).
func (b *Body) Sleeping() bool { return b.sleeping }

// Group returns the body's collision group (BodyDef.Group).
func (b *Body) Group() uint32 { return b.group }

// Sensor reports whether the body is a sensor (BodyDef.Sensor).
func (b *Body) Sensor() bool { return b.sensor }

// Kinematic reports whether the body is kinematic (BodyDef.Kinematic).
func (b *Body) Kinematic() bool { return b.kinematic }

// Awake reports whether the body is dynamic and not asleep.
func (b *Body) Awake() bool { return !b.static && !b.kinematic && !b.sleeping }

// moving reports whether the body is kinematic with a velocity.
func (b *Body) moving() bool { return b.kinematic && (b.v != mgl64.Vec3{} || b.w != mgl64.Vec3{}) }

// AABB returns the body's world bounding box as the broad phase last saw
// it (grown by the margin).
func (b *Body) AABB() narrow.AABB { return b.aabb }

// KineticEnergy returns ½m|v|² + ½ωᵀIω (0 for static and kinematic
// bodies, which have no mass).
func (b *Body) KineticEnergy() float64 {
	if b.static || b.kinematic {
		return 0
	}
	iw := rotateSym(&b.rot, &b.inertia)
	return 0.5*b.mass*b.v.Dot(b.v) + 0.5*b.w.Dot(iw.mulVec(b.w))
}

// setPose sets the pose (already validated) and everything derived from it.
func (b *Body) setPose(p narrow.Pose) {
	b.pose = p
	b.rot = rotation(p.Rot)
	b.com = p.Pos.Add(b.rot.mulVec(b.localCOM))
}

// build checks a BodyDef and returns the body it makes.
func (d *BodyDef) build() (Body, error) {
	b := Body{name: d.Name, shape: d.Shape, static: d.Static, kinematic: d.Kinematic, island: -1, group: d.Group, sensor: d.Sensor, moved: true}
	if d.Shape == nil {
		return b, ErrNilShape
	}
	if d.Shape.Dim() != narrow.Dim3 {
		return b, ErrNotMesh
	}
	pose, err := narrow.NewPose(d.Pose.Pos, d.Pose.Rot)
	if err != nil {
		return b, err
	}
	if !finite(d.Friction) || d.Friction < 0 || !finite(d.Restitution) || d.Restitution < 0 {
		return b, fmt.Errorf("%w: friction %v, restitution %v", ErrBadMaterial, d.Friction, d.Restitution)
	}
	if !finiteVec(d.LinearVelocity) || !finiteVec(d.AngularVelocity) {
		return b, fmt.Errorf("%w: linear %v, angular %v", ErrBadVelocity, d.LinearVelocity, d.AngularVelocity)
	}
	b.friction, b.restitution = d.Friction, d.Restitution
	switch {
	case d.Static && d.Kinematic:
		return b, fmt.Errorf("%w: both static and kinematic", ErrBadKind)
	case d.Sensor && !d.Static && !d.Kinematic:
		return b, fmt.Errorf("%w: a sensor must be static or kinematic", ErrBadKind)
	case d.Kinematic:
		mp, err := d.Shape.MassProps(1)
		if err != nil {
			return b, fmt.Errorf("%w: %w", ErrBadMass, err)
		}
		b.localCOM = mp.Centroid
		b.v, b.w = d.LinearVelocity, d.AngularVelocity
	case !d.Static:
		if !finite(d.Density) || !(d.Density > 0) {
			return b, fmt.Errorf("%w: %v (want a finite positive number)", ErrBadDensity, d.Density)
		}
		if err := b.setMass(d.Shape, d.Density); err != nil {
			return b, err
		}
		b.v, b.w = d.LinearVelocity, d.AngularVelocity
	}
	b.setReach()
	b.setPose(pose)
	return b, nil
}

// setMass gives a dynamic body the mass, centre of mass and inertia of
// shape at density; on error the body is unchanged.
func (b *Body) setMass(shape *narrow.Shape, density float64) error {
	mp, err := shape.MassProps(density)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadMass, err)
	}
	var in mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			in[3*i+j] = mp.Inertia.At(i, j)
		}
	}
	inv, ok := invertSym(&in)
	if !ok || !(mp.Mass > 0) || math.IsInf(1/mp.Mass, 0) {
		return fmt.Errorf("%w: mass %v, inertia %v", ErrBadMass, mp.Mass, in)
	}
	for i := 0; i < 3; i++ {
		if !(inv[4*i] > 0) {
			return fmt.Errorf("%w: inertia %v is not positive definite", ErrBadMass, in)
		}
	}
	b.mass, b.invMass = mp.Mass, 1/mp.Mass
	b.inertia, b.invInertia = in, inv
	b.localCOM = mp.Centroid
	return nil
}

// setReach sets how far the body's shape reaches from its centre of mass
// (at most).
func (b *Body) setReach() {
	cx, cy, cz, r := b.shape.BoundingSphere()
	b.reach = r + mgl64.Vec3{cx, cy, cz}.Sub(b.localCOM).Len()
}
