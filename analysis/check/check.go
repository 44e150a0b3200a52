// Package check is Capsulang's type, effect, reference and profile checker:
// the authority of record on what is valid. It checks one module (its
// imports come through an Importer) and returns diagnostics plus the facts
// editors need: every declared symbol and every reference to one.
//
// check does not run code. Function examples are evaluated by the
// interpreter in package runtime; the layer that drives both (the CLI, the
// language server) merges the interpreter's verdicts. Until then every
// example is listed in Result.Examples as not yet evaluated.
package check

import (
	"sort"
	"sync"

	"github.com/capsulang/caps/analysis/authority"
	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// Diagnostic codes. They are a public contract: documented in
// docs/diagnostics.md and by `caps explain`, never renamed.
const (
	ParseError            = syntax.CodeParse
	UnknownForm           = ast.CodeUnknownForm
	DuplicateDecl         = "E_DUPLICATE_DECL"
	UnknownName           = "E_UNKNOWN_NAME"
	UnknownState          = "E_UNKNOWN_STATE"
	UnknownEvent          = "E_UNKNOWN_EVENT"
	UnknownField          = "E_UNKNOWN_FIELD"
	UnknownType           = "E_UNKNOWN_TYPE"
	UnknownStore          = "E_UNKNOWN_STORE"
	UnknownSurface        = "E_UNKNOWN_SURFACE"
	UnknownPort           = "E_UNKNOWN_PORT"
	UnknownAgent          = "E_UNKNOWN_AGENT"
	UnknownEffect         = "E_UNKNOWN_EFFECT"
	UnknownProfile        = "E_UNKNOWN_PROFILE"
	UnknownProofBackend   = "E_UNKNOWN_PROOF_BACKEND"
	TypeMismatch          = "E_TYPE_MISMATCH"
	GuardNotBool          = "E_GUARD_NOT_BOOL"
	GuardNotPure          = "E_GUARD_NOT_PURE"
	Arity                 = "E_ARITY"
	EffectNotDeclared     = "E_EFFECT_NOT_DECLARED"
	EffectNotAllowed      = "E_EFFECT_NOT_ALLOWED"
	EffectBudgetOnly      = "E_EFFECT_BUDGET_ONLY"
	ExampleFailed         = "E_EXAMPLE_FAILED"
	MissingClause         = ast.CodeMissingClause
	FinalStateTransition  = "E_FINAL_STATE_TRANSITION"
	ImportNotFound        = "E_IMPORT_NOT_FOUND"
	ImportCycle           = "E_IMPORT_CYCLE"
	ConditionSyntax       = "E_CONDITION_SYNTAX"  // an authority-policy condition does not parse (package cond)
	ConditionType         = "E_CONDITION_TYPE"    // a policy condition compares values of the wrong types
	ConditionUnknown      = "E_CONDITION_UNKNOWN" // a policy condition names what a decision cannot see
	BadLiteral            = syntax.CodeBadLiteral
	UnreachableState      = "W_UNREACHABLE_STATE"
	UnusedEvent           = "W_UNUSED_EVENT"
	UnreachableTransition = "W_UNREACHABLE_TRANSITION"
	DuplicateProfile      = "W_DUPLICATE_PROFILE"
	UnknownBackend        = "W_UNKNOWN_BACKEND"
	AuthorityNeverAllows  = "W_AUTHORITY_NEVER_ALLOWS" // no declared rule or mandate can ever let an effect intent through
	ExampleNotEvaluated   = "I_EXAMPLE_NOT_EVALUATED"
	// Claims before facts (claims.go).
	ClaimPolicy        = "E_CLAIM_POLICY"         // an acceptance declaration's rule is malformed
	ClaimUnknownPolicy = "E_CLAIM_UNKNOWN_POLICY" // a claim names no declared acceptance policy
	ClaimDecl          = "E_CLAIM_DECL"           // a machine's (claim ...) clause is malformed
	ClaimNotExternal   = "E_CLAIM_NOT_EXTERNAL"   // (claim F) on an effect that calls no MCP tool or A2A agent
	ClaimUnknown       = "E_CLAIM_UNKNOWN"        // (claim F) names no claim of the machine
	ClaimAssigned      = "E_CLAIM_ASSIGNED"       // a transition assigns a claim field
	ClaimReadAsFact    = "E_CLAIM_READ_AS_FACT"   // a claim field read where the claim may not be accepted
	ClaimNeverObserved = "W_CLAIM_NEVER_OBSERVED" // no effect observes a declared claim
	ClaimUnusedPolicy  = "W_CLAIM_UNUSED_POLICY"  // no claim names an acceptance policy
	// ObligationFailed is reported by the language server from
	// analysis/verify, not by Check: Z3 found inputs that break a
	// contract, a guard or a zk-proof claim.
	ObligationFailed = "W_OBLIGATION_FAILED"
)

// SymbolKind classifies symbols.
type SymbolKind string

// Symbol kinds beyond the declaration kinds (which use their keyword).
const (
	SymModule       SymbolKind = "module"
	SymImport       SymbolKind = "import"
	SymState        SymbolKind = "state"
	SymEvent        SymbolKind = "event"
	SymContextField SymbolKind = "context field"
	SymEventField   SymbolKind = "event field"
	SymInput        SymbolKind = "input"
	SymLocal        SymbolKind = "local"
	SymEnumMember   SymbolKind = "enum member"
	SymVariantCase  SymbolKind = "variant case"
	SymField        SymbolKind = "field"
	SymOperation    SymbolKind = "operation" // tool, resource, prompt, skill, action
	SymCollection   SymbolKind = "collection"
	SymLocalName    SymbolKind = "clause name" // objective metric, policy outcome
	SymProofInput   SymbolKind = "proof input" // a zk-proof's public or private input
)

// Symbol is something declared: a declaration, a state, an event, a field,
// a parameter, a local.
type Symbol struct {
	Kind   SymbolKind
	Name   string
	Span   syntax.Span // the name at its declaration
	Full   syntax.Span // the whole declaring form
	Parent *Symbol
	Type   types.Type // for values and fields; nil otherwise
	// Detail is a one-line signature for hovers. A check with
	// Options.Once leaves it empty on declarations, function inputs,
	// locals, fields, enum members and variant cases (valueDetail).
	Detail string
	Doc    string
	Decl   ast.Decl // the declaration, for declaration symbols
	// File is the absolute path of the file that declares the symbol (as
	// given in Options.Path; "" when the check had no path). Use
	// Result.Local to tell a file's own symbols from imported ones.
	File string

	// sig is, while a check with Options.Once runs, the signature of the
	// function the symbol declares, once resolved (function.go): such a
	// check needs no table of signatures by function. (The field costs
	// no memory: a Symbol is 152 bytes in a 160-byte size class.)
	sig *signature
}

// Ref is a use of a symbol.
type Ref struct {
	Span syntax.Span
	Sym  *Symbol
}

// EffectUse is an effect a function performs, directly or through a call.
type EffectUse struct {
	Name   string
	Target string
	Span   syntax.Span
}

// Result is what checking a file yields.
type Result struct {
	// Path is the checked file's path (Options.Path).
	Path        string
	File        *ast.File
	Diagnostics []syntax.Diagnostic
	Symbols     []*Symbol
	Refs        []Ref
	// Examples lists every function example; the runtime evaluates them.
	Examples []*ExampleInfo
	// Imports lists the resolved imports with their semantic hashes.
	Imports []*ImportInfo
	// Types records the checked type of every expression. Integer literals
	// get the type their context gave them (Int when nothing did).
	Types *TypeMap
	// FuncEffects lists the effects each function performs in its body,
	// for the functions that perform any (a pure function has no entry,
	// which reads as the empty list).
	FuncEffects map[*ast.Function][]EffectUse
	// ZKProofs holds every zk-proof declaration of the module with its
	// typed inputs and claim (nil when there are none).
	ZKProofs map[*ast.ClauseDecl]*ZKProof

	// checker is the state the check ended in (the module's declarations,
	// signatures and resolved types), kept for Recheck.
	checker *checker
}

// ExampleInfo is one (example ...) clause to evaluate.
type ExampleInfo struct {
	Function *ast.Function
	Example  *ast.Example
}

// Local reports whether s is declared in the checked file (rather than in
// an imported module).
func (r *Result) Local(s *Symbol) bool { return s.File == r.Path }

// HasErrors reports whether any diagnostic is an error.
func (r *Result) HasErrors() bool {
	for _, d := range r.Diagnostics {
		if d.Severity == syntax.Error {
			return true
		}
	}
	return false
}

// Options configure a check.
type Options struct {
	// Path is the file's path, for import resolution and messages.
	Path string
	// Importer resolves imports; nil reports every import as not found.
	Importer Importer
	// Once says that the result will never be rechecked (a command line
	// run): Check then keeps none of the state Recheck and Overlay need,
	// not even while it runs (what each declaration looked up, its
	// diagnostics kept apart, the declaration index), as if
	// DropRecheckState were called when it returns, but without that
	// state's share of the check's peak memory (about a fifth of it on
	// a large module, issue 19). It also leaves out the hover text
	// (Symbol.Detail) of the symbols a large module has many of: one
	// string a declaration and one an input, read only by the language
	// server, which never checks with Once. Everything else in the
	// result is the same.
	Once bool
	// ImportsResolved, when not nil, is called once, with the result
	// being built, as soon as the module's imports are resolved
	// (Result.Imports is final) and before its declarations are checked
	// (its other tables are empty: Types is nil).
	// A one-shot loader computes the semantic hash there, which reads
	// only the syntax tree and the imports' hashes: the hash's garbage
	// is then collected before the check allocates rather than sitting
	// on top of the checked result (issue 19). Only Check calls it (no
	// Recheck), and not for a file without a module.
	ImportsResolved func(*Result)
}

// Check checks a parsed file.
func Check(f *ast.File, opts Options) *Result {
	c := &checker{
		res:             &Result{Path: opts.Path, File: f, FuncEffects: map[*ast.Function][]EffectUse{}},
		importsResolved: opts.ImportsResolved,
	}
	opts.ImportsResolved = nil // (Check's alone: no Recheck calls it)
	c.opts = opts
	c.res.Diagnostics = append(c.res.Diagnostics, f.Diagnostics...)
	if c.importsResolved == nil || f.Module == nil {
		c.presize()
	}
	if f.Module != nil {
		c.module(f.Module) // (which calls importsResolved, then presize)
		if !opts.Once {
			c.keepInterfaceDiagnostics()
		}
		if len(c.res.Refs) == 0 {
			c.res.Refs = nil // as when nothing was appended
		}
		if opts.Once {
			for _, s := range c.decls {
				s.sig = nil // (the result does not keep them)
			}
		}
	}
	sortDiagnostics(c.res.Diagnostics)
	rewriteMessages(c.res.Diagnostics)
	if !opts.Once {
		c.res.checker = c
		c.complete = true
	}
	return c.res
}

// presize makes the tables Check fills (the expressions' types, the
// declarations by name, the symbols and references) with room for what
// the file is expected to hold, keeping the symbols and references
// defined so far. Sized once for what most modules have at least (the
// module, each declaration and function input; a reference a
// declaration): grown by appending, a large module's symbol and
// reference arrays leave four times their size in discarded copies.
// With Options.ImportsResolved it runs after that call, so that the
// tables are not yet on the heap while the caller's hash allocates.
func (c *checker) presize() {
	f := c.res.File
	c.res.Types = NewTypeMap(exprEstimate(f))
	if f.Module == nil {
		c.decls = map[string]*Symbol{}
		return
	}
	ndecls := len(f.Module.Decls)
	c.decls = make(map[string]*Symbol, ndecls)
	nsyms := max(len(c.res.Symbols), 1) + ndecls // the module's symbol and those defined so far
	for _, d := range f.Module.Decls {
		if fn, ok := d.(*ast.Function); ok {
			nsyms += len(fn.Inputs) // (a lean function keeps no input symbols)
		}
	}
	c.res.Symbols = append(make([]*Symbol, 0, nsyms), c.res.Symbols...)
	c.res.Refs = append(make([]Ref, 0, ndecls+len(c.res.Refs)), c.res.Refs...)
}

// DropRecheckState lets go of the checker state r keeps for Recheck and
// Overlay: the module's declaration table, its function signatures and
// what each declaration's check looked up, about a fifth of a large
// module's checked data. Recheck and Overlay then decline (they report
// !ok and nil), as for a result that never had that state; everything
// else in r stays. A caller that checks a file once and never rechecks
// it (the CLI's loader) drops it before it goes on to hash the module.
func (r *Result) DropRecheckState() { r.checker = nil }

// exprEstimate guesses how many expressions a file has, to size the
// Types map once instead of growing it. The builder's count is exact (one
// type an expression); a quarter of the CST nodes, the fallback for a
// file built some other way, is about twice too many on typical code.
func exprEstimate(f *ast.File) int {
	if f.Exprs > 0 {
		return f.Exprs
	}
	if f.Source == nil || f.Source.CST == nil || f.Source.CST.Len() == 0 {
		return 64
	}
	return f.Source.CST.Len() / 4
}

func sortDiagnostics(ds []syntax.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Span.Start != ds[j].Span.Start {
			return ds[i].Span.Start < ds[j].Span.Start
		}
		return ds[i].Span.End < ds[j].Span.End
	})
}

