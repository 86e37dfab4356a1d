package experiment

import (
	"context"
	"errors"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// closeCounter is a CPU backend that counts its Close calls.
type closeCounter struct {
	*cpubackend.Backend
	closed *int
}

func (c closeCounter) Close() error {
	*c.closed++
	return c.Backend.Close()
}

// TestNewBackend checks Config.NewBackend: the 3D scene runs take their
// narrow phase from it, with their own parameters, and close it; the
// experiment's results are those of the default backend (the same
// depths); and a factory's error fails the run, naming it.
func TestNewBackend(t *testing.T) {
	dir := t.TempDir()
	base := Config{Scale: 0.05, Seed: 1, Workers: 2, PlotDir: dir, ReportDir: dir}
	want, err := Run(context.Background(), base, []string{"tori"})
	if err != nil {
		t.Fatal(err)
	}
	made, closed := 0, 0
	methods := map[narrow.Method]bool{}
	cfg := base
	cfg.NewBackend = func(p narrow.Params) (narrow.Backend, error) {
		made++
		methods[p.Method] = true
		be, err := cpubackend.New(p, cpubackend.WithWorkers(2))
		if err != nil {
			return nil, err
		}
		return closeCounter{be, &closed}, nil
	}
	got, err := Run(context.Background(), cfg, []string{"tori"})
	if err != nil {
		t.Fatal(err)
	}
	if made == 0 || closed != made || len(methods) < 2 {
		t.Fatalf("%d backends made (methods %v), %d closed", made, methods, closed)
	}
	// The simulation is the same: its depths (not its timings) match.
	for _, m := range []string{"meanDepthIterative", "meanDepthPredictive", "minR2"} {
		w, g := want[0].metrics[m], got[0].metrics[m]
		if w != g || w == 0 {
			t.Errorf("%s: %v with the factory, %v without", m, g, w)
		}
	}
	boom := errors.New("no such device")
	cfg.NewBackend = func(narrow.Params) (narrow.Backend, error) { return nil, boom }
	if _, err := Run(context.Background(), cfg, []string{"tori"}); !errors.Is(err, boom) {
		t.Errorf("failing factory: %v", err)
	}
}
