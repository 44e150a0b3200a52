package codes_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	goast "go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/capsule"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/analysis/verify"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

var update = flag.Bool("update", false, "rewrite docs/diagnostics.md from codes.json")

// repoRoot is the module root, relative to this package.
const repoRoot = "../.."

var codeRE = regexp.MustCompile(`^[EWI]_[A-Z_]+$`)

// checkerCodes reads analysis/check/check.go and returns its constants whose
// values are diagnostic codes (name -> value). Values defined elsewhere
// (syntax.CodeParse) are followed through the other packages' sources, so
// a code added to check.go is found without running the checker.
func checkerCodes(t *testing.T) map[string]string {
	t.Helper()
	r := &constResolver{t: t, fset: token.NewFileSet(), pkgs: map[string]map[string]*constDef{}}
	r.module = readModulePath(t)
	file := filepath.Join(repoRoot, "analysis", "check", "check.go")
	f, err := parser.ParseFile(r.fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	imports := fileImports(f)
	out := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*goast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*goast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				v, ok := r.resolve(filepath.Dir(file), imports, vs.Values[i], 0)
				if ok && codeRE.MatchString(v) {
					out[name.Name] = v
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no diagnostic code constants in %s", file)
	}
	return out
}

// commandPackages are the packages whose code constants are reported by
// commands (source "command"), relative to the repository root.
var commandPackages = []string{"codegen/protocol"}

// commandCodes returns the code values of the constants of the command
// packages.
func commandCodes(t *testing.T) map[string]bool {
	t.Helper()
	r := &constResolver{t: t, fset: token.NewFileSet(), pkgs: map[string]map[string]*constDef{}}
	r.module = readModulePath(t)
	out := map[string]bool{}
	for _, p := range commandPackages {
		dir := filepath.Join(repoRoot, filepath.FromSlash(p))
		for _, d := range r.consts(dir) {
			if v, ok := r.resolve(dir, d.imports, d.expr, 0); ok && codeRE.MatchString(v) {
				out[v] = true
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("found no diagnostic code constants in %s", strings.Join(commandPackages, ", "))
	}
	return out
}

type constDef struct {
	expr    goast.Expr
	imports map[string]string
}

type constResolver struct {
	t      *testing.T
	fset   *token.FileSet
	module string
	pkgs   map[string]map[string]*constDef // dir -> const name -> definition
}

func readModulePath(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.TrimSpace(rest)
		}
	}
	t.Fatal("go.mod has no module line")
	return ""
}

func fileImports(f *goast.File) map[string]string {
	m := map[string]string{}
	for _, im := range f.Imports {
		p, _ := strconv.Unquote(im.Path.Value)
		name := p[strings.LastIndexByte(p, '/')+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		m[name] = p
	}
	return m
}

// consts indexes the constants of the package in dir.
func (r *constResolver) consts(dir string) map[string]*constDef {
	if m, ok := r.pkgs[dir]; ok {
		return m
	}
	m := map[string]*constDef{}
	r.pkgs[dir] = m
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(r.fset, path, nil, 0)
		if err != nil {
			r.t.Fatal(err)
		}
		imports := fileImports(f)
		for _, d := range f.Decls {
			if gd, ok := d.(*goast.GenDecl); ok && gd.Tok == token.CONST {
				for _, spec := range gd.Specs {
					vs := spec.(*goast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							m[name.Name] = &constDef{expr: vs.Values[i], imports: imports}
						}
					}
				}
			}
		}
	}
	return m
}

// resolve evaluates a constant string expression: a literal, a constant
// of the same package, or pkg.Name of a package in this module.
func (r *constResolver) resolve(dir string, imports map[string]string, e goast.Expr, depth int) (string, bool) {
	if depth > 10 {
		return "", false
	}
	switch e := e.(type) {
	case *goast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *goast.Ident:
		if d := r.consts(dir)[e.Name]; d != nil {
			return r.resolve(dir, d.imports, d.expr, depth+1)
		}
	case *goast.SelectorExpr:
		pkg, ok := e.X.(*goast.Ident)
		if !ok {
			return "", false
		}
		path, ok := imports[pkg.Name]
		if !ok || !strings.HasPrefix(path, r.module) {
			return "", false
		}
		pdir := filepath.Join(repoRoot, filepath.FromSlash(strings.TrimPrefix(path, r.module)))
		if d := r.consts(pdir)[e.Sel.Name]; d != nil {
			return r.resolve(pdir, d.imports, d.expr, depth+1)
		}
	case *goast.ParenExpr:
		return r.resolve(dir, imports, e.X, depth+1)
	}
	return "", false
}