type checker struct {
	res  *Result
	opts Options
	mod  *ast.Module
	// full is the one-shot full check of an incomplete result's text that
	// example scopes run imported functions from (completeImported), made
	// once per result however many importers' examples read it (here,
	// not in Result, which callers copy)
	fullOnce sync.Once
	full     *Result
	// leanTypes holds the types of the deferred body being checked
	// (leanBody); bodyForms and headerForms the forms of the lean
	// function whose body is being checked and of the one whose signature
	// is being resolved (which may be resolved while a body is checked).
	leanTypes              *TypeMap
	bodyForms, headerForms syntax.FormArena
	// decls holds the module's declarations by name (each name once).
	decls map[string]*Symbol
	// types resolved for type declarations.
	typeCache map[*ast.TypeDecl]types.Type
	resolving map[*ast.TypeDecl]bool
	// imports by the name they are referenced with.
	imports map[string]*ImportInfo
	// failedImports holds the names of imports that could not be resolved
	// (already reported), so that their uses are not reported again.
	failedImports map[string]bool
	// badTargets holds declared effects whose targets did not resolve
	// (already reported); they cover uses of the same effect.
	badTargets map[*ast.Effect]bool
	// children indexes symbols by parent.
	children map[*Symbol][]*Symbol
	// sigs caches function signatures.
	sigs map[*ast.Function]*signature
	// boundSurfaces indexes the module's surfaces by the machine they
	// bind, and variantCases its variant types by case name (both built
	// on first use).
	boundSurfaces map[string][]*ast.Surface
	// boundScanned says an incremental run already looked up one
	// machine's surfaces by a scan; the next lookup builds the index.
	boundScanned bool
	variantCases map[string][]variantCase
	// overlayGone and overlayDecls are set on an Overlay's checker: the
	// names its later version no longer declares, and the declarations
	// it checks (the variant types a bare constructor searches are the
	// module's as the overlay sees them).
	overlayGone  map[string]bool
	overlayDecls []ast.Decl
	// governed indexes the machines by the policies that decide their
	// intents (built on first use).
	governed map[string][]*ast.Machine
	// memberIdx indexes the members of declarations that have many.
	memberIdx map[*Symbol]*membersIndexed
	// fieldTypes holds the resolved type of each (name Type) field of a
	// clause declaration (zk-proof inputs), by the field's form.
	fieldTypes map[*syntax.Form]types.Type
	// badAcceptance holds the acceptance declarations reported malformed
	// (claims.go).
	badAcceptance map[*ast.ClauseDecl]bool
	// info holds, per declaration of the module (by index in
	// mod.Decls), the names and module facts its checks looked up and the
	// diagnostics its body check reported: what Recheck reuses. index
	// maps a declaration to its index; dep is where lookups are recorded
	// now (nil outside a declaration's checks).
	info  []declInfo
	index map[ast.Decl]int
	dep   *deps
	// p1 is the declaration whose interface is being resolved (its
	// diagnostics are recorded as its own), nil outside.
	p1 *declInfo
	// head is the range of c.res.Diagnostics the module header's checks
	// (profiles, imports) reported.
	head [2]int
	// importLog records what the Importer answered for each module path,
	// so that Recheck can replay it.
	importLog map[string]importCall
	// eng is set on a checker that checks a new version of a file
	// against an earlier full check (Recheck).
	eng *engineRun
	verState
	// base is set on a checker that resolves and checks again only some
	// declarations of a new version (Recheck's fast path): the others'
	// types, signatures and members are looked up in base, which is
	// never written.
	base *checker
	// depth counts the bases below a checker that was a fast Recheck's
	// (chain.go): its lookups walk them. merged is set when that chain
	// was merged into two links (merge).
	depth  int
	merged bool
	// kept is set on a fast Recheck's checker: its module keeps trees
	// built from older texts (their offsets are those texts'), so that
	// only Recheck may read it (RecheckImports and Overlay, which check
	// or read its trees, decline).
	kept bool
	// complete is set when the result's Types and Refs cover every body
	// (Result.Complete).
	complete bool
	// next is the version a fast Recheck's checker holds for the
	// Recheck after it (chain.go), finished on first use.
	next *version
	// shiftOf gives, in Recheck's fast path, how far each declaration
	// whose base tree it kept moved; strShift is the one policy
	// conditions are read with now.
	shiftOf  map[ast.Decl]int
	strShift int
	// policyAt is where the policy conditions' diagnostics start in
	// c.res.Diagnostics (before sorting); policyDiags are they.
	policyAt    int
	policyDiags []syntax.Diagnostic
	// model is the module's authority model (policyConditions).
	model *authority.Model
	// headDiags are the module header's diagnostics (kept for Recheck).
	headDiags []syntax.Diagnostic
	// fnEnv and fnUsed are the environment of the inputs and the effects
	// performed of the function whose body is being checked (function).
	fnEnv  env
	fnUsed []EffectUse
	// scratch is a buffer hover texts are built in (functionDetail).
	scratch []byte
	// importsResolved is Options.ImportsResolved of the Check that made
	// the checker (nil on any other).
	importsResolved func(*Result)
}

