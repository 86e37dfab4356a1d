package narrow

import (
	"cmp"
	"context"
	"time"

	"github.com/go-gl/mathgl/mgl64"
)

// Side names a body of a pair.
type Side uint8

// The two sides of a pair.
const (
	SideA Side = iota
	SideB
)

// String returns "a" or "b".
func (s Side) String() string {
	if s == SideA {
		return "a"
	}
	return "b"
}

// Other returns the opposite side.
func (s Side) Other() Side { return 1 - s }

// Contact is one contact point of a pair: the contact convention of irtcd,
// used unchanged by every package, backend and adapter.
//
// A contact comes from one vertex of one body (From, Vertex) whose ray hit
// primitive Prim of the other body. P is the world position of that vertex,
// which lies inside (or on) the other body. Dir is a unit world vector and
// Depth ≥ 0 a distance such that translating the From body by Depth·Dir
// brings P onto the other body's surface: it separates the pair at P.
// With MTD re-projection (the default) Dir is the outward normal of the hit
// primitive and Depth = r·n (Lehericey et al. 2013b, §3.2, Eq. 2).
//
// Dir therefore points out of the other body, towards the From body. Use
// NormalA for a per-pair direction: it points from B towards A.
//
// The comparison response ResponseWeighted deliberately scales Depth by a
// weight in [0, 1] (a force weighting, not a distance); for it, Depth·Dir
// only moves P towards the surface.
//
// Speculative contacts (Params.Speculative) have Depth < 0: P lies outside
// the other body, and translating the From body by Depth·Dir (|Depth|
// against Dir) brings P onto the surface its opposite ray enters (with MTD
// re-projection, onto the plane of that primitive): the same rule with a
// negative depth. Prim is the primitive entered. A solver may let such a
// gap close but not overshoot; one that does not know them must skip them
// (Contact.Speculative).
//
// Feature is FeatureVertex for all of the above. An edge-on-edge contact
// (FeatureEdge, Params.EdgeAngle) follows the same rule: P is the point of
// edge Vertex of the From body deepest inside the other body, below its
// edge Prim (or, speculative, nearest to it, above it), and Depth·Dir
// brings P onto that edge (Direction.AppendEdgeContacts). So does an
// edge-through-face contact (FeatureEdgeFace, Params.EdgeFaces): P is the
// middle of the part of edge Vertex of the From body inside the other
// body, which it enters through primitive Prim, and Depth·Dir brings P to
// the nearest point of that body's surface
// (Direction.AppendEdgeFaceContacts).
type Contact struct {
	P       mgl64.Vec3
	Depth   float64
	Dir     mgl64.Vec3
	From    Side
	Feature Feature
	Vertex  int32
	Prim    int32
}

// CompareContacts orders contacts as PairResult.Contacts lists them:
// vertex contacts first, by From then Vertex, then edge-on-edge contacts
// by From, Vertex and Prim, then edge-through-face contacts by From,
// Vertex (the edge) and Prim (the primitive it enters). It returns 0 for
// two contacts of the same ray (vertex), the same two edges or the same
// edge through the same primitive, whatever their depths.
func CompareContacts(a, b *Contact) int {
	switch {
	case a.Feature != b.Feature:
		return cmp.Compare(a.Feature, b.Feature)
	case a.From != b.From:
		return cmp.Compare(a.From, b.From)
	case a.Vertex != b.Vertex:
		return cmp.Compare(a.Vertex, b.Vertex)
	case a.Feature != FeatureVertex:
		return cmp.Compare(a.Prim, b.Prim)
	}
	return 0
}

// Speculative reports whether c is a speculative contact (Depth < 0): a gap,
// not a penetration.
func (c *Contact) Speculative() bool { return c.Depth < 0 }

// NormalA returns the direction that separates A from B at this contact
// (pointing from B towards A): Dir for contacts from A, -Dir for those from B.
func (c *Contact) NormalA() mgl64.Vec3 {
	if c.From == SideA {
		return c.Dir
	}
	return c.Dir.Mul(-1)
}

// Manifold is a reduced set of contacts of one pair that share a normal
// (one cluster of similar NormalA directions). Normal points from B
// towards A: moving A along it separates the pair. Points holds the deepest
// contact first, then the ones that spread the manifold widest. A manifold
// holds contacts only or speculative contacts only (Contact.Speculative),
// and a pair's manifolds of contacts come before those of speculative
// ones.
type Manifold struct {
	Normal mgl64.Vec3
	Points []Contact
}

// ShapeID identifies a shape registered with a Backend.
type ShapeID int32

// Pair is one broad-phase pair for a step. ID identifies the pair across
// steps (its temporal state for the iterative algorithm is keyed by it); a
// pair absent from a step's batch loses its state.
type Pair struct {
	ID           uint64
	A, B         ShapeID
	PoseA, PoseB Pose
}

