package ast

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// TestUndeferMatchesBuild checks that a lean tree built whole in place
// (Undefer, after UndeferReach where the loader runs it) is the tree Build
// makes of the same text, field by field: declarations, forms (the
// module's items among them), expressions with their numbers, docs,
// diagnostics and the expression count. It runs over the examples, the
// fixtures and generated modules, and counts what it undeferred and the
// declarations kept whole whose numbers it moved, so that it fails if
// the corpus stops exercising either.
func TestUndeferMatchesBuild(t *testing.T) {
	srcs := undeferCorpus(t)
	built, undeferred, moved := 0, 0, 0
	for name, src := range srcs {
		lf, ok := BuildLean(src)
		if !ok {
			continue
		}
		built++
		examples := false
		for _, d := range lf.Module.Decls {
			if fn, ok := d.(*Function); ok && len(fn.Examples) > 0 {
				examples = true
			}
		}
		if examples {
			UndeferReach(lf)
		}
		// Declarations kept whole whose numbers a whole build gives
		// otherwise: after a deferred body, or built by UndeferReach.
		var before []ExprID
		for _, d := range lf.Module.Decls {
			id := ExprID(0)
			declExprs(d, func(e Expr) {
				if id == 0 {
					id = e.ExprID()
				}
			})
			before = append(before, id)
		}
		undeferred += Undefer(lf)
		rd, err := syntax.ReadText(src)
		if err != nil {
			t.Fatal(err)
		}
		wf := Build(rd)
		for i, d := range wf.Module.Decls {
			id := ExprID(0)
			declExprs(d, func(e Expr) {
				if id == 0 {
					id = e.ExprID()
				}
			})
			if before[i] != 0 && before[i] != id {
				moved++
			}
		}
		if d := firstDiff(dump(wf.Module), dump(lf.Module)); d != "" {
			t.Errorf("%s: module (-whole +undeferred):\n%s", name, d)
		}
		if d := firstDiff(dump(wf.Diagnostics), dump(lf.Diagnostics)); d != "" {
			t.Errorf("%s: diagnostics (-whole +undeferred):\n%s", name, d)
		}
		if wf.Exprs != lf.Exprs {
			t.Errorf("%s: %d expressions, whole %d", name, lf.Exprs, wf.Exprs)
		}
		if len(lf.Source.Forms) != 1 || lf.Source.Forms[0] != lf.Module.Form {
			t.Errorf("%s: the source's forms are not the module's", name)
		}
		if d := cmp.Diff(wf.Source.Comments, lf.Source.Comments); d != "" {
			t.Errorf("%s: comments (-whole +undeferred):\n%s", name, d)
		}
	}
	if built < 50 || undeferred < 200 || moved < 50 {
		t.Errorf("the corpus built %d files lean, undeferred %d functions, moved the numbers of %d declarations", built, undeferred, moved)
	}
	t.Logf("%d files built lean, %d functions undeferred, %d declarations renumbered", built, undeferred, moved)
}

// undeferCorpus returns the examples, the fixtures and generated modules
// by name.
func undeferCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	srcs := map[string][]byte{
		"mixed":     gen.Mixed(64 << 10),
		"functions": gen.Functions(16 << 10),
		"reach":     []byte("(module m (capsule \"1\")\n  (function g (input (x I64)) (output I64) (effects (db.read s.c)) (body (* 2 x)))\n  ;; f doc\n  (function f (input (x I64)) (output I64) (requires (> x 0)) (body (match (g x) (1 \"one\") ((some y) y) (_ (do 1 2)))))\n  (function u (output I64) (body (let ((a 1)) (record R (a a)))))\n  (function h (output I64) (body (f 2)) (example (h) 4)))\n"),
	}
	for _, root := range []string{"../../examples", "../../testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".caps") {
				src, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				srcs[p] = src
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return srcs
}

