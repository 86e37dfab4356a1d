package optixbackend

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
	"github.com/irtcd/irtcd/sim/scene3d"
)

// partsBackend passes every call on to a backend and adds up where the
// time of each Detect went (narrow.DetectTimes) and, on the GPU backend,
// the device's part of each step that traced rays.
type partsBackend struct {
	narrow.Backend
	gpu     *Backend // nil on the CPU backend
	steps   int
	parts   narrow.DetectTimes
	dev     Times
	traced  int // steps that traced rays on the device
	batches int // the device's batches seen so far
}

func (p *partsBackend) Detect(ctx context.Context, pairs []narrow.Pair, res *narrow.Result) error {
	if err := p.Backend.Detect(ctx, pairs, res); err != nil {
		return err
	}
	dt := p.Backend.(narrow.Timed).LastDetectTimes()
	p.steps++
	p.parts.Prepare += dt.Prepare
	p.parts.Rays += dt.Rays
	p.parts.Batch += dt.Batch
	p.parts.Finish += dt.Finish
	if p.gpu != nil && p.gpu.tr.batches > p.batches {
		p.batches = p.gpu.tr.batches
		tm, _ := p.gpu.LastDevice()
		p.dev.Upload += tm.Upload
		p.dev.Kernel += tm.Kernel
		p.dev.Download += tm.Download
		p.traced++
	}
	return nil
}

// BenchmarkTori100 runs the rigid scene 1 of Li & Yamaguchi's
// deformable-object paper (scene3d.Tori100: 100 tori falling on the
// ground, full size, irtcd's default method) on the CPU backend and on
// the GPU backend, and reports where a step's narrow phase went, per
// step (ms): prepare, rays, of which the batch (the part of the device's
// round trip that the iterative work items did not cover), finish; and
// for the GPU, per step that traced rays, the device's copies up, kernel
// and copies down. The GPU backend runs with its default minimum batch
// and with others (WithMinBatch; min=0: every batch on the device);
// backend nodevice is the GPU backend whose batches all stay on the CPU
// (a host device that none reaches), which runs without a GPU too. The
// two backends' contacts are the same (TestBackendMatchesCPU), so the
// runs simulate the same scene.
func BenchmarkTori100(b *testing.B) {
	for _, v := range []struct {
		backend string
		min     int // the GPU backend's minimum batch (WithMinBatch); -1: its default
	}{{"cpu", 0}, {"nodevice", 0}, {"gpu", -1}, {"gpu", 0}, {"gpu", 512}, {"gpu", 2048}, {"gpu", 8192}} {
		name := "backend=" + v.backend
		if v.backend == "gpu" && v.min >= 0 {
			name += fmt.Sprintf("/min=%d", v.min)
		}
		b.Run(name, func(b *testing.B) {
			backend := v.backend
			var sum partsBackend
			for range b.N {
				var pb partsBackend
				switch backend {
				case "nodevice":
					// The GPU backend with the host kernel as its device
					// and a minimum batch above any batch: its CPU side,
					// on machines without a GPU too.
					g, err := newOn(narrow.Params{}, []rayDevice{openHost(b)}, "the host", &config{minBatch: math.MaxInt, minSet: true})
					if err != nil {
						b.Fatal(err)
					}
					pb.Backend = g
				case "gpu":
					var opts []Option
					if v.min >= 0 {
						opts = append(opts, WithMinBatch(v.min))
					}
					pb.gpu = openGPU(b, narrow.Params{}, opts...)
					pb.Backend = pb.gpu
				default:
					cpu, err := cpubackend.New(narrow.Params{})
					if err != nil {
						b.Fatal(err)
					}
					pb.Backend = cpu
				}
				if _, err := scene3d.Run(context.Background(), scene3d.Tori100(), scene3d.Options{Seed: 1, MeshDir: "../testdata", Backend: &pb}); err != nil {
					b.Fatal(err)
				}
				pb.Close()
				sum.steps += pb.steps
				sum.traced += pb.traced
				for _, d := range [][2]*time.Duration{{&sum.parts.Prepare, &pb.parts.Prepare}, {&sum.parts.Rays, &pb.parts.Rays},
					{&sum.parts.Batch, &pb.parts.Batch}, {&sum.parts.Finish, &pb.parts.Finish},
					{&sum.dev.Upload, &pb.dev.Upload}, {&sum.dev.Kernel, &pb.dev.Kernel}, {&sum.dev.Download, &pb.dev.Download}} {
					*d[0] += *d[1]
				}
			}
			ms := func(d time.Duration, n int) float64 { return d.Seconds() * 1e3 / float64(max(n, 1)) }
			b.ReportMetric(ms(sum.parts.Prepare+sum.parts.Rays+sum.parts.Finish, sum.steps), "narrow-ms/step")
			b.ReportMetric(ms(sum.parts.Prepare, sum.steps), "prepare-ms/step")
			b.ReportMetric(ms(sum.parts.Rays, sum.steps), "rays-ms/step")
			b.ReportMetric(ms(sum.parts.Finish, sum.steps), "finish-ms/step")
			if backend == "gpu" {
				b.ReportMetric(ms(sum.parts.Batch, sum.steps), "batch-ms/step")
				b.ReportMetric(float64(sum.traced)/float64(max(sum.steps, 1)), "traced/step")
				b.ReportMetric(ms(sum.dev.Upload, sum.traced), "up-ms/traced")
				b.ReportMetric(ms(sum.dev.Kernel, sum.traced), "kernel-ms/traced")
				b.ReportMetric(ms(sum.dev.Download, sum.traced), "down-ms/traced")
			}
		})
	}
}
