package chain

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SyncPolicy says when appended records reach stable storage.
type SyncPolicy int

const (
	// SyncAlways fsyncs (fdatasync on Linux) before Append returns: an
	// acknowledged record survives a machine crash. The default.
	SyncAlways SyncPolicy = iota
	// SyncNever only writes: an acknowledged record survives a crash of
	// the process but maybe not of the machine. For tests and scratch logs.
	SyncNever
)

// Options configure Open.
type Options struct {
	// Sync is the durability policy; the zero value is SyncAlways.
	Sync SyncPolicy
	// NoGroupCommit makes every Append write and sync alone, holding the
	// log for the whole time (for comparison in benchmarks). By default
	// appenders that wait while a write is in progress are written
	// together, with one sync.
	NoGroupCommit bool
	// LockTimeout is how long Open waits for another writer to release
	// the file; 0 fails at once with ErrLocked.
	LockTimeout time.Duration
	// VerifyOnOpen verifies the whole chain on Open (a *CorruptError if it
	// is broken). Otherwise Open checks only the last record.
	VerifyOnOpen bool
	// MaxRecordSize bounds the length of one line; 0 means 64 MiB.
	MaxRecordSize int
	// Perm is the mode of a newly created file; 0 means 0644.
	Perm os.FileMode
}

const defaultMaxRecord = 64 << 20

// File is the file backend of Log: one record per line, in a file locked
// for exclusive writing while it is open.
type File struct {
	path string
	f    *os.File
	opts Options

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []*request
	writing bool  // a leader is writing a batch
	syncing bool  // Sync is in progress
	closed  bool  //
	broken  error // a failed write or sync: no more appends
	size    int64 // bytes of acknowledged records
	head    Head
	torn    int64  // bytes removed by recovery at Open
	wbuf    []byte // the leader's write buffer, reused
}

// writeChunk is the most a batch buffers before it writes: a large batch
// goes out in writes of this size (and one sync), so that its buffer is
// reused and stays in the cache.
const writeChunk = 1 << 20

type request struct {
	nosync   bool // WriteBatch: the caller syncs later
	norecs   bool // WriteCanonical: no records returned
	payloads [][]byte
	recs     []Record
	err      error
	done     bool
}

// Open opens (creating it and its folder if needed) the log at path for
// appending. It takes an exclusive lock on the file (see
// Options.LockTimeout), removes a torn last line left by a crash, and
// checks the last complete record (or the whole chain, with VerifyOnOpen).
func Open(path string, opts Options) (*File, error) {
	if opts.MaxRecordSize <= 0 {
		opts.MaxRecordSize = defaultMaxRecord
	}
	if opts.Perm == 0 {
		opts.Perm = 0o644
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, opts.Perm)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f, opts.LockTimeout); err != nil {
		f.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("%w: %s", ErrLocked, path)
		}
		return nil, err
	}
	l := &File{path: path, f: f, opts: opts, head: Head{Hash: Genesis}}
	l.cond = sync.NewCond(&l.mu)
	if err := l.recover(); err != nil {
		unlockFile(f)
		f.Close()
		return nil, err
	}
	return l, nil
}

// Path returns the log's file name.
func (l *File) Path() string { return l.path }

// Recovered returns the number of bytes of a torn last line that Open
// removed (0 when the file ended cleanly).
func (l *File) Recovered() int64 { return l.torn }

// recover finds the end of the last complete line, truncates anything
// after it and loads the head from the last record.
func (l *File) recover() error {
	st, err := l.f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	end, err := lastNewline(l.f, size)
	if err != nil {
		return err
	}
	if end < size {
		if err := l.f.Truncate(end); err != nil {
			return fmt.Errorf("chain: %s: removing a torn last record: %w", l.path, err)
		}
		if err := l.f.Sync(); err != nil {
			return err
		}
		l.torn = size - end
	}
	l.size = end
	if end == 0 {
		return nil
	}
	if l.opts.VerifyOnOpen {
		rep, err := l.Verify()
		if err != nil {
			return err
		}
		if !rep.OK {
			return &CorruptError{Path: l.path, Problem: rep.Problem}
		}
		l.head = rep.Head
		return nil
	}
	// Check the last record alone: its own hash and form.
	start, err := lineStart(l.f, end-1)
	if err != nil {
		return err
	}
	line := make([]byte, end-1-start)
	if _, err := l.f.ReadAt(line, start); err != nil {
		return err
	}
	r, kind, reason := parseLine(line)
	if kind != "" {
		return &CorruptError{Path: l.path, Problem: &Problem{Line: 0, Offset: start, Kind: kind, Reason: "last record: " + reason}}
	}
	l.head = Head{Seq: r.Seq, Hash: r.Hash}
	return nil
}

