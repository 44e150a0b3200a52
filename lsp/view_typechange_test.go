package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// typeChainModule is a module whose declarations reach its types through
// chains of other declarations: aliases of aliases, a record whose field
// has an alias of a record, a list and an option of records, a variant
// with a record payload, and functions whose signatures name them.
const typeChainModule = `(module chain
  (capsule "1.0")
  ;; Parcel weight in grams.
  (type Grams U32)
  (type Weight Grams)
  (type Mass Weight)
  (type Level (enum low high))
  (type Parcel (record (mass Mass) (level Level) (fragile Bool)))
  (type Tag Parcel)
  (type Box (record (parcel Tag) (count U32)))
  (type Crate (record (boxes (List Box)) (best (Option Parcel))))
  (type Scan (variant (found (p Parcel)) (missing (days U32)) lost))
  (function heavy
    (input (p Parcel))
    (output Bool)
    (body (> p.mass 100)))
  (function mass_of
    (input (b Box))
    (output Mass)
    (body b.parcel.mass))
  (function best_of
    (input (c Crate))
    (output (Option Parcel))
    (body c.best))
  (function open_box
    (input (b Box))
    (output Tag)
    (body b.parcel))
  (function heavy_box
    (input (b Box))
    (output Bool)
    (body (heavy (open_box b))))
  (function scanned
    (input (s Scan))
    (output U32)
    (body (match s ((found p) 1) ((missing d) 2) (lost 3))))
  (function level_of
    (input (b Box))
    (output Level)
    (body (let ((p (open_box b))) p.level))))
`

// TestViewTypeChangedTransitively changes a type declaration's definition
// (not its name) in a module whose other declarations reach it through
// chains of aliases, records, lists, options, variants and signatures.
// Every offset's completion, hover, definition and signature help must
// answer what a fresh full check answers, and every version must be
// answered from the base: users counts the unchanged declarations read
// again.
func TestViewTypeChangedTransitively(t *testing.T) {
	const path = "/tmp/chain.caps"
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	base := testSnapshot(t, path, typeChainModule, nil).Package().Result
	quick := 0
	defer func() {
		if quick != 14 {
			t.Errorf("%d versions answered from the base without a full check, want 14", quick)
		}
	}()
	for _, tc := range []struct {
		name, from, to string
		users, deps    int // unchanged declarations read again: users (Users), dependents (direct referrers, at check)
	}{
		{"root alias changed", "(type Grams U32)", "(type Grams U64)", 14, 0},
		{"alias re-pointed", "(type Weight Grams)", "(type Weight U8)", 13, 0},
		{"field type changed", "(mass Mass)", "(mass U64)", 11, 0},
		{"field added", "(fragile Bool)))", "(fragile Bool) (note Text)))", 11, 0},
		{"field removed", " (fragile Bool)))", "))", 11, 0},
		{"field renamed", "(fragile Bool)", "(breakable Bool)", 11, 0},
		{"enum case added", "(enum low high)", "(enum low high urgent)", 12, 0},
		{"enum case renamed", "(enum low high)", "(enum low top)", 12, 0},
		{"record alias re-pointed", "(type Tag Parcel)", "(type Tag Crate)", 7, 0},
		{"list element changed", "(boxes (List Box))", "(boxes (List Parcel))", 1, 0},
		{"variant payload changed", "(found (p Parcel))", "(found (p Box))", 1, 0},
		{"variant case added", "lost))", "lost stolen))", 1, 0},
		{"doc changed", ";; Parcel weight in grams.", ";; Weight in grams.", 0, 1},
		{"layout changed", "(type Parcel (record (mass Mass)", "(type Parcel\n    (record (mass Mass)", 0, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(typeChainModule, tc.from) {
				t.Fatalf("no %q in the module", tc.from)
			}
			text := strings.Replace(typeChainModule, tc.from, tc.to, 1)
			sn := testSnapshot(t, path, text, base)
			v, why := sn.quickViewWhy()
			if v == nil {
				t.Fatalf("declined: %s", why)
			}
			sn.qv.Store(v)
			sn.viewOnce.Do(func() {})
			fresh := testSnapshot(t, path, text, nil)
			diffs := 0
			for off := 0; off <= len(text); off++ {
				for _, q := range requests {
					want, werr := q.f(ctx, fresh, off)
					got, gerr := q.f(ctx, sn, off)
					wj, _ := json.Marshal(want)
					gj, _ := json.Marshal(got)
					if d := cmp.Diff(fmt.Sprint(string(wj), werr != nil), fmt.Sprint(string(gj), gerr != nil)); d != "" {
						diffs++
						if diffs <= 5 {
							t.Errorf("%s at %d (%q): differs from a full check (-full +view):\n%s", q.name, off, text[max(0, off-20):off], d)
						}
					}
				}
			}
			if diffs > 5 {
				t.Errorf("%d answers differ", diffs)
			}
			if sn.done.Load() {
				t.Error("the view checked the version in full")
			}
			if v.usersRead != tc.users || v.depsRead != tc.deps {
				t.Errorf("read again %d users and %d dependents, want %d and %d", v.usersRead, v.depsRead, tc.users, tc.deps)
			}
			quick++
		})
	}
}
