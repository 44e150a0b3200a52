package interp_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

const typeDecls = `
  (type Size (enum small medium large))
  (type Claim (record (id U64) (amount U64)))
  (type Shape (variant (circle (r U32)) (rect (w U32) (h U32)) dot))
  (type Problem (error (code U32) (message Text)))
`

type evalCase struct {
	name   string
	inputs string // (x T)...
	out    string
	body   string
	args   []string
	want   string
}

func runEvalCases(t *testing.T, cases []evalCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := checked(t, typeDecls+fn1(tc.inputs, tc.out, tc.body))
			v, _, err := call(t, interp.New(res), "f", tc.args...)
			if diff := cmp.Diff(tc.want, outcome(v, err)); diff != "" {
				t.Errorf("(body %s) with %v: (-want +got)\n%s", tc.body, tc.args, diff)
			}
		})
	}
}

// TestBuiltins covers every built-in operation of the checker.
func TestBuiltins(t *testing.T) {
	runEvalCases(t, []evalCase{
		// arithmetic
		{"add", "(a I64) (b I64)", "I64", "(+ a b)", []string{"2", "3"}, "5"},
		{"sub", "(a I64) (b I64)", "I64", "(- a b)", []string{"2", "3"}, "-1"},
		{"mul", "(a I64) (b I64)", "I64", "(* a b)", []string{"-4", "3"}, "-12"},
		{"div", "(a I64) (b I64)", "I64", "(/ a b)", []string{"-7", "2"}, "-3"},
		{"rem", "(a I64) (b I64)", "I64", "(% a b)", []string{"-7", "3"}, "-1"},
		{"rem positive dividend", "(a I64) (b I64)", "I64", "(% a b)", []string{"7", "-3"}, "1"},
		{"literal arithmetic", "", "U32", "(- (* 3 4) 2)", nil, "10"},
		// comparison
		{"eq int", "(a I64) (b I64)", "Bool", "(== a b)", []string{"2", "2"}, "true"},
		{"ne int", "(a I64) (b I64)", "Bool", "(!= a b)", []string{"2", "2"}, "false"},
		{"lt", "(a I64) (b I64)", "Bool", "(< a b)", []string{"-2", "1"}, "true"},
		{"le", "(a I64) (b I64)", "Bool", "(<= a b)", []string{"1", "1"}, "true"},
		{"gt", "(a I64) (b I64)", "Bool", "(> a b)", []string{"-2", "1"}, "false"},
		{"ge", "(a I64) (b I64)", "Bool", "(>= a b)", []string{"1", "2"}, "false"},
		{"lt text", "(a Text) (b Text)", "Bool", "(< a b)", []string{"apple", "banana"}, "true"},
		{"lt duration", "(a Duration) (b Duration)", "Bool", "(< a b)", []string{"90s", "2m"}, "true"},
		{"eq records", "(a Claim) (b Claim)", "Bool", "(== a b)",
			[]string{"(record Claim (id 1) (amount 2))", "(record Claim (amount 2) (id 1))"}, "true"},
		{"ne records", "(a Claim) (b Claim)", "Bool", "(!= a b)",
			[]string{"(record Claim (id 1) (amount 2))", "(record Claim (id 1) (amount 3))"}, "true"},
		{"eq variants", "(a Shape)", "Bool", "(== a (rect 2 3))", []string{"(rect 2 3)"}, "true"},
		{"eq options", "(a (Option U32))", "Bool", "(== a none)", []string{"(some 1)"}, "false"},
		{"eq lists", "(a (List U32))", "Bool", "(== a (list 1 2))", []string{"(list 1 2)"}, "true"},
		// logic
		{"and", "(a Bool) (b Bool)", "Bool", "(and a b)", []string{"true", "false"}, "false"},
		{"and three", "(a Bool)", "Bool", "(and a a true)", []string{"true"}, "true"},
		{"or", "(a Bool) (b Bool)", "Bool", "(or a b)", []string{"false", "true"}, "true"},
		{"not", "(a Bool)", "Bool", "(not a)", []string{"false"}, "true"},
		{"and short-circuits", "(z I64)", "Bool", "(and (!= z 0) (> (/ 10 z) 1))", []string{"0"}, "false"},
		{"or short-circuits", "(z I64)", "Bool", "(or (== z 0) (> (/ 10 z) 1))", []string{"0"}, "true"},
		{"if evaluates one branch", "(z I64)", "I64", "(if (== z 0) 0 (/ 10 z))", []string{"0"}, "0"},
		// Option and Result
		{"some", "(x U32)", "(Option U32)", "(some x)", []string{"4"}, "(some 4)"},
		{"none", "", "(Option U32)", "none", nil, "none"},
		{"ok", "(x U32)", "(Result U32 Text)", "(ok x)", []string{"4"}, "(ok 4)"},
		{"err", "(x Text)", "(Result U32 Text)", "(err x)", []string{"bad"}, `(err "bad")`},
		{"is-some", "(o (Option U32))", "Bool", "(is-some o)", []string{"(some 1)"}, "true"},
		{"is-none", "(o (Option U32))", "Bool", "(is-none o)", []string{"(some 1)"}, "false"},
		{"unwrap-or some", "(o (Option U32))", "U32", "(unwrap-or o 9)", []string{"(some 1)"}, "1"},
		{"unwrap-or none", "(o (Option U32))", "U32", "(unwrap-or o 9)", []string{"none"}, "9"},
		{"is-ok", "(r (Result U32 Text))", "Bool", "(is-ok r)", []string{"(ok 1)"}, "true"},
		{"is-err", "(r (Result U32 Text))", "Bool", "(is-err r)", []string{"(ok 1)"}, "false"},
		// lists
		{"list", "(x U32)", "(List U32)", "(list x 2 3)", []string{"1"}, "(list 1 2 3)"},
		{"empty list", "", "(List U32)", "(list)", nil, "(list)"},
		{"len list", "(l (List Text))", "Int", "(len l)", []string{`(list "a" "b")`}, "2"},
		{"get", "(l (List Text))", "(Option Text)", "(get l 1)", []string{`(list "a" "b")`}, `(some "b")`},
		{"get out of range", "(l (List Text))", "(Option Text)", "(get l 2)", []string{`(list "a" "b")`}, "none"},
		{"get negative", "(l (List Text))", "(Option Text)", "(get l -1)", []string{`(list "a" "b")`}, "none"},
		{"append", "(l (List U32))", "(List U32)", "(append l 3)", []string{"(list 1 2)"}, "(list 1 2 3)"},
		{"append keeps the original", "(l (List U32))", "(List U32)", "(let ((m (append l 3)) (n (append l 4))) (if (== (len m) 3) l n))", []string{"(list 1 2)"}, "(list 1 2)"},
		{"contains list", "(l (List U32))", "Bool", "(contains l 2)", []string{"(list 1 2)"}, "true"},
		// maps (built from inputs)
		{"len map", "(m (Map Text U64))", "Int", "(len m)", []string{`(map ("a" 1) ("b" 2))`}, "2"},
		{"get map", "(m (Map Text U64))", "(Option U64)", "(get m \"b\")", []string{`(map ("b" 2) ("a" 1))`}, "(some 2)"},
		{"get map missing", "(m (Map Text U64))", "(Option U64)", "(get m \"c\")", []string{`(map ("a" 1))`}, "none"},
		{"contains map", "(m (Map Text U64))", "Bool", "(contains m \"a\")", []string{`{"a": 1}`}, "true"},
		// text
		{"concat", "(a Text)", "Text", `(concat a "-" "x")`, []string{"ab"}, `"ab-x"`},
		{"len text counts characters", "(a Text)", "Int", "(len a)", []string{"bay \U0001F331"}, "5"},
		{"upper", "(a Text)", "Text", "(upper a)", []string{"straße é"}, `"STRAßE É"`},
		{"lower", "(a Text)", "Text", "(lower a)", []string{"ÉCOLE"}, `"école"`},
		{"trim", "(a Text)", "Text", "(trim a)", []string{"  x y \n"}, `"x y"`},
		{"contains text", "(a Text)", "Bool", `(contains a "lo w")`, []string{"hello world"}, "true"},
		{"starts-with", "(a Text)", "Bool", `(starts-with a "he")`, []string{"hello"}, "true"},
		{"ends-with", "(a Text)", "Bool", `(ends-with a "lo")`, []string{"hello"}, "true"},
		{"to-text int", "(x I64)", "Text", "(to-text x)", []string{"-42"}, `"-42"`},
		{"to-text u64", "(x U64)", "Text", "(to-text x)", []string{"18446744073709551615"}, `"18446744073709551615"`},
		{"to-text bool", "(x Bool)", "Text", "(to-text x)", []string{"true"}, `"true"`},
		{"to-text enum", "(x Size)", "Text", "(to-text x)", []string{"Size.medium"}, `"medium"`},
		{"to-text text", "(x Text)", "Text", "(to-text x)", []string{"hi"}, `"hi"`},
		// abs, min, max
		{"abs", "(x I64)", "I64", "(abs x)", []string{"-5"}, "5"},
		{"abs min wraps", "(x I64)", "I64", "(abs x)", []string{"-9223372036854775808"}, "-9223372036854775808"},
		{"abs i32 min wraps", "(x I32)", "I32", "(abs x)", []string{"-2147483648"}, "-2147483648"},
		{"abs unsigned", "(x U64)", "U64", "(abs x)", []string{"18446744073709551615"}, "18446744073709551615"},
		{"min signed", "(a I64) (b I64)", "I64", "(min a b)", []string{"-1", "1"}, "-1"},
		{"max unsigned", "(a U64) (b U64)", "U64", "(max a b)", []string{"18446744073709551615", "1"}, "18446744073709551615"},
		{"min text", "(a Text) (b Text)", "Text", "(min a b)", []string{"pear", "apple"}, `"apple"`},
		{"max duration", "(a Duration) (b Duration)", "Duration", "(max a b)", []string{"1h", "59m"}, "1h"},
	})
}