// lastNewline returns the offset just past the last '\n' in the first size
// bytes of f (0 if there is none).
func lastNewline(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		n := int64(len(buf))
		if n > end {
			n = end
		}
		if _, err := f.ReadAt(buf[:n], end-n); err != nil {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return end - n + int64(i) + 1, nil
		}
		end -= n
	}
	return 0, nil
}

// lineStart returns the offset of the line that holds the byte before nl
// (nl is the offset of a '\n').
func lineStart(f *os.File, nl int64) (int64, error) {
	end, err := lastNewline(f, nl)
	return end, err
}

// Append implements Log.
func (l *File) Append(p []byte) (Record, error) {
	recs, err := l.AppendBatch([][]byte{p})
	if err != nil {
		return Record{}, err
	}
	return recs[0], nil
}

// AppendBatch implements Log. The payloads are canonicalized first; an
// invalid one fails the whole batch before anything is written. A payload
// that is canonical already is used as it is, so the returned record's
// Payload shares its memory.
func (l *File) AppendBatch(ps [][]byte) ([]Record, error) {
	return l.appendBatch(ps, false)
}

// WriteBatch is AppendBatch without the durability barrier: the records
// are written (they survive a crash of the process, and Iterate and
// Verify see them) but not yet synced, and they are acknowledged only
// once a later Sync returns. A single writer can so write one batch while
// the previous one is being synced.
func (l *File) WriteBatch(ps [][]byte) ([]Record, error) {
	return l.appendBatch(ps, true)
}

// WriteCanonical is WriteBatch for payloads that are canonical by
// construction, which it writes without checking them: each must be
// exactly what Canonical would return for it (the machine ledger's
// encoder builds its records so, and its tests compare them with
// Canonical). A payload from anywhere else must go through WriteBatch or
// AppendBatch, which canonicalize it; one that is not canonical here
// would be stored as it is and fail verification.
//
// It returns no records, and it does not keep the payloads after it
// returns: the caller may reuse their memory.
func (l *File) WriteCanonical(ps [][]byte) error {
	_, err := l.appendPayloads(ps, true, true)
	return err
}

// Sync makes every record written so far durable (fdatasync, under
// SyncAlways; nothing under SyncNever). It may run while another
// goroutine writes; records written before Sync was called are durable
// when it returns without error. A failed sync leaves the file in an
// unknown state: the log then refuses every later append.
func (l *File) Sync() error {
	l.mu.Lock()
	if err := l.usable(); err != nil {
		l.mu.Unlock()
		return err
	}
	if l.opts.Sync != SyncAlways {
		l.mu.Unlock()
		return nil
	}
	l.syncing = true
	l.mu.Unlock()
	err := syncData(l.f)
	l.mu.Lock()
	l.syncing = false
	if err != nil {
		err = fmt.Errorf("chain: %s: sync: %w", l.path, err)
		if l.broken == nil {
			l.broken = err
		}
	}
	l.cond.Broadcast()
	l.mu.Unlock()
	return err
}

func (l *File) appendBatch(ps [][]byte, nosync bool) ([]Record, error) {
	return l.appendPayloads(ps, nosync, false)
}

