package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
)

// TestJobAnswersReachLoadedImports checks the rule that every check of an
// importer job reads one result of each file. top imports right (not
// answered: a closed file) and base; right imports base; top passes
// base.origin's Point to right.ry. The job answers base with a result B
// of base's new text (Point's y an I32: the job follows that change)
// that the loader's Answer does not give (it gives A, another check of
// the same text).
//   - The job's check of top loads right, whose check must read base's B
//     too: otherwise right's ry takes A's Point and top's argument is B's
//     ("expected record Point, found record Point").
//   - right's package, cached after the job, read B: a later full check
//     of top, whose import of base the loader answers with A, must not
//     take it (importsCached loads base first and compares).
func TestJobAnswersReachLoadedImports(t *testing.T) {
	dir := t.TempDir()
	base := write(t, dir, "base.caps", "")
	right := write(t, dir, "right.caps", "(module right\n  (capsule \"1\")\n  (import base)\n  (function ry (input (p base.Point)) (output I64) (body p.x)))\n")
	top := write(t, dir, "top.caps", "(module top\n  (capsule \"1\")\n  (import right)\n  (import base)\n  (function t (output I64) (body (right.ry (base.origin)))))\n")
	texts := map[string][]byte{base: []byte("(module base\n  (capsule \"1\")\n  (type Point (record (x I64) (y I64)))\n  (function origin (output Point) (body (record Point (x 0) (y 1)))))\n")}
	read := overlayReader(texts)
	result := func(path string) *check.Result { return cleanCheck(t, read, path) }
	topBase := result(top)
	texts[base] = []byte(strings.Replace(string(texts[base]), "(y I64)", "(y I32)", 1))
	a, b := result(base), result(base)
	l := &Loader{ReadFile: read, Answer: answerFor(base, a)}
	cleanJob(t, l, top, topBase, map[string]*check.Result{base: b})
	if !l.Cached(right) || l.Cached(base) {
		t.Fatalf("after the job: right cached %v, base cached %v; want true, false", l.Cached(right), l.Cached(base))
	}
	full, err := l.Load(top)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string(nil), diagList(full.Result.Diagnostics)); diff != "" {
		t.Errorf("a full check of top after the job (-want +got):\n%s", diff)
	}
	for _, im := range full.Result.Imports {
		if im.File == base && im.Result.File != a.File {
			t.Errorf("top's full check read base from another result than Answer's")
		}
	}
}

