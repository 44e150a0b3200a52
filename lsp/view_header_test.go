package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/bench/gen"
)

// viewHeaderModule is the module TestRequestsAfterHeaderOrErrorEdit edits.
const viewHeaderModule = `;; Claims, scored.
(module claims
  (capsule "1.0")

  ;; Scores at or below 30 may be approved.
  (function approvable
    (input (review_score U32))
    (output Bool)
    (body (<= review_score 30)))

  ;; Both n and the next score may be approved.
  (function twice
    (input (n U32))
    (output Bool)
    (body (and (approvable n) (approvable (+ n 1)))))

  ;; Scores above 90 are flagged.
  (function flagged
    (input (n U32))
    (output Bool)
    (body (> n 90))))
`

// TestRequestsAfterHeaderOrErrorEdit sends completion, hover, definition
// and signature help right after an edit of the module's header (its name,
// its capsule clause) and after edits that leave a syntax error inside one
// declaration (a stray character, a list left open): each is answered from
// the base and the view of the new text, without checking the new version
// in full, and gives exactly what a full check of the new version gives.
func TestRequestsAfterHeaderOrErrorEdit(t *testing.T) {
	ctx := context.Background()
	const path = "/tmp/claims.caps"
	base := testSnapshot(t, path, viewHeaderModule, nil).Package().Result
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	// at is the offset just after the n-th (1-based) occurrence of mark in
	// text, minus back bytes.
	at := func(text, mark string, n, back int) int {
		off := -1
		for ; n > 0; n-- {
			i := strings.Index(text[off+1:], mark)
			if i < 0 {
				t.Fatalf("no %q in the edited text", mark)
			}
			off += 1 + i
		}
		return off + len(mark) - back
	}
	for _, tc := range []struct {
		name, from, to string
		probes         func(text string) []int
		syntaxError    bool
		// readFrom: the view reads the text from the edited declaration
		// to the next one only (the base's comments and declarations
		// after it, moved)
		readFrom bool
	}{
		{"module renamed", "(module claims", "(module claims_v2", func(x string) []int {
			return []int{at(x, "claims_v2", 1, 2), at(x, "(approvable n", 1, 3), at(x, "(approvable (+", 1, 6), at(x, "(body (<= review", 1, 3), at(x, "(and", 1, 1)}
		}, false, false},
		{"capsule version", `(capsule "1.0")`, `(capsule "1.2")`, func(x string) []int {
			return []int{at(x, "(module claims", 1, 2), at(x, "(approvable n", 1, 3), at(x, "(<= review_score", 1, 2), at(x, "(input (n", 1, 1)}
		}, false, false},
		{"syntax error inside a declaration", "(body (<= review_score 30))", "(body (<= review_score [ 30))", func(x string) []int {
			return []int{at(x, "(approvable n", 1, 3), at(x, "(approvable (+", 1, 6), at(x, "(<= review_score", 1, 2), at(x, "(and", 1, 1), at(x, "(module claims", 1, 2)}
		}, true, false},
		// the tree's open list takes in the next declaration; a full
		// check's reader closes it where the indentation says it ends
		{"a list left open", "(output Bool)\n    (body (<=", "(output Bool\n    (body (<=", func(x string) []int {
			return []int{at(x, "(approvable n", 1, 3), at(x, "(approvable (+", 1, 6), at(x, "(<= review_score", 1, 2), at(x, "(input (n", 1, 1), at(x, "(module claims", 1, 2), at(x, "(function twice", 1, 2), at(x, "(function flagged", 1, 2), at(x, "(> n", 1, 1)}
		}, true, true},
		// a list left open in the last declaration takes in the module's
		// closing parenthesis (no line after it ends it): the module stays
		// open to the end, and a full check reads its items all the same
		{"the last declaration left open", "(body (> n 90))))", "(body (> n 90)))", func(x string) []int {
			return []int{at(x, "(approvable n", 1, 3), at(x, "(> n", 1, 1), at(x, "(module claims", 1, 2), at(x, "(function flagged", 1, 2), at(x, "(input (n", 2, 1), at(x, "(<= review_score", 1, 2)}
		}, true, false},
		{"a parenthesis typed in the last declaration", "(body (> n 90))", "(body (> (n 90))", func(x string) []int {
			return []int{at(x, "(approvable (+", 1, 6), at(x, "(> (n", 1, 1), at(x, "(module claims", 1, 2), at(x, "(function flagged", 1, 2), at(x, "(input (n", 2, 1), at(x, "(approvable n", 1, 3)}
		}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(viewHeaderModule, tc.from) {
				t.Fatalf("no %q in the module", tc.from)
			}
			text := strings.Replace(viewHeaderModule, tc.from, tc.to, 1)
			sn := testSnapshot(t, path, text, base)
			if got := sn.cst.HasError(0); got != tc.syntaxError {
				t.Fatalf("the edited text has a syntax error: %v, want %v", got, tc.syntaxError)
			}
			fresh := testSnapshot(t, path, text, nil)
			probes := tc.probes(text)
			want := map[string]string{}
			for _, off := range probes {
				for _, q := range requests {
					got, err := q.f(ctx, fresh, off)
					j, _ := json.Marshal(got)
					want[q.name+string(rune(off))] = fmt.Sprint(string(j), err != nil)
				}
			}
			q0, f0 := quickViews.Load(), fullViews.Load()
			hovers := 0
			for _, off := range probes {
				for _, q := range requests {
					got, err := q.f(ctx, sn, off)
					j, _ := json.Marshal(got)
					if d := cmp.Diff(want[q.name+string(rune(off))], fmt.Sprint(string(j), err != nil)); d != "" {
						t.Errorf("%s at %d (%q) differs from a full check (-full +view):\n%s", q.name, off, text[off-10:off+3], d)
					}
					if q.name == "hover" && string(j) != "null" {
						hovers++
					}
				}
			}
			if hovers < len(probes)-1 {
				t.Errorf("%d of %d hovers answered something", hovers, len(probes))
			}
			if v := sn.view(); v.errStopped != tc.readFrom {
				t.Errorf("the view read from the edit to the next declaration: %v, want %v", v.errStopped, tc.readFrom)
			} else if v.errPartial {
				checkErrUnits(t, path, sn, v)
			}
			if sn.done.Load() {
				t.Errorf("the edited version was checked in full")
			}
			if q, f := quickViews.Load()-q0, fullViews.Load()-f0; q != 1 || f != 0 {
				t.Errorf("%d views built from the base and %d from a full check, want 1 and 0", q, f)
			}
		})
	}
}

