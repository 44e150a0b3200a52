package ir

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ir")

const goldenDir = "../../testdata/ir"

func parseModule(t testing.TB, src string) *ast.Module {
	t.Helper()
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if f.Module == nil {
		t.Fatalf("no module in %q", src)
	}
	return f.Module
}

func mustCanonical(t testing.TB, m *ast.Module) []byte {
	t.Helper()
	c, err := Canonical(m)
	if err != nil {
		t.Fatalf("Canonical: %v", err)
	}
	return c
}

func mustHash(t testing.TB, src string) string {
	t.Helper()
	h, err := Hash(parseModule(t, src))
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	return h
}

var hashRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// TestGolden compares the IR of every fixture in testdata/ir with its
// golden file; run with -update to rewrite them.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.caps"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures in %s (%v)", goldenDir, err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".caps")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, err := ast.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			if name != "broken" {
				for _, d := range f.Diagnostics {
					t.Errorf("fixture has a diagnostic: %s %s", d.Code, d.Message)
				}
			} else if len(f.Diagnostics) == 0 {
				t.Errorf("the broken fixture has no diagnostics")
			}
			c := mustCanonical(t, f.Module)
			if !json.Valid(c) {
				t.Fatalf("canonical IR is not valid JSON:\n%s", c)
			}
			h := HashBytes(c)
			if !hashRE.MatchString(h) {
				t.Errorf("hash %q is not sha256:<64 hex>", h)
			}
			got := map[string][]byte{
				".ir.json": Indent(c),
				".hash":    []byte(h + "\n"),
			}
			for _, ext := range []string{".ir.json", ".hash"} {
				gp := filepath.Join(goldenDir, name+ext)
				if *update {
					if err := os.WriteFile(gp, got[ext], 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(gp)
				if err != nil {
					t.Fatalf("%v (run go test -update to create it)", err)
				}
				if diff := cmp.Diff(string(want), string(got[ext])); diff != "" {
					t.Errorf("%s differs from the golden file (-want +got):\n%s", gp, diff)
				}
			}
		})
	}
}

// TestCanonicalForm checks the serialization rules on every fixture: the
// indented form compacts back to the canonical bytes, and the canonical
// bytes are their own JCS re-serialization (sorted keys, no whitespace,
// minimal escaping).
func TestCanonicalForm(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.caps"))
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := ast.Parse(src)
		c := mustCanonical(t, f.Module)
		var compact bytes.Buffer
		if err := json.Compact(&compact, Indent(c)); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(compact.Bytes(), c) {
			t.Errorf("%s: Compact(Indent(c)) != c", path)
		}
		if got := reencode(t, c); !bytes.Equal(got, c) {
			t.Errorf("%s: canonical bytes are not in sorted-key compact form:\n got %s\nwant %s", path, c, got)
		}
	}
}

