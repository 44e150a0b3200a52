package lsp

import (
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// importEditWorkspace holds the modules the import-edit tests import:
// lib.money (examples/lib), lib.other (another Amount and is_large, of
// other shapes), lib.cyc (which imports main back: a cycle) and main,
// which imports lib.money twice (once through an alias) and has
// declarations that name neither import.
var importEditWorkspace = map[string]string{
	"lib/other.caps": `(module lib.other
  (capsule "1.0")

  ;; An amount counted in whole units.
  (type Amount
    (record
      (units U32)
      (note Text)))

  ;; Large in its own units.
  (function is_large
    (input (a Amount) (limit U32))
    (output Bool)
    (body (>= a.units limit)))

  (function twice
    (input (n U32))
    (output U32)
    (body (* n 2))))
`,
	"lib/cyc.caps": `(module lib.cyc
  (capsule "1.0")
  (import main)
  (function one (output U32) (body 1)))
`,
	"main.caps": `;; Refunds over imported amounts.
(module main
  (capsule "1.0")
  (import lib.money)
  (import lib.money (as m))

  (type Share
    (record
      (bps U64)
      (paid m.Amount)))

  ;; A refund of a share of an amount, in the same currency.
  (function partial_refund
    (input
      (paid money.Amount)
      (bps U64))
    (output m.Amount)
    (body (record m.Amount (cents (money.apply_bps paid.cents bps)) (currency paid.currency))))

  (function share_refund
    (input (s Share))
    (output m.Amount)
    (body (partial_refund s.paid s.bps)))

  (function needs_second_approver
    (input
      (paid m.Amount)
      (bps U64))
    (output Bool)
    (body (m.is_large (partial_refund paid bps))))

  ;; Names no import: reads one through Share and partial_refund.
  (function refund_cents
    (input (s Share) (bps U64))
    (output U64)
    (body (let ((r (partial_refund s.paid bps)) (c r.cents)) (+ c s.paid.cents))))

  (function an_amount
    (output money.Amount)
    (body (record money.Amount (cents 5) (currency "EUR"))))

  ;; Names no import nor a type: reads one through partial_refund alone.
  (function refund_of
    (input (bps U64))
    (output U64)
    (body (let ((r (partial_refund (an_amount) bps))) r.cents)))

  (function local_only
    (input (n U64))
    (output U64)
    (body (+ n 1)))

  (type Level (enum low high))

  (function level_of
    (input (n U64))
    (output Level)
    (body (if (> (local_only n) 10) Level.high Level.low))))
`,
}

// importEdits are the edits of main's import forms the test makes, each
// from main's text as the step before left it: (from, to) replaced once.
var importEdits = []struct{ name, from, to string }{
	{"add an import of another module", `(import lib.money (as m))`, "(import lib.money (as m))\n  (import lib.other)"},
	{"use the new import", `(body (+ n 1))`, `(body (+ n (other.twice 1)))`},
	{"remove the import the body uses", "\n  (import lib.other)", ""},
	{"add it back with an alias", `(import lib.money (as m))`, "(import lib.money (as m))\n  (import lib.other (as o))"},
	{"rename the alias", `(import lib.other (as o))`, `(import lib.other (as other))`},
	{"point an alias at another module", `(import lib.money (as m))`, `(import lib.other (as m))`},
	{"point it back", `(import lib.other (as m))`, `(import lib.money (as m))`},
	{"point an alias at a missing module", `(import lib.money (as m))`, `(import lib.missing (as m))`},
	{"point it back again", `(import lib.missing (as m))`, `(import lib.money (as m))`},
	{"remove an aliased import", "\n  (import lib.money (as m))", ""},
	{"add it back", `(import lib.money)`, "(import lib.money)\n  (import lib.money (as m))"},
	{"a duplicate alias", `(import lib.other (as other))`, `(import lib.other (as money))`},
	{"the duplicate removed", `(import lib.other (as money))`, `(import lib.other (as other))`},
	{"reorder the imports", "(import lib.money)\n  (import lib.money (as m))", "(import lib.money (as m))\n  (import lib.money)"},
	{"an import that is no module name", `(import lib.money)`, "(import lib.money)\n  (import 9bad)"},
	{"an import in a cycle", `(import 9bad)`, `(import lib.cyc)`},
	{"the cycle removed", "\n  (import lib.cyc)", ""},
	{"alias shadowing a declaration's name", `(import lib.other (as other))`, `(import lib.other (as local_only))`},
	{"alias restored", `(import lib.other (as local_only))`, `(import lib.other (as other))`},
}

// typeNames finds the type declarations of a text.
var typeNames = regexp.MustCompile(`\(type [A-Za-z_]+`)

// TestViewAfterImportEdit is the differential test of the views of a
// version whose import forms differ from the base's (an import added,
// removed, pointed at another module or a missing one, its alias edited,
// a duplicate alias, a cycle): each version is viewed over the full check
// of the version before, sometimes after a random edit elsewhere too, and
// completion, hover, definition and signature help at random positions
// must answer what a fresh full check answers. Every version must be
// answered without a full check (a quick view over imports resolved
// anew), so that the test fails when that path is disabled.
func TestViewAfterImportEdit(t *testing.T) {
	dir := t.TempDir()
	for name, text := range importEditWorkspace {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	money, err := os.ReadFile("../examples/lib/money.caps")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lib/money.caps"), money, 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "main.caps")
	probes := 60
	if testing.Short() {
		probes = 20
	}
	r := rand.New(rand.NewSource(3))
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	var text string
	var versions, importVersions, answers int
	v0, f0 := importEditViews.Load(), fullViews.Load()
	for round := 0; round < 3; round++ {
		text = importEditWorkspace["main.caps"]
		for _, e := range importEdits {
			if !strings.Contains(text, e.from) {
				t.Fatalf("round %d, %s: no %q in main", round, e.name, e.from)
			}
			baseSn := testSnapshot(t, path, text, nil)
			base := baseSn.Package().Result
			next := strings.Replace(text, e.from, e.to, 1)
			if round > 0 {
				// and an edit among the declarations, when it leaves the
				// text readable and its types as they were (the view
				// declines a type removed or renamed, and what the edit
				// alone makes it decline, whatever the imports)
				at, from := strings.Index(next, "  (type Share"), strings.Index(text, "  (type Share")
				edited := viewEdit(r, next[at:])
				other := next[:at] + edited
				alone := text[:from] + edited
				if text[from:] == next[at:] && !testSnapshot(t, path, other, nil).cst.HasError(0) && slices.Equal(typeNames.FindAllString(other, -1), typeNames.FindAllString(next, -1)) {
					if v, _ := testSnapshot(t, path, alone, base).quickViewWhy(); v != nil {
						next = other
					}
				}
			}
			sn := testSnapshot(t, path, next, base)
			sn.loader = baseSn.loader // (the server's snapshots share one)
			if sn.cst.HasError(0) {
				t.Fatalf("%s: the edit leaves a syntax error", e.name)
			}
			versions++
			if strings.Contains(e.from+e.to, "(import") {
				importVersions++
			}
			v := sn.view()
			if v.pkg != nil {
				_, why := testSnapshot(t, path, next, base).quickViewWhy()
				t.Errorf("round %d, %s: answered by a full check (%s)", round, e.name, why)
				if os.Getenv("VIEW_DEBUG") != "" {
					t.Logf("base:\n%s\nnow:\n%s", text, next)
				}
				text = next
				continue
			}
			fresh := testSnapshot(t, path, next, nil)
			fresh.Package()
			for p := 0; p < probes; p++ {
				off := r.Intn(len(next) + 1)
				for off < len(next) && !utf8.RuneStart(next[off]) {
					off++
				}
				// and the import forms, where the edit is, and a field of
				// a value typed through an alias only (refund_of)
				if p < 8 {
					if i := strings.Index(next, "(import"); i >= 0 {
						off = i + r.Intn(min(len(next)-i, 120))
					}
				} else if p < 10 {
					if i := strings.Index(next, "r.cents)))"); i >= 0 {
						off = i + 2 + r.Intn(6)
					}
				}
				for _, q := range requests {
					got, err1 := q.f(ctx, sn, off)
					want, err2 := q.f(ctx, fresh, off)
					if (err1 == nil) != (err2 == nil) {
						t.Fatalf("%s: %s at %d: error %v, fresh %v", e.name, q.name, off, err1, err2)
					}
					gj, _ := json.Marshal(got)
					wj, _ := json.Marshal(want)
					answers++
					if string(gj) != string(wj) {
						t.Errorf("round %d, %s: %s at line %d (offset %d) differs from a full check (-full +view):\n%s", round, e.name, q.name, strings.Count(next[:off], "\n")+1, off, cmp.Diff(string(wj), string(gj)))
					}
				}
			}
			text = next
		}
	}
	views, full := importEditViews.Load()-v0, fullViews.Load()-f0
	t.Logf("%d versions, %d with their imports edited, %d answered from a view over imports resolved anew, %d by a full check; %d answers compared", versions, importVersions, views, full, answers)
	if views != int64(importVersions) || full != 0 {
		t.Errorf("%d of %d versions with their imports edited answered from a view over the new imports, %d versions by a full check; want all from a view", views, importVersions, full)
	}
}

// TestRequestsAfterRefreshOverChainedAnswer covers an importer whose last
// answer is chained on its own edits (a fast Recheck's, not a view base)
// when it loses its base to another document's close (refreshImporters):
// its next edit's requests are answered from a view over its full check
// checked again with the imports as they are now (chainView), not by a
// full check, and every answer is a fresh full check's. Before the close
// kept the full check for the views (dropViews), that snapshot had no view
// base and the requests checked it in full.
func TestRequestsAfterRefreshOverChainedAnswer(t *testing.T) {
	dir := t.TempDir()
	texts := wsModulesOf(t, dir, 4, 120, true)
	// (a long debounce: the requests come before the new version's check)
	s, c := startServer(t, Options{Debounce: 800 * time.Millisecond}, dir)
	c.Timeout = 30 * time.Second
	uris := openAll(t, s, c, dir, texts)
	m03Path := filepath.Join(dir, "m03.caps")
	imp := texts[3]
	edit := importerEdit{"m03 body", "(function uses_m03", "0 10)))", "0 12)))"}
	a, b, ins, ok := edit.apply(imp)
	if !ok {
		t.Fatal("the edit does not apply to m03")
	}
	imp = replaceText(c, uris[3], 2, imp, a, b, ins)
	s.settled(t, uris[3], 2)
	s.mu.Lock()
	d := s.docs[uris[3]]
	chained := d.engine != nil && !d.engine.TreeCurrent()
	s.mu.Unlock()
	if !chained {
		t.Fatal("m03's edit was not answered by a chained engine answer")
	}
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uris[2]}})
	cv, fv := chainViews.Load(), fullViews.Load()
	a, b, ins, _ = edit.apply(imp)
	imp = replaceText(c, uris[3], 3, imp, a, b, ins)
	var places []int
	for i := 0; ; {
		j := strings.Index(imp[i:], "m00.")
		if j < 0 || len(places) > 30 {
			break
		}
		i += j + 4
		places = append(places, i-2, i+1)
	}
	r := rand.New(rand.NewSource(5))
	for k := 0; k < 20; k++ {
		places = append(places, r.Intn(len(imp)))
	}
	requests := []struct {
		method string
		f      func(context.Context, *snapshot, int) (any, error)
	}{{"textDocument/completion", completion}, {"textDocument/hover", hover}, {"textDocument/definition", definition}}
	type answer struct {
		req, off int
		got      json.RawMessage
	}
	var got []answer
	for _, off := range places {
		for ri, req := range requests {
			var res json.RawMessage
			if err := c.Call(req.method, map[string]any{"textDocument": map[string]any{"uri": uris[3]}, "position": utf16Pos(imp, off)}, &res); err != nil {
				t.Fatal(err)
			}
			got = append(got, answer{ri, off, res})
		}
	}
	if n, f := chainViews.Load()-cv, fullViews.Load()-fv; n != 1 || f != 0 {
		t.Errorf("after the close, m03's edit was answered by %d views over its view base and %d full checks; want 1 and 0", n, f)
	}
	fresh := testSnapshot(t, m03Path, imp, nil)
	for _, g := range got {
		want, err := requests[g.req].f(context.Background(), fresh, g.off)
		if err != nil {
			t.Fatal(err)
		}
		wj, _ := json.Marshal(want)
		var gv, wv any
		json.Unmarshal(g.got, &gv)
		json.Unmarshal(wj, &wv)
		if diff := cmp.Diff(wv, gv); diff != "" {
			t.Errorf("%s in m03 at %d: (-full check +answer)\n%s", requests[g.req].method, g.off, diff)
		}
	}
	s.settled(t, uris[3], 3)
}

