package ast

import (
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax"
)

// Structural diagnostic codes reported while building the tree.
const (
	CodeUnknownForm   = "E_UNKNOWN_FORM"
	CodeMissingClause = "E_MISSING_CLAUSE"
	CodeBadLiteral    = syntax.CodeBadLiteral
	CodeParse         = syntax.CodeParse
	CodeDuplicateDecl = "E_DUPLICATE_DECL"
)

// Parse parses src and builds its tree.
func Parse(src []byte) (*File, error) {
	c, err := syntax.Parse(src)
	if err != nil {
		return nil, err
	}
	return Build(syntax.Read(c)), nil
}

// Build builds the typed tree of a read source file.
func Build(s *syntax.Source) *File {
	b := &builder{src: s, file: &File{Source: s}}
	b.file.Diagnostics = append(b.file.Diagnostics, s.Diagnostics...)
	b.indexComments()
	b.build()
	return b.file
}

type builder struct {
	src  *syntax.Source
	file *File
	// docs maps the line just below a run of ;; comment lines to the run's text.
	docs map[int]string
	// header says to build no function body (MaterializeHeaderIn).
	header bool
}

func (b *builder) errorf(code string, sp Span, format string, args ...any) {
	b.file.Diagnostics = append(b.file.Diagnostics, syntax.NewDiagnostic(code, syntax.Error, sp, format, args...))
}

// indexComments finds doc comments: runs of full-line ";;" comments.
func (b *builder) indexComments() {
	c := b.src.CST
	var run []string
	prevLine := -2
	for _, sp := range b.src.Comments {
		line := c.Lines.Line(sp.Start)
		text := string(c.Src[sp.Start:sp.End])
		lineStart := c.Lines.LineStart(line)
		fullLine := strings.TrimSpace(string(c.Src[lineStart:sp.Start])) == ""
		if !fullLine || !strings.HasPrefix(text, ";;") {
			run, prevLine = nil, -2
			continue
		}
		if line != prevLine+1 {
			run = nil
		}
		run = append(run, strings.TrimSpace(strings.TrimLeft(text, ";")))
		prevLine = line
		if b.docs == nil {
			b.docs = map[int]string{}
		}
		b.docs[line+1] = strings.Join(run, "\n")
	}
}

func (b *builder) docFor(f *syntax.Form) string {
	if b.docs == nil {
		return ""
	}
	return b.docs[b.src.CST.Lines.Line(f.Span().Start)]
}

func (b *builder) build() {
	var mod *Module
	var strays []*syntax.Form
	for _, f := range b.src.Forms {
		if f.Head() == "module" && mod == nil {
			mod = b.module(f)
			continue
		}
		if f.Head() == "module" {
			b.errorf(CodeUnknownForm, f.Items()[0].Span(), "a file holds one module; move this module to its own file")
			continue
		}
		strays = append(strays, f)
	}
	if mod == nil {
		if len(b.src.Forms) == 0 {
			if len(b.src.Diagnostics) == 0 {
				b.errorf(CodeMissingClause, Span{}, "the file is empty; a Capsulang file holds one (module NAME ...) form")
			}
			return
		}
		f := b.src.Forms[0]
		b.errorf(CodeMissingClause, f.Span(), "expected (module NAME ...) around the declarations of this file")
		mod = &Module{Form: f}
	}
	// Declarations after the module's closing ')' are reported, and still
	// checked as part of the module so one misplaced ')' hides nothing.
	for _, f := range strays {
		if f.Head() != "" && isDeclKeyword(f.Head()) {
			if f.Span().Start > mod.Form.Span().End {
				b.errorf(CodeParse, f.Items()[0].Span(), "this declaration is after the module's closing `)`; move the `)` to the end of the file")
			}
			b.moduleItem(mod, f)
			continue
		}
		b.errorf(CodeUnknownForm, f.Span(), "unexpected %s outside the module", describe(f))
	}
	b.file.Module = mod
}

