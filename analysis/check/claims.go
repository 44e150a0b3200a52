package check

// Claims before facts (spec §07; docs/language.md, "Claims before
// facts"). What an MCP or A2A effect returns is an observation; a
// machine that keeps it declares a claim on a context field:
//
//	(acceptance reviewed (human risk_officer))
//	(machine M ...
//	  (claim score (policy reviewed) (accepted ScoreAccepted))
//	  ... (effects (mcp.call scorer.score (claim score))) ...)
//
// The field is a fact, and may be read, only where the claim is known to
// be accepted: in a transition on its accepted event (which the runtime
// admits only once the claim was accepted) or in a transition leaving a
// state every path to which handled that event after the last
// observation. The checker proves that with a must-analysis over the
// state graph.

import (
	"sort"
	"strconv"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// claimInfo is one (claim FIELD ...) of a machine.
type claimInfo struct {
	decl     *ast.ClaimDecl
	field    *Symbol
	observed bool
	// broken is set when the clause has no (accepted EVENT) (reported):
	// its reads are not judged again.
	broken bool
}

// claimRead is a span of the module's references (c.res.Refs[from:to])
// made by one guard, assignment or effect's arguments of a transition.
type claimRead struct {
	st       *ast.State
	t        *ast.Transition
	from, to int
	what     string
}

// acceptancePolicy checks an (acceptance NAME RULE) declaration: exactly
// one rule, (auto), (quorum N (principals P...)) with 1 <= N <= the
// number of distinct principals, or (human P).
func (c *checker) acceptancePolicy(d *ast.ClauseDecl) {
	n := len(c.res.Diagnostics)
	defer func() {
		if len(c.res.Diagnostics) > n { // a broken policy is not also reported unused
			c.markBadAcceptance(d)
		}
	}()
	var rule *ast.Clause
	unknown := false
	for _, cl := range d.Clauses {
		switch cl.Key.Name {
		case "summary":
			continue
		case "auto", "quorum", "human":
		default:
			c.errorf(ClaimPolicy, cl.Key.Span, "unknown acceptance rule `%s` in acceptance %s; write (auto), (quorum N (principals P...)) or (human PRINCIPAL)%s", cl.Key.Name, d.Name.Name, didYouMean(cl.Key.Name, []string{"auto", "quorum", "human"}))
			unknown = true
			continue
		}
		if rule != nil {
			dg := c.errorf(ClaimPolicy, cl.Key.Span, "acceptance %s has more than one rule; keep one of (%s ...) and (%s ...)", d.Name.Name, rule.Key.Name, cl.Key.Name)
			dg.Related = []syntax.Related{{Span: rule.Key.Span, Message: "the first rule"}}
			continue
		}
		rule = cl
		switch cl.Key.Name {
		case "auto":
			if len(cl.Args) > 0 {
				c.errorf(ClaimPolicy, cl.Form.Span(), "(auto) takes no arguments: it accepts every claim as soon as it is observed")
			}
		case "human":
			if len(cl.Args) != 1 || cl.Args[0].Kind != syntax.FormSymbol {
				c.errorf(ClaimPolicy, cl.Form.Span(), "write a human rule as (human PRINCIPAL): the one principal whose acceptance makes the claim a fact")
			}
		case "quorum":
			c.quorum(d, cl)
		}
	}
	if rule == nil && !unknown {
		c.errorf(ClaimPolicy, declAt(d), "acceptance %s has no rule; add (auto), (quorum N (principals P...)) or (human PRINCIPAL)", d.Name.Name)
	}
}

func (c *checker) quorum(d *ast.ClauseDecl, cl *ast.Clause) {
	if len(cl.Args) != 2 || cl.Args[0].Kind != syntax.FormNumber || cl.Args[1].Head() != "principals" {
		c.errorf(ClaimPolicy, cl.Form.Span(), "write a quorum rule as (quorum N (principals P...)): N distinct principals of the list must accept")
		return
	}
	n, err := strconv.Atoi(cl.Args[0].Text())
	ps := cl.Args[1].Items()[1:]
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Kind != syntax.FormSymbol {
			c.errorf(ClaimPolicy, p.Span(), "a principal is a name, such as alice or risk_officer")
			continue
		}
		if seen[p.Text()] {
			c.errorf(ClaimPolicy, p.Span(), "principal %s is listed twice in acceptance %s; each principal counts once", p.Text(), d.Name.Name)
		}
		seen[p.Text()] = true
	}
	if err != nil || n < 1 || n > len(seen) {
		c.errorf(ClaimPolicy, cl.Args[0].Span(), "a quorum of %s cannot be met by %d distinct principals; write a number from 1 to %d", cl.Args[0].Text(), len(seen), len(seen))
	}
}

