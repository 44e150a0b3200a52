package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
)

func write(t testing.TB, dir, name, src string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func codes(p *Package) []string {
	var out []string
	for _, d := range p.Result.Diagnostics {
		out = append(out, d.Code+" "+string(p.Src[d.Span.Start:d.Span.End]))
	}
	return out
}

func TestImports(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "shared/units.caps", `(module shared.units (capsule "1") (type Grams U32) (function double (input (x I64)) (output I64) (body (* x 2))))`)
	main := write(t, dir, "main.caps", `(module main (capsule "1") (import shared.units)
  (function f (input (g units.Grams)) (output I64) (body (units.double 4))))`)
	var l Loader
	p, err := l.Load(main)
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(p); len(got) != 0 {
		t.Fatalf("diagnostics: %v", got)
	}
	if len(p.Result.Imports) != 1 || !strings.HasPrefix(p.Result.Imports[0].Hash, "sha256:") {
		t.Fatalf("imports: %+v", p.Result.Imports)
	}
}

func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	bad := write(t, dir, "bad.caps", `(module bad (capsule "1") (import ../../etc/passwd) (import nowhere.mod))`)
	outside := t.TempDir()
	write(t, outside, "secret.caps", `(module secret (capsule "1"))`)
	if err := os.Symlink(filepath.Join(outside, "secret.caps"), filepath.Join(dir, "secret.caps")); err != nil {
		t.Fatal(err)
	}
	sym := write(t, dir, "sym.caps", `(module sym (capsule "1") (import secret))`)
	var l Loader
	pbad, _ := l.Load(bad)
	want := []string{"E_IMPORT_NOT_FOUND ../../etc/passwd", "E_IMPORT_NOT_FOUND nowhere.mod"}
	if got := codes(pbad); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("bad: %v", got)
	}
	psym, _ := l.Load(sym)
	if got := codes(psym); len(got) != 1 || !strings.Contains(psym.Result.Diagnostics[0].Message, "outside the import root") {
		t.Errorf("symlink: %v %+v", got, psym.Result.Diagnostics)
	}
}

func TestReadSourceErrors(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"bin.caps": "(a\x00)", "latin.caps": "(a \xe9)"} {
		write(t, dir, name, content)
	}
	tests := map[string]string{
		filepath.Join(dir, "missing.caps"): "no such file",
		dir:                                "is a directory",
		filepath.Join(dir, "bin.caps"):     "binary content (NUL byte at line 1, column 3)",
		filepath.Join(dir, "latin.caps"):   "not UTF-8 text (invalid byte 0xe9 at line 1, column 4)",
	}
	for path, want := range tests {
		_, err := ReadSource(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
		}
	}
}

// Inside is the imports' rule for other files: a path inside its root,
// after symbolic links, and nothing that a link leads out of.
func TestInside(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	in := write(t, root, "sub/s.json", "{}")
	secret := write(t, outside, "secret.json", "{}")
	link := filepath.Join(root, "link.json")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	realIn, _ := filepath.EvalSymlinks(in)
	realSecret, _ := filepath.EvalSymlinks(secret)
	for _, tc := range []struct {
		path   string
		want   string
		inside bool
	}{
		{in, realIn, true},
		{link, realSecret, false},
		{filepath.Join(root, "sub", "..", "..", filepath.Base(outside), "secret.json"), realSecret, false},
	} {
		got, inside, err := Inside(root, tc.path)
		if err != nil || got != tc.want || inside != tc.inside {
			t.Errorf("Inside(root, %s) = %s, %v, %v; want %s, %v", tc.path, got, inside, err, tc.want, tc.inside)
		}
	}
	if _, _, err := Inside(root, filepath.Join(root, "missing.json")); err == nil {
		t.Errorf("a missing file: no error")
	}
}

// cycleOf returns the E_IMPORT_CYCLE diagnostics of p as "TEXT: MESSAGE",
// each followed by its related location as "FILE TEXT: MESSAGE".
func cycleOf(t *testing.T, p *Package) []string {
	t.Helper()
	return cycleLines(t, p, func(r syntax.Related, src []byte) string {
		return filepath.Base(r.File) + " " + string(src[r.Span.Start:r.Span.End]) + ": " + r.Message
	})
}

// cycleLines returns the E_IMPORT_CYCLE diagnostics of p as "TEXT:
// MESSAGE", each followed by its related locations as related writes
// them, given the bytes of the location's file as it is on disk.
func cycleLines(t *testing.T, p *Package, related func(r syntax.Related, src []byte) string) []string {
	t.Helper()
	var out []string
	for _, d := range p.Result.Diagnostics {
		if d.Code != check.ImportCycle {
			continue
		}
		out = append(out, string(p.Src[d.Span.Start:d.Span.End])+": "+d.Message)
		for _, r := range d.Related {
			src, err := os.ReadFile(r.File)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, related(r, src))
		}
	}
	return out
}

