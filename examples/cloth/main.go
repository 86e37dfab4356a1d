// Command cloth runs the self-collision experiment of Li & Yamaguchi's
// §6.6 (ray-traced CD for deformable objects): a 20 × 20-node cloth, 0.4 m
// between nodes, falls onto a capsule, and its folds meet each other
// (sim/cloth). It runs the scene three times: with the paper's Algorithm
// 1 (narrow.Shape.AppendSelfHits on the cloth's surface, refitted every
// substep) and sim/cloth's sweep test (exact continuous tests of each
// particle against the triangles near its path, for what the rays along
// a particle's own motion cannot see), with Algorithm 1 alone, and
// without self-collision. It prints per simulated second how many
// particles went through the cloth and how deep, draws the cloth of the
// first run at the frame where it stopped the most particles in
// cloth.png, and the deepest penetration of every frame, every run, in
// cloth-penetration.png (the paper's Figure 16).
//
//	go run ./examples/cloth [-out cloth.png] [-plot cloth-penetration.png] [-seconds 5]
package main

import (
	"flag"
	"fmt"
	"image/color"
	"log"
	"math"
	"os"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/cloth"
	"github.com/irtcd/irtcd/sim/view3d"
)

func main() {
	out := flag.String("out", "cloth.png", "picture of the cloth at the end (PNG `file`)")
	plotOut := flag.String("plot", "cloth-penetration.png", "per-frame penetration plot (PNG `file`)")
	seconds := flag.Float64("seconds", 5, "simulated `time` (s)")
	flag.Parse()
	if _, err := run(*out, *plotOut, *seconds); err != nil {
		log.Fatal(err)
	}
}

// result is one run's record: the deepest penetration of every frame and
// the totals.
type result struct {
	depth     []float64 // per frame, m
	crossings int
	stopped   int // by Algorithm 1's rays or the sweep test
	deepest   float64
}

// variants are the runs, in run's order.
var variants = []struct {
	name        string
	self, sweep bool
}{
	{"Algorithm 1 and the sweep test", true, true},
	{"Algorithm 1 alone", true, false},
	{"without self-collision", false, false},
}

// run runs every variant of the scene, prints and draws them, and returns
// their records in variants' order.
func run(out, plotOut string, seconds float64) ([]result, error) {
	res := make([]result, len(variants))
	// The picture: the cloth of the first run at the frame where it
	// stopped the most particles.
	var shot []mgl64.Vec3
	var shotTime float64
	shotStopped := -1
	var final *cloth.Cloth
	for k, v := range variants {
		cfg := cloth.DefaultConfig()
		cfg.SelfCollision, cfg.Sweep, cfg.Measure = v.self, v.sweep, true
		c, err := cloth.NewCapsuleScene(cfg)
		if err != nil {
			return res, err
		}
		fmt.Printf("%s:\n  time  particles through the cloth  deepest (m)  particles stopped\n", v.name)
		perSecond := int(math.Round(1 / cfg.Dt))
		r := &res[k]
		var secCross, secStopped int
		secDeep := 0.0
		for f := 0; f < int(seconds*float64(perSecond)); f++ {
			if err := c.Step(); err != nil {
				return res, err
			}
			st := c.Stats()
			stopped := st.Stopped + st.Swept
			r.depth = append(r.depth, st.Penetration)
			r.crossings += st.Crossings
			r.stopped += stopped
			r.deepest = math.Max(r.deepest, st.Penetration)
			secCross, secStopped, secDeep = secCross+st.Crossings, secStopped+stopped, math.Max(secDeep, st.Penetration)
			if k == 0 && stopped > shotStopped {
				shot, shotTime, shotStopped = append(shot[:0], c.Positions()...), float64(f+1)*cfg.Dt, stopped
			}
			if (f+1)%perSecond == 0 {
				fmt.Printf("%5d s  %27d  %11.5f  %17d\n", (f+1)/perSecond, secCross, secDeep, secStopped)
				secCross, secStopped, secDeep = 0, 0, 0
			}
		}
		fmt.Printf("  in all: %d particles through the cloth, the deepest %.5f m (the paper: 5.8651e-4 m at most)\n", r.crossings, r.deepest)
		if k == 0 {
			final = c
		}
	}
	if err := drawCloth(out, final.Surface(), shot, shotTime); err != nil {
		return res, err
	}
	if err := plotDepths(plotOut, res, final.Config().Dt); err != nil {
		return res, err
	}
	fmt.Println("wrote", out, "and", plotOut)
	return res, nil
}

