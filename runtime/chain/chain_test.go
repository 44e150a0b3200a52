package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCanonical(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{in: `{"b":1,"a":[true,false,null]}`, want: `{"a":[true,false,null],"b":1}`},
		{in: " { \"z\" : { \"y\" : 1.50 , \"x\" : -0 } } ", want: `{"z":{"x":-0,"y":1.50}}`},
		{in: `"a\u0041\n\u0001\u2028é\"\\/"`, want: "\"aA\\n\\u0001\u2028é\\\"\\\\/\""},
		{in: `{"é":1,"e":2,"E":3}`, want: `{"E":3,"e":2,"é":1}`},
		{in: `12345678901234567890123`, want: `12345678901234567890123`},
		{in: `[]`, want: `[]`},
		{in: `{}`, want: `{}`},
		{in: `{"a":1,"a":2}`, err: "given twice"},
		{in: `{"a":1} x`, err: "trailing"},
		{in: `{"a":}`, err: "invalid JSON"},
		{in: "\"\xff\"", err: "UTF-8"},
		{in: ``, err: "invalid JSON"},
	}
	for _, tt := range tests {
		got, err := Canonical([]byte(tt.in))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Canonical(%q) error = %v, want one containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("Canonical(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		again, err := Canonical(got)
		if err != nil || !bytes.Equal(again, got) {
			t.Errorf("Canonical is not idempotent on %q: %q, %v", got, again, err)
		}
	}
}

func TestHashIsDocumented(t *testing.T) {
	// The hash of a record is the SHA-256 of {"payload":P,"prev":"...","seq":N}.
	r := newRecord(Head{Hash: Genesis}, []byte(`{"k":"v"}`))
	in := `{"payload":{"k":"v"},"prev":"` + Genesis + `","seq":1}`
	if want := hashRecord(1, Genesis, []byte(`{"k":"v"}`)); r.Hash != want {
		t.Fatalf("hash %s, want %s", r.Hash, want)
	}
	if got := string(hashInput(1, Genesis, []byte(`{"k":"v"}`))); got != in {
		t.Fatalf("hash input %s, want %s", got, in)
	}
	sum := sha256.Sum256([]byte(in))
	if r.Hash != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Fatalf("hash %s is not the SHA-256 of %s", r.Hash, in)
	}
	var b bytes.Buffer
	encodeLine(&b, &r)
	want := `{"hash":"` + r.Hash + `","payload":{"k":"v"},"prev":"` + Genesis + `","seq":1}` + "\n"
	if b.String() != want {
		t.Fatalf("line %q, want %q", b.String(), want)
	}
}

func openTemp(t testing.TB, opts Options) (*File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log", "ledger.jsonl")
	l, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	return l, path
}

func payload(i int) []byte { return []byte(fmt.Sprintf(`{"i":%d,"note":"record %d"}`, i, i)) }

