package lsp_test

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/lsp/lsptest"
)

// A document one byte over the CLI's source size limit is kept but not
// analysed: one warning, one diagnostic that says why, requests refused,
// memory bounded; an edit that brings it under the limit has it analysed
// again (issue 19, item 2).
func TestDocumentOverTheSizeLimit(t *testing.T) {
	c := start(t, nil)
	padding := load.MaxFileSize + 1 - len(claimSrc) - 1
	text := claimSrc + ";" + strings.Repeat("x", padding)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": text}})
	why := "this document is 16.1 MiB, over the 16 MiB limit for Capsulang source files, so it is not analysed; make it smaller to have diagnostics and the other features again"
	m, err := c.Wait("window/showMessage", nil)
	if err != nil {
		t.Fatal(err)
	}
	var shown struct {
		Type    int
		Message string
	}
	json.Unmarshal(m.Params, &shown)
	if want := "Capsulang: " + uri + ": " + why; shown.Type != 2 || shown.Message != want {
		t.Errorf("message %d %q\nwant 2 %q", shown.Type, shown.Message, want)
	}
	pd := waitDiags(t, c, 1)
	if len(pd.Diagnostics) != 1 || pd.Diagnostics[0] != (diag{Severity: 1, Message: why}) {
		t.Errorf("diagnostics %+v, want one at 0:0 saying %q", pd.Diagnostics, why)
	}
	hover := map[string]any{"textDocument": map[string]any{"uri": uri}, "position": pos{9, 13}}
	err = c.Call("textDocument/hover", hover, nil)
	if e, ok := err.(*lsptest.RPCError); !ok || e.Code != -32803 || e.Message != uri+": "+why {
		t.Errorf("hover: %v", err)
	}
	if kb := peakRSS(t, c.Pid()); kb > 1<<20 {
		t.Errorf("peak RSS %d kB after a 16 MiB document, want under 1 GiB", kb)
	}
	// Back under the limit: analysed again.
	last := strings.Count(claimSrc, "\n")
	change(c, 2, rng{pos{last, padding - 1}, pos{last, padding + 1}}, "")
	if pd := waitDiags(t, c, 2); len(pd.Diagnostics) != 0 {
		t.Errorf("under the limit: %+v", pd.Diagnostics)
	}
	var h struct{ Contents struct{ Value string } }
	if err := c.Call("textDocument/hover", hover, &h); err != nil || h.Contents.Value == "" {
		t.Errorf("hover under the limit: %v %+v", err, h)
	}
}

// peakRSS returns the peak resident memory of a process in kB, from
// /proc (the test is skipped where there is none).
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	t.Skip("no VmHWM in /proc/PID/status")
	return 0
}

// caps lsp sets a soft memory limit of 64 MiB, or twice the live heap
// when that is more, unless GOMEMLIMIT is set.
func TestMemoryLimit(t *testing.T) {
	limit := func() int64 {
		t.Helper()
		var m struct {
			MemoryLimit int64 `json:"memoryLimit"`
		}
		if err := start(t, nil).Call("capsulang/debug.memory", nil, &m); err != nil {
			t.Fatal(err)
		}
		return m.MemoryLimit
	}
	if got := limit(); got != 64<<20 {
		t.Errorf("memory limit %d, want 64 MiB", got)
	}
	t.Setenv("GOMEMLIMIT", "200MiB")
	if got := limit(); got != 200<<20 {
		t.Errorf("with GOMEMLIMIT=200MiB: memory limit %d", got)
	}
}

// The soft memory limit follows the live heap up: with a 100,000-line
// document open (about 60 MB live) it is over 64 MiB, so the collector
// does not run without pause; it stays near twice the heap in use.
func TestMemoryLimitFollowsLiveHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a 100,000-line document")
	}
	src, err := gen.SpecShapedFrom("../examples", 100000)
	if err != nil {
		t.Fatal(err)
	}
	c := start(t, nil)
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "capsulang", "version": 1, "text": string(src)}})
	waitDiags(t, c, 1)
	var m struct {
		MemoryLimit int64 `json:"memoryLimit"`
		HeapInUse   int64 `json:"heapInUse"`
	}
	if err := c.Call("capsulang/debug.memory", nil, &m); err != nil {
		t.Fatal(err)
	}
	if m.MemoryLimit <= 64<<20 || m.MemoryLimit > 5*m.HeapInUse/2 {
		t.Errorf("memory limit %d MiB with %d MiB of heap in use; want over 64 MiB and under 2.5 times the heap", m.MemoryLimit>>20, m.HeapInUse>>20)
	}
}
