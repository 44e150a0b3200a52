package lsp

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/diagnose"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/lsp/lsptest"
)

// The cross-file differential test (TestWorkspaceDifferential) drives one
// server as an editor would over a workspace of modules that import each
// other (chains, a diamond, an alias, modules from examples/ and
// testdata/), some open and some only on disk, with random edits; after
// each edit it compares every open module's published diagnostics and a
// sample of requests with those of a fresh server that opened the same
// texts cold, and the diagnostics with a fresh loader's full check.
//
// CAPS_XFILE_SEEDS=N runs N seeds (from CAPS_XFILE_SEED, default 1) of
// CAPS_XFILE_STEPS steps each (default 40) instead of the default run;
// CAPS_XFILE_KEEPGOING goes on after a failing seed, CAPS_XFILE_TRACE
// logs each step and the fresh servers' logs, CAPS_XFILE_KNOWN draws
// the steps that show the defects not fixed yet (xfKnownDefect) and runs
// their reproducers (xfKnownReproducers).

// xfSynthetic are the synthetic modules: base (a record, an enum, a
// variant, contracts, an example) is imported by left and right, which
// top imports with base itself (a diamond) and lib.money (from examples/).
var xfSynthetic = map[string]string{
	"base.caps": `(module base
  (capsule "1.0")
  (type Point (record (x I64) (y I64)))
  (type Color (enum red green blue))
  (type Shape (variant (dot (n I64)) (pair (a I64) (b I64)) empty))
  (function big
    (input (x I64))
    (output I64)
    (effects pure)
    (requires (> x 5))
    (ensures (>= result 5))
    (body x)
    (example (big 7) 7))
  (function shade
    (input (c Color))
    (output I64)
    (body (match c (Color.red 1) (Color.green 2) (Color.blue 3))))
  (function origin (output Point) (body (record Point (x 0) (y 1)))))
`,
	"left.caps": `(module left
  (capsule "1.0")
  (import base)
  (function lx
    (input (p base.Point))
    (output I64)
    (effects pure)
    (body (base.big p.x))
    (example (lx (record base.Point (x 9) (y 1))) 9))
  (function lc (output base.Color) (body base.Color.red)))
`,
	"right.caps": `(module right
  (capsule "1.0")
  (import base)
  (function ry
    (input (p base.Point))
    (output I64)
    (requires (> p.y 0))
    (body (+ p.y (base.shade base.Color.blue)))
    (example (ry (record base.Point (x 0) (y 2))) 5))
  (function rs (input (s base.Shape)) (output I64) (body 0)))
`,
	"top.caps": `(module top
  (capsule "1.0")
  (import left)
  (import right)
  (import base)
  (import lib.money)
  (function t1
    (input (x I64))
    (output I64)
    (requires (> x 6))
    (body (+ (left.lx (record base.Point (x x) (y 2))) (right.ry (base.origin))))
    (example (t1 8) 12))
  (function t2 (output I64) (body (base.shade (left.lc))))
  (function t3 (input (a money.Amount)) (output Bool) (body (money.is_large a))))
`,
}

// xfFiles returns the workspace's files (path relative to the folder ->
// text): the synthetic modules and modules from examples/ and testdata/
// that use imports.
func xfFiles(t testing.TB) map[string]string {
	files := map[string]string{}
	for k, v := range xfSynthetic {
		files[k] = v
	}
	for rel, src := range map[string]string{
		"lib/money.caps":       "../examples/lib/money.caps",
		"app17.caps":           "../examples/17_imports.caps",
		"fixtures/units.caps":  "../testdata/check/lib/fixtures/units.caps",
		"clean_imports.caps":   "../testdata/check/clean_imports.caps",
		"imports_checked.caps": "../testdata/check/imports_checked.caps",
	} {
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		files[rel] = string(b)
	}
	return files
}

// xfOrder is an order of the files in which each comes after the ones it
// imports (the fresh server opens them in it, so that each open is cold).
var xfOrder = []string{"fixtures/units.caps", "lib/money.caps", "base.caps", "left.caps", "right.caps", "top.caps", "clean_imports.caps", "imports_checked.caps", "app17.caps"}

// xfMutation is a structured edit of one file that toggles: a becomes b,
// or (when b is there) b becomes a.
type xfMutation struct{ file, name, a, b string }

