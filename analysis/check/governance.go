package check

import (
	"regexp"
	"strings"
	"time"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

var hashRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// clauseDecl checks a governance or Authority IR declaration against its
// schema in the construct catalog.
func (c *checker) clauseDecl(d *ast.ClauseDecl) {
	schema := catalog.LookupConstruct(string(d.DeclKind))
	if schema == nil {
		return
	}
	parent := c.declSym(d)
	seen := map[string]*ast.Clause{}
	local := map[string]map[string]bool{} // namespace -> names
	// First pass: clauses that define local names.
	for _, cl := range d.Clauses {
		sc := schema.Clause(cl.Key.Name)
		if sc == nil || sc.Defines == "" {
			continue
		}
		if local[sc.Defines] == nil {
			local[sc.Defines] = map[string]bool{}
		}
		for i, a := range cl.Args {
			if a.Kind == syntax.FormSymbol && (i == 0 || sc.Defines == "outcome") {
				local[sc.Defines][a.Text()] = true
				c.define(&Symbol{Kind: SymLocalName, Name: a.Text(), Span: a.Span(), Full: cl.Form.Span(), Parent: parent, Detail: sc.Defines + " " + a.Text()})
			}
		}
	}
	for _, cl := range d.Clauses {
		sc := schema.Clause(cl.Key.Name)
		if sc == nil {
			c.errorf(UnknownForm, cl.Key.Span, "unknown clause `%s` in %s %s%s", cl.Key.Name, d.DeclKind, d.Name.Name, didYouMean(cl.Key.Name, schema.Keys()))
			continue
		}
		if prev := seen[cl.Key.Name]; prev != nil && !sc.Repeat {
			dg := c.errorf(DuplicateDecl, cl.Key.Span, "(%s ...) is given twice in %s %s", cl.Key.Name, d.DeclKind, d.Name.Name)
			dg.Related = []syntax.Related{{Span: prev.Key.Span, Message: "first given here"}}
		}
		seen[cl.Key.Name] = cl
		c.clauseArgs(d, cl, sc)
		if sc.Uses != "" && len(cl.Args) > 0 && cl.Args[0].Kind == syntax.FormSymbol {
			name := cl.Args[0].Text()
			if !local[sc.Uses][name] {
				c.errorf(UnknownName, cl.Args[0].Span(), "%s %s declares no %s `%s`%s", d.DeclKind, d.Name.Name, sc.Uses, name, didYouMean(name, setKeys(local[sc.Uses])))
			}
		}
	}
	for _, sc := range schema.Clauses {
		if sc.Required && seen[sc.Key] == nil {
			c.errorf(MissingClause, declAt(d), "%s %s has no (%s ...) clause", d.DeclKind, d.Name.Name, sc.Key)
		}
	}
}

func setKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// clauseArgs matches a clause's arguments against its patterns and reports
// the best-matching pattern's errors.
func (c *checker) clauseArgs(d *ast.ClauseDecl, cl *ast.Clause, sc *catalog.Clause) {
	patterns := sc.Patterns()
	var best []argErr
	bestScore := -1
	var bestPat []string
	for _, p := range patterns {
		errs, score := c.matchArgs(p, cl.Args, cl.Form.Span(), false)
		if len(errs) == 0 {
			// resolve references for real
			errs, _ = c.matchArgs(p, cl.Args, cl.Form.Span(), true)
			for _, e := range errs {
				c.errorf(e.code, e.span, "%s%s", e.msg, e.hint)
			}
			return
		}
		if score > bestScore {
			best, bestScore, bestPat = errs, score, p
		}
	}
	if len(patterns) > 1 && bestScore <= 0 {
		var forms []string
		for _, p := range patterns {
			forms = append(forms, "("+cl.Key.Name+" "+patternText(p)+")")
		}
		c.errorf(TypeMismatch, cl.Form.Span(), "(%s ...) in %s %s does not match any accepted form: %s", cl.Key.Name, d.DeclKind, d.Name.Name, strings.Join(forms, ", "))
		return
	}
	_ = bestPat
	for _, e := range best {
		c.errorf(e.code, e.span, "%s%s", e.msg, e.hint)
	}
}

// patternText renders an argument pattern for people: literal words as
// written, other kinds as placeholders (replay TEXT, proof VERIFICATION-HOOK).
func patternText(pat []string) string {
	parts := make([]string, len(pat))
	for i, p := range pat {
		kind, mult := p, ""
		if strings.HasSuffix(p, "*") || strings.HasSuffix(p, "+") || strings.HasSuffix(p, "?") {
			kind, mult = p[:len(p)-1], p[len(p)-1:]
		}
		switch {
		case strings.HasPrefix(kind, "="):
			kind = kind[1:]
		case strings.HasPrefix(kind, "ref:"):
			kind = strings.ToUpper(kind[4:])
		default:
			kind = strings.ToUpper(kind)
		}
		if mult == "*" || mult == "+" {
			mult = "..."
		}
		parts[i] = kind + mult
	}
	return strings.Join(parts, " ")
}

type argErr struct {
	code string
	span syntax.Span
	msg  string
	hint syntax.DidYouMean // ends msg
}

// matchArgs matches args against a pattern. It returns the mismatches and
// how many leading arguments matched (to pick the closest alternative).
// With resolve set it records references and reports unresolved names.
func (c *checker) matchArgs(pat []string, args []*syntax.Form, whole syntax.Span, resolve bool) ([]argErr, int) {
	var errs []argErr
	i := 0
	score := 0
	fail := func(code string, sp syntax.Span, msg string, hint syntax.DidYouMean) {
		errs = append(errs, argErr{code, sp, msg, hint})
	}
	for pi, p := range pat {
		kind, mult := p, ""
		if strings.HasSuffix(p, "*") || strings.HasSuffix(p, "+") || strings.HasSuffix(p, "?") {
			kind, mult = p[:len(p)-1], p[len(p)-1:]
		}
		n := 0
		for i < len(args) {
			if mult == "" && n == 1 || mult == "?" && n == 1 {
				break
			}
			var hint syntax.DidYouMean
			msg, code := c.argOK(kind, args[i], resolve, &hint)
			if msg != "" {
				// An optional or repeated item may end here and leave the
				// argument to the next item; after the last item, the
				// argument's own error says more than "extra argument".
				if (mult == "*" || mult == "?" || mult == "+" && n > 0) && pi < len(pat)-1 {
					break
				}
				fail(code, args[i].Span(), msg, hint)
				return errs, score
			}
			i++
			n++
			score++
		}
		if n == 0 && (mult == "" || mult == "+") {
			end := whole.End - 1
			if end < whole.Start {
				end = whole.Start
			}
			fail(MissingClause, whole, "missing "+describeArg(kind), "")
			_ = end
			return errs, score
		}
	}
	if i < len(args) {
		fail(Arity, args[i].Span(), "unexpected extra argument "+describeForm(args[i]), "")
	}
	return errs, score
}

func describeForm(f *syntax.Form) string {
	if f.Kind == syntax.FormSymbol || f.Kind == syntax.FormNumber {
		return "`" + f.Text() + "`"
	}
	if f.Kind == syntax.FormString {
		return "string"
	}
	return "list"
}

func describeArg(kind string) string {
	switch {
	case strings.HasPrefix(kind, "ref:"):
		return "the name of a " + strings.ReplaceAll(kind[4:], "|", " or ")
	case strings.HasPrefix(kind, "="):
		return "`" + kind[1:] + "`"
	}
	switch kind {
	case "text":
		return "a string"
	case "hash":
		return "a hash \"sha256:<64 hex digits>\""
	case "timestamp":
		return "an RFC 3339 time string"
	case "name":
		return "a name"
	case "bool":
		return "true or false"
	case "int":
		return "a whole number"
	case "number":
		return "a number"
	case "percent":
		return "a percentage from 0 to 100"
	case "duration":
		return "a duration such as 30m"
	case "effect":
		return "an effect name"
	case "qref":
		return "a reference such as contract:Name"
	case "op":
		return "a comparison operator"
	case "effect-form":
		return "an effect such as (mcp.call port.tool)"
	case "fields":
		return "a (name Type) field"
	case "expr":
		return "an expression"
	}
	return "an argument"
}

// argOK checks one argument against an argument kind; it returns an error
// message and code, or "". An unknown name's did-you-mean, which ends the
// message, is stored in *hint.
func (c *checker) argOK(kind string, a *syntax.Form, resolve bool, hint *syntax.DidYouMean) (string, string) {
	sym := a.Kind == syntax.FormSymbol
	switch {
	case strings.HasPrefix(kind, "="):
		if !sym || a.Text() != kind[1:] {
			return "expected `" + kind[1:] + "`", TypeMismatch
		}
		return "", ""
	case strings.HasPrefix(kind, "ref:"):
		if !sym {
			return "expected " + describeArg(kind), TypeMismatch
		}
		kinds := strings.Split(kind[4:], "|")
		if !resolve {
			return "", ""
		}
		var s *Symbol
		if s = c.declNamed(a.Text()); s != nil {
			for _, k := range kinds {
				if string(s.Kind) == k {
					c.ref(a.Span(), s)
					return "", ""
				}
			}
			return "`" + a.Text() + "` is a " + string(s.Kind) + ", expected " + describeArg(kind), TypeMismatch
		}
		var cands []string
		for _, k := range kinds {
			cands = append(cands, c.declNames(ast.DeclKind(k))...)
		}
		*hint = didYouMean(a.Text(), cands)
		return "unknown " + strings.Join(kinds, " or ") + " `" + a.Text() + "`", refCode(kinds[0])
	}
	switch kind {
	case "any":
		return "", ""
	case "text":
		if a.Kind != syntax.FormString {
			return "expected a string, found " + describeForm(a), TypeMismatch
		}
	case "hash":
		if a.Kind != syntax.FormString {
			return "expected a hash string \"sha256:<64 hex digits>\", found " + describeForm(a), TypeMismatch
		}
		if !hashRE.MatchString(a.Text()) {
			return syntax.Quote(a.Text()) + " is not a hash; write \"sha256:\" followed by 64 lowercase hex digits", BadLiteral
		}
	case "timestamp":
		if a.Kind != syntax.FormString {
			return "expected an RFC 3339 time string", TypeMismatch
		}
		if _, err := time.Parse(time.RFC3339, a.Text()); err != nil {
			return syntax.Quote(a.Text()) + " is not an RFC 3339 time such as \"2026-05-16T00:00:00Z\"", BadLiteral
		}
	case "name":
		if !sym {
			return "expected a name, found " + describeForm(a), TypeMismatch
		}
	case "bool":
		if !sym || a.Text() != "true" && a.Text() != "false" {
			return "expected true or false, found " + describeForm(a), TypeMismatch
		}
	case "int", "percent", "number", "duration":
		if a.Kind != syntax.FormNumber {
			return "expected " + describeArg(kind) + ", found " + describeForm(a), TypeMismatch
		}
		lit := ast.ParseNumber(a.Text(), a.Span())
		switch kind {
		case "int", "percent":
			il, ok := lit.(*ast.IntLit)
			if !ok || il.Neg || il.Overflow {
				return "`" + a.Text() + "` is not " + describeArg(kind), BadLiteral
			}
			if kind == "percent" && il.Mag > 100 {
				return "`" + a.Text() + "` is not a percentage (0 to 100)", BadLiteral
			}
		case "number":
			if lit == nil {
				return "`" + a.Text() + "` is not a number", BadLiteral
			}
			if _, ok := lit.(*ast.Duration); ok {
				return "expected a number, found a duration", TypeMismatch
			}
		case "duration":
			if _, ok := lit.(*ast.Duration); !ok {
				return "`" + a.Text() + "` is not a duration; write 30s, 5m, 24h or 7d", BadLiteral
			}
		}
	case "effect":
		if !sym {
			return "expected an effect name", TypeMismatch
		}
		if catalog.LookupEffect(a.Text()) == nil {
			*hint = didYouMean(a.Text(), catalog.EffectNames())
			return "unknown effect `" + a.Text() + "`", UnknownEffect
		}
	case "op":
		switch a.Text() {
		case "<", "<=", ">", ">=", "==", "!=":
		default:
			return "expected a comparison operator (< <= > >= == !=), found " + describeForm(a), TypeMismatch
		}
	case "qref":
		if !sym || !strings.Contains(a.Text(), ":") {
			return "expected a reference such as contract:Name, found " + describeForm(a), TypeMismatch
		}
		i := strings.IndexByte(a.Text(), ':')
		prefix, name := a.Text()[:i], a.Text()[i+1:]
		if name == "" {
			return "`" + a.Text() + "` names nothing after the colon", TypeMismatch
		}
		if catalog.IsActorPrefix(prefix) || !resolve {
			return "", ""
		}
		if catalog.LookupConstruct(prefix) == nil && !isTypedKind(prefix) {
			return "unknown reference kind `" + prefix + ":`; use a declaration kind such as contract:, eval-suite:, gate: or an actor such as approval:", UnknownName
		}
		sp := syntax.Span{Start: a.Span().Start + i + 1, End: a.Span().End}
		if s := c.declNamed(name); s != nil && string(s.Kind) == prefix {
			c.ref(sp, s)
			return "", ""
		}
		return "", c.qrefError(prefix, name, sp)
	case "effect-form":
		if a.Kind != syntax.FormList || a.Head() == "" {
			return "expected an effect such as (mcp.call port.tool)", TypeMismatch
		}
		if resolve {
			e := &ast.Effect{Form: a, Name: ast.Ident{Name: a.Head(), Span: a.Items()[0].Span()}}
			for _, t := range a.Items()[1:] {
				if t.Kind == syntax.FormSymbol {
					e.Targets = append(e.Targets, ast.Ident{Name: t.Text(), Span: t.Span()})
				}
			}
			c.effectRef(e, catalog.EffectNames())
		}
	case "fields":
		// one (name Type) field; the clause pattern repeats it
		if a.Kind != syntax.FormList || len(a.Items()) != 2 || a.Items()[0].Kind != syntax.FormSymbol {
			return "expected a field (name Type), found " + describeForm(a), TypeMismatch
		}
		if resolve {
			t := c.resolveType(typeRefOf(a.Items()[1]))
			if c.fieldTypes == nil {
				c.fieldTypes = map[*syntax.Form]types.Type{}
			}
			c.fieldTypes[a] = t
		}
	case "expr":
	}
	return "", ""
}

// qrefError reports an unresolved prefixed reference and returns "" (the
// diagnostic is already recorded).
func (c *checker) qrefError(prefix, name string, sp syntax.Span) string {
	c.errorf(refCode(prefix), sp, "unknown %s `%s`%s", prefix, name, didYouMean(name, c.declNames(ast.DeclKind(prefix))))
	return ""
}

func isTypedKind(k string) bool {
	switch ast.DeclKind(k) {
	case ast.KindFunction, ast.KindMachine, ast.KindStore, ast.KindSurface, ast.KindPort, ast.KindAgent, ast.KindType:
		return true
	}
	return false
}

func refCode(kind string) string {
	switch ast.DeclKind(kind) {
	case ast.KindStore:
		return UnknownStore
	case ast.KindSurface:
		return UnknownSurface
	case ast.KindPort:
		return UnknownPort
	case ast.KindAgent:
		return UnknownAgent
	case ast.KindType:
		return UnknownType
	}
	return UnknownName
}

// typeRefOf builds a type reference from a form (for zk-proof fields).
func typeRefOf(f *syntax.Form) *ast.TypeRef {
	if f.Kind == syntax.FormSymbol {
		return ast.NewTypeRef(f.Span(), ast.Ident{Name: f.Text(), Span: f.Span()})
	}
	if f.Kind == syntax.FormList && len(f.Items()) > 0 && f.Items()[0].Kind == syntax.FormSymbol {
		t := ast.NewTypeRef(f.Span(), ast.Ident{Name: f.Items()[0].Text(), Span: f.Items()[0].Span()})
		for _, a := range f.Items()[1:] {
			t.Args = append(t.Args, typeRefOf(a))
		}
		return t
	}
	return ast.NewTypeRef(f.Span(), ast.Ident{})
}
