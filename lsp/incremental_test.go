package lsp

import (
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
)

// TestIncrementalDiagnosticsMatchFresh types into a generated module and
// checks the diagnostics of every version against a fresh check of the
// text, so that the incremental path (check.Result.Recheck) is held to the
// same answers as the full one, through the protocol and its positions.
func TestIncrementalDiagnosticsMatchFresh(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/incr/typing.caps"
	text := strings.ReplaceAll(string(gen.Module(150)), "(output I64)", "(output I64) ; 😀") // astral characters before most edits
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	r := rand.New(rand.NewSource(7))
	before := quickChecks.Load()
	good := text
	edits := 150
	if testing.Short() {
		edits = 40
	}
	for version := 2; version < edits+2; version++ {
		var a, b int
		var ins string
		switch at := r.Intn(len(text)); {
		case strings.Count(good, "(") != strings.Count(text, "(") || strings.Count(good, ")") != strings.Count(text, ")"):
			a, b, ins = 0, len(text), good // undo a breakage with a full-text change
		default:
			for at < len(text) && text[at]&0xC0 == 0x80 {
				at++
			}
			a, b = at, at
			switch r.Intn(6) {
			case 0:
				ins = " "
			case 1:
				ins = "x"
			case 2:
				ins = "😀"
			case 3:
				ins = " (+ 1 2)"
			case 4:
				if at < len(text) && (text[at] >= 'a' && text[at] <= 'z' || text[at] == ' ') {
					b = at + 1
				}
			case 5:
				ins = ")"
			}
		}
		change := map[string]any{"text": ins}
		if !(a == 0 && b == len(text)) {
			change["range"] = map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, b)}
		}
		text = text[:a] + ins + text[b:]
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{change}})
		if diff := diagnosticsVsFresh(t, c, version, text); diff != "" {
			t.Fatalf("version %d ([%d,%d) -> %q): diagnostics differ from a fresh check (-fresh +server):\n%s", version, a, b, ins, diff)
		}
		if !strings.Contains(ins, ")") {
			good = text
		}
	}
	if quick := quickChecks.Load() - before; quick < int64(edits)/2 {
		t.Fatalf("only %d of %d versions were checked incrementally", quick, edits)
	} else {
		t.Logf("%d of %d versions were checked incrementally", quick, edits)
	}
}

// TestIncrementalChainsWithoutFullCheck types into a generated module
// whose functions have no examples, pausing longer than fullCheckDelay
// now and then, and checks every version's diagnostics against a fresh
// check of the text: each incremental answer is the next one's base
// (check.Result.RecheckResult), and no full check runs after one.
func TestIncrementalChainsWithoutFullCheck(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/incr/chained.caps"
	var kept []string
	for _, l := range strings.Split(string(gen.Module(150)), "\n") {
		if !strings.Contains(l, "(example ") {
			kept = append(kept, l)
		}
	}
	text := strings.Join(kept, "\n")
	if strings.Contains(text, "(example") {
		t.Fatal("the module still has examples")
	}
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	if diff := diagnosticsVsFresh(t, c, 1, text); diff != "" {
		t.Fatalf("version 1: diagnostics differ from a fresh check (-fresh +server):\n%s", diff)
	}
	r := rand.New(rand.NewSource(11))
	quick0, chained0, full0 := quickChecks.Load(), chainedChecks.Load(), idleFullChecks.Load()
	edits := 80
	if testing.Short() {
		edits = 30
	}
	inserts := []string{" ", "x", " (+ 1 2)", "1"}
	for version := 2; version < edits+2; version++ {
		// an insertion inside a function body: after "(if (<"
		const anchor = "(if (<"
		at := 0
		for k := r.Intn(strings.Count(text, anchor)); k >= 0; k-- {
			at += strings.Index(text[at:], anchor) + len(anchor)
		}
		ins := inserts[r.Intn(len(inserts))]
		change := map[string]any{"text": ins, "range": map[string]any{"start": utf16Pos(text, at), "end": utf16Pos(text, at)}}
		text = text[:at] + ins + text[at:]
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{change}})
		if diff := diagnosticsVsFresh(t, c, version, text); diff != "" {
			t.Fatalf("version %d (%q at %d): diagnostics differ from a fresh check (-fresh +server):\n%s", version, ins, at, diff)
		}
		if version%10 == 0 {
			time.Sleep(fullCheckDelay + 80*time.Millisecond) // a pause in typing
		}
	}
	time.Sleep(fullCheckDelay + 80*time.Millisecond)
	quick, chained, full := quickChecks.Load()-quick0, chainedChecks.Load()-chained0, idleFullChecks.Load()-full0
	t.Logf("%d of %d versions checked incrementally, %d of them over the previous incremental answer; %d full checks after one", quick, edits, chained, full)
	if quick < int64(edits)*9/10 || chained < quick-2 {
		t.Fatalf("only %d of %d versions checked incrementally, %d over the previous answer", quick, edits, chained)
	}
	if full != 0 {
		t.Fatalf("%d full checks ran after incremental answers of a module without examples", full)
	}
}

