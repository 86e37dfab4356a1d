package rigid_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

func TestBadBodies(t *testing.T) {
	w, _ := newWorld(t, nil)
	s := box(t, mgl64.Vec3{0.5, 0.5, 0.5})
	poly, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	cases := []struct {
		name string
		def  rigid.BodyDef
		want error
	}{
		{"nil shape", rigid.NewBodyDef(nil, narrow.Identity), rigid.ErrNilShape},
		{"polygon", rigid.NewBodyDef(poly, narrow.Identity), rigid.ErrNotMesh},
		{"NaN position", rigid.NewBodyDef(s, narrow.Pose{Pos: mgl64.Vec3{nan, 0, 0}, Rot: mgl64.QuatIdent()}), narrow.ErrBadPose},
		{"zero quaternion", rigid.NewBodyDef(s, narrow.Pose{}), rigid.ErrBadPose},
		{"zero density", rigid.BodyDef{Shape: s, Pose: narrow.Identity}, rigid.ErrBadDensity},
		{"negative density", rigid.BodyDef{Shape: s, Pose: narrow.Identity, Density: -1}, rigid.ErrBadDensity},
		{"NaN friction", rigid.BodyDef{Shape: s, Pose: narrow.Identity, Density: 1, Friction: nan}, rigid.ErrBadMaterial},
		{"negative restitution", rigid.BodyDef{Shape: s, Pose: narrow.Identity, Density: 1, Restitution: -0.5}, rigid.ErrBadMaterial},
		{"infinite velocity", rigid.BodyDef{Shape: s, Pose: narrow.Identity, Density: 1, LinearVelocity: mgl64.Vec3{math.Inf(1), 0, 0}}, rigid.ErrBadVelocity},
	}
	n := w.NumBodies()
	for _, c := range cases {
		c.def.Name = c.name
		id, err := w.AddBody(c.def)
		var be *rigid.BodyError
		if !errors.As(err, &be) || !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want a *BodyError wrapping %v", c.name, err, c.want)
			continue
		}
		if id != -1 || be.Body != rigid.BodyID(n) || be.Name != c.name {
			t.Errorf("%s: id %d, error names body %d %q, want -1, %d %q", c.name, id, be.Body, be.Name, n, c.name)
		}
		t.Logf("%s: %v", c.name, err)
	}
	if w.NumBodies() != n {
		t.Errorf("failed AddBody calls changed the world: %d bodies, want %d", w.NumBodies(), n)
	}

	// A static body needs no density.
	st := rigid.BodyDef{Shape: s, Pose: narrow.Identity, Static: true}
	sid, err := w.AddBody(st)
	if err != nil {
		t.Fatalf("static body without density: %v", err)
	}
	id, err := w.AddBody(rigid.NewBodyDef(s, at(0, 3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want error
	}{
		{"SetVelocity NaN", w.SetVelocity(id, mgl64.Vec3{nan, 0, 0}, mgl64.Vec3{}), rigid.ErrBadVelocity},
		{"SetVelocity static", w.SetVelocity(sid, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{}), rigid.ErrStatic},
		{"SetVelocity unknown", w.SetVelocity(99, mgl64.Vec3{}, mgl64.Vec3{}), rigid.ErrUnknownBody},
		{"SetPose NaN", w.SetPose(id, narrow.Pose{Pos: mgl64.Vec3{0, nan, 0}, Rot: mgl64.QuatIdent()}), rigid.ErrBadPose},
		{"SetPose unknown", w.SetPose(-1, narrow.Identity), rigid.ErrUnknownBody},
	} {
		if !errors.Is(c.err, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
		}
	}
	if w.Body(99) != nil || w.Body(-1) != nil {
		t.Errorf("Body of an unknown ID is not nil")
	}
}

func TestBadConfig(t *testing.T) {
	for name, change := range map[string]func(*rigid.Config){
		"Dt":                 func(c *rigid.Config) { c.Dt = 0 },
		"NaN gravity":        func(c *rigid.Config) { c.Gravity[1] = math.NaN() },
		"iterations":         func(c *rigid.Config) { c.VelocityIterations = 0 },
		"correction rate":    func(c *rigid.Config) { c.CorrectionRate = 1.5 },
		"warm start":         func(c *rigid.Config) { c.WarmStart = -1 },
		"negative slop":      func(c *rigid.Config) { c.Slop = -0.1 },
		"negative margin":    func(c *rigid.Config) { c.MarginFactor = -1 },
		"max correction":     func(c *rigid.Config) { c.MaxCorrectionVelocity = 0 },
		"position iteration": func(c *rigid.Config) { c.PositionIterations = -1 },
		"deep rate":          func(c *rigid.Config) { c.DeepCorrectionRate = 1.2 },
		"deep penetration":   func(c *rigid.Config) { c.DeepPenetration = math.Inf(1) },
	} {
		cfg := rigid.DefaultConfig()
		change(&cfg)
		if _, err := rigid.NewWorld(cfg); !errors.Is(err, rigid.ErrBadConfig) {
			t.Errorf("%s: got %v, want ErrBadConfig", name, err)
		}
	}
	cfg := rigid.DefaultConfig()
	cfg.Params.Confidence = 0.5
	if _, err := rigid.NewWorld(cfg); !errors.Is(err, narrow.ErrBadParams) {
		t.Errorf("bad narrow params: got %v, want narrow.ErrBadParams", err)
	}
}

func TestStepContext(t *testing.T) {
	w, _ := newWorld(t, nil)
	id, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{0.5, 0.5, 0.5}), at(0, 0.49, 0)))
	if err != nil {
		t.Fatal(err)
	}
	run(t, w, 3)
	before := w.Body(id).Pose()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Step(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled step: got %v, want context.Canceled", err)
	}
	if w.Body(id).Pose() != before || w.StepCount() != 3 {
		t.Errorf("a cancelled step changed the world")
	}
	run(t, w, 1)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Step(context.Background()); !errors.Is(err, rigid.ErrClosed) {
		t.Errorf("step after Close: got %v, want ErrClosed", err)
	}
	if _, err := w.AddBody(rigid.NewBodyDef(box(t, mgl64.Vec3{1, 1, 1}), narrow.Identity)); !errors.Is(err, rigid.ErrClosed) {
		t.Errorf("AddBody after Close: got %v, want ErrClosed", err)
	}
}

func TestPairID(t *testing.T) {
	if rigid.PairID(3, 7) != 3<<32|7 || rigid.PairID(7, 3) != 3<<32|7 {
		t.Errorf("PairID(3, 7) = %#x, PairID(7, 3) = %#x, want %#x", rigid.PairID(3, 7), rigid.PairID(7, 3), uint64(3<<32|7))
	}
}