// TestImportCycleFromEitherFile (issue 19, item 4): every file of a cycle
// reports E_IMPORT_CYCLE on its import, with the import that closes the
// cycle as a related location, whichever file is loaded first, alone or
// with the others, and again when a file is checked a second time from
// the cache (as the language server does).
func TestImportCycleFromEitherFile(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.caps", "(module a (capsule \"1\")\n  (import b)\n  (function fa (input (x I64)) (output I64) (body (+ x 1))))\n")
	b := write(t, dir, "b.caps", "(module b (capsule \"1\") (import a))\n")
	c := write(t, dir, "c.caps", "(module c (capsule \"1\") (import d))\n")
	write(t, dir, "d.caps", "(module d (capsule \"1\") (import e))\n")
	write(t, dir, "e.caps", "(module e (capsule \"1\") (import c))\n")
	self := write(t, dir, "self.caps", "(module self (capsule \"1\") (import self))\n")
	user := write(t, dir, "user.caps", "(module user (capsule \"1\") (import a))\n")
	want := map[string][]string{
		a:    {"b: import cycle: a.caps -> b.caps -> a.caps", "b.caps a: b.caps imports a.caps here, closing the cycle"},
		b:    {"a: import cycle: b.caps -> a.caps -> b.caps", "a.caps b: a.caps imports b.caps here, closing the cycle"},
		c:    {"d: import cycle: c.caps -> d.caps -> e.caps -> c.caps", "e.caps c: e.caps imports c.caps here, closing the cycle"},
		self: {"self: import cycle: self.caps -> self.caps"},
		user: nil, // imports a module of a cycle without being part of it
	}
	for _, order := range [][]string{{a, b}, {b, a}, {a}, {b}, {user, b, a}, {c}, {self}} {
		var l Loader
		for _, path := range order {
			p, err := l.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := cycleOf(t, p); strings.Join(got, "\n") != strings.Join(want[path], "\n") {
				t.Errorf("order %v: %s:\n got %q\nwant %q", names(order), filepath.Base(path), got, want[path])
			}
		}
		// Checked again with the others cached (an editor's next keystroke).
		for _, path := range order {
			src, _ := os.ReadFile(path)
			p := l.LoadSource(path, src)
			if got := cycleOf(t, p); strings.Join(got, "\n") != strings.Join(want[path], "\n") {
				t.Errorf("order %v, checked again: %s:\n got %q\nwant %q", names(order), filepath.Base(path), got, want[path])
			}
		}
	}
}

// TestForgetBreaksCycle: once one file of a cycle stops importing the
// other and is forgotten, both check clean.
func TestForgetBreaksCycle(t *testing.T) {
	dir := t.TempDir()
	a := write(t, dir, "a.caps", `(module a (capsule "1") (import b))`)
	b := write(t, dir, "b.caps", `(module b (capsule "1") (import a))`)
	var l Loader
	if p, _ := l.Load(a); len(cycleOf(t, p)) == 0 {
		t.Fatal("no cycle")
	}
	write(t, dir, "b.caps", `(module b (capsule "1"))`)
	l.Forget(b)
	for _, path := range []string{a, b} {
		if p, _ := l.Load(path); len(p.Result.Diagnostics) != 0 {
			t.Errorf("%s after the fix: %v", filepath.Base(path), codes(p))
		}
	}
}

// TestHashFollowsImports (issue 19, item 4): a package's semantic hash is
// its IR with its imports' hashes (IROptions), so it changes when an
// imported module changes, even two imports away.
func TestHashFollowsImports(t *testing.T) {
	dir := t.TempDir()
	top := write(t, dir, "top.caps", `(module top (capsule "1") (import mid))`)
	write(t, dir, "mid.caps", `(module mid (capsule "1") (import leaf))`)
	write(t, dir, "leaf.caps", `(module leaf (capsule "1") (type T U32))`)
	hash := func() string {
		var l Loader
		p, err := l.Load(top)
		if err != nil || len(p.Result.Diagnostics) != 0 {
			t.Fatalf("%v %v", err, codes(p))
		}
		want, err := IROptions(p.Result).Hash(p.File.Module)
		if err != nil || p.Hash != want {
			t.Fatalf("Package.Hash %s, IROptions hash %s %v", p.Hash, want, err)
		}
		return p.Hash
	}
	before := hash()
	write(t, dir, "leaf.caps", `(module leaf (capsule "1") (type T U64))`)
	if after := hash(); after == before {
		t.Errorf("the hash of top did not change when leaf, two imports away, changed")
	}
}

func names(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return out
}
