// Package view3d renders 3D scenes of irtcd shapes to images: perspective
// projection, back-face culling, a depth buffer, flat Lambert shading with
// one directional light and an ambient term, an optional ground grid and
// gradient sky, and an optional title. The sky, grid and title are drawn
// with github.com/fogleman/gg and golang.org/x/image/vector.
//
// Triangles are drawn into a depth buffer of 2×2 samples a pixel (depth
// interpolated as 1/z, linear on the screen), each over its own bounding
// box, and each pixel is the mean of its samples: a body in front of a
// large face hides it whatever the sizes of their triangles, which the
// painter's algorithm this package used before could not promise (a long
// wall seen at a slant, whose two triangles' centroids were nearer than a
// body in front of its far end, was painted over that body). Triangles
// sharing an edge cover every sample along it, so surfaces show no seams.
// The triangles are visited in a fixed order (far to near by centroid,
// ties by instance then triangle index), and a sample keeps the first of
// equally near surfaces, so the same input always gives the same
// picture. Triangles are clipped to the view frustum (a near plane, and
// the image grown by its own size on every side), so triangles and grid
// lines that pass behind the camera are drawn correctly. The buffers take
// 32 bytes a pixel (8 times the image's), kept by the Renderer between
// calls.
//
// Palette gives a palette of at most 256 colours to which such pictures
// map by nearest colour without visible loss, for GIF frames.
//
// Only 3D meshes are drawn; a 2D shape (a polygon) is an error. A Renderer
// keeps its buffers between calls, so re-rendering a scene allocates
// little; the zero Renderer is ready to use; it is not safe for concurrent
// use.
package view3d

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/fogleman/gg"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
	"golang.org/x/image/vector"
)

// ErrBadInput is wrapped by every error about the arguments of Render: the
// image size, the camera, an instance (nil or 2D shape, bad pose) or an
// option.
var ErrBadInput = errors.New("view3d: bad input")

// Instance is one shape placed in the scene.
type Instance struct {
	Shape *narrow.Shape // a 3D mesh
	Pose  narrow.Pose   // world = R(Rot)·local + Pos; the quaternion is normalised
	Color color.RGBA    // base colour, shaded; the zero value is DefaultColor
}

// DefaultColor is the colour of instances whose Color is zero.
var DefaultColor = color.RGBA{0x3d, 0x85, 0xc6, 0xff}

// DefaultFOV is the vertical field of view (radians) of a Camera with FOV 0.
const DefaultFOV = 50 * math.Pi / 180

// Camera is a pin-hole camera at Eye looking at Target; Up (projected on
// the image plane) points up in the image. A zero Up is +z. FOV is the
// vertical field of view in radians, in (0, π); 0 is DefaultFOV.
type Camera struct {
	Eye, Target, Up mgl64.Vec3
	FOV             float64
}

// view is a validated camera for one image size.
type view struct {
	eye     mgl64.Vec3
	r, u, f mgl64.Vec3 // right, up, forward (unit, orthonormal)
	focal   float64    // pixels per unit of x/z and y/z
	cx, cy  float64    // image centre
	near    float64    // points closer than this along f are clipped
	planes  [5]plane   // the clipping frustum: near, left, right, top, bottom
}

// plane is a half-space of camera coordinates: a·x + b·y + c·z + d ≥ 0.
type plane [4]float64

func (p *plane) dist(q [3]float64) float64 { return p[0]*q[0] + p[1]*q[1] + p[2]*q[2] + p[3] }

func finite3(v mgl64.Vec3) bool {
	for _, c := range v {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return false
		}
	}
	return true
}

// setup validates c for a w×h image.
func (c Camera) setup(w, h int) (view, error) {
	var v view
	up := c.Up
	if up == (mgl64.Vec3{}) {
		up = mgl64.Vec3{0, 0, 1}
	}
	fov := c.FOV
	if fov == 0 {
		fov = DefaultFOV
	}
	switch {
	case !finite3(c.Eye) || !finite3(c.Target) || !finite3(up):
		return v, fmt.Errorf("%w: camera %+v is not finite", ErrBadInput, c)
	case math.IsNaN(fov) || fov <= 0 || fov >= math.Pi:
		return v, fmt.Errorf("%w: camera FOV %v rad outside (0, π)", ErrBadInput, c.FOV)
	}
	d := c.Target.Sub(c.Eye)
	dist := d.Len()
	if !(dist > 0) || math.IsInf(dist, 0) {
		return v, fmt.Errorf("%w: camera eye %v and target %v coincide", ErrBadInput, c.Eye, c.Target)
	}
	v.f = d.Mul(1 / dist)
	r := v.f.Cross(up)
	l := r.Len()
	if !(l > 1e-9*up.Len()) {
		return v, fmt.Errorf("%w: camera up %v is parallel to the view direction", ErrBadInput, c.Up)
	}
	v.r = r.Mul(1 / l)
	v.u = v.r.Cross(v.f)
	v.eye = c.Eye
	v.focal = float64(h) / 2 / math.Tan(fov/2)
	v.cx, v.cy = float64(w)/2, float64(h)/2
	v.near = 1e-3 * dist
	// Clip to the image grown by a guard band on every side, so that no
	// projected coordinate is ever far beyond the picture (gg's fixed-point
	// rasteriser would overflow).
	g := float64(max(w, h))
	v.planes = [5]plane{
		{0, 0, 1, -v.near},                      // depth ≥ near
		{v.focal, 0, v.cx + g, 0},               // x ≥ -g
		{-v.focal, 0, float64(w) + g - v.cx, 0}, // x ≤ w + g
		{0, -v.focal, v.cy + g, 0},              // y ≥ -g
		{0, v.focal, float64(h) + g - v.cy, 0},  // y ≤ h + g
	}
	return v, nil
}