// markBadAcceptance records an acceptance declaration reported
// malformed: its body check (acceptancePolicy) reported a diagnostic.
func (c *checker) markBadAcceptance(d *ast.ClauseDecl) {
	if c.badAcceptance == nil {
		c.badAcceptance = map[*ast.ClauseDecl]bool{}
	}
	c.badAcceptance[d] = true
}

// acceptanceDecl finds the module's acceptance policy called name.
func (c *checker) acceptanceDecl(name string) (*Symbol, *ast.ClauseDecl) {
	s := c.declNamed(name)
	if s == nil {
		return nil, nil
	}
	if d, ok := s.Decl.(*ast.ClauseDecl); ok && d.DeclKind == ast.KindAcceptance {
		return s, d
	}
	return nil, nil
}

// machineClaims checks a machine's claim clauses against its context,
// events and the module's acceptance policies.
func (c *checker) machineClaims(mi *machineInfo) {
	for _, cd := range mi.m.Claims {
		f := mi.context[cd.Field.Name]
		if f == nil {
			c.errorf(ClaimDecl, cd.Field.Span, "claim %s names no context field of machine %s; declare (%s TYPE) in its (context ...)%s", cd.Field.Name, mi.m.Name.Name, cd.Field.Name, didYouMean(cd.Field.Name, keys(mi.context)))
		} else {
			c.ref(cd.Field.Span, f)
		}
		if prev := mi.claims[cd.Field.Name]; prev != nil {
			dg := c.errorf(ClaimDecl, cd.Field.Span, "context field %s is claimed twice in machine %s", cd.Field.Name, mi.m.Name.Name)
			dg.Related = []syntax.Related{{Span: prev.decl.Field.Span, Message: "first claimed here"}}
			continue
		}
		if !cd.Policy.Valid() {
			c.errorf(ClaimDecl, cd.Field.Span, "claim %s has no (policy POLICY) clause naming the acceptance that turns it into a fact", cd.Field.Name)
		} else if s, _ := c.acceptanceDecl(cd.Policy.Name); s != nil {
			c.ref(cd.Policy.Span, s)
		} else {
			c.errorf(ClaimUnknownPolicy, cd.Policy.Span, "unknown acceptance policy `%s`; declare (acceptance %s (human PRINCIPAL)) or name a declared one%s", cd.Policy.Name, cd.Policy.Name, didYouMean(cd.Policy.Name, c.declNames(ast.KindAcceptance)))
		}
		if !cd.Accepted.Valid() {
			c.errorf(ClaimDecl, cd.Field.Span, "claim %s has no (accepted EVENT) clause: the event after which %s may be read as a fact", cd.Field.Name, cd.Field.Name)
		} else {
			c.eventRef(mi, cd.Accepted)
		}
		if f != nil {
			mi.claims[cd.Field.Name] = &claimInfo{decl: cd, field: f, broken: !cd.Accepted.Valid() || !cd.Policy.Valid()}
		}
	}
}

