package scene3d

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

// SceneParams sizes a scene.
type SceneParams struct {
	// N is the number of objects (0: the scene's DefaultN). It is the
	// scale knob: small values make the CI versions of the scenes.
	N int
	// Seed seeds the scene's random choices (PCG): orientations.
	Seed uint64
	// MeshDir is the directory holding bunny.obj, torus.obj, teddy.obj and
	// duck.obj ("": FindMeshDir's search for testdata/).
	MeshDir string
	// Meshes, if set, are mesh files, OBJ, STL or PLY (closed, oriented
	// 2-manifolds, as narrow.ParseMesh reads them), that replace the scene's own meshes,
	// used in turn wherever the scene takes its meshes in turn, centred
	// and scaled to the size of those they replace (CustomSize in the
	// avalanche and tori100, 0.6 m in the spawner). MeshDir is then not
	// needed.
	Meshes []string
}

// Camera is a rendering hint: where to look from, in world coordinates
// (y is up).
type Camera struct {
	Eye, Target, Up mgl64.Vec3
	FovY            float64 // vertical field of view, radians
}

// Setup is what a scene's Build made.
type Setup struct {
	// Bodies are the scene's dynamic bodies in creation order; BeforeStep
	// appends those it creates.
	Bodies []rigid.BodyID
	// Statics are the ground and walls.
	Statics []rigid.BodyID
	// Floor is the world y of the ground's top surface.
	Floor float64
	// Camera frames the scene.
	Camera Camera
	// BeforeStep, if set, runs before every step with the step's index
	// (from 0) and the simulated time at its start, e.g. to spawn bodies.
	BeforeStep func(step int, t float64) error
}

// Scene is a named 3D scene.
type Scene struct {
	Name string // short name, as ScenesByName and command lines take it
	Doc  string // one line: what the scene shows
	// DefaultN is the number of objects of the full-size scene.
	DefaultN int
	// StepsFor returns the number of steps (of 1/60 s) for n objects.
	StepsFor func(n int) int
	// Configure, if set, adjusts the world's configuration before Build.
	Configure func(c *rigid.Config, p SceneParams)
	// Build creates the scene's bodies in w (p.N is positive).
	Build func(w *rigid.World, p SceneParams) (*Setup, error)
}

// Steps returns the number of steps for a scene of n objects (n ≤ 0: the
// full-size scene).
func (s Scene) Steps(n int) int {
	if n <= 0 {
		n = s.DefaultN
	}
	return s.StepsFor(n)
}

// Scenes returns the 3D scenes: avalanche, spawner and tori100.
func Scenes() []Scene { return []Scene{Avalanche(), Spawner(), Tori100()} }

// ScenesByName returns the scenes keyed by name.
func ScenesByName() map[string]Scene {
	m := map[string]Scene{}
	for _, s := range Scenes() {
		m[s.Name] = s
	}
	return m
}

// SceneByName returns the named scene or an error listing the names.
func SceneByName(name string) (Scene, error) {
	m := ScenesByName()
	if s, ok := m[name]; ok {
		return s, nil
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return Scene{}, fmt.Errorf("scene3d: unknown scene %q (want one of %s)", name, strings.Join(names, ", "))
}

// rng returns the scene's deterministic random source.
func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x3d5ce9e3a1b2c4d7)) }

// randomRotation returns a uniformly distributed unit quaternion
// (Shoemake's method).
func randomRotation(r *rand.Rand) mgl64.Quat {
	u1, u2, u3 := r.Float64(), r.Float64(), r.Float64()
	a, b := math.Sqrt(1-u1), math.Sqrt(u1)
	s2, c2 := math.Sincos(2 * math.Pi * u2)
	s3, c3 := math.Sincos(2 * math.Pi * u3)
	return mgl64.Quat{W: b * c3, V: mgl64.Vec3{a * s2, a * c2, b * s3}}
}

// Surface properties of the scenes' bodies.
const (
	density     = 1000.0 // kg/m³
	friction    = 0.5
	restitution = 0.1
)

// addStatic adds a static box [lo, hi].
func addStatic(w *rigid.World, st *Setup, name string, lo, hi mgl64.Vec3) error {
	s, err := narrow.NewBox(lo, hi)
	if err != nil {
		return fmt.Errorf("scene3d: %s: %w", name, err)
	}
	d := rigid.NewBodyDef(s, narrow.Identity)
	d.Static, d.Name, d.Friction, d.Restitution = true, name, friction, restitution
	id, err := w.AddBody(d)
	if err != nil {
		return err
	}
	st.Statics = append(st.Statics, id)
	return nil
}

// addGround adds the ground: a static box of half width hw and thickness
// 1 whose top is y = 0.
func addGround(w *rigid.World, st *Setup, hw float64) error {
	return addStatic(w, st, "ground", mgl64.Vec3{-hw, -1, -hw}, mgl64.Vec3{hw, 0, hw})
}

