package narrow

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestFusesMultiplyAdd checks the probe against math.FMA and against what
// the build is known to do: a default amd64 build (GOAMD64 v1 or v2) never
// fuses. IRTCD_EXPECT_FMA ("0" or "1") states the expected answer for
// other builds (.ci/crossbuild sets it).
func TestFusesMultiplyAdd(t *testing.T) {
	fused := math.FMA(fmaX, fmaY, fmaZ)
	if fused == 0 || float64(fmaX*fmaY)+fmaZ != 0 {
		t.Fatalf("probe operands: fused %g, rounded %g; want −2⁻⁶⁰ and 0", fused, float64(fmaX*fmaY)+fmaZ)
	}
	got := FusesMultiplyAdd()
	if r := fmaProbe(fmaX, fmaY, fmaZ); r != 0 && r != fused {
		t.Fatalf("probe %g: neither rounded (0) nor fused (%g)", r, fused)
	}
	want, known := false, false
	switch os.Getenv("IRTCD_EXPECT_FMA") {
	case "1":
		want, known = true, true
	case "0":
		known = true
	default:
		if runtime.GOARCH == "amd64" && goamd64() < "v3" {
			known = true
		}
	}
	if runtime.GOARCH == "amd64" {
		t.Logf("GOARCH amd64, GOAMD64 %s: fuses %v", goamd64(), got)
	} else {
		t.Logf("GOARCH %s: fuses %v", runtime.GOARCH, got)
	}
	if known && got != want {
		t.Errorf("FusesMultiplyAdd() = %v, want %v", got, want)
	}
}

// goamd64 returns the GOAMD64 level the test binary was built for ("v1"
// when not recorded).
func goamd64() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "GOAMD64" {
				return s.Value
			}
		}
	}
	return "v1"
}
