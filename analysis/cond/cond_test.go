package cond

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src        string
		start, end int
		msg        string
	}{
		{`a > 1 && b`, 6, 8, "`&&` is written `and` in a condition"},
		{`a = 1`, 2, 3, "`=` is not an operator; compare with `==`"},
		{`!a`, 0, 1, "`!` is written `not` in a condition"},
		{`a == "x`, 5, 7, "the string is not closed; add a `\"`"},
		{`(a > 1`, 6, 6, "expected `)` to close the `(` at offset 0, found end of condition"},
		{`a < b < c`, 6, 7, "comparisons do not chain; write `a < b and b < c`"},
		{`a >`, 3, 3, "the condition ends where a value is expected"},
		{`a b`, 2, 3, "unexpected `b` after a complete condition; join conditions with `and` or `or`"},
		{`99999999999999999999 > a`, 0, 20, "the integer 99999999999999999999 does not fit in 64 bits"},
		{`and a`, 0, 3, "expected a value before `and`"},
	}
	for _, tc := range tests {
		_, err := Parse(tc.src)
		if err == nil {
			t.Errorf("%q: no error", tc.src)
			continue
		}
		if diff := cmp.Diff([]any{CodeSyntax, tc.start, tc.end, tc.msg}, []any{err.Code, err.Start, err.End, err.Msg}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.src, diff)
		}
	}
}

func TestCheckAndEval(t *testing.T) {
	env := NewEnv()
	env.Define("effect", Text)
	env.Define("context.amount", Int)
	env.Define("context.vip", Bool)
	env.Alias("amount", "context.amount")
	env.Unsupported("context.at", "Timestamp")
	env.Undeclared("risk")
	vals := map[string]Value{"effect": TextValue("http.call.api.refund"), "context.amount": UintValue(80), "context.vip": BoolValue(false)}
	get := func(p string) (Value, bool) { v, ok := vals[p]; return v, ok }
	closest := func(name string, c []string) string {
		if name == "amout" {
			return "amount"
		}
		return ""
	}
	tests := []struct {
		src  string
		want bool
		errs []string // "CODE start-end msg"
	}{
		{`effect == "http.call.api.refund" and amount > 50`, true, nil},
		{`effect == "http.call.api.refund" and (context.amount <= 50)`, false, nil},
		{`not context.vip or amount > -1`, true, nil},
		{`amount == 80 and not (effect != "http.call.api.refund")`, true, nil},
		{`amout > 1`, false, []string{"E_CONDITION_UNKNOWN 0-5 unknown name `amout` in the condition; did you mean `amount`?"}},
		{`risk == "high"`, false, []string{"E_CONDITION_UNKNOWN 0-4 `risk` is not among the policy's inputs; add it to the policy's (input ...) clause"}},
		{`context.at > 1`, false, []string{"E_CONDITION_TYPE 0-10 `context.at` is a Timestamp, which a condition cannot compare; conditions compare integers, Text, enum members and Bool values"}},
		{`effect > "a"`, false, []string{"E_CONDITION_TYPE 0-12 `>` orders integers, but this compares a Text with a Text"}},
		{`amount`, false, []string{"E_CONDITION_TYPE 0-6 a condition must be true or false, but this is an integer; compare it with something, e.g. `amount == ...`"}},
		{`context.vip and 1`, false, []string{"E_CONDITION_TYPE 16-17 `and` needs Bool operands, but this is an integer"}},
	}
	for _, tc := range tests {
		x, perr := Parse(tc.src)
		if perr != nil {
			t.Fatalf("%q: %v", tc.src, perr)
		}
		var got []string
		for _, e := range Check(x, env, closest) {
			got = append(got, e.Code+" "+itoa(e.Start)+"-"+itoa(e.End)+" "+e.Msg)
		}
		if diff := cmp.Diff(tc.errs, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.src, diff)
			continue
		}
		if len(got) > 0 {
			continue
		}
		v, err := Eval(x, env, get)
		if err != nil || v != tc.want {
			t.Errorf("%q = %v, %v; want %v", tc.src, v, err, tc.want)
		}
	}
}

func TestIntegerOrder(t *testing.T) {
	vals := []Value{IntValue(-9223372036854775808), IntValue(-1), IntValue(0), UintValue(1), UintValue(18446744073709551615)}
	for i := range vals {
		for j := range vals {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := cmpInt(vals[i], vals[j]); got != want {
				t.Errorf("cmp(%v, %v) = %d, want %d", vals[i], vals[j], got, want)
			}
		}
	}
}

func itoa(n int) string { return Value{K: Int, Mag: uint64(n)}.String() }

func FuzzParse(f *testing.F) {
	for _, s := range []string{`a == "x" and (b > 1 or not c)`, `((((`, `"\"`, `-`, `a.b.c <= -9223372036854775808`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, err := Parse(s)
		if err != nil {
			if err.Start < 0 || err.End < err.Start || err.End > len(s) {
				t.Fatalf("%q: error range %d-%d outside the text", s, err.Start, err.End)
			}
			return
		}
		start, end := x.Pos()
		if start < 0 || end > len(s) || start > end {
			t.Fatalf("%q: expression range %d-%d", s, start, end)
		}
	})
}
