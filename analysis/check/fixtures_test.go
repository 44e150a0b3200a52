package check_test

// Fixture tests: every file in testdata/check/*.caps is checked and its
// diagnostics compared with the expectations written in it.
//
// Annotation syntax (comment lines of their own, starting with `; want`):
//
//	; want CODE "TEXT" [col=N] [msg="SUBSTRING"] [sev=SEVERITY] [CODE "TEXT" ...]
//
// expects, for each CODE "TEXT" group, one diagnostic with that code whose
// range starts on the line above the comment and covers exactly TEXT (a Go
// string literal; "" for an empty range). The line above is the nearest
// earlier line that is not itself a `; want` line, so several want lines
// may follow one line of code. Options:
//
//   - col=N: the range starts at column N (1-based, UTF-16 code units, as
//     in editors). Required when TEXT is empty or occurs more than once on
//     the line.
//   - msg="...": the message contains this text (did-you-mean hints, the
//     expected type).
//   - sev=error|warning|info: the severity; by default the code's
//     documented severity (analysis/codes).
//
// A group may be repeated to expect the same diagnostic twice. A file with
// a `; want-none` line must check with no diagnostics at all. Every
// diagnostic must be expected and every expectation met; a fixture with no
// `; want` and no `; want-none` is an error.
//
// Imports resolve under testdata/check/lib (a.b is lib/a/b.caps); importing
// a module that is being checked further up is an import cycle.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/codes"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

const fixtureDir = "../../testdata/check"

type want struct {
	dirLine  int // 1-based line of the `; want` comment
	line     int // 0-based line the diagnostic starts on
	code     string
	text     string
	col      int // 1-based UTF-16 column; 0 = any
	msg      string
	severity syntax.Severity
	met      bool
}

type fixture struct {
	name  string // file name, for messages
	path  string
	src   []byte
	wants []*want
	none  bool // `; want-none`
	errs  []string
}

func (fx *fixture) errorf(line int, format string, args ...any) {
	fx.errs = append(fx.errs, fmt.Sprintf("%s:%d: ", fx.name, line)+fmt.Sprintf(format, args...))
}

func loadFixtures(t *testing.T) []*fixture {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(fixtureDir, "*.caps"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no fixtures in %s", fixtureDir)
	}
	var out []*fixture
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, parseFixture(filepath.Join("testdata/check", filepath.Base(p)), p, src))
	}
	return out
}

func isWantLine(s string) bool {
	s = strings.TrimSpace(s)
	return s == "; want" || strings.HasPrefix(s, "; want ") || strings.HasPrefix(s, "; want-")
}

func parseFixture(name, path string, src []byte) *fixture {
	fx := &fixture{name: name, path: path, src: src}
	lines := strings.Split(string(src), "\n")
	for i, raw := range lines {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if !isWantLine(line) {
			continue
		}
		if line == "; want-none" {
			fx.none = true
			continue
		}
		rest, ok := strings.CutPrefix(line, "; want ")
		if !ok {
			fx.errorf(i+1, "malformed directive %q; write `; want CODE \"TEXT\"` or `; want-none`", line)
			continue
		}
		target := i - 1
		for target >= 0 && isWantLine(lines[target]) {
			target--
		}
		if target < 0 {
			fx.errorf(i+1, "`; want` with no line of code above it")
			continue
		}
		ws, err := parseWants(rest)
		if err != nil {
			fx.errorf(i+1, "%v", err)
			continue
		}
		targetText := strings.TrimSuffix(lines[target], "\r")
		for _, w := range ws {
			w.dirLine, w.line = i+1, target
			if c := codes.Lookup(w.code); c == nil {
				fx.errorf(i+1, "%s is not a documented diagnostic code", w.code)
			}
			if w.col == 0 && (w.text == "" || strings.Count(targetText, w.text) > 1) {
				fx.errorf(i+1, "%s %q is ambiguous on line %d; add col=N", w.code, w.text, target+1)
			}
			fx.wants = append(fx.wants, w)
		}
	}
	if fx.none && len(fx.wants) > 0 {
		fx.errorf(1, "a `; want-none` fixture cannot also have `; want` lines")
	}
	if !fx.none && len(fx.wants) == 0 && len(fx.errs) == 0 {
		fx.errorf(1, "no expectations: add `; want` lines or `; want-none`")
	}
	return fx
}

