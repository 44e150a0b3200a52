// Package ledger records machine instances (spec §08, conformance level
// CPS-4): per instance, an append-only, tamper-evident ledger of its
// descriptor and the module's semantic hash, every input in arrival order,
// every transition with its effect intents, the observed effect results,
// failed events with their diagnostics, snapshots, and the semantic trace
// records (docs/ledger.md, "Machine ledger").
//
// The records live in a Store. The embedded default is a file of package
// runtime/chain (hash-chained JSON Lines with torn-write recovery, fsync
// and group commit) in a directory per instance; a second backend (a
// database) implements Store, or chain.Log under ChainStore.
//
// Record payloads are canonical JSON (sorted keys, minimal escaping), so
// that the bytes a replay regenerates can be compared with the stored
// ones directly.
package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/capsulang/caps/runtime/chain"
)

// Store is where a ledger keeps its records: an append-only sequence of
// JSON payloads with tamper evidence. It is the interface a second backend
// implements.
type Store interface {
	// Append adds the payloads, in order, and returns once they are
	// durable (per the store's sync policy). Payloads are canonical JSON.
	Append(payloads [][]byte) error
	// Iterate calls fn with each record's position (1-based) and payload,
	// in order, without verifying; fn must not keep payload.
	Iterate(fn func(seq uint64, payload []byte) error) error
	// Verify checks the whole store for tampering: a changed, dropped,
	// inserted or reordered record. A broken store is reported in the
	// Report; the error is for I/O failures.
	Verify() (*chain.Report, error)
	// Close releases the store.
	Close() error
}

// ChainStore adapts a chain.Log (the file backend, the in-memory one, or
// any other) to Store.
type ChainStore struct {
	Log chain.Log
}

// Append implements Store.
func (s ChainStore) Append(payloads [][]byte) error {
	_, err := s.Log.AppendBatch(payloads)
	return err
}

// Write appends the payloads without waiting for them to be durable when
// the log can (chain.File's WriteBatch); Sync makes them durable. With any
// other log it is Append.
func (s ChainStore) Write(payloads [][]byte) error {
	if w, ok := s.Log.(interface {
		WriteBatch([][]byte) ([]chain.Record, error)
	}); ok {
		_, err := w.WriteBatch(payloads)
		return err
	}
	return s.Append(payloads)
}

// writeCanonical is Write for payloads canonical by construction (the
// recorder's, vouched for by its encoder): a chain file writes them
// without checking them again (chain.File.WriteCanonical).
func (s ChainStore) writeCanonical(payloads [][]byte) error {
	if w, ok := s.Log.(interface{ WriteCanonical([][]byte) error }); ok {
		return w.WriteCanonical(payloads)
	}
	return s.Write(payloads)
}

// Sync makes everything written so far durable (per the log's sync
// policy).
func (s ChainStore) Sync() error {
	if y, ok := s.Log.(interface{ Sync() error }); ok {
		return y.Sync()
	}
	return nil
}

// Iterate implements Store.
func (s ChainStore) Iterate(fn func(uint64, []byte) error) error {
	return s.Log.Iterate(func(r chain.Record) error { return fn(r.Seq, r.Payload) })
}

// Verify implements Store.
func (s ChainStore) Verify() (*chain.Report, error) { return s.Log.Verify() }

// Close implements Store.
func (s ChainStore) Close() error { return s.Log.Close() }

// loader is a chain.Log that reads itself into memory in one pass while
// it verifies (chain.File).
type loader interface {
	Load(fn func(seq uint64, payload []byte)) (func() (*chain.Report, error), error)
}

// Load reads every record of the store, in order, and verifies the store.
// With a chain file it reads the file once and verifies it on other
// goroutines while the caller goes on with the entries: verify waits for
// the verification and returns its report (the error is for I/O
// failures). The entries must not be trusted until verify reports the
// store OK.
func (s ChainStore) Load() (entries []Entry, verify func() (*chain.Report, error), err error) {
	ld, ok := s.Log.(loader)
	if !ok {
		return loadSlow(s)
	}
	verify, err = ld.Load(func(seq uint64, p []byte) {
		entries = append(entries, Entry{Seq: seq, Type: TypeOf(p), Payload: p})
	})
	if err != nil {
		return nil, nil, err
	}
	return entries, verify, nil
}

// Load is ChainStore.Load for any store: stores without a one-pass load
// are verified first, then read.
func Load(s Store) (entries []Entry, verify func() (*chain.Report, error), err error) {
	if cs, ok := s.(ChainStore); ok {
		return cs.Load()
	}
	return loadSlow(s)
}

func loadSlow(s Store) ([]Entry, func() (*chain.Report, error), error) {
	rep, err := s.Verify()
	if err != nil {
		return nil, nil, err
	}
	verify := func() (*chain.Report, error) { return rep, nil }
	if !rep.OK {
		return nil, verify, nil
	}
	entries, err := ReadAll(s)
	if err != nil {
		return nil, nil, err
	}
	return entries, verify, nil
}

// FileName is the chain file inside a ledger directory.
const FileName = "ledger.jsonl"

// Sync policies of a file ledger (docs/ledger.md, "Machine ledger").
type Sync int

const (
	// SyncGroup, the default, fsyncs in the background: the records of
	// the steps taken while a write is in progress go out together with
	// one fsync. A step is acknowledged (survives a crash) once Flush or
	// Close returns; in live mode every step that executes effects waits
	// for its intents to be durable first.
	SyncGroup Sync = iota
	// SyncStep makes every step wait until its records are durable.
	SyncStep
	// SyncNone never fsyncs (tests, benchmarks, scratch runs): the
	// records survive a crash of the process but maybe not of the machine.
	SyncNone
)

// ErrExists is returned when creating a ledger where one already is.
var ErrExists = errors.New("ledger: a ledger already exists there")

// CreateDir creates a file ledger in dir (made if missing), which must not
// hold one already.
func CreateDir(dir string, sync Sync) (*chain.File, error) {
	path := filepath.Join(dir, FileName)
	if st, err := os.Stat(path); err == nil && st.Size() > 0 {
		return nil, fmt.Errorf("%w: %s", ErrExists, path)
	}
	opts := chain.Options{}
	if sync == SyncNone {
		opts.Sync = chain.SyncNever
	}
	return chain.Open(path, opts)
}

// OpenDir opens the file ledger in dir for reading: a torn last record
// left by a crash is removed (it was never acknowledged).
func OpenDir(dir string) (*chain.File, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no ledger here (no %s)", dir, FileName)
		}
		return nil, err
	}
	return chain.Open(path, chain.Options{Sync: chain.SyncNever})
}