// declAt is where a problem with a whole declaration is reported: its
// name, or its keyword when the name is missing (the builder reported that).
func declAt(d ast.Decl) syntax.Span {
	if b := d.Base(); b.Name.Valid() {
		return b.Name.Span
	}
	return d.Base().Keyword().Span
}

// declNamed returns the module declaration called name, or nil.
func (c *checker) declNamed(name string) *Symbol {
	if c.dep != nil {
		c.dep.names = append(c.dep.names, name)
	}
	return c.decls[name]
}

// cachedSig returns fn's signature if it was resolved already.
func (c *checker) cachedSig(fn *ast.Function) (*signature, bool) {
	if s, ok := c.sigs[fn]; ok || c.base == nil {
		return s, ok
	}
	for b := c.base; b != nil; b = b.base {
		if s, ok := b.sigs[fn]; ok {
			return s, true
		}
	}
	return nil, false
}

func (c *checker) report(code string, sev syntax.Severity, sp syntax.Span, format string, args ...any) *syntax.Diagnostic {
	if c.p1 != nil {
		c.p1.p1idx = append(c.p1.p1idx, len(c.res.Diagnostics))
	}
	c.res.Diagnostics = append(c.res.Diagnostics, syntax.NewDiagnostic(code, sev, sp, format, args...))
	return &c.res.Diagnostics[len(c.res.Diagnostics)-1]
}

