package main

// The Capsule contract commands: capsule-check, capsule-ir,
// capsule-compile and capsule-verify (docs/capsule.md).

import (
	"flag"
	"fmt"

	"github.com/capsulang/caps/analysis/capsule"
	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "capsule-check",
		Output:   func() cli.Schema { return report.ResultSchema(capsuleCheckJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE"}, Writes: nil},
		Example:  cli.Example{Line: "caps capsule-check --json examples/29_capsule_refund_reviewer.capsule.yaml"},
		Negative: cli.Example{Line: "caps capsule-check --json examples/01_abs_i64.caps", Exit: 1},
		Args:     "[--json] FILE",
		Short:    "check a Capsule governance contract (.capsule.yaml)",
		Long: `Capsule-check reads a Capsule contract (FILE, or "-" for standard input)
and reports, as caps check does, every problem with its code and place:
YAML syntax, unknown keys, wrong types, missing identity, effects or
telemetry, values that are not allowed, and the rules that reject a
contract by design: ambient credentials or host keychain access
(E_CAPSULE_AMBIENT_CREDENTIALS), default-allow network or policy in
enforce mode (E_CAPSULE_DEFAULT_ALLOW), protected effects without a gate
action (E_CAPSULE_UNGATED_EFFECT), high-risk operations without an
approval-bound receipt (E_CAPSULE_UNBOUND_RECEIPT) and authority decisions
without telemetry (E_CAPSULE_UNTRACED_DECISIONS).

A clean contract prints one line: its module, version, contract hash and
effects. With --json it prints
    {"ok": bool, "files": [{"path", "diagnostics": [...], "module",
     "version", "contract_hash", "effects"}]}
(module, version and contract_hash are null, effects 0, when the contract
has errors). Exit 1 when the contract has errors, 2 on an I/O error.
docs/capsule.md describes the format.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runCapsuleCheck(c, args[0], *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "capsule-ir",
		Output:   func() cli.Schema { return capsuleIRSchema },
		Effects:  cli.Effects{Reads: []string{"FILE"}, Writes: nil},
		Example:  cli.Example{Line: "caps capsule-ir examples/29_capsule_refund_reviewer.capsule.yaml"},
		Negative: cli.Example{Line: "caps capsule-ir examples/01_abs_i64.caps", Exit: 1},
		Args:     "FILE",
		Short:    "print the normalized contract IR (.capsule.json) of a Capsule contract",
		Long: `Capsule-ir checks a Capsule contract as capsule-check does and prints its
normalized contract IR, the .capsule.json document: keys in a fixed
order, every default made explicit, two-space indentation, and
contract_hash, the SHA-256 of the document's compact JSON without that
member. Two spellings of the same contract print the same bytes.
Problems are printed as by capsule-check (exit 1).`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				return runCapsuleIR(c, args[0])
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "capsule-compile",
		Output:   func() cli.Schema { return report.ResultSchema(capsuleCompileJSON{}) },
		Effects:  cli.Effects{Reads: []string{"FILE"}, Writes: []string{"--out-dir DIR"}},
		Example:  cli.Example{Line: "caps capsule-compile --json --out-dir build/capsule-refund examples/29_capsule_refund_reviewer.capsule.yaml"},
		Negative: cli.Example{Line: "caps capsule-compile --json --out-dir build/capsule-bad examples/01_abs_i64.caps", Exit: 1},
		Args:     "[--json] --out-dir DIR FILE",
		Short:    "compile a Capsule contract into checked Capsulang and an enclosure bundle",
		Long: `Capsule-compile checks a Capsule contract and writes its bundle to DIR: the
contract IR (NAME.capsule.json), the lowered EDL enclosure contract
(NAME.edl.json), the Capsulang module with the Authority IR and the
machine workflow (NAME.caps, which caps check accepts without a
diagnostic), docker-compose.yaml, seatbelt.sb, doorkeeper-policy.json,
telemetry-plan.json, receipt-plan.json, the negative bypass scenarios and
an allowed-path scenario (tests/*.json, run with caps test), and
attestation.json with the SHA-256 of every other file. NAME is the
contract's module with dashes (claims-refund-reviewer).

The bundle is written to a temporary folder beside DIR and renamed into
place: DIR is never half-written. An existing DIR is replaced only when
it is empty or an earlier bundle.

It prints each artifact with its digest; with --json
    {"ok": bool, "files": [{"path", "diagnostics": [...], "out_dir",
     "module", "module_file", "contract_hash", "artifacts": [{"path",
     "kind", "sha256", "bytes"}]}]}
Exit 1 when the contract has errors (nothing is written), 2 on a usage
or I/O error.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			outDir := fs.String("out-dir", "", "write the bundle to `DIR`")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one FILE")
				}
				if *outDir == "" {
					return c.UsageErrorf("--out-dir DIR is required")
				}
				return runCapsuleCompile(c, args[0], *outDir, *jsonOut)
			}
		},
	})
	cli.Register(&cli.Command{
		Name:     "capsule-verify",
		Output:   func() cli.Schema { return cli.SchemaOf(capsuleVerifyJSON{}) },
		Effects:  cli.Effects{Reads: []string{"DIR (a bundle caps capsule-compile wrote)"}, Writes: nil},
		Example:  cli.Example{Line: "caps capsule-verify --json build/capsule-refund"},
		Negative: cli.Example{Line: "caps capsule-verify --json examples", Exit: 1, Note: "a folder that is not a capsule bundle"},
		Args:     "[--json] DIR",
		Short:    "verify a compiled capsule bundle against its attestation",
		Long: `Capsule-verify re-computes a bundle written by capsule-compile: the digest
of attestation.json itself, the SHA-256 and size of every artifact it
lists, that no listed file is missing and no other file is present, and
that compiling the bundled contract IR again gives every artifact byte
for byte. Each problem is printed with the file it is about:

    build/capsule-refund/seatbelt.sb: changed: the attestation records sha256:..., the file hashes to sha256:...

With --json it prints {"ok": bool, "dir", "module", "contract_hash",
"artifacts", "problems": [{"path", "message"}]}. Exit 0 when the bundle
verifies, 1 when it does not, 2 when DIR cannot be read.`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one DIR")
				}
				return runCapsuleVerify(c, args[0], *jsonOut)
			}
		},
	})
}

// checkContract loads and checks a contract, adding its diagnostics to p.
// It returns the contract's IR, or nil (the exit code is then set).
func checkContract(c *cli.Context, p *report.Printer, path string) (*capsule.IR, *report.File) {
	f, err := c.Load(path)
	if err != nil {
		p.Fail(path, err)
		return nil, nil
	}
	con, diags := capsule.Check(f.Text)
	rf := p.Add(&report.Source{Path: path, Text: f.Text}, diags)
	return con.IR, rf
}

type capsuleCheckJSON struct {
	Module       *string `json:"module"`
	Version      *string `json:"version"`
	ContractHash *string `json:"contract_hash"`
	Effects      int     `json:"effects"`
}

func runCapsuleCheck(c *cli.Context, path string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	ir, f := checkContract(c, p, path)
	if f != nil {
		x := capsuleCheckJSON{}
		if ir != nil {
			h := ir.Hash()
			x = capsuleCheckJSON{Module: &ir.Module, Version: &ir.Version, ContractHash: &h, Effects: len(ir.Effects)}
		}
		f.Extra = x
	}
	if ir != nil && !jsonOut {
		fmt.Fprintf(c.Stdout, "%s: contract %s %s is valid: %d %s, contract %s\n", cli.DisplayPath(path), ir.Module, ir.Version,
			len(ir.Effects), pluralWord(len(ir.Effects), "effect", "effects"), ir.Hash())
	}
	return p.Finish()
}

func runCapsuleIR(c *cli.Context, path string) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, false)
	ir, _ := checkContract(c, p, path)
	if ir != nil {
		c.Stdout.Write(ir.Canonical())
	}
	return p.Finish()
}

type capsuleCompileJSON struct {
	OutDir       string              `json:"out_dir"`
	Module       *string             `json:"module"`
	ModuleFile   *string             `json:"module_file"`
	ContractHash *string             `json:"contract_hash"`
	Artifacts    []*capsule.Artifact `json:"artifacts"`
}

func runCapsuleCompile(c *cli.Context, path, outDir string, jsonOut bool) int {
	p := report.NewPrinter(c.Stdout, c.Stderr, jsonOut)
	ir, f := checkContract(c, p, path)
	if f == nil {
		return p.Finish()
	}
	x := capsuleCompileJSON{OutDir: outDir, Artifacts: []*capsule.Artifact{}}
	f.Extra = &x
	if ir == nil {
		return p.Finish()
	}
	b, err := capsule.Compile(ir)
	if err == nil {
		err = b.Write(outDir)
	}
	if err != nil {
		f.Extra = nil
		p.Fail(outDir, fmt.Errorf("--out-dir %s: %v; nothing was written", outDir, err))
		return p.Finish()
	}
	h, mf := b.EDL.ContractHash, outDir+"/"+b.Module
	x.Module, x.ModuleFile, x.ContractHash, x.Artifacts = &b.EDL.Module, &mf, &h, b.Artifacts
	if !jsonOut {
		fmt.Fprintf(c.Stdout, "compiled %s %s (contract %s) into %s:\n", ir.Module, ir.Version, h, outDir)
		for _, a := range b.Artifacts {
			fmt.Fprintf(c.Stdout, "  %s  %s\n", a.SHA256, a.Path)
		}
		fmt.Fprintf(c.Stdout, "check the module with: caps check %s\n", mf)
	}
	return p.Finish()
}

type capsuleVerifyJSON struct {
	OK           bool              `json:"ok"`
	Dir          string            `json:"dir"`
	Module       *string           `json:"module"`
	ContractHash *string           `json:"contract_hash"`
	Artifacts    int               `json:"artifacts"`
	Problems     []capsule.Problem `json:"problems"`
}

func runCapsuleVerify(c *cli.Context, dir string, jsonOut bool) int {
	problems, att, err := capsule.Verify(dir)
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	code := cli.ExitOK
	if len(problems) > 0 {
		code = cli.ExitFail
	}
	if jsonOut {
		x := capsuleVerifyJSON{OK: code == cli.ExitOK, Dir: dir, Problems: problems}
		if x.Problems == nil {
			x.Problems = []capsule.Problem{}
		}
		if att != nil {
			x.Module, x.ContractHash, x.Artifacts = &att.Module, &att.ContractHash, len(att.Artifacts)+1
		}
		b, _ := report.Marshal(x)
		c.Stdout.Write(append(b, '\n'))
		return code
	}
	for _, pr := range problems {
		fmt.Fprintf(c.Stderr, "%s/%s: %s\n", dir, pr.Path, pr.Message)
	}
	if code == cli.ExitOK {
		fmt.Fprintf(c.Stdout, "%s: bundle of %s verifies: %d artifacts, contract %s\n", dir, att.Module, len(att.Artifacts)+1, att.ContractHash)
	} else {
		fmt.Fprintf(c.Stderr, "%s: the bundle does not verify (%d %s); compile the contract again\n", dir, len(problems), pluralWord(len(problems), "problem", "problems"))
	}
	return code
}

// capsuleIRSchema is the JSON Schema of the normalized contract IR's top
// level (.capsule.json; docs/capsule.md describes its sections).
var capsuleIRSchema = cli.Object(cli.Schema{
	"format":         cli.Schema{"type": "string"},
	"format_version": cli.Schema{"type": "integer"},
	"capsule":        cli.Schema{"type": "string"},
	"module":         cli.Schema{"type": "string"},
	"version":        cli.Schema{"type": "string"},
	"purpose":        cli.Schema{"type": "string"},
	"identity":       cli.Schema{"type": "object"},
	"inputs":         cli.Schema{"type": "array"},
	"outputs":        cli.Schema{"type": "array"},
	"effects":        cli.Schema{"type": "array"},
	"telemetry":      cli.Schema{"type": "object"},
	"policy":         cli.Schema{"type": "object"},
	"runtime":        cli.Schema{"type": "object"},
	"memory":         cli.Schema{"type": "object"},
	"contract_hash":  cli.Schema{"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"},
})
