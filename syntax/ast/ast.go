// Package ast defines Capsulang's typed syntax tree and builds it from the
// generic forms of package syntax.
//
// Every node keeps the byte span of its source and every name keeps the span
// of the name alone, so that diagnostics, hovers and renames point at exactly
// the right text. Core constructs (module, import, type, function, machine,
// store, surface, port, agent) have typed nodes; the improvement-governance
// and Authority IR forms (contract, lineage, objective, gate, principal,
// capability, ...) are declarations made of clauses, whose allowed shapes the
// checker validates from a data table.
package ast

import "github.com/capsulang/caps/syntax"

// Span is a byte range in the source file.
type Span = syntax.Span

// Ident is a name with the span of the name alone.
type Ident struct {
	Name string
	Span Span
}

// Valid reports whether the identifier is present.
func (id Ident) Valid() bool { return id.Name != "" }

// File is one parsed source file.
type File struct {
	Source *syntax.Source
	Module *Module // nil when the file holds no module form
	// Diagnostics are the syntax diagnostics plus the structural ones found
	// while building the tree (unknown forms, missing clauses, bad literals).
	Diagnostics []syntax.Diagnostic
	// Exprs counts the expressions Build made: a size hint for tables
	// keyed by expression, such as the checker's types.
	Exprs int
}

// Module is the (module NAME ...) form.
type Module struct {
	Form     *syntax.Form
	Name     Ident
	Doc      string
	Capsule  *StringLit // (capsule "VERSION")
	Profiles []Ident    // from (profile P...) clauses
	Imports  []*Import
	Decls    []Decl
}

// Import is (import a.b.c) or (import a.b.c (as alias)).
type Import struct {
	Form  *syntax.Form
	Path  Ident
	Alias Ident
}

// DeclKind names the kind of a declaration by its keyword.
type DeclKind string

// Declaration kinds.
const (
	KindType                DeclKind = "type"
	KindFunction            DeclKind = "function"
	KindMachine             DeclKind = "machine"
	KindStore               DeclKind = "store"
	KindSurface             DeclKind = "surface"
	KindPort                DeclKind = "port"
	KindAgent               DeclKind = "agent"
	KindContract            DeclKind = "contract"
	KindLineage             DeclKind = "lineage"
	KindObjective           DeclKind = "objective"
	KindEvalSuite           DeclKind = "eval-suite"
	KindSuccessorContract   DeclKind = "successor-contract"
	KindBudget              DeclKind = "budget"
	KindGate                DeclKind = "gate"
	KindDeploymentPolicy    DeclKind = "deployment-policy"
	KindImprovementRecord   DeclKind = "improvement-record"
	KindVerificationHook    DeclKind = "verification-hook"
	KindPrincipal           DeclKind = "principal"
	KindMandate             DeclKind = "mandate"
	KindDelegation          DeclKind = "delegation"
	KindCapability          DeclKind = "capability"
	KindAuthorityPolicy     DeclKind = "authority-policy"
	KindTrustBoundary       DeclKind = "trust-boundary"
	KindTelemetryObligation DeclKind = "telemetry-obligation"
	KindMemoryPolicy        DeclKind = "memory-policy"
	KindZKProof             DeclKind = "zk-proof"
	// KindAcceptance is (acceptance NAME (auto) | (quorum N (principals P...)) | (human P)):
	// how a claim becomes a fact (docs/language.md, "Claims before facts").
	KindAcceptance DeclKind = "acceptance"
)

// ClauseKinds are the declaration kinds represented as clause lists.
var ClauseKinds = []DeclKind{
	KindContract, KindLineage, KindObjective, KindEvalSuite, KindSuccessorContract,
	KindBudget, KindGate, KindDeploymentPolicy, KindImprovementRecord, KindVerificationHook,
	KindPrincipal, KindMandate, KindDelegation, KindCapability, KindAuthorityPolicy,
	KindTrustBoundary, KindTelemetryObligation, KindMemoryPolicy, KindZKProof, KindAcceptance,
}

// DeclKinds lists every declaration kind, typed ones first.
var DeclKinds = append([]DeclKind{KindType, KindFunction, KindMachine, KindStore, KindSurface, KindPort, KindAgent}, ClauseKinds...)

// Decl is a named top-level declaration inside a module.
type Decl interface {
	Kind() DeclKind
	Base() *DeclBase
}

