package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	b2 "github.com/ByteArena/box2d"
)

// insideOutline reports whether p lies inside the closed outline (even-odd
// rule).
func insideOutline(o []b2.B2Vec2, p b2.B2Vec2) bool {
	in := false
	for i := range o {
		a, b := o[i], o[(i+1)%len(o)]
		if (a.Y > p.Y) != (b.Y > p.Y) && p.X < a.X+(p.Y-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
			in = !in
		}
	}
	return in
}

// edgeDistance returns p's least distance to the sides of outline o.
func edgeDistance(o []b2.B2Vec2, p b2.B2Vec2) float64 {
	best := math.Inf(1)
	for i := range o {
		a, b := o[i], o[(i+1)%len(o)]
		ab := b2.B2Vec2Sub(b, a)
		t := max(0, min(1, b2.B2Vec2Dot(b2.B2Vec2Sub(p, a), ab)/b2.B2Vec2Dot(ab, ab)))
		best = min(best, b2.B2Vec2Distance(p, b2.B2Vec2Add(a, b2.B2Vec2MulScalar(t, ab))))
	}
	return best
}

// TestConvexPieces splits the scenes' outlines and others into convex
// pieces and checks them: each counter-clockwise, convex, of 3 to 8
// vertices that box2d accepts; their areas sum to the outline's; and
// points sampled on a grid over the outline's box (away from every side)
// lie in exactly one piece when inside the outline, in none outside.
func TestConvexPieces(t *testing.T) {
	rg := rand.New(rand.NewPCG(5, 6))
	u := []b2.B2Vec2{{X: 0, Y: 0}, {X: 3, Y: 0}, {X: 3, Y: 3}, {X: 2, Y: 3}, {X: 2, Y: 1}, {X: 1, Y: 1}, {X: 1, Y: 3}, {X: 0, Y: 3}}
	comb := []b2.B2Vec2{{X: 0, Y: 0}, {X: 5, Y: 0}}
	for k := 4; k >= 0; k-- {
		x := float64(k)
		comb = append(comb, b2.B2Vec2{X: x + 1, Y: 2}, b2.B2Vec2{X: x + 0.5, Y: 2}, b2.B2Vec2{X: x + 0.5, Y: 0.5}, b2.B2Vec2{X: x, Y: 0.5})
	}
	comb = comb[:len(comb)-1] // the last tooth ends on the first vertex's side
	cases := []struct {
		name    string
		outline []b2.B2Vec2
		most    int // pieces at most
	}{
		{"box", Box(1, 2), 1},
		{"U", u, 3},
		{"comb", comb, 12},
		{"gear", Gear(ObjectVertices/4, 0.7), 4 * ObjectVertices},
		{"star", Star(6, ObjectVertices, 0.9), 4 * ObjectVertices},
		{"blob", Blob(rg, ObjectVertices, 0.6), 4 * ObjectVertices},
		{"cup", CupOutline(1, 1, 0.1, 60), 4 * 64},
		{"valley", ValleyOutline(8, 3, 0.5, 200), 4 * 202},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pieces, err := ConvexPieces(c.outline)
			if err != nil {
				t.Fatal(err)
			}
			if len(pieces) > c.most {
				t.Errorf("%d pieces, want at most %d", len(pieces), c.most)
			}
			sum := 0.0
			for k, pc := range pieces {
				if len(pc) < 3 || len(pc) > b2.B2_maxPolygonVertices {
					t.Errorf("piece %d: %d vertices", k, len(pc))
				}
				if err := checkPiece(pc); err != nil {
					t.Errorf("piece %d: %v", k, err)
				}
				for i := range pc {
					if turn(pc[(i+len(pc)-1)%len(pc)], pc[i], pc[(i+1)%len(pc)]) < -1e-12 {
						t.Errorf("piece %d turns right at %v", k, pc[i])
					}
				}
				sum += polygonArea(pc)
			}
			area := polygonArea(c.outline)
			if math.Abs(sum-area) > 1e-9*area {
				t.Errorf("pieces' area %v, outline's %v", sum, area)
			}
			var lo, hi b2.B2Vec2 = c.outline[0], c.outline[0]
			for _, v := range c.outline {
				lo, hi = b2.B2Vec2Min(lo, v), b2.B2Vec2Max(hi, v)
			}
			const grid = 60
			checked := 0
			for i := range grid {
				for j := range grid {
					p := b2.B2Vec2{X: lo.X + (hi.X-lo.X)*(float64(i)+0.5)/grid, Y: lo.Y + (hi.Y-lo.Y)*(float64(j)+0.5)/grid}
					near := false
					in := 0
					for _, pc := range pieces {
						if edgeDistance(pc, p) < 1e-9 {
							near = true
						}
						if insideOutline(pc, p) {
							in++
						}
					}
					if near || edgeDistance(c.outline, p) < 1e-9 {
						continue
					}
					checked++
					want := 0
					if insideOutline(c.outline, p) {
						want = 1
					}
					if in != want {
						t.Fatalf("point %v is in %d pieces, want %d", p, in, want)
					}
				}
			}
			if checked < grid*grid/2 {
				t.Errorf("only %d points checked", checked)
			}
			t.Logf("%d vertices: %d pieces", len(c.outline), len(pieces))
		})
	}
}

