package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/lsp/lsptest"
	"github.com/capsulang/caps/syntax"
)

// wsModules writes n modules to dir that import each other: m00 is
// imported by every other one, and each other one imports its parent in a
// binary tree too. Each importer calls m00.clamp_0 and its parent's
// clamp_1 and pass (a function over m00's Score type); every third one
// has an example that calls them, so that its examples run m00's code.
// It returns the modules' texts.
func wsModules(t testing.TB, dir string, n, lines int) []string {
	return wsModulesOf(t, dir, n, lines, true)
}

// wsModulesOf is wsModules, without any example unless examples is set.
func wsModulesOf(t testing.TB, dir string, n, lines int, examples bool) []string {
	texts := make([]string, n)
	for i := range texts {
		name := fmt.Sprintf("m%02d", i)
		body := strings.Replace(string(gen.Module(lines)), "(module bench.generated\n  (capsule \"1.0\")", "(module "+name+"\n  (capsule \"1.0\")", 1)
		extra := "\n  (type Score I64)\n  (function pass\n    (input (s Score))\n    (output Score)\n    (body s))\n"
		if i > 0 {
			parent := fmt.Sprintf("m%02d", (i-1)/2)
			imports := "\n  (import m00)"
			if parent != "m00" {
				imports += "\n  (import " + parent + ")"
			}
			body = strings.Replace(body, "(capsule \"1.0\")", "(capsule \"1.0\")"+imports, 1)
			extra = fmt.Sprintf(`
  (function pass
    (input (s m00.Score))
    (output m00.Score)
    (body (%[2]s.pass s)))
  (function uses_%[1]s
    (input (x I64))
    (output I64)
    (effects pure)
`, name, parent)
			if i%3 == 0 {
				extra += fmt.Sprintf("    (example (uses_%s 5) 10)\n", name)
			}
			extra += fmt.Sprintf("    (body (+ (m00.clamp_0 x 0 10) (%s.clamp_1 x 0 10))))\n", parent)
		}
		body = strings.Replace(body, "\n  (store ops", extra+"\n  (store ops", 1)
		if !examples {
			var kept []string
			for _, l := range strings.Split(body, "\n") {
				if !strings.Contains(l, "(example ") {
					kept = append(kept, l)
				}
			}
			body = strings.Join(kept, "\n")
		}
		texts[i] = body
		if err := os.WriteFile(filepath.Join(dir, name+".caps"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return texts
}

// wsServer runs a server in this process on pipes, with dir as its
// workspace, and returns it with a client.
func wsServer(t testing.TB, dir string) (*Server, *lsptest.Client) {
	t.Helper()
	s, c := startServer(t, Options{}, dir)
	c.Timeout = 30 * time.Second
	return s, c
}

// settled waits until the server has document u at version v (nil u: any),
// has published the final diagnostics of every open document's current
// version, and has no importer job under way.
func (s *Server) settled(t testing.TB, u protocol.DocumentURI, v int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		time.Sleep(2 * time.Millisecond)
		if s.importJobs.Load() != 0 {
			continue
		}
		s.mu.Lock()
		d, ok := s.docs[u]
		done := u == "" || ok && int(d.version) == v
		for _, d := range s.docs {
			if d.published != d.version || !d.publishedFinal {
				done = false
			}
		}
		s.mu.Unlock()
		if done && s.importJobs.Load() == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the server did not settle within a minute")
		}
	}
}

// openAll opens the modules and waits for their diagnostics.
func openAll(t testing.TB, s *Server, c *lsptest.Client, dir string, texts []string) []protocol.DocumentURI {
	uris := make([]protocol.DocumentURI, len(texts))
	for i, text := range texts {
		uris[i] = protocol.DocumentURI("file://" + filepath.Join(dir, fmt.Sprintf("m%02d.caps", i)))
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uris[i], "languageId": "capsulang", "version": 1, "text": text}})
	}
	for _, u := range uris {
		s.settled(t, u, 1)
	}
	return uris
}