func describe(f *syntax.Form) string {
	switch f.Kind {
	case syntax.FormList:
		if h := f.Head(); h != "" {
			return "(" + h + " ...)"
		}
		return "list"
	case syntax.FormString:
		return "string"
	}
	return "`" + f.Text() + "`"
}

func isDeclKeyword(k string) bool {
	switch k {
	case "import", "profile", "capsule":
		return true
	}
	for _, d := range DeclKinds {
		if string(d) == k {
			return true
		}
	}
	return false
}

func (b *builder) module(f *syntax.Form) *Module {
	m := &Module{Form: f, Doc: b.docFor(f)}
	m.Name = b.name(f, "module")
	items := f.Items()[min(2, len(f.Items())):]
	m.Decls = make([]Decl, 0, len(items)) // no regrowth: one list for a large module's many declarations
	for _, it := range items {
		b.moduleItem(m, it)
	}
	if len(m.Decls) == 0 {
		m.Decls = nil // as when appended to
	}
	if m.Capsule == nil {
		sp := f.Items()[0].Span()
		if m.Name.Valid() {
			sp = m.Name.Span
		}
		b.errorf(CodeMissingClause, sp, "module %s has no (capsule \"VERSION\") clause", m.Name.Name)
	}
	return m
}

// name reads the name after a form's keyword.
func (b *builder) name(f *syntax.Form, what string) Ident {
	if len(f.Items()) < 2 {
		end := f.Items()[0].Span().End
		b.errorf(CodeMissingClause, Span{Start: end, End: end}, "%s needs a name: (%s NAME ...)", what, f.Head())
		return Ident{}
	}
	n := f.Items()[1]
	if n.Kind != syntax.FormSymbol {
		b.errorf(CodeMissingClause, n.Span(), "%s needs a name: (%s NAME ...); found %s", what, f.Head(), describe(n))
		return Ident{}
	}
	return Ident{Name: n.Text(), Span: n.Span()}
}

func (b *builder) moduleItem(m *Module, f *syntax.Form) {
	if f.Kind != syntax.FormList {
		b.errorf(CodeUnknownForm, f.Span(), "unexpected %s in module %s; expected a declaration such as (function ...) or (machine ...)", describe(f), m.Name.Name)
		return
	}
	head := f.Head()
	switch head {
	case "capsule":
		if m.Capsule != nil {
			b.errorf(CodeDuplicateDecl, f.Span(), "module %s already has a capsule clause", m.Name.Name)
			return
		}
		m.Capsule = b.stringArg(f, "capsule version")
		if m.Capsule == nil {
			m.Capsule = &StringLit{Span: f.Span()}
		}
		return
	case "profile":
		for _, a := range f.Items()[1:] {
			if id, ok := b.ident(a, "profile name"); ok {
				m.Profiles = append(m.Profiles, id)
			}
		}
		if len(f.Items()) < 2 {
			b.errorf(CodeMissingClause, f.Span(), "(profile ...) lists at least one profile, e.g. (profile agentic)")
		}
		return
	case "import":
		m.Imports = append(m.Imports, b.importForm(f))
		return
	}
	if d := b.decl(f); d != nil {
		m.Decls = append(m.Decls, d)
		return
	}
	if head == "" {
		b.errorf(CodeUnknownForm, f.Span(), "a declaration starts with a keyword, e.g. (function NAME ...)")
		return
	}
	b.errorf(CodeUnknownForm, f.Items()[0].Span(), "unknown declaration `%s`%s", head, suggest(head, declKeywords()))
}

func declKeywords() []string {
	out := []string{"capsule", "profile", "import"}
	for _, d := range DeclKinds {
		out = append(out, string(d))
	}
	return out
}

func (b *builder) importForm(f *syntax.Form) *Import {
	im := &Import{Form: f}
	if len(f.Items()) < 2 || f.Items()[1].Kind != syntax.FormSymbol {
		b.errorf(CodeMissingClause, f.Span(), "import needs a module name: (import other.module)")
		return im
	}
	im.Path = Ident{f.Items()[1].Text(), f.Items()[1].Span()}
	for _, it := range f.Items()[2:] {
		if it.Head() == "as" && len(it.Items()) == 2 && it.Items()[1].Kind == syntax.FormSymbol {
			im.Alias = Ident{it.Items()[1].Text(), it.Items()[1].Span()}
			continue
		}
		b.errorf(CodeUnknownForm, it.Span(), "unexpected %s in import; write (import a.b (as alias))", describe(it))
	}
	return im
}

