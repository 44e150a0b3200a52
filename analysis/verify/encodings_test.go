package verify

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

// TestEncodings covers the encodings of calls into imported modules, of
// the Text operations left uninterpreted (upper, lower, trim), of lists
// and of effect intents: for each, an obligation that is discharged, a
// seeded wrong one that fails with a counterexample the interpreter
// confirms, and one that stays open with its reason (an abstraction's
// unconfirmed counterexample, a recursive import, clashing type names).
func TestEncodings(t *testing.T) {
	s := requireSolver(t)
	reports := map[string]*Report{}
	for _, f := range []string{"imports.caps", "text.caps"} {
		reports[f] = verifyFile(t, filepath.Join(testdata, f), s)
	}
	type want struct {
		status Status
		// reason is the reason's beginning.
		reason string
		// cex is the exact counterexample, when the requires force it;
		// nil when any counterexample will do.
		cex []Binding
	}
	cases := []struct {
		file, id string
		want     want
	}{
		// Imports: qualified names, the callee's requires and ensures.
		{"imports.caps", "verify.imports/fee/ensures/0", want{Discharged, "proved by the solver", nil}},
		{"imports.caps", "verify.imports/fee/no-failure", want{Discharged, "proved by the solver", nil}},
		{"imports.caps", "verify.imports/fee/example/0", want{Discharged, "proved by the solver", nil}},
		{"imports.caps", "verify.imports/fee_wrong/ensures/0", want{Failed, "the solver found inputs that meet the requires but break the ensures", []Binding{{"amount", "0"}, {"result", "0"}}}},
		{"imports.caps", "verify.imports/fee_wrong/example/0", want{Failed, "the call does not return the expected value", nil}},
		{"imports.caps", "verify.imports/fee_unchecked/no-failure", want{Failed, "the solver found inputs that meet the requires but make the body fail", nil}},
		{"imports.caps", "verify.imports/bps_plus/ensures/0", want{Discharged, "proved by the solver", nil}},
		{"imports.caps", "verify.imports/bps_plus/example/0", want{Discharged, "proved by the solver", nil}},
		{"imports.caps", "verify.imports/both_rates/no-failure", want{Open, "not encoded: parameter y of both_rates: two different types named Rate (from different modules) are not encoded in one query", nil}},
		{"imports.caps", "verify.imports/fact_of/no-failure", want{Open, "not encoded: body: lib.rates.fact is recursive and declared in an imported module: its calls are encoded only in ground examples", nil}},
		{"imports.caps", "verify.imports/fact_of/example/0", want{Discharged, "proved by the solver", nil}},
		// Text operations: ground facts, length, the abstraction.
		{"text.caps", "verify.text/shout/ensures/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/shout/example/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/shout_wrong/example/0", want{Failed, "the call does not return the expected value", nil}},
		{"text.caps", "verify.text/same_case/ensures/0", want{Failed, "the solver found inputs that meet the requires but break the ensures", []Binding{{"t", `"ABC"`}, {"result", "false"}}}},
		{"text.caps", "verify.text/no_small_a/ensures/0", want{Open, "abstraction: the solver's counterexample treats (upper ...) as an unknown function constrained by ground facts, and the interpreter does not confirm it: the interpreter returns ", nil}},
		{"text.caps", "verify.text/lower_differs/ensures/0", want{Failed, "the solver found inputs that meet the requires but break the ensures", nil}},
		{"text.caps", "verify.text/tidy/ensures/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/tidy/ensures/1", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/tidy/example/0", want{Discharged, "proved by the solver", nil}},
		// Lists.
		{"text.caps", "verify.text/codes/ensures/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/codes/ensures/1", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/codes/example/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/codes_wrong/ensures/0", want{Failed, "the solver found inputs that meet the requires but break the ensures", []Binding{{"a", `"q"`}, {"result", "true"}}}},
		// to-text, exact.
		{"text.caps", "verify.text/label/ensures/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/label/example/0", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/label_wrong/ensures/0", want{Failed, "the solver found inputs that meet the requires but break the ensures", []Binding{{"n", "-1"}, {"result", `"-1"`}}}},
		// Effect intents.
		{"text.caps", "verify.text/log_ratio/no-failure", want{Discharged, "proved by the solver", nil}},
		{"text.caps", "verify.text/log_ratio_wrong/no-failure", want{Failed, "the solver found inputs that meet the requires but make the body fail", []Binding{{"total", "7"}, {"part", "0"}}}},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			var o *Obligation
			for _, x := range reports[c.file].Obligations {
				if x.ID == c.id {
					o = x
				}
			}
			if o == nil {
				t.Fatalf("no obligation %s in %s", c.id, c.file)
			}
			if o.Status != c.want.status || !strings.HasPrefix(o.Reason, c.want.reason) {
				t.Fatalf("%s: %s; want %s: %s...", o.Status, o.Reason, c.want.status, c.want.reason)
			}
			switch o.Status {
			case Failed:
				if c.want.cex != nil {
					if diff := cmp.Diff(c.want.cex, o.Counterexample); diff != "" {
						t.Errorf("counterexample (-want +got):\n%s", diff)
					}
				}
				if o.Kind != KindExample && len(o.Counterexample) == 0 {
					t.Errorf("failed without a counterexample")
				}
				if o.Confirmation == nil || !o.Confirmation.Confirmed {
					t.Errorf("confirmation %+v; want confirmed by the interpreter", o.Confirmation)
				}
			default:
				if o.Counterexample != nil || o.Confirmation != nil {
					t.Errorf("%s with counterexample %v, confirmation %+v", o.Status, o.Counterexample, o.Confirmation)
				}
			}
		})
	}
}

// TestImportedCounterexampleRuns runs the interpreter independently of
// the verifier on the counterexample of a call into an imported module:
// the call fails in the imported function's requires.
func TestImportedCounterexampleRuns(t *testing.T) {
	s := requireSolver(t)
	p := loadFile(t, filepath.Join(testdata, "imports.caps"))
	r, err := Verify(context.Background(), p.Result, Options{Solver: s})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range r.Obligations {
		if o.ID != "verify.imports/fee_unchecked/no-failure" {
			continue
		}
		if o.Status != Failed || len(o.Counterexample) != 1 || o.Counterexample[0].Name != "amount" {
			t.Fatalf("%s %v", o.Status, o.Counterexample)
		}
		v, err := value.Parse(o.Counterexample[0].Value, types.TU64)
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = interp.New(p.Result).Call("fee_unchecked", []value.Value{v})
		var ie *interp.Error
		if !errors.As(err, &ie) || ie.Kind != interp.RequiresFailed || ie.Function != "percent" {
			t.Fatalf("the interpreter on amount = %s: %v; want percent's requires to fail", o.Counterexample[0].Value, err)
		}
		return
	}
	t.Fatal("no obligation verify.imports/fee_unchecked/no-failure")
}

// TestTextOpFacts checks, on the interpreter, the facts the encoding
// states of every application of upper, lower and trim: upper and lower
// keep the length in characters (on a text holding every Unicode scalar
// value, and on random texts), trim returns a part of its argument that
// is no longer.
func TestTextOpFacts(t *testing.T) {
	var all strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) {
			all.WriteRune(r)
		}
	}
	texts := []string{"", "straße é", "ǅ ı ſ ß ΐ", " \t\n x \u0085", all.String()}
	rng := rand.New(rand.NewSource(3))
	for i := 0; i < 200; i++ {
		var b strings.Builder
		for j := rng.Intn(12); j > 0; j-- {
			r := rune(rng.Intn(0x30000))
			if rng.Intn(3) == 0 {
				r = rune(rng.Intn(0x250)) // Latin, where case mapping is busiest
			}
			if utf8.ValidRune(r) {
				b.WriteRune(r)
			}
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		n := utf8.RuneCountInString(s)
		for _, op := range []string{"upper", "lower"} {
			got, err := runTextOp(op, s)
			if err != nil {
				t.Fatal(err)
			}
			if m := utf8.RuneCountInString(got); m != n {
				t.Errorf("(%s %q) has %d characters, not %d", op, clip(s), m, n)
			}
		}
		got, err := runTextOp("trim", s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(s, got) || utf8.RuneCountInString(got) > n {
			t.Errorf("(trim %q) = %q is not a part of its argument", clip(s), clip(got))
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestTextLiteralsOutsideSolver: a Text literal with a character above
// U+2FFFF, which Z3's strings cannot hold, is not encoded (rather than
// misread as several characters).
func TestTextLiteralsOutsideSolver(t *testing.T) {
	if _, err := smtText("tag \U000E0067"); err == nil || !strings.Contains(err.Error(), "U+E0067") {
		t.Errorf("smtText accepted a character above U+2FFFF: %v", err)
	}
	if v, err := smtText("ok \U0001F44D"); err != nil || v != `"ok \u{1f44d}"` {
		t.Errorf("smtText = %s, %v", v, err)
	}
	if got, err := smtUnescape(`a\u{d800}b`); err != nil || got != "a\ue000b" {
		t.Errorf("a surrogate in a model reads as %q, %v; want a private-use character", got, err)
	}
}

// TestToTextMatchesInterpreter is a differential test of the to-text
// encoding, over bit-vectors and over the integers: for edge and random
// values of each integer type, Bool and an enum, Z3 must agree with the
// text the interpreter prints.
func TestToTextMatchesInterpreter(t *testing.T) {
	s := requireSolver(t)
	ss, err := s.start()
	if err != nil {
		t.Fatal(err)
	}
	defer ss.close()
	enum := &types.Enum{Name: "Lvl", Members: []string{"low", "mid", "high"}}
	rng := rand.New(rand.NewSource(11))
	for _, ints := range []bool{false, true} {
		e := &encoder{ints: ints, emitted: map[string]bool{}, busy: map[string]bool{}}
		var facts []string
		check := func(x string, ty types.Type, v value.Value) {
			t.Helper()
			term, err := e.toText(x, ty)
			if err != nil {
				t.Fatal(err)
			}
			want, err := runToText(v, ty)
			if err != nil {
				t.Fatal(err)
			}
			facts = append(facts, "(= "+term+" "+smtString(want)+")")
		}
		for _, ty := range []types.Type{types.TI32, types.TU32, types.TI64, types.TU64, types.TWei} {
			bits, _, _ := intInfo(ty)
			vals := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(10), big.NewInt(-10)}
			for _, edge := range []int{bits - 1, bits} {
				m := new(big.Int).Lsh(big.NewInt(1), uint(edge))
				vals = append(vals, m, new(big.Int).Sub(m, big.NewInt(1)), new(big.Int).Neg(m))
			}
			for i := 0; i < 10; i++ {
				vals = append(vals, new(big.Int).Rand(rng, new(big.Int).Lsh(big.NewInt(1), uint(bits))))
			}
			for _, n := range vals {
				lit := e.lit(n, ty)
				// The interpreter's value of the same bits.
				v, err := value.Parse(valueOfLit(t, lit, ty), ty)
				if err != nil {
					t.Fatal(err)
				}
				check(lit, ty, v)
			}
		}
		check("true", types.TBool, value.True)
		check("false", types.TBool, value.False)
		if _, err := e.sort(enum); err != nil {
			t.Fatal(err)
		}
		for i, m := range enum.Members {
			check(quote("Lvl."+m), enum, value.Enum(enum, i))
		}
		a, err := ss.check(context.Background(), e.out.String()+"(assert (not "+and(facts...)+"))\n", nil, s.rlimit())
		if err != nil {
			t.Fatal(err)
		}
		if a.status != "unsat" {
			t.Errorf("integers: %t: the to-text encoding disagrees with the interpreter (%s)", ints, a.status)
		}
	}
}

// valueOfLit reads an encoded integer literal back as Capsulang source.
func valueOfLit(t *testing.T, lit string, ty types.Type) string {
	t.Helper()
	xs, err := parseSexps(lit)
	if err != nil || len(xs) != 1 {
		t.Fatalf("literal %s: %v", lit, err)
	}
	text, err := valueText(xs[0], ty)
	if err != nil {
		t.Fatalf("literal %s: %v", lit, err)
	}
	return text
}

// runToText is the interpreter's (to-text v).
func runToText(v value.Value, ty types.Type) (string, error) {
	src := "(module t.to_text (capsule \"1.0\") (type Lvl (enum low mid high)) (function f (input (x " + ty.String() + ")) (output Text) (body (to-text x))))"
	f, err := ast.Parse([]byte(src))
	if err != nil {
		return "", err
	}
	res := check.Check(f, check.Options{Path: "t.caps"})
	if res.HasErrors() {
		return "", fmt.Errorf("%v", res.Diagnostics)
	}
	in := interp.New(res)
	if v.Kind() == value.KindEnum {
		// The module's own enum: the same member by index.
		lt, _ := in.TypeNamed("Lvl")
		v = value.Enum(lt.(*types.Enum), lt.(*types.Enum).Index(v.Name()))
	}
	out, _, err := in.Call("f", []value.Value{v})
	if err != nil {
		return "", err
	}
	return out.AsText(), nil
}

// TestTextEncodingMatchesInterpreter is a differential test of the exact
// Text encoding (literals and their escapes, len in characters, concat,
// contains, starts-with, ends-with, ==, and to-text of Text) on random
// texts mixing ASCII, quotes, backslashes, control characters, accented
// letters, emoji and U+2FFFF: Z3's value of each function on the
// literals must be the interpreter's, over bit-vectors and integers.
func TestTextEncodingMatchesInterpreter(t *testing.T) {
	s := requireSolver(t)
	src := `(module t.text (capsule "1.0")
  (function l (input (a Text) (b Text)) (output Int) (body (+ (len a) (len (concat b a)))))
  (function c (input (a Text) (b Text)) (output Text) (body (concat a "\"\\" b (to-text a))))
  (function has (input (a Text) (b Text)) (output Bool) (body (contains a b)))
  (function sw (input (a Text) (b Text)) (output Bool) (body (starts-with a b)))
  (function ew (input (a Text) (b Text)) (output Bool) (body (ends-with a b)))
  (function eq (input (a Text) (b Text)) (output Bool) (body (== a b))))`
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(f, check.Options{Path: "t.caps"})
	if res.HasErrors() {
		t.Fatal(res.Diagnostics)
	}
	sh, err := prepare(res)
	if err != nil {
		t.Fatal(err)
	}
	palette := []rune{'a', 'b', 'A', ' ', '"', '\\', '\n', 0, 0x7f, 'é', 'ß', 0x1F44D, 0x2FFFF, 0xFFFD, '{', 'u'}
	rng := rand.New(rand.NewSource(5))
	text := func() string {
		var b strings.Builder
		for i := rng.Intn(5); i > 0; i-- {
			b.WriteRune(palette[rng.Intn(len(palette))])
		}
		return b.String()
	}
	ss, err := s.start()
	if err != nil {
		t.Fatal(err)
	}
	defer ss.close()
	for _, ints := range []bool{false, true} {
		e := sh.encoder()
		e.ints = ints
		var facts []string
		for _, fi := range sh.in.Functions() {
			if err := e.need(fi.Decl, "body"); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 60; i++ {
				a, b := text(), text()
				if i == 0 {
					a, b = `x\u{41}\u0041"`, "A" // escapes in the text itself
				}
				if rs := []rune(a); i%7 == 0 && len(rs) > 0 {
					b = string(rs[:len(rs)/2]) // a prefix, often (whole characters: Text is valid UTF-8)
				}
				got, _, err := sh.in.CallDecl(fi.Decl, []value.Value{value.Text(a), value.Text(b)})
				if err != nil {
					t.Fatal(err)
				}
				var want string
				switch got.Kind() {
				case value.KindText:
					want = smtString(got.AsText())
				case value.KindBool:
					want = fmt.Sprint(got.AsBool())
				default:
					want = e.lit(big.NewInt(got.Int64()), types.TInt)
				}
				facts = append(facts, "(= "+apply(quote(fi.Name+".val"), []string{smtString(a), smtString(b)})+" "+want+")")
			}
		}
		a, err := ss.check(context.Background(), e.out.String()+"(assert (not "+and(facts...)+"))\n", nil, s.rlimit())
		if err != nil {
			t.Fatal(err)
		}
		if a.status != "unsat" {
			t.Errorf("integers: %t: the Text encoding disagrees with the interpreter (%s)", ints, a.status)
			for _, fact := range facts {
				if a, _ := ss.check(context.Background(), e.out.String()+"(assert (not "+fact+"))\n", nil, s.rlimit()); a == nil || a.status != "unsat" {
					t.Logf("disagrees: %s", fact)
				}
			}
		}
	}
}

// TestApplyAbstraction: how a verdict of a query that left operations
// uninterpreted is recorded (the cached verdict is applied the same way):
// a proof stands; a counterexample, or inputs that satisfy an existential
// obligation, count only when the interpreter confirms them, else the
// obligation is open with an abstraction reason; no inputs at all is a
// real failure.
func TestApplyAbstraction(t *testing.T) {
	confirmIf := func(ok bool) func([]Binding) *Confirmation {
		return func([]Binding) *Confirmation {
			if ok {
				return &Confirmation{Confirmed: true, Detail: "the interpreter agrees"}
			}
			return &Confirmation{Detail: "the interpreter returns \"A\""}
		}
	}
	cex := []Binding{{"t", `"a"`}}
	abs := []string{"upper"}
	cases := []struct {
		name      string
		exists    bool
		confirmed bool
		v         verdict
		want      Obligation
	}{
		{"proved", false, false, verdict{Status: Discharged, Reason: "proved by the solver", Abstract: abs},
			Obligation{Status: Discharged, Reason: "proved by the solver"}},
		{"counterexample confirmed", false, true, verdict{Status: Failed, Reason: "r", Counterexample: cex, Abstract: abs},
			Obligation{Status: Failed, Reason: "r", Counterexample: cex, Confirmation: &Confirmation{Confirmed: true, Detail: "the interpreter agrees"}}},
		{"counterexample of the abstraction", false, false, verdict{Status: Failed, Reason: "r", Counterexample: cex, Abstract: abs},
			Obligation{Status: Open, Reason: "abstraction: the solver's counterexample treats (upper ...) as an unknown function constrained by ground facts, and the interpreter does not confirm it: the interpreter returns \"A\""}},
		{"exact counterexample not confirmed", false, false, verdict{Status: Failed, Reason: "r", Counterexample: cex},
			Obligation{Status: Failed, Reason: "r", Counterexample: cex, Confirmation: &Confirmation{Detail: "the interpreter returns \"A\""}}},
		{"satisfiable, confirmed", true, true, verdict{Status: Discharged, Reason: "the solver found inputs that satisfy it", Counterexample: cex, Abstract: abs},
			Obligation{Status: Discharged, Reason: "the solver found inputs that satisfy it, and the interpreter confirms them"}},
		{"satisfiable in the abstraction only", true, false, verdict{Status: Discharged, Reason: "the solver found inputs that satisfy it", Counterexample: cex, Abstract: abs},
			Obligation{Status: Open, Reason: "abstraction: the solver's counterexample treats (upper ...) as an unknown function constrained by ground facts, and the interpreter does not confirm it: the interpreter returns \"A\""}},
		{"unsatisfiable", true, false, verdict{Status: Failed, Reason: "no inputs satisfy the claim, so no proof of it can exist", Abstract: abs},
			Obligation{Status: Failed, Reason: "no inputs satisfy the claim, so no proof of it can exist"}},
	}
	s := &shared{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := &Obligation{goal: &goal{exists: c.exists, confirm: confirmIf(c.confirmed)}}
			v := c.v
			s.apply(o, &v)
			got := Obligation{Status: o.Status, Reason: o.Reason, Counterexample: o.Counterexample, Confirmation: o.Confirmation}
			if diff := cmp.Diff(c.want, got, cmp.AllowUnexported(Obligation{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
