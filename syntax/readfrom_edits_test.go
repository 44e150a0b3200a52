package syntax

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
)

// readFromBase is a text that reads without a syntax error, with what the
// language server keeps of it for ReadFrom (lsp/view.go's partialRead).
type readFromBase struct {
	name               string
	text               string
	base               *Source
	mod                *Form
	mi                 int
	alikePre, alikeSuf int
}

func newReadFromBase(name, text string) (*readFromBase, error) {
	c0, err := Parse([]byte(text))
	if err != nil {
		return nil, err
	}
	if c0.HasError(0) {
		return nil, nil
	}
	b := &readFromBase{name: name, text: text, base: Read(c0), mi: -1}
	for i, f := range b.base.Forms {
		if f.Head() == "module" {
			b.mod, b.mi = f, i
		}
	}
	if b.mod == nil || len(b.base.Diagnostics) > 0 {
		return nil, nil
	}
	pre, suf, ok := RecoversAlike(b.base, b.mod)
	if !ok {
		return nil, nil
	}
	b.alikePre, b.alikeSuf = pre, suf
	return b, nil
}

// readFromEdit reads the edited text next as the language server does
// right after the edit (ReadFrom from the last of the module's lists that
// starts its line before the edit, where the recovery reads the base
// alike) and checks what it read against Read of the whole text: the
// top-level forms, the module's span, whether it is closed, its items (the
// base's before from, those read, the base's after the stop, moved by the
// edit's length) and the diagnostics. It returns how the read went:
// "none" (no syntax error, or no place to read from), "declined", "stop"
// (back between the module's items), "closed" (the module closed in the
// read) or "open" (the module stays open to the end of the text).
func readFromEdit(t *testing.T, b *readFromBase, next, what string) string {
	t.Helper()
	c1, err := Parse([]byte(next))
	if err != nil {
		t.Fatal(err)
	}
	if !c1.HasError(0) && !unbalanced(c1) {
		return "none"
	}
	pre, suf := commonEnds(b.text, next)
	shift := len(next) - len(b.text)
	items := b.mod.Items()
	from := -1
	for k, it := range items {
		st := it.Span().Start
		if k > b.alikePre || st+1 > pre {
			break
		}
		if ls := b.base.CST.Lines.LineStart(b.base.CST.Lines.Line(st)); it.Kind == FormList && strings.TrimSpace(b.text[ls:st]) == "" {
			from = st
		}
	}
	if from < 0 {
		return "none"
	}
	starts := map[int]bool{}
	for k, it := range items {
		if k >= len(items)-b.alikeSuf {
			starts[it.Span().Start+shift] = true
		}
	}
	where := func() string {
		return fmt.Sprintf("%s: %s at %d:\n%s", b.name, what, pre, next[max(0, pre-80):min(len(next), pre+80)])
	}
	res, ok := ReadFrom(c1, b.mod.Span().Start, from, len(next)-suf, func(off int) bool { return starts[off] })
	whole := Read(c1)
	if !ok {
		if unbalanced(c1) {
			t.Errorf("%s\nReadFrom declined a text whose parentheses do not balance", where())
		}
		return "declined"
	}
	type want struct {
		f     *Form
		shift int
	}
	var witems, forms []want
	for _, it := range items {
		if it.Span().Start < from {
			witems = append(witems, want{it, 0})
		}
	}
	for _, it := range res.Forms {
		witems = append(witems, want{it, 0})
	}
	wantMod := &Form{start: uint32(b.mod.Span().Start), end: uint32(b.mod.Span().End + shift), Kind: FormList, Closed: true}
	how := "stop"
	if res.List == nil {
		for _, it := range items {
			if it.Span().Start >= res.Stop-shift && it.Span().Start >= from {
				witems = append(witems, want{it, shift})
			}
		}
	} else {
		// (the recovery may close the module too, where a line starts
		// at or left of its column: a form follows it then)
		wantMod, how = res.List, "closed"
		if !res.List.Closed && len(res.After) == 0 {
			how = "open"
		}
		if res.Stop != len(next) {
			t.Errorf("%s\nthe module's list closed or stays open, yet the read stopped at %d", where(), res.Stop)
		}
	}
	for i, f := range b.base.Forms {
		switch {
		case i < b.mi:
			forms = append(forms, want{f, 0})
		case i == b.mi:
			forms = append(forms, want{wantMod, 0})
		case res.List == nil:
			forms = append(forms, want{f, shift})
		}
	}
	for _, f := range res.After {
		forms = append(forms, want{f, 0})
	}
	if len(whole.Forms) != len(forms) {
		t.Fatalf("%s\nthe whole read has %d top-level forms, want %d (%s)", where(), len(whole.Forms), len(forms), how)
	}
	for i, f := range whole.Forms {
		w := forms[i]
		if i != b.mi {
			if !sameShifted(w.f, f, w.shift) {
				t.Fatalf("%s\ntop-level form %d reads %s, want %s (%s)", where(), i, sexp([]*Form{f}), sexp([]*Form{w.f}), how)
			}
			continue
		}
		if f.Closed != w.f.Closed || f.Span() != w.f.Span() || len(f.Items()) != len(witems) {
			t.Fatalf("%s\nthe whole read's module %v closed %v with %d items, want %v closed %v with %d (%s, stop %d)", where(), f.Span(), f.Closed, len(f.Items()), w.f.Span(), w.f.Closed, len(witems), how, res.Stop)
		}
		for k, it := range f.Items() {
			if !sameShifted(witems[k].f, it, witems[k].shift) {
				t.Fatalf("%s\nmodule item %d reads %s, ReadFrom and the base give %s (shift %d, %s)", where(), k, sexp([]*Form{it}), sexp([]*Form{witems[k].f}), witems[k].shift, how)
			}
		}
	}
	// the diagnostics: the base has none, so the whole read's are those
	// of the tokens read (in another order: a whole read reports the
	// lexical ones of the whole text first)
	if d := cmp.Diff(sortedDiags(whole.Diagnostics), sortedDiags(res.Diagnostics)); d != "" {
		t.Fatalf("%s\nthe diagnostics differ (-whole read +ReadFrom, %s):\n%s", where(), how, d)
	}
	// and the comments: the base's before from, those read, the base's
	// after the stop
	var wc []Span
	for _, c := range b.base.Comments {
		if c.Start < from {
			wc = append(wc, c)
		}
	}
	wc = append(wc, res.Comments...)
	if res.List == nil {
		for _, c := range b.base.Comments {
			if c.Start >= res.Stop-shift && c.Start >= from {
				wc = append(wc, Span{c.Start + shift, c.End + shift})
			}
		}
	}
	if d := cmp.Diff(whole.Comments, wc); d != "" {
		t.Fatalf("%s\nthe comments differ (-whole read +ReadFrom, %s):\n%s", where(), how, d)
	}
	return how
}

