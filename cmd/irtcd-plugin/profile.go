package main

// Diagnostics: when the environment variable below is set, the plugin
// process writes a CPU profile of its whole life to "<value>.<pid>" (the
// host may start several processes, one after another), for
// `go tool pprof`. The host passes its environment on to the plugin, so
//
//	IRTCD_PLUGIN_CPUPROFILE=/tmp/plugin.prof go test ./plugin -run '^$' -bench PluginOverhead
//
// profiles the plugin side of the benchmark. The profile is complete only
// when the process ends normally (the host closed it).

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// profileEnv names the CPU profile's path prefix.
const profileEnv = "IRTCD_PLUGIN_CPUPROFILE"

// startProfile starts the CPU profile if profileEnv asks for one, and
// returns the function that stops it.
func startProfile() (stop func()) {
	prefix := os.Getenv(profileEnv)
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d", prefix, os.Getpid()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "irtcd-plugin: cpu profile:", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		fmt.Fprintln(os.Stderr, "irtcd-plugin: cpu profile:", err)
		f.Close()
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
