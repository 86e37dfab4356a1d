package adapter_test

import (
	"context"
	"fmt"
	"log"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/adapter"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// An engine's step loop: each step the broad phase's pairs go into the
// batch with the bodies' poses, one Run detects them all, and the solver
// reads each pair's contacts back by pair ID. Here a bunny settles onto a
// torus lying flat, a millimetre a step: the first step runs the standard
// algorithm, the next ones update its rays iteratively (IRTCD).
func ExampleBatch() {
	bunny, err := narrow.LoadOBJ("../testdata/bunny.obj")
	if err != nil {
		log.Fatal(err)
	}
	torus, err := narrow.LoadOBJ("../testdata/torus.obj")
	if err != nil {
		log.Fatal(err)
	}
	be, err := cpubackend.New(narrow.Params{})
	if err != nil {
		log.Fatal(err)
	}
	defer be.Close()
	batch := adapter.NewBatch(be)

	const pairID = 7 // the engine's own ID of the pair (torus, bunny)
	for step := 0; step < 3; step++ {
		batch.Begin()
		bunnyPose := narrow.Pose{Pos: mgl64.Vec3{2, 1.09 - 0.001*float64(step), 0}, Rot: mgl64.QuatIdent()}
		if err := batch.Add(pairID, torus, bunny, narrow.Identity, bunnyPose); err != nil {
			log.Fatal(err)
		}
		if err := batch.Run(context.Background()); err != nil {
			log.Fatal(err)
		}
		pr := batch.Result(pairID)
		deepest := 0.0
		for _, c := range pr.Contacts {
			deepest = max(deepest, c.Depth)
		}
		fmt.Printf("step %d: %d contacts in %d manifolds, deepest %.3f, iterative %v\n",
			step, len(pr.Contacts), len(pr.Manifolds), deepest, pr.Iterative)
	}
	// Output:
	// step 0: 24 contacts in 4 manifolds, deepest 0.063, iterative false
	// step 1: 24 contacts in 4 manifolds, deepest 0.064, iterative true
	// step 2: 24 contacts in 4 manifolds, deepest 0.065, iterative true
}