// TestBuiltinList keeps the interpreter's list of built-ins in step with
// the checker's.
func TestBuiltinList(t *testing.T) {
	names := check.Builtins()
	sort.Strings(names)
	// Every checker built-in must evaluate: compile a use of each.
	for _, n := range names {
		if !interp.IsBuiltin(n) {
			t.Errorf("the checker knows built-in %q but the interpreter does not", n)
		}
	}
	if got, want := len(interp.BuiltinNames()), len(names); got != want {
		t.Errorf("interpreter has %d built-ins, checker %d", got, want)
	}
}

// TestIntegerWidths checks wrap-around and division at each width.
func TestIntegerWidths(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"I32 max+1 wraps to min", "(a I32)", "I32", "(+ a 1)", []string{"2147483647"}, "-2147483648"},
		{"I32 min-1 wraps to max", "(a I32)", "I32", "(- a 1)", []string{"-2147483648"}, "2147483647"},
		{"I32 mul wraps", "(a I32)", "I32", "(* a a)", []string{"65536"}, "0"},
		{"I32 min / -1", "(a I32) (b I32)", "I32", "(/ a b)", []string{"-2147483648", "-1"}, "-2147483648"},
		{"I32 min % -1", "(a I32) (b I32)", "I32", "(% a b)", []string{"-2147483648", "-1"}, "0"},
		{"I32 signed compare", "(a I32) (b I32)", "Bool", "(< a b)", []string{"-1", "0"}, "true"},
		{"U32 0-1 wraps", "(a U32)", "U32", "(- a 1)", []string{"0"}, "4294967295"},
		{"U32 max+1 wraps", "(a U32)", "U32", "(+ a 1)", []string{"4294967295"}, "0"},
		{"U32 unsigned division", "(a U32) (b U32)", "U32", "(/ a b)", []string{"4294967295", "2"}, "2147483647"},
		{"U32 unsigned compare", "(a U32) (b U32)", "Bool", "(> a b)", []string{"4294967295", "0"}, "true"},
		{"I64 max+1 wraps", "(a I64)", "I64", "(+ a 1)", []string{"9223372036854775807"}, "-9223372036854775808"},
		{"I64 min / -1", "(a I64) (b I64)", "I64", "(/ a b)", []string{"-9223372036854775808", "-1"}, "-9223372036854775808"},
		{"I64 min % -1", "(a I64) (b I64)", "I64", "(% a b)", []string{"-9223372036854775808", "-1"}, "0"},
		{"I64 negate min", "(a I64)", "I64", "(- 0 a)", []string{"-9223372036854775808"}, "-9223372036854775808"},
		{"Int is I64", "(a Int) (b I64)", "I64", "(+ a b)", []string{"9223372036854775807", "1"}, "-9223372036854775808"},
		{"U64 0-1 wraps", "(a U64)", "U64", "(- a 1)", []string{"0"}, "18446744073709551615"},
		{"U64 division above 2^63", "(a U64) (b U64)", "U64", "(/ a b)", []string{"18446744073709551615", "2"}, "9223372036854775807"},
		{"U64 remainder above 2^63", "(a U64) (b U64)", "U64", "(% a b)", []string{"18446744073709551615", "10"}, "5"},
		{"U64 divisor above 2^63", "(a U64) (b U64)", "U64", "(/ a b)", []string{"18446744073709551615", "9223372036854775808"}, "1"},
		{"U64 compare above 2^63", "(a U64) (b U64)", "Bool", "(< a b)", []string{"1", "9223372036854775808"}, "true"},
		{"U64 min above 2^63", "(a U64) (b U64)", "U64", "(min a b)", []string{"9223372036854775808", "1"}, "1"},
		{"U64 mul wraps", "(a U64)", "U64", "(* a a)", []string{"4294967296"}, "0"},
		{"Wei is 256-bit", "(a Wei)", "Wei", "(* a a)", []string{"18446744073709551616"}, "340282366920938463463374607431768211456"},
		{"Wei wraps at 2^256", "(a Wei)", "Wei", "(- a 1)", []string{"0"}, "115792089237316195423570985008687907853269984665640564039457584007913129639935"},
		{"Wei literal above 2^64", "(a Wei)", "Bool", "(< a 100000000000000000000)", []string{"99999999999999999999"}, "true"},
	})
}

