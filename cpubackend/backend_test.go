package cpubackend_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

// btShapes are the shapes of the backend tests, registered in this order.
type btShapes struct {
	bunny, torus, poly *narrow.Shape
}

// btIDs are the shapes' IDs in a backend.
type btIDs struct {
	bunny, torus, poly narrow.ShapeID
}

func btLoad(t testing.TB) *btShapes {
	t.Helper()
	return &btShapes{bunny: loadMesh(t, "bunny"), torus: loadMesh(t, "torus"), poly: itComb(t)}
}

// btNew returns a backend with the test shapes registered. It is closed
// at the end of the test.
func btNew(t testing.TB, sh *btShapes, p narrow.Params, opts ...cpubackend.Option) (*cpubackend.Backend, btIDs) {
	t.Helper()
	be, err := cpubackend.New(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { be.Close() })
	var ids btIDs
	for _, r := range []struct {
		s  *narrow.Shape
		id *narrow.ShapeID
	}{{sh.bunny, &ids.bunny}, {sh.torus, &ids.torus}, {sh.poly, &ids.poly}} {
		if *r.id, err = be.RegisterShape(r.s); err != nil {
			t.Fatal(err)
		}
	}
	return be, ids
}

// btDetect runs one step that must succeed.
func btDetect(t testing.TB, be *cpubackend.Backend, pairs []narrow.Pair, res *narrow.Result) {
	t.Helper()
	if err := be.Detect(context.Background(), pairs, res); err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != len(pairs) {
		t.Fatalf("%d pair results for %d pairs", len(res.Pairs), len(pairs))
	}
}

// btSamePair compares two pair results field by field, contacts with ==.
func btSamePair(t *testing.T, label string, want, got *narrow.PairResult) bool {
	t.Helper()
	switch {
	case want.ID != got.ID:
		t.Errorf("%s: pair ID %d, want %d", label, got.ID, want.ID)
	case want.Iterative != got.Iterative:
		t.Errorf("%s: pair %d: Iterative %v, want %v", label, want.ID, got.Iterative, want.Iterative)
	case (want.Err == nil) != (got.Err == nil) || (want.Err != nil && want.Err.Error() != got.Err.Error()):
		t.Errorf("%s: pair %d: error %v, want %v", label, want.ID, got.Err, want.Err)
	case len(want.Contacts) != len(got.Contacts):
		t.Errorf("%s: pair %d: %d contacts, want %d", label, want.ID, len(got.Contacts), len(want.Contacts))
	case len(want.Manifolds) != len(got.Manifolds):
		t.Errorf("%s: pair %d: %d manifolds, want %d", label, want.ID, len(got.Manifolds), len(want.Manifolds))
	default:
		for i := range want.Contacts {
			if want.Contacts[i] != got.Contacts[i] {
				t.Errorf("%s: pair %d contact %d: %+v, want %+v", label, want.ID, i, got.Contacts[i], want.Contacts[i])
				return false
			}
		}
		for i := range want.Manifolds {
			wm, gm := &want.Manifolds[i], &got.Manifolds[i]
			if wm.Normal != gm.Normal || len(wm.Points) != len(gm.Points) {
				t.Errorf("%s: pair %d manifold %d: normal %v with %d points, want %v with %d", label, want.ID, i, gm.Normal, len(gm.Points), wm.Normal, len(wm.Points))
				return false
			}
			for k := range wm.Points {
				if wm.Points[k] != gm.Points[k] {
					t.Errorf("%s: pair %d manifold %d point %d: %+v, want %+v", label, want.ID, i, k, gm.Points[k], wm.Points[k])
					return false
				}
			}
		}
		return true
	}
	return false
}

// btSameResult compares two whole results, Stats included.
func btSameResult(t *testing.T, label string, want, got *narrow.Result) bool {
	t.Helper()
	if len(want.Pairs) != len(got.Pairs) {
		t.Errorf("%s: %d pairs, want %d", label, len(got.Pairs), len(want.Pairs))
		return false
	}
	same := true
	for i := range want.Pairs {
		same = btSamePair(t, fmt.Sprintf("%s pair #%d", label, i), &want.Pairs[i], &got.Pairs[i]) && same
	}
	if want.Stats != got.Stats {
		t.Errorf("%s: stats %+v, want %+v", label, got.Stats, want.Stats)
		same = false
	}
	return same
}

