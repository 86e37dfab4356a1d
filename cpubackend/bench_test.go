package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// poseSet is a named distribution of random overlapping bunny poses.
type poseSet struct {
	name  string
	poses [][2]narrow.Pose
}

var (
	benchOnce  sync.Once
	benchBunny *narrow.Shape
	benchSets  []poseSet
)

// maxDepth returns the deepest standard contact of a pair.
func maxDepth(be *cpubackend.Backend, id narrow.ShapeID, pa, pb narrow.Pose, res *narrow.Result) float64 {
	_ = be.Detect(context.Background(), []narrow.Pair{{ID: 1, A: id, B: id, PoseA: pa, PoseB: pb}}, res)
	d := -1.0
	for _, c := range res.Pairs[0].Contacts {
		d = max(d, c.Depth)
	}
	return d
}

// benchPoses builds two sets of 500 poses of two bunnies (seeded):
//
//   - contact: random orientations and direction; the distance between the
//     centres is bisected until the deepest contact is within [1%, 3%] of the
//     bunny's Size — the shallow interpenetration a simulation's narrow phase
//     sees every step;
//   - deep: centres uniformly within 0.5 × (sum of Sizes), often deep.
func benchPoses(tb testing.TB) (*narrow.Shape, []poseSet) {
	benchOnce.Do(func() {
		bunny, err := narrow.LoadOBJ("../testdata/bunny.obj")
		if err != nil {
			tb.Fatal(err)
		}
		be, _ := cpubackend.New(narrow.Params{Method: narrow.MethodStandard}, cpubackend.WithWorkers(1))
		defer be.Close()
		id, _ := be.RegisterShape(bunny)
		var res narrow.Result
		rng := rand.New(rand.NewPCG(7, 7))
		deep := poseSet{name: "deep"}
		for len(deep.poses) < 500 {
			pa, pb := reference.RandomOverlap(rng, bunny, bunny, 0.5)
			if maxDepth(be, id, pa, pb, &res) >= 0 {
				deep.poses = append(deep.poses, [2]narrow.Pose{pa, pb})
			}
		}
		contact := poseSet{name: "contact"}
		size := bunny.Size()
		for len(contact.poses) < 500 {
			pa, pb := reference.RandomOverlap(rng, bunny, bunny, 0.5)
			dir := pb.Pos.Sub(pa.Pos)
			base := pa.Pos
			// Move B along dir: s=0 overlaps fully, s=1 is beyond 2×Size.
			at := func(s float64) narrow.Pose {
				q := pb
				q.Pos = base.Add(dir.Normalize().Mul(s * 2 * size))
				return q
			}
			lo, hi := 0.0, 1.0
			for it := 0; it < 40; it++ {
				mid := 0.5 * (lo + hi)
				d := maxDepth(be, id, pa, at(mid), &res)
				switch {
				case d > 0.03*size:
					lo = mid
				case d < 0.01*size:
					hi = mid
				default:
					lo, hi = mid, mid
				}
				if lo == hi {
					contact.poses = append(contact.poses, [2]narrow.Pose{pa, at(mid)})
					break
				}
			}
		}
		benchBunny, benchSets = bunny, []poseSet{contact, deep}
	})
	return benchBunny, benchSets
}

// benchPairs times Detect on one pair at a time, cycling over poses, on one
// core with the standard method and traversal trav. Work per pair is counted
// once over the whole set (untimed), so the metrics do not depend on how many
// iterations b.N covers. Metrics: µs/pair, ns/ray (the pair's whole cost,
// culling and contact building included, divided by its standard rays),
// rays/pair and contacts/pair.
func benchPairs(b *testing.B, s *narrow.Shape, poses [][2]narrow.Pose, trav narrow.Traversal) {
	be, err := cpubackend.New(narrow.Params{Method: narrow.MethodStandard, Traversal: trav}, cpubackend.WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	id, _ := be.RegisterShape(s)
	pairs := make([][]narrow.Pair, len(poses))
	for i, p := range poses {
		pairs[i] = []narrow.Pair{{ID: 1, A: id, B: id, PoseA: p[0], PoseB: p[1]}}
	}
	var res narrow.Result
	ctx := context.Background()
	rays, contacts := 0, 0
	for _, pp := range pairs {
		if err := be.Detect(ctx, pp, &res); err != nil {
			b.Fatal(err)
		}
		rays += res.Stats.StandardRays
		contacts += res.Stats.Contacts
	}
	raysPerPair := float64(rays) / float64(len(pairs))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := be.Detect(ctx, pairs[i%len(pairs)], &res); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	perPair := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perPair/1e3, "µs/pair")
	b.ReportMetric(perPair/max(raysPerPair, 1), "ns/ray")
	b.ReportMetric(raysPerPair, "rays/pair")
	b.ReportMetric(float64(contacts)/float64(len(pairs)), "contacts/pair")
}

// BenchmarkPairStandard measures one pair (both directions) with the
// standard algorithm on one core, cycling over 500 poses of two bunnies:
// µs per pair, and ns per ray (standard rays) — the
// pair's whole cost, culling and contact building included, divided by its
// rays.
func BenchmarkPairStandard(b *testing.B) {
	bunny, sets := benchPoses(b)
	for _, set := range sets {
		for _, trav := range []narrow.Traversal{narrow.TraversalBVH, narrow.TraversalBasic} {
			b.Run(set.name+"/"+trav.String(), func(b *testing.B) { benchPairs(b, bunny, set.poses, trav) })
		}
	}
}