// toCam maps a world point to camera coordinates (right, up, depth).
func (v *view) toCam(p [3]float64) [3]float64 {
	d := [3]float64{p[0] - v.eye[0], p[1] - v.eye[1], p[2] - v.eye[2]}
	return [3]float64{
		d[0]*v.r[0] + d[1]*v.r[1] + d[2]*v.r[2],
		d[0]*v.u[0] + d[1]*v.u[1] + d[2]*v.u[2],
		d[0]*v.f[0] + d[1]*v.f[1] + d[2]*v.f[2],
	}
}

// inside reports whether camera point c lies in the clipping frustum.
func (v *view) inside(c [3]float64) bool {
	for i := range v.planes {
		if !(v.planes[i].dist(c) >= 0) {
			return false
		}
	}
	return true
}

// clip clips the convex polygon src (camera coordinates) to the frustum,
// using buf as scratch, and returns the result (fewer than 3 points: none
// of it is visible). The result aliases buf.
func (v *view) clip(src [][3]float64, buf *[2][][3]float64) [][3]float64 {
	cur := append(buf[0][:0], src...)
	next := buf[1][:0]
	for pi := range v.planes {
		pl := &v.planes[pi]
		next = next[:0]
		n := len(cur)
		for i := range n {
			a, b := cur[i], cur[(i+1)%n]
			da, db := pl.dist(a), pl.dist(b)
			if da >= 0 {
				next = append(next, a)
			}
			if (da >= 0) != (db >= 0) {
				s := da / (da - db)
				next = append(next, [3]float64{a[0] + s*(b[0]-a[0]), a[1] + s*(b[1]-a[1]), a[2] + s*(b[2]-a[2])})
			}
		}
		cur, next = next, cur
		if len(cur) < 3 {
			break
		}
	}
	buf[0], buf[1] = cur, next
	return cur
}

// clipSegment clips the segment ab (camera coordinates) to the frustum.
func (v *view) clipSegment(a, b [3]float64) ([3]float64, [3]float64, bool) {
	for pi := range v.planes {
		pl := &v.planes[pi]
		da, db := pl.dist(a), pl.dist(b)
		switch {
		case da < 0 && db < 0:
			return a, b, false
		case da < 0:
			s := da / (da - db)
			a = [3]float64{a[0] + s*(b[0]-a[0]), a[1] + s*(b[1]-a[1]), a[2] + s*(b[2]-a[2])}
		case db < 0:
			s := db / (db - da)
			b = [3]float64{b[0] + s*(a[0]-b[0]), b[1] + s*(a[1]-b[1]), b[2] + s*(a[2]-b[2])}
		}
	}
	return a, b, true
}

// screen projects camera coordinates with depth > 0 to pixels (y down).
func (v *view) screen(c [3]float64) [2]float64 {
	k := v.focal / c[2]
	return [2]float64{v.cx + c[0]*k, v.cy - c[1]*k}
}

// Project returns the pixel position (x right, y down, the image's top
// left corner at 0, 0) of world point p in a w×h image seen by c, and
// whether p lies in front of the camera.
func (c Camera) Project(w, h int, p mgl64.Vec3) (x, y float64, ok bool, err error) {
	v, err := c.setup(w, h)
	if err != nil {
		return 0, 0, false, err
	}
	cp := v.toCam(p)
	if !(cp[2] > v.near) {
		return 0, 0, false, nil
	}
	s := v.screen(cp)
	return s[0], s[1], true, nil
}