// DeclBase holds what every declaration has. Its clauses are held by the
// declarations that keep them (ClausesOf returns them for any
// declaration): a function's are rebuilt from its form when asked for, as
// a large module holds mostly functions and their typed fields say what
// the clauses did (issue 19: memory per source byte).
type DeclBase struct {
	Form *syntax.Form
	Name Ident
	Doc  string // the ;; comment lines directly above the declaration
}

// Base returns the declaration's common fields.
func (b *DeclBase) Base() *DeclBase { return b }

// Keyword returns the declaration keyword, e.g. `machine`, with its span
// (the empty Ident when the declaration has no form).
func (b *DeclBase) Keyword() Ident {
	if b.Form == nil || len(b.Form.Items()) == 0 {
		return Ident{}
	}
	k := b.Form.Items()[0]
	return Ident{k.Text(), k.Span()}
}

// ClausesOf returns every clause of declaration d, in source order, typed
// or not: the list a clause-holding declaration keeps, a function's
// clauses read again from its form (Function.Clauses), nil for a type.
func ClausesOf(d Decl) []*Clause {
	switch d := d.(type) {
	case *Function:
		return d.Clauses()
	case *Machine:
		return d.Clauses
	case *Store:
		return d.Clauses
	case *Surface:
		return d.Clauses
	case *Port:
		return d.Clauses
	case *Agent:
		return d.Clauses
	case *ClauseDecl:
		return d.Clauses
	}
	return nil
}

// Clause is one (KEY arg...) list inside a declaration.
type Clause struct {
	Form *syntax.Form
	Key  Ident
	Args []*syntax.Form
}

// StringLit is a string literal with its decoded value.
type StringLit struct {
	Value string
	Span  Span
	id    ExprID
}

// Field is a name with a type: (claim_id U64).
type Field struct {
	Form *syntax.Form
	Name Ident
	Type *TypeRef
}

// TypeRef is a type expression: a name such as U64 or Claim, or an applied
// type such as (List Claim), (Map Text U64) or (Array U8 4).
//
// A TypeRef is 64 bytes (issue 19: a large module has one per field and
// result type): a plain name's span is its name's, and only an applied
// type, or one whose name is missing, keeps its span and length apart.
type TypeRef struct {
	Name Ident
	Args []*TypeRef
	ext  *typeRefExt // nil when the span is the name's and there is no length
}

// typeRefExt is what a TypeRef keeps besides its name and arguments.
type typeRefExt struct {
	span Span
	len  *IntLit
}

// NewTypeRef returns a type reference spanning sp, named name, without
// arguments.
func NewTypeRef(sp Span, name Ident) *TypeRef {
	t := &TypeRef{Name: name}
	if sp != name.Span {
		t.ext = &typeRefExt{span: sp}
	}
	return t
}

// Span covers the whole type expression.
func (t *TypeRef) Span() Span {
	if t.ext != nil {
		return t.ext.span
	}
	return t.Name.Span
}

// ArrayLen is the length of (Array T N), nil for other types.
func (t *TypeRef) ArrayLen() *IntLit {
	if t.ext != nil {
		return t.ext.len
	}
	return nil
}

// SetLen sets the length of an array type.
func (t *TypeRef) SetLen(n *IntLit) {
	if t.ext == nil {
		t.ext = &typeRefExt{span: t.Name.Span}
	}
	t.ext.len = n
}

// ---- type declarations

// TypeDecl is (type NAME DEF).
type TypeDecl struct {
	DeclBase
	Def TypeDef
}

func (*TypeDecl) Kind() DeclKind { return KindType }

// TypeDef is the definition of a declared type.
type TypeDef interface{ typeDef() }

// AliasDef is (type Money U64).
type AliasDef struct{ Type *TypeRef }

// RecordDef is (record (f T)...); also used for error and event types.
type RecordDef struct {
	Form    *syntax.Form
	Keyword Ident // record, error or event
	Fields  []*Field
}

// EnumDef is (enum a b c).
type EnumDef struct {
	Form    *syntax.Form
	Members []Ident
}

// VariantDef is (variant (case (f T)...) bare_case ...).
type VariantDef struct {
	Form  *syntax.Form
	Cases []*VariantCase
}

// VariantCase is one case of a tagged variant.
type VariantCase struct {
	Name   Ident
	Fields []*Field
}

func (*AliasDef) typeDef()   {}
func (*RecordDef) typeDef()  {}
func (*EnumDef) typeDef()    {}
func (*VariantDef) typeDef() {}

// ---- functions

