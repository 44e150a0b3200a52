package main

import (
	"context"
	"flag"
	"io"
	"os"
	"runtime/pprof"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/lsp"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "lsp",
		Effects:  cli.Effects{Reads: []string{"the files the editor opens"}, Writes: []string{"--cpuprofile FILE"}},
		Example:  cli.Example{Line: "caps lsp", Exit: 1, Note: "serves the language server on stdio until the client asks it to exit; with standard input closed at once it exits 1, as LSP prescribes for an exit without shutdown"},
		Negative: cli.Example{Line: "caps lsp extra", Exit: 2},
		Args:     "[--debounce DURATION] [--log FILE] [--cpuprofile FILE]",
		Short:    "serve the Capsulang language server on stdio",
		Long: `Lsp runs the Capsulang language server, speaking the Language Server
Protocol over stdin and stdout. Editors start it themselves; see
docs/editors.md. Logs go to stderr, or to FILE with --log; with --log
the log also has one line for every message read (<-) and written (->),
written as it happens, so a short session that ends abruptly still leaves
its trace. --cpuprofile writes a CPU profile of the whole session to
FILE when the server exits (for benchmarking: bench/lspbench -cpuprofile).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			debounce := fs.Duration("debounce", 0, "wait this long after an edit before publishing diagnostics")
			logFile := fs.String("log", "", "write the server log to `FILE` instead of stderr")
			cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the session to `FILE` when the server exits")
			return func(c *cli.Context, args []string) int {
				if len(args) > 0 {
					return c.UsageErrorf("unexpected argument %q", args[0])
				}
				var logw io.Writer = c.Stderr
				if *logFile != "" {
					f, err := os.OpenFile(*logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
					if err != nil {
						c.Errorf("%v", err)
						return cli.ExitUsage
					}
					defer f.Close()
					logw = f
				}
				if *cpuProfile != "" {
					f, err := os.Create(*cpuProfile)
					if err != nil {
						c.Errorf("%v", err)
						return cli.ExitUsage
					}
					if err := pprof.StartCPUProfile(f); err != nil {
						f.Close()
						c.Errorf("--cpuprofile: %v", err)
						return cli.ExitUsage
					}
					defer func() {
						pprof.StopCPUProfile()
						f.Close()
					}()
				}
				if os.Getenv("GOMEMLIMIT") == "" {
					// A soft limit keeps the heap near its live size while
					// edits allocate fast: 64 MiB, or twice the live heap
					// when that is more; GOMEMLIMIT overrides it. The
					// limit alone paces the collector unless GOGC is set
					// (docs/lsp.md "Memory").
					defer lsp.AdaptMemoryLimit(lspMemoryLimit, os.Getenv("GOGC") == "")()
				}
				return lsp.Serve(context.Background(), c.Stdin, c.Stdout, lsp.Options{Debounce: *debounce, Log: logw, LogMessages: *logFile != "", Version: version})
			}
		},
	})
}

// lspMemoryLimit is the language server's default soft memory limit.
const lspMemoryLimit = 64 << 20