// TestEveryCheckerCodeIsDocumented: a new code constant in package check
// fails here until codes.json documents it, and no entry outlives its code.
func TestEveryCheckerCodeIsDocumented(t *testing.T) {
	consts := checkerCodes(t)
	values := map[string]bool{}
	for name, v := range consts {
		values[v] = true
		if codes.Lookup(v) == nil {
			t.Errorf("check.%s = %q has no entry in analysis/codes/codes.json", name, v)
		}
	}
	capsuleCodes := map[string]bool{}
	for _, v := range capsule.Codes {
		capsuleCodes[v] = true
		if c := codes.Lookup(v); c == nil || c.Source != codes.SourceCapsule {
			t.Errorf("capsule code %s has no entry of source %q in analysis/codes/codes.json", v, codes.SourceCapsule)
		}
	}
	commands := commandCodes(t)
	for _, c := range codes.All() {
		switch {
		case c.Source == codes.SourceCapsule:
			if !capsuleCodes[c.Code] {
				t.Errorf("codes.json documents %s as a capsule code, which is not in capsule.Codes", c.Code)
			}
		case c.Source == codes.SourceCommand && !commands[c.Code]:
			t.Errorf("codes.json documents command code %s, which is not a code constant of a command package (%s)", c.Code, strings.Join(commandPackages, ", "))
		case c.Source != codes.SourceCommand && !values[c.Code]:
			t.Errorf("codes.json documents %s, which is not a code constant in analysis/check/check.go", c.Code)
		}
	}
	for v := range commands {
		if c := codes.Lookup(v); c == nil || c.Source != codes.SourceCommand {
			t.Errorf("command code %s has no entry of source %q in analysis/codes/codes.json", v, codes.SourceCommand)
		}
	}
	// The resolver must have followed the codes defined in other packages.
	for name, want := range map[string]string{"ParseError": check.ParseError, "UnknownForm": check.UnknownForm, "MissingClause": check.MissingClause, "BadLiteral": check.BadLiteral, "UnknownState": check.UnknownState} {
		if consts[name] != want {
			t.Errorf("read check.%s as %q, want %q", name, consts[name], want)
		}
	}
}

var semverRE = regexp.MustCompile(`^\d+\.\d+\.\d+$`)

func TestEntriesAreWellFormed(t *testing.T) {
	all := codes.All()
	if len(all) == 0 {
		t.Fatal("no codes")
	}
	for i, c := range all {
		if i > 0 && all[i-1].Code >= c.Code {
			t.Errorf("All() is not sorted: %s before %s", all[i-1].Code, c.Code)
		}
		if !codeRE.MatchString(c.Code) {
			t.Errorf("%s: malformed code", c.Code)
		}
		want := map[byte]string{'E': "error", 'W': "warning", 'I': "info"}[c.Code[0]]
		if c.Severity != want {
			t.Errorf("%s: severity %q, want %q (from its prefix)", c.Code, c.Severity, want)
		}
		if c.Source != codes.SourceChecker && c.Source != codes.SourceRuntime && c.Source != codes.SourceCommand && c.Source != codes.SourceCapsule && c.Source != codes.SourceVerifier {
			t.Errorf("%s: source %q, want %q, %q, %q, %q or %q", c.Code, c.Source, codes.SourceChecker, codes.SourceRuntime, codes.SourceCommand, codes.SourceCapsule, codes.SourceVerifier)
		}
		if (c.Source == codes.SourceCommand) != (len(c.Command) > 0 && len(c.FixedCommand) > 0) {
			t.Errorf("%s: command and fixed_command are required for source %q, and only for it", c.Code, codes.SourceCommand)
		}
		if !semverRE.MatchString(c.Since) {
			t.Errorf("%s: since %q is not a version such as 0.1.0", c.Code, c.Since)
		}
		if c.Title == "" || len(c.Title) > 40 || strings.HasSuffix(c.Title, ".") {
			t.Errorf("%s: title %q should be a few words without a full stop", c.Code, c.Title)
		}
		if n := sentences(c.Summary); n < 1 || n > 3 {
			t.Errorf("%s: summary has %d sentences, want 1 to 3: %q", c.Code, n, c.Summary)
		}
		if c.Fix == "" || c.Example == "" || c.Fixed == "" {
			t.Errorf("%s: example, fix and fixed are all required", c.Code)
		}
		if c.Example == c.Fixed && c.Source != codes.SourceRuntime && c.Source != codes.SourceCommand {
			t.Errorf("%s: the fixed module is the example unchanged", c.Code)
		}
		if got, want := codes.DocURL(c.Code), codes.DocsBase+"#"+strings.ToLower(c.Code); got != want {
			t.Errorf("DocURL(%s) = %q, want %q", c.Code, got, want)
		}
	}
}

