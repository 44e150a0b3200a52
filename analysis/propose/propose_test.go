package propose

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/syntax/ast"
)

func readExample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func module(t *testing.T, src string) *ast.Module {
	t.Helper()
	f, err := ast.Parse([]byte(src))
	if err != nil || f.Module == nil {
		t.Fatalf("parse: %v", err)
	}
	return f.Module
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q not in the source", old)
	}
	return strings.Replace(s, old, new, 1)
}

// TestEffectExpansionAlwaysCaught: every way of gaining authority shows
// up in Added with the expected kind, name and change.
func TestEffectExpansionAlwaysCaught(t *testing.T) {
	authority := readExample(t, "authority.caps")
	surface := readExample(t, "protocol_surface.caps")
	abs := readExample(t, "abs.caps")
	gov := readExample(t, "improvement_governance.caps")
	tests := []struct {
		name, src, old, new string
		kind, item, change  string
	}{
		{"effect on a pure function", abs, "(output I64)\n    (body (if (< x 0) (- 0 x) x))",
			"(output I64)\n    (effects (db.write st.log))\n    (body (if (< x 0) (- 0 x) x))", "effect", "(db.write st.log)", "added"},
		{"effect target widened", surface, "(mcp.call help_centre.find_similar (timeout 30s))",
			"(mcp.call help_centre.delete_article (timeout 30s))", "effect", "(mcp.call help_centre.delete_article)", "added"},
		{"effect in a machine", authority, "(receipt.emit payment_scheduled)", "(receipt.emit payment_scheduled)\n          (db.write receipt_log)", "effect", "(db.write receipt_log)", "added"},
		{"profile", abs, `(capsule "1.0")`, `(capsule "1.0")` + "\n  (profile agentic)", "profile", "agentic", "added"},
		{"profile added to a list", authority, "(profile agentic external.mcp", "(profile agentic external.a2a external.mcp", "profile", "external.a2a", "added"},
		{"port", abs, `(capsule "1.0")`, `(capsule "1.0")` + "\n  (port p (protocol mcp) (tool t))", "port", "p", "added"},
		{"port tool", authority, "(tool lookup_purchase_order schedule_payment)", "(tool lookup_purchase_order schedule_payment refund_payment)", "tool", "PaymentsGateway.refund_payment", "added"},
		{"port endpoint", authority, `"https://payments-gateway.internal.example.test/mcp"`, `"https://evil.example.test/mcp"`, "port", "endpoint", "widened"},
		{"agent", abs, `(capsule "1.0")`, `(capsule "1.0")` + "\n  (agent helper (protocol a2a) (skill s))", "agent", "helper", "added"},
		{"agent skill", surface, "(skill back_translate", "(skill summarize\n      (input (article_id U64))\n      (output Text))\n    (skill back_translate", "skill", "translator.summarize", "added"},
		{"agent auth", surface, "(auth bearer)", "(auth none)", "agent", "auth", "widened"},
		{"surface action", surface, "(action request_changes", "(action publish_now)\n    (action request_changes", "action", "article_review.publish_now", "added"},
		{"capability", authority, "  ;; Where the agent runs", "  (capability CapRefund (principal InvoiceAgent) (effect (mcp.call PaymentsGateway.schedule_payment)))\n  ;; Where the agent runs", "capability", "CapRefund", "added"},
		{"capability effect", authority, "(effect (mcp.call PaymentsGateway.lookup_purchase_order))", "(effect (mcp.call PaymentsGateway.schedule_payment))", "capability", "(effect (mcp.call PaymentsGateway.schedule_payment))", "added"},
		{"capability valid longer", authority, "(valid-for 10m)", "(valid-for 10h)", "capability", "valid-for", "widened"},
		{"capability limit removed", authority, "(limit single-use true)", "", "capability", "(limit single-use true)", "widened"},
		{"capability approval removed", authority, "(approval FinanceController)\n", "", "capability", "(approval FinanceController)", "widened"},
		{"trust boundary fail-open", authority, "(fail-closed true)", "(fail-closed false)", "trust-boundary", "fail-closed", "widened"},
		{"trust boundary network", authority, "(network deny-by-default)", "(network open)", "trust-boundary", "network", "widened"},
		{"trust boundary sandbox removed", authority, "(sandbox required)", "", "trust-boundary", "sandbox", "widened"},
		{"trust boundary egress", authority, "(egress-only PaymentsGateway)", "(egress-only PaymentsGateway Other)", "trust-boundary", "(egress-only Other)", "added"},
		{"trust boundary capability", authority, "(capability CapLookupPurchaseOrder CapSchedulePayment)", "(capability CapLookupPurchaseOrder CapSchedulePayment CapX)", "trust-boundary", "(capability CapX)", "added"},
		{"trust boundary removed", authority, "(trust-boundary PaymentsEnclave", "(trust-boundary-gone PaymentsEnclave", "trust-boundary", "PaymentsEnclave", "widened"},
		{"delegation may delegate", authority, "(may-delegate false)", "(may-delegate true)", "delegation", "may-delegate", "widened"},
		{"mandate longer", authority, "(valid-for 8h)", "(valid-for 80h)", "mandate", "valid-for", "widened"},
		{"policy default allow", authority, "(default deny)", "(default allow)", "authority-policy", "default", "widened"},
		{"policy allow rule", authority, `(on defer (if "context.vendor_on_hold == true"))`, `(on allow (if "true"))`, "authority-policy", `(on allow (if "true"))`, "added"},
		{"gate requirement removed", authority, "(requires approval FinanceController granted)", "", "gate", "(requires approval FinanceController granted)", "widened"},
		{"budget limit raised", gov, "(max-iterations 3)", "(max-iterations 30)", "budget", "max-iterations", "widened"},
		{"budget allow effect", gov, "(allow-effects llm.call", "(allow-effects deploy.live llm.call", "budget", "(allow-effects deploy.live)", "added"},
		{"budget deny removed", gov, "(deny-effects deploy.live secret.read model.finetune)", "(deny-effects deploy.live secret.read)", "budget", "(deny-effects model.finetune)", "widened"},
		{"successor rule removed", gov, "(forbid effect-expansion unless approval:SupportOpsLead)", "", "successor-contract", "(forbid effect-expansion unless approval:SupportOpsLead)", "widened"},
		{"store collection", authority, "(authority enclosure-receipts))", "(authority enclosure-receipts)\n    (collection secrets))", "collection", "receipt_log.secrets", "added"},
		{"store backend", authority, "(backend file)", "(backend postgres)", "store", "backend", "widened"},
		{"telemetry dropped", authority, "(tamper-evident true)", "(tamper-evident false)", "telemetry-obligation", "tamper-evident", "widened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := replaceOnce(t, tt.src, tt.old, tt.new)
			d := CompareAuthority(module(t, tt.src), module(t, cand))
			if !d.Expansion {
				t.Fatalf("expansion not caught; removed: %+v", d.Removed)
			}
			for _, it := range d.Added {
				if it.Kind == tt.kind && it.Name == tt.item && it.Change == tt.change {
					return
				}
			}
			t.Fatalf("no %s %s %s in %+v", tt.change, tt.kind, tt.item, d.Added)
		})
	}
}

