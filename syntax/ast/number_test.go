package ast

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseNumber pins the accepted number shapes: -?[0-9]+ integers,
// -?[0-9]+.[0-9]+ decimals, [0-9]+(ms|s|m|h|d) durations, nothing else.
func TestParseNumber(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0", "int 0"},
		{"42", "int 42"},
		{"-7", "int -7"},
		{"-0", "int 0"},
		{"007", "int 7"},
		{"18446744073709551616", "int overflow"},
		{"0.5", "decimal"},
		{"-12.25", "decimal"},
		{"1.", "nil"},
		{".5", "nil"},
		{"1.2.3", "nil"},
		{"500ms", "duration 500"},
		{"30s", "duration 30000"},
		{"5m", "duration 300000"},
		{"24h", "duration 86400000"},
		{"7d", "duration 604800000"},
		{"-5m", "nil"},
		{"5mm", "nil"},
		{"5 m", "nil"},
		{"ms", "nil"},
		{"-", "nil"},
		{"", "nil"},
		{"99999999999999999999d", "nil"},
		{"1x", "nil"},
	} {
		got := "nil"
		switch v := ParseNumber(tc.in, Span{}).(type) {
		case *IntLit:
			switch {
			case v.Overflow:
				got = "int overflow"
			case v.Neg:
				got = fmt.Sprintf("int -%d", v.Mag)
			default:
				got = fmt.Sprintf("int %d", v.Mag)
			}
		case *DecimalLit:
			got = "decimal"
		case *Duration:
			got = fmt.Sprintf("duration %d", v.Millis)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseNumber(%q): %s", tc.in, diff)
		}
	}
}
