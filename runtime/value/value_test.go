package value_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/runtime/value"
)

var (
	size  = &types.Enum{Name: "Size", Members: []string{"small", "medium", "large"}}
	claim = &types.Record{Name: "Claim", Kind: "record", Fields: []types.Field{{Name: "id", Type: types.TU64}, {Name: "amount", Type: types.TI32}}}
	shape = &types.Variant{Name: "Outcome", Cases: []types.Case{
		{Name: "delivered", Fields: []types.Field{{Name: "sig", Type: types.TText}}},
		{Name: "held", Fields: []types.Field{{Name: "reason", Type: types.TText}, {Name: "days", Type: types.TU32}}},
		{Name: "lost"},
	}}
	textMap = &types.Map{Key: types.TText, Value: types.TU64}
	intMap  = &types.Map{Key: types.TI32, Value: types.TBool}
)

func mustParse(t *testing.T, text string, typ types.Type) value.Value {
	t.Helper()
	v, err := value.Parse(text, typ)
	if err != nil {
		t.Fatalf("Parse(%q, %s): %v", text, typ, err)
	}
	return v
}

// TestRoundTrip prints values, encodes them as JSON and parses both forms
// back.
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		typ   types.Type
		in    string // Parse input
		print string // String()
		json  string // MarshalJSON
	}{
		{types.TI64, "-7", "-7", `"-7"`},
		{types.TInt, "7", "7", `"7"`},
		{types.TI64, "-9223372036854775808", "-9223372036854775808", `"-9223372036854775808"`},
		{types.TI32, "-2147483648", "-2147483648", `-2147483648`},
		{types.TU32, "4294967295", "4294967295", `4294967295`},
		{types.TU64, "18446744073709551615", "18446744073709551615", `"18446744073709551615"`},
		{types.TWei, "1000000000000000000000", "1000000000000000000000", `"1000000000000000000000"`},
		{types.TBool, "true", "true", `true`},
		{types.TBool, "false", "false", `false`},
		{types.TText, `"a \"b\"\n\t\\ é 😀"`, `"a \"b\"\n\t\\ é 😀"`, `"a \"b\"\n\t\\ é 😀"`},
		{types.TText, `"nul \0 bell \u{7}"`, `"nul \0 bell \u{7}"`, `"nul \u0000 bell \u0007"`},
		{types.TText, `"<&>"`, `"<&>"`, `"<&>"`},
		{types.TUnit, "unit", "unit", `null`},
		{types.TDuration, "90s", "90s", `"90s"`},
		{types.TDuration, "120m", "2h", `"2h"`},
		{types.TDuration, "1500ms", "1500ms", `"1500ms"`},
		{types.TDuration, "0s", "0ms", `"0ms"`},
		{types.TTimestamp, "2026-03-01T12:00:00Z", `"2026-03-01T12:00:00Z"`, `"2026-03-01T12:00:00Z"`},
		{types.TTimestamp, `"2026-03-01T13:00:00.250+01:00"`, `"2026-03-01T12:00:00.25Z"`, `"2026-03-01T12:00:00.25Z"`},
		{types.TJson, `{"b": [1, 2.50], "a": null}`, `"{\"a\":null,\"b\":[1,2.50]}"`, `{"a":null,"b":[1,2.50]}`},
		{types.TAddress, "0xAbC", `"0xAbC"`, `"0xAbC"`},
		{types.TBytes32, "0x" + strings.Repeat("ab", 32), `"0x` + strings.Repeat("ab", 32) + `"`, `"0x` + strings.Repeat("ab", 32) + `"`},
		{size, "Size.medium", "Size.medium", `"medium"`},
		{size, "large", "Size.large", `"large"`},
		{claim, "(record Claim (amount -2) (id 1))", "(record Claim (id 1) (amount -2))", `{"id":"1","amount":-2}`},
		{shape, `(delivered "sig")`, `(delivered "sig")`, `{"case":"delivered","fields":{"sig":"sig"}}`},
		{shape, `(Outcome.held "customs" 2)`, `(held "customs" 2)`, `{"case":"held","fields":{"reason":"customs","days":2}}`},
		{shape, "Outcome.lost", "Outcome.lost", `{"case":"lost"}`},
		{shape, "lost", "Outcome.lost", `{"case":"lost"}`},
		{&types.Option{Elem: types.TU32}, "(some 1)", "(some 1)", `1`},
		{&types.Option{Elem: types.TU32}, "none", "none", `null`},
		{&types.Option{Elem: &types.Option{Elem: types.TU32}}, "(some none)", "(some none)", `{"some":null}`},
		{&types.Option{Elem: &types.Option{Elem: types.TU32}}, "(some (some 3))", "(some (some 3))", `{"some":3}`},
		{&types.Result{Ok: types.TU32, Err: types.TText}, "(ok 1)", "(ok 1)", `{"ok":1}`},
		{&types.Result{Ok: types.TU32, Err: types.TText}, `(err "x")`, `(err "x")`, `{"err":"x"}`},
		{&types.List{Elem: types.TU32}, "(list 1 2)", "(list 1 2)", `[1,2]`},
		{&types.List{Elem: types.TU32}, "(list)", "(list)", `[]`},
		{&types.Array{Elem: types.TBool, Len: 2}, "(list true false)", "(list true false)", `[true,false]`},
		{textMap, `(map ("b" 2) ("a" 1))`, `(map ("a" 1) ("b" 2))`, `{"a":"1","b":"2"}`},
		{intMap, `(map (3 true) (-1 false))`, `(map (-1 false) (3 true))`, `[[-1,false],[3,true]]`},
		{&types.List{Elem: claim}, "(list (record Claim (id 1) (amount 2)))", "(list (record Claim (id 1) (amount 2)))", `[{"id":"1","amount":2}]`},
	}
	for _, tc := range tests {
		v := mustParse(t, tc.in, tc.typ)
		if got := v.String(); got != tc.print {
			t.Errorf("Parse(%q, %s).String() = %s, want %s", tc.in, tc.typ, got, tc.print)
		}
		j, err := v.MarshalJSON()
		if err != nil || string(j) != tc.json {
			t.Errorf("JSON of %s = %s, %v; want %s", tc.print, j, err, tc.json)
		}
		// The printed form parses back to an equal value.
		if back, err := value.Parse(v.String(), tc.typ); err != nil || !value.Equal(back, v) {
			t.Errorf("Parse(String()) of %s: %v, %v", tc.print, back, err)
		}
		// So does the JSON form.
		if back, err := value.FromJSON(j, tc.typ); err != nil || !value.Equal(back, v) {
			t.Errorf("FromJSON(%s): %v, %v", j, back, err)
		}
		if err := value.Check(v, tc.typ); err != nil {
			t.Errorf("Check(%s, %s): %v", tc.print, tc.typ, err)
		}
	}
}

