package view3d_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/view3d"
)

var white = color.RGBA{0xff, 0xff, 0xff, 0xff}

func loadBunny(t testing.TB) *narrow.Shape {
	t.Helper()
	b, err := narrow.LoadOBJ("../../testdata/bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func unitBox(t testing.TB) *narrow.Shape {
	t.Helper()
	b, err := narrow.NewBox(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// roundTrip encodes img with WritePNG and decodes it.
func roundTrip(t *testing.T, img image.Image) *image.RGBA {
	t.Helper()
	var buf bytes.Buffer
	if err := view3d.WritePNG(&buf, img); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(dec.Bounds())
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			out.Set(x, y, dec.At(x, y))
		}
	}
	return out
}

// at returns the pixel where world point p projects.
func at(t *testing.T, img *image.RGBA, cam view3d.Camera, p mgl64.Vec3) color.RGBA {
	t.Helper()
	x, y, ok, err := cam.Project(img.Rect.Dx(), img.Rect.Dy(), p)
	if err != nil || !ok || !(image.Point{int(x), int(y)}).In(img.Rect) {
		t.Fatalf("Project(%v) = %.1f, %.1f, %v, %v: not in the picture", p, x, y, ok, err)
	}
	return img.RGBAAt(int(x), int(y))
}

func luma(c color.RGBA) float64 { return 0.299*float64(c.R) + 0.587*float64(c.G) + 0.114*float64(c.B) }

func TestRenderBox(t *testing.T) {
	cam := view3d.Camera{Eye: mgl64.Vec3{3, -4, 2.5}, Target: mgl64.Vec3{}}
	base := color.RGBA{200, 100, 50, 255}
	toLight := mgl64.Vec3{1, 0, 0.2}
	const ambient = 0.2
	img, err := view3d.Render(320, 240, cam, []view3d.Instance{{Shape: unitBox(t), Pose: narrow.Identity, Color: base}},
		view3d.WithLight(toLight, ambient), view3d.WithBackground(white))
	if err != nil {
		t.Fatal(err)
	}
	img = roundTrip(t, img)
	if img.Rect.Dx() != 320 || img.Rect.Dy() != 240 {
		t.Fatalf("size %v", img.Rect)
	}
	// Flat Lambert shading, exactly, inside each visible face (points off
	// the faces' diagonals, away from edges).
	l := toLight.Normalize()
	want := func(n mgl64.Vec3) color.RGBA {
		k := ambient + (1-ambient)*max(0, n.Dot(l))
		f := func(c uint8) uint8 { return uint8(math.Round(float64(c) * k)) }
		return color.RGBA{f(base.R), f(base.G), f(base.B), 255}
	}
	faces := []struct {
		name string
		p, n mgl64.Vec3
	}{
		{"+x (lit)", mgl64.Vec3{1, 0.3, -0.4}, mgl64.Vec3{1, 0, 0}},
		{"-y (side)", mgl64.Vec3{0.3, -1, -0.4}, mgl64.Vec3{0, -1, 0}},
		{"+z (top)", mgl64.Vec3{0.3, -0.4, 1}, mgl64.Vec3{0, 0, 1}},
	}
	var got []color.RGBA
	for _, f := range faces {
		c := at(t, img, cam, f.p)
		if c != want(f.n) {
			t.Errorf("face %s: pixel %v, want %v", f.name, c, want(f.n))
		}
		got = append(got, c)
	}
	if !(luma(got[0]) > luma(got[2]) && luma(got[2]) > luma(got[1])) {
		t.Errorf("lit face %v not brighter than top %v and shaded side %v", got[0], got[2], got[1])
	}
	// Background around; object pixels only inside the box's silhouette.
	for _, p := range []mgl64.Vec3{{0, 0, 1.6}, {-1, -2.5, -1.5}, {2.5, 2.5, -2}} {
		if c := at(t, img, cam, p); c != white {
			t.Errorf("pixel at %v = %v, want background", p, c)
		}
	}
	for _, xy := range [][2]int{{0, 0}, {319, 0}, {0, 239}, {319, 239}} {
		if c := img.RGBAAt(xy[0], xy[1]); c != white {
			t.Errorf("corner %v = %v", xy, c)
		}
	}
	// The silhouette is the hexagon of the corners' projections: count.
	object := 0
	for i := 0; i < len(img.Pix); i += 4 {
		if img.Pix[i] != 0xff || img.Pix[i+1] != 0xff || img.Pix[i+2] != 0xff {
			object++
		}
	}
	if frac := float64(object) / (320 * 240); frac < 0.05 || frac > 0.5 {
		t.Errorf("%.1f %% of the pixels are the box's", 100*frac)
	}
}

// TestRenderSeams checks that a face split into two triangles shows no
// trace of its diagonal, and that it would without the seam cover.
func TestRenderSeams(t *testing.T) {
	cam := view3d.Camera{Eye: mgl64.Vec3{2.5, -3, 2}, Target: mgl64.Vec3{}}
	box := []view3d.Instance{{Shape: unitBox(t), Pose: narrow.Identity}}
	worst := func(img *image.RGBA) int {
		w := 0
		// The diagonals of the +z and +x faces (both split along them).
		for _, d := range [][3]mgl64.Vec3{
			{{-1, -1, 1}, {1, 1, 1}, {0.3, -0.3, 1}},
			{{1, -1, -1}, {1, 1, 1}, {1, -0.3, 0.3}},
		} {
			ref := at(t, img, cam, d[2])
			for s := 0.2; s <= 0.8; s += 0.01 {
				x0, y0, _, _ := cam.Project(400, 300, d[0])
				x1, y1, _, _ := cam.Project(400, 300, d[1])
				x, y := int(x0+s*(x1-x0)), int(y0+s*(y1-y0))
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						c := img.RGBAAt(x+dx, y+dy)
						w = max(w, int(math.Abs(float64(c.R)-float64(ref.R))), int(math.Abs(float64(c.B)-float64(ref.B))))
					}
				}
			}
		}
		return w
	}
	img, err := view3d.Render(400, 300, cam, box, view3d.WithBackground(white))
	if err != nil {
		t.Fatal(err)
	}
	if w := worst(img); w > 2 {
		t.Errorf("face diagonals differ from their faces by up to %d levels", w)
	}
	// The option no longer changes anything: the depth buffer leaves no
	// seams to cover.
	img, err = view3d.Render(400, 300, cam, box, view3d.WithBackground(white), view3d.WithSeamCover(0))
	if err != nil {
		t.Fatal(err)
	}
	if w := worst(img); w > 2 {
		t.Errorf("without seam cover the face diagonals differ from their faces by up to %d levels", w)
	}
}

