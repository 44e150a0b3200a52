package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

// The command table (cli.Command's Output, Effects, Example and Negative)
// is the one source of the manifest, the skills and the docs' reference;
// these tests keep it honest: every schema compiles, every example's input
// fits its input schema, and every example runs with its exit code and
// prints JSON that validates against the command's output schema.

// compileTableSchema compiles s with a draft 2020-12 validator.
func compileTableSchema(t *testing.T, name string, s cli.Schema) *jsonschema.Schema {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + ".schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return sch
}

// validateJSON validates a JSON document against sch.
func validateJSON(sch *jsonschema.Schema, doc string) error {
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not one JSON document: %v", err)
	}
	return sch.Validate(inst)
}

// alwaysJSON lists the commands that print JSON without --json.
var alwaysJSON = map[string]bool{"ir": true, "capsule-ir": true, "agent-graph": true}

func TestCommandTable(t *testing.T) {
	cmds := cli.Commands()
	if len(cmds) < 50 {
		t.Fatalf("only %d commands", len(cmds))
	}
	for _, cmd := range cmds {
		if cmd.Example.Line == "" || cmd.Negative.Line == "" {
			t.Errorf("caps %s: the table needs an Example and a Negative example", cmd.Name)
			continue
		}
		if cmd.Negative.Exit == 0 {
			t.Errorf("caps %s: the negative example %q exits 0", cmd.Name, cmd.Negative.Line)
		}
		if hasJSONFlag(cmd) != (cmd.Output != nil) && !alwaysJSON[cmd.Name] {
			t.Errorf("caps %s: --json flag %v but Output schema %v", cmd.Name, hasJSONFlag(cmd), cmd.Output != nil)
		}
		if alwaysJSON[cmd.Name] && cmd.Output == nil {
			t.Errorf("caps %s prints JSON but has no Output schema", cmd.Name)
		}
		in := compileTableSchema(t, cmd.Name+"-input", cli.InputSchema(cmd))
		for _, ex := range []cli.Example{cmd.Example, cmd.Negative} {
			obj, err := cli.ExampleInput(cmd, ex.Line)
			if err != nil {
				t.Errorf("caps %s: %v", cmd.Name, err)
				continue
			}
			b, _ := json.Marshal(obj)
			if err := validateJSON(in, string(b)); err != nil {
				t.Errorf("caps %s: the input of %q does not fit the input schema: %v", cmd.Name, ex.Line, err)
			}
		}
		if cmd.Output != nil {
			if s, err := deriveOutput(cmd); err != nil {
				t.Errorf("caps %s: %v", cmd.Name, err)
			} else {
				compileTableSchema(t, cmd.Name+"-output", s)
			}
		}
	}
}

// deriveOutput is outputSchema with a panic (a type SchemaOf cannot
// describe) turned into an error.
func deriveOutput(cmd *cli.Command) (s cli.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return outputSchema(cmd), nil
}

// slowExamples are the commands whose examples take many seconds of CPU:
// they run under CI=true or CAPS_SLOW_EXAMPLES=1 (TestSpecCommands and
// TestNoirEndToEnd run them too).
var slowExamples = map[string]string{
	"noir-compile": "compiling a circuit takes 15-20 s of CPU",
	"noir-execute": "it needs the circuit noir-compile compiles",
}

// exampleVars are the values later examples use: the proposal that caps
// propose recorded and the event that caps commit recorded.
var exampleVars = map[string]struct{ cmd, field string }{
	"$PROPOSAL": {"propose", "id"},
	"$EVENT":    {"commit", "event_id"},
}

// TestCommandOutputs runs every example and negative example of the table
// in a scratch workspace holding a copy of the shipped examples, checks
// the exit code and validates every JSON output against the command's
// schema.
func TestCommandOutputs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "examples"), filepath.Join(scratch, "examples")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	if err := os.Mkdir(filepath.Join(scratch, ".caps"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"testdata", "docs", "tools"} {
		if err := os.Symlink(filepath.Join(root, d), filepath.Join(scratch, d)); err != nil {
			t.Fatal(err)
		}
	}
	slowOK := os.Getenv("CI") == "true" || os.Getenv("CAPS_SLOW_EXAMPLES") != ""
	t.Chdir(scratch)
	t.Setenv("CAPS_PATH", "")
	type job struct {
		cmd *cli.Command
		ex  cli.Example
		neg bool
	}
	var pending []job
	for _, cmd := range cli.Commands() {
		pending = append(pending, job{cmd, cmd.Negative, true}, job{cmd, cmd.Example, false})
	}
	vars := map[string]string{}
	validated, ran := map[string]int{}, 0
	for len(pending) > 0 {
		var later []job
		progress := false
		for _, j := range pending {
			line := j.ex.Line
			ready := true
			for v := range exampleVars {
				if strings.Contains(line, v) {
					if val, ok := vars[v]; ok {
						line = strings.ReplaceAll(line, v, val)
					} else {
						ready = false
					}
				}
			}
			if !ready {
				later = append(later, j)
				continue
			}
			progress = true
			if slowExamples[j.cmd.Name] != "" && !slowOK {
				t.Logf("skip %s: %s (set CAPS_SLOW_EXAMPLES=1 to run it; CI runs it)", line, slowExamples[j.cmd.Name])
				continue
			}
			words, err := cli.SplitLine(line)
			if err != nil {
				t.Fatal(err)
			}
			got := runCaps(t, "", words[1:]...)
			ran++
			if got.code != j.ex.Exit {
				t.Errorf("%s: exit %d, want %d\nstdout: %.800s\nstderr: %.800s", line, got.code, j.ex.Exit, got.stdout, got.stderr)
			}
			printsJSON := alwaysJSON[j.cmd.Name] || strings.Contains(" "+line+" ", " --json ")
			if !printsJSON || j.cmd.Output == nil {
				continue
			}
			if got.stdout == "" {
				// Without --json, a failing command reports on stderr; with
				// it, only usage and I/O errors (exit 2) may print no JSON.
				if !j.neg || j.ex.Exit != 2 && strings.Contains(" "+line+" ", " --json ") {
					t.Errorf("%s: printed no JSON (exit %d)\nstderr: %.800s", line, got.code, got.stderr)
				}
				continue
			}
			sch := compileTableSchema(t, j.cmd.Name+"-output", outputSchema(j.cmd))
			if err := validateJSON(sch, got.stdout); err != nil {
				t.Errorf("%s: the output does not validate against the schema of caps %s:\n%v\noutput: %.1500s", line, j.cmd.Name, err, got.stdout)
				continue
			}
			validated[j.cmd.Name]++
			if !j.neg {
				for v, src := range exampleVars {
					if src.cmd == j.cmd.Name {
						var m map[string]any
						json.Unmarshal([]byte(got.stdout), &m)
						if s, ok := m[src.field].(string); ok {
							vars[v] = s
						}
					}
				}
			}
		}
		if !progress {
			for _, j := range later {
				t.Errorf("%s: never ran: no earlier example sets its variables", j.ex.Line)
			}
			break
		}
		pending = later
	}
	var names []string
	total := 0
	for n, k := range validated {
		names = append(names, n)
		total += k
	}
	sort.Strings(names)
	t.Logf("ran %d example command lines; validated %d JSON outputs of %d commands against their schemas: %s", ran, total, len(names), strings.Join(names, " "))
	for _, cmd := range cli.Commands() {
		if cmd.Output != nil && validated[cmd.Name] == 0 && (slowOK || slowExamples[cmd.Name] == "") {
			t.Errorf("caps %s has an output schema but no example validated against it", cmd.Name)
		}
	}
}
