package load

import (
	"os"
	"path/filepath"
)

// RootsEnv is the environment variable that lists extra import roots,
// separated like PATH: (import a.b) also looks for a/b.caps under each.
const RootsEnv = "CAPS_PATH"

// EnvRoots returns the import roots that CAPS_PATH names, in order,
// without empty entries. It is the one place that reads the variable: the
// CLI, the language server and caps doctor all call it.
func EnvRoots() []string {
	var out []string
	for _, r := range filepath.SplitList(os.Getenv(RootsEnv)) {
		if r != "" {
			out = append(out, r)
		}
	}
	return out
}