var xfMutations = []xfMutation{
	{"base.caps", "big's precondition", "(requires (> x 5))", "(requires (> x 8))"},
	{"base.caps", "big's postcondition", "(ensures (>= result 5))", "(ensures (>= result 50))"},
	{"base.caps", "big renamed", "(function big\n", "(function bigg\n"},
	{"base.caps", "origin removed", "  (function origin (output Point) (body (record Point (x 0) (y 1)))))", "  ;; origin removed\n  )"},
	{"base.caps", "Point's field renamed", "(record (x I64) (y I64))", "(record (x I64) (z I64))"},
	{"base.caps", "Point's field type", "(record (x I64) (y I64))", "(record (x I64) (y Bool))"},
	{"base.caps", "Color loses blue", "(enum red green blue)", "(enum red green yellow)"},
	{"base.caps", "Shape's variant", "(dot (n I64))", "(dot (n Bool))"},
	{"base.caps", "big's body", "(body x)", "(body (+ x 1))"},
	{"base.caps", "base imports top (a cycle)", "(capsule \"1.0\")\n  (type Point", "(capsule \"1.0\")\n  (import top)\n  (type Point"},
	{"left.caps", "left's import removed", "  (import base)\n", "  ;; no import\n"},
	{"left.caps", "left's example", "(y 1))) 9)", "(y 1))) 10)"},
	{"left.caps", "lc's output", "(function lc (output base.Color) (body base.Color.red))", "(function lc (output I64) (body 1))"},
	{"left.caps", "lx's argument", "(base.big p.x)", "(base.big p.y)"},
	{"right.caps", "ry's precondition", "(requires (> p.y 0))", "(requires (> p.y 9))"},
	{"right.caps", "right imports left", "  (import base)\n  (function ry", "  (import base)\n  (import left)\n  (function rl (output base.Color) (body (left.lc)))\n  (function ry"},
	{"right.caps", "ry's output", "    (output I64)\n    (requires", "    (output Bool)\n    (requires"},
	{"top.caps", "t1's example", "(t1 8) 12)", "(t1 8) 13)"},
	{"top.caps", "top's money import", "  (import lib.money)\n", "  (import lib.money (as m))\n"},
	{"lib/money.caps", "is_large's threshold", "(>= a.cents 100000)", "(>= a.cents 100)"},
	{"lib/money.caps", "Amount's field renamed", "      (cents U64)\n      (currency Text)", "      (cent U64)\n      (currency Text)"},
	{"lib/money.caps", "apply_bps's precondition", "(requires (<= bps 10000))", "(requires (<= bps 1000))"},
	{"fixtures/units.caps", "Kelvin's type", "(type Kelvin U32)", "(type Kelvin I32)"},
	{"fixtures/units.caps", "Scale's members", "(enum celsius fahrenheit)", "(enum celsius kelvin)"},
	{"fixtures/units.caps", "probe_of renamed", "(function probe_of", "(function probe"},
	{"app17.caps", "app17's example", "(currency \"EUR\")) 2000)", "(currency \"EUR\")) 200)"},
}

// xfKnownDefect names the mutations that show a defect not fixed yet:
// they are drawn only when CAPS_XFILE_KNOWN is set.
//
// None is left: import cycles ("base imports top (a cycle)") are drawn
// since an importer job no longer publishes left.caps or right.caps
// without their E_IMPORT_CYCLE (TestWorkspaceImportCycleEdit), and a
// closed module between open ones since every check of an importer job
// reads one result of each file (TestWorkspaceClosedModuleBetweenOpenOnes).
var xfKnownDefect = map[string]bool{}

// xfMutation0 draws a mutation.
func xfMutation0(r *rand.Rand) int {
	for {
		m := r.Intn(len(xfMutations))
		if !xfKnownDefect[xfMutations[m].name] || os.Getenv("CAPS_XFILE_KNOWN") != "" {
			return m
		}
	}
}

// toggle applies m to text (ok false when it does not apply).
func (m xfMutation) toggle(text string) (a, b int, ins string, ok bool) {
	if i := strings.Index(text, m.b); i >= 0 {
		return i, i + len(m.b), m.a, true
	}
	if i := strings.Index(text, m.a); i >= 0 {
		return i, i + len(m.a), m.b, true
	}
	return 0, 0, "", false
}

// xfOp is one step of a run, drawn from the seed before the run (so that
// a run of a subset of the steps replays the others as they were).
type xfOp struct {
	kind string // "mutate", "type", "close", "open", "disk", "save"
	file string
	mut  int   // the mutation (mutate, disk)
	seed int64 // of the random typing
}

