package check

import (
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// allSources returns every module the engine's differential tests edit:
// the examples (the spec's modules among them), every .caps fixture under
// testdata, and generated modules (the spec-shaped one, the benchmark
// one, one of every common kind of declaration).
func allSources(t testing.TB) map[string][]byte {
	srcs := map[string][]byte{
		"gen.SpecModule": gen.SpecModule(400),
		"gen.Module":     gen.Module(300),
		"gen.Mixed":      gen.Mixed(6000),
	}
	files, _ := filepath.Glob("../../examples/*.caps")
	err := filepath.WalkDir("../../testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".caps") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		srcs[strings.TrimPrefix(f, "../../")] = b
	}
	return srcs
}

// share counts edits and how many the engine answered.
type share struct{ valid, answered, whole, bodies, rechecked int }

func (s share) String() string {
	return fmt.Sprintf("%d of %d edits that leave the file syntactically valid answered incrementally (%s), %d of them reading only the changed declarations; %s of the declarations' bodies checked again",
		s.answered, s.valid, pct(s.answered, s.valid), s.answered-s.whole, pct(s.rechecked, s.bodies))
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

// differential rechecks cur against base and compares with a full check;
// it returns the full check and whether the engine answered.
func differential(t *testing.T, what string, base *Result, c *syntax.CST, s *share) (*Result, bool) {
	t.Helper()
	full := checkCST(c)
	got, eng, ok := base.recheck(c)
	if !c.HasError(0) {
		s.valid++
		if ok {
			s.answered++
		}
	}
	if ok {
		if eng.whole && !c.HasError(0) {
			s.whole++
		}
		s.bodies += eng.rechecked + eng.reused
		s.rechecked += eng.rechecked
		if diff := cmp.Diff(full.Diagnostics, got); diff != "" {
			t.Fatalf("%s: Recheck differs from Check (-check +recheck):\n%s", what, diff)
		}
	}
	return full, ok
}

// TestEngineRandomTyping types at random into every module (edits as
// typing makes them, signature changes, undoing back to the last valid
// text) and compares, after every edit, the engine's diagnostics with a
// full check's. The base is what the server would hold: the last full
// check, taken when the engine declines and now and then when idle. At
// least 95% of the edits that leave the file syntactically valid must be
// answered incrementally.
func TestEngineRandomTyping(t *testing.T) {
	srcs := allSources(t)
	names := sortedNames(srcs)
	var total share
	for _, name := range names {
		src := srcs[name]
		r := rand.New(rand.NewSource(int64(len(src)) + 17))
		d, err := syntax.NewDocument(src)
		if err != nil {
			t.Fatal(err)
		}
		base := checkCST(d.CST())
		typeAtRandom(t, d, r, 40, func(edit string, c *syntax.CST) {
			full, ok := differential(t, name+": "+edit, base, c, &total)
			if !ok || r.Intn(6) == 0 {
				base = full
			}
		})
		d.Close()
	}
	t.Logf("random typing over %d modules: %s", len(names), total)
	if total.answered*100 < total.valid*95 {
		t.Fatalf("only %s", total)
	}
}

// mutation is one structured edit: the bytes [start, end) replaced.
type mutation struct {
	name       string
	start, end int
	text       string
}

func (m mutation) apply(src []byte) []byte {
	return append(append(append([]byte(nil), src[:m.start]...), m.text...), src[m.end:]...)
}

// structuredMutations returns edits of src chosen from its syntax tree:
// the module's name, profile line and capsule version; for up to limit
// declarations, deleting, duplicating and renaming it (alone, and with
// every use), a declaration and a comment inserted before it; and for up
// to limit lists inside each of them (clauses, states, transitions,
// governance rules, surface titles, store backends...), deleting and
// duplicating the list and changing its first argument.
func structuredMutations(src []byte, res *Result, limit int) []mutation {
	var out []mutation
	m := res.File.Module
	if m == nil {
		return nil
	}
	add := func(name string, sp syntax.Span, text string) {
		out = append(out, mutation{name, sp.Start, sp.End, text})
	}
	at := func(p int) syntax.Span { return syntax.Span{Start: p, End: p} }
	if m.Name.Valid() {
		add("module name", m.Name.Span, m.Name.Name+"_renamed")
	}
	for _, it := range m.Form.Items() {
		switch it.Head() {
		case "profile":
			add("profile line deleted", it.Span(), "")
			add("profile added", at(it.Span().End-1), " persistence.memory")
			if len(it.Items()) > 1 {
				add("profile removed", it.Items()[len(it.Items())-1].Span(), "")
				add("profile misspelt", it.Items()[1].Span(), it.Items()[1].Text()+"x")
			}
		case "capsule":
			add("capsule version", it.Span(), `(capsule "9.9.9")`)
		}
	}
	step := max(1, len(m.Decls)/limit)
	for k := 0; k < len(m.Decls); k += step {
		d := m.Decls[k]
		b := d.Base()
		whole := b.Form.Span()
		what := string(d.Kind()) + " " + b.Name.Name
		add(what+": deleted", whole, "")
		add(what+": duplicated", at(whole.End), "\n  "+string(src[whole.Start:whole.End]))
		add(what+": declaration inserted before", at(whole.Start), "(function inserted_fn (output I64) (body 1))\n  ")
		add(what+": comment inserted before", at(whole.Start), ";; a new comment\n  ")
		if b.Name.Valid() {
			add(what+": renamed", b.Name.Span, b.Name.Name+"_r")
			// renamed with every use: one edit spanning the first and last
			// occurrence of the name as a whole word
			text := string(src)
			first, last := -1, -1
			for i := 0; i+len(b.Name.Name) <= len(text); i++ {
				if text[i:i+len(b.Name.Name)] == b.Name.Name && (i == 0 || !wordByte(text[i-1])) && (i+len(b.Name.Name) == len(text) || !wordByte(text[i+len(b.Name.Name)])) {
					if first < 0 {
						first = i
					}
					last = i + len(b.Name.Name)
				}
			}
			if first >= 0 && last > first+len(b.Name.Name) {
				seg := text[first:last]
				var sb strings.Builder
				for i := 0; i < len(seg); {
					if strings.HasPrefix(seg[i:], b.Name.Name) && (i == 0 || !wordByte(seg[i-1])) && (i+len(b.Name.Name) == len(seg) || !wordByte(seg[i+len(b.Name.Name)])) {
						sb.WriteString(b.Name.Name + "_r")
						i += len(b.Name.Name)
						continue
					}
					sb.WriteByte(seg[i])
					i++
				}
				add(what+": renamed with its uses", syntax.Span{Start: first, End: last}, sb.String())
			}
		}
		// lists inside the declaration
		var lists []*syntax.Form
		var walk func(f *syntax.Form, depth int)
		walk = func(f *syntax.Form, depth int) {
			for i, it := range f.Items() {
				if it.IsList() && (i > 0 || depth > 0) {
					lists = append(lists, it)
					if depth < 3 {
						walk(it, depth+1)
					}
				}
			}
		}
		walk(b.Form, 0)
		lstep := max(1, len(lists)/limit)
		for i := 0; i < len(lists); i += lstep {
			l := lists[i]
			lw := what + ": (" + l.Head() + " ...)"
			add(lw+" deleted", l.Span(), "")
			add(lw+" duplicated", at(l.Span().End), " "+string(src[l.Span().Start:l.Span().End]))
			if len(l.Items()) > 1 {
				a := l.Items()[1]
				switch a.Kind {
				case syntax.FormSymbol:
					add(lw+" first argument changed", a.Span(), a.Text()+"_x")
				case syntax.FormString:
					add(lw+" first argument changed", a.Span(), `"changed text"`)
				}
			}
		}
	}
	return out
}

func wordByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// TestEngineStructuredMutations applies structured edits to every module,
// each to the checked original and then one after another (against the
// last full check, or one a few edits old), and compares the engine's
// diagnostics with a full check's. Every edit that leaves the file
// syntactically valid must be answered.
func TestEngineStructuredMutations(t *testing.T) {
	srcs := allSources(t)
	names := sortedNames(srcs)
	var total share
	for _, name := range names {
		src := srcs[name]
		c := mustParse(t, src)
		base := checkCST(c)
		muts := structuredMutations(src, base, 6)
		// each edit of the original
		for _, m := range muts {
			next := mustParse(t, m.apply(src))
			if _, ok := differential(t, name+": "+m.name, base, next, &total); !ok && !next.HasError(0) {
				t.Errorf("%s: %s: Recheck declined", name, m.name)
			}
		}
		// a chain of them: each mutation of the current text, found again
		// by name on the current text's tree
		r := rand.New(rand.NewSource(int64(len(src))))
		cur, curRes := src, base
		for i := 0; i < 12; i++ {
			ms := structuredMutations(cur, curRes, 6)
			if len(ms) == 0 {
				break
			}
			m := ms[r.Intn(len(ms))]
			text := m.apply(cur)
			next := mustParse(t, text)
			full, ok := differential(t, fmt.Sprintf("%s: chain %d: %s", name, i, m.name), base, next, &total)
			if !ok && !next.HasError(0) {
				t.Errorf("%s: chain %d: %s: Recheck declined", name, i, m.name)
			}
			if next.HasError(0) {
				continue
			}
			cur, curRes = text, full
			if !ok || r.Intn(3) == 0 {
				base = full
			}
		}
	}
	t.Logf("structured mutations over %d modules: %s", len(names), total)
}

// TestEngineEditKinds: on the spec-shaped module, each kind of edit the
// issue names is answered and checks again only the declarations whose
// inputs changed.
func TestEngineEditKinds(t *testing.T) {
	src := gen.SpecModule(600)
	base := checkCST(mustParse(t, src))
	copies := strings.Count(string(src), "(machine ClaimReview_")
	for _, tc := range []struct {
		name, from, to string
		rechecked      int // bodies checked again
		why            string
	}{
		{"transition target", "(target accepted)", "(target rejected)", 1, "the machine"},
		{"surface title", `(title "Claim status`, `(title "Claim state`, 1, "the surface"},
		{"store backend", "(backend typedb)", "(backend postgres)", 1, "the store"},
		{"store collection", "(collection claims agent_tasks decisions)", "(collection claims decisions)", 2, "the store, and the machine whose effects name its collections"},
		{"module header", "(module bench.spec_shaped", "(module bench.spec_shape", 0, "nothing reads the module's name"},
		{"profile line", " ui.a2ui)", ")", copies, "every machine: its effects must be admitted"},
		{"profile added", " ui.a2ui)", " ui.a2ui telemetry.otel)", 0, "every effect named is admitted as before"},
		{"profile added, duplicate", " ui.a2ui)", " ui.a2ui ui.a2ui)", 0, "a duplicate profile is the header's warning; admission is the same"},
		{"policy condition kept", "(title \"Claim status", "(title \"Claim state", 1, "the surface; the policies' machines are the base's"},
		{"governed machine edited", "(target accepted)", "(target rejected)", 1, "the machine; its policy's conditions are checked again, not its body"},
		{"state added", "    (state accepted (type final))", "    (state accepted (type final))\n    (state archived (type final))", 1, "the machine"},
		{"state deleted", "\n    (state accepted (type final))", "", 1, "the machine"},
		{"policy condition", `"context.amount_cents > 500000"`, `"context.amount_cent > 500000"`, 2, "the policy, and the machine that evaluates it"},
		{"declaration added", "  ;; Accepted facts only.", "  (store extra (backend memory) (authority runtime-state))\n  ;; Accepted facts only.", 1, "the new store"},
		{"declaration deleted", "  (agent claim_reviewer_1\n    (protocol a2a)\n    (skill review_claim))\n", "", 1, "the machine that tasks the agent"},
		{"declaration renamed", "(function approvable_1\n", "(function approvable1\n", 2, "the function and the machine that calls it"},
		{"duplicate added", "  ;; Accepted facts only.", "  (function approvable_1 (output Bool) (body true))\n  ;; Accepted facts only.", 1, "the new function: the name still finds the first"},
		{"duplicate added first", "  (function approvable_0\n", "  (function approvable_0 (output Bool) (body true))\n  (function approvable_0\n", 3, "the new function, the first approvable_0, now a duplicate, and the machine that calls the name"},
		{"comment", ";; Accepted facts only.", ";; Accepted facts, only.", 0, "comments carry no diagnostics"},
		{"surface event", "(event ReviewCompleted))", "(event ReviewCompletd))", 2, "the surface, and the machine whose unused events depend on it"},
	} {
		next := mustParse(t, middleEditAt(src, tc.from, tc.to))
		full := checkCST(next)
		got, eng, ok := base.recheck(next)
		if !ok {
			t.Errorf("%s: Recheck declined", tc.name)
			continue
		}
		if diff := cmp.Diff(full.Diagnostics, got); diff != "" {
			t.Errorf("%s: Recheck differs from Check (-check +recheck):\n%s", tc.name, diff)
		}
		if eng.rechecked != tc.rechecked {
			t.Errorf("%s: %d bodies checked again, want %d (%s)", tc.name, eng.rechecked, tc.rechecked, tc.why)
		}
	}
}

// middleEditAt replaces the first occurrence of from in the middle of src
// (or its first one, if none there) with to.
func middleEditAt(src []byte, from, to string) []byte {
	s := string(src)
	at := strings.Index(s[len(s)/2:], from)
	if at >= 0 {
		at += len(s) / 2
	} else if at = strings.Index(s, from); at < 0 {
		panic("no " + from)
	}
	return []byte(s[:at] + to + s[at+len(from):])
}

// TestEnginePolicyConditions: a policy's conditions are checked again
// when a machine it governs changes (its context may no longer have what
// a condition reads) and kept when none does; both as a full check says.
func TestEnginePolicyConditions(t *testing.T) {
	src, err := os.ReadFile("../../examples/authority.caps")
	if err != nil {
		t.Fatal(err)
	}
	base := checkCST(mustParse(t, src))
	for _, tc := range []struct {
		name, from, to string
		want           []string // the codes of the edited version's errors
	}{
		{"context field renamed", "      (vendor_on_hold Bool))", "      (vendor_held Bool))", []string{"E_CONDITION_UNKNOWN"}},
		{"context field retyped", "      (vendor_on_hold Bool))", "      (vendor_on_hold Text))", []string{"E_CONDITION_TYPE"}},
		{"machine edited elsewhere", "(version \"1.0.0\")", "(version \"1.0.1\")", nil},
		{"field renamed back", "      (vendor_on_hold Bool))", "      (vendor_on_hold Bool)) ", nil},
	} {
		next := mustParse(t, []byte(strings.Replace(string(src), tc.from, tc.to, 1)))
		full := checkCST(next)
		got, eng, ok := base.recheck(next)
		if !ok || eng.whole {
			t.Errorf("%s: not answered by the fast path (ok=%v)", tc.name, ok)
			continue
		}
		if diff := cmp.Diff(full.Diagnostics, got); diff != "" {
			t.Errorf("%s: Recheck differs from Check (-check +recheck):\n%s", tc.name, diff)
		}
		var codes []string
		for _, d := range got {
			if d.Severity == syntax.Error {
				codes = append(codes, d.Code)
			}
		}
		if diff := cmp.Diff(tc.want, codes); diff != "" {
			t.Errorf("%s: error codes (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestCutFrom: the layout of an edited text derived from the base's
// (cutFrom) is the one cut finds walking all of it, after random edits
// (those that leave the text without syntax errors) of every module.
func TestCutFrom(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	srcs := seedSources(t, 600)
	names := sortedNames(srcs)
	compared := 0
	for _, name := range names {
		src := srcs[name]
		oc, err := syntax.Parse(src)
		if err != nil || oc.HasError(0) {
			continue
		}
		ol, ok := cut(oc)
		if !ok {
			continue
		}
		for k := 0; k < 40; k++ {
			a, b, text := bodyEdit(r, src)
			next := append(append(append([]byte(nil), src[:a]...), text...), src[b:]...)
			c, err := syntax.Parse(next)
			if err != nil || c.HasError(0) {
				continue
			}
			pre, suf := syntax.SharedEnds(src, next)
			want, wok := cut(c)
			got, gok := cutFrom(&ol, oc, c, pre, suf)
			if gok != wok || gok && !cmp.Equal(want, got, cmp.AllowUnexported(layout{})) {
				t.Fatalf("%s, edit [%d,%d) -> %q: cutFrom = %+v, %v; cut = %+v, %v", name, a, b, text, got, gok, want, wok)
			}
			compared++
		}
	}
	// edits that add or remove nodes before declarations kept
	spec := gen.SpecModule(600)
	oc := mustParse(t, spec)
	ol, _ := cut(oc)
	moved := 0
	for _, e := range [][2]string{
		{"    (state accepted (type final))", "    (state accepted (type final))\n    (state archived (type final))"},
		{"\n    (state accepted (type final))", ""},
		{"  ;; Accepted facts only.", "  (store extra (backend memory) (authority runtime-state))\n  ;; Accepted facts only."},
		{"  (agent claim_reviewer_1\n    (protocol a2a)\n    (skill review_claim))\n", ""},
		{"(target accepted)", "(target (accepted))"},
		{"  ;; Accepted facts only.", "  (capsule \"0.7\")\n  ;; Accepted facts only."},
	} {
		next := middleEditAt(spec, e[0], e[1])
		c := mustParse(t, next)
		pre, suf := syntax.SharedEnds(spec, next)
		want, wok := cut(c)
		got, gok := cutFrom(&ol, oc, c, pre, suf)
		if gok != wok || gok && !cmp.Equal(want, got, cmp.AllowUnexported(layout{})) {
			t.Errorf("%q -> %q: cutFrom = %+v, %v; cut = %+v, %v", e[0], e[1], got, gok, want, wok)
		}
		if c.Len() != oc.Len() {
			moved++
		}
		compared++
	}
	if compared < 100 || moved < 4 {
		t.Fatalf("only %d edits compared, %d moving nodes", compared, moved)
	}
	t.Logf("%d edits compared", compared)
}

// TestEngineAcceptance: texts that declare acceptance policies are
// answered incrementally too (the fast path), and the module-wide
// W_CLAIM_UNUSED_POLICY follows every edit that changes which policies
// claims name, which are malformed, and where they lie.
func TestEngineAcceptance(t *testing.T) {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	example := read("../../examples/31_claims_before_facts.caps")
	misuses := read("../../testdata/check/e_claim.caps")
	for _, tc := range []struct {
		name     string
		src      []byte
		from, to string
		unused   int // W_CLAIM_UNUSED_POLICY warnings after the edit
	}{
		{"claim names another policy", example, "(policy reviewed)", "(policy zzz)", 1},
		{"claim's policy misspelt (stands for the nearest)", example, "(policy reviewed)", "(policy reviewd)", 0},
		{"policy's rule broken", example, "(human risk_officer))\n\n  (machine", "(humans risk_officer))\n\n  (machine", 0},
		{"policy added", example, "  (machine LoanDecision", "  (acceptance spare (auto))\n  (machine LoanDecision", 1},
		{"claim deleted", example, "    (claim risk_score (policy reviewed) (accepted ScoreAccepted))\n", "", 1},
		{"policy renamed (the claim names a policy near it)", example, "(acceptance reviewed\n", "(acceptance reviewed2\n", 0},
		{"policy renamed", example, "(acceptance reviewed\n", "(acceptance approval\n", 1},
		{"text above moves the warning", misuses, ";; Misuses of claims", ";; Many misuses of claims", 1},
		{"malformed policy repaired", misuses, "(acceptance nobody)", "(acceptance nobody (auto))", 2},
	} {
		base := checkCST(mustParse(t, tc.src))
		next := mustParse(t, middleEditAt(tc.src, tc.from, tc.to))
		full := checkCST(next)
		got, eng, ok := base.recheck(next)
		if !ok {
			t.Errorf("%s: Recheck declined", tc.name)
			continue
		}
		if eng.whole {
			t.Errorf("%s: Recheck read the whole file", tc.name)
		}
		if diff := cmp.Diff(full.Diagnostics, got); diff != "" {
			t.Errorf("%s: Recheck differs from Check (-check +recheck):\n%s", tc.name, diff)
		}
		n := 0
		for _, d := range got {
			if d.Code == ClaimUnusedPolicy {
				n++
			}
		}
		if n != tc.unused {
			t.Errorf("%s: %d W_CLAIM_UNUSED_POLICY, want %d", tc.name, n, tc.unused)
		}
	}
}