// TestTraps checks that failures are typed runtime errors with spans.
func TestTraps(t *testing.T) {
	runEvalCases(t, []evalCase{
		{"div by zero I64", "(a I64) (b I64)", "I64", "(/ a b)", []string{"1", "0"}, "error division-by-zero: division by zero: 1 / 0"},
		{"rem by zero I32", "(a I32) (b I32)", "I32", "(% a b)", []string{"1", "0"}, "error division-by-zero: division by zero: 1 % 0"},
		{"div by zero U32", "(a U32)", "U32", "(/ a 0)", []string{"7"}, "error division-by-zero: division by zero: 7 / 0"},
		{"rem by zero U64", "(a U64) (b U64)", "U64", "(% a b)", []string{"7", "0"}, "error division-by-zero: division by zero: 7 % 0"},
		{"div by zero Wei", "(a Wei) (b Wei)", "Wei", "(/ a b)", []string{"7", "0"}, "error division-by-zero: division by zero: 7 / 0"},
		{"no match", "(b Bool)", "U32", "(match b (true 1))", []string{"false"}, "error no-match: no arm of this match accepts false"},
	})
}

func TestErrorSpan(t *testing.T) {
	res := checked(t, `
  (function inner (input (a U64) (b U64)) (output U64) (body (/ a b)))
  (function outer (input (a U64)) (output U64) (body (+ 1 (inner a 0))))`)
	_, _, err := call(t, interp.New(res), "outer", "5")
	var re *interp.Error
	if !errors.As(err, &re) {
		t.Fatalf("got %v", err)
	}
	src := res.File.Source.CST.Src
	if got := string(src[re.Span.Start:re.Span.End]); got != "(/ a b)" {
		t.Errorf("span covers %q", got)
	}
	if re.Function != "inner" || len(re.Stack) != 2 || re.Stack[0].Function != "inner" || re.Stack[0].Caller != "outer" ||
		string(src[re.Stack[0].Span.Start:re.Stack[0].Span.End]) != "(inner a 0)" || re.Stack[1].Function != "outer" {
		t.Errorf("error %+v", re)
	}
}