// btMove returns the pose of a body placed by the rigid map w: w ∘ p.
func btMove(w, p narrow.Pose) narrow.Pose {
	return narrow.Pose{Pos: w.Rot.Rotate(p.Pos).Add(w.Pos), Rot: w.Rot.Mul(p.Rot).Normalize()}
}

// btScriptedBatch returns steps × n pairs of bunnies and tori: pair i
// follows script i mod 5 (seed i), placed in the world by its own random
// rigid map.
func btScriptedBatch(t testing.TB, sh *btShapes, ids btIDs, n, steps int) [][]narrow.Pair {
	t.Helper()
	rng := rand.New(rand.NewPCG(11, 64))
	scripts := motion.Scripts()
	shapes := []struct {
		s  *narrow.Shape
		id narrow.ShapeID
	}{{sh.bunny, ids.bunny}, {sh.torus, ids.torus}}
	out := make([][]narrow.Pair, steps)
	for i := 0; i < n; i++ {
		a, b := shapes[rng.IntN(2)], shapes[rng.IntN(2)]
		w := narrow.Pose{Pos: mgl64.Vec3{rng.Float64()*20 - 10, rng.Float64()*20 - 10, rng.Float64()*20 - 10}, Rot: reference.RandomRotation(rng)}
		script := scripts[i%len(scripts)].New(a.s, b.s, uint64(i))
		start := rng.IntN(100) // somewhere along the script
		for k := 0; k < steps; k++ {
			pa, pb := script(start + k)
			out[k] = append(out[k], narrow.Pair{ID: uint64(1000 + 7*i), A: a.id, B: b.id, PoseA: btMove(w, pa), PoseB: btMove(w, pb)})
		}
	}
	return out
}

// TestBackendDeterminism runs the same scripted batch of 160 pairs (three
// blocks of the parallel preparation) with 1, 2 and 7 workers: every
// step's Result must be identical.
func TestBackendDeterminism(t *testing.T) {
	sh := btLoad(t)
	steps := 20
	if testing.Short() {
		steps = 8
	}
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 160, steps)
	for _, p := range []narrow.Params{{Method: narrow.MethodPredictive}, {Method: narrow.MethodIterative}, {Method: narrow.MethodPredictive, Speculative: true}, {Method: narrow.MethodIterative, EdgeAngle: math.Pi / 6}, {Method: narrow.MethodPredictive, Speculative: true, EdgeAngle: math.Pi / 6}} {
		m := p.Method
		var want []*narrow.Result
		for _, workers := range []int{1, 2, 7} {
			be, _ := btNew(t, sh, p, cpubackend.WithWorkers(workers))
			var res narrow.Result
			var sum narrow.Stats
			for k, pairs := range batch {
				btDetect(t, be, pairs, &res)
				sum.Add(&res.Stats)
				if workers == 1 {
					want = append(want, res.Clone())
					continue
				}
				if !btSameResult(t, fmt.Sprintf("%v, %d workers, step %d", m, workers, k), want[k], &res) {
					break
				}
			}
			if workers == 1 {
				t.Logf("%v (speculative %v, edges %v): %d pair-steps: %d standard, %d iterative, %d contacts, %d speculative, %d edge", m, p.Speculative, p.EdgeAngle, sum.Pairs, sum.StandardPairs, sum.IterativePairs, sum.Contacts, sum.Speculative, sum.EdgeContacts)
				if sum.StandardPairs == 0 || sum.IterativePairs == 0 || sum.Contacts == 0 || sum.FailedPairs != 0 || p.Speculative != (sum.Speculative > 0) || (p.EdgeAngle > 0) != (sum.EdgeContacts > 0) {
					t.Fatalf("%v: the batch does not exercise both kinds of step: %+v", m, sum)
				}
			}
		}
	}
}

