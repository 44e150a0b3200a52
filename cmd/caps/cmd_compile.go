package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/release"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/codegen"
	"github.com/capsulang/caps/codegen/lean"
	"github.com/capsulang/caps/codegen/mermaid"
	"github.com/capsulang/caps/internal/atomicdir"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "compile",
		Output:   func() cli.Schema { return report.ResultSchema(compileExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: []string{"--out PATH"}, Runs: []string{"lean (the lean target, when found)"}},
		Example:  cli.Example{Line: "caps compile --json --target wat examples/01_abs_i64.caps --out build/abs.wat"},
		Negative: cli.Example{Line: "caps compile --json --target wat examples/04_bad_missing_effect.caps --out build/bad.wat", Exit: 1},
		Also: []cli.Example{
			{Line: "caps compile --json --target wasm examples/01_abs_i64.caps --out build/abs.wasm"},
			{Line: "caps compile --json --target native-aarch64 examples/01_abs_i64.caps --out build/native-plan.json", Note: "a plan, not a binary"},
			{Line: "caps compile --json --target react examples/30_protocol_native_a2ui.caps --out build/repo-review-react"},
		},
		Args:  "--target T [--json] [--allow-text-fallback] FILE --out PATH",
		Short: "compile a checked module for a backend (wat, wasm, riscv64, solidity, lean, xstate, scxml, mermaid, react)",
		Long: `Compile checks FILE and compiles it for the target T, writing PATH ("-" for
stdout). The compiled backends take the module's pure scalar functions
(wat, wasm, riscv64); the machine backends take its machines (xstate,
scxml, mermaid); react takes its A2UI surfaces and writes a folder PATH
(see docs/protocols.md). caps compile-backends lists the targets and their
subsets.

Functions or machines outside the target's subset are skipped and listed
as notes on stderr with their place; caps compile-plan explains them. A
FILE with errors, or one with nothing the target can compile, exits with 1.
For scxml, a module with several machines writes one document per machine,
named PATH with the machine name before the extension.

--target native-aarch64 compiles nothing: it writes to PATH a JSON plan
(schema capsulang.native-plan.v1) of the route a native build would take
through the wasm target and an external ahead-of-time compiler, the
functions that would travel it and the machines that stay with the host.

The wasm target writes the binary itself, so it never needs wat2wasm and
never falls back to text; --allow-text-fallback is accepted for scripts
written for toolchains that do, and the JSON report then says
"text_fallback": false.

For lean, the output says whether a Lean toolchain checked it: without one
(lean on PATH, or LEAN) the file is marked UNCHECKED and a note says so.

With --json it prints {"ok", "files": [{"path", "diagnostics", "target",
"outputs": [{"path", "bytes"}], "compiled", "skipped", "unsupported"}]}
(with "planned" instead of compiled functions for native-aarch64; for
lean also "check": {"checked", "tool", "detail"}).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			target := fs.String("target", "", "the backend: "+strings.Join(codegen.Names(), ", "))
			out := fs.String("out", "", "the output file (\"-\" for stdout)")
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			fallback := fs.Bool("allow-text-fallback", false, "accepted with --target wasm; caps always writes binary wasm")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *target == "" {
					return c.UsageErrorf("--target is required (one of %s)", strings.Join(codegen.Names(), ", "))
				}
				if codegen.Lookup(*target) == nil {
					return c.UsageErrorf("unknown target %q; targets are %s", *target, strings.Join(codegen.Names(), ", "))
				}
				if *out == "" {
					return c.UsageErrorf("--out PATH is required (\"-\" writes to stdout)")
				}
				if *out == "-" && *jsonOut {
					return c.UsageErrorf("--json prints the report on stdout; give --out a file")
				}
				if *fallback && *target != "wasm" {
					return c.UsageErrorf("--allow-text-fallback applies to --target wasm only")
				}
				if *target == "native-aarch64" {
					return runNativePlan(c, args[0], *out, *jsonOut)
				}
				if codegen.Lookup(*target).Covers == "surfaces" && *out == "-" {
					return c.UsageErrorf("--target %s writes a folder; give --out DIR", *target)
				}
				return runCompile(c, args[0], *target, *out, *jsonOut, *fallback)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "compile-backends",
		Output:   func() cli.Schema { return cli.SchemaOf(compileBackendsJSON{}) },
		Effects:  cli.Effects{Reads: nil, Writes: nil},
		Example:  cli.Example{Line: "caps compile-backends --json"},
		Negative: cli.Example{Line: "caps compile-backends --json extra", Exit: 2},
		Args:     "[--json]",
		Short:    "list the compilation targets, their status and subsets",
		Long: `Compile-backends lists every compilation target: whether it is implemented,
what it covers (functions or machines), its supported subset and how its
native-aarch64) are listed as not implemented.

