// Package ir builds the canonical IR of a Capsulang module and its semantic
// hash.
//
// The canonical IR is a JSON document that describes what a module means
// and nothing else: formatting, comments, doc comments, source positions and
// every ordering that cannot change meaning are normalized away, while
// every ordering that can is kept. The semantic hash is "sha256:" followed
// by the lowercase hex SHA-256 of the canonical bytes. docs/ir.md describes
// the document and every normalization rule.
//
// The canonical bytes are in RFC 8785 (JCS) form: object keys sorted, no
// insignificant whitespace, minimal string escaping, valid UTF-8. Every
// literal value is a JSON string, so no consumer can lose precision.
package ir

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Version is the IR format version, written as "capsulang_ir". It changes
// whenever the canonical form of any module changes.
const Version = 1

// Options configure how the IR is built. The zero value is the default used
// by Canonical and Hash.
type Options struct {
	// ImportHash, when set, returns the semantic hash of the module an
	// import names (by its dotted path); the hash is recorded in the
	// import's entry so that the importer's hash changes whenever an
	// imported module does. An import for which it returns "" (one that
	// did not resolve), and every import when it is nil, is recorded by
	// path and alias only.
	ImportHash func(path string) (string, error)
	// Decls, when set, remembers each declaration's canonical encoding
	// by its tree, for the next build of a module sharing trees (see
	// DeclCache).
	Decls *DeclCache
	// Src, when set with Decls, is the text the module's trees were
	// built from, at its offsets (their spans index it), read without a
	// syntax error: the cache then also finds a declaration whose tree is
	// new by its form's text. (Where the reader recovers from an error,
	// the tree of a form depends on its columns and what follows it.)
	Src []byte
}

// DeclCache remembers the canonical encoding of one module's
// declarations by their trees, so that building the IR of the same trees
// again (the module's hash after one of its imports changed) encodes only
// the declarations that are new. With Options.Src it also remembers them
// by the SHA-256 of their forms' text: in a text without syntax errors a
// declaration's encoding is a function of its form's text alone
// (positions, layout, comments and doc comments are normalized away, and
// nothing outside the form is read),
// so a text read and built again (a module's new version: every tree is
// new) encodes only the declarations whose text changed. After each
// build it holds exactly the declarations of the module built; trees
// must not change once built. It is safe for concurrent use.
type DeclCache struct {
	mu     sync.Mutex
	m      map[ast.Decl][]byte
	byText map[[sha256.Size]byte][]byte
}

// lookup returns a declaration's remembered encoding, by its tree or,
// when hasText, by the hash of its form's text.
func (c *DeclCache) lookup(d ast.Decl, text [sha256.Size]byte, hasText bool) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.m[d]; ok {
		return b, true
	}
	if hasText {
		b, ok := c.byText[text]
		return b, ok
	}
	return nil, false
}

// replace makes m and byText the remembered encodings.
func (c *DeclCache) replace(m map[ast.Decl][]byte, byText map[[sha256.Size]byte][]byte) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.m, c.byText = m, byText
	c.mu.Unlock()
}

// Canonical returns the canonical IR of m in its compact canonical form.
func Canonical(m *ast.Module) ([]byte, error) { return Options{}.Canonical(m) }

// Hash returns the semantic hash of m: "sha256:" followed by 64 lowercase
// hex digits.
func Hash(m *ast.Module) (string, error) { return Options{}.Hash(m) }

