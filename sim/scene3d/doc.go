// Package scene3d runs the 3D scenes of the IRTCD papers on the rigid-body
// world of package sim/rigid, whose narrow phase is irtcd, and records per
// step what the narrow phase cost and how exact it was.
//
// # Scenes
//
//   - avalanche: 512 bunnies (453 vertices, 902 triangles) in an 8×8×8
//     grid with random orientations fall onto the ground, 600 steps
//     (Lehericey et al. 2013, scene 1; about 7,000 narrow-phase pairs once
//     they have landed);
//   - spawner: bunny, torus, teddy and duck in turn, scaled to one size,
//     added at 10 Hz from a source circling above a walled container, up to
//     500 objects, 3000 steps (scene 2);
//   - tori100: 100 tori and 100 bunnies fall onto the ground (the rigid
//     scenes of Li & Yamaguchi).
//
// Every scene takes a number of objects N (Params.N), so that small
// versions run in tests, and a seed. Meshes are read from testdata/ of the
// repository (FindMeshDir; Params.MeshDir overrides), centred on their
// bounding box and cached. Units are metres, kilograms (density 1000) and
// seconds, gravity 9.81 m/s² along −y, the ground's top at y = 0.
//
// # Running
//
// Run (or New and Sim.Step) builds a scene into a fresh rigid.World and
// steps it; the result is a Trace with one StepMetrics per step and a
// Summary. Sim.Instances lists every body's shape, pose and static flag
// for a renderer; Setup.Camera is a viewpoint hint.
//
// StepMetrics holds the narrow phase's time (measured around
// adapter.Batch.Run, i.e. Backend.Detect), rays by kind and pairs standard
// or iterative (narrow.Stats), contacts and the sum and maximum of their
// depths, and the physical state: fastest body, kinetic energy, awake
// bodies, lowest centre of mass above the floor.
//
// # Reference metrics
//
// With Options.Reference, every step's pairs are detected a second time,
// at the same poses, by a CPU backend with narrow.MethodStandard (Hermann
// et al.'s algorithm, exact up to its own definition), and the variant is
// compared with it contact by contact (RayDiff). A ray is one (pair, side,
// vertex); the rays compared are those with a contact in either run (a ray
// that finds nothing in both agrees, and backends report only contacts); a
// compared ray is erroneous when it is a contact of one run only, or of
// both with depths differing by more than DepthTol (1e-6) × the smaller
// shape size of the pair, or on different primitives in different
// directions (see RayDiff). A pair is wrongly detected
// when it is in contact (at least one contact) in one run only. The
// reference's cumulative ray length — the sum of its contact depths — is
// the step's total interpenetration, the measure of Lehericey et al.
// (2013b, §5.2); the reference runs outside the narrow-phase timing. Its
// depths follow the variant's response (r·n under MTD re-projection)
// unless Options.RefRawRays makes it measure raw ray lengths |r|, the
// paper's measure, whatever the variant's response; the comparison then
// rewrites the reference's contacts in the variant's response first.
//
// # Phases
//
// Summary splits a trace into the three phases of the avalanche (2013,
// §4.3), defined on the trace itself: A (free fall) until the first step
// with a contact, C (rest) from the first step after the kinetic energy's
// peak at which it is at most 5 % of that peak, B (impacts) in between.
//
// Runs are deterministic: the same scene, N, seed and parameters give
// bit-identical trajectories whatever GOMAXPROCS and the number of workers.
//
// # Pictures
//
// A Painter draws a Sim as its scene's camera sees it (package view3d),
// each mesh in its own colour; Painter.Snapshot records a frame to draw
// later or on another goroutine, and Palette is the palette for GIF
// frames of its pictures (`irtcd demo3d` uses all three).
package scene3d
