package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
	"github.com/capsulang/caps/codegen/noir"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "zk-plan",
		Output:   func() cli.Schema { return report.ResultSchema(zkPlanExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: nil},
		Example:  cli.Example{Line: "caps zk-plan --json examples/24_private_deployment_risk_proof.caps"},
		Negative: cli.Example{Line: "caps zk-plan --json examples/04_bad_missing_effect.caps", Exit: 1},
		Args:     "[--json] FILE",
		Short:    "list a module's zk-proofs: claim, inputs, backend, and whether each lowers to Noir",
		Long: `Zk-plan checks FILE and lists each zk-proof declaration: its backend, its
public and private inputs, its claim (the proves expression) and whether
it lowers to a Noir circuit, with every reason it does not at its place.
It changes nothing. Exit 1 only when FILE has errors.

With --json it adds "proofs": [{"name", "backend", "claim", "range",
"public": [{"name", "type", "noir_type"}], "private": [...],
"lowers_to_noir", "reasons": [{"message", "range"}]}] to the file object.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runZKPlan(c, args[0], *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "emit-noir",
		Output:   func() cli.Schema { return report.ResultSchema(emitNoirExtra{}) },
		Effects:  cli.Effects{Reads: []string{"FILE (\"-\": stdin)", "the modules FILE imports"}, Writes: []string{"--out-dir DIR"}},
		Example:  cli.Example{Line: "caps emit-noir --json examples/private_risk_proof.caps --proof DeploymentRiskProof --out-dir build/DeploymentRiskProof --inputs '{\"change_id\": 7, \"threshold\": 40, \"risk_model_hash\": \"0x1111111111111111111111111111111111111111111111111111111111111111\", \"risk_score\": 30, \"penalty\": 5}'"},
		Negative: cli.Example{Line: "caps emit-noir --json examples/private_risk_proof.caps --proof NoSuchProof --out-dir build/NoSuchProof", Exit: 1},
		Args:     "[--json] FILE --proof NAME --out-dir DIR [--inputs JSON]",
		Short:    "write a zk-proof as a Nargo project (Nargo.toml, src/main.nr, Prover.toml)",
		Long: `Emit-noir checks FILE and writes the zk-proof NAME as a Nargo project in
DIR: Nargo.toml, src/main.nr (main takes the public inputs as pub
parameters and the private ones, and asserts the claim), Prover.toml and
capsulang.json, which binds the project to the module's semantic hash.
--inputs gives the input values as a JSON object of names to values
(inline, a file, or - for stdin); without it Prover.toml lists the inputs
with empty values to fill in.

The project is written into a new folder and renamed to DIR at the end;
an existing DIR is replaced only if caps emit-noir wrote it. Exit 1 when
FILE has errors, the proof does not exist or does not lower (see caps
zk-plan), or the inputs are wrong.

With --json it adds "proof", "out_dir", "files" and "manifest" to the file
object.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			proof := fs.String("proof", "", "the zk-proof to emit")
			outDir := fs.String("out-dir", "", "the project folder to write")
			inputs := fs.String("inputs", "", "input values: a JSON object, a JSON file, or - for stdin")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *proof == "" {
					return c.UsageErrorf("--proof NAME is required (caps zk-plan FILE lists the proofs)")
				}
				if *outDir == "" {
					return c.UsageErrorf("--out-dir DIR is required")
				}
				return runEmitNoir(c, args[0], *proof, *outDir, *inputs, *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "noir-compile",
		Output:   func() cli.Schema { return cli.SchemaOf(noirCompileJSON{}) },
		Effects:  cli.Effects{Reads: []string{"DIR (a Nargo project)"}, Writes: []string{"DIR/target"}, Runs: []string{"node (noir_wasm)"}},
		Example:  cli.Example{Line: "caps noir-compile --json build/DeploymentRiskProof"},
		Negative: cli.Example{Line: "caps noir-compile --json build/no-such-project", Exit: 2},
		Args:     "[--json] DIR",
		Short:    "compile a Nargo project with the real Noir compiler (noir_wasm)",
		Long: `Noir-compile compiles the Nargo project in DIR (as caps emit-noir writes
it) with the pinned Noir compiler, @noir-lang/noir_wasm, run by node from
tools/noir (npm ci there first; CAPS_NOIR_TOOLS names another folder). It
writes the program artifact to DIR/target/PACKAGE.json.

Exit 1 when the compiler rejects the program, 2 when node or the
toolchain is missing. With --json it prints {"ok", "dir", "artifact",
"noir_version", "noir_wasm", "noir_js", "warnings", "error"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one DIR")
				}
				return runNoirCompile(c, args[0], *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "noir-execute",
		Output:   func() cli.Schema { return cli.SchemaOf(noirExecuteJSON{}) },
		Effects:  cli.Effects{Reads: []string{"DIR (a compiled Nargo project)", "--inputs JSON"}, Writes: nil, Runs: []string{"node (noir_js)"}},
		Example:  cli.Example{Line: "caps noir-execute --json build/DeploymentRiskProof"},
		Negative: cli.Example{Line: "caps noir-execute --json build/DeploymentRiskProof --inputs '{\"change_id\": 7, \"threshold\": 40, \"risk_model_hash\": \"0x1111111111111111111111111111111111111111111111111111111111111111\", \"risk_score\": 30, \"penalty\": 20}'", Exit: 1, Note: "the claim does not hold for these inputs"},
		Args:     "[--json] DIR [--inputs JSON]",
		Short:    "run a compiled circuit with the real ACVM (noir_js) and say whether its claim holds",
		Long: `Noir-execute runs the program caps noir-compile built in DIR with the
pinned ACVM (@noir-lang/noir_js) on the inputs: --inputs (a JSON object of
names to values, a JSON file, or - for stdin), else DIR/Prover.toml. The
execution solves the witness; it is satisfied when every assertion holds,
that is when the claim is true for these inputs.

Exit 0 when satisfied, 1 when not (the reason is printed), 2 when the
toolchain, the artifact or the inputs are missing or malformed. With
--json it prints {"ok", "dir", "proof", "inputs_from", "satisfied",
"witness_bytes", "error"}.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			inputs := fs.String("inputs", "", "input values: a JSON object, a JSON file, or - for stdin (default: DIR/Prover.toml)")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one DIR")
				}
				return runNoirExecute(c, args[0], *inputs, *jsonOut)
			}
		},
	})
}

type zkInputJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	NoirType string `json:"noir_type"`
}

type zkReasonJSON struct {
	Message string        `json:"message"`
	Range   *syntax.Range `json:"range"`
}

type zkProofJSON struct {
	Name    string         `json:"name"`
	Backend string         `json:"backend"`
	Claim   string         `json:"claim"`
	Range   *syntax.Range  `json:"range"`
	Public  []zkInputJSON  `json:"public"`
	Private []zkInputJSON  `json:"private"`
	Lowers  bool           `json:"lowers_to_noir"`
	Reasons []zkReasonJSON `json:"reasons"`
}

func zkInputs(ins []noir.Input) []zkInputJSON {
	out := []zkInputJSON{}
	for _, in := range ins {
		out = append(out, zkInputJSON{Name: in.Name, Type: in.Source, NoirType: noir.NoirType(in.Type)})
	}
	return out
}

func runZKPlan(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	src := packageSource(path, pkg)
	proofs := noir.Plan(pkg.Result)
	if jsonOut {
		out := []zkProofJSON{}
		for _, pr := range proofs {
			o := zkProofJSON{Name: pr.Name, Backend: pr.Backend, Claim: pr.ClaimText, Range: lspRange(src, pr.Decl.Form.Span()),
				Public: zkInputs(pr.Public), Private: zkInputs(pr.Private), Lowers: pr.Lowers, Reasons: []zkReasonJSON{}}
			for _, r := range pr.Reasons {
				o.Reasons = append(o.Reasons, zkReasonJSON{Message: r.Message, Range: lspRange(src, r.Span)})
			}
			out = append(out, o)
		}
		f.Extra = zkPlanExtra{out}
		return p.Finish()
	}
	var b strings.Builder
	if len(proofs) == 0 {
		b.WriteString("no zk-proof declarations\n")
	}
	for _, pr := range proofs {
		state := "lowers to Noir"
		if !pr.Lowers {
			state = "does not lower to Noir"
		}
		fmt.Fprintf(&b, "%s (backend %s): %s\n", pr.Name, pr.Backend, state)
		fmt.Fprintf(&b, "  proves %s\n", pr.ClaimText)
		for _, side := range []struct {
			name string
			ins  []noir.Input
		}{{"public", pr.Public}, {"private", pr.Private}} {
			var parts []string
			for _, in := range side.ins {
				parts = append(parts, in.Name+" "+in.Source)
			}
			fmt.Fprintf(&b, "  %-7s %s\n", side.name, strings.Join(parts, ", "))
		}
		for _, r := range pr.Reasons {
			fmt.Fprintf(&b, "  %s: %s\n", position(src, r.Span), r.Message)
		}
	}
	c.Stdout.Write([]byte(b.String()))
	return p.Finish()
}