// TestSyntaxErrorFixedFromClean breaks a module with a syntax error (a
// closing parenthesis deleted), types elsewhere while the error stands,
// and fixes it, again and again: each version with the error is checked
// in full, and each fixed one is answered by the engine over the last
// base before the error (document.clean), not over a check of a text
// with one, and a completion right after it by a view over the last full
// check before the error (document.cleanFull), not by a full check.
// Every version's diagnostics are a fresh check's.
func TestSyntaxErrorFixedFromClean(t *testing.T) {
	c := startInProcess(t)
	const uri = "file:///tmp/incr/broken.caps"
	text := string(gen.Module(150))
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	if diff := diagnosticsVsFresh(t, c, 1, text); diff != "" {
		t.Fatalf("version 1: diagnostics differ from a fresh check (-fresh +server):\n%s", diff)
	}
	r := rand.New(rand.NewSource(3))
	version := 1
	edit := func(a, b int, ins string) {
		t.Helper()
		version++
		change := map[string]any{"text": ins, "range": map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, b)}}
		text = text[:a] + ins + text[b:]
		c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version}, "contentChanges": []any{change}})
		if diff := diagnosticsVsFresh(t, c, version, text); diff != "" {
			t.Fatalf("version %d ([%d,%d) -> %q): diagnostics differ from a fresh check (-fresh +server):\n%s", version, a, b, ins, diff)
		}
	}
	// the offset of a random occurrence of sub
	random := func(sub string) int {
		at := -1
		for k := r.Intn(strings.Count(text, sub)); k >= 0; k-- {
			at += 1 + strings.Index(text[at+1:], sub)
		}
		return at
	}
	clean0, quick0, full0 := cleanChecks.Load(), quickChecks.Load(), fullViews.Load()
	const rounds = 12
	for k := 0; k < rounds; k++ {
		at := random("(if (<")
		close := at + strings.Index(text[at:], ")")
		edit(close, close+1, "") // the syntax error
		if k%2 == 1 {
			// typing elsewhere while it stands (a body, and a name that
			// changes what a call finds)
			x := random("(> x hi) hi x")
			edit(x, x+len("(> x hi) hi x"), "(> x hi) lo x")
			y := random("(function ")
			edit(y+len("(function "), y+len("(function "), "z")
		}
		edit(close, close, ")") // fixed
		if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": uri}, "position": utf16Pos(text, at+len("(if (< "))}, nil); err != nil {
			t.Fatal(err)
		}
	}
	clean, quick, full := cleanChecks.Load()-clean0, quickChecks.Load()-quick0, fullViews.Load()-full0
	t.Logf("%d versions, %d answered incrementally, %d of them over the base before a syntax error; %d full views", version-1, quick, clean, full)
	if clean != rounds {
		t.Fatalf("%d of the %d fixed versions were answered over the base before the syntax error", clean, rounds)
	}
	if full != 0 {
		t.Fatalf("%d of the %d completions after a fix waited for a full check", full, rounds)
	}
}

// TestSyntaxErrorCleanBaseFollowsImports deletes an import while a
// syntax error stands, edits the module it named, and puts the import
// and then the parenthesis back: the fixed text is the one from before
// the error, but the module it imports changed, so the base from before
// the error (document.clean) must not answer it; app reports the call
// of the function lib no longer has, as a full check does.
func TestSyntaxErrorCleanBaseFollowsImports(t *testing.T) {
	files := map[string]string{
		"lib.caps": "(module lib\n  (capsule \"1\")\n  (function twice (input (x I64)) (output I64) (body (* x 2))))\n",
		"app.caps": "(module app\n  (capsule \"1\")\n  (import lib)\n  (function a (input (x I64)) (output I64) (body (lib.twice x))))\n",
	}
	s, c, uri := wsWithFiles(t, files, "lib.caps", "app.caps")
	versions := map[string]int{"lib.caps": 1, "app.caps": 1}
	edit := func(n, old, new string) {
		t.Helper()
		text := files[n]
		a := strings.Index(text, old)
		if a < 0 {
			t.Fatalf("%s: no %q", n, old)
		}
		versions[n]++
		files[n] = replaceText(c, uri(n), versions[n], text, a, a+len(old), new)
		s.settled(t, uri(n), versions[n])
	}
	if got := s.codesOf(uri("app.caps")); len(got) != 0 {
		t.Fatalf("app.caps at the start: %v, want no diagnostic", got)
	}
	edit("app.caps", "(body (lib.twice x))))", "(body (lib.twice x)))")    // the syntax error
	edit("app.caps", "\n  (import lib)", "")                               // the import deleted while it stands
	edit("lib.caps", "twice", "thrice")                                    // lib changes
	edit("app.caps", "(capsule \"1\")", "(capsule \"1\")\n  (import lib)") // the import back
	edit("app.caps", "(body (lib.twice x)))", "(body (lib.twice x))))")    // fixed: the text before the error
	want := []string{"E_UNKNOWN_NAME"}
	if diff := cmp.Diff(want, s.codesOf(uri("app.caps"))); diff != "" {
		t.Fatalf("app.caps fixed, after lib renamed twice (-want +got):\n%s", diff)
	}
	edit("app.caps", "(body (lib.twice x))", "(body (lib.twice (+ x 1)))") // and a body edit after it
	if diff := cmp.Diff(want, s.codesOf(uri("app.caps"))); diff != "" {
		t.Fatalf("app.caps edited after the fix (-want +got):\n%s", diff)
	}
}
