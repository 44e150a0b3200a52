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

// noVerification says why a verification status requirement is missing.
const noVerification = "no proof checker: this tool cannot establish a verification status, so no commit through it meets this requirement"

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
	// unmet records a requirement the candidate does not meet.
	unmet func(Requirement)

	suites map[string]*SuiteResult
	succ   map[string]*RuleSet
	// succRoles holds, per successor contract, the roles its rules wait
	// for.
	succRoles map[string][]string
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
	g.succRoles = map[string][]string{}
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
				promoted[cl.Args[0].Text()] = true
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
				what = cl.Args[0].Text()
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
		return RuleMissing, fmt.Sprintf("the glob %q matched no ledger; add golden ledgers it matches (from the workspace root or the module's folder)", pattern)
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
		role := "" // the approval a needs-approval rule waits for
		switch cl.Key.Name {
		case "preserve":
			if len(args) == 1 {
				r.Status, r.Message = g.preserved(args[0].Text())
			}
		case "forbid":
			if len(args) == 0 {
				continue
			}
			switch args[0].Text() {
			case "effect-expansion", "authority-expansion":
				switch {
				case !g.delta.Expansion:
					r.Status = RuleMet
				case len(args) == 3 && args[1].Text() == "unless":
					role = approvalRole(args[2].Text())
					r.Status, r.Message = RuleApproval, "the change expands authority; approval "+role+" is required"
					g.approval(role, fmt.Sprintf("%s: %s", where, r.Rule))
				default:
					r.Status, r.Message = RuleFailed, fmt.Sprintf("the change expands authority (%d item(s))", len(g.delta.Added))
				}
			default:
				r.Status, r.Message = RuleMissing, "not understood by this tool"
			}
		case "require":
			if len(args) == 0 {
				continue
			}
			switch {
			case args[0].Text() == "verification-status":
				r.Status, r.Message = RuleMissing, noVerification
			case args[0].Text() == "ledgered":
				r.Status, r.Message = RuleMet, "the commit is recorded in the evolution ledger"
			case strings.HasPrefix(args[0].Text(), "eval-suite:"):
				r.Status, r.Message = g.suiteStatus(strings.TrimPrefix(args[0].Text(), "eval-suite:"))
			default:
				r.Status, r.Message = g.present(args[0].Text())
			}
		default:
			continue
		}
		if r.Status == "" {
			r.Status, r.Message = RuleMissing, "not understood by this tool"
		}
		s.Rules = append(s.Rules, r)
		req := Requirement{SuccessorContract: d.Name.Name, Path: g.l.rel, Requirement: unparen(r.Rule), Status: r.Status, Why: r.Message}
		switch r.Status {
		case RuleFailed:
			g.reason(Fail, "successor-contract", "%s: %s: %s", where, r.Rule, r.Message)
			g.unmet(req)
		case RuleMissing:
			g.reason(Incomplete, "successor-contract", "%s: %s: %s", where, r.Rule, r.Message)
			g.unmet(req)
		case RuleApproval:
			req.Roles = []string{role}
			g.succRoles[d.Name.Name] = append(g.succRoles[d.Name.Name], role)
			g.unmet(req)
		}
	}
	s.Status = rollup(s.Rules, "preserved", "needs-approval")
	return s
}

// approvalRole is the role of an approval:ROLE reference.
func approvalRole(qref string) string {
	if i := strings.IndexByte(qref, ':'); i >= 0 {
		return qref[i+1:]
	}
	return qref
}

// unparen strips a form's outer parentheses: "(require x)" -> "require x".
func unparen(form string) string {
	return strings.TrimSuffix(strings.TrimPrefix(form, "("), ")")
}

