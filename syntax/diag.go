package syntax

import "github.com/capsulang/caps/internal/spell"

// Severity of a diagnostic. The values match the LSP's DiagnosticSeverity.
type Severity int

const (
	Error   Severity = 1
	Warning Severity = 2
	Info    Severity = 3
	Hint    Severity = 4
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	case Info:
		return "info"
	}
	return "hint"
}

// Related points at another place that matters to a diagnostic, such as the
// first declaration of a duplicated name.
type Related struct {
	File    string `json:"file,omitempty"` // empty means the same file
	Span    Span   `json:"-"`
	Message string `json:"message"`
}

// Diagnostic is a problem found in a source file. Code is one of the stable
// codes documented in docs/diagnostics.md (E_PARSE for syntax errors).
type Diagnostic struct {
	Code     string
	Severity Severity
	Span     Span
	Message  string
	Related  []Related
	// Suggestion is the replacement for Span the reporter suggests (the
	// name of a did-you-mean), carried as data so that a repair does not
	// depend on the message's wording; "" when there is none. It is set
	// from a DidYouMean argument of NewDiagnostic.
	Suggestion string
	// Fix is the repair the reporter knows beyond a replacement name (a
	// missing `)`, an effect to declare, a profile to add), as data; nil
	// when there is none. analysis/repair turns it into edits.
	Fix *Fix
}

// Fix is a repair of a diagnostic as data: what kind of change and its
// arguments, which the reporter knows when it words the message. It holds
// no spans, so a diagnostic moved to new offsets keeps it as it is.
type Fix struct {
	Kind string   // one of the Fix* kinds
	Args []string // as the kind documents
}

// Fix kinds. Each is also the id of the repair option built from it
// (docs/repair.md).
const (
	// FixInsertParen inserts the missing `)` at the diagnostic's span.
	// No arguments.
	FixInsertParen = "insert-paren"
	// FixDeleteParen deletes the extra `)` the diagnostic spans. No
	// arguments.
	FixDeleteParen = "delete-paren"
	// FixDeclareEffect declares the effect a function performs in its
	// (effects ...). Arguments: the function, the effect, and its target
	// ("" when none).
	FixDeclareEffect = "declare-effect"
	// FixAddProfile adds a profile to the module. Arguments: the
	// profile, and the effect it admits.
	FixAddProfile = "add-profile"
	// FixDeclareField declares a context field a transition assigns.
	// Arguments: the machine, and the field.
	FixDeclareField = "declare-field"
)

// DidYouMean is a message argument suggesting a replacement for the
// span of a diagnostic. Formatted with %s it is the hint
// "; did you mean `x`?" (nothing when empty); NewDiagnostic also records
// it as the diagnostic's Suggestion, so the name is data as well as text.
type DidYouMean string

func (s DidYouMean) String() string { return spell.Hint(string(s), spell.Backtick) }

// Nearest returns the DidYouMean for name among candidates: the nearest
// likely intended one (spell.Nearest), or none.
func Nearest(name string, candidates []string) DidYouMean {
	return DidYouMean(spell.Nearest(name, candidates))
}

// NewDiagnostic builds a diagnostic with the message Messagef(format,
// args...), and records a non-empty DidYouMean among args as its
// Suggestion.
func NewDiagnostic(code string, sev Severity, sp Span, format string, args ...any) Diagnostic {
	d := Diagnostic{Code: code, Severity: sev, Span: sp, Message: Messagef(format, args...)}
	for _, a := range args {
		if s, ok := a.(DidYouMean); ok && s != "" {
			d.Suggestion = string(s)
		}
	}
	return d
}

// CodeParse is the code of every syntax error.
const CodeParse = "E_PARSE"

// CodeBadLiteral is the code of a malformed number or string literal.
const CodeBadLiteral = "E_BAD_LITERAL"
