package scene3d

import (
	"math"

	"github.com/irtcd/irtcd/narrow"
)

// DefaultDepthTol is the default relative depth tolerance of the reference
// comparison (Options.DepthTol).
const DefaultDepthTol = 1e-6

// RayDiff counts the differences between a variant's contacts and the
// reference's for one step. A "ray" is one (pair, side, vertex): the ray
// cast from vertex Vertex of body From of the pair. Only rays that produced
// a contact in at least one of the two runs are compared (rays that found
// nothing in both agree; backends report only contacts). A compared ray is
// erroneous when
//
//   - it is a contact of the reference only (Missed: a false negative, as
//     when an iterative walk loses a ray or a new contact is not seen), or
//   - of the variant only (Extra: a false positive, e.g. a ray still
//     tracked after the vertex left the other body), or
//   - of both but it hit a different primitive, or depths differ by more
//     than tol × the smaller Size of the pair's two shapes (Mismatched).
//
// A pair is wrongly detected when it has at least one contact in one run
// and none in the other.
type RayDiff struct {
	Compared   int // rays with a contact in the variant, the reference or both
	Missed     int // reference only
	Extra      int // variant only
	Mismatched int // both, different primitive or depth
	WrongPairs int // pairs in contact in exactly one of the two
}

// Erroneous returns Missed + Extra + Mismatched.
func (d RayDiff) Erroneous() int { return d.Missed + d.Extra + d.Mismatched }

// comparePair adds the differences of one pair's contact lists (each sorted
// by From, then Vertex, as narrow.PairResult guarantees) to d.
func (d *RayDiff) comparePair(v, r []narrow.Contact, tol float64) {
	if (len(v) > 0) != (len(r) > 0) {
		d.WrongPairs++
	}
	i, j := 0, 0
	for i < len(v) || j < len(r) {
		d.Compared++
		switch {
		case j == len(r) || (i < len(v) && rayLess(&v[i], &r[j])):
			d.Extra++
			i++
		case i == len(v) || rayLess(&r[j], &v[i]):
			d.Missed++
			j++
		default:
			if v[i].Prim != r[j].Prim || math.Abs(v[i].Depth-r[j].Depth) > tol {
				d.Mismatched++
			}
			i++
			j++
		}
	}
}

// rayLess orders contacts by (From, Vertex).
func rayLess(a, b *narrow.Contact) bool {
	if a.From != b.From {
		return a.From < b.From
	}
	return a.Vertex < b.Vertex
}

// fromRays appends to dst the contacts of src, made with
// narrow.ResponseRay for a pair of shapes a and b at poses pa and pb,
// rewritten as response mode would have made them from the same hits (see
// package reprojection): with d the ray's unit direction (the contact's
// Dir), |r| its length (Depth) and n the world outward normal of the
// primitive hit, ResponseMTD gives depth max(|r|·(d·n), 0) and direction
// n, ResponseWeighted depth |r|·max(d·n, 0) and direction d.
func fromRays(dst, src []narrow.Contact, mode narrow.Response, a, b *narrow.Shape, pa, pb narrow.Pose) []narrow.Contact {
	for _, c := range src {
		if mode != narrow.ResponseRay {
			// The ray of a vertex of one body hits the other body.
			other, rot := b, pb.Rot
			if c.From == narrow.SideB {
				other, rot = a, pa.Rot
			}
			n := rot.Rotate(other.FaceNormal(int(c.Prim)))
			cos := c.Dir.Dot(n)
			if mode == narrow.ResponseWeighted {
				c.Depth *= max(cos, 0)
			} else {
				c.Depth, c.Dir = max(c.Depth*cos, 0), n
			}
		}
		dst = append(dst, c)
	}
	return dst
}
