package scene3d

import (
	"math"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/reprojection"
)

// DefaultDepthTol is the default relative depth tolerance of the reference
// comparison (Options.DepthTol).
const DefaultDepthTol = 1e-6

// dirTol is the largest distance between the unit directions of two
// contacts on different primitives that counts as the same contact (see
// RayDiff).
const dirTol = 1e-6

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
//   - of both but depths differ by more than tol × the smaller Size of the
//     pair's two shapes, or the contacts lie on different primitives with
//     directions more than dirTol apart (Mismatched). The direction check
//     spares a contact whose nearest surface point lies on an edge or a
//     vertex (reprojection.Fill, contacts kept by narrow.Params.Reach):
//     the primitives that share it are equally near, and rounding picks
//     one of them.
//
// A pair is wrongly detected when it has at least one contact in one run
// and none in the other.
type RayDiff struct {
	Compared   int // rays with a contact in the variant, the reference or both
	Missed     int // reference only
	Extra      int // variant only
	Mismatched int // both, different depth, or different primitive and direction
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
			if math.Abs(v[i].Depth-r[j].Depth) > tol || v[i].Prim != r[j].Prim && v[i].Dir.Sub(r[j].Dir).Len() > dirTol {
				d.Mismatched++
			}
			i++
			j++
		}
	}
}

// rayLess orders contacts by ray (narrow.CompareContacts: From, Vertex;
// edge-on-edge contacts after, by their edges).
func rayLess(a, b *narrow.Contact) bool { return narrow.CompareContacts(a, b) < 0 }

// fromRays appends to dst the contacts of src, made with
// narrow.ResponseRay for a pair of shapes a and b at poses pa and pb,
// rewritten as response mode makes them from the same hits
// (reprojection.Make, given each ray's hit: its length |r| is the raw
// contact's Depth, its primitive Prim); hits that make no contact in that
// response are left out.
func fromRays(dst, src []narrow.Contact, mode narrow.Response, a, b *narrow.Shape, pa, pb narrow.Pose) []narrow.Contact {
	if mode == narrow.ResponseRay {
		return append(dst, src...)
	}
	var dirs [2]narrow.Direction
	narrow.SetPair(&dirs, a, b, &pa, &pb)
	for _, c := range src {
		if c.Feature != narrow.FeatureVertex {
			dst = append(dst, c) // not a ray: the same in every response
			continue
		}
		h := narrow.Hit{T: c.Depth, Prim: c.Prim, Inside: true}
		if mc, ok := reprojection.Make(mode, &dirs[c.From], c.Vertex, h); ok {
			dst = append(dst, mc)
		}
	}
	return dst
}
