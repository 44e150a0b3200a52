package check

import (
	"errors"
	"strings"

	"github.com/capsulang/caps/analysis/catalog"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Importer resolves an import of module path (a.b.c) made by the file at
// from. Errors should be *ImportError to carry a diagnostic code.
type Importer interface {
	Import(from, path string) (*Imported, error)
}

// Imported is a resolved, checked imported module.
type Imported struct {
	File   string // its path
	Module *ast.Module
	Hash   string // its semantic hash
	Result *Result
}

// ImportError is an import failure with its diagnostic code
// (E_IMPORT_NOT_FOUND or E_IMPORT_CYCLE).
type ImportError struct {
	Code    string
	Message string
	// Related are other places that matter, such as the import in
	// another file that closes a cycle.
	Related []syntax.Related
}

func (e *ImportError) Error() string { return e.Message }

// ImportInfo is one resolved import.
type ImportInfo struct {
	Import *ast.Import
	Name   string // the name declarations are referenced through
	*Imported
}

func (c *checker) module(m *ast.Module) {
	c.mod = m
	c.define(&Symbol{Kind: SymModule, Name: m.Name.Name, Span: m.Name.Span, Full: m.Form.Span(), Doc: m.Doc, Detail: "module " + m.Name.Name})
	c.head[0] = len(c.res.Diagnostics)
	c.profiles(m)
	c.importsOf(m)
	c.head[1] = len(c.res.Diagnostics)
	if c.importsResolved != nil {
		c.importsResolved(c.res)
		c.presize()
	}
	// Declarations: names are unique across kinds within a module. c.decls
	// is their scope (a scope of its own would be a second index of every
	// name, as large as c.decls, on a large module).
	for _, d := range m.Decls {
		b := d.Base()
		if !b.Name.Valid() {
			continue
		}
		sym := &Symbol{Kind: SymbolKind(d.Kind()), Name: b.Name.Name, Span: b.Name.Span, Full: b.Form.Span(), Doc: b.Doc, Decl: d, Detail: c.declDetail(d)}
		if prev := c.decls[sym.Name]; prev != nil {
			c.duplicate("declaration", sym, prev)
		} else {
			c.decls[sym.Name] = sym
		}
		c.define(sym)
	}
	if !c.opts.Once {
		// what each declaration looks up, for Recheck (not recorded
		// when c.info is nil)
		c.info = make([]declInfo, len(m.Decls))
		c.index = make(map[ast.Decl]int, len(m.Decls))
		for i, d := range m.Decls {
			c.index[d] = i
		}
	}
	if c.eng != nil {
		// (the alignment reads no interface: the base's resolved types
		// that stand are known before the new ones are resolved)
		c.eng.plan(c)
		c.eng.keepTypes(c)
	}
	c.interfaces(m, nil)
	c.dep, c.p1 = nil, nil
	for i, d := range m.Decls {
		if _, ok := d.(*ast.Surface); !ok {
			c.body(i, d)
		}
	}
	// Surfaces last: their events refer to the symbols of machines that may
	// be declared after them.
	for i, d := range m.Decls {
		if _, ok := d.(*ast.Surface); ok {
			c.body(i, d)
		}
	}
	// (the acceptance policies' warnings before the policy conditions:
	// their spans never meet, and Recheck keeps the conditions' apart)
	c.unusedAcceptance(m)
	c.policyAt = len(c.res.Diagnostics)
	c.policyConditions(m)
}

// interfaces resolves the interfaces of the module's declarations (of
// those only selects, when not nil): every type, then the members that
// effect targets name, then every function signature.
func (c *checker) interfaces(m *ast.Module, only []bool) {
	// Types first: every later check needs them.
	for i, d := range m.Decls {
		if td, ok := d.(*ast.TypeDecl); ok && (only == nil || only[i]) {
			c.enter(i)
			t := c.declType(td)
			if s := c.declNamed(td.Name.Name); s != nil && s.Decl == d {
				s.Type = t
				if !c.opts.Once {
					s.Detail = "type " + td.Name.Name + " = " + typeDetail(td, t)
				}
			}
			c.typeMembers(td, t)
		}
	}
	// Members that effect targets name (store collections, port tools,
	// agent skills, surface actions) before anything resolves a target:
	// declaration order has no meaning.
	for i, d := range m.Decls {
		if only != nil && !only[i] {
			continue
		}
		c.enter(i)
		c.declOperations(d)
	}
	for i, d := range m.Decls {
		if fn, ok := d.(*ast.Function); ok && (only == nil || only[i]) {
			c.enter(i)
			c.functionSignature(fn)
		}
	}
	c.dep, c.p1 = nil, nil
}

func typeDetail(td *ast.TypeDecl, t types.Type) string {
	switch td.Def.(type) {
	case *ast.RecordDef:
		r, _ := t.(*types.Record)
		if r == nil {
			return "record"
		}
		var parts []string
		for _, f := range r.Fields {
			parts = append(parts, "("+f.Name+" "+f.Type.String()+")")
		}
		return "(" + r.Kind + " " + strings.Join(parts, " ") + ")"
	case *ast.EnumDef:
		e, _ := t.(*types.Enum)
		if e == nil {
			return "enum"
		}
		return "(enum " + strings.Join(e.Members, " ") + ")"
	case *ast.VariantDef:
		return "(variant ...)"
	}
	if t == nil {
		return "?"
	}
	return t.String()
}

func (c *checker) profiles(m *ast.Module) {
	seen := map[string]bool{}
	for _, p := range m.Profiles {
		if catalog.LookupProfile(p.Name) == nil {
			c.errorf(UnknownProfile, p.Span, "unknown profile `%s`%s", p.Name, didYouMean(p.Name, catalog.ProfileNames()))
			continue
		}
		if seen[p.Name] {
			c.warnf(DuplicateProfile, p.Span, "profile `%s` is listed twice", p.Name)
		}
		seen[p.Name] = true
	}
}

// admitted reports whether the module's profiles admit e (a module that
// restricts no effects admits every one).
func (c *checker) admitted(e *catalog.Effect) bool {
	c.uses(keyAdmits + e.Name)
	if len(c.mod.Profiles) == 0 {
		return true
	}
	for _, p := range c.mod.Profiles {
		if prof := catalog.LookupProfile(p.Name); prof != nil && prof.Admits(e) {
			return true
		}
	}
	return false
}

func (c *checker) importsOf(m *ast.Module) {
	c.imports = map[string]*ImportInfo{}
	c.failedImports = map[string]bool{}
	for _, im := range m.Imports {
		if !im.Path.Valid() {
			continue
		}
		name := im.Alias.Name
		if name == "" {
			parts := strings.Split(im.Path.Name, ".")
			name = parts[len(parts)-1]
		}
		if !validModulePath(im.Path.Name) {
			c.failedImports[name] = true
			c.errorf(ImportNotFound, im.Path.Span, "`%s` is not a module name; import a dotted module name such as shared.types (it is looked up as shared/types.caps under the import roots)", im.Path.Name)
			continue
		}
		if c.opts.Importer == nil {
			c.failedImports[name] = true
			c.errorf(ImportNotFound, im.Path.Span, "cannot resolve import `%s`: no import roots are configured for this check", im.Path.Name)
			continue
		}
		imp, err := c.opts.Importer.Import(c.opts.Path, im.Path.Name)
		if c.importLog == nil {
			c.importLog = map[string]importCall{}
		}
		c.importLog[im.Path.Name] = importCall{imp, err}
		if err != nil {
			code := ImportNotFound
			var related []syntax.Related
			var ie *ImportError
			if errors.As(err, &ie) {
				code, related = ie.Code, ie.Related
			}
			c.failedImports[name] = true
			c.errorf(code, im.Path.Span, "%s", err.Error()).Related = related
			continue
		}
		if prev, ok := c.imports[name]; ok {
			d := c.errorf(DuplicateDecl, im.Path.Span, "two imports are both referenced as `%s`; give one an alias with (as NAME)", name)
			d.Related = []syntax.Related{{Span: prev.Import.Path.Span, Message: "the other import"}}
			continue
		}
		info := &ImportInfo{Import: im, Name: name, Imported: imp}
		c.imports[name] = info
		c.res.Imports = append(c.res.Imports, info)
		c.define(&Symbol{Kind: SymImport, Name: name, Span: im.Path.Span, Full: im.Form.Span(), Detail: "import " + im.Path.Name + " (" + imp.Hash + ")"})
	}
}

// validModulePath reports whether p is a dotted module name whose segments
// are plain identifiers (so it can never name a path outside the roots).
func validModulePath(p string) bool {
	for _, seg := range strings.Split(p, ".") {
		if seg == "" {
			return false
		}
		for i, r := range seg {
			ok := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '-')
			if !ok {
				return false
			}
		}
	}
	return true
}

