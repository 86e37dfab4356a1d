package scene3d_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/benchscene"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// BenchmarkAvalanche3D runs a small 3D avalanche (64 bunnies in a 4×4×4
// grid, 323 steps of 1/60 s, until all have landed and settled) once per
// iteration with each narrow-phase method, on one backend worker.
// Metrics: the narrow phase's mean time per step (narrow-ms/step, around
// adapter.Batch.Run) and the world's whole step (step-ms/step: broad
// phase, narrow phase, solver, sleeping), rays and pairs per step, and the
// deepest contact of the run. Compare with `benchstat -col /method`.
func BenchmarkAvalanche3D(b *testing.B) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var narrowT, stepT time.Duration
			var rays, pairs, steps int
			deepest := 0.0
			for i := 0; i < b.N; i++ {
				tr, err := scene3d.Run(context.Background(), scene3d.Avalanche(), scene3d.Options{
					N: 64, Seed: 1, Params: narrow.Params{Method: m}, Workers: 1})
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range tr.Steps {
					narrowT += s.Narrow
					stepT += s.Total
					rays += s.Rays()
					pairs += s.Pairs
					deepest = max(deepest, s.DepthMax)
					steps++
				}
			}
			b.ReportMetric(float64(narrowT.Microseconds())/1000/float64(steps), "narrow-ms/step")
			b.ReportMetric(float64(stepT.Microseconds())/1000/float64(steps), "step-ms/step")
			b.ReportMetric(float64(rays)/float64(steps), "rays/step")
			b.ReportMetric(float64(pairs)/float64(steps), "pairs/step")
			b.ReportMetric(deepest, "max-depth")
		})
	}
}

// BenchmarkAvalancheForming simulates the first 130 steps of the full
// avalanche (512 bunnies, every core), while the pile forms and the
// narrow phase's batch grows from about 3,800 to 7,000 pairs, and reports
// how even its steps are: the narrow phase's mean, median and slowest step
// and the slowest over the median, over steps 2 on; the first two steps
// (every pair new, then the first growth) apart, as first-ms/step, the
// slower of them. A batch that grows allocates, and allocation may start a
// garbage collection; a step that then waits for the collector shows up
// as a slowest step many times the median. Each iteration starts from a
// collected heap; use -benchtime 1x and alternate binaries.
func BenchmarkAvalancheForming(b *testing.B) {
	const steps = 130
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var all []time.Duration
			var first, worst time.Duration
			var worstRatio float64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				runtime.GC()
				b.StartTimer()
				tr, err := scene3d.Run(context.Background(), scene3d.Avalanche(), scene3d.Options{
					Seed: 1, Params: narrow.Params{Method: m}, Steps: steps})
				if err != nil {
					b.Fatal(err)
				}
				run := make([]time.Duration, 0, steps)
				for _, s := range tr.Steps {
					run = append(run, s.Narrow)
				}
				first = max(first, run[0], run[1])
				all = append(all, run[2:]...)
				w := slices.Max(run[2:])
				worst = max(worst, w)
				slices.Sort(run[2:])
				worstRatio = max(worstRatio, float64(w)/float64(run[2+(len(run)-2)/2]))
			}
			var sum time.Duration
			for _, d := range all {
				sum += d
			}
			slices.Sort(all)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(sum)/float64(len(all)), "mean-ms/step")
			b.ReportMetric(ms(all[len(all)/2]), "median-ms/step")
			b.ReportMetric(ms(worst), "worst-ms/step")
			b.ReportMetric(worstRatio, "worst/median")
			b.ReportMetric(ms(first), "first-ms/step")
		})
	}
}

// BenchmarkAvalancheRest simulates the full avalanche (512 bunnies, 600
// steps) with each method on every core, as the bench's scene 1 does, and
// times the narrow phase in the run's phase C (rest; scene3d.PhaseBounds):
// Detect between two solver steps, so with the caches the solver left.
// Metrics: the narrow phase's mean time per step in phase C, its ray work
// (narrow.DetectTimes.Rays) and the rest (preparation and finish), and
// pairs per step. One iteration takes a few seconds; use -benchtime 1x
// and alternate binaries to compare versions.
func BenchmarkAvalancheRest(b *testing.B) {
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var narrowT, rayT time.Duration
			var pairs, steps int
			for i := 0; i < b.N; i++ {
				tr, err := scene3d.Run(context.Background(), scene3d.Avalanche(), scene3d.Options{
					N: 512, Seed: 1, Params: narrow.Params{Method: m}})
				if err != nil {
					b.Fatal(err)
				}
				_, c := scene3d.PhaseBounds(tr.Steps)
				for _, s := range tr.Steps[c:] {
					narrowT += s.Narrow
					rayT += s.RayTime
					pairs += s.Pairs
					steps++
				}
			}
			ms := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 / float64(max(1, steps)) }
			b.ReportMetric(ms(narrowT), "narrow-ms/step")
			b.ReportMetric(ms(rayT), "rays-ms/step")
			b.ReportMetric(ms(narrowT-rayT), "rest-ms/step")
			b.ReportMetric(float64(pairs)/float64(max(1, steps)), "pairs/step")
		})
	}
}

