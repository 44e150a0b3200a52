package propose

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/capsulang/caps/analysis/ir"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Rule statuses.
const (
	RuleMet        = "met"
	RuleFailed     = "failed"
	RuleMissing    = "missing"
	RuleApproval   = "needs-approval"
	RuleNotTracked = "not tracked"
)

// govEval evaluates one parent module's governance against its candidate.
// The parent's rules bind the successor: a candidate cannot escape them by
// deleting them (and deleting them is itself an authority widening).
type govEval struct {
	ws       *Workspace
	l        *loaded
	delta    AuthorityDelta
	examples TestReport
	tests    *Tests
	counts   CycleCounts
	blast    BlastRadius
	reason   func(level, rule, format string, args ...any)
	approval func(role, why string)

	suites map[string]*SuiteResult
	succ   map[string]*RuleSet
}

func (g *govEval) decls(kind ast.DeclKind) []*ast.ClauseDecl {
	var out []*ast.ClauseDecl
	for _, d := range g.l.parentMod.Decls {
		if cd, ok := d.(*ast.ClauseDecl); ok && cd.DeclKind == kind {
			out = append(out, cd)
		}
	}
	return out
}

func (g *govEval) run(out *Governance) {
	g.suites = map[string]*SuiteResult{}
	g.succ = map[string]*RuleSet{}
	for _, d := range g.decls(ast.KindEvalSuite) {
		s := g.suite(d)
		g.suites[d.Name.Name] = s
		out.EvalSuites = append(out.EvalSuites, *s)
	}
	for _, d := range g.decls(ast.KindSuccessorContract) {
		s := g.successor(d)
		g.succ[d.Name.Name] = s
		out.SuccessorContracts = append(out.SuccessorContracts, *s)
	}
	// Gates: those that a deployment policy promotes through, else all.
	gates := g.decls(ast.KindGate)
	promoted := map[string]bool{}
	for _, dp := range g.decls(ast.KindDeploymentPolicy) {
		for _, cl := range dp.Clauses {
			if cl.Key.Name == "promote-gate" && len(cl.Args) == 1 {
				promoted[cl.Args[0].Text] = true
			}
		}
	}
	for _, gd := range gates {
		if len(promoted) > 0 && !promoted[gd.Name.Name] {
			continue
		}
		out.Gates = append(out.Gates, g.gate(gd))
	}
	for _, d := range g.decls(ast.KindBudget) {
		out.Budgets = append(out.Budgets, g.budget(d))
	}
	for i := range out.EvalSuites {
		out.EvalSuites[i].Path = g.l.rel
	}
}

// suite evaluates an eval-suite from the evidence this tool has.
func (g *govEval) suite(d *ast.ClauseDecl) *SuiteResult {
	s := &SuiteResult{Name: d.Name.Name, Path: g.l.rel, Rules: []RuleResult{}}
	for _, cl := range d.Clauses {
		r := RuleResult{Rule: formText(cl.Form)}
		switch cl.Key.Name {
		case "must-pass":
			what := ""
			if len(cl.Args) > 0 {
				what = cl.Args[0].Text
			}
			switch what {
			case "examples":
				switch g.examples.Status {
				case StatusPassed, StatusNone:
					r.Status = RuleMet
				case StatusFailed:
					r.Status, r.Message = RuleFailed, fmt.Sprintf("%d example(s) fail", g.examples.Failed)
				default:
					r.Status, r.Message = RuleMissing, "examples not run: "+g.examples.Reason
				}
			case "replay":
				r.Status, r.Message = g.replayRule(argText(cl.Args, 1))
			case "scenario":
				r.Status, r.Message = evidence(g.tests.Scenarios)
			case "property":
				r.Status, r.Message = RuleMissing, "no property checker"
			case "proof":
				r.Status, r.Message = RuleMissing, "no proof checker"
			default:
				r.Status, r.Message = RuleMissing, "not understood by this tool"
			}
		case "metric":
			r.Status, r.Message = RuleMissing, "no metric evaluator: the metric needs the eval datasets"
		default:
			continue
		}
		s.Rules = append(s.Rules, r)
	}
	s.Status = rollup(s.Rules, "passed", "incomplete")
	return s
}