func TestParseConveniences(t *testing.T) {
	tests := []struct {
		typ  types.Type
		in   string
		want string
	}{
		{types.TText, "Ada Lovelace", `"Ada Lovelace"`},
		{types.TText, "", `""`},
		{types.TText, `  "quoted"  `, `"quoted"`},
		{types.TText, "say \"hi\"", `"say \"hi\""`},
		{types.TI64, "  -7 ", "-7"},
		{types.TU64, `"12"`, "error: expected U64, found \"12\""},
		{types.TU32, "007", "7"},
		{claim, `{"id": 3, "amount": "-4"}`, "(record Claim (id 3) (amount -4))"},
		{&types.List{Elem: types.TU32}, "[1, 2, 3]", "(list 1 2 3)"},
		{shape, `{"case": "held", "fields": {"reason": "x", "days": 1}}`, `(held "x" 1)`},
		{shape, `"lost"`, "error: expected variant Outcome, found \"lost\""},
		{types.TJson, `"{\"a\": 1}"`, `"{\"a\":1}"`},
		{types.TJson, `"just text"`, `"\"just text\""`},
		{types.TJson, `42`, `"42"`},
	}
	for _, tc := range tests {
		v, err := value.Parse(tc.in, tc.typ)
		got := v.String()
		if err != nil {
			got = "error: " + err.Error()
		}
		if got != tc.want {
			t.Errorf("Parse(%q, %s) = %s, want %s", tc.in, tc.typ, got, tc.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		typ  types.Type
		in   string
		want string
	}{
		{types.TU32, "-1", "-1 does not fit in U32 (0 to 4294967295)"},
		{types.TU32, "4294967296", "4294967296 does not fit in U32 (0 to 4294967295)"},
		{types.TI64, "9223372036854775808", "9223372036854775808 does not fit in I64 (-9223372036854775808 to 9223372036854775807)"},
		{types.TI32, "abc", "expected I32, found abc"},
		{types.TI32, "1 2", "expected one value, found 2; wrap a structured value in parentheses"},
		{types.TI32, "", "expected I32, found nothing"},
		{types.TBool, "yes", "expected Bool, found yes"},
		{size, "huge", "enum Size has no member `huge` (members: small, medium, large)"},
		{shape, "(delivered)", "case delivered of Outcome takes 1 value, found 0"},
		{shape, "(lost 1)", "case lost of Outcome has no fields; write Outcome.lost"},
		{shape, "(gone)", "variant Outcome has no case `gone` (cases: delivered, held, lost)"},
		{claim, "(record Claim (id 1))", "record Claim is missing field amount"},
		{claim, "(record Claim (id 1) (id 2) (amount 1))", "field `id` is given twice"},
		{claim, "(record Claim (id 1) (amount 1) (extra 2))", "record Claim has no field `extra`"},
		{claim, "(record Other (id 1))", "expected a record Claim, found a record of type Other"},
		{&types.Array{Elem: types.TBool, Len: 2}, "(list true)", "(Array Bool 2) needs exactly 2 elements, found 1"},
		{types.TDuration, "5x", "expected a Duration such as 500ms"},
		{types.TTimestamp, "yesterday", "expected a Timestamp as RFC 3339 text such as 2026-03-01T12:00:00Z, found \"yesterday\""},
		{types.TBytes32, "0x12", "expected Bytes32 as 0x and 64 hex digits, found \"0x12\""},
		{claim, `{"id": 1}`, `record Claim needs field "amount"`},
		{claim, `{"id": 1, "amount": 1, "x": 2}`, `record Claim has no field "x"`},
		{&types.List{Elem: claim}, `[{"id": "x", "amount": 1}]`, `[0].id: expected U64, found "x"`},
		{&types.Option{Elem: types.TText}, "(some x)", `expected Text, found x; inside a structured value write it as a string: "x"`},
		{types.TText, "(unclosed", ""},
	}
	for _, tc := range tests {
		_, err := value.Parse(tc.in, tc.typ)
		if err == nil {
			if tc.in != "(unclosed" {
				t.Errorf("Parse(%q, %s) succeeded, want %q", tc.in, tc.typ, tc.want)
			}
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q, %s) error %q, want %q", tc.in, tc.typ, err, tc.want)
		}
	}
}

func TestIntegers(t *testing.T) {
	tests := []struct {
		v    value.Value
		want string
	}{
		{value.Int(value.IntI32, 1<<31), "-2147483648"},
		{value.Int(value.IntI32, 1<<32+5), "5"},
		{value.Int(value.IntU32, 1<<32-1), "4294967295"},
		{value.Int(value.IntU32, 1<<32), "0"},
		{value.Int(value.IntI64, 1<<63), "-9223372036854775808"},
		{value.Int(value.IntU64, 1<<63), "9223372036854775808"},
		{value.I32(-1), "-1"},
		{value.U32(7), "7"},
		{value.WeiBig(big.NewInt(-1)), "115792089237316195423570985008687907853269984665640564039457584007913129639935"},
	}
	for _, tc := range tests {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%v prints %s, want %s", tc.v.IntKind(), got, tc.want)
		}
	}
	if value.Int(value.IntI32, 1<<32-1).Int64() != -1 || value.U32(5).Uint64() != 5 {
		t.Error("accessors")
	}
}

