// Package testutil holds helpers shared by the tests of several packages
// (codegen's own helpers, codegen/internal/testutil, build on it).
package testutil

import (
	"testing"

	"github.com/capsulang/caps/analysis/load"
)

// Load loads and checks a file; it fails the test on errors.
func Load(t testing.TB, path string) *load.Package {
	t.Helper()
	pkg, err := (&load.Loader{}).Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if pkg.Result.HasErrors() {
		t.Fatalf("%s has errors: %v", path, pkg.Result.Diagnostics)
	}
	return pkg
}
