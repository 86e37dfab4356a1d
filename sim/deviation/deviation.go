package deviation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// DefaultMaxDepth is the deepest interpenetration, as a fraction of the
// shape's Size, when Config.MaxDepth is zero.
const DefaultMaxDepth = 0.2

// Config sets up a run. Orientations and Depths must be at least 1; the
// other zero fields take defaults.
type Config struct {
	// Orientations is the number of orientations per shape (paper: 400).
	Orientations int
	// Depths is the number of interpenetration depths per orientation
	// (paper: 20).
	Depths int
	// MaxDepth is the deepest interpenetration as a fraction of the shape's
	// Size (half its bounding-box diagonal), in (0, 1]. Depths are evenly
	// spaced from MaxDepth/Depths to MaxDepth. Zero: DefaultMaxDepth.
	MaxDepth float64
	// Seed seeds the orientations (see Orientations). Any value is valid.
	Seed uint64
	// Workers is the number of CPU backend workers; 0: GOMAXPROCS. The
	// results do not depend on it.
	Workers int
	// Modes are the responses compared, in the order of the rows of each
	// shape. Nil: ray, weighted, mtd (the paper's row order).
	Modes []narrow.Response
	// Params are the backend parameters; Method (always standard) and
	// Response (per mode) are overridden. The zero value takes irtcd's
	// defaults.
	Params narrow.Params
}

// DefaultConfig is the paper's experiment: 400 orientations × 20 depths,
// every mode.
func DefaultConfig() Config {
	return Config{Orientations: 400, Depths: 20, MaxDepth: DefaultMaxDepth, Seed: 1}
}

// AllModes are the responses in the order of the paper's Table 1 rows.
var AllModes = []narrow.Response{narrow.ResponseRay, narrow.ResponseWeighted, narrow.ResponseMTD}

// ErrBadConfig is wrapped by every *ConfigError.
var ErrBadConfig = errors.New("invalid deviation config")

// ConfigError reports a Config field or a Shape that cannot be run.
type ConfigError struct {
	Field  string // "Orientations", "MaxDepth", "Shapes[2]", ...
	Value  string // the offending value, as text
	Reason string
	Err    error // an underlying error (e.g. from narrow.Params.Validate), or nil
}

// Error implements error.
func (e *ConfigError) Error() string {
	return fmt.Sprintf("%v: %s = %s: %s", ErrBadConfig, e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrBadConfig and the underlying error, if any.
func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrBadConfig, e.Err}
	}
	return []error{ErrBadConfig}
}

// resolve validates c and fills in its defaults.
func (c Config) resolve() (Config, error) {
	bad := func(field string, v any, reason string) (Config, error) {
		return Config{}, &ConfigError{Field: field, Value: fmt.Sprint(v), Reason: reason}
	}
	switch {
	case c.Orientations < 1:
		return bad("Orientations", c.Orientations, "must be at least 1")
	case c.Depths < 1:
		return bad("Depths", c.Depths, "must be at least 1")
	case math.IsNaN(c.MaxDepth) || math.IsInf(c.MaxDepth, 0) || c.MaxDepth < 0 || c.MaxDepth > 1:
		return bad("MaxDepth", c.MaxDepth, "must be a fraction of the shape's size in (0, 1], or 0 for the default")
	case c.Workers < 0:
		return bad("Workers", c.Workers, "must be at least 0")
	}
	if c.MaxDepth == 0 {
		c.MaxDepth = DefaultMaxDepth
	}
	if c.Modes == nil {
		c.Modes = AllModes
	}
	if len(c.Modes) == 0 {
		return bad("Modes", "[]", "no response mode to compare")
	}
	for i, m := range c.Modes {
		if m != narrow.ResponseRay && m != narrow.ResponseWeighted && m != narrow.ResponseMTD {
			return bad("Modes["+strconv.Itoa(i)+"]", int(m), "unknown response")
		}
	}
	c.Modes = append([]narrow.Response(nil), c.Modes...)
	c.Params.Method = narrow.MethodStandard
	if err := c.Params.Validate(); err != nil {
		return Config{}, &ConfigError{Field: "Params", Value: fmt.Sprintf("%+v", c.Params), Reason: err.Error(), Err: err}
	}
	return c, nil
}