// TestRenderOcclusion: a small cube in front of the far end of a long wall
// seen at a slant shows in front of it (the wall's triangles, whose
// centroids are nearer than the cube, used to be painted over it), and
// a cube behind the wall is hidden by it.
func TestRenderOcclusion(t *testing.T) {
	wall, err := narrow.NewBox(mgl64.Vec3{-0.1, 0, 0}, mgl64.Vec3{0.1, 2, 20})
	if err != nil {
		t.Fatal(err)
	}
	cube, err := narrow.NewBox(mgl64.Vec3{-0.2, -0.2, -0.2}, mgl64.Vec3{0.2, 0.2, 0.2})
	if err != nil {
		t.Fatal(err)
	}
	red, grey := color.RGBA{0xff, 0, 0, 0xff}, color.RGBA{0x80, 0x80, 0x80, 0xff}
	cam := view3d.Camera{Eye: mgl64.Vec3{3, 1, -2}, Target: mgl64.Vec3{0, 1, 10}, Up: mgl64.Vec3{0, 1, 0}}
	front, behind := mgl64.Vec3{0.5, 1, 15}, mgl64.Vec3{-0.5, 1, 15}
	for _, tc := range []struct {
		at   mgl64.Vec3
		seen bool
	}{{front, true}, {behind, false}} {
		img, err := view3d.Render(400, 300, cam, []view3d.Instance{
			{Shape: wall, Pose: narrow.Identity, Color: grey},
			{Shape: cube, Pose: narrow.Pose{Pos: tc.at, Rot: mgl64.QuatIdent()}, Color: red},
		}, view3d.WithBackground(white), view3d.WithLight(mgl64.Vec3{0, 1, 0}, 1))
		if err != nil {
			t.Fatal(err)
		}
		c := at(t, img, cam, tc.at)
		if isRed := c.R > 0xc0 && c.G < 0x40 && c.B < 0x40; isRed != tc.seen {
			t.Errorf("cube at %v: pixel %v, want it seen %v", tc.at, c, tc.seen)
		}
	}
}