// decl builds a declaration, or returns nil if f is not one.
func (b *builder) decl(f *syntax.Form) Decl {
	head := f.Head()
	base := func(what string) DeclBase {
		db := DeclBase{Form: f, Doc: b.docFor(f)}
		db.Name = b.name(f, what)
		if head == string(KindType) {
			return db // a type's definition is not a clause list
		}
		for _, it := range clauseItems(f, db.Name.Valid()) {
			if !IsClause(it) {
				b.errorf(CodeUnknownForm, it.Span(), "unexpected %s in %s %s; expected a clause such as (KEY value)", describe(it), head, db.Name.Name)
			}
		}
		return db
	}
	// clauses returns a declaration's clause list, for those that keep it.
	clauses := func(db DeclBase) []*Clause { return newClauses(clauseItems(f, db.Name.Valid())) }
	switch DeclKind(head) {
	case KindType:
		return b.typeDecl(base("type"))
	case KindFunction:
		return b.function(base("function"))
	case KindMachine:
		db := base("machine")
		return b.machine(db, clauses(db))
	case KindStore:
		db := base("store")
		return b.store(db, clauses(db))
	case KindSurface:
		db := base("surface")
		return b.surface(db, clauses(db))
	case KindPort:
		db := base("port")
		return b.port(db, clauses(db))
	case KindAgent:
		db := base("agent")
		return b.agent(db, clauses(db))
	}
	for _, k := range ClauseKinds {
		if string(k) == head {
			db := base(head)
			return &ClauseDecl{DeclBase: db, Clauses: clauses(db), DeclKind: k}
		}
	}
	return nil
}

// clauseItems returns the items of declaration form f that hold its
// clauses: those after its name, or after its keyword when the name is
// missing and a list follows the keyword. Those that are not clauses
// (IsClause) were reported by Build.
func clauseItems(f *syntax.Form, named bool) []*syntax.Form {
	items := f.Items()
	start := 2
	if !named && len(items) > 1 && items[1].Kind == syntax.FormList {
		start = 1
	}
	return items[min(start, len(items)):]
}

// IsClause reports whether a declaration's item is a clause: a list that
// starts with a symbol.
func IsClause(it *syntax.Form) bool { return it.Kind == syntax.FormList && it.Head() != "" }

// ClauseOf returns clause item it (IsClause holds) as a Clause.
func ClauseOf(it *syntax.Form) Clause {
	return Clause{Form: it, Key: Ident{it.Head(), it.Items()[0].Span()}, Args: it.Items()[1:]}
}

// newClauses returns the clauses among items (a non-nil list, as Build
// always made), their Clause values in one allocation.
func newClauses(items []*syntax.Form) []*Clause {
	n := 0
	for _, it := range items {
		if IsClause(it) {
			n++
		}
	}
	cs := make([]Clause, 0, n)
	out := make([]*Clause, 0, n)
	for _, it := range items {
		if IsClause(it) {
			cs = append(cs, ClauseOf(it))
			out = append(out, &cs[len(cs)-1])
		}
	}
	return out
}

// unknownClause reports a clause a typed declaration does not accept.
func (b *builder) unknownClause(c *Clause, where string, known []string) {
	b.errorf(CodeUnknownForm, c.Key.Span, "unknown clause `%s` in %s%s", c.Key.Name, where, suggest(c.Key.Name, known))
}

// suggest returns the did-you-mean for the closest known name (a
// syntax.DidYouMean: its name becomes the diagnostic's Suggestion), or a
// list of the expected names when none is close.
func suggest(name string, known []string) any {
	if best := syntax.Nearest(name, known); best != "" {
		return best
	}
	if len(known) > 0 && len(known) <= 12 {
		k := append([]string(nil), known...)
		sort.Strings(k)
		return "; expected one of " + strings.Join(k, ", ")
	}
	return ""
}