// readInputsArg reads an --inputs argument: inline JSON (starting with {),
// "-" for stdin, or a file.
func readInputsArg(c *cli.Context, arg string) ([]byte, error) {
	switch {
	case strings.HasPrefix(strings.TrimSpace(arg), "{"):
		return []byte(arg), nil
	case arg == cli.StdinPath:
		if c.Stdin == nil {
			return nil, errors.New("--inputs -: no standard input")
		}
		return io.ReadAll(c.Stdin)
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		return nil, fmt.Errorf("--inputs: %v", err)
	}
	return data, nil
}

func runEmitNoir(c *cli.Context, path, proof, outDir, inputsArg string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	pkg, f := loadChecked(c, p, path)
	if pkg == nil {
		return p.Finish()
	}
	proofs := noir.Plan(pkg.Result)
	pr := noir.Find(proofs, proof)
	if pr == nil {
		names := strings.Join(noir.Names(proofs), ", ")
		if names == "" {
			names = "none"
		}
		c.Errorf("%s: no zk-proof %s; the module declares: %s", cli.DisplayPath(path), proof, names)
		p.SetFailed()
		return p.Finish()
	}
	if !pr.Lowers {
		src := packageSource(path, pkg)
		for _, r := range pr.Reasons {
			c.Errorf("%s: %s", position(src, r.Span), r.Message)
		}
		c.Errorf("%s: the zk-proof %s does not lower to Noir; nothing written", cli.DisplayPath(path), proof)
		p.SetFailed()
		return p.Finish()
	}
	var vals map[string]value.Value
	if inputsArg != "" {
		data, err := readInputsArg(c, inputsArg)
		if err == nil {
			vals, err = pr.ParseInputs(data)
		}
		if err != nil {
			c.Errorf("%v", err)
			p.SetFailed()
			return p.Finish()
		}
	}
	proj, err := noir.Emit(pr, pkg.File.Module.Name.Name, pkg.Hash, vals)
	if err == nil {
		err = proj.Write(outDir)
	}
	if err != nil {
		c.Errorf("%v", err)
		p.SetFailed()
		return p.Finish()
	}
	if jsonOut {
		f.Extra = emitNoirExtra{proof, outDir, proj.FileNames(), proj.Manifest}
		return p.Finish()
	}
	fmt.Fprintf(c.Stderr, "%s: wrote %s (%s)\n", cli.Program, outDir, strings.Join(proj.FileNames(), ", "))
	return p.Finish()
}

// readManifest reads DIR/capsulang.json; a project without one (written
// by hand) has an empty manifest.
func readManifest(dir string) noir.Manifest {
	var m noir.Manifest
	if data, err := os.ReadFile(filepath.Join(dir, noir.ManifestName)); err == nil {
		json.Unmarshal(data, &m)
	}
	return m
}

func checkProjectDir(c *cli.Context, dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "Nargo.toml")); err != nil {
		c.Errorf("%s is not a Nargo project (no Nargo.toml); write one with caps emit-noir FILE --proof NAME --out-dir %s", dir, dir)
		return false
	}
	return true
}