// TestRequestsAfterOwnImportEditThroughServer edits m03's own import forms
// through the server (an import of m02 added under an alias, the alias
// renamed, the import of m01 that m03's declarations name given an alias
// and taken back, the added import removed), each edit followed at once
// by completion, hover and definition in m03: no request is answered by
// a full check, and every answer is a fresh full check's.
func TestRequestsAfterOwnImportEditThroughServer(t *testing.T) {
	dir := t.TempDir()
	texts := wsModulesOf(t, dir, 4, 120, true)
	s, c := startServer(t, Options{Debounce: 800 * time.Millisecond}, dir)
	c.Timeout = 30 * time.Second
	uris := openAll(t, s, c, dir, texts)
	m03Path := filepath.Join(dir, "m03.caps")
	imp := texts[3]
	edits := []importerEdit{
		{"an import added", "(capsule", "(import m01)\n", "(import m01)\n  (import m02 (as two))\n"},
		{"its alias renamed", "(capsule", "(import m02 (as two))", "(import m02 (as deux))"},
		{"a used import given an alias", "(capsule", "(import m01)\n", "(import m01 (as one))\n"},
		{"the alias taken back", "(capsule", "(import m01 (as one))\n", "(import m01)\n"},
		{"the added import removed", "(capsule", "\n  (import m02 (as deux))", ""},
	}
	requests := []struct {
		method string
		f      func(context.Context, *snapshot, int) (any, error)
	}{{"textDocument/completion", completion}, {"textDocument/hover", hover}, {"textDocument/definition", definition}}
	r := rand.New(rand.NewSource(11))
	fv, iv := fullViews.Load(), importEditViews.Load()
	var answers int
	for k, e := range edits {
		a, b, ins, ok := e.apply(imp)
		if !ok {
			t.Fatalf("%s: the edit does not apply to m03", e.name)
		}
		imp = replaceText(c, uris[3], k+2, imp, a, b, ins)
		var places []int
		for _, q := range []string{"(import", "m00.", "m01."} {
			for i, n := 0, 0; n < 6; n++ {
				j := strings.Index(imp[i:], q)
				if j < 0 {
					break
				}
				i += j + 2
				places = append(places, i, i+len(q)-1)
			}
		}
		for n := 0; n < 10; n++ {
			places = append(places, r.Intn(len(imp)))
		}
		type answer struct {
			req, off int
			got      json.RawMessage
		}
		var got []answer
		for _, off := range places {
			for ri, req := range requests {
				var res json.RawMessage
				if err := c.Call(req.method, map[string]any{"textDocument": map[string]any{"uri": uris[3]}, "position": utf16Pos(imp, off)}, &res); err != nil {
					t.Fatal(err)
				}
				got = append(got, answer{ri, off, res})
			}
		}
		fresh := testSnapshot(t, m03Path, imp, nil)
		fresh.Package() // (checked: its requests count no view)
		for _, g := range got {
			want, err := requests[g.req].f(context.Background(), fresh, g.off)
			if err != nil {
				t.Fatal(err)
			}
			wj, _ := json.Marshal(want)
			var gv, wv any
			json.Unmarshal(g.got, &gv)
			json.Unmarshal(wj, &wv)
			answers++
			if diff := cmp.Diff(wv, gv); diff != "" {
				t.Errorf("%s: %s in m03 at %d: (-full check +answer)\n%s", e.name, requests[g.req].method, g.off, diff)
			}
		}
		s.settled(t, uris[3], k+2)
	}
	full, views := fullViews.Load()-fv, importEditViews.Load()-iv
	t.Logf("%d answers after %d edits of m03's imports: %d views over imports resolved anew, %d requests answered by a full check", answers, len(edits), views, full)
	if full != 0 || views == 0 {
		t.Errorf("%d requests answered by a full check and %d views over new imports; want none and some", full, views)
	}
}
