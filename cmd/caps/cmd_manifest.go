package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/cmd/caps/internal/report"
)

// The AFPS-aligned agent manifest of the toolchain (spec §17, §20): one
// operation per command of the command table, with its input and output
// JSON Schemas, effects, an example and a negative example. "caps manifest
// --json" prints it with the schemas inline; agent/afps_manifest.json is
// the same manifest with the schemas and examples in files beside it
// (agent/schemas, agent/examples), kept current by TestAgentManifest.

// agentDir is the stable path of the committed manifest, relative to the
// repository's root.
const agentDir = "agent"

// afpsVersion is the AFPS draft the manifest follows, and the level it
// aims at.
const (
	afpsVersion = "0.2"
	afpsTarget  = "AFPS-3"
)

func init() {
	cli.Register(&cli.Command{
		Name:  "manifest",
		Args:  "[--json] [FILE]",
		Short: "print the agent manifest of caps (its commands), or of a module (its operations)",
		Long: `Manifest prints what an agent needs to drive caps without reading prose:
every command with its usage, the JSON Schemas (draft 2020-12) of its input
and of its --json output, what it reads, writes and runs, and an example
and a negative example with their exit codes. The document follows the
AFPS manifest (schema_version, standard, project, validation, operations);
agent/afps_manifest.json in the repository is the same manifest with the
schemas and examples in files beside it.

With a FILE it prints the module's manifest instead: the module's
operations (its functions with the schemas of their inputs and output,
its machines with their events and payload schemas, states and effect
intents) and the caps commands that validate it. A FILE with errors
prints its diagnostics and exits 1.

Without --json it prints one line per operation.`,
		Output: func() cli.Schema {
			return cli.OneOf(cli.SchemaOf(afpsManifest{}), cli.SchemaOf(moduleManifest{}), report.ResultSchema(nil))
		},
		Effects:  cli.Effects{Reads: []string{"the command table (built in)", "FILE (\"-\": stdin) and the modules it imports"}},
		Example:  cli.Example{Line: "caps manifest --json"},
		Negative: cli.Example{Line: "caps manifest --json examples/04_bad_missing_effect.caps", Exit: 1},
		Also:     []cli.Example{{Line: "caps manifest --json examples/03_claim_review_machine.caps"}, {Line: "caps manifest --json examples/insurance_claim.caps"}},
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			return func(c *cli.Context, args []string) int {
				switch len(args) {
				case 0:
					m := toolchainManifest(false)
					if *jsonOut {
						writeJSON(c, m)
						return cli.ExitOK
					}
					c.Stdout.Write([]byte(manifestText(m)))
					return cli.ExitOK
				case 1:
					return runModuleManifest(c, args[0], *jsonOut)
				}
				return c.UsageErrorf("expected at most one FILE, got %d arguments", len(args))
			}
		},
	})
}

type afpsManifest struct {
	SchemaVersion     string          `json:"schema_version"`
	Standard          string          `json:"standard"`
	ConformanceTarget string          `json:"conformance_target"`
	Project           afpsProject     `json:"project"`
	Conventions       afpsConventions `json:"conventions"`
	Validation        afpsValidation  `json:"validation"`
	Operations        []afpsOperation `json:"operations"`
}

type afpsProject struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Version      string `json:"version"`
	Spec         string `json:"spec"`
	Instructions string `json:"instructions"`
}

// afpsConventions are the rules every operation follows (docs/cli.md).
type afpsConventions struct {
	ExitCodes map[string]string `json:"exit_codes"`
	Stdout    string            `json:"stdout"`
	Stderr    string            `json:"stderr"`
	Stdin     string            `json:"stdin"`
}

type afpsValidation struct {
	Commands []string `json:"commands"`
}

type afpsOperation struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Command string `json:"command"`
	Summary string `json:"summary"`
	// Schemas holds the input and output schemas: inline documents in
	// "caps manifest --json", paths in agent/afps_manifest.json. A command
	// without JSON output has no "output".
	Schemas map[string]any `json:"schemas"`
	// Examples are the example and the negative example: objects inline,
	// paths in the committed manifest.
	Examples        []any       `json:"examples"`
	Effects         cli.Effects `json:"effects"`
	ExternalEffects bool        `json:"external_effects"`
	SupportsDryRun  bool        `json:"supports_dry_run"`
	JSONFlag        bool        `json:"json_flag"`
}

// exampleDoc is one example as the manifest gives it: the command line,
// its exit code and its input as the input schema describes it.
type exampleDoc struct {
	Command  string         `json:"command"`
	Exit     int            `json:"exit"`
	Valid    bool           `json:"valid"`
	Input    map[string]any `json:"input"`
	Note     string         `json:"note,omitempty"`
	Describe string         `json:"description"`
}

// validationCommands are the non-interactive commands that check the
// toolchain and its examples.
var validationCommands = []string{
	"go test ./...",
	"caps check examples/01_abs_i64.caps",
	"caps test examples/03_claim_review_machine.caps",
	"caps architecture-plan examples/03_claim_review_machine.caps",
	"caps emit-riscv examples/01_abs_i64.caps",
	"caps machine-run examples/03_claim_review_machine.caps ClaimReview SubmitClaim --mode dry-run",
}

