package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend"
	"github.com/irtcd/irtcd/plugin"
)

// backendNames lists the -backend choices.
var backendNames = []string{"cpu", "gpu", "plugin"}

// pluginBinary is the default name of the plugin binary (cmd/irtcd-plugin).
const pluginBinary = "irtcd-plugin"

// gpuMinUsage is -gpu-min-batch's usage line.
const gpuMinUsage = "with -backend gpu: the fewest rays (`N`) a step's batch must hold to go to the GPU, smaller ones are traced on the CPU " +
	"(-1: 128 per CPU worker; 0: every batch)"

// checkBackend validates -backend, -plugin and -gpu-min-batch and
// returns the plugin binary's path (empty for the CPU backend). Its
// errors are bad input.
func checkBackend(name, pluginPath string, gpuMin int) (string, error) {
	if gpuMin < -1 {
		return "", fmt.Errorf("-gpu-min-batch %d: want -1 (the default), 0 or more rays", gpuMin)
	}
	if gpuMin != -1 && name != "gpu" {
		return "", fmt.Errorf("-gpu-min-batch %d: only -backend gpu has a minimum batch", gpuMin)
	}
	switch name {
	case "cpu", "gpu":
		if pluginPath != "" {
			return "", fmt.Errorf("-plugin %s: only -backend plugin runs a plugin", pluginPath)
		}
		return "", nil
	case "plugin":
		return findPlugin(pluginPath)
	}
	return "", fmt.Errorf("-backend: unknown backend %q (want %s)", name, strings.Join(backendNames, ", "))
}

// findPlugin returns the plugin binary to run: path if given, otherwise
// irtcd-plugin next to this executable, then on PATH.
func findPlugin(path string) (string, error) {
	const build = "go build -o %s ./cmd/irtcd-plugin"
	if path != "" {
		st, err := os.Stat(path)
		if err != nil || st.IsDir() {
			return "", fmt.Errorf("-plugin %s: no such plugin binary; build it with '"+build+"'", path, path)
		}
		if !filepath.IsAbs(path) && !strings.ContainsRune(path, filepath.Separator) {
			path = "." + string(filepath.Separator) + path // a file here, not a name to look up in PATH
		}
		return path, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), pluginBinary)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(pluginBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("-backend plugin: no %s binary next to irtcd or on PATH; build it with '"+build+"' and pass -plugin ./%s",
		pluginBinary, pluginBinary, pluginBinary)
}

// newBackend returns the narrow-phase backend: the in-process CPU backend,
// the GPU backend (name "gpu"; gpuMin ≥ 0 sets its minimum batch,
// optixbackend.WithMinBatch), or the plugin binary at pluginPath (see
// checkBackend) running a CPU backend, with the same parameters and
// workers.
func newBackend(name, pluginPath string, p narrow.Params, workers, gpuMin int, log *slog.Logger) (narrow.Backend, error) {
	if pluginPath != "" {
		return plugin.New(pluginPath, p, plugin.WithWorkers(workers), plugin.WithLogger(log))
	}
	if name == "gpu" {
		opts := []optixbackend.Option{optixbackend.WithLogger(log)}
		if workers > 0 {
			opts = append(opts, optixbackend.WithWorkers(workers))
		}
		if gpuMin >= 0 {
			opts = append(opts, optixbackend.WithMinBatch(gpuMin))
		}
		return optixbackend.New(p, opts...)
	}
	var opts []cpubackend.Option
	if workers > 0 {
		opts = append(opts, cpubackend.WithWorkers(workers))
	}
	return cpubackend.New(p, append(opts, cpubackend.WithLogger(log))...)
}
