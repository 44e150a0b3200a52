package ast

import (
	"github.com/capsulang/caps/syntax"
)

// The clause keywords each typed declaration accepts.
var (
	functionClauses = []string{"version", "input", "output", "effects", "requires", "ensures", "example", "body", "summary"}
	machineClauses  = []string{"version", "context", "event", "initial", "persistence", "state", "claim", "summary"}
	stateClauses    = []string{"type", "timeout", "on", "summary"}
	onClauses       = []string{"guard", "target", "assign", "effects", "summary"}
	storeClauses    = []string{"backend", "authority", "collection", "summary"}
	surfaceClauses  = []string{"protocol", "title", "route", "catalog", "bind", "event", "state", "action", "summary"}
	portClauses     = []string{"protocol", "endpoint", "tool", "resource", "prompt", "summary", "auth"}
	agentClauses    = []string{"protocol", "endpoint", "discovery", "auth", "skill", "summary"}
)

// TypeClauses and the others are exported for completion.
var (
	FunctionClauses = functionClauses
	MachineClauses  = machineClauses
	StateClauses    = stateClauses
	OnClauses       = onClauses
	StoreClauses    = storeClauses
	SurfaceClauses  = surfaceClauses
	PortClauses     = portClauses
	AgentClauses    = agentClauses
)

func (b *builder) typeDecl(base DeclBase) *TypeDecl {
	d := &TypeDecl{DeclBase: base}
	f := base.Form
	if len(f.Items()) != 3 {
		if len(f.Items()) < 3 {
			b.errorf(CodeMissingClause, f.Span(), "type %s needs a definition, e.g. (type %s (record (id U64)))", base.Name.Name, base.Name.Name)
		} else {
			b.errorf(CodeUnknownForm, f.Items()[3].Span(), "type %s has more than one definition", base.Name.Name)
		}
		if len(f.Items()) < 3 {
			return d
		}
	}
	def := f.Items()[2]
	switch def.Head() {
	case "record", "error", "event":
		d.Def = &RecordDef{Form: def, Keyword: Ident{def.Head(), def.Items()[0].Span()}, Fields: b.fields(def.Items()[1:], "field")}
	case "enum":
		e := &EnumDef{Form: def}
		for _, it := range def.Items()[1:] {
			if id, ok := b.ident(it, "enum member name"); ok {
				e.Members = append(e.Members, id)
			}
		}
		if len(e.Members) == 0 {
			b.errorf(CodeMissingClause, def.Span(), "enum %s has no members", base.Name.Name)
		}
		d.Def = e
	case "variant":
		v := &VariantDef{Form: def}
		for _, it := range def.Items()[1:] {
			switch {
			case it.Kind == syntax.FormSymbol:
				v.Cases = append(v.Cases, &VariantCase{Name: Ident{it.Text(), it.Span()}})
			case it.Kind == syntax.FormList && len(it.Items()) > 0 && it.Items()[0].Kind == syntax.FormSymbol:
				v.Cases = append(v.Cases, &VariantCase{Name: Ident{it.Items()[0].Text(), it.Items()[0].Span()}, Fields: b.fields(it.Items()[1:], "variant field")})
			default:
				b.errorf(CodeUnknownForm, it.Span(), "a variant case is a name or (name (field Type)...)")
			}
		}
		if len(v.Cases) == 0 {
			b.errorf(CodeMissingClause, def.Span(), "variant %s has no cases", base.Name.Name)
		}
		d.Def = v
	default:
		d.Def = &AliasDef{Type: b.typeRef(def)}
	}
	return d
}

// typeRef reads a type expression.
func (b *builder) typeRef(f *syntax.Form) *TypeRef {
	switch f.Kind {
	case syntax.FormSymbol:
		return NewTypeRef(f.Span(), Ident{f.Text(), f.Span()})
	case syntax.FormList:
		if len(f.Items()) == 0 || f.Items()[0].Kind != syntax.FormSymbol {
			b.errorf(CodeUnknownForm, f.Span(), "expected a type such as U64 or (List Text)")
			return NewTypeRef(f.Span(), Ident{})
		}
		t := NewTypeRef(f.Span(), Ident{f.Items()[0].Text(), f.Items()[0].Span()})
		for _, a := range f.Items()[1:] {
			if a.Kind == syntax.FormNumber && t.Name.Name == "Array" {
				if lit, ok := b.number(a).(*IntLit); ok {
					t.SetLen(lit)
				}
				continue
			}
			t.Args = append(t.Args, b.typeRef(a))
		}
		return t
	}
	b.errorf(CodeUnknownForm, f.Span(), "expected a type such as U64 or (List Text), found %s", describe(f))
	return NewTypeRef(f.Span(), Ident{})
}

