package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
)

func write(t *testing.T, dir, name, src string) string {
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
	write(t, dir, "a.caps", `(module a (capsule "1") (import b))`)
	write(t, dir, "b.caps", `(module b (capsule "1") (import a))`)
	bad := write(t, dir, "bad.caps", `(module bad (capsule "1") (import ../../etc/passwd) (import nowhere.mod))`)
	outside := t.TempDir()
	write(t, outside, "secret.caps", `(module secret (capsule "1"))`)
	if err := os.Symlink(filepath.Join(outside, "secret.caps"), filepath.Join(dir, "secret.caps")); err != nil {
		t.Fatal(err)
	}
	sym := write(t, dir, "sym.caps", `(module sym (capsule "1") (import secret))`)
	var l Loader
	pa, err := l.Load(filepath.Join(dir, "a.caps"))
	if err != nil {
		t.Fatal(err)
	}
	// a imports b, which imports a: the cycle is reported inside b, and a
	// sees b's failure through its own import of b? b is cached with the
	// error; a itself imports b fine.
	pb, _ := l.Load(filepath.Join(dir, "b.caps"))
	var found bool
	for _, d := range pb.Result.Diagnostics {
		if d.Code == check.ImportCycle && strings.Contains(d.Message, "a.caps -> b.caps -> a.caps") {
			found = true
		}
	}
	if !found {
		t.Errorf("no cycle in b: %v / a: %v", codes(pb), codes(pa))
	}
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