// replayRule evaluates (must-pass replay GLOB): met when every ledger the
// glob matches replayed against the candidate, failed when one does not,
// missing when the glob matches no ledger or the ledgers were not
// replayed.
func (g *govEval) replayRule(pattern string) (string, string) {
	files := g.ws.replayGlob(g.l, pattern)
	if len(files) == 0 {
		return RuleMissing, fmt.Sprintf("the glob %q matched no ledger (relative to the workspace root or to the module's folder); add golden ledgers that it matches", pattern)
	}
	status := map[string]string{}
	for _, it := range g.tests.Replay.Items {
		status[it.Name] = it.Status
	}
	var failed, notRun []string
	for _, f := range files {
		switch status[f] {
		case StatusPassed:
		case StatusFailed:
			failed = append(failed, f)
		default:
			notRun = append(notRun, f)
		}
	}
	switch {
	case len(failed) > 0:
		return RuleFailed, "does not replay: " + strings.Join(failed, ", ")
	case len(notRun) > 0:
		why := "not replayed"
		if g.tests.Replay.Reason != "" {
			why += " (" + g.tests.Replay.Reason + ")"
		}
		return RuleMissing, why + ": " + strings.Join(notRun, ", ")
	}
	return RuleMet, ""
}

func evidence(t TestReport) (string, string) {
	switch t.Status {
	case StatusPassed:
		return RuleMet, ""
	case StatusFailed:
		return RuleFailed, fmt.Sprintf("%d failed", t.Failed)
	case StatusNone:
		return RuleMissing, t.Reason
	}
	return RuleMissing, t.Status + ": " + t.Reason
}

// rollup: failed if any rule failed, else incomplete if any is missing or
// needs approval, else ok.
func rollup(rs []RuleResult, ok, incomplete string) string {
	st := ok
	for _, r := range rs {
		switch r.Status {
		case RuleFailed:
			return "failed"
		case RuleMissing, RuleApproval:
			st = incomplete
		}
	}
	return st
}

// successor evaluates a successor contract's rules.
func (g *govEval) successor(d *ast.ClauseDecl) *RuleSet {
	s := &RuleSet{Name: d.Name.Name, Path: g.l.rel, Rules: []RuleResult{}}
	where := "successor-contract " + d.Name.Name
	for _, cl := range d.Clauses {
		r := RuleResult{Rule: formText(cl.Form)}
		args := cl.Args
		switch cl.Key.Name {
		case "preserve":
			if len(args) == 1 {
				r.Status, r.Message = g.preserved(args[0].Text)
			}
		case "forbid":
			if len(args) == 0 {
				continue
			}
			switch args[0].Text {
			case "effect-expansion", "authority-expansion":
				switch {
				case !g.delta.Expansion:
					r.Status = RuleMet
				case len(args) == 3 && args[1].Text == "unless":
					role := args[2].Text
					if i := strings.IndexByte(role, ':'); i >= 0 {
						role = role[i+1:]
					}
					r.Status, r.Message = RuleApproval, "the change expands authority; approval "+role+" is required"
					g.approval(role, fmt.Sprintf("%s: %s", where, r.Rule))
				default:
					r.Status, r.Message = RuleFailed, fmt.Sprintf("the change expands authority (%d item(s))", len(g.delta.Added))
				}
			default:
				r.Status, r.Message = RuleMissing, "not understood by this tool: a human must check it"
			}
		case "require":
			if len(args) == 0 {
				continue
			}
			switch {
			case args[0].Text == "verification-status":
				r.Status, r.Message = RuleMissing, "no proof checker: the verification status cannot be established"
			case args[0].Text == "ledgered":
				r.Status, r.Message = RuleMet, "the commit is recorded in the evolution ledger"
			case strings.HasPrefix(args[0].Text, "eval-suite:"):
				r.Status, r.Message = g.suiteStatus(strings.TrimPrefix(args[0].Text, "eval-suite:"))
			default:
				r.Status, r.Message = g.present(args[0].Text)
			}
		default:
			continue
		}
		if r.Status == "" {
			r.Status, r.Message = RuleMissing, "not understood by this tool"
		}
		s.Rules = append(s.Rules, r)
		switch r.Status {
		case RuleFailed:
			g.reason(Fail, "successor-contract", "%s: %s: %s", where, r.Rule, r.Message)
		case RuleMissing:
			g.reason(NeedsApproval, "successor-contract", "%s: %s: %s", where, r.Rule, r.Message)
			g.approval("", fmt.Sprintf("%s: %s: missing evidence", where, r.Rule))
		}
	}
	s.Status = rollup(s.Rules, "preserved", "needs-approval")
	return s
}

