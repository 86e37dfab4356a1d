package narrow

import "math"

// outsideGrid bounds from below the distance from points outside a closed
// mesh (or polygon) to its surface, on a regular grid of cubic cells over
// the shape's box (an irtcd culling test, not in the papers; see
// Direction.InCull).
//
// Each cell holds 0 when it may contain a point inside the mesh or on its
// surface, and otherwise the distance between its box and the nearest
// cell the surface may cross, in units of h/gridQuant, rounded down: every
// point of the cell is outside the mesh and at least that far from its
// surface.
//
// It is conservative by construction, so it can only let through vertices
// that the exact distance would cull, never the reverse:
//   - a cell is marked as crossed by the surface if the plane of some
//     triangle meets its (closed, slightly grown) box within the
//     triangle's box, a superset of the cells the triangle meets;
//   - outside cells are those reached from the grid's border by steps
//     between face-adjacent unmarked cells. The segment between two such
//     cells' centres lies in their closed boxes, so it crosses no
//     surface, and the mesh being closed, no inside point is reached;
//     the other components of unmarked cells (the inside, pockets sealed
//     by marked cells, a polygon's holes) are judged by the winding number
//     of one cell's centre (see floodOutside);
//   - the distances are exact: the squared distance between the boxes of
//     cells Δ cells apart is h²·Σ max(0, |Δₐ| − 1)², a sum over the axes,
//     whose least value over the marked cells three one-dimensional passes
//     give (see distances).
type outsideGrid struct {
	lo  [3]float64 // the grid's lowest corner, in the shape's frame
	h   float64    // cell side
	inv float64    // 1/h
	n   [3]int     // cells per axis
	fn  [3]float64 // the same, as floats
	k   []uint8    // per cell, x fastest: 0, or its distance to the surface in units of h/gridQuant
}

// A grid has 8·∛(triangles) cells along the longest side of the shape's
// box (8·√segments for a polygon), between gridMinCells and gridMaxCells,
// plus gridMargin cells on each side: 64 cells for the bunny's 902
// triangles (0.12 MiB). At most 68³ bytes (0.3 MiB) per shape.
// Distances are kept in units of h/gridQuant, up to 255 units.
const (
	gridMinCells = 16
	gridMaxCells = 64
	gridMargin   = 2
	gridQuant    = 4
)

// buildOutsideGrid returns the grid of a shape (nil for shapes too flat to
// hold one, and where it would cull nothing that the other tests of
// InCull keep).
//
// A polygon's grid is a single layer of cells in the z = 0 plane (its
// vertices and every point InCull tests lie in it): the polygon is closed
// in the plane, and everything below works on a layer as on a volume.
func buildOutsideGrid(s *Shape) *outsideGrid {
	b := s.bounds
	side := max(b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2])
	if !(side > 0) || !finite(side) {
		return nil
	}
	cells := math.Ceil(8 * math.Cbrt(float64(len(s.prims))))
	if s.dim == Dim2 {
		cells = math.Ceil(8 * math.Sqrt(float64(len(s.prims))))
	}
	cells = min(gridMaxCells, max(gridMinCells, cells))
	g := &outsideGrid{h: side / cells}
	g.inv = 1 / g.h
	total := 1
	for a := 0; a < 3; a++ {
		g.lo[a] = b.Min[a] - gridMargin*g.h
		g.n[a] = int(math.Ceil((b.Max[a]-b.Min[a])*g.inv)) + 2*gridMargin
		if s.dim == Dim2 && a == 2 {
			g.lo[a], g.n[a] = -0.5*g.h, 1
		}
		g.fn[a] = float64(g.n[a])
		total *= g.n[a]
	}
	surf := make([]bool, total)
	g.markSurface(s, surf)
	out := g.floodOutside(s, surf)
	g.k = make([]uint8, total)
	d2 := g.distances(surf)
	for i, d := range d2 {
		if out[i] && d > 0 {
			// d is an integer: gridQuant·√d is an integer or at least
			// 1e-3 from one, so the rounding down is exact.
			g.k[i] = uint8(min(255, math.Floor(gridQuant*math.Sqrt(float64(d)))))
		}
	}
	if !g.useful(s) {
		return nil
	}
	return g
}

