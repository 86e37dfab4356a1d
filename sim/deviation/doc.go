// Package deviation reproduces the re-projection experiment of Lehericey,
// Gouranton and Arnaldi, "Ray-Traced Collision Detection: Interpenetration
// Control and Multi-GPU Performance" (JVRC 2013), §5.4 and Table 1, a test
// proposed by Hermann et al. (2008) for their force weighting.
//
// A shape interpenetrates the ground, whose reaction should be orthogonal
// to it. Each shape is tested in Config.Orientations orientations and at
// Config.Depths interpenetration depths. Each case is one standard
// detection (narrow.MethodStandard on the CPU backend) per response mode:
//
//   - narrow.ResponseRay: the raw rays of Hermann et al., the paper's
//     "Standard" row;
//   - narrow.ResponseWeighted: the weighted rays, the paper's "Weighting
//     [HFR*08]" row (irtcd's reading of that weighting: depth × cos(ray,
//     normal), see narrow.ResponseWeighted);
//   - narrow.ResponseMTD: the re-projection of §3.2, the paper's
//     "Re-projection" row.
//
// # The set-up
//
// The ground is a box whose top face is the plane z = 0, with outward
// normal n = +z; it reaches 4 × the shape's Radius beyond the origin in x
// and y and as deep below, so its corners never come near the shape. In
// orientation q, with m the lowest z of its rotated vertices, the shape is
// placed at (0, 0, -m - d): its lowest vertex is at depth d below the plane. Orientations are uniformly distributed random
// rotations (Shoemake's method) drawn from a PCG generator seeded with
// Config.Seed (see Orientations). Depths are evenly spaced,
// d_k = (k+1)/Depths × MaxDepth × Size for k = 0..Depths-1, where Size is
// half the diagonal of the shape's bounding box (narrow.Shape.Size): with
// the defaults (20 depths, MaxDepth 0.2) from 1 % to 20 % of Size. The
// paper does not give its depths; these are ours.
//
// # The measures
//
// Each contact is a penalty force of stiffness 1 on the shape: Depth·Dir
// for contacts from the shape's vertices (Dir separates the From body) and
// -Depth·Dir for contacts from the ground's. Their sum F is split into its
// normal part Fn = F·n and tangential part Ft = |F - Fn n|.
//
// The paper's deviation (Table 1) is "the ratio of the tangential and
// normal forces", in percent, averaged over orientations and depths:
// Row.TangentialPct is the mean over the cases of 100·Ft/Fn. In theory it
// is zero. Row.AngleDeg is the mean of atan(Ft/Fn), the same in degrees.
//
// The exact reaction of the plane on a vertex at depth h below it, for the
// same penalty model, is h·n; the paper does not compare magnitudes, but
// this package does. Row.NormalPct is the mean of 100·|Fn - E|/E, where E
// is the sum of the exact depths of the vertices that have a contact: the
// error of the response itself. Row.NormalAllPct compares with the sum
// over every vertex below the plane instead, and Row.MissedPct is the mean
// share of that sum that comes from vertices without a contact (their
// rays left the shape before reaching the plane, Hermann's own-body rule):
// a property of the detection, the same in every mode.
//
// Cases without any normal force (no contact) are counted in Row.Empty and
// left out of the means. The output does not depend on Config.Workers; it
// does depend on the detection parameters (Config.Params, irtcd's defaults
// when zero), which decide which rays count as contacts.
//
// The full experiment, with the published numbers next to ours:
//
//	go run ./cmd/irtcd bench -only deviation -out /tmp/deviation/RESULTS.md
//
// # The shapes
//
// The paper's shapes are a 70-vertex sphere, the 453-vertex bunny and a
// 1085-vertex pig. Sphere70 builds the sphere (see SphereMesh for its
// layout); testdata/bunny.obj is the paper's bunny; no pig is available, so
// testdata/teddy.obj (1598 vertices) and testdata/duck.obj (2108) stand in
// for it (see PaperShapes). PaperRows holds the published numbers.
package deviation
