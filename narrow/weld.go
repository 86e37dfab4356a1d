package narrow

import "github.com/go-gl/mathgl/mgl64"

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
	tris = make([][3]int, len(triangles))
	for i, t := range triangles {
		for c, v := range t {
			switch {
			case v >= len(vertices):
				v += len(welded) - len(vertices)
			case v >= 0:
				v = to[v]
			}
			tris[i][c] = v
		}
	}
	return welded, tris, first
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