// Function is (function NAME clauses...).
//
// A function keeps no clause list: Clauses reads it from the form.
type Function struct {
	DeclBase
	Version  *StringLit
	Inputs   []*Field
	Output   *TypeRef
	Effects  *EffectsClause // nil means pure
	Requires []Expr
	Ensures  []Expr
	Examples []*Example
	Body     Expr
}

func (*Function) Kind() DeclKind { return KindFunction }

// Clauses returns the function's clauses in source order, typed or not, as
// Build saw them (the items of its form that are (KEY arg...) lists). Each
// call builds the list anew.
func (fn *Function) Clauses() []*Clause {
	if fn.Form == nil {
		return nil
	}
	return newClauses(clauseItems(fn.Form, fn.Name.Valid()))
}

// ClauseForms returns the items of the function's form that hold its
// clauses, without building them: those for which IsClause holds are its
// clauses (ClauseOf makes one), the others were reported by Build.
func (fn *Function) ClauseForms() []*syntax.Form {
	if fn.Form == nil {
		return nil
	}
	return clauseItems(fn.Form, fn.Name.Valid())
}

// EffectsClause is (effects pure) or (effects (eff target...)...).
type EffectsClause struct {
	Form  *syntax.Form
	Pure  bool
	Items []*Effect
}

// Effect is an effect intent as declared on a function or a transition:
// (db.write operational.claims), (mcp.call ci.deploy (retry 2) (on-error failed)).
type Effect struct {
	Form    *syntax.Form
	Name    Ident   // db.write
	Targets []Ident // operational.claims ...
	Args    []Expr  // other arguments (expressions)
	Retry   *IntLit
	Timeout *Duration
	OnError Ident
	// Claim is the context field named by a (claim FIELD) option: the
	// effect's result is an observation that becomes a claim on FIELD.
	Claim Ident
	// ClaimForm is the (claim FIELD) option itself (nil without one).
	ClaimForm *syntax.Form
}

// Example is (example (f arg...) EXPECTED).
type Example struct {
	Form     *syntax.Form
	Func     Ident
	Args     []Expr
	Expected Expr
}

// ---- machines

// Machine is (machine NAME clauses...).
type Machine struct {
	DeclBase
	Clauses     []*Clause // every clause, in source order, typed or not
	Version     *StringLit
	Context     []*Field
	Events      []*Event
	Initial     Ident
	Persistence *Clause
	States      []*State
	// Claims are the machine's (claim FIELD (policy P) (accepted EVENT))
	// clauses.
	Claims []*ClaimDecl
}

// ClaimDecl is (claim FIELD (policy POLICY) (accepted EVENT)) inside a
// machine: context field FIELD holds what an external effect observed,
// as a claim under acceptance policy POLICY; it may be read as a fact
// only once EVENT, which the runtime admits only after the claim was
// accepted, has been handled.
type ClaimDecl struct {
	Form     *syntax.Form
	Field    Ident
	Policy   Ident
	Accepted Ident
}

func (*Machine) Kind() DeclKind { return KindMachine }

// Event is (event NAME (field T)...) inside a machine.
type Event struct {
	Form   *syntax.Form
	Name   Ident
	Fields []*Field
}

// State is (state NAME clauses...).
type State struct {
	Form        *syntax.Form
	Name        Ident
	Final       bool
	TypeClause  *Clause // (type final)
	Timeout     *Timeout
	Transitions []*Transition
}

// Timeout is (timeout DURATION EVENT): after DURATION in the state, EVENT fires.
type Timeout struct {
	Form     *syntax.Form
	Duration *Duration
	Event    Ident
}

// Transition is (on EVENT clauses...).
type Transition struct {
	Form    *syntax.Form
	Event   Ident
	Guard   Expr
	Target  Ident
	Assigns []*Assign
	Effects []*Effect
}

// Assign is one (field EXPR) of an assign clause.
type Assign struct {
	Form  *syntax.Form
	Field Ident
	Value Expr
}

// ---- stores, surfaces, ports, agents

// Store is (store NAME (backend B) (authority A) (collection C...)).
type Store struct {
	DeclBase
	Clauses     []*Clause // every clause, in source order, typed or not
	Backend     Ident
	Authority   Ident
	Collections []Ident
}

func (*Store) Kind() DeclKind { return KindStore }

// Protocol is (protocol NAME "version"?).
type Protocol struct {
	Name    Ident
	Version *StringLit
}