func TestRenderBunny(t *testing.T) {
	bunny := loadBunny(t)
	mp, err := bunny.MassProps(1)
	if err != nil {
		t.Fatal(err)
	}
	// The bunny's file is y-up: stand it on z.
	pose := narrow.Pose{Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})}
	center := pose.Rot.Rotate(mp.Centroid)
	cam := view3d.Camera{Eye: center.Add(mgl64.Vec3{2.5, -3.5, 1.5}), Target: center}
	col := color.RGBA{0xd9, 0xa0, 0x6a, 0xff}
	inst := []view3d.Instance{{Shape: bunny, Pose: pose, Color: col}}
	render := func(toLight mgl64.Vec3) *image.RGBA {
		img, err := view3d.Render(240, 180, cam, inst, view3d.WithBackground(white), view3d.WithLight(toLight, 0.25), view3d.WithTitle("bunny"))
		if err != nil {
			t.Fatal(err)
		}
		return roundTrip(t, img)
	}
	front := cam.Eye.Sub(cam.Target) // light from the camera
	img := render(front)
	// The centroid is inside the bunny: its projection is a bunny pixel.
	if c := at(t, img, cam, center); c == white || c.R < c.B {
		t.Errorf("pixel at the bunny's centroid = %v, want bunny colour", c)
	}
	if c := img.RGBAAt(239, 179); c != white {
		t.Errorf("corner pixel = %v, want background", c)
	}
	// Lit from the camera, the bunny is brighter than lit from behind.
	back := render(front.Mul(-1))
	var sumF, sumB float64
	n := 0
	for y := 40; y < 180; y++ { // below the title
		for x := range 240 {
			cf, cb := img.RGBAAt(x, y), back.RGBAAt(x, y)
			if cf == white || cb == white {
				continue
			}
			sumF += luma(cf)
			sumB += luma(cb)
			n++
		}
	}
	if n < 500 {
		t.Fatalf("only %d bunny pixels", n)
	}
	if !(sumF > 1.5*sumB) {
		t.Errorf("mean luma lit from the front %.1f, from behind %.1f", sumF/float64(n), sumB/float64(n))
	}
	// The title is dark text in the top left corner.
	dark := 0
	for y := range 20 {
		for x := range 60 {
			if luma(img.RGBAAt(x, y)) < 100 {
				dark++
			}
		}
	}
	if dark < 10 {
		t.Errorf("title: %d dark pixels in the top left corner", dark)
	}
}

func TestRenderEmpty(t *testing.T) {
	cam := view3d.Camera{Eye: mgl64.Vec3{0, -5, 3}, Target: mgl64.Vec3{}}
	bg := color.RGBA{10, 20, 30, 255}
	img, err := view3d.Render(64, 48, cam, nil, view3d.WithBackground(bg))
	if err != nil {
		t.Fatal(err)
	}
	for y := range 48 {
		for x := range 64 {
			if c := img.RGBAAt(x, y); c != bg {
				t.Fatalf("pixel (%d, %d) = %v, want background %v", x, y, c, bg)
			}
		}
	}
	// The default sky is a gradient, lighter at the bottom.
	img, err = view3d.Render(64, 48, cam, []view3d.Instance{})
	if err != nil {
		t.Fatal(err)
	}
	top, bottom := img.RGBAAt(32, 0), img.RGBAAt(32, 47)
	if top == bottom || img.RGBAAt(0, 0) != top || img.RGBAAt(63, 47) != bottom {
		t.Errorf("sky: top %v, bottom %v", top, bottom)
	}
}