// PairResult is the outcome for one pair of a batch, in the batch's order.
// Vertex contacts are sorted by From (A first) then Vertex; the
// edge-on-edge contacts (Params.EdgeAngle) follow, by Vertex then Prim. The slices alias
// storage owned by the Result and stay valid until it is reused.
type PairResult struct {
	ID        uint64
	Contacts  []Contact
	Manifolds []Manifold
	// Iterative: no standard step this step; the pair was updated by
	// the iterative algorithm, or skipped as clear of contact (its
	// clearance held: a standard step would have found nothing).
	Iterative bool
	Err       error // *PairError for a pair that could not be processed
}

// Touching returns the pair's manifolds of contacts, without those of
// speculative contacts (Params.Speculative), which follow them.
func (r *PairResult) Touching() []Manifold {
	ms := r.Manifolds
	for len(ms) > 0 && len(ms[len(ms)-1].Points) > 0 && ms[len(ms)-1].Points[0].Speculative() {
		ms = ms[:len(ms)-1]
	}
	return ms
}

// Stats counts the work of one Detect call.
type Stats struct {
	Pairs            int // pairs in the batch
	StandardPairs    int // pairs processed with the standard algorithm
	IterativePairs   int // pairs updated with the iterative algorithm
	FailedPairs      int // pairs rejected with an error
	StandardRays     int // Hermann rays cast by standard steps
	OcclusionRays    int // own-body "leaves its own shape first" checks of hits from inside (lookups of a precomputed exit distance, not rays; standard rays without prediction are clipped at that distance, so most never need one)
	PredictiveRays   int // opposite rays sharing a standard traversal
	IterativeRays    int // rays updated by iterative walks
	IterativeSteps   int // primitives visited by iterative walks
	LostRays         int // iterative rays that found nothing within maxIt
	Predictions      int // predictions kept for the next step
	Contacts         int // contacts returned, speculative ones aside
	Speculative      int // speculative contacts returned (Params.Speculative)
	EdgeContacts     int // edge-on-edge contacts among Contacts (Params.EdgeAngle; speculative ones count in Speculative)
	EdgeFaceContacts int // edge-through-face contacts among Contacts (Params.EdgeFaces)
}

// Add accumulates o into s.
func (s *Stats) Add(o *Stats) {
	s.Pairs += o.Pairs
	s.StandardPairs += o.StandardPairs
	s.IterativePairs += o.IterativePairs
	s.FailedPairs += o.FailedPairs
	s.StandardRays += o.StandardRays
	s.OcclusionRays += o.OcclusionRays
	s.PredictiveRays += o.PredictiveRays
	s.IterativeRays += o.IterativeRays
	s.IterativeSteps += o.IterativeSteps
	s.LostRays += o.LostRays
	s.Predictions += o.Predictions
	s.Contacts += o.Contacts
	s.Speculative += o.Speculative
	s.EdgeContacts += o.EdgeContacts
	s.EdgeFaceContacts += o.EdgeFaceContacts
}

// Rays returns the number of rays cast of every kind (own-body checks are
// lookups, not rays, and do not count).
func (s *Stats) Rays() int {
	return s.StandardRays + s.PredictiveRays + s.IterativeRays
}

// Result receives the output of Backend.Detect. Reuse one Result across
// steps: its storage is recycled, so steady-state steps allocate nothing.
type Result struct {
	Pairs []PairResult
	Stats Stats

	contacts  []Contact
	points    []Contact
	manifolds []Manifold
}

// Reset empties r, keeping its storage.
func (r *Result) Reset() {
	clear(r.Pairs)
	r.Pairs = r.Pairs[:0]
	r.Stats = Stats{}
	r.contacts = r.contacts[:0]
	r.points = r.points[:0]
	r.manifolds = r.manifolds[:0]
}

// Alloc readies r for a batch whose output sizes are known in advance (a
// decoder of a backend's packed output, for example): it resets r, sets
// r.Pairs to n zero PairResults, and returns r's storage for nc contacts,
// nm manifolds and np manifold points. Their contents are unspecified:
// the caller fills every element, and slices them into
// r.Pairs[i].Contacts, r.Pairs[i].Manifolds and the manifolds' Points
// (with full slice expressions, s[i:j:j], as Append does). It allocates
// only when r's storage is too small; the slices stay valid until the
// next Reset or Alloc.
func (r *Result) Alloc(n, nc, nm, np int) (contacts []Contact, manifolds []Manifold, points []Contact) {
	r.Reset() // also leaves every PairResult of r.Pairs' array zero
	r.Pairs = resize(r.Pairs, n)
	r.contacts = resize(r.contacts, nc)
	r.manifolds = resize(r.manifolds, nm)
	r.points = resize(r.points, np)
	return r.contacts, r.manifolds, r.points
}