func (g *govEval) suiteStatus(name string) (string, string) {
	s := g.suites[name]
	if s == nil {
		return RuleFailed, "eval-suite " + name + " is not declared"
	}
	switch s.Status {
	case "passed":
		return RuleMet, ""
	case "failed":
		return RuleFailed, "eval-suite " + name + " failed"
	}
	var missing []string
	for _, r := range s.Rules {
		if r.Status == RuleMissing {
			missing = append(missing, r.Rule)
		}
	}
	return RuleMissing, "eval-suite " + name + " is incomplete: " + strings.Join(missing, ", ")
}

// preserved checks that a KIND:NAME declaration is unchanged in meaning
// (same canonical IR) in the candidate.
func (g *govEval) preserved(qref string) (string, string) {
	kind, name, ok := strings.Cut(qref, ":")
	if !ok {
		return RuleMissing, "not a KIND:NAME reference"
	}
	pd := findDecl(g.l.parentMod, kind, name)
	cd := findDecl(g.l.candMod, kind, name)
	if pd == nil {
		return RuleMissing, qref + " is not declared in the parent"
	}
	if cd == nil {
		return RuleFailed, qref + " is removed by the candidate"
	}
	if !bytes.Equal(declIR(g.l.parentMod, pd), declIR(g.l.candMod, cd)) {
		return RuleFailed, qref + " is changed by the candidate"
	}
	return RuleMet, ""
}

func (g *govEval) present(qref string) (string, string) {
	kind, name, ok := strings.Cut(qref, ":")
	if !ok {
		return RuleMissing, "not understood by this tool"
	}
	if findDecl(g.l.candMod, kind, name) == nil {
		return RuleFailed, qref + " is not declared in the candidate"
	}
	return RuleMet, ""
}

func findDecl(m *ast.Module, kind, name string) ast.Decl {
	if m == nil {
		return nil
	}
	for _, d := range m.Decls {
		if d != nil && string(d.Kind()) == kind && d.Base().Name.Name == name {
			return d
		}
	}
	return nil
}

// declIR returns the canonical IR of one declaration (in a module holding
// only it).
func declIR(m *ast.Module, d ast.Decl) []byte {
	b, err := ir.Canonical(&ast.Module{Form: m.Form, Name: m.Name, Decls: []ast.Decl{d}})
	if err != nil {
		return []byte(err.Error())
	}
	return b
}