// Surface is an A2UI-facing declaration.
type Surface struct {
	DeclBase
	Clauses  []*Clause // every clause, in source order, typed or not
	Protocol *Protocol
	Title    *StringLit
	Route    *StringLit
	Catalog  *StringLit
	Bind     Ident
	Events   []Ident
	State    []*Field
	Actions  []*Operation
}

func (*Surface) Kind() DeclKind { return KindSurface }

// Operation is a named operation with typed inputs and an optional output:
// a port's tool, resource or prompt, an agent's skill, a surface's action.
type Operation struct {
	Form    *syntax.Form
	Keyword Ident // tool, resource, prompt, skill, action
	Name    Ident
	Inputs  []*Field
	Output  *TypeRef
	Clauses []*Clause
}

// Port is an MCP/HTTP-facing declaration.
type Port struct {
	DeclBase
	Clauses   []*Clause // every clause, in source order, typed or not
	Protocol  *Protocol
	Endpoint  *StringLit
	Tools     []*Operation
	Resources []*Operation
	Prompts   []*Operation
}

func (*Port) Kind() DeclKind { return KindPort }

// Agent is an A2A/HTTP-facing declaration.
type Agent struct {
	DeclBase
	Clauses  []*Clause // every clause, in source order, typed or not
	Protocol *Protocol
	Endpoint *StringLit
	Skills   []*Operation
}

func (*Agent) Kind() DeclKind { return KindAgent }

// ClauseDecl is a governance or Authority IR declaration (and zk-proof): a
// name and a list of clauses, validated by the checker's construct table.
type ClauseDecl struct {
	DeclBase
	Clauses  []*Clause // every clause, in source order, typed or not
	DeclKind DeclKind
}

// Kind returns the declaration's keyword.
func (d *ClauseDecl) Kind() DeclKind { return d.DeclKind }

// ---- expressions

// Expr is an expression.
type Expr interface {
	ExprSpan() Span
	// ExprID is the expression's number in the file Build made it for
	// (1, 2, ... in build order), 0 for one made any other way: tables
	// keyed by expression, such as the checker's types, index by it
	// instead of hashing the expression.
	ExprID() ExprID
}

// An ExprID numbers an expression within its file (see Expr.ExprID). IDs
// from different builds (BuildDecl, BuildExpr) may coincide: a table
// indexed by ID must check that the expression it finds is the one asked
// for.
type ExprID uint32

// IntLit is an integer literal. Its magnitude is kept unsigned so that the
// whole U64 range is representable; Overflow is set when it does not fit.
type IntLit struct {
	Span     Span
	Text     string
	Mag      uint64
	Neg      bool
	Overflow bool
	id       ExprID
}

// DecimalLit is a decimal literal such as 0.5.
type DecimalLit struct {
	Span Span
	Text string
	id   ExprID
}

// Duration is a duration literal such as 30m; Millis is its length.
type Duration struct {
	Span   Span
	Text   string
	Millis int64
	id     ExprID
}

// BoolLit is true or false.
type BoolLit struct {
	Span  Span
	Value bool
	id    ExprID
}

// NoneLit is none.
type NoneLit struct {
	Span Span
	id   ExprID
}

// Name is a name or a dotted path: x, event.claim_id, Status.open,
// operational.claims. Parts hold each segment with its own span.
//
// A Name is 32 bytes, 64 with its one part (issue 19: a large module has
// one per name in its expressions): its span starts where its first part
// does and is kept as a length.
type Name struct {
	Parts []Ident
	id    ExprID
	n     uint32 // the length of the name's span
}

// NewName returns a name with the given parts whose span is sp; sp starts
// where the first part does (Parts[0].Span.Start), or is empty without
// parts.
func NewName(sp Span, parts []Ident) *Name {
	return &Name{Parts: parts, n: uint32(sp.End - sp.Start)}
}

// Span covers the whole name, dots included.
func (n *Name) Span() Span {
	if len(n.Parts) == 0 {
		return Span{}
	}
	start := n.Parts[0].Span.Start
	return Span{Start: start, End: start + int(n.n)}
}

// Text returns the dotted text of the name.
func (n *Name) Text() string {
	s := ""
	for i, p := range n.Parts {
		if i > 0 {
			s += "."
		}
		s += p.Name
	}
	return s
}

// Call is (f arg...): a function call, an operator, a built-in such as
// (some x) or (list a b), or an effect intent such as (db.write t x).
type Call struct {
	Form *syntax.Form
	Func *Name
	Args []Expr
	id   ExprID
}

