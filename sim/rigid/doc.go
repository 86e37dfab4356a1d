// Package rigid is a compact 3D rigid-body world in pure Go whose narrow
// phase is irtcd: a broad phase produces the step's pairs, one
// adapter.Batch (the engine-neutral glue the box2d adapter uses too) turns
// them into a single narrow.Backend.Detect call, and a sequential-impulse
// solver consumes the contacts (P, pd, d) through the backend's reduced
// manifolds. It exists to run the papers' 3D scenes (package
// sim/scene3d); it is small, deterministic and allocation-free in steady
// state, not a general-purpose engine (no joints; continuous collision
// detection only as motion cut back to a time of impact,
// Config.CCDMotion). Bodies are static, kinematic (BodyDef.Kinematic) or
// dynamic, and come and go between steps (AddBody, RemoveBody). Static and
// kinematic bodies may be sensors (BodyDef.Sensor): trigger volumes that
// touch nothing and report the bodies that overlap them, by the exact
// overlap test narrow.Overlap (World.SensorEvents, World.SensorOverlaps).
// World.ContactEvents reports the pairs that begin and cease to touch
// (sleeping pairs keep touching), and World.ContactPoints the impulses.
// World.SaveState and World.RestoreState roll the world back, its narrow
// phase's temporal state included, so that the steps after a restore are
// those after the save, bit for bit; State.AppendEncoded and State.Decode
// carry a saved state to a late-joining peer.
//
// # A step
//
// World.Step advances by the fixed time step Config.Dt (1/60 s):
//
//  1. Broad phase: sweep-and-prune on x over the bodies' world boxes
//     (narrow.AABB.Transformed of the shape's bounds), each dynamic box
//     grown by MarginFactor × its shape's Size plus the distance its speed
//     covers in a step. Pairs with no awake dynamic body (static-static,
//     static-sleeping, sleeping-sleeping) are skipped, and so are those
//     that BodyDef.Group or World.SetPairFilter rule out. Pairs of a
//     sensor and a dynamic or kinematic body are tested with
//     narrow.Overlap instead, asleep or not, and their changes since the
//     last step become SensorEvents. Pairs are sorted by
//     ID, PairID(a, b) = lo<<32 | hi, a stable function of the two body
//     IDs under which the backend keeps the pair's iterative state.
//  2. Narrow phase: every pair goes into one adapter.Batch at the poses of
//     the start of the step; Batch.Run is the step's only Detect call.
//     Shapes are registered once (AddBody registers a shape the first time
//     it sees it; RemoveBody releases it when its last body goes). Body
//     IDs are never reused, so a pair ID never names two pairs: a removed
//     body's pairs leave the batch and their states are dropped.
//  3. Waking: a pair with a contact between an awake body and a sleeping
//     one wakes the sleeping body's island (every body that fell asleep
//     with it). Woken bodies stay still, as if static, until the end of
//     the step (their pairs with other sleeping or static bodies were not
//     detected this step) and move from the next one.
//  4. Velocities: gravity and damping; then the contact solver. Before
//     it, the function World.SetPreSolve sets (if any) sees each pair's
//     solver points and may disable them or the pair, or change its
//     friction, restitution and surface velocity: one-way platforms,
//     conveyor belts, per-pair materials.
//  5. Positions: semi-implicit Euler, the centre of mass by Dt·(v + split
//     pseudo-velocity), the orientation by q ← normalise(q + ½·Dt·(0, ω)·q).
//     A body's pose is its shape's local origin (narrow.Pose, as the
//     narrow phase takes it); the world keeps the centre of mass, from
//     Shape.MassProps, and derives the pose as com − R·centroid. With
//     Config.CCDMotion, the pairs without contact that moved far are swept
//     (narrow.Sweep) and their bodies' motions cut back to the time of
//     impact.
//  6. Sleeping: islands by union-find over the step's contacts between
//     dynamic bodies (static bodies do not link islands); an island falls
//     asleep, velocities zeroed, when every body in it has been under
//     LinearSleep and AngularSleep for TimeToSleep (0.5 s).
//
// # From irtcd contacts to solver points
//
// A narrow.Contact comes from vertex Vertex of body From of the pair; P is
// that vertex, inside (or on) the other body, and moving the From body by
// Depth·Dir brings P onto the other body's surface. The world makes body
// A of every pair the one with the lower ID, so narrow.Manifold.Normal,
// which points from B towards A, is the solver's normal n, and an impulse
// +λ·n acts on A and −λ·n on B. For each point of each manifold (the
// backend's reduction, 4 points per manifold by default; concave pairs give
// several manifolds, one per normal cluster) the solver uses
//
//   - the normal n of the manifold (so that the points of one manifold
//     share a friction frame), not the point's own direction;
//   - the depth along n: Depth · (NormalA · n), at least 0;
//   - the point where impulses act: P + ½·Depth·Dir, the midpoint between
//     the vertex and its re-projection on the other body's surface, so
//     that both bodies see the contact at the same place whichever of them
//     the vertex belongs to.
//
// # The solver
//
// Sequential impulses after Catto (GDC 2005-2009, Box2D): every point has
// a normal row and two tangent rows, with accumulated impulses clamped as
// a whole (λn ≥ 0; the friction impulse inside the disc of radius μ·λn, a
// round cone, so sliding starts at tan θ = μ whatever the tangents' axes).
// Friction is √(μa·μb), restitution max(ea, eb), applied as a target
// normal velocity −e·vn when the approach speed vn measured before the
// iterations exceeds RestitutionThreshold. Warm starting carries each
// point's normal and friction impulses to the next step when the point
// reappears: points are keyed by (pair ID, From, Vertex), which irtcd
// keeps stable from step to step, and matched by a merge of two sorted
// lists. Penetration is removed by split impulses (Bullet's and Box2D's
// "pseudo-velocities"): PositionIterations sweeps of the normal rows on
// velocities that start from zero each step, with the target
// CorrectionRate/Dt × (depth − Slop) capped at MaxCorrectionVelocity
// (concave shapes can meet deeply after an impact, and pushing them apart
// in one step would throw them), which move the bodies but are then
// forgotten, so position correction adds no kinetic energy. Contacts
// deeper than DeepPenetration may take a stronger rate, DeepCorrectionRate
// (off by default; Bullet's erp2 is 0.8).
//
// # Speculative contacts
//
// With narrow.Params.Speculative (on in DefaultConfig) the backend also
// returns predictions as speculative contacts: Depth < 0 is minus a gap
// between a vertex outside the other body and the surface its opposite ray
// enters. Such a point's normal row has the target velocity −gap/Dt (the
// gap may close within the step, not overshoot), no restitution and no
// position correction; its friction is bounded by its normal impulse, so
// it exerts none until it closes. A speculative point reaches the solver
// only if its gap could close within the step (under its approach speed
// times Dt plus SpeculativeMargin); it links islands only once it pushes,
// and wakes no one (a sleeping body holds still against it like a static
// one, and the contact that follows wakes it). Bodies then stop at
// surfaces instead of sinking in by up to a step's travel.
//
// # Determinism
//
// The same bodies added in the same order with the same configuration give
// bit-identical trajectories whatever GOMAXPROCS and the backend's number
// of workers: the CPU backend's output does not depend on scheduling, and
// every loop here runs in a fixed order (bodies by ID, pairs by ID, points
// by key; no map is iterated). Across machines, the builds must not fuse
// multiply-adds (narrow.FusesMultiplyAdd; arm64 and amd64 at GOAMD64=v3
// fuse by default): built with -gcflags=all=-d=fmahash=n, amd64, arm64
// and WebAssembly give the same trajectories (docs/DESIGN.md,
// "Determinism across machines").
//
// # Costs and errors
//
// Once its buffers have grown, a step allocates nothing. Bad input is
// reported, never a panic: AddBody returns a *BodyError naming the body
// (ErrNilShape, ErrNotMesh, ErrBadPose, ErrBadDensity, ErrBadMaterial,
// ErrBadVelocity, ErrBadMass, ErrBadKind); the setters and RemoveBody return one
// wrapping ErrUnknownBody or ErrRemovedBody for an ID they cannot use;
// Step returns ctx's error, a *PairError for a pair the backend rejected
// or a *BodyError wrapping ErrDiverged, and then leaves the world as it
// was (World.Step says what the narrow phase keeps).
package rigid