func (c *checker) errorf(code string, sp syntax.Span, format string, args ...any) *syntax.Diagnostic {
	return c.report(code, syntax.Error, sp, format, args...)
}

func (c *checker) warnf(code string, sp syntax.Span, format string, args ...any) *syntax.Diagnostic {
	return c.report(code, syntax.Warning, sp, format, args...)
}

func (c *checker) ref(sp syntax.Span, s *Symbol) {
	if s != nil {
		c.res.Refs = append(c.res.Refs, Ref{Span: sp, Sym: s})
	}
}

func (c *checker) define(s *Symbol) *Symbol {
	s.File = c.opts.Path
	c.res.Symbols = append(c.res.Symbols, s)
	// A function's inputs are never looked up as its members (members
	// are fields, cases, states, events, collections, operations): a
	// check that keeps nothing for Recheck does not index them.
	if s.Parent != nil && !(c.opts.Once && s.Kind == SymInput) {
		if c.children == nil {
			c.children = map[*Symbol][]*Symbol{}
		}
		c.children[s.Parent] = append(c.children[s.Parent], s)
	}
	return s
}

// members returns the symbols whose parent is s.
func (c *checker) members(s *Symbol) []*Symbol {
	if m, ok := c.children[s]; ok || c.base == nil {
		return m
	}
	for b := c.base; b != nil; b = b.base {
		if m, ok := b.children[s]; ok {
			return m
		}
	}
	return nil
}

