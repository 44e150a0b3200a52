package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/capsulang/caps/analysis/verify"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/internal/atomicdir"
	"github.com/capsulang/caps/internal/toolpath"
	"github.com/capsulang/caps/syntax"
)

// The files emit-lean-obligations writes into its folder.
const (
	leanObligationsFile = "Obligations.lean"
	leanManifestFile    = "obligations.json"
)

func init() {
	cli.Register(&cli.Command{
		Name: "emit-lean-obligations",
		Output: func() cli.Schema {
			return report.ResultSchema(emitLeanJSON{})
		},
		Effects:  cli.Effects{Reads: []string{"FILE", "CAPS_PATH"}, Writes: []string{"--out DIR"}},
		Example:  cli.Example{Line: "caps emit-lean-obligations --json --out build/lean examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps emit-lean-obligations --json examples/01_abs_i64.caps", Exit: 2, Note: "--out DIR is required"},
		Args:     "[--json] --out DIR FILE",
		Short:    "write a module's proof obligations as Lean 4 theorems",
		Long: `Emit-lean-obligations checks FILE and states its proof obligations (the
ones caps verify-report puts to Z3, with the same ids) in Lean 4, in the
folder DIR:

  Obligations.lean   the definitions caps compile --target lean writes,
                     then, per function, its requires, body and ensures
                     as separate definitions and one theorem per
                     obligation, each proved by sorry
  obligations.json   every obligation: id, kind, source range, claim, and
                     its theorem, or why it is not stated

Each theorem's comment holds the obligation id, its source range and the
claim. Ensures, no-failure and example obligations of functions in the
Lean target's subset are stated; machine guards and assignments, zk-proof
claims and functions outside the subset are listed as not stated, with
the reason. A stated theorem is an obligation, not a proof: caps
verify-lean reports it open while it ends in sorry.

DIR is written whole or not at all (a temporary folder beside it, then a
rename); an existing DIR is replaced only when it holds nothing but these
two files. --json prints one JSON document (docs/cli.md). Exit 1 when
FILE has errors, 2 on a usage or I/O error.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			out := fs.String("out", "", "write the files into the folder `DIR`")
			jsonOut := fs.Bool("json", false, "print a JSON document on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *out == "" {
					return c.UsageErrorf("--out DIR is required")
				}
				return runEmitLeanObligations(c, args[0], *out, *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name: "verify-lean",
		Output: func() cli.Schema {
			return report.ResultSchema(verifyLeanJSON{})
		},
		Effects:  cli.Effects{Reads: []string{"FILE or DIR", "LEAN, LAKE, PATH"}, Runs: []string{"lean", "lake"}},
		Example:  cli.Example{Line: "caps verify-lean --json examples/01_abs_i64.caps", Exit: 2, Note: "unchecked where no Lean toolchain is installed, as on the CI machines: nothing was checked"},
		Negative: cli.Example{Line: "caps verify-lean --json nosuch.lean", Exit: 2, Note: "no such file"},
		Args:     "[--json] [FILE|DIR]",
		Short:    "check Lean proof files with a Lean toolchain, if one is installed",
		Long: `Verify-lean checks Lean 4 proofs: FILE.lean, every .lean file of the
folder DIR (by default the current folder, for instance one written by
caps emit-lean-obligations), or, for a Capsulang FILE, the obligations
that caps emit-lean-obligations would write for it.

It looks for a Lean toolchain (the program LEAN names, else lean on PATH;
with a lakefile in the folder, lake from LAKE or PATH) and says plainly
whether it found one. It also lists every proof marker left in the files
(sorry, admit, axiom), which Lean itself accepts.

The verdict is one of:

  verified   Lean accepted every file and none holds a proof marker
  open       Lean accepted every file, but proof markers remain
  rejected   Lean rejected a file
  unchecked  no Lean toolchain was found: nothing was checked

It never reports verified without a toolchain. Exit 0 only when
verified, 1 when open or rejected (or a Capsulang FILE has errors), 2
when unchecked or on a usage or I/O error. --json prints one JSON
document (docs/cli.md).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print a JSON document on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) > 1 {
					return c.UsageErrorf("expected at most one FILE or DIR")
				}
				target := "."
				if len(args) == 1 {
					target = args[0]
				}
				return runVerifyLean(c, target, *jsonOut)
			}
		},
	})
}

// ---- emit-lean-obligations

type leanManifest struct {
	Module      string             `json:"module"`
	Source      string             `json:"source"`
	LeanFile    string             `json:"lean_file"`
	Stated      int                `json:"stated"`
	NotStated   int                `json:"not_stated"`
	Obligations []verify.LeanEntry `json:"obligations"`
}

type emitLeanJSON struct {
	Out string `json:"out"`
	leanManifest
}