var (
	replayOnce  sync.Once
	replayRec   *benchscene.Recorder
	replayPhase [2]int
	replayErr   error
)

// recordAvalanche simulates the avalanche of n bunnies with method m on
// one worker and records the narrow phase's input (every step's pairs and
// poses) past the first skip steps.
func recordAvalanche(n int, m narrow.Method, skip int) (*benchscene.Recorder, *scene3d.Trace, error) {
	return record(scene3d.Avalanche(), n, m, skip)
}

// record simulates scene sc with n objects and method m on one worker and
// records the narrow phase's input past the first skip steps.
func record(sc scene3d.Scene, n int, m narrow.Method, skip int) (*benchscene.Recorder, *scene3d.Trace, error) {
	be, err := cpubackend.New(narrow.Params{Method: m}, cpubackend.WithWorkers(1))
	if err != nil {
		return nil, nil, err
	}
	defer be.Close()
	rec := &benchscene.Recorder{Backend: be, Skip: skip}
	tr, err := scene3d.Run(context.Background(), sc, scene3d.Options{
		N: n, Seed: 1, Backend: rec, Workers: 1})
	if err != nil {
		return nil, nil, err
	}
	return rec, tr, nil
}

// avalancheReplay records, once per process, the narrow phase's input of
// the 64-bunny avalanche of BenchmarkAvalanche3D simulated with the
// standard method, and the steps where phases B and C start (PhaseBounds).
func avalancheReplay() (*benchscene.Recorder, [2]int, error) {
	replayOnce.Do(func() {
		var tr *scene3d.Trace
		if replayRec, tr, replayErr = recordAvalanche(64, narrow.MethodStandard, 0); replayErr == nil {
			replayPhase[0], replayPhase[1] = scene3d.PhaseBounds(tr.Steps)
		}
	})
	return replayRec, replayPhase, replayErr
}

// BenchmarkAvalancheReplay times the narrow phase alone on a fixed input:
// the pairs and poses of the 64-bunny avalanche as simulated with the
// standard method (recorded once), replayed step by step through a fresh
// backend of each method on one worker. Unlike BenchmarkAvalanche3D, whose
// runs diverge as soon as two methods return different contacts (a pile is
// chaotic), every method and every version of the code sees the same
// steps, so differences are the narrow phase's own. Metrics: Detect's mean
// time per step over the whole run and per phase (A: until the first
// contact, B: impacts, C: rest; scene3d.PhaseBounds), rays per step, and
// the share of pairs processed with the standard algorithm, overall and
// in phase C.
func BenchmarkAvalancheReplay(b *testing.B) {
	rec, ph, err := avalancheReplay()
	if err != nil {
		b.Fatal(err)
	}
	bounds := [4]int{0, ph[0], ph[1], len(rec.Batches)}
	type variant struct {
		name string
		p    narrow.Params
	}
	var variants []variant
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		variants = append(variants, variant{"method=" + m.String(), narrow.Params{Method: m}})
	}
	// The cost of edge-on-edge contacts (the bunny has 115 convex edges
	// bent by more than π/3, 56 by more than 4π/9).
	for _, deg := range []int{60, 80} {
		variants = append(variants, variant{fmt.Sprintf("method=predictive/edges=%d", deg), narrow.Params{EdgeAngle: float64(deg) * math.Pi / 180}})
	}
	// With speculative contacts, alone and with edges above π/3: the
	// detection of rigid.DefaultConfig.
	variants = append(variants,
		variant{"method=predictive/speculative", narrow.Params{Speculative: true}},
		variant{"method=predictive/speculative/edges=60", narrow.Params{Speculative: true, EdgeAngle: math.Pi / 3}})
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			var phaseT [3]time.Duration
			var rays, pairs, std, pairsC, stdC, edges int
			var res narrow.Result
			for i := 0; i < b.N; i++ {
				be, err := cpubackend.New(v.p, cpubackend.WithWorkers(1))
				if err != nil {
					b.Fatal(err)
				}
				err = rec.ReplayTimed(context.Background(), be, &res, nil, func(k int, res *narrow.Result, d time.Duration) {
					p := 0
					for p < 2 && k >= bounds[p+1] {
						p++
					}
					phaseT[p] += d
					st := &res.Stats
					rays += st.Rays()
					pairs += st.Pairs
					std += st.StandardPairs
					edges += st.EdgeContacts
					if p == 2 {
						pairsC += st.Pairs
						stdC += st.StandardPairs
					}
				})
				be.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			ms := func(d time.Duration, steps int) float64 {
				return float64(d.Nanoseconds()) / 1e6 / float64(max(1, steps*b.N))
			}
			b.ReportMetric(ms(phaseT[0]+phaseT[1]+phaseT[2], len(rec.Batches)), "narrow-ms/step")
			for p, name := range []string{"A", "B", "C"} {
				b.ReportMetric(ms(phaseT[p], bounds[p+1]-bounds[p]), name+"-ms/step")
			}
			b.ReportMetric(float64(rays)/float64(len(rec.Batches)*b.N), "rays/step")
			b.ReportMetric(100*float64(std)/float64(max(1, pairs)), "std-%")
			b.ReportMetric(100*float64(stdC)/float64(max(1, pairsC)), "C-std-%")
			if v.p.EdgeAngle > 0 {
				b.ReportMetric(float64(edges)/float64(len(rec.Batches)*b.N), "edge-contacts/step")
			}
		})
	}
}