// schemaPath and examplePath are the files of the committed manifest,
// named as in the spec's example (§20).
func schemaPath(name, kind string) string {
	return agentDir + "/schemas/" + name + "-" + kind + ".schema.json"
}

func examplePath(name string, valid bool) string {
	if valid {
		return agentDir + "/examples/" + name + ".valid.json"
	}
	return agentDir + "/examples/" + name + ".invalid.json"
}

// hasJSONFlag reports whether cmd has a --json flag.
func hasJSONFlag(cmd *cli.Command) bool {
	for _, f := range cli.Flags(cmd) {
		if f.Name == "json" {
			return true
		}
	}
	return false
}

// exampleDocs returns the example and the negative example of cmd.
func exampleDocs(cmd *cli.Command) []exampleDoc {
	var out []exampleDoc
	for _, ex := range []struct {
		e     cli.Example
		valid bool
	}{{cmd.Example, true}, {cmd.Negative, false}} {
		in, err := cli.ExampleInput(cmd, ex.e.Line)
		if err != nil {
			panic(fmt.Sprintf("caps %s: bad example: %v", cmd.Name, err)) // TestCommandTable reports it first
		}
		d := "a command line that succeeds"
		switch {
		case !ex.valid && ex.e.Exit == cli.ExitUsage:
			d = "a command line that is refused: usage or I/O error"
		case !ex.valid:
			d = "a command line whose input has errors"
		case ex.e.Exit != 0:
			d = "a command line that runs as documented"
		}
		out = append(out, exampleDoc{Command: ex.e.Line, Exit: ex.e.Exit, Valid: ex.valid, Input: in, Note: ex.e.Note, Describe: d})
	}
	return out
}

// toolchainManifest builds the manifest from the command table; files
// selects the committed form (schemas and examples as paths).
func toolchainManifest(files bool) *afpsManifest {
	m := &afpsManifest{
		SchemaVersion:     afpsVersion,
		Standard:          "AFPS",
		ConformanceTarget: afpsTarget,
		Project: afpsProject{
			ID:           "capsulang.caps",
			Name:         "Capsulang toolchain (caps)",
			Version:      version,
			Spec:         "Capsulang v0.7",
			Instructions: "AGENTS.md",
		},
		Conventions: afpsConventions{
			ExitCodes: map[string]string{
				"0": "success",
				"1": "the input has errors (diagnostics, failed tests, a refused change)",
				"2": "usage, I/O or internal error",
			},
			Stdout: "the result; with --json exactly one JSON document that validates against the operation's output schema",
			Stderr: "diagnostics in text mode and every \"caps: ...\" error",
			Stdin:  "\"-\" as a FILE argument reads standard input",
		},
		Validation: afpsValidation{Commands: validationCommands},
	}
	for _, cmd := range cli.Commands() {
		op := afpsOperation{
			ID:              "capsulang." + cmd.Name,
			Type:            "cli_action",
			Command:         cmd.Usage(),
			Summary:         cmd.Short,
			Schemas:         map[string]any{},
			Effects:         cmd.Effects,
			ExternalEffects: cmd.Effects.External(),
			SupportsDryRun:  cmd.Effects.DryRun,
			JSONFlag:        hasJSONFlag(cmd),
		}
		if op.Effects.Reads == nil {
			op.Effects.Reads = []string{}
		}
		if op.Effects.Writes == nil {
			op.Effects.Writes = []string{}
		}
		if files {
			op.Schemas["input"] = schemaPath(cmd.Name, "input")
			if cmd.Output != nil {
				op.Schemas["output"] = schemaPath(cmd.Name, "output")
			}
			op.Examples = []any{examplePath(cmd.Name, true), examplePath(cmd.Name, false)}
		} else {
			op.Schemas["input"] = cli.InputSchema(cmd)
			if cmd.Output != nil {
				op.Schemas["output"] = outputSchema(cmd)
			}
			for _, e := range exampleDocs(cmd) {
				op.Examples = append(op.Examples, e)
			}
			for _, ex := range cmd.Also {
				in, err := cli.ExampleInput(cmd, ex.Line)
				if err != nil {
					panic(fmt.Sprintf("caps %s: bad example: %v", cmd.Name, err))
				}
				op.Examples = append(op.Examples, exampleDoc{Command: ex.Line, Exit: ex.Exit, Valid: ex.Exit == 0, Input: in, Note: ex.Note, Describe: "another command line, for another output shape"})
			}
		}
		m.Operations = append(m.Operations, op)
	}
	return m
}

// outputSchema is the standalone schema document of cmd's JSON output.
func outputSchema(cmd *cli.Command) cli.Schema {
	return cli.Document(cmd.Output(), "caps "+cmd.Name+" --json output")
}

