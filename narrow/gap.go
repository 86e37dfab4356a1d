package narrow

import "math"

// Clearance returns how far every vertex of Src may move, in Dst's frame,
// before a standard step with culling extension ext could cast a ray from
// any of them, or a value ≤ 0 when it cannot show that none can now: while
// each vertex has moved by less than a positive clearance since the poses
// d was set up at, InCull (after SetCull(ext)) is false for every vertex,
// so a standard step of this direction casts no ray and yields neither a
// contact nor a prediction. This is what lets a pair's direction that has
// no rays skip standard steps while its displacement (Eq. 2 of Lehericey
// et al. 2013, §3.3) stays below its clearance, with exactly the standard
// algorithm's result (see package iterative, PairState.Clear).
//
// Why it is a bound: for a point x in Dst's frame let s(x) be the largest
// amount by which x lies beyond one of Dst's slabs — its local box along
// the three axes, its 26-DOP along the ten diagonal ones (the volumes
// InCull tests, before their growth by ext). InCull(v) implies s(x_v) ≤ ext.
// Each slab's excess is 1-Lipschitz in x (the axes are unit vectors), so s
// is too: a vertex that moved by δ has s ≥ s₀ − δ, s₀ its value at setup,
// and every vertex in a ball of centre c and radius r has s ≥ s(c) − r.
// A positive clearance is a lower bound of min over vertices of s₀, less
// ext, less a tolerance for rounding (1e-9 of the shapes' scales and of
// their distance, far above the rounding of the coordinates, slabs and
// displacements compared).
//
// The search is kept cheap, since it competes with the standard step it
// may save: the bound of the ball of Src's bounding sphere if it is
// positive, else the least bound of the balls of its blocks of VertexBlock
// vertices (Shape.VertexOrder), where a block whose ball's bound is not
// positive has its vertices examined one by one, for at most blocks blocks
// (beyond, the search gives up).
func (d *Direction) Clearance(ext float64, blocks int) float64 {
	src := d.Src
	t := &d.SrcToDst.T
	tol := 1e-9 * (src.scale + d.Dst.scale + math.Sqrt(t[0]*t[0]+t[1]*t[1]+t[2]*t[2]))
	floor := ext + tol
	cg := newClearGrid(d.Dst.grid, ext)
	cx, cy, cz, r := src.BoundingSphere()
	if g := d.ballGap(&cg, cx, cy, cz, r); g > floor {
		return g - floor
	}
	best := math.Inf(1)
	for b := range src.vballs {
		ball := &src.vballs[b]
		g := d.ballGap(&cg, ball[0], ball[1], ball[2], ball[3])
		switch {
		case g >= best:
		case g > floor:
			best = g
		case blocks <= 0:
			return g - floor
		default:
			blocks--
			if best = d.vertexGap(&cg, b, best); best <= floor {
				return best - floor
			}
		}
	}
	return best - floor
}

// slabGap returns s(x) (see Clearance) for the point (ox, oy, oz) of Dst's
// frame, or some value ≥ stop as soon as it is known to be at least stop.
func (d *Direction) slabGap(ox, oy, oz, stop float64) float64 {
	dst := d.Dst
	bx := &dst.bounds
	zlo, zhi := bx.Min[2], bx.Max[2]
	if dst.dim == Dim2 {
		zlo, zhi = -1, 1 // InCull opens a polygon's z slab
	}
	g := max(bx.Min[0]-ox, ox-bx.Max[0], bx.Min[1]-oy, oy-bx.Max[1], zlo-oz, oz-zhi)
	if g >= stop {
		return g
	}
	for k := range dst.dop {
		ax, sl := &dopAxis[k], &dst.dop[k]
		p := ax[0]*ox + ax[1]*oy + ax[2]*oz
		g = max(g, sl[0]-p, p-sl[1])
	}
	return g
}

// clearGrid is Dst's outside grid as Clearance reads it: the cells that
// InCull culls for ext hold at least min (0: none).
type clearGrid struct {
	g   *outsideGrid
	min uint8
	ext float64 // the ext min was computed for
}

// newClearGrid returns grid g as Clearance reads it for ext.
func newClearGrid(g *outsideGrid, ext float64) clearGrid {
	return clearGrid{g: g, min: g.minCull(ext), ext: ext}
}

// gap returns a value g such that InCull culls, by the grid alone, every
// point within distance g − ext of (x, y, z) (−Inf if there is none). A
// point x' within δ of (x, y, z) is farther than L − δ from the surface,
// L the lower bound of (x, y, z)'s cell; its own cell's box lies within
// √3·h of it, so that cell's exact bound is at least L − δ − √3·h, and
// its stored value at most h/gridQuant below. One more cell is given up
// for the rounding of both points' cell indices. (Every cell met on the
// way is within δ of the first cell's box, hence unmarked, and so
// outside like it.) A point off the grid is not judged by it, so g is at
// most ext plus the distance from (x, y, z) to the grid's edge: x' stays
// on the grid.
func (c *clearGrid) gap(x, y, z float64) float64 {
	if c.min == 0 {
		return math.Inf(-1)
	}
	k, ok := c.g.cell(x, y, z)
	if !ok || k == 0 {
		return math.Inf(-1)
	}
	return min((float64(k)/gridQuant-math.Sqrt(3)-1/gridQuant-1)*c.g.h, c.ext+c.g.edge(x, y, z))
}

// ballGap is gap for the centre of a ball, lowered by what a vertex's
// own cell may lose against it (√3·h for the cell's extent, h/gridQuant
// for the rounding of its value), so that no vertex of the ball has a
// smaller gap: the search then only looks at a block's vertices for a
// larger bound, never a smaller one.
func (c *clearGrid) ballGap(x, y, z float64) float64 {
	if c.min == 0 {
		return math.Inf(-1)
	}
	return c.gap(x, y, z) - (math.Sqrt(3)+1.0/gridQuant)*c.g.h
}

// ballGap returns a lower bound of the ball's gap over the ball of Src's
// frame of centre (x, y, z) and radius r: that of its centre (s, or the
// grid's, see clearGrid.gap), less r.
func (d *Direction) ballGap(cg *clearGrid, x, y, z, r float64) float64 {
	m, t := &d.SrcToDst.R, &d.SrcToDst.T
	ox := m[0]*x + m[1]*y + m[2]*z + t[0]
	oy := m[3]*x + m[4]*y + m[5]*z + t[1]
	oz := m[6]*x + m[7]*y + m[8]*z + t[2]
	return max(d.slabGap(ox, oy, oz, math.Inf(1)), cg.ballGap(ox, oy, oz)) - r
}

// vertexGap returns min(best, gap(x_v)) over the vertices v of block b,
// the gap of a vertex being the larger of s and the grid's.
func (d *Direction) vertexGap(cg *clearGrid, b int, best float64) float64 {
	src := d.Src
	m, t := &d.SrcToDst.R, &d.SrcToDst.T
	for _, v := range src.BlockVertices(b) {
		x := &src.verts[v]
		ox := m[0]*x[0] + m[1]*x[1] + m[2]*x[2] + t[0]
		oy := m[3]*x[0] + m[4]*x[1] + m[5]*x[2] + t[1]
		oz := m[6]*x[0] + m[7]*x[1] + m[8]*x[2] + t[2]
		g := d.slabGap(ox, oy, oz, best)
		if g < best {
			g = max(g, cg.gap(ox, oy, oz))
		}
		best = min(best, g)
	}
	return best
}
