// Package repair turns diagnostics into repair plans: for each diagnostic,
// typed options with a safety label and the concrete text edits that,
// applied, remove it. The language server offers them as quick fixes and
// the propose workflow records which ones were committed and kept.
package repair

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Safety labels. They are a public contract (docs/repair.md).
const (
	// Safe edits cannot change meaning beyond fixing the mistake (a
	// misspelt name that has exactly one close match, a missing `)`).
	Safe = "safe"
	// Review edits change meaning and want a human look (new declarations,
	// removed states, changed example values).
	Review = "review"
	// ExpandsAuthority edits widen what the capsule may do (declaring an
	// effect, adding a profile). They are never applied automatically.
	ExpandsAuthority = "expands-authority"
)

// Edit replaces a byte span with new text.
type Edit struct {
	Span    syntax.Span
	NewText string
}

// Option is one way to repair a diagnostic.
type Option struct {
	ID     string // stable within the plan: "rename", "declare-effect", ...
	Title  string
	Safety string
	Edits  []Edit
	// Rank orders options; lower first. Learned preferences lower it.
	Rank int
	// Why explains a learned ranking.
	Why string
}

// Plan is the options for one diagnostic.
type Plan struct {
	Diagnostic syntax.Diagnostic
	Options    []Option
}

// Input is what planning needs: the checked file and, optionally, the
// values the interpreter computed for failing examples (keyed by the span
// of the example's expected expression).
type Input struct {
	File   *ast.File
	Result *check.Result
	// Evaluated maps an example's expected-value span to the source text
	// of the value the function actually returned.
	Evaluated map[syntax.Span]string
	// Diagnostics to plan for; nil means Result.Diagnostics.
	Diagnostics []syntax.Diagnostic
}

// Plans returns a plan for every diagnostic that has at least one option.
func Plans(in Input) []Plan {
	p := &planner{in: in, src: in.File.Source.CST.Src}
	diags := in.Diagnostics
	if diags == nil {
		diags = in.Result.Diagnostics
	}
	var out []Plan
	for _, d := range diags {
		opts := p.options(d)
		if len(opts) == 0 {
			continue
		}
		sort.SliceStable(opts, func(i, j int) bool { return opts[i].Rank < opts[j].Rank })
		out = append(out, Plan{Diagnostic: d, Options: opts})
	}
	return out
}

type planner struct {
	in  Input
	src []byte
}

// fixArgs returns the arguments of d's fix when it is of kind and has n
// of them; ok is false otherwise. Options are built from the data a
// diagnostic carries (its Suggestion and Fix) and from the module, never
// from the wording of its message.
func fixArgs(d syntax.Diagnostic, kind string, n int) (args []string, ok bool) {
	if d.Fix == nil || d.Fix.Kind != kind || len(d.Fix.Args) != n {
		return nil, false
	}
	return d.Fix.Args, true
}