func (g *govEval) suiteStatus(name string) (string, string) {
	s := g.suites[name]
	if s == nil {
		return RuleFailed, "eval-suite " + name + " is not declared"
	}
	if s.Status == "passed" {
		return RuleMet, ""
	}
	// The rules that are not met, each with its reason.
	var failed, missing []string
	for _, r := range s.Rules {
		switch r.Status {
		case RuleFailed:
			failed = append(failed, r.Rule+": "+r.Message)
		case RuleMissing:
			missing = append(missing, r.Rule+": "+r.Message)
		}
	}
	if len(failed) > 0 {
		return RuleFailed, "eval-suite " + name + " failed: " + strings.Join(failed, "; ")
	}
	return RuleMissing, "eval-suite " + name + " is incomplete: " + strings.Join(missing, "; ")
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

// gate lists which requirements of a gate are met, and records the others
// as unmet: failed and missing ones block the commit (an approval cannot
// stand in for evidence); approval ones wait for their roles.
func (g *govEval) gate(d *ast.ClauseDecl) GateResult {
	gr := GateResult{Name: d.Name.Name, Path: g.l.rel, Met: []string{}, Missing: []string{}, Failed: []string{}}
	where := "gate " + d.Name.Name
	for _, cl := range d.Clauses {
		if cl.Key.Name != "requires" || len(cl.Args) == 0 {
			continue
		}
		req := strings.TrimPrefix(unparen(formText(cl.Form)), "requires ")
		st, msg, roles := g.requirement(where, cl.Args)
		switch st {
		case RuleMet:
			gr.Met = append(gr.Met, req)
			continue
		case RuleFailed:
			gr.Failed = append(gr.Failed, req)
			g.reason(Fail, "gate", "%s: requires %s: %s", where, req, msg)
		case RuleApproval:
			gr.Missing = append(gr.Missing, req)
			g.reason(NeedsApproval, "gate", "%s: requires %s: %s", where, req, msg)
		default:
			gr.Missing = append(gr.Missing, req)
			g.reason(Incomplete, "gate", "%s: requires %s: %s", where, req, msg)
		}
		g.unmet(Requirement{Gate: d.Name.Name, Path: g.l.rel, Requirement: req, Status: st, Roles: roles, Why: msg})
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

// requirement evaluates one (requires ...) of a gate: its status
// (RuleMet, RuleFailed, RuleMissing or RuleApproval), why it is not met,
// and for RuleApproval the roles whose approvals meet it.
func (g *govEval) requirement(where string, a []*syntax.Form) (string, string, []string) {
	switch a[0].Text() {
	case "eval-suite":
		st, msg := g.suiteStatus(argText(a, 1))
		return st, msg, nil
	case "successor-contract":
		return g.contractStatus(argText(a, 1))
	case "approval":
		role := argText(a, 1)
		g.approval(role, where+" requires approval "+role)
		return RuleApproval, "needs approval " + role, []string{role}
	case "verification-hook", "verification-status":
		return RuleMissing, noVerification, nil
	case "ledgered":
		return RuleMet, "", nil
	case "capability", "policy":
		kind := a[0].Text()
		if kind == "policy" {
			kind = "authority-policy"
		}
		if findDecl(g.l.candMod, kind, argText(a, 1)) == nil {
			return RuleFailed, kind + " " + argText(a, 1) + " is not declared in the candidate", nil
		}
		return RuleMet, "", nil
	}
	return RuleMissing, "not understood by this tool", nil
}

// contractStatus is the status of a gate's (requires successor-contract S
// preserved): met when every rule of S is met, failed when one fails,
// missing when one lacks evidence, else needs the approvals of S's
// approval rules.
func (g *govEval) contractStatus(name string) (string, string, []string) {
	s := g.succ[name]
	if s == nil {
		return RuleFailed, "successor-contract " + name + " is not declared", nil
	}
	var missing []string
	for _, r := range s.Rules {
		switch r.Status {
		case RuleFailed:
			return RuleFailed, "successor-contract " + name + " is not preserved: " + r.Rule + ": " + r.Message, nil
		case RuleMissing:
			missing = append(missing, r.Rule)
		}
	}
	roles := g.succRoles[name]
	switch {
	case len(missing) > 0:
		// The contract's rules are unmet requirements of their own, with
		// their reasons; name them only.
		return RuleMissing, "successor-contract " + name + " lacks evidence for " + strings.Join(missing, ", "), nil
	case len(roles) > 0:
		return RuleApproval, "successor-contract " + name + " needs approval " + strings.Join(roles, ", "), roles
	}
	return RuleMet, "", nil
}

func argText(a []*syntax.Form, i int) string {
	if i < len(a) {
		return a[i].Text()
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
				denied[a.Text()] = true
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