func (b *builder) function(base DeclBase) *Function {
	fn := &Function{DeclBase: base}
	for _, it := range clauseItems(base.Form, base.Name.Valid()) {
		if !IsClause(it) {
			continue
		}
		cl := ClauseOf(it)
		c := &cl
		switch c.Key.Name {
		case "version":
			fn.Version = b.stringArg(c.Form, "version")
		case "input":
			fn.Inputs = append(fn.Inputs, b.fields(c.Args, "input")...)
		case "output":
			if len(c.Args) != 1 {
				b.errorf(CodeMissingClause, c.Form.Span(), "(output ...) takes one type")
				if len(c.Args) == 0 {
					continue
				}
			}
			fn.Output = b.typeRef(c.Args[0])
		case "effects":
			fn.Effects = b.effects(c)
		case "requires":
			fn.Requires = append(fn.Requires, b.oneExpr(c))
		case "ensures":
			fn.Ensures = append(fn.Ensures, b.oneExpr(c))
		case "example":
			fn.Examples = append(fn.Examples, b.example(c))
		case "body":
			if b.header {
				continue
			}
			if fn.Body != nil {
				b.errorf(CodeDuplicateDecl, c.Key.Span, "function %s has more than one body", base.Name.Name)
			}
			fn.Body = b.oneExpr(c)
		case "summary":
		default:
			b.unknownClause(c, "function "+base.Name.Name, functionClauses)
		}
	}
	if fn.Output == nil {
		b.errorf(CodeMissingClause, nameOrKeyword(base), "function %s has no (output TYPE) clause", base.Name.Name)
	}
	if fn.Body == nil {
		b.errorf(CodeMissingClause, nameOrKeyword(base), "function %s has no (body EXPR) clause", base.Name.Name)
	}
	return fn
}

func nameOrKeyword(base DeclBase) Span {
	if base.Name.Valid() {
		return base.Name.Span
	}
	return base.Keyword().Span
}

func (b *builder) oneExpr(c *Clause) Expr {
	if len(c.Args) != 1 {
		b.errorf(CodeMissingClause, c.Form.Span(), "(%s ...) takes exactly one expression", c.Key.Name)
		if len(c.Args) == 0 {
			return &BadExpr{Span: c.Form.Span()}
		}
	}
	return b.expr(c.Args[0])
}

func (b *builder) example(c *Clause) *Example {
	ex := &Example{Form: c.Form}
	if len(c.Args) != 2 || c.Args[0].Kind != syntax.FormList || len(c.Args[0].Items()) == 0 || c.Args[0].Items()[0].Kind != syntax.FormSymbol {
		b.errorf(CodeMissingClause, c.Form.Span(), "write an example as (example (FUNCTION arg...) EXPECTED)")
		ex.Expected = &BadExpr{Span: c.Form.Span()}
		return ex
	}
	call := c.Args[0]
	ex.Func = Ident{call.Items()[0].Text(), call.Items()[0].Span()}
	for _, a := range call.Items()[1:] {
		ex.Args = append(ex.Args, b.expr(a))
	}
	ex.Expected = b.expr(c.Args[1])
	return ex
}

// effects reads (effects pure) or (effects (eff target...)...).
func (b *builder) effects(c *Clause) *EffectsClause {
	ec := &EffectsClause{Form: c.Form}
	if len(c.Args) == 1 && c.Args[0].Kind == syntax.FormSymbol && c.Args[0].Text() == "pure" {
		ec.Pure = true
		return ec
	}
	for _, a := range c.Args {
		if e := b.effect(a); e != nil {
			ec.Items = append(ec.Items, e)
		}
	}
	return ec
}

