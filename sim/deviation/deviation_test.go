package deviation_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/deviation"
)

// smallConfig is the CI-sized experiment: 20 orientations × 4 depths.
func smallConfig() deviation.Config {
	return deviation.Config{Orientations: 20, Depths: 4, Seed: 7}
}

var (
	shapesOnce sync.Once
	testShapes []deviation.Shape
	shapesErr  error
)

// sphereAndBunny returns the 70-vertex sphere and testdata/bunny.obj.
func sphereAndBunny(t *testing.T) []deviation.Shape {
	t.Helper()
	shapesOnce.Do(func() {
		sphere, err := deviation.Sphere70()
		if err != nil {
			shapesErr = err
			return
		}
		bunny, err := narrow.LoadOBJ("../../testdata/bunny.obj")
		if err != nil {
			shapesErr = err
			return
		}
		testShapes = []deviation.Shape{
			{Name: "sphere70", Mesh: sphere, Paper: "sphere"},
			{Name: "bunny", Mesh: bunny, Paper: "bunny"},
		}
	})
	if shapesErr != nil {
		t.Fatal(shapesErr)
	}
	return testShapes
}

func run(t *testing.T, cfg deviation.Config, shapes []deviation.Shape) []deviation.Row {
	t.Helper()
	rows, err := deviation.Run(context.Background(), cfg, shapes, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(shapes) * len(deviation.AllModes); len(rows) != want {
		t.Fatalf("got %d rows, want %d", len(rows), want)
	}
	return rows
}

func TestRunSmall(t *testing.T) {
	shapes := sphereAndBunny(t)
	rows := run(t, smallConfig(), shapes)
	for i, r := range rows {
		s, m := shapes[i/3], deviation.AllModes[i%3]
		if r.Shape != s.Name || r.Paper != s.Paper || r.Mode != m || r.Vertices != s.Mesh.NumVertices() || r.Cases != 80 {
			t.Fatalf("row %d = %+v, want shape %s, mode %v, %d vertices, 80 cases", i, r, s.Name, m, s.Mesh.NumVertices())
		}
		if r.Empty != 0 {
			t.Errorf("%s/%v: %d cases without contact; every case has its lowest vertex below the plane", r.Shape, r.Mode, r.Empty)
		}
		if !(r.Contacts >= 1) {
			t.Errorf("%s/%v: %.1f contacts per case", r.Shape, r.Mode, r.Contacts)
		}
		t.Logf("%-8s %-8v deviation %6.2f %% (max %6.1f) angle %5.2f° normal %6.2f %% all %6.2f %% missed %5.2f %% contacts %.1f",
			r.Shape, r.Mode, r.TangentialPct, r.TangentialMaxPct, r.AngleDeg, r.NormalPct, r.NormalAllPct, r.MissedPct, r.Contacts)
		switch r.Mode {
		case narrow.ResponseMTD:
			// Re-projection: every contact's direction is the ground's
			// normal and its depth the vertex's exact depth.
			for name, v := range map[string]float64{"TangentialPct": r.TangentialPct, "TangentialMaxPct": r.TangentialMaxPct, "AngleDeg": r.AngleDeg, "NormalPct": r.NormalPct} {
				if !(math.Abs(v) <= 1e-9) {
					t.Errorf("%s/mtd: %s = %g, want 0 within 1e-9", r.Shape, name, v)
				}
			}
			// So the force misses only what the detection missed.
			if math.Abs(r.NormalAllPct-r.MissedPct) > 1e-9 {
				t.Errorf("%s/mtd: NormalAllPct %g != MissedPct %g", r.Shape, r.NormalAllPct, r.MissedPct)
			}
		case narrow.ResponseRay:
			if !(r.TangentialPct > 0.1) || !(r.AngleDeg > 0) {
				t.Errorf("%s/ray: deviation %g %%, angle %g°, want > 0", r.Shape, r.TangentialPct, r.AngleDeg)
			}
			// A raw ray r from a vertex at depth h to the plane has
			// r·n = h: its normal part is exact, its error all tangential.
			if !(math.Abs(r.NormalPct) <= 1e-9) {
				t.Errorf("%s/ray: NormalPct = %g, want 0 within 1e-9", r.Shape, r.NormalPct)
			}
		case narrow.ResponseWeighted:
			if !(r.TangentialPct > 0.1) || !(r.NormalPct > 0.1) {
				t.Errorf("%s/weighted: deviation %g %%, normal %g %%, want > 0", r.Shape, r.TangentialPct, r.NormalPct)
			}
		}
	}
	// Detection is the same in every mode: same contacts, same misses.
	for s := range shapes {
		a, b, c := rows[3*s], rows[3*s+1], rows[3*s+2]
		if a.Contacts != b.Contacts || a.Contacts != c.Contacts || a.MissedPct != b.MissedPct || a.MissedPct != c.MissedPct {
			t.Errorf("%s: modes differ in detection: %+v / %+v / %+v", a.Shape, a, b, c)
		}
	}
	// Weighting damps the tangential force of the raw rays (on the bunny
	// clearly; the paper: by about 25 %).
	if ray, w := rows[3], rows[4]; !(w.TangentialPct < ray.TangentialPct) {
		t.Errorf("bunny: weighted deviation %g %% not below raw rays' %g %%", w.TangentialPct, ray.TangentialPct)
	}
	// The sphere balances its forces far better than the bunny.
	if !(rows[0].TangentialPct < rows[3].TangentialPct) {
		t.Errorf("sphere deviation %g %% not below bunny's %g %%", rows[0].TangentialPct, rows[3].TangentialPct)
	}
}

func TestRunDeterministic(t *testing.T) {
	shapes := sphereAndBunny(t)
	cfg := smallConfig()
	cfg.Workers = 1
	one := run(t, cfg, shapes)
	cfg.Workers = 3
	three := run(t, cfg, shapes)
	again := run(t, cfg, shapes)
	for i := range one {
		if one[i] != three[i] || three[i] != again[i] {
			t.Errorf("row %d differs:\n1 worker  %+v\n3 workers %+v\nagain     %+v", i, one[i], three[i], again[i])
		}
	}
	cfg.Seed++
	other := run(t, cfg, shapes)
	if other[0] == one[0] {
		t.Errorf("seed %d and %d give the same sphere row %+v", cfg.Seed-1, cfg.Seed, one[0])
	}
}

func TestRunModesAndProgress(t *testing.T) {
	shapes := sphereAndBunny(t)
	cfg := deviation.Config{Orientations: 30, Depths: 2, MaxDepth: 0.1, Modes: []narrow.Response{narrow.ResponseMTD}}
	var calls, last, total int
	rows, err := deviation.Run(context.Background(), cfg, shapes[1:], func(done, tot int) {
		calls++
		if done <= last || (total != 0 && tot != total) {
			t.Errorf("progress %d/%d after %d/%d", done, tot, last, total)
		}
		last, total = done, tot
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].Mode != narrow.ResponseMTD || rows[0].Cases != 60 {
		t.Fatalf("rows = %+v, want one mtd row of 60 cases", rows)
	}
	if calls == 0 || last != 60 || total != 60 {
		t.Errorf("progress: %d calls, ended at %d/%d, want 60/60", calls, last, total)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := deviation.Run(ctx, smallConfig(), sphereAndBunny(t), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Run with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestBadConfig(t *testing.T) {
	shapes := sphereAndBunny(t)
	ok := smallConfig()
	tests := []struct {
		name   string
		edit   func(*deviation.Config)
		shapes []deviation.Shape
		field  string
		also   error
	}{
		{"no orientations", func(c *deviation.Config) { c.Orientations = 0 }, shapes, "Orientations", nil},
		{"negative depths", func(c *deviation.Config) { c.Depths = -1 }, shapes, "Depths", nil},
		{"NaN max depth", func(c *deviation.Config) { c.MaxDepth = math.NaN() }, shapes, "MaxDepth", nil},
		{"infinite max depth", func(c *deviation.Config) { c.MaxDepth = math.Inf(1) }, shapes, "MaxDepth", nil},
		{"max depth above 1", func(c *deviation.Config) { c.MaxDepth = 1.5 }, shapes, "MaxDepth", nil},
		{"negative max depth", func(c *deviation.Config) { c.MaxDepth = -0.1 }, shapes, "MaxDepth", nil},
		{"negative workers", func(c *deviation.Config) { c.Workers = -2 }, shapes, "Workers", nil},
		{"empty modes", func(c *deviation.Config) { c.Modes = []narrow.Response{} }, shapes, "Modes", nil},
		{"unknown mode", func(c *deviation.Config) { c.Modes = []narrow.Response{narrow.ResponseMTD, 9} }, shapes, "Modes[1]", nil},
		{"bad params", func(c *deviation.Config) { c.Params.Confidence = math.NaN() }, shapes, "Params", narrow.ErrBadParams},
		{"no shapes", func(*deviation.Config) {}, nil, "Shapes", nil},
		{"nil mesh", func(*deviation.Config) {}, []deviation.Shape{shapes[0], {Name: "x"}}, "Shapes[1]", nil},
	}
	square, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name   string
		edit   func(*deviation.Config)
		shapes []deviation.Shape
		field  string
		also   error
	}{"2D shape", func(*deviation.Config) {}, []deviation.Shape{{Name: "square", Mesh: square}}, "Shapes[0]", nil})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.edit(&cfg)
			rows, err := deviation.Run(context.Background(), cfg, tc.shapes, nil)
			var ce *deviation.ConfigError
			if !errors.As(err, &ce) || !errors.Is(err, deviation.ErrBadConfig) {
				t.Fatalf("Run = %v, %v; want a *ConfigError", rows, err)
			}
			if ce.Field != tc.field {
				t.Errorf("field %q, want %q (%v)", ce.Field, tc.field, err)
			}
			if tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("%v does not wrap %v", err, tc.also)
			}
			if rows != nil {
				t.Errorf("rows %v with an error", rows)
			}
		})
	}
}