// appendPayloads appends the payloads, checking and canonicalizing them
// unless they are canonical by construction (WriteCanonical: then no
// records are built, and the payloads are not kept).
func (l *File) appendPayloads(ps [][]byte, nosync, canonical bool) ([]Record, error) {
	if len(ps) == 0 {
		return nil, nil
	}
	req := &request{nosync: nosync, norecs: canonical}
	if canonical {
		req.payloads = ps
	} else {
		req.payloads = make([][]byte, len(ps))
	}
	for i, p := range ps {
		// A canonical payload (the usual case) is used as it is: the
		// records returned share it.
		c := p
		if !canonical && !isCanonical(p) {
			var err error
			if c, err = canonicalSlow(p); err != nil {
				return nil, err
			}
		}
		if len(c) > l.opts.MaxRecordSize-lineOverhead {
			return nil, fmt.Errorf("chain: payload of %d bytes exceeds the record size limit", len(c))
		}
		req.payloads[i] = c
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.usable(); err != nil {
		return nil, err
	}
	l.queue = append(l.queue, req)
	for !req.done {
		if l.writing {
			l.cond.Wait()
			continue
		}
		// Become the leader: write everything queued (or, without group
		// commit, the first request only).
		batch := l.queue
		if l.opts.NoGroupCommit {
			batch = l.queue[:1]
		}
		l.queue = append([]*request(nil), l.queue[len(batch):]...)
		if err := l.usable(); err != nil {
			for _, r := range batch {
				r.err, r.done = err, true
			}
			l.cond.Broadcast()
			continue
		}
		l.writing = true
		head, size := l.head, l.size
		if l.opts.NoGroupCommit {
			// Hold the lock across the write: one appender at a time.
			head, size, broken, err := l.write(batch, head, size)
			l.finish(batch, head, size, broken, err)
			continue
		}
		l.mu.Unlock()
		head, size, broken, err := l.write(batch, head, size)
		l.mu.Lock()
		l.finish(batch, head, size, broken, err)
	}
	return req.recs, req.err
}

func (l *File) usable() error {
	if l.closed {
		return ErrClosed
	}
	if l.broken != nil {
		return fmt.Errorf("chain: %s: log unusable after an earlier failure: %w", l.path, l.broken)
	}
	return nil
}

// finish records a batch's outcome; called with l.mu held.
func (l *File) finish(batch []*request, head Head, size int64, broken bool, err error) {
	l.writing = false
	if broken {
		l.broken = err
	}
	if err == nil {
		l.head, l.size = head, size
	}
	for _, r := range batch {
		if err != nil {
			r.recs = nil
			r.err = err
		}
		r.done = true
	}
	l.cond.Broadcast()
}

// write appends a batch at offset size after head and makes it durable.
// Only the leader calls it. broken reports a failure that leaves the end
// of the file unknown.
func (l *File) write(batch []*request, head Head, size int64) (_ Head, _ int64, broken bool, _ error) {
	buf := l.wbuf[:0]
	off := size
	flush := func() error {
		if testHookBeforeWrite != nil {
			testHookBeforeWrite(l, buf, off)
		}
		if _, err := l.f.WriteAt(buf, off); err != nil {
			return err
		}
		off += int64(len(buf))
		buf = buf[:0]
		return nil
	}
	var err error
	for _, r := range batch {
		if r.norecs && isHash([]byte(head.Hash)) {
			// No records to build: the hash of the last line is all
			// that is kept.
			var prev [len(Genesis)]byte
			copy(prev[:], head.Hash)
			seq := head.Seq
			for _, p := range r.payloads {
				seq++
				buf = appendLineAfter(buf, seq, &prev, p)
				if len(buf) >= writeChunk && err == nil {
					err = flush()
				}
			}
			head = Head{Seq: seq, Hash: string(prev[:])}
			continue
		}
		r.recs = make([]Record, len(r.payloads))
		for i, p := range r.payloads {
			buf, r.recs[i] = appendLine(buf, head, p)
			// The record keeps the canonical payload it was given, not
			// the reused buffer.
			r.recs[i].Payload = p
			head = Head{Seq: r.recs[i].Seq, Hash: r.recs[i].Hash}
			if len(buf) >= writeChunk && err == nil {
				err = flush()
			}
		}
	}
	if len(buf) > 0 && err == nil {
		err = flush()
	}
	if cap(buf) <= 4*writeChunk {
		l.wbuf = buf
	}
	if err != nil {
		// Take back whatever part was written; if that fails too, the
		// file's end is unknown and the log stops accepting appends.
		terr := l.f.Truncate(size)
		return Head{}, 0, terr != nil, fmt.Errorf("chain: %s: write: %w", l.path, err)
	}
	sync := false
	for _, r := range batch {
		sync = sync || !r.nosync
	}
	if l.opts.Sync == SyncAlways && sync {
		if err := syncData(l.f); err != nil {
			// After a failed fsync the state of the written bytes is
			// unknown: refuse further appends rather than guess.
			return Head{}, 0, true, fmt.Errorf("chain: %s: sync: %w", l.path, err)
		}
	}
	return head, off, false, nil
}

// testHookBeforeWrite, when set by tests, sees each batch before it is
// written at offset off.
var testHookBeforeWrite func(l *File, data []byte, off int64)

// Head implements Log.
func (l *File) Head() Head {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.head
}

// snapshot returns the size of the acknowledged records.
func (l *File) snapshot() (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return 0, ErrClosed
	}
	return l.size, nil
}

