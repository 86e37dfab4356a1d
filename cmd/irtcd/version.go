package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/irtcd/irtcd/narrow"
)

const versionDoc = `usage: irtcd version

Prints what decides whether two machines compute the same contacts bit
for bit: the module's version and commit, the Go toolchain, the target
(GOOS/GOARCH and its instruction-set level), the compiler flags the binary
was built with, and whether this build fuses multiply-adds
(narrow.FusesMultiplyAdd). Peers of a lockstep or rollback game need
builds that do not fuse on every machine; build them with

  GSHS_LOGFILE=/dev/null go build -gcflags=all=-d=fmahash=n ./cmd/irtcd

(docs/DESIGN.md, "Determinism across machines").
`

// runVersion prints the build's description, one "key: value" line each.
func runVersion(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := parseFlags(fs, args, stderr, func() string { return versionDoc }); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "irtcd version: %s\n", oneLine(err.Error()))
		}
		return exitUsage
	}
	module, commit, level, gcflags := "(unknown)", "(unknown)", "", "(none)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		module = bi.Main.Path + " " + bi.Main.Version
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					commit += " (modified)"
				}
			case "GOAMD64", "GOARM64", "GOARM", "GO386", "GOPPC64", "GORISCV64":
				level = " " + s.Key + "=" + s.Value
			case "-gcflags":
				gcflags = s.Value
			}
		}
	}
	_, err := fmt.Fprintf(stdout, "module: %s\ncommit: %s\ngo: %s\ntarget: %s/%s%s\ngcflags: %s\nfuses multiply-adds: %v\n",
		module, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH, level, gcflags, narrow.FusesMultiplyAdd())
	if err != nil {
		fmt.Fprintf(stderr, "irtcd version: %v\n", err)
		return exitFail
	}
	return exitOK
}
