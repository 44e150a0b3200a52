package codegen_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/codegen"
	"github.com/capsulang/caps/codegen/core"
	"github.com/capsulang/caps/codegen/internal/testutil"
	"github.com/capsulang/caps/codegen/mermaid"
	"github.com/capsulang/caps/codegen/scxml"
	"github.com/capsulang/caps/codegen/wasm"
	"github.com/capsulang/caps/syntax/ast"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/codegen")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(testutil.Root(), "testdata", "codegen", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./codegen -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; run go test ./codegen -update and review the diff\n--- got ---\n%s", name, got)
	}
}

// TestGolden pins the output of every text target for every example.
func TestGolden(t *testing.T) {
	for _, path := range testutil.Examples(t) {
		pkg := testutil.Load(t, path)
		base := strings.TrimSuffix(filepath.Base(path), ".caps")
		for _, target := range []string{"wat", "riscv64", "solidity", "lean", "xstate", "scxml", "mermaid"} {
			out, err := codegen.Compile(pkg.Result, target)
			if err != nil {
				continue // nothing to compile for this target
			}
			for _, a := range out.Artifacts {
				name := base
				if a.Name != "" {
					name += "." + a.Name
				}
				golden(t, name+"."+target+".txt", a.Data)
			}
		}
		// The plan, for every target.
		var b strings.Builder
		for _, target := range codegen.Names() {
			pl, err := codegen.PlanFor(pkg.Result, target)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s status=%s ready=%v compiled=%v skipped=%v note=%q\n", target, pl.Status, pl.Ready, pl.Compiled, pl.Skipped, pl.Note)
			for _, f := range pl.Unsupported {
				line, col := pkg.File.Source.CST.Lines.Position(f.Span.Start, 0).Line, 0
				_ = col
				fmt.Fprintf(&b, "  line %d %s: %s\n", line+1, f.Decl, f.Feature)
			}
		}
		golden(t, base+".plan.txt", []byte(b.String()))
	}
}

// TestWATAssemblesIdentically checks that wat2wasm turns the WAT text into
// exactly the bytes of the wasm target.
func TestWATAssemblesIdentically(t *testing.T) {
	tool := testutil.Tool(t, "WAT2WASM", "wabt", "wat2wasm")
	for _, path := range testutil.Examples(t) {
		pkg := testutil.Load(t, path)
		m := core.Lower(pkg.Result)
		if len(m.Funcs) == 0 {
			continue
		}
		cm, err := wasm.Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		watPath := filepath.Join(dir, "m.wat")
		os.WriteFile(watPath, []byte(cm.WAT), 0o644)
		out, err := exec.Command(tool, watPath, "-o", filepath.Join(dir, "m.wasm")).CombinedOutput()
		if err != nil {
			t.Fatalf("wat2wasm: %v\n%s", err, out)
		}
		bin, _ := os.ReadFile(filepath.Join(dir, "m.wasm"))
		if !bytes.Equal(bin, cm.Binary) {
			t.Errorf("%s: wat2wasm output (%d bytes) differs from the wasm target (%d bytes)", path, len(bin), len(cm.Binary))
		}
	}
}

