package gltfscene_test

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/narrow/gltfmesh"
	"github.com/irtcd/irtcd/sim/gltfscene"
	"github.com/irtcd/irtcd/sim/rigid"
)

// bodies lists the world's bodies as a frame of the recording.
func bodies(w *rigid.World) []gltfscene.Body {
	var out []gltfscene.Body
	for _, in := range w.Instances(nil) {
		c := color.RGBA{0xd9, 0x8c, 0x3d, 0xff}
		if in.Static {
			c = color.RGBA{}
		}
		out = append(out, gltfscene.Body{Key: int64(in.Body), Shape: in.Shape, Pose: in.Pose, Color: c})
	}
	return out
}

// TestRecord records boxes falling on a ground box, one of them added
// half way, and reads the file back: a node per body, an animation keying
// every body at every frame at the world's poses (float32), the late box
// hidden until it appears, and narrow/gltfmesh's ParseObjects finding each
// body's mesh (welded back to the shape's vertices) where the first frame
// put it.
func TestRecord(t *testing.T) {
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ground, err := narrow.NewBox(mgl64.Vec3{-5, -1, -5}, mgl64.Vec3{5, 0, 5})
	if err != nil {
		t.Fatal(err)
	}
	box, err := narrow.NewBox(mgl64.Vec3{-0.25, -0.25, -0.25}, mgl64.Vec3{0.25, 0.25, 0.25})
	if err != nil {
		t.Fatal(err)
	}
	def := rigid.NewBodyDef(ground, narrow.Identity)
	def.Static = true
	if _, err := w.AddBody(def); err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		pose := narrow.Pose{Pos: mgl64.Vec3{float64(k) - 1, 1 + 0.3*float64(k), 0}, Rot: mgl64.QuatRotate(0.4*float64(k), mgl64.Vec3{0, 0, 1})}
		if _, err := w.AddBody(rigid.NewBodyDef(box, pose)); err != nil {
			t.Fatal(err)
		}
	}
	var rec gltfscene.Recorder
	const frames = 30
	var last, firstFrame []gltfscene.Body
	for f := range frames {
		if f == frames/2 {
			if _, err := w.AddBody(rigid.NewBodyDef(box, narrow.Pose{Pos: mgl64.Vec3{0, 2, 1}, Rot: mgl64.QuatIdent()})); err != nil {
				t.Fatal(err)
			}
		}
		last = bodies(w)
		if f == 0 {
			firstFrame = last
		}
		if err := rec.Frame(w.Time(), last); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := w.Step(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
	}
	var file bytes.Buffer
	n, err := rec.WriteTo(&file)
	if err != nil || n != int64(file.Len()) {
		t.Fatalf("WriteTo: %d bytes (buffer %d), %v", n, file.Len(), err)
	}

	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(file.Bytes())).Decode(doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Nodes) != 5 || len(doc.Meshes) != 2 || len(doc.Animations) != 1 {
		t.Fatalf("%d nodes, %d meshes, %d animations; want 5, 2 (ground, box), 1", len(doc.Nodes), len(doc.Meshes), len(doc.Animations))
	}
	anim := doc.Animations[0]
	if len(anim.Channels) != 2*5+1 {
		t.Fatalf("%d channels, want a translation and a rotation per body and the late box's scale", len(anim.Channels))
	}
	read := func(sampler int, output bool) any {
		s := anim.Samplers[sampler]
		a := s.Input
		if output {
			a = s.Output
		}
		v, err := modeler.ReadAccessor(doc, doc.Accessors[a], nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	times := read(0, false).([]float32)
	if len(times) != frames || math.Abs(float64(times[frames-1])-(frames-1)*2.0/60) > 1e-6 {
		t.Fatalf("times %v", times)
	}
	for _, ch := range anim.Channels {
		node, out := *ch.Target.Node, read(ch.Sampler, true)
		switch ch.Target.Path {
		case gltf.TRSTranslation:
			pos := out.([][3]float32)
			want := last[node].Pose.Pos
			if got := pos[frames-1]; math.Abs(float64(got[0])-want[0])+math.Abs(float64(got[1])-want[1])+math.Abs(float64(got[2])-want[2]) > 1e-6 {
				t.Errorf("node %d: last translation %v, want %v", node, got, want)
			}
		case gltf.TRSRotation:
			rot := out.([][4]float32)
			q := last[node].Pose.Rot
			got := mgl64.Quat{W: float64(rot[frames-1][3]), V: mgl64.Vec3{float64(rot[frames-1][0]), float64(rot[frames-1][1]), float64(rot[frames-1][2])}}
			if math.Abs(math.Abs(got.Dot(q))-1) > 1e-6 {
				t.Errorf("node %d: last rotation %v, want ±%v", node, got, q)
			}
			for f := 1; f < frames; f++ {
				a, b := rot[f-1], rot[f]
				if a[0]*b[0]+a[1]*b[1]+a[2]*b[2]+a[3]*b[3] < 0 {
					t.Errorf("node %d: frames %d and %d turn the long way", node, f-1, f)
				}
			}
		case gltf.TRSScale:
			scale := out.([][3]float32)
			if node != 4 || scale[frames/2-1] != [3]float32{} || scale[frames/2] != [3]float32{1, 1, 1} {
				t.Errorf("scale of node %d: %v; want the late box's, 0 until frame %d", node, scale, frames/2)
			}
		}
	}

	objs, err := gltfmesh.ParseObjects(bytes.NewReader(file.Bytes()), "run.glb", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 5 {
		t.Fatalf("%d objects, want 5", len(objs))
	}
	for i, o := range objs[:4] {
		if len(o.Vertices) != 8 || len(o.Triangles) != 12 {
			t.Errorf("object %d: %d vertices, %d triangles; want a box's 8, 12", i, len(o.Vertices), len(o.Triangles))
		}
		// Each box is centred on its shape's origin: its corners' mean is
		// its position in the first frame.
		var mean mgl64.Vec3
		for _, v := range o.Vertices {
			mean = mean.Add(v.Mul(1.0 / 8))
		}
		b := firstFrame[i]
		tr := b.Pose.Transform()
		want := tr.Apply(b.Shape.Bounds().Min.Add(b.Shape.Bounds().Max).Mul(0.5))
		if mean.Sub(want).Len() > 1e-5 {
			t.Errorf("object %d at %v, want %v (its first frame)", i, mean, want)
		}
	}
}

// TestFrameErrors: frames that cannot be recorded are refused, and leave
// the recording as it was.
func TestFrameErrors(t *testing.T) {
	box, err := narrow.NewBox(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := narrow.NewBox(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	square, err := narrow.NewPolygon([]mgl64.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	var rec gltfscene.Recorder
	if _, err := rec.WriteTo(&bytes.Buffer{}); !errors.Is(err, gltfscene.ErrFrame) {
		t.Errorf("WriteTo with no frame: %v", err)
	}
	ok := gltfscene.Body{Key: 1, Shape: box, Pose: narrow.Identity}
	if err := rec.Frame(1, []gltfscene.Body{ok}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		t      float64
		bodies []gltfscene.Body
	}{
		{"same time", 1, []gltfscene.Body{ok}},
		{"earlier", 0.5, []gltfscene.Body{ok}},
		{"NaN time", math.NaN(), []gltfscene.Body{ok}},
		{"no shape", 2, []gltfscene.Body{{Key: 2, Pose: narrow.Identity}}},
		{"2D shape", 2, []gltfscene.Body{{Key: 2, Shape: square, Pose: narrow.Identity}}},
		{"key twice", 2, []gltfscene.Body{ok, ok}},
		{"shape changed", 2, []gltfscene.Body{{Key: 1, Shape: other, Pose: narrow.Identity}}},
		{"NaN pose", 2, []gltfscene.Body{{Key: 1, Shape: box, Pose: narrow.Pose{Pos: mgl64.Vec3{math.NaN(), 0, 0}, Rot: mgl64.QuatIdent()}}}},
		{"zero rotation", 2, []gltfscene.Body{{Key: 1, Shape: box}}},
	} {
		if err := rec.Frame(tt.t, tt.bodies); !errors.Is(err, gltfscene.ErrFrame) {
			t.Errorf("%s: %v, want ErrFrame", tt.name, err)
		}
	}
	if rec.Frames() != 1 {
		t.Errorf("%d frames after refused ones, want 1", rec.Frames())
	}
	// A one-frame recording has no animation.
	var file bytes.Buffer
	if _, err := rec.WriteTo(&file); err != nil {
		t.Fatal(err)
	}
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(&file).Decode(doc); err != nil || len(doc.Animations) != 0 || len(doc.Nodes) != 1 {
		t.Errorf("one frame: %d animations, %d nodes, %v", len(doc.Animations), len(doc.Nodes), err)
	}
}
