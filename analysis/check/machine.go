package check

import (
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/internal/spell"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// machineInfo holds a machine's resolved names, shared by its checks.
type machineInfo struct {
	sym     *Symbol
	m       *ast.Machine
	states  *scope
	events  *scope
	context map[string]*Symbol
	evInfo  map[string]*eventInfo
	// claims holds the machine's claims by context field, and reads the
	// references to check against them (claims.go).
	claims map[string]*claimInfo
	reads  []claimRead
}

func (c *checker) machine(m *ast.Machine) {
	parent := c.declNamed(m.Name.Name)
	if parent != nil && parent.Decl != m {
		parent = nil
	}
	mi := &machineInfo{sym: parent, m: m, states: c.newScope("state"), events: c.newScope("event"), context: map[string]*Symbol{}, evInfo: map[string]*eventInfo{}, claims: map[string]*claimInfo{}}
	ctx := c.newScope("context field")
	for _, f := range m.Context {
		t := c.resolveType(f.Type)
		s := &Symbol{Kind: SymContextField, Name: f.Name.Name, Span: f.Name.Span, Full: f.Form.Span(), Parent: parent, Type: t, Detail: "context " + f.Name.Name + " " + t.String()}
		if ctx.add(s) {
			mi.context[f.Name.Name] = s
		}
	}
	for _, ev := range m.Events {
		if !ev.Name.Valid() {
			continue
		}
		s := &Symbol{Kind: SymEvent, Name: ev.Name.Name, Span: ev.Name.Span, Full: ev.Form.Span(), Parent: parent}
		if !mi.events.add(s) {
			continue
		}
		info := &eventInfo{sym: s, fields: map[string]*Symbol{}}
		fs := c.newScope("event field")
		detail := "(event " + ev.Name.Name
		for _, f := range ev.Fields {
			t := c.resolveType(f.Type)
			fsym := &Symbol{Kind: SymEventField, Name: f.Name.Name, Span: f.Name.Span, Full: f.Form.Span(), Parent: s, Type: t, Detail: "event." + f.Name.Name + " " + t.String()}
			if fs.add(fsym) {
				info.fields[f.Name.Name] = fsym
				info.names = append(info.names, f.Name.Name)
			}
			detail += " (" + f.Name.Name + " " + t.String() + ")"
		}
		s.Detail = detail + ")"
		mi.evInfo[ev.Name.Name] = info
	}
	for _, st := range m.States {
		if st.Name.Valid() {
			mi.states.add(&Symbol{Kind: SymState, Name: st.Name.Name, Span: st.Name.Span, Full: st.Form.Span(), Parent: parent, Detail: stateDetail(st)})
		}
	}
	if m.Initial.Valid() {
		c.stateRef(mi, m.Initial)
	}
	c.machineClaims(mi)
	if len(m.States) == 0 {
		c.errorf(MissingClause, declAt(m), "machine %s has no states; add (state NAME ...)", m.Name.Name)
	}
	if m.Persistence != nil {
		c.persistence(m.Persistence)
	}
	used := map[string]bool{}
	for _, st := range m.States {
		c.state(mi, st, used)
	}
	// Events used by surfaces bound to this machine count as used.
	for _, s := range c.surfacesBoundTo(m.Name.Name) {
		for _, e := range s.Events {
			used[e.Name] = true
			if mi.evInfo[e.Name] == nil {
				used[spell.Nearest(e.Name, mi.events.list())] = true
			}
		}
	}
	for _, name := range mi.events.list() {
		if !used[name] {
			s := mi.events.lookup(name)
			c.warnf(UnusedEvent, s.Span, "event %s is declared but no state handles it", name)
		}
	}
	c.reachability(mi)
	c.claimFlow(mi)
}

func stateDetail(st *ast.State) string {
	if st.Final {
		return "(state " + st.Name.Name + " (type final))"
	}
	return "(state " + st.Name.Name + ")"
}

func (c *checker) stateRef(mi *machineInfo, id ast.Ident) *Symbol {
	if s := mi.states.lookup(id.Name); s != nil {
		c.ref(id.Span, s)
		return s
	}
	c.errorf(UnknownState, id.Span, "unknown state `%s` in machine %s%s", id.Name, mi.m.Name.Name, didYouMean(id.Name, mi.states.list()))
	return nil
}

func (c *checker) eventRef(mi *machineInfo, id ast.Ident) *eventInfo {
	if info := mi.evInfo[id.Name]; info != nil {
		c.ref(id.Span, info.sym)
		return info
	}
	c.errorf(UnknownEvent, id.Span, "unknown event `%s` in machine %s%s", id.Name, mi.m.Name.Name, didYouMean(id.Name, mi.events.list()))
	return nil
}

func (c *checker) persistence(p *ast.Clause) {
	for _, a := range p.Args {
		if a.Head() == "store" && len(a.Items()) == 2 && a.Items()[1].Kind == syntax.FormSymbol {
			name := a.Items()[1].Text()
			if s := c.lookupDecl(name, a.Items()[1].Span()); s == nil || s.Kind != SymbolKind(ast.KindStore) {
				c.errorf(UnknownStore, a.Items()[1].Span(), "unknown store `%s`%s", name, didYouMean(name, c.declNames(ast.KindStore)))
			}
		}
	}
}

func (c *checker) state(mi *machineInfo, st *ast.State, used map[string]bool) {
	if st.Final {
		for _, t := range st.Transitions {
			sp := t.Event.Span
			if !t.Event.Valid() {
				sp = t.Form.Items()[0].Span() // (on) without an event name: the keyword
			}
			c.errorf(FinalStateTransition, sp, "final state %s cannot have transitions; remove this (on %s...) or make the state non-final", st.Name.Name, eventWord(t.Event))
		}
		if st.Timeout != nil {
			c.errorf(FinalStateTransition, st.Timeout.Form.Span(), "final state %s cannot have a timeout", st.Name.Name)
		}
	}
	if to := st.Timeout; to != nil && to.Event.Valid() {
		used[to.Event.Name] = true
		if info := c.eventRef(mi, to.Event); info != nil {
			if len(info.names) > 0 {
				c.errorf(TypeMismatch, to.Event.Span, "a timeout raises %s without a payload, but %s declares fields %v", to.Event.Name, to.Event.Name, info.names)
			}
			handled := false
			for _, t := range st.Transitions {
				if t.Event.Name == to.Event.Name {
					handled = true
				}
			}
			if !handled && !st.Final {
				c.errorf(MissingClause, to.Event.Span, "state %s times out with %s but has no (on %s ...) transition", st.Name.Name, to.Event.Name, to.Event.Name)
			}
		} else {
			used[spell.Nearest(to.Event.Name, mi.events.list())] = true
		}
	}
	unguarded := map[string]*ast.Transition{}
	for _, t := range st.Transitions {
		if !t.Event.Valid() {
			continue
		}
		used[t.Event.Name] = true
		info := c.eventRef(mi, t.Event)
		if info == nil {
			// a misspelt event (reported) stands for the one it resembles,
			// which is not also reported as unused
			used[spell.Nearest(t.Event.Name, mi.events.list())] = true
		}
		if prev := unguarded[t.Event.Name]; prev != nil {
			d := c.warnf(UnreachableTransition, t.Event.Span, "this transition on %s can never fire: an earlier one in state %s has no guard", t.Event.Name, st.Name.Name)
			d.Related = []syntax.Related{{Span: prev.Event.Span, Message: "the earlier unguarded transition"}}
		}
		if t.Guard == nil {
			unguarded[t.Event.Name] = t
		}
		if t.Target.Valid() {
			c.stateRef(mi, t.Target)
		}
		x := ectx{env: &env{}, context: mi.context, event: info}
		if info == nil {
			x.event = &eventInfo{sym: &Symbol{Name: t.Event.Name}, fields: map[string]*Symbol{}, unknown: true}
		}
		if t.Guard != nil {
			g := x
			g.pureWhat = "a guard"
			from := len(c.res.Refs)
			gt := c.exprType(g, t.Guard, types.TBool)
			mi.readClaims(st, t, from, len(c.res.Refs), "the guard")
			c.setType(t.Guard, gt)
			if !types.AssignableTo(gt, types.TBool) {
				c.errorf(GuardNotBool, t.Guard.ExprSpan(), "a guard must be Bool, found %s", types.Describe(gt))
			}
		}
		assigned := map[string]bool{}
		for _, a := range t.Assigns {
			f := mi.context[a.Field.Name]
			var want types.Type
			if f == nil {
				d := c.errorf(UnknownField, a.Field.Span, "machine %s has no context field `%s`%s", mi.m.Name.Name, a.Field.Name, didYouMean(a.Field.Name, keys(mi.context)))
				d.Fix = &syntax.Fix{Kind: syntax.FixDeclareField, Args: []string{mi.m.Name.Name, a.Field.Name}}
			} else {
				c.ref(a.Field.Span, f)
				want = f.Type
			}
			if assigned[a.Field.Name] {
				c.errorf(DuplicateDecl, a.Field.Span, "context field %s is assigned twice in one transition", a.Field.Name)
			}
			assigned[a.Field.Name] = true
			c.claimAssign(mi, a)
			ax := x
			ax.pureWhat = "an assignment"
			from := len(c.res.Refs)
			c.expr(ax, a.Value, want)
			mi.readClaims(st, t, from, len(c.res.Refs), "the assignment to "+a.Field.Name)
		}
		for _, e := range t.Effects {
			c.performedEffectRef(e)
			if e.OnError.Valid() {
				c.stateRef(mi, e.OnError)
			}
			c.effectClaim(mi, e)
			from := len(c.res.Refs)
			for _, a := range e.Args {
				c.expr(x, a, nil)
			}
			mi.readClaims(st, t, from, len(c.res.Refs), effectReader(e))
		}
	}
}

func keys(m map[string]*Symbol) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// reachability warns about states no path from the initial state reaches.
func (c *checker) reachability(mi *machineInfo) {
	m := mi.m
	if !m.Initial.Valid() || mi.states.lookup(m.Initial.Name) == nil {
		return
	}
	next := map[string][]string{}
	for _, st := range m.States {
		for _, t := range st.Transitions {
			if t.Target.Valid() && mi.states.lookup(t.Target.Name) == nil {
				return // an unknown target (already reported) leaves the graph incomplete
			}
			if t.Target.Valid() {
				next[st.Name.Name] = append(next[st.Name.Name], t.Target.Name)
			}
			for _, e := range t.Effects {
				if e.OnError.Valid() {
					next[st.Name.Name] = append(next[st.Name.Name], e.OnError.Name)
				}
			}
		}
	}
	seen := map[string]bool{m.Initial.Name: true}
	queue := []string{m.Initial.Name}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, n := range next[s] {
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	for _, st := range m.States {
		if st.Name.Valid() && !seen[st.Name.Name] && mi.states.lookup(st.Name.Name) != nil {
			c.warnf(UnreachableState, st.Name.Span, "state %s is unreachable from the initial state %s", st.Name.Name, m.Initial.Name)
		}
	}
}

// eventWord is an event name followed by a space, or "" for a missing one.
func eventWord(id ast.Ident) string {
	if !id.Valid() {
		return ""
	}
	return id.Name + " "
}

// surfacesBoundTo returns the module's surfaces bound to the machine
// called name, in declaration order. The index is built on first use, so
// that checking every machine costs one pass over the declarations, not
// one each.
func (c *checker) surfacesBoundTo(name string) []*ast.Surface {
	c.uses(keyBound + name)
	if c.boundSurfaces == nil && c.eng != nil && !c.boundScanned {
		// An incremental run usually checks one machine: look for its
		// surfaces alone rather than index every surface of the module.
		c.boundScanned = true
		var out []*ast.Surface
		for _, d := range c.mod.Decls {
			if s, ok := d.(*ast.Surface); ok && s.Bind.Name == name {
				out = append(out, s)
			}
		}
		return out
	}
	if c.boundSurfaces == nil {
		c.boundSurfaces = map[string][]*ast.Surface{}
		for _, d := range c.mod.Decls {
			if s, ok := d.(*ast.Surface); ok {
				c.boundSurfaces[s.Bind.Name] = append(c.boundSurfaces[s.Bind.Name], s)
			}
		}
	}
	return c.boundSurfaces[name]
}

// effectReader names an effect's arguments for E_CLAIM_READ_AS_FACT: a
// store projection, or an effect's arguments.
func effectReader(e *ast.Effect) string {
	switch e.Name.Name {
	case "db.project", "typedb.write":
		return "the projection " + e.Name.Name
	}
	return "the arguments of " + e.Name.Name
}
