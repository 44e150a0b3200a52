package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

// structuredEdit is one edit of TestViewAfterStructuredEdit: its kind and
// the edited text; names are the words the probes look for.
type structuredEdit struct {
	kind, text string
	names      []string
}

// structuredEdits makes the structured edits of text whose full check is
// base: each type declaration removed, each renamed (its declaration
// only, as while typing), a declaration renamed to the name of another, a
// word, a list and a string added after the module's end, and a line of
// the file's first comment broken by a newline (its tail a stray form
// before the module). At most max of each kind, chosen by r.
func structuredEdits(r *rand.Rand, text string, base *check.Result, max int) []structuredEdit {
	var out []structuredEdit
	pick := func(n int) []int {
		idx := r.Perm(n)
		if len(idx) > max {
			idx = idx[:max]
		}
		sort.Ints(idx)
		return idx
	}
	decls := base.File.Module.Decls
	var typesAt []ast.Decl
	var named []ast.Decl
	for _, d := range decls {
		if !d.Base().Name.Valid() {
			continue
		}
		named = append(named, d)
		if d.Kind() == ast.KindType {
			typesAt = append(typesAt, d)
		}
	}
	for _, i := range pick(len(typesAt)) {
		d := typesAt[i]
		sp, nm := d.Base().Form.Span(), d.Base().Name
		out = append(out,
			structuredEdit{"type removed", text[:sp.Start] + text[sp.End:], []string{nm.Name}},
			structuredEdit{"type renamed", text[:nm.Span.Start] + nm.Name + "Renamed" + text[nm.Span.End:], []string{nm.Name, nm.Name + "Renamed"}})
	}
	if len(named) > 1 {
		for _, i := range pick(len(named)) {
			j := r.Intn(len(named) - 1)
			if j >= i {
				j++
			}
			nm, other := named[i].Base().Name, named[j].Base().Name.Name
			out = append(out, structuredEdit{"renamed to another's name", text[:nm.Span.Start] + other + text[nm.Span.End:], []string{nm.Name, other}})
		}
	}
	end := strings.TrimRight(text, "\n \t")
	for _, stray := range []string{"x", "(+ 1 2)", `"a note"`}[:min(3, max)] {
		out = append(out, structuredEdit{"stray form after the module", end + "\n" + stray + text[len(end):], nil})
	}
	if strings.HasPrefix(text, ";;") {
		if nl := strings.IndexByte(text, '\n'); nl > 6 {
			at := nl / 2
			for at < nl && text[at] != ' ' {
				at++
			}
			if at < nl {
				out = append(out, structuredEdit{"stray form before the module", text[:at] + "\n" + text[at:], nil})
			}
		}
	}
	return out
}

// TestViewAfterStructuredEdit is the differential test of structured
// edits the view used to decline: a type declaration removed or renamed
// (the declarations that use it are read and checked again with it gone,
// check.Result.Users), a declaration renamed to another's name (both
// declarations and the users of the name are read and checked again), and
// a form added outside the module that declares nothing.
// Over every example and a spec-shaped module, each edit's view is built
// over the full check of the text before it and over the engine's answer
// of that text; completion, hover, definition and signature help at every
// use of the names involved and at random places must answer what a
// fresh full check answers. Each new kind must be answered from the base.
func TestViewAfterStructuredEdit(t *testing.T) {
	files, err := filepath.Glob("../examples/*.caps")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	spec, err := gen.SpecShapedFrom("../examples", 400)
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(t.TempDir(), "spec_shaped.caps")
	if err := os.WriteFile(specPath, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, specPath)
	perKind, probes := 6, 12
	if testing.Short() {
		perKind, probes = 1, 6
	}
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	r := rand.New(rand.NewSource(envSeed(t, "VIEW_SEED", 23)))
	versions, quick, declined := map[string]int{}, map[string]int{}, map[string]int{}
	usersRead, answers := 0, 0
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		path, _ := filepath.Abs(file)
		text := string(src)
		baseSn := testSnapshot(t, path, text, nil)
		full := baseSn.Package().Result
		if full.File.Source.CST.HasError(0) || full.File.Module == nil {
			continue
		}
		eng, ok := baseSn.loader.RecheckImportsAt(path, full, nil, nil)
		if !ok || eng.Result.Partial() || !eng.Result.TreeCurrent() {
			t.Fatalf("%s: the engine gave no view base (ok %v)", filepath.Base(file), ok)
		}
		for _, e := range structuredEdits(r, text, full, perKind) {
			fresh := testSnapshot(t, path, e.text, nil)
			fresh.Package()
			for bi, base := range []*check.Result{full, eng.Result} {
				versions[e.kind]++
				sn := testSnapshot(t, path, e.text, base)
				v, why := sn.quickViewWhy()
				if v == nil {
					declined[e.kind+": "+why]++
					continue
				}
				quick[e.kind]++
				usersRead += v.usersRead
				sn.qv.Store(v)
				sn.viewOnce.Do(func() {})
				var offs []int
				for _, nm := range e.names {
					for k, n := 0, 0; n < 12; n++ {
						i := strings.Index(e.text[k:], nm)
						if i < 0 {
							break
						}
						offs = append(offs, k+i, k+i+1, k+i+len(nm))
						k += i + len(nm)
					}
				}
				for k := 0; k < probes; k++ {
					offs = append(offs, r.Intn(len(e.text)+1))
				}
				for _, off := range offs {
					for _, q := range requests {
						want, werr := q.f(ctx, fresh, off)
						got, gerr := q.f(ctx, sn, off)
						wj, _ := json.Marshal(want)
						gj, _ := json.Marshal(got)
						answers++
						if d := cmp.Diff(fmt.Sprint(string(wj), werr != nil), fmt.Sprint(string(gj), gerr != nil)); d != "" {
							t.Errorf("%s: %s (%v; base %d), %s at %d: differs from a full check (-full +view):\n%s\ntext:\n%s", filepath.Base(file), e.kind, e.names, bi, q.name, off, d, e.text[max(0, off-200):min(len(e.text), off+100)])
						}
					}
				}
				if sn.done.Load() {
					t.Errorf("%s: %s: the view checked the version in full", filepath.Base(file), e.kind)
				}
			}
		}
	}
	t.Logf("versions by kind: %v; answered from the base: %v; %d answers, all compared with a full check's", versions, quick, answers)
	t.Logf("declined: %v", declined)
	t.Logf("unchanged declarations read and checked again because a type they use is gone or a name is declared twice: %d", usersRead)
	for _, k := range []string{"type removed", "type renamed", "renamed to another's name", "stray form after the module", "stray form before the module"} {
		if quick[k] == 0 {
			t.Errorf("no %q edit was answered from the base (of %d)", k, versions[k])
		}
	}
	if usersRead == 0 {
		t.Error("no view read a declaration again because a type it uses is gone or a name is declared twice")
	}
}

