package benchscene

import (
	"context"
	"testing"

	"github.com/irtcd/irtcd/cpubackend"
	"github.com/irtcd/irtcd/narrow"
)

// TestCheap: the frames have the asked sizes, every pair is valid for the
// shapes, IDs are the pairs' indices, and the scene moves between frames.
func TestCheap(t *testing.T) {
	shapes, frames, err := Cheap(10, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(shapes) != 2 || len(frames) != 4 {
		t.Fatalf("%d shapes, %d frames", len(shapes), len(frames))
	}
	for f, pairs := range frames {
		if len(pairs) != 10 {
			t.Fatalf("frame %d: %d pairs", f, len(pairs))
		}
		for i := range pairs {
			p := pairs[i]
			if p.ID != uint64(i) {
				t.Errorf("frame %d, pair %d: ID %d", f, i, p.ID)
			}
			if err := narrow.CheckPair(&p, shapes[p.A], shapes[p.B]); err != nil {
				t.Errorf("frame %d, pair %d: %v", f, i, err)
			}
		}
	}
	if frames[0][1].PoseB == frames[1][1].PoseB {
		t.Error("the pairs do not move between frames")
	}
}

// TestRecorder: the recorder passes calls on, keeps the shapes in order and
// copies of the batches (later changes to the caller's slice do not reach
// them), and Replay registers the shapes with the same IDs.
func TestRecorder(t *testing.T) {
	rec, frames, shapes := newRecorder(t, 2, 0)
	var res narrow.Result
	pairs := append([]narrow.Pair(nil), frames[0]...)
	if err := rec.Detect(context.Background(), pairs, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Pairs) != len(pairs) {
		t.Fatalf("%d results for %d pairs", len(res.Pairs), len(pairs))
	}
	pairs[0].ID = 12345
	if len(rec.Batches) != 1 || rec.Batches[0][0] != frames[0][0] || len(rec.Shapes) != len(shapes) {
		t.Fatalf("recorded %d batches (first pair %+v), %d shapes", len(rec.Batches), rec.Batches[0][0], len(rec.Shapes))
	}
	other, err := cpubackend.New(narrow.Params{}, cpubackend.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := rec.Replay(other); err != nil {
		t.Fatal(err)
	}
	var again narrow.Result
	if err := other.Detect(context.Background(), rec.Batches[0], &again); err != nil {
		t.Fatal(err)
	}
	for i := range again.Pairs {
		if again.Pairs[i].Err != nil || len(again.Pairs[i].Contacts) != len(res.Pairs[i].Contacts) {
			t.Fatalf("replayed pair %d: %v, %d contacts; recorded run %d", i, again.Pairs[i].Err, len(again.Pairs[i].Contacts), len(res.Pairs[i].Contacts))
		}
	}
}

// TestRecorderSkip: the first Skip batches run but are not recorded.
func TestRecorderSkip(t *testing.T) {
	rec, frames, _ := newRecorder(t, 3, 2)
	var res narrow.Result
	for k, f := range frames {
		if err := rec.Detect(context.Background(), f, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Pairs) != len(f) {
			t.Fatalf("frame %d: %d results for %d pairs", k, len(res.Pairs), len(f))
		}
	}
	if len(rec.Batches) != len(frames)-2 || rec.Batches[0][0] != frames[2][0] {
		t.Fatalf("recorded %d of %d batches; want the last %d", len(rec.Batches), len(frames), len(frames)-2)
	}
}

// newRecorder returns a Recorder (with skip) around a CPU backend, with
// the shapes of Cheap(4, frames) registered through it, and the frames.
func newRecorder(t *testing.T, frames, skip int) (*Recorder, [][]narrow.Pair, []*narrow.Shape) {
	t.Helper()
	shapes, fs, err := Cheap(4, frames)
	if err != nil {
		t.Fatal(err)
	}
	inner, err := cpubackend.New(narrow.Params{}, cpubackend.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inner.Close() })
	rec := &Recorder{Backend: inner, Skip: skip}
	for i, s := range shapes {
		if id, err := rec.RegisterShape(s); err != nil || int(id) != i {
			t.Fatalf("RegisterShape %d: %d, %v", i, id, err)
		}
	}
	return rec, fs, shapes
}
