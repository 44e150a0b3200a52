package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// closeModuleAfter moves the module's closing parenthesis (the text's
// last `)`) to the end of the line holding mark: the declarations after
// that line stand outside the module form, where the builder still reads
// them as its items (reporting each one) and a full check checks them.
func closeModuleAfter(t *testing.T, module, mark string) string {
	t.Helper()
	at := strings.Index(module, mark)
	end := strings.LastIndexByte(module, ')')
	if at < 0 || end < 0 {
		t.Fatalf("no %q in the example", mark)
	}
	eol := at + strings.IndexByte(module[at:], '\n')
	return module[:eol] + ")" + module[eol:end] + module[end+1:]
}

// TestViewDeclOutsideModuleUnchanged is what TestViewAfterSyntaxError
// found with VIEW_SEED=1, 7, 8, 36 and 48 (edits without a syntax
// error): over a base with a declaration or an import outside the module
// form (a `)` that closes the module early, a comment line broken before
// the `(import ...)` it quotes), which the builder reads as one of the
// module's items and a full check checks, the view declined an edit to
// that form but answered any other edit from the module form's units
// alone. After (a) the module renamed and a comment edited,
// level_count and level_or_standard (declared after the module's `)`)
// were missing from completion and level_or_standard had no signature
// help; after (b) a surface's route line broken by a comment, the machine
// SchemaMigration (after the module's `)`) was missing from completion in
// the surface's bind; after (c) the module's own `(import lib.money)`
// edited, money. (still imported above the module) resolved to nothing.
// The view must decline such a version (its full check answers); hover
// and definition in (a) and (b), which read the base's symbols, were
// right and must stay so.
func TestViewDeclOutsideModuleUnchanged(t *testing.T) {
	ctx := context.Background()
	_, records := readExample(t, "text_and_records.caps")
	_, release := readExample(t, "release_approval.caps")
	const recPath, relPath = "/tmp/outside/text_and_records.caps", "/tmp/outside/release_approval.caps"
	// (the import is read next to the example: its real path)
	impPath, imports := readExample(t, "17_imports.caps")
	moneyPath, err := filepath.Abs("../examples/lib/money.caps")
	if err != nil {
		t.Fatal(err)
	}
	recBase := closeModuleAfter(t, records, `(example (level_code ServiceLevel.express) "EXP"))`)
	// a line of the comments above the module broken before the
	// `(import lib.money)` it quotes: an import above the module
	impBase := strings.Replace(imports, ";; Demonstrates: (import lib.money)", ";; Demonstrates:\n (import lib.money)", 1)
	relBase := closeModuleAfter(t, release, "(event Apply Revert))")
	for _, tc := range []struct {
		name, path, base, text string
		outside                string // a form outside the module the builder reads as its item
		reqs                   []syntaxReq
	}{
		{"module renamed and a comment edited", recPath, recBase,
			strings.Replace(strings.Replace(recBase, "(module examples.text_and_records", "(module renamed", 1), ";; True when a delivery note", ";; Tr (+ 1 2)ue when a delivery note", 1), "(function level_or_standard", []syntaxReq{
				{"completion", "(level_code ServiceLevel.economy)", len("(level_"), `{"isIncomplete":false,"items":[{"detail":"function","kind":18,"label":"level_code","textEdit":{"range":{"start":{"line":52,"character":14},"end":{"line":52,"character":20}},"newText":"level_code"}},{"detail":"function","kind":18,"label":"level_count","textEdit":{"range":{"start":{"line":52,"character":14},"end":{"line":52,"character":20}},"newText":"level_count"}},{"detail":"function","kind":18,"label":"level_or_standard","textEdit":{"range":{"start":{"line":52,"character":14},"end":{"line":52,"character":20}},"newText":"level_or_standard"}}]}`},
				{"signatureHelp", `(level_or_standard "economy")`, len("(level_or_standard "), `{"signatures":[{"label":"(level_or_standard text Text) -\u003e ServiceLevel","documentation":"Level named in the text, or standard when the text names none.","parameters":[{"label":"text Text"}]}]}`},
				{"hover", "(function level_or_standard", len("(function level_"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\n(function level_or_standard (text Text) -\\u003e ServiceLevel pure)\\n```\\n\\nLevel named in the text, or standard when the text names none.\"},\"range\":{\"start\":{\"line\":69,\"character\":12},\"end\":{\"line\":69,\"character\":29}}}"},
			}},
		{"a route line broken by a comment", relPath, relBase,
			strings.Replace(relBase, "    (route \"/db/migrations/new\")", "   \n  ;; a note\n (route \"/db/migrations/new\")", 1), "(machine SchemaMigration", []syntaxReq{
				{"hover", "(machine SchemaMigration", len("(machine Schema"), "{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\nmachine SchemaMigration\\n```\\n\\nFrom request to applied (or reverted) schema change.\"},\"range\":{\"start\":{\"line\":72,\"character\":11},\"end\":{\"line\":72,\"character\":26}}}"},
				{"definition", "(bind SchemaMigration)", len("(bind Schema"), `[{"uri":"file:///tmp/outside/release_approval.caps","range":{"start":{"line":72,"character":11},"end":{"line":72,"character":26}}}]`},
				{"completion", "(bind SchemaMigration)", len("(bind Schema"), `{"isIncomplete":false,"items":[{"detail":"machine","kind":18,"label":"SchemaMigration","textEdit":{"range":{"start":{"line":52,"character":10},"end":{"line":52,"character":16}},"newText":"SchemaMigration"}}]}`},
			}},
		{"the module's import edited below an import above it", impPath, impBase,
			strings.Replace(impBase, "  (import lib.money)\n", "  (import Int)\n", 1), "(import lib.money)", []syntaxReq{
				{"definition", "(import lib.money)", len("(import lib.mo"), fmt.Sprintf(`[{"uri":"file://%s","range":{"start":{"line":3,"character":9},"end":{"line":3,"character":18}}}]`, impPath)},
				{"hover", "(money.apply_bps paid.cents", len("(money.apply"), fmt.Sprintf("{\"contents\":{\"kind\":\"markdown\",\"value\":\"```capsulang\\n(function apply_bps (cents U64 bps U64) -\\u003e U64 pure)\\n```\\n\\nbps basis points of cents, rounded down.\\n\\n*from %s*\"},\"range\":{\"start\":{\"line\":23,\"character\":41},\"end\":{\"line\":23,\"character\":50}}}", moneyPath)},
				{"definition", "(money.apply_bps paid.cents", len("(money.apply"), fmt.Sprintf(`[{"uri":"file://%s","range":{"start":{"line":12,"character":12},"end":{"line":12,"character":21}}}]`, moneyPath)},
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.text == tc.base {
				t.Fatal("the edit changed nothing")
			}
			base := testSnapshot(t, tc.path, tc.base, nil).Package().Result
			sn := testSnapshot(t, tc.path, tc.text, base)
			if sn.cst.HasError(0) || base.File.Source.CST.HasError(0) {
				t.Fatal("a syntax error in the base or the edited text")
			}
			if sp := base.File.Module.Form.Span(); sp.Start <= strings.Index(tc.base, tc.outside) && strings.Index(tc.base, tc.outside) < sp.End {
				t.Fatalf("%q is inside the module form (%d to %d)", tc.outside, sp.Start, sp.End)
			}
			if _, why := sn.quickViewWhy(); why != "a declaration outside the module" {
				t.Errorf("the view: %q, want it declined for a declaration outside the module", why)
			}
			askSyntaxReqs(t, ctx, sn, tc.text, tc.reqs)
		})
	}
}
