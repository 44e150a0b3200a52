package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
)

// conformanceAgent shows CPS-6 (Agent-Operable) from the current folder,
// the repository's root: caps manifest --json describes every command;
// the committed agent manifest (agent/) is what the command table
// generates; every schema there and under docs/schemas compiles as JSON
// Schema draft 2020-12; every command's example and negative example is
// an input its input schema accepts; DIR has example modules; and
// .ci/run runs the conformance ladder and the test suite.
func conformanceAgent(mods []*conformanceModule, req func(string, bool, string, ...any) requirementJSON) []requirementJSON {
	cmds := cli.Commands()

	// The manifest.
	var out, errb bytes.Buffer
	code := run([]string{"manifest", "--json"}, strings.NewReader(""), &out, &errb)
	var man struct {
		Operations []json.RawMessage `json:"operations"`
	}
	jerr := json.Unmarshal(out.Bytes(), &man)
	want := agentFiles()
	var stale []string
	for p, b := range want {
		if got, err := os.ReadFile(filepath.FromSlash(p)); err != nil {
			stale = append(stale, p+" is missing")
		} else if !bytes.Equal(got, b) {
			stale = append(stale, p+" differs")
		}
	}
	sort.Strings(stale)
	manifest := req("a manifest", code == 0 && jerr == nil && len(man.Operations) == len(cmds) && len(stale) == 0,
		"caps manifest --json exits %d and describes %d operations for the %d commands; the committed agent manifest (%s/afps_manifest.json, its schemas and examples: %d files) %s",
		code, len(man.Operations), len(cmds), agentDir, len(want), map[bool]string{true: "is what the command table generates", false: "has drifted from the command table: " + strings.Join(first(stale, 3), ", ")}[len(stale) == 0])

	// The schemas.
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	compile := func(path string) (*jsonschema.Schema, error) {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(path)
		url := "file://" + filepath.ToSlash(abs)
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		return c.Compile(url)
	}
	agentSchemas, _ := filepath.Glob(filepath.Join(agentDir, "schemas", "*.json"))
	docSchemas, _ := filepath.Glob(filepath.Join("docs", "schemas", "*.json"))
	var bad []string
	inputs := map[string]*jsonschema.Schema{}
	for _, p := range append(append([]string{}, agentSchemas...), docSchemas...) {
		sch, err := compile(p)
		if err != nil {
			bad = append(bad, filepath.ToSlash(p))
			continue
		}
		if name, ok := strings.CutSuffix(filepath.Base(p), "-input.schema.json"); ok && filepath.Dir(p) == filepath.Join(agentDir, "schemas") {
			inputs[name] = sch
		}
	}
	outputs := 0
	for _, cmd := range cmds {
		if cmd.Output != nil {
			outputs++
		}
	}
	schemas := req("schemas", len(agentSchemas) > 0 && len(bad) == 0 && len(inputs) == len(cmds),
		"%d JSON Schemas under %s/schemas (the input of each of the %d commands, the output of the %d that print JSON) and %d under docs/schemas compile as draft 2020-12%s",
		len(agentSchemas), agentDir, len(cmds), outputs, len(docSchemas), listed("; not: %s", first(bad, 3)))

	// The examples.
	examplesOK, examplesBad := 0, []string{}
	for _, cmd := range cmds {
		for _, valid := range []bool{true, false} {
			p := examplePath(cmd.Name, valid)
			data, err := os.ReadFile(filepath.FromSlash(p))
			var ex struct {
				Command string          `json:"command"`
				Input   json.RawMessage `json:"input"`
			}
			if err == nil {
				err = json.Unmarshal(data, &ex)
			}
			if err == nil && inputs[cmd.Name] == nil {
				err = fmt.Errorf("no input schema")
			}
			if err == nil {
				var inst any
				if inst, err = jsonschema.UnmarshalJSON(bytes.NewReader(ex.Input)); err == nil {
					err = inputs[cmd.Name].Validate(inst)
				}
			}
			if err != nil || ex.Command == "" {
				examplesBad = append(examplesBad, p)
				continue
			}
			examplesOK++
		}
	}
	examples := req("examples", len(mods) > 0 && examplesOK == 2*len(cmds),
		"%d example modules; %d of the %d commands' example and negative command lines (%s/examples) are inputs their input schemas accept%s",
		len(mods), examplesOK, 2*len(cmds), agentDir, listed("; not: %s", first(examplesBad, 3)))

	// CI.
	ci, err := os.ReadFile(filepath.Join(".ci", "run"))
	var missing []string
	for _, step := range []string{"caps conformance", "make test"} {
		if !bytes.Contains(ci, []byte(step)) {
			missing = append(missing, step)
		}
	}
	ciEvidence := req("CI evidence", err == nil && len(missing) == 0, "%s", map[bool]string{
		true:  ".ci/run runs caps conformance and the test suite (make test)",
		false: fmt.Sprintf(".ci/run in the current folder does not run %s (run caps conformance from the repository's root)", strings.Join(missing, " or ")),
	}[err == nil && len(missing) == 0])
	return []requirementJSON{manifest, schemas, examples, ciEvidence}
}

// first returns the first n items.
func first(items []string, n int) []string {
	if len(items) > n {
		return append(items[:n:n], fmt.Sprintf("%d more", len(items)-n))
	}
	return items
}