// effect reads one effect intent: (NAME target... option...), or a bare
// NAME for effects without a target.
func (b *builder) effect(f *syntax.Form) *Effect {
	if f.Kind == syntax.FormSymbol {
		if f.Text() == "pure" {
			b.errorf(CodeUnknownForm, f.Span(), "`pure` stands alone: write (effects pure)")
			return nil
		}
		return &Effect{Form: f, Name: Ident{f.Text(), f.Span()}}
	}
	if f.Kind != syntax.FormList || len(f.Items()) == 0 || f.Items()[0].Kind != syntax.FormSymbol {
		b.errorf(CodeUnknownForm, f.Span(), "expected an effect such as (db.write store.collection), found %s", describe(f))
		return nil
	}
	e := &Effect{Form: f, Name: Ident{f.Items()[0].Text(), f.Items()[0].Span()}}
	for _, a := range f.Items()[1:] {
		switch {
		case a.Kind == syntax.FormSymbol && len(e.Args) == 0:
			e.Targets = append(e.Targets, Ident{a.Text(), a.Span()})
		case a.Head() == "retry" && len(a.Items()) == 2:
			if n, ok := b.number(a.Items()[1]).(*IntLit); ok {
				e.Retry = n
			} else {
				b.errorf(CodeBadLiteral, a.Items()[1].Span(), "(retry N) takes a whole number of retries")
			}
		case a.Head() == "timeout" && len(a.Items()) == 2:
			if d, ok := b.number(a.Items()[1]).(*Duration); ok {
				e.Timeout = d
			} else {
				b.errorf(CodeBadLiteral, a.Items()[1].Span(), "(timeout D) takes a duration such as 30s")
			}
		case a.Head() == "on-error" && len(a.Items()) == 2 && a.Items()[1].Kind == syntax.FormSymbol:
			e.OnError = Ident{a.Items()[1].Text(), a.Items()[1].Span()}
		case a.Head() == "claim" && len(a.Items()) == 2 && a.Items()[1].Kind == syntax.FormSymbol:
			e.Claim, e.ClaimForm = Ident{a.Items()[1].Text(), a.Items()[1].Span()}, a
		case a.Head() == "claim":
			b.errorf(CodeUnknownForm, a.Span(), "write a claim option as (claim FIELD), naming a context field the machine declares a claim")
		case a.Head() == "retry" || a.Head() == "timeout" || a.Head() == "on-error":
			b.errorf(CodeUnknownForm, a.Span(), "write effect options as (retry N), (timeout 30s) or (on-error STATE)")
		default:
			e.Args = append(e.Args, b.expr(a))
		}
	}
	return e
}

func (b *builder) machine(base DeclBase, clauses []*Clause) *Machine {
	m := &Machine{DeclBase: base, Clauses: clauses}
	for _, c := range clauses {
		switch c.Key.Name {
		case "version":
			m.Version = b.stringArg(c.Form, "version")
		case "context":
			m.Context = append(m.Context, b.fields(c.Args, "context field")...)
		case "event":
			ev := &Event{Form: c.Form}
			if len(c.Args) == 0 {
				b.errorf(CodeMissingClause, c.Form.Span(), "an event needs a name: (event NAME (field Type)...)")
				continue
			}
			ev.Name, _ = b.ident(c.Args[0], "event name")
			ev.Fields = b.fields(c.Args[1:], "event field")
			m.Events = append(m.Events, ev)
		case "initial":
			m.Initial = b.oneIdent(c, "initial state")
		case "persistence":
			m.Persistence = c
		case "state":
			m.States = append(m.States, b.state(c))
		case "claim":
			if cd := b.claimDecl(c); cd != nil {
				m.Claims = append(m.Claims, cd)
			}
		case "summary":
		default:
			b.unknownClause(c, "machine "+base.Name.Name, machineClauses)
		}
	}
	if !m.Initial.Valid() {
		b.errorf(CodeMissingClause, nameOrKeyword(base), "machine %s has no (initial STATE) clause", base.Name.Name)
	}
	return m
}

func (b *builder) state(c *Clause) *State {
	s := &State{Form: c.Form}
	if len(c.Args) == 0 || c.Args[0].Kind != syntax.FormSymbol {
		b.errorf(CodeMissingClause, c.Form.Span(), "a state needs a name: (state NAME ...)")
		return s
	}
	s.Name = Ident{c.Args[0].Text(), c.Args[0].Span()}
	for _, a := range c.Args[1:] {
		if a.Kind != syntax.FormList || a.Head() == "" {
			b.errorf(CodeUnknownForm, a.Span(), "unexpected %s in state %s", describe(a), s.Name.Name)
			continue
		}
		sc := &Clause{Form: a, Key: Ident{a.Head(), a.Items()[0].Span()}, Args: a.Items()[1:]}
		switch sc.Key.Name {
		case "type":
			s.TypeClause = sc
			t := b.oneIdent(sc, "state type")
			switch t.Name {
			case "final":
				s.Final = true
			case "normal", "":
			default:
				b.errorf(CodeUnknownForm, t.Span, "unknown state type `%s`; the only state type is final", t.Name)
			}
		case "timeout":
			s.Timeout = b.timeout(sc)
		case "on":
			s.Transitions = append(s.Transitions, b.transition(sc))
		case "summary":
		default:
			b.unknownClause(sc, "state "+s.Name.Name, stateClauses)
		}
	}
	return s
}