// Grid is a square grid of lines on a plane (the ground), drawn behind the
// instances: exact for instances above the plane seen from above it.
type Grid struct {
	Center  mgl64.Vec3 // the grid's centre, on the plane
	Normal  mgl64.Vec3 // the plane's normal; zero: +z
	Spacing float64    // distance between lines (> 0)
	Lines   int        // lines on each side of the centre (≥ 1)
	Color   color.RGBA // line colour
	Fill    color.RGBA // fill of the grid's square under the lines; zero alpha: none
}

// options are the settings Render takes as Options.
type options struct {
	toLight   mgl64.Vec3 // towards the light, world; zero: camera-relative default
	ambient   float64
	sky       [2]color.RGBA // top, bottom
	grid      *Grid
	title     string
	textColor color.RGBA
	err       error
}

// Option changes a setting of Render.
type Option func(*options)

// WithLight sets the directional light: toLight points from the scene
// towards the light (world coordinates, any length > 0) and ambient in
// [0, 1] is the brightness of faces turned away from it. Shade =
// ambient + (1 - ambient)·max(0, n·toLight). Default: a light above, to the
// left of and behind the camera, ambient 0.3.
func WithLight(toLight mgl64.Vec3, ambient float64) Option {
	return func(o *options) {
		l := toLight.Len()
		if !finite3(toLight) || !(l > 0) || math.IsInf(l, 0) || math.IsNaN(ambient) || ambient < 0 || ambient > 1 {
			o.err = fmt.Errorf("%w: light %v, ambient %v", ErrBadInput, toLight, ambient)
			return
		}
		o.toLight, o.ambient = toLight.Mul(1/l), ambient
	}
}

// WithBackground paints the background in one colour.
func WithBackground(c color.RGBA) Option {
	return func(o *options) { o.sky = [2]color.RGBA{c, c} }
}

// WithSky paints the background as a vertical gradient from top to bottom.
// The default is a pale blue sky.
func WithSky(top, bottom color.RGBA) Option {
	return func(o *options) { o.sky = [2]color.RGBA{top, bottom} }
}

// WithGrid draws a ground grid behind the instances.
func WithGrid(g Grid) Option {
	return func(o *options) {
		if g.Normal == (mgl64.Vec3{}) {
			g.Normal = mgl64.Vec3{0, 0, 1}
		}
		if !finite3(g.Center) || !finite3(g.Normal) || !(g.Normal.Len() > 0) || math.IsNaN(g.Spacing) || math.IsInf(g.Spacing, 0) || !(g.Spacing > 0) || g.Lines < 1 || g.Lines > 10000 {
			o.err = fmt.Errorf("%w: grid %+v", ErrBadInput, g)
			return
		}
		o.grid = &g
	}
}

// WithTitle writes text (lines separated by "\n") in the top left corner,
// in gg's default font, on a translucent band.
func WithTitle(text string) Option {
	return func(o *options) { o.title = text }
}

// WithTextColor sets the title's colour (default near-black).
func WithTextColor(c color.RGBA) Option {
	return func(o *options) { o.textColor = c }
}

// WithSeamCover set how far, in pixels, each triangle was grown outwards
// to hide the seams of anti-aliased painting (at most 2).
//
// Deprecated: triangles are drawn with a depth buffer, which leaves no
// seams between neighbours; the option only checks px.
func WithSeamCover(px float64) Option {
	return func(o *options) {
		if math.IsNaN(px) || px < 0 || px > 2 {
			o.err = fmt.Errorf("%w: seam cover %v px outside [0, 2]", ErrBadInput, px)
			return
		}
	}
}

// The default settings.
var (
	defaultSkyTop    = color.RGBA{0xc9, 0xdc, 0xef, 0xff}
	defaultSkyBottom = color.RGBA{0xf4, 0xf1, 0xea, 0xff}
	defaultText      = color.RGBA{0x1e, 0x1e, 0x1e, 0xff}
)

// maxSide bounds the image's width and height.
const maxSide = 1 << 14

// item is one triangle to paint.
type item struct {
	depth float64 // camera depth of its centroid; drawn far to near
	inst  int32
	tri   int32
	clip  int32 // -1, or the index of its clipped polygon in Renderer.clipped
	col   color.RGBA
}

// Renderer renders scenes, reusing its buffers between calls.
type Renderer struct {
	cam     [][3]float64 // camera coordinates of every instance's vertices
	in      []bool       // whether each lies in the clipping frustum
	scr     [][2]float64 // their pixel positions (valid when in)
	base    []int        // first vertex of each instance in cam/scr
	items   []item
	sorted  []item   // scratch: the items in paint order (sortFarFirst)
	keys    []uint64 // scratch: the items' sort keys and their order,
	keys2   []uint64 // twice (sortFarFirst)
	order   []int32
	order2  []int32
	clipped [][][2]float64  // clipped polygons, in pixels
	clipZ   [][]float64     // the camera depths of their corners
	zbuf    []float32       // per subsample: 1/depth of the nearest surface so far (0: none)
	cbuf    []color.RGBA    // per subsample: its colour
	scratch [2][][3]float64 // clipping buffers
	grown   [][2]float64    // scratch: a grid cell being filled
	dc      *gg.Context
	dcImg   *image.RGBA
	ras     vector.Rasterizer             // fills the triangles and the grid
	uniform map[color.RGBA]*image.Uniform // the colours filled so far
}