func (o xfOp) String() string {
	switch o.kind {
	case "mutate", "disk":
		return fmt.Sprintf("%s %s: %s", o.kind, o.file, xfMutations[o.mut].name)
	case "type":
		return fmt.Sprintf("type in %s (seed %d)", o.file, o.seed)
	}
	return o.kind + " " + o.file
}

// xfOps draws n steps from seed.
func xfOps(seed int64, n int) []xfOp {
	r := rand.New(rand.NewSource(seed))
	ops := make([]xfOp, n)
	for i := range ops {
		file := xfOrder[r.Intn(len(xfOrder))]
		switch k := r.Intn(20); {
		case k < 9:
			m := xfMutation0(r)
			ops[i] = xfOp{kind: "mutate", file: xfMutations[m].file, mut: m}
		case k < 13:
			ops[i] = xfOp{kind: "type", file: file, seed: r.Int63()}
		case k < 15:
			ops[i] = xfOp{kind: "close", file: file}
		case k < 17:
			ops[i] = xfOp{kind: "open", file: file}
		case k < 19:
			m := xfMutation0(r)
			ops[i] = xfOp{kind: "disk", file: xfMutations[m].file, mut: m}
		default:
			ops[i] = xfOp{kind: "save", file: file}
		}
	}
	return ops
}

// xfInitiallyOpen are the documents open at the start (the others are on
// disk only).
var xfInitiallyOpen = []string{"base.caps", "left.caps", "top.caps", "app17.caps", "imports_checked.caps"}

// xfStats counts what the server did over a run.
type xfStats struct {
	edits, kept, engine, examples, rechecked, quick, chain, importView, full int64
}

func xfCounters() xfStats {
	return xfStats{
		kept: importStats.kept.Load(), engine: importStats.engine.Load(), examples: importStats.examples.Load(), rechecked: importStats.rechecked.Load(),
		quick: quickViews.Load(), chain: chainViews.Load(), importView: importViews.Load(), full: fullViews.Load(),
	}
}

// xfRun replays ops in a new workspace and returns the first mismatch
// ("" for none) and the index of the step that showed it.
func xfRun(t *testing.T, ops []xfOp, probes int, st *xfStats) (string, int) {
	dir := t.TempDir()
	disk := xfFiles(t)
	for rel, text := range disk {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	uri := func(rel string) protocol.DocumentURI {
		return protocol.DocumentURI("file://" + filepath.Join(dir, rel))
	}
	s, c := startServer(t, Options{}, dir)
	c.Timeout = 30 * time.Second
	open := map[string]string{}
	version := map[string]int{}
	openDoc := func(c *lsptest.Client, rel, text string, v int) {
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri(rel), "languageId": "capsulang", "version": v, "text": text}})
	}
	for _, rel := range xfInitiallyOpen {
		open[rel] = disk[rel]
		version[rel]++
		openDoc(c, rel, disk[rel], version[rel])
	}
	barrier := func(s *Server, c *lsptest.Client) {
		// a request after the notifications: the server has read them
		c.Call("workspace/symbol", map[string]any{"query": "zz"}, nil)
		xfSettle(t, s)
		// (an importer job starts once the edited document's check
		// ended: let it start, then settle again)
		time.Sleep(100 * time.Millisecond)
		xfSettle(t, s)
	}
	barrier(s, c)
	c0 := xfCounters()
	for i, op := range ops {
		if os.Getenv("CAPS_XFILE_TRACE") != "" {
			t.Logf("step %d: %s", i+1, op)
		}
		switch op.kind {
		case "mutate", "type":
			text, ok := open[op.file]
			if !ok {
				continue
			}
			var a, b int
			var ins string
			if op.kind == "mutate" {
				if a, b, ins, ok = xfMutations[op.mut].toggle(text); !ok {
					continue
				}
			} else {
				a, b, ins = randomEdit(rand.New(rand.NewSource(op.seed)), text)
			}
			version[op.file]++
			open[op.file] = replaceText(c, uri(op.file), version[op.file], text, a, b, ins)
		case "close":
			if _, ok := open[op.file]; !ok {
				continue
			}
			delete(open, op.file)
			c.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri(op.file)}})
		case "open":
			if _, ok := open[op.file]; ok {
				continue
			}
			open[op.file] = disk[op.file]
			version[op.file]++
			openDoc(c, op.file, disk[op.file], version[op.file])
		case "disk", "save":
			text := disk[op.file]
			if op.kind == "disk" {
				a, b, ins, ok := xfMutations[op.mut].toggle(text)
				if !ok {
					continue
				}
				text = text[:a] + ins + text[b:]
			} else if t, ok := open[op.file]; ok && t != text {
				text = t
			} else {
				continue
			}
			disk[op.file] = text
			if err := os.WriteFile(filepath.Join(dir, op.file), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			c.Notify("workspace/didChangeWatchedFiles", map[string]any{"changes": []any{map[string]any{"uri": uri(op.file), "type": protocol.FileChangeTypeChanged}}})
		}
		st.edits++
		barrier(s, c)
		if msg := xfCompare(t, dir, s, c, uri, open, probes, rand.New(rand.NewSource(1))); msg != "" {
			return msg, i
		}
	}
	c1 := xfCounters()
	st.kept += c1.kept - c0.kept
	st.engine += c1.engine - c0.engine
	st.examples += c1.examples - c0.examples
	st.rechecked += c1.rechecked - c0.rechecked
	st.quick += c1.quick - c0.quick
	st.chain += c1.chain - c0.chain
	st.importView += c1.importView - c0.importView
	st.full += c1.full - c0.full
	return "", -1
}