// If is (if cond then else).
type If struct {
	Form             *syntax.Form
	Cond, Then, Else Expr
	id               ExprID
}

// Let is (let ((x e)...) body).
type Let struct {
	Form     *syntax.Form
	Bindings []*Binding
	Body     Expr
	id       ExprID
}

// Binding is one (x e) of a let.
type Binding struct {
	Name  Ident
	Value Expr
}

// Do is (do e... e): evaluate in order, yield the last.
type Do struct {
	Form  *syntax.Form
	Exprs []Expr
	id    ExprID
}

// RecordLit is (record Type (field e)...).
type RecordLit struct {
	Form   *syntax.Form
	Type   Ident
	Fields []*FieldInit
	id     ExprID
}

// FieldInit is one (field e) of a record literal.
type FieldInit struct {
	Name  Ident
	Value Expr
}

// Match is (match e (pattern body)...).
type Match struct {
	Form    *syntax.Form
	Subject Expr
	Arms    []*Arm
	id      ExprID
}

// Arm is one (pattern body) of a match.
type Arm struct {
	Form    *syntax.Form
	Pattern *Pattern
	Body    Expr
}

// PatternKind classifies patterns.
type PatternKind int

const (
	PatWildcard PatternKind = iota // _
	PatBind                        // x
	PatLiteral                     // 42, "x", true
	PatNone                        // none
	PatMember                      // Status.open
	PatCtor                        // (some x), (ok x), (err e), (circle r)
)

// Pattern is a match pattern.
type Pattern struct {
	Span Span
	Kind PatternKind
	Name *Name // the bound name, the enum member, or the constructor
	Lit  Expr
	Args []*Pattern
}

// BadExpr stands for a malformed expression that was already reported.
type BadExpr struct {
	Span Span
	id   ExprID
}

// StringLit is also an expression.
func (e *StringLit) ExprSpan() Span  { return e.Span }
func (e *IntLit) ExprSpan() Span     { return e.Span }
func (e *DecimalLit) ExprSpan() Span { return e.Span }
func (e *Duration) ExprSpan() Span   { return e.Span }
func (e *BoolLit) ExprSpan() Span    { return e.Span }
func (e *NoneLit) ExprSpan() Span    { return e.Span }
func (e *Name) ExprSpan() Span       { return e.Span() }
func (e *Call) ExprSpan() Span       { return e.Form.Span() }
func (e *If) ExprSpan() Span         { return e.Form.Span() }
func (e *Let) ExprSpan() Span        { return e.Form.Span() }
func (e *Do) ExprSpan() Span         { return e.Form.Span() }
func (e *RecordLit) ExprSpan() Span  { return e.Form.Span() }
func (e *Match) ExprSpan() Span      { return e.Form.Span() }
func (e *BadExpr) ExprSpan() Span    { return e.Span }

func (e *StringLit) ExprID() ExprID  { return e.id }
func (e *IntLit) ExprID() ExprID     { return e.id }
func (e *DecimalLit) ExprID() ExprID { return e.id }
func (e *Duration) ExprID() ExprID   { return e.id }
func (e *BoolLit) ExprID() ExprID    { return e.id }
func (e *NoneLit) ExprID() ExprID    { return e.id }
func (e *Name) ExprID() ExprID       { return e.id }
func (e *Call) ExprID() ExprID       { return e.id }
func (e *If) ExprID() ExprID         { return e.id }
func (e *Let) ExprID() ExprID        { return e.id }
func (e *Do) ExprID() ExprID         { return e.id }
func (e *RecordLit) ExprID() ExprID  { return e.id }
func (e *Match) ExprID() ExprID      { return e.id }
func (e *BadExpr) ExprID() ExprID    { return e.id }

// setExprID numbers e (see Expr.ExprID).
func setExprID(e Expr, id ExprID) {
	switch e := e.(type) {
	case *StringLit:
		e.id = id
	case *IntLit:
		e.id = id
	case *DecimalLit:
		e.id = id
	case *Duration:
		e.id = id
	case *BoolLit:
		e.id = id
	case *NoneLit:
		e.id = id
	case *Name:
		e.id = id
	case *Call:
		e.id = id
	case *If:
		e.id = id
	case *Let:
		e.id = id
	case *Do:
		e.id = id
	case *RecordLit:
		e.id = id
	case *Match:
		e.id = id
	case *BadExpr:
		e.id = id
	}
}
