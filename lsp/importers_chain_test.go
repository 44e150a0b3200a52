package lsp

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// importerOwnEdits are edits of an importer of the workspace wsModules
// writes: a body, the interface of a function the next level calls (its
// own pass and clamp_1), a comment.
var importerOwnEdits = []importerEdit{
	{"uses body", "(function uses_", "(m00.clamp_0 x 0 10)", "(m00.clamp_0 x 0 12)"},
	{"pass output type", "(function pass", "(output m00.Score)", "(output I64)"},
	{"clamp_1 output type", "(function clamp_1", "(output I64)", "(output Bool)"},
	{"clamp_1 body", "(function clamp_1", "(if (> x hi) hi x)", "(if (> x hi) hi 3)"},
	{"a comment", "(function uses_", "(function uses_", ";; a note\n  (function uses_"},
}

// TestImportersEditedAndImportedWithoutFullChecks edits, in a workspace
// of seven modules three levels deep (m00 imported by all, m01 and m02
// by two more each) without examples, the imported module and the
// importers, interleaved: an importer alone, an importer and then m00
// before the importer's edit was answered, a first-level importer, one
// of its importers and m00 in a row. After each step, once the server
// settled, every open module's published diagnostics must be a fresh
// full check's, and the engine's answers too. No module the step did not
// edit may have been checked in full (by its document or by the import
// cache: load.CheckHook counts both), and no full check may follow an
// engine answer: every answer is incremental. It reports the counts.
func TestImportersEditedAndImportedWithoutFullChecks(t *testing.T) {
	dir := t.TempDir()
	const n = 7
	texts := wsModulesOf(t, dir, n, 30, false)
	var counting atomic.Bool
	var checksMu sync.Mutex
	checks := map[string]int{}
	load.CheckHook = func(abs string) {
		if counting.Load() {
			checksMu.Lock()
			checks[filepath.Base(abs)]++

			checksMu.Unlock()
		}
	}
	t.Cleanup(func() { load.CheckHook = nil }) // after the server's own cleanup
	s, c := wsServer(t, dir)
	uris := openAll(t, s, c, dir, texts)
	var answersMu sync.Mutex
	var answers []engineAnswer
	hook := func(sn *snapshot, diags []syntax.Diagnostic) {
		answersMu.Lock()
		answers = append(answers, engineAnswer{sn, diags})
		answersMu.Unlock()
	}
	engineHook.Store(&hook)
	defer engineHook.Store(nil)

	r := rand.New(rand.NewSource(29))
	versions := make([]int, n)
	for i := range versions {
		versions[i] = 1
	}
	edit := func(i int, edits []importerEdit) (string, bool) {
		for range 4 {
			e := edits[r.Intn(len(edits))]
			if a, b, ins, ok := e.apply(texts[i]); ok {
				versions[i]++
				texts[i] = replaceText(c, uris[i], versions[i], texts[i], a, b, ins)
				return fmt.Sprintf("m%02d: %s", i, e.name), true
			}
		}
		return "", false
	}
	var m00Kept []importerEdit
	for _, e := range m00Edits {
		if e.name != "the module renamed" { // (its importers' imports fail: checked in full)
			m00Kept = append(m00Kept, e)
		}
	}
	steps := 60
	if testing.Short() {
		steps = 20
	}
	q0, ch0, idle0 := quickChecks.Load(), chainedChecks.Load(), idleFullChecks.Load()
	e0, r0, k0, f0 := importStats.engine.Load(), importStats.rechecked.Load(), importStats.kept.Load(), importStats.full.Load()
	editedChecks := 0
	for step := 0; step < steps; step++ {
		counting.Store(true)
		var did []string
		edited := map[string]bool{}
		do := func(i int, edits []importerEdit) {
			if what, ok := edit(i, edits); ok {
				did = append(did, what)
				edited[fmt.Sprintf("m%02d.caps", i)] = true
			}
		}
		switch step % 4 {
		case 0:
			do(0, m00Kept)
		case 1:
			do(1+r.Intn(n-1), importerOwnEdits)
		case 2:
			// the importer's edit is not answered yet when m00 changes
			do(1+r.Intn(n-1), importerOwnEdits)
			do(0, m00Kept)
		case 3:
			first := 1 + r.Intn(2)
			do(first, importerOwnEdits)
			do(2*first+1+r.Intn(2), importerOwnEdits)
			do(0, m00Kept)
		}
		for i, u := range uris {
			s.settled(t, u, versions[i])
		}
		counting.Store(false)
		when := fmt.Sprintf("step %d (%s)", step, strings.Join(did, ", "))
		checksMu.Lock()
		var others []string
		for f, k := range checks {
			if edited[f] {
				editedChecks += k
			} else {
				others = append(others, fmt.Sprintf("%s %d", f, k))
			}
		}
		clear(checks)
		checksMu.Unlock()
		if len(others) > 0 {
			sort.Strings(others)
			t.Errorf("%s: modules the step did not edit were checked in full: %s", when, strings.Join(others, ", "))
		}
		compareWithFullCheck(t, s, dir, uris, when)
		answersMu.Lock()
		compareEngineAnswers(t, s, dir, uris, answers, when)
		answers = nil
		answersMu.Unlock()
	}
	quick, chained, idle := quickChecks.Load()-q0, chainedChecks.Load()-ch0, idleFullChecks.Load()-idle0
	engine, rechecked, kept, full := importStats.engine.Load()-e0, importStats.rechecked.Load()-r0, importStats.kept.Load()-k0, importStats.full.Load()-f0
	t.Logf("%d steps: %d importers to check again after an import changed: %d answered by the engine, %d in full (the others replaced by a later snapshot first); %d kept; %d of the edited documents' own checks incremental (%d over an engine answer); %d full checks of the edited modules (the import cache reading their new text); %d full checks after an engine answer",
		steps, rechecked, engine, full, kept, quick, chained, editedChecks, idle)
	if idle != 0 {
		t.Errorf("%d full checks followed engine answers", idle)
	}
	if full != 0 {
		t.Errorf("%d of %d importers checked again were checked in full", full, rechecked)
	}
	if engine == 0 || quick == 0 {
		t.Errorf("the steps did not exercise the engine: %d importer answers, %d local ones", engine, quick)
	}
}