func TestNarrowingIsNotExpansion(t *testing.T) {
	authority := readExample(t, "authority.caps")
	tests := []struct{ name, old, new string }{
		{"shorter capability", "(valid-for 10m)", "(valid-for 5m)"},
		{"tool removed", "(tool lookup_purchase_order schedule_payment)", "(tool lookup_purchase_order)"},
		{"limit added", "(valid-for 10m)", "(valid-for 10m)\n    (limit single-use true)"},
		{"gate requirement added", "(on-fail reject)", "(requires ledgered true)\n    (on-fail reject)"},
		{"summary changed", `(summary "Sandboxed, attested, egress only through the payments gateway.")`, `(summary "Sandboxed.")`},
		{"comment and layout", "(mode enforce)\n    (fail-closed true)", ";; strict\n    (mode enforce) (fail-closed true)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cand := replaceOnce(t, authority, tt.old, tt.new)
			if d := CompareAuthority(module(t, authority), module(t, cand)); d.Expansion {
				t.Fatalf("narrowing reported as expansion: %+v", d.Added)
			}
		})
	}
	// A new file: everything it grants is added.
	d := CompareAuthority(nil, module(t, authority))
	if !d.Expansion || len(d.Added) < 10 {
		t.Fatalf("new module: %+v", d.Added)
	}
}

func TestDiffApplyRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	words := []string{"a\n", "b\n", "c\n", "(x)\n", "\n", "  y\n", "z"}
	gen := func(n int) []byte {
		var b strings.Builder
		for i := 0; i < n; i++ {
			w := words[rng.Intn(len(words)-1)]
			b.WriteString(w)
		}
		if rng.Intn(3) == 0 {
			b.WriteString("z") // no final newline
		}
		return []byte(b.String())
	}
	for i := 0; i < 300; i++ {
		a := gen(rng.Intn(30))
		b := append([]byte(nil), a...)
		// Random edits of a.
		lines := splitLines(b)
		for k := rng.Intn(4); k >= 0 && len(lines) > 0; k-- {
			j := rng.Intn(len(lines))
			switch rng.Intn(3) {
			case 0:
				lines = append(lines[:j], lines[j+1:]...)
			case 1:
				lines = append(lines[:j], append([]string{"new\n"}, lines[j:]...)...)
			default:
				lines[j] = "changed\n"
			}
		}
		b = []byte(strings.Join(lines, ""))
		if rng.Intn(5) == 0 {
			b = gen(rng.Intn(10))
		}
		d := UnifiedDiff("f.caps", a, true, b)
		if d == "" {
			if string(a) != string(b) {
				t.Fatalf("empty diff for different texts")
			}
			continue
		}
		fps, err := ParsePatch([]byte(d))
		if err != nil {
			t.Fatalf("parse of our own diff: %v\n%s", err, d)
		}
		got, err := fps[0].Apply(a)
		if err != nil || string(got) != string(b) {
			t.Fatalf("round trip failed: %v\nA=%q\nB=%q\nGOT=%q\nDIFF:\n%s", err, a, b, got, d)
		}
		add, rem := LineStats(a, b)
		na, nr := 0, 0
		for _, l := range strings.Split(d, "\n")[2:] {
			if strings.HasPrefix(l, "+") {
				na++
			} else if strings.HasPrefix(l, "-") {
				nr++
			}
		}
		if na != add || nr != rem {
			t.Fatalf("line stats +%d -%d disagree with the diff:\n%s", add, rem, d)
		}
	}
}

func TestPatchErrors(t *testing.T) {
	src := []byte("one\ntwo\nthree\nfour\nfive\n")
	tests := []struct{ name, patch, want, err string }{
		{"offset", "--- a/f.caps\n+++ b/f.caps\n@@ -1,2 +1,2 @@\n three\n-four\n+FOUR\n", "one\ntwo\nthree\nFOUR\nfive\n", ""},
		{"mismatch", "--- a/f.caps\n+++ b/f.caps\n@@ -2,2 +2,2 @@\n two\n-tree\n+3\n", "", `line 3 is "three" but the patch expects "tree"`},
		{"short hunk", "--- a/f.caps\n+++ b/f.caps\n@@ -2,3 +2,3 @@\n two\n-three\n", "", "ends early"},
		{"bad header", "--- a/f.caps\n+++ b/f.caps\n@@ -x +1 @@\n", "", "malformed hunk header"},
		{"no headers", "hello\n", "", "not a unified diff"},
		{"insert at start", "--- a/f.caps\n+++ b/f.caps\n@@ -0,0 +1 @@\n+zero\n", "zero\none\ntwo\nthree\nfour\nfive\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fps, err := ParsePatch([]byte(tt.patch))
			var got []byte
			if err == nil {
				got, err = fps[0].Apply(src)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	allowed := []string{"caps", "go"}
	tests := []struct {
		line string
		want []string
		err  string
	}{
		{"caps check examples", []string{"caps", "check", "examples"}, ""},
		{`go test './...' "-run=X Y"`, []string{"go", "test", "./...", "-run=X Y"}, ""},
		{"caps check x; rm -rf /", nil, "shell syntax"},
		{"caps check $(pwd)", nil, "shell syntax"},
		{"caps check `pwd`", nil, "shell syntax"},
		{"caps check x | cat", nil, "shell syntax"},
		{"caps check x > out", nil, "shell syntax"},
		{"caps check x && go vet", nil, "shell syntax"},
		{`caps check "$HOME"`, nil, "not allowed"},
		{"sh -c 'caps check'", nil, "not in the allow-list"},
		{"/usr/bin/caps check", nil, "bare name"},
		{"caps check 'x", nil, "unterminated"},
		{"", nil, "empty"},
	}
	for _, tt := range tests {
		got, err := ParseCommand(tt.line, allowed)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseCommand(%q) = %v, %v; want error %q", tt.line, got, err, tt.err)
			}
			continue
		}
		if err != nil || strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("ParseCommand(%q) = %q, %v; want %q", tt.line, got, err, tt.want)
		}
	}
}

func tempWorkspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	root := t.TempDir()
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(root, MetaDir), 0o755)
	ws, err := OpenWorkspace(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestTargetPathsRefused(t *testing.T) {
	ws := tempWorkspace(t, map[string]string{
		"a.caps":                   "(module a (capsule \"1\"))",
		"sub/b.caps":               "(module b (capsule \"1\"))",
		"notes.txt":                "x",
		".git/config.caps":         "x",
		".caps/ledger/x.caps":      "x",
		"vendor/lib.caps":          "(module lib (capsule \"1\"))",
		".caps/policy.json":        `{"forbidden_paths": ["vendor/**", "sub/secret.caps"]}`,
		"sub/secret.caps":          "(module s (capsule \"1\"))",
		"../outside-ws/other.caps": "",
	})
	ws, _ = OpenWorkspace(ws.Root, nil) // with the policy
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "o.caps"), []byte("(module o)"), 0o644)
	os.Symlink(filepath.Join(outside, "o.caps"), filepath.Join(ws.Root, "link.caps"))
	os.Symlink(outside, filepath.Join(ws.Root, "linkdir"))
	os.Symlink(filepath.Join(ws.Root, "a.caps"), filepath.Join(ws.Root, "inside-link.caps"))
	tests := []struct{ path, err string }{
		{"a.caps", ""},
		{"sub/b.caps", ""},
		{"sub/new.caps", ""},
		{"../x.caps", "outside the workspace"},
		{"sub/../../x.caps", "outside the workspace"},
		{outside + "/o.caps", "outside the workspace"},
		{"link.caps", "symbolic link"},
		{"inside-link.caps", "symbolic link"},
		{"linkdir/o.caps", "outside the workspace"},
		{".git/config.caps", ".git"},
		{".caps/ledger/x.caps", ".caps folder"},
		{".caps/ledger/evolution.jsonl", ".caps folder"},
		{"notes.txt", "not a .caps file"},
		{"sub", "folder"},
		{"vendor/lib.caps", "forbidden by the workspace policy"},
		{"sub/secret.caps", "forbidden"},
		{"nodir/x.caps", "folder does not exist"},
	}
	for _, tt := range tests {
		p := tt.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(ws.Root, p)
		}
		rel, err := ws.Target(p)
		if tt.err == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.path, err)
			} else if rel != filepath.ToSlash(filepath.Clean(tt.path)) {
				t.Errorf("%s: rel %s", tt.path, rel)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error %v, want %q", tt.path, err, tt.err)
		}
	}
	// Patch paths: relative to the root, never absolute.
	for _, p := range []string{"/etc/x.caps", "../x.caps", ".git/x.caps"} {
		if _, err := ws.TargetRel(p); err == nil {
			t.Errorf("TargetRel(%q) accepted", p)
		}
	}
}