// fromFailedImport reports whether a dotted name is qualified by an import
// that could not be resolved, whose failure is already reported.
func (c *checker) fromFailedImport(name string) bool {
	i := strings.IndexByte(name, '.')
	if i <= 0 {
		return false
	}
	_, failed := c.importAlias(name[:i])
	return failed
}

// lookupDecl finds a declaration by name, including imported ones written
// alias.Name. It records the reference.
func (c *checker) lookupDecl(name string, sp syntax.Span) *Symbol {
	if s := c.declNamed(name); s != nil {
		c.ref(sp, s)
		return s
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if imp, _ := c.importAlias(name[:i]); imp != nil && imp.Result != nil {
			if c.dep != nil {
				c.uses(keyImport + name)
			}
			for _, s := range imp.Result.Symbols {
				if s.Name == name[i+1:] && s.Decl != nil {
					c.ref(syntax.Span{Start: sp.Start + i + 1, End: sp.End}, s)
					return s
				}
			}
		}
	}
	return nil
}

// isImported reports whether a symbol found by lookupDecl belongs to an
// imported module. Its types were resolved by that module's check and must
// not be resolved again here, in the wrong scope and file.
func (c *checker) isImported(s *Symbol) bool {
	return s.File != c.opts.Path || c.declNamed(s.Name) != s
}

