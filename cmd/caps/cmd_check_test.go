package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeFile(t *testing.T, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const checkBad = `(module t
  (capsule "1")
  (machine M (event Go) (initial idle)
    (state idle (on Go (target don)))
    (state done (type final))))
`

func TestCheckText(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.caps", checkBad)
	r := runCaps(t, "", "check", bad)
	want := bad + ":4:32: error E_UNKNOWN_STATE: unknown state `don` in machine M; did you mean `done`?\n"
	if r.code != 1 || r.stdout != "" || r.stderr != want {
		t.Fatalf("code %d\nstdout %q\nstderr %q\nwant   %q", r.code, r.stdout, r.stderr, want)
	}
	good := writeFile(t, dir, "good.caps", strings.Replace(checkBad, "(target don)", "(target done)", 1))
	if r := runCaps(t, "", "check", good); r.code != 0 || r.stderr != "" {
		t.Fatalf("good: %+v", r)
	}
}

func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a/bad.caps", checkBad)
	writeFile(t, dir, "a/good.caps", strings.Replace(checkBad, "(target don)", "(target done)", 1))
	r := runCaps(t, "", "check", "--json", dir)
	if r.code != 1 {
		t.Fatalf("code %d: %s %s", r.code, r.stdout, r.stderr)
	}
	var out struct {
		OK    bool `json:"ok"`
		Files []struct {
			Path        string `json:"path"`
			Hash        string `json:"semantic_hash"`
			Diagnostics []struct {
				Code     string `json:"code"`
				Severity string `json:"severity"`
				Range    struct {
					Start, End struct{ Line, Character int }
				} `json:"range"`
			} `json:"diagnostics"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if out.OK || len(out.Files) != 2 {
		t.Fatalf("%+v", out)
	}
	f := out.Files[0]
	if !strings.HasSuffix(f.Path, "bad.caps") || !strings.HasPrefix(f.Hash, "sha256:") || len(f.Hash) != 71 {
		t.Fatalf("file: %+v", f)
	}
	d := f.Diagnostics[0]
	if d.Code != "E_UNKNOWN_STATE" || d.Severity != "error" || d.Range.Start.Line != 3 || d.Range.Start.Character != 31 || d.Range.End.Character != 34 {
		t.Errorf("diagnostic %+v", d)
	}
}

func TestHashIgnoresFormattingAndOrder(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.caps", "(module h (capsule \"1\")\n  (function f (output I64) (body 1))\n  (function g (output I64) (body 2)))\n")
	b := writeFile(t, dir, "b.caps", "; comment\n(module h\n  (capsule \"1\")\n  (function g (output I64)\n    (body 2))\n  (function f (output I64) (body 1)))\n")
	c := writeFile(t, dir, "c.caps", "(module h (capsule \"1\")\n  (function f (output I64) (body 1))\n  (function g (output I64) (body 3)))\n")
	ha, hb, hc := runCaps(t, "", "hash", a), runCaps(t, "", "hash", b), runCaps(t, "", "hash", c)
	if ha.code != 0 || ha.stdout != hb.stdout || ha.stdout == hc.stdout || !strings.HasPrefix(ha.stdout, "sha256:") {
		t.Fatalf("%+v %+v %+v", ha, hb, hc)
	}
	ir := runCaps(t, "", "ir", "--compact", a)
	if ir.code != 0 || !strings.HasPrefix(ir.stdout, `{"capsulang_ir":1,`) {
		t.Fatalf("ir: %+v", ir)
	}
	// syntax errors stop hash
	bad := writeFile(t, dir, "bad.caps", "(module h (capsule \"1\")")
	if r := runCaps(t, "", "hash", bad); r.code != 1 || r.stdout != "" {
		t.Fatalf("hash of broken file: %+v", r)
	}
}

func TestRepairPlan(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.caps", checkBad)
	r := runCaps(t, "", "repair-plan", bad)
	want := bad + ":4:32: E_UNKNOWN_STATE unknown state `don` in machine M; did you mean `done`?\n" +
		"  1. [safe] Change `don` to `done`\n       4:32-4:35 -> \"done\"\n" +
		"  2. [review] Declare state don in machine M\n       5:30-5:30 -> \"(state don)\"\n"
	if r.code != 1 || r.stdout != want {
		t.Fatalf("code %d\n%s\nwant\n%s", r.code, r.stdout, want)
	}
	r = runCaps(t, "", "repair-plan", "--json", bad)
	var out struct {
		Files []struct {
			Plans []struct {
				Options []struct {
					ID, Safety string
					Edits      []struct {
						NewText string `json:"newText"`
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range out.Files[0].Plans {
		for _, o := range p.Options {
			got = append(got, o.ID+"/"+o.Safety+"/"+o.Edits[0].NewText)
		}
	}
	if diff := cmp.Diff([]string{"rename/safe/done", "declare-state/review/\n    (state don)"}, got); diff != "" {
		t.Error(diff)
	}
}

func TestAgentGraph(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "g.caps", `(module g (capsule "1") (profile persistence.memory)
  (store s (backend memory))
  (machine M (context (n U32)) (event Go) (initial a)
    (state a (on Go (guard (< n 3)) (target b) (assign (n 1)) (effects (db.write s.items (retry 2) (on-error a)))))
    (state b (type final))))`)
	r := runCaps(t, "", "agent-graph", "--json", good)
	if r.code != 0 {
		t.Fatalf("%+v", r)
	}
	var out struct {
		Files []struct {
			Graph struct {
				Module   string
				Machines []struct {
					Initial     string
					Final       []string
					Transitions []struct {
						From, Event, To string
						Guarded         bool
						Assigns         []string
						Effects         []struct {
							Effect, Domain, Determinism string
							Targets                     []string
							Retry                       int
							OnError                     string `json:"on_error"`
						}
					}
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	m := out.Files[0].Graph.Machines[0]
	tr := m.Transitions[0]
	e := tr.Effects[0]
	if m.Initial != "a" || m.Final[0] != "b" || tr.From != "a" || tr.To != "b" || !tr.Guarded || tr.Assigns[0] != "n" ||
		e.Effect != "db.write" || e.Targets[0] != "s.items" || e.Domain != "db" || e.Determinism != "ledgered" || e.Retry != 2 || e.OnError != "a" {
		t.Fatalf("%+v", out)
	}
	if r := runCaps(t, "", "agent-graph", good); r.code != 2 {
		t.Errorf("without --json: %+v", r)
	}
}