// addDynamic adds a dynamic body of shape s at pos with rotation q.
func addDynamic(w *rigid.World, st *Setup, name string, s *narrow.Shape, pos mgl64.Vec3, q mgl64.Quat, v mgl64.Vec3) error {
	d := rigid.NewBodyDef(s, narrow.Pose{Pos: pos, Rot: q})
	d.Name, d.Density, d.Friction, d.Restitution, d.LinearVelocity = name, density, friction, restitution, v
	id, err := w.AddBody(d)
	if err != nil {
		return err
	}
	st.Bodies = append(st.Bodies, id)
	return nil
}

// gridSide returns the side of the smallest cube of cells that holds n.
func gridSide(n int) int {
	k := int(math.Cbrt(float64(n)))
	for k*k*k < n {
		k++
	}
	return max(k, 1)
}

// dropGrid places n objects, shape shapes[i%len(shapes)], in a k×k×k grid
// of cells of side cell whose lowest layer's centres are at height y0,
// centred on the y axis, each with a random orientation. It returns the
// grid's width and top.
func dropGrid(w *rigid.World, st *Setup, n int, shapes []*narrow.Shape, names []string, cell, y0 float64, r *rand.Rand) (width, top float64, err error) {
	k := gridSide(n)
	off := -0.5 * float64(k-1) * cell
	for i := 0; i < n; i++ {
		ix, iz, iy := i%k, (i/k)%k, i/(k*k)
		pos := mgl64.Vec3{off + float64(ix)*cell, y0 + float64(iy)*cell, off + float64(iz)*cell}
		j := i % len(shapes)
		if err := addDynamic(w, st, fmt.Sprintf("%s-%d", names[j], i), shapes[j], pos, randomRotation(r), mgl64.Vec3{}); err != nil {
			return 0, 0, err
		}
		top = max(top, pos[1])
	}
	return float64(k) * cell, top, nil
}

// frame returns a camera looking at a region of the given width and
// height standing on the ground.
func frame(width, height float64) Camera {
	d := math.Max(width, height)
	return Camera{
		Eye:    mgl64.Vec3{0.9 * d, 0.35*height + 0.7*d, 1.5 * d},
		Target: mgl64.Vec3{0, 0.35 * height, 0},
		Up:     mgl64.Vec3{0, 1, 0},
		FovY:   math.Pi / 4,
	}
}

// fallSteps returns the steps to fall from height h and then settle for
// settle seconds, at 60 Hz.
func fallSteps(h, settle float64) int {
	return int(math.Ceil(60 * (math.Sqrt(2*math.Max(h, 0)/9.81) + settle)))
}

// gridSteps is the StepsFor of a grid drop whose full scene has full
// objects: 600 steps (10 s) for it, and for smaller ones the steps until
// 4 s after the top layer, its cells spacing apart, would have landed
// (at most 600).
func gridSteps(full int, spacing float64) func(n int) int {
	return func(n int) int {
		if n >= full {
			return 600
		}
		return min(600, fallSteps(float64(gridSide(n))*spacing, 4))
	}
}

// Avalanche is the first scene of Lehericey et al. (2013, §4.1): 512
// bunnies (453 vertices, 902 triangles) in an 8×8×8 grid with random
// orientations fall onto a ground plane, 60 Hz for 10 s. N sets the number
// of bunnies (a ⌈∛N⌉-sided grid, filled layer by layer from the bottom);
// scenes smaller than the full one run until 4 s after the top layer would
// have landed.
func Avalanche() Scene {
	const full = 512
	return Scene{
		Name:     "avalanche",
		Doc:      "512 bunnies in a grid with random orientations fall onto the ground (Lehericey et al. 2013, scene 1)",
		DefaultN: full,
		StepsFor: gridSteps(full, 2.3),
		Build: func(w *rigid.World, p SceneParams) (*Setup, error) {
			shapes, names, err := p.meshes(CustomSize, func(dir string) ([]*narrow.Shape, []string, error) {
				bunny, err := LoadMesh(dir, MeshBunny, 0)
				return []*narrow.Shape{bunny}, []string{MeshBunny}, err
			})
			if err != nil {
				return nil, err
			}
			st := &Setup{}
			cell := 2.05 * maxRadius(shapes)
			k := gridSide(p.N)
			if err := addGround(w, st, math.Max(30, 2*float64(k)*cell)); err != nil {
				return nil, err
			}
			width, top, err := dropGrid(w, st, p.N, shapes, names, cell, 0.5+maxRadius(shapes), rng(p.Seed))
			if err != nil {
				return nil, err
			}
			st.Camera = frame(1.3*width, top)
			return st, nil
		},
	}
}

