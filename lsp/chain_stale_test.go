package lsp

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// The modules of the chain tests: app imports lib, lib imports (mid, in
// the four-module chains, which imports) base; app's example fails in
// base's contract, whose text its message quotes.
const (
	chainBase = `(module base
  (capsule "1.0")
  (function pad (input (x I64)) (output I64) (effects pure) (body x))
  (function big (input (x I64)) (output I64) (effects pure)
    (requires (> x 5))
    (body x)))
`
	chainMid = `(module mid
  (capsule "1.0")
  (import base)
  (function m (input (x I64)) (output I64) (effects pure) (body (base.big x))))
`
	chainMidEx = `(module mid
  (capsule "1.0")
  (import base)
  (function m (input (x I64)) (output I64) (effects pure) (body (base.big x))
    (example (m 9) 9)))
`
	chainLib3 = `(module lib
  (capsule "1.0")
  (import base)
  (function mid (input (x I64)) (output I64) (effects pure) (body (base.big x))))
`
	chainLib3Ex = `(module lib
  (capsule "1.0")
  (import base)
  (function mid (input (x I64)) (output I64) (effects pure) (body (base.big x))
    (example (mid 7) 7)))
`
	chainLib4 = `(module lib
  (capsule "1.0")
  (import mid)
  (function mid (input (x I64)) (output I64) (effects pure) (body (mid.m x))))
`
	chainApp = `(module app
  (capsule "1.0")
  (import lib)
  (function use (input (x I64)) (output I64) (effects pure) (body (lib.mid x))
    (example (use 1) 1)))
`
)

type chainEdit struct{ doc, from, to string }

// TestImporterChainReadsCurrentClosure edits base (a body, a contract,
// its layout) with lib (and mid) open or closed, with and without
// examples of their own, and after each edit compares app.caps's
// published diagnostics, byte for byte, with a full check of the same
// texts: a middle module whose interface view did not change keeps its
// answer, but app's examples must run and quote base's current text.
func TestImporterChainReadsCurrentClosure(t *testing.T) {
	contract := []chainEdit{
		{"base", "(> x 5)", "(> x 0)"},
		{"app", "(use 1) 1", "(use 1)  1"},
		{"app", "(use 1)  1", "(use 1) 1"},
		{"base", "(> x 0)", "(> x 5)"},
	}
	layout := []chainEdit{
		{"base", "  (function big", "  ;; a long comment line that moves big down\n  (function big"},
		{"lib", "(body (", "(body  ("},
		{"app", "(use 1) 1", "(use 1) 2"},
		{"base", "(> x 5)", "(> x ;; five\n 5)"},
		{"app", "(use 1) 2", "(use 2) 2"},
		{"base", "  (function pad", "  ;; more\n  ;; more\n  (function pad"},
		{"app", "(use 2) 2", "(use 3) 2"},
	}
	body := []chainEdit{
		{"base", "(body x)))", "(body (+ x 0))))"},
		{"base", "(> x 5)", "(> x 2)"},
		{"app", "(use 1) 1", "(use 3) 3"},
		{"base", "(body (+ x 0))))", "(body (+ x 1))))"},
	}
	three := map[string]string{"base": chainBase, "lib": chainLib3, "app": chainApp}
	threeEx := map[string]string{"base": chainBase, "lib": chainLib3Ex, "app": chainApp}
	four := map[string]string{"base": chainBase, "mid": chainMid, "lib": chainLib4, "app": chainApp}
	fourEx := map[string]string{"base": chainBase, "mid": chainMidEx, "lib": chainLib4, "app": chainApp}
	for _, tc := range []struct {
		name  string
		files map[string]string
		open  []string
		edits []chainEdit
	}{
		{"3/contract/all-open", three, []string{"base", "lib", "app"}, contract},
		{"3/contract/lib-closed", three, []string{"base", "app"}, contract},
		{"3/contract/lib-examples", threeEx, []string{"base", "lib", "app"}, contract},
		{"3/layout/all-open", three, []string{"base", "lib", "app"}, layout},
		{"3/body/all-open", three, []string{"base", "lib", "app"}, body},
		{"4/contract/all-open", four, []string{"base", "mid", "lib", "app"}, contract},
		{"4/contract/mid-closed", four, []string{"base", "lib", "app"}, contract},
		{"4/contract/lib-closed", four, []string{"base", "mid", "app"}, contract},
		{"4/contract/mid-examples", fourEx, []string{"base", "mid", "lib", "app"}, contract},
		{"4/layout/all-open", four, []string{"base", "mid", "lib", "app"}, layout},
		{"4/layout/mid-closed", four, []string{"base", "lib", "app"}, layout},
		{"4/body/all-open", four, []string{"base", "mid", "lib", "app"}, body},
		{"4/body/mid-examples", fourEx, []string{"base", "mid", "lib", "app"}, body},
	} {
		t.Run(tc.name, func(t *testing.T) { chainSeq(t, tc.files, tc.open, tc.edits) })
	}
}

