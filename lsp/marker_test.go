package lsp

// TestMarkers runs the marker tests: each file under testdata/markers/ is
// a Capsulang document, opened in an in-process server that counts
// characters in UTF-16 (the LSP default), whose expectations are written
// in comment lines of their own:
//
//	(on Submit (target scored))
//	;;                 ^def: scored
//	;;                 ^hover: ```capsulang\n(state scored)\n```...
//
// An annotation line starts with ";;" and, after spaces, a caret. The
// caret marks a place: on the nearest line above that is not an
// annotation line, at the caret's own column, counted in characters (code
// points), so that the caret sits under the character it points at
// whatever the bytes or UTF-16 units before it. After the caret comes the
// annotation:
//
//	^@NAME             names the place, for def and refs; a named place
//	                   stands for the word there (a run of characters
//	                   other than spaces, ( ) [ ] " ; and .).
//	^diag: CODE        a diagnostic with this code starts here. Every
//	^diag: CODE "MSG"  published diagnostic must be claimed by exactly one
//	                   ^diag. MSG, when given, is its message.
//	^hover: TEXT       the hover here has this markdown, and its range
//	                   (if any) is the word here; "^hover: -" means no
//	                   hover.
//	^def: NAME         the definition of the name here is the word at the
//	                   place NAME (one location, in this file).
//	^refs: N1, N2      the references here, the declaration included, are
//	                   the words at these places, in any order.
//	^complete: A, B    the completion labels here, sorted, are A, B.
//	^sig: LABEL #N     signature help here shows one signature, LABEL,
//	                   with parameter N (0-based) active; "^sig: -"
//	                   means none.
//	^action: TITLE     the code actions here (an empty range at the place,
//	                   with the diagnostics that overlap it) have these
//	                   titles, in order: each ^action at one place names
//	                   the next one.
//
// In TEXT, MSG and the lists, "\n" is a line break, and a trailing "..."
// means "and more": the text starts with what precedes it, or the list
// holds at least the items given. In a completion list, "!LABEL" says the
// label must not be offered.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/capsulang/caps/syntax"
)

// marker is one annotation of a marker file.
type marker struct {
	line int // 1-based line of the annotation, for messages
	off  int // the place, a byte offset into the document
	pos  map[string]int
	kind string // "@", "diag", "hover", "def", "refs", "complete", "sig" or "action"
	arg  string
}

func (m marker) String() string {
	if m.kind == "@" {
		return fmt.Sprintf("line %d: ^@%s", m.line, m.arg)
	}
	return fmt.Sprintf("line %d: ^%s: %s", m.line, m.kind, m.arg)
}

// annotationRE matches an annotation line: ";;", spaces, the caret, then
// "@NAME" or "KIND: ARG".
var annotationRE = regexp.MustCompile(`^(\s*;;\s*)\^(?:@([^\s:]+)\s*$|([a-z]+):\s?(.*)$)`)

// parseMarkers reads the annotations of a marker file.
func parseMarkers(text []byte) ([]marker, error) {
	m := syntax.NewMapper(text)
	lines := strings.Split(string(text), "\n")
	var out []marker
	target := -1
	for i, l := range lines {
		a := annotationRE.FindStringSubmatch(l)
		if a == nil {
			target = i
			continue
		}
		if target < 0 {
			return nil, fmt.Errorf("line %d: an annotation before any line it could point at", i+1)
		}
		col := utf8.RuneCountInString(a[1])
		start := m.LineStart(target)
		line := lines[target]
		if utf8.RuneCountInString(line) < col {
			return nil, fmt.Errorf("line %d: the caret is past the end of line %d", i+1, target+1)
		}
		off := start + len(string([]rune(line)[:col]))
		p := m.Position(off, syntax.UTF16)
		mk := marker{line: i + 1, off: off, pos: map[string]int{"line": p.Line, "character": p.Character}, kind: a[3], arg: strings.TrimSpace(a[4])}
		if a[2] != "" {
			mk.kind, mk.arg = "@", a[2]
		}
		switch mk.kind {
		case "@", "diag", "hover", "def", "refs", "complete", "sig", "action":
		default:
			return nil, fmt.Errorf("line %d: unknown annotation ^%s", i+1, mk.kind)
		}
		out = append(out, mk)
	}
	return out, nil
}

// word returns the span of the word at off.
func word(text []byte, off int) syntax.Span {
	isWord := func(r rune) bool { return !strings.ContainsRune(" \t\r\n()[]\";.", r) }
	a, b := off, off
	for a > 0 {
		r, n := utf8.DecodeLastRune(text[:a])
		if !isWord(r) {
			break
		}
		a -= n
	}
	for b < len(text) {
		r, n := utf8.DecodeRune(text[b:])
		if !isWord(r) {
			break
		}
		b += n
	}
	return syntax.Span{Start: a, End: b}
}

