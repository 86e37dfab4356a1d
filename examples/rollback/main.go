// Command rollback shows what rollback networking asks of a physics
// engine, on a 3D world whose narrow phase is irtcd: two peers simulate
// the same pile of bunnies and boxes; a player's kick reaches peer A on
// time (frame 40) and peer B six frames late. Peer B saves its world every
// frame (rigid.World.SaveState into a ring of states, which allocates
// nothing once warm), and when the kick arrives it restores frame 40,
// applies the kick and simulates the six frames again. At frame 120 both
// peers hold the same world, bit for bit. A third peer that applies the
// kick late without rolling back ends elsewhere. A fourth joins at frame
// 80: peer A sends it its state in binary form (rigid.State.AppendEncoded,
// the narrow phase's state included), and it too ends where A does.
//
// The peers here share one build. Peers on different machines must also
// compute alike: a build that fuses multiply-adds (arm64, or amd64 with
// GOAMD64=v3, by default) parts from one that does not, so such peers
// build with -gcflags=all=-d=fmahash=n and compare
// narrow.FusesMultiplyAdd when they connect (docs/DESIGN.md,
// "Determinism across machines").
//
//	go run ./examples/rollback
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/rigid"
)

const (
	frames   = 120
	joinAt   = 80 // the frame at which peer D joins
	kickAt   = 40 // the frame before which the kick is applied
	delay    = 6  // frames late at peer B
	ringSize = 8  // states peer B keeps: rollback up to 8 frames
	kicked   = 5  // the body kicked
)

// newPeer builds the world every peer starts from.
func newPeer(bunny, cube, ground *narrow.Shape) (*rigid.World, error) {
	w, err := rigid.NewWorld(rigid.DefaultConfig())
	if err != nil {
		return nil, err
	}
	def := rigid.NewBodyDef(ground, narrow.Identity)
	def.Static = true
	if _, err := w.AddBody(def); err != nil {
		return nil, err
	}
	for i := range 12 {
		s := bunny
		if i%3 == 2 {
			s = cube
		}
		q := mgl64.QuatRotate(float64(i)*0.9, mgl64.Vec3{1, float64(i % 2), 0.4}.Normalize())
		pos := mgl64.Vec3{float64(i%3)*2.2 - 2.2, 1.2 + float64(i/3)*2.2, float64(i%2) * 0.5}
		if _, err := w.AddBody(rigid.NewBodyDef(s, narrow.Pose{Pos: pos, Rot: q})); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// kick is the player's input.
func kick(w *rigid.World) error {
	return w.ApplyImpulse(kicked, mgl64.Vec3{4, 3, 0}, w.Body(kicked).CenterOfMass())
}

// poses returns every body's pose.
func poses(w *rigid.World) []narrow.Pose {
	var out []narrow.Pose
	for id := range rigid.BodyID(w.NumBodies()) {
		out = append(out, w.Body(id).Pose())
	}
	return out
}

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	bunny, err := narrow.LoadOBJ("testdata/bunny.obj")
	if err != nil {
		return err
	}
	cube, err := narrow.NewBox(mgl64.Vec3{-0.4, -0.4, -0.4}, mgl64.Vec3{0.4, 0.4, 0.4})
	if err != nil {
		return err
	}
	ground, err := narrow.NewBox(mgl64.Vec3{-20, -1, -20}, mgl64.Vec3{20, 0, 20})
	if err != nil {
		return err
	}
	// What a peer would send in its handshake: whether its build fuses
	// multiply-adds (both sides must give the same answer).
	fmt.Printf("this build fuses multiply-adds: %v\n", narrow.FusesMultiplyAdd())
	ctx := context.Background()
	var peers [3]*rigid.World // A: on time; B: late, rolls back; C: late, no rollback
	for i := range peers {
		if peers[i], err = newPeer(bunny, cube, ground); err != nil {
			return err
		}
		defer peers[i].Close()
	}
	a, b, c := peers[0], peers[1], peers[2]
	var d *rigid.World // joins at frame joinAt
	var ring [ringSize]rigid.State
	var rollback time.Duration
	for f := 0; f < frames; f++ {
		if f == kickAt {
			if err := kick(a); err != nil {
				return err
			}
		}
		if f == kickAt+delay {
			// The kick reaches B and C now, meant for frame kickAt.
			if err := kick(c); err != nil {
				return err
			}
			t0 := time.Now()
			if err := b.RestoreState(&ring[kickAt%ringSize]); err != nil {
				return err
			}
			if err := kick(b); err != nil {
				return err
			}
			for b.StepCount() < f {
				if err := b.SaveState(&ring[b.StepCount()%ringSize]); err != nil {
					return err
				}
				if err := b.Step(ctx); err != nil {
					return err
				}
			}
			rollback = time.Since(t0)
			fmt.Printf("frame %d: the kick reaches peer B, %d frames late: restored frame %d and simulated %d frames again in %.2f ms\n",
				f, delay, kickAt, delay, float64(rollback)/float64(time.Millisecond))
		}
		if f == joinAt {
			// Peer D builds the same world, then takes A's state from
			// the bytes A sends it.
			var st rigid.State
			if err := a.SaveState(&st); err != nil {
				return err
			}
			data, err := st.AppendEncoded(nil, []*narrow.Shape{ground, bunny, cube})
			if err != nil {
				return err
			}
			if d, err = newPeer(bunny, cube, ground); err != nil {
				return err
			}
			defer d.Close()
			var got rigid.State
			if err := got.Decode(data, []*narrow.Shape{ground, bunny, cube}); err != nil {
				return err
			}
			if err := d.RestoreState(&got); err != nil {
				return err
			}
			fmt.Printf("frame %d: peer D joins from %d bytes of peer A's state\n", f, len(data))
		}
		// B saves the state its next step starts from.
		if err := b.SaveState(&ring[f%ringSize]); err != nil {
			return err
		}
		for _, w := range append(peers[:], d) {
			if w == nil {
				continue
			}
			if err := w.Step(ctx); err != nil {
				return err
			}
		}
	}
	pa, pb, pc, pd := poses(a), poses(b), poses(c), poses(d)
	same, sameC, sameD := true, true, true
	for i := range pa {
		same = same && pa[i] == pb[i]
		sameC = sameC && pa[i] == pc[i]
		sameD = sameD && pa[i] == pd[i]
	}
	off := pa[kicked].Pos.Sub(pc[kicked].Pos).Len()
	fmt.Printf("frame %d: peer A and peer B (rolled back) agree bit for bit: %v\n", frames, same)
	fmt.Printf("frame %d: peer C (kick applied late, no rollback) agrees: %v; the kicked body is %.3f m from where A has it\n", frames, sameC, off)
	fmt.Printf("frame %d: peer D (joined at frame %d) agrees bit for bit: %v\n", frames, joinAt, sameD)
	if !same || sameC || !sameD {
		fmt.Println("unexpected outcome")
		os.Exit(1)
	}
	return nil
}
