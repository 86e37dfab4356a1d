package optixbackend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"unsafe"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// lostDevice is a device whose every call fails, as after a driver
// fault.
type lostDevice struct{ calls, closed int }

var errLost = errors.New("GPU has fallen off the bus")

func (d *lostDevice) setShapes([]narrow.Primitive, []narrow.BVHNode) error {
	d.calls++
	return errLost
}

func (d *lostDevice) start([]int32, bool, []narrow.RayQuery, []int32, []narrow.Hit, []narrow.Hit) error {
	d.calls++
	return errLost
}

func (d *lostDevice) wait() (Times, error) { panic("lostDevice.wait: it never started") }

func (d *lostDevice) hostAlloc(int) (unsafe.Pointer, error) {
	d.calls++
	return nil, errLost
}

func (d *lostDevice) hostFree(unsafe.Pointer) { panic("lostDevice.hostFree: it never allocated") }

func (d *lostDevice) close() { d.closed++ }

// TestDeviceFailureFallsBack checks that a device that fails every call
// slows the backend down but does not stop it: each step's rays are
// traced on the CPU's workers, every Result is the CPU backend's, the
// failures are counted, and Close releases the device once. Its
// page-locked memory is refused too: the batches stay in Go memory.
func TestDeviceFailureFallsBack(t *testing.T) {
	shapes := loadShapes(t)
	dev := &lostDevice{}
	var c config
	WithLogger(slog.New(slog.DiscardHandler))(&c)
	gpu, err := newOn(narrow.Params{}, []rayDevice{dev}, "lost", &c)
	if err != nil {
		t.Fatal(err)
	}
	cpu, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	ids := register(t, gpu, shapes)
	register(t, cpu, shapes)
	var want, got narrow.Result
	steps := 0
	for k, pairs := range scripted(shapes, ids, 60, 8, 2) {
		stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
		if want.Stats.StandardRays > 0 {
			steps++
		}
	}
	if steps == 0 || gpu.DeviceFailures() == 0 || gpu.DeviceFailures() > steps || dev.calls < gpu.DeviceFailures() {
		t.Fatalf("%d steps with standard rays, %d device failures, %d device calls", steps, gpu.DeviceFailures(), dev.calls)
	}
	if !gpu.tr.noStage {
		t.Error("the lost device's page-locked memory is in use")
	}
	if err := gpu.Close(); err != nil || dev.closed != 1 {
		t.Fatalf("Close: %v, device closed %d times", err, dev.closed)
	}
	t.Logf("%d steps traced on the CPU after %d device calls failed", gpu.DeviceFailures(), dev.calls)
}

// TestUnregisterSharedShape checks that a shape registered under two IDs
// stays on the device until both are released, that the pairs of the
// other ID keep the CPU backend's results, and that releasing an unknown
// ID fails as the CPU backend's does.
func TestUnregisterSharedShape(t *testing.T) {
	shapes := loadShapes(t)
	gpu, cpu := hostAndCPU(t, openHost(t), &config{})
	bunny := shapes[0]
	var err error
	var ids [2]narrow.ShapeID
	for k := range ids {
		for _, be := range []narrow.Backend{gpu, cpu} {
			if ids[k], err = be.RegisterShape(bunny); err != nil {
				t.Fatal(err)
			}
		}
	}
	gear := shapes[len(shapes)-1]
	var gearID narrow.ShapeID
	for _, be := range []narrow.Backend{gpu, cpu} {
		if gearID, err = be.RegisterShape(gear); err != nil {
			t.Fatal(err)
		}
	}
	frames := scripted([]*narrow.Shape{bunny, gear}, []narrow.ShapeID{ids[1], gearID}, 30, 4, 8)
	var want, got narrow.Result
	onDevice := func() bool { _, ok := gpu.tr.spans[bunny]; return ok }
	for k, pairs := range frames {
		if k == 1 {
			for _, be := range []narrow.Backend{gpu, cpu} {
				if err := be.UnregisterShape(ids[0]); err != nil {
					t.Fatal(err)
				}
			}
			if !onDevice() {
				t.Fatal("the bunny left the device while registered under another ID")
			}
		}
		stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
	}
	if err := gpu.UnregisterShape(ids[1]); err != nil {
		t.Fatal(err)
	}
	if onDevice() {
		t.Error("the bunny is still on the device with no ID left")
	}
	gotErr, wantErr := gpu.UnregisterShape(ids[1]), cpu.UnregisterShape(99)
	if !errors.Is(gotErr, narrow.ErrUnknownShape) || !errors.Is(wantErr, narrow.ErrUnknownShape) {
		t.Errorf("releasing an unknown ID: %v (the CPU backend: %v)", gotErr, wantErr)
	}
}