// replaceText sends version v of the document: [a, b) of text replaced by
// ins; it returns the new text.
func replaceText(c *lsptest.Client, u protocol.DocumentURI, v int, text string, a, b int, ins string) string {
	c.Notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": u, "version": v}, "contentChanges": []any{
		map[string]any{"range": map[string]any{"start": utf16Pos(text, a), "end": utf16Pos(text, b)}, "text": ins},
	}})
	return text[:a] + ins + text[b:]
}

// importerEdit is an edit of the imported module m00 that toggles: the
// first from after marker becomes to, or, when there is none, the first to
// after it becomes from.
type importerEdit struct {
	name, marker, from, to string
}

// apply returns the edit's range and replacement in text (ok false when
// the marker is gone).
func (e importerEdit) apply(text string) (a, b int, ins string, ok bool) {
	i := strings.Index(text, e.marker)
	if i < 0 {
		return 0, 0, "", false
	}
	if j := strings.Index(text[i:], e.from); j >= 0 {
		return i + j, i + j + len(e.from), e.to, true
	}
	if j := strings.Index(text[i:], e.to); j >= 0 {
		return i + j, i + j + len(e.to), e.from, true
	}
	return 0, 0, "", false
}

// m00Edits are the structured edits of the differential test: function
// bodies, signatures, the Score type, declarations added, comments, the
// module's name.
var m00Edits = []importerEdit{
	{"clamp_0 body: lower bound", "(function clamp_0", "(if (< x lo)\n        lo", "(if (< x lo)\n        hi"},
	{"clamp_0 body: comparison", "(function clamp_0", "(< x lo)", "(> x lo)"},
	{"clamp_1 body", "(function clamp_1", "(if (> x hi) hi x)", "(if (> x hi) hi 3)"},
	{"clamp_0 output type", "(function clamp_0", "(output I64)", "(output Bool)"},
	{"clamp_1 input type", "(function clamp_1", "(hi I64)", "(hi U32)"},
	{"clamp_0 renamed", "(function clamp_0", "clamp_0\n", "clamp_00\n"},
	{"Score type", "(type Score", "I64", "Bool"},
	{"pass body", "(function pass", "(body s)", "(body (+ s 1))"},
	{"a function added", "\n  (store ops", "\n  (store ops", "\n  (function extra (output I64) (body 1))\n  (store ops"},
	{"a comment", "(function clamp_2", "(function clamp_2", ";; a note\n  (function clamp_2"},
	{"clamp_0 effects", "(function clamp_0", "(effects pure)", "(effects (store.read ops))"},
	{"the module renamed", "(module ", "m00\n", "m0x\n"},
}

// TestImportersMatchFullCheck edits the module every other one imports,
// with structured edits (function bodies and signatures, types,
// declarations added, comments, the module's name) and random typing, and
// after each edit, once the server settled, compares every open module's
// published diagnostics with those of a fresh full check of the workspace
// (examples included), as caps check reports them; a random edit is
// undone (and compared) before the next. It reports how many importers
// the server answered without checking them again.
func TestImportersMatchFullCheck(t *testing.T) {
	importersMatchFullCheck(t, true)
}

// TestImportersWithoutExamplesMatchFullCheck is TestImportersMatchFullCheck
// over modules without examples: the engine's answers for the importers
// are final (no full check follows them) and the base of their next
// check.
func TestImportersWithoutExamplesMatchFullCheck(t *testing.T) {
	importersMatchFullCheck(t, false)
}

