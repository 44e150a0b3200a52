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
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
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
	sum := sha256.Sum256(hashInput(seq, prev, payload))
	return "sha256:" + hex.EncodeToString(sum[:])
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

// lineOverhead bounds the bytes of a line besides its payload (members,
// two hashes, a 20-digit seq, the newline).
const lineOverhead = 200

// appendLine appends the line of the record that follows head, with the
// canonical payload, to b and returns the record. The record's Payload
// points into b. It is encodeLine and hashRecord in one pass, without
// allocating but for the hash string: the hashed bytes are the line
// itself from its payload member on, with a '{' in place of the comma
// before it.
func appendLine(b []byte, head Head, payload []byte) ([]byte, Record) {
	seq := head.Seq + 1
	prev := head.Hash
	if prev == "" {
		prev = Genesis
	}
	b = append(b, `{"hash":"sha256:`...)
	at := len(b)
	b = append(b, Genesis[len("sha256:"):]...) // placeholder for the hex digest
	b = append(b, '"')
	brace := len(b)
	b = append(b, `{"payload":`...)
	p := len(b)
	b = append(b, payload...)
	b = append(b, `,"prev":`...)
	b = appendString(b, prev)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '}')
	sum := sha256.Sum256(b[brace:])
	hex.Encode(b[at:at+2*sha256.Size], sum[:])
	b[brace] = ','
	b = append(b, '\n')
	return b, Record{Seq: seq, Prev: prev, Hash: string(b[at-len("sha256:") : at+2*sha256.Size]), Payload: b[p : p+len(payload) : p+len(payload)]}
}

