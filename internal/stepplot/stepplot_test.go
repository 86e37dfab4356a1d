package stepplot

import (
	"bytes"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"
)

func TestWrite(t *testing.T) {
	ok := Series{Name: "narrow phase", Color: color.RGBA{0xd9, 0x8c, 0x4a, 0xff}, Times: []time.Duration{time.Millisecond, 3 * time.Millisecond, 2 * time.Millisecond}}
	for _, tc := range []struct {
		name    string
		dt      float64
		series  []Series
		wantErr string
	}{
		{"one series", 1.0 / 60, []Series{ok}, ""},
		{"two series, one empty", 1.0 / 60, []Series{ok, {Name: "empty"}}, ""},
		{"no series", 1.0 / 60, nil, "no series"},
		{"zero time step", 0, []Series{ok}, "time step 0"},
		{"NaN time step", nan(), []Series{ok}, "time step NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Write(&buf, "title", tc.dt, tc.series...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if b := img.Bounds(); b.Dx() != 768 || b.Dy() != 384 {
				t.Errorf("plot of %v, want 8×4 inches at 96 dpi (768×384)", b)
			}
		})
	}
}

func nan() float64 {
	z := 0.0
	return z / z
}