// useful reports whether the grid can cull a point that InCull's other
// tests keep: whether the centre of some cell outside, away from the
// surface (a positive value), lies in the shape's box and 26-DOP. A box's
// grid, for one, cannot, and is dropped rather than looked up for
// nothing.
func (g *outsideGrid) useful(s *Shape) bool {
	nx, nxy := g.n[0], g.n[0]*g.n[1]
	for i, k := range g.k {
		if k == 0 {
			continue
		}
		c := [3]float64{
			g.lo[0] + (float64(i%nx)+0.5)*g.h,
			g.lo[1] + (float64(i/nx%g.n[1])+0.5)*g.h,
			g.lo[2] + (float64(i/nxy)+0.5)*g.h,
		}
		if !s.bounds.Contains(c) {
			continue
		}
		in := true
		for a := range s.dop {
			ax, sl := &dopAxis[a], &s.dop[a]
			if p := ax[0]*c[0] + ax[1]*c[1] + ax[2]*c[2]; p < sl[0] || p > sl[1] {
				in = false
				break
			}
		}
		if in {
			return true
		}
	}
	return false
}

// index returns the cell of coordinate x along axis a, unclamped.
func (g *outsideGrid) index(x float64, a int) int {
	return int(math.Floor((x - g.lo[a]) * g.inv))
}

// markSurface marks the cells the surface may cross (see outsideGrid).
func (g *outsideGrid) markSurface(s *Shape, surf []bool) {
	nx, nxy := g.n[0], g.n[0]*g.n[1]
	// A small growth of every box covers the rounding of the cell
	// arithmetic: 1e-6 of a cell, and 1e-12 of the coordinates' magnitude
	// (cell centres and vertices are subtracted, and a shape far from its
	// origin loses digits doing so).
	b := &s.bounds
	mag := max(math.Abs(b.Min[0]), math.Abs(b.Min[1]), math.Abs(b.Min[2]),
		math.Abs(b.Max[0]), math.Abs(b.Max[1]), math.Abs(b.Max[2]))
	slack := 1e-6*g.h + 1e-12*mag
	for _, p := range s.prims {
		a, b := s.verts[p[0]], s.verts[p[1]]
		var c, n [3]float64
		if p[2] < 0 {
			// A polygon's segment: its line, in the plane.
			c, n = b, [3]float64{a[1] - b[1], b[0] - a[0], 0}
		} else {
			c = s.verts[p[2]]
			n = cross3(sub3(b, a), sub3(c, a))
		}
		var lo, hi [3]int
		for k := 0; k < 3; k++ {
			lo[k] = max(0, g.index(min(a[k], b[k], c[k])-slack, k))
			hi[k] = min(g.n[k]-1, g.index(max(a[k], b[k], c[k])+slack, k))
		}
		// The plane meets a cell's box iff |n·(centre − a)| ≤ the box's
		// half-extent along n.
		r := (0.5*g.h + slack) * (math.Abs(n[0]) + math.Abs(n[1]) + math.Abs(n[2]))
		for z := lo[2]; z <= hi[2]; z++ {
			cz := g.lo[2] + (float64(z)+0.5)*g.h - a[2]
			for y := lo[1]; y <= hi[1]; y++ {
				cy := g.lo[1] + (float64(y)+0.5)*g.h - a[1]
				row := z*nxy + y*nx
				for x := lo[0]; x <= hi[0]; x++ {
					cx := g.lo[0] + (float64(x)+0.5)*g.h - a[0]
					if math.Abs(n[0]*cx+n[1]*cy+n[2]*cz) <= r {
						surf[row+x] = true
					}
				}
			}
		}
	}
}

