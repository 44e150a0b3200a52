package repair

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		{"extra paren", "    (state busy (on Stop (target done)))\n", "    (state busy (on Stop (target done))))\n", check.ParseError, "delete-paren", Safe},
		{"stray paren", "(state done (type final))))", "(state done (type final)))))", check.ParseError, "delete-paren", Safe},
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

const budgetOnlyBase = `(module r
  (capsule "1")
  (profile agentic)
  (deployment-policy Rollout (mode shadow-first))
  (function f
    (input (x U32))
    (output U32)
    (effects (secret.read vault))
    (body (do (secret.read vault) x)))
  (machine M
    (event Go)
    (initial idle)
    (state idle
      (on Go (target done) (effects (llm.call) (deploy.live))))
    (state done (type final))))
`

// TestBudgetOnlyOptions: a budget-only effect is replaced by the suggested
// effect (with the module's only target of its kind) or removed; exact
// titles, labels and results.
func TestBudgetOnlyOptions(t *testing.T) {
	type opt struct {
		ID, Title, Safety string
		Fixed             string
	}
	// edited is the base with one replacement.
	edited := func(from, to string) string {
		if !strings.Contains(budgetOnlyBase, from) {
			t.Fatalf("%q is not in the base", from)
		}
		return strings.Replace(budgetOnlyBase, from, to, 1)
	}
	tests := []struct {
		name string
		line int // 1-based line of the diagnostic
		want []opt
	}{
		{"function effects clause", 8, []opt{
			{"remove-effect", "Remove the (effects ...) clause holding only secret.read", Review, edited("\n    (effects (secret.read vault))", "")},
		}},
		{"function body", 9, []opt{
			{"remove-effect", "Remove the secret.read intent", Review, edited("(do (secret.read vault) x)", "(do x)")},
		}},
		{"transition", 14, []opt{
			{"replace-effect", "Replace deploy.live with deploy.promote Rollout", ExpandsAuthority, edited("(deploy.live)", "(deploy.promote Rollout)")},
			{"remove-effect", "Remove the deploy.live intent", Review, edited(" (deploy.live)", "")},
		}},
	}
	f, res := checkSrc(t, budgetOnlyBase)
	plans := Plans(Input{File: f, Result: res})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []opt
			for _, p := range plans {
				if p.Diagnostic.Code != check.EffectBudgetOnly || f.Source.CST.Lines.Line(p.Diagnostic.Span.Start)+1 != tt.line {
					continue
				}
				for _, o := range p.Options {
					got = append(got, opt{o.ID, o.Title, o.Safety, string(Apply([]byte(budgetOnlyBase), o.Edits))})
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("options (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRepairOfClippedName (issue 19, item 10; issue 21, item 2): a name
// clipped in a message (syntax.Clip) is never written back. The repair
// takes the name from the diagnostic's Fix, which holds it in full, so an
// undeclared effect on a collection with a 100-character name is
// declared with that name, and the repaired module checks clean.
func TestRepairOfClippedName(t *testing.T) {
	long := strings.Repeat("c", 100)
	for _, collection := range []string{"items", long} {
		src := strings.NewReplacer("    (effects (db.write ops.items))\n", "", "items", collection).Replace(base)
		f, res := checkSrc(t, src)
		var edits []Edit
		for _, p := range Plans(Input{File: f, Result: res}) {
			for _, o := range p.Options {
				if o.ID == "declare-effect" {
					edits = o.Edits
				}
			}
		}
		want := []Edit{{syntax.Span{Start: strings.Index(src, "\n    (body (do (db.write")}, "\n    (effects (db.write ops." + collection + "))"}}
		want[0].Span.End = want[0].Span.Start
		if diff := cmp.Diff(want, edits); diff != "" {
			t.Errorf("collection of %d characters: declare-effect edits (-want +got):\n%s\ndiagnostics %v", len(collection), diff, errorsOf(res))
			continue
		}
		if _, res2 := checkSrc(t, string(Apply([]byte(src), edits))); len(errorsOf(res2)) > 0 {
			t.Errorf("collection of %d characters: the repair left %v", len(collection), errorsOf(res2))
		}
	}
}

// TestConditionUnknownRename: a misspelt name inside a policy condition
// is replaced by the checker's suggestion (carried as data on the
// diagnostic), inside the string, and the fixed module checks cleanly.
func TestConditionUnknownRename(t *testing.T) {
	src := `(module r
  (capsule "1")
  (profile agentic external.mcp)
  (port Bank (protocol mcp) (tool transfer))
  (authority-policy P
    (input effect context)
    (outcome allow deny)
    (default deny)
    (on allow (if "effect == \"mcp.call.Bank.transfer\" and amout <= 1000")))
  (machine M
    (context (amount U32))
    (event Pay (amount U32))
    (initial idle)
    (state idle
      (on Pay (target idle) (assign (amount event.amount)) (effects (mcp.call Bank.transfer))))))
`
	f, res := checkSrc(t, src)
	plans := Plans(Input{File: f, Result: res})
	type row struct{ Code, Suggestion, ID, Title, Safety, Fixed string }
	var got []row
	for _, p := range plans {
		for _, o := range p.Options {
			got = append(got, row{p.Diagnostic.Code, p.Diagnostic.Suggestion, o.ID, o.Title, o.Safety, string(Apply([]byte(src), o.Edits))})
		}
	}
	fixed := strings.Replace(src, "amout <=", "amount <=", 1)
	want := []row{{check.ConditionUnknown, "amount", "rename", "Change `amout` to `amount` in the condition", Safe, fixed}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("plans (-want +got):\n%s", diff)
	}
	if _, res2 := checkSrc(t, fixed); len(errorsOf(res2)) > 0 {
		t.Errorf("the fix left errors: %v", errorsOf(res2))
	}
}

// TestWidenAuthority: an intent the authority can never allow gets the
// narrowest widening, labelled expands-authority: an allow rule for
// exactly that effect and target in the policy that denies it, or the
// effect and target added to the mandate's scope. Applied, the warning
// is gone and nothing else is reported.
func TestWidenAuthority(t *testing.T) {
	src := `(module r
  (capsule "1")
  (profile agentic external.mcp)
  (principal Boss (kind human))
  (principal Bot (kind agent))
  (mandate Pay
    (issued-by Boss)
    (issued-to Bot)
    (scope Bank))
  (port Bank (protocol mcp) (tool transfer refund))
  (port Mail (protocol mcp) (tool send))
  (authority-policy P
    (input effect)
    (outcome allow deny)
    (default deny)
    (on allow (if "effect.target == \"Bank.transfer\" or effect.name == \"mcp.call\" and effect.target == \"Mail.send\"")))
  (machine M
    (event Go)
    (initial s)
    (state s
      (on Go (target s) (effects (mcp.call Bank.transfer) (mcp.call Bank.refund) (mcp.call Mail.send))))))
`
	f, res := checkSrc(t, src)
	type row struct{ Code, Text, ID, Title, Safety string }
	var got []row
	fixes := map[string]string{}
	for _, p := range Plans(Input{File: f, Result: res}) {
		for _, o := range p.Options {
			got = append(got, row{p.Diagnostic.Code, src[p.Diagnostic.Span.Start:p.Diagnostic.Span.End], o.ID, o.Title, o.Safety})
			fixes[o.ID] = string(Apply([]byte(src), o.Edits))
		}
	}
	want := []row{
		{check.AuthorityNeverAllows, "(mcp.call Bank.refund)", "allow-effect", `Allow mcp.call.Bank.refund in policy P: (on allow (if "effect == \"mcp.call.Bank.refund\""))`, ExpandsAuthority},
		{check.AuthorityNeverAllows, "(mcp.call Mail.send)", "widen-scope", "Add mcp.call.Mail.send to the scope of mandate Pay", ExpandsAuthority},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("plans (-want +got):\n%s", diff)
	}
	wantFix := map[string]string{
		"allow-effect": strings.Replace(src, `"Mail.send\"")))`, `"Mail.send\""))`+"\n    (on allow (if \"effect == \\\"mcp.call.Bank.refund\\\"\")))", 1),
		"widen-scope":  strings.Replace(src, "(scope Bank)", "(scope Bank mcp.call.Mail.send)", 1),
	}
	for id, fixed := range fixes {
		if fixed != wantFix[id] {
			t.Errorf("%s gives:\n%s\nwant:\n%s", id, fixed, wantFix[id])
		}
		_, res2 := checkSrc(t, fixed)
		n := 0
		for _, d := range res2.Diagnostics {
			if d.Code == check.AuthorityNeverAllows {
				n++
			} else {
				t.Errorf("%s: %s: %s", id, d.Code, d.Message)
			}
		}
		if n != 1 {
			t.Errorf("%s: %d warnings left, want the other one", id, n)
		}
	}
}

// garbled is what TestRepairsIgnoreMessages rewrites every message to.
const garbled = "zq message rewritten by the test: `x` (y z) add profile p to admit it"

// TestRepairsIgnoreMessages (issue 21, item 2): with the message of every
// diagnostic rewritten to the same nonsense, every repair test above
// still passes: options come from a diagnostic's code, span, Suggestion
// and Fix, never from its wording.
func TestRepairsIgnoreMessages(t *testing.T) {
	defer check.RewriteMessages(func(string) string { return garbled })()
	f, res := checkSrc(t, base+"\n(")
	if len(res.Diagnostics) == 0 {
		t.Fatal("no diagnostics to rewrite")
	}
	for _, d := range res.Diagnostics {
		if d.Message != garbled {
			t.Fatalf("message not rewritten: %q", d.Message)
		}
	}
	if len(Plans(Input{File: f, Result: res})) == 0 {
		t.Fatal("no plans for a missing `)` with rewritten messages")
	}
	for name, test := range map[string]func(*testing.T){
		"PlansRemoveTheirDiagnostic": TestPlansRemoveTheirDiagnostic,
		"BudgetOnlyOptions":          TestBudgetOnlyOptions,
		"RepairOfClippedName":        TestRepairOfClippedName,
		"ConditionUnknownRename":     TestConditionUnknownRename,
		"WidenAuthority":             TestWidenAuthority,
	} {
		t.Run(name, test)
	}
}