func fill(t testing.TB, l Log, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := l.Append(payload(i)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBackends runs the interface contract on both backends.
func TestBackends(t *testing.T) {
	backends := map[string]func(t *testing.T) Log{
		"file":   func(t *testing.T) Log { l, _ := openTemp(t, Options{}); return l },
		"memory": func(t *testing.T) Log { return NewMemory() },
	}
	for name, mk := range backends {
		t.Run(name, func(t *testing.T) {
			l := mk(t)
			if h := l.Head(); h.Seq != 0 || h.Hash != Genesis {
				t.Fatalf("empty head %+v", h)
			}
			r1, err := l.Append([]byte(` {"b": 2, "a": 1} `))
			if err != nil {
				t.Fatal(err)
			}
			if r1.Seq != 1 || r1.Prev != Genesis || string(r1.Payload) != `{"a":1,"b":2}` {
				t.Fatalf("first record %+v", r1)
			}
			rs, err := l.AppendBatch([][]byte{payload(1), payload(2)})
			if err != nil {
				t.Fatal(err)
			}
			if rs[0].Seq != 2 || rs[0].Prev != r1.Hash || rs[1].Seq != 3 || rs[1].Prev != rs[0].Hash {
				t.Fatalf("batch %+v", rs)
			}
			if _, err := l.Append([]byte(`{bad`)); err == nil {
				t.Fatal("invalid JSON accepted")
			}
			all, err := l.Records()
			if err != nil || len(all) != 3 {
				t.Fatalf("records %d, %v", len(all), err)
			}
			if h := l.Head(); h.Seq != 3 || h.Hash != rs[1].Hash {
				t.Fatalf("head %+v", h)
			}
			rep, err := l.Verify()
			if err != nil || !rep.OK || rep.Records != 3 || rep.Head != l.Head() {
				t.Fatalf("verify %+v, %v", rep, err)
			}
			stop := errors.New("stop")
			n := 0
			if err := l.Iterate(func(Record) error { n++; return stop }); err != stop || n != 1 {
				t.Fatalf("iterate stop: %v after %d", err, n)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := l.Append(payload(9)); !errors.Is(err, ErrClosed) {
				t.Fatalf("append after close: %v", err)
			}
		})
	}
}

func TestReopenContinuesChain(t *testing.T) {
	l, path := openTemp(t, Options{})
	fill(t, l, 5)
	head := l.Head()
	l.Close()
	l2, err := Open(path, Options{VerifyOnOpen: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Close()
	if l2.Head() != head {
		t.Fatalf("head after reopen %+v, want %+v", l2.Head(), head)
	}
	r, err := l2.Append(payload(5))
	if err != nil || r.Seq != 6 || r.Prev != head.Hash {
		t.Fatalf("append after reopen %+v, %v", r, err)
	}
	rep, _ := VerifyFile(path)
	if !rep.OK || rep.Records != 6 {
		t.Fatalf("verify %+v", rep)
	}
}

// writeLog builds a valid log of n records and returns its lines.
func writeLog(t *testing.T, n int) (string, [][]byte) {
	t.Helper()
	l, path := openTemp(t, Options{Sync: SyncNever})
	fill(t, l, n)
	l.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	return path, lines[:len(lines)-1]
}

func TestTamper(t *testing.T) {
	const n = 6
	swap := func(ls [][]byte, i, j int) [][]byte {
		out := append([][]byte(nil), ls...)
		out[i], out[j] = out[j], out[i]
		return out
	}
	drop := func(ls [][]byte, i int) [][]byte {
		return append(append([][]byte(nil), ls[:i]...), ls[i+1:]...)
	}
	insert := func(ls [][]byte, i int, l []byte) [][]byte {
		out := append([][]byte(nil), ls[:i]...)
		return append(append(out, l), ls[i:]...)
	}
	edit := func(ls [][]byte, i int, from, to string) [][]byte {
		out := append([][]byte(nil), ls...)
		out[i] = bytes.Replace(out[i], []byte(from), []byte(to), 1)
		return out
	}
	tests := []struct {
		name     string
		mutate   func(ls [][]byte) [][]byte
		line     int
		kind     string
		contains string
	}{
		{"payload changed", func(ls [][]byte) [][]byte { return edit(ls, 2, `"i":2`, `"i":7`) }, 3, ProblemHash, "altered"},
		{"hash changed", func(ls [][]byte) [][]byte { return edit(ls, 3, `{"hash":"sha256:`, `{"hash":"sha256:0`) }, 4, ProblemHash, "hash does not match"},
		{"dropped", func(ls [][]byte) [][]byte { return drop(ls, 2) }, 3, ProblemSeq, "expected 3"},
		{"dropped first", func(ls [][]byte) [][]byte { return drop(ls, 0) }, 1, ProblemSeq, "expected 1"},
		{"reordered", func(ls [][]byte) [][]byte { return swap(ls, 3, 4) }, 4, ProblemSeq, "seq 5, expected 4"},
		{"inserted copy", func(ls [][]byte) [][]byte { return insert(ls, 2, ls[1]) }, 3, ProblemSeq, "seq 2, expected 3"},
		{"inserted forged", func(ls [][]byte) [][]byte {
			// A well-formed record with a correct own hash but the wrong prev.
			r := newRecord(Head{Seq: 2, Hash: Genesis}, []byte(`{"forged":true}`))
			var b bytes.Buffer
			encodeLine(&b, &r)
			return insert(ls, 2, b.Bytes())
		}, 3, ProblemPrev, "chain is broken"},
		{"whitespace added", func(ls [][]byte) [][]byte { return edit(ls, 1, `,"prev"`, `, "prev"`) }, 2, ProblemNonCanonical, "canonical"},
		{"duplicate key", func(ls [][]byte) [][]byte { return edit(ls, 1, `"i":1`, `"i":1,"i":1`) }, 2, ProblemHash, "altered"},
		{"unknown field", func(ls [][]byte) [][]byte { return edit(ls, 1, `{"hash"`, `{"x":1,"hash"`) }, 2, ProblemMalformed, "unknown field"},
		{"blank line", func(ls [][]byte) [][]byte { return insert(ls, 1, []byte("\n")) }, 2, ProblemMalformed, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, lines := writeLog(t, n)
			os.WriteFile(path, bytes.Join(tt.mutate(lines), nil), 0o644)
			rep, err := VerifyFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK || rep.Problem == nil {
				t.Fatalf("tampering not detected: %+v", rep)
			}
			if rep.Problem.Line != tt.line || rep.Problem.Kind != tt.kind || !strings.Contains(rep.Problem.Reason, tt.contains) {
				t.Fatalf("problem %+v, want line %d kind %s containing %q", rep.Problem, tt.line, tt.kind, tt.contains)
			}
			if rep.Records != tt.line-1 {
				t.Fatalf("records verified %d, want %d", rep.Records, tt.line-1)
			}
		})
	}
}

// TestFlipEveryByte flips each byte of a small log in turn: every flip is
// detected at the record that holds it (or, for a newline, at the first
// record it merges or splits).
func TestFlipEveryByte(t *testing.T) {
	path, lines := writeLog(t, 3)
	data := bytes.Join(lines, nil)
	lineOf := make([]int, len(data))
	off := 0
	for i, l := range lines {
		for range l {
			lineOf[off] = i + 1
			off++
		}
	}
	for i := range data {
		for _, flip := range []byte{0x01, 0x20, 0x80} {
			mut := append([]byte(nil), data...)
			mut[i] ^= flip
			os.WriteFile(path, mut, 0o644)
			rep, err := VerifyFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if data[i] == '\n' && i == len(data)-1 {
				// The final newline gone: the last record is an incomplete
				// line, so it is torn, not tampered; Open would remove it.
				if !rep.OK || rep.TornBytes == 0 || rep.Records != 2 {
					t.Fatalf("flip of the final newline: %+v", rep)
				}
				continue
			}
			if rep.OK {
				t.Fatalf("flip 0x%02x at byte %d (%q) not detected", flip, i, data[max(0, i-10):min(len(data), i+10)])
			}
			if rep.Problem.Line != lineOf[i] {
				t.Fatalf("flip at byte %d (line %d) reported at line %d: %v", i, lineOf[i], rep.Problem.Line, rep.Problem)
			}
		}
	}
}

func TestTornTailRecovered(t *testing.T) {
	l, path := openTemp(t, Options{})
	fill(t, l, 3)
	head := l.Head()
	l.Close()
	good, _ := os.ReadFile(path)
	for _, tail := range []string{`{"hash":"sha256:12`, "\x00\x00\x00\x00", `{"hash":"x","payload":{},"prev":"y","seq":4}`} {
		os.WriteFile(path, append(append([]byte(nil), good...), tail...), 0o644)
		rep, err := VerifyFile(path)
		if err != nil || !rep.OK || rep.TornBytes != int64(len(tail)) {
			t.Fatalf("verify with torn tail %q: %+v %v", tail, rep, err)
		}
		l, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("open with torn tail %q: %v", tail, err)
		}
		if l.Recovered() != int64(len(tail)) || l.Head() != head {
			t.Fatalf("recovered %d head %+v", l.Recovered(), l.Head())
		}
		r, err := l.Append(payload(3))
		if err != nil || r.Seq != 4 {
			t.Fatal(r, err)
		}
		l.Close()
		if rep, _ := VerifyFile(path); !rep.OK || rep.Records != 4 || rep.TornBytes != 0 {
			t.Fatalf("after recovery: %+v", rep)
		}
	}
}

func TestCorruptLastRecordRefused(t *testing.T) {
	path, lines := writeLog(t, 3)
	lines[2] = bytes.Replace(lines[2], []byte(`"i":2`), []byte(`"i":9`), 1)
	os.WriteFile(path, bytes.Join(lines, nil), 0o644)
	_, err := Open(path, Options{})
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Problem.Kind != ProblemHash {
		t.Fatalf("open of a corrupt log: %v", err)
	}
	// A corrupt middle record passes the cheap open but not VerifyOnOpen.
	path, lines = writeLog(t, 3)
	lines[1] = bytes.Replace(lines[1], []byte(`"i":1`), []byte(`"i":9`), 1)
	os.WriteFile(path, bytes.Join(lines, nil), 0o644)
	if _, err := Open(path, Options{VerifyOnOpen: true}); !errors.As(err, &ce) || ce.Problem.Line != 2 {
		t.Fatalf("VerifyOnOpen: %v", err)
	}
}

func TestLock(t *testing.T) {
	l, path := openTemp(t, Options{})
	if _, err := Open(path, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second open: %v, want ErrLocked", err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		l.Close()
	}()
	l2, err := Open(path, Options{LockTimeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("open with a timeout after the first closed: %v", err)
	}
	l2.Close()
}

func TestConcurrentAppends(t *testing.T) {
	for _, ng := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoGroupCommit=%v", ng), func(t *testing.T) {
			l, path := openTemp(t, Options{NoGroupCommit: ng})
			var batches atomic.Int64
			testHookBeforeWrite = func(*File, []byte, int64) { batches.Add(1) }
			defer func() { testHookBeforeWrite = nil }()
			const workers, each = 16, 25
			var wg sync.WaitGroup
			seqs := make(chan uint64, workers*each*2)
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					for i := 0; i < each; i++ {
						if i%5 == 4 {
							rs, err := l.AppendBatch([][]byte{payload(w*1000 + i), payload(w*1000 + i + 500)})
							if err != nil {
								t.Error(err)
								return
							}
							seqs <- rs[0].Seq
							seqs <- rs[1].Seq
							if rs[1].Seq != rs[0].Seq+1 {
								t.Errorf("batch not contiguous: %d, %d", rs[0].Seq, rs[1].Seq)
							}
							continue
						}
						r, err := l.Append(payload(w*1000 + i))
						if err != nil {
							t.Error(err)
							return
						}
						seqs <- r.Seq
					}
				}(w)
			}
			// Readers run alongside the writers.
			done := make(chan bool)
			go func() {
				defer close(done)
				for i := 0; i < 20; i++ {
					if rep, err := l.Verify(); err != nil || !rep.OK {
						t.Errorf("verify during appends: %+v %v", rep, err)
					}
				}
			}()
			wg.Wait()
			<-done
			close(seqs)
			seen := map[uint64]bool{}
			for s := range seqs {
				if seen[s] {
					t.Fatalf("seq %d given twice", s)
				}
				seen[s] = true
			}
			total := workers * (each + each/5)
			if len(seen) != total || l.Head().Seq != uint64(total) {
				t.Fatalf("%d records, head %d, want %d", len(seen), l.Head().Seq, total)
			}
			l.Close()
			rep, _ := VerifyFile(path)
			if !rep.OK || rep.Records != total {
				t.Fatalf("verify: %+v", rep)
			}
			t.Logf("%d records in %d writes", total, batches.Load())
			if ng && batches.Load() != int64(workers*each) {
				t.Fatalf("without group commit: %d writes for %d appends", batches.Load(), workers*each)
			}
		})
	}
}

