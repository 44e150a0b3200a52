package ledger_test

import (
	"path/filepath"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/replay"
)

// BenchmarkLedgeredStep measures dry-run stepping of the ClaimReview
// machine with a file ledger under the default policy (group commit, with
// fsync): every input, transition, snapshot and trace record is written,
// and the time includes the final flush. One op is one event.
func BenchmarkLedgeredStep(b *testing.B) {
	m := compile(b)
	f, err := ledger.CreateDir(b.TempDir(), ledger.SyncGroup)
	if err != nil {
		b.Fatal(err)
	}
	rec := ledger.NewRecorder(m, ledger.ChainStore{Log: f}, ledger.RecorderOptions{ModulePath: claimReview})
	inst, err := m.NewInstance(machine.InstanceOptions{Observer: rec})
	if err != nil {
		b.Fatal(err)
	}
	evs := cycle()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		inst.Step(evs[n%len(evs)])
	}
	if err := rec.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
}

// BenchmarkReplay measures caps replay on a dry-run ledger of 20,000 events:
// verify the chain, re-execute every event, regenerate every record and
// compare it with the stored one. One op is one replay of the ledger.
func BenchmarkReplay(b *testing.B) {
	const events = 20_000
	dir := filepath.Join(b.TempDir(), "l")
	recordMode(b, dir, events, ledger.SyncNone, nil)
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		rep := replay.Dir(dir, replay.Options{Module: claimReview})
		if !rep.OK || rep.Inputs != events {
			b.Fatalf("%s", rep.Text())
		}
	}
	b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
}

// discard is a Store that drops what it is given: the recorder's own cost.
type discard struct{}

func (discard) Append([][]byte) error                    { return nil }
func (discard) Iterate(func(uint64, []byte) error) error { return nil }
func (discard) Verify() (*chain.Report, error)           { return &chain.Report{OK: true}, nil }
func (discard) Close() error                             { return nil }

// BenchmarkRecordStep is BenchmarkLedgeredStep without the chain: stepping,
// trace records and the encoding of every ledger record, handed to a
// store that drops them. The difference is runtime/chain's append.
func BenchmarkRecordStep(b *testing.B) {
	m := compile(b)
	rec := ledger.NewRecorder(m, discard{}, ledger.RecorderOptions{ModulePath: claimReview})
	inst, err := m.NewInstance(machine.InstanceOptions{Observer: rec})
	if err != nil {
		b.Fatal(err)
	}
	evs := cycle()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		inst.Step(evs[n%len(evs)])
	}
	rec.Close()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
}

// BenchmarkReplayEntries is BenchmarkReplay without the chain: the
// re-execution and comparison of ledger records already read and verified.
func BenchmarkReplayEntries(b *testing.B) {
	const events = 20_000
	dir := filepath.Join(b.TempDir(), "l")
	recordMode(b, dir, events, ledger.SyncNone, nil)
	f, err := ledger.OpenDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	entries, err := ledger.ReadAll(ledger.ChainStore{Log: f})
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	l := &load.Loader{}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		rep := &replay.Report{}
		replay.Entries(entries, replay.Options{Module: claimReview, Loader: l}, rep)
		if !rep.OK || rep.Inputs != events {
			b.Fatalf("%s", rep.Text())
		}
	}
	b.ReportMetric(float64(events*b.N)/b.Elapsed().Seconds(), "events/s")
}