// Iterate implements Log. It reads the records acknowledged when it starts
// and does not stop at one that fails verification; use Verify for that.
func (l *File) Iterate(fn func(Record) error) error {
	size, err := l.snapshot()
	if err != nil {
		return err
	}
	return iterateReader(io.NewSectionReader(l.f, 0, size), l.opts.MaxRecordSize, fn)
}

// Records implements Log.
func (l *File) Records() ([]Record, error) {
	var out []Record
	err := l.Iterate(func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Verify implements Log.
func (l *File) Verify() (*Report, error) {
	size, err := l.snapshot()
	if err != nil {
		return nil, err
	}
	return verifyReader(io.NewSectionReader(l.f, 0, size), l.opts.MaxRecordSize)
}

// Close implements Log. It waits for a write in progress.
func (l *File) Close() error {
	l.mu.Lock()
	for l.writing || l.syncing {
		l.cond.Wait()
	}
	if l.closed {
		l.mu.Unlock()
		return ErrClosed
	}
	l.closed = true
	for _, r := range l.queue {
		r.err, r.done = ErrClosed, true
	}
	l.queue = nil
	l.cond.Broadcast()
	l.mu.Unlock()
	unlockFile(l.f)
	return l.f.Close()
}

// iterateReader decodes every complete line of r as a record, without
// checking hashes. An incomplete last line is ignored.
func iterateReader(r io.Reader, max int, fn func(Record) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	line := 0
	for {
		b, err := readLine(br, max)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		line++
		// Only a malformed line stops the iteration. A line of the
		// canonical shape with a canonical payload cannot be malformed,
		// whatever its hash: skip hashing it.
		rec, ok := fastParse(b)
		kind, reason := "", ""
		if !ok || !isCanonical(rec.Payload) {
			rec, kind, reason = parseLine(b)
		}
		if kind == ProblemMalformed {
			return fmt.Errorf("chain: line %d: %s", line, reason)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
}

// errPartial reports an incomplete last line with its length.
type errPartial struct{ n int64 }

func (e errPartial) Error() string { return "incomplete line" }

// readLine returns the next complete line without its '\n' (a fresh
// slice: records keep pointing into it); io.EOF at the end, errPartial for
// an incomplete last line.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var acc []byte
	for {
		frag, err := br.ReadSlice('\n')
		if err == nil {
			if acc == nil {
				return append([]byte(nil), frag[:len(frag)-1]...), nil
			}
			acc = append(acc, frag[:len(frag)-1]...)
			return acc, nil
		}
		if err == bufio.ErrBufferFull {
			acc = append(acc, frag...)
			if len(acc) > max {
				return nil, fmt.Errorf("chain: a record is longer than %d bytes", max)
			}
			continue
		}
		if err == io.EOF {
			n := int64(len(acc) + len(frag))
			if n == 0 {
				return nil, io.EOF
			}
			return nil, errPartial{n}
		}
		return nil, err
	}
}

// VerifyFile verifies the log at path without locking it, so it can run
// beside a writer. An incomplete last line is reported in TornBytes (a
// write in progress or a torn write) and does not make the log bad.
func VerifyFile(path string) (*Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return verifyReader(f, defaultMaxRecord)
}

// ReadFile returns the complete records of the log at path without
// locking it or verifying hashes (an incomplete last line is ignored). A
// missing file has no records.
func ReadFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Record
	err = iterateReader(f, defaultMaxRecord, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}
