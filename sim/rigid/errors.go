package rigid

import (
	"errors"
	"fmt"

	"github.com/irtcd/irtcd/narrow"
)

// Sentinel errors. Every error the package returns for bad input wraps one
// of them (and, for poses and shapes, narrow's sentinel too), so callers can
// branch with errors.Is.
var (
	// ErrNilShape: a body definition has no shape.
	ErrNilShape = errors.New("nil shape")
	// ErrNotMesh: a body's shape is a 2D polygon; the world is 3D.
	ErrNotMesh = errors.New("shape is not a 3D mesh")
	// ErrBadDensity: a dynamic body's density is not finite and positive.
	ErrBadDensity = errors.New("invalid density")
	// ErrBadMaterial: friction or restitution is negative or not finite.
	ErrBadMaterial = errors.New("invalid friction or restitution")
	// ErrBadPose: a pose has a NaN or infinite component or a zero
	// quaternion. It is narrow.ErrBadPose.
	ErrBadPose = narrow.ErrBadPose
	// ErrBadVelocity: a velocity is not finite.
	ErrBadVelocity = errors.New("invalid velocity")
	// ErrBadImpulse: an impulse or its point of application is not
	// finite, or the velocities it would give are not.
	ErrBadImpulse = errors.New("invalid impulse")
	// ErrBadMass: the shape's mass properties are unusable (e.g. a
	// singular inertia tensor).
	ErrBadMass = errors.New("invalid mass properties")
	// ErrBadRay: a ray cast's origin, direction or length is unusable.
	ErrBadRay = errors.New("invalid ray")
	// ErrBadKind: a body definition is both Static and Kinematic, or a
	// Sensor that is neither.
	ErrBadKind = errors.New("invalid kind of body")
	// ErrKinematic: an impulse was applied to a kinematic body, which
	// moves only as its velocity says.
	ErrKinematic = errors.New("body is kinematic")
	// ErrStatic: a velocity was set, or an impulse applied, on a static
	// body.
	ErrStatic = errors.New("body is static")
	// ErrUnknownBody: a BodyID that the world did not hand out.
	ErrUnknownBody = errors.New("unknown body")
	// ErrRemovedBody: a BodyID whose body was removed (World.RemoveBody).
	ErrRemovedBody = errors.New("body removed")
	// ErrDiverged: a body's position or velocity became NaN or infinite.
	ErrDiverged = errors.New("simulation diverged")
	// ErrBadConfig: a Config field out of range.
	ErrBadConfig = errors.New("invalid world configuration")
	// ErrClosed: the world was closed.
	ErrClosed = errors.New("world closed")
	// ErrNoState: World.SaveState or RestoreState on a world whose
	// narrow-phase backend cannot save its temporal state (it is not a
	// cpubackend.Stateful), or RestoreState of a State that holds none.
	ErrNoState = errors.New("no saved state")
)

// BodyError reports a problem with one body. Body is the body's ID (for
// AddBody, the ID it would have received) and Name the name given in its
// BodyDef, if any.
type BodyError struct {
	Body BodyID
	Name string
	Err  error
}

// Error implements error.
func (e *BodyError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("rigid: body %d (%q): %v", e.Body, e.Name, e.Err)
	}
	return fmt.Sprintf("rigid: body %d: %v", e.Body, e.Err)
}

// Unwrap returns the cause.
func (e *BodyError) Unwrap() error { return e.Err }

// PairError reports a pair that the narrow phase rejected (the backend's
// *narrow.PairError is wrapped). The step that met it is not applied.
type PairError struct {
	ID   uint64 // the pair's ID (PairID(A, B))
	A, B BodyID
	Err  error
}

// Error implements error.
func (e *PairError) Error() string {
	return fmt.Sprintf("rigid: pair of bodies %d and %d: %v", e.A, e.B, e.Err)
}

// Unwrap returns the cause.
func (e *PairError) Unwrap() error { return e.Err }