// BenchmarkBatch detects 64 contact pairs of bunnies per step with 1 and 2
// workers: the CPU backend's use of every core (compare with
// `benchstat -col /workers`).
func BenchmarkBatch(b *testing.B) {
	bunny, sets := benchPoses(b)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			be, err := cpubackend.New(narrow.Params{Method: narrow.MethodStandard}, cpubackend.WithWorkers(workers))
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			id, _ := be.RegisterShape(bunny)
			batch := make([]narrow.Pair, 64)
			for i := range batch {
				p := sets[0].poses[i]
				batch[i] = narrow.Pair{ID: uint64(i), A: id, B: id, PoseA: p[0], PoseB: p[1]}
			}
			var res narrow.Result
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := be.Detect(ctx, batch, &res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch))/1e3, "µs/pair")
		})
	}
}

// BenchmarkRay measures ray throughput alone: Direction.Standard (trace,
// own-body test) on exactly the rays the standard algorithm casts for the
// 500 pose pairs of each set, collected beforehand — the "time spent on
// ray tracing" of the papers, without culling and contact building.
func BenchmarkRay(b *testing.B) {
	bunny, sets := benchPoses(b)
	for _, set := range sets {
		type job struct {
			dir *narrow.Direction
			v   int32
		}
		var jobs []job
		p := narrow.Params{Method: narrow.MethodStandard}
		for _, ps := range set.poses {
			r := p.Resolve(bunny, bunny)
			var d0, d1 narrow.Direction
			d0.Setup(narrow.SideA, bunny, bunny, ps[0], ps[1], r.DistanceExtension)
			d1.Setup(narrow.SideB, bunny, bunny, ps[1], ps[0], r.DistanceExtension)
			for _, d := range []*narrow.Direction{&d0, &d1} {
				dc := *d
				for v := int32(0); v < int32(bunny.NumVertices()); v++ {
					if dc.InCull(v) {
						jobs = append(jobs, job{&dc, v})
					}
				}
			}
		}
		for _, trav := range []narrow.Traversal{narrow.TraversalBVH, narrow.TraversalBasic} {
			b.Run(set.name+"/"+trav.String(), func(b *testing.B) {
				hits := 0
				var out narrow.Outcome
				for i := 0; i < b.N; i++ {
					j := jobs[i%len(jobs)]
					if j.dir.Standard(&out, j.v, 0, trav); out.Contact {
						hits++
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrays/s")
			})
		}
	}
}

// gear returns a concave 2D gear outline with teeth×4 vertices and radius
// about 1 (the kind of polygon the box2d scenes use).
func gear(teeth int) []mgl64.Vec2 {
	var out []mgl64.Vec2
	for i := 0; i < teeth; i++ {
		a0 := 2 * math.Pi * float64(i) / float64(teeth)
		step := 2 * math.Pi / float64(teeth) / 4
		for k, r := range []float64{0.8, 1.0, 1.0, 0.8} {
			a := a0 + float64(k)*step
			out = append(out, mgl64.Vec2{r * math.Cos(a), r * math.Sin(a)})
		}
	}
	return out
}

// BenchmarkPair2D measures one pair of 448-vertex concave gears (both
// directions, standard BVH, one core) over 500 random overlapping planar
// poses: the 2D pipeline's cost per pair, for the box2d scenes.
func BenchmarkPair2D(b *testing.B) {
	g, err := narrow.NewPolygon(gear(112))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	poses := make([][2]narrow.Pose, 500)
	for i := range poses {
		poses[i][0], poses[i][1] = reference.RandomOverlap(rng, g, g, 0.5)
	}
	benchPairs(b, g, poses, narrow.TraversalBVH)
}

// cheapFrames returns benchscene.Cheap's shapes and frames.
func cheapFrames(b *testing.B, n, frames int) ([]*narrow.Shape, [][]narrow.Pair) {
	shapes, out, err := benchscene.Cheap(n, frames)
	if err != nil {
		b.Fatal(err)
	}
	return shapes, out
}

// BenchmarkCheapPairs times steps of 10,000 cheap pairs (cheapFrames) on
// one worker with each method, after one pass over the frames has built
// the temporal state: the per-pair bookkeeping of a step (validation,
// temporal state, merging) weighs as much as its rays here. One op is one
// step.
func BenchmarkCheapPairs(b *testing.B) {
	shapes, frames := cheapFrames(b, 10000, 16)
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			be, err := cpubackend.New(narrow.Params{Method: m}, cpubackend.WithWorkers(1))
			if err != nil {
				b.Fatal(err)
			}
			defer be.Close()
			for _, s := range shapes {
				if _, err := be.RegisterShape(s); err != nil {
					b.Fatal(err)
				}
			}
			var res narrow.Result
			ctx := context.Background()
			for _, f := range frames {
				if err := be.Detect(ctx, f, &res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := be.Detect(ctx, frames[i%len(frames)], &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