// TestViewDeclines lists edits whose requests a view built from the base
// would answer wrongly: each must be declined with its reason (requests
// then read a full check of the new version).
func TestViewDeclines(t *testing.T) {
	const path = "/tmp/parcels.caps"
	const module = `(module parcels
  (capsule "1.0")
  (type Grams U32)
  (type Parcel (record (weight Grams)))
  (function heavy
    (input (p Parcel))
    (output Bool)
    (body true)))
`
	base := testSnapshot(t, path, module, nil).Package().Result
	for _, tc := range []struct {
		name, from, to, why string
		also                [2]string // a second replacement, when not empty
	}{
		// (a type removed or renamed and a name declared twice are answered:
		// TestViewAfterStructuredEdit)
		// the builder reads declarations after the module's end as its items
		{"the module closed early", "(record (weight Grams)))", "(record (weight Grams))))", "an edit to a declaration outside the module", [2]string{"(body true)))", "(body true))"}},
		// (an import added is answered over the new imports, in a text
		// without a syntax error (TestViewAfterImportEdit) or with one
		// (TestRequestsAfterSyntaxEdit))
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(module, tc.from) {
				t.Fatalf("no %q in the module", tc.from)
			}
			text := strings.Replace(module, tc.from, tc.to, 1)
			if tc.also[0] != "" {
				text = strings.Replace(text, tc.also[0], tc.also[1], 1)
			}
			sn := testSnapshot(t, path, text, base)
			v, why := sn.quickViewWhy()
			if v != nil || why != tc.why {
				t.Errorf("view %v, reason %q; want none, %q", v != nil, why, tc.why)
			}
		})
	}
}

