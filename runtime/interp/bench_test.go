package interp_test

import (
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/interp"
	"github.com/capsulang/caps/runtime/value"
)

func loadExample(b *testing.B, name string) *interp.Interp {
	b.Helper()
	p, err := (&load.Loader{}).Load("../../examples/" + name)
	if err != nil {
		b.Fatal(err)
	}
	if p.Result.HasErrors() {
		b.Fatalf("%s has errors", name)
	}
	return interp.New(p.Result)
}

func benchCall(b *testing.B, in *interp.Interp, fn string, args []value.Value, want string) {
	b.Helper()
	v, _, err := in.Call(fn, args)
	if err != nil || v.String() != want {
		b.Fatalf("%s = %v, %v; want %s", fn, v, err, want)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := in.Call(fn, args); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAbs measures one call of abs_i64 (examples/abs.caps).
func BenchmarkAbs(b *testing.B) {
	benchCall(b, loadExample(b, "abs.caps"), "abs_i64", []value.Value{value.I64(-7)}, "7")
}

// BenchmarkFib20 measures fib(20) by plain recursion: 21,891 calls.
func BenchmarkFib20(b *testing.B) {
	benchCall(b, loadExample(b, "abs.caps"), "fib", []value.Value{value.U64(20)}, "6765")
}

// BenchmarkRecord measures upgrade (examples/text_and_records.caps), which
// reads three fields of a Parcel and builds a new one.
func BenchmarkRecord(b *testing.B) {
	in := loadExample(b, "text_and_records.caps")
	info, _ := in.Function("upgrade")
	parcel, err := value.Parse(`(record Parcel (tracking "PX00000099") (weight 2000) (level ServiceLevel.economy) (fragile true))`, info.Params[0].Type)
	if err != nil {
		b.Fatal(err)
	}
	benchCall(b, in, "upgrade", []value.Value{parcel},
		`(record Parcel (tracking "PX00000099") (weight 2000) (level ServiceLevel.express) (fragile true))`)
}
