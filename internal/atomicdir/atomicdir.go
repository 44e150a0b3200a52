// Package atomicdir writes a folder whole or not at all: the files go into
// a temporary folder beside the target, which then takes the target's
// place by a rename. A process killed midway leaves either the old folder
// or the new one (and at most a hidden temporary folder beside it), never
// a mix. Every command that writes an output folder (caps compile --out,
// emit-noir, emit-lean-obligations, capsule-compile) goes through it.
package atomicdir

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Write makes dir hold exactly files, keyed by slash-separated paths
// relative to dir, and returns the bytes written. An existing dir is
// replaced; deciding whether it may be (that it holds what an earlier
// run wrote) is the caller's job. Paths that are absolute or climb out
// of dir are refused before anything is written.
func Write(dir string, files map[string][]byte) (int, error) {
	dir = filepath.Clean(dir)
	names := make([]string, 0, len(files))
	for n := range files {
		rel := filepath.FromSlash(n)
		if n == "" || filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(filepath.Clean(rel), ".."+string(filepath.Separator)) {
			return 0, fmt.Errorf("atomicdir: file path %q is not inside the folder", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	n := 0
	for _, name := range names {
		path := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return 0, err
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			return 0, err
		}
		n += len(files[name])
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return 0, err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return 0, err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return n, nil
}