func TestSphere70(t *testing.T) {
	s, err := deviation.Sphere70()
	if err != nil {
		t.Fatal(err) // NewMesh checks closed, 2-manifold, consistently wound
	}
	if s.NumVertices() != deviation.SphereVertices || s.NumVertices() != 70 {
		t.Fatalf("%d vertices, want 70", s.NumVertices())
	}
	if s.NumPrims() != 2*70-4 {
		t.Errorf("%d triangles, want %d (Euler, genus 0)", s.NumPrims(), 2*70-4)
	}
	for i := range s.NumVertices() {
		if l := s.Vertex(i).Len(); math.Abs(l-1) > 1e-12 {
			t.Errorf("vertex %d at radius %g", i, l)
		}
		if d := s.VertexNormal(i).Dot(s.Vertex(i)); d < 0.95 {
			t.Errorf("vertex %d: normal·radial = %g", i, d)
		}
	}
	// Counter-clockwise seen from outside: every face normal points away
	// from the centre.
	for i := range s.NumPrims() {
		p := s.Prim(i)
		c := s.Vertex(int(p[0])).Add(s.Vertex(int(p[1]))).Add(s.Vertex(int(p[2])))
		if d := s.FaceNormal(i).Dot(c.Normalize()); d < 0.9 {
			t.Errorf("triangle %d %v: normal·centroid = %g", i, p, d)
		}
	}
	mp, err := s.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	if v := 4 * math.Pi / 3; mp.Mass < 0.85*v || mp.Mass > v {
		t.Errorf("volume %g, want a bit under the ball's %g", mp.Mass, v)
	}
	if mp.Centroid.Len() > 1e-2 {
		t.Errorf("centroid %v, want near the origin", mp.Centroid)
	}
}