// TestConcurrentRequestsOnAQuickView sends requests from several
// goroutines at once to snapshots answered from the base (a list left
// open, a renamed module): the view reads its units and checks the edited
// declarations once, whoever asks first (run with -race), and every
// goroutine gets what a full check gives.
func TestConcurrentRequestsOnAQuickView(t *testing.T) {
	const path = "/tmp/claims.caps"
	base := testSnapshot(t, path, viewHeaderModule, nil).Package().Result
	ctx := context.Background()
	for _, edit := range [][2]string{{"(output Bool)\n    (body (<=", "(output Bool\n    (body (<="}, {"(module claims", "(module claims_v2"}} {
		text := strings.Replace(viewHeaderModule, edit[0], edit[1], 1)
		fresh := testSnapshot(t, path, text, nil)
		sn := testSnapshot(t, path, text, base)
		offs := []int{strings.Index(text, "(approvable n") + 3, strings.Index(text, "(<= review_score") + 6, strings.Index(text, "(input (n") + 8}
		want := map[int]string{}
		for _, off := range offs {
			h, _ := hover(ctx, fresh, off)
			c, _ := completion(ctx, fresh, off)
			j, _ := json.Marshal([]any{h, c})
			want[off] = string(j)
		}
		errs := make(chan string, 8*len(offs))
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				off := offs[g%len(offs)]
				h, _ := hover(ctx, sn, off)
				c, _ := completion(ctx, sn, off)
				if j, _ := json.Marshal([]any{h, c}); string(j) != want[off] {
					errs <- fmt.Sprintf("%q, offset %d: %s, a full check gives %s", edit[1], off, j, want[off])
				}
			}(g)
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
		if sn.done.Load() {
			t.Errorf("%q: the edited version was checked in full", edit[1])
		}
	}
}

// TestServerRequestsAfterAnOpenList goes through the server: a module is
// opened and checked, an edit leaves a list open, and hover and completion
// follow at once. They get what a full check of the new text gives, and no
// view of the new version declines the base (it is answered from the base,
// or from the version's own check when that was done first).
func TestServerRequestsAfterAnOpenList(t *testing.T) {
	dir := t.TempDir()
	_, c := startServer(t, Options{}, dir)
	u := protocol.DocumentURI("file://" + dir + "/claims.caps")
	text := viewHeaderModule
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text}})
	if _, err := c.Wait("textDocument/publishDiagnostics", nil); err != nil {
		t.Fatal(err)
	}
	// what a full check of the new text answers (its snapshot has no
	// base: its views count as declined, so they come first)
	at := strings.Index(text, "(output Bool)\n    (body (<=") + len("(output Bool")
	next := text[:at] + text[at+1:]
	fresh := testSnapshot(t, dir+"/claims.caps", next, nil)
	if !fresh.cst.HasError(0) {
		t.Fatal("the edit leaves no syntax error")
	}
	type probe struct {
		method string
		off    int
		want   any
	}
	var probes []probe
	for _, off := range []int{strings.Index(next, "(approvable n") + 3, strings.Index(next, "(<= review_score") + 6} {
		for _, q := range []struct {
			method string
			f      func(context.Context, *snapshot, int) (any, error)
		}{{"textDocument/hover", hover}, {"textDocument/completion", completion}} {
			w, _ := q.f(context.Background(), fresh, off)
			j, _ := json.Marshal(w)
			var wv any
			json.Unmarshal(j, &wv)
			probes = append(probes, probe{q.method, off, wv})
		}
	}
	full := fullViews.Load()
	text = replaceText(c, u, 2, text, at, at+1, "")
	for _, p := range probes {
		var got any
		if err := c.Call(p.method, map[string]any{"textDocument": map[string]any{"uri": u}, "position": utf16Pos(text, p.off)}, &got); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(p.want, got); d != "" {
			t.Errorf("%s at %d differs from a full check (-full +server):\n%s", p.method, p.off, d)
		}
	}
	if n := fullViews.Load() - full; n != 0 {
		t.Errorf("%d views declined the base", n)
	}
}