func (p *planner) options(d syntax.Diagnostic) []Option {
	var opts []Option
	if s := d.Suggestion; s != "" && strings.HasPrefix(d.Code, "E_UNKNOWN_") {
		opts = append(opts, Option{ID: "rename", Title: fmt.Sprintf("Change `%s` to `%s`", p.text(d.Span), s), Safety: Safe, Edits: []Edit{{d.Span, s}}})
	}
	switch d.Code {
	case check.ConditionUnknown:
		// A misspelt name inside a policy condition: the span is the
		// name within the string (a name needs no escaping); when the
		// checker could only point at the whole literal there is no edit.
		if s := d.Suggestion; s != "" && !strings.HasPrefix(p.text(d.Span), `"`) {
			opts = append(opts, Option{ID: "rename", Title: fmt.Sprintf("Change `%s` to `%s` in the condition", p.text(d.Span), s), Safety: Safe, Edits: []Edit{{d.Span, s}}})
		}
	case check.AuthorityNeverAllows:
		opts = append(opts, p.widenAuthority(d)...)
	case check.ParseError:
		if _, ok := fixArgs(d, syntax.FixInsertParen, 0); ok {
			opts = append(opts, Option{ID: syntax.FixInsertParen, Title: "Insert the missing `)`", Safety: Safe, Edits: []Edit{{d.Span, ")"}}})
		}
		if _, ok := fixArgs(d, syntax.FixDeleteParen, 0); ok {
			opts = append(opts, Option{ID: syntax.FixDeleteParen, Title: "Delete the extra `)`", Safety: Safe, Edits: []Edit{{d.Span, ""}}})
		}
	case check.EffectNotDeclared:
		if a, ok := fixArgs(d, syntax.FixDeclareEffect, 3); ok {
			if o, ok := p.declareEffect(d, a[0], a[1], a[2]); ok {
				opts = append(opts, o)
			}
		}
	case check.EffectNotAllowed:
		if a, ok := fixArgs(d, syntax.FixAddProfile, 2); ok {
			if o, ok := p.addProfile(a[0], a[1]); ok {
				opts = append(opts, o)
			}
		}
	case check.UnknownState:
		if o, ok := p.declareInMachine(d, "state"); ok {
			opts = append(opts, o)
		}
	case check.UnknownEvent:
		if o, ok := p.declareInMachine(d, "event"); ok {
			opts = append(opts, o)
		}
	case check.UnknownField:
		if o, ok := p.declareContextField(d); ok {
			opts = append(opts, o)
		}
	case check.EffectBudgetOnly:
		opts = append(opts, p.budgetOnlyOptions(d)...)
	case check.UnreachableState:
		if o, ok := p.removeState(d); ok {
			opts = append(opts, o)
		}
	case check.ExampleFailed:
		if v, ok := p.in.Evaluated[d.Span]; ok {
			opts = append(opts, Option{ID: "fix-example", Title: fmt.Sprintf("Change the expected value to %s", v), Safety: Review, Edits: []Edit{{d.Span, v}}})
		}
	}
	for i := range opts {
		opts[i].Rank = i
	}
	return opts
}

func (p *planner) text(sp syntax.Span) string { return string(p.src[sp.Start:sp.End]) }

// indentOf returns the indentation of the line holding off.
func (p *planner) indentOf(off int) string {
	lines := p.in.File.Source.CST.Lines
	start := lines.LineStart(lines.Line(off))
	end := start
	for end < len(p.src) && (p.src[end] == ' ' || p.src[end] == '\t') {
		end++
	}
	return string(p.src[start:end])
}

// insertAfter builds an edit adding a new line with text after form f, at
// f's indentation.
func (p *planner) insertAfter(f *syntax.Form, text string) Edit {
	indent := p.indentOf(f.Span().Start)
	return Edit{syntax.Span{Start: f.Span().End, End: f.Span().End}, "\n" + indent + text}
}

// functionAt returns the function containing off.
func (p *planner) functionAt(off int) *ast.Function {
	if p.in.File.Module == nil {
		return nil
	}
	for _, d := range p.in.File.Module.Decls {
		if fn, ok := d.(*ast.Function); ok && fn.Form.Span().Start <= off && off < fn.Form.Span().End {
			return fn
		}
	}
	return nil
}

func (p *planner) machineAt(off int) *ast.Machine {
	if p.in.File.Module == nil {
		return nil
	}
	for _, d := range p.in.File.Module.Decls {
		if m, ok := d.(*ast.Machine); ok && m.Form.Span().Start <= off && off < m.Form.Span().End {
			return m
		}
	}
	return nil
}

