package ir

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax/ast"
)

const iterations = 300

type corpusFile struct {
	name  string
	src   []byte
	forms []*node
	mod   int // index of the (module ...) form
	hash  string
}

// corpus returns the well-formed modules the property tests run on: every
// .caps file under examples/ (skipping files with syntax errors, since
// other people are editing them), the clean fixtures in testdata/ir, a
// bench/gen module and modules from the random generator below.
func corpus(t *testing.T) []*corpusFile {
	t.Helper()
	var paths []string
	filepath.WalkDir("../../examples", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".caps") {
			paths = append(paths, p)
		}
		return nil
	})
	fixtures, _ := filepath.Glob(filepath.Join(goldenDir, "*.caps"))
	paths = append(paths, fixtures...)
	var out []*corpusFile
	add := func(name string, src []byte) {
		forms, ok := readNodes(src)
		if !ok {
			t.Logf("skipping %s: it has syntax errors", name)
			return
		}
		mod := -1
		for i, f := range forms {
			if f.head() == "module" {
				mod = i
				break
			}
		}
		if mod < 0 {
			t.Logf("skipping %s: no module", name)
			return
		}
		h, err := hashSource(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, &corpusFile{name: name, src: src, forms: forms, mod: mod, hash: h})
	}
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		add(p, src)
	}
	add("gen.Module(400)", gen.Module(400))
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 6; i++ {
		add(fmt.Sprintf("random module %d", i), randomModule(rng))
	}
	if len(out) < 5 {
		t.Fatalf("corpus too small: %d modules", len(out))
	}
	return out
}

func hashSource(src []byte) (string, error) {
	f, err := ast.Parse(src)
	if err != nil {
		return "", err
	}
	return Hash(f.Module)
}

// cloneForms copies a file's forms.
func cloneForms(forms []*node) []*node {
	out := make([]*node, len(forms))
	for i, f := range forms {
		out[i] = f.clone()
	}
	return out
}

// reparseOK checks that re-emitted text reads without syntax errors and
// returns its hash.
func reparseHash(t *testing.T, src []byte) string {
	t.Helper()
	if _, ok := readNodes(src); !ok {
		t.Fatalf("re-emitted source has syntax errors:\n%s", src)
	}
	h, err := hashSource(src)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func describeDiff(t *testing.T, a, b []byte) string {
	fa, _ := ast.Parse(a)
	fb, _ := ast.Parse(b)
	ca, _ := Canonical(fa.Module)
	cb, _ := Canonical(fb.Module)
	i := 0
	for i < len(ca) && i < len(cb) && ca[i] == cb[i] {
		i++
	}
	lo := max(0, i-200)
	return fmt.Sprintf("first difference at byte %d:\n a: ...%s\n b: ...%s", i, ca[lo:min(len(ca), i+200)], cb[lo:min(len(cb), i+200)])
}

// TestPropertyReformat: random whitespace, line breaks, indentation and
// comments never change the hash.
func TestPropertyReformat(t *testing.T) {
	files := corpus(t)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < iterations; i++ {
		cf := files[rng.Intn(len(files))]
		out := emit(rng, cf.forms)
		if h := reparseHash(t, out); h != cf.hash {
			t.Fatalf("iteration %d, %s: reformatting changed the hash\n%s\nsource:\n%s", i, cf.name, describeDiff(t, cf.src, out), out)
		}
	}
}

// TestPropertyReorder: reordering declarations, states, events, context
// fields, transitions of different events, assignments, effect options,
// clauses of different keys and name lists never changes the hash.
func TestPropertyReorder(t *testing.T) {
	files := corpus(t)
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < iterations; i++ {
		cf := files[rng.Intn(len(files))]
		forms := cloneForms(cf.forms)
		reorder(rng, forms[cf.mod])
		out := emit(rng, forms)
		if h := reparseHash(t, out); h != cf.hash {
			t.Fatalf("iteration %d, %s: reordering changed the hash\n%s\nsource:\n%s", i, cf.name, describeDiff(t, cf.src, out), out)
		}
	}
}

// TestPropertyMutation: every semantic mutation changes the hash, also
// when combined with reformatting and reordering.
func TestPropertyMutation(t *testing.T) {
	files := corpus(t)
	rng := rand.New(rand.NewSource(3))
	applied := map[string]int{}
	for i := 0; i < iterations; i++ {
		cf := files[rng.Intn(len(files))]
		forms := cloneForms(cf.forms)
		mod, desc, ok := mutate(rng, forms[cf.mod])
		if !ok {
			continue
		}
		forms[cf.mod] = mod
		if rng.Intn(2) == 0 {
			reorder(rng, mod)
		}
		applied[strings.SplitN(desc, ":", 2)[0]]++
		out := emit(rng, forms)
		if h := reparseHash(t, out); h == cf.hash {
			t.Fatalf("iteration %d, %s: mutation %q did not change the hash\nsource:\n%s", i, cf.name, desc, out)
		}
	}
	for _, m := range mutations {
		if applied[m.name] == 0 {
			t.Errorf("mutation %q was never applied", m.name)
		}
	}
	t.Logf("mutations applied: %v", applied)
}

// TestPropertyCorrupted: cutting, duplicating and deleting random bytes of
// well-formed files gives broken files, which must still produce valid IR
// (or no module) without panicking.
func TestPropertyCorrupted(t *testing.T) {
	files := corpus(t)
	rng := rand.New(rand.NewSource(4))
	junk := []string{"(", ")", "\"", ";", "1x", "-", ".", "\\", "\n", "()", "(if", "(match", "(record", "(let ((", "\xff"}
	for i := 0; i < iterations; i++ {
		cf := files[rng.Intn(len(files))]
		src := []byte(string(cf.src))
		for k := 1 + rng.Intn(5); k > 0 && len(src) > 0; k-- {
			p := rng.Intn(len(src))
			switch rng.Intn(3) {
			case 0:
				src = append(src[:p:p], src[min(len(src), p+1+rng.Intn(20)):]...)
			case 1:
				src = append(src[:p:p], append([]byte(junk[rng.Intn(len(junk))]), src[p:]...)...)
			default:
				src = src[:p]
			}
		}
		f, err := ast.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if f.Module == nil {
			continue
		}
		c, err := Canonical(f.Module)
		if err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
		if !json.Valid(c) {
			t.Fatalf("iteration %d: invalid JSON for corrupted source:\n%s", i, src)
		}
	}
}

func FuzzCanonical(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join(goldenDir, "*.caps"))
	for _, p := range fixtures {
		src, _ := os.ReadFile(p)
		f.Add(src)
	}
	f.Add([]byte("(module m (capsule \"1\") (function f (body (if 1 2))))"))
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ast.Parse(src)
		if err != nil || file.Module == nil {
			return
		}
		c, err := Canonical(file.Module)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(c) {
			t.Fatalf("invalid JSON: %s", c)
		}
	})
}

