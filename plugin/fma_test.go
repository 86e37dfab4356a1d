package plugin

import (
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/irtcd/irtcd/narrow"
)

// TestHostFusesMultiplyAdd: the host reports whether the plugin's build
// fuses multiply-adds, as the plugin answers Configure, and warns when
// the plugin's build and its own differ (their contacts differ in the
// last bits, so a fallback would change the results). The second plugin
// is built to do the opposite of this test binary: with GOAMD64=v3 (it
// fuses) when this one does not, without fusing (-d=fmahash=n) when it
// does.
func TestHostFusesMultiplyAdd(t *testing.T) {
	host := narrow.FusesMultiplyAdd()
	sc := newScene(t, 1, 4, 2)
	start := func(path string) (*Host, *syncBuffer) {
		var logs syncBuffer
		h := newHost(t, path, narrow.Params{}, sc.shapes, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		var res narrow.Result
		detect(t, h, sc.steps[0], &res)
		return h, &logs
	}

	h, logs := start(pluginBin)
	if got := h.FusesMultiplyAdd(); got != host {
		t.Errorf("same build: FusesMultiplyAdd() = %v, want %v", got, host)
	}
	if strings.Contains(logs.String(), "fusing multiply-adds") {
		t.Errorf("same build, yet a warning: %s", logs.String())
	}

	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "irtcd-plugin-other")
	cmd := exec.Command(goCmd, "build", "-o", other, "github.com/irtcd/irtcd/cmd/irtcd-plugin")
	cmd.Env = append(os.Environ(), "GSHS_LOGFILE="+os.DevNull)
	switch {
	case host:
		cmd.Args = append(cmd.Args[:2], append([]string{"-gcflags=all=-d=fmahash=n"}, cmd.Args[2:]...)...)
	case runtime.GOARCH == "amd64" && cpuHasV3(t):
		cmd.Env = append(cmd.Env, "GOAMD64=v3")
	default:
		t.Skipf("this machine (%s) cannot run a build that fuses multiply-adds to test against", runtime.GOARCH)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}
	h, logs = start(other)
	if got := h.FusesMultiplyAdd(); got != !host {
		t.Errorf("other build: FusesMultiplyAdd() = %v, want %v", got, !host)
	}
	if !strings.Contains(logs.String(), "level=WARN") || !strings.Contains(logs.String(), "fusing multiply-adds") {
		t.Errorf("other build, no warning in the log:\n%s", logs.String())
	}
	if err := h.Detect(context.Background(), sc.steps[1], &narrow.Result{}); err != nil {
		t.Errorf("a step through the other build: %v", err)
	}
}

// cpuHasV3 reports whether this CPU runs GOAMD64=v3 code (Linux only).
func cpuHasV3(t *testing.T) bool {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	flags := " " + string(info) + " "
	for _, f := range []string{"avx2", "fma", "bmi2"} {
		if !strings.Contains(flags, " "+f+" ") && !strings.Contains(flags, " "+f+"\n") {
			return false
		}
	}
	return true
}