func TestOrientations(t *testing.T) {
	a := deviation.Orientations(50, 3)
	b := deviation.Orientations(10, 3)
	c := deviation.Orientations(10, 4)
	if len(a) != 50 {
		t.Fatalf("%d orientations", len(a))
	}
	var mean mgl64.Vec3
	for i, q := range a {
		if math.Abs(q.Len()-1) > 1e-12 {
			t.Errorf("orientation %d: |q| = %g", i, q.Len())
		}
		if i < 10 && (q != b[i] || q == c[i]) {
			t.Errorf("orientation %d: seeds do not decide the sequence: %v %v %v", i, q, b[i], c[i])
		}
		mean = mean.Add(q.Rotate(mgl64.Vec3{0, 0, 1}))
	}
	if mean.Len()/50 > 0.35 {
		t.Errorf("rotated +z average %v: not spread over the sphere", mean.Mul(1.0/50))
	}
}

func TestPlace(t *testing.T) {
	s := sphereAndBunny(t)[1].Mesh
	cfg := smallConfig()
	depths := deviation.DepthsFor(cfg, s)
	if len(depths) != 4 || math.Abs(depths[3]-deviation.DefaultMaxDepth*s.Size()) > 1e-12 || math.Abs(depths[0]-depths[3]/4) > 1e-12 {
		t.Fatalf("depths %v for size %g", depths, s.Size())
	}
	for _, q := range deviation.Orientations(5, 1) {
		for _, d := range depths {
			p, err := deviation.Place(s, q, d)
			if err != nil {
				t.Fatal(err)
			}
			low := math.Inf(1)
			for i := range s.NumVertices() {
				low = min(low, p.Rot.Rotate(s.Vertex(i)).Add(p.Pos)[2])
			}
			if math.Abs(low+d) > 1e-12 || p.Pos[0] != 0 || p.Pos[1] != 0 {
				t.Errorf("pose %v: lowest vertex at z = %g, want %g", p, low, -d)
			}
		}
	}
	if _, err := deviation.Place(s, mgl64.Quat{W: math.NaN()}, 0.1); !errors.Is(err, narrow.ErrBadPose) {
		t.Errorf("NaN orientation: %v", err)
	}
	g, err := deviation.Ground(s)
	if err != nil {
		t.Fatal(err)
	}
	if b := g.Bounds(); b.Max[2] != 0 || b.Min[0] > -3*s.Radius() || b.Max[1] < 3*s.Radius() {
		t.Errorf("ground bounds %v", b)
	}
}