func TestDeltaDeterministic(t *testing.T) {
	base := readExample(t, "abs.caps")
	delta := `{
	  "requirements": ["clamp must stay pure", "add a sign function"],
	  "assumptions": ["inputs fit in I64"],
	  "open_holes": ["what is sign(0)?"],
	  "profiles": ["agentic"],
	  "declarations": [
	    {"kind": "function", "name": "sign", "doc": "The sign of x.",
	     "clauses": [["input", ["x", "I64"]], ["output", "I64"],
	                 ["body", ["if", ["<", "x", 0], -1, ["if", [">", "x", 0], 1, 0]]],
	                 ["example", ["sign", -5], -1]]},
	    {"kind": "function", "name": "abs_i64", "doc": "Absolute value.",
	     "source": "(function abs_i64 (input (x I64)) (output I64) (body (if (< x 0) (- 0 x) x)) (example (abs_i64 -7) 7))"},
	    {"kind": "contract", "name": "StaysPure", "clauses": [["summary", {"text": "No effects \"ever\"."}]]}
	  ]}`
	d1, err := ParseDelta([]byte(delta))
	if err != nil {
		t.Fatal(err)
	}
	out1, err := d1.Synthesize([]byte(base), true)
	if err != nil {
		t.Fatal(err)
	}
	// The same delta with its lists in another order gives the same bytes.
	var m map[string]any
	json.Unmarshal([]byte(delta), &m)
	m["requirements"] = []any{"add a sign function", "clamp must stay pure", "clamp must stay pure"}
	decls := m["declarations"].([]any)
	decls[0], decls[2] = decls[2], decls[0]
	b, _ := json.Marshal(m)
	d2, err := ParseDelta(b)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := d2.Synthesize([]byte(base), true)
	if string(out1) != string(out2) {
		t.Fatalf("not deterministic:\n%s\n---\n%s", out1, out2)
	}
	s := string(out1)
	for _, want := range []string{"(profile agentic)", ";; open hole: what is sign(0)?", ";; requirement: add a sign function\n", "(function sign", "(contract StaysPure", `"No effects \"ever\"."`, ";; Absolute value.\n  (function abs_i64"} {
		if !strings.Contains(s, want) {
			t.Errorf("synthesized source lacks %q:\n%s", want, s)
		}
	}
	if strings.Count(s, "(function abs_i64") != 1 {
		t.Errorf("abs_i64 not replaced in place:\n%s", s)
	}
	// A new file.
	nd, _ := ParseDelta([]byte(`{"module": "x.y", "declarations": [{"kind": "function", "name": "one", "clauses": [["output", "U32"], ["body", 1]]}]}`))
	out, err := nd.Synthesize(nil, false)
	if err != nil || string(out) != "(module x.y\n  (capsule \"1.0\")\n\n  (function one\n    (output U32)\n    (body 1)))\n" {
		t.Fatalf("new file: %v\n%s", err, out)
	}
	// Bad deltas.
	for _, bad := range []string{
		`{"declarations": [{"kind": "funktion", "name": "x", "source": "(funktion x)"}]}`,
		`{"declarations": [{"kind": "function", "name": "x", "source": "(function y)"}]}`,
		`{"declarations": [{"kind": "function", "name": "x", "clauses": [["body", "a b"]]}]}`,
		`{"declarations": [{"kind": "function", "name": "x"}]}`,
		`{"extra": 1}`,
	} {
		d, err := ParseDelta([]byte(bad))
		if err == nil {
			_, err = d.Synthesize([]byte(base), true)
		}
		if err == nil {
			t.Errorf("bad delta accepted: %s", bad)
		}
	}
}

func TestErrorSignature(t *testing.T) {
	a := ErrorSignature("E_EFFECT_NOT_DECLARED", "function note performs (db.write db.log) but does not declare it; add it to (effects ...)")
	b := ErrorSignature("E_EFFECT_NOT_DECLARED", "function keep_it performs (mcp.call port.tool) but does not declare it; add it to (effects ...)")
	c := ErrorSignature("E_UNKNOWN_NAME", "unknown name `foo`; did you mean `for`?")
	d := ErrorSignature("E_UNKNOWN_NAME", "unknown name `bar`; did you mean `baz`?")
	e := ErrorSignature("E_UNKNOWN_NAME", "unknown name `bar`")
	if a != b || c != d || c == e || a == c {
		t.Fatalf("signatures: %s %s %s %s %s", a, b, c, d, e)
	}
	if !strings.HasPrefix(a, "errsig:E_EFFECT_NOT_DECLARED:") || len(a) != len("errsig:E_EFFECT_NOT_DECLARED:")+8 {
		t.Fatalf("format: %s", a)
	}
}

