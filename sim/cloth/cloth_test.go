package cloth

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// runScene runs the capsule scene for frames with self-collision on or
// off, measuring, and returns the cloth and the frames' stats.
func runScene(t *testing.T, frames int, self bool) (*Cloth, []Stats) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.SelfCollision, cfg.Measure = self, true
	c, err := NewCapsuleScene(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var stats []Stats
	for range frames {
		if err := c.Step(); err != nil {
			t.Fatal(err)
		}
		stats = append(stats, c.Stats())
	}
	return c, stats
}

// TestCapsuleScene: the cloth falls on the capsule and folds onto itself
// on the floor. Without Algorithm 1 particles go through the cloth; with
// it none does (the paper's Figure 16 measure: no penetration at all), no
// particle is inside an obstacle, and the cloth hangs over the capsule.
func TestCapsuleScene(t *testing.T) {
	frames := 150
	if testing.Short() {
		frames = 100
	}
	_, off := runScene(t, frames, false)
	crossed := 0
	for _, st := range off {
		crossed += st.Crossings
	}
	if crossed == 0 {
		t.Fatal("without self-collision no particle went through the cloth: the scene does not test it")
	}
	c, on := runScene(t, frames, true)
	crossings, stopped, deepest := 0, 0, 0.0
	for f, st := range on {
		crossings += st.Crossings
		stopped += st.Stopped
		deepest = math.Max(deepest, st.Penetration)
		if st.ObstacleDepth > 1e-9 {
			t.Errorf("frame %d: a particle %.3g m inside an obstacle", f, st.ObstacleDepth)
		}
	}
	t.Logf("without Algorithm 1: %d crossings; with it: %d crossings (deepest %.3g m), %d particles stopped", crossed, crossings, deepest, stopped)
	if crossings != 0 || stopped == 0 {
		t.Errorf("with Algorithm 1: %d crossings (deepest %.3g m), %d particles stopped; want none, and some", crossings, deepest, stopped)
	}
	// The cloth's middle rests on the capsule: a thickness from its
	// surface (its axis runs along z at x = 0, y = 0.5; radius 0.4).
	n := c.Config().Nodes
	mid := c.Positions()[(n/2)*n+n/2]
	if r := math.Hypot(mid[0], mid[1]-0.5); mid[1] < 0.5 || math.Abs(r-0.42) > 0.01 {
		t.Errorf("the cloth's middle at %v (%.3f m from the capsule's axis), want on the capsule", mid, r)
	}
}

// TestDeterministic: the same scene twice, the same positions bit for bit.
func TestDeterministic(t *testing.T) {
	a, _ := runScene(t, 80, true)
	b, _ := runScene(t, 80, true)
	for i, p := range a.Positions() {
		if p != b.Positions()[i] {
			t.Fatalf("particle %d: %v, then %v", i, p, b.Positions()[i])
		}
	}
}

func TestNewErrors(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		obs    []Obstacle
	}{
		{"one node", func(c *Config) { c.Nodes = 1 }, nil},
		{"no spacing", func(c *Config) { c.Spacing = 0 }, nil},
		{"NaN step", func(c *Config) { c.Dt = math.NaN() }, nil},
		{"no substeps", func(c *Config) { c.Substeps = 0 }, nil},
		{"negative thickness", func(c *Config) { c.Thickness = -1 }, nil},
		{"friction over 1", func(c *Config) { c.Friction = 2 }, nil},
		{"infinite gravity", func(c *Config) { c.Gravity[1] = math.Inf(-1) }, nil},
		{"nil obstacle", nil, []Obstacle{{}}},
		{"bad pose", nil, []Obstacle{{Shape: box, Pose: narrow.Pose{Rot: mgl64.Quat{}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.change != nil {
				tc.change(&cfg)
			}
			if c, err := New(cfg, mgl64.Vec3{}, tc.obs...); c != nil || !errors.Is(err, ErrConfig) {
				t.Errorf("got %v, %v; want ErrConfig", c, err)
			}
		})
	}
}
