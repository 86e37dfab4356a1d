// Package gltfscene records a 3D simulation as an animated glTF 2.0 scene
// (a GLB file) that any glTF viewer plays back (Blender, three.js, the
// viewers of the Khronos Group and of web browsers): each body a node
// whose translation and rotation are keyed at every recorded frame, each
// shape a flat-shaded mesh, shared by the bodies that carry it. Where
// package view3d draws a frame as a picture from one camera, a recording
// can be turned and zoomed, and stepped frame by frame.
//
// A Recorder takes frames in time order (Frame), then writes them
// (WriteTo). Bodies are told apart by a key (a body ID), may appear after
// the first frame and vanish before the last: a body is hidden (scaled to
// zero, STEP interpolation) in the frames that do not list it.
//
// narrow/gltfmesh reads the file back: its ParseObjects gives one object
// per body, at its pose in the first frame (the bodies that appear later
// are there hidden, scaled to a point).
package gltfscene

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"github.com/irtcd/irtcd/internal/steploop"
	"github.com/irtcd/irtcd/narrow"
)

// A Body is one body in a frame.
type Body struct {
	Key   int64         // tells the body apart across frames (a body ID)
	Name  string        // its node's name ("" for "body KEY")
	Shape *narrow.Shape // a 3D shape; a body keeps its shape
	Pose  narrow.Pose
	Color color.RGBA // sRGB; the zero value is a light grey
}

// ErrFrame is wrapped by the errors of a frame that cannot be recorded.
var ErrFrame = errors.New("gltfscene: bad frame")

// A Recorder accumulates frames for one glTF scene. Its zero value is
// ready to use.
type Recorder struct {
	times  []float32
	tracks []*track       // in order of first appearance
	byKey  map[int64]int  // index in tracks
	seen   map[int64]bool // keys of the frame being added
}

// track is one body's keys.
type track struct {
	Body
	first   int          // the frame it first appears in
	present []bool       // per frame from first
	pos     [][3]float32 // per frame from first (the last pose held while absent)
	rot     [][4]float32 // x, y, z, w
}

// Frames returns the number of frames recorded.
func (r *Recorder) Frames() int { return len(r.times) }

// Frame records the bodies at time t (seconds), which must exceed the last
// frame's. On error (a time out of order, a shape that is not 3D or not
// the one the key had, a key twice, a pose not finite) nothing of the frame
// is recorded.
func (r *Recorder) Frame(t float64, bodies []Body) error {
	if n := len(r.times); math.IsNaN(t) || math.IsInf(t, 0) || n > 0 && float32(t) <= r.times[n-1] {
		return fmt.Errorf("%w: time %v after %v", ErrFrame, t, r.lastTime())
	}
	if r.byKey == nil {
		r.byKey, r.seen = map[int64]int{}, map[int64]bool{}
	}
	clear(r.seen)
	for i, b := range bodies {
		switch {
		case b.Shape == nil || b.Shape.Dim() != narrow.Dim3:
			return fmt.Errorf("%w: body %d (key %d): not a 3D shape", ErrFrame, i, b.Key)
		case r.seen[b.Key]:
			return fmt.Errorf("%w: body %d: key %d twice", ErrFrame, i, b.Key)
		case !finitePose(b.Pose):
			return fmt.Errorf("%w: body %d (key %d): pose %v", ErrFrame, i, b.Key, b.Pose)
		}
		if k, ok := r.byKey[b.Key]; ok && r.tracks[k].Shape != b.Shape {
			return fmt.Errorf("%w: body %d (key %d): its shape changed", ErrFrame, i, b.Key)
		}
		r.seen[b.Key] = true
	}
	f := len(r.times)
	r.times = append(r.times, float32(t))
	for _, b := range bodies {
		k, ok := r.byKey[b.Key]
		if !ok {
			k = len(r.tracks)
			r.byKey[b.Key] = k
			r.tracks = append(r.tracks, &track{Body: b, first: f})
		}
		tr := r.tracks[k]
		for len(tr.present) < f-tr.first { // frames it missed
			tr.hold()
		}
		q := b.Pose.Rot.Normalize()
		rot := [4]float32{float32(q.V[0]), float32(q.V[1]), float32(q.V[2]), float32(q.W)}
		if n := len(tr.rot); n > 0 && dot4(tr.rot[n-1], rot) < 0 {
			rot = [4]float32{-rot[0], -rot[1], -rot[2], -rot[3]} // the short way between keys
		}
		p := b.Pose.Pos
		tr.present = append(tr.present, true)
		tr.pos = append(tr.pos, [3]float32{float32(p[0]), float32(p[1]), float32(p[2])})
		tr.rot = append(tr.rot, rot)
	}
	return nil
}

