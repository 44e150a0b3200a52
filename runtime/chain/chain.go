// Package chain is an append-only, hash-chained log of JSON records: the
// storage under Capsulang's ledgers (the workspace evolution ledger, the
// machine-runtime ledger). Its on-disk format, hashing, durability and
// recovery rules are a public contract, documented in docs/ledger.md.
//
// Each record holds a sequence number (1, 2, 3, ...), the hash of the
// record before it (Genesis for the first), a JSON payload, and its own
// hash: the SHA-256 of the canonical JSON of the record without its hash.
// Changing, dropping, reordering or inserting a record breaks the chain at
// that record, and Verify names the first bad one.
//
// The file backend (Open) stores one record per line (JSON Lines). It
// guarantees:
//
//   - durability: Append returns only after the record's bytes are written
//     and fsynced (with SyncAlways, the default), so an acknowledged record
//     survives a crash of the process or the machine;
//   - group commit: concurrent appenders share one write and one fsync
//     (the first waiting appender writes everything queued so far), and
//     AppendBatch writes many records with one fsync;
//   - crash recovery: a torn last line (the process died in the middle of
//     a write) is detected by Open and truncated away; it was never
//     acknowledged;
//   - exclusion: a writer holds an exclusive flock on the file, so two
//     processes (or two Logs in one process) never append at once.
//
// Readers that must not take the lock (a verifier running next to a
// long-lived writer) use VerifyFile and ReadFile, which ignore an
// incomplete last line.
//
// Log is the interface a second backend implements; NewMemory is a small
// in-memory one.
package chain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// Genesis is the prev hash of the first record.
const Genesis = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// Record is one entry of a log.
type Record struct {
	// Seq is the record's position: 1 for the first record.
	Seq uint64 `json:"seq"`
	// Prev is the Hash of the record before, or Genesis.
	Prev string `json:"prev"`
	// Hash is "sha256:" and the lowercase hex SHA-256 of the canonical
	// JSON of {"payload", "prev", "seq"}.
	Hash string `json:"hash"`
	// Payload is the record's canonical JSON value.
	Payload json.RawMessage `json:"payload"`
}

// Head identifies the last record of a log; the zero Head (with Hash
// Genesis) is an empty log's. Keeping a copy of the head elsewhere (an
// anchor) lets a verifier also detect records cut from the end, which the
// chain alone cannot.
type Head struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
}

// Log is an append-only hash-chained log.
type Log interface {
	// Append adds one record whose payload is the JSON value p (stored in
	// canonical form) and returns it once it is durable.
	Append(p []byte) (Record, error)
	// AppendBatch adds records for every payload, in order, atomically
	// with respect to other appenders, with one durability barrier.
	AppendBatch(ps [][]byte) ([]Record, error)
	// Iterate calls fn for each acknowledged record in order; a non-nil
	// error from fn stops it and is returned.
	Iterate(fn func(Record) error) error
	// Records returns every acknowledged record.
	Records() ([]Record, error)
	// Head returns the last acknowledged record's position.
	Head() Head
	// Verify checks the whole chain. The error is for I/O failures only;
	// a broken chain is reported in the Report.
	Verify() (*Report, error)
	// Close releases the log; later calls fail with ErrClosed.
	Close() error
}

// Errors.
var (
	ErrClosed = errors.New("chain: log is closed")
	ErrLocked = errors.New("chain: log is locked by another writer")
)

// Report is the result of verifying a log.
type Report struct {
	// OK is true when every complete record verifies.
	OK bool `json:"ok"`
	// Records counts the records that verified (all of them when OK).
	Records int `json:"records"`
	// Head is the last record that verified.
	Head Head `json:"head"`
	// TornBytes is the size of an incomplete last line (a write in
	// progress, or one torn by a crash: the next Open removes it). It does
	// not make the log bad.
	TornBytes int64 `json:"torn_bytes,omitempty"`
	// Problem is the first bad record, when !OK.
	Problem *Problem `json:"problem,omitempty"`
}

// Problem describes the first record that does not verify.
type Problem struct {
	Line   int    `json:"line"`   // 1-based line in the file
	Offset int64  `json:"offset"` // byte offset of the line
	Kind   string `json:"kind"`   // one of the Problem kinds below
	Reason string `json:"reason"`
}