// HashBytes returns the semantic hash of already-canonical IR bytes.
func HashBytes(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Canonical returns the canonical IR of m.
func (o Options) Canonical(m *ast.Module) ([]byte, error) {
	v, err := o.value(m)
	if err != nil {
		return nil, err
	}
	return encodeValue(v), nil
}

// Hash returns the semantic hash of m. The canonical bytes go to the hash
// as they are encoded, without being assembled in one buffer.
func (o Options) Hash(m *ast.Module) (string, error) {
	v, err := o.value(m)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	s := &sink{w: h}
	v.encode(s)
	s.flush()
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// value returns the canonical IR of m as a JSON value.
func (o Options) value(m *ast.Module) (value, error) {
	if m == nil {
		return nil, errors.New("ir: no module: the file holds no (module NAME ...) form")
	}
	return o.module(m)
}

// ---- module

func (o Options) module(m *ast.Module) (value, error) {
	v := jobj{{"capsulang_ir", jint(Version)}}
	v.set("name", optName(m.Name))
	if m.Capsule != nil {
		v.set("capsule", jstr(m.Capsule.Value))
	}
	profiles := make([]string, 0, len(m.Profiles))
	for _, p := range m.Profiles {
		profiles = append(profiles, p.Name)
	}
	v.set("profiles", sortedStrings(profiles, true))

	imps := make([]value, 0, len(m.Imports))
	names := make([]string, 0, len(m.Imports))
	for _, im := range m.Imports {
		if im == nil {
			continue
		}
		e := jobj{}
		e.set("path", jstr(im.Path.Name))
		e.set("alias", optName(im.Alias))
		if o.ImportHash != nil && im.Path.Valid() {
			h, err := o.ImportHash(im.Path.Name)
			if err != nil {
				return nil, fmt.Errorf("ir: import %s: %w", im.Path.Name, err)
			}
			if h != "" {
				e.set("hash", jstr(h))
			}
		}
		imps = append(imps, e)
		names = append(names, im.Path.Name)
	}
	v.set("imports", sortByName(imps, names))

	if o.Decls == nil {
		v.set("decls", newDeclArray(m.Decls))
		return v, nil
	}
	// Each declaration is encoded as soon as it is built, so that only the
	// bytes of the declarations are held at once, not their value trees
	// (the declaration cache keeps them).
	var enc encodings
	decls := make([]keyed, 0, len(m.Decls))
	// Each declaration's members are built in the one array, which its
	// encoding is done with before the next is built.
	members := make(jobj, 0, 16)
	var kept map[ast.Decl][]byte
	var keptText map[[sha256.Size]byte][]byte
	if o.Decls != nil {
		kept = make(map[ast.Decl][]byte, len(m.Decls))
		if o.Src != nil {
			keptText = make(map[[sha256.Size]byte][]byte, len(m.Decls))
		}
	}
	for _, d := range m.Decls {
		if isNil(d) {
			continue
		}
		var text [sha256.Size]byte
		hasText := false
		if keptText != nil {
			if f := d.Base().Form; f != nil {
				if sp := f.Span(); 0 <= sp.Start && sp.Start <= sp.End && sp.End <= len(o.Src) {
					text, hasText = sha256.Sum256(o.Src[sp.Start:sp.End]), true
				}
			}
		}
		// Kind names contain no NUL, so "kind\x00name" sorts by kind, then
		// by name.
		b, ok := o.Decls.lookup(d, text, hasText)
		if !ok {
			members = declInto(members, d)
			b = enc.encode(members)
			if kept != nil {
				b = append([]byte(nil), b...) // not the shared chunk
			}
		}
		if kept != nil {
			kept[d] = b
		}
		if hasText {
			keptText[text] = b
		}
		decls = append(decls, keyed{name: string(d.Kind()) + "\x00" + d.Base().Name.Name, enc: b})
	}
	o.Decls.replace(kept, keptText)
	v.set("decls", sortKeyed(decls))
	return v, nil
}

// declArray is a module's declarations in canonical order, built and
// encoded one at a time as the array is written: a hash then holds one
// declaration's value tree and bytes at a time, not the encodings of all
// of them (on a large module they were a tenth of caps check's peak
// memory, issue 19). The order is sortKeyed's: by kind and name, and
// declarations with the same kind and name by their canonical bytes,
// which only they are encoded ahead for.
type declArray struct {
	decls []ast.Decl
	// tied holds the canonical bytes of the declarations whose kind and
	// name another declaration shares, by index in decls.
	tied map[int][]byte
}

func newDeclArray(decls []ast.Decl) *declArray {
	a := &declArray{decls: make([]ast.Decl, 0, len(decls))}
	for _, d := range decls {
		if !isNil(d) {
			a.decls = append(a.decls, d)
		}
	}
	// Kind names contain no NUL: comparing kinds, then names, is
	// comparing "kind\x00name" keys.
	slices.SortStableFunc(a.decls, compareDeclKeys)
	var members jobj
	for i := 0; i < len(a.decls); {
		j := i + 1
		for j < len(a.decls) && compareDeclKeys(a.decls[i], a.decls[j]) == 0 {
			j++
		}
		if j-i > 1 {
			type encoded struct {
				d   ast.Decl
				enc []byte
			}
			run := make([]encoded, j-i)
			for k := range run {
				members = declInto(members, a.decls[i+k])
				run[k] = encoded{a.decls[i+k], encodeValue(members)}
			}
			slices.SortStableFunc(run, func(x, y encoded) int { return bytes.Compare(x.enc, y.enc) })
			if a.tied == nil {
				a.tied = map[int][]byte{}
			}
			for k, r := range run {
				a.decls[i+k] = r.d
				a.tied[i+k] = r.enc
			}
		}
		i = j
	}
	return a
}

func compareDeclKeys(x, y ast.Decl) int {
	if c := strings.Compare(string(x.Kind()), string(y.Kind())); c != 0 {
		return c
	}
	return strings.Compare(x.Base().Name.Name, y.Base().Name.Name)
}

func (a *declArray) encode(b *sink) {
	b.WriteByte('[')
	members := make(jobj, 0, 16) // each declaration's, reused
	// the forms of a lean tree's function built again, reused: each
	// declaration is encoded before the next is built
	var forms syntax.FormArena
	for i, d := range a.decls {
		if i > 0 {
			b.WriteByte(',')
		}
		if enc, ok := a.tied[i]; ok {
			b.Write(enc)
		} else {
			members = declIntoIn(members, d, &forms)
			members.encode(b)
		}
		b.spill()
	}
	b.WriteByte(']')
}

// isNil reports whether d is nil or a typed nil pointer.
func isNil(d ast.Decl) bool {
	switch d := d.(type) {
	case nil:
		return true
	case *ast.TypeDecl:
		return d == nil
	case *ast.Function:
		return d == nil
	case *ast.Machine:
		return d == nil
	case *ast.Store:
		return d == nil
	case *ast.Surface:
		return d == nil
	case *ast.Port:
		return d == nil
	case *ast.Agent:
		return d == nil
	case *ast.ClauseDecl:
		return d == nil
	}
	return false
}

// optName returns the identifier as a JSON string, or nil (absent) when the
// identifier is missing.
func optName(id ast.Ident) value {
	if !id.Valid() {
		return nil
	}
	return jstr(id.Name)
}

func optString(s *ast.StringLit) value {
	if s == nil {
		return nil
	}
	return jstr(s.Value)
}

// ---- declarations

// declInto builds the value of d in v's array (from its start), so that
// declarations encoded one after another share one array of members (16
// has room for every member a declaration has).
func declInto(v jobj, d ast.Decl) jobj { return declIntoIn(v, d, nil) }

// declIntoIn is declInto building a lean tree's deferred function again in
// forms (ast.MaterializeIn), whose next use overwrites it: v must be
// encoded before then.
func declIntoIn(v jobj, d ast.Decl, forms *syntax.FormArena) jobj {
	base := d.Base()
	v = append(v[:0], member{"kind", jstr(string(d.Kind()))})
	v.set("name", optName(base.Name))
	switch d := d.(type) {
	case *ast.TypeDecl:
		typeDecl(&v, d)
	case *ast.Function:
		function(&v, ast.MaterializeIn(d, forms)) // (a lean tree's deferred body, built again)
	case *ast.Machine:
		machine(&v, d)
	case *ast.Store:
		store(&v, d)
	case *ast.Surface:
		surface(&v, d)
	case *ast.Port:
		port(&v, d)
	case *ast.Agent:
		agent(&v, d)
	default:
		// ClauseDecl, and any declaration kind this package does not know:
		// every clause, grouped by key.
		v.set("clauses", clauseList(ast.ClausesOf(d)))
	}
	return v
}

// clause encodes a generic clause (KEY arg...).
func clause(c *ast.Clause) value {
	if c == nil {
		return jnull{}
	}
	return pair("args", forms(c.Args), "key", jstr(c.Key.Name))
}

// clauseList encodes clauses sorted by key; clauses with the same key keep
// their source order, since repeating a clause can be ordered (several
// (requires ...) of a gate, several (on OUTCOME ...) of a policy).
func clauseList(cs []*ast.Clause) jarr {
	items := make([]value, 0, len(cs))
	keys := make([]string, 0, len(cs))
	for _, c := range cs {
		if c == nil {
			continue
		}
		items = append(items, clause(c))
		keys = append(keys, c.Key.Name)
	}
	return stableByKey(items, keys)
}

// extraClauses returns the clauses of a typed declaration that its typed
// fields do not represent: clauses such as summary, discovery or auth,
// unknown clauses, and earlier repetitions of a single-valued clause (whose
// last occurrence is the one the typed field holds). multi lists the keys
// whose every occurrence the typed fields hold; single the keys of which
// they hold only the last.
func extraClauses(cs []*ast.Clause, multi, single []string) jarr {
	// last[j] is the index of the last clause with key single[j].
	var buf [8]int
	last := buf[:0]
	for range single {
		last = append(last, -1)
	}
	for i, c := range cs {
		if c != nil {
			if j := slices.Index(single, c.Key.Name); j >= 0 {
				last[j] = i
			}
		}
	}
	var extra []*ast.Clause
	for i, c := range cs {
		if c == nil {
			continue
		}
		k := c.Key.Name
		if j := slices.Index(single, k); contains(multi, k) || j >= 0 && last[j] == i {
			continue
		}
		extra = append(extra, c)
	}
	return clauseList(extra)
}

// extraClauseForms is extraClauses for a declaration that keeps no clause
// list (a function: ast.Function.ClauseForms), reading the clauses from
// their forms and making a Clause only for those it returns.
func extraClauseForms(items []*syntax.Form, multi, single []string) jarr {
	var buf [8]int
	last := buf[:0]
	for range single {
		last = append(last, -1)
	}
	for i, it := range items {
		if ast.IsClause(it) {
			if j := slices.Index(single, it.Head()); j >= 0 {
				last[j] = i
			}
		}
	}
	var extra []*ast.Clause
	for i, it := range items {
		if !ast.IsClause(it) {
			continue
		}
		k := it.Head()
		if j := slices.Index(single, k); contains(multi, k) || j >= 0 && last[j] == i {
			continue
		}
		c := ast.ClauseOf(it)
		extra = append(extra, &c)
	}
	return clauseList(extra)
}

// subClauses turns the items of a nested form (a state or a transition)
// into clauses, starting at item index from; items that are not clauses
// are left out (the tree builder reported them).
func subClauses(f *syntax.Form, from int) []*ast.Clause {
	if f == nil || f.Kind != syntax.FormList || len(f.Items()) <= from {
		return nil
	}
	var out []*ast.Clause
	for _, it := range f.Items()[from:] {
		if it == nil || it.Kind != syntax.FormList || it.Head() == "" {
			continue
		}
		out = append(out, &ast.Clause{Form: it, Key: ast.Ident{Name: it.Head(), Span: it.Items()[0].Span()}, Args: it.Items()[1:]})
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// ---- types

// typeRef encodes a type: a plain name (U64, Claim) as a string, an
// applied type ((List Claim), (Array U8 4)) as {"type", "args", "len"}.
func typeRef(t *ast.TypeRef) value {
	if t == nil {
		return jnull{}
	}
	if len(t.Args) == 0 && t.ArrayLen() == nil {
		return jstr(t.Name.Name)
	}
	v := jobj{{"type", jstr(t.Name.Name)}}
	if len(t.Args) > 0 {
		args := make(jarr, len(t.Args))
		for i, a := range t.Args {
			args[i] = typeRef(a)
		}
		v.set("args", args)
	}
	if t.ArrayLen() != nil {
		v.set("len", jstr(intText(t.ArrayLen())))
	}
	return v
}

func optType(t *ast.TypeRef) value {
	if t == nil {
		return nil
	}
	return typeRef(t)
}

// fields encodes typed fields in source order.
func fields(fs []*ast.Field) jarr {
	out := make(jarr, 0, len(fs))
	for _, f := range fs {
		out = append(out, field(f))
	}
	return out
}

func field(f *ast.Field) value {
	if f == nil {
		return jnull{}
	}
	return pair("name", jstr(f.Name.Name), "type", typeRef(f.Type))
}

// fieldsByName encodes typed fields sorted by name.
func fieldsByName(fs []*ast.Field) jarr {
	items := make([]value, 0, len(fs))
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		if f == nil {
			continue
		}
		items = append(items, field(f))
		names = append(names, f.Name.Name)
	}
	return sortByName(items, names)
}

func typeDecl(v *jobj, d *ast.TypeDecl) {
	switch def := d.Def.(type) {
	case *ast.AliasDef:
		if def != nil {
			v.set("def", tagged("alias", typeRef(def.Type)))
		}
	case *ast.RecordDef:
		if def != nil {
			kw := def.Keyword.Name
			if kw == "" {
				kw = "record"
			}
			v.set("def", tagged(kw, fields(def.Fields)))
		}
	case *ast.EnumDef:
		if def != nil {
			ms := make(jarr, len(def.Members))
			for i, m := range def.Members {
				ms[i] = jstr(m.Name)
			}
			v.set("def", tagged("enum", ms))
		}
	case *ast.VariantDef:
		if def != nil {
			cs := make(jarr, 0, len(def.Cases))
			for _, c := range def.Cases {
				if c == nil {
					cs = append(cs, jnull{})
					continue
				}
				cs = append(cs, jobj{{"fields", fields(c.Fields)}, {"name", jstr(c.Name.Name)}})
			}
			v.set("def", tagged("variant", cs))
		}
	}
}

// ---- functions

func function(v *jobj, f *ast.Function) {
	v.set("version", optString(f.Version))
	v.setArr("inputs", fields(f.Inputs))
	v.set("output", optType(f.Output))
	if f.Effects == nil || f.Effects.Pure {
		v.set("effects", jstr("pure"))
	} else {
		v.set("effects", effects(f.Effects.Items))
	}
	v.setArr("requires", exprs(f.Requires))
	v.setArr("ensures", exprs(f.Ensures))
	exs := make(jarr, 0, len(f.Examples))
	for _, ex := range f.Examples {
		if ex == nil {
			exs = append(exs, jnull{})
			continue
		}
		exs = append(exs, jobj{{"args", exprs(ex.Args)}, {"call", jstr(ex.Func.Name)}, {"expected", expr(ex.Expected)}})
	}
	v.setArr("examples", exs)
	if f.Body != nil {
		v.set("body", expr(f.Body))
	}
	v.setArr("clauses", extraClauseForms(f.ClauseForms(),
		[]string{"input", "requires", "ensures", "example"},
		[]string{"version", "output", "effects", "body"}))
}

// effects encodes effect intents in source order.
func effects(es []*ast.Effect) jarr {
	out := make(jarr, 0, len(es))
	for _, e := range es {
		out = append(out, effect(e))
	}
	return out
}

func effect(e *ast.Effect) value {
	if e == nil {
		return jnull{}
	}
	ts := make(jarr, len(e.Targets))
	for i, t := range e.Targets {
		ts[i] = jstr(t.Name)
	}
	v := jobj{{"args", exprs(e.Args)}, {"effect", jstr(e.Name.Name)}, {"targets", ts}}
	if e.Retry != nil {
		v.set("retry", jstr(intText(e.Retry)))
	}
	if e.Timeout != nil {
		v.set("timeout_ms", jstr(millis(e.Timeout)))
	}
	v.set("on_error", optName(e.OnError))
	v.set("claim", optName(e.Claim))
	return v
}

// ---- machines

func machine(v *jobj, m *ast.Machine) {
	v.set("version", optString(m.Version))
	v.set("context", fieldsByName(m.Context))

	evs := make([]value, 0, len(m.Events))
	names := make([]string, 0, len(m.Events))
	for _, e := range m.Events {
		if e == nil {
			continue
		}
		ev := jobj{{"fields", fields(e.Fields)}}
		ev.set("name", optName(e.Name))
		evs = append(evs, ev)
		names = append(names, e.Name.Name)
	}
	v.set("events", sortByName(evs, names))
	v.set("initial", optName(m.Initial))
	if m.Persistence != nil {
		v.set("persistence", persistence(m.Persistence))
	}

	sts := make([]value, 0, len(m.States))
	names = make([]string, 0, len(m.States))
	for _, s := range m.States {
		if s == nil {
			continue
		}
		sts = append(sts, state(s))
		names = append(names, s.Name.Name)
	}
	v.set("states", sortByName(sts, names))
	v.set("clauses", extraClauses(m.Clauses,
		[]string{"context", "event", "state"},
		[]string{"version", "initial", "persistence"}))
}

// persistence encodes the (persistence (store S) (event-log L) ...) clause:
// its sub-clauses sorted by key, each key's repetitions in source order.
// Items that are not sub-clauses (malformed) are kept as bare forms under
// the empty key.
func persistence(c *ast.Clause) jarr {
	items := make([]value, 0, len(c.Args))
	keys := make([]string, 0, len(c.Args))
	for _, a := range c.Args {
		if a != nil && a.Kind == syntax.FormList && a.Head() != "" {
			items = append(items, jobj{{"args", forms(a.Items()[1:])}, {"key", jstr(a.Head())}})
			keys = append(keys, a.Head())
			continue
		}
		items = append(items, jobj{{"args", jarr{form(a)}}, {"key", jstr("")}})
		keys = append(keys, "")
	}
	return stableByKey(items, keys)
}

func state(s *ast.State) value {
	v := jobj{{"final", jbool(s.Final)}}
	v.set("name", optName(s.Name))
	if s.Timeout != nil {
		t := jobj{}
		if s.Timeout.Duration != nil {
			t.set("after_ms", jstr(millis(s.Timeout.Duration)))
		}
		t.set("event", optName(s.Timeout.Event))
		v.set("timeout", t)
	}
	// At most one transition per event and state is allowed, so the order of
	// transitions carries no meaning: sort them by event. The sort is
	// stable, so a (rejected) repetition keeps its source order.
	ts := make([]value, 0, len(s.Transitions))
	events := make([]string, 0, len(s.Transitions))
	for _, t := range s.Transitions {
		if t == nil {
			continue
		}
		ts = append(ts, transition(t))
		events = append(events, t.Event.Name)
	}
	v.set("transitions", stableByKey(ts, events))
	v.set("clauses", extraClauses(subClauses(s.Form, 2),
		[]string{"on"},
		[]string{"type", "timeout"}))
	return v
}

func transition(t *ast.Transition) value {
	v := jobj{}
	v.set("event", optName(t.Event))
	if t.Guard != nil {
		v.set("guard", expr(t.Guard))
	}
	v.set("target", optName(t.Target))
	// Assignments read the old context and apply together: their order
	// carries no meaning.
	as := make([]value, 0, len(t.Assigns))
	fieldNames := make([]string, 0, len(t.Assigns))
	for _, a := range t.Assigns {
		if a == nil {
			continue
		}
		as = append(as, pair("field", jstr(a.Field.Name), "value", expr(a.Value)))
		fieldNames = append(fieldNames, a.Field.Name)
	}
	v.set("assign", stableByKey(as, fieldNames))
	v.set("effects", effects(t.Effects))
	v.set("clauses", extraClauses(subClauses(t.Form, 2),
		[]string{"assign", "effects"},
		[]string{"guard", "target"}))
	return v
}

// ---- stores, surfaces, ports, agents

func store(v *jobj, s *ast.Store) {
	v.set("backend", optName(s.Backend))
	v.set("authority", optName(s.Authority))
	cs := make([]string, len(s.Collections))
	for i, c := range s.Collections {
		cs[i] = c.Name
	}
	v.set("collections", sortedStrings(cs, false))
	v.set("clauses", extraClauses(s.Clauses,
		[]string{"collection"},
		[]string{"backend", "authority"}))
}

func protocol(p *ast.Protocol) value {
	if p == nil {
		return nil
	}
	v := jobj{}
	v.set("name", optName(p.Name))
	v.set("version", optString(p.Version))
	return v
}

// operations encodes tools, resources, prompts, skills or actions sorted by
// name (each name is declared once, and names are how they are used).
func operations(ops []*ast.Operation) jarr {
	items := make([]value, 0, len(ops))
	names := make([]string, 0, len(ops))
	for _, op := range ops {
		if op == nil {
			continue
		}
		v := jobj{{"inputs", fields(op.Inputs)}}
		v.set("name", optName(op.Name))
		v.set("output", optType(op.Output))
		v.set("clauses", clauseList(op.Clauses))
		items = append(items, v)
		names = append(names, op.Name.Name)
	}
	return sortByName(items, names)
}

func surface(v *jobj, s *ast.Surface) {
	v.set("protocol", protocol(s.Protocol))
	v.set("title", optString(s.Title))
	v.set("route", optString(s.Route))
	v.set("catalog", optString(s.Catalog))
	v.set("bind", optName(s.Bind))
	evs := make([]string, len(s.Events))
	for i, e := range s.Events {
		evs[i] = e.Name
	}
	v.set("events", sortedStrings(evs, false))
	v.set("state", fields(s.State))
	v.set("actions", operations(s.Actions))
	v.set("clauses", extraClauses(s.Clauses,
		[]string{"event", "state", "action"},
		[]string{"protocol", "title", "route", "catalog", "bind"}))
}

func port(v *jobj, p *ast.Port) {
	v.set("protocol", protocol(p.Protocol))
	v.set("endpoint", optString(p.Endpoint))
	v.set("tools", operations(p.Tools))
	v.set("resources", operations(p.Resources))
	v.set("prompts", operations(p.Prompts))
	v.set("clauses", extraClauses(p.Clauses,
		[]string{"tool", "resource", "prompt"},
		[]string{"protocol", "endpoint"}))
}

func agent(v *jobj, a *ast.Agent) {
	v.set("protocol", protocol(a.Protocol))
	v.set("endpoint", optString(a.Endpoint))
	v.set("skills", operations(a.Skills))
	v.set("clauses", extraClauses(a.Clauses,
		[]string{"skill"},
		[]string{"protocol", "endpoint"}))
}