// Render draws the instances seen by cam in a new w×h image. It is
// shorthand for a fresh Renderer's Render.
func Render(w, h int, cam Camera, inst []Instance, opts ...Option) (*image.RGBA, error) {
	var r Renderer
	return r.Render(w, h, cam, inst, opts...)
}

// Render draws the instances seen by cam in a new w×h image.
func (r *Renderer) Render(w, h int, cam Camera, inst []Instance, opts ...Option) (*image.RGBA, error) {
	if w < 1 || h < 1 || w > maxSide || h > maxSide {
		return nil, fmt.Errorf("%w: image size %d×%d (want 1..%d each)", ErrBadInput, w, h, maxSide)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	if err := r.RenderInto(img, cam, inst, opts...); err != nil {
		return nil, err
	}
	return img, nil
}

// RenderInto draws the instances seen by cam over the whole of dst, whose
// bounds must start at (0, 0). Rendering into the same image again reuses
// the drawing context too.
func (r *Renderer) RenderInto(dst *image.RGBA, cam Camera, inst []Instance, opts ...Option) error {
	if dst == nil || dst.Rect.Min != (image.Point{}) {
		return fmt.Errorf("%w: destination image must be non-nil with bounds starting at (0, 0)", ErrBadInput)
	}
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	if w < 1 || h < 1 || w > maxSide || h > maxSide {
		return fmt.Errorf("%w: image size %d×%d (want 1..%d each)", ErrBadInput, w, h, maxSide)
	}
	o := options{ambient: 0.3, sky: [2]color.RGBA{defaultSkyTop, defaultSkyBottom}, textColor: defaultText}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.err != nil {
		return o.err
	}
	v, err := cam.setup(w, h)
	if err != nil {
		return err
	}
	if o.toLight == (mgl64.Vec3{}) {
		o.toLight = v.r.Mul(-0.35).Add(v.u.Mul(0.6)).Sub(v.f.Mul(0.72)).Normalize()
	}
	if err := r.collect(&v, inst, &o, w, h); err != nil {
		return err
	}

	drawSky(dst, o.sky)
	if o.grid != nil {
		r.drawGrid(dst, &v, o.grid)
	}
	r.paint(dst, inst)
	if o.title != "" {
		if r.dc == nil || r.dcImg != dst { // gg only writes the title
			r.dc, r.dcImg = gg.NewContextForRGBA(dst), dst
		}
		drawTitle(r.dc, o.title, o.textColor)
	}
	return nil
}

// collect validates the instances, transforms their vertices and lists
// their visible triangles, sorted far to near.
func (r *Renderer) collect(v *view, inst []Instance, o *options, w, h int) error {
	r.cam, r.in, r.scr, r.base, r.items = r.cam[:0], r.in[:0], r.scr[:0], r.base[:0], r.items[:0]
	for i := range r.clipped {
		r.clipped[i] = r.clipped[i][:0]
	}
	for i := range r.clipZ {
		r.clipZ[i] = r.clipZ[i][:0]
	}
	nclip := 0
	fw, fh := float64(w), float64(h)
	for ii := range inst {
		in := &inst[ii]
		switch {
		case in.Shape == nil:
			return fmt.Errorf("%w: instance %d: nil shape", ErrBadInput, ii)
		case in.Shape.Dim() != narrow.Dim3:
			return fmt.Errorf("%w: instance %d: %v shape, want a 3D mesh", ErrBadInput, ii, in.Shape.Dim())
		}
		pose, err := narrow.NewPose(in.Pose.Pos, in.Pose.Rot)
		if err != nil {
			return fmt.Errorf("%w: instance %d: %w", ErrBadInput, ii, err)
		}
		t := pose.Transform()
		s := in.Shape
		b := len(r.cam)
		r.base = append(r.base, b)
		for k := range s.NumVertices() {
			c := v.toCam(t.Apply(s.Vertex(k)))
			r.cam = append(r.cam, c)
			ok := v.inside(c)
			r.in = append(r.in, ok)
			var p [2]float64
			if ok {
				p = v.screen(c)
			}
			r.scr = append(r.scr, p)
		}
		col := in.Color
		if col == (color.RGBA{}) {
			col = DefaultColor
		}
		for k := range s.NumPrims() {
			p := s.Prim(k)
			i0, i1, i2 := b+int(p[0]), b+int(p[1]), b+int(p[2])
			a, bb, cc := &r.cam[i0], &r.cam[i1], &r.cam[i2]
			n := t.ApplyDir(s.FaceNormal(k))
			// Back-face culling: the face must look towards the eye. In
			// camera coordinates the eye is the origin.
			nc := [3]float64{
				n[0]*v.r[0] + n[1]*v.r[1] + n[2]*v.r[2],
				n[0]*v.u[0] + n[1]*v.u[1] + n[2]*v.u[2],
				n[0]*v.f[0] + n[1]*v.f[1] + n[2]*v.f[2],
			}
			if nc[0]*a[0]+nc[1]*a[1]+nc[2]*a[2] >= 0 {
				continue
			}
			if a[2] <= v.near && bb[2] <= v.near && cc[2] <= v.near {
				continue // behind the camera
			}
			it := item{depth: (a[2] + bb[2] + cc[2]) / 3, inst: int32(ii), tri: int32(k), clip: -1}
			if r.in[i0] && r.in[i1] && r.in[i2] {
				if offscreen([][2]float64{r.scr[i0], r.scr[i1], r.scr[i2]}, fw, fh) {
					continue
				}
			} else {
				// Partly outside the frustum (behind the near plane or far
				// beyond the image): clip it.
				poly := v.clip([][3]float64{*a, *bb, *cc}, &r.scratch)
				if len(poly) < 3 {
					continue
				}
				if nclip == len(r.clipped) {
					r.clipped = append(r.clipped, nil)
					r.clipZ = append(r.clipZ, nil)
				}
				cp, cz := r.clipped[nclip][:0], r.clipZ[nclip][:0]
				for _, q := range poly {
					cp = append(cp, v.screen(q))
					cz = append(cz, q[2])
				}
				r.clipped[nclip], r.clipZ[nclip] = cp, cz
				if offscreen(cp, fw, fh) {
					continue
				}
				it.clip = int32(nclip)
				nclip++
			}
			lit := o.ambient + (1-o.ambient)*max(0, n[0]*o.toLight[0]+n[1]*o.toLight[1]+n[2]*o.toLight[2])
			it.col = shade(col, lit)
			r.items = append(r.items, it)
		}
	}
	r.sortFarFirst()
	return nil
}

// sortFarFirst sorts the items for the painter: farther first, and those
// at the same depth in the order collect appended them (by instance, then
// triangle). It is a stable radix sort on the depths' bits, a byte at a
// time, which skips the bytes every depth shares: a frame's tens of
// thousands of triangles sorted in a fraction of the comparisons' time.
// The order is the one cmp.Compare on (depth descending, instance,
// triangle) gives: −0 and +0 tie, and NaN comes last.
func (r *Renderer) sortFarFirst() {
	n := len(r.items)
	if n < 2 {
		return
	}
	r.keys, r.order = slices.Grow(r.keys[:0], n)[:n], slices.Grow(r.order[:0], n)[:n]
	r.keys2, r.order2 = slices.Grow(r.keys2[:0], n)[:n], slices.Grow(r.order2[:0], n)[:n]
	var count [8][256]int32
	for i := range r.items {
		k := farFirstKey(r.items[i].depth)
		r.keys[i], r.order[i] = k, int32(i)
		for b := range 8 {
			count[b][byte(k>>(8*b))]++
		}
	}
	keys, order, keys2, order2 := r.keys, r.order, r.keys2, r.order2
	for b := range 8 {
		c := &count[b]
		if c[byte(keys[0]>>(8*b))] == int32(n) {
			continue // every key has this byte
		}
		var at int32
		for d := range c {
			c[d], at = at, at+c[d]
		}
		for i, k := range keys {
			d := byte(k >> (8 * b))
			j := c[d]
			c[d]++
			keys2[j], order2[j] = k, order[i]
		}
		keys, keys2, order, order2 = keys2, keys, order2, order
	}
	r.sorted = slices.Grow(r.sorted[:0], n)[:n]
	for i, j := range order {
		r.sorted[i] = r.items[j]
	}
	r.items, r.sorted = r.sorted, r.items
}

// farFirstKey maps a depth to a key whose ascending order is the depths'
// descending order, −0 and +0 to the same key and NaN after every number.
func farFirstKey(d float64) uint64 {
	switch {
	case d != d:
		return math.MaxUint64
	case d == 0:
		d = 0 // −0 as +0
	}
	u := math.Float64bits(d)
	if u>>63 == 0 {
		u |= 1 << 63 // positive: above every negative
	} else {
		u = ^u // negative: the more negative, the lower
	}
	return ^u // descending
}

// shade scales c's colour channels by k in [0, 1], keeping alpha.
func shade(c color.RGBA, k float64) color.RGBA {
	f := func(x uint8) uint8 { return uint8(math.Round(float64(x) * min(max(k, 0), 1))) }
	return color.RGBA{f(c.R), f(c.G), f(c.B), c.A}
}

// offscreen reports whether the polygon's bounding box misses the image.
func offscreen(p [][2]float64, w, h float64) bool {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range p {
		x0, x1 = min(x0, q[0]), max(x1, q[0])
		y0, y1 = min(y0, q[1]), max(y1, q[1])
	}
	return x1 < -2 || y1 < -2 || x0 > w+2 || y0 > h+2
}

// superSample is the number of depth samples per pixel along each axis.
const superSample = 2

// paint draws the triangles with a depth buffer of superSample²
// samples a pixel: each sample keeps the colour of the nearest surface
// over it (depth interpolated as 1/z, which is linear on the screen), so
// a small body in front of a large face hides it, whatever the order;
// each pixel is then the mean of its samples, the background (sky, grid)
// where no triangle covers them. Triangles sharing an edge cover every
// sample along it between them: there are no seams to hide.
func (r *Renderer) paint(dst *image.RGBA, inst []Instance) {
	const ss = superSample
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	n := w * h * ss * ss
	r.zbuf = slices.Grow(r.zbuf[:0], n)[:n]
	r.cbuf = slices.Grow(r.cbuf[:0], n)[:n]
	clear(r.zbuf)
	for y := range h * ss {
		row := r.cbuf[y*w*ss : (y+1)*w*ss]
		for x := range row {
			row[x] = dst.RGBAAt(x/ss, y/ss)
		}
	}
	var tri [3][2]float64
	var depth [3]float64
	for i := range r.items {
		it := &r.items[i]
		var pts [][2]float64
		var zs []float64
		if it.clip >= 0 {
			pts, zs = r.clipped[it.clip], r.clipZ[it.clip]
		} else {
			p := inst[it.inst].Shape.Prim(int(it.tri))
			b := r.base[it.inst]
			for k := range 3 {
				tri[k], depth[k] = r.scr[b+int(p[k])], r.cam[b+int(p[k])][2]
			}
			pts, zs = tri[:], depth[:]
		}
		for k := 1; k+1 < len(pts); k++ { // a fan over a clipped polygon
			r.raster(w*ss, h*ss, [3][2]float64{pts[0], pts[k], pts[k+1]}, [3]float64{1 / zs[0], 1 / zs[k], 1 / zs[k+1]}, it.col)
		}
	}
	for y := range h {
		for x := range w {
			var sr, sg, sb, sa int
			for dy := range ss {
				for _, c := range r.cbuf[(y*ss+dy)*w*ss+x*ss : (y*ss+dy)*w*ss+x*ss+ss] {
					sr, sg, sb, sa = sr+int(c.R), sg+int(c.G), sb+int(c.B), sa+int(c.A)
				}
			}
			const k, half = ss * ss, ss * ss / 2
			dst.SetRGBA(x, y, color.RGBA{uint8((sr + half) / k), uint8((sg + half) / k), uint8((sb + half) / k), uint8((sa + half) / k)})
		}
	}
}

// raster draws the triangle p (pixels) of inverse depths iz in colour c
// into the sample buffers, W×H samples of 1/superSample pixel: every
// sample whose centre lies in the triangle, edges included, and whose
// surface is nearer than the one it holds.
func (r *Renderer) raster(W, H int, p [3][2]float64, iz [3]float64, c color.RGBA) {
	const ss = superSample
	for k := range p {
		p[k] = [2]float64{p[k][0] * ss, p[k][1] * ss}
	}
	area := (p[1][0]-p[0][0])*(p[2][1]-p[0][1]) - (p[1][1]-p[0][1])*(p[2][0]-p[0][0])
	if !(area != 0) || math.IsInf(area, 0) {
		return // degenerate, or NaN
	}
	x0 := max(0, int(math.Floor(min(p[0][0], p[1][0], p[2][0])-0.5)))
	x1 := min(W-1, int(math.Ceil(max(p[0][0], p[1][0], p[2][0])-0.5)))
	y0 := max(0, int(math.Floor(min(p[0][1], p[1][1], p[2][1])-0.5)))
	y1 := min(H-1, int(math.Ceil(max(p[0][1], p[1][1], p[2][1])-0.5)))
	if x0 > x1 || y0 > y1 {
		return
	}
	inv := 1 / area
	// The barycentric weight of corner k at (x, y) is linear:
	// a[k]·x + b[k]·y + c[k] (edge functions over the area).
	var a, b, e [3]float64
	for k := range 3 {
		i, j := p[(k+1)%3], p[(k+2)%3]
		a[k] = (i[1] - j[1]) * inv
		b[k] = (j[0] - i[0]) * inv
		e[k] = (i[0]*j[1] - j[0]*i[1]) * inv
	}
	for y := y0; y <= y1; y++ {
		fy := float64(y) + 0.5
		row := y * W
		for x := x0; x <= x1; x++ {
			fx := float64(x) + 0.5
			w0 := a[0]*fx + b[0]*fy + e[0]
			w1 := a[1]*fx + b[1]*fy + e[1]
			w2 := a[2]*fx + b[2]*fy + e[2]
			if w0 < 0 || w1 < 0 || w2 < 0 {
				continue
			}
			z := float32(w0*iz[0] + w1*iz[1] + w2*iz[2])
			if z > r.zbuf[row+x] {
				r.zbuf[row+x], r.cbuf[row+x] = z, c
			}
		}
	}
}

// fill paints the polygon pts (pixels) in colour c over dst, anti-aliased,
// rasterising over the polygon's bounding box only: a fill costs what its
// pixels cost.
func (r *Renderer) fill(dst *image.RGBA, pts [][2]float64, c color.RGBA) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, q := range pts {
		x0, x1 = min(x0, q[0]), max(x1, q[0])
		y0, y1 = min(y0, q[1]), max(y1, q[1])
	}
	if !(x1 >= x0 && y1 >= y0) || x0 < -maxSide || y0 < -maxSide || x1 > 2*maxSide || y1 > 2*maxSide {
		return // empty, NaN, or far outside any image
	}
	box := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(dst.Rect)
	if box.Empty() {
		return
	}
	src := r.uniformOf(c)
	ox, oy := float32(box.Min.X), float32(box.Min.Y)
	r.ras.Reset(box.Dx(), box.Dy())
	r.ras.MoveTo(float32(pts[0][0])-ox, float32(pts[0][1])-oy)
	for _, q := range pts[1:] {
		r.ras.LineTo(float32(q[0])-ox, float32(q[1])-oy)
	}
	r.ras.ClosePath()
	r.ras.Draw(dst, box, src, image.Point{})
}