// parseWants parses the groups of one `; want` line.
func parseWants(s string) ([]*want, error) {
	var out []*want
	var cur *want
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			break
		}
		var tok string
		var err error
		if s[0] == '"' {
			tok, s, err = quoted(s)
			if err != nil {
				return nil, err
			}
			if cur == nil || cur.text != "\x00" {
				return nil, fmt.Errorf("unexpected string %q; write CODE \"TEXT\"", tok)
			}
			cur.text = tok
			continue
		}
		end := strings.IndexAny(s, " \t")
		if end < 0 {
			end = len(s)
		}
		if key, val, ok := strings.Cut(s[:end], "="); ok {
			if cur == nil || cur.text == "\x00" {
				return nil, fmt.Errorf("option %s= before CODE \"TEXT\"", key)
			}
			if strings.HasPrefix(val, `"`) {
				val, s, err = quoted(s[len(key)+1:])
				if err != nil {
					return nil, err
				}
			} else {
				s = s[end:]
			}
			switch key {
			case "col":
				n, err := strconv.Atoi(val)
				if err != nil || n < 1 {
					return nil, fmt.Errorf("col=%s is not a column number (1-based)", val)
				}
				cur.col = n
			case "msg":
				cur.msg = val
			case "sev":
				sev, ok := map[string]syntax.Severity{"error": syntax.Error, "warning": syntax.Warning, "info": syntax.Info, "hint": syntax.Hint}[val]
				if !ok {
					return nil, fmt.Errorf("sev=%s: want error, warning, info or hint", val)
				}
				cur.severity = sev
			default:
				return nil, fmt.Errorf("unknown option %s= (col, msg or sev)", key)
			}
			continue
		}
		tok, s = s[:end], s[end:]
		if cur != nil && cur.text == "\x00" {
			return nil, fmt.Errorf("%s needs the text of its range as a string, e.g. %s \"name\"", cur.code, cur.code)
		}
		cur = &want{code: tok, text: "\x00"}
		out = append(out, cur)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("`; want` names no diagnostic")
	}
	if cur.text == "\x00" {
		return nil, fmt.Errorf("%s needs the text of its range as a string, e.g. %s \"name\"", cur.code, cur.code)
	}
	for _, w := range out {
		if w.severity == 0 {
			w.severity = defaultSeverity(w.code)
		}
	}
	return out, nil
}

// quoted reads a Go string literal at the start of s.
func quoted(s string) (string, string, error) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", fmt.Errorf("bad string %s: %v", s[:i+1], err)
			}
			return v, s[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("unterminated string %s", s)
}

func defaultSeverity(code string) syntax.Severity {
	if c := codes.Lookup(code); c != nil {
		switch c.Severity {
		case "warning":
			return syntax.Warning
		case "info":
			return syntax.Info
		}
		return syntax.Error
	}
	switch {
	case strings.HasPrefix(code, "W_"):
		return syntax.Warning
	case strings.HasPrefix(code, "I_"):
		return syntax.Info
	}
	return syntax.Error
}

// fixtureImporter resolves imports under testdata/check/lib. A module is
// checked once per fixture, as a real importer caches it, so that two
// imports of one module share its types.
type fixtureImporter struct {
	stack []string // module names being checked, outermost first
	cache map[string]*check.Imported
}

func (im *fixtureImporter) Import(from, path string) (*check.Imported, error) {
	if msg, ok := cycleTo(im.stack, path); ok {
		return nil, &check.ImportError{Code: check.ImportCycle, Message: msg}
	}
	if imp, ok := im.cache[path]; ok {
		return imp, nil
	}
	file := filepath.Join(fixtureDir, "lib", filepath.FromSlash(strings.ReplaceAll(path, ".", "/"))+".caps")
	src, err := os.ReadFile(file)
	if err != nil {
		return nil, &check.ImportError{Code: check.ImportNotFound, Message: fmt.Sprintf("cannot find module %s (%s.caps) under the import roots", path, strings.ReplaceAll(path, ".", "/"))}
	}
	f, err := ast.Parse(src)
	if err != nil {
		return nil, err
	}
	res := check.Check(f, check.Options{Path: file, Importer: &fixtureImporter{stack: append(append([]string(nil), im.stack...), path), cache: im.cache}})
	// A cycle found further down that closes on a module being checked
	// here runs through this import too.
	for _, d := range res.Diagnostics {
		if d.Code == check.ImportCycle {
			if i := strings.LastIndex(d.Message, " -> "); i >= 0 {
				if _, ok := cycleTo(im.stack, d.Message[i+4:]); ok {
					return nil, &check.ImportError{Code: check.ImportCycle, Message: d.Message}
				}
			}
		}
	}
	sum := sha256.Sum256(src)
	imp := &check.Imported{File: file, Module: f.Module, Hash: "sha256:" + hex.EncodeToString(sum[:]), Result: res}
	im.cache[path] = imp
	return imp, nil
}

