package ast

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// clauseSummary is a clause as the tests compare it: its key, its key's
// span, its form's span and its number of arguments.
type clauseSummary struct {
	Key       string
	KeySpan   Span
	FormSpan  Span
	ArgsCount int
}

// sp is a span, for short.
func sp(start, end int) Span { return Span{Start: start, End: end} }

func summarize(cs []*Clause) []clauseSummary {
	out := []clauseSummary{}
	for _, c := range cs {
		out = append(out, clauseSummary{c.Key.Name, c.Key.Span, c.Form.Span(), len(c.Args)})
	}
	return out
}

// TestClausesOf checks the clauses every kind of declaration reports,
// including a function's, which it does not keep but reads again from its
// form: items that are not clauses are left out, and a declaration whose
// name is missing has its clauses from the item after the keyword.
func TestClausesOf(t *testing.T) {
	for _, tc := range []struct {
		name, decl string
		want       []clauseSummary
	}{
		{"function", `(function f (input (x I64)) (output I64) (summary "s") (body x))`, []clauseSummary{
			{"input", sp(39, 44), sp(38, 53), 1},
			{"output", sp(55, 61), sp(54, 66), 1},
			{"summary", sp(68, 75), sp(67, 80), 1},
			{"body", sp(82, 86), sp(81, 89), 1},
		}},
		{"function with items that are not clauses", `(function f 7 (output I64) () (body 1))`, []clauseSummary{
			{"output", sp(41, 47), sp(40, 52), 1},
			{"body", sp(57, 61), sp(56, 64), 1},
		}},
		{"function without a name", `(function (output I64) (body 1))`, []clauseSummary{
			{"output", sp(37, 43), sp(36, 48), 1},
			{"body", sp(50, 54), sp(49, 57), 1},
		}},
		{"function without clauses", `(function f)`, []clauseSummary{}},
		{"machine", `(machine M (initial a) (state a (type final)))`, []clauseSummary{
			{"initial", sp(38, 45), sp(37, 48), 1},
			{"state", sp(50, 55), sp(49, 71), 2},
		}},
		{"gate", `(gate g (requires "x") (threshold 2))`, []clauseSummary{
			{"requires", sp(35, 43), sp(34, 48), 1},
			{"threshold", sp(50, 59), sp(49, 62), 1},
		}},
		{"type", `(type T U64)`, []clauseSummary{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "(module m (capsule \"1\")\n  " + tc.decl + ")\n"
			f, err := Parse([]byte(src))
			if err != nil || f.Module == nil || len(f.Module.Decls) != 1 {
				t.Fatalf("Parse: %v, module %v", err, f.Module)
			}
			d := f.Module.Decls[0]
			if d := cmp.Diff(tc.want, summarize(ClausesOf(d))); d != "" {
				t.Errorf("ClausesOf (-want +got):\n%s", d)
			}
			fn, ok := d.(*Function)
			if !ok {
				return
			}
			var fromForms []*Clause
			for _, it := range fn.ClauseForms() {
				if IsClause(it) {
					c := ClauseOf(it)
					fromForms = append(fromForms, &c)
				}
			}
			if d := cmp.Diff(tc.want, summarize(fromForms)); d != "" {
				t.Errorf("ClauseForms (-want +got):\n%s", d)
			}
			if kw := fn.Keyword(); kw.Name != "function" || kw.Span != (sp(27, 35)) {
				t.Errorf("Keyword() = %+v, want function at 27-35", kw)
			}
		})
	}
}

// TestNameSpan checks the span a name keeps as a length: the whole symbol,
// dots included, for names read from source and for forms made by hand.
func TestNameSpan(t *testing.T) {
	for _, tc := range []struct {
		text  string
		sp    Span
		parts []Ident
	}{
		{"x", sp(4, 5), []Ident{{"x", sp(4, 5)}}},
		{"event.claim_id", sp(10, 24), []Ident{{"event", sp(10, 15)}, {"claim_id", sp(16, 24)}}},
		{"ab", sp(10, 20), []Ident{{"ab", sp(10, 12)}}}, // a form whose span is not its text's
	} {
		n := NameOf(syntax.NewAtom(syntax.FormSymbol, tc.sp, tc.text))
		if n.Span() != tc.sp || n.ExprSpan() != tc.sp {
			t.Errorf("%s: Span() = %v, ExprSpan() = %v, want %v", tc.text, n.Span(), n.ExprSpan(), tc.sp)
		}
		if d := cmp.Diff(tc.parts, n.Parts); d != "" {
			t.Errorf("%s: parts (-want +got):\n%s", tc.text, d)
		}
	}
	if sp := (&Name{}).Span(); sp != (Span{}) {
		t.Errorf("a name without parts spans %v, want the empty span", sp)
	}
}