func importersMatchFullCheck(t *testing.T, withExamples bool) {
	dir := t.TempDir()
	const n = 12
	texts := wsModulesOf(t, dir, n, 30, withExamples)
	s, c := wsServer(t, dir)
	uris := openAll(t, s, c, dir, texts)
	r := rand.New(rand.NewSource(17))
	// every engine answer for an importer, compared with a full check
	// after the step
	var answersMu sync.Mutex
	var answers []engineAnswer
	hook := func(sn *snapshot, diags []syntax.Diagnostic) {
		answersMu.Lock()
		answers = append(answers, engineAnswer{sn, diags})
		answersMu.Unlock()
	}
	engineHook.Store(&hook)
	defer engineHook.Store(nil)
	compare := func(when string) {
		t.Helper()
		compareWithFullCheck(t, s, dir, uris, when)
		answersMu.Lock()
		defer answersMu.Unlock()
		compareEngineAnswers(t, s, dir, uris, answers, when)
		answers = nil
	}
	before := [4]int64{importStats.rechecked.Load(), importStats.examples.Load(), importStats.kept.Load(), importStats.engine.Load()}
	final0 := importStats.final.Load()
	version := 1
	text := texts[0]
	steps := 120
	var bodyEdits, bodyKept int64
	if testing.Short() {
		steps = 30
	}
	for step := 0; step < steps; step++ {
		var a, b int
		var ins, what string
		if step%3 == 2 {
			a, b, ins = randomEdit(r, text)
			what = fmt.Sprintf("random edit [%d,%d) -> %q", a, b, ins)
		} else {
			e := m00Edits[r.Intn(len(m00Edits))]
			var ok bool
			if a, b, ins, ok = e.apply(text); !ok {
				continue
			}
			what = e.name
		}
		k0 := importStats.kept.Load()
		version++
		old := text
		text = replaceText(c, uris[0], version, text, a, b, ins)
		s.settled(t, uris[0], version)
		compare(fmt.Sprintf("step %d (%s)", step, what))
		if strings.Contains(what, "body") || what == "a comment" {
			bodyEdits++
			bodyKept += importStats.kept.Load() - k0
		}
		if strings.HasPrefix(what, "random") {
			// typing it away again, so that the structured edits work on
			// a module that reads
			version++
			text = replaceText(c, uris[0], version, text, a, a+len(ins), old[a:b])
			s.settled(t, uris[0], version)
			compare(fmt.Sprintf("step %d (%s, undone)", step, what))
		}
	}
	after := [4]int64{importStats.rechecked.Load(), importStats.examples.Load(), importStats.kept.Load(), importStats.engine.Load()}
	rechecked, examples, kept, engine := after[0]-before[0], after[1]-before[1], after[2]-before[2], after[3]-before[3]
	total := rechecked + examples + kept
	t.Logf("importers after %d edits of m00: %d kept without a check (%.0f%%), %d had their examples evaluated again, %d checked again (%d of them answered by the engine, checking only the declarations that read what changed, %d in full); after the %d edits of a body or a comment, %d of %d importers were kept",
		steps, kept, 100*float64(kept)/float64(max(total, 1)), examples, rechecked, engine, rechecked-engine, bodyEdits, bodyKept, bodyEdits*(n-1))
	final := importStats.final.Load() - final0
	t.Logf("%d engine answers were final (no full check followed them)", final)
	if kept == 0 || rechecked == 0 || withExamples && examples == 0 || engine == 0 || engine == rechecked {
		t.Errorf("the edits did not exercise every way an importer is answered: kept %d, examples %d, rechecked %d (by the engine %d)", kept, examples, rechecked, engine)
	}
	if !withExamples && final == 0 {
		t.Errorf("no engine answer for an importer was final")
	}
}

// engineAnswer is the engine's answer for an importer (check diagnostics,
// before the examples), as published.
type engineAnswer struct {
	sn    *snapshot
	diags []syntax.Diagnostic
}

