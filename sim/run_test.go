package sim

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"slices"
	"strings"
	"testing"

	b2 "github.com/ByteArena/box2d"

	"github.com/irtcd/irtcd/adapter/box2dadapter"
)

// TestRunCallbacks: progress after every step, frames before the first
// step, every FrameEvery steps and after the last, metrics for every step.
func TestRunCallbacks(t *testing.T) {
	const total, every = 25, 10
	var progress, frames []int
	tr, err := Run(context.Background(), Avalanche(), Options{
		Params:     Params2D{N: 4},
		Steps:      total,
		FrameEvery: every,
		OnProgress: func(step, n int) {
			if n != total {
				t.Errorf("progress total %d, want %d", n, total)
			}
			progress = append(progress, step)
		},
		OnFrame: func(f Frame) error {
			if f.World == nil || f.Scene != "avalanche" || f.View.Dx() <= 0 {
				t.Errorf("bad frame %+v", f)
			}
			frames = append(frames, f.Step)
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(progress) != total || progress[0] != 1 || progress[total-1] != total {
		t.Errorf("progress calls %v", progress)
	}
	if want := []int{0, 10, 20, 25}; !slices.Equal(frames, want) {
		t.Errorf("frames at steps %v, want %v", frames, want)
	}
	if len(tr.Steps) != total || tr.Steps[total-1].Step != total-1 || len(tr.Final) != 4 {
		t.Errorf("trace: %d steps, %d bodies", len(tr.Steps), len(tr.Final))
	}
	if tr.Dt != DefaultDt || tr.N != 4 || tr.Scene != "avalanche" {
		t.Errorf("trace header %+v", tr)
	}
}

// TestRunCancel: cancelling the context stops the run; the trace holds the
// steps done.
func TestRunCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tr, err := Run(ctx, Cup(), Options{Params: Params2D{N: 2}, Steps: 100, OnProgress: func(step, _ int) {
		if step == 5 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if tr == nil || len(tr.Steps) != 5 {
		t.Fatalf("trace after cancel: %+v", tr)
	}
}

// TestRunFrameError: an error from OnFrame stops the run and is returned.
func TestRunFrameError(t *testing.T) {
	boom := errors.New("boom")
	_, err := Run(context.Background(), Stack(), Options{Params: Params2D{N: 2}, Steps: 10, FrameEvery: 3,
		OnFrame: func(f Frame) error {
			if f.Step == 3 {
				return boom
			}
			return nil
		}})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
}

// TestSceneBuildError: a scene whose Build fails makes New fail, with the
// scene's name and the cause.
func TestSceneBuildError(t *testing.T) {
	bad := Scene2D{Name: "bad", DefaultN: 1, Build: func(w *b2.B2World, p Params2D) (*Setup2D, error) {
		b := newBody(w, b2.B2BodyType.B2_dynamicBody, 0, 0, 0, 0)
		return nil, addOutline(b, []b2.B2Vec2{{X: 0, Y: 0}, {X: 1, Y: 0}, {X: 2, Y: 0}}, 1, false)
	}}
	_, err := New(bad, Options{})
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("err = %v", err)
	}
	if _, err := New(Scene2D{Name: "none"}, Options{}); err == nil {
		t.Fatal("a scene without Build was accepted")
	}
}

func TestSceneByName(t *testing.T) {
	for _, name := range SceneNames() {
		s, err := SceneByName(name)
		if err != nil || s.Name != name || s.Build == nil || s.DefaultN <= 0 || s.Steps(s.DefaultN) <= 0 {
			t.Errorf("%s: %+v, %v", name, s, err)
		}
	}
	if _, err := SceneByName("nope"); !errors.Is(err, ErrUnknownScene) {
		t.Errorf("unknown scene: err = %v", err)
	}
}

// TestOutlines: the generated outlines are valid irtcd polygons with the
// advertised vertex counts.
func TestOutlines(t *testing.T) {
	for _, tc := range []struct {
		name    string
		outline []b2.B2Vec2
		n       int
	}{
		{"gear", Gear(ObjectVertices/4, 0.5), ObjectVertices},
		{"star", Star(5, ObjectVertices, 0.7), ObjectVertices},
		{"blob", Blob(rng(3), ObjectVertices, 0.9), ObjectVertices},
		{"box", Box(1, 2), 4},
		{"cup", CupOutline(cupHalf, cupHeight, cupThickness, 200), 204},
		{"valley", ValleyOutline(valleyHalf, valleyHeight, 1, 200), 202},
	} {
		if len(tc.outline) != tc.n {
			t.Errorf("%s: %d vertices, want %d", tc.name, len(tc.outline), tc.n)
		}
		if _, err := box2dadapter.NewShape(tc.outline); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// TestRenderGIFPNGPlot: frames of every scene render; the GIF, the PNG of
// the last frame and the plot decode.
func TestRenderGIFPNGPlot(t *testing.T) {
	r := &Renderer{Width: 160}
	for _, sc := range Scenes() {
		t.Run(sc.Name, func(t *testing.T) {
			a := NewAnimation(10)
			tr, err := Run(context.Background(), sc, Options{Params: Params2D{N: 3}, Steps: 12, FrameEvery: 6, OnFrame: a.Record(r)})
			if err != nil {
				t.Fatal(err)
			}
			if a.Len() != 3 {
				t.Fatalf("%d frames, want 3", a.Len())
			}
			last := a.Last()
			if w := last.Bounds().Dx(); w != 160 {
				t.Errorf("frame width %d", w)
			}
			// Something besides the background was drawn.
			bg, drawn := last.RGBAAt(0, last.Bounds().Dy()-1), 0
			for y := range last.Bounds().Dy() {
				for x := range last.Bounds().Dx() {
					if last.RGBAAt(x, y) != bg {
						drawn++
					}
				}
			}
			if drawn < 100 {
				t.Errorf("only %d pixels drawn", drawn)
			}
			var g, p, pl bytes.Buffer
			if err := a.WriteGIF(&g); err != nil {
				t.Fatal(err)
			}
			anim, err := gif.DecodeAll(&g)
			if err != nil {
				t.Fatal(err)
			}
			if len(anim.Image) != 3 || anim.Image[0].Bounds() != last.Bounds() {
				t.Errorf("GIF: %d frames of %v", len(anim.Image), anim.Image[0].Bounds())
			}
			if err := a.WritePNG(&p); err != nil {
				t.Fatal(err)
			}
			if img, err := png.Decode(&p); err != nil || img.Bounds() != last.Bounds() {
				t.Errorf("PNG: %v, %v", img, err)
			}
			if err := WritePlot(&pl, tr); err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(&pl); err != nil {
				t.Errorf("plot: %v", err)
			}
			var sum bytes.Buffer
			if _, err := tr.Summary().WriteTo(&sum); err != nil || !strings.Contains(sum.String(), "narrow phase") {
				t.Errorf("summary %q, %v", sum.String(), err)
			}
		})
	}
	var empty bytes.Buffer
	if err := NewAnimation(1).WriteGIF(&empty); err == nil {
		t.Error("empty animation encoded")
	}
}

// TestPaletteQuantises: the renderer's own colours map to themselves.
func TestPaletteQuantises(t *testing.T) {
	a := NewAnimation(1)
	if n := len(a.pal); n > 256 {
		t.Fatalf("palette of %d colours", n)
	}
	for _, c := range append([]color.RGBA{colBackground, colOutline}, colFill[:]...) {
		if got := a.pal[a.nearest(c)]; got != c {
			t.Errorf("colour %v quantised to %v", c, got)
		}
	}
}

// TestNewAnimationPalette: frames go to the given palette by nearest
// colour; palettes of no or too many colours are refused.
func TestNewAnimationPalette(t *testing.T) {
	for _, n := range []int{0, 257} {
		if _, err := NewAnimationPalette(1, make(color.Palette, n)); err == nil {
			t.Errorf("%d colours accepted", n)
		}
	}
	red, blue := color.RGBA{0xff, 0, 0, 0xff}, color.RGBA{0, 0, 0xff, 0xff}
	a, err := NewAnimationPalette(3, color.Palette{red, color.NRGBA{0, 0, 0xff, 0xff}}) // any color.Color
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 2, 1))
	img.SetRGBA(0, 0, color.RGBA{0xe0, 0x20, 0x10, 0xff})
	img.SetRGBA(1, 0, color.RGBA{0x10, 0x30, 0xd0, 0xff})
	a.Add(img)
	var buf bytes.Buffer
	if err := a.WriteGIF(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := [2]color.Color{g.Image[0].At(0, 0), g.Image[0].At(1, 0)}
	for i, want := range []color.RGBA{red, blue} {
		if color.RGBAModel.Convert(got[i]) != want {
			t.Errorf("pixel %d: %v, want %v", i, got[i], want)
		}
	}
	if g.Delay[0] < 3 {
		t.Errorf("delay %d", g.Delay[0])
	}
}

// TestSummaryAsleep checks Summary's sleeping figures: the bodies awake
// after the last step, and the first step after which none was, even if
// some woke again.
func TestSummaryAsleep(t *testing.T) {
	cases := []struct {
		awake         []int
		atEnd, asleep int
	}{
		{[]int{3, 2, 2}, 2, -1},
		{[]int{3, 0, 1, 0}, 0, 1},
		{[]int{0}, 0, 0},
		{nil, 0, -1},
	}
	for _, c := range cases {
		var tr Trace
		for i, a := range c.awake {
			tr.Steps = append(tr.Steps, StepMetrics{Step: i, Bodies: 3, Awake: a})
		}
		if s := tr.Summary(); s.Awake != c.atEnd || s.Asleep != c.asleep {
			t.Errorf("awake %v: Awake %d, Asleep %d; want %d, %d", c.awake, s.Awake, s.Asleep, c.atEnd, c.asleep)
		}
	}
}