// sentences counts the sentences of a summary (full stops followed by a
// space or the end; code spans are skipped).
func sentences(s string) int {
	n := 0
	inCode := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '`':
			inCode = !inCode
		case !inCode && (s[i] == '.' || s[i] == '?' || s[i] == '!') && (i+1 == len(s) || s[i+1] == ' '):
			n++
		}
	}
	return n
}

func TestLookup(t *testing.T) {
	if c := codes.Lookup("E_UNKNOWN_STATE"); c == nil || c.Code != check.UnknownState {
		t.Fatalf("Lookup(E_UNKNOWN_STATE) = %v", c)
	}
	if c := codes.Lookup(" e_unknown_state "); c == nil || c.Code != "E_UNKNOWN_STATE" {
		t.Errorf("Lookup ignores case and spaces: got %v", c)
	}
	if c := codes.Lookup("E_NO_SUCH_CODE"); c != nil {
		t.Errorf("Lookup(E_NO_SUCH_CODE) = %v, want nil", c)
	}
	if got, want := codes.DocURL("E_UNKNOWN_STATE"), "https://capsulang.dev/docs/diagnostics#e_unknown_state"; got != want {
		t.Errorf("DocURL = %q, want %q", got, want)
	}
	if got := codes.DocURL("E_NO_SUCH_CODE"); got != "" {
		t.Errorf("DocURL of an unknown code = %q, want empty", got)
	}
	a := codes.All()
	a[0] = nil
	if codes.All()[0] == nil {
		t.Error("All returns the package's own slice")
	}
}

// checkSource checks src the way caps check does, with the real loader:
// the code's other modules are written under a fresh import root as
// a/b.caps for module a.b, and so is src (as example.caps when it names
// no module), so that an import, a cycle or a missing module behaves as
// it does for a user who copies the example.
func checkSource(t *testing.T, c *codes.Code, what, src string) (*check.Result, []byte) {
	t.Helper()
	root := t.TempDir()
	for name, mod := range c.Modules {
		writeModule(t, root, name, mod)
	}
	entry := filepath.Join(root, "example.caps")
	if f, err := ast.Parse([]byte(src)); err == nil && f.Module != nil && moduleFileRE.MatchString(f.Module.Name.Name) {
		if _, other := c.Modules[f.Module.Name.Name]; other {
			t.Fatalf("%s: the %s module is also one of the code's modules", c.Code, what)
		}
		entry = writeModule(t, root, f.Module.Name.Name, src)
	} else if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	l := &load.Loader{Roots: []string{root}}
	p, err := l.Load(entry)
	if err != nil {
		t.Fatalf("%s: %s: %v", c.Code, what, err)
	}
	return p.Result, p.Src
}

