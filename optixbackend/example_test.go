package optixbackend_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend"
)

// ExampleNew runs a step on the GPU where there is one, and on the CPU
// backend otherwise: both give the same contacts.
func ExampleNew() {
	var be narrow.Backend
	gpu, err := optixbackend.New(narrow.Params{})
	switch {
	case err == nil:
		be = gpu
	case errors.Is(err, optixbackend.ErrNoDevice):
		log.Printf("no GPU (%v): CPU backend", err)
		cpu, err := cpubackend.New(narrow.Params{})
		if err != nil {
			log.Fatal(err)
		}
		be = cpu
	default:
		log.Fatal(err)
	}
	defer be.Close()

	bunny, err := narrow.LoadOBJ("../testdata/bunny.obj")
	if err != nil {
		log.Fatal(err)
	}
	id, err := be.RegisterShape(bunny)
	if err != nil {
		log.Fatal(err)
	}
	pairs := []narrow.Pair{{ID: 1, A: id, B: id, PoseA: narrow.Identity,
		PoseB: narrow.Pose{Pos: mgl64.Vec3{0.2, 0.9, 0}, Rot: mgl64.QuatIdent()}}}
	var res narrow.Result
	if err := be.Detect(context.Background(), pairs, &res); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(res.Pairs[0].Contacts) > 0)
	// Output: true
}