// TestConvexPiecesRefused checks the outlines ConvexPieces refuses.
func TestConvexPiecesRefused(t *testing.T) {
	sq := Box(1, 1)
	cw := []b2.B2Vec2{sq[3], sq[2], sq[1], sq[0]}
	bowtie := []b2.B2Vec2{{X: 0, Y: 0}, {X: 1, Y: 1}, {X: 1, Y: 0}, {X: 0, Y: 1}}
	tiny := []b2.B2Vec2{{X: 0, Y: 0}, {X: 1e-3, Y: 0}, {X: 0, Y: 1e-3}}
	for name, o := range map[string][]b2.B2Vec2{"two vertices": sq[:2], "clockwise": cw, "bow tie": bowtie, "tiny": tiny} {
		if _, err := ConvexPieces(o); !errors.Is(err, ErrNoPieces) {
			t.Errorf("%s: %v, want ErrNoPieces", name, err)
		}
	}
}

// TestDelaunayFlips checks the flipped triangulation of the scenes'
// outlines: still len−2 counter-clockwise triangles covering the
// outline's area, and no diagonal whose far vertex lies inside the other
// triangle's circumcircle (beyond rounding); ear clipping alone leaves
// many.
func TestDelaunayFlips(t *testing.T) {
	rg := rand.New(rand.NewPCG(9, 9))
	for name, o := range map[string][]b2.B2Vec2{
		"gear": Gear(ObjectVertices/4, 0.7), "star": Star(7, ObjectVertices, 0.8), "blob": Blob(rg, ObjectVertices, 0.6), "cup": CupOutline(1, 1, 0.1, 60),
	} {
		tris, err := earClip(o)
		if err != nil {
			t.Fatal(err)
		}
		before := violations(o, tris)
		delaunay(o, tris)
		if len(tris) != len(o)-2 {
			t.Errorf("%s: %d triangles for %d vertices", name, len(tris), len(o))
		}
		sum := 0.0
		for _, tr := range tris {
			a := turn(o[tr[0]], o[tr[1]], o[tr[2]]) / 2
			if !(a > 0) {
				t.Errorf("%s: triangle %v has area %v", name, tr, a)
			}
			sum += a
		}
		if area := polygonArea(o); math.Abs(sum-area) > 1e-9*area {
			t.Errorf("%s: triangles' area %v, outline's %v", name, sum, area)
		}
		if after := violations(o, tris); after != 0 {
			t.Errorf("%s: %d diagonals fail the circle test (%d before the flips)", name, after, before)
		}
		t.Logf("%s: %d diagonals failed the circle test before the flips", name, before)
	}
}