With --json it prints {"backends": [{"name", "status", "covers",
"extension", "summary", "subset", "validation"}]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 0 {
					return c.UsageErrorf("expected no arguments")
				}
				if *jsonOut {
					writeJSON(c, compileBackendsJSON{codegen.Backends})
					return cli.ExitOK
				}
				var b strings.Builder
				for _, be := range codegen.Backends {
					fmt.Fprintf(&b, "%-15s %-16s %-9s %s\n", be.Name, be.Status, be.Covers, be.Summary)
				}
				c.Stdout.Write([]byte(b.String()))
				return cli.ExitOK
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "compile-plan",
		Output:   func() cli.Schema { return report.ResultSchema(compilePlanExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps compile-plan --json --target all examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps compile-plan --json --target all examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] [--target T|all] FILE",
		Short:    "show, per target, what compiles and which features are unsupported where",
		Long: `Compile-plan checks FILE and reports, for each target (all by default),
whether it is implemented, which functions or machines it would compile,
which it would skip, and every unsupported feature with its place. It
changes nothing. A target is ready when it compiles something and skips
nothing. It exits with 1 only when FILE has errors.

With --json it prints {"ok", "files": [{"path", "diagnostics",
"semantic_hash", "targets": [{"target", "status", "ready", "compiled",
"skipped", "unsupported": [{"decl", "feature", "range"}], "note"}]}]}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			target := fs.String("target", "all", "a target, or all")
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *target != "all" && codegen.Lookup(*target) == nil {
					return c.UsageErrorf("unknown target %q; targets are all, %s", *target, strings.Join(codegen.Names(), ", "))
				}
				return runCompilePlan(c, args[0], *target, *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "release-preview",
		Output:   func() cli.Schema { return report.ResultSchema(previewExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps release-preview --json examples/01_abs_i64.caps"},
		Negative: cli.Example{Line: "caps release-preview --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "--json FILE",
		Short:    "summarize a module's release readiness: hash, check, examples, targets, verification",
		Long: `Release-preview checks FILE and prints what a release decision needs: the
semantic hash, the check status, the function examples evaluated by the
interpreter, the readiness of every compilation target, and the
verification status: the levels reached on the ladder V0 (parsed), V1
(checked), V2 (examples pass), V3 (proof obligations put to Z3, as caps
verify-report does; not run without z3), V4 (the obligations stated in
Lean: open while they end in sorry) and V5 (backend refinement, not
implemented), and, for the compiled functions, whether their examples
give the same results under wasm (run with wazero).

It prints {"ok", "files": [{"path", "diagnostics", "preview": {...}}]};
docs/cli.md describes the preview. It exits with 1 when FILE has errors or
an example fails.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout (required)")
			return func(c *cli.Context, args []string) int {
				if !*jsonOut {
					return c.UsageErrorf("release-preview prints JSON; pass --json")
				}
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runReleasePreview(c, args[0])
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "visualize",
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps visualize --kind machine examples/03_claim_review_machine.caps"},
		Negative: cli.Example{Line: "caps visualize --kind machine examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--kind machine|effects] [--machine NAME] FILE",
		Short:    "draw a module's machines as Mermaid diagrams",
		Long: `Visualize checks FILE and prints Mermaid text on stdout: with --kind machine
(the default) a stateDiagram-v2 for each machine, with --kind effects a
flowchart of each machine's effect graph (transitions, their effect
intents and the stores, agents, ports and surfaces they target).
--machine picks one machine. Editors render the output to draw machines.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			kind := fs.String("kind", "machine", "machine or effects")
			machine := fs.String("machine", "", "draw only this machine")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *kind != "machine" && *kind != "effects" {
					return c.UsageErrorf("--kind is machine or effects, not %q", *kind)
				}
				return runVisualize(c, args[0], *kind, *machine)
			}
		},
	})
}

// loadChecked loads FILE for a codegen command. It reports load failures
// and files with errors through p and returns nil for them.
// loadModule loads FILE for a command that needs a module without
// errors. A load error, a file that holds no module (exit 1, said on
// stderr) or one with errors (its diagnostics printed) is reported to p
// and gives nil; a module that checks is returned, not yet added to p.
func loadModule(c *cli.Context, p *report.Printer, path string) *load.Package {
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return nil
	}
	if pkg.File.Module == nil || pkg.Result.HasErrors() {
		p.Add(packageSource(path, pkg), pkg.Result.Diagnostics)
		if pkg.File.Module == nil {
			p.SetFailed()
			c.Errorf("%s: the file holds no module", cli.DisplayPath(path))
		}
		return nil
	}
	return pkg
}

func loadChecked(c *cli.Context, p *report.Printer, path string) (*load.Package, *report.File) {
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return nil, nil
	}
	f := p.Add(packageSource(path, pkg), pkg.Result.Diagnostics)
	if pkg.File.Module == nil {
		p.SetFailed()
		c.Errorf("%s: the file holds no module", cli.DisplayPath(path))
		return nil, f
	}
	if pkg.Result.HasErrors() {
		return nil, f
	}
	return pkg, f
}

type featureJSON struct {
	Decl    string        `json:"decl"`
	Feature string        `json:"feature"`
	Range   *syntax.Range `json:"range"`
}

type planJSONOut struct {
	Target      string        `json:"target"`
	Status      string        `json:"status"`
	Ready       bool          `json:"ready"`
	Compiled    []string      `json:"compiled"`
	Skipped     []string      `json:"skipped"`
	Unsupported []featureJSON `json:"unsupported"`
	Note        string        `json:"note,omitempty"`
}

func planOut(src *report.Source, pl *codegen.Plan) planJSONOut {
	o := planJSONOut{Target: pl.Target, Status: pl.Status, Ready: pl.Ready, Compiled: pl.Compiled, Skipped: pl.Skipped, Unsupported: []featureJSON{}, Note: pl.Note}
	for _, f := range pl.Unsupported {
		o.Unsupported = append(o.Unsupported, featureJSON{Decl: f.Decl, Feature: f.Feature, Range: lspRange(src, f.Span)})
	}
	return o
}

// unsupportedNotes turns a plan's unsupported features into info
// diagnostics for the text report.
func unsupportedNotes(pl *codegen.Plan) []syntax.Diagnostic {
	var ds []syntax.Diagnostic
	for _, f := range pl.Unsupported {
		ds = append(ds, syntax.Diagnostic{Severity: syntax.Info, Span: f.Span,
			Message: syntax.Messagef("%s: %s skipped: unsupported %s", pl.Target, f.Decl, f.Feature)})
	}
	return ds
}

func runCompile(c *cli.Context, path, target, out string, jsonOut, fallback bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	src := packageSource(path, pkg)
	res, err := codegen.Compile(pkg.Result, target)
	if err != nil {
		c.Errorf("%s: %v", cli.DisplayPath(path), err)
		p.SetFailed()
		if pl, perr := codegen.PlanFor(pkg.Result, target); perr == nil {
			if !jsonOut {
				p.Add(src, unsupportedNotes(pl))
				return p.Finish()
			}
			f.Extra = compileExtra{Target: target, Outputs: []outputJSON{}, Compiled: pl.Compiled, Skipped: pl.Skipped, Unsupported: planOut(src, pl).Unsupported}
		}
		return p.Finish()
	}
	var outputs []outputJSON
	if codegen.Lookup(target).Covers == "surfaces" {
		n, err := writeFolder(out, res.Artifacts)
		if err != nil {
			c.Errorf("%v", err)
			p.SetError()
			return p.Finish()
		}
		outputs = append(outputs, outputJSON{Path: out, Bytes: n})
		res.Artifacts = nil
	}
	for _, a := range res.Artifacts {
		dest := out
		if a.Name != "" && out != "-" {
			ext := filepath.Ext(out)
			dest = strings.TrimSuffix(out, ext) + "." + a.Name + ext
		}
		if dest == "-" {
			c.Stdout.Write(a.Data)
		} else {
			if dir := filepath.Dir(dest); dir != "" {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					c.Errorf("%v", err)
					p.SetError()
					return p.Finish()
				}
			}
			if err := os.WriteFile(dest, a.Data, 0o644); err != nil {
				c.Errorf("%v", err)
				p.SetError()
				return p.Finish()
			}
		}
		outputs = append(outputs, outputJSON{Path: dest, Bytes: len(a.Data)})
	}
	pl := res.Plan
	if jsonOut {
		ce := compileExtra{Target: target, Outputs: outputs, Compiled: pl.Compiled, Skipped: pl.Skipped, Unsupported: planOut(src, pl).Unsupported, Check: res.Check}
		if fallback {
			ce.TextFallback = new(bool) // the binary was written: no fallback
		}
		f.Extra = ce
		return p.Finish()
	}
	p.Add(src, unsupportedNotes(pl))
	if res.Check != nil {
		fmt.Fprintf(c.Stderr, "%s: %s: %s\n", cli.Program, target, res.Check.Detail)
	}
	for _, o := range outputs {
		if o.Path != "-" {
			fmt.Fprintf(c.Stderr, "%s: wrote %s (%d bytes; %d compiled, %d skipped)\n", cli.Program, o.Path, o.Bytes, len(pl.Compiled), len(pl.Skipped))
		}
	}
	return p.Finish()
}

// writeFolder writes the artifacts of a folder target into dir, each at
// its path: first into a fresh folder beside dir, then renamed into place,
// so that an error leaves dir as it was and no half-written folder. An
// existing dir is replaced only if it is a folder that an earlier
// compilation wrote (it holds manifest.json). It returns the bytes written.
func writeFolder(dir string, arts []codegen.Artifact) (int, error) {
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err == nil {
		if !st.IsDir() {
			return 0, fmt.Errorf("--out %s is a file; give a folder", dir)
		}
		entries, _ := os.ReadDir(dir)
		if _, err := os.Stat(filepath.Join(dir, "manifest.json")); len(entries) > 0 && err != nil {
			return 0, fmt.Errorf("--out %s is a folder that caps did not write (no manifest.json); give a new or empty folder", dir)
		}
	}
	files := make(map[string][]byte, len(arts))
	for _, a := range arts {
		files[a.Name] = a.Data
	}
	return atomicdir.Write(dir, files)
}

type outputJSON struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
}

type compileExtra struct {
	Target      string        `json:"target"`
	Outputs     []outputJSON  `json:"outputs"`
	Compiled    []string      `json:"compiled"`
	Planned     []string      `json:"planned,omitempty"`
	Skipped     []string      `json:"skipped"`
	Unsupported []featureJSON `json:"unsupported"`
	// Check is lean's: {"checked", "tool", "detail"}.
	Check *lean.Status `json:"check,omitempty"`
	// TextFallback is false when --allow-text-fallback was given (the
	// wasm target never falls back).
	TextFallback *bool `json:"text_fallback,omitempty"`
}

// runNativePlan writes the native-aarch64 plan of FILE to out.
func runNativePlan(c *cli.Context, path, out string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	src := packageSource(path, pkg)
	np := codegen.PlanNative(pkg.Result, pkg.Hash)
	data, err := json.MarshalIndent(np, "", "  ")
	if err != nil {
		c.Errorf("%v", err)
		p.SetError()
		return p.Finish()
	}
	data = append(data, '\n')
	if out == "-" {
		c.Stdout.Write(data)
	} else if err := writeFileAtomic(out, data); err != nil {
		c.Errorf("%v", err)
		p.SetError()
		return p.Finish()
	}
	wp, _ := codegen.PlanFor(pkg.Result, "wasm")
	if jsonOut {
		f.Extra = compileExtra{Target: "native-aarch64", Outputs: []outputJSON{{Path: out, Bytes: len(data)}}, Compiled: []string{},
			Planned: np.Functions, Skipped: np.Skipped, Unsupported: planOut(src, wp).Unsupported}
		return p.Finish()
	}
	if out != "-" {
		fmt.Fprintf(c.Stderr, "%s: wrote %s: a plan, not native code (%d %s would go through wasm and an external AOT compiler)\n", cli.Program, out, len(np.Functions), pluralWord(len(np.Functions), "function", "functions"))
	}
	return p.Finish()
}

// writeFileAtomic writes data to path through a temporary file in the same
// folder, creating the folder, so that a reader never sees half a file.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

func runCompilePlan(c *cli.Context, path, target string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	src := packageSource(path, pkg)
	targets := codegen.Names()
	if target != "all" {
		targets = []string{target}
	}
	var plans []planJSONOut
	var b strings.Builder
	for _, t := range targets {
		pl, err := codegen.PlanFor(pkg.Result, t)
		if err != nil {
			c.Errorf("%v", err)
			return cli.ExitUsage
		}
		plans = append(plans, planOut(src, pl))
		state := "ready"
		switch {
		case pl.Status != codegen.Implemented:
			state = "not implemented"
		case len(pl.Compiled) == 0:
			state = "nothing to compile"
		case !pl.Ready:
			state = "partial"
		}
		fmt.Fprintf(&b, "%s: %s", t, state)
		if pl.Status == codegen.Implemented {
			fmt.Fprintf(&b, " (%d compiled, %d skipped)", len(pl.Compiled), len(pl.Skipped))
		}
		if pl.Note != "" {
			fmt.Fprintf(&b, "; %s", pl.Note)
		}
		b.WriteString("\n")
		for _, fe := range pl.Unsupported {
			fmt.Fprintf(&b, "  %s: %s: unsupported %s\n", position(src, fe.Span), fe.Decl, fe.Feature)
		}
	}
	if jsonOut {
		f.Extra = compilePlanExtra{pkg.Hash, plans}
		return p.Finish()
	}
	c.Stdout.Write([]byte(b.String()))
	return p.Finish()
}

// runReleasePreview prints the release preview of FILE (analysis/release)
// with its diagnostics.
func runReleasePreview(c *cli.Context, path string) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, true)
	pkg, err := newLoader(c).Load(path)
	if err != nil {
		p.Fail(path, err)
		return p.Finish()
	}
	res := release.Of(pkg, cli.DisplayPath(path))
	f := p.Add(packageSource(path, pkg), res.Diagnostics)
	if res.ExamplesFailed {
		p.SetFailed()
	}
	f.Extra = previewExtra{res.Preview}
	return p.Finish()
}

func runVisualize(c *cli.Context, path, kind, machine string) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, false)
	pkg, _ := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	var out string
	var err error
	if kind == "machine" {
		out, err = mermaid.StateDiagrams(pkg.Result, machine)
	} else {
		out, err = mermaid.EffectGraphs(pkg.Result, machine)
	}
	if err != nil {
		c.Errorf("%s: %v", cli.DisplayPath(path), err)
		p.SetFailed()
		return p.Finish()
	}
	c.Stdout.Write([]byte(out))
	return p.Finish()
}

// compileBackendsJSON is the JSON output of this command (see its Output schema).
type compileBackendsJSON struct {
	Backends []*codegen.Backend `json:"backends"`
}

// compilePlanExtra is the JSON output of this command (see its Output schema).
type compilePlanExtra struct {
	Hash    string        `json:"semantic_hash"`
	Targets []planJSONOut `json:"targets"`
}

// previewExtra is the JSON output of this command (see its Output schema).
type previewExtra struct {
	Preview release.Preview `json:"preview"`
}