// TestTypeRefSpan checks the spans and array lengths of type references,
// which a plain name keeps as its name's span: every kind of type
// expression, and a list without a type name.
func TestTypeRefSpan(t *testing.T) {
	type ref struct {
		Name     string
		NameSpan Span
		Span     Span
		Len      string
		Args     []ref
	}
	var conv func(t *TypeRef) ref
	conv = func(t *TypeRef) ref {
		r := ref{Name: t.Name.Name, NameSpan: t.Name.Span, Span: t.Span()}
		if l := t.ArrayLen(); l != nil {
			r.Len = l.Text
		}
		for _, a := range t.Args {
			r.Args = append(r.Args, conv(a))
		}
		return r
	}
	for _, tc := range []struct {
		typ  string
		want ref
	}{
		{"U64", ref{Name: "U64", NameSpan: sp(34, 37), Span: sp(34, 37)}},
		{"(List Claim)", ref{Name: "List", NameSpan: sp(35, 39), Span: sp(34, 46), Args: []ref{{Name: "Claim", NameSpan: sp(40, 45), Span: sp(40, 45)}}}},
		{"( Array U8 4 )", ref{Name: "Array", NameSpan: sp(36, 41), Span: sp(34, 48), Len: "4", Args: []ref{{Name: "U8", NameSpan: sp(42, 44), Span: sp(42, 44)}}}},
		{"(List)", ref{Name: "List", NameSpan: sp(35, 39), Span: sp(34, 40)}},
		{"()", ref{Span: sp(34, 36)}},
	} {
		src := "(module m (capsule \"1\")\n  (type T " + tc.typ + "))\n"
		f, err := Parse([]byte(src))
		if err != nil || f.Module == nil || len(f.Module.Decls) != 1 {
			t.Fatalf("%s: Parse: %v", tc.typ, err)
		}
		alias, ok := f.Module.Decls[0].(*TypeDecl).Def.(*AliasDef)
		if !ok {
			t.Fatalf("%s: not an alias", tc.typ)
		}
		if d := cmp.Diff(tc.want, conv(alias.Type)); d != "" {
			t.Errorf("%s (-want +got):\n%s", tc.typ, d)
		}
	}
	r := NewTypeRef(sp(3, 9), Ident{"T", sp(3, 4)})
	r.SetLen(&IntLit{Text: "2"})
	if r.Span() != sp(3, 9) || r.ArrayLen().Text != "2" {
		t.Errorf("NewTypeRef then SetLen: span %v, length %v", r.Span(), r.ArrayLen())
	}
	r = NewTypeRef(sp(3, 4), Ident{"T", sp(3, 4)})
	r.SetLen(&IntLit{Text: "2"})
	if r.Span() != sp(3, 4) || r.ArrayLen().Text != "2" {
		t.Errorf("SetLen on a plain name: span %v, length %v", r.Span(), r.ArrayLen())
	}
}

// TestBuildMemory bounds what the tree of a module of one-line functions
// (issue 19's scaling benchmark) takes on top of its forms, per source
// byte, and the sizes of the nodes it has most of. The tree took 14.7
// bytes per source byte when every declaration kept a clause list and a
// keyword, and names 80 bytes each; it takes about 10 now.
func TestBuildMemory(t *testing.T) {
	for _, tc := range []struct {
		what      string
		got, want uintptr
	}{
		{"DeclBase", unsafe.Sizeof(DeclBase{}), 56},
		{"Function", unsafe.Sizeof(Function{}), 192},
		{"Name", unsafe.Sizeof(Name{}), 32},
		{"TypeRef", unsafe.Sizeof(TypeRef{}), 64},
	} {
		if tc.got > tc.want {
			t.Errorf("%s is %d bytes, more than %d", tc.what, tc.got, tc.want)
		}
	}
	if testing.Short() {
		t.Skip("builds a 2 MiB module")
	}
	src := gen.Functions(2 << 20)
	rd, err := syntax.ReadText(src)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	f := Build(rd)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	perByte := (float64(ms.HeapAlloc) - float64(before)) / float64(len(src))
	runtime.KeepAlive(f)
	if f.Module == nil || len(f.Diagnostics) != 0 {
		t.Fatalf("the module did not build cleanly: %d diagnostics", len(f.Diagnostics))
	}
	t.Logf("the tree takes %.1f bytes per source byte", perByte)
	if perByte > 11 {
		t.Errorf("the tree of a module of one-line functions takes %.1f bytes per source byte, more than 11", perByte)
	}
}