// Spawner is the second scene of Lehericey et al. (2013, §4.1): objects
// are added at 10 Hz from a source moving on a circle — bunny, torus,
// teddy and duck in turn, scaled to the same size (half bounding-box
// diagonal 0.6 m) — and fall into a walled container, up to 500 objects,
// 60 Hz for 50 s. N is the number of objects; the full scene runs 3000
// steps (the last object appears at 49.9 s), smaller ones 4 s more than
// their spawning takes.
func Spawner() Scene {
	const (
		full     = 500
		size     = 0.6  // Size of every mesh
		interval = 6    // steps between spawns (10 Hz)
		radius   = 4.0  // the source's circle
		period   = 2.0  // s per turn of the source
		height   = 8.0  // the source's height
		speed    = 3.0  // initial downward speed, m/s
		inner    = 7.0  // the container's inner half width
		wallH    = 2.5  // its walls' height
		wallT    = 0.25 // their half thickness
	)
	return Scene{
		Name:     "spawner",
		Doc:      "bunnies, tori, teddies and ducks added at 10 Hz from a source moving on a circle fall into a container (Lehericey et al. 2013, scene 2)",
		DefaultN: full,
		StepsFor: func(n int) int {
			if n >= full {
				return interval * full
			}
			return interval*n + 240
		},
		Build: func(w *rigid.World, p SceneParams) (*Setup, error) {
			shapes, names, err := p.meshes(size, func(dir string) ([]*narrow.Shape, []string, error) {
				names := []string{MeshBunny, MeshTorus, MeshTeddy, MeshDuck}
				shapes := make([]*narrow.Shape, len(names))
				for i, n := range names {
					var err error
					if shapes[i], err = LoadMesh(dir, n, size); err != nil {
						return nil, nil, err
					}
				}
				return shapes, names, nil
			})
			if err != nil {
				return nil, err
			}
			st := &Setup{}
			if err := addGround(w, st, 30); err != nil {
				return nil, err
			}
			o := inner + wallT
			walls := [4][2]mgl64.Vec3{
				{{-o - wallT, 0, -o - wallT}, {-o + wallT, wallH, o + wallT}},
				{{o - wallT, 0, -o - wallT}, {o + wallT, wallH, o + wallT}},
				{{-o + wallT, 0, -o - wallT}, {o - wallT, wallH, -o + wallT}},
				{{-o + wallT, 0, o - wallT}, {o - wallT, wallH, o + wallT}},
			}
			for i, b := range walls {
				if err := addStatic(w, st, fmt.Sprintf("wall-%d", i), b[0], b[1]); err != nil {
					return nil, err
				}
			}
			r := rng(p.Seed)
			spawned := 0
			st.BeforeStep = func(step int, t float64) error {
				if step%interval != 0 || spawned >= p.N {
					return nil
				}
				a := 2 * math.Pi * t / period
				s, c := math.Sincos(a)
				k := spawned % len(shapes)
				pos := mgl64.Vec3{radius * c, height, radius * s}
				if err := addDynamic(w, st, fmt.Sprintf("%s-%d", names[k], spawned), shapes[k], pos, randomRotation(r), mgl64.Vec3{0, -speed, 0}); err != nil {
					return err
				}
				spawned++
				return nil
			}
			st.Camera = frame(2*o+2, height)
			return st, nil
		},
	}
}

// Tori100 is the rigid scene of Li & Yamaguchi's deformable-object paper
// (100 tori of 300 vertices and 100 bunnies falling on a planar ground),
// as one scene: tori and bunnies alternate in a grid with random
// orientations, the torus scaled to the bunny's size. N is the number of
// objects (default 200, half of each); 10 s for the full scene.
func Tori100() Scene {
	const full = 200
	return Scene{
		Name:     "tori100",
		Doc:      "100 tori and 100 bunnies fall onto the ground (Li & Yamaguchi's rigid scenes)",
		DefaultN: full,
		StepsFor: gridSteps(full, 2.8),
		Build: func(w *rigid.World, p SceneParams) (*Setup, error) {
			shapes, names, err := p.meshes(CustomSize, func(dir string) ([]*narrow.Shape, []string, error) {
				bunny, err := LoadMesh(dir, MeshBunny, 0)
				if err != nil {
					return nil, nil, err
				}
				torus, err := LoadMesh(dir, MeshTorus, bunny.Size())
				return []*narrow.Shape{torus, bunny}, []string{MeshTorus, MeshBunny}, err
			})
			if err != nil {
				return nil, err
			}
			st := &Setup{}
			cell := 2.05 * maxRadius(shapes)
			k := gridSide(p.N)
			if err := addGround(w, st, math.Max(30, 2*float64(k)*cell)); err != nil {
				return nil, err
			}
			width, top, err := dropGrid(w, st, p.N, shapes, names, cell, 0.5+cell/2, rng(p.Seed))
			if err != nil {
				return nil, err
			}
			st.Camera = frame(1.3*width, top)
			return st, nil
		},
	}
}