// chainSeq opens the documents named in open (of files, all written to a
// folder), applies edits (an edit of a closed document rewrites its file
// and is skipped when it is not open: the chain tests edit open ones),
// and after each compares app.caps's published diagnostics with a full
// check of the current texts.
func chainSeq(t *testing.T, files map[string]string, open []string, edits []chainEdit) {
	files = maps.Clone(files)
	dir := t.TempDir()
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(dir, n+".caps"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, c := wsServer(t, dir)
	uri := func(n string) protocol.DocumentURI {
		return protocol.DocumentURI("file://" + filepath.Join(dir, n+".caps"))
	}
	versions := map[string]int{}
	for _, n := range open {
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri(n), "languageId": "capsulang", "version": 1, "text": files[n]}})
		versions[n] = 1
	}
	s.settled(t, uri("app"), 1)
	want := func() []pubDiag {
		d := t.TempDir()
		for n, text := range files {
			if err := os.WriteFile(filepath.Join(d, n+".caps"), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		f, _ := ast.Parse([]byte(files["app"]))
		res := (&load.Loader{}).CheckFile(filepath.Join(d, "app.caps"), f).Result
		var out []pubDiag
		for _, x := range diagnose.Sorted(diagnose.Run(res).Diagnostics) {
			p := pubDiag{Code: x.Code, Message: x.Message, Range: f.Source.CST.Lines.Range(x.Span, syntax.UTF16)}
			for _, r := range x.Related {
				p.Related = append(p.Related, f.Source.CST.Lines.Range(r.Span, syntax.UTF16))
			}
			out = append(out, p)
		}
		return out
	}
	for i, e := range edits {
		if versions[e.doc] == 0 {
			continue // (a closed document: not edited here)
		}
		text := files[e.doc]
		a := strings.Index(text, e.from)
		if a < 0 {
			t.Fatalf("edit %d: %q not found in %s", i, e.from, e.doc)
		}
		versions[e.doc]++
		files[e.doc] = replaceText(c, uri(e.doc), versions[e.doc], text, a, a+len(e.from), e.to)
		s.settled(t, uri(e.doc), versions[e.doc])
		// (the importer jobs follow the edit: let them publish)
		time.Sleep(300 * time.Millisecond)
		s.settled(t, uri(e.doc), versions[e.doc])
		s.settled(t, uri("app"), versions["app"])
		w := want()
		if len(w) == 0 && strings.Contains(files["base"], "(> x 5)") && strings.Contains(files["app"], "(use 1)") {
			t.Fatalf("edit %d: the full check reports no failure: the test's texts changed", i)
		}
		s.mu.Lock()
		got := s.docs[uri("app")].lastDiags
		s.mu.Unlock()
		raw, _ := json.Marshal(map[string]any{"version": 1, "diagnostics": got})
		_, have := publishedDiags(raw)
		if diff := cmp.Diff(w, have); diff != "" {
			t.Errorf("edit %d (%s %q -> %q): app.caps's diagnostics differ from caps check's (-check +published):\n%s", i, e.doc, e.from, e.to, diff)
		}
	}
}