func TestReadFile(t *testing.T) {
	l, path := openTemp(t, Options{})
	fill(t, l, 4)
	rs, err := ReadFile(path)
	if err != nil || len(rs) != 4 || rs[3].Seq != 4 {
		t.Fatalf("ReadFile: %d records, %v", len(rs), err)
	}
	var p struct{ I int }
	json.Unmarshal(rs[2].Payload, &p)
	if p.I != 2 {
		t.Fatalf("payload %s", rs[2].Payload)
	}
	l.Close()
	if rs, err := ReadFile(filepath.Join(t.TempDir(), "none.jsonl")); err != nil || rs != nil {
		t.Fatalf("missing file: %v %v", rs, err)
	}
}

func TestLargeRecord(t *testing.T) {
	l, path := openTemp(t, Options{})
	big := `{"blob":"` + strings.Repeat("x", 300<<10) + `"}`
	if _, err := l.Append([]byte(big)); err != nil {
		t.Fatal(err)
	}
	fill(t, l, 2)
	l.Close()
	if rep, err := VerifyFile(path); err != nil || !rep.OK || rep.Records != 3 {
		t.Fatalf("%+v %v", rep, err)
	}
	l, err := Open(path, Options{VerifyOnOpen: true, MaxRecordSize: 1 << 10})
	if err == nil {
		l.Close()
		t.Fatal("record over MaxRecordSize accepted on verify")
	}
}

