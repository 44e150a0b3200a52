package cond

import (
	"fmt"
	"sort"
	"strings"

	"github.com/capsulang/caps/internal/spell"
)

// Env is what a condition may name: paths with their kinds. The checker
// builds one per authority-policy and machine; the runtime resolves the
// same paths to values.
type Env struct {
	kinds map[string]Kind
	// alias maps a bare name to the path it stands for (a context field
	// written without `context.`).
	alias map[string]string
	// unsupported holds paths that exist but whose type a condition
	// cannot use, with that type's name.
	unsupported map[string]string
	// undeclared holds input roots the policy does not list in its
	// (input ...), with the paths under them.
	undeclared map[string]bool
}

// NewEnv returns an empty environment.
func NewEnv() *Env {
	return &Env{kinds: map[string]Kind{}, alias: map[string]string{}, unsupported: map[string]string{}, undeclared: map[string]bool{}}
}

// Define makes path usable with kind k.
func (e *Env) Define(path string, k Kind) { e.kinds[path] = k }

// Alias lets the bare name short stand for path (already defined).
func (e *Env) Alias(short, path string) {
	if _, taken := e.kinds[short]; !taken {
		e.alias[short] = path
	}
}

// Unsupported records a path whose type (typ) cannot appear in a condition.
func (e *Env) Unsupported(path, typ string) { e.unsupported[path] = typ }

// Undeclared records an input root that a decision could see but the
// policy does not list among its inputs.
func (e *Env) Undeclared(root string) { e.undeclared[root] = true }

// Resolve returns the full path and kind name stands for.
func (e *Env) Resolve(name string) (string, Kind, bool) {
	if k, ok := e.kinds[name]; ok {
		return name, k, true
	}
	if full, ok := e.alias[name]; ok {
		return full, e.kinds[full], true
	}
	return "", Invalid, false
}

// Names lists every usable name, sorted (for did-you-mean).
func (e *Env) Names() []string {
	out := make([]string, 0, len(e.kinds)+len(e.alias))
	for k := range e.kinds {
		out = append(out, k)
	}
	for k := range e.alias {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Check type-checks a parsed condition: it must be a Bool, every name
// must be one the environment defines, and operands must fit their
// operators. closest picks a did-you-mean among candidates ("" for none).
func Check(x Expr, env *Env, closest func(name string, candidates []string) string) []*Error {
	c := &checker{env: env, closest: closest}
	if k := c.expr(x); k != Invalid && k != Bool {
		s, e := x.Pos()
		c.errorf(CodeType, s, e, "a condition must be true or false, but this is %s; compare it with something, e.g. `%s == ...`", article(k), clip(x))
	}
	return c.errs
}

type checker struct {
	env     *Env
	closest func(string, []string) string
	errs    []*Error
}

func (c *checker) errorf(code string, start, end int, format string, args ...any) *Error {
	err := &Error{Code: code, Start: start, End: end, Msg: fmt.Sprintf(format, args...)}
	c.errs = append(c.errs, err)
	return err
}

func article(k Kind) string {
	switch k {
	case Int:
		return "an integer"
	case Text:
		return "a Text"
	case Bool:
		return "a Bool"
	}
	return "invalid"
}

// clip names an expression for a message: a path or literal as written.
func clip(x Expr) string {
	switch x := x.(type) {
	case *Path:
		return x.Name
	case *Lit:
		return x.Val.String()
	}
	return "..."
}

// expr returns x's kind, reporting problems; Invalid after an error.
func (c *checker) expr(x Expr) Kind {
	switch x := x.(type) {
	case *Lit:
		return x.Val.K
	case *Path:
		return c.path(x)
	case *Not:
		k := c.expr(x.X)
		if k != Invalid && k != Bool {
			s, e := x.X.Pos()
			c.errorf(CodeType, s, e, "`not` needs a Bool, but this is %s", article(k))
			return Invalid
		}
		return k
	case *Binary:
		return c.binary(x)
	}
	return Invalid
}

func (c *checker) path(x *Path) Kind {
	if _, k, ok := c.env.Resolve(x.Name); ok {
		return k
	}
	if typ, ok := c.env.unsupported[x.Name]; ok {
		c.errorf(CodeType, x.start, x.end, "`%s` is a %s, which a condition cannot compare; conditions compare integers, Text, enum members and Bool values", x.Name, typ)
		return Invalid
	}
	root := x.Name
	if i := strings.IndexByte(root, '.'); i >= 0 {
		root = root[:i]
	}
	if c.env.undeclared[root] {
		c.errorf(CodeUnknown, x.start, x.end, "`%s` is not among the policy's inputs; add it to the policy's (input ...) clause", root)
		return Invalid
	}
	err := c.errorf(CodeUnknown, x.start, x.end, "unknown name `%s` in the condition", x.Name)
	if c.closest != nil {
		if best := c.closest(x.Name, c.env.Names()); best != "" {
			err.Msg += spell.Hint(best, spell.Backtick)
			err.Suggest = best
		}
	}
	return Invalid
}

func (c *checker) binary(x *Binary) Kind {
	kx, ky := c.expr(x.X), c.expr(x.Y)
	if kx == Invalid || ky == Invalid {
		return Invalid
	}
	switch x.Op {
	case "and", "or":
		for _, side := range []struct {
			k Kind
			e Expr
		}{{kx, x.X}, {ky, x.Y}} {
			if side.k != Bool {
				s, e := side.e.Pos()
				c.errorf(CodeType, s, e, "`%s` needs Bool operands, but this is %s", x.Op, article(side.k))
				return Invalid
			}
		}
		return Bool
	case "==", "!=":
		if kx != ky {
			c.errorf(CodeType, x.start, x.end, "`%s` compares %s with %s; both sides must have the same type", x.Op, article(kx), article(ky))
			return Invalid
		}
		return Bool
	}
	// < <= > >=
	if kx != Int || ky != Int {
		c.errorf(CodeType, x.start, x.end, "`%s` orders integers, but this compares %s with %s", x.Op, article(kx), article(ky))
		return Invalid
	}
	return Bool
}