// TestBackendZeroAllocs checks that a steady-state step allocates nothing
// once the backend and the Result have warmed up, for a small batch and
// for one prepared in parallel blocks.
func TestBackendZeroAllocs(t *testing.T) {
	sh := btLoad(t)
	for _, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: narrow.MethodIterative}, {Method: narrow.MethodPredictive}, {Method: narrow.MethodPredictive, Speculative: true}, {Method: narrow.MethodPredictive, Speculative: true, EdgeAngle: math.Pi / 6}} {
		m := p.Method
		for _, n := range []int{6, 130} {
			t.Run(fmt.Sprintf("%v/speculative=%v/edges=%.2f/pairs=%d", m, p.Speculative, p.EdgeAngle, n), func(t *testing.T) {
				be, ids := btNew(t, sh, p, cpubackend.WithWorkers(2))
				batch := btScriptedBatch(t, sh, ids, n, 24)
				var res narrow.Result
				ctx := context.Background()
				for range 3 { // warm-up: three passes over the cycle
					for _, pairs := range batch {
						btDetect(t, be, pairs, &res)
					}
				}
				k := 0
				allocs := testing.AllocsPerRun(48, func() {
					if err := be.Detect(ctx, batch[k%len(batch)], &res); err != nil {
						panic(err)
					}
					k++
				})
				if allocs != 0 {
					t.Errorf("%v: %v allocations per steady-state step, want 0", m, allocs)
				}
			})
		}
	}
}

// btGoodPairs returns four valid pairs (3D and 2D) at step k of their
// scripts.
func btGoodPairs(sh *btShapes, ids btIDs, k int) []narrow.Pair {
	bb := motion.RestingJitter(sh.bunny, sh.bunny, 3)
	bt := motion.Sliding(sh.bunny, sh.torus, 0)
	tt := motion.Rotation(sh.torus, sh.torus, 0)
	pp := motion.RestingJitter(sh.poly, sh.poly, 4)
	var out []narrow.Pair
	for _, p := range []struct {
		id     uint64
		a, b   narrow.ShapeID
		script motion.Script
	}{{1, ids.bunny, ids.bunny, bb}, {2, ids.bunny, ids.torus, bt}, {3, ids.torus, ids.torus, tt}, {4, ids.poly, ids.poly, pp}} {
		pa, pb := p.script(k)
		out = append(out, narrow.Pair{ID: p.id, A: p.a, B: p.b, PoseA: pa, PoseB: pb})
	}
	return out
}