func TestRandomTruncation(t *testing.T) {
	// Cutting the file anywhere leaves a log that opens, verifies and keeps
	// every record whose line is complete.
	path, lines := writeLog(t, 5)
	data := bytes.Join(lines, nil)
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 40; k++ {
		cut := rng.Intn(len(data) + 1)
		os.WriteFile(path, data[:cut], 0o644)
		complete := bytes.Count(data[:cut], []byte("\n"))
		l, err := Open(path, Options{})
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if int(l.Head().Seq) != complete {
			t.Fatalf("cut at %d: head %d, want %d", cut, l.Head().Seq, complete)
		}
		l.Close()
	}
}

// TestRecordsDoNotAlias: records read back keep their own payloads (they
// once pointed into a reused read buffer).
func TestRecordsDoNotAlias(t *testing.T) {
	l, path := openTemp(t, Options{Sync: SyncNever})
	for i := 0; i < 2000; i++ {
		if _, err := l.Append(payload(i)); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := l.Records()
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	fromFile, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range [][]Record{rs, fromFile} {
		for i, r := range set {
			var p struct{ I int }
			if err := json.Unmarshal(r.Payload, &p); err != nil || p.I != i {
				t.Fatalf("record %d payload %s: %v", i+1, r.Payload, err)
			}
		}
	}
}

func TestPlainRun(t *testing.T) {
	for _, s := range []string{"", "abc", "abcdefgh\"", "abcdefghijklmnop", "ab\\cdefghij", "abcdefghijk\x1f", "é\x00", "\x7f\x80\xff\"", "0123456789abcdef\"0123"} {
		for k := 0; k <= len(s); k++ { // every alignment
			sub := s[k:]
			want := 0
			for want < len(sub) && sub[want] >= 0x20 && sub[want] != '"' && sub[want] != '\\' {
				want++
			}
			if got := plainRun([]byte(sub)); got != want {
				t.Errorf("plainRun(%q) = %d, want %d", sub, got, want)
			}
		}
	}
}

// TestIsCanonical: the fast path answers true exactly for inputs that the
// canonicalizer leaves unchanged (or, for a few canonical inputs, false).
func TestIsCanonical(t *testing.T) {
	tests := []struct {
		in   string
		fast bool // whether the fast path must accept it
	}{
		{`{"a":[true,false,null],"b":1}`, true},
		{`{"b":1,"a":2}`, false},
		{`{"a":1,"a":2}`, false},
		{`{"a":1,"b":{"c":[1,2.50,-0e+3,{}]}}`, true},
		{`{"a" :1}`, false},
		{` 1`, false},
		{`"\u0001\b\t\n\f\r\"\\"`, true},
		{`"\u0008"`, false},
		{`"\u001F"`, false},
		{`"\u0041"`, false},
		{`"\/"`, false},
		{`"é😀"`, true},
		{"\"\x01\"", false},
		{"\"\xff\"", false},
		{`01`, false},
		{`-`, false},
		{`1.`, false},
		{`1e`, false},
		{`[1,]`, false},
		{`{"a\n":1}`, false}, // canonical, but keys with escapes take the slow path
		{`{"E":3,"e":2,"é":1}`, true},
		{`{"é":1,"e":2}`, false},
		{`tru`, false},
		{`nulll`, false},
		{`{}`, true},
		{`[]`, true},
		{``, false},
	}
	for _, tt := range tests {
		got := isCanonical([]byte(tt.in))
		if got != tt.fast {
			t.Errorf("isCanonical(%q) = %v, want %v", tt.in, got, tt.fast)
		}
		if got {
			c, err := canonicalSlow([]byte(tt.in))
			if err != nil || string(c) != tt.in {
				t.Errorf("isCanonical(%q) but the canonical form is %q, %v", tt.in, c, err)
			}
		}
	}
}

// TestVerifyAcrossBlocks: a log larger than one verification block is
// verified in parallel blocks; a problem anywhere is reported at its line,
// with the records before it, the same by VerifyFile and by Load.
func TestVerifyAcrossBlocks(t *testing.T) {
	l, path := openTemp(t, Options{Sync: SyncNever})
	batch := make([][]byte, 100)
	for k := 0; k < 40; k++ {
		for i := range batch {
			batch[i] = []byte(fmt.Sprintf(`{"i":%d,"pad":%q}`, k*100+i, strings.Repeat("x", 150)))
		}
		if _, err := l.AppendBatch(batch); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) < 3*blockSize {
		t.Fatalf("only %d bytes", len(data))
	}
	rng := rand.New(rand.NewSource(2))
	for k := 0; k < 30; k++ {
		i := rng.Intn(len(data) - 1)
		mut := append([]byte(nil), data...)
		mut[i] ^= 0x01
		os.WriteFile(path, mut, 0o644)
		line := bytes.Count(data[:i], []byte("\n")) + 1
		rep, err := VerifyFile(path)
		if err != nil || rep.OK || rep.Problem.Line != line || rep.Records != line-1 || rep.Head.Seq != uint64(line-1) {
			t.Fatalf("flip at %d (line %d): %+v %+v %v", i, line, rep, rep.Problem, err)
		}
		if line == 4000 {
			continue // the last record is checked on open
		}
		// Load reads in chunks: of the default size, smaller than a
		// block, and smaller than a line.
		for _, chunk := range []int64{loadChunk, 10000, 100} {
			lrep, n := loadChunked(t, path, chunk, nil)
			if lrep.OK || *lrep.Problem != *rep.Problem || lrep.Records != rep.Records || lrep.Head != rep.Head {
				t.Fatalf("Load in chunks of %d: %+v, VerifyFile: %+v", chunk, lrep, rep)
			}
			if n < line-1 {
				t.Fatalf("Load in chunks of %d gave %d records before line %d", chunk, n, line)
			}
		}
	}
	os.WriteFile(path, data, 0o644)
	rep, err := VerifyFile(path)
	if err != nil || !rep.OK || rep.Records != 4000 {
		t.Fatalf("%+v %v", rep, err)
	}
	recs, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []int64{loadChunk, 10000, 100} {
		lrep, n := loadChunked(t, path, chunk, recs)
		if !lrep.OK || lrep.Records != 4000 || lrep.Head != rep.Head || n != 4000 {
			t.Fatalf("Load in chunks of %d: %d records, %+v", chunk, n, lrep)
		}
	}
}

// loadChunked loads the log at path reading chunks of the given size and
// returns the report and the number of records loaded, which must be
// those of want (when given).
func loadChunked(t *testing.T, path string, chunk int64, want []Record) (*Report, int) {
	t.Helper()
	defer func(c int64) { loadChunk = c }(loadChunk)
	loadChunk = chunk
	f, err := Open(path, Options{Sync: SyncNever})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	verify, err := f.Load(func(seq uint64, p []byte) {
		if want != nil && (want[n].Seq != seq || !bytes.Equal(want[n].Payload, p)) {
			t.Errorf("chunks of %d: record %d: seq %d, payload %s", chunk, n+1, seq, p)
		}
		n++
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify()
	if err != nil {
		t.Fatal(err)
	}
	return rep, n
}

func TestIsLowerHex64(t *testing.T) {
	valid := []byte(strings.Repeat("0123456789abcdef", 4))
	if !isLowerHex64(valid) || !isHash([]byte(Genesis)) {
		t.Fatal("valid hex refused")
	}
	// Every byte value at every position.
	for pos := 0; pos < 64; pos++ {
		for c := 0; c < 256; c++ {
			b := bytes.Clone(valid)
			b[pos] = byte(c)
			want := c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
			if got := isLowerHex64(b); got != want {
				t.Fatalf("byte %#x at %d: %v, want %v", c, pos, got, want)
			}
		}
	}
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{Genesis, true},
		{"sha256:" + strings.Repeat("f", 64), true},
		{"sha256:" + strings.Repeat("F", 64), false},
		{"sha256:" + strings.Repeat("0", 63), false},
		{"sha512:" + strings.Repeat("0", 64), false},
		{"sha256:" + strings.Repeat("\xff", 64), false},
		{"sha256:" + strings.Repeat("\x80", 32) + strings.Repeat("0", 32), false},
	} {
		if got := isHash([]byte(tc.in)); got != tc.want {
			t.Errorf("isHash(%q) = %v", tc.in, got)
		}
	}
}

// TestWriteCanonical: WriteCanonical writes the same bytes as
// WriteBatch, continues the chain from either, and lets the caller reuse
// the payloads' memory.
func TestWriteCanonical(t *testing.T) {
	a, pa := openTemp(t, Options{Sync: SyncNever})
	b, pb := openTemp(t, Options{Sync: SyncNever})
	scratch := make([]byte, 0, 64)
	for k := 0; k < 50; k++ {
		ps := [][]byte{payload(k), []byte(`{"a":"\u0001é","b":[1,2.5,{}]}`)}
		if _, err := a.WriteBatch(ps); err != nil {
			t.Fatal(err)
		}
		if k%3 == 0 {
			if _, err := b.AppendBatch(ps); err != nil {
				t.Fatal(err)
			}
			continue
		}
		// Payloads in a buffer the caller overwrites after the call.
		scratch = append(scratch[:0], payload(k)...)
		if err := b.WriteCanonical([][]byte{scratch, ps[1]}); err != nil {
			t.Fatal(err)
		}
		for i := range scratch {
			scratch[i] = 'x'
		}
	}
	if ha, hb := a.Head(), b.Head(); ha != hb {
		t.Fatalf("heads differ: %+v %+v", ha, hb)
	}
	a.Close()
	b.Close()
	da, _ := os.ReadFile(pa)
	db, _ := os.ReadFile(pb)
	if !bytes.Equal(da, db) {
		t.Fatal("WriteCanonical wrote other bytes than WriteBatch")
	}
	if rep, err := VerifyFile(pb); err != nil || !rep.OK || rep.Records != 100 {
		t.Fatalf("%+v %v", rep, err)
	}
}

// TestWriteBatchThenSync: written records are visible at once and
// continue the chain; Sync makes them durable.
func TestWriteBatchThenSync(t *testing.T) {
	l, path := openTemp(t, Options{})
	if _, err := l.WriteBatch([][]byte{payload(0), payload(1)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(payload(2)); err != nil {
		t.Fatal(err)
	}
	if _, err := l.WriteBatch([][]byte{payload(3)}); err != nil {
		t.Fatal(err)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if err := l.Sync(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Sync after Close: %v", err)
	}
	rep, err := VerifyFile(path)
	if err != nil || !rep.OK || rep.Records != 4 {
		t.Fatalf("%+v %v", rep, err)
	}
}
