package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// cacheFormat names the layout of the cache's entries and what decides
// them (the encoding and the order and budgets of the attempts); a change
// to any of these changes it, so that old entries are not read.
const cacheFormat = "caps-verify-cache-1"

// Cache keeps obligations' verdicts on disk. An obligation's verdict is a
// function of its queries (the SMT-LIB text of both encodings), the
// variables a counterexample is read back into, the solver's version and
// the resource budgets, and each entry is stored under the SHA-256 digest
// of all of these, so an entry is never stale: a changed module asks
// different queries. A verdict the wall-clock cap decided (open
// (timeout) because Solver.Timeout ran out) depends on the machine's
// load and is not kept. Errors reading or writing the cache are ignored:
// the query is then put to the solver.
type Cache struct {
	// Dir holds the entries, DIR/ab/abcdef....json.
	Dir string

	hits, misses atomic.Int64
}

// DefaultCacheDir is the cache's folder by default: caps/verify under
// the user's cache folder ($XDG_CACHE_HOME, else ~/.cache, on Linux).
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder for verification verdicts: %w", err)
	}
	return filepath.Join(d, "caps", "verify"), nil
}

// Stats returns how many obligations the cache answered and how many it
// could not.
func (c *Cache) Stats() (hits, misses int64) {
	return c.hits.Load(), c.misses.Load()
}

func (c *Cache) path(key string) string {
	return filepath.Join(c.Dir, key[:2], key+".json")
}

func (c *Cache) get(key string) (*verdict, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		c.misses.Add(1)
		return nil, false
	}
	var v verdict
	if err := json.Unmarshal(data, &v); err != nil || (v.Status != Discharged && v.Status != Open && v.Status != Failed) {
		c.misses.Add(1)
		return nil, false
	}
	c.hits.Add(1)
	return &v, true
}

// put writes an entry whole or not at all: a temporary file, then a
// rename.
func (c *Cache) put(key string, v *verdict) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr != nil || cerr != nil || os.Rename(f.Name(), p) != nil {
		os.Remove(f.Name())
	}
}

// cacheKey is the digest of everything that decides an obligation's
// verdict.
func (s *Solver) cacheKey(o *Obligation, bv, in *query) string {
	h := sha256.New()
	field := func(parts ...string) {
		for _, p := range parts {
			fmt.Fprintf(h, "%d:%s\n", len(p), p)
		}
	}
	field(cacheFormat, s.Version(), fmt.Sprint(s.rlimit(), QuickRlimits, s.NoQuick, s.intsOnly, IntRlimitDivisor), string(o.Kind), fmt.Sprint(o.goal.exists))
	for _, q := range []*query{bv, in} {
		if q == nil {
			field("-")
			continue
		}
		field(q.script)
		for _, v := range q.vars {
			field(v.name, v.smt, v.t.String())
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