// maxUniforms bounds the colours a Renderer keeps: a few base colours
// give a few hundred shades each, but a scene of many colours would grow
// the cache without end.
const maxUniforms = 1 << 13

// uniformOf returns the source image of colour c, made once (while at most
// maxUniforms colours are kept).
func (r *Renderer) uniformOf(c color.RGBA) *image.Uniform {
	src, ok := r.uniform[c]
	if !ok {
		if r.uniform == nil || len(r.uniform) >= maxUniforms {
			r.uniform = make(map[color.RGBA]*image.Uniform, 256)
		}
		src = image.NewUniform(c)
		r.uniform[c] = src
	}
	return src
}

// drawSky fills dst with a vertical gradient from sky[0] (the top row)
// to sky[1] (the bottom row).
func drawSky(dst *image.RGBA, sky [2]color.RGBA) {
	w, h := dst.Rect.Dx(), dst.Rect.Dy()
	lerp := func(a, b uint8, t float64) uint8 { return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t)) }
	for y := range h {
		t := 0.0
		if h > 1 {
			t = float64(y) / float64(h-1)
		}
		c := [4]uint8{lerp(sky[0].R, sky[1].R, t), lerp(sky[0].G, sky[1].G, t), lerp(sky[0].B, sky[1].B, t), lerp(sky[0].A, sky[1].A, t)}
		row := dst.Pix[dst.PixOffset(dst.Rect.Min.X, dst.Rect.Min.Y+y):][:4*w]
		for x := 0; x < len(row); x += 4 {
			copy(row[x:x+4], c[:])
		}
	}
}

