package cpubackend_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// TestBackendPairOrder checks that the order of the pairs in a batch
// changes no pair's result: a backend that gets each step's pairs
// shuffled, shifted by pairs that leave for a step, or in the same order
// as the last step, returns for every pair exactly what a backend that
// gets them in a fixed order returns.
func TestBackendPairOrder(t *testing.T) {
	sh := btLoad(t)
	steps := 16
	if testing.Short() {
		steps = 8
	}
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 24, steps)
	for _, m := range []narrow.Method{narrow.MethodPredictive, narrow.MethodIterative, narrow.MethodStandard} {
		t.Run(m.String(), func(t *testing.T) {
			fixed, _ := btNew(t, sh, narrow.Params{Method: m}, cpubackend.WithWorkers(1))
			moved, _ := btNew(t, sh, narrow.Params{Method: m}, cpubackend.WithWorkers(1))
			rng := rand.New(rand.NewPCG(5, 6))
			var want, got narrow.Result
			perm := make([]int, len(batch[0]))
			for i := range perm {
				perm[i] = i
			}
			iterative := 0
			for k, pairs := range batch {
				// Pair 3 leaves at step 5 and comes back at step 6; the
				// others shift by one.
				in := pairs
				if k == 5 {
					in = append(append([]narrow.Pair(nil), pairs[:3]...), pairs[4:]...)
				}
				btDetect(t, fixed, in, &want)
				switch k % 4 {
				case 1:
					rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
				case 2:
					i, j := rng.IntN(len(perm)), rng.IntN(len(perm))
					perm[i], perm[j] = perm[j], perm[i]
				}
				var shuffled []narrow.Pair
				where := map[uint64]int{}
				for _, i := range perm {
					if k == 5 && i == 3 {
						continue
					}
					where[pairs[i].ID] = len(shuffled)
					shuffled = append(shuffled, pairs[i])
				}
				btDetect(t, moved, shuffled, &got)
				for i := range want.Pairs {
					w := &want.Pairs[i]
					if !btSamePair(t, fmt.Sprintf("step %d", k), w, &got.Pairs[where[w.ID]]) {
						return
					}
					if w.Iterative {
						iterative++
					}
				}
				if want.Stats != got.Stats {
					t.Fatalf("step %d: stats %+v, want %+v", k, got.Stats, want.Stats)
				}
			}
			if m != narrow.MethodStandard && iterative == 0 {
				t.Fatal("no pair was updated iteratively: the test checks no temporal state")
			}
		})
	}
}

// TestBackendDuplicateIndex checks that a duplicate pair ID names the
// batch index of its first valid occurrence, whether the pair has state
// (with the same or other shapes) or is new, with every method, and that
// the next step finds the states of the first occurrences. In the second
// batch, the later occurrences stand where the last step's order
// predicts their states (the backend claims those before it looks up the
// others), and the first ones do not.
func TestBackendDuplicateIndex(t *testing.T) {
	sh := btLoad(t)
	for _, m := range []narrow.Method{narrow.MethodPredictive, narrow.MethodIterative, narrow.MethodStandard} {
		for _, claimed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/claimed=%v", m, claimed), func(t *testing.T) {
				be, ids := btNew(t, sh, narrow.Params{Method: m})
				var res narrow.Result
				btDetect(t, be, btGoodPairs(sh, ids, 0), &res) // pairs 1 to 4
				g := btGoodPairs(sh, ids, 1)
				other := g[0] // pair 1 with other shapes
				other.A, other.B = ids.torus, ids.torus
				bad := g[1] // pair 2 with a bad pose: not an occurrence
				bad.PoseA.Rot = bad.PoseA.Rot.Scale(0)
				fresh := g[3]
				fresh.ID = 20
				batch := []narrow.Pair{other, g[0], bad, g[1], g[1], g[2], fresh, g[0], fresh, g[3], other, g[2]}
				dupOf := map[int]int{1: 0, 4: 3, 7: 0, 8: 6, 10: 0, 11: 5}
				badAt := 2
				if claimed {
					// Pairs 2 and 4 at indices 1 and 3, as in the last
					// step; their first occurrences at 0 (same shapes)
					// and 2 (other shapes).
					other4 := g[3]
					other4.A, other4.B = ids.torus, ids.torus
					batch = []narrow.Pair{g[1], g[1], other4, g[3], bad, g[0], g[2]}
					dupOf = map[int]int{1: 0, 3: 2}
					badAt = 4
					other = other4
				}
				btDetect(t, be, batch, &res)
				for i, pr := range res.Pairs {
					k, dup := dupOf[i]
					switch {
					case i == badAt:
						if !errors.Is(pr.Err, narrow.ErrBadPose) {
							t.Errorf("pair #%d: error %v, want a bad pose", i, pr.Err)
						}
					case !dup:
						if pr.Err != nil {
							t.Errorf("pair #%d: error %v, want none", i, pr.Err)
						}
					case !errors.Is(pr.Err, narrow.ErrDuplicatePair):
						t.Errorf("pair #%d: error %v, want a duplicate", i, pr.Err)
					default:
						want := fmt.Sprintf("pair %d: duplicate pair id: also at batch index %d", pr.ID, k)
						if pr.Err.Error() != want {
							t.Errorf("pair #%d: error %q, want %q", i, pr.Err, want)
						}
					}
				}
				// The next step finds the states of the first valid
				// occurrences: pair 1 (or 4) with the other shapes,
				// pair 20 new.
				g = btGoodPairs(sh, ids, 2)
				next := []narrow.Pair{other, g[1], g[2], fresh, g[3]}
				next[0].PoseA, next[0].PoseB = g[0].PoseA, g[0].PoseB
				next[3].PoseA, next[3].PoseB = g[3].PoseA, g[3].PoseB
				if claimed {
					next = []narrow.Pair{other, g[1], g[0], g[2]}
					next[0].PoseA, next[0].PoseB = g[3].PoseA, g[3].PoseB
				}
				btDetect(t, be, next, &res)
				if m == narrow.MethodStandard {
					return
				}
				for i, pr := range res.Pairs {
					if !pr.Iterative || pr.Err != nil {
						t.Errorf("next step, pair #%d (ID %d): Iterative %v, error %v; want an iterative step", i, pr.ID, pr.Iterative, pr.Err)
					}
				}
			})
		}
	}
}

