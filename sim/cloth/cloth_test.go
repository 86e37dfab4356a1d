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
func runScene(t *testing.T, frames int, self bool, thickness float64) (*Cloth, []Stats) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.SelfCollision, cfg.Measure, cfg.Thickness = self, true, thickness
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
	th := DefaultConfig().Thickness
	_, off := runScene(t, frames, false, th)
	crossed := 0
	for _, st := range off {
		crossed += st.Crossings
	}
	if crossed == 0 {
		t.Fatal("without self-collision no particle went through the cloth: the scene does not test it")
	}
	var c *Cloth
	for _, thick := range []float64{th, 0.02, 0.1} {
		var on []Stats
		c, on = runScene(t, frames, true, thick)
		crossings, stopped, deepest := 0, 0, 0.0
		for f, st := range on {
			crossings += st.Crossings
			stopped += st.Stopped
			deepest = math.Max(deepest, st.Penetration)
			if st.ObstacleDepth > 1e-9 {
				t.Errorf("thickness %v, frame %d: a particle %.3g m inside an obstacle", thick, f, st.ObstacleDepth)
			}
		}
		t.Logf("thickness %v: without Algorithm 1 %d crossings; with it %d crossings (deepest %.3g m), %d particles stopped", thick, crossed, crossings, deepest, stopped)
		if crossings != 0 || stopped == 0 {
			t.Errorf("thickness %v, with Algorithm 1: %d crossings (deepest %.3g m), %d particles stopped; want none, and some", thick, crossings, deepest, stopped)
		}
		if thick != th {
			continue
		}
		// The cloth's middle rests on the capsule: a thickness from its
		// surface (its axis runs along z at x = 0, y = 0.5; radius 0.4).
		n := c.Config().Nodes
		mid := c.Positions()[(n/2)*n+n/2]
		if r := math.Hypot(mid[0], mid[1]-0.5); mid[1] < 0.5 || math.Abs(r-0.4-thick) > 0.01 {
			t.Errorf("the cloth's middle at %v (%.3f m from the capsule's axis), want on the capsule", mid, r)
		}
	}
}

// TestDeterministic: the same scene twice, the same positions bit for bit.
func TestDeterministic(t *testing.T) {
	a, _ := runScene(t, 80, true, 0.05)
	b, _ := runScene(t, 80, true, 0.05)
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
		place  *narrow.Pose
	}{
		{"one node", func(c *Config) { c.Nodes = 1 }, nil, nil},
		{"no spacing", func(c *Config) { c.Spacing = 0 }, nil, nil},
		{"NaN step", func(c *Config) { c.Dt = math.NaN() }, nil, nil},
		{"no substeps", func(c *Config) { c.Substeps = 0 }, nil, nil},
		{"negative thickness", func(c *Config) { c.Thickness = -1 }, nil, nil},
		{"friction over 1", func(c *Config) { c.Friction = 2 }, nil, nil},
		{"infinite gravity", func(c *Config) { c.Gravity[1] = math.Inf(-1) }, nil, nil},
		{"nil obstacle", nil, []Obstacle{{}}, nil},
		{"bad pose", nil, []Obstacle{{Shape: box, Pose: narrow.Pose{Rot: mgl64.Quat{}}}}, nil},
		{"bad placement", nil, nil, &narrow.Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.change != nil {
				tc.change(&cfg)
			}
			place := narrow.Identity
			if tc.place != nil {
				place = *tc.place
			}
			if c, err := New(cfg, place, tc.obs...); c != nil || !errors.Is(err, ErrConfig) {
				t.Errorf("got %v, %v; want ErrConfig", c, err)
			}
		})
	}
}

// BenchmarkStep times a step of the capsule scene once the cloth hangs
// (from frame 100 on), with and without Algorithm 1 (no measuring).
func BenchmarkStep(b *testing.B) {
	for _, self := range []bool{true, false} {
		b.Run(map[bool]string{true: "selfcollision", false: "none"}[self], func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.SelfCollision = self
			c, err := NewCapsuleScene(cfg)
			if err != nil {
				b.Fatal(err)
			}
			for range 100 {
				if err := c.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := c.Step(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
