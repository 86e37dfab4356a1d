package cpubackend_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/fuzzread"
	"github.com/irtcd/irtcd/narrow"
)

// pairErrs are the sentinels a bad pair's *narrow.PairError may wrap.
var pairErrs = []error{narrow.ErrUnknownShape, narrow.ErrBadPose, narrow.ErrDuplicatePair, narrow.ErrDimension}

// FuzzDetect runs a script of steps read from the input on two CPU
// backends: the parameters (method, speculative contacts, edge-on-edge
// contacts, raw or re-projected depths), then up to 12 operations, each a
// step with up to 8 pairs (IDs among six, so repeated; shapes among the
// bunny, the torus and a 2D comb, by IDs that may be unknown, negative or
// released; poses with NaN, infinities, zero quaternions and 1e300), a
// shape released or registered again, or a save or restore of the
// temporal state. The first backend gets every pair; the second, with
// twice the workers, only those the first accepted at that step. It fails
// when Detect panics or fails, when a refused pair's error is not a
// *narrow.PairError naming it and wrapping one of pairErrs, when the
// second backend refuses a pair, when a good result holds a non-finite
// contact, or when the two disagree, bit for bit, on a pair not refused
// since it last left both batches (a refused pair's own state may differ
// afterwards, as the second backend never saw it that step): a bad pair
// must not touch the others, and neither the workers nor a tracer
// (cpubackend.Tracer, the GPU backend's path; here one in Go, with the
// other traversal, at once or asynchronously, as the first byte says) may
// change the result. Run it with
//
//	go test ./cpubackend -run '^$' -fuzz '^FuzzDetect$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzDetect(f *testing.F) {
	sh := btLoad(f)
	shapes := []*narrow.Shape{sh.bunny, sh.torus, sh.poly}
	v := fuzzread.Plain
	pair := func(id, a, b byte, x float64) []byte {
		return []byte{id, a, b, v(0), v(0), v(0), v(1), v(0), v(0), v(0), v(x), v(0.4), v(0), v(1), v(0), v(0.1), v(0)}
	}
	step := func(pairs ...[]byte) []byte {
		return slices.Concat([]byte{0, byte(len(pairs) - 1)}, slices.Concat(pairs...))
	}
	// Seeds: bunnies and tori a little apart, stepped a few times,
	// standard, iterative and predictive; a NaN pose, a duplicate, a
	// 2D-3D pair, a release and a new registration, a save and a restore;
	// two of them again with a tracer (37: iterative, sync; 68:
	// predictive with speculative contacts, async).
	f.Add(slices.Concat([]byte{0}, step(pair(1, 0, 0, 3), pair(2, 1, 1, 4)), step(pair(1, 0, 0, 3.05), pair(2, 1, 1, 4.05))))
	f.Add(slices.Concat([]byte{1}, step(pair(1, 0, 1, 3.5), pair(1, 1, 1, 3), pair(3, 2, 0, 0)), []byte{3, 0}, step(pair(1, 0, 1, 3.55)), step(pair(1, 0, 1, 3.6)), []byte{3, 1}, step(pair(1, 0, 1, 3.55))))
	f.Add(slices.Concat([]byte{37}, step(pair(1, 0, 1, 3.5), pair(1, 1, 1, 3), pair(3, 2, 0, 0)), []byte{3, 0}, step(pair(1, 0, 1, 3.55)), step(pair(1, 0, 1, 3.6)), []byte{3, 1}, step(pair(1, 0, 1, 3.55))))
	f.Add(slices.Concat([]byte{5}, step(pair(4, 1, 0, 3.5)), []byte{4, 0, 4, 0, 0, 201, v(0), v(0), v(1), v(0), v(0), v(0), v(0), v(0), v(0), v(1), v(0), v(0), v(0)}, step(pair(4, 1, 0, 3.45)), step(pair(4, 1, 0, 3.4))))
	f.Add(slices.Concat([]byte{68}, step(pair(4, 1, 0, 3.5)), []byte{4, 0, 4, 0, 0, 201, v(0), v(0), v(1), v(0), v(0), v(0), v(0), v(0), v(0), v(1), v(0), v(0), v(0)}, step(pair(4, 1, 0, 3.45)), step(pair(4, 1, 0, 3.4))))
	f.Add(slices.Concat([]byte{8}, step(pair(5, 1, 1, 4)), []byte{1, 1, 2, 1}, step(pair(5, 1, 1, 4)), step(pair(5, 3, 3, 4), pair(2, 1, 0, 3.5)), step(pair(5, 3, 3, 4.05))))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := fuzzread.New(data)
		var p narrow.Params
		flags := r.Byte()
		p.Method = []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive}[int(flags)%3]
		p.Speculative = flags&4 != 0 && p.Method == narrow.MethodPredictive
		if flags&8 != 0 {
			p.EdgeAngle = math.Pi / 3
		}
		if flags&16 != 0 {
			p.Response = narrow.ResponseRay
		}
		newB := func(opts ...cpubackend.Option) *cpubackend.Backend {
			b, err := cpubackend.New(p, opts...)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.Close() })
			return b
		}
		// The second backend's standard rays may go through a tracer, as
		// the GPU backend's do: one that answers them with the other
		// traversal, at once or from a goroutine of its own while the
		// iterative work runs.
		shadowOpts := []cpubackend.Option{cpubackend.WithWorkers(2)}
		switch g := (goTracer{trav: narrow.TraversalBasic}); {
		case flags&32 != 0:
			shadowOpts = append(shadowOpts, cpubackend.WithTracer(&g))
		case flags&64 != 0:
			shadowOpts = append(shadowOpts, cpubackend.WithTracer(newAsyncTracer(t, g)))
		}
		main, shadow := newB(cpubackend.WithWorkers(1)), newB(shadowOpts...)
		// ids[k] is the k-th shape registered (IDs in both backends).
		var ids []narrow.ShapeID
		register := func(s *narrow.Shape) {
			a, err1 := main.RegisterShape(s)
			b, err2 := shadow.RegisterShape(s)
			if err1 != nil || err2 != nil || a != b {
				t.Fatalf("RegisterShape: IDs %d and %d (%v, %v)", a, b, err1, err2)
			}
			ids = append(ids, a)
		}
		for _, s := range shapes {
			register(s)
		}
		shapeID := func() narrow.ShapeID {
			switch k := int(r.Byte()); {
			case k < len(ids):
				return ids[k]
			case k%2 == 0:
				return -1
			default:
				return narrow.ShapeID(k)
			}
		}
		// refused holds the IDs of the pairs whose states may differ
		// between the two backends: refused by the first at some step,
		// and not yet absent from a whole step since (which drops a
		// pair's state in both). savedRefused is refused at the last save.
		refused, savedRefused := map[uint64]bool{}, map[uint64]bool{}
		var res, sres narrow.Result
		var saved, ssaved cpubackend.State
		var pairs, good []narrow.Pair
		for range 12 {
			if r.Done() {
				break
			}
			switch op := r.Byte() % 5; op {
			case 0, 4: // a step; with 4, the first pair's poses are read raw
				pairs = pairs[:0]
				for k := range int(r.Byte())%8 + 1 {
					pr := narrow.Pair{ID: uint64(r.Byte() % 6), A: shapeID(), B: shapeID(), PoseA: r.Pose(), PoseB: r.Pose()}
					if op != 4 || k > 0 {
						// Poses near each other: positions a fifth
						// of what Num reads (within 1 of the origin;
						// the shapes are 1 across).
						pr.PoseA.Pos, pr.PoseB.Pos = pr.PoseA.Pos.Mul(0.2), pr.PoseB.Pos.Mul(0.2)
					}
					pairs = append(pairs, pr)
				}
				if err := main.Detect(context.Background(), pairs, &res); err != nil {
					t.Fatalf("Detect: %v", err)
				}
				good = good[:0]
				for i := range res.Pairs {
					pr := &res.Pairs[i]
					if pr.Err == nil {
						good = append(good, pairs[i])
						for _, c := range pr.Contacts {
							if !finiteVec(c.P) || !finiteVec(c.Dir) || math.IsNaN(c.Depth) || math.IsInf(c.Depth, 0) {
								t.Fatalf("pair %d: contact %+v is not finite", pr.ID, c)
							}
						}
						continue
					}
					var pe *narrow.PairError
					if !errors.As(pr.Err, &pe) || pe.ID != pairs[i].ID || !slices.ContainsFunc(pairErrs, func(e error) bool { return errors.Is(pr.Err, e) }) {
						t.Fatalf("pair #%d (ID %d): error %v is not a PairError naming it with a known cause", i, pairs[i].ID, pr.Err)
					}
					refused[pairs[i].ID] = true
				}
				if err := shadow.Detect(context.Background(), good, &sres); err != nil {
					t.Fatalf("Detect of the accepted pairs: %v", err)
				}
				k := 0
				for i := range res.Pairs {
					if res.Pairs[i].Err != nil {
						continue
					}
					sp := &sres.Pairs[k]
					k++
					if sp.Err != nil {
						t.Fatalf("pair %d: accepted by one backend, refused by the other: %v", sp.ID, sp.Err)
					}
					if !refused[sp.ID] {
						btSamePair(t, fmt.Sprintf("step with %d pairs", len(pairs)), sp, &res.Pairs[i])
					}
				}
				for id := range refused {
					if !slices.ContainsFunc(pairs, func(p narrow.Pair) bool { return p.ID == id }) {
						delete(refused, id) // a fresh start in both at its next step
					}
				}
			case 1: // release a shape (the same in both; IDs stay unique)
				id := shapeID()
				err1, err2 := main.UnregisterShape(id), shadow.UnregisterShape(id)
				if (err1 == nil) != (err2 == nil) || err1 != nil && !errors.Is(err1, narrow.ErrUnknownShape) {
					t.Fatalf("UnregisterShape(%d): %v and %v", id, err1, err2)
				}
			case 2: // register a shape again, under a new ID
				register(shapes[int(r.Byte())%len(shapes)])
			case 3: // save, or restore the last save
				if r.Byte()%2 == 0 {
					err1, err2 := main.SaveState(&saved), shadow.SaveState(&ssaved)
					if err1 != nil || err2 != nil {
						t.Fatalf("SaveState: %v, %v", err1, err2)
					}
					savedRefused = maps.Clone(refused)
				} else {
					err1, err2 := main.RestoreState(&saved), shadow.RestoreState(&ssaved)
					if (err1 == nil) != (err2 == nil) {
						t.Fatalf("RestoreState: %v and %v", err1, err2)
					}
					if err1 == nil {
						maps.Copy(refused, savedRefused) // their saved states differ
					}
				}
			}
		}
	})
}

func finiteVec(v mgl64.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