// TestSeveralDevices spreads the steps over three devices (the kernel on
// the host behind each): every Result is the CPU backend's, every device
// traces a share, a steady-state step allocates nothing, a failing device
// hands the step back to the CPU, and Close releases every device.
func TestSeveralDevices(t *testing.T) {
	shapes := loadShapes(t)
	devs := []*hostDevice{openHost(t), openHost(t), openHost(t)}
	for _, lost := range []bool{false, true} {
		rds := []rayDevice{devs[0], devs[1], devs[2]}
		if lost {
			rds[1] = &lostDevice{}
		}
		var c config
		WithLogger(slog.New(slog.DiscardHandler))(&c)
		gpu, err := newOn(narrow.Params{}, rds, "three", &c)
		if err != nil {
			t.Fatal(err)
		}
		gpu.tr.minPart = 64
		cpu, err := cpubackend.New(narrow.Params{})
		if err != nil {
			t.Fatal(err)
		}
		ids := register(t, gpu, shapes)
		register(t, cpu, shapes)
		var want, got narrow.Result
		ctx := context.Background()
		for k, pairs := range scripted(shapes, ids, 60, 6, 4) {
			stepBoth(t, fmt.Sprintf("lost %v, step %d", lost, k), cpu, gpu, pairs, &want, &got)
		}
		if !lost {
			frames := scripted(shapes, ids, 60, 6, 4)
			for range 3 { // warm-up: every buffer at its size
				for _, pairs := range frames {
					if err := gpu.Detect(ctx, pairs, &got); err != nil {
						t.Fatal(err)
					}
				}
			}
			if allocs := steadyAllocs(gpu, frames); allocs != 0 {
				t.Errorf("%v allocations per steady-state step on three devices", allocs)
			}
		}
		cpu.Close()
		if err := gpu.Close(); err != nil {
			t.Fatal(err)
		}
		if lost != (gpu.DeviceFailures() > 0) {
			t.Errorf("lost %v: %d device failures", lost, gpu.DeviceFailures())
		}
	}
	if d := devs[0]; d.rays == 0 || d.staged != d.rays || len(d.live) != 0 {
		t.Errorf("device 0 traced %d queries, %d of them from the staging memory; %d allocations left after Close", d.rays, d.staged, len(d.live))
	}
	for i, d := range devs {
		runs := 2 // device 1 sat out the second run
		if i == 1 {
			runs = 1
		}
		if d.rays == 0 || d.closed != runs {
			t.Errorf("device %d: %d rays traced, closed %d times, want %d", i, d.rays, d.closed, runs)
		}
	}
}

// TestPageableSteadyState checks the backend whose batches stay in Go
// memory (no page-locked memory, or withPageable): it keeps reusing that
// memory, so a steady-state step allocates nothing, and its Results are
// the CPU backend's.
func TestPageableSteadyState(t *testing.T) {
	shapes := loadShapes(t)
	dev := openHost(t)
	gpu, cpu := hostAndCPU(t, dev, &config{pageable: true})
	ids := register(t, gpu, shapes)
	register(t, cpu, shapes)
	frames := scripted(shapes, ids, 60, 6, 4)
	var want, got narrow.Result
	for range 3 { // warm-up: every buffer at its size
		for k, pairs := range frames {
			stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
		}
	}
	allocs := steadyAllocs(gpu, frames)
	if allocs != 0 || dev.rays == 0 || dev.allocs != 0 || dev.staged != 0 {
		t.Errorf("%v allocations per steady-state step; %d queries traced, %d from page-locked memory (%d allocations)", allocs, dev.rays, dev.staged, dev.allocs)
	}
}

// hostAndCPU returns a GPU backend on dev with the default parameters and
// a CPU backend beside it, both closed when the test ends.
func hostAndCPU(t *testing.T, dev rayDevice, c *config) (*Backend, *cpubackend.Backend) {
	t.Helper()
	gpu, err := newOn(narrow.Params{}, []rayDevice{dev}, "the host", c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gpu.Close() })
	cpu, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cpu.Close() })
	return gpu, cpu
}

// steadyAllocs returns the allocations per step of gpu over the frames,
// which it has already run (its buffers at their sizes).
func steadyAllocs(gpu *Backend, frames [][]narrow.Pair) float64 {
	var res narrow.Result
	k := 0
	return testing.AllocsPerRun(12, func() {
		if err := gpu.Detect(context.Background(), frames[k%len(frames)], &res); err != nil {
			panic(err)
		}
		k++
	})
}

// TestSaveRestoreStateAcrossBackends: the GPU backend's temporal state
// lives on its CPU side, so a state it saves restores into a CPU backend
// as into itself. Both, restored to the GPU's state at step 8, run steps
// 8-15 again as the first time. Run on a lost device, whose rays are
// traced on the CPU: no GPU needed.
func TestSaveRestoreStateAcrossBackends(t *testing.T) {
	shapes := loadShapes(t)
	var c config
	WithLogger(slog.New(slog.DiscardHandler))(&c)
	gpu, err := newOn(narrow.Params{}, []rayDevice{&lostDevice{}}, "lost", &c)
	if err != nil {
		t.Fatal(err)
	}
	defer gpu.Close()
	cpu, err := cpubackend.New(narrow.Params{})
	if err != nil {
		t.Fatal(err)
	}
	defer cpu.Close()
	ids := register(t, gpu, shapes)
	register(t, cpu, shapes)
	const at = 8
	batch := scripted(shapes, ids, 60, 16, 3)
	var want, got narrow.Result
	var saved cpubackend.State
	var first []string // the first pass's results after the save, printed
	for k, pairs := range batch {
		if k == at {
			if err := gpu.SaveState(&saved); err != nil {
				t.Fatal(err)
			}
		}
		stepBoth(t, fmt.Sprintf("step %d", k), cpu, gpu, pairs, &want, &got)
		if k >= at {
			first = append(first, fmt.Sprintf("%+v", got))
		}
	}
	for _, be := range []interface {
		RestoreState(*cpubackend.State) error
	}{gpu, cpu} {
		if err := be.RestoreState(&saved); err != nil {
			t.Fatal(err)
		}
	}
	for k, pairs := range batch[at:] {
		stepBoth(t, fmt.Sprintf("after the restore, step %d", at+k), cpu, gpu, pairs, &want, &got)
		if fmt.Sprintf("%+v", got) != first[k] {
			t.Fatalf("after the restore, step %d differs from the first time", at+k)
		}
	}
	if saved.Pairs() == 0 || want.Stats.IterativePairs == 0 {
		t.Fatalf("%d pair states saved, %d iterative pairs at the last step: nothing to carry over", saved.Pairs(), want.Stats.IterativePairs)
	}
}