// effectClaim checks an effect's (claim FIELD) option.
func (c *checker) effectClaim(mi *machineInfo, e *ast.Effect) {
	if !e.Claim.Valid() {
		return
	}
	if def := catalog.LookupEffect(e.Name.Name); def == nil || def.Domain != "mcp" && def.Domain != "a2a" {
		c.errorf(ClaimNotExternal, e.ClaimForm.Span(), "%s does not call an MCP tool or an A2A agent, so it observes nothing to claim; only mcp.* and a2a.* effects take (claim FIELD)", e.Name.Name)
		return
	}
	ci := mi.claims[e.Claim.Name]
	if ci == nil {
		c.errorf(ClaimUnknown, e.Claim.Span, "machine %s declares no claim `%s`; add (claim %s (policy POLICY) (accepted EVENT))%s", mi.m.Name.Name, e.Claim.Name, e.Claim.Name, didYouMean(e.Claim.Name, claimNames(mi)))
		// a misspelt claim (reported) stands for the one it resembles,
		// which is not also reported as never observed
		if near := mi.claims[spell.Nearest(e.Claim.Name, claimNames(mi))]; near != nil {
			near.observed = true
		}
		return
	}
	ci.observed = true
	c.ref(e.Claim.Span, ci.field)
}

func claimNames(mi *machineInfo) []string {
	out := make([]string, 0, len(mi.claims))
	for k := range mi.claims {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// claimAssign reports an assignment to a claim field: a fact comes only
// from an accepted claim.
func (c *checker) claimAssign(mi *machineInfo, a *ast.Assign) {
	if ci := mi.claims[a.Field.Name]; ci != nil && !ci.broken {
		dg := c.errorf(ClaimAssigned, a.Field.Span, "%s holds claim %s; a transition cannot assign it: its value comes only from an observation accepted under policy %s", a.Field.Name, a.Field.Name, ci.decl.Policy.Name)
		dg.Related = []syntax.Related{{Span: ci.decl.Field.Span, Message: "the claim"}}
	}
}

// readClaims records the references made since from by one part of a
// transition, for claimFlow.
func (mi *machineInfo) readClaims(st *ast.State, t *ast.Transition, from, to int, what string) {
	if len(mi.claims) > 0 && to > from {
		mi.reads = append(mi.reads, claimRead{st: st, t: t, from: from, to: to, what: what})
	}
}

// claimFlow warns about claims nothing observes and reports every read
// of a claim field where the claim is not known to be accepted.
func (c *checker) claimFlow(mi *machineInfo) {
	if len(mi.claims) == 0 {
		return
	}
	for _, name := range claimNames(mi) {
		if ci := mi.claims[name]; !ci.observed && !ci.broken {
			c.warnf(ClaimNeverObserved, ci.decl.Field.Span, "claim %s is never observed: no mcp.* or a2a.* effect of machine %s has (claim %s), so %s never becomes a fact", name, mi.m.Name.Name, name, name)
		}
	}
	acc := c.acceptedIn(mi)
	bySym := map[*Symbol]*claimInfo{}
	for _, ci := range mi.claims {
		bySym[ci.field] = ci
	}
	for _, rd := range mi.reads {
		ok := acceptedBy(mi, rd.t)
		for name := range acc[rd.st.Name.Name] {
			ok[name] = true
		}
		for _, ref := range c.res.Refs[rd.from:rd.to] {
			ci := bySym[ref.Sym]
			if ci == nil || ci.broken || ok[ci.decl.Field.Name] {
				continue
			}
			c.readAsFact(ref.Span, rd.what+" reads "+ci.decl.Field.Name, ci)
		}
	}
	// A store projection writes the context to a read model: every claim
	// it carries must be a fact there.
	for _, st := range mi.m.States {
		cur, reached := acc[st.Name.Name]
		if !reached {
			continue
		}
		for _, t := range st.Transitions {
			ok := acceptedBy(mi, t)
			for k := range cur {
				ok[k] = true
			}
			for _, e := range t.Effects {
				if e.Claim.Valid() {
					delete(ok, e.Claim.Name) // observed again: a claim until accepted
				}
				if e.Name.Name != "db.project" && e.Name.Name != "typedb.write" {
					continue
				}
				for _, name := range claimNames(mi) {
					if !ok[name] && !mi.claims[name].broken {
						c.readAsFact(e.Name.Span, "the projection "+e.Name.Name+" carries "+name, mi.claims[name])
						break
					}
				}
			}
		}
	}
}

func (c *checker) readAsFact(sp syntax.Span, what string, ci *claimInfo) {
	dg := c.errorf(ClaimReadAsFact, sp, "%s as a fact, but claim %s may not be accepted here: read it in (on %s ...) or in a state reached only through %s since the last observation", what, ci.decl.Field.Name, ci.decl.Accepted.Name, ci.decl.Accepted.Name)
	dg.Related = []syntax.Related{{Span: ci.decl.Field.Span, Message: "the claim, accepted under policy " + ci.decl.Policy.Name}}
}

// acceptedBy is the set of claims a transition's event proves accepted.
func acceptedBy(mi *machineInfo, t *ast.Transition) map[string]bool {
	out := map[string]bool{}
	for name, ci := range mi.claims {
		if ci.decl.Accepted.Name == t.Event.Name {
			out[name] = true
		}
	}
	return out
}

// acceptedIn computes, for every state reachable from the initial state,
// the claims accepted on every path into it: the greatest fixpoint of
// in(s) = ∩ over transitions t into s of (in(from) ∪ acceptedBy(t)) −
// observedBy(t), with in(initial) also meeting the empty set. States no
// path reaches are absent (their reads are not judged).
func (c *checker) acceptedIn(mi *machineInfo) map[string]map[string]bool {
	m := mi.m
	in := map[string]map[string]bool{}
	if !m.Initial.Valid() {
		return in
	}
	in[m.Initial.Name] = map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, st := range m.States {
			cur, ok := in[st.Name.Name]
			if !ok {
				continue
			}
			for _, t := range st.Transitions {
				out := acceptedBy(mi, t)
				for k := range cur {
					out[k] = true
				}
				for _, e := range t.Effects {
					if e.Claim.Valid() {
						delete(out, e.Claim.Name)
					}
				}
				targets := []ast.Ident{t.Target}
				for _, e := range t.Effects {
					if e.OnError.Valid() {
						targets = append(targets, e.OnError)
					}
				}
				for _, to := range targets {
					if !to.Valid() {
						continue
					}
					prev, seen := in[to.Name]
					if !seen {
						in[to.Name] = copySet(out)
						changed = true
						continue
					}
					for k := range prev {
						if !out[k] {
							delete(prev, k)
							changed = true
						}
					}
				}
			}
		}
	}
	return in
}

func copySet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// unusedAcceptance warns about acceptance policies no claim names.
func (c *checker) unusedAcceptance(m *ast.Module) {
	c.unusedAcceptanceOf(m, func(i int, cd *ast.ClauseDecl) bool { return c.badAcceptance[cd] }, nil)
}

// unusedAcceptanceOf is unusedAcceptance with bad telling the malformed
// acceptance declarations (by index in m.Decls) and at, when not nil,
// moving a span of declaration i to where it lies in the text checked
// (Recheck's fast path, whose kept declarations are the base's trees).
// What it reads of the module is syntax: every machine's claims and the
// acceptance declarations' names, whichever declarations were checked
// again.
func (c *checker) unusedAcceptanceOf(m *ast.Module, bad func(i int, cd *ast.ClauseDecl) bool, at func(i int, sp syntax.Span) syntax.Span) {
	used := map[string]bool{}
	names := c.declNames(ast.KindAcceptance)
	for _, d := range m.Decls {
		if mc, ok := d.(*ast.Machine); ok {
			for _, cd := range mc.Claims {
				used[cd.Policy.Name] = true
				// a misspelt policy (reported) stands for the one it resembles
				used[spell.Nearest(cd.Policy.Name, names)] = true
			}
		}
	}
	for i, d := range m.Decls {
		if cd, ok := d.(*ast.ClauseDecl); ok && cd.DeclKind == ast.KindAcceptance && cd.Name.Valid() && !used[cd.Name.Name] && !bad(i, cd) {
			sp := cd.Name.Span
			if at != nil {
				sp = at(i, sp)
			}
			c.warnf(ClaimUnusedPolicy, sp, "acceptance %s is declared but no claim uses it", cd.Name.Name)
		}
	}
}
