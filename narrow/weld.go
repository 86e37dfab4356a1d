package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// pointIndex numbers distinct points: points at exactly equal coordinates
// (−0 = +0) share one number.
type pointIndex map[[3]float64]int

// point returns p as the index keys it: −0 made +0.
func (pointIndex) point(p [3]float64) mgl64.Vec3 {
	for j := range p {
		if p[j] == 0 {
			p[j] = 0
		}
	}
	return p
}

// add returns the number of p, giving it next if p is new (added true).
func (m pointIndex) add(p [3]float64, next int) (i int, added bool) {
	key := [3]float64(m.point(p))
	if i, ok := m[key]; ok {
		return i, false
	}
	m[key] = next
	return next, true
}

// Weld merges the vertices of a mesh that lie at exactly equal
// coordinates (−0 = +0), as files written one vertex per triangle corner
// (an unindexed mesh) or split at texture seams hold them, and which
// NewMesh would refuse as open boundaries. Each set of equal vertices
// becomes its first, in vertex order: welded[k] is vertices[first[k]],
// and tris renumbers the corners of triangles accordingly. Corners out of
// range stay out of range (NewMesh names them), and NaN coordinates are
// never equal to anything. The inputs are not modified.
func Weld(vertices []mgl64.Vec3, triangles [][3]int) (welded []mgl64.Vec3, tris [][3]int, first []int) {
	index := make(pointIndex, len(vertices))
	to := make([]int, len(vertices))
	for i, v := range vertices {
		k, added := index.add(v, len(welded))
		if added {
			welded = append(welded, index.point(v))
			first = append(first, i)
		}
		to[i] = k
	}
	return welded, renumber(triangles, to, len(welded)), first
}

// renumber returns triangles with each corner v mapped to to[v], the
// number of its vertex among the welded ones; corners out of range stay
// out of range (past the end by as much as before).
func renumber(triangles [][3]int, to []int, welded int) [][3]int {
	tris := make([][3]int, len(triangles))
	for i, t := range triangles {
		for c, v := range t {
			switch {
			case v >= len(to):
				v += welded - len(to)
			case v >= 0:
				v = to[v]
			}
			tris[i][c] = v
		}
	}
	return tris
}

// coincident returns how many of s's vertices lie exactly where an
// earlier one does (what Weld would merge).
func (s *Shape) coincident() int {
	index := make(pointIndex, len(s.verts))
	n := 0
	for i, v := range s.verts {
		if _, added := index.add(v, i); !added {
			n++
		}
	}
	return n
}

// WeldWithin merges the vertices of a mesh that lie within tol of an
// earlier kept vertex, for files whose corners differ in their last bits
// (positions computed twice, or rounded through different formats), which
// Weld leaves apart. Vertices are taken in order: each one joins the
// first kept vertex within tol of it (distance ≤ tol), or is kept. Kept
// vertices keep their own coordinates (welded[k] is vertices[first[k]]);
// a vertex is never moved by more than tol, but chains are not followed:
// two vertices 0.9·tol apart on either side of a kept one both join it,
// while a vertex 1.5·tol from the first kept one and 0.9·tol from a later
// one joins the later.
//
// Triangles are renumbered, and those whose three corners no longer name
// three distinct vertices (slivers thinner than tol, collapsed) are dropped:
// tris keeps the others in order, so len(triangles) − len(tris) were
// dropped. Corners out of range stay out of range (NewMesh names them).
// Vertices with a NaN or infinite coordinate are never merged, nor those
// so far out that no cell of side tol numbers them (|x| ≥ 2⁶⁰·tol).
// tol = 0 merges as Weld does. A negative, NaN or infinite tol is an error wrapping ErrBadParams.
// The inputs are not modified.
func WeldWithin(vertices []mgl64.Vec3, triangles [][3]int, tol float64) (welded []mgl64.Vec3, tris [][3]int, first []int, err error) {
	if !(tol >= 0) || math.IsInf(tol, 0) {
		return nil, nil, nil, fmt.Errorf("narrow: WeldWithin: %w: tolerance %v", ErrBadParams, tol)
	}
	if tol == 0 {
		welded, tris, first = Weld(vertices, triangles)
	} else {
		to := make([]int, len(vertices))
		cells := make(map[[3]int64][]int32)
		for i, v := range vertices {
			c, ok := weldCell(v, tol)
			k := -1
			if ok {
				for d := range 27 {
					n := [3]int64{c[0] + int64(d%3) - 1, c[1] + int64(d/3%3) - 1, c[2] + int64(d/9) - 1}
					for _, j := range cells[n] {
						if (k < 0 || int(j) < k) && welded[j].Sub(v).Len() <= tol {
							k = int(j)
						}
					}
				}
			}
			if k < 0 {
				k = len(welded)
				welded = append(welded, v)
				first = append(first, i)
				if ok {
					cells[c] = append(cells[c], int32(k))
				}
			}
			to[i] = k
		}
		tris = renumber(triangles, to, len(welded))
	}
	kept := tris[:0]
	for _, t := range tris {
		if t[0] != t[1] && t[1] != t[2] && t[0] != t[2] {
			kept = append(kept, t)
		}
	}
	return welded, kept, first, nil
}

// weldCell returns the cell of side tol that holds v, or false if v is
// not finite or too far out for a cell index.
func weldCell(v mgl64.Vec3, tol float64) (c [3]int64, ok bool) {
	for i, x := range v {
		q := math.Floor(x / tol)
		if !(math.Abs(q) < 1<<60) {
			return c, false
		}
		c[i] = int64(q)
	}
	return c, true
}