// TestBackendBadInputIsolation mixes bad pairs into a batch: each gets a
// *narrow.PairError wrapping the right sentinel and naming the pair, while
// the good pairs get exactly what a batch of only good pairs gets, this step
// and the next (iterative) one.
func TestBackendBadInputIsolation(t *testing.T) {
	sh := btLoad(t)
	clean, ids := btNew(t, sh, narrow.Params{})
	mixed, _ := btNew(t, sh, narrow.Params{})

	type bad struct {
		pair narrow.Pair
		want error
	}
	mixedBatch := func(good []narrow.Pair) ([]narrow.Pair, map[int]bad, map[int]int) {
		g := good
		nan := g[0]
		nan.ID, nan.PoseB.Pos[0] = 11, math.NaN()
		zeroQ := g[2]
		zeroQ.ID, zeroQ.PoseA.Rot = 12, mgl64.Quat{}
		dup := g[2] // same ID as good pair 3, other poses
		dup.PoseB.Pos = dup.PoseB.Pos.Add(mgl64.Vec3{0.01, 0, 0})
		dim := narrow.Pair{ID: 13, A: ids.poly, B: ids.bunny, PoseA: narrow.Identity, PoseB: narrow.Identity}
		unknown := g[1]
		unknown.ID, unknown.B = 10, 99
		negative := g[1]
		negative.ID, negative.A = 14, -1
		bads := []bad{
			{unknown, narrow.ErrUnknownShape},
			{nan, narrow.ErrBadPose},
			{zeroQ, narrow.ErrBadPose},
			{dup, narrow.ErrDuplicatePair},
			{dim, narrow.ErrDimension},
			{negative, narrow.ErrUnknownShape},
		}
		// Interleave: bad, good, bad, good, ... The duplicate comes after
		// the pair whose ID it repeats.
		var out []narrow.Pair
		badAt, goodAt := map[int]bad{}, map[int]int{}
		for i := 0; i < max(len(good), len(bads)); i++ {
			if i < len(bads) {
				badAt[len(out)] = bads[i]
				out = append(out, bads[i].pair)
			}
			if i < len(good) {
				goodAt[len(out)] = i
				out = append(out, good[i])
			}
		}
		return out, badAt, goodAt
	}

	var cres, mres narrow.Result
	for k := 0; k < 3; k++ { // step 0 standard, steps 1 and 2 iterative
		good := btGoodPairs(sh, ids, k)
		batch, badAt, goodAt := mixedBatch(good)
		before := append([]narrow.Pair(nil), batch...)
		btDetect(t, clean, good, &cres)
		btDetect(t, mixed, batch, &mres)
		for i := range batch {
			if fmt.Sprint(batch[i]) != fmt.Sprint(before[i]) {
				t.Errorf("step %d: Detect modified input pair #%d: %+v, was %+v", k, i, batch[i], before[i])
			}
		}
		for i, b := range badAt {
			pr := &mres.Pairs[i]
			var pe *narrow.PairError
			switch {
			case pr.Err == nil:
				t.Errorf("step %d: bad pair #%d (ID %d): no error, want %v", k, i, b.pair.ID, b.want)
				continue
			case !errors.As(pr.Err, &pe):
				t.Errorf("step %d: bad pair #%d: error %T %v is not a *narrow.PairError", k, i, pr.Err, pr.Err)
			case pe.ID != b.pair.ID:
				t.Errorf("step %d: bad pair #%d: PairError.ID %d, want %d", k, i, pe.ID, b.pair.ID)
			}
			if !errors.Is(pr.Err, b.want) {
				t.Errorf("step %d: bad pair #%d (ID %d): error %q does not wrap %q", k, i, b.pair.ID, pr.Err, b.want)
			}
			if msg := pr.Err.Error(); !strings.Contains(msg, fmt.Sprintf("pair %d", b.pair.ID)) {
				t.Errorf("step %d: bad pair #%d: message %q does not name pair %d", k, i, msg, b.pair.ID)
			}
			if pr.ID != b.pair.ID || len(pr.Contacts) != 0 || len(pr.Manifolds) != 0 || pr.Iterative {
				t.Errorf("step %d: bad pair #%d: %+v, want ID %d and no contacts", k, i, pr, b.pair.ID)
			}
		}
		iterative := 0
		for i, gi := range goodAt {
			if btSamePair(t, fmt.Sprintf("step %d good pair %d", k, good[gi].ID), &cres.Pairs[gi], &mres.Pairs[i]) && mres.Pairs[i].Iterative {
				iterative++
			}
		}
		if k > 0 && iterative == 0 {
			t.Errorf("step %d: no good pair was updated iteratively; the test does not check the iterative step", k)
		}
		// Stats: the same work, plus the failed pairs.
		want := cres.Stats
		want.Pairs, want.FailedPairs = len(batch), len(badAt)
		if mres.Stats != want {
			t.Errorf("step %d: stats %+v, want %+v", k, mres.Stats, want)
		}
		total := 0
		for _, p := range cres.Pairs {
			total += len(p.Contacts)
		}
		if total == 0 {
			t.Fatalf("step %d: the good pairs have no contacts; the test checks nothing", k)
		}
	}
}

// btFlakyCtx is a context whose Err reports cancellation from its
// (after+1)-th call on: Detect sees a live context at its start and a
// cancelled one in the middle of the step.
type btFlakyCtx struct {
	context.Context
	after int32
	calls atomic.Int32
}

func (c *btFlakyCtx) Err() error {
	if c.calls.Add(1) > c.after {
		return context.Canceled
	}
	return nil
}

