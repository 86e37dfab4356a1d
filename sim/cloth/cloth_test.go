package cloth

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
)

// runScene runs the capsule scene for frames with self-collision on or
// off (and the sweep test on or off), measuring, and returns the cloth
// and the frames' stats.
func runScene(t *testing.T, frames int, self, sweep bool, thickness float64) (*Cloth, []Stats) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.SelfCollision, cfg.Sweep, cfg.Measure, cfg.Thickness = self, sweep, true, thickness
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

// total sums the crossings, the particles stopped and swept, and the
// deepest penetration of a run.
func total(stats []Stats) (crossings, stopped, swept int, deepest float64) {
	for _, st := range stats {
		crossings += st.Crossings
		stopped += st.Stopped
		swept += st.Swept
		deepest = math.Max(deepest, st.Penetration)
	}
	return crossings, stopped, swept, deepest
}

// TestCapsuleScene: the cloth falls on the capsule, its flaps swing under
// it and meet. Without self-collision particles go through the cloth.
// With the paper's Algorithm 1 alone some still do: the flaps' edges
// slide into each other, each particle swept over by the other flap,
// which no ray along a particle's own motion sees. With the sweep test
// too none does (the paper's Figure 16 measure, by continuous tests: no
// penetration at all), no particle is inside an obstacle, and the cloth
// hangs over the capsule.
func TestCapsuleScene(t *testing.T) {
	frames := 150
	if testing.Short() {
		frames = 100
	}
	th := DefaultConfig().Thickness
	_, off := runScene(t, frames, false, false, th)
	crossed, _, _, _ := total(off)
	if crossed == 0 {
		t.Fatal("without self-collision no particle went through the cloth: the scene does not test it")
	}
	_, alone := runScene(t, frames, true, false, th)
	paper, _, _, paperDeep := total(alone)
	if paper == 0 {
		t.Error("Algorithm 1 alone let no particle through: the scene does not test the sweep")
	}
	for _, thick := range []float64{th, 0.02, 0.1} {
		c, on := runScene(t, frames, true, true, thick)
		crossings, stopped, swept, deepest := total(on)
		for f, st := range on {
			if st.ObstacleDepth > 1e-9 {
				t.Errorf("thickness %v, frame %d: a particle %.3g m inside an obstacle", thick, f, st.ObstacleDepth)
			}
		}
		t.Logf("thickness %v: %d crossings without self-collision, %d with Algorithm 1 alone (deepest %.3g m); with the sweep %d crossings (deepest %.3g m), %d particles stopped by the rays, %d swept back", thick, crossed, paper, paperDeep, crossings, deepest, stopped, swept)
		if crossings != 0 || stopped == 0 || swept == 0 {
			t.Errorf("thickness %v, with Algorithm 1 and the sweep: %d crossings (deepest %.3g m), %d particles stopped, %d swept back; want none, and some, and some", thick, crossings, deepest, stopped, swept)
		}
		// The cloth rests on the capsule: its particle nearest to the
		// capsule lies a thickness from the capsule's surface (the
		// capsule's axis runs along z from −2 to 2 at x = 0, y = 0.5;
		// radius 0.4).
		gap := math.Inf(1)
		for _, p := range c.Positions() {
			z := math.Max(-2, math.Min(2, p[2]))
			gap = math.Min(gap, math.Sqrt(p[0]*p[0]+(p[1]-0.5)*(p[1]-0.5)+(p[2]-z)*(p[2]-z))-0.4)
		}
		if math.Abs(gap-thick) > 0.01 {
			t.Errorf("thickness %v: the cloth's nearest particle %.3f m from the capsule, want on it, a thickness away", thick, gap)
		}
	}
}

// TestCrossed: a point and a triangle, each vertex moving in a straight
// line, meet inside the triangle, or not.
func TestCrossed(t *testing.T) {
	tri := [3]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}
	up := func(d float64) [3]mgl64.Vec3 {
		var m [3]mgl64.Vec3
		for i, p := range tri {
			m[i] = p.Add(mgl64.Vec3{0, d, 0})
		}
		return m
	}
	for _, tc := range []struct {
		name   string
		a, b   mgl64.Vec3
		t0, t1 [3]mgl64.Vec3
		want   bool
	}{
		{"point through a still triangle", mgl64.Vec3{0.2, 1, 0.2}, mgl64.Vec3{0.2, -1, 0.2}, tri, tri, true},
		{"triangle swept over a still point", mgl64.Vec3{0.2, 0.5, 0.2}, mgl64.Vec3{0.2, 0.5, 0.2}, tri, up(1), true},
		{"both moving, towards each other", mgl64.Vec3{0.2, 0.3, 0.2}, mgl64.Vec3{0.2, 0.1, 0.2}, tri, up(0.4), true},
		{"both moving, the same way", mgl64.Vec3{0.2, 0.3, 0.2}, mgl64.Vec3{0.2, 0.7, 0.2}, tri, up(0.4), false},
		{"past the triangle's edge", mgl64.Vec3{0.8, 1, 0.8}, mgl64.Vec3{0.8, -1, 0.8}, tri, tri, false},
		{"short of the plane", mgl64.Vec3{0.2, 1, 0.2}, mgl64.Vec3{0.2, 0.01, 0.2}, tri, tri, false},
		{"sliding in the plane's direction", mgl64.Vec3{-1, 0.1, 0.2}, mgl64.Vec3{2, 0.1, 0.2}, tri, tri, false},
		{"through and back (a root inside)", mgl64.Vec3{0.2, 0.5, 0.2}, mgl64.Vec3{0.2, 0.5, 0.2}, tri, [3]mgl64.Vec3{{0, 1, 0}, {1, 0, 0}, {0, 0, 1}}, true},
		{"a triangle turning past the point, outside it", mgl64.Vec3{2, 0.5, 2}, mgl64.Vec3{2, 0.5, 2}, tri, up(1), false},
	} {
		if got := crossed(tc.a, tc.b, tc.t0, tc.t1); got != tc.want {
			t.Errorf("%s: crossed %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestDeterministic: the same scene twice, the same positions bit for bit.
func TestDeterministic(t *testing.T) {
	a, _ := runScene(t, 80, true, true, 0.05)
	b, _ := runScene(t, 80, true, true, 0.05)
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
// (from frame 100 on): with Algorithm 1 and the sweep test (the
// default), with Algorithm 1 alone, and without self-collision (no
// measuring).
func BenchmarkStep(b *testing.B) {
	for _, v := range []struct {
		name        string
		self, sweep bool
	}{{"sweep", true, true}, {"algorithm1", true, false}, {"none", false, false}} {
		b.Run(v.name, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.SelfCollision, cfg.Sweep = v.self, v.sweep
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