// unescape turns "\n" into line breaks.
func unescape(s string) string { return strings.ReplaceAll(s, `\n`, "\n") }

// matchText checks got against want, where a trailing "..." in want
// means got need only start with the rest.
func matchText(got, want string) bool {
	if p, ok := strings.CutSuffix(want, "..."); ok {
		return strings.HasPrefix(got, p)
	}
	return got == want
}

// splitList splits "a, b, c" (an empty string is an empty list).
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func TestMarkers(t *testing.T) {
	files, err := filepath.Glob("testdata/markers/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no marker files: %v", err)
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".caps"), func(t *testing.T) {
			t.Parallel()
			runMarkerFile(t, file)
		})
	}
}

// markerRun holds one marker file's document, open in a server.
type markerRun struct {
	t      *testing.T
	c      *lsptest.Client
	uri    string
	text   []byte
	m      *syntax.Mapper
	places map[string]syntax.Span
}

func runMarkerFile(t *testing.T, file string) {
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	markers, err := parseMarkers(text)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	r := &markerRun{t: t, c: startInProcess(t), uri: "file://" + filepath.ToSlash(abs), text: text, m: syntax.NewMapper(text), places: map[string]syntax.Span{}}
	for _, mk := range markers {
		if mk.kind == "@" {
			if _, dup := r.places[mk.arg]; dup {
				t.Fatalf("%s: place %s named twice", mk, mk.arg)
			}
			r.places[mk.arg] = word(text, mk.off)
		}
	}
	r.c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": r.uri, "languageId": "capsulang", "version": 1, "text": string(text)}})
	diags := r.diagnostics()
	r.checkDiagnostics(markers, diags)
	actions := map[int][]string{} // by offset, in order
	var actionOffs []int
	for _, mk := range markers {
		switch mk.kind {
		case "hover":
			r.checkHover(mk)
		case "def":
			r.checkDefinition(mk)
		case "refs":
			r.checkReferences(mk)
		case "complete":
			r.checkCompletion(mk)
		case "sig":
			r.checkSignature(mk)
		case "action":
			if _, ok := actions[mk.off]; !ok {
				actionOffs = append(actionOffs, mk.off)
			}
			actions[mk.off] = append(actions[mk.off], mk.arg)
		}
	}
	for _, off := range actionOffs {
		r.checkActions(off, actions[off], diags)
	}
}

// protoDiag is a published diagnostic as the tests read it.
type protoDiag struct {
	Range   protoRange `json:"range"`
	Code    string     `json:"code"`
	Message string     `json:"message"`
}

type protoRange struct {
	Start syntax.Position `json:"start"`
	End   syntax.Position `json:"end"`
}

// diagnostics waits for the document's first diagnostics.
func (r *markerRun) diagnostics() []json.RawMessage {
	r.t.Helper()
	msg, err := r.c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		}
		json.Unmarshal(p, &pd)
		return pd.URI == r.uri && pd.Version == 1
	})
	if err != nil {
		r.t.Fatal(err)
	}
	var pd struct {
		Diagnostics []json.RawMessage `json:"diagnostics"`
	}
	if err := json.Unmarshal(msg.Params, &pd); err != nil {
		r.t.Fatal(err)
	}
	return pd.Diagnostics
}

// span converts a protocol range of the document to a byte span.
func (r *markerRun) span(rg protoRange) syntax.Span {
	r.t.Helper()
	sp, err := r.m.Span(syntax.Range{Start: rg.Start, End: rg.End}, syntax.UTF16)
	if err != nil {
		r.t.Fatalf("range %+v: %v", rg, err)
	}
	return sp
}

// describe names a span for messages: its line:column and its text.
func (r *markerRun) describe(sp syntax.Span) string {
	return fmt.Sprintf("%s %q", r.m.Point(sp.Start), r.text[sp.Start:sp.End])
}

var diagArgRE = regexp.MustCompile(`^(\S+)(?:\s+(".*"))?$`)