// ---- a small random module generator

// randomModule writes a well-formed module with random functions, machines,
// stores, ports and governance declarations.
func randomModule(rng *rand.Rand) []byte {
	g := &modGen{rng: rng}
	var b strings.Builder
	fmt.Fprintf(&b, "(module random.m%d\n  (capsule \"%d.%d\")\n  (profile agentic external.mcp)\n", rng.Intn(100), rng.Intn(3), rng.Intn(10))
	b.WriteString("  (store st (backend memory) (collection a b c))\n")
	b.WriteString("  (port pt (protocol mcp) (tool t1 t2) (resource r1))\n")
	for i := 0; i < 4+rng.Intn(5); i++ {
		b.WriteString(g.function(i))
	}
	for i := 0; i < 1+rng.Intn(3); i++ {
		b.WriteString(g.machine(i))
	}
	for i := 0; i < 2+rng.Intn(3); i++ {
		b.WriteString(g.governance(i))
	}
	b.WriteString(")\n")
	return []byte(b.String())
}

type modGen struct{ rng *rand.Rand }

func (g *modGen) pick(ss ...string) string { return ss[g.rng.Intn(len(ss))] }

func (g *modGen) literal() string {
	switch g.rng.Intn(6) {
	case 0:
		return fmt.Sprint(g.rng.Intn(1000) - 500)
	case 1:
		return fmt.Sprintf("%d%s", g.rng.Intn(100), g.pick("ms", "s", "m", "h", "d"))
	case 2:
		return fmt.Sprintf("%q", g.pick("", "a", "hello world", "tab\t", "é🚢"))
	case 3:
		return g.pick("true", "false", "none")
	case 4:
		return fmt.Sprintf("00%d", g.rng.Intn(50))
	}
	return fmt.Sprint(g.rng.Int63())
}

func (g *modGen) expr(depth int, vars []string) string {
	if depth <= 0 || g.rng.Intn(4) == 0 {
		if len(vars) > 0 && g.rng.Intn(2) == 0 {
			return vars[g.rng.Intn(len(vars))]
		}
		return g.literal()
	}
	d := depth - 1
	switch g.rng.Intn(9) {
	case 0:
		return fmt.Sprintf("(if %s %s %s)", g.expr(d, vars), g.expr(d, vars), g.expr(d, vars))
	case 1:
		v := fmt.Sprintf("v%d", g.rng.Intn(5))
		return fmt.Sprintf("(let ((%s %s)) %s)", v, g.expr(d, vars), g.expr(d, append(vars, v)))
	case 2:
		return fmt.Sprintf("(do %s %s)", g.expr(d, vars), g.expr(d, vars))
	case 3:
		return fmt.Sprintf("(match %s (0 %s) ((some x) %s) (T.a %s) (_ %s))", g.expr(d, vars), g.expr(d, vars), g.expr(d, append(vars, "x")), g.expr(d, vars), g.expr(d, vars))
	case 4:
		return fmt.Sprintf("(record R (f1 %s) (f2 %s))", g.expr(d, vars), g.expr(d, vars))
	case 5:
		return fmt.Sprintf("(list %s %s %s)", g.expr(d, vars), g.expr(d, vars), g.expr(d, vars))
	}
	return fmt.Sprintf("(%s %s %s)", g.pick("+", "-", "*", "<", "==", "and", "concat", "f0"), g.expr(d, vars), g.expr(d, vars))
}