// compareEngineAnswers checks each engine answer whose snapshot is still
// its document's current one against a fresh loader's full check of the
// documents' current texts (without the examples: the engine's publish
// comes before them).
func compareEngineAnswers(t *testing.T, s *Server, dir string, uris []protocol.DocumentURI, answers []engineAnswer, when string) {
	t.Helper()
	s.mu.Lock()
	cur := map[string][]byte{}
	for _, u := range uris {
		d := s.docs[u]
		cur[d.path] = d.snap.cst.Src
	}
	var live []engineAnswer
	for _, a := range answers {
		if d := s.docs[a.sn.uri]; d != nil && d.snap == a.sn {
			live = append(live, a)
		}
	}
	s.mu.Unlock()
	fresh := &load.Loader{ReadFile: func(path string) ([]byte, error) {
		if src, ok := cur[path]; ok {
			return src, nil
		}
		return load.ReadSource(path)
	}}
	for _, a := range live {
		pkg := fresh.LoadSource(a.sn.path, a.sn.cst.Src)
		want := s.toProtocol(a.sn, pkg.Result.Diagnostics)
		if diff := cmp.Diff(summary(want), summary(s.toProtocol(a.sn, a.diags))); diff != "" {
			t.Fatalf("%s: %s: the engine's answer differs from a full check (-full +engine):\n%s", when, filepath.Base(a.sn.path), diff)
		}
	}
}

// compareWithFullCheck checks every open document's published diagnostics
// against a fresh loader's full check of the documents' current texts.
func compareWithFullCheck(t *testing.T, s *Server, dir string, uris []protocol.DocumentURI, when string) {
	t.Helper()
	s.mu.Lock()
	cur := map[string][]byte{}
	type state struct {
		snap  *snapshot
		diags []protocol.Diagnostic
	}
	states := map[protocol.DocumentURI]state{}
	for _, u := range uris {
		d := s.docs[u]
		cur[d.path] = d.snap.cst.Src
		states[u] = state{d.snap, d.lastDiags}
	}
	s.mu.Unlock()
	fresh := &load.Loader{ReadFile: func(path string) ([]byte, error) {
		if src, ok := cur[path]; ok {
			return src, nil
		}
		return load.ReadSource(path)
	}}
	for _, u := range uris {
		st := states[u]
		pkg := fresh.LoadSource(st.snap.path, st.snap.cst.Src)
		want := s.toProtocol(st.snap, diagnose.Run(pkg.Result).Diagnostics)
		if diff := cmp.Diff(summary(want), summary(st.diags)); diff != "" {
			t.Fatalf("%s: %s published diagnostics that differ from a full check (-full +published):\n%s", when, filepath.Base(st.snap.path), diff)
		}
	}
}

// summary is what the differential test compares of published
// diagnostics: everything, as JSON (related locations included).
func summary(ds []protocol.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		b, _ := json.Marshal(d)
		out = append(out, string(b))
	}
	return out
}

// BenchmarkImporterInterfaceEdit times an edit of the module all others
// import that changes a function every importer calls (its output type),
// until every module has its diagnostics: the workspace part of
// bench/lspbench, in this process, for profiling.
func BenchmarkImporterInterfaceEdit(b *testing.B) {
	benchInterfaceEdit(b, func(s *Server, c *lsptest.Client, uris []protocol.DocumentURI, version int) {
		s.settled(b, uris[0], version)
	})
}

// BenchmarkImporterInterfaceEditPublished is BenchmarkImporterInterfaceEdit
// timed until every module has published diagnostics after the edit (the
// target's measure: the full checks that follow are not timed), and
// reports how many importers the engine answered per edit.
func BenchmarkImporterInterfaceEditPublished(b *testing.B) {
	engine := importStats.engine.Load()
	benchInterfaceEdit(b, func(s *Server, c *lsptest.Client, uris []protocol.DocumentURI, version int) {
		pending := map[string]bool{}
		for _, u := range uris {
			pending[string(u)] = true
		}
		for len(pending) > 0 {
			// each publish taken as it comes (a match that left it queued
			// would be decoded again by every later Wait)
			m, err := c.Wait("textDocument/publishDiagnostics", nil)
			if err != nil {
				b.Fatalf("%v; %d files still without diagnostics", err, len(pending))
			}
			var pd struct {
				URI     string
				Version int
			}
			json.Unmarshal(m.Params, &pd)
			if pd.URI != string(uris[0]) || pd.Version == version {
				delete(pending, pd.URI)
			}
		}
		b.StopTimer()
		s.settled(b, uris[0], version)
		c.Drain()
		b.StartTimer()
	})
	b.ReportMetric(float64(importStats.engine.Load()-engine)/float64(b.N), "engine-answers/op")
}

