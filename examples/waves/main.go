// Command waves floats boxes, bunnies and tori on a wave pool: a
// heightfield (narrow.NewHeightfield) on a static body of a sim/rigid
// world whose surface travels as waves. Every step the surface's new
// heights go into narrow.Shape.DeformInto (the mesh refitted, two shapes
// alternating, nothing allocated) and the result into World.SetShape,
// which hands the solver the surface's velocity at each contact. It
// prints, per simulated second, the deepest contact, how long the
// deformation and the narrow phase took, and draws the pool at the end in
// waves.png.
//
//	go run ./examples/waves [-out waves.png] [-seconds 8]
package main

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"path/filepath"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/view3d"
)

// The pool: n × n heights every d metres, its corner at (off, 0, off).
const (
	n   = 41
	d   = 0.5
	off = -10.0
)

// height is the surface's height at grid point (i, j) at time t: two
// wave trains crossing, 0.25 m and 0.15 m high.
func height(i, j int, t float64) float64 {
	x, z := off+float64(i)*d, off+float64(j)*d
	return 0.25*math.Sin(0.6*x-1.8*t) + 0.15*math.Sin(0.45*z+0.3*x-1.2*t)
}

// pool is the wave pool's surface: its shape at rest and two shapes that
// DeformInto fills in turn.
type pool struct {
	rest  *narrow.Shape
	verts []mgl64.Vec3
	next  [2]narrow.Shape
	k     int
}

func newPool() (*pool, error) {
	heights := make([][]float64, n)
	for i := range heights {
		heights[i] = make([]float64, n)
	}
	rest, err := narrow.NewHeightfield(heights, d, d, -3)
	if err != nil {
		return nil, err
	}
	return &pool{rest: rest, verts: make([]mgl64.Vec3, rest.NumVertices())}, nil
}

// at returns the surface at time t. The shape it returns stays valid
// until the call after next.
func (p *pool) at(t float64) (*narrow.Shape, error) {
	for v := range p.verts {
		q := p.rest.Vertex(v)
		if v < n*n { // the surface's points (NewHeightfield's layout)
			q[1] = height(v/n, v%n, t)
		}
		p.verts[v] = q
	}
	dst := &p.next[p.k]
	p.k ^= 1
	if err := p.rest.DeformInto(dst, p.verts); err != nil {
		return nil, err
	}
	return dst, nil
}

func main() {
	out := flag.String("out", "waves.png", "output PNG `file`")
	seconds := flag.Float64("seconds", 8, "simulated `time` (s)")
	flag.Parse()
	if _, err := run(*out, "testdata", *seconds); err != nil {
		log.Fatal(err)
	}
}

// summary is what run measured.
type summary struct {
	deepest  float64 // deepest contact after the first second (m)
	lowest   float64 // deepest vertex under the surface at the end (m)
	farthest float64 // farthest body from the pool's centre, horizontally (m)
}