func (b *builder) timeout(c *Clause) *Timeout {
	t := &Timeout{Form: c.Form}
	if len(c.Args) != 2 {
		b.errorf(CodeMissingClause, c.Form.Span(), "write a state timeout as (timeout 30m EVENT)")
		return t
	}
	if d, ok := b.number(c.Args[0]).(*Duration); ok {
		t.Duration = d
	} else {
		b.errorf(CodeBadLiteral, c.Args[0].Span(), "a timeout needs a duration such as 30s, 5m or 24h")
	}
	t.Event, _ = b.ident(c.Args[1], "event name")
	return t
}

func (b *builder) transition(c *Clause) *Transition {
	t := &Transition{Form: c.Form}
	if len(c.Args) == 0 || c.Args[0].Kind != syntax.FormSymbol {
		b.errorf(CodeMissingClause, c.Form.Span(), "a transition names its event: (on EVENT (target STATE) ...)")
		return t
	}
	t.Event = Ident{c.Args[0].Text(), c.Args[0].Span()}
	for _, a := range c.Args[1:] {
		if a.Kind != syntax.FormList || a.Head() == "" {
			b.errorf(CodeUnknownForm, a.Span(), "unexpected %s in transition on %s", describe(a), t.Event.Name)
			continue
		}
		tc := &Clause{Form: a, Key: Ident{a.Head(), a.Items()[0].Span()}, Args: a.Items()[1:]}
		switch tc.Key.Name {
		case "guard":
			t.Guard = b.oneExpr(tc)
		case "target":
			t.Target = b.oneIdent(tc, "target state")
		case "assign":
			for _, as := range tc.Args {
				if as.Kind != syntax.FormList || len(as.Items()) != 2 || as.Items()[0].Kind != syntax.FormSymbol {
					b.errorf(CodeUnknownForm, as.Span(), "write an assignment as (field EXPR)")
					continue
				}
				t.Assigns = append(t.Assigns, &Assign{Form: as, Field: Ident{as.Items()[0].Text(), as.Items()[0].Span()}, Value: b.expr(as.Items()[1])})
			}
		case "effects":
			ec := b.effects(tc)
			if ec.Pure {
				continue
			}
			t.Effects = append(t.Effects, ec.Items...)
		case "summary":
		default:
			b.unknownClause(tc, "transition on "+t.Event.Name, onClauses)
		}
	}
	if !t.Target.Valid() {
		b.errorf(CodeMissingClause, t.Event.Span, "transition on %s has no (target STATE) clause", t.Event.Name)
	}
	return t
}

func (b *builder) store(base DeclBase, clauses []*Clause) *Store {
	s := &Store{DeclBase: base, Clauses: clauses}
	for _, c := range clauses {
		switch c.Key.Name {
		case "backend":
			s.Backend = b.oneIdent(c, "backend name")
		case "authority":
			s.Authority = b.oneIdent(c, "authority")
		case "collection":
			for _, a := range c.Args {
				if id, ok := b.ident(a, "collection name"); ok {
					s.Collections = append(s.Collections, id)
				}
			}
		case "summary":
		default:
			b.unknownClause(c, "store "+base.Name.Name, storeClauses)
		}
	}
	return s
}

// operation reads (tool NAME) or (tool NAME (input ...) (output T) ...);
// a bare list of names (tool a b c) declares several operations.
func (b *builder) operations(c *Clause) []*Operation {
	if len(c.Args) == 0 {
		b.errorf(CodeMissingClause, c.Form.Span(), "(%s ...) needs a name", c.Key.Name)
		return nil
	}
	allNames := true
	for _, a := range c.Args {
		if a.Kind != syntax.FormSymbol {
			allNames = false
		}
	}
	if allNames {
		var out []*Operation
		for _, a := range c.Args {
			out = append(out, &Operation{Form: c.Form, Keyword: c.Key, Name: Ident{a.Text(), a.Span()}})
		}
		return out
	}
	op := &Operation{Form: c.Form, Keyword: c.Key}
	op.Name, _ = b.ident(c.Args[0], c.Key.Name+" name")
	for _, a := range c.Args[1:] {
		if a.Kind != syntax.FormList || a.Head() == "" {
			b.errorf(CodeUnknownForm, a.Span(), "unexpected %s in %s %s", describe(a), c.Key.Name, op.Name.Name)
			continue
		}
		oc := &Clause{Form: a, Key: Ident{a.Head(), a.Items()[0].Span()}, Args: a.Items()[1:]}
		switch oc.Key.Name {
		case "input":
			op.Inputs = append(op.Inputs, b.fields(oc.Args, "input")...)
		case "output":
			if len(oc.Args) == 1 {
				op.Output = b.typeRef(oc.Args[0])
			} else {
				b.errorf(CodeMissingClause, oc.Form.Span(), "(output ...) takes one type")
			}
		default:
			op.Clauses = append(op.Clauses, oc)
		}
	}
	return []*Operation{op}
}