// TestPlanSpans checks that unsupported features point at the offending
// source text.
func TestPlanSpans(t *testing.T) {
	pkg := testutil.LoadSource(t, `(module m
  (capsule "1")
  (function name_len (input (t Text)) (output U64) (body 1))
  (function uses (input (x U64)) (output U64) (body (name_len "a")))
  (function ok (input (x U64)) (output U64) (body (+ x 1))))
`)
	pl, err := codegen.PlanFor(pkg.Result, "wasm")
	if err != nil {
		t.Fatal(err)
	}
	src := string(pkg.Src)
	var got []string
	for _, f := range pl.Unsupported {
		got = append(got, fmt.Sprintf("%s|%s|%s", f.Decl, src[f.Span.Start:f.Span.End], f.Feature))
	}
	want := []string{
		"name_len|Text|Text values (no linear-memory ABI yet)",
		`uses|(name_len "a")|a call of name_len, which is not compiled (see its own unsupported features)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("unsupported:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fmt.Sprint(pl.Compiled) != "[ok]" || pl.Ready {
		t.Errorf("compiled %v ready %v", pl.Compiled, pl.Ready)
	}
	for _, name := range []string{"native-aarch64"} {
		p, _ := codegen.PlanFor(pkg.Result, name)
		if p.Status != codegen.NotImplemented || p.Ready {
			t.Errorf("%s: status %s ready %v", name, p.Status, p.Ready)
		}
	}
}

// TestSCXML checks that each document is well-formed XML whose states,
// transitions, data and effects match the machine.
func TestSCXML(t *testing.T) {
	for _, path := range testutil.Examples(t) {
		pkg := testutil.Load(t, path)
		res, err := scxml.Generate(pkg.Result)
		if err != nil {
			continue
		}
		for _, m := range core.Machines(pkg.Result) {
			var doc *scxml.Document
			for i := range res.Documents {
				if res.Documents[i].Machine == m.Decl.Name.Name {
					doc = &res.Documents[i]
				}
			}
			if doc == nil {
				t.Fatalf("no document for %s", m.Decl.Name.Name)
			}
			checkSCXML(t, m.Decl, doc.Source)
		}
	}
}

func checkSCXML(t *testing.T, m *ast.Machine, src string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(src))
	var states, finals, transitions, data, effects []string
	var cur string
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("%s: not well-formed XML: %v", m.Name.Name, err)
			}
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := func(name string) string {
			for _, a := range se.Attr {
				if a.Name.Local == name {
					return a.Value
				}
			}
			return ""
		}
		switch {
		case se.Name.Space == "http://www.w3.org/2005/07/scxml" && se.Name.Local == "scxml":
			if attr("initial") != m.Initial.Name || attr("name") != m.Name.Name {
				t.Errorf("root: initial %q name %q", attr("initial"), attr("name"))
			}
		case se.Name.Local == "state":
			cur = attr("id")
			states = append(states, cur)
		case se.Name.Local == "final":
			cur = attr("id")
			finals = append(finals, cur)
		case se.Name.Local == "transition":
			transitions = append(transitions, cur+" "+attr("event")+" "+attr("target"))
		case se.Name.Local == "data":
			data = append(data, attr("id"))
		case se.Name.Space == scxml.Namespace && se.Name.Local == "effect":
			effects = append(effects, attr("name")+" "+attr("target"))
		}
	}
	var wStates, wFinals, wTrans, wData, wEffects []string
	for _, f := range m.Context {
		wData = append(wData, f.Name.Name)
	}
	for _, st := range m.States {
		if st.Final {
			wFinals = append(wFinals, st.Name.Name)
		} else {
			wStates = append(wStates, st.Name.Name)
		}
		for _, tr := range st.Transitions {
			wTrans = append(wTrans, st.Name.Name+" "+tr.Event.Name+" "+tr.Target.Name)
			for _, e := range tr.Effects {
				var ts []string
				for _, x := range e.Targets {
					ts = append(ts, x.Name)
				}
				wEffects = append(wEffects, e.Name.Name+" "+strings.Join(ts, " "))
			}
		}
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"states", states, wStates}, {"finals", finals, wFinals}, {"transitions", transitions, wTrans}, {"data", data, wData}, {"effects", effects, wEffects}} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s %s: got %v, want %v", m.Name.Name, c.what, c.got, c.want)
		}
	}
}

// TestMermaidMachines checks every example machine's diagram mentions
// each state and transition.
func TestMermaidMachines(t *testing.T) {
	for _, path := range testutil.Examples(t) {
		pkg := testutil.Load(t, path)
		for _, m := range core.Machines(pkg.Result) {
			d := mermaid.StateDiagram(m.Decl)
			if !strings.Contains(d, "stateDiagram-v2") || !strings.Contains(d, "[*] --> "+m.Decl.Initial.Name) {
				t.Errorf("%s: bad diagram\n%s", m.Decl.Name.Name, d)
			}
			for _, st := range m.Decl.States {
				for _, tr := range st.Transitions {
					if !strings.Contains(d, st.Name.Name+" --> "+tr.Target.Name+" : "+tr.Event.Name) {
						t.Errorf("%s: missing transition %s -%s-> %s", m.Decl.Name.Name, st.Name.Name, tr.Event.Name, tr.Target.Name)
					}
				}
			}
		}
	}
}