func TestPaperRows(t *testing.T) {
	rows := deviation.PaperRows()
	if len(rows) != 9 {
		t.Fatalf("%d rows, want 3 techniques × 3 shapes", len(rows))
	}
	want := map[string]map[narrow.Response]float64{
		"sphere": {narrow.ResponseRay: 3.97, narrow.ResponseWeighted: 2.66, narrow.ResponseMTD: 0},
		"bunny":  {narrow.ResponseRay: 22.0, narrow.ResponseWeighted: 16.5, narrow.ResponseMTD: 0},
		"pig":    {narrow.ResponseRay: 27.0, narrow.ResponseWeighted: 20.6, narrow.ResponseMTD: 0},
	}
	verts := map[string]int{"sphere": 70, "bunny": 453, "pig": 1085}
	for _, r := range rows {
		if r.DeviationPct != want[r.Shape][r.Mode] || r.Vertices != verts[r.Shape] || r.Technique != deviation.Technique(r.Mode) {
			t.Errorf("paper row %+v", r)
		}
	}
	if p, ok := deviation.PaperValue("bunny", narrow.ResponseWeighted); !ok || p.DeviationPct != 16.5 {
		t.Errorf("PaperValue(bunny, weighted) = %+v, %v", p, ok)
	}
	if _, ok := deviation.PaperValue("duck", narrow.ResponseRay); ok {
		t.Error("PaperValue(duck) found a value")
	}
}

func TestPaperShapesAndTable(t *testing.T) {
	shapes, err := deviation.PaperShapes("../../testdata")
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"sphere70/sphere/70", "bunny/bunny/453", "teddy/pig/1598", "duck/pig/2108"}
	for i, s := range shapes {
		if got := s.Name + "/" + s.Paper + "/" + strconv.Itoa(s.Mesh.NumVertices()); got != names[i] {
			t.Errorf("shape %d = %s, want %s", i, got, names[i])
		}
	}
	if _, err := deviation.PaperShapes(t.TempDir()); err == nil {
		t.Error("PaperShapes of an empty directory: no error")
	}
	rows := run(t, deviation.Config{Orientations: 2, Depths: 2}, shapes[:1])
	var buf bytes.Buffer
	if err := deviation.WriteTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, s := range []string{"Standard", "Weighting [HFR*08]", "Re-projection", "3.97 (sphere, 70 v)", "sphere70"} {
		if !strings.Contains(out, s) {
			t.Errorf("table lacks %q:\n%s", s, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 4 {
		t.Errorf("table has %d lines, want 4:\n%s", n, out)
	}
}