// Shape is one shape of a run.
type Shape struct {
	Name string
	Mesh *narrow.Shape
	// Paper names the column of the paper's Table 1 this shape stands for
	// ("sphere", "bunny" or "pig"; see PaperRows), or is empty.
	Paper string
}

// Row is the outcome for one shape and one response mode. Means are over
// the cases (orientation × depth) that have a normal force.
type Row struct {
	Shape    string
	Paper    string // Shape.Paper
	Vertices int
	Mode     narrow.Response
	Cases    int // orientations × depths
	Empty    int // cases without contact (no normal force), left out of the means

	// TangentialPct is the paper's deviation: the mean of 100·Ft/Fn, the
	// ratio of the tangential and normal parts of the penalty force.
	TangentialPct float64
	// TangentialMaxPct is the largest 100·Ft/Fn of a case.
	TangentialMaxPct float64
	// AngleDeg is the mean angle between the penalty force and the ground
	// normal, atan(Ft/Fn), in degrees.
	AngleDeg float64
	// NormalPct is the mean of 100·|Fn - E|/E, E being the sum of the exact
	// depths below the plane of the vertices that have a contact.
	NormalPct float64
	// NormalAllPct is NormalPct with E summed over every vertex below the
	// plane, contact or not.
	NormalAllPct float64
	// MissedPct is the mean share, in percent, of the exact force of the
	// vertices below the plane that comes from vertices without a contact.
	MissedPct float64
	// Contacts is the mean number of contacts per case.
	Contacts float64
}

// Orientations returns n rotations distributed uniformly over SO(3)
// (Shoemake's subgroup algorithm), drawn from math/rand/v2's PCG seeded
// with (seed, 0x6972746364): the same n and seed give the same rotations,
// and the first k of n are those of k.
func Orientations(n int, seed uint64) []mgl64.Quat {
	rng := rand.New(rand.NewPCG(seed, 0x6972746364))
	qs := make([]mgl64.Quat, n)
	for i := range qs {
		u1, u2, u3 := rng.Float64(), rng.Float64(), rng.Float64()
		a, b := math.Sqrt(1-u1), math.Sqrt(u1)
		s2, c2 := math.Sincos(2 * math.Pi * u2)
		s3, c3 := math.Sincos(2 * math.Pi * u3)
		qs[i] = mgl64.Quat{W: b * c3, V: mgl64.Vec3{a * s2, a * c2, b * s3}}
	}
	return qs
}

// DepthsFor returns the interpenetration depths of cfg for shape s:
// (k+1)/Depths × MaxDepth × s.Size() for k = 0..Depths-1 (MaxDepth 0 is
// DefaultMaxDepth).
func DepthsFor(cfg Config, s *narrow.Shape) []float64 {
	md := cfg.MaxDepth
	if md == 0 {
		md = DefaultMaxDepth
	}
	d := make([]float64, max(cfg.Depths, 0))
	for k := range d {
		d[k] = float64(k+1) / float64(cfg.Depths) * md * s.Size()
	}
	return d
}

// Ground returns the ground used against s: the box [-L, L]² × [-L, 0]
// with L = 4 × s.Radius(), whose top face is the plane z = 0.
func Ground(s *narrow.Shape) (*narrow.Shape, error) {
	l := 4 * s.Radius()
	return narrow.NewBox(mgl64.Vec3{-l, -l, -l}, mgl64.Vec3{l, l, 0})
}

