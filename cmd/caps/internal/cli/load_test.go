package cli

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, "ok.caps", "(a \"é\")\n", 0o640)
	write(t, "bom.caps", "\xEF\xBB\xBF(a)", 0o644)
	write(t, "nul.caps", "(a)\x00", 0o644)
	write(t, "bad.caps", "(a)\n  é\x80", 0o644)
	write(t, "trunc.caps", "(a \xe2\x82)", 0o644)
	write(t, "be16.caps", "\xFE\xFF\x00(", 0o644)
	write(t, "d/x.caps", "", 0o644)
	write(t, "limit.caps", strings.Repeat("a", MaxSourceSize), 0o644)
	write(t, "over.caps", strings.Repeat("a", MaxSourceSize+1), 0o644)

	f, err := Load("ok.caps")
	if err != nil || string(f.Text) != "(a \"é\")\n" || f.BOM || f.Mode.Perm() != 0o640 {
		t.Errorf("ok.caps: %+v %v", f, err)
	}
	f, err = Load("bom.caps")
	if err != nil || string(f.Text) != "(a)" || !f.BOM {
		t.Errorf("bom.caps: %+v %v", f, err)
	}
	if f, err := Load("limit.caps"); err != nil || len(f.Text) != MaxSourceSize {
		t.Errorf("limit.caps: %v", err)
	}
	if text, err := LoadSource("ok.caps"); err != nil || string(text) != "(a \"é\")\n" {
		t.Errorf("LoadSource: %q %v", text, err)
	}

	for path, want := range map[string]string{
		"missing.caps": "missing.caps: no such file",
		"d":            "d: is a directory, not a .caps file",
		"nul.caps":     "nul.caps: binary file, not Capsulang source (NUL byte at line 1, column 4)",
		"bad.caps":     "bad.caps: not UTF-8 text (invalid byte at line 2, column 4)",
		"trunc.caps":   "trunc.caps: not UTF-8 text (invalid byte at line 1, column 4)",
		"be16.caps":    "be16.caps: is UTF-16 text; Capsulang source files must be UTF-8",
		"over.caps":    "over.caps: file is larger than 16 MB; Capsulang source files are limited to 16 MB",
		"d/x.caps/y":   "d/x.caps/y: not a directory",
	} {
		_, err := Load(path)
		var le *LoadError
		if !errors.As(err, &le) || err.Error() != want {
			t.Errorf("Load(%q) = %v, want %q", path, err, want)
		}
	}
	if _, err := Load("missing.caps"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file error does not unwrap to ErrNotExist: %v", err)
	}
}

func TestLoadPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		// Root reads every file: run this test again as an unprivileged
		// user, in a child process.
		rerunAsNobody(t, "^TestLoadPermissionDenied$")
		return
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "secret.caps")
	write(t, p, "(a)", 0o000)
	if _, err := Load(p); err == nil || err.Error() != p+": permission denied" {
		t.Errorf("got %v", err)
	}
}

func TestReadStdin(t *testing.T) {
	if f, err := Read(StdinPath, strings.NewReader("(a)")); err != nil || string(f.Text) != "(a)" || f.Path != "-" {
		t.Errorf("%+v %v", f, err)
	}
	_, err := Read(StdinPath, bytes.NewReader(make([]byte, MaxSourceSize+10)))
	if err == nil || err.Error() != "<stdin>: input is larger than 16 MB; Capsulang source files are limited to 16 MB" {
		t.Errorf("got %v", err)
	}
}

func TestLineCol(t *testing.T) {
	text := []byte("ab\r\nñ😀x\ry")
	for off, want := range map[int][2]int{0: {1, 1}, 2: {1, 3}, 4: {2, 1}, 6: {2, 2}, 10: {2, 3}, 11: {2, 4}, 12: {3, 1}} {
		if l, c := LineCol(text, off); l != want[0] || c != want[1] {
			t.Errorf("LineCol(%d) = %d:%d, want %d:%d", off, l, c, want[0], want[1])
		}
	}
}

func TestExpandPaths(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	for _, p := range []string{"src/b.caps", "src/a.caps", "src/sub/c.caps", "src/.hidden/h.caps", "src/node_modules/n.caps", "src/.x.caps", "src/notes.txt", "empty/readme.md"} {
		write(t, p, "", 0o644)
	}
	paths, errs := ExpandPaths([]string{"src", "single.caps", "-", "empty"})
	want := []string{"src/a.caps", "src/b.caps", "src/sub/c.caps", "single.caps", "-"}
	if !cmp.Equal(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
	if len(errs) != 1 || errs[0].Error() != "empty: directory holds no .caps files" {
		t.Errorf("errs %v", errs)
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.caps")
	write(t, p, "old", 0o600)
	if err := os.Chmod(p, 0o751); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, []byte("new"), 0o751); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	info, _ := os.Stat(p)
	if string(b) != "new" || info.Mode().Perm() != 0o751 {
		t.Errorf("content %q mode %v", b, info.Mode())
	}

	// A symlink stays a symlink; its target gets the new content.
	link := filepath.Join(dir, "link.caps")
	if err := os.Symlink("a.caps", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link, []byte("via link"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced: %v %v", fi.Mode(), err)
	}
	if b, _ := os.ReadFile(p); string(b) != "via link" {
		t.Errorf("target %q", b)
	}

	// No temporary files are left behind, also after a failure.
	if err := WriteFileAtomic(filepath.Join(dir, "nodir", "x.caps"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !cmp.Equal(names, []string{"a.caps", "link.caps"}) {
		t.Errorf("directory holds %q", names)
	}
}