func run(out, testdata string, seconds float64) (summary, error) {
	var sum summary
	pl, err := newPool()
	if err != nil {
		return sum, err
	}
	cube, err := narrow.NewBox(mgl64.Vec3{-0.3, -0.3, -0.3}, mgl64.Vec3{0.3, 0.3, 0.3})
	if err != nil {
		return sum, err
	}
	shapes := []*narrow.Shape{cube}
	for _, m := range []struct {
		name  string
		scale float64
	}{{"bunny", 1}, {"torus", 0.3}} { // the torus is 5 m across: make it 1.5 m
		s, err := narrow.LoadMesh(filepath.Join(testdata, m.name+".obj"))
		if err != nil {
			return sum, err
		}
		if s, err = scaled(s, m.scale); err != nil {
			return sum, err
		}
		shapes = append(shapes, s)
	}

	cfg := rigid.DefaultConfig()
	w, err := rigid.NewWorld(cfg)
	if err != nil {
		return sum, err
	}
	defer w.Close()
	surface, err := pl.at(0)
	if err != nil {
		return sum, err
	}
	def := rigid.NewBodyDef(surface, narrow.Pose{Pos: mgl64.Vec3{off, 0, off}, Rot: mgl64.QuatIdent()})
	def.Static, def.Name = true, "pool"
	poolID, err := w.AddBody(def)
	if err != nil {
		return sum, err
	}
	// Walls around the pool, so that the waves do not wash the bodies
	// over its edge.
	for _, wall := range [][2]mgl64.Vec3{
		{{off - 1, -3, off - 1}, {off, 2, -off + 1}}, {{-off, -3, off - 1}, {-off + 1, 2, -off + 1}},
		{{off, -3, off - 1}, {-off, 2, off}}, {{off, -3, -off}, {-off, 2, -off + 1}},
	} {
		s, err := narrow.NewBox(wall[0], wall[1])
		if err != nil {
			return sum, err
		}
		def := rigid.NewBodyDef(s, narrow.Identity)
		def.Static, def.Name = true, "wall"
		if _, err := w.AddBody(def); err != nil {
			return sum, err
		}
	}
	first := rigid.BodyID(w.NumBodies())
	var kinds []int
	for k := range 16 {
		x, z := -5.25+float64(k%4)*3.5, -5.25+float64(k/4)*3.5
		pose := narrow.Pose{Pos: mgl64.Vec3{x, 2 + 0.4*float64(k%3), z}, Rot: mgl64.QuatRotate(0.9*float64(k), mgl64.Vec3{1, 0, 1}.Normalize())}
		b := rigid.NewBodyDef(shapes[k%3], pose)
		b.Friction = 0.6
		if _, err := w.AddBody(b); err != nil {
			return sum, err
		}
		kinds = append(kinds, k%3)
	}

	fmt.Println("  time  deepest contact  deform/step  narrow/step  iterative pairs")
	perSecond := int(math.Round(1 / cfg.Dt))
	var deform, narrowTime time.Duration
	var pairs, iterative int
	secDeepest := 0.0
	for step := 0; step < int(seconds*float64(perSecond)); step++ {
		t0 := time.Now()
		s, err := pl.at(w.Time() + cfg.Dt)
		if err != nil {
			return sum, err
		}
		deform += time.Since(t0)
		if err := w.SetShape(poolID, s); err != nil {
			return sum, err
		}
		if err := w.Step(context.Background()); err != nil {
			return sum, err
		}
		st := w.Stats()
		narrowTime += st.Narrow
		pairs, iterative = pairs+st.Detect.Pairs, iterative+st.Detect.IterativePairs
		secDeepest = max(secDeepest, st.DepthMax)
		if step >= perSecond {
			sum.deepest = max(sum.deepest, st.DepthMax)
		}
		if (step+1)%perSecond == 0 {
			fmt.Printf("%5.0f s  %12.4f m  %8.3f ms  %8.3f ms  %14.0f %%\n", w.Time(), secDeepest,
				ms(deform)/float64(perSecond), ms(narrowTime)/float64(perSecond), 100*float64(iterative)/float64(max(pairs, 1)))
			deform, narrowTime, secDeepest, pairs, iterative = 0, 0, 0, 0, 0
		}
	}

	// How deep the bodies sit in the surface at the end, and how far they
	// drifted.
	surface = w.Body(poolID).Shape()
	for k := range kinds {
		b := w.Body(first + rigid.BodyID(k))
		c := b.CenterOfMass()
		sum.farthest = max(sum.farthest, math.Hypot(c[0], c[2]))
		tr := b.Pose().Transform()
		for v := range b.Shape().NumVertices() {
			p := tr.Apply(b.Shape().Vertex(v))
			sum.lowest = max(sum.lowest, surfaceAt(surface, p[0], p[2])-p[1])
		}
	}
	fmt.Printf("after %.0f s: deepest contact %.4f m (after the first second), deepest vertex under the surface %.4f m, farthest body %.1f m from the centre\n",
		w.Time(), sum.deepest, sum.lowest, sum.farthest)

	var inst []view3d.Instance
	palette := []color.RGBA{{0xd9, 0x8c, 0x3d, 0xff}, {0xe8, 0xe2, 0xd6, 0xff}, {0xc4, 0x4d, 0x58, 0xff}}
	for i, b := range w.Instances(nil) {
		c := color.RGBA{0x3d, 0x7e, 0xb8, 0xff}
		switch {
		case i >= int(first):
			c = palette[kinds[i-int(first)]]
		case i > 0:
			c = color.RGBA{0xa0, 0x9a, 0x90, 0xff}
		}
		inst = append(inst, view3d.Instance{Shape: b.Shape, Pose: b.Pose, Color: c})
	}
	img, err := view3d.Render(720, 450, view3d.Camera{Eye: mgl64.Vec3{12, 9, 15}, Target: mgl64.Vec3{0, -0.5, 0}, Up: mgl64.Vec3{0, 1, 0}}, inst,
		view3d.WithTitle(fmt.Sprintf("16 bodies on a wave pool of %dx%d points, deformed every step, t = %.0f s", n, n, w.Time())))
	if err != nil {
		return sum, err
	}
	if err := view3d.SavePNG(out, img); err != nil {
		return sum, err
	}
	fmt.Println("wrote", out)
	return sum, nil
}

// scaled returns s with its vertices scaled by k about its origin.
func scaled(s *narrow.Shape, k float64) (*narrow.Shape, error) {
	if k == 1 {
		return s, nil
	}
	verts := make([]mgl64.Vec3, s.NumVertices())
	for i := range verts {
		verts[i] = s.Vertex(i).Mul(k)
	}
	tris := s.AppendTriangles(nil)
	return narrow.NewMesh(verts, tris)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// surfaceAt returns the surface's height at world (x, z): where a ray
// straight down from above meets it.
func surfaceAt(surface *narrow.Shape, x, z float64) float64 {
	const top = 100
	hit, _ := surface.Trace([3]float64{x - off, top, z - off}, [3]float64{0, -1, 0}, 0, 0, narrow.TraversalBVH)
	return top - hit.T
}
