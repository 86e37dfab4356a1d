// Command irtcd-plugin is irtcd's narrow phase as a plugin process: it
// serves the CPU backend (package cpubackend), or with
// IRTCD_PLUGIN_BACKEND=gpu the GPU backend (package optixbackend), over
// hashicorp/go-plugin in gRPC mode to a host that runs it through
// plugin.Host, for example
//
//	go build -o irtcd-plugin ./cmd/irtcd-plugin
//	go run ./cmd/irtcd demo -backend plugin -plugin ./irtcd-plugin
//
// The host starts it, passes the backend's parameters (method, traversal,
// response, thresholds, workers) in a Configure call, and stops it. Started
// by hand, it says that it is a plugin and exits with status 1. See package
// plugin for the protocol.
package main

import (
	"os"

	"github.com/irtcd/irtcd/plugin"
)

func main() {
	stop := startProfile()
	plugin.Serve(withTestFaults(factory(os.Getenv(backendEnv))))
	stop()
}