// xfCompare compares the server's state for every open document with a
// fresh server that opened the same texts (the files on disk as they
// are), and its diagnostics with a fresh loader's full check.
func xfCompare(t *testing.T, dir string, s *Server, c *lsptest.Client, uri func(string) protocol.DocumentURI, open map[string]string, probes int, r *rand.Rand) string {
	var names []string
	for _, rel := range xfOrder {
		if _, ok := open[rel]; ok {
			names = append(names, rel)
		}
	}
	got := map[string][]string{}
	s.mu.Lock()
	cur := map[string][]byte{}
	snaps := map[string]*snapshot{}
	for _, rel := range names {
		d := s.docs[uri(rel)]
		if d == nil || string(d.snap.cst.Src) != open[rel] {
			s.mu.Unlock()
			return fmt.Sprintf("%s: the server's text is not the editor's", rel)
		}
		got[rel] = summary(d.lastDiags)
		cur[d.path] = d.snap.cst.Src
		snaps[rel] = d.snap
	}
	roots := append([]string(nil), s.loader.Roots...)
	s.mu.Unlock()
	// a fresh loader's full check (examples included), with the server's
	// import roots
	fresh := &load.Loader{Roots: roots, ReadFile: func(path string) ([]byte, error) {
		if src, ok := cur[path]; ok {
			return src, nil
		}
		return load.ReadSource(path)
	}}
	for _, rel := range names {
		sn := snaps[rel]
		pkg := fresh.LoadSource(sn.path, sn.cst.Src)
		want := summary(s.toProtocol(sn, diagnose.Run(pkg.Result).Diagnostics))
		if d := cmp.Diff(want, got[rel]); d != "" {
			return fmt.Sprintf("%s: published diagnostics differ from a full check (-full +published):\n%s\npublished:\n%s", rel, d, strings.Join(got[rel], "\n"))
		}
	}
	// a fresh server, the documents opened in import order
	var opts Options
	if os.Getenv("CAPS_XFILE_TRACE") != "" {
		opts.Log = os.Stderr
	}
	fs, fc := startServer(t, opts, dir)
	fc.Timeout = 30 * time.Second
	defer fc.Close()
	for _, rel := range names {
		fc.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri(rel), "languageId": "capsulang", "version": 1, "text": open[rel]}})
		fc.Call("workspace/symbol", map[string]any{"query": "zz"}, nil)
		fs.settled(t, uri(rel), 1)
	}
	xfSettle(t, fs)
	fs.mu.Lock()
	want := map[string][]string{}
	for _, rel := range names {
		want[rel] = summary(fs.docs[uri(rel)].lastDiags)
	}
	fs.mu.Unlock()
	for _, rel := range names {
		if d := cmp.Diff(want[rel], got[rel]); d != "" {
			return fmt.Sprintf("%s: published diagnostics differ from a fresh server's (-fresh +published):\n%s", rel, d)
		}
	}
	// requests at random places and after qualifiers
	for _, rel := range names {
		text := open[rel]
		var places []int
		for k := 0; k < probes; k++ {
			places = append(places, r.Intn(len(text)+1))
		}
		for k := 0; k < probes; k++ {
			from := r.Intn(len(text))
			if i := strings.Index(text[from:], "."); i >= 0 {
				places = append(places, from+i+1-r.Intn(2))
			}
		}
		sort.Ints(places)
		for _, off := range places {
			for len(text) > off && off > 0 && text[off]&0xC0 == 0x80 {
				off--
			}
			for _, m := range []string{"textDocument/hover", "textDocument/completion", "textDocument/definition"} {
				params := map[string]any{"textDocument": map[string]any{"uri": uri(rel)}, "position": utf16Pos(text, off)}
				var g, w json.RawMessage
				ge := c.Call(m, params, &g)
				we := fc.Call(m, params, &w)
				if fmt.Sprint(ge) != fmt.Sprint(we) {
					return fmt.Sprintf("%s: %s at %d (%q): error %v, a fresh server's %v", rel, m, off, around(text, off), ge, we)
				}
				var gv, wv any
				json.Unmarshal(g, &gv)
				json.Unmarshal(w, &wv)
				if d := cmp.Diff(wv, gv); d != "" {
					return fmt.Sprintf("%s: %s at %d (%q) differs from a fresh server's (-fresh +server):\n%s", rel, m, off, around(text, off), d)
				}
			}
		}
	}
	return ""
}