// dump renders v, a tree of the builder's, one field or element a line
// with its path: every field, unexported ones too (expression numbers),
// and forms as formText renders them.
func dump(v any) string {
	var b strings.Builder
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		if f, ok := formOf(v); ok {
			b.WriteString(path + " = " + formText(f) + "\n")
			return
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				b.WriteString(path + " = nil\n")
				return
			}
			if v.Kind() == reflect.Interface {
				b.WriteString(path + " : " + v.Elem().Type().String() + "\n")
			}
			walk(path, v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				walk(path+"."+v.Type().Field(i).Name, v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			if v.Kind() == reflect.Slice && v.IsNil() {
				b.WriteString(path + " = nil\n")
				return
			}
			b.WriteString(path + " len " + strconv.Itoa(v.Len()) + "\n")
			for i := range v.Len() {
				walk(path+"["+strconv.Itoa(i)+"]", v.Index(i))
			}
		case reflect.Map:
			b.WriteString(path + " map of " + strconv.Itoa(v.Len()) + "\n") // (none in the tree)
		case reflect.String:
			b.WriteString(path + " = " + strconv.Quote(v.String()) + "\n")
		case reflect.Bool:
			b.WriteString(path + " = " + strconv.FormatBool(v.Bool()) + "\n")
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			b.WriteString(path + " = " + strconv.FormatInt(v.Int(), 10) + "\n")
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			b.WriteString(path + " = " + strconv.FormatUint(v.Uint(), 10) + "\n")
		default:
			b.WriteString(path + " kind " + v.Kind().String() + "\n")
		}
	}
	walk("", reflect.ValueOf(v))
	return b.String()
}

// formOf returns the form v holds, when v is a *syntax.Form.
func formOf(v reflect.Value) (*syntax.Form, bool) {
	if v.Type() != reflect.TypeFor[*syntax.Form]() {
		return nil, false
	}
	return (*syntax.Form)(v.UnsafePointer()), true
}

// firstDiff returns the first lines where a and b differ, "" when they
// are the same.
func firstDiff(a, b string) string {
	if a == b {
		return ""
	}
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	i := 0
	for i < len(al) && i < len(bl) && al[i] == bl[i] {
		i++
	}
	var out strings.Builder
	for j := i; j < min(i+3, len(al)); j++ {
		out.WriteString("-" + al[j] + "\n")
	}
	for j := i; j < min(i+3, len(bl)); j++ {
		out.WriteString("+" + bl[j] + "\n")
	}
	return out.String()
}

// formText renders a form with its spans, for comparing trees.
func formText(f *syntax.Form) string {
	if f == nil {
		return "<nil>"
	}
	var b strings.Builder
	var walk func(f *syntax.Form)
	walk = func(f *syntax.Form) {
		sp := f.Span()
		b.WriteString("<" + f.Kind.String() + " " + strconv.Itoa(sp.Start) + "-" + strconv.Itoa(sp.End))
		if f.IsList() {
			if !f.Closed {
				b.WriteString(" open")
			}
			for _, it := range f.Items() {
				b.WriteByte(' ')
				walk(it)
			}
		} else {
			b.WriteString(" " + f.Text())
		}
		b.WriteByte('>')
	}
	walk(f)
	return b.String()
}

// TestLeanBound checks that LeanBound, from the items' text alone, is at
// least what BuildLean defers over the corpus of TestUndeferMatchesBuild,
// and which items it counts.
func TestLeanBound(t *testing.T) {
	for name, src := range undeferCorpus(t) {
		r, ok := syntax.ReadModuleItems(src, "module")
		if !ok {
			continue
		}
		bound := LeanBound(r)
		lf, ok := BuildLeanItems(r)
		if !ok {
			continue
		}
		if deferred, _ := LeanShare(lf.Module); bound < deferred {
			t.Errorf("%s: bound %d, %d bytes deferred", name, bound, deferred)
		}
	}
	const head = "(module m (capsule \"1\")\n"
	for _, tc := range []struct {
		item string
		n    int // bytes counted
	}{
		{"(function f (output I64) (body 1))", 34},
		{"( function f (output I64) (body 1))", 35},    // head after a space: counted
		{"(function;c\n f (output I64) (body 1))", 37}, // after a comment
		{"(function f (output I64) (body 1) (example (f) 1))", 0},
		{"(function f (output I64) (requires true) (body 1))", 0},
		{"(function f (output I64) (ensures true) (body 1))", 0},
		{"(functions f)", 0},
		{"(type T I64)", 0},
		{"(machine M (initial a) (state a (type final)))", 0},
	} {
		r, ok := syntax.ReadModuleItems([]byte(head+tc.item+")"), "module")
		if !ok {
			t.Fatalf("%s: not read", tc.item)
		}
		if got := LeanBound(r); got != tc.n {
			t.Errorf("%s: LeanBound %d, want %d", tc.item, got, tc.n)
		}
	}
}