// drawGrid draws g's fill and lines (1 pixel wide), clipped to the
// frustum.
func (r *Renderer) drawGrid(dst *image.RGBA, v *view, g *Grid) {
	nrm := g.Normal.Normalize()
	// Two axes in the plane.
	a := mgl64.Vec3{1, 0, 0}
	if math.Abs(nrm[0]) > 0.9 {
		a = mgl64.Vec3{0, 1, 0}
	}
	e1 := a.Sub(nrm.Mul(a.Dot(nrm))).Normalize()
	e2 := nrm.Cross(e1)
	half := float64(g.Lines) * g.Spacing
	at := func(s, t float64) [3]float64 {
		return v.toCam(g.Center.Add(e1.Mul(s)).Add(e2.Mul(t)))
	}
	if g.Fill.A > 0 {
		quad := [][3]float64{at(-half, -half), at(half, -half), at(half, half), at(-half, half)}
		if poly := v.clip(quad, &r.scratch); len(poly) >= 3 {
			r.grown = r.grown[:0]
			for _, q := range poly {
				r.grown = append(r.grown, v.screen(q))
			}
			r.fill(dst, r.grown, g.Fill)
		}
	}
	// Every line is a quad one pixel wide, all in one path drawn once
	// over the image: a quad per Draw would blend every pixel of its
	// bounding box, most of the image for a long diagonal line. The quads
	// turn the same way (their width is the direction turned by 90°), so
	// where lines cross their coverage adds up, capped at full.
	r.ras.Reset(dst.Rect.Dx(), dst.Rect.Dy())
	ox, oy := float64(dst.Rect.Min.X), float64(dst.Rect.Min.Y)
	lines := 0
	line := func(a, b [3]float64) {
		a, b, ok := v.clipSegment(a, b)
		if !ok {
			return
		}
		p, q := v.screen(a), v.screen(b)
		dx, dy := q[0]-p[0], q[1]-p[1]
		l := math.Hypot(dx, dy)
		if !(l > 1e-9) {
			return
		}
		nx, ny := -dy/l/2, dx/l/2 // half a pixel across the line
		quad := [4][2]float64{{p[0] + nx, p[1] + ny}, {q[0] + nx, q[1] + ny}, {q[0] - nx, q[1] - ny}, {p[0] - nx, p[1] - ny}}
		r.ras.MoveTo(float32(quad[0][0]-ox), float32(quad[0][1]-oy))
		for _, c := range quad[1:] {
			r.ras.LineTo(float32(c[0]-ox), float32(c[1]-oy))
		}
		r.ras.ClosePath()
		lines++
	}
	for i := -g.Lines; i <= g.Lines; i++ {
		s := float64(i) * g.Spacing
		line(at(s, -half), at(s, half))
		line(at(-half, s), at(half, s))
	}
	if lines > 0 {
		r.ras.Draw(dst, dst.Rect, r.uniformOf(g.Color), image.Point{})
	}
}

