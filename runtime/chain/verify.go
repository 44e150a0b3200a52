package chain

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Verification runs in blocks of whole lines, checked in parallel: every
// check of a line (its form, its hash, its seq being its line number, its
// prev being the hash stored in the line before) depends only on that line
// and the one before it, so blocks are independent once each knows the
// hash of the line that precedes it. The first problem in file order is
// the one reported, with the same kind and reason as a line-by-line
// verification.

// blockSize is the size of a verification block.
const blockSize = 256 << 10

// block is a run of complete lines (each ending in '\n').
type block struct {
	data []byte
	line int   // 1-based number of the first line
	off  int64 // offset of the first line
	// prevHash is the hash stored in the line before the block (Genesis
	// before line 1; zero when that line is not a record, which is then
	// reported as the first problem anyway).
	prevHash [len(Genesis)]byte

	// Results.
	records int        // lines that verified, up to the first problem
	head    Head       // the last line that verified
	problem *Problem   // the first problem, if any
	done    chan error // closed when verified
}

// verify checks the block's lines.
func (b *block) verify(h *hasher) {
	prev := b.prevHash
	headSeq := uint64(b.line - 1)
	line, off := b.line, b.off
	data := b.data
	fail := func(kind, reason string) {
		b.problem = &Problem{Line: line, Offset: off, Kind: kind, Reason: reason}
	}
	for len(data) > 0 {
		nl := bytes.IndexByte(data, '\n')
		ln := data[:nl]
		lp, kind, reason := h.check(ln)
		if !lp.ok {
			_, kind, reason = slowParse(ln)
		}
		if kind != "" {
			fail(kind, reason)
			break
		}
		want := uint64(line)
		if lp.seq != want {
			what := "a record is missing before it or the records are out of order"
			if lp.seq < want {
				what = "it repeats or goes back: a record was inserted or reordered"
			}
			fail(ProblemSeq, fmt.Sprintf("record has seq %d, expected %d: %s", lp.seq, want, what))
			break
		}
		if string(lp.prev) != string(prev[:]) {
			fail(ProblemPrev, fmt.Sprintf("record %d: prev %s is not the hash of record %d (%s): the chain is broken", lp.seq, lp.prev, want-1, prev[:]))
			break
		}
		copy(prev[:], lp.hash)
		headSeq = lp.seq
		line++
		off += int64(nl) + 1
		data = data[nl+1:]
	}
	b.records = line - b.line
	b.head = Head{Seq: headSeq, Hash: string(prev[:])}
}

// lastHash returns the hash stored in the last line of data (complete
// lines), or false when that line is not a record.
func lastHash(data []byte) ([len(Genesis)]byte, bool) {
	var out [len(Genesis)]byte
	end := len(data) - 1
	start := bytes.LastIndexByte(data[:end], '\n') + 1
	lp := splitLine(data[start:end])
	if !lp.ok {
		return out, false
	}
	copy(out[:], lp.hash)
	return out, true
}

// blockVerifier verifies blocks on a pool of goroutines and combines
// their results in order.
type blockVerifier struct {
	work   chan *block
	order  chan *block
	wg     sync.WaitGroup
	rep    *Report
	prev   [len(Genesis)]byte // the hash stored in the last line queued
	line   int                // lines queued
	off    int64
	result chan struct{}
}

// newBlockVerifier starts the workers; add blocks in order, then call
// finish.
func newBlockVerifier() *blockVerifier {
	n := runtime.GOMAXPROCS(0)
	v := &blockVerifier{
		work:   make(chan *block, 2*n),
		order:  make(chan *block, 4*n),
		rep:    &Report{OK: true, Head: Head{Hash: Genesis}},
		result: make(chan struct{}),
	}
	copy(v.prev[:], Genesis)
	for k := 0; k < n; k++ {
		v.wg.Add(1)
		go func() {
			defer v.wg.Done()
			var h hasher
			for b := range v.work {
				b.verify(&h)
				close(b.done)
			}
		}()
	}
	go v.collect()
	return v
}

// collect takes the results in file order and stops at the first problem.
func (v *blockVerifier) collect() {
	defer close(v.result)
	for b := range v.order {
		<-b.done
		if !v.rep.OK {
			continue // drain
		}
		v.rep.Records += b.records
		if b.records > 0 {
			v.rep.Head = b.head
		}
		if b.problem != nil {
			v.rep.OK = false
			v.rep.Problem = b.problem
		}
	}
}