// freeFall records, once per process, the narrow phase's input of the
// full avalanche's phase A (512 bunnies, its first 19 steps, simulated
// with the standard method): a batch of 3,800 to 4,400 pairs, growing by
// 25 to 40 a step, none of them touching yet.
var freeFall = sync.OnceValues(func() (*benchscene.Recorder, error) {
	rec, _, err := record(scene3d.Avalanche(), 512, narrow.MethodStandard, 0)
	if err == nil {
		rec.Batches = rec.Batches[:19]
	}
	return rec, err
})

// BenchmarkFreeFall times the narrow phase's steps 1 to 18 of the full
// avalanche (freeFall), replayed through a fresh backend of each method
// on every core: after the first step, a large batch that grows by a few
// pairs a step, where the iterative methods have almost nothing to do but
// their bookkeeping. Metrics: Detect's mean time per step and its parts
// (narrow.DetectTimes); and, apart, the first step, where all 3,844
// pairs are new: its time (first-ms) and the bytes it allocates
// (first-MB: the backend's buffers and, with the iterative methods, the
// pairs' states, which later steps reuse). Run it with GOGC=off to see
// the first step without the collections its allocation sets off.
func BenchmarkFreeFall(b *testing.B) {
	rec, err := freeFall()
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var t, first time.Duration
			var parts detectParts
			var m0, m1 runtime.MemStats
			var bytes uint64
			steps := 0
			var res narrow.Result
			for i := 0; i < b.N; i++ {
				be, err := cpubackend.New(narrow.Params{Method: m})
				if err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&m0)
				err = rec.ReplayTimed(context.Background(), be, &res, nil, func(k int, res *narrow.Result, d time.Duration) {
					if k == 0 {
						runtime.ReadMemStats(&m1)
						bytes += m1.TotalAlloc - m0.TotalAlloc
						first += d
						return
					}
					t += d
					parts.add(be.LastDetectTimes())
					steps++
				})
				be.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(t.Nanoseconds())/1e6/float64(max(1, steps)), "ms/step")
			parts.report(b, steps)
			b.ReportMetric(float64(first.Nanoseconds())/1e6/float64(b.N), "first-ms")
			b.ReportMetric(float64(bytes)/1e6/float64(b.N), "first-MB")
		})
	}
}