// drawTitle writes text on a translucent band at the top left.
func drawTitle(dc *gg.Context, text string, c color.RGBA) {
	lines := strings.Split(text, "\n")
	lh := dc.FontHeight() * 1.4
	wmax := 0.0
	for _, l := range lines {
		w, _ := dc.MeasureString(l)
		wmax = max(wmax, w)
	}
	const pad = 6
	dc.SetColor(color.NRGBA{0xff, 0xff, 0xff, 0xb0})
	dc.DrawRectangle(pad/2, pad/2, wmax+2*pad, float64(len(lines))*lh+pad)
	dc.Fill()
	dc.SetColor(c)
	for i, l := range lines {
		dc.DrawStringAnchored(l, pad*1.5, pad+float64(i)*lh+lh/2, 0, 0.35)
	}
}

// WritePNG encodes img as PNG to w.
func WritePNG(w io.Writer, img image.Image) error {
	return png.Encode(w, img)
}

// SavePNG writes img as a PNG file at path (created, or truncated); the
// error names the file.
func SavePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("view3d: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("view3d: %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("view3d: %s: %w", path, err)
	}
	return nil
}

// Palette returns a palette of at most 256 colours for the GIF frames of
// pictures drawn with the default light, sky and text colour, to which
// they map well by nearest colour (no dithering): the sky's gradient, the
// text's colour, white, and for each colour of base (the instances' and
// the grid's, at most 32) its shades from the default ambient level to
// full light, evenly spaced.
func Palette(base ...color.RGBA) (color.Palette, error) {
	const skySteps = 16
	if len(base) == 0 || len(base) > 32 {
		return nil, fmt.Errorf("%w: %d base colours for a palette (want 1 to 32)", ErrBadInput, len(base))
	}
	pal := color.Palette{defaultText, color.RGBA{0xff, 0xff, 0xff, 0xff}}
	lerp := func(a, b uint8, t float64) uint8 { return uint8(math.Round(float64(a) + (float64(b)-float64(a))*t)) }
	for i := range skySteps {
		t := float64(i) / (skySteps - 1)
		a, b := defaultSkyTop, defaultSkyBottom
		pal = append(pal, color.RGBA{lerp(a.R, b.R, t), lerp(a.G, b.G, t), lerp(a.B, b.B, t), 0xff})
	}
	shades := (256 - len(pal)) / len(base)
	const ambient = 0.3 // Render's default
	for _, c := range base {
		for k := range shades {
			pal = append(pal, shade(c, ambient+(1-ambient)*float64(k)/float64(max(1, shades-1))))
		}
	}
	return pal, nil
}
