package ast

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

const sample = `;; Parcel tracking demo.
(module demo.parcels
  (capsule "0.2")
  (profile agentic persistence.surrealdb)
  (import demo.shared (as shared))

  (type Weight U32)
  (type Parcel (record (id U64) (grams Weight)))
  (type Size (enum small medium large))
  (type Outcome (variant (delivered (signature Text)) lost))

  (store ledger (backend surrealdb) (authority runtime-state) (collection parcels scans))

  ;; Size class of a parcel.
  ;; Heavier parcels are larger.
  (function size_of
    (input (p Parcel))
    (output Size)
    (requires (> p.grams 0))
    (example (size_of (record Parcel (id 1) (grams 10))) Size.small)
    (body
      (let ((g p.grams))
        (if (< g 1000) Size.small (if (< g 5000) Size.medium Size.large)))))

  (machine Delivery
    (context (parcel_id U64) (attempts U32))
    (event Dispatch (parcel_id U64))
    (event Attempted)
    (event Delivered)
    (initial depot)
    (state depot
      (on Dispatch
        (target out)
        (assign (parcel_id event.parcel_id))
        (effects (db.write ledger.parcels (retry 2) (on-error depot)))))
    (state out
      (timeout 8h Attempted)
      (on Attempted (guard (< attempts 3)) (target out) (assign (attempts (+ attempts 1))))
      (on Delivered (target done)))
    (state done (type final)))

  (gate ShipGate
    (requires approval Ops granted)
    (on-fail quarantine)))
`

func TestBuildSample(t *testing.T) {
	f, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", f.Diagnostics)
	}
	m := f.Module
	text := func(sp Span) string { return sample[sp.Start:sp.End] }
	if m.Name.Name != "demo.parcels" || text(m.Name.Span) != "demo.parcels" {
		t.Errorf("module name %+v", m.Name)
	}
	if m.Doc != "Parcel tracking demo." {
		t.Errorf("module doc %q", m.Doc)
	}
	if m.Capsule.Value != "0.2" {
		t.Errorf("capsule %+v", m.Capsule)
	}
	var profiles []string
	for _, p := range m.Profiles {
		profiles = append(profiles, p.Name)
	}
	if diff := cmp.Diff([]string{"agentic", "persistence.surrealdb"}, profiles); diff != "" {
		t.Error(diff)
	}
	if len(m.Imports) != 1 || m.Imports[0].Path.Name != "demo.shared" || m.Imports[0].Alias.Name != "shared" {
		t.Errorf("imports %+v", m.Imports)
	}
	var kinds []string
	for _, d := range m.Decls {
		kinds = append(kinds, fmt.Sprintf("%s %s", d.Kind(), d.Base().Name.Name))
	}
	want := []string{"type Weight", "type Parcel", "type Size", "type Outcome", "store ledger", "function size_of", "machine Delivery", "gate ShipGate"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Error(diff)
	}
	fn := m.Decls[5].(*Function)
	if fn.Doc != "Size class of a parcel.\nHeavier parcels are larger." {
		t.Errorf("doc %q", fn.Doc)
	}
	if len(fn.Inputs) != 1 || fn.Inputs[0].Type.Name.Name != "Parcel" || fn.Output.Name.Name != "Size" {
		t.Errorf("signature %+v %+v", fn.Inputs, fn.Output)
	}
	if fn.Effects != nil || len(fn.Requires) != 1 || len(fn.Examples) != 1 {
		t.Errorf("clauses %+v", fn)
	}
	if _, ok := fn.Body.(*Let); !ok {
		t.Errorf("body %T", fn.Body)
	}
	ex := fn.Examples[0]
	if ex.Func.Name != "size_of" || len(ex.Args) != 1 {
		t.Errorf("example %+v", ex)
	}
	if n, ok := ex.Expected.(*Name); !ok || n.Text() != "Size.small" || text(n.Parts[1].Span) != "small" {
		t.Errorf("expected %+v", ex.Expected)
	}
	mc := m.Decls[6].(*Machine)
	if mc.Initial.Name != "depot" || len(mc.States) != 3 || len(mc.Events) != 3 || len(mc.Context) != 2 {
		t.Fatalf("machine %+v", mc)
	}
	tr := mc.States[0].Transitions[0]
	if tr.Event.Name != "Dispatch" || tr.Target.Name != "out" || len(tr.Assigns) != 1 || len(tr.Effects) != 1 {
		t.Errorf("transition %+v", tr)
	}
	eff := tr.Effects[0]
	if eff.Name.Name != "db.write" || eff.Targets[0].Name != "ledger.parcels" || eff.Retry.Mag != 2 || eff.OnError.Name != "depot" {
		t.Errorf("effect %+v", eff)
	}
	out := mc.States[1]
	if out.Timeout == nil || out.Timeout.Duration.Millis != 8*3600*1000 || out.Timeout.Event.Name != "Attempted" {
		t.Errorf("timeout %+v", out.Timeout)
	}
	if !mc.States[2].Final {
		t.Error("done should be final")
	}
	g := m.Decls[7].(*ClauseDecl)
	if g.Kind() != KindGate || len(g.Clauses) != 2 || g.Clauses[0].Key.Name != "requires" {
		t.Errorf("gate %+v", g)
	}
	st := m.Decls[4].(*Store)
	if st.Backend.Name != "surrealdb" || len(st.Collections) != 2 {
		t.Errorf("store %+v", st)
	}
}

func TestStructuralDiagnostics(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string // "CODE text-at-span"
	}{
		{"empty file", "", []string{"E_MISSING_CLAUSE "}},
		{"no capsule", "(module m)", []string{"E_MISSING_CLAUSE m"}},
		{"unknown decl", "(module m (capsule \"0\") (functoin f))", []string{"E_UNKNOWN_FORM functoin"}},
		{"unknown clause", "(module m (capsule \"0\") (function f (output I64) (bdy 1) (body 1)))", []string{"E_UNKNOWN_FORM bdy"}},
		{"missing body", "(module m (capsule \"0\") (function f (output I64)))", []string{"E_MISSING_CLAUSE f"}},
		{"bad number", "(module m (capsule \"0\") (function f (output I64) (body 1x)))", []string{"E_BAD_LITERAL 1x"}},
		{"missing target", "(module m (capsule \"0\") (machine M (initial a) (event E) (state a (on E))))", []string{"E_MISSING_CLAUSE E"}},
		{"bad timeout", "(module m (capsule \"0\") (machine M (initial a) (event E) (state a (timeout 5 E))))", []string{"E_BAD_LITERAL 5"}},
		{"stray decl after module is adopted", "(module m (capsule \"0\")))\n(function f (output I64) (body 1))", []string{"E_PARSE )", "E_PARSE function"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range f.Diagnostics {
				got = append(got, d.Code+" "+tt.src[d.Span.Start:d.Span.End])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	f, _ := Parse([]byte("(module m (capsule \"0\")))\n(function f (output I64) (body 1))"))
	if len(f.Module.Decls) != 1 {
		t.Errorf("stray function not adopted: %d decls", len(f.Module.Decls))
	}
}

func TestGeneratedModuleIsClean(t *testing.T) {
	src := gen.Module(2000)
	f, err := Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Diagnostics) != 0 {
		t.Fatalf("%d diagnostics, first %+v", len(f.Diagnostics), f.Diagnostics[0])
	}
	if n := strings.Count(string(src), "\n"); n < 1990 || n > 2100 {
		t.Errorf("lines %d", n)
	}
}

func BenchmarkBuild10k(b *testing.B) {
	src := gen.Module(10000)
	c, err := syntax.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Build(syntax.Read(c))
	}
}