func runNoirCompile(c *cli.Context, dir string, jsonOut bool) int {
	if !checkProjectDir(c, dir) {
		return cli.ExitUsage
	}
	tc, err := noir.FindToolchain()
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	r, err := tc.Compile(dir)
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	if jsonOut {
		writeJSON(c, noirCompileJSON{r.OK, dir, relTo(dir, r.Artifact), r.NoirVersion, r.NoirWasm, r.NoirJS, nonNil(r.Warnings), r.Error})
	} else if r.OK {
		fmt.Fprintf(c.Stdout, "compiled %s with noir_wasm %s: %s\n", dir, r.NoirWasm, relTo(dir, r.Artifact))
		for _, w := range r.Warnings {
			fmt.Fprintf(c.Stderr, "%s: warning: %s\n", cli.Program, w)
		}
	}
	if !r.OK {
		if !jsonOut {
			c.Errorf("%s: the Noir compiler rejected the program:\n%s", dir, r.Error)
		}
		return cli.ExitFail
	}
	return cli.ExitOK
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// relTo shows an artifact path under dir as dir/target/...
func relTo(dir, path string) string {
	if path == "" {
		return ""
	}
	abs, err1 := filepath.Abs(dir)
	if rel, err2 := filepath.Rel(abs, path); err1 == nil && err2 == nil && !strings.HasPrefix(rel, "..") {
		return filepath.Join(dir, rel)
	}
	return path
}

func runNoirExecute(c *cli.Context, dir, inputsArg string, jsonOut bool) int {
	if !checkProjectDir(c, dir) {
		return cli.ExitUsage
	}
	var inputs map[string]any
	from := "Prover.toml"
	m := readManifest(dir)
	if inputsArg != "" {
		from = "--inputs"
		data, err := readInputsArg(c, inputsArg)
		if err == nil {
			inputs, err = noir.ConvertInputs(m, data)
		}
		if err != nil {
			c.Errorf("--inputs: %v", err)
			return cli.ExitUsage
		}
	} else {
		data, err := os.ReadFile(filepath.Join(dir, "Prover.toml"))
		if err == nil {
			inputs, err = noir.ReadProverTOML(data)
		}
		if err != nil {
			c.Errorf("%v", err)
			return cli.ExitUsage
		}
	}
	tc, err := noir.FindToolchain()
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	if _, err := os.Stat(filepath.Join(dir, "target")); err != nil {
		c.Errorf("%s has no compiled program; run caps noir-compile %s first", dir, dir)
		return cli.ExitUsage
	}
	res, err := tc.Execute(dir, []map[string]any{inputs})
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	r := res[0]
	if jsonOut {
		writeJSON(c, noirExecuteJSON{r.Satisfied, dir, m.Proof, from, r.Satisfied, r.WitnessSize, r.Error})
	} else if r.Satisfied {
		fmt.Fprintf(c.Stdout, "satisfied: the claim of %s holds for these inputs (witness %d bytes)\n", orName(m.Proof, dir), r.WitnessSize)
	} else {
		fmt.Fprintf(c.Stdout, "not satisfied: %s\n", r.Error)
	}
	if !r.Satisfied {
		return cli.ExitFail
	}
	return cli.ExitOK
}

func orName(proof, dir string) string {
	if proof != "" {
		return proof
	}
	return dir
}

// zkPlanExtra is the JSON output of this command (see its Output schema).
type zkPlanExtra struct {
	Proofs []zkProofJSON `json:"proofs"`
}

// emitNoirExtra is the JSON output of this command (see its Output schema).
type emitNoirExtra struct {
	Proof    string        `json:"proof"`
	OutDir   string        `json:"out_dir"`
	Files    []string      `json:"files"`
	Manifest noir.Manifest `json:"manifest"`
}

// noirCompileJSON is the JSON output of this command (see its Output schema).
type noirCompileJSON struct {
	OK          bool     `json:"ok"`
	Dir         string   `json:"dir"`
	Artifact    string   `json:"artifact,omitempty"`
	NoirVersion string   `json:"noir_version,omitempty"`
	NoirWasm    string   `json:"noir_wasm,omitempty"`
	NoirJS      string   `json:"noir_js,omitempty"`
	Warnings    []string `json:"warnings"`
	Error       string   `json:"error,omitempty"`
}

// noirExecuteJSON is the JSON output of this command (see its Output schema).
type noirExecuteJSON struct {
	OK        bool   `json:"ok"`
	Dir       string `json:"dir"`
	Proof     string `json:"proof"`
	From      string `json:"inputs_from"`
	Satisfied bool   `json:"satisfied"`
	Witness   int    `json:"witness_bytes"`
	Error     string `json:"error,omitempty"`
}
