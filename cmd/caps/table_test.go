package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/patterns"
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
		for _, ex := range append([]cli.Example{cmd.Example, cmd.Negative}, cmd.Also...) {
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

// snapshot records every regular file under dir (symbolic links not
// followed) with its size and modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&os.ModeSymlink != 0 {
			return nil
		}
		if info, err := d.Info(); err == nil {
			rel, _ := filepath.Rel(dir, p)
			out[rel] = fmt.Sprint(info.Size(), info.ModTime().UnixNano())
		}
		return nil
	})
	return out
}

// diffSnapshots lists the files created, changed or removed.
func diffSnapshots(a, b map[string]string) []string {
	var out []string
	for p, v := range b {
		if a[p] != v {
			out = append(out, p)
		}
	}
	for p := range a {
		if _, ok := b[p]; !ok {
			out = append(out, p+" (removed)")
		}
	}
	sort.Strings(out)
	return out
}

// slowExamples are the commands whose examples take many seconds of CPU:
// they run under CI=true or CAPS_SLOW_EXAMPLES=1 (TestSpecCommands and
// TestNoirEndToEnd run them too).
var slowExamples = map[string]string{
	"noir-compile": "compiling a circuit takes 15-20 s of CPU",
	"noir-execute": "it needs the circuit noir-compile compiles",
	"conformance":  "it runs the whole ladder (every scenario, dry run and Z3) on examples/",
}

// servingExamples are the example lines that serve until interrupted,
// which this test cannot run to completion; the named test starts and
// stops them instead.
var servingExamples = map[string]string{
	"serve-authoring-ui": "TestServeAuthoringUI",
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
// schema. A command whose Effects declare no writes must leave the
// workspace's files as they were.
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
		for _, ex := range cmd.Also {
			pending = append(pending, job{cmd, ex, ex.Exit != 0})
		}
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
			if name := servingExamples[j.cmd.Name]; name != "" && !j.neg {
				t.Logf("skip %s: it serves until interrupted (%s starts and stops it)", line, name)
				continue
			}
			if slowExamples[j.cmd.Name] != "" && !slowOK {
				t.Logf("skip %s: %s (set CAPS_SLOW_EXAMPLES=1 to run it; CI runs it)", line, slowExamples[j.cmd.Name])
				continue
			}
			words, err := cli.SplitLine(line)
			if err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, scratch)
			got := runCaps(t, "", words[1:]...)
			ran++
			if changed := diffSnapshots(before, snapshot(t, scratch)); len(changed) > 0 && len(j.cmd.Effects.Writes) == 0 {
				t.Errorf("%s: changed %s, but caps %s declares no writes in its Effects", line, strings.Join(changed, ", "), j.cmd.Name)
			}
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

// TestAgentManifest keeps agent/ (the committed AFPS manifest, its
// schemas and examples) equal to what the command table generates:
// go test ./cmd/caps -run TestAgentManifest -update rewrites it.
func TestAgentManifest(t *testing.T) {
	root := repoRoot(t)
	want := agentFiles()
	dir := filepath.Join(root, agentDir)
	if *updateSpec {
		tmp, err := os.MkdirTemp(root, ".agent-*")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(tmp)
		for p, b := range want {
			f := filepath.Join(tmp, strings.TrimPrefix(p, agentDir+"/"))
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, dir); err != nil {
			t.Fatal(err)
		}
	}
	got := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			b, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = b
		}
		return nil
	})
	var stale []string
	for p, b := range want {
		if g, ok := got[p]; !ok {
			stale = append(stale, p+" is missing")
		} else if string(g) != string(b) {
			stale = append(stale, p+" differs")
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			stale = append(stale, p+" is not generated")
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Errorf("agent/ has drifted from the command table (go test ./cmd/caps -run TestAgentManifest -update rewrites it):\n%s", strings.Join(stale, "\n"))
	}
	// The committed manifest validates against the schema caps manifest
	// publishes, and names files that exist.
	sch := compileTableSchema(t, "manifest-output", outputSchema(cli.Lookup("manifest")))
	if err := validateJSON(sch, string(want[agentDir+"/afps_manifest.json"])); err != nil {
		t.Errorf("agent/afps_manifest.json: %v", err)
	}
	if n := len(want); n < 150 {
		t.Errorf("only %d files generated", n)
	}
	// The manifest's validation commands pass (go test is this run).
	for _, line := range validationCommands {
		words, err := cli.SplitLine(line)
		if err != nil {
			t.Fatal(err)
		}
		if words[0] != "caps" {
			continue
		}
		if got := runCaps(t, "", words[1:]...); got.code != 0 {
			t.Errorf("validation command %s: exit %d\n%s%s", line, got.code, got.stdout, got.stderr)
		}
	}
}

