package chain

import (
	"path/filepath"
	"testing"
)

var benchPayload = []byte(`{"kind":"commit","file":"examples/abs.caps","parent":"sha256:4fe18110ca9db4faba34f59050f201033be8169892e6b8434163a8d7eee15c9f","lines":12}`)

func benchOpen(b *testing.B, opts Options) *File {
	l, err := Open(filepath.Join(b.TempDir(), "bench.jsonl"), opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	return l
}

func reportRate(b *testing.B, records int) {
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
}

// BenchmarkAppend measures Append throughput with fsync before every
// acknowledgement: one appender; 16 concurrent appenders with and without
// group commit; batches of 100; and without fsync.
func BenchmarkAppend(b *testing.B) {
	b.Run("serial", func(b *testing.B) {
		l := benchOpen(b, Options{})
		for i := 0; i < b.N; i++ {
			if _, err := l.Append(benchPayload); err != nil {
				b.Fatal(err)
			}
		}
		reportRate(b, b.N)
	})
	for _, ng := range []bool{false, true} {
		name := "parallel16-group-commit"
		if ng {
			name = "parallel16-no-group-commit"
		}
		b.Run(name, func(b *testing.B) {
			l := benchOpen(b, Options{NoGroupCommit: ng})
			b.SetParallelism(16 / max(1, testingProcs()))
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := l.Append(benchPayload); err != nil {
						b.Error(err)
						return
					}
				}
			})
			reportRate(b, b.N)
		})
	}
	b.Run("batch100", func(b *testing.B) {
		l := benchOpen(b, Options{})
		batch := make([][]byte, 100)
		for i := range batch {
			batch[i] = benchPayload
		}
		n := 0
		for i := 0; i < b.N; i += 100 {
			if _, err := l.AppendBatch(batch); err != nil {
				b.Fatal(err)
			}
			n += 100
		}
		reportRate(b, n)
	})
	b.Run("serial-nosync", func(b *testing.B) {
		l := benchOpen(b, Options{Sync: SyncNever})
		for i := 0; i < b.N; i++ {
			if _, err := l.Append(benchPayload); err != nil {
				b.Fatal(err)
			}
		}
		reportRate(b, b.N)
	})
}

// BenchmarkVerify measures verification speed of a 10,000-record log.
func BenchmarkVerify(b *testing.B) {
	l := benchOpen(b, Options{Sync: SyncNever})
	batch := make([][]byte, 1000)
	for i := range batch {
		batch[i] = benchPayload
	}
	for i := 0; i < 10; i++ {
		l.AppendBatch(batch)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := l.Verify()
		if err != nil || !rep.OK {
			b.Fatal(rep, err)
		}
	}
	b.ReportMetric(float64(10000*b.N)/b.Elapsed().Seconds(), "records/s")
}

func testingProcs() int { return runtimeGOMAXPROCS() }