// drawCloth draws the scene: the capsule, the floor and the cloth (its
// surface's triangles at positions at), both of its faces (the renderer
// culls back faces, and a cloth shows both).
func drawCloth(out string, surface *narrow.Shape, at []mgl64.Vec3, time float64) error {
	s, err := surface.Deform(at)
	if err != nil {
		return err
	}
	flipped := s.AppendTriangles(nil)
	for i, t := range flipped {
		flipped[i] = [3]int{t[0], t[2], t[1]}
	}
	back, err := narrow.NewSurface(at, flipped)
	if err != nil {
		return err
	}
	capsule, err := narrow.NewCapsule(0.4, 2, 32)
	if err != nil {
		return err
	}
	floor, err := narrow.NewBox(mgl64.Vec3{-6, -4, -6}, mgl64.Vec3{6, -3, 6})
	if err != nil {
		return err
	}
	lying := narrow.Pose{Pos: mgl64.Vec3{0, 0.5, 0}, Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})}
	inst := []view3d.Instance{
		{Shape: floor, Pose: narrow.Identity, Color: color.RGBA{0xa0, 0x9a, 0x90, 0xff}},
		{Shape: capsule, Pose: lying, Color: color.RGBA{0x3d, 0x85, 0xc6, 0xff}},
		{Shape: s, Pose: narrow.Identity, Color: color.RGBA{0xd9, 0x8c, 0x3d, 0xff}},
		{Shape: back, Pose: narrow.Identity, Color: color.RGBA{0xb0, 0x5a, 0x2a, 0xff}},
	}
	img, err := view3d.Render(720, 450, view3d.Camera{Eye: mgl64.Vec3{7, 5, 8}, Target: mgl64.Vec3{0, -1, 0}, Up: mgl64.Vec3{0, 1, 0}}, inst,
		view3d.WithTitle(fmt.Sprintf("a 20x20 cloth on a capsule, t = %.2f s: the flaps meet and stay apart", time)))
	if err != nil {
		return err
	}
	return view3d.SavePNG(out, img)
}

// plotDepths draws the deepest penetration of every frame, every run.
func plotDepths(out string, res []result, dt float64) error {
	p := plot.New()
	p.Title.Text = "Self-collision of a cloth on a capsule: deepest penetration per frame"
	p.X.Label.Text = "simulated time (s)"
	p.Y.Label.Text = "mm"
	p.Add(plotter.NewGrid())
	cols := []color.RGBA{{0x1f, 0x77, 0xb4, 0xff}, {0xe0, 0x8a, 0x1e, 0xff}, {0xd6, 0x27, 0x28, 0xff}}
	for k, v := range variants {
		xy := make(plotter.XYs, len(res[k].depth))
		for i, d := range res[k].depth {
			xy[i].X, xy[i].Y = float64(i+1)*dt, 1000*d
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color, l.Width = cols[k], vg.Points(1.2)
		p.Add(l)
		p.Legend.Add(v.name, l)
	}
	paper := plotter.NewFunction(func(float64) float64 { return 0.58651 })
	paper.Color, paper.Dashes = color.RGBA{0x55, 0x55, 0x55, 0xff}, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(paper)
	p.Legend.Add("the paper's maximum (0.587 mm)", paper)
	p.Legend.Top, p.Legend.Left = true, true
	w, err := p.WriterTo(8*vg.Inch, 4*vg.Inch, "png")
	if err != nil {
		return err
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if _, err := w.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
