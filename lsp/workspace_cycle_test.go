package lsp

import "testing"

// TestWorkspaceImportCycleEdit (issue 17): base.caps, open with left,
// right, top and the others of the cross-file differential test, is
// edited to import top.caps (which imports base through left and right:
// a cycle), then back, three times; after each edit every open module's
// final diagnostics must be a fresh full check's and a fresh server's.
// An importer job published right.caps or left.caps without its
// E_IMPORT_CYCLE about one run in three under 4 parallel -race runs: the
// import graph dropped base's imports while base was checked again, and
// recorded none for base's answer given to the job's engine checks
// (analysis/load/cycle.go).
func TestWorkspaceImportCycleEdit(t *testing.T) {
	var steps [][3]string
	for i := 0; i < 6; i++ {
		steps = append(steps, [3]string{"mutate", "base.caps", "base imports top (a cycle)"})
	}
	if msg := xfSequence(t, steps...); msg != "" {
		t.Fatal(msg)
	}
}
