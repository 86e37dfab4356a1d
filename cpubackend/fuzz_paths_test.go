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

// FuzzEquivalentPaths moves two shapes through six steps and detects
// them on two backends that must agree bit for bit (but for
// PairResult.Iterative, which a step the clear path skips sets): the
// default one, and
// one that takes another path the results must not depend on, as the
// first byte says: a search of all edges at every step instead of the
// pairs of edges kept across steps (cpubackend.WithAllEdges), no clear
// path (every step that fails Eq. 2 a standard one,
// cpubackend.WithoutClearPath), or every helper woken with three workers
// (cpubackend.WithWakeAll). The shapes are axis-aligned bars, plates or
// cubes on a grid of quarters (or, as the first byte says, the bunny and
// the torus at the same places); B moves by multiples of 1/2048 (or
// 1/256) and turns about y by multiples of 1/512 rad a step, so that
// edges cross edges and faces exactly; the detection has edge-on-edge
// contacts and, as the first byte says, speculative gaps and
// edge-through-face contacts, or the iterative method alone. Run it with
//
//	go test ./cpubackend -run '^$' -fuzz '^FuzzEquivalentPaths$' -fuzztime 60s -fuzzminimizetime 1s
func FuzzEquivalentPaths(f *testing.F) {
	boxes := gridBoxes{}
	meshes := []*narrow.Shape{loadMesh(f, "bunny"), loadMesh(f, "torus")}
	// Seeds: two bars crossed as a "+" sinking into each other, a bar
	// sliding along another's edge, cubes edge to edge; the bunny and the
	// torus without the clear path, and with every helper woken.
	f.Add([]byte{0, 7, 0, 0, 0, 0, 7, 12, 12, 12, 12, 12, 12, 32, 31, 32, 4, 32, 31, 32, 4, 32, 31, 32, 4})
	f.Add([]byte{1, 7, 0, 0, 7, 0, 0, 12, 12, 12, 12, 13, 12, 34, 32, 32, 5, 34, 32, 32, 5, 34, 32, 32, 5})
	f.Add([]byte{6, 1, 1, 1, 1, 1, 1, 12, 12, 12, 14, 14, 12, 31, 31, 32, 4, 31, 31, 32, 4, 32, 32, 32, 4})
	f.Add([]byte{8 | 32, 0, 0, 0, 0, 0, 0, 12, 12, 12, 14, 12, 12, 31, 32, 32, 6, 31, 32, 32, 6, 31, 32, 32, 6})
	f.Add([]byte{16 | 32 | 64 | 1, 0, 0, 0, 0, 0, 0, 12, 12, 12, 13, 12, 12, 31, 32, 32, 3, 31, 32, 32, 3, 31, 32, 32, 3})
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
		a, b := boxes.get(t, ha), boxes.get(t, hb)
		if flags&32 != 0 {
			a, b = meshes[0], meshes[1]
		}
		p := narrow.Params{EdgeAngle: math.Pi / 3, Speculative: flags&1 != 0, EdgeFaces: flags&2 != 0}
		if flags&4 != 0 {
			p.Method = narrow.MethodIterative
			p.Speculative = false
		}
		var be [2]*cpubackend.Backend
		other := []cpubackend.Option{cpubackend.WithWorkers(1), cpubackend.WithAllEdges()}
		noClear := flags>>3%4 == 1
		switch flags >> 3 % 4 {
		case 1:
			other = []cpubackend.Option{cpubackend.WithWorkers(1), cpubackend.WithoutClearPath()}
		case 2:
			other = []cpubackend.Option{cpubackend.WithWorkers(3), cpubackend.WithWakeAll()}
		}
		for i, opts := range [][]cpubackend.Option{{cpubackend.WithWorkers(1)}, other} {
			var err error
			if be[i], err = cpubackend.New(p, opts...); err != nil {
				t.Fatal(err)
			}
			defer be[i].Close()
			be[i].RegisterShape(a)
			be[i].RegisterShape(b)
		}
		reach := 1.0 // with 64 in the first byte, motions 8 times as large
		if flags&64 != 0 {
			reach = 8
		}
		var kept, all narrow.Result
		for step := 0; step < 6; step++ {
			if step > 0 {
				// B moves by up to 1/64 per axis and step, in steps of
				// 1/2048, as the input says (past its end: not at all).
				for k := range 3 {
					if i := 13 + 4*(step-1) + k; i < len(data) {
						pb.Pos[k] += reach * float64(int(data[i]%65)-32) / 64 / 32
					}
				}
				if i := 13 + 4*(step-1) + 3; i < len(data) {
					turn := mgl64.QuatRotate(float64(int(data[i]%9)-4)/512, mgl64.Vec3{0, 1, 0})
					pb.Rot = turn.Mul(pb.Rot).Normalize()
				}
			}
			pairs := []narrow.Pair{{ID: 1, A: 0, B: 1, PoseA: pa, PoseB: pb}}
			if err := be[0].Detect(context.Background(), pairs, &kept); err != nil {
				t.Fatal(err)
			}
			if err := be[1].Detect(context.Background(), pairs, &all); err != nil {
				t.Fatal(err)
			}
			want := all.Pairs[0]
			if noClear {
				// A step the clear path skips reports itself iterative.
				want.Iterative = kept.Pairs[0].Iterative
			}
			btSamePair(t, fmt.Sprintf("A %v at %v, B %v at %v, %+v, step %d", ha, pa.Pos, hb, pb.Pos, p, step), &want, &kept.Pairs[0])
		}
	})
}