// TestImportersKeptWhenASignatureIsReformatted reformats the signature
// of a function every importer calls, and comments inside it: the
// interface keys ignore layout, so no importer is checked again (each is
// kept, its diagnostics a full check's). Changing the signature's output
// type then checks every importer again.
func TestImportersKeptWhenASignatureIsReformatted(t *testing.T) {
	dir := t.TempDir()
	const n = 4
	texts := wsModulesOf(t, dir, n, 30, false)
	s, c := wsServer(t, dir)
	uris := openAll(t, s, c, dir, texts)
	version := 1
	tests := []struct {
		name, from, to string
		rechecked      int64
	}{
		{"inputs on one line", "(input\n      (x I64)\n      (lo I64)\n      (hi I64))", "(input (x I64) (lo I64) (hi I64))", 0},
		{"a comment inside the signature", "(input (x I64)", "(input ;; the value\n      (x I64)", 0},
		{"the output type", "(output I64)", "(output Bool)", n - 1},
	}
	for _, tt := range tests {
		at := strings.Index(texts[0], "(function clamp_0")
		i := strings.Index(texts[0][at:], tt.from)
		if i < 0 {
			t.Fatalf("%s: %q not found", tt.name, tt.from)
		}
		r0, k0 := importStats.rechecked.Load(), importStats.kept.Load()
		version++
		texts[0] = replaceText(c, uris[0], version, texts[0], at+i, at+i+len(tt.from), tt.to)
		s.settled(t, uris[0], version)
		compareWithFullCheck(t, s, dir, uris, tt.name)
		if got := importStats.rechecked.Load() - r0; got != tt.rechecked {
			t.Errorf("%s: %d importers checked again, want %d", tt.name, got, tt.rechecked)
		}
		if got := importStats.kept.Load() - k0; got != n-1-tt.rechecked {
			t.Errorf("%s: %d importers kept, want %d", tt.name, got, n-1-tt.rechecked)
		}
	}
}
