package steploop

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestLoop(t *testing.T) {
	errFrame := errors.New("frame failed")
	for _, tc := range []struct {
		name       string
		total      int
		every      int
		failStep   int // step index that fails (-1: none)
		failFrame  int // frame at this many steps done fails (-1: none)
		cancelAt   int // cancel ctx after this many steps (-1: never)
		wantSteps  int
		wantFrames []int
		wantErr    string
	}{
		{"all", 5, 2, -1, -1, -1, 5, []int{0, 2, 4, 5}, ""},
		{"every step", 3, 0, -1, -1, -1, 3, []int{0, 1, 2, 3}, ""},
		{"step fails", 5, 1, 2, -1, -1, 2, []int{0, 1, 2}, "step 2 failed"},
		{"frame fails", 5, 2, -1, 4, -1, 4, []int{0, 2, 4}, "test: s frame at step 4: frame failed"},
		{"cancelled", 5, 1, -1, -1, 3, 3, []int{0, 1, 2, 3}, "test: s stopped before step 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var frames []int
			progress := 0
			n := 0
			l := Loop[int]{
				Prefix: "test", Scene: "s", Total: tc.total, Every: tc.every,
				Step: func(context.Context) (int, error) {
					if n == tc.failStep {
						return 0, errors.New("step 2 failed")
					}
					n++
					if n == tc.cancelAt {
						cancel()
					}
					return n * 10, nil
				},
				Frame: func(done int) error {
					frames = append(frames, done)
					if done == tc.failFrame {
						return errFrame
					}
					return nil
				},
				Progress: func(done, total int) { progress = done },
			}
			out, err := l.Run(ctx, nil)
			if len(out) != tc.wantSteps || progress != tc.wantSteps {
				t.Errorf("%d steps (progress %d), want %d", len(out), progress, tc.wantSteps)
			}
			for i, m := range out {
				if m != 10*(i+1) {
					t.Errorf("metrics %d = %d", i, m)
				}
			}
			if len(frames) != len(tc.wantFrames) {
				t.Errorf("frames %v, want %v", frames, tc.wantFrames)
			} else {
				for i := range frames {
					if frames[i] != tc.wantFrames[i] {
						t.Errorf("frames %v, want %v", frames, tc.wantFrames)
						break
					}
				}
			}
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
			if tc.failFrame >= 0 && !errors.Is(err, errFrame) {
				t.Errorf("error %v does not wrap the frame's error", err)
			}
		})
	}
}

// TestLoopAfter: After sees every step's metrics so far, its updates stay
// in the result, and its error stops the run.
func TestLoopAfter(t *testing.T) {
	errAfter := errors.New("after failed")
	n := 0
	l := Loop[int]{
		Prefix: "test", Scene: "s", Total: 6,
		Step: func(context.Context) (int, error) { n++; return n, nil },
		After: func(_ context.Context, out []int) error {
			if len(out) != n || out[n-1] != n {
				t.Errorf("after step %d: out %v", n, out)
			}
			if n%2 == 0 {
				out[n-2] = -out[n-2] // update an earlier step in place
			}
			if n == 5 {
				return errAfter
			}
			return nil
		},
	}
	out, err := l.Run(context.Background(), nil)
	if !errors.Is(err, errAfter) {
		t.Errorf("error %v, want the After error", err)
	}
	want := []int{-1, 2, -3, 4, 5}
	if len(out) != len(want) {
		t.Fatalf("out %v, want %v", out, want)
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("out %v, want %v", out, want)
			break
		}
	}
}
