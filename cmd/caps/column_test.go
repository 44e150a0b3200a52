package main

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFmtAndCheckAgreeOnColumns checks that caps fmt and caps check put
// the same syntax error at the same line:column, counted in characters:
// a tab is one column and so is an astral character (issue 21: fmt once
// counted UTF-8 bytes).
func TestFmtAndCheckAgreeOnColumns(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"tab and astral", "(module m (capsule \"1.0\")\n\t(😀 x (\n", []string{"<stdin>:2:8: error E_PARSE", "<stdin>:2:8: error E_PARSE", "<stdin>:2:8: error E_PARSE"}},
		{"accents and a bracket", "(module m (capsule \"1.0\")\n  (é é) ( ]\n", []string{"<stdin>:2:10: error E_PARSE", "<stdin>:2:10: error E_PARSE", "<stdin>:2:11: error E_PARSE"}},
		{"astral then a stray paren", "(module m (capsule \"1.0\"))\n\"😀😀\" )\n", []string{"<stdin>:2:6: error E_PARSE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := func(args ...string) []string {
				r := runCaps(t, tc.src, args...)
				var got []string
				for _, line := range strings.Split(r.stderr+r.stdout, "\n") {
					if strings.Contains(line, "E_PARSE") {
						if i := strings.Index(line, " E_PARSE"); i >= 0 {
							line = line[:i+len(" E_PARSE")]
						}
						got = append(got, line)
					}
				}
				sort.Strings(got)
				return got
			}
			fmtLines, checkLines := parse("fmt", "-"), parse("check", "-")
			if diff := cmp.Diff(fmtLines, checkLines); diff != "" {
				t.Errorf("caps fmt and caps check disagree on E_PARSE positions (-fmt +check):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, checkLines); diff != "" {
				t.Errorf("caps check positions (-want +got):\n%s", diff)
			}
		})
	}
}