func (r *markerRun) checkDiagnostics(markers []marker, raw []json.RawMessage) {
	t := r.t
	claimed := make([]bool, len(raw))
	for _, mk := range markers {
		if mk.kind != "diag" {
			continue
		}
		a := diagArgRE.FindStringSubmatch(mk.arg)
		if a == nil {
			t.Errorf("%s: want CODE or CODE \"MESSAGE\"", mk)
			continue
		}
		msg := ""
		if a[2] != "" {
			var err error
			if msg, err = strconv.Unquote(a[2]); err != nil {
				t.Errorf("%s: %v", mk, err)
				continue
			}
		}
		found := false
		for i, b := range raw {
			var d protoDiag
			json.Unmarshal(b, &d)
			if claimed[i] || d.Code != a[1] || r.span(d.Range).Start != mk.off || msg != "" && !matchText(d.Message, unescape(msg)) {
				continue
			}
			claimed[i], found = true, true
			break
		}
		if !found {
			t.Errorf("%s: no such diagnostic at %s; published: %s", mk, r.m.Point(mk.off), raw)
		}
	}
	for i, b := range raw {
		if !claimed[i] {
			var d protoDiag
			json.Unmarshal(b, &d)
			t.Errorf("unexpected diagnostic %s at %s: %s", d.Code, r.describe(r.span(d.Range)), d.Message)
		}
	}
}

func (r *markerRun) at(mk marker) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": r.uri}, "position": mk.pos}
}

func (r *markerRun) checkHover(mk marker) {
	var h *struct {
		Contents struct{ Value string } `json:"contents"`
		Range    *protoRange            `json:"range"`
	}
	if err := r.c.Call("textDocument/hover", r.at(mk), &h); err != nil {
		r.t.Errorf("%s: %v", mk, err)
		return
	}
	if mk.arg == "-" {
		if h != nil {
			r.t.Errorf("%s: got hover %q", mk, h.Contents.Value)
		}
		return
	}
	if h == nil {
		r.t.Errorf("%s: no hover", mk)
		return
	}
	if !matchText(h.Contents.Value, unescape(mk.arg)) {
		r.t.Errorf("%s:\ngot  %q\nwant %q", mk, h.Contents.Value, unescape(mk.arg))
	}
	if h.Range != nil {
		if got, want := r.describe(r.span(*h.Range)), r.describe(word(r.text, mk.off)); got != want {
			r.t.Errorf("%s: hover range %s, want the word %s", mk, got, want)
		}
	}
}

// place returns the span of a named place.
func (r *markerRun) place(mk marker, name string) (syntax.Span, bool) {
	sp, ok := r.places[name]
	if !ok {
		r.t.Errorf("%s: no place named %s (name one with ^@%s)", mk, name, name)
	}
	return sp, ok
}

type protoLocation struct {
	URI   string     `json:"uri"`
	Range protoRange `json:"range"`
}

// spans converts locations in the document to spans, described.
func (r *markerRun) spans(mk marker, locs []protoLocation) []string {
	var out []string
	for _, l := range locs {
		if l.URI != r.uri {
			r.t.Errorf("%s: a location in another file: %s", mk, l.URI)
			continue
		}
		out = append(out, r.describe(r.span(l.Range)))
	}
	sort.Strings(out)
	return out
}

func (r *markerRun) checkDefinition(mk marker) {
	want, ok := r.place(mk, mk.arg)
	if !ok {
		return
	}
	var locs []protoLocation
	if err := r.c.Call("textDocument/definition", r.at(mk), &locs); err != nil {
		r.t.Errorf("%s: %v", mk, err)
		return
	}
	if diff := cmp.Diff([]string{r.describe(want)}, r.spans(mk, locs)); diff != "" {
		r.t.Errorf("%s: definition (-want +got):\n%s", mk, diff)
	}
}

func (r *markerRun) checkReferences(mk marker) {
	var want []string
	for _, name := range splitList(mk.arg) {
		sp, ok := r.place(mk, name)
		if !ok {
			return
		}
		want = append(want, r.describe(sp))
	}
	sort.Strings(want)
	params := r.at(mk)
	params["context"] = map[string]any{"includeDeclaration": true}
	var locs []protoLocation
	if err := r.c.Call("textDocument/references", params, &locs); err != nil {
		r.t.Errorf("%s: %v", mk, err)
		return
	}
	if diff := cmp.Diff(want, r.spans(mk, locs)); diff != "" {
		r.t.Errorf("%s: references (-want +got):\n%s", mk, diff)
	}
}