// TestRenderGridNearPlane: a grid that passes behind the camera, and a
// bunny cut by the near plane.
func TestRenderGridNearPlane(t *testing.T) {
	fill := color.RGBA{0xee, 0xea, 0xe0, 0xff}
	lines := color.RGBA{0x40, 0x40, 0x40, 0xff}
	cam := view3d.Camera{Eye: mgl64.Vec3{0, -2, 1}, Target: mgl64.Vec3{0, 5, 0}}
	g := view3d.Grid{Spacing: 1, Lines: 20, Color: lines, Fill: fill}
	bunny := loadBunny(t)
	inst := []view3d.Instance{{Shape: bunny, Pose: narrow.Pose{Pos: mgl64.Vec3{0.55, -1.6, 0.6}, Rot: mgl64.QuatIdent()}}}
	img, err := view3d.Render(200, 150, cam, inst, view3d.WithGrid(g), view3d.WithBackground(white))
	if err != nil {
		t.Fatal(err)
	}
	// Below the horizon the ground: its fill or lines, never the sky (the
	// bunny is on the right).
	ground, sky := 0, 0
	for y := 120; y < 150; y++ {
		for x := range 100 {
			switch img.RGBAAt(x, y) {
			case white:
				sky++
			case fill:
				ground++
			}
		}
	}
	if sky > 0 || ground < 800 {
		t.Errorf("lower band: %d ground-fill pixels, %d sky pixels", ground, sky)
	}
	// The bunny straddles the near plane: part of it fills the view.
	bunnyPx := 0
	for i := 0; i < len(img.Pix); i += 4 {
		c := color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}
		if int(c.B) > int(c.R)+20 {
			bunnyPx++
		}
	}
	if bunnyPx < 100 {
		t.Errorf("%d bunny pixels", bunnyPx)
	}
}

func TestRenderDeterministic(t *testing.T) {
	bunny := loadBunny(t)
	cam := view3d.Camera{Eye: mgl64.Vec3{6, -8, 5}, Target: mgl64.Vec3{1.5, 1.5, 0}}
	var inst []view3d.Instance
	for i := range 9 {
		q := mgl64.QuatRotate(float64(i), mgl64.Vec3{0, 0, 1})
		// Pairs of coincident bunnies: equal depths, decided by index.
		for k := range 2 {
			inst = append(inst, view3d.Instance{Shape: bunny, Pose: narrow.Pose{Pos: mgl64.Vec3{float64(i % 3 * 2), float64(i / 3 * 2), 0}, Rot: q},
				Color: color.RGBA{uint8(40 * k), 90, 200, 255}})
		}
	}
	opts := []view3d.Option{view3d.WithGrid(view3d.Grid{Spacing: 0.5, Lines: 10}), view3d.WithTitle("nine bunnies")}
	a, err := view3d.Render(160, 120, cam, inst, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var r view3d.Renderer
	for range 2 {
		b, err := r.Render(160, 120, cam, inst, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Pix, b.Pix) {
			t.Fatal("same scene, different pictures")
		}
	}
	dst := image.NewRGBA(image.Rect(0, 0, 160, 120))
	for range 2 {
		if err := r.RenderInto(dst, cam, inst, opts...); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Pix, dst.Pix) {
			t.Fatal("RenderInto differs from Render")
		}
	}
}