// TestAssessVerdicts runs Assess on small workspaces.
func TestAssessVerdicts(t *testing.T) {
	base := `(module m
  (capsule "1.0")
  (store st (backend memory) (authority runtime-state) (collection log))
  (contract Keep (summary "kept"))
  (successor-contract Succ
    (preserve contract:Keep)
    (forbid effect-expansion unless approval:Owner))
  (budget B (max-lines 20) (deny-effects secret.read))
  (function f (input (x U32)) (output U32) (body x) (example (f 1) 1)))
`
	tests := []struct {
		name     string
		old, new string
		policy   string
		verdict  string
		rule     string
		roles    []string
	}{
		{"pass", "(example (f 1) 1)", "(example (f 1) 1) (example (f 2) 2)", "", Pass, "", nil},
		{"new error", "(body x)", "(body y)", "", Fail, "new-error", nil},
		{"example fails", "(example (f 1) 1)", "(example (f 1) 2)", "", Fail, "new-error", nil},
		{"effect expansion", "(output U32) (body x)", "(output U32) (effects (db.write st.log)) (body (do (db.write st.log x) x))", "", NeedsApproval, "authority-expansion", []string{"Owner"}},
		{"denied effect", "(output U32) (body x)", "(output U32) (effects (secret.read)) (body (do (secret.read) x))", "", Fail, "budget", nil},
		{"contract not preserved", `(summary "kept")`, `(summary "changed")`, "", Fail, "successor-contract", nil},
		{"budget lines", "(body x)", "(body x)" + strings.Repeat("\n  ;; pad", 25), "", Fail, "budget", nil},
		{"policy lines", "(body x)", "(body x)\n ;; a\n ;; b", `{"max_lines": 2}`, Fail, "blast-radius", nil},
		{"validation refused", "(body x)", "(body (+ x 0))", `{"validation": [{"name": "evil", "command": "caps check; rm -rf /"}]}`, Fail, "validation", nil},
		{"no module", "(module m", "(modul m", "", Fail, "new-error", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"m.caps": base}
			if tt.policy != "" {
				files[".caps/policy.json"] = tt.policy
			}
			ws := tempWorkspace(t, files)
			cand := replaceOnce(t, base, tt.old, tt.new)
			p, err := Build(ws, Request{Kind: FromCandidate, Targets: []string{filepath.Join(ws.Root, "m.caps")}, Candidate: []byte(cand)}, testHooks)
			if err != nil {
				t.Fatal(err)
			}
			p.ID = "p-0000000000000000"
			a := Assess(ws, AssessInput{Proposal: p, Now: "now"}, testHooks)
			if a.Verdict != tt.verdict {
				t.Fatalf("verdict %s, want %s: %+v", a.Verdict, tt.verdict, a.Reasons)
			}
			if tt.rule != "" {
				found := false
				for _, r := range a.Reasons {
					found = found || r.Rule == tt.rule
				}
				if !found {
					t.Fatalf("no %s reason in %+v", tt.rule, a.Reasons)
				}
			}
			var roles []string
			for _, ap := range a.Approvals {
				if ap.Role != "" {
					roles = append(roles, ap.Role)
				}
			}
			if tt.roles != nil && fmt.Sprint(roles) != fmt.Sprint(tt.roles) {
				t.Fatalf("approval roles %v, want %v", roles, tt.roles)
			}
			if a.Confidence < 0 || a.Confidence > 1 {
				t.Fatalf("confidence %v", a.Confidence)
			}
			// The JSON contract's fields are all there.
			b, _ := json.Marshal(a)
			var m map[string]any
			json.Unmarshal(b, &m)
			for _, k := range []string{"id", "verdict", "reasons", "confidence", "blast_radius", "parent_hash", "candidate_hash", "authority_delta", "diagnostics", "tests"} {
				if _, ok := m[k]; !ok {
					t.Fatalf("assessment JSON lacks %q", k)
				}
			}
		})
	}
}