// floodOutside returns the unmarked cells that lie outside the shape.
// The cells reached from the grid's border through face-adjacent unmarked
// cells are outside. The other unmarked cells fall into components of
// face-adjacent cells, each wholly inside or wholly outside (the segment
// between two face-adjacent unmarked cells' centres lies in their closed
// boxes, so it crosses no surface); a component is outside if the centre
// of its first cell is — a pocket sealed by marked cells, or a polygon's
// hole — by the winding number of that centre, which lies at least h/2
// from the surface, far from where the winding number is ill-conditioned.
// At most gridPockets components are judged so (fewer for large meshes,
// see gridWinding); the rest count as inside.
func (g *outsideGrid) floodOutside(s *Shape, surf []bool) []bool {
	nx, ny, nz := g.n[0], g.n[1], g.n[2]
	nxy := nx * ny
	out := make([]bool, len(surf))
	seen := make([]bool, len(surf))
	var queue, comp []int32
	// fill marks the component of the cells queued as seen, and as out
	// too when out is true; it returns the component's cells in comp.
	fill := func(outside bool) {
		comp = comp[:0]
		for len(queue) > 0 {
			i := int(queue[len(queue)-1])
			queue = queue[:len(queue)-1]
			comp = append(comp, int32(i))
			x, y, z := i%nx, (i/nx)%ny, i/nxy
			for _, j := range [6]int{i - 1, i + 1, i - nx, i + nx, i - nxy, i + nxy} {
				switch {
				case j == i-1 && x == 0, j == i+1 && x == nx-1,
					j == i-nx && y == 0, j == i+nx && y == ny-1,
					j == i-nxy && z == 0, j == i+nxy && z == nz-1:
					continue
				}
				if !surf[j] && !seen[j] {
					seen[j], out[j] = true, outside
					queue = append(queue, int32(j))
				}
			}
		}
	}
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				// (A single layer, a polygon's, has no border along z.)
				i := z*nxy + y*nx + x
				if (x == 0 || y == 0 || x == nx-1 || y == ny-1 || nz > 1 && (z == 0 || z == nz-1)) && !surf[i] && !seen[i] {
					seen[i], out[i] = true, true
					queue = append(queue, int32(i))
				}
			}
		}
	}
	fill(true)
	pockets := 0
	for i := range surf {
		if surf[i] || seen[i] {
			continue
		}
		if pockets == gridPockets || (pockets+1)*len(s.prims) > gridWinding {
			break
		}
		pockets++
		x, y, z := i%nx, (i/nx)%ny, i/nxy
		c := [3]float64{g.lo[0] + (float64(x)+0.5)*g.h, g.lo[1] + (float64(y)+0.5)*g.h, g.lo[2] + (float64(z)+0.5)*g.h}
		outside := !s.windingInside(c)
		seen[i], out[i] = true, outside
		queue = append(queue, int32(i))
		fill(outside)
	}
	return out
}

// gridPockets is the most components of unmarked cells not reached from
// the grid's border that floodOutside judges (the mesh's inside is one),
// and gridWinding bounds the primitives their winding numbers visit in
// all (a mesh of a million triangles gets its inside judged, and no more).
const (
	gridPockets = 64
	gridWinding = 1 << 23
)

// windingInside reports whether p lies inside the shape, by its winding
// number: the solid angles of the triangles seen from p, summed (Van
// Oosterom and Strackee, 1983), 4π inside and 0 outside; for a polygon,
// the parity of the segments crossed by a ray along +x from p (p's z
// ignored). p must not lie on the surface.
func (s *Shape) windingInside(p [3]float64) bool {
	if s.dim == Dim2 {
		inside := false
		for _, t := range s.prims {
			a, b := s.verts[t[0]], s.verts[t[1]]
			if (a[1] > p[1]) != (b[1] > p[1]) && p[0] < a[0]+(p[1]-a[1])/(b[1]-a[1])*(b[0]-a[0]) {
				inside = !inside
			}
		}
		return inside
	}
	w := 0.0
	for _, t := range s.prims {
		ra, rb, rc := sub3(s.verts[t[0]], p), sub3(s.verts[t[1]], p), sub3(s.verts[t[2]], p)
		la, lb, lc := len3(ra), len3(rb), len3(rc)
		w += 2 * math.Atan2(dot3(ra, cross3(rb, rc)), la*lb*lc+dot3(ra, rb)*lc+dot3(rb, rc)*la+dot3(rc, ra)*lb)
	}
	return w > 2*math.Pi
}