// Problem kinds.
const (
	ProblemMalformed    = "malformed"     // not a record: bad JSON, missing or unknown fields
	ProblemNonCanonical = "non-canonical" // a record, but not byte-for-byte in canonical form
	ProblemSeq          = "seq"           // wrong sequence number: a record dropped, reordered or inserted
	ProblemPrev         = "prev"          // prev is not the previous record's hash
	ProblemHash         = "hash"          // the hash does not match the content: altered
)

// Error returns the problem as an error message.
func (p *Problem) Error() string {
	return fmt.Sprintf("line %d: %s", p.Line, p.Reason)
}

// CorruptError is returned by Open when the last complete record does not
// verify: the file was altered or damaged, which recovery must not hide.
type CorruptError struct {
	Path    string
	Problem *Problem
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("chain: %s: %s", e.Path, e.Problem.Error())
}

// hashRecord computes a record's hash from its parts (payload canonical).
func hashRecord(seq uint64, prev string, payload []byte) string {
	h := sha256.New()
	h.Write(hashInput(seq, prev, payload))
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// hashInput is the canonical JSON of the record without its hash:
// {"payload":P,"prev":"...","seq":N}.
func hashInput(seq uint64, prev string, payload []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(payload) + len(prev) + 48)
	b.WriteString(`{"payload":`)
	b.Write(payload)
	b.WriteString(`,"prev":`)
	writeString(&b, prev)
	b.WriteString(`,"seq":`)
	b.WriteString(strconv.FormatUint(seq, 10))
	b.WriteByte('}')
	return b.Bytes()
}

// encodeLine writes the record's line (canonical JSON of the whole record,
// then "\n") to b.
func encodeLine(b *bytes.Buffer, r *Record) {
	b.WriteString(`{"hash":`)
	writeString(b, r.Hash)
	b.WriteString(`,"payload":`)
	b.Write(r.Payload)
	b.WriteString(`,"prev":`)
	writeString(b, r.Prev)
	b.WriteString(`,"seq":`)
	b.WriteString(strconv.FormatUint(r.Seq, 10))
	b.WriteString("}\n")
}

// newRecord builds the record following head with a canonical payload.
func newRecord(head Head, payload []byte) Record {
	seq := head.Seq + 1
	prev := head.Hash
	if prev == "" {
		prev = Genesis
	}
	return Record{Seq: seq, Prev: prev, Hash: hashRecord(seq, prev, payload), Payload: payload}
}

type rawRecord struct {
	Seq     json.Number     `json:"seq"`
	Prev    *string         `json:"prev"`
	Hash    *string         `json:"hash"`
	Payload json.RawMessage `json:"payload"`
}

// parseLine decodes one line (without its "\n") into a record, checking
// its form and its own hash but not its place in the chain. It returns a
// problem kind and reason for a bad line.
func parseLine(line []byte) (Record, string, string) {
	if r, ok := fastParse(line); ok {
		if want := "sha256:" + hexSum(line[len(linePrefix)+len(Genesis)+2:], true); want != r.Hash {
			return r, ProblemHash, fmt.Sprintf("record %d: hash does not match its content (altered): stored %s, computed %s", r.Seq, r.Hash, want)
		}
		if !json.Valid(r.Payload) {
			return r, ProblemMalformed, fmt.Sprintf("record %d: payload is not valid JSON", r.Seq)
		}
		return r, "", ""
	}
	return slowParse(line)
}

const linePrefix = `{"hash":"`

// fastParse splits a line of the exact canonical shape
//
//	{"hash":"sha256:H","payload":P,"prev":"sha256:R","seq":N}
//
// without decoding the payload.
func fastParse(line []byte) (Record, bool) {
	const hashLen = len(Genesis) // "sha256:" + 64 hex
	rest, ok := bytes.CutPrefix(line, []byte(linePrefix))
	if !ok || len(rest) < hashLen+2 || !isHash(rest[:hashLen]) {
		return Record{}, false
	}
	hash := string(rest[:hashLen])
	rest, ok = bytes.CutPrefix(rest[hashLen:], []byte(`","payload":`))
	if !ok || len(rest) == 0 || rest[len(rest)-1] != '}' {
		return Record{}, false
	}
	// Digits of seq, backwards from the final '}'.
	j := len(rest) - 1
	for j > 0 && rest[j-1] >= '0' && rest[j-1] <= '9' {
		j--
	}
	digits := rest[j : len(rest)-1]
	if len(digits) == 0 || len(digits) > 20 || digits[0] == '0' {
		return Record{}, false
	}
	seq, err := strconv.ParseUint(string(digits), 10, 64)
	if err != nil {
		return Record{}, false
	}
	const prevKey, seqKey = `,"prev":"`, `","seq":`
	k := j - len(seqKey) - hashLen - len(prevKey)
	if k < 1 || string(rest[j-len(seqKey):j]) != seqKey || string(rest[k:k+len(prevKey)]) != prevKey {
		return Record{}, false
	}
	prev := rest[k+len(prevKey) : j-len(seqKey)]
	if !isHash(prev) {
		return Record{}, false
	}
	return Record{Seq: seq, Prev: string(prev), Hash: hash, Payload: rest[:k]}, true
}