// declareEffect declares effect name (on target, if any) on the function
// called fnName that holds the diagnostic.
func (p *planner) declareEffect(d syntax.Diagnostic, fnName, name, target string) (Option, bool) {
	fn := p.functionAt(d.Span.Start)
	if fn == nil || fn.Name.Name != fnName {
		return Option{}, false
	}
	eff := "(" + name
	if target != "" {
		eff += " " + target
	}
	eff += ")"
	title := fmt.Sprintf("Declare effect %s on %s", eff, fn.Name.Name)
	if fn.Effects != nil {
		ef := fn.Effects.Form
		if fn.Effects.Pure {
			// (effects pure) -> (effects EFF)
			return Option{ID: "declare-effect", Title: title, Safety: ExpandsAuthority, Edits: []Edit{{ef.Items()[1].Span(), eff}}}, true
		}
		end := ef.Span().End - 1
		if !ef.Closed {
			end = ef.Span().End
		}
		return Option{ID: "declare-effect", Title: title, Safety: ExpandsAuthority, Edits: []Edit{{syntax.Span{Start: end, End: end}, " " + eff}}}, true
	}
	// no effects clause: add one after output (or after the name)
	anchor := fn.Form.Items()[min(1, len(fn.Form.Items())-1)]
	for _, c := range fn.Clauses() {
		if c.Key.Name == "output" || c.Key.Name == "input" {
			anchor = c.Form
		}
	}
	if anchor == fn.Form.Items()[1] {
		return Option{ID: "declare-effect", Title: title, Safety: ExpandsAuthority, Edits: []Edit{{syntax.Span{Start: anchor.Span().End, End: anchor.Span().End}, " (effects " + eff + ")"}}}, true
	}
	return Option{ID: "declare-effect", Title: title, Safety: ExpandsAuthority, Edits: []Edit{p.insertAfter(anchor, "(effects "+eff+")")}}, true
}

// addProfile adds profile, which admits effect, to the module.
func (p *planner) addProfile(profile, effect string) (Option, bool) {
	m := p.in.File.Module
	if m == nil {
		return Option{}, false
	}
	what := ""
	if effect != "" {
		what = " to admit " + effect
	}
	title := fmt.Sprintf("Add profile %s%s", profile, what)
	for _, it := range m.Form.Items() {
		if it.Head() == "profile" {
			end := it.Span().End - 1
			return Option{ID: "add-profile", Title: title, Safety: ExpandsAuthority, Edits: []Edit{{syntax.Span{Start: end, End: end}, " " + profile}}}, true
		}
	}
	for _, it := range m.Form.Items() {
		if it.Head() == "capsule" {
			return Option{ID: "add-profile", Title: title, Safety: ExpandsAuthority, Edits: []Edit{p.insertAfter(it, "(profile "+profile+")")}}, true
		}
	}
	return Option{}, false
}

// declareInMachine adds a state or event declaration named by the span.
func (p *planner) declareInMachine(d syntax.Diagnostic, what string) (Option, bool) {
	m := p.machineAt(d.Span.Start)
	if m == nil {
		return Option{}, false
	}
	name := p.text(d.Span)
	if !validName(name) {
		return Option{}, false
	}
	var anchor *syntax.Form
	for _, c := range m.Clauses {
		if c.Key.Name == what || what == "event" && anchor == nil && (c.Key.Name == "context" || c.Key.Name == "version") {
			anchor = c.Form
		}
	}
	if anchor == nil {
		anchor = m.Form.Items()[len(m.Form.Items())-1]
	}
	decl := "(" + what + " " + name + ")"
	return Option{ID: "declare-" + what, Title: fmt.Sprintf("Declare %s %s in machine %s", what, name, m.Name.Name), Safety: Review, Edits: []Edit{p.insertAfter(anchor, decl)}}, true
}

func validName(s string) bool {
	if s == "" || strings.ContainsAny(s, ".:") {
		return false
	}
	return true
}

