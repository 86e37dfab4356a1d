package plugin

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/internal/fuzzread"
	"github.com/irtcd/irtcd/narrow"
)

// FuzzHostDetect runs a script of steps read from the input on a plugin
// process (Host, started once per fuzzing worker and reused by every
// input) and on a fresh in-process CPU backend with the same parameters
// (the first byte picks one of two: the default, and speculative and
// edge-on-edge contacts) and shapes: up to 8 steps of up to 8 pairs (IDs
// among six, new to the process at each input; shapes by IDs that may be
// unknown or negative, or of the other dimension; poses with NaN,
// infinities, zero quaternions and 1e300), saves and restores. It fails
// when the two differ in anything, bit for bit (results, per-pair errors,
// statistics, whole-step errors), or when the plugin process restarted:
// nothing a caller sends may crash it, and the process's history (the
// inputs before) must not show in a step.
//
//	go test ./plugin -run '^$' -fuzz '^FuzzHostDetect$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzHostDetect(f *testing.F) {
	bunny, torus := meshes(f)
	star, _, _ := polygons(f)
	shapes := []*narrow.Shape{bunny, torus, star}
	params := []narrow.Params{{}, {Speculative: true, EdgeAngle: math.Pi / 3}}
	var hosts []*Host
	for _, p := range params {
		hosts = append(hosts, newHost(f, pluginBin, p, shapes))
	}
	// base makes each input's pair IDs new to the process: the states of
	// the inputs before are swept at its first step.
	var base atomic.Uint64
	v := fuzzread.Plain
	pair := func(id, a, b byte, x float64) []byte {
		return []byte{id, a, b, v(0), v(0), v(0), v(1), v(0), v(0), v(0), v(x), v(0.5), v(0), v(1), v(0), v(0.1), v(0)}
	}
	step := func(pairs ...[]byte) []byte {
		return slices.Concat([]byte{0, byte(len(pairs) - 1)}, slices.Concat(pairs...))
	}
	// Seeds: bunnies and tori stepped a few times; a NaN pose, a 2D-3D
	// pair and an unknown shape; a save and a restore.
	f.Add(slices.Concat([]byte{0}, step(pair(1, 0, 0, 2.5), pair(2, 1, 1, 4.9)), step(pair(1, 0, 0, 2.55), pair(2, 1, 1, 4.9)), step(pair(1, 0, 0, 2.6))))
	f.Add(slices.Concat([]byte{1}, step(pair(1, 0, 1, 4), pair(3, 2, 0, 0), pair(4, 3, 1, 1)), []byte{1, 0}, step(pair(1, 0, 1, 4.05)), []byte{1, 1}, step(pair(1, 0, 1, 4.05))))
	f.Add(slices.Concat([]byte{0}, step(pair(5, 1, 0, 4.5)), []byte{0, 0, 5, 1, 0, 201, v(0), v(0), v(1), v(0), v(0), v(0), v(0), v(0), v(0), v(1), v(0), v(0), v(0)}, step(pair(5, 1, 0, 4.45))))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := fuzzread.New(data)
		k := int(r.Byte()) % len(params)
		h, cpu := hosts[k], newCPU(t, params[k], shapes)
		restarts := h.Restarts()
		b := base.Add(8) << 3
		shapeID := func() narrow.ShapeID {
			switch k := int(r.Byte()); {
			case k < len(shapes):
				return narrow.ShapeID(k)
			case k%2 == 0:
				return -1
			default:
				return narrow.ShapeID(k)
			}
		}
		var hres, cres narrow.Result
		var hst, cst cpubackend.State
		var pairs []narrow.Pair
		for range 10 {
			if r.Done() {
				break
			}
			if r.Byte()%2 == 1 { // save, or restore the last save
				if r.Byte()%2 == 0 {
					err1, err2 := h.SaveState(&hst), cpu.SaveState(&cst)
					if err1 != nil || err2 != nil {
						t.Fatalf("SaveState: %v (plugin), %v", err1, err2)
					}
				} else if err1, err2 := h.RestoreState(&hst), cpu.RestoreState(&cst); (err1 == nil) != (err2 == nil) {
					t.Fatalf("RestoreState: %v (plugin), %v", err1, err2)
				}
				continue
			}
			pairs = pairs[:0]
			for range int(r.Byte())%8 + 1 {
				pr := narrow.Pair{ID: b + uint64(r.Byte()%6), A: shapeID(), B: shapeID(), PoseA: r.Pose(), PoseB: r.Pose()}
				pr.PoseA.Pos, pr.PoseB.Pos = pr.PoseA.Pos.Mul(0.5), pr.PoseB.Pos.Mul(0.5)
				pairs = append(pairs, pr)
			}
			err1 := h.Detect(context.Background(), pairs, &hres)
			err2 := cpu.Detect(context.Background(), pairs, &cres)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("Detect: %v (plugin), %v", err1, err2)
			}
			if err1 != nil {
				continue
			}
			if d := diffResults(&hres, &cres); d != "" {
				t.Fatalf("the plugin's step differs from the CPU backend's: %s", d)
			}
		}
		if h.Restarts() != restarts {
			t.Fatalf("the plugin process restarted (%d restarts)", h.Restarts()-restarts)
		}
	})
}