func (g *modGen) function(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  (function f%d\n", i)
	n := g.rng.Intn(4)
	var vars []string
	if n > 0 {
		b.WriteString("    (input")
		for k := 0; k < n; k++ {
			fmt.Fprintf(&b, " (p%d %s)", k, g.pick("U32", "I64", "Text", "(List Bool)", "(Option (Result U64 Text))"))
			vars = append(vars, fmt.Sprintf("p%d", k))
		}
		b.WriteString(")\n")
	}
	b.WriteString("    (output I64)\n")
	if g.rng.Intn(2) == 0 {
		b.WriteString("    (effects (db.write st.a) (mcp.call pt.t1))\n")
	}
	for k := g.rng.Intn(3); k > 0; k-- {
		fmt.Fprintf(&b, "    (requires %s)\n", g.expr(2, vars))
	}
	for k := g.rng.Intn(3); k > 0; k-- {
		fmt.Fprintf(&b, "    (example (f%d %s) %s)\n", i, g.literal(), g.literal())
	}
	fmt.Fprintf(&b, "    (body %s))\n", g.expr(4, vars))
	return b.String()
}

func (g *modGen) machine(i int) string {
	var b strings.Builder
	nStates, nEvents := 2+g.rng.Intn(5), 1+g.rng.Intn(4)
	fmt.Fprintf(&b, "  (machine M%d\n    (context (c0 U32) (c1 Text) (c2 Bool))\n", i)
	for e := 0; e < nEvents; e++ {
		fmt.Fprintf(&b, "    (event E%d (x U32) (y Text))\n", e)
	}
	b.WriteString("    (initial s0)\n    (persistence (store st) (event-log log) (replay true))\n")
	for s := 0; s < nStates; s++ {
		fmt.Fprintf(&b, "    (state s%d\n", s)
		if g.rng.Intn(3) == 0 {
			fmt.Fprintf(&b, "      (timeout %d%s E0)\n", 1+g.rng.Intn(90), g.pick("s", "m", "h"))
		}
		for _, e := range g.rng.Perm(nEvents)[:g.rng.Intn(nEvents+1)] {
			fmt.Fprintf(&b, "      (on E%d\n", e)
			if g.rng.Intn(2) == 0 {
				fmt.Fprintf(&b, "        (guard %s)\n", g.expr(2, []string{"c0", "event.x"}))
			}
			fmt.Fprintf(&b, "        (target s%d)\n", g.rng.Intn(nStates))
			b.WriteString("        (assign")
			for _, c := range g.rng.Perm(3)[:g.rng.Intn(4)] {
				fmt.Fprintf(&b, " (c%d %s)", c, g.expr(2, []string{"c0", "c1", "event.x", "event.y"}))
			}
			b.WriteString(")\n        (effects")
			for k := g.rng.Intn(4); k > 0; k-- {
				b.WriteString(g.pick(" (db.write st.a)", " (db.write st.b (retry 2) (timeout 30s))", " (mcp.call pt.t2 (on-error s0) (retry 1))", " ci.run", " (receipt.emit r)"))
			}
			b.WriteString("))\n")
		}
		b.WriteString("    )\n")
	}
	b.WriteString("  )\n")
	return b.String()
}

func (g *modGen) governance(i int) string {
	switch g.rng.Intn(4) {
	case 0:
		return fmt.Sprintf("  (gate G%d (requires eval-suite S passed) (on-fail %s) (requires approval A%d granted) (on-pass canary) (summary %q))\n", i, g.pick("quarantine", "reject"), g.rng.Intn(9), g.pick("x", "y"))
	case 1:
		return fmt.Sprintf("  (budget B%d (max-iterations %d) (allow-effects llm.call ci.run) (max-cost-usd %d) (deny-effects deploy.live))\n", i, g.rng.Intn(10), g.rng.Intn(100))
	case 2:
		return fmt.Sprintf("  (mandate Md%d (issued-by P) (issued-to Q) (valid-for %d%s) (revocable %s) (purpose %q))\n", i, 1+g.rng.Intn(60), g.pick("m", "h", "s"), g.pick("true", "false"), "p")
	}
	return fmt.Sprintf("  (eval-suite S%d (dataset \"d1\") (metric m1 >= 0.%d) (dataset \"d2\") (metric m2 == %d) (must-pass examples))\n", i, 1+g.rng.Intn(9), g.rng.Intn(3))
}