// benchInterfaceEdit opens the 200-module workspace and times b.N edits
// of the module all others import, toggling the output type of the
// function every importer calls between I64 and Bool; wait returns when
// the edit at version counts as done.
func benchInterfaceEdit(b *testing.B, wait func(s *Server, c *lsptest.Client, uris []protocol.DocumentURI, version int)) {
	dir := b.TempDir()
	texts := wsModules(b, dir, 200, 60)
	s, c := wsServer(b, dir)
	uris := openAll(b, s, c, dir, texts)
	text := texts[0]
	at := strings.Index(text, "(function clamp_0")
	at += strings.Index(text[at:], "(output I64)") + len("(output ")
	version := 1
	c.Drain()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		from, to := "I64", "Bool"
		if !strings.HasPrefix(text[at:], from) {
			from, to = to, from
		}
		version++
		text = replaceText(c, uris[0], version, text, at, at+len(from), to)
		wait(s, c, uris, version)
	}
}

// TestClosingAnImportAfterABodyEdit edits the body of an open module
// (its importer keeps its diagnostics), then closes it: the importer must
// be checked against the text on disk, which lacks the function it calls.
func TestClosingAnImportAfterABodyEdit(t *testing.T) {
	dir := t.TempDir()
	lib := "(module lib\n  (capsule \"1\")\n  (function one (output I64) (body 1)))\n"
	app := "(module app\n  (capsule \"1\")\n  (import lib)\n  (function two (output I64) (body (+ (lib.one) 1))))\n"
	if err := os.WriteFile(filepath.Join(dir, "lib.caps"), []byte("(module lib\n  (capsule \"1\"))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.caps"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	s, c := wsServer(t, dir)
	libURI := protocol.DocumentURI("file://" + filepath.Join(dir, "lib.caps"))
	appURI := protocol.DocumentURI("file://" + filepath.Join(dir, "app.caps"))
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": libURI, "languageId": "capsulang", "version": 1, "text": lib}})
	s.settled(t, libURI, 1)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": appURI, "languageId": "capsulang", "version": 1, "text": app}})
	s.settled(t, appURI, 1)
	codes := func() []string {
		s.mu.Lock()
		defer s.mu.Unlock()
		out := []string{}
		for _, d := range s.docs[appURI].lastDiags {
			out = append(out, fmt.Sprint(d.Code))
		}
		return out
	}
	if got := codes(); len(got) != 0 {
		t.Fatalf("app.caps before the edit: %v", got)
	}
	kept := importStats.kept.Load()
	at := strings.Index(lib, "(body 1)") + len("(body ")
	replaceText(c, libURI, 2, lib, at, at+1, "2")
	s.settled(t, libURI, 2)
	if importStats.kept.Load() != kept+1 {
		t.Fatalf("the body edit did not keep app.caps's diagnostics: kept %d -> %d", kept, importStats.kept.Load())
	}
	c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": libURI}})
	deadline := time.Now().Add(30 * time.Second)
	for len(codes()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if got := codes(); !cmp.Equal(got, []string{"E_UNKNOWN_NAME"}) {
		t.Fatalf("app.caps after lib.caps was closed (its disk text has no function one): %v, want [E_UNKNOWN_NAME]", got)
	}
}
