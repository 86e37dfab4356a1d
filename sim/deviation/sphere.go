package deviation

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/narrow"
)

// sphereRings is the number of vertices of each ring of the 70-vertex
// sphere, from the north pole down. The rings sit at polar angles kπ/7,
// k = 1..6; their counts follow the ring circumferences (2π sin θ against
// a meridian spacing of π/7 gives 6.1, 10.9 and 13.6, scaled up to a sum
// of 68), so that edges along rings (0.39, 0.41, 0.41 for a unit sphere)
// and along meridians (0.45) are about as long everywhere.
var sphereRings = [...]int{7, 12, 15, 15, 12, 7}

// SphereVertices is the number of vertices of Sphere70.
const SphereVertices = 70

// SphereMesh returns the vertices and counter-clockwise triangles of the
// discretised sphere of radius r used in place of the paper's 70-vertex
// sphere: two poles (±r on z) and six rings of 7, 12, 15, 15, 12 and 7
// vertices at polar angles kπ/7 (2 + 68 = 70 vertices, 136 triangles).
// Ring k is turned by half a step when k is odd, so that neighbouring
// rings interleave. Poles are closed by fans; two neighbouring rings are
// joined by a strip that walks both rings by angle, always advancing the
// ring whose next vertex comes first. The result is a closed, 2-manifold
// mesh, symmetric under z ↦ -z up to the ring twists.
//
// Vertex order: north pole (index 0), the rings from north to south, each
// by increasing angle about z, then the south pole (index 69).
func SphereMesh(r float64) ([]mgl64.Vec3, [][3]int) {
	verts := []mgl64.Vec3{{0, 0, r}}
	start := make([]int, len(sphereRings))
	for k, n := range sphereRings {
		start[k] = len(verts)
		theta := float64(k+1) * math.Pi / float64(len(sphereRings)+1)
		st, ct := math.Sincos(theta)
		for i := range n {
			s, c := math.Sincos(ringAngle(k, i, n))
			verts = append(verts, mgl64.Vec3{r * st * c, r * st * s, r * ct})
		}
	}
	south := len(verts)
	verts = append(verts, mgl64.Vec3{0, 0, -r})

	var tris [][3]int
	// North fan: seen from outside, with north up, angles grow to the right.
	n0 := sphereRings[0]
	for i := range n0 {
		tris = append(tris, [3]int{0, start[0] + i, start[0] + (i+1)%n0})
	}
	for k := 0; k+1 < len(sphereRings); k++ {
		tris = strip(tris, k, start[k], sphereRings[k], start[k+1], sphereRings[k+1])
	}
	last := len(sphereRings) - 1
	nl := sphereRings[last]
	for i := range nl {
		tris = append(tris, [3]int{start[last] + i, south, start[last] + (i+1)%nl})
	}
	return verts, tris
}

// ringAngle is the angle about z of vertex i of ring k (n vertices).
func ringAngle(k, i, n int) float64 {
	return 2 * math.Pi * ringFrac(k, i, n)
}

// ringFrac is ringAngle in turns; it may exceed 1 for i ≥ n (unwrapped).
func ringFrac(k, i, n int) float64 {
	off := 0.0
	if k%2 == 1 {
		off = 0.5
	}
	return (float64(i) + off) / float64(n)
}

// strip joins ring ka (upper, na vertices from index a) to ring ka+1
// (lower, nb vertices from index b) with na+nb counter-clockwise triangles.
func strip(tris [][3]int, ka, a, na, b, nb int) [][3]int {
	kb := ka + 1
	i, j := 0, 0
	for i < na || j < nb {
		ai, ai1 := a+i%na, a+(i+1)%na
		bj, bj1 := b+j%nb, b+(j+1)%nb
		// Advance the ring whose next vertex comes first by angle (ties
		// and exhausted rings decided so that both rings are walked once).
		advA := j == nb || (i < na && ringFrac(ka, i+1, na) <= ringFrac(kb, j+1, nb))
		if advA {
			tris = append(tris, [3]int{ai, bj, ai1})
			i++
		} else {
			tris = append(tris, [3]int{ai, bj, bj1})
			j++
		}
	}
	return tris
}

// Sphere70 returns the 70-vertex unit sphere of SphereMesh as a shape.
func Sphere70() (*narrow.Shape, error) {
	v, t := SphereMesh(1)
	return narrow.NewMesh(v, t)
}