func TestContracts(t *testing.T) {
	res := checked(t, `
  (function clamp
    (input (x I64) (lo I64) (hi I64))
    (output I64)
    (requires (<= lo hi))
    (ensures (and (>= result lo) (<= result hi)))
    (body (if (< x lo) lo x)))
  (function noargs (output U32) (ensures (> result 5)) (body 3))`)
	in := interp.New(res)
	tests := []struct {
		fn   string
		args []string
		want string
	}{
		{"clamp", []string{"5", "0", "10"}, "5"},
		{"clamp", []string{"-5", "0", "10"}, "0"},
		{"clamp", []string{"5", "10", "0"}, "error requires-failed: clamp: requires (<= lo hi) does not hold for x = 5, lo = 10, hi = 0"},
		{"clamp", []string{"50", "0", "10"}, "error ensures-failed: clamp: ensures (and (>= result lo) (<= result hi)) does not hold for result = 50 (x = 50, lo = 0, hi = 10)"},
		{"noargs", nil, "error ensures-failed: noargs: ensures (> result 5) does not hold for result = 3"},
	}
	for _, tc := range tests {
		v, _, err := call(t, in, tc.fn, tc.args...)
		if diff := cmp.Diff(tc.want, outcome(v, err)); diff != "" {
			t.Errorf("%s %v: (-want +got)\n%s", tc.fn, tc.args, diff)
		}
	}
	// The error points at the clause.
	_, _, err := call(t, in, "clamp", "5", "10", "0")
	var re *interp.Error
	if errors.As(err, &re) {
		src := res.File.Source.CST.Src
		if got := string(src[re.Span.Start:re.Span.End]); got != "(<= lo hi)" {
			t.Errorf("requires error span %q", got)
		}
	}
}

