package load

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// cycleAt returns the E_IMPORT_CYCLE diagnostics of p as "TEXT: MESSAGE",
// each followed by its related location as "FILE START-END TEXT: MESSAGE"
// (the span's bytes and its text in the file as it is on disk).
func cycleAt(t *testing.T, p *Package) []string {
	t.Helper()
	return cycleLines(t, p, func(r syntax.Related, src []byte) string {
		text := "(outside the file)"
		if r.Span.Start <= r.Span.End && r.Span.End <= len(src) {
			text = string(src[r.Span.Start:r.Span.End])
		}
		return fmt.Sprintf("%s %d-%d %s: %s", filepath.Base(r.File), r.Span.Start, r.Span.End, text, r.Message)
	})
}

// TestCycleMessageFollowsTexts: E_IMPORT_CYCLE names the first of the
// shortest chains back, each file's imports followed in the order its
// text writes them, with the closing import's span in that file's text
// as it is now, whatever the loader's import graph recorded before: the
// imports of a file changed since (forgotten until it is checked again)
// or those of another text of it (the language server's views of older
// texts). The graph made the language server name another chain than a
// fresh check of the same texts (TestWorkspaceCycleMessagePath), and
// point at a column of an older text (TestWorkspaceCycleRelatedSpan).
func TestCycleMessageFollowsTexts(t *testing.T) {
	cyclesOf := func(t *testing.T, l *Loader, path string) []string {
		t.Helper()
		p, err := l.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return cycleAt(t, p)
	}
	expect := func(t *testing.T, what string, got, want []string) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", what, got, want)
		}
	}

	t.Run("two chains of one length", func(t *testing.T) {
		// a -> b, b -> c and b -> d (in that order), c -> a, d -> a.
		dir := t.TempDir()
		a := write(t, dir, "a.caps", "(module a (capsule \"1\")\n  (import b))\n")
		write(t, dir, "b.caps", "(module b (capsule \"1\")\n  (import c)\n  (import d))\n")
		c := write(t, dir, "c.caps", "(module c (capsule \"1\")\n  (import a))\n")
		write(t, dir, "d.caps", "(module d (capsule \"1\")\n  (import a))\n")
		want := []string{
			"b: import cycle: a.caps -> b.caps -> c.caps -> a.caps",
			"c.caps 34-35 a: c.caps imports a.caps here, closing the cycle",
		}
		var l Loader
		expect(t, "a", cyclesOf(t, &l, a), want)
		// c changes (its imports stay): the graph forgets c's imports,
		// and a's check asked for the chain back before loading b (and
		// c): the graph's shortest chain went through d.
		write(t, dir, "c.caps", "(module c (capsule \"1\")\n  (import a)\n  (type T U32))\n")
		l.Forget(c)
		expect(t, "a after c changed", cyclesOf(t, &l, a), want)
	})

	t.Run("an older text's spans", func(t *testing.T) {
		dir := t.TempDir()
		a := write(t, dir, "a.caps", "(module a (capsule \"1\")\n  (import b))\n")
		b := write(t, dir, "b.caps", "(module b (capsule \"1\")\n  (import a))\n")
		want := []string{
			"b: import cycle: a.caps -> b.caps -> a.caps",
			"b.caps 34-35 a: b.caps imports a.caps here, closing the cycle",
		}
		var l Loader
		expect(t, "a", cyclesOf(t, &l, a), want)
		// A check of an older text of b (its import four columns
		// further), then a changed: a's check found b's imports in the
		// graph as the older text's.
		l.LoadSource(b, []byte("(module b (capsule \"1\")\n      (import a))\n"))
		write(t, dir, "a.caps", "(module a (capsule \"1\")\n  (import b)\n  (type T U32))\n")
		l.Forget(a)
		expect(t, "a after a check of b's older text", cyclesOf(t, &l, a), want)
	})

	t.Run("a text the files do not lead back to", func(t *testing.T) {
		// LoadSource checks a text of a that imports b, which imports a;
		// a's file imports nothing: b's import of a is named from the
		// chain a's check records (a -> b), the closing import in the
		// text checked.
		dir := t.TempDir()
		a := write(t, dir, "a.caps", "(module a (capsule \"1\"))\n")
		b := write(t, dir, "b.caps", "(module b (capsule \"1\")\n  (import a))\n")
		var l Loader
		p := l.LoadSource(a, []byte("(module a (capsule \"1\")\n  (import b))\n"))
		expect(t, "a's other text", cycleAt(t, p), []string{
			"b: import cycle: a.caps -> b.caps -> a.caps",
			"b.caps 34-35 a: b.caps imports a.caps here, closing the cycle",
		})
		q, err := l.Load(b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range q.Result.Diagnostics {
			got = append(got, fmt.Sprintf("%s %s", d.Code, d.Message))
			for _, r := range d.Related {
				got = append(got, fmt.Sprintf("%s %d-%d: %s", filepath.Base(r.File), r.Span.Start, r.Span.End, r.Message))
			}
		}
		expect(t, "b, loaded by a's other text", got, []string{
			"E_IMPORT_CYCLE import cycle: b.caps -> a.caps -> b.caps",
			"a.caps 34-35: a.caps imports b.caps here, closing the cycle",
		})
	})
}

// TestImportFormsOfAsBuild: importFormsOf, which reads a clean module
// text by item, finds the import forms ast.Build builds, with their
// spans, in every .caps file of testdata/ and examples/ and in texts
// that read otherwise (a syntax error, a form before the module, an
// import as the module's name, a spaced head, "import" in comments,
// strings and bodies).
func TestImportFormsOfAsBuild(t *testing.T) {
	texts := map[string]string{
		"a syntax error":     "(module a (capsule \"1\")\n  (import b)\n  (function f (body (+ 1)))\n  (import c)",
		"two forms":          "(import x)\n(module a (capsule \"1\") (import b))\n",
		"an import as name":  "(module (import b) (capsule \"1\") (import c))\n",
		"a spaced head":      "(module a (capsule \"1\")\n  ( import b)\n  (\timport c (as cc)))\n",
		"import elsewhere":   "(module a (capsule \"1\")\n  ; (import x)\n  (import b)\n  (function important (output Text) (body \"(import y)\")))\n",
		"an import, no name": "(module a (capsule \"1\") (import) (import 3) (import b))\n",
	}
	for _, root := range []string{"../../testdata", "../../examples"} {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".caps") {
				return err
			}
			b, err := os.ReadFile(path)
			texts[path] = string(b)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	withImports := 0
	for name, text := range texts {
		var want []importForm
		if rd, err := syntax.ReadText([]byte(text)); err == nil {
			if f := ast.Build(rd); f.Module != nil {
				for _, im := range f.Module.Imports {
					if im != nil && im.Path.Valid() {
						want = append(want, importForm{path: im.Path.Name, span: im.Path.Span})
					}
				}
			}
		}
		if len(want) > 0 {
			withImports++
		}
		if got := importFormsOf([]byte(text)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: importFormsOf %v, ast.Build's imports %v", name, got, want)
		}
	}
	if withImports < 10 {
		t.Errorf("only %d texts with imports", withImports)
	}
}
