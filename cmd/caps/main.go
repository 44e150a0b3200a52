// Command caps is the Capsulang toolchain: one binary whose subcommands
// parse, format, check, test, run and replay machines, propose and commit
// evolutions, compile to the code generation targets, verify, and serve
// the language server (caps lsp). `caps help` lists them.
//
// Each subcommand lives in its own cmd_NAME.go file and registers itself
// with cli.Register from an init function; see docs/cli.md for the
// conventions every command follows.
package main

import (
	"io"
	"os"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

// version is the toolchain version, set at build time with
// -ldflags "-X main.version=1.2.3".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs one caps command line and returns its exit code; tests call it
// in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cli.Run(args, stdin, stdout, stderr)
}
