package lsp

import (
	"math/rand"
	"strings"
	"testing"

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