// reencode decodes JSON and encodes it again with encoding/json, which
// sorts map keys; with HTML escaping off its output is the JCS form for
// the values the IR uses.
func reencode(t *testing.T, c []byte) []byte {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(c))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestStringEscaping(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"plain", `"plain"`},
		{"q\"b\\", `"q\"b\\"`},
		{"\b\t\n\f\r", `"\b\t\n\f\r"`},
		{"\x00\x01\x1f\x7f", `"\u0000\u0001\u001f` + "\x7f" + `"`},
		{"<&> \u2028 é 🚢", "\"<&> \u2028 é 🚢\""},
		{"bad\xffutf8\xc3", "\"bad\uFFFDutf8\uFFFD\""},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		writeString(&b, tt.in)
		if diff := cmp.Diff(tt.want, b.String()); diff != "" {
			t.Errorf("writeString(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestLiteralNormalization(t *testing.T) {
	ints := map[string]string{
		"0": "0", "-0": "0", "000": "0", "-000": "0", "007": "7", "-0012": "-12",
		"18446744073709551615": "18446744073709551615", "0099999999999999999999999": "99999999999999999999999",
	}
	for in, want := range ints {
		lit, ok := ast.ParseNumber(in, syntax.Span{}).(*ast.IntLit)
		if !ok {
			t.Fatalf("%s is not an integer literal", in)
		}
		if got := intText(lit); got != want {
			t.Errorf("intText(%s) = %s, want %s", in, got, want)
		}
	}
	if got := intText(&ast.IntLit{Neg: true, Mag: 5}); got != "-5" {
		t.Errorf("intText without text = %s", got)
	}
	decs := map[string]string{
		"0.5": "0.5", "0.50": "0.5", "00.5": "0.5", "1.0": "1.0", "1.000": "1.0",
		"-0.0": "0.0", "-00.000": "0.0", "-2.750": "-2.75", "10.01": "10.01",
	}
	for in, want := range decs {
		if got := decimalText(in); got != want {
			t.Errorf("decimalText(%s) = %s, want %s", in, got, want)
		}
	}
}

// module wraps declarations in a module header.
func module(decls ...string) string {
	return "(module t.m\n  (capsule \"1\")\n  " + strings.Join(decls, "\n  ") + ")\n"
}

const vent = `(machine M
    (context (a U32) (b U32))
    (event E1 (x U32))
    (event E2)
    (initial s)
    (state s
      (on E1 (target s) (assign (a event.x) (b a)) (effects (db.write st.c (retry 2) (timeout 1m) (on-error t)) (a2ui.emit ui)))
      (on E2 (target t)))
    (state t (type final)))`

// TestEquivalence lists pairs of modules that must, or must not, have the
// same hash.
func TestEquivalence(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"60s is 1m", module(`(function f (output Duration) (body 60s))`), module(`(function f (output Duration) (body 1m))`), true},
		{"1h is 3600000ms", module(`(function f (output Duration) (body 1h))`), module(`(function f (output Duration) (body 3600000ms))`), true},
		{"1d is 24h in a clause", module(`(mandate M (valid-for 1d))`), module(`(mandate M (valid-for 24h))`), true},
		{"state timeout 90s is 1500ms*60", module(`(machine M (event T) (initial s) (state s (timeout 90s T) (on T (target s))))`), module(`(machine M (event T) (initial s) (state s (timeout 90000ms T) (on T (target s))))`), true},
		{"effect timeout 2m is 120s", module(`(machine M (event T) (initial s) (state s (on T (target s) (effects (ci.run (timeout 2m))))))`), module(`(machine M (event T) (initial s) (state s (on T (target s) (effects (ci.run (timeout 120s))))))`), true},
		{"leading zeros", module(`(function f (output Int) (body 007))`), module(`(function f (output Int) (body 7))`), true},
		{"minus zero", module(`(function f (output Int) (body -0))`), module(`(function f (output Int) (body 0))`), true},
		{"decimal trailing zeros", module(`(eval-suite S (metric m >= 0.50))`), module(`(eval-suite S (metric m >= 0.5))`), true},
		{"string escapes by value", module(`(function f (output Text) (body "\u{41}\t"))`), module("(function f (output Text) (body \"A\\t\"))"), true},
		{"effects pure is the default", module(`(function f (output Int) (effects pure) (body 1))`), module(`(function f (output Int) (body 1))`), true},
		{"type normal is no type", module(`(machine M (event T) (initial s) (state s (type normal) (on T (target s))))`), module(`(machine M (event T) (initial s) (state s (on T (target s))))`), true},
		{"profiles sorted and deduplicated", "(module t.m (capsule \"1\") (profile b a b))", "(module t.m (capsule \"1\") (profile a b))", true},
		{"imports sorted", "(module t.m (capsule \"1\") (import z.z) (import a.a (as x)))", "(module t.m (capsule \"1\") (import a.a (as x)) (import z.z))", true},
		{"declaration order", module(`(type A U32)`, `(function f (output A) (body 1))`, `(gate G (on-fail reject))`), module(`(gate G (on-fail reject))`, `(function f (output A) (body 1))`, `(type A U32)`), true},
		{"tool lists", module(`(port p (protocol mcp) (tool a b) (tool c))`), module(`(port p (tool c) (tool b) (protocol mcp) (tool a))`), true},
		{"collections", module(`(store s (backend memory) (collection x y))`), module(`(store s (collection y) (backend memory) (collection x))`), true},
		{"transition, assignment and option order", module(vent), module(`(machine M
    (state t (type final))
    (initial s)
    (event E2)
    (context (b U32) (a U32))
    (state s
      (on E2 (target t))
      (on E1 (effects (db.write st.c (on-error t) (timeout 60s) (retry 2)) (a2ui.emit ui)) (assign (b a) (a event.x)) (target s)))
    (event E1 (x U32)))`), true},
		{"comments and doc comments", module(";; doc\n(type A ; trailing\n U32)"), module("(type A U32)"), true},
		{"governance clauses of different keys", module(`(gate G (requires a x granted) (on-fail reject) (requires b y granted))`), module(`(gate G (on-fail reject) (requires a x granted) (requires b y granted))`), true},
		{"summary is grouped by key", module(`(function f (summary "s") (output Int) (body 1))`), module(`(function f (output Int) (body 1) (summary "s"))`), true},

		{"governance clauses of the same key", module(`(gate G (requires a x granted) (requires b y granted))`), module(`(gate G (requires b y granted) (requires a x granted))`), false},
		{"requires order", module(`(function f (input (x Int)) (output Int) (requires (> x 0)) (requires (< x 9)) (body x))`), module(`(function f (input (x Int)) (output Int) (requires (< x 9)) (requires (> x 0)) (body x))`), false},
		{"example order", module(`(function f (output Int) (example (f) 1) (example (f) 2) (body 1))`), module(`(function f (output Int) (example (f) 2) (example (f) 1) (body 1))`), false},
		{"input order", module(`(function f (input (a Int) (b Int)) (output Int) (body a))`), module(`(function f (input (b Int) (a Int)) (output Int) (body a))`), false},
		{"event field order", module(`(machine M (event E (a U32) (b U32)) (initial s) (state s (on E (target s))))`), module(`(machine M (event E (b U32) (a U32)) (initial s) (state s (on E (target s))))`), false},
		{"transition effect order", module(`(machine M (event E) (initial s) (state s (on E (target s) (effects (ci.run) (eval.run S)))))`), module(`(machine M (event E) (initial s) (state s (on E (target s) (effects (eval.run S) (ci.run)))))`), false},
		{"function effect order", module(`(function f (output Int) (effects (ci.run) (eval.run S)) (body 1))`), module(`(function f (output Int) (effects (eval.run S) (ci.run)) (body 1))`), false},
		{"enum member order", module(`(type E (enum a b))`), module(`(type E (enum b a))`), false},
		{"record field order", module(`(type R (record (a U32) (b U32)))`), module(`(type R (record (b U32) (a U32)))`), false},
		{"record, error and event types differ", module(`(type R (record (a U32)))`), module(`(type R (error (a U32)))`), false},
		{"match arm order", module(`(function f (input (x Int)) (output Int) (body (match x (0 1) (_ 2))))`), module(`(function f (input (x Int)) (output Int) (body (match x (_ 2) (0 1))))`), false},
		{"let binding order", module(`(function f (output Int) (body (let ((a 1) (b 2)) a)))`), module(`(function f (output Int) (body (let ((b 2) (a 1)) a)))`), false},
		{"operand order", module(`(function f (output Int) (body (- 2 1)))`), module(`(function f (output Int) (body (- 1 2)))`), false},
		{"integer versus decimal", module(`(eval-suite S (metric m >= 1))`), module(`(eval-suite S (metric m >= 1.0))`), false},
		{"string versus symbol", module(`(contract C (summary x))`), module(`(contract C (summary "x"))`), false},
		{"empty effect list is not pure", module(`(function f (output Int) (effects) (body 1))`), module(`(function f (output Int) (body 1))`), false},
		{"summary text", module(`(store s (backend memory) (summary "a"))`), module(`(store s (backend memory) (summary "b"))`), false},
		{"bare name versus call", module(`(function f (output Int) (body g))`), module(`(function f (output Int) (body (g)))`), false},
		{"string versus name", module(`(function f (output Text) (body "x"))`), module(`(function f (output Text) (body x))`), false},
		{"import alias", "(module t.m (capsule \"1\") (import a.a (as x)))", "(module t.m (capsule \"1\") (import a.a (as y)))", false},
		{"capsule version", "(module t.m (capsule \"1\"))", "(module t.m (capsule \"1.0\"))", false},
		{"module name", "(module t.m (capsule \"1\"))", "(module t.n (capsule \"1\"))", false},
		{"same name, different kinds", module(`(contract X)`), module(`(gate X)`), false},
		{"a repeated single-valued clause is kept", module(`(function f (version "1") (version "2") (output Int) (body 1))`), module(`(function f (version "2") (output Int) (body 1))`), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ha, hb := mustHash(t, tt.a), mustHash(t, tt.b)
			if (ha == hb) != tt.same {
				ca := mustCanonical(t, parseModule(t, tt.a))
				cb := mustCanonical(t, parseModule(t, tt.b))
				t.Errorf("same hash = %v, want %v\n a: %s\n b: %s", ha == hb, tt.same, ca, cb)
			}
		})
	}
}