// TestBackendContextCancel checks that a cancelled step returns
// context.Canceled and leaves the temporal state as it was: the next step
// gives the same result as on a backend that never saw the cancelled call.
func TestBackendContextCancel(t *testing.T) {
	sh := btLoad(t)
	cases := []struct {
		name string
		ctx  func() context.Context
		// The batch of the cancelled call, from the batch of the next step.
		batch func(next []narrow.Pair) []narrow.Pair
	}{
		{"cancelled before", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, func(next []narrow.Pair) []narrow.Pair { return next }},
		{"cancelled mid-step", func() context.Context {
			return &btFlakyCtx{Context: context.Background(), after: 1}
		}, func(next []narrow.Pair) []narrow.Pair { return next }},
		{"cancelled mid-step, far poses and a new pair", func() context.Context {
			return &btFlakyCtx{Context: context.Background(), after: 1}
		}, func(next []narrow.Pair) []narrow.Pair {
			out := append([]narrow.Pair(nil), next...)
			for i := range out { // far beyond the threshold: standard steps
				out[i].PoseB.Pos = out[i].PoseB.Pos.Add(mgl64.Vec3{0.3, 0, 0})
			}
			out = append(out, narrow.Pair{ID: 99, A: out[0].A, B: out[0].B, PoseA: out[0].PoseA, PoseB: out[0].PoseB})
			return out[1:] // pair 1 absent
		}},
		{"cancelled mid-step, pair with other shapes", func() context.Context {
			return &btFlakyCtx{Context: context.Background(), after: 1}
		}, func(next []narrow.Pair) []narrow.Pair {
			out := append([]narrow.Pair(nil), next...)
			out[1].A, out[1].B = out[1].B, out[1].A // pair 2: torus-bunny instead of bunny-torus
			out[1].PoseA, out[1].PoseB = out[1].PoseB, out[1].PoseA
			return out
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			victim, ids := btNew(t, sh, narrow.Params{})
			control, _ := btNew(t, sh, narrow.Params{})
			var vres, cres narrow.Result
			btDetect(t, victim, btGoodPairs(sh, ids, 0), &vres)
			btDetect(t, control, btGoodPairs(sh, ids, 0), &cres)
			next := btGoodPairs(sh, ids, 1)
			err := victim.Detect(tc.ctx(), tc.batch(next), &vres)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Detect returned %v, want context.Canceled", err)
			}
			btDetect(t, victim, next, &vres)
			btDetect(t, control, next, &cres)
			btSameResult(t, "step after the cancelled call", &cres, &vres)
			if cres.Stats.IterativePairs == 0 {
				t.Fatal("the control step is not iterative; the test checks nothing")
			}
		})
	}
}

// TestBackendStateDroppedWhenPairLeaves checks that a pair absent from one
// step loses its temporal state: its next step is a standard step, while a
// pair present throughout goes on iteratively.
func TestBackendStateDroppedWhenPairLeaves(t *testing.T) {
	sh := btLoad(t)
	for _, m := range []narrow.Method{narrow.MethodIterative, narrow.MethodPredictive} {
		be, ids := btNew(t, sh, narrow.Params{Method: m})
		var res narrow.Result
		all0, all1, all2 := btGoodPairs(sh, ids, 0), btGoodPairs(sh, ids, 1), btGoodPairs(sh, ids, 2)
		btDetect(t, be, all0, &res)
		for _, p := range res.Pairs {
			if p.Iterative {
				t.Fatalf("%v: pair %d iterative at its first step", m, p.ID)
			}
		}
		btDetect(t, be, all1[1:], &res) // pair 1 absent
		for _, p := range res.Pairs {
			if !p.Iterative {
				t.Errorf("%v: pair %d not iterative at its second step", m, p.ID)
			}
		}
		btDetect(t, be, all2, &res)
		for _, p := range res.Pairs {
			if want := p.ID != 1; p.Iterative != want {
				t.Errorf("%v: after pair 1 left for a step: pair %d Iterative %v, want %v", m, p.ID, p.Iterative, want)
			}
		}
		// Reset forgets every pair.
		be.Reset()
		btDetect(t, be, btGoodPairs(sh, ids, 3), &res)
		for _, p := range res.Pairs {
			if p.Iterative {
				t.Errorf("%v: pair %d iterative after Reset", m, p.ID)
			}
		}
	}
}