// ---- shared clause readers

func (b *builder) ident(f *syntax.Form, what string) (Ident, bool) {
	if f.Kind != syntax.FormSymbol {
		b.errorf(CodeUnknownForm, f.Span(), "expected %s, found %s", what, describe(f))
		return Ident{}, false
	}
	return Ident{f.Text(), f.Span()}, true
}

// oneIdent reads a clause with exactly one name argument: (target idle).
func (b *builder) oneIdent(c *Clause, what string) Ident {
	if len(c.Args) != 1 {
		b.errorf(CodeMissingClause, c.Form.Span(), "(%s ...) takes exactly one %s", c.Key.Name, what)
		if len(c.Args) == 0 {
			return Ident{}
		}
	}
	id, _ := b.ident(c.Args[0], what)
	return id
}

func (b *builder) stringArg(f *syntax.Form, what string) *StringLit {
	if len(f.Items()) != 2 || f.Items()[1].Kind != syntax.FormString {
		b.errorf(CodeMissingClause, f.Span(), "(%s ...) takes one string: the %s", f.Head(), what)
		return nil
	}
	return &StringLit{Value: f.Items()[1].Text(), Span: f.Items()[1].Span()}
}

// fields reads (name Type) lists.
func (b *builder) fields(forms []*syntax.Form, what string) []*Field {
	var out []*Field
	for _, f := range forms {
		if f.Kind != syntax.FormList || len(f.Items()) != 2 || f.Items()[0].Kind != syntax.FormSymbol {
			b.errorf(CodeUnknownForm, f.Span(), "expected a %s as (name Type), found %s", what, describe(f))
			continue
		}
		out = append(out, &Field{Form: f, Name: Ident{f.Items()[0].Text(), f.Items()[0].Span()}, Type: b.typeRef(f.Items()[1])})
	}
	return out
}

func (b *builder) protocol(c *Clause) *Protocol {
	p := &Protocol{}
	if len(c.Args) == 0 || len(c.Args) > 2 {
		b.errorf(CodeMissingClause, c.Form.Span(), "write (protocol NAME \"version\"), e.g. (protocol mcp \"2025-06-18\")")
		return p
	}
	p.Name, _ = b.ident(c.Args[0], "protocol name")
	if len(c.Args) == 2 {
		if c.Args[1].Kind == syntax.FormString {
			p.Version = &StringLit{Value: c.Args[1].Text(), Span: c.Args[1].Span()}
		} else {
			b.errorf(CodeBadLiteral, c.Args[1].Span(), "a protocol version is a string, e.g. \"v0.9\"")
		}
	}
	return p
}

// BuildDecl builds one declaration form read on its own (syntax.ReadNode),
// as Build would build it inside a module, and returns it with the
// diagnostics building it reported. It returns nil when f is not a
// declaration. The declaration's Doc is empty: the comments before a form
// are not part of it.
func BuildDecl(s *syntax.Source, f *syntax.Form) (Decl, []syntax.Diagnostic) {
	b := &builder{src: s, file: &File{Source: s}}
	if f.Kind != syntax.FormList {
		return nil, nil
	}
	d := b.decl(f)
	return d, b.file.Diagnostics
}

// BuildImport builds one import form read on its own (syntax.ReadNode),
// as Build would build it among a module's items (the language server's
// views read a changed import alone).
func BuildImport(f *syntax.Form) *Import {
	b := &builder{file: &File{}}
	return b.importForm(f)
}

// BuildExpr builds the expression written as form f, as a function body or
// guard would be built, and returns it with the diagnostics building it
// reported. Declarations whose clauses hold expressions but are checked
// from their forms (the proves clause of a zk-proof) use it.
func BuildExpr(f *syntax.Form) (Expr, []syntax.Diagnostic) {
	b := &builder{file: &File{}}
	e := b.expr(f)
	return e, b.file.Diagnostics
}