// BenchmarkSpawnerCCD runs a small spawner (60 objects: bunny, torus,
// teddy and duck, 424 steps, one backend worker) under
// rigid.DefaultConfig without continuous collision detection
// (ccd=off), with it sweeping vertices (ccd=vertices: CCDMotion 0.05),
// sweeping edges too (ccd=edges: CCDEdges) or casting fast turns too
// (ccd=turns: CCDTurns), and reports the world's
// mean step and the deepest contact of the run. The objects land at
// about 13 m/s, so many of their pairs are swept every step. Compare with
// `benchstat -col /ccd`.
func BenchmarkSpawnerCCD(b *testing.B) {
	for _, ccd := range []string{"off", "vertices", "edges", "turns"} {
		b.Run("ccd="+ccd, func(b *testing.B) {
			var total time.Duration
			steps := 0
			deepest := 0.0
			for range b.N {
				cfg := rigid.DefaultConfig()
				if ccd != "off" {
					cfg.CCDMotion, cfg.CCDEdges, cfg.CCDTurns = 0.05, ccd == "edges", ccd == "turns"
				}
				tr, err := scene3d.Run(context.Background(), scene3d.Spawner(), scene3d.Options{N: 60, Seed: 1, Workers: 1, Config: &cfg})
				if err != nil {
					b.Fatal(err)
				}
				for _, s := range tr.Steps {
					total += s.Total
					deepest = max(deepest, s.DepthMax)
					steps++
				}
			}
			b.ReportMetric(float64(total.Microseconds())/1000/float64(steps), "step-ms/step")
			b.ReportMetric(deepest, "max-depth")
		})
	}
}

var (
	restOnce sync.Once
	restRec  *benchscene.Recorder
	restErr  error
)

// pileAtRest records, once per process, the narrow phase's input of the
// last 100 steps of the full avalanche (512 bunnies, 600 steps) simulated
// with the iterative method: a pile at rest of about 6,700 pairs.
func pileAtRest() (*benchscene.Recorder, error) {
	restOnce.Do(func() { restRec, _, restErr = recordAvalanche(512, narrow.MethodIterative, 500) })
	return restRec, restErr
}

// BenchmarkPileAtRest times the narrow phase of a large pile at rest, the
// avalanche's phase C at full size: the last 100 steps of the 512-bunny
// avalanche (recorded once, about 6,700 pairs a step, most of them boxes
// that overlap without contact) replayed through a fresh backend of each
// method (and of predictive with speculative contacts, on the same
// recorded poses) with one worker per GOMAXPROCS (go test -cpu 1,2 compares one
// worker with two). The first 10 replayed steps warm the backend up (its
// first step is a standard one for every pair) and are not timed. With
// cache=cold, 32 MiB are written between steps, outside the timings, as
// an engine's solver and broad phase would between its narrow phases: a
// step then finds none of its data in the caches, as in a simulation
// (cache=warm is the replay alone). Metrics: Detect's mean time per step
// and per pair, and its parts per step (narrow.DetectTimes).
func BenchmarkPileAtRest(b *testing.B) {
	rec, err := pileAtRest()
	if err != nil {
		b.Fatal(err)
	}
	const warm = 10
	junk := make([]byte, 32<<20)
	for _, p := range []narrow.Params{{Method: narrow.MethodStandard}, {Method: narrow.MethodIterative}, {Method: narrow.MethodPredictive}, {Method: narrow.MethodPredictive, Speculative: true}} {
		method := p.Method.String()
		if p.Speculative {
			method += "-speculative"
		}
		for _, cold := range []bool{true, false} {
			name := "method=" + method + "/cache=warm"
			if cold {
				name = "method=" + method + "/cache=cold"
			}
			b.Run(name, func(b *testing.B) {
				var t time.Duration
				var parts detectParts
				var pairs, steps int
				var res narrow.Result
				for i := 0; i < b.N; i++ {
					be, err := cpubackend.New(p)
					if err != nil {
						b.Fatal(err)
					}
					var flush func(int)
					if cold {
						flush = func(int) {
							for p := 0; p < len(junk); p += 64 {
								junk[p]++
							}
						}
					}
					err = rec.ReplayTimed(context.Background(), be, &res, flush, func(k int, res *narrow.Result, d time.Duration) {
						if k >= warm {
							t += d
							parts.add(be.LastDetectTimes())
							pairs += len(res.Pairs)
							steps++
						}
					})
					be.Close()
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(t.Nanoseconds())/1e6/float64(max(1, steps)), "ms/step")
				b.ReportMetric(float64(t.Nanoseconds())/float64(max(1, pairs)), "ns/pair")
				parts.report(b, steps)
			})
		}
	}
}

var spawnerEnd = sync.OnceValues(func() (*benchscene.Recorder, error) {
	rec, _, err := record(scene3d.Spawner(), 500, narrow.MethodIterative, 2800)
	return rec, err
})