// importedSignature builds the signature of an imported function from the
// symbols its module's check defined.
func (c *checker) importedSignature(s *Symbol, fn *ast.Function) *signature {
	if c.sigs == nil {
		c.sigs = map[*ast.Function]*signature{}
	}
	if sig, ok := c.cachedSig(fn); ok {
		return sig
	}
	sig := &signature{result: s.Type}
	if sig.result == nil {
		sig.result = types.TInvalid
	}
	// The inputs are the symbols whose parent is the function, in order.
	for _, imp := range c.imports {
		if imp.Result == nil {
			continue
		}
		for _, sym := range imp.Result.Symbols {
			if sym.Parent == s && sym.Kind == SymInput {
				sig.inputs = append(sig.inputs, sym)
			}
		}
		if len(sig.inputs) > 0 {
			break // two imports of one module share its symbols
		}
	}
	if fn.Effects != nil {
		for _, e := range fn.Effects.Items {
			target := ""
			if len(e.Targets) > 0 {
				target = e.Targets[0].Name
			}
			sig.effects = append(sig.effects, EffectUse{Name: e.Name.Name, Target: target, Span: e.Name.Span})
		}
	}
	c.sigs[fn] = sig
	return sig
}

// declNames returns the names of declarations of the given kinds.
func (c *checker) declNames(kinds ...ast.DeclKind) []string {
	for _, k := range kinds {
		c.uses(keyNames + string(k))
	}
	var out []string
	for _, d := range c.mod.Decls {
		for _, k := range kinds {
			if d.Kind() == k && d.Base().Name.Valid() {
				out = append(out, d.Base().Name.Name)
			}
		}
	}
	return out
}

// ---- types