func TestEqualAndCompare(t *testing.T) {
	vals := []struct {
		typ  types.Type
		text string
	}{
		{types.TI32, "-1"}, {types.TI32, "0"}, {types.TI32, "1"},
		{types.TU32, "1"}, {types.TU32, "4294967295"},
		{types.TU64, "1"}, {types.TU64, "18446744073709551615"},
		{types.TI64, "-1"}, {types.TI64, "1"},
		{types.TText, `"a"`}, {types.TText, `"b"`}, {types.TText, `"é"`},
		{types.TBool, "false"}, {types.TBool, "true"},
		{size, "small"}, {size, "large"},
		{&types.Option{Elem: types.TU32}, "none"}, {&types.Option{Elem: types.TU32}, "(some 0)"}, {&types.Option{Elem: types.TU32}, "(some 5)"},
		{claim, "(record Claim (id 1) (amount 2))"}, {claim, "(record Claim (id 1) (amount 3))"},
		{shape, `(delivered "a")`}, {shape, `(held "a" 1)`}, {shape, "lost"},
		{&types.List{Elem: types.TU32}, "(list)"}, {&types.List{Elem: types.TU32}, "(list 1)"}, {&types.List{Elem: types.TU32}, "(list 1 2)"},
	}
	parsed := make([]value.Value, len(vals))
	for i, x := range vals {
		parsed[i] = mustParse(t, x.text, x.typ)
	}
	for i, a := range parsed {
		for j, b := range parsed {
			eq := value.Equal(a, b)
			c := value.Compare(a, b)
			if eq != (i == j) {
				t.Errorf("Equal(%s, %s) = %v", a, b, eq)
			}
			if (c == 0) != eq {
				t.Errorf("Compare(%s, %s) = %d but Equal = %v", a, b, c, eq)
			}
			if value.Compare(b, a) != -c {
				t.Errorf("Compare is not antisymmetric on %s, %s", a, b)
			}
		}
	}
	// Orders within a kind.
	less := [][2]int{{0, 1}, {1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {10, 11}, {12, 13}, {14, 15}, {16, 17}, {17, 18}, {19, 20}, {21, 22}, {22, 23}, {24, 25}, {25, 26}}
	for _, p := range less {
		if value.Compare(parsed[p[0]], parsed[p[1]]) >= 0 {
			t.Errorf("want %s < %s", parsed[p[0]], parsed[p[1]])
		}
	}
	// Json values compare by canonical text.
	j1, _ := value.JSON([]byte(`{"a": 1, "b": 2}`))
	j2, _ := value.JSON([]byte(`{"b":2,"a":1}`))
	if !value.Equal(j1, j2) {
		t.Error("canonical JSON differs")
	}
	// Different declared types are never equal.
	other := &types.Enum{Name: "Other", Members: []string{"small"}}
	if value.Equal(value.Enum(size, 0), value.Enum(other, 0)) {
		t.Error("enums of different types are equal")
	}
}

func TestDiff(t *testing.T) {
	parcel := &types.Record{Name: "Parcel", Fields: []types.Field{{Name: "tracking", Type: types.TText}, {Name: "level", Type: size}, {Name: "tags", Type: &types.List{Elem: types.TText}}}}
	want := mustParse(t, `(record Parcel (tracking "PX1") (level Size.large) (tags (list "a" "b")))`, parcel)
	got := mustParse(t, `(record Parcel (tracking "PX1") (level Size.small) (tags (list "a" "c")))`, parcel)
	lines := value.Diff(want, got, 10)
	wantLines := []string{
		"level: expected Size.large, got Size.small",
		`tags[1]: expected "b", got "c"`,
	}
	if diff := cmp.Diff(wantLines, lines); diff != "" {
		t.Errorf("Diff (-want +got)\n%s", diff)
	}
	if value.Diff(want, want, 10) != nil {
		t.Error("equal values differ")
	}
	opt := &types.Option{Elem: types.TU32}
	if got := value.Diff(mustParse(t, "(some 1)", opt), mustParse(t, "none", opt), 5); len(got) != 1 || got[0] != "expected (some 1), got none" {
		t.Errorf("option diff %q", got)
	}
}

func TestZero(t *testing.T) {
	tests := []struct {
		typ  types.Type
		want string
	}{
		{types.TU32, "0"}, {types.TI64, "0"}, {types.TBool, "false"}, {types.TText, `""`}, {types.TDuration, "0ms"},
		{&types.Option{Elem: shape}, "none"}, {&types.List{Elem: types.TU32}, "(list)"}, {textMap, "(map)"},
		{&types.Array{Elem: types.TU32, Len: 2}, "(list 0 0)"}, {claim, "(record Claim (id 0) (amount 0))"}, {size, "Size.small"},
		{shape, "none"}, {types.TTimestamp, "none"}, {types.TWei, "none"},
	}
	for _, tc := range tests {
		v, ok := value.Zero(tc.typ)
		got := "none"
		if ok {
			got = v.String()
		}
		if got != tc.want {
			t.Errorf("Zero(%s) = %s, want %s", tc.typ, got, tc.want)
		}
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		v    value.Value
		typ  types.Type
		want string
	}{
		{value.I64(1), types.TU64, "expected U64, found I64 1"},
		{value.U32(1), types.TU32, ""},
		{value.I64(1), types.TInt, ""},
		{value.Text("x"), types.TBool, `expected Bool, found Text "x"`},
		{value.List([]value.Value{value.U32(1), value.Text("x")}), &types.List{Elem: types.TU32}, `[1]: expected U32, found Text "x"`},
		{value.Record(claim, []value.Value{value.U64(1), value.U32(2)}), claim, "amount: expected I32, found U32 2"},
		{value.Some(value.Text("x")), &types.Option{Elem: types.TText}, ""},
	}
	for _, tc := range tests {
		err := value.Check(tc.v, tc.typ)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("Check(%s, %s) = %q, want %q", tc.v, tc.typ, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	tests := map[string]string{
		"plain":       `"plain"`,
		"tab\there":   `"tab\there"`,
		"cr\r":        `"cr\r"`,
		"\u200b zwsp": `"\u{200B} zwsp"`,
		"\x7f":        `"\u{7F}"`,
		"bad \xff":    `"bad \u{FFFD}"`,
	}
	for in, want := range tests {
		if got := value.Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