func TestImportHashes(t *testing.T) {
	m := parseModule(t, "(module t.m (capsule \"1\") (import lib.units (as u)) (import lib.time))")
	hashes := map[string]string{
		"lib.units": "sha256:" + strings.Repeat("a", 64),
		"lib.time":  "sha256:" + strings.Repeat("b", 64),
	}
	opts := Options{ImportHash: func(p string) (string, error) { return hashes[p], nil }}
	c, err := opts.Canonical(m)
	if err != nil {
		t.Fatal(err)
	}
	want := `"imports":[{"hash":"sha256:` + strings.Repeat("b", 64) + `","path":"lib.time"},{"alias":"u","hash":"sha256:` + strings.Repeat("a", 64) + `","path":"lib.units"}]`
	if !bytes.Contains(c, []byte(want)) {
		t.Errorf("imports not recorded with hashes:\n%s", c)
	}
	h1, _ := opts.Hash(m)
	hashes["lib.time"] = "sha256:" + strings.Repeat("c", 64)
	h2, _ := opts.Hash(m)
	if h1 == h2 {
		t.Errorf("changing an imported module's hash did not change the importer's hash")
	}
	plain, _ := Hash(m)
	if plain == h1 || plain == h2 {
		t.Errorf("hash without import hashes equals a hash with them")
	}
	boom := errors.New("not found")
	_, err = Options{ImportHash: func(string) (string, error) { return "", boom }}.Canonical(m)
	if !errors.Is(err, boom) {
		t.Errorf("import resolution error not returned: %v", err)
	}
}