func sortedDiags(ds []Diagnostic) []Diagnostic {
	ds = append([]Diagnostic(nil), ds...)
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Span.Start != b.Span.Start {
			return a.Span.Start < b.Span.Start
		}
		if a.Span.End != b.Span.End {
			return a.Span.End < b.Span.End
		}
		return a.Message < b.Message
	})
	return ds
}

// TestReadFromEveryEdit is a differential test of ReadFrom against Read
// over every example, every .caps fixture under testdata and a
// spec-shaped module: it types `(`, `(x `, `"` and deletes the next `)` at
// every stride-th byte (the edits made while typing that leave a syntax
// error), and checks each read against a whole read (readFromEdit). It
// reports how many edits were read from the edit, and of those how many
// leave the module open to the end of the text (once always declined).
func TestReadFromEveryEdit(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.caps")
	more, _ := filepath.Glob("../testdata/*/*.caps")
	files = append(files, more...)
	more, _ = filepath.Glob("../testdata/*/*/*.caps")
	files = append(files, more...)
	if len(files) < 20 {
		t.Fatalf("only %d files", len(files))
	}
	var bases []*readFromBase
	skipped := 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		b, err := newReadFromBase(file, string(src))
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			skipped++
			continue
		}
		bases = append(bases, b)
	}
	spec, err := gen.SpecShapedFrom("../examples", 400)
	if err != nil {
		t.Fatal(err)
	}
	b, err := newReadFromBase("spec-shaped", string(spec))
	if err != nil || b == nil {
		t.Fatalf("the spec-shaped module does not read as a base: %v", err)
	}
	bases = append(bases, b)
	stride := 31
	if testing.Short() {
		stride = 97
	}
	edits := []struct {
		name string
		edit func(text string, at int) string
	}{
		{"`(` typed", func(text string, at int) string { return text[:at] + "(" + text[at:] }},
		{"`(x ` typed", func(text string, at int) string { return text[:at] + "(x " + text[at:] }},
		{"`\"` typed", func(text string, at int) string { return text[:at] + "\"" + text[at:] }},
		{"`)` deleted", func(text string, at int) string {
			if i := strings.IndexByte(text[at:], ')'); i >= 0 {
				return text[:at+i] + text[at+i+1:]
			}
			return ""
		}},
	}
	count := map[string]int{}
	for _, b := range bases {
		for at := 0; at <= len(b.text); at += stride {
			for _, e := range edits {
				next := e.edit(b.text, at)
				if next == "" {
					continue
				}
				count[readFromEdit(t, b, next, e.name)]++
			}
		}
	}
	read := count["stop"] + count["closed"] + count["open"]
	t.Logf("%d bases (%d files skipped: a syntax error, no module or a base the recovery reads differently); edits with a syntax error: %d, %d read from the edit (%d back between items, %d the module closed, %d the module open to the end), %d declined", len(bases), skipped, read+count["declined"], read, count["stop"], count["closed"], count["open"], count["declined"])
	if count["open"] == 0 || read < 9*(read+count["declined"])/10 {
		t.Errorf("ReadFrom read %v", count)
	}
}

// FuzzReadFrom edits a text that reads without a syntax error and checks
// ReadFrom on the edited text against Read of the whole of it, as
// TestReadFromEveryEdit does (readFromEdit): edit holds where (a fraction
// of the text), how many bytes the edit deletes and what it inserts.
func FuzzReadFrom(f *testing.F) {
	f.Add([]byte("(module m\n  (function f (x I64) (returns I64) x)\n  (store s (backend memory)))\n"), []byte{200, 0, 0})
	f.Add([]byte("(module m\n  (function f (x I64) (returns I64)\n    (g x))\n  (type T Text))\n"), []byte{120, 1, 5})
	f.Add([]byte("(module m\n  (type A Text)\n  ; c\n  (function f (x I64) (returns I64) x))\n"), []byte{250, 0, 1})
	f.Add(gen.Module(20), []byte{128, 0, 2})
	inserts := []string{"(", "(x ", "\"", "", ")", "\n(", "\n  (f", " ; c\n"}
	f.Fuzz(func(t *testing.T, src, edit []byte) {
		if len(src) > 1<<14 || len(edit) < 3 {
			return
		}
		b, err := newReadFromBase("fuzz", string(src))
		if err != nil {
			t.Fatal(err)
		}
		if b == nil {
			return
		}
		at := int(edit[0]) * len(src) / 255
		end := min(at+int(edit[1]%8), len(src))
		next := string(src[:at]) + inserts[int(edit[2])%len(inserts)] + string(src[end:])
		readFromEdit(t, b, next, fmt.Sprintf("edit %v", edit[:3]))
	})
}