func isHash(b []byte) bool {
	if len(b) != len(Genesis) || string(b[:7]) != "sha256:" {
		return false
	}
	for _, c := range b[7:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// hexSum returns the hex SHA-256 of "{" + rest when brace is set, else of
// rest. (The hash input is the line without its leading hash member.)
func hexSum(rest []byte, brace bool) string {
	h := sha256.New()
	if brace {
		h.Write([]byte{'{'})
	}
	h.Write(rest)
	return hex.EncodeToString(h.Sum(nil))
}

// slowParse decodes a line that is not in the exact canonical shape, to
// say what is wrong with it.
func slowParse(line []byte) (Record, string, string) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	var raw rawRecord
	if err := dec.Decode(&raw); err != nil {
		return Record{}, ProblemMalformed, "not a record: " + err.Error()
	}
	if dec.More() {
		return Record{}, ProblemMalformed, "not a record: data after the JSON object"
	}
	if raw.Prev == nil || raw.Hash == nil || raw.Payload == nil || raw.Seq == "" {
		return Record{}, ProblemMalformed, "not a record: seq, prev, hash and payload are required"
	}
	seq, err := strconv.ParseUint(string(raw.Seq), 10, 64)
	if err != nil || seq == 0 {
		return Record{}, ProblemMalformed, fmt.Sprintf("not a record: seq %s is not a positive integer", raw.Seq)
	}
	payload, err := Canonical(raw.Payload)
	if err != nil {
		return Record{}, ProblemMalformed, "payload: " + err.Error()
	}
	r := Record{Seq: seq, Prev: *raw.Prev, Hash: *raw.Hash, Payload: payload}
	if want := hashRecord(seq, r.Prev, payload); want != r.Hash {
		return r, ProblemHash, fmt.Sprintf("record %d: hash does not match its content (altered): stored %s, computed %s", seq, r.Hash, want)
	}
	return r, ProblemNonCanonical, fmt.Sprintf("record %d is not in canonical form (altered)", seq)
}

// verifier checks records one line at a time.
type verifier struct {
	rep  Report
	line int
	off  int64
}

func newVerifier() *verifier {
	return &verifier{rep: Report{OK: true, Head: Head{Hash: Genesis}}}
}

// add checks one complete line; it returns false at the first problem.
func (v *verifier) add(line []byte) (Record, bool) {
	v.line++
	off := v.off
	v.off += int64(len(line)) + 1
	fail := func(kind, reason string) (Record, bool) {
		v.rep.OK = false
		v.rep.Problem = &Problem{Line: v.line, Offset: off, Kind: kind, Reason: reason}
		return Record{}, false
	}
	r, kind, reason := parseLine(line)
	if kind != "" {
		return fail(kind, reason)
	}
	want := v.rep.Head.Seq + 1
	if r.Seq != want {
		what := "a record is missing before it or the records are out of order"
		if r.Seq < want {
			what = "it repeats or goes back: a record was inserted or reordered"
		}
		return fail(ProblemSeq, fmt.Sprintf("record has seq %d, expected %d: %s", r.Seq, want, what))
	}
	if r.Prev != v.rep.Head.Hash {
		return fail(ProblemPrev, fmt.Sprintf("record %d: prev %s is not the hash of record %d (%s): the chain is broken", r.Seq, r.Prev, want-1, v.rep.Head.Hash))
	}
	v.rep.Records++
	v.rep.Head = Head{Seq: r.Seq, Hash: r.Hash}
	return r, true
}
