// Command character walks a capsule through a small level of a sim/rigid
// world — a wall across its way, a ramp up to a platform, a bunny statue
// (a concave mesh) — by shape casts alone (rigid.World.ShapeCast): each
// step it casts its motion, stops where it first touches something and
// slides the rest of the way along the surface it touched (collide and
// slide), then casts down to find the ground. It prints how far it went
// and how often it slid, checks that it never overlaps the level
// (rigid.World.QueryShape), and draws its path in character.png.
//
//	go run ./examples/character [-out character.png] [-testdata DIR]
package main

import (
	"errors"
	"flag"
	"fmt"
	"image/color"
	"log"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/view3d"
)

const (
	dt      = 1.0 / 60
	speed   = 3.0   // walking speed, m/s
	gravity = 9.81  // m/s²
	skin    = 0.005 // distance kept from what the character touches, m
	slides  = 4     // casts per step at most
	radius  = 0.3   // the capsule's radius
	half    = 0.4   // half the length of its straight part
)

func main() {
	out := flag.String("out", "character.png", "output PNG `file`")
	dir := flag.String("testdata", "testdata", "`dir`ectory holding bunny.obj")
	flag.Parse()
	if err := run(*out, *dir); err != nil {
		log.Fatal(err)
	}
}

// level adds the static bodies of the level to w and returns them for
// drawing.
func level(w *rigid.World, dir string) ([]view3d.Instance, error) {
	bunny, err := narrow.LoadMesh(filepath.Join(dir, "bunny.obj"))
	if err != nil {
		return nil, err
	}
	grey, stone, green := color.RGBA{0xb0, 0xaa, 0xa0, 0xff}, color.RGBA{0x9a, 0x7b, 0x5e, 0xff}, color.RGBA{0x6a, 0xa8, 0x4f, 0xff}
	ramp := mgl64.QuatRotate(0.3, mgl64.Vec3{0, 0, 1}) // about 17°, rising towards +x
	parts := []struct {
		lo, hi mgl64.Vec3 // a box, or
		mesh   *narrow.Shape
		pose   narrow.Pose
		col    color.RGBA
	}{
		{lo: mgl64.Vec3{-0.2, 0, -4}, hi: mgl64.Vec3{0.2, 2, 1}, pose: pose(-5, 0, 0, mgl64.QuatIdent()), col: stone},                                // a wall across the way
		{mesh: bunny, pose: pose(-0.5, 0.67, 2.2, mgl64.QuatRotate(0.6, mgl64.Vec3{0, 1, 0})), col: green},                                           // a statue
		{lo: mgl64.Vec3{-3.5, -0.2, -1.5}, hi: mgl64.Vec3{3.5, 0.2, 1.5}, pose: pose(4.5, 0.563, 3.5, ramp), col: stone},                             // a ramp, its foot in the ground
		{lo: mgl64.Vec3{-2, 0, -2}, hi: mgl64.Vec3{2, 1.78, 2}, pose: pose(9.75, 0, 3.5, mgl64.QuatIdent()), col: stone},                             // the platform it leads to
		{lo: mgl64.Vec3{-0.3, 0, -0.3}, hi: mgl64.Vec3{0.3, 3, 0.3}, pose: pose(2, 0, -1.2, mgl64.QuatRotate(0.5, mgl64.Vec3{0, 1, 0})), col: stone}, // a pillar
	}
	// The ground: a flat heightfield, whose many small triangles the
	// picture's painter orders well against the bodies on it (two
	// triangles the size of the level would cover them).
	heights := make([][]float64, 49)
	for i := range heights {
		heights[i] = make([]float64, 33)
	}
	ground, err := narrow.NewHeightfield(heights, 0.5, 0.5, -1)
	if err != nil {
		return nil, err
	}
	floor := rigid.NewBodyDef(ground, pose(-12, 0, -8, mgl64.QuatIdent()))
	floor.Static = true
	if _, err := w.AddBody(floor); err != nil {
		return nil, err
	}
	inst := []view3d.Instance{{Shape: ground, Pose: floor.Pose, Color: grey}}
	for _, p := range parts {
		s := p.mesh
		if s == nil {
			if s, err = narrow.NewBox(p.lo, p.hi); err != nil {
				return nil, err
			}
		}
		def := rigid.NewBodyDef(s, p.pose)
		def.Static = true
		if _, err := w.AddBody(def); err != nil {
			return nil, err
		}
		inst = append(inst, view3d.Instance{Shape: s, Pose: p.pose, Color: p.col})
	}
	return inst, nil
}

func pose(x, y, z float64, q mgl64.Quat) narrow.Pose {
	return narrow.Pose{Pos: mgl64.Vec3{x, y, z}, Rot: q}
}

// walker is the character: a capsule moved by casts, not a body of the
// world.
type walker struct {
	w      *rigid.World
	shape  *narrow.Shape
	pos    mgl64.Vec3 // the capsule's centre
	fall   float64    // downward speed, m/s
	slides int        // casts that touched something
}

