package narrow

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// NewHeightfield returns terrain as a closed triangle mesh, the form every
// shape of irtcd takes (ray-traced detection needs an inside): the surface
// y = heights[i][j] over the point x = i·dx, z = j·dz of the x–z plane
// (y up, as in sim/rigid), closed by vertical sides down to a flat bottom
// at y = base and the bottom itself. Place it with a Pose like any shape,
// usually on a static body.
//
// Each cell of the grid is two triangles, split along its diagonal from
// (i, j) to (i+1, j+1); vertex i·nz + j (nz = len(heights[0])) is the
// surface's point (i, j) and nx·nz + i·nz + j the bottom's point below it.
// The slab's depth matters: a body's vertex that sinks into the terrain
// is found by a ray that must leave through the surface before it leaves
// the slab, so base should lie below the lowest height by more than the
// deepest penetration a scene may see (a body's size is a safe choice).
//
// Bad input is a *ShapeError: fewer than two rows or columns
// (ErrDegenerate), rows of different lengths (ErrIndexRange, Prim the
// row), a NaN or infinite height (ErrNonFinite, Vertex the surface point),
// a non-positive or non-finite spacing or a base not below every height
// (ErrDegenerate).
func NewHeightfield(heights [][]float64, dx, dz, base float64) (*Shape, error) {
	nx := len(heights)
	if nx < 2 || len(heights[0]) < 2 {
		nz := 0
		if nx > 0 {
			nz = len(heights[0])
		}
		return nil, newShapeError(ErrDegenerate, fmt.Sprintf("heightfield of %d × %d points, want at least 2 × 2", nx, nz))
	}
	nz := len(heights[0])
	if !(dx > 0) || !(dz > 0) || math.IsInf(dx, 0) || math.IsInf(dz, 0) {
		return nil, newShapeError(ErrDegenerate, fmt.Sprintf("heightfield spacing %v × %v, want positive and finite", dx, dz))
	}
	lowest := math.Inf(1)
	for i, row := range heights {
		if len(row) != nz {
			e := newShapeError(ErrIndexRange, fmt.Sprintf("heightfield row %d has %d heights, row 0 %d", i, len(row), nz))
			e.Prim = i
			return nil, e
		}
		for j, h := range row {
			if !finite(h) {
				e := newShapeError(ErrNonFinite, fmt.Sprintf("height [%d][%d] is %v", i, j, h))
				e.Vertex = i*nz + j
				return nil, e
			}
			lowest = min(lowest, h)
		}
	}
	if !(base < lowest) {
		return nil, newShapeError(ErrDegenerate, fmt.Sprintf("heightfield base %v is not below its lowest height %v", base, lowest))
	}
	if nx > math.MaxInt32/(4*nz) {
		return nil, newShapeError(ErrTooLarge, fmt.Sprintf("heightfield of %d × %d points", nx, nz))
	}

	top := func(i, j int) int { return i*nz + j }
	bottom := func(i, j int) int { return nx*nz + i*nz + j }
	verts := make([]mgl64.Vec3, 0, 2*nx*nz)
	for _, surface := range [2]bool{true, false} {
		for i, row := range heights {
			for j, h := range row {
				if !surface {
					h = base
				}
				verts = append(verts, mgl64.Vec3{float64(i) * dx, h, float64(j) * dz})
			}
		}
	}
	tris := make([][3]int, 0, 4*(nx-1)*(nz-1)+4*(nx+nz-2))
	for i := range nx - 1 {
		for j := range nz - 1 {
			// a = (i, j), b = (i+1, j), c = (i+1, j+1), d = (i, j+1):
			// (a, d, c) and (a, c, b) face +y; the bottom's, reversed, −y.
			a, b, c, d := top(i, j), top(i+1, j), top(i+1, j+1), top(i, j+1)
			tris = append(tris, [3]int{a, d, c}, [3]int{a, c, b})
			a, b, c, d = bottom(i, j), bottom(i+1, j), bottom(i+1, j+1), bottom(i, j+1)
			tris = append(tris, [3]int{a, c, d}, [3]int{a, b, c})
		}
	}
	// The sides: each boundary edge p→q of the surface, in the direction
	// its surface triangle runs it, gets the quad (q, p, p', q') down to
	// the bottom, which runs it the other way.
	side := func(pi, pj, qi, qj int) {
		p, q, pb, qb := top(pi, pj), top(qi, qj), bottom(pi, pj), bottom(qi, qj)
		tris = append(tris, [3]int{q, p, pb}, [3]int{q, pb, qb})
	}
	for i := range nx - 1 {
		side(i+1, 0, i, 0)       // z = 0: (a, c, b) runs b→a
		side(i, nz-1, i+1, nz-1) // z = max: (a, d, c) runs d→c
	}
	for j := range nz - 1 {
		side(0, j, 0, j+1)       // x = 0: (a, d, c) runs a→d
		side(nx-1, j+1, nx-1, j) // x = max: (a, c, b) runs c→b
	}
	return NewMesh(verts, tris)
}
