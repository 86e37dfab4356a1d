package main

import (
	"fmt"
	"log/slog"

	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/optixbackend"
	"github.com/irtcd/irtcd/plugin"
)

// backendEnv names the backend the plugin serves: cpu (the default) or
// gpu (package optixbackend). The host passes its environment to the
// plugin, so `IRTCD_PLUGIN_BACKEND=gpu irtcd demo -backend plugin` runs
// the GPU backend out of process.
const backendEnv = "IRTCD_PLUGIN_BACKEND"

// factory returns the Factory of the backend named name (backendEnv's
// value). An unknown name gives a Factory that fails every Configure
// with an error that says so, which the host reports.
func factory(name string) plugin.Factory {
	switch name {
	case "", "cpu":
		return plugin.CPUFactory
	case "gpu":
		return gpuFactory
	}
	return func(narrow.Params, int, *slog.Logger) (narrow.Backend, error) {
		return nil, fmt.Errorf("%s=%q: unknown backend (want cpu or gpu)", backendEnv, name)
	}
}

// gpuFactory is the Factory of the GPU backend: it fails, naming the
// cause, where no CUDA device opens.
func gpuFactory(p narrow.Params, workers int, log *slog.Logger) (narrow.Backend, error) {
	opts := []optixbackend.Option{optixbackend.WithLogger(log)}
	if workers > 0 {
		opts = append(opts, optixbackend.WithWorkers(workers))
	}
	return optixbackend.New(p, opts...)
}