// TestCLIReference keeps the reference section of docs/cli.md equal to
// what the command table generates; the prose around it is left alone.
// go test ./cmd/caps -run TestCLIReference -update rewrites the section
// (and appends it when the page has none).
func TestCLIReference(t *testing.T) {
	root := repoRoot(t)
	path := filepath.Join(root, "docs", "cli.md")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page, want := string(b), cliReference()
	i, j := strings.Index(page, referenceBegin), strings.Index(page, referenceEnd)
	got := ""
	if i >= 0 && j > i {
		got = page[i : j+len(referenceEnd)+1]
	}
	if *updateSpec && got != want {
		switch {
		case got != "":
			page = page[:i] + want + page[j+len(referenceEnd)+1:]
		default:
			page = strings.TrimRight(page, "\n") + "\n\n" + want
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		got = want
	}
	if got != want {
		t.Errorf("the command reference of docs/cli.md has drifted from the command table; run go test ./cmd/caps -run TestCLIReference -update")
	}
	for _, cmd := range cli.Commands() {
		if !strings.Contains(got, "\n### "+cmd.Name+"\n") {
			t.Errorf("docs/cli.md: no reference entry for caps %s", cmd.Name)
		}
	}
}

// commandMentionRE finds the caps command lines a guide shows: in
// backquotes, or at the start of a line of a code block.
var commandMentionRE = regexp.MustCompile("`(caps [^`]+)`|(?m)^(caps [^#\n]+)")

// checkMentions fails for every caps command line in text whose command
// does not exist or whose flags the command does not have; it returns how
// many it checked. Synopses ([--json], a|b) are left to the table.
func checkMentions(t *testing.T, where, text string) int {
	t.Helper()
	n := 0
	for _, m := range commandMentionRE.FindAllStringSubmatch(text, -1) {
		line := strings.TrimSpace(m[1] + m[2])
		if strings.ContainsAny(line, "[(|") {
			continue // a synopsis (from the table), not a command line
		}
		words, err := cli.SplitLine(line)
		if err != nil || len(words) < 2 {
			t.Errorf("%s: %q: %v", where, line, err)
			continue
		}
		cmd := cli.Lookup(words[1])
		if cmd == nil {
			t.Errorf("%s: %q: caps has no command %s", where, line, words[1])
			continue
		}
		if _, err := cli.ExampleInput(cmd, line); err != nil {
			t.Errorf("%s: %v", where, err)
		}
		n++
	}
	return n
}

// rewriteBetween replaces the text from begin to end (markers included)
// in the file at path with want, writing through a temporary file; it
// returns the text that was there.
func rewriteBetween(t *testing.T, path, begin, end, want string, update bool) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	i, j := strings.Index(page, begin), strings.Index(page, end)
	if i < 0 || j < i {
		t.Fatalf("%s: no %q ... %q markers", path, begin, end)
	}
	got := page[i : j+len(end)+1]
	if update && got != want {
		page = page[:i] + want + page[j+len(end)+1:]
		if err := os.WriteFile(path+".tmp", []byte(page), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
		return want
	}
	return got
}

// TestAgentsFile keeps the command table of AGENTS.md current and checks
// that every command line AGENTS.md shows exists with those flags.
func TestAgentsFile(t *testing.T) {
	root := repoRoot(t)
	path := filepath.Join(root, "AGENTS.md")
	want := agentsCommands()
	if got := rewriteBetween(t, path, agentsBegin, agentsEnd, want, *updateSpec); got != want {
		t.Errorf("the command list of AGENTS.md has drifted from the command table; run go test ./cmd/caps -run TestAgentsFile -update")
	}
	b, _ := os.ReadFile(path)
	prose := strings.Split(string(b), agentsBegin)[0]
	if n := checkMentions(t, "AGENTS.md", prose); n < 12 {
		t.Errorf("AGENTS.md shows only %d caps command lines", n)
	}
	for _, cmd := range cli.Commands() {
		if !strings.Contains(string(b), "| `"+strings.ReplaceAll(cmd.Usage(), "|", `\|`)+"` |") {
			t.Errorf("AGENTS.md does not list caps %s", cmd.Name)
		}
	}
}

// skillFile is the committed Codex skill (spec §25).
const skillFile = ".agents/skills/capsulang-builder/SKILL.md"

func TestSkills(t *testing.T) {
	root := repoRoot(t)
	// Every skill renders on every platform, and every command line it
	// shows exists with those flags.
	for _, s := range skills {
		for p := range skillPlatforms {
			for _, full := range []bool{false, true} {
				got := runCaps(t, "", "skills", "get", s.Name, "--platform", p, fmt.Sprintf("--full=%v", full), "--json")
				if got.code != 0 {
					t.Fatalf("%s %s: %+v", s.Name, p, got)
				}
				var sj skillJSON
				if err := json.Unmarshal([]byte(got.stdout), &sj); err != nil {
					t.Fatal(err)
				}
				if sj.Name != s.Name || sj.Platform != p || sj.Full != full || sj.Path != skillPath(s, p) {
					t.Errorf("%s %s: %+v", s.Name, p, sj)
				}
				if p != "generic" && !strings.HasPrefix(sj.Content, "---\nname: "+s.Name+"\ndescription: ") {
					t.Errorf("%s %s: no front matter:\n%.200s", s.Name, p, sj.Content)
				}
				checkMentions(t, "skill "+s.Name, sj.Content)
				if full && !strings.Contains(sj.Content, "\n## Commands\n") {
					t.Errorf("%s --full has no command reference", s.Name)
				}
			}
		}
	}
	// The full builder names every command and every pattern.
	full := renderSkill(lookupSkill("capsulang-builder"), "codex", true)
	for _, cmd := range cli.Commands() {
		if !strings.Contains(full, "- `"+cmd.Usage()+"`: ") {
			t.Errorf("the full builder skill does not list caps %s", cmd.Name)
		}
	}
	for _, p := range patterns.All() {
		if !strings.Contains(full, "- `"+p.Name+"` ") {
			t.Errorf("the full builder skill does not list the pattern %s", p.Name)
		}
	}
	// The committed Codex skill is the one caps serves.
	path := filepath.Join(root, skillFile)
	want := renderSkill(lookupSkill("capsulang-builder"), "codex", true)
	if *updateSpec {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path+".tmp", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s is not what caps skills get capsulang-builder --platform codex --full prints (go test ./cmd/caps -run TestSkills -update rewrites it): %v", skillFile, err)
	}
	// Errors: an unknown skill is bad input (exit 1) with a suggestion; a
	// bad subcommand or platform is a usage error.
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"get", "capsulang-bulder"}, 1, "caps: unknown skill \"capsulang-bulder\"; did you mean \"capsulang-builder\"? (caps skills list names them: capsulang-builder, capsulang-cli, capsulang-repair)\n"},
		{[]string{"show", "nothing-like-it"}, 1, "caps: unknown skill \"nothing-like-it\" (caps skills list names them: capsulang-builder, capsulang-cli, capsulang-repair)\n"},
		{[]string{"lst"}, 2, "caps skills: unknown subcommand \"lst\"; did you mean \"list\"?\nusage: " + cli.Lookup("skills").Usage() + "\nRun 'caps help skills' for details.\n"},
		{[]string{"get", "capsulang-cli", "--platform", "emacs"}, 2, "caps skills: unknown --platform \"emacs\": codex, claude or generic\nusage: " + cli.Lookup("skills").Usage() + "\nRun 'caps help skills' for details.\n"},
		{[]string{"get"}, 2, "caps skills: expected get NAME\nusage: " + cli.Lookup("skills").Usage() + "\nRun 'caps help skills' for details.\n"},
	} {
		got := runCaps(t, "", append([]string{"skills"}, tc.args...)...)
		if diff := cmp.Diff(runResult{tc.code, "", tc.stderr}, got, cmp.AllowUnexported(runResult{})); diff != "" {
			t.Errorf("caps skills %s (-want +got):\n%s", strings.Join(tc.args, " "), diff)
		}
	}
	got := runCaps(t, "", "skills", "list")
	want = "capsulang-builder  1.0.0   start from a pattern, write a checked .caps module, and run the daily inspection loop with --json\n" +
		"capsulang-cli      1.0.0   the conventions of every caps command: --json, exit codes, stdin, schemas, the manifest\n" +
		"capsulang-repair   1.0.0   read a diagnostic, pick a typed repair, and apply it through propose, assess and commit\n" +
		"Print one with: caps skills get NAME [--platform codex|claude] [--full]\n"
	if diff := cmp.Diff(runResult{0, want, ""}, got, cmp.AllowUnexported(runResult{})); diff != "" {
		t.Errorf("caps skills list (-want +got):\n%s", diff)
	}
}