// BenchmarkSpawnerEnd times the narrow phase at the end of scene 2 (the
// spawner, 500 objects of four meshes up to 4,212 triangles): its last 200
// steps as simulated with the iterative method (recorded once, about 5,900
// pairs a step, objects still landing on the pile), replayed through a
// fresh backend of each method on one worker. The first 10 replayed steps
// warm the backend up and are not timed. This is where the scene's
// standard steps are the most expensive, and where the iterative method
// still sends about 5 % of the pairs to standard steps. With prediction
// (the same recorded poses) the pile's vertices near other bodies hold
// about 68,000 predictions a step, each walked every step. Metrics:
// Detect's mean time per step and its parts (narrow.DetectTimes),
// standard rays, the share of pairs processed with the standard
// algorithm, iterative walks and predictions kept.
func BenchmarkSpawnerEnd(b *testing.B) {
	rec, err := spawnerEnd()
	if err != nil {
		b.Fatal(err)
	}
	const warm = 10
	for _, m := range []narrow.Method{narrow.MethodStandard, narrow.MethodIterative, narrow.MethodPredictive} {
		b.Run("method="+m.String(), func(b *testing.B) {
			var t time.Duration
			var parts detectParts
			var st narrow.Stats
			var res narrow.Result
			steps := 0
			for i := 0; i < b.N; i++ {
				be, err := cpubackend.New(narrow.Params{Method: m}, cpubackend.WithWorkers(1))
				if err != nil {
					b.Fatal(err)
				}
				err = rec.ReplayTimed(context.Background(), be, &res, nil, func(k int, res *narrow.Result, d time.Duration) {
					if k >= warm {
						t += d
						parts.add(be.LastDetectTimes())
						st.Add(&res.Stats)
						steps++
					}
				})
				be.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(t.Nanoseconds())/1e6/float64(max(1, steps)), "ms/step")
			b.ReportMetric(float64(st.StandardRays)/float64(max(1, steps)), "std-rays/step")
			b.ReportMetric(100*float64(st.StandardPairs)/float64(max(1, st.Pairs)), "std-%")
			b.ReportMetric(float64(st.IterativeRays)/float64(max(1, steps)), "walks/step")
			b.ReportMetric(float64(st.Predictions)/float64(max(1, steps)), "predictions/step")
			parts.report(b, steps)
		})
	}
}

// detectParts sums the parts of Detect calls (narrow.DetectTimes).
type detectParts narrow.DetectTimes

func (p *detectParts) add(t narrow.DetectTimes) {
	p.Prepare += t.Prepare
	p.Rays += t.Rays
	p.Finish += t.Finish
}

// report reports the parts' means per step: preparation (validation,
// state lookups, Eq. 2), ray work, and merge and commit.
func (p *detectParts) report(b *testing.B, steps int) {
	for _, m := range []struct {
		d    time.Duration
		name string
	}{{p.Prepare, "prepare-ms/step"}, {p.Rays, "rays-ms/step"}, {p.Finish, "finish-ms/step"}} {
		b.ReportMetric(float64(m.d.Nanoseconds())/1e6/float64(max(1, steps)), m.name)
	}
}

// BenchmarkPileState times what a rollback costs the narrow phase on the
// pile at rest (BenchmarkPileAtRest's recorded steps, about 6,700 pairs):
// saving a predictive backend's temporal state (cpubackend.SaveState, into
// a warm State) and restoring it (RestoreState), against one step of
// Detect on the same backend (op=detect), and the state's binary form
// (op=marshal, into a warm buffer; op=unmarshal). Metrics: pair states
// held, the binary form's size and microseconds per pair state.
func BenchmarkPileState(b *testing.B) {
	rec, err := pileAtRest()
	if err != nil {
		b.Fatal(err)
	}
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	var res narrow.Result
	if err := rec.ReplayTimed(context.Background(), be, &res, nil, func(int, *narrow.Result, time.Duration) {}); err != nil {
		b.Fatal(err)
	}
	last := rec.Batches[len(rec.Batches)-1]
	var st cpubackend.State
	if err := be.SaveState(&st); err != nil {
		b.Fatal(err)
	}
	data, err := st.MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	var decoded cpubackend.State
	for _, op := range []string{"save", "restore", "detect", "marshal", "unmarshal"} {
		b.Run("op="+op, func(b *testing.B) {
			for b.Loop() {
				switch op {
				case "save":
					err = be.SaveState(&st)
				case "restore":
					err = be.RestoreState(&st)
				case "marshal":
					data, err = st.AppendBinary(data[:0])
				case "unmarshal":
					err = decoded.UnmarshalBinary(data)
				default:
					// The step after the saved one, from its state.
					if err = be.RestoreState(&st); err == nil {
						err = be.Detect(context.Background(), last, &res)
					}
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(st.Pairs()), "pair-states")
			b.ReportMetric(float64(len(data)), "bytes")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/1e3/float64(b.N)/float64(max(1, st.Pairs())), "µs/pair")
		})
	}
}