// violations counts the diagonals of tris whose far vertex lies inside
// the circumcircle of the triangle on the other side, beyond rounding.
func violations(o []b2.B2Vec2, tris [][3]int) int {
	owner := map[[2]int][3]int{}
	for _, tr := range tris {
		for e := range 3 {
			owner[[2]int{tr[e], tr[(e+1)%3]}] = tr
		}
	}
	n := 0
	for _, tr := range tris {
		for e := range 3 {
			u, v, a := tr[e], tr[(e+1)%3], tr[(e+2)%3]
			other, ok := owner[[2]int{v, u}]
			if !ok {
				continue
			}
			b := other[0] + other[1] + other[2] - u - v
			scale := b2.B2Vec2DistanceSquared(o[u], o[v])
			if inCircle(o[u], o[v], o[a], o[b]) > 1e-9*scale*scale {
				n++
			}
		}
	}
	return n
}

// FuzzConvexPieces splits outlines of 3 to 12 vertices on a grid of
// sixteenths (any order: most are not simple) and checks that
// ConvexPieces refuses them with ErrNoPieces or returns pieces that box2d
// accepts: convex, counter-clockwise, of 3 to 8 vertices, within the
// outline (each piece's centroid inside it), of the outline's total area;
// b2PolygonShape.Set takes each, giving the piece's area.
//
//	go test ./sim -run '^$' -fuzz '^FuzzConvexPieces$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzConvexPieces(f *testing.F) {
	f.Add([]byte{0, 0, 48, 0, 48, 48, 32, 48, 32, 16, 16, 16, 16, 48, 0, 48}) // a U
	f.Add([]byte{0, 0, 16, 16, 16, 0, 0, 16})                                 // a bow tie
	f.Add([]byte{0, 0, 32, 0, 32, 32, 16, 8, 0, 32})                          // a notch
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 6 || len(data) > 24 {
			return
		}
		o := make([]b2.B2Vec2, len(data)/2)
		for i := range o {
			o[i] = b2.B2Vec2{X: float64(data[2*i]) / 16, Y: float64(data[2*i+1]) / 16}
		}
		pieces, err := ConvexPieces(o)
		if err != nil {
			if !errors.Is(err, ErrNoPieces) {
				t.Fatalf("%v: error %v does not wrap ErrNoPieces", o, err)
			}
			return
		}
		sum := 0.0
		for k, pc := range pieces {
			if len(pc) < 3 || len(pc) > b2.B2_maxPolygonVertices {
				t.Fatalf("piece %d of %v: %d vertices", k, o, len(pc))
			}
			var c b2.B2Vec2
			for i := range pc {
				if turn(pc[(i+len(pc)-1)%len(pc)], pc[i], pc[(i+1)%len(pc)]) < 0 {
					t.Fatalf("piece %d of %v turns right: %v", k, o, pc)
				}
				c = b2.B2Vec2Add(c, pc[i])
			}
			a := polygonArea(pc)
			sum += a
			s := b2.MakeB2PolygonShape()
			s.Set(pc, len(pc))
			var md b2.B2MassData
			s.ComputeMass(&md, 1)
			if math.Abs(md.Mass-a) > 1e-9*(1+a) {
				t.Fatalf("piece %d of %v: box2d's area %v, the piece's %v", k, o, md.Mass, a)
			}
			if c = b2.B2Vec2MulScalar(1/float64(len(pc)), c); !insideOutline(o, c) && edgeDistance(o, c) > 1e-9 {
				t.Fatalf("piece %d of %v: centre %v outside the outline", k, o, c)
			}
		}
		if area := polygonArea(o); math.Abs(sum-area) > 1e-9*(1+area) {
			t.Fatalf("%v: pieces' area %v, outline's %v", o, sum, area)
		}
	})
}
