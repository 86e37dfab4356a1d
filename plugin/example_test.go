package plugin_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/plugin"
)

// Example runs the narrow phase in the plugin binary built with
//
//	go build -o irtcd-plugin ./cmd/irtcd-plugin
//
// pinned by its checksum, with a step timeout. Host is a narrow.Backend:
// the same calls run the in-process backend, and give the same contacts.
// (Not run by go test: it needs the binary.)
func Example() {
	sum, err := plugin.FileChecksum("./irtcd-plugin")
	if err != nil {
		log.Fatal(err)
	}
	be, err := plugin.New("./irtcd-plugin", narrow.Params{},
		plugin.WithChecksum(sum),
		plugin.WithStepTimeout(2*time.Second),
		plugin.WithLogger(slog.Default()))
	if err != nil {
		log.Fatal(err)
	}
	defer be.Close()

	bunny, err := narrow.LoadOBJ("testdata/bunny.obj")
	if err != nil {
		log.Fatal(err)
	}
	id, err := be.RegisterShape(bunny) // sent to the plugin once, before the next step
	if err != nil {
		log.Fatal(err)
	}
	var res narrow.Result // reused step after step
	for step := 0; step < 3; step++ {
		x := 0.2 + 0.01*float64(step)
		pairs := []narrow.Pair{{ID: 1, A: id, B: id, PoseA: narrow.Identity,
			PoseB: narrow.Pose{Pos: mgl64.Vec3{x, 0.9, 0}, Rot: mgl64.QuatIdent()}}}
		// One request and one response per step. A plugin that dies or
		// hangs is restarted and the step retried; failing that, the step
		// runs in-process.
		if err := be.Detect(context.Background(), pairs, &res); err != nil {
			log.Fatal(err)
		}
		fmt.Println(step, len(res.Pairs[0].Contacts), res.Pairs[0].Iterative)
	}
	fmt.Println("plugin process", be.PID(), "restarts", be.Restarts(), "fell back", be.FellBack())
}
