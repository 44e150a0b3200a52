package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/syntax/format"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "fmt",
		Output:   func() cli.Schema { return report.ResultSchema(fmtResult{}) },
		Effects:  cli.Effects{Reads: []string{"FILE or the .caps files under DIR (\"-\": stdin)"}, Writes: []string{"FILE (with --write)"}},
		Example:  cli.Example{Line: "caps fmt --check --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps fmt --check --json examples/no_such_file.caps", Exit: 2},
		Args:     "[--check | --write] [--json] FILE|DIR...",
		Short:    "format Capsulang source files",
		Long: `Fmt lays out Capsulang source in the one canonical style (see package
syntax/format). A DIR argument stands for the *.caps files under it.

With neither flag, fmt prints the formatted text of its one FILE ("-" for
stdin) on stdout. --check prints the paths of the files that are not
formatted and exits with 1 if there are any; --write (-w) rewrites them in
place, atomically and keeping each file's mode. A UTF-8 byte order mark is
kept.

A file with syntax errors is never formatted: its diagnostics are printed
and fmt exits with 1.

With --json it prints {"ok", "files": [{"path", "diagnostics", "changed"}]}
where "changed" says whether formatting changes the file; without --check
or --write each file also has "formatted", the formatted text.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			check := fs.Bool("check", false, "list the files that are not formatted; exit 1 if any")
			write := fs.Bool("write", false, "rewrite the files in place")
			fs.BoolVar(write, "w", false, "")
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				return runFmt(c, args, *check, *write, *jsonOut)
			}
		},
	})
}

func runFmt(c *cli.Context, args []string, check, write, jsonOut bool) int {
	if len(args) == 0 {
		return c.UsageErrorf("expected FILE or DIR arguments (use - for stdin)")
	}
	if check && write {
		return c.UsageErrorf("--check and --write cannot be combined")
	}
	paths, errs := cli.ExpandPaths(args)
	printMode := !check && !write
	if printMode && (len(paths) != 1 || len(errs) > 0 || len(args) != 1 || paths[0] != args[0]) {
		return c.UsageErrorf("formatting several files, or a directory, needs --check or --write")
	}
	for _, p := range paths {
		if write && p == cli.StdinPath {
			return c.UsageErrorf("--write cannot rewrite stdin")
		}
	}

	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	for _, err := range errs {
		p.Fail(err.Path, err)
	}
	for _, path := range paths {
		f, err := c.Load(path)
		if err != nil {
			p.Fail(path, err)
			continue
		}
		out, err := format.Source(f.Text)
		var se *format.SyntaxError
		if errors.As(err, &se) {
			file := p.Add(&report.Source{Path: path, Text: f.Text}, se.Diagnostics)
			if len(se.Diagnostics) == 0 { // refused without saying why: still a failure
				p.SetFailed()
			}
			file.Extra = fmtResult{}
			continue
		}
		if err != nil {
			p.Fail(path, fmt.Errorf("%s: %v (please report)", cli.DisplayPath(path), err))
			continue
		}
		changed := !bytes.Equal(out, f.Text)
		if f.BOM {
			out = append([]byte("\xEF\xBB\xBF"), out...)
		}
		res := fmtResult{Changed: changed}
		switch {
		case printMode:
			if jsonOut {
				s := string(out)
				res.Formatted = &s
			} else {
				c.Stdout.Write(out)
			}
		case check:
			if changed {
				p.SetFailed()
				if !jsonOut {
					fmt.Fprintln(c.Stdout, cli.DisplayPath(path))
				}
			}
		case write:
			if changed {
				if err := cli.WriteFileAtomic(path, out, f.Mode); err != nil {
					p.Fail(path, err)
					continue
				}
			}
		}
		p.Add(&report.Source{Path: path, Text: f.Text}, nil).Extra = res
	}
	return p.Finish()
}

type fmtResult struct {
	Changed   bool    `json:"changed"`
	Formatted *string `json:"formatted,omitempty"`
}