// distances returns, per cell, the least over the marked cells of
// Σₐ max(0, |Δₐ| − 1)², Δ the offset in cells: the squared distance in
// cells between the two cells' boxes (gridInf where no cell is marked).
// The sum is separable, so three passes, one per axis, each take the
// least over a line of f(j) + max(0, |i − j| − 1)². For integers,
// max(0, |Δ| − 1)² = min over e ∈ {−1, 0, 1} of (Δ − e)², so a pass is the
// least of each value and its two neighbours followed by the exact 1D
// squared distance transform (Felzenszwalb and Huttenlocher, "Distance
// Transforms of Sampled Functions", 2012), in integer arithmetic.
func (g *outsideGrid) distances(surf []bool) []int32 {
	f := make([]int32, len(surf))
	for i, m := range surf {
		if m {
			f[i] = 0
		} else {
			f[i] = gridInf
		}
	}
	stride := [3]int{1, g.n[0], g.n[0] * g.n[1]}
	maxN := max(g.n[0], g.n[1], g.n[2])
	var dt lineDT
	dt.init(maxN)
	line, win := make([]int32, maxN), make([]int32, maxN)
	for a := 0; a < 3; a++ {
		b, c := (a+1)%3, (a+2)%3
		n := g.n[a]
		for j := 0; j < g.n[b]; j++ {
			for k := 0; k < g.n[c]; k++ {
				base := j*stride[b] + k*stride[c]
				for i := 0; i < n; i++ {
					line[i] = f[base+i*stride[a]]
				}
				for i := 0; i < n; i++ {
					m := line[i]
					if i > 0 {
						m = min(m, line[i-1])
					}
					if i < n-1 {
						m = min(m, line[i+1])
					}
					win[i] = m
				}
				dt.transform(win[:n], line[:n])
				for i := 0; i < n; i++ {
					f[base+i*stride[a]] = line[i]
				}
			}
		}
	}
	return f
}

// gridInf stands for no marked cell; sums of it and squared offsets
// (below 3·256²) stay within int32.
const gridInf = 1 << 28

// lineDT holds the buffers of the 1D squared distance transform.
type lineDT struct {
	v      []int   // the apexes of the parabolas of the lower envelope
	zn, zd []int64 // zn[j]/zd[j] (zd > 0): where parabola j takes over from j−1
}

func (t *lineDT) init(n int) {
	t.v = make([]int, n)
	t.zn, t.zd = make([]int64, n+1), make([]int64, n+1)
}

// transform sets out[i] to the least f[j] + (i − j)² over the j with
// f[j] < gridInf (gridInf if none). The envelope's boundaries are
// compared as exact fractions.
func (t *lineDT) transform(f, out []int32) {
	k := -1 // the last parabola of the envelope so far
	for q := range f {
		if f[q] >= gridInf {
			continue
		}
		fq := int64(f[q]) + int64(q)*int64(q)
		for k >= 0 {
			p := t.v[k]
			// The intersection of the parabolas of apexes p and q.
			sn := fq - (int64(f[p]) + int64(p)*int64(p))
			sd := 2 * int64(q-p)
			if k > 0 && sn*t.zd[k] <= t.zn[k]*sd {
				k-- // parabola p is hidden
				continue
			}
			k++
			t.v[k], t.zn[k], t.zd[k] = q, sn, sd
			break
		}
		if k < 0 {
			k = 0
			t.v[0] = q
		}
	}
	if k < 0 {
		for i := range out {
			out[i] = gridInf
		}
		return
	}
	// Boundary j (1 ≤ j ≤ k) separates parabolas j−1 and j.
	j := 0
	for i := range out {
		for j < k && t.zn[j+1] < int64(i)*t.zd[j+1] {
			j++
		}
		p := t.v[j]
		out[i] = f[p] + int32((i-p)*(i-p))
	}
}