// xfSettle is Server.settled for any document, with the state of each
// when the server does not settle (within 30 s).
func xfSettle(t *testing.T, s *Server) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		time.Sleep(2 * time.Millisecond)
		jobs := s.importJobs.Load()
		s.mu.Lock()
		done := jobs == 0
		var state []string
		for _, d := range s.docs {
			if d.published != d.version || !d.publishedFinal {
				done = false
			}
			state = append(state, fmt.Sprintf("%s: version %d, published %d (final %v), awaiting %d, base %v, engine %v, rechecking %v, timer %v, snap seq %d done %v",
				filepath.Base(d.path), d.version, d.published, d.publishedFinal, d.awaiting, d.base != nil, d.engine != nil, d.rechecking != nil, d.fullCheck != nil, d.snap.seq, d.snap.done.Load()))
		}
		s.mu.Unlock()
		if done && s.importJobs.Load() == 0 {
			return
		}
		if time.Now().After(deadline) {
			sort.Strings(state)
			t.Fatalf("the server did not settle within 30 s: %d importer jobs under way; %s", jobs, strings.Join(state, "; "))
		}
	}
}

func around(text string, off int) string {
	return text[max(0, off-15):min(len(text), off+15)]
}

// xfReduce drops steps of ops while the run still fails, and returns the
// shorter sequence and its failure.
func xfReduce(t *testing.T, ops []xfOp, probes int, deadline time.Time) ([]xfOp, string) {
	var st xfStats
	msg, at := xfRun(t, ops, probes, &st)
	if msg == "" {
		return ops, ""
	}
	ops = ops[:at+1]
	for i := len(ops) - 2; i >= 0 && time.Now().Before(deadline); i-- {
		try := append(append([]xfOp{}, ops[:i]...), ops[i+1:]...)
		if m, at := xfRun(t, try, probes, &st); m != "" {
			ops, msg = try[:at+1], m
			if i > len(ops)-1 {
				i = len(ops) - 1
			}
		}
	}
	return ops, msg
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// xfKnownReproducers reproduce the cross-file defects not fixed yet:
// they fail today. TestWorkspaceDifferential runs them, as subtests
// "known/NAME", when CAPS_XFILE_KNOWN is set.
//
// None is left: the two cycle messages (which of two shortest chains
// E_IMPORT_CYCLE names, its related location's column) are
// TestWorkspaceCycleMessagePath and TestWorkspaceCycleRelatedSpan.
var xfKnownReproducers = map[string]func(*testing.T){}

// TestWorkspaceDifferential is the cross-file differential test (see
// above): the default run is two seeds of 20 steps.
func TestWorkspaceDifferential(t *testing.T) {
	if os.Getenv("CAPS_XFILE_KNOWN") != "" {
		for name, f := range xfKnownReproducers {
			t.Run("known/"+name, f)
		}
	}
	seeds, steps, first := 2, 20, int64(envInt("CAPS_XFILE_SEED", 1))
	if n := envInt("CAPS_XFILE_SEEDS", 0); n > 0 {
		seeds, steps = n, envInt("CAPS_XFILE_STEPS", 40)
	}
	const probes = 3
	var st xfStats
	for seed := first; seed < first+int64(seeds); seed++ {
		ops := xfOps(seed, steps)
		if msg, at := xfRun(t, ops, probes, &st); msg != "" {
			min, why := xfReduce(t, ops[:at+1], probes, time.Now().Add(3*time.Minute))
			var b strings.Builder
			for i, o := range min {
				fmt.Fprintf(&b, "  %d. %s\n", i+1, o)
			}
			t.Errorf("seed %d (CAPS_XFILE_SEED=%d CAPS_XFILE_SEEDS=1 CAPS_XFILE_STEPS=%d), step %d (%s): %s\nreduced to %d steps:\n%s%s", seed, seed, steps, at+1, ops[at], msg, len(min), b.String(), why)
			if t.Failed() && os.Getenv("CAPS_XFILE_KEEPGOING") == "" {
				break
			}
		}
	}
	t.Logf("%d edits over %d seeds: importers kept without a check %d, answered by the engine %d of %d checked again, examples evaluated again %d; request views: quick %d, chain %d, import %d, full %d",
		st.edits, seeds, st.kept, st.engine, st.rechecked, st.examples, st.quick, st.chain, st.importView, st.full)
}

// TestWorkspaceClosedModuleBetweenOpenOnes changes a field's type in
// base (open), which right (closed, on disk: its function takes a
// base.Point) and top (open) import; top passes base.origin's Point to
// right.ry. top's engine answer read base from the job's answers and
// right from the loader, checked over another result of base: two Point
// types, "expected record Point, found record Point" (found by
// TestWorkspaceDifferential). top must have no diagnostic, as a full
// check says: the loader's checks in an importer job read the job's
// answers too (load.Loader.load).
func TestWorkspaceClosedModuleBetweenOpenOnes(t *testing.T) {
	files := map[string]string{
		"base.caps":  "(module base\n  (capsule \"1\")\n  (type Point (record (x I64) (y I64)))\n  (function origin (output Point) (body (record Point (x 0) (y 1)))))\n",
		"right.caps": "(module right\n  (capsule \"1\")\n  (import base)\n  (function ry (input (p base.Point)) (output I64) (body p.x)))\n",
		"top.caps":   "(module top\n  (capsule \"1\")\n  (import right)\n  (import base)\n  (function t (output I64) (body (right.ry (base.origin)))))\n",
	}
	s, c, uri := wsWithFiles(t, files, "base.caps", "top.caps")
	for i, ty := range []string{"I32", "U32"} {
		b := files["base.caps"]
		a := strings.Index(b, "(y ") + len("(y ")
		files["base.caps"] = replaceText(c, uri("base.caps"), 2+i, b, a, a+3, ty)
		s.settled(t, uri("base.caps"), 2+i)
		time.Sleep(300 * time.Millisecond) // (the importer job)
		s.settled(t, uri("base.caps"), 2+i)
		if got := s.codesOf(uri("top.caps")); len(got) != 0 {
			t.Fatalf("Point's y made %s: top.caps has %v, want no diagnostic", ty, got)
		}
		if got := s.codesOf(uri("base.caps")); len(got) != 0 {
			t.Fatalf("Point's y made %s: base.caps has %v, want no diagnostic", ty, got)
		}
	}
}

// xfSequence replays named steps of the differential test ("mutate" and
// "disk" steps name the mutation) and returns the first mismatch.
func xfSequence(t *testing.T, steps ...[3]string) string {
	mut := map[string]int{}
	for i, m := range xfMutations {
		mut[m.name] = i
	}
	var ops []xfOp
	for _, s := range steps {
		ops = append(ops, xfOp{kind: s[0], file: s[1], mut: mut[s[2]]})
	}
	var st xfStats
	msg, _ := xfRun(t, ops, 3, &st)
	return msg
}

// TestWorkspaceContractThenMiddleSignature edits base's postcondition
// (a contract: no interface change), then the output type of right.ry
// (right imports base, top imports both and left): every module open.
// top.caps then published "expected record Point, found record Point" at
// both of t1's Point arguments, which a full check does not report
// (TestWorkspaceDifferential, seed 300): top's importer job answered
// left and right from their documents' results, checked over one result
// of base, and loaded base itself as another (load.Loader.closeAnswers).
func TestWorkspaceContractThenMiddleSignature(t *testing.T) {
	if msg := xfSequence(t, [3]string{"open", "right.caps", ""}, [3]string{"mutate", "base.caps", "big's postcondition"}, [3]string{"mutate", "right.caps", "ry's output"}); msg != "" {
		t.Fatal(msg)
	}
}

// TestWorkspaceSaveThenDiskEdit renames base's function big (open), saves
// base (its file is written and watched), then changes lib/money.caps on
// disk: the server's loader answered top's import of left with left's
// package, kept after a check that read another result of base than the
// one it then held for base, and top.caps published "expected record
// Point, found record Point" and "expected enum Color, found enum Color"
// (TestWorkspaceDifferential, seed 302; load.Loader.importsCached).
func TestWorkspaceSaveThenDiskEdit(t *testing.T) {
	if msg := xfSequence(t, [3]string{"mutate", "base.caps", "big renamed"}, [3]string{"save", "base.caps", ""}, [3]string{"disk", "lib/money.caps", "apply_bps's precondition"}); msg != "" {
		t.Fatal(msg)
	}
}

// TestWorkspaceSaveThenMiddleOutput: base's big renamed and saved, then
// right's ry given another output type: top, which imports base, left
// and right, must read one Point (TestWorkspaceDifferential with
// CAPS_XFILE_SEED=302). It published "expected record Point, found record
// Point" in top: the job's answers for left and right were checked over
// two results of base (one before the save's watched change, one after).
func TestWorkspaceSaveThenMiddleOutput(t *testing.T) {
	if msg := xfSequence(t, [3]string{"open", "right.caps", ""}, [3]string{"mutate", "base.caps", "big renamed"}, [3]string{"save", "base.caps", ""}, [3]string{"mutate", "right.caps", "ry's output"}); msg != "" {
		t.Fatal(msg)
	}
}

// xfReplay replays ops (xfRun) and fails with the first mismatch.
func xfReplay(t *testing.T, ops ...xfOp) {
	t.Helper()
	var st xfStats
	if msg, _ := xfRun(t, ops, 3, &st); msg != "" {
		t.Fatal(msg)
	}
}

// xfMut returns the index of the mutation named name.
func xfMut(name string) int {
	for i, m := range xfMutations {
		if m.name == name {
			return i
		}
	}
	panic("no mutation " + name)
}

// TestWorkspaceNewImportReadsOneBase: right (open) gains an import of
// left after base changed: the engine's answer replays right's import of
// base (the result its last check read) and resolves left through the
// loader, checked over base's current result: two results of base, "expected
// enum Color, found enum Color" (TestWorkspaceDifferential, seed 16). The
// engine's answer is declined then (load.OneResultPerFile) and a full
// check answers.
func TestWorkspaceNewImportReadsOneBase(t *testing.T) {
	xfReplay(t,
		xfOp{kind: "mutate", file: "base.caps", mut: xfMut("big renamed")},
		xfOp{kind: "open", file: "right.caps"},
		xfOp{kind: "type", file: "base.caps", seed: 8755001447812608547},
		xfOp{kind: "mutate", file: "right.caps", mut: xfMut("right imports left")},
	)
}

// TestWorkspaceImportReaddedWhileBaseChanged: left's import of base is
// removed (the engine answers), base changes, and the import is added
// back: hover on base.big in left was answered without big's symbol
// (TestWorkspaceDifferential, seed 3), from a view over the engine's
// check of left after base changed, itself over the answer whose
// imports changed. Such an answer is no longer the base of that check
// (importDeps.withImports): left is checked in full then.
func TestWorkspaceImportReaddedWhileBaseChanged(t *testing.T) {
	xfReplay(t,
		xfOp{kind: "mutate", file: "left.caps", mut: xfMut("left's import removed")},
		xfOp{kind: "mutate", file: "base.caps", mut: xfMut("big renamed")},
		xfOp{kind: "type", file: "base.caps", seed: 5434816226316715871},
		xfOp{kind: "mutate", file: "left.caps", mut: xfMut("lc's output")},
		xfOp{kind: "mutate", file: "base.caps", mut: xfMut("big renamed")},
		xfOp{kind: "mutate", file: "left.caps", mut: xfMut("left's import removed")},
	)
}

// wsWithFiles writes files (name -> text) into a new workspace folder,
// starts a server on it and opens the files named in open, one after the
// other, each settled; uri names a file of the folder.
func wsWithFiles(t *testing.T, files map[string]string, open ...string) (s *Server, c *lsptest.Client, uri func(string) protocol.DocumentURI) {
	t.Helper()
	dir := t.TempDir()
	for n, text := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, c = wsServer(t, dir)
	uri = func(n string) protocol.DocumentURI { return protocol.DocumentURI("file://" + filepath.Join(dir, n)) }
	for _, n := range open {
		c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri(n), "languageId": "capsulang", "version": 1, "text": files[n]}})
		s.settled(t, uri(n), 1)
	}
	return s, c, uri
}

