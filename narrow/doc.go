// Package narrow is the core of irtcd: shapes, poses, the contact
// convention, the standard ray of ray-traced collision detection and the
// Backend interface that every narrow phase of irtcd implements.
//
// # Shapes and poses
//
// A Shape is a closed, counter-clockwise triangle mesh (NewMesh, NewBox,
// LoadOBJ, LoadSTL, LoadPLY, or LoadMesh by the file's extension, which
// also reads the formats other packages register with RegisterMeshFormat,
// such as glTF from package narrow/gltfmesh;
// NewSphere, NewCapsule, NewCylinder, NewConvexHull; NewHeightfield for
// terrain) or a simple polygon with holes (NewPolygon), checked when it
// is built (a *ShapeError names the vertex, triangle or line at fault)
// and then immutable: its vertex normals, primitive hierarchy (a binned
// SAH BVH), 26-DOP, outside distance grid and convex edges are computed
// once. A Pose places it in the world; shapes are shared by any number of
// bodies.
//
// # The contact convention
//
// Every package, backend and adapter of irtcd reports contacts as a
// Contact: a point P on the From body (one of its vertices, or a point of
// one of its edges), a depth and a unit direction such that translating
// the From body by Depth·Dir separates the pair at P. With the default
// minimum-translational-distance re-projection (Lehericey et al. 2013b,
// §3.2, Eq. 2) Dir is the outward normal of the other body's surface
// where the ray left it and Depth = r·n. Speculative contacts
// (Params.Speculative) have Depth < 0: the gap that may close. See
// Contact for the whole rule and CompareContacts for the order in which
// a PairResult lists them.
//
// # The standard ray
//
// For one direction of a pair (a Direction: the vertices of its source
// shape against its destination shape), a standard step culls the
// vertices that cannot touch the other body (Direction.InCull and
// AppendInCull: boxes, 26-DOP slabs and the outside grid, vertex block by
// block) and casts, from each vertex left, a ray along its inward normal
// (Hermann et al. 2008). A ray that leaves the other body before its own
// gives a contact; with prediction its opposite ray is traced too, within
// the culling distance (Lehericey et al. 2013b, §3.1, Eq. 1). The basic
// traversal tests every primitive, the BVH traversal descends the
// hierarchy; both return the same hits bit for bit (Shape.Trace,
// Direction.Standard). Package iterative keeps the rays from step to
// step (Lehericey et al. 2013a, Algorithms 1 and 2), package predictive
// keeps the predictions, and package reprojection turns hits into
// contacts and manifolds.
//
// # Beyond the papers
//
// Rays start at vertices, so two bodies that cross edge on edge meet no
// ray: Direction.AppendEdgeContacts tests pairs of convex edges as the
// separating-axis test does (Params.EdgeAngle), and AppendEdgePairs keeps
// the pairs to test from step to step; AppendEdgeFaceContacts traces
// convex edges through the other body for the crossings no pair of edges
// separates (Params.EdgeFaces), AppendEdgeAndFaceContacts does both with
// one choice of edges, and AppendFaceEdges keeps the edges to trace.
// Sweep traces the vertices' paths over a step for continuous collision
// detection. Shape.Nearest gives a point's distance to the surface and
// its side.
//
// # Backends
//
// A Backend (cpubackend, the default; optixbackend on an NVIDIA GPU;
// plugin, out of process) registers shapes once and then detects a batch
// of broad-phase pairs per step (Backend.Detect), keeping each pair's
// temporal state between steps. Params chooses the method (standard,
// iterative, iterative + predictive), the traversal, the response and
// their constants; Resolve fills in the defaults for a pair of shapes.
// The same input gives the same contacts in the same order whatever the
// backend or the number of threads; across machines, whatever the
// architecture too, for builds that do not fuse multiply-adds (see
// FusesMultiplyAdd).
package narrow
