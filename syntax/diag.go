package syntax

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
	// Suggestion is the replacement for Span the checker suggests (a
	// did-you-mean), carried as data so that a repair does not depend on
	// the message's wording; "" when there is none or the checker still
	// states it only in the message (check.Suggestion reads both).
	Suggestion string
}

// CodeParse is the code of every syntax error.
const CodeParse = "E_PARSE"

// CodeBadLiteral is the code of a malformed number or string literal.
const CodeBadLiteral = "E_BAD_LITERAL"