func (b *builder) surface(base DeclBase, clauses []*Clause) *Surface {
	s := &Surface{DeclBase: base, Clauses: clauses}
	for _, c := range clauses {
		switch c.Key.Name {
		case "protocol":
			s.Protocol = b.protocol(c)
		case "title":
			s.Title = b.stringArg(c.Form, "title")
		case "route":
			s.Route = b.stringArg(c.Form, "route")
		case "catalog":
			s.Catalog = b.stringArg(c.Form, "catalog URL")
		case "bind":
			s.Bind = b.oneIdent(c, "machine name")
		case "event":
			for _, a := range c.Args {
				if id, ok := b.ident(a, "event name"); ok {
					s.Events = append(s.Events, id)
				}
			}
		case "state":
			s.State = append(s.State, b.fields(c.Args, "state field")...)
		case "action":
			s.Actions = append(s.Actions, b.operations(c)...)
		case "summary":
		default:
			b.unknownClause(c, "surface "+base.Name.Name, surfaceClauses)
		}
	}
	return s
}

func (b *builder) port(base DeclBase, clauses []*Clause) *Port {
	p := &Port{DeclBase: base, Clauses: clauses}
	for _, c := range clauses {
		switch c.Key.Name {
		case "protocol":
			p.Protocol = b.protocol(c)
		case "endpoint":
			p.Endpoint = b.stringArg(c.Form, "endpoint URL")
		case "tool":
			p.Tools = append(p.Tools, b.operations(c)...)
		case "resource":
			p.Resources = append(p.Resources, b.operations(c)...)
		case "prompt":
			p.Prompts = append(p.Prompts, b.operations(c)...)
		case "summary", "auth":
		default:
			b.unknownClause(c, "port "+base.Name.Name, portClauses)
		}
	}
	return p
}

func (b *builder) agent(base DeclBase, clauses []*Clause) *Agent {
	a := &Agent{DeclBase: base, Clauses: clauses}
	for _, c := range clauses {
		switch c.Key.Name {
		case "protocol":
			a.Protocol = b.protocol(c)
		case "endpoint":
			a.Endpoint = b.stringArg(c.Form, "endpoint URL")
		case "skill":
			a.Skills = append(a.Skills, b.operations(c)...)
		case "summary", "discovery", "auth":
		default:
			b.unknownClause(c, "agent "+base.Name.Name, agentClauses)
		}
	}
	return a
}

// claimDecl reads (claim FIELD (policy POLICY) (accepted EVENT)); the
// checker reports a missing policy or accepted clause (E_CLAIM_DECL).
func (b *builder) claimDecl(c *Clause) *ClaimDecl {
	if len(c.Args) == 0 || c.Args[0].Kind != syntax.FormSymbol {
		b.errorf(CodeMissingClause, c.Form.Span(), "a claim names a context field: (claim FIELD (policy POLICY) (accepted EVENT))")
		return nil
	}
	cd := &ClaimDecl{Form: c.Form, Field: Ident{c.Args[0].Text(), c.Args[0].Span()}}
	for _, a := range c.Args[1:] {
		switch {
		case a.Head() == "policy" && len(a.Items()) == 2 && a.Items()[1].Kind == syntax.FormSymbol:
			cd.Policy = Ident{a.Items()[1].Text(), a.Items()[1].Span()}
		case a.Head() == "accepted" && len(a.Items()) == 2 && a.Items()[1].Kind == syntax.FormSymbol:
			cd.Accepted = Ident{a.Items()[1].Text(), a.Items()[1].Span()}
		default:
			b.errorf(CodeUnknownForm, a.Span(), "unexpected %s in claim %s; write (policy POLICY) and (accepted EVENT)", describe(a), cd.Field.Name)
		}
	}
	return cd
}
