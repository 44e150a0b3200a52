package interp_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

// checked parses and checks a module made of decls; it fails the test on
// any checker error.
func checked(t testing.TB, decls string) *check.Result {
	t.Helper()
	src := "(module t\n  (capsule \"1.0\")\n" + decls + ")\n"
	f, err := ast.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	res := check.Check(f, check.Options{Path: "t.caps"})
	if res.HasErrors() {
		var msgs []string
		for _, d := range res.Diagnostics {
			msgs = append(msgs, d.Code+": "+d.Message+" at "+src[d.Span.Start:d.Span.End])
		}
		t.Fatalf("check errors in\n%s\n%s", src, strings.Join(msgs, "\n"))
	}
	return res
}

// call calls fn of in with arguments parsed against its parameter types.
func call(t testing.TB, in *interp.Interp, fn string, args ...string) (value.Value, []interp.Intent, error) {
	t.Helper()
	info, ok := in.Function(fn)
	if !ok {
		t.Fatalf("no function %s", fn)
	}
	if len(args) != len(info.Params) {
		t.Fatalf("%s takes %d arguments, test gives %d", fn, len(info.Params), len(args))
	}
	vals := make([]value.Value, len(args))
	for i, a := range args {
		v, err := value.Parse(a, info.Params[i].Type)
		if err != nil {
			t.Fatalf("argument %s=%s: %v", info.Params[i].Name, a, err)
		}
		vals[i] = v
	}
	return in.Call(fn, vals)
}

// outcome renders a call's result for table tests: the printed value, or
// "error KIND: message".
func outcome(v value.Value, err error) string {
	if err != nil {
		var re *interp.Error
		if errors.As(err, &re) {
			return "error " + string(re.Kind) + ": " + re.Message
		}
		return "error: " + err.Error()
	}
	return v.String()
}

// fn1 declares (function f (input ...) (output OUT) (body BODY)).
func fn1(inputs, out, body string) string {
	in := ""
	if inputs != "" {
		in = "(input " + inputs + ")"
	}
	return "(function f " + in + " (output " + out + ") (body " + body + "))"
}