// TestWorkspaceImportEditsThenBaseEdits replays the reduced sequences of
// TestWorkspaceDifferential's seeds 12, 22 and 35 (an import's alias
// given and taken back, or typing inside the import forms, then an edit
// of base): hover on imported members in top.caps was answered without
// their symbols when a view over a view base declined the import edit
// and the engine's answer of the new text answered instead.
func TestWorkspaceImportEditsThenBaseEdits(t *testing.T) {
	t.Run("seed 12", func(t *testing.T) {
		xfReplay(t,
			xfOp{kind: "disk", file: "left.caps", mut: xfMut("left's example")},
			xfOp{kind: "mutate", file: "top.caps", mut: xfMut("top's money import")},
			xfOp{kind: "mutate", file: "base.caps", mut: xfMut("Shape's variant")})
	})
	t.Run("seed 22", func(t *testing.T) {
		xfReplay(t,
			xfOp{kind: "type", file: "top.caps", seed: 1719339433459287586},
			xfOp{kind: "mutate", file: "base.caps", mut: xfMut("big's postcondition")})
	})
	t.Run("seed 35", func(t *testing.T) {
		xfReplay(t,
			xfOp{kind: "mutate", file: "top.caps", mut: xfMut("top's money import")},
			xfOp{kind: "disk", file: "lib/money.caps", mut: xfMut("is_large's threshold")},
			xfOp{kind: "mutate", file: "top.caps", mut: xfMut("top's money import")},
			xfOp{kind: "mutate", file: "base.caps", mut: xfMut("Point's field renamed")})
	})
}