func TestVersionField(t *testing.T) {
	c := mustCanonical(t, parseModule(t, module()))
	if !bytes.HasPrefix(c, []byte(`{"capsulang_ir":1,`)) {
		t.Errorf("canonical IR does not start with the version field: %s", c)
	}
}

// TestNilAndPartial builds trees with missing parts by hand; Canonical must
// not panic and must produce valid JSON.
func TestNilAndPartial(t *testing.T) {
	if _, err := Canonical(nil); err == nil {
		t.Errorf("Canonical(nil) returned no error")
	}
	var nilFn *ast.Function
	var nilMachine *ast.Machine
	m := &ast.Module{
		Imports: []*ast.Import{nil, {}},
		Decls: []ast.Decl{
			nil, nilFn, nilMachine,
			&ast.TypeDecl{},
			&ast.TypeDecl{Def: &ast.AliasDef{}},
			&ast.TypeDecl{Def: &ast.VariantDef{Cases: []*ast.VariantCase{nil, {}}}},
			&ast.TypeDecl{Def: &ast.RecordDef{Fields: []*ast.Field{nil, {}}}},
			&ast.Function{
				Inputs:   []*ast.Field{nil},
				Effects:  &ast.EffectsClause{Items: []*ast.Effect{nil, {Retry: &ast.IntLit{}, Timeout: &ast.Duration{}}}},
				Requires: []ast.Expr{nil, (*ast.IntLit)(nil), &ast.BadExpr{}},
				Examples: []*ast.Example{nil, {}},
				Body: &ast.Do{Exprs: []ast.Expr{
					&ast.Call{}, &ast.If{}, &ast.Let{Bindings: []*ast.Binding{nil, {}}},
					&ast.RecordLit{Fields: []*ast.FieldInit{nil, {}}},
					&ast.Match{Arms: []*ast.Arm{nil, {}, {Pattern: &ast.Pattern{Kind: ast.PatCtor, Args: []*ast.Pattern{nil}}}}},
					(*ast.Name)(nil), (*ast.Call)(nil), (*ast.NoneLit)(nil), &ast.NoneLit{},
				}},
			},
			&ast.Machine{
				Clauses:     []*ast.Clause{nil, {}},
				Context:     []*ast.Field{nil},
				Events:      []*ast.Event{nil, {}},
				Persistence: &ast.Clause{Args: []*syntax.Form{nil, {Kind: syntax.FormList}}},
				States: []*ast.State{nil, {
					Timeout:     &ast.Timeout{},
					Transitions: []*ast.Transition{nil, {Assigns: []*ast.Assign{nil, {}}, Effects: []*ast.Effect{nil}}},
				}},
			},
			&ast.Store{}, &ast.Surface{Protocol: &ast.Protocol{}, Actions: []*ast.Operation{nil, {}}},
			&ast.Port{Tools: []*ast.Operation{{Clauses: []*ast.Clause{nil}}}}, &ast.Agent{},
			&ast.ClauseDecl{DeclKind: ast.KindGate, Clauses: []*ast.Clause{nil, {Args: []*syntax.Form{nil, syntax.NewAtom(syntax.FormNumber, syntax.Span{}, "1x")}}}},
		},
	}
	c, err := Canonical(m)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(c) {
		t.Fatalf("invalid JSON: %s", c)
	}
}

// TestBrokenFixture checks that a file with syntax errors still yields IR
// with its bad expressions marked.
func TestBrokenFixture(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(goldenDir, "broken.caps"))
	if err != nil {
		t.Fatal(err)
	}
	f, _ := ast.Parse(src)
	c := mustCanonical(t, f.Module)
	if !bytes.Contains(c, []byte(`{"bad":true}`)) {
		t.Errorf("broken fixture IR has no {\"bad\":true} node:\n%s", c)
	}
}

// TestHashStreamsCanonicalBytes checks that Hash, which feeds the hash as
// it encodes, hashes exactly the bytes Canonical returns, for a module
// whose IR spans many spills.
func TestHashStreamsCanonicalBytes(t *testing.T) {
	f, err := ast.Parse(gen.Module(5000))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Canonical(f.Module)
	if err != nil {
		t.Fatal(err)
	}
	if len(c) < 4*spillSize {
		t.Fatalf("canonical IR of %d bytes spans too few spills", len(c))
	}
	h, err := Hash(f.Module)
	if err != nil {
		t.Fatal(err)
	}
	if want := HashBytes(c); h != want {
		t.Errorf("Hash %s, HashBytes(Canonical) %s", h, want)
	}
}
