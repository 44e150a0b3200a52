package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
)

// viewRequests are the requests an editor sends right after an edit.
var viewRequests = []struct {
	name string
	f    func(context.Context, *snapshot, int) (any, error)
}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}

// sameAtEveryOffset sends every request at every offset of sn's text to
// sn (answered from its view) and to a fresh full check of the same text,
// and reports the answers that differ (the first few); it returns how
// many pairs it compared.
func sameAtEveryOffset(t *testing.T, sn *snapshot) int {
	t.Helper()
	ctx := context.Background()
	text := string(sn.cst.Src)
	fresh := testSnapshot(t, sn.path, text, nil)
	n, bad := 0, 0
	for off := 0; off <= len(text); off++ {
		for _, q := range viewRequests {
			want, werr := q.f(ctx, fresh, off)
			got, gerr := q.f(ctx, sn, off)
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			n++
			if d := cmp.Diff(fmt.Sprint(string(wj), werr != nil), fmt.Sprint(string(gj), gerr != nil)); d != "" {
				if bad++; bad <= 5 {
					line := strings.Count(text[:off], "\n") + 1
					t.Errorf("%s at line %d (offset %d) differs from a full check (-full +view):\n%s", q.name, line, off, d)
				}
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d answers in all differ from a full check", bad)
	}
	return n
}

// useQuickView makes sn's requests read v, its quick view.
func useQuickView(sn *snapshot, v *view) {
	sn.qv.Store(v)
	sn.viewOnce.Do(func() {})
}

// readExample returns an example's absolute path and text.
func readExample(t *testing.T, name string) (path, text string) {
	t.Helper()
	file := filepath.Join("..", "examples", name)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	path, err = filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	return path, string(src)
}

// syntaxReq is one request of TestRequestsAfterSyntaxEdit: at the offset
// of mark's first occurrence plus back, and its exact answer.
type syntaxReq struct {
	req, mark string
	back      int
	want      string
}

// TestRequestsAfterSyntaxEdit sends completion, hover, definition and
// signature help right after edits whose tree the reader's recovery
// groups otherwise ((a) a `(` typed at column 0, (b) an extra `)`), and
// after an import edit in a text with a syntax error (c): each is answered
// from the base (the view does not decline) with a full check's exact
// answer, and so is every request at every offset.
func TestRequestsAfterSyntaxEdit(t *testing.T) {
	ctx := context.Background()
	const claimsPath = "/tmp/claims.caps"
	impPath, imports := readExample(t, "17_imports.caps")
	moneyPath, err := filepath.Abs("../examples/lib/money.caps")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, base, text string
		reqs                   []syntaxReq
	}{
		// (a) a `(` on its own line at column 0 between two declarations: the
		// recovery closes the module there (unclosed) and reads the rest in
		// a list outside it, which declares nothing: twice and flagged are
		// gone (hover null, no definition, flagged's input unknown), what
		// comes before still completes
		{"open paren on its own line", claimsPath, viewHeaderModule, strings.Replace(viewHeaderModule, "\n  ;; Both n", "\n(\n  ;; Both n", 1), []syntaxReq{
			{"completion", "(approvable n)", len("(appr"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"function\",\"kind\":18,\"label\":\"approvable\",\"textEdit\":{\"range\":{\"start\":{\"line\":15,\"character\":16},\"end\":{\"line\":15,\"character\":20}},\"newText\":\"approvable\"}}]}"},
			{"hover", "(approvable n)", len("(appr"), "null"},
			{"definition", "(approvable n)", len("(appr"), "[]"},
			{"signatureHelp", "(approvable n)", len("(approvable "), "{\"signatures\":[{\"label\":\"(approvable review_score U32) -\\u003e Bool\",\"documentation\":\"Scores at or below 30 may be approved.\",\"parameters\":[{\"label\":\"review_score U32\"}]}]}"},
			{"completion", "(> n 90)", len("(> n"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"literal\",\"kind\":12,\"label\":\"none\",\"textEdit\":{\"range\":{\"start\":{\"line\":21,\"character\":13},\"end\":{\"line\":21,\"character\":14}},\"newText\":\"none\"}}]}"},
		}},
		// (a) a `(` typed at column 0 before a declaration's own `(`: the
		// declarations before it are kept, flagged is gone
		{"open paren at column 0 before a declaration", claimsPath, viewHeaderModule, strings.Replace(viewHeaderModule, "\n  (function flagged", "\n(  (function flagged", 1), []syntaxReq{
			{"completion", "(approvable n)", len("(appr"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"function\",\"kind\":18,\"label\":\"approvable\",\"textEdit\":{\"range\":{\"start\":{\"line\":14,\"character\":16},\"end\":{\"line\":14,\"character\":20}},\"newText\":\"approvable\"}}]}"},
			{"hover", "(approvable n)", len("(appr"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\n(function approvable (review_score U32) -\\u003e Bool pure)\\n```\\n\\nScores at or below 30 may be approved.\"},\"range\":{\"start\":{\"line\":14,\"character\":16},\"end\":{\"line\":14,\"character\":26}}}"},
			{"definition", "(approvable n)", len("(appr"), "[{\"uri\":\"file:///tmp/claims.caps\",\"range\":{\"start\":{\"line\":5,\"character\":12},\"end\":{\"line\":5,\"character\":22}}}]"},
			{"signatureHelp", "(approvable n)", len("(approvable "), "{\"signatures\":[{\"label\":\"(approvable review_score U32) -\\u003e Bool\",\"documentation\":\"Scores at or below 30 may be approved.\",\"parameters\":[{\"label\":\"review_score U32\"}]}]}"},
			{"completion", "(> n 90)", len("(> n"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"literal\",\"kind\":12,\"label\":\"none\",\"textEdit\":{\"range\":{\"start\":{\"line\":20,\"character\":13},\"end\":{\"line\":20,\"character\":14}},\"newText\":\"none\"}}]}"},
		}},
		// (a) a `(` on its own line above the module: the tree's open list
		// takes in the module (it has no module form); the recovery closes
		// the list at the module's line and reads the module as before,
		// its doc comment included
		{"open paren above the module", claimsPath, viewHeaderModule, strings.Replace(viewHeaderModule, ";; Claims, scored.\n", "(\n;; Claims, scored.\n", 1), []syntaxReq{
			{"hover", "(module claims", len("(module c"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\nmodule claims\\n```\\n\\nClaims, scored.\"},\"range\":{\"start\":{\"line\":2,\"character\":8},\"end\":{\"line\":2,\"character\":14}}}"},
			{"completion", "(approvable n)", len("(appr"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"function\",\"kind\":18,\"label\":\"approvable\",\"textEdit\":{\"range\":{\"start\":{\"line\":15,\"character\":16},\"end\":{\"line\":15,\"character\":20}},\"newText\":\"approvable\"}}]}"},
			{"hover", "(approvable n)", len("(appr"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\n(function approvable (review_score U32) -\\u003e Bool pure)\\n```\\n\\nScores at or below 30 may be approved.\"},\"range\":{\"start\":{\"line\":15,\"character\":16},\"end\":{\"line\":15,\"character\":26}}}"},
			{"definition", "(approvable n)", len("(appr"), "[{\"uri\":\"file:///tmp/claims.caps\",\"range\":{\"start\":{\"line\":6,\"character\":12},\"end\":{\"line\":6,\"character\":22}}}]"},
			{"signatureHelp", "(approvable n)", len("(approvable "), "{\"signatures\":[{\"label\":\"(approvable review_score U32) -\\u003e Bool\",\"documentation\":\"Scores at or below 30 may be approved.\",\"parameters\":[{\"label\":\"review_score U32\"}]}]}"},
		}},
		// (b) an extra `)` that would close twice early: the next line is
		// indented inside it, so the recovery reads the `)` as stray and
		// twice as before (the tree closes the module there)
		{"extra close paren", claimsPath, viewHeaderModule, strings.Replace(viewHeaderModule, "(input (n U32))\n    (output Bool)\n    (body (and", "(input (n U32)))\n    (output Bool)\n    (body (and", 1), []syntaxReq{
			{"completion", "(approvable n)", len("(appr"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"function\",\"kind\":18,\"label\":\"approvable\",\"textEdit\":{\"range\":{\"start\":{\"line\":14,\"character\":16},\"end\":{\"line\":14,\"character\":20}},\"newText\":\"approvable\"}}]}"},
			{"hover", "(approvable n)", len("(appr"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\n(function approvable (review_score U32) -\\u003e Bool pure)\\n```\\n\\nScores at or below 30 may be approved.\"},\"range\":{\"start\":{\"line\":14,\"character\":16},\"end\":{\"line\":14,\"character\":26}}}"},
			{"definition", "(approvable n)", len("(appr"), "[{\"uri\":\"file:///tmp/claims.caps\",\"range\":{\"start\":{\"line\":5,\"character\":12},\"end\":{\"line\":5,\"character\":22}}}]"},
			{"signatureHelp", "(approvable n)", len("(approvable "), "{\"signatures\":[{\"label\":\"(approvable review_score U32) -\\u003e Bool\",\"documentation\":\"Scores at or below 30 may be approved.\",\"parameters\":[{\"label\":\"review_score U32\"}]}]}"},
			{"completion", "(> n 90)", len("(> n"), "{\"isIncomplete\":false,\"items\":[{\"detail\":\"input\",\"kind\":6,\"label\":\"n\",\"textEdit\":{\"range\":{\"start\":{\"line\":20,\"character\":13},\"end\":{\"line\":20,\"character\":14}},\"newText\":\"n\"}},{\"detail\":\"literal\",\"kind\":12,\"label\":\"none\",\"textEdit\":{\"range\":{\"start\":{\"line\":20,\"character\":13},\"end\":{\"line\":20,\"character\":14}},\"newText\":\"none\"}}]}"},
		}},
		// (c) an import's alias renamed in a text with a syntax error in a
		// declaration: m. no longer resolves, money. does
		{"import alias renamed with a syntax error", impPath, imports, strings.Replace(strings.Replace(imports, "(import lib.money (as m))", "(import lib.money (as mm))", 1), "(output Bool)", "(output (Bool)", 1), []syntaxReq{
			{"completion", "(m.is_large", len("(m.is_"), "{\"isIncomplete\":false,\"items\":null}"},
			{"hover", "(m.is_large", len("(m.is_"), "null"},
			{"definition", "(paid m.Amount)", len("(paid m.Am"), "[]"},
			{"signatureHelp", "(m.is_large", len("(m.is_large "), "null"},
			{"hover", "(paid money.Amount)", len("(paid money.Am"), fmt.Sprintf("{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\ntype Amount = (record (cents U64) (currency Text))\\n```\\n\\nA currency amount with its ISO 4217 code.\\n\\n*from %s*\"},\"range\":{\"start\":{\"line\":17,\"character\":18},\"end\":{\"line\":17,\"character\":24}}}", moneyPath)},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.text == tc.base {
				t.Fatal("the edit changed nothing")
			}
			base := testSnapshot(t, tc.path, tc.base, nil).Package().Result
			sn := testSnapshot(t, tc.path, tc.text, base)
			if !sn.cst.HasError(0) {
				t.Fatal("the edit left no syntax error")
			}
			v, why := sn.quickViewWhy()
			if v == nil {
				t.Fatalf("the view declined: %s", why)
			}
			useQuickView(sn, v)
			askSyntaxReqs(t, ctx, sn, tc.text, tc.reqs)
			sameAtEveryOffset(t, sn)
		})
	}
}

// TestModuleDocAfterCommentLineBreak is what TestViewMatchesFullCheck
// found with VIEW_SEED=28, 31 and 47: a line break inserted at the end of
// a line in the comments above the module. It changes no unit (every
// comment is the same text, moved), yet it breaks the run of comment
// lines the module's doc is made of: a full check's hover on the module's
// name shows only the lines below the break. The view showed them all.
func TestModuleDocAfterCommentLineBreak(t *testing.T) {
	path, module := readExample(t, "17_imports.caps")
	base := testSnapshot(t, path, module, nil).Package().Result
	const line = ";; and through an alias (m.); examples that call imported functions. The\n"
	if !strings.Contains(module, line) {
		t.Fatalf("no %q in the example", line)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"a line break between two comment lines", strings.Replace(module, line, line+"\n", 1),
			"{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\nmodule examples.imports\\n```\\n\\nsemantic hash of this module covers the imported module's hash, so a\\nchange in lib/money.caps changes the hash printed by\\n\\ncaps hash examples/17_imports.caps\"},\"range\":{\"start\":{\"line\":10,\"character\":8},\"end\":{\"line\":10,\"character\":24}}}"},
		// and the break taken away again, over a base that had it
		{"the line break removed", module, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if tc.want == "" {
				// over the version with the break: the full doc comes back
				b = testSnapshot(t, path, strings.Replace(module, line, line+"\n", 1), nil).Package().Result
				fresh := testSnapshot(t, path, tc.text, nil)
				got, err := hover(context.Background(), fresh, strings.Index(tc.text, "examples.imports")+1)
				if err != nil {
					t.Fatal(err)
				}
				j, _ := json.Marshal(got)
				tc.want = string(j)
				if !strings.Contains(tc.want, "Importing another module") {
					t.Fatalf("a full check's doc lacks the first line: %s", tc.want)
				}
			}
			sn := testSnapshot(t, path, tc.text, b)
			v, why := sn.quickViewWhy()
			if v == nil {
				t.Fatalf("the view declined: %s", why)
			}
			useQuickView(sn, v)
			got, err := hover(context.Background(), sn, strings.Index(tc.text, "examples.imports")+1)
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			if d := cmp.Diff(tc.want, string(gj)); d != "" {
				t.Errorf("hover on the module's name (-want +got):\n%s", d)
			}
		})
	}
}

// syntaxEdit makes one edit of the kind TestViewSyntaxEditsDifferential
// draws (kind is its name), from r; ok is false when text has no place for
// it.
func syntaxEdit(r *rand.Rand, kind, text string) (string, bool) {
	lines := strings.SplitAfter(text, "\n")
	mod := strings.Index(text, "(module ")
	switch kind {
	case "open paren at column 0":
		i := r.Intn(len(lines))
		ins := []string{"(", "(\n", "(x "}[r.Intn(3)]
		return strings.Join(lines[:i], "") + ins + strings.Join(lines[i:], ""), true
	case "extra close paren":
		var at []int
		for i, l := range lines {
			if strings.HasSuffix(l, ")\n") {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return "", false
		}
		i := at[r.Intn(len(at))]
		return strings.Join(lines[:i], "") + strings.TrimSuffix(lines[i], "\n") + ")\n" + strings.Join(lines[i+1:], ""), true
	case "import edit with a syntax error":
		imp := strings.Index(text, "  (import ")
		if imp < 0 {
			return "", false
		}
		end := imp + strings.IndexByte(text[imp:], '\n') + 1
		var next string
		switch r.Intn(4) {
		case 0: // remove it
			next = text[:imp] + text[end:]
		case 1: // give it another alias
			next = text[:imp] + strings.TrimRight(text[imp:end-1], ")") + " (as " + []string{"m", "mm", "money"}[r.Intn(3)] + "))\n" + text[end:]
		case 2: // add one
			next = text[:end] + []string{"  (import lib.money (as k))\n", "  (import lib.nothing)\n", "  (import lib.money (as m))\n"}[r.Intn(3)] + text[end:]
		case 3: // leave it open
			next = text[:end-2] + "\n" + text[end:]
		}
		// and a syntax error after the header
		at := end + r.Intn(len(next)-end)
		return next[:at] + []string{"(", ")", "(x "}[r.Intn(3)] + next[at:], true
	case "line break in the module's comments":
		var at []int
		for i := 0; i < mod; i++ {
			if text[i] == '\n' || text[i] == ' ' {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			return "", false
		}
		i := at[r.Intn(len(at))]
		return text[:i] + []string{"\n", "\n;;\n", "\n\n"}[r.Intn(3)] + text[i:], true
	}
	panic(kind)
}

// TestViewSyntaxEditsDifferential is the differential test of the edits
// TestRequestsAfterSyntaxEdit holds one of each: a `(` typed at column 0,
// an extra `)` at a line's end, an import edited in a text with a syntax
// error, and a line break in the comments above the module. For each
// example and each kind, one random edit of the example; each version a
// view answers (the share is logged, with the reasons of the others) must
// answer every request at every offset as a full check does. VIEW_SEEDS
// chooses the seeds (`1-60`; default 1). Over seeds 1-60, 3,112 of 3,300
// versions are answered without a full check (958 before the view cut a
// text's units from the recovery's read, 89 of those answering the
// module's hover wrongly); the others edit the module form or put a
// declaration outside the module.
func TestViewSyntaxEditsDifferential(t *testing.T) {
	from, to := int64(1), int64(1)
	if s := os.Getenv("VIEW_SEEDS"); s != "" {
		if _, err := fmt.Sscanf(s, "%d-%d", &from, &to); err != nil {
			t.Fatalf("VIEW_SEEDS=%q: want FROM-TO", s)
		}
	}
	files, err := filepath.Glob("../examples/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	if testing.Short() {
		files = files[:4]
	}
	kinds := []string{"open paren at column 0", "extra close paren", "import edit with a syntax error", "line break in the module's comments"}
	type tally struct{ versions, quick, compared int }
	byKind := map[string]*tally{}
	declined := map[string]int{}
	bases := map[string]*check.Result{}
	for seed := from; seed <= to; seed++ {
		r := rand.New(rand.NewSource(seed))
		for _, file := range files {
			path, module := readExample(t, filepath.Base(file))
			base := bases[path]
			if base == nil {
				base = testSnapshot(t, path, module, nil).Package().Result
				bases[path] = base
			}
			for _, kind := range kinds {
				text, ok := syntaxEdit(r, kind, module)
				if !ok {
					continue
				}
				k := byKind[kind]
				if k == nil {
					k = &tally{}
					byKind[kind] = k
				}
				k.versions++
				sn := testSnapshot(t, path, text, base)
				v, why := sn.quickViewWhy()
				if v == nil {
					declined[kind+": "+why]++
					continue
				}
				k.quick++
				useQuickView(sn, v)
				t.Run(fmt.Sprintf("%d/%s/%s", seed, filepath.Base(file), kind), func(t *testing.T) {
					k.compared += sameAtEveryOffset(t, sn)
				})
			}
		}
	}
	quick, versions := 0, 0
	for _, kind := range kinds {
		k := byKind[kind]
		if k == nil {
			continue
		}
		quick += k.quick
		versions += k.versions
		t.Logf("%s: %d of %d versions answered without a full check (%d requests compared)", kind, k.quick, k.versions, k.compared)
	}
	t.Logf("in all: %d of %d versions answered without a full check; declined: %v", quick, versions, declined)
}

// TestDeclDocAfterCommentRemovedAboveStrayForm is what
// TestViewAfterSyntaxError found with VIEW_SEED=57 (and seeds 2, 5, 54,
// 55): the comment above a declaration removed while a stray form sits
// before the declaration's `(` on its line (`x(function ...`). The
// declaration's unit and the form before it are unchanged, moved alike,
// so the view kept the base's doc: hover and signature help still showed
// the removed comment, which a full check no longer has.
func TestDeclDocAfterCommentRemovedAboveStrayForm(t *testing.T) {
	ctx := context.Background()
	path, module := readExample(t, "17_imports.caps")
	b := strings.Replace(module, "  (function partial_refund", "  x(function partial_refund", 1)
	const comment = "  ;; A refund of a share of an amount, in the same currency.\n"
	text := strings.Replace(b, comment, "", 1)
	if b == module || text == b {
		t.Fatal("the example changed: no place for the edits")
	}
	base := testSnapshot(t, path, b, nil).Package().Result
	sn := testSnapshot(t, path, text, base)
	v, why := sn.quickViewWhy()
	if v == nil {
		t.Fatalf("the view declined: %s", why)
	}
	useQuickView(sn, v)
	for _, q := range []struct {
		f    func(context.Context, *snapshot, int) (any, error)
		mark string
		back int
		want string
	}{
		{hover, "x(function partial_refund", len("x(function partial"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\n(function partial_refund (paid Amount bps U64) -\\u003e Amount pure)\\n```\"},\"range\":{\"start\":{\"line\":14,\"character\":13},\"end\":{\"line\":14,\"character\":27}}}"},
		{signatureHelp, "(partial_refund paid bps)", len("(partial_refund "), `{"signatures":[{"label":"(partial_refund paid money.Amount bps U64) -\u003e m.Amount","parameters":[{"label":"paid money.Amount"},{"label":"bps U64"}]}]}`},
	} {
		got, err := q.f(ctx, sn, strings.Index(text, q.mark)+q.back)
		if err != nil {
			t.Fatal(err)
		}
		gj, _ := json.Marshal(got)
		if d := cmp.Diff(q.want, string(gj)); d != "" {
			t.Errorf("at %q (-want +got):\n%s", q.mark, d)
		}
	}
}

// askSyntaxReqs sends each of reqs to sn, whose text is text, and
// compares the answer's JSON with the one wanted.
func askSyntaxReqs(t *testing.T, ctx context.Context, sn *snapshot, text string, reqs []syntaxReq) {
	t.Helper()
	for _, q := range reqs {
		at := strings.Index(text, q.mark)
		if at < 0 {
			t.Fatalf("no %q in the text", q.mark)
		}
		var f func(context.Context, *snapshot, int) (any, error)
		for _, r := range viewRequests {
			if r.name == q.req {
				f = r.f
			}
		}
		got, err := f(ctx, sn, at+q.back)
		if err != nil {
			t.Fatal(err)
		}
		gj, _ := json.Marshal(got)
		if d := cmp.Diff(q.want, string(gj)); d != "" {
			t.Errorf("%s in %q (-want +got):\n%s", q.req, q.mark, d)
		}
	}
}
