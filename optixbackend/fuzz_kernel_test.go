package optixbackend

import (
	"context"
	"log/slog"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/fuzzread"
	"github.com/irtcd/irtcd/narrow"
)

// FuzzKernelTrace traces batches of ray queries read from the input with
// the GPU kernel's source compiled for the host (package hostkernel; the
// target skips without cgo) and checks every hit against
// narrow.Shape.TraceQuery, bit for bit, with and without the hierarchy.
// The queries are the kind that make primitives tie: origins at a mesh's
// vertices or on its edges (moved by a few of its rounding tolerances or
// not at all) or anywhere in its box, directions along its edges, along
// an axis or any finite direction, with search bounds of every kind
// (TLo zero or minus the tolerance, TMax infinite or not, Back zero or
// not), on the four test meshes, a cylinder, a heightfield with flat
// stretches and a 2D gear. A tracer must give exactly TraceQuery's hits
// (cpubackend.Tracer), or the GPU backend's contacts part from the CPU
// backend's. The origins stay near the shape, as every query of the
// backend's does (its rays start at vertices within the culling region
// and end at TMax): far away, TraceQuery's own traversals part (the slab
// test clamps 1/d to ±1e30, so it cannot reach a crossing farther than
// 1e30 times the origin's distance to a slab's plane), as this target's
// first run found with an origin 1e299 away from a 2D gear
// (docs/DESIGN.md, "Fuzzing").
//
//	go test ./optixbackend -run '^$' -fuzz '^FuzzKernelTrace$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzKernelTrace(f *testing.F) {
	shapes := loadShapes(f)
	tr := newTracer([]rayDevice{openHost(f)}, true, slog.New(slog.DiscardHandler))
	v := fuzzread.Plain
	// Seeds: a ray from a bunny's vertex along one of its edges, one
	// through a box-like cylinder's rim along an axis, one from inside
	// the heightfield's flat stretch straight up, and a gear's ray.
	f.Add([]byte{0, 0, 0, 3, 0, 0, 5, 0, 1, 0, 0})
	f.Add([]byte{1, 4, 1, 7, 0, 200, 200, 200, 2, 1, 1, 1, 1, v(0.5)})
	f.Add([]byte{0, 5, 2, v(-0.5), v(0.5), v(-0.2), 2, 4, 0, 0, 1, 0, 6, 2, 9, 2, 0, 0})
	f.Add([]byte{1, 6, 0, 12, 0, 0, 1, 9, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := fuzzread.New(data)
		tr.useBVH = r.Byte()%2 == 0
		rb := &cpubackend.RayBatch{Shapes: shapes}
		for range 64 {
			if r.Done() {
				break
			}
			k := int(r.Byte()) % len(shapes)
			s := shapes[k]
			nv := s.NumVertices()
			vertex := func() mgl64.Vec3 { return s.Vertex((int(r.Byte()) | int(r.Byte())<<8) % nv) }
			var o, d mgl64.Vec3
			switch r.Byte() % 3 {
			case 0: // a vertex, moved by up to 5 tolerances along each axis
				o = vertex()
				for i := range 3 {
					o[i] += float64(int(r.Byte()%11)-5) * s.TEps()
				}
			case 1: // a point of an edge: between a vertex and another
				a, b := vertex(), vertex()
				o = a.Add(b.Sub(a).Mul(float64(r.Byte()%9) / 8))
			default: // anywhere in the box (Num's specials at its faces)
				lo, hi := s.Bounds().Min, s.Bounds().Max
				for i := range 3 {
					u := r.Num()
					if !(math.Abs(u) <= 5) {
						u = math.Copysign(5, u)
					}
					o[i] = lo[i] + (hi[i]-lo[i])*(u+5)/10
				}
			}
			switch r.Byte() % 3 {
			case 0: // towards a vertex: along an edge, or through the mesh
				d = vertex().Sub(o)
			case 1: // along an axis, either way, the other components ±0
				b := r.Byte()
				for i := range 3 {
					if b>>i&1 != 0 {
						d[i] = math.Copysign(0, -1)
					}
				}
				d[b>>3%3] = float64(int(b>>5%2)*2 - 1)
			default:
				d = r.Vec()
			}
			if s.Dim() == narrow.Dim2 {
				o[2], d[2] = 0, 0
			}
			l := d.Len()
			if !(l > 0) || math.IsInf(l, 0) || !finiteVec(o) {
				continue
			}
			q := narrow.RayQuery{O: o, D: d.Mul(1 / l), TLo: -s.TEps(), TMax: math.Inf(1)}
			flags := r.Byte()
			if flags&1 != 0 {
				q.TLo = 0
			}
			if flags&2 != 0 {
				q.TMax = s.Size() * float64(flags>>4) / 8
			}
			if flags&4 != 0 {
				q.Back = s.Size()
			}
			rb.Queries, rb.Dst = append(rb.Queries, q), append(rb.Dst, int32(k))
		}
		n := len(rb.Queries)
		if n == 0 {
			return
		}
		rb.Fwd, rb.Bwd = make([]narrow.Hit, n), make([]narrow.Hit, n)
		if err := tr.Trace(context.Background(), rb); err != nil {
			t.Fatal(err)
		}
		for i := range rb.Queries {
			wf, wb := rb.Shapes[rb.Dst[i]].TraceQuery(&rb.Queries[i], narrow.TraversalBVH)
			if rb.Fwd[i] != wf || rb.Bwd[i] != wb {
				t.Fatalf("BVH %v, query %d %+v on shape %d: kernel %+v %+v, TraceQuery %+v %+v", tr.useBVH, i, rb.Queries[i], rb.Dst[i], rb.Fwd[i], rb.Bwd[i], wf, wb)
			}
		}
	})
}

func finiteVec(v mgl64.Vec3) bool {
	return !math.IsNaN(v[0]+v[1]+v[2]) && !math.IsInf(v[0]+v[1]+v[2], 0)
}