// TestModuleManifests checks caps manifest FILE on every shipped module
// and pattern: the document validates against the manifest's schema, each
// function example's result (caps call --json) validates against the
// function's output schema, each scenario payload against its event's
// payload schema, and a machine's initial context against its context
// schema.
func TestModuleManifests(t *testing.T) {
	repoRoot(t)
	sch := compileTableSchema(t, "manifest-output", outputSchema(cli.Lookup("manifest")))
	files, _ := filepath.Glob("examples/*.caps")
	pats, _ := filepath.Glob("patterns/*.caps")
	files = append(files, pats...)
	values, payloads, contexts := 0, 0, 0
	for _, f := range files {
		if strings.Contains(filepath.Base(f), "_bad_") {
			continue
		}
		got := runCaps(t, "", "manifest", "--json", f)
		if got.code != 0 {
			t.Errorf("%s: %+v", f, got)
			continue
		}
		if err := validateJSON(sch, got.stdout); err != nil {
			t.Errorf("caps manifest --json %s: %v", f, err)
			continue
		}
		var m struct {
			Operations []struct {
				ID       string                     `json:"id"`
				Type     string                     `json:"type"`
				Schemas  map[string]json.RawMessage `json:"schemas"`
				Examples []struct{ Command string } `json:"examples"`
				Events   []struct {
					Name    string          `json:"name"`
					Payload json.RawMessage `json:"payload"`
				} `json:"events"`
			} `json:"operations"`
		}
		if err := json.Unmarshal([]byte(got.stdout), &m); err != nil {
			t.Fatal(err)
		}
		for _, op := range m.Operations {
			compile := func(kind string, raw json.RawMessage) *jsonschema.Schema {
				var s cli.Schema
				if err := json.Unmarshal(raw, &s); err != nil {
					t.Fatalf("%s %s: %v", op.ID, kind, err)
				}
				return compileTableSchema(t, op.ID+"-"+kind, s)
			}
			switch op.Type {
			case "function":
				out := compile("output", op.Schemas["output"])
				for _, ex := range op.Examples {
					words, err := cli.SplitLine(ex.Command)
					if err != nil {
						t.Fatal(err)
					}
					res := runCaps(t, "", append([]string{"call", "--json"}, words[2:]...)...)
					var r struct {
						Value json.RawMessage `json:"value"`
					}
					if err := json.Unmarshal([]byte(res.stdout), &r); err != nil || r.Value == nil {
						if res.code == 0 {
							t.Errorf("%s: no value: %+v", ex.Command, res)
						}
						continue // an example that traps has no value
					}
					if err := validateJSON(out, string(r.Value)); err != nil {
						t.Errorf("%s: the result %s does not fit the output schema: %v", ex.Command, r.Value, err)
					}
					values++
				}
			case "machine":
				name := op.ID[strings.LastIndex(op.ID, ".")+1:]
				events := map[string]*jsonschema.Schema{}
				for _, ev := range op.Events {
					events[ev.Name] = compile("payload-"+ev.Name, ev.Payload)
				}
				base := strings.TrimSuffix(filepath.Base(f), ".caps")
				scen, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "scenarios", base+"."+name+"*.json"))
				for _, sf := range scen {
					b, _ := os.ReadFile(sf)
					var sc struct {
						Events []struct {
							Event   string          `json:"event"`
							Payload json.RawMessage `json:"payload"`
						} `json:"events"`
					}
					if err := json.Unmarshal(b, &sc); err != nil {
						t.Fatalf("%s: %v", sf, err)
					}
					for _, e := range sc.Events {
						if e.Event == "" {
							continue // a step that advances the clock
						}
						s := events[e.Event]
						if s == nil {
							t.Errorf("%s: event %s is not in the manifest of %s", sf, e.Event, op.ID)
							continue
						}
						p := string(e.Payload)
						if p == "" || p == "null" {
							p = "{}"
						}
						if err := validateJSON(s, p); err != nil {
							t.Errorf("%s: the payload of %s does not fit its schema: %v", sf, e.Event, err)
						}
						payloads++
					}
				}
				ctx := compile("context", op.Schemas["context"])
				res := runCaps(t, "", "machine-run", "--json", "--mode", "dry-run", f, name)
				var r struct {
					Context json.RawMessage `json:"context"`
				}
				if err := json.Unmarshal([]byte(res.stdout), &r); err != nil || res.code != 0 {
					t.Errorf("machine-run %s %s: %+v", f, name, res)
					continue
				}
				if err := validateJSON(ctx, string(r.Context)); err != nil {
					t.Errorf("%s %s: the context %s does not fit its schema: %v", f, name, r.Context, err)
				}
				contexts++
			}
		}
	}
	t.Logf("validated %d function results, %d scenario payloads and %d machine contexts against the module manifests", values, payloads, contexts)
	if values < 20 || payloads < 20 || contexts < 10 {
		t.Errorf("too little checked: %d values, %d payloads, %d contexts", values, payloads, contexts)
	}
}