// Place returns the pose of s rotated by q (normalised) whose lowest vertex
// lies depth below the plane z = 0, at x = y = 0.
func Place(s *narrow.Shape, q mgl64.Quat, depth float64) (narrow.Pose, error) {
	p, err := narrow.NewPose(mgl64.Vec3{}, q)
	if err != nil {
		return narrow.Pose{}, err
	}
	t := p.Transform()
	low := math.Inf(1)
	for i := range s.NumVertices() {
		v := s.Vertex(i)
		low = min(low, t.R[6]*v[0]+t.R[7]*v[1]+t.R[8]*v[2])
	}
	p.Pos = mgl64.Vec3{0, 0, -low - depth}
	return p, nil
}

// batchPairs is about the number of pairs per Detect call.
const batchPairs = 512

// acc accumulates the cases of one row, in case order.
type acc struct {
	empty              int
	nT                 int
	sumT, maxT, sumAng float64
	nN                 int
	sumN               float64
	nAll               int
	sumAll, sumMiss    float64
	contacts           int
}

// Run runs the experiment of cfg on shapes and returns one row per shape
// and mode, shapes in order, modes in cfg.Modes order. onProgress, if not
// nil, is called from Run's goroutine after every batch with the number of
// (shape, mode, orientation, depth) cases done and the total. A cancelled
// ctx stops the run with ctx's error.
func Run(ctx context.Context, cfg Config, shapes []Shape, onProgress func(done, total int)) ([]Row, error) {
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if len(shapes) == 0 {
		return nil, &ConfigError{Field: "Shapes", Value: "[]", Reason: "no shape to test"}
	}
	for i, s := range shapes {
		field := "Shapes[" + strconv.Itoa(i) + "]"
		switch {
		case s.Mesh == nil:
			return nil, &ConfigError{Field: field, Value: strconv.Quote(s.Name), Reason: "nil mesh"}
		case s.Mesh.Dim() != narrow.Dim3:
			return nil, &ConfigError{Field: field, Value: strconv.Quote(s.Name), Reason: "not a 3D mesh"}
		}
	}
	total := len(shapes) * len(cfg.Modes) * cfg.Orientations * cfg.Depths
	done := 0
	progress := func(n int) {
		done += n
		if onProgress != nil {
			onProgress(done, total)
		}
	}
	quats := Orientations(cfg.Orientations, cfg.Seed)
	rows := make([]Row, 0, len(shapes)*len(cfg.Modes))
	for _, s := range shapes {
		r, err := runShape(ctx, &cfg, s, quats, progress)
		if err != nil {
			return nil, fmt.Errorf("deviation: shape %q: %w", s.Name, err)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// runShape runs every case of one shape, all modes.
func runShape(ctx context.Context, cfg *Config, s Shape, quats []mgl64.Quat, progress func(int)) ([]Row, error) {
	ground, err := Ground(s.Mesh)
	if err != nil {
		return nil, err
	}
	depths := DepthsFor(*cfg, s.Mesh)
	nm := len(cfg.Modes)
	backends := make([]*cpubackend.Backend, nm)
	defer func() {
		for _, b := range backends {
			if b != nil {
				b.Close()
			}
		}
	}()
	var opts []cpubackend.Option
	if cfg.Workers > 0 {
		opts = append(opts, cpubackend.WithWorkers(cfg.Workers))
	}
	var ids [2]narrow.ShapeID
	for i, m := range cfg.Modes {
		p := cfg.Params
		p.Method, p.Response = narrow.MethodStandard, m
		b, err := cpubackend.New(p, opts...)
		if err != nil {
			return nil, err
		}
		backends[i] = b
		if ids[0], err = b.RegisterShape(s.Mesh); err != nil {
			return nil, err
		}
		if ids[1], err = b.RegisterShape(ground); err != nil {
			return nil, err
		}
	}

	nv := s.Mesh.NumVertices()
	// live marks the vertices used by a primitive: the surface.
	live := make([]bool, nv)
	for i := range nv {
		live[i] = s.Mesh.VertexNormal(i) != (mgl64.Vec3{})
	}
	per := max(1, batchPairs/len(depths))
	accs := make([]acc, nm)
	var (
		pairs    []narrow.Pair
		tfs      []narrow.Transform // per pair
		exactAll []float64          // per pair: Σ depth of the vertices below the plane
		res      narrow.Result
	)
	for o0 := 0; o0 < len(quats); o0 += per {
		o1 := min(o0+per, len(quats))
		pairs, tfs, exactAll = pairs[:0], tfs[:0], exactAll[:0]
		for o := o0; o < o1; o++ {
			for _, d := range depths {
				p, err := Place(s.Mesh, quats[o], d)
				if err != nil {
					return nil, err
				}
				t := p.Transform()
				all := 0.0
				for v := range nv {
					if live[v] {
						all += max(depthBelow(&t, s.Mesh.Vertex(v)), 0)
					}
				}
				pairs = append(pairs, narrow.Pair{ID: uint64(len(pairs)), A: ids[0], B: ids[1], PoseA: p, PoseB: narrow.Identity})
				tfs = append(tfs, t)
				exactAll = append(exactAll, all)
			}
		}
		for mi, b := range backends {
			if err := b.Detect(ctx, pairs, &res); err != nil {
				return nil, err
			}
			for pi := range res.Pairs {
				pr := &res.Pairs[pi]
				if pr.Err != nil {
					return nil, pr.Err
				}
				accs[mi].add(pr.Contacts, s.Mesh, &tfs[pi], exactAll[pi])
			}
			progress(len(pairs))
		}
	}
	rows := make([]Row, nm)
	cases := len(quats) * len(depths)
	for mi, m := range cfg.Modes {
		rows[mi] = accs[mi].row(s, m, cases)
	}
	return rows, nil
}

// depthBelow returns how far vertex v, placed by t, lies below z = 0
// (negative above), with the arithmetic of narrow.Transform.Apply.
func depthBelow(t *narrow.Transform, v mgl64.Vec3) float64 {
	return -(t.R[6]*v[0] + t.R[7]*v[1] + t.R[8]*v[2] + t.T[2])
}

// add accumulates one case: the contacts of the shape (side A) against the
// ground (side B), the shape's transform and the exact force of all its
// vertices below the plane.
func (a *acc) add(cs []narrow.Contact, s *narrow.Shape, t *narrow.Transform, exactAll float64) {
	var f mgl64.Vec3
	det := 0.0
	for i := range cs {
		c := &cs[i]
		if c.From == narrow.SideA {
			f = f.Add(c.Dir.Mul(c.Depth))
			det += max(depthBelow(t, s.Vertex(int(c.Vertex))), 0)
		} else {
			f = f.Sub(c.Dir.Mul(c.Depth))
		}
	}
	a.contacts += len(cs)
	fn, ft := f[2], math.Hypot(f[0], f[1])
	if !(fn > 0) {
		a.empty++
		return
	}
	ratio := ft / fn
	a.nT++
	a.sumT += ratio
	a.maxT = max(a.maxT, ratio)
	a.sumAng += math.Atan2(ft, fn)
	if det > 0 {
		a.nN++
		a.sumN += math.Abs(fn-det) / det
	}
	if exactAll > 0 {
		a.nAll++
		a.sumAll += math.Abs(fn-exactAll) / exactAll
		a.sumMiss += max(exactAll-det, 0) / exactAll
	}
}

// row turns the accumulated cases into a Row.
func (a *acc) row(s Shape, m narrow.Response, cases int) Row {
	mean := func(sum float64, n int) float64 {
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
	return Row{
		Shape:            s.Name,
		Paper:            s.Paper,
		Vertices:         s.Mesh.NumVertices(),
		Mode:             m,
		Cases:            cases,
		Empty:            a.empty,
		TangentialPct:    100 * mean(a.sumT, a.nT),
		TangentialMaxPct: 100 * a.maxT,
		AngleDeg:         mean(a.sumAng, a.nT) * 180 / math.Pi,
		NormalPct:        100 * mean(a.sumN, a.nN),
		NormalAllPct:     100 * mean(a.sumAll, a.nAll),
		MissedPct:        100 * mean(a.sumMiss, a.nAll),
		Contacts:         float64(a.contacts) / float64(cases),
	}
}