func runEmitLeanObligations(c *cli.Context, path, out string, asJSON bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, asJSON)
	pkg := loadModule(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	src := packageSource(path, pkg)
	lf, err := verify.EmitLean(pkg.Result, cli.DisplayPath(path))
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	man := leanManifest{Module: lf.Module, Source: cli.DisplayPath(path), LeanFile: leanObligationsFile, Obligations: lf.Entries}
	if man.Obligations == nil {
		man.Obligations = []verify.LeanEntry{}
	}
	for _, e := range lf.Entries {
		if e.Theorem != "" {
			man.Stated++
		} else {
			man.NotStated++
		}
	}
	manJSON, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	if err := writeLeanFolder(out, map[string][]byte{leanObligationsFile: []byte(lf.Source), leanManifestFile: append(manJSON, '\n')}); err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	f := p.Add(src, pkg.Result.Diagnostics)
	f.Extra = emitLeanJSON{Out: cli.DisplayPath(out), leanManifest: man}
	if !asJSON {
		fmt.Fprintf(c.Stdout, "%s: module %s: %d obligation%s: %d stated in %s (each ends in sorry: an obligation, not a proof), %d not stated\n",
			cli.DisplayPath(path), lf.Module, len(lf.Entries), plural(len(lf.Entries)), man.Stated, filepath.ToSlash(filepath.Join(out, leanObligationsFile)), man.NotStated)
		text := src.Mapper().Cursor(syntax.UTF32)
		for _, e := range lf.Entries {
			if e.Theorem != "" {
				continue
			}
			fmt.Fprintf(c.Stdout, "%s:%s: not stated %s: %s\n", cli.DisplayPath(path), text.Point(e.Span().Start), e.ID, e.Reason)
		}
	}
	return p.Finish()
}

// writeLeanFolder writes files into a new folder beside dir, then renames it
// to dir, so that dir holds either all the files or its old contents. An
// existing dir is replaced only when it holds nothing but files of the
// same names.
func writeLeanFolder(dir string, files map[string][]byte) error {
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return fmt.Errorf("%s exists and is not a folder; choose another --out", dir)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if _, ours := files[e.Name()]; !ours {
				return fmt.Errorf("%s holds %s, which caps did not write; choose another --out or remove the folder", dir, e.Name())
			}
		}
	}
	_, err := atomicdir.Write(dir, files)
	return err
}

// ---- verify-lean

// leanMarker is a proof marker left in a Lean file.
type leanMarker struct {
	Marker string `json:"marker"`
	Line   int    `json:"line"` // 1-based
}

type leanFileJSON struct {
	File    string       `json:"file"`
	Status  string       `json:"status"` // accepted, rejected, unchecked
	Markers []leanMarker `json:"markers"`
	Output  string       `json:"output,omitempty"`
}

type verifyLeanJSON struct {
	Verdict   string         `json:"verdict"` // verified, open, rejected, unchecked
	Toolchain string         `json:"toolchain"`
	Detail    string         `json:"detail"`
	Files     []leanFileJSON `json:"lean_files"`
}

// leanFiles lists the .lean files of target: itself, or those of a
// folder.
func leanFiles(target string) ([]string, error) {
	st, err := os.Stat(target)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{target}, nil
	}
	matches, err := filepath.Glob(filepath.Join(target, "*.lean"))
	if err != nil {
		return nil, err
	}
	sort.Strings(matches)
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s holds no .lean file; give a .lean FILE, a folder written by caps emit-lean-obligations, or a Capsulang FILE", target)
	}
	return matches, nil
}

