package sim

import (
	"math"
	"math/rand/v2"

	b2 "github.com/ByteArena/box2d"
)

// ObjectVertices is the vertex count of the scenes' concave objects:
// a gear of 112 teeth with 4 vertices each, and stars and blobs sampled as
// finely.
const ObjectVertices = 448

// Gear returns a gear outline centred on the origin: teeth×4 vertices,
// tooth tips at radius r and roots at 0.8·r, counter-clockwise.
func Gear(teeth int, r float64) []b2.B2Vec2 {
	out := make([]b2.B2Vec2, 0, 4*teeth)
	step := 2 * math.Pi / float64(teeth) / 4
	for i := range teeth {
		a0 := 2 * math.Pi * float64(i) / float64(teeth)
		for k, f := range [4]float64{0.8, 1, 1, 0.8} {
			a := a0 + float64(k)*step
			out = append(out, b2.B2Vec2{X: f * r * math.Cos(a), Y: f * r * math.Sin(a)})
		}
	}
	return out
}

// Star returns a star outline with the given number of points, n vertices
// evenly spaced in angle, tips at radius r and valleys at 0.5·r.
func Star(points, n int, r float64) []b2.B2Vec2 {
	return polar(n, func(a float64) float64 {
		f := math.Mod(a*float64(points)/(2*math.Pi), 1) // 0..1 across one point
		tri := 1 - 2*math.Abs(f-0.5)                    // 0 at valleys, 1 at tips
		return r * (0.5 + 0.5*tri)
	})
}

// Blob returns a smooth random outline of n vertices whose largest radius
// is r: a circle perturbed by a few random harmonics drawn from rng.
func Blob(rng *rand.Rand, n int, r float64) []b2.B2Vec2 {
	var amp, phase [4]float64
	for k := range amp {
		amp[k] = 0.06 + 0.08*rng.Float64()
		phase[k] = 2 * math.Pi * rng.Float64()
	}
	radius := func(a float64) float64 {
		v := 1.0
		for k := range amp {
			v += amp[k] * math.Cos(float64(k+2)*a+phase[k])
		}
		return v
	}
	peak := 0.0
	for i := range n {
		peak = max(peak, radius(2*math.Pi*float64(i)/float64(n)))
	}
	return polar(n, func(a float64) float64 { return r * radius(a) / peak })
}

// polar samples a closed outline r(θ) > 0 at n angles: always a simple
// polygon, counter-clockwise.
func polar(n int, r func(a float64) float64) []b2.B2Vec2 {
	out := make([]b2.B2Vec2, n)
	for i := range out {
		a := 2 * math.Pi * float64(i) / float64(n)
		d := r(a)
		out[i] = b2.B2Vec2{X: d * math.Cos(a), Y: d * math.Sin(a)}
	}
	return out
}

// Box returns the 4-vertex outline of a w×h rectangle centred on the
// origin, counter-clockwise.
func Box(w, h float64) []b2.B2Vec2 {
	return []b2.B2Vec2{{X: -w / 2, Y: -h / 2}, {X: w / 2, Y: -h / 2}, {X: w / 2, Y: h / 2}, {X: -w / 2, Y: h / 2}}
}

// CupOutline returns a cup with a flat base of width 2·w on y = 0, outer
// walls of height h and an inner bowl of wall thickness th: the bowl's
// floor is the curve y = th + (h−th)·(x/(w−th))⁴ sampled at n points, so
// the cup has n+4 vertices. Counter-clockwise.
func CupOutline(w, h, th float64, n int) []b2.B2Vec2 {
	out := []b2.B2Vec2{{X: -w, Y: 0}, {X: w, Y: 0}, {X: w, Y: h}}
	in := w - th
	for i := range n {
		x := in - 2*in*float64(i)/float64(n-1) // from the right rim to the left rim
		u := x / in
		out = append(out, b2.B2Vec2{X: x, Y: th + (h-th)*u*u*u*u})
	}
	return append(out, b2.B2Vec2{X: -w, Y: h})
}

// ValleyOutline returns a static container: a slab of half width w whose
// top is the parabola y = h·(x/w)² sampled at n points, with its bottom at
// y = −th. Counter-clockwise.
func ValleyOutline(w, h, th float64, n int) []b2.B2Vec2 {
	out := []b2.B2Vec2{{X: -w, Y: -th}, {X: w, Y: -th}}
	for i := range n {
		x := w - 2*w*float64(i)/float64(n-1)
		u := x / w
		out = append(out, b2.B2Vec2{X: x, Y: h * u * u})
	}
	return out
}