func (r *markerRun) checkCompletion(mk marker) {
	var res struct {
		Items []struct {
			Label string `json:"label"`
		} `json:"items"`
	}
	if err := r.c.Call("textDocument/completion", r.at(mk), &res); err != nil {
		r.t.Errorf("%s: %v", mk, err)
		return
	}
	var got []string
	have := map[string]bool{}
	for _, it := range res.Items {
		got = append(got, it.Label)
		have[it.Label] = true
	}
	sort.Strings(got)
	items := splitList(mk.arg)
	atLeast := len(items) > 0 && items[len(items)-1] == "..."
	if atLeast {
		items = items[:len(items)-1]
	}
	var want []string
	for _, it := range items {
		if lacks, ok := strings.CutPrefix(it, "!"); ok {
			if have[lacks] {
				r.t.Errorf("%s: %s is offered: %v", mk, lacks, got)
			}
			continue
		}
		want = append(want, it)
		if atLeast && !have[it] {
			r.t.Errorf("%s: %s is not offered: %v", mk, it, got)
		}
	}
	if !atLeast {
		sort.Strings(want)
		if diff := cmp.Diff(want, got); diff != "" {
			r.t.Errorf("%s: completion labels (-want +got):\n%s", mk, diff)
		}
	}
}

var sigArgRE = regexp.MustCompile(`^(.*\S)\s+#(\d+)$`)

func (r *markerRun) checkSignature(mk marker) {
	var h *struct {
		Signatures []struct {
			Label string `json:"label"`
		} `json:"signatures"`
		ActiveParameter int `json:"activeParameter"`
	}
	if err := r.c.Call("textDocument/signatureHelp", r.at(mk), &h); err != nil {
		r.t.Errorf("%s: %v", mk, err)
		return
	}
	if mk.arg == "-" {
		if h != nil && len(h.Signatures) > 0 {
			r.t.Errorf("%s: got signature help %+v", mk, *h)
		}
		return
	}
	a := sigArgRE.FindStringSubmatch(mk.arg)
	if a == nil {
		r.t.Errorf("%s: want LABEL #N", mk)
		return
	}
	var labels []string
	active := -1
	if h != nil {
		for _, s := range h.Signatures {
			labels = append(labels, s.Label)
		}
		active = h.ActiveParameter
	}
	if want, _ := strconv.Atoi(a[2]); len(labels) != 1 || labels[0] != a[1] || active != want {
		r.t.Errorf("%s: got signatures %q with parameter %d active", mk, labels, active)
	}
}

func (r *markerRun) checkActions(off int, want []string, diags []json.RawMessage) {
	var overlapping []json.RawMessage
	for _, b := range diags {
		var d protoDiag
		json.Unmarshal(b, &d)
		if sp := r.span(d.Range); sp.Start <= off && off <= sp.End {
			overlapping = append(overlapping, b)
		}
	}
	if overlapping == nil {
		overlapping = []json.RawMessage{}
	}
	p := r.m.Position(off, syntax.UTF16)
	at := map[string]int{"line": p.Line, "character": p.Character}
	var actions []struct {
		Title string `json:"title"`
	}
	if err := r.c.Call("textDocument/codeAction", map[string]any{
		"textDocument": map[string]any{"uri": r.uri},
		"range":        map[string]any{"start": at, "end": at},
		"context":      map[string]any{"diagnostics": overlapping},
	}, &actions); err != nil {
		r.t.Errorf("code actions at %s: %v", r.m.Point(off), err)
		return
	}
	var got []string
	for _, a := range actions {
		got = append(got, a.Title)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		r.t.Errorf("code actions at %s (-want +got):\n%s", r.m.Point(off), diff)
	}
}

// TestParseMarkers checks the annotation syntax on a small text: places
// count characters (a tab and an astral character are one each), and
// annotation lines stack under one target line.
func TestParseMarkers(t *testing.T) {
	text := "(a\n\t(😀 foo bar)\n;;  ^@foo\n;;      ^hover: x\\ny...\nz\n;^no annotation\n"
	ms, err := parseMarkers([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		Line, Off int
		Pos       map[string]int
		Kind, Arg string
	}
	var gs []got
	for _, m := range ms {
		gs = append(gs, got{m.line, m.off, m.pos, m.kind, m.arg})
	}
	want := []got{
		{3, 3 + 1 + 1 + 4 + 1, map[string]int{"line": 1, "character": 5}, "@", "foo"},
		{4, 3 + 1 + 1 + 4 + 1 + 3 + 1, map[string]int{"line": 1, "character": 9}, "hover", `x\ny...`},
	}
	if diff := cmp.Diff(want, gs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if sp := word([]byte(text), want[0].Off); text[sp.Start:sp.End] != "foo" {
		t.Errorf("word at foo: %q", text[sp.Start:sp.End])
	}
	for _, bad := range []string{";; ^hover: x\n", "ab\n;;    ^def: x\n", "a\n;; ^nonsense: x\n"} {
		if _, err := parseMarkers([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