// moduleFileRE matches the module names the loader can find as files.
var moduleFileRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$`)

// writeModule writes module name's source under root as the loader looks
// for it, and returns the file's path.
func writeModule(t *testing.T, root, name, src string) string {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(strings.ReplaceAll(name, ".", "/"))+".caps")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func describe(src []byte, f *ast.File, ds []syntax.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		r := f.Source.CST.Lines.Range(d.Span, syntax.UTF16)
		fmt.Fprintf(&b, "\n\t%d:%d %s %q: %s", r.Start.Line+1, r.Start.Character+1, d.Code, src[d.Span.Start:d.Span.End], d.Message)
	}
	return b.String()
}

// TestExamples: each checker code's example produces that code (and only
// that code, so the example teaches one thing), and each fixed module
// checks clean. Runtime codes are about examples the checker accepts: both
// of their modules check clean and contain a function example.
func TestExamples(t *testing.T) {
	for _, c := range codes.All() {
		t.Run(c.Code, func(t *testing.T) {
			if c.Source == codes.SourceCapsule {
				capsuleExample(t, c)
				return
			}
			for name, src := range c.Modules {
				f, err := ast.Parse([]byte(src))
				if err != nil || f.Module == nil || f.Module.Name.Name != name {
					t.Errorf("modules[%q] does not hold (module %s ...)", name, name)
				}
			}
			ex, exSrc := checkSource(t, c, "example", c.Example)
			fixed, fixedSrc := checkSource(t, c, "fixed", c.Fixed)
			if len(fixed.Diagnostics) > 0 {
				t.Errorf("the fixed module does not check clean:%s", describe(fixedSrc, fixed.File, fixed.Diagnostics))
			}
			if c.Source == codes.SourceCommand {
				// The command's own test (cmd/caps TestCommandCodes) runs
				// the invocations; the module itself checks clean.
				if len(ex.Diagnostics) > 0 {
					t.Errorf("a command code's example must pass the checker:%s", describe(exSrc, ex.File, ex.Diagnostics))
				}
				return
			}
			if c.Source == codes.SourceVerifier {
				if len(ex.Diagnostics) > 0 {
					t.Errorf("a verifier code's example must pass the checker:%s", describe(exSrc, ex.File, ex.Diagnostics))
				}
				verifierExample(t, c, ex, fixed)
				return
			}
			if c.Source == codes.SourceRuntime {
				if len(ex.Diagnostics) > 0 {
					t.Errorf("a runtime code's example must pass the checker:%s", describe(exSrc, ex.File, ex.Diagnostics))
				}
				if len(ex.Examples) == 0 || len(fixed.Examples) == 0 {
					t.Errorf("a runtime code's modules must contain a function example")
				}
				return
			}
			found := false
			var others []syntax.Diagnostic
			for _, d := range ex.Diagnostics {
				if d.Code == c.Code {
					found = true
					if want := map[string]syntax.Severity{"error": syntax.Error, "warning": syntax.Warning, "info": syntax.Info}[c.Severity]; d.Severity != want {
						t.Errorf("the example reports %s as %v, documented as %s", c.Code, d.Severity, c.Severity)
					}
				} else {
					others = append(others, d)
				}
			}
			if !found {
				t.Errorf("the example does not produce %s; it produces:%s", c.Code, describe(exSrc, ex.File, ex.Diagnostics))
			}
			if len(others) > 0 {
				t.Errorf("the example produces other codes too:%s", describe(exSrc, ex.File, others))
			}
		})
	}
}

// capsuleExample: a capsule code's example contract produces that code
// and no other, and its fixed contract checks clean.
func capsuleExample(t *testing.T, c *codes.Code) {
	_, diags := capsule.Check([]byte(c.Example))
	found := false
	for _, d := range diags {
		if d.Code == c.Code {
			found = true
		} else {
			t.Errorf("the example produces %s too: %s", d.Code, d.Message)
		}
	}
	if !found {
		t.Errorf("the example does not produce %s; it produces %v", c.Code, diags)
	}
	if con, diags := capsule.Check([]byte(c.Fixed)); len(diags) > 0 || con.IR == nil {
		t.Errorf("the fixed contract does not check clean: %v", diags)
	}
}

// verifierExample checks a verifier code's modules with Z3: the example
// has a refuted obligation the interpreter confirms, the fixed module none.
// Without z3 it is skipped (under CI=true it fails).
func verifierExample(t *testing.T, c *codes.Code, ex, fixed *check.Result) {
	t.Helper()
	s, err := verify.FindSolver()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true and %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	for _, m := range []struct {
		what string
		res  *check.Result
		fail bool
	}{{"example", ex, true}, {"fixed module", fixed, false}} {
		r, err := verify.Verify(context.Background(), m.res, verify.Options{Solver: s})
		if err != nil {
			t.Fatalf("%s: %v", m.what, err)
		}
		failed := 0
		for _, o := range r.Obligations {
			if o.Status == verify.Failed {
				failed++
				if o.Confirmation == nil || !o.Confirmation.Confirmed {
					t.Errorf("%s: %s failed without the interpreter's confirmation", m.what, o.ID)
				}
			}
		}
		if m.fail && failed == 0 || !m.fail && failed > 0 {
			t.Errorf("%s of %s: %d failed obligations", m.what, c.Code, failed)
		}
	}
}

// TestDiagnosticsDoc fails when docs/diagnostics.md is stale; run
// `go test ./analysis/codes -run TestDiagnosticsDoc -update` to rewrite it.
func TestDiagnosticsDoc(t *testing.T) {
	path := filepath.Join(repoRoot, filepath.FromSlash(codes.DocPath))
	want := codes.Markdown()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v; run go test ./analysis/codes -run TestDiagnosticsDoc -update", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale; run go test ./analysis/codes -run TestDiagnosticsDoc -update", codes.DocPath)
	}
	for _, c := range codes.All() {
		anchor := `<a id="` + c.Anchor() + `"></a>`
		if !bytes.Contains(want, []byte(anchor+"\n\n### "+c.Code+"\n")) {
			t.Errorf("%s has no section with anchor %s", codes.DocPath, c.Anchor())
		}
	}
}
