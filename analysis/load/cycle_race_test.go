package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
)

// cycleFiles writes base (importing top), top (importing left and base's
// other importer right) and right (importing base): base -> top -> right
// -> base is a cycle, as in the language server's cross-file differential
// test after base.caps is edited to import top.caps.
func cycleFiles(t *testing.T) (base, top, right string) {
	dir := t.TempDir()
	base = write(t, dir, "base.caps", "(module base (capsule \"1\")\n  (import top)\n  (function b (output I64) (body 1)))\n")
	top = write(t, dir, "top.caps", "(module top (capsule \"1\")\n  (import right)\n  (function t (output I64) (body 2)))\n")
	right = write(t, dir, "right.caps", "(module right (capsule \"1\")\n  (import base)\n  (function r (output I64) (body 3)))\n")
	return base, top, right
}

const rightCycle = "base: import cycle: right.caps -> base.caps -> top.caps -> right.caps\ntop.caps right: top.caps imports right.caps here, closing the cycle"

// TestImportCycleWhileAFileIsCheckedAgain (issue 17): a check of right
// that runs while base, in right's cycle, is being checked again (the
// language server checks documents and importer jobs concurrently)
// reports the cycle. base's recorded imports were dropped when its
// check began, and added again only as it resolved them: right's check
// in that window found no path back and published no E_IMPORT_CYCLE.
func TestImportCycleWhileAFileIsCheckedAgain(t *testing.T) {
	base, _, right := cycleFiles(t)
	var l Loader
	if _, err := l.Load(right); err != nil {
		t.Fatal(err)
	}
	// base's check begins (it has not resolved its import of top yet)
	src, _ := os.ReadFile(base)
	f := parseSource(src)
	abs, _ := filepath.Abs(base)
	l.mu.Lock()
	l.graph.begin(abs, f)
	l.mu.Unlock()
	rsrc, _ := os.ReadFile(right)
	if got := strings.Join(cycleOf(t, l.LoadSource(right, rsrc)), "\n"); got != rightCycle {
		t.Errorf("right checked while base is: got\n%s\nwant\n%s", got, rightCycle)
	}
	// base's check ends without its import of top: the cycle is gone
	l.mu.Lock()
	l.graph.end(abs, f)
	l.mu.Unlock()
	if got := l.graph.path(abs, right); got != nil {
		t.Errorf("base's check ended without imports: a path from base to right remains: %v", got)
	}
}

// TestImportCycleThroughAnAnswer (issue 17): base, imported by right,
// is edited to import top (which imports right): a cycle. right's engine
// check over base's answer (an importer job's, RecheckImportsAt) reports
// it though base's own check has not recorded base's new imports (the
// language server forgets an edited document's imports, Forget, and
// checks it later): the answer's imports are recorded. Without that, the
// engine answered right as before, with no E_IMPORT_CYCLE. (The engine
// declines when an import that resolved no longer does: a full check
// then answers, and reports the cycle.)
func TestImportCycleThroughAnAnswer(t *testing.T) {
	base, top, right := cycleFiles(t)
	cyclic, _ := os.ReadFile(base)
	write(t, filepath.Dir(base), "base.caps", "(module base (capsule \"1\")\n  (function b (output I64) (body 1)))\n")
	var l Loader
	rp, err := l.Load(right)
	if err != nil {
		t.Fatal(err)
	}
	if got := cycleOf(t, rp); len(got) != 0 {
		t.Fatalf("before the edit: %q", got)
	}
	if _, err := l.Load(top); err != nil { // (top is open too)
		t.Fatal(err)
	}
	// base imports top now; its answer comes from another loader (the
	// language server's check of the document)
	write(t, filepath.Dir(base), "base.caps", string(cyclic))
	var other Loader
	bp, err := other.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	l.Forget(base)
	abs, _ := filepath.Abs(base)
	pkg, ok := l.RecheckImportsAt(right, rp.Result, nil, map[string]*check.Result{abs: bp.Result})
	if !ok {
		src, _ := os.ReadFile(right)
		pkg = l.LoadSource(right, src)
	}
	if got := strings.Join(cycleOf(t, pkg), "\n"); got != rightCycle {
		t.Errorf("right answered over base's answer (engine %v): got\n%s\nwant\n%s", ok, got, rightCycle)
	}
}

