package check_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// hintRE finds the did-you-mean a message states; only this test reads
// it, to prove the text and the data agree.
var hintRE = regexp.MustCompile("; did you mean `([^`]+)`\\?")

// TestSuggestionsAreData (issue 21, item 2): over every checker fixture,
// a diagnostic's Suggestion is exactly the name its message suggests, and
// a diagnostic whose message suggests nothing has none; the diagnostics
// with a known repair carry it as a Fix of the right kind and arity.
func TestSuggestionsAreData(t *testing.T) {
	fixKinds := map[string]struct {
		kind string
		args int
	}{
		check.EffectNotDeclared: {syntax.FixDeclareEffect, 3},
		check.EffectNotAllowed:  {syntax.FixAddProfile, 2},
	}
	suggested, fixed := 0, 0
	for _, fx := range loadFixtures(t) {
		f, err := ast.Parse(fx.src)
		if err != nil {
			t.Fatal(err)
		}
		var stack []string
		if f.Module != nil {
			stack = []string{f.Module.Name.Name}
		}
		res := check.Check(f, check.Options{Path: fx.path, Importer: &fixtureImporter{stack: stack, cache: map[string]*check.Imported{}}})
		for _, d := range res.Diagnostics {
			want := ""
			if m := hintRE.FindStringSubmatch(d.Message); m != nil {
				want = m[1]
			}
			if d.Suggestion != want {
				t.Errorf("%s: %s %q: Suggestion %q, the message suggests %q", fx.name, d.Code, d.Message, d.Suggestion, want)
			}
			if want != "" {
				suggested++
			}
			if d.Fix != nil {
				fixed++
				if len(d.Fix.Args) > 0 && d.Fix.Args[0] == "" {
					t.Errorf("%s: %s: fix %+v names nothing", fx.name, d.Code, d.Fix)
				}
			}
			switch k, ok := fixKinds[d.Code]; {
			case ok && (d.Code != check.EffectNotAllowed || strings.Contains(d.Message, "; add profile ")):
				if d.Fix == nil || d.Fix.Kind != k.kind || len(d.Fix.Args) != k.args {
					t.Errorf("%s: %s %q: fix %+v, want %s with %d arguments", fx.name, d.Code, d.Message, d.Fix, k.kind, k.args)
				}
			case d.Code == check.ParseError && strings.HasPrefix(d.Message, "missing `)`"):
				if diff := cmp.Diff(&syntax.Fix{Kind: syntax.FixInsertParen}, d.Fix); diff != "" {
					t.Errorf("%s: %q: fix (-want +got):\n%s", fx.name, d.Message, diff)
				}
			case d.Code == check.UnknownField && strings.Contains(d.Message, "has no context field"):
				if d.Fix == nil || d.Fix.Kind != syntax.FixDeclareField || len(d.Fix.Args) != 2 || d.Fix.Args[1] != string(fx.src[d.Span.Start:d.Span.End]) {
					t.Errorf("%s: %q: fix %+v, want declare-field of the name", fx.name, d.Message, d.Fix)
				}
			case d.Code == check.ParseError && strings.HasPrefix(d.Message, "unexpected `)`"):
				if diff := cmp.Diff(&syntax.Fix{Kind: syntax.FixDeleteParen}, d.Fix); diff != "" {
					t.Errorf("%s: %q: fix (-want +got):\n%s", fx.name, d.Message, diff)
				}
			default:
				if d.Fix != nil {
					t.Errorf("%s: %s %q has an unexpected fix %+v", fx.name, d.Code, d.Message, d.Fix)
				}
			}
		}
	}
	if suggested < 20 || fixed < 5 {
		t.Errorf("the fixtures exercise only %d suggestions and %d fixes", suggested, fixed)
	}
	t.Logf("%d suggestions, %d fixes", suggested, fixed)
}