// gate lists which requirements of a gate are met.
func (g *govEval) gate(d *ast.ClauseDecl) GateResult {
	gr := GateResult{Name: d.Name.Name, Path: g.l.rel, Met: []string{}, Missing: []string{}, Failed: []string{}}
	where := "gate " + d.Name.Name
	var roles []string
	for _, cl := range d.Clauses {
		if cl.Key.Name == "requires" && len(cl.Args) >= 2 && cl.Args[0].Text == "approval" {
			roles = append(roles, cl.Args[1].Text)
		}
	}
	for _, cl := range d.Clauses {
		if cl.Key.Name != "requires" || len(cl.Args) == 0 {
			continue
		}
		req := strings.TrimSuffix(strings.TrimPrefix(formText(cl.Form), "(requires "), ")")
		var st, msg string
		a := cl.Args
		switch a[0].Text {
		case "eval-suite":
			st, msg = g.suiteStatus(argText(a, 1))
		case "successor-contract":
			s := g.succ[argText(a, 1)]
			switch {
			case s == nil:
				st, msg = RuleFailed, "successor-contract "+argText(a, 1)+" is not declared"
			case s.Status == "preserved":
				st = RuleMet
			case s.Status == "failed":
				st, msg = RuleFailed, "successor-contract "+s.Name+" is not preserved"
			default:
				st, msg = RuleMissing, "successor-contract "+s.Name+" needs approval or evidence"
			}
		case "approval":
			role := argText(a, 1)
			st, msg = RuleApproval, "approval "+role
			g.approval(role, where+" requires approval "+role)
		case "verification-hook", "verification-status":
			st, msg = RuleMissing, "no proof checker"
		case "ledgered":
			st = RuleMet
		case "capability", "policy":
			kind := a[0].Text
			if kind == "policy" {
				kind = "authority-policy"
			}
			if findDecl(g.l.candMod, kind, argText(a, 1)) != nil {
				st = RuleMet
			} else {
				st, msg = RuleFailed, kind+" "+argText(a, 1)+" is not declared in the candidate"
			}
		default:
			st, msg = RuleMissing, "not understood by this tool"
		}
		switch st {
		case RuleMet:
			gr.Met = append(gr.Met, req)
		case RuleFailed:
			gr.Failed = append(gr.Failed, req)
			g.reason(Fail, "gate", "%s: requires %s: %s", where, req, msg)
		default:
			gr.Missing = append(gr.Missing, req)
			if st == RuleMissing {
				g.reason(NeedsApproval, "gate", "%s: requires %s: %s", where, req, msg)
				if len(roles) == 0 {
					g.approval("", where+": missing evidence must be accepted by a person")
				}
			} else {
				g.reason(NeedsApproval, "gate", "%s requires %s", where, msg)
			}
		}
	}
	switch {
	case len(gr.Failed) > 0:
		gr.Status = "failed"
	case len(gr.Missing) > 0:
		gr.Status = "incomplete"
	default:
		gr.Status = "passed"
	}
	return gr
}

func argText(a []*syntax.Form, i int) string {
	if i < len(a) {
		return a[i].Text
	}
	return ""
}

// budget checks the limits this tool can measure.
func (g *govEval) budget(d *ast.ClauseDecl) RuleSet {
	s := RuleSet{Name: d.Name.Name, Path: g.l.rel, Rules: []RuleResult{}}
	where := "budget " + d.Name.Name
	parentEffects := map[string]bool{}
	for _, e := range declaredEffects(g.l.parentMod) {
		parentEffects[e] = true
	}
	candEffects := declaredEffects(g.l.candMod)
	for _, cl := range d.Clauses {
		r := RuleResult{Rule: formText(cl.Form)}
		limit := func(got int, what string) {
			n, err := strconv.Atoi(argText(cl.Args, 0))
			if err != nil {
				r.Status = RuleNotTracked
				return
			}
			r.Status, r.Message = RuleMet, fmt.Sprintf("%d %s", got, what)
			if got > n {
				r.Status = RuleFailed
				g.reason(Fail, "budget", "%s: %s: %d %s exceeds the limit of %d", where, r.Rule, got, what, n)
			}
		}
		switch cl.Key.Name {
		case "max-proposals":
			limit(g.counts.Proposals, "proposals in this improvement cycle")
		case "max-iterations":
			limit(g.counts.Iterations, "assessed proposals in this improvement cycle")
		case "max-files":
			limit(g.blast.Files, "files changed")
		case "max-lines":
			limit(g.blast.Lines, "lines changed")
		case "deny-effects":
			denied := map[string]bool{}
			for _, a := range cl.Args {
				denied[a.Text] = true
			}
			r.Status = RuleMet
			for _, e := range candEffects {
				if denied[e] && !parentEffects[e] {
					r.Status, r.Message = RuleFailed, "the candidate adds the denied effect "+e
					g.reason(Fail, "budget", "%s: the candidate adds effect %s, which the budget denies", where, e)
				}
			}
		case "summary":
			continue
		default:
			r.Status, r.Message = RuleNotTracked, "not measured by the propose workflow"
		}
		s.Rules = append(s.Rules, r)
	}
	s.Status = rollup(s.Rules, "within", "within")
	return s
}