// add queues data, complete lines that follow those queued so far.
func (v *blockVerifier) add(data []byte) {
	for len(data) > 0 {
		n := len(data)
		if n > blockSize {
			n = bytes.IndexByte(data[blockSize-1:], '\n') + blockSize
		}
		b := &block{data: data[:n], line: v.line + 1, off: v.off, prevHash: v.prev, done: make(chan error)}
		v.line += bytes.Count(b.data, []byte{'\n'})
		v.off += int64(n)
		v.prev, _ = lastHash(b.data)
		v.work <- b
		v.order <- b
		data = data[n:]
	}
}

// finish waits for every block and returns the report.
func (v *blockVerifier) finish() *Report {
	close(v.work)
	close(v.order)
	<-v.result
	v.wg.Wait()
	return v.rep
}

// verifyReader verifies the lines of r. An incomplete last line is
// reported in TornBytes; a line longer than max is an error (unless an
// earlier line is bad).
func verifyReader(r io.Reader, max int) (*Report, error) {
	v := newBlockVerifier()
	var carry []byte
	var rerr error
	for {
		buf := make([]byte, len(carry), len(carry)+blockSize*4)
		copy(buf, carry)
		n, err := io.ReadFull(r, buf[len(carry):cap(buf)])
		buf = buf[:len(carry)+n]
		end := bytes.LastIndexByte(buf, '\n') + 1
		if tooLong(buf[:end], max) {
			rerr = fmt.Errorf("chain: a record is longer than %d bytes", max)
			v.add(buf[:firstLong(buf[:end], max)])
			break
		}
		v.add(buf[:end])
		carry = buf[end:]
		if len(carry) > max {
			rerr = fmt.Errorf("chain: a record is longer than %d bytes", max)
			break
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			rerr = err
			break
		}
	}
	rep := v.finish()
	if rerr != nil {
		if rep.OK {
			return nil, rerr
		}
		return rep, nil
	}
	if rep.OK {
		rep.TornBytes = int64(len(carry))
	}
	return rep, nil
}

// tooLong reports whether a line of data (complete lines) is longer than
// max bytes.
func tooLong(data []byte, max int) bool {
	return firstLong(data, max) < len(data)
}

// firstLong returns the offset of the first line of data longer than max,
// or len(data).
func firstLong(data []byte, max int) int {
	if len(data) <= max {
		return len(data)
	}
	off := 0
	for off < len(data) {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl > max {
			return off
		}
		off += nl + 1
	}
	return off
}

// Load reads every acknowledged record of the log into memory and calls
// fn with each one's seq and payload, in order, on the calling goroutine,
// while the chain is verified on other goroutines; verify waits for that
// verification and returns its report (the error is for I/O failures).
// Payloads stay valid (they are not reused) and must not be modified.
//
// fn sees records before they are verified: a caller must not trust them
// until verify reports the chain OK. Loading stops at the first line that
// is not in the shape of a record (verify reports it).
func (l *File) Load(fn func(seq uint64, payload []byte)) (verify func() (*Report, error), err error) {
	size, err := l.snapshot()
	if err != nil {
		return nil, err
	}
	max := l.opts.MaxRecordSize
	// The file is read in chunks of whole lines, each handed to the
	// verifier as soon as it is read: reading overlaps verifying.
	v := newBlockVerifier()
	chunks := make(chan []byte, int(size/loadChunk)+1)
	queued := make(chan struct{})
	go func() {
		defer close(queued)
		for c := range chunks {
			v.add(c)
		}
	}()
	var carry []byte
	loading := true
	for off := int64(0); off < size; {
		n := size - off
		if n > loadChunk {
			n = loadChunk
		}
		buf := make([]byte, len(carry)+int(n))
		copy(buf, carry)
		if _, err := l.f.ReadAt(buf[len(carry):], off); err != nil && err != io.EOF {
			close(chunks)
			<-queued
			v.finish()
			return nil, err
		}
		off += n
		end := bytes.LastIndexByte(buf, '\n') + 1
		if tooLong(buf[:end], max) || len(buf)-end > max {
			// A line over the limit: verify it the way VerifyFile
			// does, which reports it.
			close(chunks)
			<-queued
			v.finish()
			rep, err := verifyReader(io.NewSectionReader(l.f, 0, size), max)
			return func() (*Report, error) { return rep, err }, nil
		}
		data := buf[:end]
		carry = buf[end:]
		if len(data) == 0 {
			continue
		}
		chunks <- data
		for loading && len(data) > 0 {
			nl := bytes.IndexByte(data, '\n')
			lp := splitLine(data[:nl])
			if !lp.ok {
				loading = false
				break
			}
			fn(lp.seq, lp.payload)
			data = data[nl+1:]
		}
	}
	close(chunks)
	return func() (*Report, error) {
		<-queued
		return v.finish(), nil
	}, nil
}

// loadChunk is the size of the reads of Load (a variable for tests).
var loadChunk int64 = 4 << 20