func TestBackendClosed(t *testing.T) {
	sh := btLoad(t)
	be, ids := btNew(t, sh, narrow.Params{})
	var res narrow.Result
	btDetect(t, be, btGoodPairs(sh, ids, 0), &res)
	if err := be.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := be.Detect(context.Background(), btGoodPairs(sh, ids, 1), &res); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("Detect after Close: %v, want ErrBackendClosed", err)
	}
	if _, err := be.RegisterShape(sh.bunny); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("RegisterShape after Close: %v, want ErrBackendClosed", err)
	}
	if err := be.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestBackendParamsValidation(t *testing.T) {
	bad := []narrow.Params{
		{Method: narrow.MethodStandard + 1},
		{Traversal: narrow.TraversalBasic + 1},
		{Response: narrow.ResponseWeighted + 1},
		{DisplacementThreshold: -1},
		{DisplacementThreshold: math.NaN()},
		{DisplacementThreshold: math.Inf(1)},
		{Confidence: 0.5},
		{Confidence: math.NaN()},
		{DistanceExtension: -0.1},
		{DisplacementThreshold: 0.1, DistanceExtension: 0.03},
		{DisplacementThreshold: 0.1, DistanceExtension: 0.02},
		{Method: narrow.MethodPredictive, Speculative: true, DisplacementThreshold: 0.1, DistanceExtension: 0.1},
		{MaxIt: -1},
		{ManifoldSize: 1},
		{ManifoldSize: -2},
		{ManifoldAngle: -0.1},
		{ManifoldAngle: 4},
		{ManifoldAngle: math.NaN()},
	}
	for _, p := range bad {
		be, err := cpubackend.New(p)
		if !errors.Is(err, narrow.ErrBadParams) {
			t.Errorf("New(%+v): error %v, want ErrBadParams", p, err)
		}
		if be != nil {
			t.Errorf("New(%+v) returned a backend with its error", p)
			be.Close()
		}
	}
	good := []narrow.Params{
		{},
		{Method: narrow.MethodStandard, Traversal: narrow.TraversalBasic, Response: narrow.ResponseWeighted},
		{DisplacementThreshold: 0.1, DistanceExtension: 0.3, Confidence: 1, MaxIt: 3, ManifoldSize: 2, ManifoldAngle: math.Pi},
	}
	for _, p := range good {
		be, err := cpubackend.New(p)
		if err != nil {
			t.Errorf("New(%+v): %v", p, err)
			continue
		}
		if be.Params() != p {
			t.Errorf("Params() = %+v, want %+v", be.Params(), p)
		}
		be.Close()
	}
}

// TestBackendNilResult: a nil Result is an error, not a panic, and the
// backend keeps working.
func TestBackendNilResult(t *testing.T) {
	sh := btLoad(t)
	be, ids := btNew(t, sh, narrow.Params{})
	defer be.Close()
	if err := be.Detect(context.Background(), btGoodPairs(sh, ids, 0), nil); !errors.Is(err, narrow.ErrBadParams) {
		t.Fatalf("Detect(nil result): %v, want ErrBadParams", err)
	}
	var res narrow.Result
	btDetect(t, be, btGoodPairs(sh, ids, 0), &res)
	if len(res.Pairs) == 0 {
		t.Fatal("no results after a rejected call")
	}
}

// TestUnregisterShape: a released shape's pairs fail with ErrUnknownShape
// while the other pairs go on; a released or unknown ID cannot be released
// (again); IDs are not given again, and a pair whose shape is registered
// anew starts with a standard step.
func TestUnregisterShape(t *testing.T) {
	bunny := loadMesh(t, "bunny")
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	var ids [3]narrow.ShapeID
	for i := range ids {
		if ids[i], err = be.RegisterShape(bunny); err != nil {
			t.Fatal(err)
		}
	}
	pa := narrow.Pose{Rot: mgl64.QuatIdent()}
	pb := narrow.Pose{Pos: mgl64.Vec3{0.3, 0.2, 0}, Rot: mgl64.QuatIdent()}
	pairs := []narrow.Pair{
		{ID: 1, A: ids[0], B: ids[1], PoseA: pa, PoseB: pb},
		{ID: 2, A: ids[0], B: ids[2], PoseA: pa, PoseB: pb},
	}
	var res narrow.Result
	run := func() {
		t.Helper()
		if err := be.Detect(context.Background(), pairs, &res); err != nil {
			t.Fatal(err)
		}
	}
	run()
	run()
	if r := &res.Pairs[1]; r.Err != nil || len(r.Contacts) == 0 || !r.Iterative {
		t.Fatalf("pair 2 before the release: err %v, %d contacts, iterative %v; want contacts from an iterative step", r.Err, len(r.Contacts), r.Iterative)
	}
	if err := be.UnregisterShape(ids[2]); err != nil {
		t.Fatal(err)
	}
	run()
	if err := res.Pairs[1].Err; !errors.Is(err, narrow.ErrUnknownShape) {
		t.Errorf("pair naming the released shape: %v, want ErrUnknownShape", err)
	}
	if r := &res.Pairs[0]; r.Err != nil || len(r.Contacts) == 0 {
		t.Errorf("the other pair: err %v, %d contacts", r.Err, len(r.Contacts))
	}
	for _, id := range []narrow.ShapeID{ids[2], -1, 99} {
		if err := be.UnregisterShape(id); !errors.Is(err, narrow.ErrUnknownShape) {
			t.Errorf("UnregisterShape(%d) = %v, want ErrUnknownShape", id, err)
		}
	}
	again, err := be.RegisterShape(bunny)
	if err != nil {
		t.Fatal(err)
	}
	if again == ids[2] {
		t.Errorf("the released ID %d was given again", again)
	}
	pairs[1].B = again
	run()
	if r := &res.Pairs[1]; r.Err != nil || len(r.Contacts) == 0 || r.Iterative {
		t.Errorf("pair 2 with its shape registered anew: err %v, %d contacts, iterative %v; want a standard step with contacts", r.Err, len(r.Contacts), r.Iterative)
	}
	be.Close()
	if err := be.UnregisterShape(ids[0]); !errors.Is(err, narrow.ErrBackendClosed) {
		t.Errorf("UnregisterShape after Close = %v, want ErrBackendClosed", err)
	}
}

