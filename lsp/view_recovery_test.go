package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/capsulang/caps/bench/gen"
)

// TestRecoveryReadAtBase checks that the base's recovery read
// (recoversAlike) is made in the background when a full check becomes the
// document's base, before any request, and that a completion right after
// the first edit that leaves a syntax error reads the text from the edit
// without reading the whole base again.
func TestRecoveryReadAtBase(t *testing.T) {
	// (a pause before each version's check, so that the completion below
	// comes before the edited version's own check is done)
	s, c := startServer(t, Options{Debounce: time.Second}, "")
	src, err := gen.SpecShapedFrom("../examples", 300)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	const u = "file:///tmp/recovery/spec.caps"
	reads0, pre0 := recoveryReads.Load(), recoveryPrefetches.Load()
	c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text}})
	if _, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd struct {
			URI     string `json:"uri"`
			Version int    `json:"version"`
		}
		json.Unmarshal(p, &pd)
		return pd.URI == u && pd.Version == 1
	}); err != nil {
		t.Fatal(err)
	}
	// the base is installed before its diagnostics are published; its
	// recovery read runs in the background, no request asked for it
	ready := func() bool {
		s.mu.Lock()
		d := s.docs[u]
		base := d.base
		s.mu.Unlock()
		d.cache.mu.Lock()
		bi := d.cache.base
		d.cache.mu.Unlock()
		return base != nil && bi != nil && bi.res == base && bi.recReady.Load()
	}
	for deadline := time.Now().Add(10 * time.Second); !ready(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the base's recovery read was not made in the background")
		}
	}
	if r, p := recoveryReads.Load()-reads0, recoveryPrefetches.Load()-pre0; r != 1 || p != 1 {
		t.Fatalf("after the full check: %d recovery reads, %d in the background; want 1 and 1", r, p)
	}
	// a ")" deleted in a declaration in the middle of the module: a syntax
	// error the view reads from the edited declaration
	at := strings.Index(text[len(text)/2:], "(target awaiting_human_decision)") + len(text)/2 + len("(target ")
	open := strings.Index(text[at:], ")") + at
	c.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": u, "version": 2},
		"contentChanges": []any{map[string]any{"range": map[string]any{"start": utf16Pos(text, open), "end": utf16Pos(text, open+1)}, "text": ""}},
	})
	var res json.RawMessage
	if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": utf16Pos(text, at+3)}, &res); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	snap := s.docs[u].snap
	s.mu.Unlock()
	if snap.version != 2 || !snap.cst.HasError(0) {
		t.Fatalf("snapshot version %d (error %v), want version 2 with a syntax error", snap.version, snap.cst.HasError(0))
	}
	v := snap.qv.Load()
	if v == nil || !v.errPartial {
		t.Fatalf("the completion was not answered from a view reading the text from the edit (view %v)", v != nil)
	}
	if r := recoveryReads.Load() - reads0; r != 1 {
		t.Fatalf("%d recovery reads after the request, want 1 (the background one)", r)
	}
}

// TestRecoveryReadFallback checks the lazy path: without a background
// read (a cache never prepared) the first version with a syntax error
// reads the base's recovery once, and a later base prepared meanwhile
// makes an older base's pending background read do nothing.
func TestRecoveryReadFallback(t *testing.T) {
	src, err := gen.SpecShapedFrom("../examples", 300)
	if err != nil {
		t.Fatal(err)
	}
	text := string(src)
	base := testSnapshot(t, "/tmp/spec.caps", text, nil).Package().Result
	at := strings.Index(text[len(text)/2:], "(target awaiting_human_decision)") + len(text)/2 + len("(target ")
	open := strings.Index(text[at:], ")") + at
	broken := text[:open] + text[open+1:]
	reads0 := recoveryReads.Load()
	cache := &docCache{}
	for i := 0; i < 2; i++ {
		sn := testSnapshot(t, "/tmp/spec.caps", broken, base)
		sn.cache = cache
		if v, why := sn.quickViewWhy(); v == nil || !v.errPartial {
			t.Fatalf("version %d: the view declined (%s) or read the whole text", i, why)
		}
	}
	if r := recoveryReads.Load() - reads0; r != 1 {
		t.Fatalf("%d recovery reads for two versions on one base, want 1", r)
	}
	// two bases prepared in a row: the older one's work, if it has not
	// started, does nothing; the newer one's is made once
	other := testSnapshot(t, "/tmp/spec.caps", text, nil).Package().Result
	c := &docCache{}
	reads0 = recoveryReads.Load()
	if !c.prepareBase(base) || !c.prepareBase(other) {
		t.Fatal("prepareBase declined a base without a syntax error")
	}
	sn := testSnapshot(t, "/tmp/spec.caps", broken, other)
	sn.cache = c
	sn.baseInfoOf(other).recoversAlike() // (waits for a background read under way)
	time.Sleep(50 * time.Millisecond)    // (let a late older read show up)
	if r := recoveryReads.Load() - reads0; r < 1 || r > 2 {
		t.Fatalf("%d recovery reads for two prepared bases, want 1 or 2", r)
	}
	c.mu.Lock()
	got := c.base.res
	c.mu.Unlock()
	if got != other {
		t.Fatal("an older base's background work replaced the newer base's information")
	}
	if broken := testSnapshot(t, "/tmp/spec.caps", broken, nil).Package().Result; c.prepareBase(broken) {
		t.Fatal("prepareBase started a read of a base with a syntax error")
	}
}