// resize returns s with length n, reusing its array when it is large
// enough (a new array is zero).
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// Append adds one pair's outcome, copying its contacts and manifolds into
// r's storage. Slices handed out earlier stay valid (they keep the array
// they were made from) until the next Reset.
func (r *Result) Append(id uint64, contacts []Contact, manifolds []Manifold, iterative bool, err error) {
	c0 := len(r.contacts)
	r.contacts = append(r.contacts, contacts...)
	m0 := len(r.manifolds)
	for _, m := range manifolds {
		p0 := len(r.points)
		r.points = append(r.points, m.Points...)
		r.manifolds = append(r.manifolds, Manifold{Normal: m.Normal, Points: r.points[p0:len(r.points):len(r.points)]})
	}
	r.Pairs = append(r.Pairs, PairResult{
		ID:        id,
		Contacts:  r.contacts[c0:len(r.contacts):len(r.contacts)],
		Manifolds: r.manifolds[m0:len(r.manifolds):len(r.manifolds)],
		Iterative: iterative,
		Err:       err,
	})
}

// Clone returns a deep copy of r. A backend reuses a Result's storage at
// the next Detect into it; a copy keeps a step's output (a history, a
// replay's reference, a comparison).
func (r *Result) Clone() *Result {
	c := &Result{Stats: r.Stats}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		c.Append(p.ID, p.Contacts, p.Manifolds, p.Iterative, p.Err)
	}
	return c
}

// A ResultWriter receives a step's outcome pair by pair, in batch order,
// with the arguments of Result.Append (the slices are valid only during
// the call). *Result is the ResultWriter that keeps them; a backend that
// can write to any ResultWriter (cpubackend.Backend.DetectTo) lets a
// caller encode its output as it comes, without building a Result first
// (package plugin writes it straight into shared memory).
type ResultWriter interface {
	Append(id uint64, contacts []Contact, manifolds []Manifold, iterative bool, err error)
}

// Backend is a narrow phase: shapes are registered once, then every step
// detects one batch of pairs. Implementations: the pure-Go CPU backend
// (package cpubackend), the GPU backend (optixbackend) and the
// out-of-process backend (plugin).
//
// Detect fills res with one PairResult per pair, in the order of pairs.
// Same input, same output, whatever the scheduling. A bad pair gets a
// *PairError in its PairResult and does not affect the others. Detect
// returns an error only when the whole step failed (for example ctx was
// cancelled); the temporal state is then left as it was before the call.
//
// UnregisterShape releases a registered shape, so that an engine whose
// bodies come and go does not make the backend grow: a pair that names the
// ID afterwards gets ErrUnknownShape, and IDs are never given again (a
// shape registered anew gets a new ID, and its pairs start afresh with a
// standard step). Releasing an ID that is not registered, or released
// already, fails with ErrUnknownShape.
type Backend interface {
	RegisterShape(s *Shape) (ShapeID, error)
	UnregisterShape(id ShapeID) error
	Detect(ctx context.Context, pairs []Pair, res *Result) error
	Close() error
}

// Reshaper is implemented by backends that let a registered shape be
// replaced, under the same ID, by a deformation of it (Shape.Deform): a
// deformable object's shape at a new time step. ReshapeShape replaces
// shape id by s, which must have the same topology (Shape.SameTopology;
// otherwise ErrBadParams, and nothing changes) and must not be the shape
// registered under id refilled in place (DeformInto into it): the backend
// measures how far the vertices moved from the shape it holds. The pairs
// that name id keep their temporal state: their next step is iterative
// only if Eq. 2's displacement plus the vertices' motion since their last
// standard step stays under the threshold (the displacement measure of Li
// & Yamaguchi's pipeline for pairs with a deformable object, §3.2.2, per
// shape rather than per vertex). An unknown or released id is
// ErrUnknownShape. A backend that can reshape only sometimes (a plugin
// whose served backend cannot) answers an error wrapping
// errors.ErrUnsupported and changes nothing; the caller then registers
// the new shape instead.
type Reshaper interface {
	ReshapeShape(id ShapeID, s *Shape) error
}

// DetectTimes splits the wall time of one Detect call into its parts.
type DetectTimes struct {
	// Prepare: validating the pairs, finding their temporal states,
	// deciding standard or iterative for each (Eq. 2 of Lehericey et al.
	// 2013), setting up the transforms and culling boxes of the
	// directions that cast rays, laying out the work.
	Prepare time.Duration
	// Rays: the ray work itself, culling and standard rays (with their
	// predictive part) or iterative walks, and the contacts they give;
	// what the papers time as "time spent on ray-tracing" on the GPU.
	Rays time.Duration
	// Batch: with a tracer on another device (cpubackend.Tracer), the
	// part of Rays that the workers spent on the batch rather than on
	// work items: copying the step's ray queries into one batch and the
	// calls to the tracer. A tracer that traces while the iterative work
	// items run (cpubackend.AsyncTracer) costs here only the part of
	// its round trip that they do not cover. Zero otherwise.
	Batch time.Duration
	// Finish: gathering each pair's results, manifold reduction,
	// committing the temporal states and writing the Result.
	Finish time.Duration
}

// Timed is implemented by backends that time the parts of their Detect
// calls. LastDetectTimes returns those of the last call that returned
// without error.
type Timed interface {
	LastDetectTimes() DetectTimes
}
