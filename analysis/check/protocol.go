package check

import (
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

var knownBackends = []string{"surrealdb", "typedb", "file", "memory", "postgres", "sqlite", "ledger"}

func (c *checker) declSym(d ast.Decl) *Symbol {
	s := c.declNamed(d.Base().Name.Name)
	if s != nil && s.Decl == d {
		return s
	}
	return nil
}

func (c *checker) store(st *ast.Store) {
	if st.Backend.Valid() {
		known := false
		for _, b := range knownBackends {
			if b == st.Backend.Name {
				known = true
			}
		}
		if !known {
			c.warnf(UnknownBackend, st.Backend.Span, "unknown store backend `%s`%s", st.Backend.Name, didYouMean(st.Backend.Name, knownBackends))
		}
	} else {
		c.errorf(MissingClause, declAt(st), "store %s has no (backend NAME) clause", st.Name.Name)
	}
	c.duplicateClauses(st.Clauses, "backend", "authority")
}

// storeCollections defines a store's collections (in the members pass).
func (c *checker) storeCollections(st *ast.Store) {
	parent := c.declSym(st)
	cols := c.newScope("collection")
	for _, col := range st.Collections {
		cols.add(&Symbol{Kind: SymCollection, Name: col.Name, Span: col.Span, Full: col.Span, Parent: parent, Detail: "collection " + st.Name.Name + "." + col.Name})
	}
}

// duplicateClauses reports single-valued clauses given more than once.
func (c *checker) duplicateClauses(cls []*ast.Clause, single ...string) {
	seen := map[string]*ast.Clause{}
	for _, cl := range cls {
		for _, k := range single {
			if cl.Key.Name != k {
				continue
			}
			if prev := seen[k]; prev != nil {
				d := c.errorf(DuplicateDecl, cl.Key.Span, "(%s ...) is given twice", k)
				d.Related = []syntax.Related{{Span: prev.Key.Span, Message: "first given here"}}
			}
			seen[k] = cl
		}
	}
}

func (c *checker) protocolName(p *ast.Protocol, allowed ...string) {
	if p == nil || !p.Name.Valid() {
		return
	}
	for _, a := range allowed {
		if p.Name.Name == a {
			return
		}
	}
	c.errorf(UnknownName, p.Name.Span, "unknown protocol `%s` here; expected %s%s", p.Name.Name, strings.Join(allowed, " or "), didYouMean(p.Name.Name, allowed))
}

// operations defines a declaration's operations (tools, skills, actions)
// once each and resolves their types.
func (c *checker) operations(parent *Symbol, what string, ops []*ast.Operation) {
	s := c.newScope(what)
	for _, op := range ops {
		if !op.Name.Valid() {
			continue
		}
		detail := op.Keyword.Name + " " + op.Name.Name
		for _, in := range op.Inputs {
			t := c.resolveType(in.Type)
			detail += " (" + in.Name.Name + " " + t.String() + ")"
		}
		if op.Output != nil {
			detail += " -> " + c.resolveType(op.Output).String()
		}
		s.add(&Symbol{Kind: SymOperation, Name: op.Name.Name, Span: op.Name.Span, Full: op.Form.Span(), Parent: parent, Detail: detail})
	}
}

func (c *checker) surface(s *ast.Surface) {
	parent := c.declSym(s)
	c.protocolName(s.Protocol, "a2ui")
	c.duplicateClauses(s.Clauses, "protocol", "title", "route", "catalog", "bind")
	var mi *ast.Machine
	if s.Bind.Valid() {
		sym := c.lookupDecl(s.Bind.Name, s.Bind.Span)
		if sym == nil {
			c.errorf(UnknownName, s.Bind.Span, "unknown machine `%s`%s", s.Bind.Name, didYouMean(s.Bind.Name, c.declNames(ast.KindMachine)))
		} else if m, ok := sym.Decl.(*ast.Machine); ok {
			mi = m
		} else {
			c.errorf(UnknownName, s.Bind.Span, "`%s` is a %s; a surface binds a machine", s.Bind.Name, sym.Kind)
		}
	} else if len(s.Events) > 0 {
		c.errorf(MissingClause, declAt(s), "surface %s lists events but binds no machine; add (bind MACHINE)", s.Name.Name)
	}
	if mi != nil {
		var names []string
		for _, ev := range mi.Events {
			names = append(names, ev.Name.Name)
		}
		for _, e := range s.Events {
			found := false
			for _, ev := range mi.Events {
				if ev.Name.Name == e.Name {
					found = true
					if ms := c.declNamed(mi.Name.Name); ms != nil {
						c.ref(e.Span, c.member(ms, SymEvent, e.Name))
					}
				}
			}
			if !found {
				c.errorf(UnknownEvent, e.Span, "machine %s has no event `%s`%s", mi.Name.Name, e.Name, didYouMean(e.Name, names))
			}
		}
	}
	fields := c.newScope("state field")
	for _, f := range s.State {
		t := c.resolveType(f.Type)
		sym := &Symbol{Kind: SymField, Name: f.Name.Name, Span: f.Name.Span, Full: f.Form.Span(), Parent: parent, Type: t}
		if !c.opts.Once {
			sym.Detail = "state " + f.Name.Name + " " + t.String()
		}
		fields.add(sym)
	}
}

func (c *checker) port(p *ast.Port) {
	c.protocolName(p.Protocol, "mcp", "http")
	c.duplicateClauses(p.Clauses, "protocol", "endpoint")
}

// portOperations defines a port's tools, resources and prompts (in the
// members pass).
func (c *checker) portOperations(p *ast.Port) {
	var all []*ast.Operation
	all = append(all, p.Tools...)
	all = append(all, p.Resources...)
	all = append(all, p.Prompts...)
	c.operations(c.declSym(p), "operation", all)
}

func (c *checker) agent(a *ast.Agent) {
	c.protocolName(a.Protocol, "a2a", "http")
	c.duplicateClauses(a.Clauses, "protocol", "endpoint", "discovery")
}