// didYouMean suggests the nearest of candidates to name: as an argument
// of errorf or warnf it ends the message with the hint and becomes the
// diagnostic's Suggestion.
func didYouMean(name string, candidates []string) syntax.DidYouMean {
	return syntax.Nearest(name, candidates)
}

// scope is a set of names with duplicate detection. Most scopes are small
// (a function's inputs, an event's fields) and are searched in order; a
// map indexes a scope once it holds more than smallScope names.
type scope struct {
	c     *checker
	what  string
	hint  int // how many names the scope is expected to hold
	order []string
	syms  []*Symbol          // the symbol of each name in order
	names map[string]*Symbol // nil while the scope is small
}

// smallScope is the most names a scope searches without a map.
const smallScope = 8

func (c *checker) newScope(what string) *scope {
	return &scope{c: c, what: what}
}

// add defines s in the scope, reporting a duplicate. It returns false for
// a duplicate.
func (s *scope) add(sym *Symbol) bool {
	if prev := s.lookup(sym.Name); prev != nil {
		s.c.duplicate(s.what, sym, prev)
		s.c.define(sym)
		return false
	}
	s.order = append(s.order, sym.Name)
	s.syms = append(s.syms, sym)
	switch {
	case s.names != nil:
		s.names[sym.Name] = sym
	case len(s.order) > smallScope:
		s.names = make(map[string]*Symbol, max(2*len(s.order), s.hint))
		for i, name := range s.order {
			s.names[name] = s.syms[i]
		}
	}
	s.c.define(sym)
	return true
}

// duplicate reports sym, a what, as declared twice, first as prev.
func (c *checker) duplicate(what string, sym, prev *Symbol) {
	d := c.errorf(DuplicateDecl, sym.Span, "%s `%s` is declared twice", what, sym.Name)
	d.Related = []syntax.Related{{Span: prev.Span, Message: "first declared here"}}
}

// lookup returns the symbol the scope holds for name, or nil.
func (s *scope) lookup(name string) *Symbol {
	if s.names != nil {
		return s.names[name]
	}
	for i, n := range s.order {
		if n == name {
			return s.syms[i]
		}
	}
	return nil
}

func (s *scope) list() []string { return s.order }
