// Package toolpath finds the external programs the toolchain drives (z3,
// node, wabt, qemu, ...) the one way caps doctor documents: the program an
// environment variable names, else the first of the usual names on PATH.
package toolpath

import (
	"os"
	"os/exec"
)

// Look returns the path of the program the environment variable env names
// when it is set ("" when that program is not found: a variable that is
// set is not second-guessed), else the path of the first of names on
// PATH, else "".
func Look(env string, names ...string) string {
	if v := os.Getenv(env); v != "" {
		if p, err := exec.LookPath(v); err == nil {
			return p
		}
		return ""
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}
