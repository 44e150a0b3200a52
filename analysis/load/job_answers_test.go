package load

import (
	"os"
	"strings"
	"testing"

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
	result := func(path string) *check.Result {
		p, err := (&Loader{ReadFile: read}).Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Result.Diagnostics) != 0 {
			t.Fatalf("%s: %v", path, diagList(p.Result.Diagnostics))
		}
		return p.Result
	}
	topBase := result(top)
	texts[base] = []byte(strings.Replace(string(texts[base]), "(y I64)", "(y I32)", 1))
	a, b := result(base), result(base)
	l := &Loader{ReadFile: read, Answer: func(abs string) *check.Result {
		if abs == base {
			return a
		}
		return nil
	}}
	job, ok := l.RecheckImportsAt(top, topBase, nil, map[string]*check.Result{base: b})
	if !ok {
		t.Fatal("RecheckImportsAt declined")
	}
	if diff := cmp.Diff([]string(nil), diagList(job.Result.Diagnostics)); diff != "" {
		t.Errorf("the job's check of top (-want +got):\n%s", diff)
	}
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
	result := func(path string) *check.Result {
		p, err := (&Loader{ReadFile: read}).Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Result.Diagnostics) != 0 {
			t.Fatalf("%s: %v", path, diagList(p.Result.Diagnostics))
		}
		return p.Result
	}
	topBase := result(top)
	texts[base] = []byte(strings.Replace(readFile(t, base), "(y I64)", "(y I32)", 1))
	l := &Loader{ReadFile: read}
	answers := map[string]*check.Result{left: result(left), right: result(right)}
	job, ok := l.RecheckImportsAt(top, topBase, nil, answers)
	if !ok {
		t.Fatal("RecheckImportsAt declined")
	}
	if diff := cmp.Diff([]string(nil), diagList(job.Result.Diagnostics)); diff != "" {
		t.Errorf("the job's check of top (-want +got):\n%s", diff)
	}
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
	result := func(path string) *check.Result {
		p, err := (&Loader{ReadFile: read}).Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Result.Diagnostics) != 0 {
			t.Fatalf("%s: %v", path, diagList(p.Result.Diagnostics))
		}
		return p.Result
	}
	topBase, leftAnswer := result(top), result(left)
	texts[base] = []byte(strings.Replace(readFile(t, base), "(y I64)", "(y I32)", 1))
	b := result(base)
	l := &Loader{ReadFile: read, Answer: func(abs string) *check.Result {
		if abs == left {
			return leftAnswer
		}
		return nil
	}}
	job, ok := l.RecheckImportsAt(top, topBase, nil, map[string]*check.Result{base: b})
	if !ok {
		t.Fatal("RecheckImportsAt declined")
	}
	if diff := cmp.Diff([]string(nil), diagList(job.Result.Diagnostics)); diff != "" {
		t.Errorf("the job's check of top (-want +got):\n%s", diff)
	}
	if l.Cached(base) {
		t.Error("base cached: left's answer was read against the loader's base, not the job's")
	}
}
