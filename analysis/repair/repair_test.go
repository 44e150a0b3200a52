package repair

import (
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

func checkSrc(t *testing.T, src string) (*ast.File, *check.Result) {
	t.Helper()
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return f, check.Check(f, check.Options{})
}

func errorsOf(res *check.Result) []string {
	var out []string
	for _, d := range res.Diagnostics {
		if d.Severity == syntax.Error || d.Code == check.UnreachableState {
			out = append(out, d.Code+": "+d.Message)
		}
	}
	return out
}

const base = `(module r
  (capsule "1")
  (profile persistence.memory)
  (store ops (backend memory) (collection items))
  (function save
    (input (x I64))
    (output I64)
    (effects (db.write ops.items))
    (body (do (db.write ops.items x) x)))
  (machine M
    (context (n U32))
    (event Go (k U32))
    (event Stop)
    (initial idle)
    (state idle
      (on Go (target busy) (assign (n event.k)))
      (on Stop (target done)))
    (state busy (on Stop (target done)))
    (state done (type final))))
`

func TestPlansRemoveTheirDiagnostic(t *testing.T) {
	tests := []struct {
		name   string
		from   string // replace in base
		to     string
		code   string
		option string
		safety string
	}{
		{"misspelt state", "(target busy)", "(target bsy)", check.UnknownState, "rename", Safe},
		{"missing state declared", "(on Stop (target done)))\n    (state busy", "(on Stop (target finished)))\n    (state busy", check.UnknownState, "declare-state", Review},
		{"misspelt event", "(on Stop (target done)))\n    (state busy", "(on Stpo (target done)))\n    (state busy", check.UnknownEvent, "rename", Safe},
		{"missing event declared", "(on Stop (target done)))\n    (state busy", "(on Pause (target done)))\n    (state busy", check.UnknownEvent, "declare-event", Review},
		{"missing context field", "(assign (n event.k))", "(assign (n event.k) (seen true))", check.UnknownField, "declare-field", Review},
		{"misspelt type", "(input (x I64))", "(input (x I46))", check.UnknownType, "rename", Safe},
		{"undeclared effect", "    (effects (db.write ops.items))\n", "", check.EffectNotDeclared, "declare-effect", ExpandsAuthority},
		{"effect outside profiles", "(profile persistence.memory)", "(profile pure)", check.EffectNotAllowed, "add-profile", ExpandsAuthority},
		{"unreachable state", "(state done (type final))))", "(state done (type final))\n    (state orphan (on Stop (target done)))))", check.UnreachableState, "remove-state", Review},
		{"missing paren", "    (state busy (on Stop (target done)))\n", "    (state busy (on Stop (target done))\n", check.ParseError, "insert-paren", Safe},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(base, tt.from, tt.to, 1)
			if src == base && tt.from != tt.to {
				t.Fatalf("replacement did not apply")
			}
			f, res := checkSrc(t, src)
			plans := Plans(Input{File: f, Result: res})
			var opt *Option
			var diag syntax.Diagnostic
			for _, p := range plans {
				for i, o := range p.Options {
					if p.Diagnostic.Code == tt.code && o.ID == tt.option && opt == nil {
						opt, diag = &p.Options[i], p.Diagnostic
					}
				}
			}
			if opt == nil {
				t.Fatalf("no %s option for %s; diagnostics %v; plans %+v", tt.option, tt.code, errorsOf(res), plans)
			}
			if opt.Safety != tt.safety {
				t.Errorf("safety %s, want %s", opt.Safety, tt.safety)
			}
			fixed := Apply([]byte(src), opt.Edits)
			_, res2 := checkSrc(t, string(fixed))
			for _, d := range res2.Diagnostics {
				if d.Code == diag.Code && d.Message == diag.Message {
					t.Errorf("diagnostic survived the repair:\n%s", fixed)
				}
			}
			if errs := errorsOf(res2); len(errs) > 0 {
				t.Errorf("repair left errors %v in:\n%s", errs, fixed)
			}
		})
	}
}
