package load

import (
	"path/filepath"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/ir"
)

// answerHashed is an answer given for a file and its semantic hash.
type answerHashed struct {
	res  *check.Result
	hash string
}

// answerHash returns the semantic hash of r, an answer given for the file
// abs in place of its check (Loader.RecheckImportsAt's answers), with
// l.mu held: the cached package's when r is its result, else computed
// from r (its imports' hashes are those its check read) and kept with
// the file's last answer, so that the importers answered from one answer
// hash it once. An import answered without it had an empty hash: the
// import's hover read "import base ()" and the importer's own semantic
// hash took "" for the import's (issue 17).
func (l *Loader) answerHash(abs string, r *check.Result) string {
	if hash, ok := l.heldAnswerHash(abs, r); ok {
		return hash
	}
	hash := hashAnswer(r, l.declCache(&Package{Path: abs}))
	l.keepAnswerHash(abs, r, hash)
	return hash
}

// HashAnswer computes ahead, outside the loader's lock, the semantic hash
// that answerHash gives r, an answer for the file at path that the next
// checks of an importer job read (RecheckImportsOver's answers): the
// job's parallel checks each hash the answer they made, instead of the
// next level's checks hashing them one at a time under the lock.
func (l *Loader) HashAnswer(path string, r *check.Result) {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	l.mu.Lock()
	if p := l.cache[abs]; p != nil && p.Result == r {
		// (the cached package's: hashed once, outside the lock too)
		l.mu.Unlock()
		l.hashOnce(p)
		return
	}
	_, done := l.heldAnswerHash(abs, r)
	dc := l.declCache(&Package{Path: abs})
	l.mu.Unlock()
	if done {
		return
	}
	hash := hashAnswer(r, dc)
	l.mu.Lock()
	if _, done := l.heldAnswerHash(abs, r); !done {
		l.keepAnswerHash(abs, r, hash)
	}
	l.mu.Unlock()
}

// heldAnswerHash returns the hash of r, an answer for the file abs, when
// it is known (with l.mu held): the cached package's when r is its
// result (hashed now if it was not), or the one kept for the file's last
// answer.
func (l *Loader) heldAnswerHash(abs string, r *check.Result) (string, bool) {
	if p := l.cache[abs]; p != nil && p.Result == r {
		l.hash(p)
		return p.Hash, true
	}
	if a, ok := l.answerHashes[abs]; ok && a.res == r {
		return a.hash, true
	}
	return "", false
}

// keepAnswerHash keeps hash as the file abs's last answer's (with l.mu
// held).
func (l *Loader) keepAnswerHash(abs string, r *check.Result, hash string) {
	if l.answerHashes == nil {
		l.answerHashes = map[string]answerHashed{}
	}
	l.answerHashes[abs] = answerHashed{res: r, hash: hash}
}

// hashAnswer is the semantic hash of r with the declaration cache dc
// (nil: none); "" for a result without a module or one the IR cannot
// encode.
func hashAnswer(r *check.Result, dc *ir.DeclCache) (hash string) {
	if r.File == nil || r.File.Module == nil {
		return ""
	}
	defer func() {
		if recover() != nil {
			hash = "" // (an answer the IR cannot encode: no hash, as before)
		}
	}()
	hash, _ = cachedIROptions(r, dc).Hash(r.File.Module)
	return hash
}