func TestRenderErrors(t *testing.T) {
	box := unitBox(t)
	square, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	cam := view3d.Camera{Eye: mgl64.Vec3{3, -4, 2}}
	ok := []view3d.Instance{{Shape: box, Pose: narrow.Identity}}
	nan := math.NaN()
	tests := []struct {
		name string
		w, h int
		cam  view3d.Camera
		inst []view3d.Instance
		opts []view3d.Option
		also error
	}{
		{"NaN pose", 64, 48, cam, []view3d.Instance{ok[0], {Shape: box, Pose: narrow.Pose{Pos: mgl64.Vec3{nan, 0, 0}, Rot: mgl64.QuatIdent()}}}, nil, narrow.ErrBadPose},
		{"NaN quaternion", 64, 48, cam, []view3d.Instance{{Shape: box, Pose: narrow.Pose{Rot: mgl64.Quat{W: nan}}}}, nil, narrow.ErrBadPose},
		{"zero quaternion", 64, 48, cam, []view3d.Instance{{Shape: box}}, nil, narrow.ErrBadPose},
		{"nil shape", 64, 48, cam, []view3d.Instance{{Pose: narrow.Identity}}, nil, nil},
		{"2D shape", 64, 48, cam, []view3d.Instance{{Shape: square, Pose: narrow.Identity}}, nil, nil},
		{"zero width", 0, 48, cam, ok, nil, nil},
		{"negative height", 64, -1, cam, ok, nil, nil},
		{"huge", 1 << 20, 10, cam, ok, nil, nil},
		{"eye on target", 64, 48, view3d.Camera{Eye: mgl64.Vec3{1, 1, 1}, Target: mgl64.Vec3{1, 1, 1}}, ok, nil, nil},
		{"NaN eye", 64, 48, view3d.Camera{Eye: mgl64.Vec3{nan, 1, 1}}, ok, nil, nil},
		{"up along view", 64, 48, view3d.Camera{Eye: mgl64.Vec3{0, 0, 5}}, ok, nil, nil},
		{"FOV π", 64, 48, view3d.Camera{Eye: mgl64.Vec3{3, 3, 3}, FOV: math.Pi}, ok, nil, nil},
		{"FOV NaN", 64, 48, view3d.Camera{Eye: mgl64.Vec3{3, 3, 3}, FOV: nan}, ok, nil, nil},
		{"zero light", 64, 48, cam, ok, []view3d.Option{view3d.WithLight(mgl64.Vec3{}, 0.3)}, nil},
		{"ambient above 1", 64, 48, cam, ok, []view3d.Option{view3d.WithLight(mgl64.Vec3{0, 0, 1}, 1.5)}, nil},
		{"grid without spacing", 64, 48, cam, ok, []view3d.Option{view3d.WithGrid(view3d.Grid{Lines: 3})}, nil},
		{"NaN seam cover", 64, 48, cam, ok, []view3d.Option{view3d.WithSeamCover(nan)}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			img, err := view3d.Render(tc.w, tc.h, tc.cam, tc.inst, tc.opts...)
			if !errors.Is(err, view3d.ErrBadInput) || img != nil {
				t.Fatalf("Render = %v, %v; want ErrBadInput", img != nil, err)
			}
			if tc.also != nil && !errors.Is(err, tc.also) {
				t.Errorf("%v does not wrap %v", err, tc.also)
			}
		})
	}
	var r view3d.Renderer
	if err := r.RenderInto(nil, cam, ok); !errors.Is(err, view3d.ErrBadInput) {
		t.Errorf("RenderInto(nil) = %v", err)
	}
	sub := image.NewRGBA(image.Rect(10, 10, 20, 20))
	if err := r.RenderInto(sub, cam, ok); !errors.Is(err, view3d.ErrBadInput) {
		t.Errorf("RenderInto(offset image) = %v", err)
	}
	if _, _, _, err := (view3d.Camera{}).Project(10, 10, mgl64.Vec3{}); !errors.Is(err, view3d.ErrBadInput) {
		t.Errorf("Project with eye on target: %v", err)
	}
	if _, _, inFront, err := cam.Project(10, 10, mgl64.Vec3{6, -8, 4}); err != nil || inFront {
		t.Errorf("Project of a point behind the camera: in front %v, %v", inFront, err)
	}
}

// bunnies512 is the paper's avalanche: 512 bunnies, 461,824 triangles.
func bunnies512(t testing.TB) ([]view3d.Instance, view3d.Camera) {
	bunny := loadBunny(t)
	s := bunny.Size()
	up := mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{1, 0, 0})
	var inst []view3d.Instance
	for i := range 8 {
		for j := range 8 {
			for k := range 8 {
				q := mgl64.QuatRotate(float64(i*64+j*8+k)*0.7, mgl64.Vec3{0, 0, 1}).Mul(up)
				inst = append(inst, view3d.Instance{Shape: bunny,
					Pose:  narrow.Pose{Pos: mgl64.Vec3{float64(i) * 1.6 * s, float64(j) * 1.6 * s, float64(k)*1.6*s + s}, Rot: q},
					Color: color.RGBA{uint8(80 + 20*i), uint8(80 + 20*j), uint8(80 + 20*k), 255}})
			}
		}
	}
	c := mgl64.Vec3{5.6 * s, 5.6 * s, 6 * s}
	return inst, view3d.Camera{Eye: c.Add(mgl64.Vec3{14 * s, -20 * s, 12 * s}), Target: c}
}