// declareContextField adds a context field assigned but not declared, typed
// from the assigned value when the checker knows it.
func (p *planner) declareContextField(d syntax.Diagnostic) (Option, bool) {
	a, ok := fixArgs(d, syntax.FixDeclareField, 2)
	if !ok {
		return Option{}, false
	}
	m := p.machineAt(d.Span.Start)
	if m == nil || m.Name.Name != a[0] {
		return Option{}, false
	}
	name := a[1]
	typ := "Text"
	for _, st := range m.States {
		for _, t := range st.Transitions {
			for _, a := range t.Assigns {
				if a.Field.Span == d.Span {
					if vt := p.in.Result.Types.Type(a.Value); vt != nil && !types.IsInvalid(vt) {
						typ = vt.String()
					}
				}
			}
		}
	}
	field := "(" + name + " " + typ + ")"
	for _, c := range m.Clauses {
		if c.Key.Name == "context" {
			end := c.Form.Span().End - 1
			return Option{ID: "declare-field", Title: fmt.Sprintf("Declare context field %s %s", name, typ), Safety: Review, Edits: []Edit{{syntax.Span{Start: end, End: end}, " " + field}}}, true
		}
	}
	anchor := m.Form.Items()[min(1, len(m.Form.Items())-1)]
	for _, c := range m.Clauses {
		if c.Key.Name == "version" {
			anchor = c.Form
		}
	}
	return Option{ID: "declare-field", Title: fmt.Sprintf("Declare context field %s %s", name, typ), Safety: Review, Edits: []Edit{p.insertAfter(anchor, "(context "+field+")")}}, true
}

// removeState deletes an unreachable state's form and its line.
func (p *planner) removeState(d syntax.Diagnostic) (Option, bool) {
	m := p.machineAt(d.Span.Start)
	if m == nil {
		return Option{}, false
	}
	for _, st := range m.States {
		if st.Name.Span != d.Span {
			continue
		}
		return Option{ID: "remove-state", Title: fmt.Sprintf("Remove unreachable state %s", st.Name.Name), Safety: Review, Edits: []Edit{{p.withLeadingSpace(st.Form.Span()), ""}}}, true
	}
	return Option{}, false
}

// withLeadingSpace widens a span to the blanks before it, and to the line
// break before those when the span starts its line, so that deleting it
// leaves no empty line or double space behind.
func (p *planner) withLeadingSpace(sp syntax.Span) syntax.Span {
	start := sp.Start
	for start > 0 && (p.src[start-1] == ' ' || p.src[start-1] == '\t') {
		start--
	}
	if start > 0 && p.src[start-1] == '\n' {
		start--
		if start > 0 && p.src[start-1] == '\r' {
			start--
		}
	}
	sp.Start = start
	return sp
}

// budgetOnlyOptions repairs a budget-only effect (deploy.live) named where
// an effect is performed: replace it with the effect the diagnostic
// suggests (it expands authority: the new effect really runs), or remove
// the intent.
func (p *planner) budgetOnlyOptions(d syntax.Diagnostic) []Option {
	if p.in.File.Module == nil {
		return nil
	}
	var opts []Option
	path := formPath(p.in.File.Module.Form, d.Span)
	if len(path) < 2 {
		return nil
	}
	intent, parent := path[len(path)-1], path[len(path)-2]
	name := p.text(d.Span)
	if s := d.Suggestion; s != "" {
		edit := s
		if len(intent.Items()) == 1 {
			edit += p.onlyTarget(s)
		}
		opts = append(opts, Option{ID: "replace-effect", Title: fmt.Sprintf("Replace %s with %s", name, edit), Safety: ExpandsAuthority, Edits: []Edit{{d.Span, edit}}})
	}
	switch {
	case parent.Head() == "effects" && len(parent.Items()) == 2:
		opts = append(opts, Option{ID: "remove-effect", Title: fmt.Sprintf("Remove the (effects ...) clause holding only %s", name), Safety: Review, Edits: []Edit{{p.withLeadingSpace(parent.Span()), ""}}})
	case parent.Head() == "effects" || parent.Head() == "do" && len(parent.Items()) > 2:
		opts = append(opts, Option{ID: "remove-effect", Title: fmt.Sprintf("Remove the %s intent", name), Safety: Review, Edits: []Edit{{p.withLeadingSpace(intent.Span()), ""}}})
	}
	return opts
}