// TestAnswerHasHash (issue 17): an import answered from an answer given
// (RecheckImportsAt's answers: the language server's importer jobs)
// carries the imported module's semantic hash, a full check's, as does
// the symbol of the import (its hover: "import base (sha256:...)"), and
// the importer's semantic hash is a full check's. It was empty ("import
// base ()") unless the loader's cached package held that very answer.
func TestAnswerHasHash(t *testing.T) {
	l := &Loader{}
	base, left, lp, bp := baseAnsweredElsewhere(t, l)
	abs, _ := filepath.Abs(base)
	pkg, ok := l.RecheckImportsAt(left, lp.Result, nil, map[string]*check.Result{abs: bp.Result})
	if !ok {
		t.Fatal("RecheckImportsAt declined")
	}
	var fresh Loader
	want, err := fresh.Load(left)
	if err != nil {
		t.Fatal(err)
	}
	if bp.Hash == "" || len(pkg.Result.Imports) != 1 || pkg.Result.Imports[0].Hash != bp.Hash {
		t.Fatalf("base's hash in left's import: got %+v, want %q", pkg.Result.Imports, bp.Hash)
	}
	var detail string
	for _, s := range pkg.Result.Symbols {
		if s.Kind == check.SymImport {
			detail = s.Detail
		}
	}
	if w := "import base (" + bp.Hash + ")"; detail != w {
		t.Errorf("the import's symbol: got %q, want %q", detail, w)
	}
	l.hash(pkg)
	if pkg.Hash != want.Hash {
		t.Errorf("left's semantic hash: got %s, a full check's %s", pkg.Hash, want.Hash)
	}
}

// TestHashAnswerAhead: HashAnswer hashes an answer ahead of the checks
// that read it (an importer job's parallel checks, each its own answer),
// and the import of a check over that answer takes the hash made ahead,
// which is the hash of a full check of the same text; an answer of
// another text is hashed again.
func TestHashAnswerAhead(t *testing.T) {
	l := &Loader{CacheIR: true}
	base, left, lp, bp := baseAnsweredElsewhere(t, l)
	abs, _ := filepath.Abs(base)
	l.HashAnswer(base, bp.Result)
	if a := l.answerHashes[abs]; a.res != bp.Result || a.hash != bp.Hash || bp.Hash == "" {
		t.Fatalf("after HashAnswer: kept %q for the answer (same result %v), want %q", a.hash, a.res == bp.Result, bp.Hash)
	}
	// the check reads the hash made ahead (marked, to tell it from one
	// made again)
	l.answerHashes[abs] = answerHashed{res: bp.Result, hash: "sha256:ahead"}
	pkg, ok := l.RecheckImportsAt(left, lp.Result, nil, map[string]*check.Result{abs: bp.Result})
	if !ok {
		t.Fatal("RecheckImportsAt declined")
	}
	if len(pkg.Result.Imports) != 1 || pkg.Result.Imports[0].Hash != "sha256:ahead" {
		t.Fatalf("base's hash in left's import: got %+v, want the one made ahead", pkg.Result.Imports)
	}
	// another answer of the file is hashed again
	write(t, filepath.Dir(base), "base.caps", "(module base (capsule \"1\")\n  (function b (input (x I64)) (output I64) (body (+ x 2))))\n")
	var third Loader
	bp2, err := third.Load(base)
	if err != nil {
		t.Fatal(err)
	}
	l.HashAnswer(base, bp2.Result)
	if a := l.answerHashes[abs]; a.res != bp2.Result || a.hash != bp2.Hash || bp2.Hash == bp.Hash {
		t.Fatalf("after HashAnswer of a later answer: kept %q, want %q (the earlier %q)", a.hash, bp2.Hash, bp.Hash)
	}
}

// baseAnsweredElsewhere writes base and left (which imports it), loads
// left with l, then changes base and loads it with another loader, as
// the answer given for it; l forgets base.
func baseAnsweredElsewhere(t *testing.T, l *Loader) (base, left string, lp, bp *Package) {
	t.Helper()
	dir := t.TempDir()
	base = write(t, dir, "base.caps", "(module base (capsule \"1\")\n  (function b (input (x I64)) (output I64) (body x)))\n")
	left = write(t, dir, "left.caps", "(module left (capsule \"1\")\n  (import base)\n  (function l (output I64) (body (base.b 1))))\n")
	lp, err := l.Load(left)
	if err != nil {
		t.Fatal(err)
	}
	write(t, dir, "base.caps", "(module base (capsule \"1\")\n  (function b (input (x I64)) (output I64) (body (+ x 1))))\n")
	var other Loader
	if bp, err = other.Load(base); err != nil {
		t.Fatal(err)
	}
	l.Forget(base)
	return base, left, lp, bp
}
