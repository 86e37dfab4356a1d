package cpubackend_test

import (
	"context"
	"fmt"
	"log"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// A bunny sitting on a torus lying flat: its feet sink 0.05 into the tube.
func Example() {
	bunny, err := narrow.LoadOBJ("../testdata/bunny.obj")
	if err != nil {
		log.Fatal(err)
	}
	torus, err := narrow.LoadOBJ("../testdata/torus.obj")
	if err != nil {
		log.Fatal(err)
	}
	be, err := cpubackend.New(narrow.Params{}) // IRTCD with prediction, default thresholds
	if err != nil {
		log.Fatal(err)
	}
	defer be.Close()
	tid, _ := be.RegisterShape(torus)
	bid, _ := be.RegisterShape(bunny)

	pairs := []narrow.Pair{{
		ID: 1, A: tid, B: bid,
		PoseA: narrow.Identity,
		PoseB: narrow.Pose{Pos: mgl64.Vec3{2, 1.09, 0}, Rot: mgl64.QuatIdent()},
	}}
	var res narrow.Result // reuse it every step: steady-state steps allocate nothing
	if err := be.Detect(context.Background(), pairs, &res); err != nil {
		log.Fatal(err)
	}
	pr := res.Pairs[0]
	fmt.Println("contacts:", len(pr.Contacts))
	fmt.Println("manifolds:", len(pr.Manifolds), "- the first has", len(pr.Manifolds[0].Points), "points")
	// Output:
	// contacts: 24
	// manifolds: 4 - the first has 4 points
}