// widenAuthority repairs an intent the authority can never allow with
// the narrowest widening: a rule of the policy that allows exactly that
// effect on that target, or that effect and target added to the
// mandate's scope. The options are found again from the module (not
// from the message) and always expand authority.
func (p *planner) widenAuthority(d syntax.Diagnostic) []Option {
	mod := p.in.File.Module
	model := authority.FromModule(mod)
	for _, b := range model.Blocked(mod) {
		if b.Intent.Form.Span() != d.Span {
			continue
		}
		effect, target := b.Intent.Name.Name, ""
		if len(b.Intent.Targets) > 0 {
			target = b.Intent.Targets[0].Name
		}
		switch {
		case b.Policy != nil && b.Policy.Decl != nil && len(b.Policy.Decl.Clauses) > 0 && (b.Policy.Outcomes == nil || slices.Contains(b.Policy.Outcomes, authority.Allow)):
			cls := b.Policy.Decl.Clauses
			rule := authority.AllowRule(effect, target)
			return []Option{{ID: "allow-effect", Title: fmt.Sprintf("Allow %s in policy %s: %s", b.Effect, b.Policy.Name, rule), Safety: ExpandsAuthority,
				Edits: []Edit{p.insertAfter(cls[len(cls)-1].Form, rule)}}}
		case b.Mandate != nil && b.Mandate.Decl != nil:
			var last *ast.Clause
			for _, c := range b.Mandate.Decl.Clauses {
				if c.Key.Name == "scope" {
					last = c
				}
			}
			if last == nil {
				return nil
			}
			end := last.Form.Span().End - 1 // before the clause's )
			return []Option{{ID: "widen-scope", Title: fmt.Sprintf("Add %s to the scope of mandate %s", b.Effect, b.Mandate.Name), Safety: ExpandsAuthority,
				Edits: []Edit{{syntax.Span{Start: end, End: end}, " " + b.Effect}}}}
		}
	}
	return nil
}

// onlyTarget returns " NAME" when the effect needs a declaration as its
// target (deploy.promote a deployment-policy) and the module declares
// exactly one of that kind, else "".
func (p *planner) onlyTarget(effect string) string {
	eff := catalog.LookupEffect(effect)
	if eff == nil || eff.OptionalTarget {
		return ""
	}
	var names []string
	for _, d := range p.in.File.Module.Decls {
		if d != nil && string(d.Kind()) == eff.Target && d.Base().Name.Valid() {
			names = append(names, d.Base().Name.Name)
		}
	}
	if len(names) != 1 {
		return ""
	}
	return " " + names[0]
}

// formPath returns the lists from root down to the list whose first item
// spans sp, outermost first, or nil when there is none.
func formPath(root *syntax.Form, sp syntax.Span) []*syntax.Form {
	if root == nil || root.Kind != syntax.FormList || !(root.Span().Start <= sp.Start && sp.End <= root.Span().End) {
		return nil
	}
	if len(root.Items()) > 0 && root.Items()[0].Span() == sp {
		return []*syntax.Form{root}
	}
	for _, it := range root.Items() {
		if sub := formPath(it, sp); sub != nil {
			return append([]*syntax.Form{root}, sub...)
		}
	}
	return nil
}

// Apply applies edits to src (edits must not overlap).
func Apply(src []byte, edits []Edit) []byte {
	sorted := append([]Edit(nil), edits...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Span.Start > sorted[j].Span.Start })
	out := append([]byte(nil), src...)
	for _, e := range sorted {
		out = append(out[:e.Span.Start], append([]byte(e.NewText), out[e.Span.End:]...)...)
	}
	return out
}
