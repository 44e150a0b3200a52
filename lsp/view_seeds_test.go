package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestViewStrayAtomBeforeDecl is the mismatch TestViewMatchesFullCheck
// found with VIEW_SEED=18 VIEW_PROBE_SEED=18: an `x` typed right before a
// function's `(` in examples/11_text_ops.caps. A full check still knows
// the function char_count (its examples complete and show its signature);
// the view answered null there.
func TestViewStrayAtomBeforeDecl(t *testing.T) {
	src, err := os.ReadFile("../examples/11_text_ops.caps")
	if err != nil {
		t.Fatal(err)
	}
	const path = "/tmp/seeds/11_text_ops.caps"
	module := string(src)
	text := strings.Replace(module, "  (function char_count", "  x(function char_count", 1)
	base := testSnapshot(t, path, module, nil).Package().Result
	sn := testSnapshot(t, path, text, base)
	v, why := sn.quickViewWhy()
	if v == nil {
		t.Fatalf("declined: %s", why)
	}
	sn.qv.Store(v)
	sn.viewOnce.Do(func() {})
	fresh := testSnapshot(t, path, text, nil)
	ctx := context.Background()
	// the exact answers at the example's call, as a full check gives them
	at := strings.Index(text, `(char_count "")`) + len("(char_")
	got, err := completion(ctx, sn, at)
	if err != nil {
		t.Fatal(err)
	}
	gj, _ := json.Marshal(got)
	line := strings.Count(text[:at], "\n")
	want := fmt.Sprintf(`{"isIncomplete":false,"items":[{"detail":"function","kind":18,"label":"char_count","textEdit":{"range":{"start":{"line":%d,"character":14},"end":{"line":%d,"character":19}},"newText":"char_count"}}]}`, line, line)
	if d := cmp.Diff(want, string(gj)); d != "" {
		t.Errorf("completion in char_count's example (-want +got):\n%s", d)
	}
	sig, err := signatureHelp(ctx, sn, at+len(`count "`))
	if err != nil {
		t.Fatal(err)
	}
	sj, _ := json.Marshal(sig)
	if d := cmp.Diff(`{"signatures":[{"label":"(char_count t Text) -\u003e Int","documentation":"Characters, not bytes: the accented letter and the emoji count once.","parameters":[{"label":"t Text"}]}]}`, string(sj)); d != "" {
		t.Errorf("signature help in char_count's example (-want +got):\n%s", d)
	}
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	for off := 0; off <= len(text); off++ {
		for _, q := range requests {
			want, werr := q.f(ctx, fresh, off)
			got, gerr := q.f(ctx, sn, off)
			wj, _ := json.Marshal(want)
			gj, _ := json.Marshal(got)
			if d := cmp.Diff(fmt.Sprint(string(wj), werr != nil), fmt.Sprint(string(gj), gerr != nil)); d != "" {
				t.Errorf("%s at %d: differs from a full check (-full +view):\n%s", q.name, off, d)
			}
		}
	}
}
