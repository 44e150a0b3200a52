package durable

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomicReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f.json")
	if err := WriteFileAtomic(path, []byte("old content")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "new" {
		t.Fatalf("read %q, %v; want \"new\"", got, err)
	}
	// no temporary file is left beside it
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 || ents[0].Name() != "f.json" {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("folder holds %v, want only f.json", names)
	}
}

func TestWriteFileTruncates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b.txt")
	if err := WriteFile(path, []byte("longer text")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("short")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "short" {
		t.Errorf("read %q, want \"short\"", got)
	}
}

func TestWriteFileAtomicFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	// a folder where the file should go: the rename fails, and the
	// temporary file is removed
	if err := os.MkdirAll(filepath.Join(path, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(path, []byte("x")); err == nil {
		t.Fatal("a folder was replaced by a file")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "taken" {
		t.Errorf("folder holds %d entries, want only taken", len(ents))
	}
}