// appendLineAfter is appendLine without building a record: it appends
// the line of record seq, whose previous record's hash ("sha256:…") is
// in prev, and writes the new record's hash into prev.
func appendLineAfter(b []byte, seq uint64, prev *[len(Genesis)]byte, payload []byte) []byte {
	const digest = len("sha256:")
	b = append(b, `{"hash":"sha256:`...)
	at := len(b)
	b = append(b, prev[digest:]...) // placeholder for the hex digest
	b = append(b, '"')
	brace := len(b)
	b = append(b, `{"payload":`...)
	b = append(b, payload...)
	b = append(b, `,"prev":"`...)
	b = append(b, prev[:]...)
	b = append(b, `","seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	b = append(b, '}')
	sum := sha256.Sum256(b[brace:])
	hex.Encode(b[at:at+2*sha256.Size], sum[:])
	copy(prev[digest:], b[at:at+2*sha256.Size])
	b[brace] = ','
	return append(b, '\n')
}

// appendString appends s as a JSON string with minimal escaping (as
// writeString).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\f':
			b = append(b, `\f`...)
		case '\r':
			b = append(b, `\r`...)
		default:
			b = append(b, `\u00`...)
			b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
	var h hasher
	lp, kind, reason := h.check(line)
	if lp.ok {
		return Record{Seq: lp.seq, Prev: string(lp.prev), Hash: string(lp.hash), Payload: lp.payload}, kind, reason
	}
	return slowParse(line)
}

const linePrefix = `{"hash":"`

// lineParts is a line of the exact canonical shape
//
//	{"hash":"sha256:H","payload":P,"prev":"sha256:R","seq":N}
//
// split into its members, which point into the line.
type lineParts struct {
	ok            bool
	seq           uint64
	hash, prev    []byte // "sha256:..."
	payload       []byte
	hashedFromOff int // the hashed bytes are "{" + line[hashedFromOff:]
}

// splitLine splits a line of the exact canonical shape without decoding
// the payload or allocating; ok is false for any other line.
func splitLine(line []byte) lineParts {
	const hashLen = len(Genesis) // "sha256:" + 64 hex
	rest, ok := bytes.CutPrefix(line, []byte(linePrefix))
	if !ok || len(rest) < hashLen+2 || !isHash(rest[:hashLen]) {
		return lineParts{}
	}
	hash := rest[:hashLen]
	rest, ok = bytes.CutPrefix(rest[hashLen:], []byte(`","payload":`))
	if !ok || len(rest) == 0 || rest[len(rest)-1] != '}' {
		return lineParts{}
	}
	// Digits of seq, backwards from the final '}'.
	j := len(rest) - 1
	for j > 0 && rest[j-1] >= '0' && rest[j-1] <= '9' {
		j--
	}
	digits := rest[j : len(rest)-1]
	if len(digits) == 0 || len(digits) > 20 || digits[0] == '0' {
		return lineParts{}
	}
	var seq uint64
	for _, d := range digits {
		v := uint64(d - '0')
		if seq > (1<<64-1-v)/10 {
			return lineParts{} // overflows uint64
		}
		seq = seq*10 + v
	}
	const prevKey, seqKey = `,"prev":"`, `","seq":`
	k := j - len(seqKey) - hashLen - len(prevKey)
	if k < 1 || string(rest[j-len(seqKey):j]) != seqKey || string(rest[k:k+len(prevKey)]) != prevKey {
		return lineParts{}
	}
	prev := rest[k+len(prevKey) : j-len(seqKey)]
	if !isHash(prev) {
		return lineParts{}
	}
	return lineParts{ok: true, seq: seq, hash: hash, prev: prev, payload: rest[:k], hashedFromOff: len(linePrefix) + hashLen + 2}
}

// fastParse splits a line of the exact canonical shape
//
//	{"hash":"sha256:H","payload":P,"prev":"sha256:R","seq":N}
//
// without decoding the payload.
func fastParse(line []byte) (Record, bool) {
	lp := splitLine(line)
	if !lp.ok {
		return Record{}, false
	}
	return Record{Seq: lp.seq, Prev: string(lp.prev), Hash: string(lp.hash), Payload: lp.payload}, true
}

func isHash(b []byte) bool {
	if len(b) != len(Genesis) || string(b[:7]) != "sha256:" {
		return false
	}
	return isLowerHex64(b[7:])
}

// isLowerHex64 reports whether the 64 bytes of b are all lowercase hex
// digits. It checks 8 bytes at a time, with no branch per byte: hex
// digits come in random order, which defeats branch prediction.
func isLowerHex64(b []byte) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	_ = b[63]
	ok := uint64(hi)
	for i := 0; i < 64; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// For bytes below 0x80 (checked by the last term) the sums do
		// not carry from one byte into the next; a byte's high bit in
		// x+0x50 says it is >= '0', in x+0x46 that it is > '9', in
		// x+0x1f that it is >= 'a', in x+0x19 that it is > 'f'.
		digit := (x + lo*0x50) &^ (x + lo*0x46)
		alpha := (x + lo*0x1f) &^ (x + lo*0x19)
		ok &= (digit | alpha) &^ x
	}
	return ok&hi == hi
}

var openBrace = []byte{'{'}

// hasher computes line hashes; one per goroutine, reused.
type hasher struct {
	h   hash.Hash
	sum [sha256.Size]byte
	hex [2 * sha256.Size]byte
}

// lineHash returns the lowercase hex SHA-256 of "{" + rest, in h's
// buffer (valid until the next call).
func (h *hasher) lineHash(rest []byte) []byte {
	if h.h == nil {
		h.h = sha256.New()
	}
	h.h.Reset()
	h.h.Write(openBrace)
	h.h.Write(rest)
	hex.Encode(h.hex[:], h.h.Sum(h.sum[:0]))
	return h.hex[:]
}

// check checks a line's form and its own hash (not its place in the
// chain) when it has the exact canonical shape; lp.ok is false for any
// other line, which the caller passes to slowParse.
func (h *hasher) check(line []byte) (lp lineParts, kind, reason string) {
	lp = splitLine(line)
	if !lp.ok {
		return lp, "", ""
	}
	if got := h.lineHash(line[lp.hashedFromOff:]); string(got) != string(lp.hash[len("sha256:"):]) {
		return lp, ProblemHash, fmt.Sprintf("record %d: hash does not match its content (altered): stored %s, computed sha256:%s", lp.seq, lp.hash, got)
	}
	if !isCanonical(lp.payload) && !json.Valid(lp.payload) {
		return lp, ProblemMalformed, fmt.Sprintf("record %d: payload is not valid JSON", lp.seq)
	}
	return lp, "", ""
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
