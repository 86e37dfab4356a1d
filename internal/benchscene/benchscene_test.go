package benchscene

import (
	"testing"

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