// lastTime is the last frame's time, for errors.
func (r *Recorder) lastTime() any {
	if len(r.times) == 0 {
		return "none"
	}
	return r.times[len(r.times)-1]
}

// hold extends the track by a frame without the body: its last pose, hidden.
func (tr *track) hold() {
	n := len(tr.pos)
	tr.present = append(tr.present, false)
	tr.pos = append(tr.pos, tr.pos[n-1])
	tr.rot = append(tr.rot, tr.rot[n-1])
}

func dot4(a, b [4]float32) float32 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] }

func finitePose(p narrow.Pose) bool {
	for _, v := range [...]float64{p.Pos[0], p.Pos[1], p.Pos[2], p.Rot.W, p.Rot.V[0], p.Rot.V[1], p.Rot.V[2]} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return p.Rot.Len() > 0
}

// WriteTo writes the recording to w as a GLB file: one scene, a node per
// body (its static pose the one of its first frame), a flat-shaded mesh
// per shape and colour, and one animation, "simulation", keying every
// node's translation and rotation at every frame (LINEAR) and the scale of
// the bodies missing from some frames (STEP, 0 while absent). A recording
// of one frame has no animation. It refuses a recording without frames.
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	if len(r.times) == 0 {
		return 0, fmt.Errorf("gltfscene: write: %w: no frame recorded", ErrFrame)
	}
	doc := gltf.NewDocument()
	doc.Asset.Generator = "irtcd sim/gltfscene"
	meshes := map[meshKey]int{}
	var anim gltf.Animation
	anim.Name = "simulation"
	input := -1
	if len(r.times) > 1 {
		input = modeler.WriteAccessor(doc, gltf.TargetNone, r.times)
		doc.Accessors[input].Min = []float64{float64(r.times[0])}
		doc.Accessors[input].Max = []float64{float64(r.times[len(r.times)-1])}
	}
	for _, tr := range r.tracks {
		for len(tr.present) < len(r.times)-tr.first {
			tr.hold()
		}
		key := meshKey{tr.Shape, tr.Color}
		m, ok := meshes[key]
		if !ok {
			m = writeMesh(doc, tr.Shape, tr.Color)
			meshes[key] = m
		}
		name := tr.Name
		if name == "" {
			name = fmt.Sprintf("body %d", tr.Key)
		}
		node := &gltf.Node{Name: name, Mesh: gltf.Index(m), Matrix: gltf.DefaultMatrix, Scale: gltf.DefaultScale,
			Translation: [3]float64{float64(tr.pos[0][0]), float64(tr.pos[0][1]), float64(tr.pos[0][2])},
			Rotation:    [4]float64{float64(tr.rot[0][0]), float64(tr.rot[0][1]), float64(tr.rot[0][2]), float64(tr.rot[0][3])}}
		always := tr.first == 0
		for _, p := range tr.present {
			always = always && p
		}
		if !always && !tr.present[0] {
			node.Scale = [3]float64{}
		}
		doc.Nodes = append(doc.Nodes, node)
		n := len(doc.Nodes) - 1
		doc.Scenes[0].Nodes = append(doc.Scenes[0].Nodes, n)
		if input < 0 {
			continue
		}
		pos, rot := tr.pos, tr.rot
		if tr.first > 0 { // before its first frame: there, hidden
			pos = append(repeat(tr.pos[0], tr.first), pos...)
			rot = append(repeat(tr.rot[0], tr.first), rot...)
		}
		channel(doc, &anim, input, n, gltf.TRSTranslation, gltf.InterpolationLinear, pos)
		channel(doc, &anim, input, n, gltf.TRSRotation, gltf.InterpolationLinear, rot)
		if !always {
			scale := make([][3]float32, len(r.times))
			for f, p := range tr.present {
				if p {
					scale[tr.first+f] = [3]float32{1, 1, 1}
				}
			}
			channel(doc, &anim, input, n, gltf.TRSScale, gltf.InterpolationStep, scale)
		}
	}
	if input >= 0 {
		doc.Animations = []*gltf.Animation{&anim}
	}
	cw := &steploop.CountWriter{W: w}
	enc := gltf.NewEncoder(cw)
	enc.AsBinary = true
	if err := enc.Encode(doc); err != nil {
		return cw.N, fmt.Errorf("gltfscene: write: %w", err)
	}
	return cw.N, nil
}