// manifestText is the manifest for people: per operation its effects and
// its usage.
func manifestText(m *afpsManifest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s manifest of %s %s (%s): %d operations\n", m.Standard, m.SchemaVersion, m.Project.Name, m.Project.Version, m.ConformanceTarget, len(m.Operations))
	for _, op := range m.Operations {
		var tags []string
		if len(op.Effects.Writes) > 0 {
			tags = append(tags, "writes "+strings.Join(op.Effects.Writes, ", "))
		}
		if len(op.Effects.Runs) > 0 {
			tags = append(tags, "runs "+strings.Join(op.Effects.Runs, ", "))
		}
		if op.Effects.Network {
			tags = append(tags, "network")
		}
		if len(tags) == 0 {
			tags = append(tags, "reads only")
		}
		fmt.Fprintf(&b, "  %s: %s\n      %s\n", op.ID, strings.Join(tags, "; "), op.Command)
	}
	b.WriteString("Print it as JSON, with the schemas and examples: caps manifest --json\n")
	return b.String()
}

// agentFiles returns the committed manifest's files by path: the
// manifest, each command's input and output schema and its two examples.
func agentFiles() map[string][]byte {
	files := map[string][]byte{}
	put := func(path string, v any) {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
		files[path] = []byte(b.String())
	}
	put(agentDir+"/afps_manifest.json", toolchainManifest(true))
	for _, cmd := range cli.Commands() {
		put(schemaPath(cmd.Name, "input"), cli.InputSchema(cmd))
		if cmd.Output != nil {
			put(schemaPath(cmd.Name, "output"), outputSchema(cmd))
		}
		ex := exampleDocs(cmd)
		put(examplePath(cmd.Name, true), ex[0])
		put(examplePath(cmd.Name, false), ex[1])
	}
	return files
}

// The reference section of docs/cli.md, generated from the command table
// between these markers (TestCLIReference keeps it current).
const (
	referenceBegin = "<!-- BEGIN command reference: generated from the command table by TestCLIReference (go test ./cmd/caps -run TestCLIReference -update); do not edit by hand -->"
	referenceEnd   = "<!-- END command reference -->"
)

// cliReference renders the reference section: per command its usage,
// summary, flags, effects, schemas and examples.
func cliReference() string {
	var b strings.Builder
	b.WriteString(referenceBegin + "\n\n")
	b.WriteString("## Command reference\n\n")
	b.WriteString("One entry per command, generated from the same table as `caps help`,\n")
	b.WriteString("`caps manifest --json` and `agent/afps_manifest.json`. Input schemas\n")
	b.WriteString("describe the command line as `{\"args\": [...], \"flags\": {...}}`; output\n")
	b.WriteString("schemas (JSON Schema draft 2020-12) describe what `--json` prints, and\n")
	b.WriteString("the test suite validates every example's output against them.\n\n")
	for _, cmd := range cli.Commands() {
		fmt.Fprintf(&b, "### %s\n\n", cmd.Name)
		fmt.Fprintf(&b, "`%s` — %s.\n\n", cmd.Usage(), cmd.Short)
		if flags := cli.Flags(cmd); len(flags) > 0 {
			b.WriteString("| flag | meaning |\n|---|---|\n")
			for _, f := range flags {
				name := "--" + f.Name
				if len(f.Name) == 1 {
					name = "-" + f.Name
				}
				if f.Arg != "" {
					name += " " + strings.ToUpper(f.Arg)
				}
				fmt.Fprintf(&b, "| `%s` | %s |\n", name, strings.ReplaceAll(f.Usage, "|", `\|`))
			}
			b.WriteString("\n")
		}
		e := cmd.Effects
		list := func(xs []string, none string) string {
			if len(xs) == 0 {
				return none
			}
			return strings.Join(xs, "; ")
		}
		fmt.Fprintf(&b, "- Reads: %s.\n", list(e.Reads, "nothing besides its arguments"))
		fmt.Fprintf(&b, "- Writes: %s.\n", list(e.Writes, "nothing (stdout and stderr only)"))
		if len(e.Runs) > 0 {
			fmt.Fprintf(&b, "- Runs: %s.\n", list(e.Runs, ""))
		}
		if e.Network {
			b.WriteString("- Network: yes (live mode only).\n")
		}
		fmt.Fprintf(&b, "- Schemas: [input](../%s)", schemaPath(cmd.Name, "input"))
		if cmd.Output != nil {
			fmt.Fprintf(&b, ", [JSON output](../%s)", schemaPath(cmd.Name, "output"))
		}
		b.WriteString(".\n")
		fmt.Fprintf(&b, "- Example: `%s` (exit %d).\n", cmd.Example.Line, cmd.Example.Exit)
		fmt.Fprintf(&b, "- Negative example: `%s` (exit %d", cmd.Negative.Line, cmd.Negative.Exit)
		if cmd.Negative.Note != "" {
			fmt.Fprintf(&b, ": %s", cmd.Negative.Note)
		}
		b.WriteString(").\n")
		for _, ex := range cmd.Also {
			fmt.Fprintf(&b, "- Also: `%s` (exit %d", ex.Line, ex.Exit)
			if ex.Note != "" {
				fmt.Fprintf(&b, ": %s", ex.Note)
			}
			b.WriteString(").\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(referenceEnd + "\n")
	return b.String()
}