const recursion = `
  (function fib (input (n U64)) (output U64)
    (body (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))
  (function count (input (n U64)) (output U64)
    (body (if (== n 0) 0 (+ 1 (count (- n 1))))))
  (function forever (input (n U64)) (output U64)
    (body (forever (+ n 1))))
  (function spin (input (n U64)) (output U64)
    (body (if (== n 0) 0 (+ (spin (- n 1)) (spin (- n 1))))))
`

func TestBudgets(t *testing.T) {
	in := interp.New(checked(t, recursion))
	tests := []struct {
		fn, arg, want string
	}{
		{"fib", "25", "75025"},
		{"count", "5000", "5000"},
		{"count", "9999", "9999"},
		{"forever", "0", "error depth-budget: recursion deeper than 10000 calls in forever; is there a missing base case?"},
		{"count", "10000", "error depth-budget: recursion deeper than 10000 calls in count; is there a missing base case?"},
		{"spin", "60", "error step-budget: evaluation took more than 10000000 steps (in spin); is there a runaway recursion?"},
	}
	for _, tc := range tests {
		v, _, err := call(t, in, tc.fn, tc.arg)
		if diff := cmp.Diff(tc.want, outcome(v, err)); diff != "" {
			t.Errorf("%s %s: (-want +got)\n%s", tc.fn, tc.arg, diff)
		}
	}
	// Smaller budgets are honoured.
	small := interp.New(checked(t, recursion))
	small.MaxDepth, small.MaxSteps = 100, 5000
	v, _, err := call(t, small, "count", "100")
	if got := outcome(v, err); !strings.HasPrefix(got, "error depth-budget: recursion deeper than 100 calls") {
		t.Errorf("small depth: %s", got)
	}
	var re *interp.Error
	if errors.As(err, &re) && (len(re.Stack) != interp.MaxStack || re.Dropped != 100-interp.MaxStack) {
		t.Errorf("stack %d frames, %d dropped", len(re.Stack), re.Dropped)
	}
	v, _, err = call(t, small, "fib", "20")
	if got := outcome(v, err); !strings.HasPrefix(got, "error step-budget: evaluation took more than 5000 steps") {
		t.Errorf("small steps: %s", got)
	}
	// Raising the depth budget cannot crash the Go stack: the nesting
	// limit stops evaluation first.
	huge := interp.New(checked(t, recursion))
	huge.MaxDepth, huge.MaxSteps = 100_000_000, 1<<62
	v, _, err = call(t, huge, "forever", "0")
	if got := outcome(v, err); !strings.HasPrefix(got, "error depth-budget: calls nested too deeply in forever") {
		t.Errorf("huge depth: %s", got)
	}
	// A budget error does not poison the interpreter.
	v, _, err = call(t, small, "fib", "10")
	if got := outcome(v, err); got != "55" {
		t.Errorf("after a budget error: %s", got)
	}
}