// TestViewTypeRemovedTransitively removes or renames the first type of a
// chain of aliases a record and a function use: the hover text of each
// (an alias shows the type it resolves to, a record its fields' types)
// changes all along the chain, though only the next alias names the one
// removed. The view reads every declaration of the chain again
// (check.Result.Users, transitively through their interfaces) and answers
// every name as a full check does.
func TestViewTypeRemovedTransitively(t *testing.T) {
	const path = "/tmp/chain.caps"
	const module = `(module chain
  (capsule "1.0")
  (type Grams U32)
  (type Weight Grams)
  (type Mass Weight)
  (type Parcel (record (mass Mass) (fragile Bool)))
  (function heavy
    (input (p Parcel))
    (output Bool)
    (body (> p.mass 100)))
  (function mass_of
    (input (p Parcel))
    (output Mass)
    (body p.mass))
  (function twice
    (input (p Parcel))
    (output Bool)
    (body (and (heavy p) (heavy p)))))
`
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	base := testSnapshot(t, path, module, nil).Package().Result
	for _, tc := range []struct {
		name, from, to string
		users          int // declarations read again besides the edited one
	}{
		{"removed", "  (type Grams U32)\n", "", 6},
		{"renamed", "(type Grams U32)", "(type Gram U32)", 6},
		{"middle removed", "  (type Weight Grams)\n", "", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(module, tc.from, tc.to, 1)
			sn := testSnapshot(t, path, text, base)
			v, why := sn.quickViewWhy()
			if v == nil {
				t.Fatalf("declined: %s", why)
			}
			if v.usersRead != tc.users {
				t.Errorf("%d declarations read again, want %d", v.usersRead, tc.users)
			}
			sn.qv.Store(v)
			sn.viewOnce.Do(func() {})
			fresh := testSnapshot(t, path, text, nil)
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
			if sn.done.Load() {
				t.Error("the view checked the version in full")
			}
		})
	}
}

// TestViewDuplicateEdited edits a module that declares a name twice: the
// first declaration removed (the name now resolves to the second), the
// second removed, and a third declaration renamed to it. The view reads
// the other declaration of the name and its users again, and answers
// every offset as a full check does.
func TestViewDuplicateEdited(t *testing.T) {
	const path = "/tmp/twice.caps"
	const module = `(module twice
  (capsule "1.0")
  (function limit
    (input (n U32))
    (output U32)
    (body (+ n 1)))
  (function check_it
    (input (n U32))
    (output Bool)
    (body (> (limit n) 10)))
  (function limit
    (input (n U32) (m U32))
    (output U32)
    (body (+ n m)))
  (function other
    (input (k U32))
    (output U32)
    (body k)))
`
	ctx := context.Background()
	requests := []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
	}{{"completion", completion}, {"hover", hover}, {"definition", definition}, {"signatureHelp", signatureHelp}}
	base := testSnapshot(t, path, module, nil).Package().Result
	first := strings.Index(module, "  (function limit")
	second := strings.LastIndex(module, "  (function limit")
	firstEnd := first + strings.Index(module[first:], "(+ n 1)))\n") + len("(+ n 1)))\n")
	secondEnd := second + strings.Index(module[second:], "(+ n m)))\n") + len("(+ n m)))\n")
	for _, tc := range []struct{ name, text string }{
		{"first removed", module[:first] + module[firstEnd:]},
		{"second removed", module[:second] + module[secondEnd:]},
		{"another renamed to it", strings.Replace(module, "(function other", "(function limit", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sn := testSnapshot(t, path, tc.text, base)
			v, why := sn.quickViewWhy()
			if v == nil {
				t.Fatalf("declined: %s", why)
			}
			if v.usersRead == 0 {
				t.Error("no declaration was read again")
			}
			sn.qv.Store(v)
			sn.viewOnce.Do(func() {})
			fresh := testSnapshot(t, path, tc.text, nil)
			for off := 0; off <= len(tc.text); off++ {
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
		})
	}
}
