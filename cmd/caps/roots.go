package main

import (
	"os"
	"path/filepath"
)

// importRoots returns the import roots from CAPS_PATH (a list of folders
// separated like PATH).
func importRoots() []string {
	var out []string
	for _, r := range filepath.SplitList(os.Getenv("CAPS_PATH")) {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}
