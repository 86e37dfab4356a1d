// Package sim runs 2D box2d scenes whose concave shapes collide through
// irtcd (package adapter/box2dadapter), records per-step metrics of the
// narrow phase, and draws the world into animated GIFs and PNGs.
//
// A Scene2D builds its bodies into a fresh world; Run (or New and
// Sim.Step, for step-by-step control) steps it at a fixed time step with
// the adapter installed and returns a Trace of what every step cost:
// narrow-phase and box2d time, rays by kind, pairs, contact points and
// penetration depths. Every scene takes a size (its number of objects), so
// that small versions run in tests and large ones in the demo, and a seed:
// the same scene, size and seed give bit-identical runs.
package sim

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	b2 "github.com/ByteArena/box2d"
)

// Params2D sizes a scene.
type Params2D struct {
	// N is the number of objects (gears, balls, boxes: the scene says
	// which). Zero or less means the scene's DefaultN.
	N int
	// Seed seeds the scene's random choices (PCG).
	Seed uint64
	// Convex builds every concave outline of the scene as a box2d user
	// without irtcd does, instead of one irtcd shape: box2d's own convex
	// polygons (ConvexPieces: at most 8 vertices each, one fixture per
	// piece), or, for static bodies, a chain loop of the outline. It is
	// the baseline irtcd is compared with.
	Convex bool
}

// Scene2D is a named 2D scene.
type Scene2D struct {
	Name string // short name, as the demo's -scene flag takes it
	Doc  string // one line: what the scene shows
	// DefaultN is the number of objects of the full-size scene.
	DefaultN int
	// DefaultSteps is the number of steps (of 1/60 s) the full-size scene
	// runs for; StepsFor gives a count suited to another size.
	DefaultSteps int
	// StepsFor returns the number of steps that lets n objects settle
	// (nil: DefaultSteps whatever n).
	StepsFor func(n int) int
	// Build creates the scene's bodies in w (gravity is already set). p.N
	// is positive.
	Build func(w *b2.B2World, p Params2D) (*Setup2D, error)
}

// Steps returns the number of steps for a scene of n objects.
func (s Scene2D) Steps(n int) int {
	if s.StepsFor != nil {
		return s.StepsFor(n)
	}
	return s.DefaultSteps
}

// Setup2D is what a scene's Build made.
type Setup2D struct {
	// Bodies are the scene's dynamic bodies in creation order; BeforeStep
	// appends the ones it creates.
	Bodies []*b2.B2Body
	// Floor is the world y of the ground's top surface.
	Floor float64
	// View is the world region that frames show.
	View Rect
	// BeforeStep, if set, runs before every step with the step's index
	// (from 0) and the simulated time at its start, e.g. to spawn bodies.
	BeforeStep func(step int, t float64) error
}

// Rect is an axis-aligned world rectangle.
type Rect struct{ MinX, MinY, MaxX, MaxY float64 }

// Dx returns the rectangle's width.
func (r Rect) Dx() float64 { return r.MaxX - r.MinX }

// Dy returns the rectangle's height.
func (r Rect) Dy() float64 { return r.MaxY - r.MinY }

// Tint is a body's colour index in frames: set a body's user data to a
// Tint to choose its colour among the renderer's fill colours.
type Tint uint8

// Scenes returns the built-in scenes: avalanche, spawner, stack and cup.
func Scenes() []Scene2D {
	return []Scene2D{Avalanche(), Spawner(), Stack(), Cup()}
}

// SceneNames returns the names of the built-in scenes.
func SceneNames() []string {
	var names []string
	for _, s := range Scenes() {
		names = append(names, s.Name)
	}
	return names
}

// ErrUnknownScene reports a scene name that SceneByName does not know.
var ErrUnknownScene = errors.New("unknown scene")

// SceneByName returns the built-in scene called name.
func SceneByName(name string) (Scene2D, error) {
	all := Scenes()
	if i := slices.IndexFunc(all, func(s Scene2D) bool { return s.Name == name }); i >= 0 {
		return all[i], nil
	}
	return Scene2D{}, fmt.Errorf("sim: %w %q (want %s)", ErrUnknownScene, name, strings.Join(SceneNames(), ", "))
}