const matching = typeDecls + `
  (function area (input (s Shape)) (output U32)
    (body (match s
      ((circle r) (* 3 (* r r)))
      ((rect w h) (* w h))
      (Shape.dot 0))))
  (function describe (input (o (Option Shape))) (output Text)
    (body (match o
      ((some (circle 1)) "unit circle")
      ((some (rect w _)) (concat "rect " (to-text w)))
      ((some other) "other")
      (none "nothing"))))
  (function outcome (input (r (Result Claim Problem))) (output U64)
    (body (match r
      ((ok c) c.amount)
      ((err p) (+ 1000 0)))))
  (function size_code (input (s Size)) (output Text)
    (body (match s (Size.small "S") (Size.large "L") (_ "M"))))
  (function lit (input (n I32)) (output Text)
    (body (match n (-1 "minus one") (0 "zero") (x (to-text x)))))
  (function text_match (input (t Text)) (output U32)
    (body (match (lower t) ("yes" 1) ("no" 0) (_ 2))))
  (function make (input (k U32)) (output Shape)
    (body (if (== k 0) Shape.dot (if (== k 1) (circle k) (Shape.rect k (+ k 1))))))
  (function total (input (c Claim)) (output U64)
    (body (let ((a c.amount) (b (+ a c.id))) (+ a b))))
  (function build (input (id U64)) (output Claim)
    (body (record Claim (amount (* id 10)) (id id))))
  (function field_of_call (input (id U64)) (output U64)
    (body (let ((c (build id))) c.amount)))
`