// TestWorkspaceTypingThenImportedBodyEdit replays the reduced sequence of
// TestWorkspaceDifferential's seed 58: after typing in app17.caps (a
// comment inside an input list, a stray atom above the module) and an
// edit of lib/money.caps, hover on an input of partial_refund found
// nothing: the importer job gave the snapshot's requests its engine
// answer, which lacked the types and references of the bodies it had
// not checked again (offerImportAnswer takes none such now).
func TestWorkspaceTypingThenImportedBodyEdit(t *testing.T) {
	xfReplay(t,
		xfOp{kind: "open", file: "lib/money.caps"},
		xfOp{kind: "type", file: "app17.caps", seed: 1278051767215532394},
		xfOp{kind: "disk", file: "base.caps", mut: xfMut("big's precondition")},
		xfOp{kind: "type", file: "app17.caps", seed: 3400241051598388625},
		xfOp{kind: "mutate", file: "lib/money.caps", mut: xfMut("is_large's threshold")},
	)
}

// TestWorkspaceCycleMessagePath replays TestWorkspaceDifferential's seed
// 14 up to its step 28: after base imports top (a cycle) and left (which
// imports base, as right does) is edited, base.caps's E_IMPORT_CYCLE named
// the cycle through right where a full check names it through left, the
// first of top's imports (two chains of one length): the loader's import
// graph had forgotten left's imports (left changed) when base's check
// asked for the chain back. The chain is read from the files' texts now
// (load.Loader.cyclePath).
func TestWorkspaceCycleMessagePath(t *testing.T) {
	xfReplay(t, xfOps(14, 28)...)
}

// TestWorkspaceCycleRelatedSpan replays TestWorkspaceDifferential's seed
// 29 up to its step 31: after typing in base (which imports top: a
// cycle) moved its import, top.caps's E_IMPORT_CYCLE pointed at the
// column of base's import in an older text: a hover's view checked an
// older text of base (snapshot.chainView), and the loader's import graph
// kept that text's spans, which top's check then named. The related
// location is read from the file's text now (load.Loader.cyclePath).
// (The view's check does not always come before top's: before the fix
// the test failed in 3 of 8 runs; load.TestCycleMessageFollowsTexts
// shows the defect every time.)
func TestWorkspaceCycleRelatedSpan(t *testing.T) {
	xfReplay(t, xfOps(29, 31)...)
}