// meshKey names a mesh of the file: a shape in a colour.
type meshKey struct {
	shape *narrow.Shape
	color color.RGBA
}

// writeMesh adds s's triangles, flat-shaded (each corner its triangle's
// normal), with a material of colour c, and returns the mesh.
func writeMesh(doc *gltf.Document, s *narrow.Shape, c color.RGBA) int {
	pos := make([][3]float32, 0, 3*s.NumPrims())
	nor := make([][3]float32, 0, 3*s.NumPrims())
	for i := range s.NumPrims() {
		t := s.Prim(i)
		a, b, d := s.Vertex(int(t[0])), s.Vertex(int(t[1])), s.Vertex(int(t[2]))
		n := b.Sub(a).Cross(d.Sub(a))
		if l := n.Len(); l > 0 {
			n = n.Mul(1 / l)
		}
		for _, v := range [3]mgl64.Vec3{a, b, d} {
			pos = append(pos, [3]float32{float32(v[0]), float32(v[1]), float32(v[2])})
			nor = append(nor, [3]float32{float32(n[0]), float32(n[1]), float32(n[2])})
		}
	}
	if c == (color.RGBA{}) {
		c = color.RGBA{0xc8, 0xc8, 0xc8, 0xff}
	}
	rough, metal := 0.8, 0.0
	doc.Materials = append(doc.Materials, &gltf.Material{PBRMetallicRoughness: &gltf.PBRMetallicRoughness{
		BaseColorFactor: &[4]float64{linear(c.R), linear(c.G), linear(c.B), 1},
		RoughnessFactor: &rough, MetallicFactor: &metal,
	}})
	doc.Meshes = append(doc.Meshes, &gltf.Mesh{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{
			gltf.POSITION: modeler.WritePosition(doc, pos),
			gltf.NORMAL:   modeler.WriteNormal(doc, nor),
		},
		Material: gltf.Index(len(doc.Materials) - 1),
	}}})
	return len(doc.Meshes) - 1
}

// linear converts an sRGB component to glTF's linear base colour.
func linear(c uint8) float64 {
	v := float64(c) / 255
	if v <= 0.04045 {
		return v / 12.92
	}
	return math.Pow((v+0.055)/1.055, 2.4)
}

// channel adds a sampler of values over input and its channel to node's
// property.
func channel(doc *gltf.Document, anim *gltf.Animation, input, node int, path gltf.TRSProperty, interp gltf.Interpolation, values any) {
	out := modeler.WriteAccessor(doc, gltf.TargetNone, values)
	anim.Samplers = append(anim.Samplers, &gltf.AnimationSampler{Input: input, Output: out, Interpolation: interp})
	anim.Channels = append(anim.Channels, &gltf.AnimationChannel{
		Sampler: len(anim.Samplers) - 1,
		Target:  gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: path},
	})
}

func repeat[T any](v T, n int) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}