// run checks the fixture and matches its diagnostics against its wants.
func (fx *fixture) run() {
	f, err := ast.Parse(fx.src)
	if err != nil {
		fx.errorf(1, "parse: %v", err)
		return
	}
	var stack []string
	if f.Module != nil {
		stack = []string{f.Module.Name.Name}
	}
	res := check.Check(f, check.Options{Path: fx.path, Importer: &fixtureImporter{stack: stack, cache: map[string]*check.Imported{}}})
	type got struct {
		d     syntax.Diagnostic
		r     syntax.Range
		text  string
		taken bool
	}
	var gots []*got
	for _, d := range res.Diagnostics {
		if d.Span.Start < 0 || d.Span.End > len(fx.src) || d.Span.Start > d.Span.End {
			fx.errorf(1, "%s has a range outside the file: %v: %s", d.Code, d.Span, d.Message)
			continue
		}
		gots = append(gots, &got{d: d, r: f.Source.CST.Lines.Range(d.Span, syntax.UTF16), text: string(fx.src[d.Span.Start:d.Span.End])})
	}
	for _, w := range fx.wants {
		for _, g := range gots {
			if g.taken || g.d.Code != w.code || g.r.Start.Line != w.line || g.text != w.text {
				continue
			}
			if w.col != 0 && g.r.Start.Character+1 != w.col {
				continue
			}
			if w.msg != "" && !strings.Contains(g.d.Message, w.msg) {
				continue
			}
			if g.d.Severity != w.severity {
				continue
			}
			g.taken, w.met = true, true
			break
		}
	}
	for _, w := range fx.wants {
		if w.met {
			continue
		}
		desc := fmt.Sprintf("%s %q", w.code, w.text)
		if w.col != 0 {
			desc += fmt.Sprintf(" col=%d", w.col)
		}
		if w.msg != "" {
			desc += fmt.Sprintf(" msg=%q", w.msg)
		}
		var near []string
		for _, g := range gots {
			if g.r.Start.Line == w.line && !g.taken {
				near = append(near, fmt.Sprintf("%s %q col=%d %s: %s", g.d.Code, g.text, g.r.Start.Character+1, g.d.Severity, g.d.Message))
			}
		}
		hint := ""
		if len(near) > 0 {
			hint = "; unmatched on that line: " + strings.Join(near, " | ")
		}
		fx.errorf(w.line+1, "missing %s %s (wanted by line %d)%s", w.severity, desc, w.dirLine, hint)
	}
	for _, g := range gots {
		if !g.taken {
			fx.errs = append(fx.errs, fmt.Sprintf("%s:%d:%d: unexpected %s %s %q: %s", fx.name, g.r.Start.Line+1, g.r.Start.Character+1, g.d.Severity, g.d.Code, g.text, g.d.Message))
		}
	}
}

func TestFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		t.Run(strings.TrimSuffix(filepath.Base(fx.path), ".caps"), func(t *testing.T) {
			if len(fx.errs) == 0 {
				fx.run()
			}
			for _, e := range fx.errs {
				t.Error(e)
			}
		})
	}
}

// TestFixturesCoverCheckerCodes: every code the checker reports has at
// least one fixture proving where it lands (codes documented as runtime
// codes are reported by the example runner, not the checker).
func TestFixturesCoverCheckerCodes(t *testing.T) {
	seen := map[string][]string{}
	for _, fx := range loadFixtures(t) {
		for _, w := range fx.wants {
			seen[w.code] = append(seen[w.code], fx.name)
		}
	}
	var lines []string
	for _, c := range codes.All() {
		if c.Source != codes.SourceChecker {
			continue
		}
		if len(seen[c.Code]) == 0 {
			t.Errorf("no fixture in testdata/check expects %s", c.Code)
		}
		lines = append(lines, fmt.Sprintf("%-26s %d", c.Code, len(seen[c.Code])))
	}
	sort.Strings(lines)
	t.Logf("expectations per code:\n%s", strings.Join(lines, "\n"))
}

// TestWantParsing pins the annotation syntax.
func TestWantParsing(t *testing.T) {
	ws, err := parseWants(`E_UNKNOWN_STATE "opne" msg="did you mean ` + "`open`" + `" E_ARITY "f" col=7 W_UNUSED_EVENT "Jam" sev=error`)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 3 || ws[0].code != "E_UNKNOWN_STATE" || ws[0].text != "opne" || ws[0].msg != "did you mean `open`" || ws[0].severity != syntax.Error ||
		ws[1].col != 7 || ws[1].text != "f" || ws[2].severity != syntax.Error {
		t.Errorf("parseWants: %+v %+v %+v", *ws[0], *ws[1], *ws[2])
	}
	if ws, _ := parseWants(`W_UNUSED_EVENT "Jam"`); ws[0].severity != syntax.Warning {
		t.Errorf("a W_ code defaults to warning")
	}
	for _, bad := range []string{``, `E_ARITY`, `"x"`, `E_ARITY "x" col=0`, `E_ARITY "x" bogus=1`, `E_ARITY "x`, `col=3 E_ARITY "x"`} {
		if _, err := parseWants(bad); err == nil {
			t.Errorf("parseWants(%q) accepted a malformed directive", bad)
		}
	}
	fx := parseFixture("x.caps", "x.caps", []byte("(module m\n  (f \"a\" \"a\"))\n; want E_PARSE \"a\"\n; want E_PARSE \"\"\n"))
	if len(fx.errs) != 2 {
		t.Errorf("ambiguous and empty texts without col= must be rejected: %v", fx.errs)
	}
}

// cycleTo reports whether importing path from the modules on stack closes a
// cycle, and describes it: import cycle: a -> b -> a.
func cycleTo(stack []string, path string) (string, bool) {
	for i, s := range stack {
		if s == path {
			return "import cycle: " + strings.Join(append(append([]string(nil), stack[i:]...), path), " -> "), true
		}
	}
	return "", false
}
