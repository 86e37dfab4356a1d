package experiment

import (
	"bytes"
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/irtcd/irtcd/narrow"
)

func TestMeasureSpeed(t *testing.T) {
	bunny, err := narrow.LoadOBJ("../../testdata/bunny.obj")
	if err != nil {
		t.Fatal(err)
	}
	sp, err := MeasureSpeed(context.Background(), bunny, 2000, 1<<18)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]float64{"rays/s": sp.RaysPerSec, "ns a load": sp.LoadNS} {
		if !(v > 0) || math.IsInf(v, 0) {
			t.Errorf("%s = %v, want a positive finite figure", name, v)
		}
	}
	if sp.LoadMiB != 1 {
		t.Errorf("LoadMiB = %d, want 1 (2^18 words of 4 bytes)", sp.LoadMiB)
	}
	if s := sp.String(); !strings.Contains(s, "M rays/s") || !strings.Contains(s, "ns a load") {
		t.Errorf("String() = %q", s)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := MeasureSpeed(ctx, bunny, 2000, 1<<10); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
	for _, bad := range []struct {
		s           *narrow.Shape
		rays, words int
	}{{nil, 2000, 1 << 10}, {bunny, 1, 1 << 10}, {bunny, 2000, 1}} {
		if _, err := MeasureSpeed(context.Background(), bad.s, bad.rays, bad.words); !errors.Is(err, ErrBadConfig) {
			t.Errorf("MeasureSpeed(%v, %d, %d): err = %v, want ErrBadConfig", bad.s != nil, bad.rays, bad.words, err)
		}
	}
}

func TestReportSpeedLine(t *testing.T) {
	rep := &Report{Title: "t", Machine: "m", Commit: "c", Go: "go", Command: "irtcd bench", Scale: 1}
	var buf bytes.Buffer
	if err := rep.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "machine speed") {
		t.Errorf("a report without a measured speed prints one:\n%s", buf.String())
	}
	rep.SpeedStart = Speed{RaysPerSec: 4.25e6, LoadNS: 97.4, LoadMiB: 64}
	rep.SpeedEnd = Speed{RaysPerSec: 3.5e6, LoadNS: 120.2, LoadMiB: 64}
	buf.Reset()
	if err := rep.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	want := "- machine speed at the start / end of the run: 4.25 M rays/s, 97 ns a load / 3.50 M rays/s, 120 ns a load (one core: rays traced through the bunny's BVH; loads that each wait for the last, over 64 MiB;"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("report header lacks %q:\n%s", want, buf.String())
	}
}