// TestJobAnswersReadOneResultOfEachFile gives an importer job's check of
// top the answers of left and right, checked over two results of base's
// current text (as after a save: one before the watched change, one
// after): closeAnswers keeps the result of base the first answer read
// and leaves out right's, which the loader checks again over it, so that
// top passes left's Point to right's function without "expected record
// Point, found record Point".
func TestJobAnswersReadOneResultOfEachFile(t *testing.T) {
	dir := t.TempDir()
	texts := map[string][]byte{}
	read := overlayReader(texts)
	base := write(t, dir, "base.caps", "(module base\n  (capsule \"1\")\n  (type Point (record (x I64) (y I64))))\n")
	left := write(t, dir, "left.caps", "(module left\n  (capsule \"1\")\n  (import base)\n  (function lp (output base.Point) (body (record base.Point (x 0) (y 1)))))\n")
	right := write(t, dir, "right.caps", "(module right\n  (capsule \"1\")\n  (import base)\n  (function ry (input (p base.Point)) (output I64) (body p.x)))\n")
	top := write(t, dir, "top.caps", "(module top\n  (capsule \"1\")\n  (import left)\n  (import right)\n  (function t (output I64) (body (right.ry (left.lp)))))\n")
	result := func(path string) *check.Result { return cleanCheck(t, read, path) }
	topBase := result(top)
	texts[base] = []byte(strings.Replace(readFile(t, base), "(y I64)", "(y I32)", 1))
	l := &Loader{ReadFile: read}
	answers := map[string]*check.Result{left: result(left), right: result(right)}
	job := cleanJob(t, l, top, topBase, answers)
	read1 := map[string]*check.Result{}
	for _, im := range job.Result.Imports {
		read1[im.File] = im.Result
	}
	if read1[left] != answers[left] || read1[right] == answers[right] {
		t.Errorf("top read left's answer %v (want true), right's %v (want false: it read another result of base)", read1[left] == answers[left], read1[right] == answers[right])
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestJobAnswersReachAdoptedImports: an importer job's check of top
// answers base with B and loads left, which the loader's Answer gives
// (checked over another result of base: it is read again by the engine,
// recheckAnswer). The engine's check of left must read B, as top does.
func TestJobAnswersReachAdoptedImports(t *testing.T) {
	dir := t.TempDir()
	texts := map[string][]byte{}
	read := overlayReader(texts)
	base := write(t, dir, "base.caps", "(module base\n  (capsule \"1\")\n  (type Point (record (x I64) (y I64)))\n  (function origin (output Point) (body (record Point (x 0) (y 1)))))\n")
	left := write(t, dir, "left.caps", "(module left\n  (capsule \"1\")\n  (import base)\n  (function lx (input (p base.Point)) (output I64) (body p.x)))\n")
	top := write(t, dir, "top.caps", "(module top\n  (capsule \"1\")\n  (import left)\n  (import base)\n  (function t (output I64) (body (left.lx (base.origin)))))\n")
	result := func(path string) *check.Result { return cleanCheck(t, read, path) }
	topBase, leftAnswer := result(top), result(left)
	texts[base] = []byte(strings.Replace(readFile(t, base), "(y I64)", "(y I32)", 1))
	b := result(base)
	l := &Loader{ReadFile: read, Answer: answerFor(left, leftAnswer)}
	cleanJob(t, l, top, topBase, map[string]*check.Result{base: b})
	if l.Cached(base) {
		t.Error("base cached: left's answer was read against the loader's base, not the job's")
	}
}

// TestRecheckResultRecordsNewImports: the engine's answer to an edit that
// adds an import resolves it through the loader, and the import graph
// then holds the file's imports as a full check of the new text records
// them, so that a later check finds a cycle through it; an answer whose
// replayed import closes a cycle the graph holds is declined (a full
// check reports it).
func TestRecheckResultRecordsNewImports(t *testing.T) {
	dir := t.TempDir()
	texts := map[string][]byte{}
	read := overlayReader(texts)
	write(t, dir, "lib.caps", "(module lib\n  (capsule \"1\")\n  (function one (output I64) (body 1)))\n")
	app := write(t, dir, "app.caps", "(module app\n  (capsule \"1\")\n  (function a (output I64) (body 2)))\n")
	lib := filepath.Join(dir, "lib.caps")
	l := &Loader{ReadFile: read}
	doc, err := syntax.NewDocument([]byte(readFile(t, app)))
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	p := l.CheckFile(app, ast.Build(syntax.Read(doc.CST())))
	edited := []byte("(module app\n  (capsule \"1\")\n  (import lib)\n  (function a (output I64) (body (lib.one))))\n")
	if err := doc.Replace(edited); err != nil {
		t.Fatal(err)
	}
	res, ok := l.RecheckResult(app, p.Result, doc.CST())
	if !ok {
		t.Fatal("RecheckResult declined")
	}
	if diff := cmp.Diff([]string(nil), diagList(res.Diagnostics)); diff != "" {
		t.Errorf("app with its new import (-want +got):\n%s", diff)
	}
	edges := func(abs string) []string {
		var out []string
		for _, e := range l.graph.edges[abs] {
			out = append(out, filepath.Base(e.to)+" "+string(edited[e.span.Start:e.span.End]))
		}
		return out
	}
	if diff := cmp.Diff([]string{"lib.caps lib"}, edges(app)); diff != "" {
		t.Errorf("app's imports in the graph (-want +got):\n%s", diff)
	}
	// lib now imports app: a check of lib finds the cycle through app's
	// new import
	texts[lib] = []byte("(module lib\n  (capsule \"1\")\n  (import app)\n  (function one (output I64) (body 1)))\n")
	texts[app] = edited
	l.Forget(lib)
	lp, err := l.Load(lib)
	if err != nil {
		t.Fatal(err)
	}
	if got := diagList(lp.Result.Diagnostics); len(got) == 0 || !strings.Contains(got[0], "E_IMPORT_CYCLE") {
		t.Errorf("lib importing app: %v, want E_IMPORT_CYCLE", got)
	}
	// an edit of app that removes its call keeps the import (replayed):
	// imports unchanged, answered; one that adds an import replays lib's,
	// which now closes a cycle: declined
	again := []byte("(module app\n  (capsule \"1\")\n  (import lib)\n  (import lib (as l2))\n  (function a (output I64) (body 3)))\n")
	if err := doc.Replace(again); err != nil {
		t.Fatal(err)
	}
	if _, ok := l.RecheckResult(app, res, doc.CST()); ok {
		t.Error("RecheckResult answered an import list whose replayed import closes a cycle; want a decline")
	}
}

// cleanCheck checks the file at path with a fresh loader reading through
// read (each call another result of every file) and fails the test when
// it reports anything.
func cleanCheck(t *testing.T, read func(string) ([]byte, error), path string) *check.Result {
	t.Helper()
	p, err := (&Loader{ReadFile: read}).Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Result.Diagnostics) != 0 {
		t.Fatalf("%s: %v", path, diagList(p.Result.Diagnostics))
	}
	return p.Result
}

// answerFor is a Loader.Answer that answers the file path with r.
func answerFor(path string, r *check.Result) func(string) *check.Result {
	return func(abs string) *check.Result {
		if abs == path {
			return r
		}
		return nil
	}
}

// cleanJob is an importer job's check of top (RecheckImportsAt over
// topBase with answers), which must be answered and report nothing.
func cleanJob(t *testing.T, l *Loader, top string, topBase *check.Result, answers map[string]*check.Result) *Package {
	t.Helper()
	job, ok := l.RecheckImportsAt(top, topBase, nil, answers)
	if !ok {
		t.Fatal("RecheckImportsAt declined")
	}
	if diff := cmp.Diff([]string(nil), diagList(job.Result.Diagnostics)); diff != "" {
		t.Errorf("the job's check of top (-want +got):\n%s", diff)
	}
	return job
}