func TestMatchAndData(t *testing.T) {
	in := interp.New(checked(t, matching))
	tests := []struct {
		fn   string
		args []string
		want string
	}{
		{"area", []string{"(circle 2)"}, "12"},
		{"area", []string{"(Shape.rect 2 5)"}, "10"},
		{"area", []string{"Shape.dot"}, "0"},
		{"area", []string{"dot"}, "0"},
		{"describe", []string{"(some (circle 1))"}, `"unit circle"`},
		{"describe", []string{"(some (circle 2))"}, `"other"`},
		{"describe", []string{"(some (rect 7 1))"}, `"rect 7"`},
		{"describe", []string{"none"}, `"nothing"`},
		{"outcome", []string{"(ok (record Claim (id 1) (amount 50)))"}, "50"},
		{"outcome", []string{`(err (record Problem (code 1) (message "x")))`}, "1000"},
		{"size_code", []string{"Size.small"}, `"S"`},
		{"size_code", []string{"medium"}, `"M"`},
		{"size_code", []string{"Size.large"}, `"L"`},
		{"lit", []string{"-1"}, `"minus one"`},
		{"lit", []string{"0"}, `"zero"`},
		{"lit", []string{"42"}, `"42"`},
		{"text_match", []string{"YES"}, "1"},
		{"text_match", []string{"maybe"}, "2"},
		{"make", []string{"0"}, "Shape.dot"},
		{"make", []string{"1"}, "(circle 1)"},
		{"make", []string{"4"}, "(rect 4 5)"},
		{"total", []string{"(record Claim (id 3) (amount 10))"}, "23"},
		{"build", []string{"4"}, "(record Claim (id 4) (amount 40))"},
		{"field_of_call", []string{"4"}, "40"},
	}
	for _, tc := range tests {
		v, _, err := call(t, in, tc.fn, tc.args...)
		if diff := cmp.Diff(tc.want, outcome(v, err)); diff != "" {
			t.Errorf("%s %v: (-want +got)\n%s", tc.fn, tc.args, diff)
		}
	}
}

const effectful = `
  (store s (backend memory) (authority runtime-state) (collection a b))
  (agent helper (protocol a2a "0.3") (skill review))
  (function w1 (input (x U64)) (output U64)
    (effects (db.write s.a))
    (body (do (db.write s.a x) x)))
  (function w2 (input (x U64)) (output U64)
    (effects (db.write s.a) (db.write s.b) (a2a.task helper.review))
    (body (do
      (db.write s.b "first")
      (let ((y (w1 x))) (db.write s.b "second" y))
      (a2a.task helper.review (+ x 1))
      (w1 (+ x 100)))))
  (function cond (input (flag Bool)) (output U32)
    (effects (db.write s.a))
    (body (if flag (do (db.write s.a 1) 1) 0)))
  (function failing (input (x U64)) (output U64)
    (effects (db.write s.a))
    (body (do (db.write s.a x) (/ x 0))))
`

func TestEffectIntents(t *testing.T) {
	in := interp.New(checked(t, effectful))
	v, intents, err := call(t, in, "w2", "5")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range intents {
		got = append(got, it.Function+": "+it.String())
	}
	want := []string{
		`w2: (db.write s.b "first")`,
		`w1: (db.write s.a 5)`,
		`w2: (db.write s.b "second" 5)`,
		`w2: (a2a.task helper.review 6)`,
		`w1: (db.write s.a 105)`,
	}
	if diff := cmp.Diff(want, got); diff != "" || v.String() != "105" {
		t.Errorf("value %s, intents (-want +got)\n%s", v, diff)
	}
	if intents[0].Target != "s.b" || intents[0].Effect != "db.write" || len(intents[0].Args) != 1 {
		t.Errorf("intent %+v", intents[0])
	}
	// Only the branch taken emits.
	_, intents, _ = call(t, in, "cond", "false")
	if len(intents) != 0 {
		t.Errorf("cond false: %v", intents)
	}
	_, intents, _ = call(t, in, "cond", "true")
	if len(intents) != 1 {
		t.Errorf("cond true: %v", intents)
	}
	// A failed call returns no intents.
	_, intents, err = call(t, in, "failing", "1")
	if err == nil || intents != nil {
		t.Errorf("failing: %v %v", intents, err)
	}
	// Successive calls do not share intents.
	_, intents, _ = call(t, in, "w1", "7")
	if len(intents) != 1 || intents[0].String() != "(db.write s.a 7)" {
		t.Errorf("w1: %v", intents)
	}
}

