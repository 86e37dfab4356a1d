package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// NewSphere returns a sphere of the given radius about the origin as a
// closed mesh: a UV sphere of segments meridians and max(2, segments/2)
// bands of latitude from pole to pole, with a vertex at each pole. Its vertices lie on the sphere,
// so it is inscribed in it (a body resting on its pole rests at the
// sphere's height). segments is at least 3; 16 to 32 suits most uses.
func NewSphere(radius float64, segments int) (*Shape, error) {
	if err := checkRound(radius, 0, segments); err != nil {
		return nil, err
	}
	rings := max(2, segments/2)
	profile := make([][2]float64, 0, rings+1)
	for k := range rings + 1 {
		phi := -math.Pi/2 + math.Pi*float64(k)/float64(rings)
		profile = append(profile, [2]float64{radius * math.Cos(phi), radius * math.Sin(phi)})
	}
	return lathe(profile, segments)
}

// NewCapsule returns a capsule along the y axis about the origin: the
// points within radius of the segment from (0, −halfHeight, 0) to
// (0, halfHeight, 0), as a closed mesh of segments meridians whose
// hemispheres have max(1, segments/4) bands of latitude each, above and
// below the cylinder between them. halfHeight 0 gives a sphere.
func NewCapsule(radius, halfHeight float64, segments int) (*Shape, error) {
	if err := checkRound(radius, halfHeight, segments); err != nil {
		return nil, err
	}
	rings := max(1, segments/4)
	var profile [][2]float64
	for i, half := range [2]struct{ from, y float64 }{{-math.Pi / 2, -halfHeight}, {0, halfHeight}} {
		for k := range rings + 1 {
			if i == 1 && k == 0 && halfHeight == 0 {
				continue // a sphere: the equator once
			}
			phi := half.from + math.Pi/2*float64(k)/float64(rings)
			profile = append(profile, [2]float64{radius * math.Cos(phi), half.y + radius*math.Sin(phi)})
		}
	}
	return lathe(profile, segments)
}

// NewCylinder returns a cylinder along the y axis about the origin, of
// the given radius, from y = −halfHeight to halfHeight, as a closed mesh:
// segments vertices around each rim and a vertex at the centre of each
// cap (its vertices lie on the cylinder, so it is inscribed in it).
func NewCylinder(radius, halfHeight float64, segments int) (*Shape, error) {
	if err := checkRound(radius, halfHeight, segments); err != nil {
		return nil, err
	}
	if !(halfHeight > 0) {
		return nil, newShapeError(ErrDegenerate, fmt.Sprintf("cylinder of half height %v, want positive", halfHeight))
	}
	return lathe([][2]float64{{0, -halfHeight}, {radius, -halfHeight}, {radius, halfHeight}, {0, halfHeight}}, segments)
}

// checkRound checks the parameters of a round shape.
func checkRound(radius, halfHeight float64, segments int) error {
	switch {
	case !(radius > 0) || math.IsInf(radius, 0):
		return newShapeError(ErrDegenerate, fmt.Sprintf("radius %v, want positive and finite", radius))
	case !(halfHeight >= 0) || math.IsInf(halfHeight, 0):
		return newShapeError(ErrDegenerate, fmt.Sprintf("half height %v, want non-negative and finite", halfHeight))
	case segments < 3:
		return newShapeError(ErrDegenerate, fmt.Sprintf("%d segments, want at least 3", segments))
	case segments > 1<<12:
		return newShapeError(ErrTooLarge, fmt.Sprintf("%d segments, want at most %d", segments, 1<<12))
	}
	return nil
}

// lathe builds the closed surface of revolution about the y axis of a
// profile (radius, y) that runs from a pole (radius 0) up to a pole,
// through rings of positive radius: a vertex at each pole, segments
// around each ring, fans at the poles and two triangles between rings per
// segment, counter-clockwise seen from outside.
func lathe(profile [][2]float64, segments int) (*Shape, error) {
	rings := profile[1 : len(profile)-1]
	verts := make([]mgl64.Vec3, 0, 2+len(rings)*segments)
	verts = append(verts, mgl64.Vec3{0, profile[0][1], 0})
	for _, p := range rings {
		for s := range segments {
			th := 2 * math.Pi * float64(s) / float64(segments)
			verts = append(verts, mgl64.Vec3{p[0] * math.Cos(th), p[1], p[0] * math.Sin(th)})
		}
	}
	top := len(verts)
	verts = append(verts, mgl64.Vec3{0, profile[len(profile)-1][1], 0})
	ring := func(k, s int) int { return 1 + k*segments + s%segments }
	tris := make([][3]int, 0, 2*len(rings)*segments)
	for s := range segments {
		tris = append(tris, [3]int{0, ring(0, s), ring(0, s+1)})
		for k := range len(rings) - 1 {
			a0, a1, b0, b1 := ring(k, s), ring(k, s+1), ring(k+1, s), ring(k+1, s+1)
			tris = append(tris, [3]int{a0, b1, a1}, [3]int{a0, b0, b1})
		}
		tris = append(tris, [3]int{top, ring(len(rings)-1, s+1), ring(len(rings)-1, s)})
	}
	return NewMesh(verts, tris)
}