// TestViewAfterOpenListTyped is the differential test of the views of
// texts where a list was left open: "(" or "(x " typed at every 41st byte
// of every example and of a spec-shaped module, then completion, hover,
// definition and signature help at the edit and at random places, from
// the view on the base and from a fresh full check: every answer must be
// the same. It reports how many of those versions leave the module form
// open as a full check reads them (a list the recovery does not close
// takes in the module's closing parenthesis) and how many of them the
// view answered from the base, and how many versions the view read from
// the edit only (syntax.ReadFrom) rather than whole.
func TestViewAfterOpenListTyped(t *testing.T) {
	files, err := filepath.Glob("../examples/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	spec, err := gen.SpecShapedFrom("../examples", 400)
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(t.TempDir(), "spec_shaped.caps")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, specPath)
	step := 41
	if testing.Short() {
		step = 97
	}
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	r := rand.New(rand.NewSource(5))
	var versions, open, openQuick, quick, answers, partial, openPartial int
	declined, declinedOpen := map[string]int{}, map[string]int{}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		path, _ := filepath.Abs(file)
		text := string(src)
		base := testSnapshot(t, path, text, nil).Package().Result
		if base.File.Source.CST.HasError(0) {
			continue
		}
		for at := 0; at < len(text); at += step {
			for _, ins := range []string{"(", "(x "} {
				edited := text[:at] + ins + text[at:]
				sn := testSnapshot(t, path, edited, base)
				if !sn.cst.HasError(0) {
					continue
				}
				versions++
				fresh := testSnapshot(t, path, edited, nil)
				modOpen := false
				if m := fresh.Package().File.Module; m != nil && m.Form != nil && !m.Form.Closed {
					modOpen = true
					open++
				}
				v, why := sn.quickViewWhy()
				if v == nil {
					declined[why]++
					if modOpen {
						declinedOpen[why]++
					}
					continue
				}
				quick++
				if modOpen {
					openQuick++
				}
				if v.errPartial {
					partial++
					if modOpen {
						openPartial++
					}
				}
				probes := []int{at, at + 1, at + len(ins), min(len(edited), at+len(ins)+4)}
				for k := 0; k < 6; k++ {
					probes = append(probes, r.Intn(len(edited)+1))
				}
				for _, off := range probes {
					for _, q := range requests {
						want, werr := q.f(ctx, fresh, off)
						got, gerr := q.f(ctx, sn, off)
						wj, _ := json.Marshal(want)
						gj, _ := json.Marshal(got)
						answers++
						if d := cmp.Diff(fmt.Sprint(string(wj), werr != nil), fmt.Sprint(string(gj), gerr != nil)); d != "" {
							t.Errorf("%s: %q typed at %d, %s at %d: differs from a full check (-full +view):\n%s", filepath.Base(file), ins, at, q.name, off, d)
						}
					}
				}
				if sn.done.Load() {
					t.Errorf("%s: %q typed at %d: the view checked the version in full", filepath.Base(file), ins, at)
				}
			}
		}
	}
	t.Logf("%d versions with a list left open: %d answered from the base; %d leave the module open as a full check reads them, %d of those answered from the base; %d answers, all compared with a full check's", versions, quick, open, openQuick, answers)
	t.Logf("declined: %v; of those leaving the module open: %v", declined, declinedOpen)
	t.Logf("read from the edit only (syntax.ReadFrom): %d of the %d answered from the base, %d of the %d leaving the module open", partial, quick, openPartial, openQuick)
	if openQuick == 0 {
		t.Error("no version that leaves the module open was answered from the base")
	}
	if openPartial == 0 {
		t.Error("no version that leaves the module open was read from the edit only")
	}
}
