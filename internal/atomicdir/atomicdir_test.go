package atomicdir

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree lists the files under dir with their contents, and any other entry
// of dir's parent (a temporary folder left behind).
func tree(t *testing.T, dir string) (map[string]string, []string) {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	ents, _ := os.ReadDir(filepath.Dir(dir))
	var others []string
	for _, e := range ents {
		if e.Name() != filepath.Base(dir) {
			others = append(others, e.Name())
		}
	}
	sort.Strings(others)
	return files, others
}

func TestWriteReplacesWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	n, err := Write(dir, map[string][]byte{"a.txt": []byte("one"), "sub/b.txt": []byte("two!")})
	if err != nil || n != 7 {
		t.Fatalf("first write: %d, %v", n, err)
	}
	// a second write replaces the folder: the old file that is not in it
	// is gone, nothing is left beside it
	if _, err := Write(dir, map[string][]byte{"c.txt": []byte("three")}); err != nil {
		t.Fatal(err)
	}
	files, others := tree(t, dir)
	if diff := cmp.Diff(map[string]string{"c.txt": "three"}, files); diff != "" || len(others) != 0 {
		t.Errorf("files (-want +got):\n%s\nleft beside: %v", diff, others)
	}
}

func TestWriteRefusesEscapingPaths(t *testing.T) {
	for _, name := range []string{"", "../x", "/etc/x", "a/../../x"} {
		dir := filepath.Join(t.TempDir(), "out")
		if _, err := Write(dir, map[string][]byte{"ok.txt": nil, name: []byte("x")}); err == nil {
			t.Errorf("%q: written", name)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%q: the folder was created: %v", name, err)
		}
	}
}

func TestWriteKeepsOldOnFailure(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "out")
	if _, err := Write(dir, map[string][]byte{"a.txt": []byte("old")}); err != nil {
		t.Fatal(err)
	}
	// a file and a folder of the same name cannot both be written: the
	// write fails after it started, and the old folder stays as it was
	if _, err := Write(dir, map[string][]byte{"x": []byte("file"), "x/y": []byte("in a folder")}); err == nil {
		t.Fatal("conflicting paths were written")
	}
	files, others := tree(t, dir)
	if diff := cmp.Diff(map[string]string{"a.txt": "old"}, files); diff != "" || len(others) != 0 {
		t.Errorf("files (-want +got):\n%s\nleft beside: %v", diff, others)
	}
}