// TestBackendDetectTimes: the parts of a step's time are non-negative,
// the ray work of a step that casts rays is positive, and together they
// fit in the wall time around Detect; a cancelled call leaves the last
// successful step's times.
func TestBackendDetectTimes(t *testing.T) {
	sh := btLoad(t)
	be, ids := btNew(t, sh, narrow.Params{})
	var res narrow.Result
	pairs := btGoodPairs(sh, ids, 0)
	t0 := time.Now()
	btDetect(t, be, pairs, &res)
	wall := time.Since(t0)
	got := be.LastDetectTimes()
	if res.Stats.Rays() == 0 {
		t.Fatal("the step cast no ray: the test checks nothing")
	}
	if got.Prepare < 0 || got.Rays <= 0 || got.Finish < 0 || got.Prepare+got.Rays+got.Finish > wall {
		t.Errorf("times %+v for a step of %v", got, wall)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := be.Detect(ctx, btGoodPairs(sh, ids, 1), &res); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Detect returned %v", err)
	}
	if after := be.LastDetectTimes(); after != got {
		t.Errorf("times after a cancelled call %+v, want the last step's %+v", after, got)
	}
}

// TestBackendBatchGrowsAndShrinks runs a batch whose size crosses the
// blocks of jobs (pairBlock) up and down from step to step, as a pile
// forming or breaking up does. A pair's outcome depends only on its own
// history (its state is dropped at a step it is absent from), so each pair
// is checked against a backend that sees it alone, or nothing at the steps
// it is not in the batch.
func TestBackendBatchGrowsAndShrinks(t *testing.T) {
	sh := btLoad(t)
	sizes := []int{140, 10, 65, 64, 140, 1, 129, 140, 63, 140}
	if testing.Short() {
		sizes = sizes[:6]
	}
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 140, len(sizes))
	for _, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: narrow.MethodIterative}, {Method: narrow.MethodPredictive, Speculative: true}} {
		be, _ := btNew(t, sh, p, cpubackend.WithWorkers(2))
		alone := make([]*cpubackend.Backend, 140)
		for i := range alone {
			alone[i], _ = btNew(t, sh, p, cpubackend.WithWorkers(1))
		}
		var res, one narrow.Result
		var sum narrow.Stats
		for k, n := range sizes {
			btDetect(t, be, batch[k][:n], &res)
			sum.Add(&res.Stats)
			for i := n; i < len(alone); i++ {
				btDetect(t, alone[i], nil, &one) // the step it is absent from
			}
			for i := range n {
				btDetect(t, alone[i], batch[k][i:i+1], &one)
				if !btSamePair(t, fmt.Sprintf("%v, step %d (%d pairs), pair #%d", p.Method, k, n, i), &one.Pairs[0], &res.Pairs[i]) {
					return
				}
			}
		}
		if p.Method != narrow.MethodStandard && (sum.IterativePairs == 0 || sum.StandardPairs == 0 || sum.Contacts == 0) {
			t.Errorf("%v: the batch does not exercise both kinds of step: %+v", p.Method, sum)
		}
	}
}
