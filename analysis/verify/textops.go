package verify

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
	"github.com/capsulang/caps/syntax/ast"
)

// The Text operations upper, lower and trim have no exact encoding in
// Z3 4.8.12's theory of strings (it has no per-character map). Each is an
// uninterpreted function, |text.upper| and so on, with two kinds of facts
// that hold of the interpreter's implementation:
//
//   - ground facts: for every Text literal of the verified module and of
//     the modules it imports (and for the results of the operations on
//     them), the value the interpreter itself computes, as
//     (= (|text.upper| "ops") "OPS");
//   - at every application, a property of the operation: upper and lower
//     map each character to one character (Go's strings.ToUpper and
//     ToLower are strings.Map of unicode.ToUpper and ToLower, and the
//     interpreter's Text values are valid UTF-8), so they keep the length
//     in characters, the length len reads; trim removes characters at both
//     ends only, so its result is contained in its argument and no longer.
//
// An obligation proved under these facts holds of the interpreter, whose
// upper is one of the functions they allow. A counterexample may rely on
// a value of the function the interpreter would not compute: it counts
// only when the interpreter, run on it, confirms it (encoder.abstract).

// textOps are the uninterpreted Text operations, by built-in name.
var textOps = []string{"lower", "trim", "upper"}

// textFacts holds the ground facts of the Text operations: for each
// operation, the interpreter's result on each argument.
type textFacts struct {
	ground map[string]map[string]string
}

// textInterp is a tiny checked module whose functions apply each Text
// operation to their input, so that ground facts come from the
// interpreter's own implementation.
var textInterp struct {
	once sync.Once
	in   *interp.Interp
	err  error
}

const textOpsModule = `(module verify.text_ops
  (capsule "1.0")
  (function op_upper (input (t Text)) (output Text) (body (upper t)))
  (function op_lower (input (t Text)) (output Text) (body (lower t)))
  (function op_trim (input (t Text)) (output Text) (body (trim t))))
`

// runTextOp applies the interpreter's Text operation op to s.
func runTextOp(op, s string) (string, error) {
	textInterp.once.Do(func() {
		f, err := ast.Parse([]byte(textOpsModule))
		if err != nil {
			textInterp.err = err
			return
		}
		res := check.Check(f, check.Options{Path: "verify-text-ops.caps"})
		if res.HasErrors() {
			textInterp.err = fmt.Errorf("the Text operations module has errors: %v", res.Diagnostics)
			return
		}
		textInterp.in = interp.New(res)
	})
	if textInterp.err != nil {
		return "", textInterp.err
	}
	v, _, err := textInterp.in.Call("op_"+op, []value.Value{value.Text(s)})
	if err != nil {
		return "", err
	}
	return v.AsText(), nil
}

// collectTextFacts computes the ground facts for the Text literals of the
// modules (once per module verified): every literal, and the results of
// the operations on them, with the interpreter's result of each operation.
func collectTextFacts(mods map[*ast.Function]*modctx, root *check.Result) *textFacts {
	results := map[*check.Result]bool{root: true}
	for _, m := range mods {
		results[m.res] = true
	}
	lits := map[string]bool{}
	for r := range results {
		for x := range r.Types.All() {
			if s, ok := x.(*ast.StringLit); ok {
				lits[s.Value] = true
			}
		}
	}
	tf := &textFacts{ground: map[string]map[string]string{}}
	if len(lits) == 0 {
		return tf
	}
	args := map[string]bool{}
	for s := range lits {
		args[s] = true
		for _, op := range textOps {
			if r, err := runTextOp(op, s); err == nil {
				args[r] = true // (lower (upper "x")) is ground too
			}
		}
	}
	for _, op := range textOps {
		g := map[string]string{}
		for s := range args {
			if r, err := runTextOp(op, s); err == nil {
				g[s] = r
			}
		}
		tf.ground[op] = g
	}
	return tf
}

// textOp encodes (op a) for the Text operation op: the application of
// its uninterpreted function, with the facts that hold of it there. The
// first use in a query declares the function and its ground facts.
func (e *encoder) textOp(op string, a term) term {
	f := quote("text." + op)
	if !e.emitted["textop "+op] {
		e.emitted["textop "+op] = true
		fmt.Fprintf(&e.out, "(declare-fun %s (String) String)\n", f)
	}
	e.abstracted(op)
	v := "(" + f + " " + a.v + ")"
	var facts []string
	switch op {
	case "upper", "lower":
		facts = append(facts, "(= (str.len "+v+") (str.len "+a.v+"))")
	case "trim":
		facts = append(facts, "(<= (str.len "+v+") (str.len "+a.v+"))", "(str.contains "+a.v+" "+v+")")
	}
	return term{v: v, ok: a.ok, asm: and(a.asm, and(facts...))}
}

// groundFacts asserts the ground facts of the uninterpreted Text
// operations the query uses (textOp), for the arguments it can reach: the
// literals the query names, and the results of the facts asserted so far
// ((lower (upper "x"))). Facts about other texts would be true as well,
// but they only slow the solver down. assertion is the query's goal.
func (e *encoder) groundFacts(assertion string) {
	if len(e.abstract) == 0 || e.text == nil {
		return
	}
	text := e.out.String() + assertion
	for _, x := range e.extraText {
		// A counterexample's value reaches the operations: as if the
		// query named it.
		if lit, err := smtText(x); err == nil {
			text += lit
		}
	}
	done := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, op := range e.abstract {
			g := e.text.ground[op]
			if len(e.extraText) > 0 {
				g = e.extraFacts(op, g)
			}
			keys := make([]string, 0, len(g))
			for k := range g {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if done[op+"\x00"+k] {
					continue
				}
				arg, err1 := smtText(k)
				res, err2 := smtText(g[k])
				if err1 != nil || err2 != nil || !strings.Contains(text, arg) {
					continue // a character Z3 cannot hold, or out of reach
				}
				done[op+"\x00"+k] = true
				changed = true
				line := fmt.Sprintf("(assert (= (%s %s) %s))\n", quote("text."+op), arg, res)
				e.out.WriteString(line)
				text += line
			}
		}
	}
}

// extraFacts adds to g, the ground facts of op, the interpreter's results
// on the encoder's extra texts and on those results.
func (e *encoder) extraFacts(op string, g map[string]string) map[string]string {
	out := make(map[string]string, len(g)+2*len(e.extraText))
	for k, v := range g {
		out[k] = v
	}
	for _, x := range e.extraText {
		args := []string{x}
		for _, o := range textOps {
			if r, err := runTextOp(o, x); err == nil {
				args = append(args, r)
			}
		}
		for _, a := range args {
			if _, ok := out[a]; !ok {
				if r, err := runTextOp(op, a); err == nil {
					out[a] = r
				}
			}
		}
	}
	return out
}

// abstracted records that the query uses op as an uninterpreted function.
func (e *encoder) abstracted(op string) {
	for _, x := range e.abstract {
		if x == op {
			return
		}
	}
	e.abstract = append(e.abstract, op)
	sort.Strings(e.abstract)
}

// abstractionReason is why an obligation stays open when the solver's
// answer may be one of the abstraction only: ops are the operations the
// query left uninterpreted, detail the interpreter's verdict.
func abstractionReason(ops []string, detail string) string {
	detail = strings.TrimSuffix(detail, ": the solver and the interpreter disagree")
	var names []string
	for _, op := range ops {
		names = append(names, "("+op+" ...)")
	}
	return "abstraction: the solver's counterexample treats " + strings.Join(names, " and ") + " as an unknown function constrained by ground facts, and the interpreter does not confirm it: " + detail
}