// resolveType resolves a type expression, reporting unknown names.
func (c *checker) resolveType(t *ast.TypeRef) types.Type {
	if t == nil || !t.Name.Valid() {
		return types.TInvalid
	}
	name := t.Name.Name
	if n, ok := types.Constructors[name]; ok {
		if len(t.Args) != n {
			c.errorf(Arity, t.Span(), "(%s ...) takes %d type parameter%s, found %d", name, n, plural(n), len(t.Args))
			return types.TInvalid
		}
		args := make([]types.Type, len(t.Args))
		for i, a := range t.Args {
			args[i] = c.resolveType(a)
		}
		switch name {
		case "List":
			return &types.List{Elem: args[0]}
		case "Vector":
			return &types.List{Elem: args[0], Vector: true}
		case "Option":
			return &types.Option{Elem: args[0]}
		case "Result":
			return &types.Result{Ok: args[0], Err: args[1]}
		case "Map":
			return &types.Map{Key: args[0], Value: args[1]}
		case "Array":
			if t.ArrayLen() == nil || t.ArrayLen().Overflow || t.ArrayLen().Neg {
				c.errorf(Arity, t.Span(), "write an array type as (Array T LENGTH)")
				return types.TInvalid
			}
			return &types.Array{Elem: args[0], Len: int(t.ArrayLen().Mag)}
		}
	}
	if len(t.Args) > 0 {
		c.errorf(Arity, t.Span(), "type `%s` takes no parameters", name)
	}
	if b, ok := types.Builtins[name]; ok {
		return b
	}
	if s := c.lookupDecl(name, t.Name.Span); s != nil {
		if td, ok := s.Decl.(*ast.TypeDecl); ok {
			if c.isImported(s) {
				if s.Type == nil {
					return types.TInvalid
				}
				return s.Type // resolved by the imported module's check
			}
			return c.declType(td)
		}
		c.errorf(UnknownType, t.Name.Span, "`%s` is a %s, not a type", name, s.Kind)
		return types.TInvalid
	}
	if c.fromFailedImport(name) {
		return types.TInvalid
	}
	cands := c.declNames(ast.KindType)
	for b := range types.Builtins {
		cands = append(cands, b)
	}
	for k := range types.Constructors {
		cands = append(cands, k)
	}
	c.errorf(UnknownType, t.Name.Span, "unknown type `%s`%s", name, didYouMean(name, cands))
	return types.TInvalid
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// declType returns the type a type declaration defines.
func (c *checker) declType(td *ast.TypeDecl) types.Type {
	if c.typeCache == nil {
		c.typeCache = map[*ast.TypeDecl]types.Type{}
		c.resolving = map[*ast.TypeDecl]bool{}
	}
	if t, ok := c.typeCache[td]; ok {
		return t
	}
	for b := c.base; b != nil; b = b.base {
		if t, ok := b.typeCache[td]; ok {
			return t // a declaration a Recheck did not resolve again
		}
	}
	if i, ok := c.index[td]; ok {
		// what resolving td looks up and reports is td's own
		defer c.enter(i)()
	}
	if c.resolving[td] {
		if _, alias := td.Def.(*ast.AliasDef); alias {
			c.errorf(UnknownType, declAt(td), "type %s is defined in terms of itself", td.Name.Name)
			return types.TInvalid
		}
	}
	// In an engine run, a declaration whose resolved type stands (its
	// text and everything its resolution reads are the base's:
	// keepTypes) keeps the base's type object, so that records, enums
	// and variants, compared by identity, stay the same types across
	// versions (what other declarations and importers resolved against
	// them stays valid). It is resolved all the same, for what the
	// resolution records (lookups, references, diagnostics), into an
	// object that is dropped.
	kept, keep := c.eng.keptType(c, td)
	name := td.Name.Name
	switch def := td.Def.(type) {
	case *ast.RecordDef:
		r := &types.Record{Name: name, Kind: def.Keyword.Name}
		c.typeCache[td] = r // records may refer to themselves through List/Option
		if keep {
			c.typeCache[td] = kept
		}
		for _, f := range def.Fields {
			r.Fields = append(r.Fields, types.Field{Name: f.Name.Name, Type: c.resolveType(f.Type)})
		}
		if keep {
			return kept
		}
		return r
	case *ast.EnumDef:
		e := &types.Enum{Name: name}
		for _, m := range def.Members {
			e.Members = append(e.Members, m.Name)
		}
		if keep {
			c.typeCache[td] = kept
			return kept
		}
		c.typeCache[td] = e
		return e
	case *ast.VariantDef:
		v := &types.Variant{Name: name}
		c.typeCache[td] = v
		if keep {
			c.typeCache[td] = kept
		}
		for _, cs := range def.Cases {
			tc := types.Case{Name: cs.Name.Name}
			for _, f := range cs.Fields {
				tc.Fields = append(tc.Fields, types.Field{Name: f.Name.Name, Type: c.resolveType(f.Type)})
			}
			v.Cases = append(v.Cases, tc)
		}
		if keep {
			return kept
		}
		return v
	case *ast.AliasDef:
		c.resolving[td] = true
		t := c.resolveType(def.Type)
		delete(c.resolving, td)
		if keep {
			t = kept
		}
		c.typeCache[td] = t
		return t
	}
	c.typeCache[td] = types.TInvalid
	return types.TInvalid
}

// typeMembers defines the fields, enum members and variant cases of a type
// declaration as symbols and reports duplicates.
func (c *checker) typeMembers(td *ast.TypeDecl, t types.Type) {
	parent := c.declNamed(td.Name.Name)
	switch def := td.Def.(type) {
	case *ast.RecordDef:
		s := c.newScope("field")
		for i, f := range def.Fields {
			var ft types.Type = types.TInvalid
			if r, ok := t.(*types.Record); ok && i < len(r.Fields) {
				ft = r.Fields[i].Type
			}
			s.add(&Symbol{Kind: SymField, Name: f.Name.Name, Span: f.Name.Span, Full: f.Form.Span(), Parent: parent, Type: ft, Detail: c.valueDetail(f.Name.Name, ft)})
		}
	case *ast.EnumDef:
		s := c.newScope("enum member")
		for _, m := range def.Members {
			sym := &Symbol{Kind: SymEnumMember, Name: m.Name, Span: m.Span, Full: m.Span, Parent: parent, Type: t}
			if !c.opts.Once {
				sym.Detail = td.Name.Name + "." + m.Name
			}
			s.add(sym)
		}
	case *ast.VariantDef:
		s := c.newScope("variant case")
		for _, cs := range def.Cases {
			sym := &Symbol{Kind: SymVariantCase, Name: cs.Name.Name, Span: cs.Name.Span, Full: cs.Name.Span, Parent: parent, Type: t}
			if !c.opts.Once {
				sym.Detail = td.Name.Name + " case " + cs.Name.Name
			}
			s.add(sym)
		}
	}
}

// member finds a field/member symbol of a declaration by name: the first
// of its members of that kind and name. A declaration with many members
// (a record of thousands of fields) gets an index, so that naming every
// one of them costs linear time.
func (c *checker) member(parent *Symbol, kind SymbolKind, name string) *Symbol {
	ms := c.members(parent)
	if len(ms) <= 2*smallScope {
		for _, s := range ms {
			if s.Kind == kind && s.Name == name {
				return s
			}
		}
		return nil
	}
	return c.memberIndex(parent, ms)[memberKey{kind, name}]
}

// memberKey names a member of a declaration.
type memberKey struct {
	kind SymbolKind
	name string
}

// memberIndex returns the index of ms, the members of parent: built once,
// extended as members are added, and rebuilt if the list is another one
// (a re-check's own list replacing its base's).
func (c *checker) memberIndex(parent *Symbol, ms []*Symbol) map[memberKey]*Symbol {
	if c.memberIdx == nil {
		c.memberIdx = map[*Symbol]*membersIndexed{}
	}
	ix := c.memberIdx[parent]
	if ix == nil || len(ix.of) > len(ms) || len(ix.of) > 0 && &ix.of[0] != &ms[0] {
		ix = &membersIndexed{by: make(map[memberKey]*Symbol, len(ms))}
		c.memberIdx[parent] = ix
	}
	for _, s := range ms[len(ix.of):] {
		if k := (memberKey{s.Kind, s.Name}); ix.by[k] == nil {
			ix.by[k] = s
		}
	}
	ix.of = ms
	return ix.by
}

// membersIndexed is the index of the members list of, by kind and name
// (the first member of each).
type membersIndexed struct {
	of []*Symbol
	by map[memberKey]*Symbol
}

// declOperations declares the members other declarations reach through
// d: a store's collections, a surface's actions, a port's operations, an
// agent's skills.
func (c *checker) declOperations(d ast.Decl) {
	switch d := d.(type) {
	case *ast.Store:
		c.storeCollections(d)
	case *ast.Surface:
		c.operations(c.declSym(d), "action", d.Actions)
	case *ast.Port:
		c.portOperations(d)
	case *ast.Agent:
		c.operations(c.declSym(d), "skill", d.Skills)
	}
}