// TestBackendStatsCount checks the step's statistics against its output:
// every pair counted once (standard, iterative or failed, one pair failing
// each step), contacts and speculative contacts as many as the result
// holds, and the same statistics whatever the number of workers.
func TestBackendStatsCount(t *testing.T) {
	sh := btLoad(t)
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 24, 8)
	p := narrow.Params{Method: narrow.MethodPredictive, Speculative: true}
	one, _ := btNew(t, sh, p, cpubackend.WithWorkers(1))
	four, _ := btNew(t, sh, p, cpubackend.WithWorkers(4))
	var want, got narrow.Result
	for k, pairs := range batch {
		// A pair with an unknown shape fails; its neighbours must not.
		in := append([]narrow.Pair(nil), pairs...)
		in[k%len(in)].A = 1 << 20
		btDetect(t, one, in, &want)
		btDetect(t, four, in, &got)
		if want.Stats != got.Stats {
			t.Fatalf("step %d: 4 workers' stats %+v, 1 worker's %+v", k, got.Stats, want.Stats)
		}
		st := got.Stats
		var contacts, spec, failed int
		for _, pr := range got.Pairs {
			if pr.Err != nil {
				failed++
			}
			for _, c := range pr.Contacts {
				if c.Speculative() {
					spec++
				} else {
					contacts++
				}
			}
		}
		switch {
		case st.Pairs != len(in) || st.StandardPairs+st.IterativePairs+st.FailedPairs != st.Pairs:
			t.Errorf("step %d: %d pairs, %d standard + %d iterative + %d failed", k, st.Pairs, st.StandardPairs, st.IterativePairs, st.FailedPairs)
		case st.FailedPairs != failed || failed != 1:
			t.Errorf("step %d: %d failed pairs counted, %d in the result, want 1", k, st.FailedPairs, failed)
		case st.Contacts != contacts || st.Speculative != spec:
			t.Errorf("step %d: stats count %d contacts and %d speculative, the result holds %d and %d", k, st.Contacts, st.Speculative, contacts, spec)
		}
		if k > 0 && contacts == 0 {
			t.Fatalf("step %d: no contact, the test checks nothing", k)
		}
	}
}

// TestBackendFailedBlock runs a step in which every pair of one block of
// the parallel preparation (64 pairs) is bad, after steps in which that
// block had work: the good pairs must get exactly what they get in the
// same steps without the bad ones, with every method and on two workers.
func TestBackendFailedBlock(t *testing.T) {
	sh := btLoad(t)
	_, ids := btNew(t, sh, narrow.Params{})
	batch := btScriptedBatch(t, sh, ids, 200, 4)
	for _, m := range []narrow.Method{narrow.MethodPredictive, narrow.MethodIterative, narrow.MethodStandard} {
		t.Run(m.String(), func(t *testing.T) {
			mixed, _ := btNew(t, sh, narrow.Params{Method: m}, cpubackend.WithWorkers(2))
			clean, _ := btNew(t, sh, narrow.Params{Method: m}, cpubackend.WithWorkers(2))
			var got, want narrow.Result
			for k, pairs := range batch {
				in, good := pairs, pairs
				if k == 2 {
					in = slices.Clone(pairs)
					for i := 64; i < 128; i++ {
						in[i].PoseA.Pos[1] = math.NaN()
					}
					good = slices.Concat(pairs[:64], pairs[128:])
				}
				btDetect(t, mixed, in, &got)
				btDetect(t, clean, good, &want)
				w := 0
				for i := range got.Pairs {
					if k == 2 && i >= 64 && i < 128 {
						if !errors.Is(got.Pairs[i].Err, narrow.ErrBadPose) {
							t.Fatalf("step %d, pair #%d: error %v, want a bad pose", k, i, got.Pairs[i].Err)
						}
						continue
					}
					if !btSamePair(t, fmt.Sprintf("step %d, pair #%d", k, i), &want.Pairs[w], &got.Pairs[i]) {
						return
					}
					w++
				}
			}
		})
	}
}