// move moves the character by d, sliding along what it touches.
func (c *walker) move(d mgl64.Vec3) error {
	for range slides {
		if d.Len() < 1e-9 {
			return nil
		}
		hit, ok, err := c.w.ShapeCast(c.shape, pose(c.pos[0], c.pos[1], c.pos[2], mgl64.QuatIdent()), d, nil)
		if err != nil {
			return err
		}
		if !ok {
			c.pos = c.pos.Add(d)
			return nil
		}
		if hit.Start {
			return fmt.Errorf("at %v the character overlaps body %d", c.pos, hit.Body)
		}
		c.slides++
		// Up to the touch, then a skin's width back off the surface;
		// the rest of the motion, less its part into the surface.
		c.pos = hit.Pose.Pos.Add(hit.Normal.Mul(skin))
		rest := d.Mul(1 - hit.Fraction)
		d = rest.Sub(hit.Normal.Mul(rest.Dot(hit.Normal)))
	}
	return nil
}

// grounded reports whether the character stands on something: a short
// cast down touches it.
func (c *walker) grounded() (bool, error) {
	_, ok, err := c.w.ShapeCast(c.shape, pose(c.pos[0], c.pos[1], c.pos[2], mgl64.QuatIdent()), mgl64.Vec3{0, -2 * skin, 0}, nil)
	return ok, err
}

// run walks the character and draws its path in out; dir holds the
// statue's mesh.
func run(out, dir string) error {
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		return err
	}
	defer w.Close()
	scene, err := level(w, dir)
	if err != nil {
		return err
	}
	capsule, err := narrow.NewCapsule(radius, half, 16)
	if err != nil {
		return err
	}
	c := &walker{w: w, shape: capsule, pos: mgl64.Vec3{-10, radius + half + skin, -3}}
	// Waypoints (heights aside): beyond the wall, which stands in the
	// straight way there; past the statue; the foot of the ramp; up it
	// onto the platform.
	goals := []mgl64.Vec3{{-3, 0, 2.2}, {0.5, 0, 4.8}, {1, 0, 3.5}, {9.5, 0, 3.5}}
	var path []mgl64.Vec3
	walked, climbed := 0.0, 0.0
	goal := 0
	for step := 0; step < 900 && goal < len(goals); step++ {
		to := goals[goal].Sub(c.pos)
		to[1] = 0
		if to.Len() < 0.3 {
			goal++
			continue
		}
		onGround, err := c.grounded()
		if err != nil {
			return err
		}
		if onGround {
			c.fall = 0
		} else {
			c.fall += gravity * dt
		}
		before := c.pos
		if err := c.move(to.Normalize().Mul(speed * dt)); err != nil {
			return err
		}
		if err := c.move(mgl64.Vec3{0, -(c.fall + 1) * dt, 0}); err != nil { // gravity, and a little to hug slopes
			return err
		}
		walked += c.pos.Sub(before).Len()
		climbed = max(climbed, c.pos[1]-radius-half)
		path = append(path, c.pos)
		// The check: a cast never leaves the character in the level.
		var inside error
		if err := w.QueryShape(capsule, pose(c.pos[0], c.pos[1], c.pos[2], mgl64.QuatIdent()), func(id rigid.BodyID) bool {
			inside = fmt.Errorf("step %d: the character at %v overlaps body %d", step, c.pos, id)
			return false
		}); err != nil {
			return err
		}
		if inside != nil {
			return inside
		}
	}
	if goal < len(goals) {
		return errors.New("the character did not reach its last waypoint in 15 s")
	}
	fmt.Printf("walked %.1f m in %d steps (%.1f s), slid %d times, stands %.2f m up on the platform\n",
		walked, len(path), float64(len(path))*dt, c.slides, climbed)
	fmt.Printf("it never overlapped the level (checked every step)\n")

	// The path: the capsule every 20 steps, from blue to orange.
	for i := 0; i < len(path); i += 20 {
		f := float64(i) / float64(len(path))
		col := color.RGBA{uint8(60 + 180*f), uint8(110 + 20*f), uint8(220 - 180*f), 0xff}
		p := path[i]
		scene = append(scene, view3d.Instance{Shape: capsule, Pose: pose(p[0], p[1], p[2], mgl64.QuatIdent()), Color: col})
	}
	img, err := view3d.Render(800, 500, view3d.Camera{Eye: mgl64.Vec3{-4, 13, 16}, Target: mgl64.Vec3{0, 0, 1}, Up: mgl64.Vec3{0, 1, 0}}, scene,
		view3d.WithTitle(fmt.Sprintf("a capsule walked by shape casts: %.1f m, %d slides", walked, c.slides)))
	if err != nil {
		return err
	}
	if err := view3d.SavePNG(out, img); err != nil {
		return err
	}
	fmt.Println("wrote", out)
	return nil
}
