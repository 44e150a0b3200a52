package react

import (
	"testing"
)

// TestJSNumber: doubles are written as JavaScript's String(number) writes
// them (values from node).
func TestJSNumber(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {-0.0, "0"}, {1, "1"}, {100, "100"}, {-42, "-42"}, {1.5, "1.5"},
		{0.30000000000000004, "0.30000000000000004"}, {0.000001, "0.000001"}, {1e-7, "1e-7"}, {-1.5e-7, "-1.5e-7"},
		{1e21, "1e+21"}, {123456789012345680000, "123456789012345680000"}, {1.7976931348623157e308, "1.7976931348623157e+308"},
		{5e-324, "5e-324"}, {2.5e25, "2.5e+25"}, {18446744073709551615, "18446744073709552000"},
	} {
		if got := jsNumber(tc.f); got != tc.want {
			t.Errorf("jsNumber(%v) = %s, want %s", tc.f, got, tc.want)
		}
	}
}

// TestShow: show() of the bundle, over JSON as JSON.parse reads it.
func TestShow(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`null`, ""}, {`"a<b"`, "a<b"}, {`true`, "true"}, {`7`, "7"}, {`1e400`, "Infinity"},
		{`{"b":1,"a":2,"10":3,"2":4,"01":5,"b":6}`, `{"2":4,"10":3,"b":6,"a":2,"01":5}`},
		{`[1e400,"\u0001\n\u2028",{}]`, "[null,\"\\u0001\\n\u2028\",{}]"},
	} {
		v, err := parseJS([]byte(tc.json))
		if err != nil {
			t.Fatal(err)
		}
		if got := show(v); got != tc.want {
			t.Errorf("show(%s) = %s, want %s", tc.json, got, tc.want)
		}
	}
	if _, err := parseJS([]byte(`{} {}`)); err == nil {
		t.Error("two values parsed")
	}
}
