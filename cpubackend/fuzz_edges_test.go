package cpubackend_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// FuzzKeptEdges moves two axis-aligned boxes (bars, plates, cubes) on a
// grid of quarters through six steps of motions on a grid of 1/64, where
// edges cross edges and faces exactly, and detects them with edge-on-edge
// contacts (and, as the first byte says, speculative gaps and
// edge-through-face contacts) on two backends: one keeps each pair's
// pairs of edges across steps, the other searches all edges at every
// step (cpubackend.WithAllEdges). Their results must agree bit for bit:
// the kept pairs must give every contact a full search gives, in the
// same order, whatever the motion. Run it with
//
//	go test ./cpubackend -run '^$' -fuzz '^FuzzKeptEdges$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzKeptEdges(f *testing.F) {
	boxes := map[[3]int]*narrow.Shape{}
	box := func(t *testing.T, h [3]int) *narrow.Shape {
		if s := boxes[h]; s != nil {
			return s
		}
		half := mgl64.Vec3{float64(h[0]) / 4, float64(h[1]) / 4, float64(h[2]) / 4}
		s, err := narrow.NewBox(half.Mul(-1), half)
		if err != nil {
			t.Fatal(err)
		}
		boxes[h] = s
		return s
	}
	// Seeds: two bars crossed as a "+" sinking into each other, a bar
	// sliding along another's edge, cubes edge to edge.
	f.Add([]byte{0, 7, 0, 0, 0, 0, 7, 12, 12, 12, 12, 12, 12, 32, 31, 32, 32, 31, 32, 32, 31, 32})
	f.Add([]byte{1, 7, 0, 0, 7, 0, 0, 12, 12, 12, 12, 13, 12, 34, 32, 32, 34, 32, 32, 34, 32, 32})
	f.Add([]byte{6, 1, 1, 1, 1, 1, 1, 12, 12, 12, 14, 14, 12, 31, 31, 32, 31, 31, 32, 32, 32, 32})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 13 {
			return
		}
		flags := data[0]
		var ha, hb [3]int
		var pa, pb narrow.Pose
		pa.Rot, pb.Rot = mgl64.QuatIdent(), mgl64.QuatIdent()
		for k := range 3 {
			ha[k], hb[k] = 1+int(data[1+k]%8), 1+int(data[4+k]%8) // 0.25 … 2
			pa.Pos[k] = float64(int(data[7+k]%17)-8) / 4          // −2 … 2
			pb.Pos[k] = float64(int(data[10+k]%17)-8) / 4
		}
		a, b := box(t, ha), box(t, hb)
		p := narrow.Params{EdgeAngle: math.Pi / 3, Speculative: flags&1 != 0, EdgeFaces: flags&2 != 0}
		if flags&4 != 0 {
			p.Method = narrow.MethodIterative
			p.Speculative = false
		}
		var be [2]*cpubackend.Backend
		for i, opts := range [][]cpubackend.Option{{cpubackend.WithWorkers(1)}, {cpubackend.WithWorkers(1), cpubackend.WithAllEdges()}} {
			var err error
			if be[i], err = cpubackend.New(p, opts...); err != nil {
				t.Fatal(err)
			}
			defer be[i].Close()
			be[i].RegisterShape(a)
			be[i].RegisterShape(b)
		}
		var kept, all narrow.Result
		for step := 0; step < 6; step++ {
			if step > 0 {
				// B moves by up to 1/64 per axis and step, in steps of
				// 1/2048, as the input says (past its end: not at all).
				for k := range 3 {
					if i := 13 + 3*(step-1) + k; i < len(data) {
						pb.Pos[k] += float64(int(data[i]%65)-32) / 64 / 32
					}
				}
			}
			pairs := []narrow.Pair{{ID: 1, A: 0, B: 1, PoseA: pa, PoseB: pb}}
			if err := be[0].Detect(context.Background(), pairs, &kept); err != nil {
				t.Fatal(err)
			}
			if err := be[1].Detect(context.Background(), pairs, &all); err != nil {
				t.Fatal(err)
			}
			btSamePair(t, fmt.Sprintf("A %v at %v, B %v at %v, %+v, step %d", ha, pa.Pos, hb, pb.Pos, p, step), &all.Pairs[0], &kept.Pairs[0])
		}
	})
}
