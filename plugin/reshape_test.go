package plugin

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/irtcd/irtcd/adapter"
	"github.com/irtcd/irtcd/internal/motion"
	"github.com/irtcd/irtcd/internal/reference"
	"github.com/irtcd/irtcd/narrow"
)

var _ narrow.Reshaper = (*Host)(nil)

// TestReshapeShape: a bunny deformed at every step and handed to the
// host's ReshapeShape gives, in the plugin process, the in-process CPU
// backend's results bit for bit, iterative steps included (the process
// deforms its own copy and keeps its pairs' states). A shape reshaped and
// then released before the next step, and a shape registered after, stay
// in step too; bad replacements are refused.
func TestReshapeShape(t *testing.T) {
	bunny, torus := meshes(t)
	p := narrow.Params{Method: narrow.MethodPredictive}
	shapes := []*narrow.Shape{bunny, torus}
	h, cpu := newHost(t, pluginBin, p, shapes), newCPU(t, p, shapes)
	rng := rand.New(rand.NewPCG(3, 1))
	var pairs []narrow.Pair
	for len(pairs) < 6 {
		pa, pb := reference.RandomOverlap(rng, bunny, torus, 0.5)
		if len(reference.Contacts(bunny, torus, pa, pb)) > 0 {
			pairs = append(pairs, narrow.Pair{ID: uint64(len(pairs) + 1), A: 0, B: 1, PoseA: pa, PoseB: pb})
		}
	}
	var got, want narrow.Result
	// A first step registers the shapes with the process. (A deformed
	// shape it receives whole is rebuilt with narrow.NewMesh, whose
	// outside grid culls more rays than a deformed shape's hierarchy: the
	// same contacts, other ray counts in Stats.)
	detect(t, h, pairs, &got)
	detect(t, cpu, pairs, &want)
	iterative, standard := 0, 0
	for k := range 10 {
		next, err := motion.Breathe(bunny, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []narrow.Reshaper{h, cpu} {
			if err := r.ReshapeShape(0, next); err != nil {
				t.Fatal(err)
			}
		}
		detect(t, h, pairs, &got)
		detect(t, cpu, pairs, &want)
		if d := diffResults(&got, &want); d != "" {
			t.Fatalf("step %d: %s", k, d)
		}
		iterative += got.Stats.IterativePairs
		standard += got.Stats.StandardPairs
	}
	t.Logf("%d iterative and %d standard pair steps", iterative, standard)
	if iterative == 0 || standard <= len(pairs) {
		t.Error("the steps do not cover both kinds after reshapes")
	}
	// Reshaped, then released before any step; a shape registered after.
	squashed, err := bunny.Deform(bunny.AppendVertices(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, be := range []interface {
		narrow.Backend
		narrow.Reshaper
	}{h, cpu} {
		if err := be.ReshapeShape(0, squashed); err != nil {
			t.Fatal(err)
		}
		if err := be.UnregisterShape(0); err != nil {
			t.Fatal(err)
		}
		if id, err := be.RegisterShape(bunny); err != nil || id != 2 {
			t.Fatalf("%T: registered as %d, %v", be, id, err)
		}
	}
	for i := range pairs {
		pairs[i].A = 2
	}
	for k := range 2 {
		detect(t, h, pairs, &got)
		detect(t, cpu, pairs, &want)
		if d := diffResults(&got, &want); d != "" {
			t.Fatalf("after the release, step %d: %s", k, d)
		}
	}
	for _, tc := range []struct {
		name string
		id   narrow.ShapeID
		s    *narrow.Shape
		want error
	}{
		{"other topology", 1, bunny, narrow.ErrBadParams},
		{"released", 0, bunny, narrow.ErrUnknownShape},
		{"nil", 1, nil, narrow.ErrBadParams},
	} {
		if err := h.ReshapeShape(tc.id, tc.s); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestReshapeUnsupported: a plugin whose backend cannot reshape (as its
// ConfigureResponse says) makes ReshapeShape an error wrapping
// errors.ErrUnsupported that changes nothing, and adapter.Batch.Reshape
// then registers the new shape afresh.
func TestReshapeUnsupported(t *testing.T) {
	bunny, torus := meshes(t)
	h := newHost(t, pluginBin, narrow.Params{}, nil)
	b := adapter.NewBatch(h)
	for _, s := range []*narrow.Shape{bunny, torus} {
		if _, err := b.Register(s); err != nil {
			t.Fatal(err)
		}
	}
	h.mu.Lock()
	h.proc.reshapes = false
	h.mu.Unlock()
	next, err := bunny.Deform(bunny.AppendVertices(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ReshapeShape(0, next); !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("ReshapeShape: %v, want errors.ErrUnsupported", err)
	}
	if h.shapes[0] != bunny {
		t.Fatal("a refused ReshapeShape changed the shape")
	}
	id, err := b.Reshape(bunny, next)
	if err != nil || id != 2 {
		t.Fatalf("Batch.Reshape: id %d, %v; want the new shape registered as 2", id, err)
	}
	var res narrow.Result
	shifted := narrow.Pose{Pos: mgl64.Vec3{0.3, 0, 0}, Rot: mgl64.QuatIdent()}
	detect(t, h, []narrow.Pair{{ID: 1, A: 2, B: 2, PoseA: narrow.Identity, PoseB: shifted}}, &res)
	if res.Pairs[0].Err != nil || len(res.Pairs[0].Contacts) == 0 {
		t.Errorf("a step with the new shape: %v, %d contacts", res.Pairs[0].Err, len(res.Pairs[0].Contacts))
	}
}