const machineSrc = `
  (type Mode (enum manual auto))
  (function limit (output U32) (body 100))
  (machine Vent
    (context (percent U32) (moves U32) (mode Mode) (label Text))
    (event SetVent (percent U32) (who Text))
    (initial idle)
    (state idle
      (on SetVent
        (guard (and (<= event.percent (limit)) (== mode Mode.auto)))
        (target idle)
        (assign (percent event.percent) (moves (+ moves 1)) (label (concat label event.who))))))
`

func TestEvalExpr(t *testing.T) {
	res := checked(t, machineSrc)
	in := interp.New(res)
	var tr *ast.Transition
	for _, d := range res.File.Module.Decls {
		if m, ok := d.(*ast.Machine); ok {
			tr = m.States[0].Transitions[0]
		}
	}
	modeType, _ := in.TypeNamed("Mode")
	env := interp.Env{
		Vars: map[string]value.Value{
			"percent": value.U32(10), "moves": value.U32(4), "label": value.Text("by "),
			"mode": value.Enum(modeType.(*types.Enum), 1),
		},
		Event: map[string]value.Value{"percent": value.U32(55), "who": value.Text("ana")},
	}
	g, err := in.EvalExpr(tr.Guard, env)
	if err != nil || g.String() != "true" {
		t.Fatalf("guard: %v %v", g, err)
	}
	var got []string
	for _, a := range tr.Assigns {
		v, err := in.EvalExpr(a.Value, env)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.Field.Name+"="+v.String())
	}
	want := []string{"percent=55", "moves=5", `label="by ana"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("assignments (-want +got)\n%s", diff)
	}
	env.Event["percent"] = value.U32(101)
	if g, err := in.EvalExpr(tr.Guard, env); err != nil || g.String() != "false" {
		t.Errorf("guard over limit: %v %v", g, err)
	}
	env.Event["percent"] = value.U32(5)
	env.Vars["mode"] = value.Enum(modeType.(*types.Enum), 0)
	if g, err := in.EvalExpr(tr.Guard, env); err != nil || g.String() != "false" {
		t.Errorf("guard manual: %v %v", g, err)
	}
	// A missing context field is an error, not a panic.
	delete(env.Vars, "moves")
	_, err = in.EvalExpr(tr.Assigns[1].Value, env)
	var re *interp.Error
	if !errors.As(err, &re) || re.Kind != interp.UnboundName {
		t.Errorf("missing var: %v", err)
	}
}

func TestRefusesUncheckedModules(t *testing.T) {
	f, _ := ast.Parse([]byte(`(module m (capsule "1") (function f (output U32) (body (+ 1 "x"))))`))
	res := check.Check(f, check.Options{})
	if !res.HasErrors() {
		t.Fatal("expected errors")
	}
	_, _, err := interp.New(res).Call("f", nil)
	var re *interp.Error
	if !errors.As(err, &re) || re.Kind != interp.NotChecked {
		t.Errorf("got %v", err)
	}
}

func TestCallErrors(t *testing.T) {
	in := interp.New(checked(t, recursion))
	_, _, err := in.Call("fbi", nil)
	if got := outcome(value.Value{}, err); got != "error unknown-function: the module has no function fbi; did you mean fib?" {
		t.Errorf("unknown: %s", got)
	}
	_, _, err = in.Call("fib", nil)
	if got := outcome(value.Value{}, err); got != "error bad-argument: fib takes 1 argument, got 0" {
		t.Errorf("arity: %s", got)
	}
	_, _, err = in.Call("fib", []value.Value{value.I64(3)})
	if got := outcome(value.Value{}, err); got != "error bad-argument: argument n of fib: expected U64, found I64 3" {
		t.Errorf("type: %s", got)
	}
}

func TestConcurrentCalls(t *testing.T) {
	in := interp.New(checked(t, recursion+matching[len(typeDecls):]+typeDecls))
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				v, _, err := in.Call("fib", []value.Value{value.U64(uint64(10 + g%3))})
				want := map[int]string{0: "55", 1: "89", 2: "144"}[g%3]
				if err != nil || v.String() != want {
					errs <- fmt.Errorf("fib: %v %v", v, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
