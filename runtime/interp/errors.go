package interp

import (
	"fmt"

	"github.com/capsulang/caps/syntax"
)

// ErrorKind classifies runtime errors. The kinds are a stable contract
// (they appear in `caps call --json` output and in the machine runtime's
// failed-event records).
type ErrorKind string

// Runtime error kinds.
const (
	// RequiresFailed: a requires clause was false on entry.
	RequiresFailed ErrorKind = "requires-failed"
	// EnsuresFailed: an ensures clause was false on exit.
	EnsuresFailed ErrorKind = "ensures-failed"
	// DivisionByZero: / or % with a zero divisor.
	DivisionByZero ErrorKind = "division-by-zero"
	// NoMatch: no arm of a match accepted the value.
	NoMatch ErrorKind = "no-match"
	// StepBudget: the evaluation took more steps than the step budget.
	StepBudget ErrorKind = "step-budget"
	// DepthBudget: calls nested deeper than the depth budget.
	DepthBudget ErrorKind = "depth-budget"
	// BadArgument: a host passed the wrong number or kind of arguments.
	BadArgument ErrorKind = "bad-argument"
	// UnknownFunction: a host asked for a function the module lacks.
	UnknownFunction ErrorKind = "unknown-function"
	// UnboundName: an expression evaluated with EvalExpr read a name its
	// environment does not define.
	UnboundName ErrorKind = "unbound-name"
	// NotChecked: the module (or a module it imports) has errors, so it
	// cannot run.
	NotChecked ErrorKind = "not-checked"
	// Internal: something the interpreter cannot evaluate; a bug.
	Internal ErrorKind = "internal"
)

// Error is a runtime error: evaluation stopped at Span. Errors never
// escape as panics.
type Error struct {
	Kind    ErrorKind
	Message string
	// Span is the failing expression: the division, the requires clause,
	// the match, the call that went too deep.
	Span syntax.Span
	// File is "" when Span is in the module given to New, else the path of
	// the imported module it is in.
	File string
	// Function is the function being evaluated when the error happened,
	// "" at the top level of an expression.
	Function string
	// Stack lists the calls that led to the error, innermost first: each
	// names the caller's function and the call's span. Only the innermost
	// MaxStack frames are kept; Dropped counts the others.
	Stack   []Frame
	Dropped int
}

// Frame is one call in an Error's stack.
type Frame struct {
	Function string      // the called function
	Caller   string      // the calling function, "" at top level
	Span     syntax.Span // the call expression, in File
	File     string
}

// MaxStack bounds Error.Stack.
const MaxStack = 16

func (e *Error) Error() string { return e.Message }

func newError(kind ErrorKind, sp syntax.Span, format string, args ...any) *Error {
	return &Error{Kind: kind, Span: sp, Message: fmt.Sprintf(format, args...)}
}
