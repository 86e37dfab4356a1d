// Command irtcd is the command-line front end of the irtcd narrow phase.
//
// Usage:
//
//	irtcd <command> [flags]
//
// Commands:
//
//	demo       run a 2D box2d scene with irtcd as its narrow phase; write a GIF and a PNG
//	demo3d     run a 3D rigid-body scene (sim/rigid) on irtcd; write a GIF and a PNG
//	contacts   contact points between two meshes (OBJ, STL, PLY, glTF), or for a file of cases
//	cast       where a mesh moved by a translation first touches another
//	mesh       check meshes (OBJ, STL, PLY, glTF) as irtcd reads them and print their properties
//	bench      run the papers' experiments and write docs/RESULTS.md
//	version    describe the build (what decides whether two machines agree bit for bit)
//	help       print the list of commands (help CMD: that command's flags)
//
// Run "irtcd CMD -h" for the flags of one command. Every command writes its
// results to standard output and its diagnostics, one line each, to standard
// error. Exit status: 0 on success, 2 for bad input (flags, files, poses,
// case lines) and for the usage messages, 1 when the results could not be
// written or the library failed unexpectedly.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // output could not be written, or an unexpected library failure
	exitUsage = 2 // bad input of any kind, and the usage messages
)

// command is one subcommand. run receives the arguments that follow the
// subcommand's name.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order usage shows them. A new
// subcommand (demo, bench, ...) is one more entry here.
var commands = []command{
	{name: "contacts", summary: "contact points between two meshes (OBJ, STL, PLY, glTF), or for a file of cases", run: runContacts},
	{name: "cast", summary: "where a mesh moved by a translation first touches another: fraction, point, normal", run: runCast},
	{name: "distance", summary: "how far apart two meshes are, and their closest points", run: runDistance},
	{name: "mesh", summary: "check meshes (OBJ, STL, PLY, glTF) as irtcd reads them and print their properties", run: runMesh},
	{name: "demo", summary: "simulate a 2D box2d scene through irtcd and write an animated GIF", run: runDemo},
	{name: "demo3d", summary: "simulate a 3D rigid-body scene (sim/rigid) through irtcd and write an animated GIF", run: runDemo3D},
	{name: "bench", summary: "run the papers' experiments and write docs/RESULTS.md with their numbers next to ours", run: runBench},
	{name: "version", summary: "the build: version, Go, target, compiler flags, whether it fuses multiply-adds", run: runVersion},
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches on args[0], the subcommand name (args excludes the program
// name, as os.Args[1:] does), and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				return c.run([]string{"-h"}, stdin, stdout, stderr)
			}
			fmt.Fprintf(stderr, "irtcd help: unknown command %q\n", args[1])
		}
		usage(stderr)
		return exitUsage
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "irtcd: unknown command %q\n", name)
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdin, stdout, stderr)
}

// lookup returns the subcommand called name, or nil.
func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// usage prints the list of subcommands.
func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("usage: irtcd <command> [flags]\n\ncommands:\n")
	width := len("help")
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(&b, "  %-*s  %s\n", width, "help", "print this message (help CMD: the flags of CMD)")
	b.WriteString("\nRun 'irtcd CMD -h' for the flags of a command.\n")
	io.WriteString(w, b.String())
}

// failer returns a subcommand's way to fail: it writes "irtcd NAME: " and
// the message, on one line, to stderr and returns code, the exit status.
func failer(stderr io.Writer, name string) func(code int, format string, a ...any) int {
	return func(code int, format string, a ...any) int {
		fmt.Fprintf(stderr, "irtcd %s: %s\n", name, oneLine(fmt.Sprintf(format, a...)))
		return code
	}
}

// parseFlags parses a subcommand's arguments into fs, whose name is the
// subcommand's. On -h or -help it writes help() (the text before the
// flags) and the flags' defaults to stderr and returns flag.ErrHelp; a
// bad flag, or an argument left over, gives an error that names the way
// to the subcommand's help.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer, help func() string) error {
	hint := fmt.Sprintf("(run 'irtcd %s -h' for usage)", fs.Name())
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stderr, help())
			fs.SetOutput(stderr)
			fs.PrintDefaults()
			return flag.ErrHelp
		}
		return fmt.Errorf("%w %s", err, hint)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q %s", fs.Arg(0), hint)
	}
	return nil
}