func TestRender512Bunnies(t *testing.T) {
	inst, cam := bunnies512(t)
	tris := 0
	for _, in := range inst {
		tris += in.Shape.NumPrims()
	}
	var r view3d.Renderer
	start := time.Now()
	img, err := r.Render(1024, 768, cam, inst, view3d.WithGrid(view3d.Grid{Spacing: 1, Lines: 20}), view3d.WithTitle("512 bunnies"))
	if err != nil {
		t.Fatal(err)
	}
	el := time.Since(start)
	t.Logf("%d instances, %d triangles: %v", len(inst), tris, el)
	if el > 60*time.Second {
		t.Errorf("rendering %d triangles took %v", tris, el)
	}
	// A coloured cube of bunnies fills the middle of the picture.
	coloured := 0
	for y := 200; y < 568; y++ {
		for x := 312; x < 712; x++ {
			c := img.RGBAAt(x, y)
			if max(c.R, c.G, c.B)-min(c.R, c.G, c.B) > 30 {
				coloured++
			}
		}
	}
	if coloured < 30000 {
		t.Errorf("%d coloured pixels in the middle", coloured)
	}
}

// BenchmarkRender512Bunnies draws the 512 bunnies of the paper's
// avalanche (461,824 triangles) into the same image again and again:
// alone at 1280×720, and as irtcd demo3d draws its frames (640×400, the
// ground's grid, a title).
func BenchmarkRender512Bunnies(b *testing.B) {
	inst, cam := bunnies512(b)
	grid := view3d.WithGrid(view3d.Grid{Spacing: 1, Lines: 30, Color: color.RGBA{0x9a, 0x9a, 0x9a, 0xff}, Fill: color.RGBA{0xe6, 0xe3, 0xdc, 0xff}})
	for _, bc := range []struct {
		name string
		w, h int
		opts []view3d.Option
	}{
		{"alone", 1280, 720, nil},
		{"frame", 640, 400, []view3d.Option{grid, view3d.WithTitle("avalanche, 512 objects")}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var r view3d.Renderer
			dst := image.NewRGBA(image.Rect(0, 0, bc.w, bc.h))
			if err := r.RenderInto(dst, cam, inst, bc.opts...); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := r.RenderInto(dst, cam, inst, bc.opts...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestPalette: the palette holds the base colours, the default sky's ends
// and every shade the default light gives, closely enough that a picture
// mapped to it by nearest colour stays within a few levels of the
// original; bad numbers of base colours are refused.
func TestPalette(t *testing.T) {
	for _, n := range []int{0, 33} {
		if _, err := view3d.Palette(make([]color.RGBA, n)...); !errors.Is(err, view3d.ErrBadInput) {
			t.Errorf("%d base colours: %v, want ErrBadInput", n, err)
		}
	}
	orange, grid, fill := color.RGBA{0xd9, 0x8c, 0x4a, 0xff}, color.RGBA{0x9a, 0x9a, 0x9a, 0xff}, color.RGBA{0xe6, 0xe3, 0xdc, 0xff}
	pal, err := view3d.Palette(orange, view3d.DefaultColor, grid, fill)
	if err != nil {
		t.Fatal(err)
	}
	if len(pal) > 256 {
		t.Fatalf("%d colours", len(pal))
	}
	for _, c := range []color.RGBA{orange, view3d.DefaultColor, grid, fill, {0xc9, 0xdc, 0xef, 0xff}, {0xf4, 0xf1, 0xea, 0xff}} {
		if pal[pal.Index(c)] != c {
			t.Errorf("%v not in the palette (nearest %v)", c, pal[pal.Index(c)])
		}
	}
	bunny := loadBunny(t)
	cam := view3d.Camera{Eye: mgl64.Vec3{2, 1.5, 2.5}, Target: mgl64.Vec3{-0.5, 0, -0.4}, Up: mgl64.Vec3{0, 1, 0}}
	img, err := view3d.Render(200, 150, cam, []view3d.Instance{
		{Shape: bunny, Pose: narrow.Identity, Color: orange},
		{Shape: bunny, Pose: narrow.Pose{Pos: mgl64.Vec3{-1.2, 0, -1}, Rot: mgl64.QuatIdent()}},
	}, view3d.WithGrid(view3d.Grid{Center: mgl64.Vec3{0, -0.67, 0}, Normal: mgl64.Vec3{0, 1, 0}, Spacing: 0.5, Lines: 10, Color: grid, Fill: fill}),
		view3d.WithTitle("palette"))
	if err != nil {
		t.Fatal(err)
	}
	var sum, worst, lit int
	for i := 0; i < len(img.Pix); i += 4 {
		c := color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}
		q := pal[pal.Index(c)].(color.RGBA)
		if int(c.R)-int(c.B) > 40 || int(c.B)-int(c.R) > 60 {
			lit++ // a shade of orange or of the default blue: the bunnies
		}
		for _, d := range []int{int(c.R) - int(q.R), int(c.G) - int(q.G), int(c.B) - int(q.B)} {
			sum += max(d, -d)
			worst = max(worst, d, -d)
		}
	}
	if lit < len(img.Pix)/4/20 {
		t.Fatalf("the bunnies cover %d pixels of %d: the picture does not test the shades", lit, len(img.Pix)/4)
	}
	if mean := float64(sum) / float64(3*len(img.Pix)/4); mean > 2 {
		t.Errorf("mean error per channel %.2f levels (worst %d), want at most 2", mean, worst)
	} else {
		t.Logf("mean error per channel %.2f levels (worst %d); bunnies on %d pixels", mean, worst, lit)
	}
}

// TestRenderIntoAllocs: drawing a scene again into the same image reuses
// the Renderer's buffers and colours: at most a couple of allocations, not
// one per triangle or pixel (a title's text, drawn by gg, allocates for its
// glyphs; it is left out).
func TestRenderIntoAllocs(t *testing.T) {
	bunny := loadBunny(t)
	cam := view3d.Camera{Eye: mgl64.Vec3{2, 1.5, 2.5}, Target: mgl64.Vec3{-0.5, 0, -0.4}, Up: mgl64.Vec3{0, 1, 0}}
	inst := []view3d.Instance{
		{Shape: bunny, Pose: narrow.Identity},
		{Shape: bunny, Pose: narrow.Pose{Pos: mgl64.Vec3{-1.2, 0, -1}, Rot: mgl64.QuatIdent()}},
	}
	opts := []view3d.Option{view3d.WithGrid(view3d.Grid{Center: mgl64.Vec3{0, -0.67, 0}, Normal: mgl64.Vec3{0, 1, 0}, Spacing: 0.5, Lines: 10,
		Color: color.RGBA{0x9a, 0x9a, 0x9a, 0xff}, Fill: color.RGBA{0xe6, 0xe3, 0xdc, 0xff}})}
	img := image.NewRGBA(image.Rect(0, 0, 200, 150))
	var r view3d.Renderer
	if err := r.RenderInto(img, cam, inst, opts...); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if err := r.RenderInto(img, cam, inst, opts...); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 {
		t.Errorf("%.0f allocations to draw %d triangles again", allocs, 2*bunny.NumPrims())
	}
}

// TestSavePNG: SavePNG writes a file that decodes to the image; a path
// that cannot be created is an error naming it.
func TestSavePNG(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{0x10, 0x20, 0x30, 0xff})
	path := filepath.Join(t.TempDir(), "a.png")
	if err := view3d.SavePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if dec.Bounds() != img.Bounds() || color.RGBAModel.Convert(dec.At(1, 1)) != img.At(1, 1) {
		t.Errorf("decoded %v, pixel %v; want %v, %v", dec.Bounds(), dec.At(1, 1), img.Bounds(), img.At(1, 1))
	}
	bad := filepath.Join(t.TempDir(), "missing", "a.png")
	if err := view3d.SavePNG(bad, img); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("SavePNG(%s): %v, want an error naming it", bad, err)
	}
}