// minCull returns the least cell value whose points all lie farther than
// ext from the surface, outside: the least v with v·h/gridQuant > ext.
// 0 means that no cell qualifies (the grid then culls nothing).
func (g *outsideGrid) minCull(ext float64) uint8 {
	if g == nil || !(ext >= 0) {
		return 0
	}
	v := math.Floor(gridQuant*ext*g.inv*(1+1e-12)) + 1
	if v > 255 {
		return 0
	}
	return uint8(v)
}

// far reports whether the point (x, y, z) of the shape's frame lies in a
// cell whose value is at least min (≥ 1): outside the mesh and farther
// than the ext min was computed for. Points off the grid are not judged.
func (g *outsideGrid) far(x, y, z float64, min uint8) bool {
	k, _ := g.cell(x, y, z)
	return k >= min
}

// edge returns how far the point (x, y, z) of the shape's frame, on the
// grid, may move before it leaves the grid (a polygon's points stay in
// its plane), less a rounding allowance.
func (g *outsideGrid) edge(x, y, z float64) float64 {
	e := math.Inf(1)
	for a, c := range [3]float64{x, y, z} {
		if g.n[a] == 1 {
			continue
		}
		e = min(e, c-g.lo[a], g.lo[a]+g.fn[a]*g.h-c)
	}
	return e - 1e-9*(g.h+math.Abs(x)+math.Abs(y)+math.Abs(z))
}

// outside reports whether the point (x, y, z) of the shape's frame lies
// in a cell of positive value: outside the shape, at least h/gridQuant
// from its surface. It is false for a nil grid.
func (g *outsideGrid) outside(x, y, z float64) bool {
	if g == nil {
		return false
	}
	k, _ := g.cell(x, y, z)
	return k > 0
}

// clearAlong reports whether the segment o + t·d, t from 0 to end (d
// unit; end may be negative: the segment runs backwards), stays clear of
// the surface by the grid's bounds: it steps along it by each point's
// lower bound (sphere tracing), less a margin for the rounding of the
// points, and fails at the first point in a cell holding 0 or off the
// grid. It is false for a nil grid.
func (g *outsideGrid) clearAlong(o, d *[3]float64, end float64) bool {
	if g == nil {
		return false
	}
	sign, length := 1.0, end
	if end < 0 {
		sign, length = -1, -end
	}
	margin := 1e-9 * (g.h + math.Abs(o[0]) + math.Abs(o[1]) + math.Abs(o[2]) + length)
	t := 0.0
	for range 64 {
		p := sign * t
		k, ok := g.cell(o[0]+p*d[0], o[1]+p*d[1], o[2]+p*d[2])
		if !ok || k == 0 {
			return false
		}
		// Every point within the bound of this one is clear; the
		// distance to the surface is 1-Lipschitz.
		t += float64(k)*g.h/gridQuant - margin
		if t > length+margin {
			return true
		}
	}
	return false
}

// cell returns the value of the cell holding the point (x, y, z) of the
// shape's frame, and false for points off the grid.
func (g *outsideGrid) cell(x, y, z float64) (uint8, bool) {
	fx := (x - g.lo[0]) * g.inv
	fy := (y - g.lo[1]) * g.inv
	fz := (z - g.lo[2]) * g.inv
	if !(fx >= 0 && fy >= 0 && fz >= 0 && fx < g.fn[0] && fy < g.fn[1] && fz < g.fn[2]) {
		return 0, false
	}
	return g.k[(int(fz)*g.n[1]+int(fy))*g.n[0]+int(fx)], true
}
