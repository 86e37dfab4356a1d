package plugin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// pluginBin is the irtcd-plugin binary built for the tests, and faultFile
// the file its test-only fault injection watches (see
// cmd/irtcd-plugin/fault.go): a test writes "hang" or "exit" to it to make
// the plugin's next Detect hang or die.
var pluginBin, faultFile string

// TestMain builds cmd/irtcd-plugin once, with the go command on PATH, into
// a temporary directory.
func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "irtcd-plugin-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	goCmd, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "plugin tests: the go command is needed on PATH to build cmd/irtcd-plugin:", err)
		return 1
	}
	pluginBin = filepath.Join(dir, "irtcd-plugin")
	build := exec.Command(goCmd, "build", "-o", pluginBin, "github.com/irtcd/irtcd/cmd/irtcd-plugin")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "plugin tests: go build ./cmd/irtcd-plugin:", err)
		return 1
	}
	faultFile = filepath.Join(dir, "fault")
	os.Setenv("IRTCD_PLUGIN_TEST_FAULT_FILE", faultFile)
	return m.Run()
}
