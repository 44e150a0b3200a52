// Package examples evaluates the (example (f arg...) EXPECTED) clauses of a
// checked module with the interpreter and turns failures into
// E_EXAMPLE_FAILED diagnostics, which the CLI and the language server merge
// with the checker's own.
package examples

import (
	"errors"
	"fmt"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax"
)

// Outcome is the result of evaluating one example.
type Outcome struct {
	Example *check.ExampleInfo
	// Passed reports whether the call returned a value equal to Want.
	Passed bool
	// Args are the evaluated arguments, Want the evaluated expected value
	// and Got the call's result (invalid when Err is set).
	Args []value.Value
	Got  value.Value
	Want value.Value
	// Effects are the intents the call produced.
	Effects []interp.Intent
	// Err is the runtime error that stopped the arguments, the expected
	// value or the call (an *interp.Error).
	Err error
	// Call is the example's call as written, on one line: (abs_i64 -7).
	Call string
}

// Evaluate evaluates every example of a checked module, in source order,
// with a fresh interpreter; see EvaluateWith. A module without examples
// gets no interpreter: preparing one compiles every function.
func Evaluate(res *check.Result) []Outcome {
	if len(res.Examples) == 0 {
		return []Outcome{}
	}
	return EvaluateWith(interp.New(res), res)
}

// EvaluateWith evaluates every example of res with in (an interpreter for
// res, whose budgets apply to each example separately). Arguments and the
// expected value are evaluated as closed expressions, then the function is
// called and its result compared with the expected value by structural
// equality. A module with errors yields one failed outcome per example
// (Err explains why nothing ran).
func EvaluateWith(in *interp.Interp, res *check.Result) []Outcome {
	out := make([]Outcome, 0, len(res.Examples))
	var src []byte
	if res.File != nil && res.File.Source != nil && res.File.Source.CST != nil {
		src = res.File.Source.CST.Src
	}
	for _, ex := range res.Examples {
		out = append(out, EvaluateOne(in, ex, callText(src, ex, 0)))
	}
	return out
}

// EvaluateOne evaluates one example with in (see EvaluateWith); call is
// the example's call as written (Outcome.Call, see CallText).
func EvaluateOne(in *interp.Interp, ex *check.ExampleInfo, call string) Outcome {
	o := Outcome{Example: ex, Call: call}
	o.Err = func() error {
		want, _, err := in.Eval(ex.Example.Expected, interp.Env{})
		if err != nil {
			return err
		}
		o.Want = want
		for _, a := range ex.Example.Args {
			v, _, err := in.Eval(a, interp.Env{})
			if err != nil {
				return err
			}
			o.Args = append(o.Args, v)
		}
		got, effects, err := in.CallDecl(ex.Function, o.Args)
		if err != nil {
			return err
		}
		o.Got, o.Effects = got, effects
		return nil
	}()
	o.Passed = o.Err == nil && value.Equal(o.Got, o.Want)
	return o
}

// CallText returns the example's call as written in src, whose text
// starts shift bytes after the offsets of the example's tree (a tree
// built from an older text of the file), with white space runs collapsed:
// (abs_i64 -7).
func CallText(src []byte, ex *check.ExampleInfo, shift int) string {
	return callText(src, ex, shift)
}

// callText returns the example's call as written, with white space runs
// collapsed: (abs_i64 -7).
func callText(src []byte, ex *check.ExampleInfo, shift int) string {
	f := ex.Example.Form
	if f != nil && len(f.Items()) >= 2 {
		sp := f.Items()[1].Span()
		sp.Start, sp.End = sp.Start+shift, sp.End+shift
		if src != nil && sp.Start >= 0 && sp.End <= len(src) && sp.Start <= sp.End {
			return strings.Join(strings.Fields(string(src[sp.Start:sp.End])), " ")
		}
	}
	var b strings.Builder
	b.WriteString("(" + ex.Example.Func.Name)
	for range ex.Example.Args {
		b.WriteString(" ...")
	}
	b.WriteString(")")
	return b.String()
}

// Message describes a failed outcome in one line:
// "example (abs_i64 -7) expected 8, got 7", or with the runtime error that
// stopped it.
func (o *Outcome) Message() string {
	if o.Err != nil {
		if !o.Want.IsValid() {
			return fmt.Sprintf("example %s: its expected value cannot be evaluated: %v", o.Call, o.Err)
		}
		return fmt.Sprintf("example %s expected %s, but evaluation failed: %v", o.Call, clip(o.Want.String()), o.Err)
	}
	if o.Passed {
		return fmt.Sprintf("example %s passed", o.Call)
	}
	return fmt.Sprintf("example %s expected %s, got %s", o.Call, clip(o.Want.String()), clip(o.Got.String()))
}

// clip bounds a value shown in a message.
func clip(s string) string { return syntax.Clip(s, 300) }

// Diagnostics turns the failed outcomes into E_EXAMPLE_FAILED errors on
// each example's expected expression. When a runtime error stopped the
// example at a place in the same file, that place is attached as related
// information.
func Diagnostics(outcomes []Outcome) []syntax.Diagnostic {
	var out []syntax.Diagnostic
	for i := range outcomes {
		o := &outcomes[i]
		if o.Passed {
			continue
		}
		d := syntax.Diagnostic{
			Code:     check.ExampleFailed,
			Severity: syntax.Error,
			Span:     o.Example.Example.Expected.ExprSpan(),
			Message:  syntax.ClipWords(o.Message()),
		}
		var re *interp.Error
		if errors.As(o.Err, &re) && re.File == "" && re.Span != (syntax.Span{}) {
			d.Related = append(d.Related, syntax.Related{Span: re.Span, Message: string(re.Kind) + " here"})
		}
		out = append(out, d)
	}
	return out
}