func runVerifyLean(c *cli.Context, target string, asJSON bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, asJSON)
	given, shown, generated := target, cli.DisplayPath(target), false
	// A Capsulang file: its obligations, written to a temporary folder.
	if strings.HasSuffix(target, ".caps") || target == "-" {
		tmp, err := os.MkdirTemp("", "caps-verify-lean-")
		if err != nil {
			p.Fail(target, err)
			return p.Finish()
		}
		defer os.RemoveAll(tmp)
		var sink bytes.Buffer
		sub := *c
		sub.Stdout = &sink
		if code := runEmitLeanObligations(&sub, target, filepath.Join(tmp, "out"), asJSON); code != 0 {
			c.Stdout.Write(sink.Bytes()) // its JSON document; text errors are on stderr
			return code
		}
		shown = shown + " (its obligations, as caps emit-lean-obligations states them)"
		target, generated = filepath.Join(tmp, "out"), true
	}
	files, err := leanFiles(target)
	if err != nil {
		p.Fail(target, err)
		return p.Finish()
	}
	res := verifyLeanJSON{Toolchain: toolpath.Look("LEAN", "lean")}
	markers := 0
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			p.Fail(f, err)
			return p.Finish()
		}
		lf := leanFileJSON{File: f, Status: "unchecked", Markers: proofMarkers(text)}
		if generated {
			lf.File = filepath.Base(f) // a temporary folder's
		}
		markers += len(lf.Markers)
		res.Files = append(res.Files, lf)
	}
	if res.Toolchain == "" {
		res.Verdict = "unchecked"
		res.Detail = "no Lean toolchain was found (lean is not on PATH and LEAN is not set): nothing was checked"
	} else {
		rejected := 0
		for i, f := range files {
			ok, out := runLean(res.Toolchain, f)
			res.Files[i].Output = out
			if ok {
				res.Files[i].Status = "accepted"
			} else {
				res.Files[i].Status = "rejected"
				rejected++
			}
		}
		switch {
		case rejected > 0:
			res.Verdict = "rejected"
			res.Detail = fmt.Sprintf("Lean rejected %d of %d file%s", rejected, len(files), plural(len(files)))
		case markers > 0:
			res.Verdict = "open"
			res.Detail = fmt.Sprintf("Lean accepted every file, but %d proof marker%s (sorry, admit, axiom) remain: these are obligations, not proofs", markers, plural(markers))
		default:
			res.Verdict = "verified"
			res.Detail = "Lean accepted every file and none holds a proof marker"
		}
	}
	f := p.Add(&report.Source{Path: given}, nil)
	f.Extra = res
	switch res.Verdict {
	case "unchecked":
		p.SetError()
	case "open", "rejected":
		p.SetFailed()
	}
	if !asJSON {
		tool := res.Toolchain
		if tool == "" {
			tool = "none"
		}
		fmt.Fprintf(c.Stdout, "%s: %s: %s\n", shown, res.Verdict, res.Detail)
		fmt.Fprintf(c.Stdout, "Lean toolchain: %s\n", tool)
		for _, lf := range res.Files {
			fmt.Fprintf(c.Stdout, "  %s: %s, %d proof marker%s", lf.File, lf.Status, len(lf.Markers), plural(len(lf.Markers)))
			if n := len(lf.Markers); n > 0 {
				var at []string
				for _, m := range lf.Markers[:min(n, 5)] {
					at = append(at, fmt.Sprintf("%s at line %d", m.Marker, m.Line))
				}
				if n > 5 {
					at = append(at, "...")
				}
				fmt.Fprintf(c.Stdout, " (%s)", strings.Join(at, ", "))
			}
			fmt.Fprintln(c.Stdout)
			if lf.Status == "rejected" && lf.Output != "" {
				fmt.Fprintf(c.Stdout, "    %s\n", strings.ReplaceAll(strings.TrimSpace(lf.Output), "\n", "\n    "))
			}
		}
		if res.Verdict == "unchecked" {
			fmt.Fprintln(c.Stdout, "install Lean 4 (https://lean-lang.org, elan) or set LEAN to the lean program, then run caps verify-lean again")
		}
	}
	return p.Finish()
}

// runLean runs Lean on a file: lake env lean FILE in a folder with a
// lakefile (when lake is found), else lean FILE.
func runLean(lean, file string) (bool, string) {
	dir := filepath.Dir(file)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, lean, filepath.Base(file))
	for _, lf := range []string{"lakefile.lean", "lakefile.toml"} {
		if _, err := os.Stat(filepath.Join(dir, lf)); err == nil {
			if lake := toolpath.Look("LAKE", "lake"); lake != "" {
				cmd = exec.CommandContext(ctx, lake, "env", lean, filepath.Base(file))
			}
			break
		}
	}
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return false, "lean ran out of time (10 minutes)"
	}
	return err == nil, strings.TrimSpace(out.String())
}

// proofMarkers finds sorry, admit and axiom outside comments and
// strings, with their 1-based lines.
func proofMarkers(src []byte) []leanMarker {
	out := []leanMarker{}
	line, depth := 1, 0
	isIdent := func(b byte) bool {
		return b == '_' || b == '\'' || b == '.' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b >= 0x80
	}
	for i := 0; i < len(src); i++ {
		ch := src[i]
		if ch == '\n' {
			line++
			continue
		}
		if depth > 0 {
			switch {
			case ch == '/' && i+1 < len(src) && src[i+1] == '-':
				depth++
				i++
			case ch == '-' && i+1 < len(src) && src[i+1] == '/':
				depth--
				i++
			}
			continue
		}
		switch {
		case ch == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
			continue
		case ch == '/' && i+1 < len(src) && src[i+1] == '-':
			depth = 1
			i++
			continue
		case ch == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				} else if src[i] == '\n' {
					line++
				}
			}
			continue
		}
		if isIdent(ch) && (i == 0 || !isIdent(src[i-1])) {
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			switch word := string(src[i:j]); word {
			case "sorry", "admit", "axiom", "sorryAx":
				out = append(out, leanMarker{Marker: word, Line: line})
			}
			i = j - 1
		}
	}
	return out
}
