// Package durable writes files that survive a crash: each is synced to
// disk before it counts as written, a replacement goes through a synced
// temporary file renamed into place, and the folder that holds a new
// name is synced too. The evolution workspace (proposals, transactions,
// the content store) and authoring sessions write through it.
package durable

import (
	"errors"
	"os"
	"path/filepath"
)

// WriteFile creates path (and its folders), or truncates it, writes b
// and syncs the file. A crash may leave it partly written: use it for a
// file inside a folder that is renamed into place afterwards, or
// WriteFileAtomic.
func WriteFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteFileAtomic replaces path with b through a synced temporary file in
// the same folder and a rename, then syncs the folder: a reader, or a
// crash, sees the old content or the new, never a mix.
func WriteFileAtomic(path string, b []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	f.Close()
	if err := WriteFile(tmp, b); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return SyncDir(dir)
}

// SyncDir syncs a folder, so that the names created or renamed in it are
// on disk. File systems that cannot sync a folder are not an error.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
