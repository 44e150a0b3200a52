package chain

import (
	"bytes"
	"sync"
)

// Memory is an in-memory Log with the same records, hashes and
// verification as the file backend, for tests and short-lived ledgers. It
// is safe for concurrent use.
type Memory struct {
	mu     sync.Mutex
	recs   []Record
	closed bool
}

// NewMemory returns an empty in-memory log.
func NewMemory() *Memory { return &Memory{} }

// Append implements Log.
func (m *Memory) Append(p []byte) (Record, error) {
	rs, err := m.AppendBatch([][]byte{p})
	if err != nil {
		return Record{}, err
	}
	return rs[0], nil
}

// AppendBatch implements Log.
func (m *Memory) AppendBatch(ps [][]byte) ([]Record, error) {
	cs := make([][]byte, len(ps))
	for i, p := range ps {
		c, err := Canonical(p)
		if err != nil {
			return nil, err
		}
		cs[i] = c
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	out := make([]Record, len(cs))
	for i, c := range cs {
		r := newRecord(m.head(), c)
		m.recs = append(m.recs, r)
		out[i] = r
	}
	return out, nil
}

func (m *Memory) head() Head {
	if len(m.recs) == 0 {
		return Head{Hash: Genesis}
	}
	r := m.recs[len(m.recs)-1]
	return Head{Seq: r.Seq, Hash: r.Hash}
}

// Head implements Log.
func (m *Memory) Head() Head {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.head()
}

// Iterate implements Log.
func (m *Memory) Iterate(fn func(Record) error) error {
	rs, err := m.Records()
	if err != nil {
		return err
	}
	for _, r := range rs {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// Records implements Log.
func (m *Memory) Records() ([]Record, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	return append([]Record(nil), m.recs...), nil
}

// Verify implements Log by encoding the records as the file backend
// would and verifying those lines.
func (m *Memory) Verify() (*Report, error) {
	rs, err := m.Records()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	for i := range rs {
		encodeLine(&buf, &rs[i])
	}
	return verifyReader(&buf, defaultMaxRecord)
}

// Close implements Log.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	m.closed = true
	return nil
}

var (
	_ Log = (*File)(nil)
	_ Log = (*Memory)(nil)
)
