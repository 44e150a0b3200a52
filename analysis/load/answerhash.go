package load

import "github.com/capsulang/caps/analysis/check"

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
func (l *Loader) answerHash(abs string, r *check.Result) (hash string) {
	if p := l.cache[abs]; p != nil && p.Result == r {
		l.hash(p)
		return p.Hash
	}
	if a, ok := l.answerHashes[abs]; ok && a.res == r {
		return a.hash
	}
	if r.File == nil || r.File.Module == nil {
		return ""
	}
	func() {
		defer func() {
			if recover() != nil {
				hash = "" // (an answer the IR cannot encode: no hash, as before)
			}
		}()
		hash, _ = cachedIROptions(r, l.declCache(&Package{Path: abs})).Hash(r.File.Module)
	}()
	if l.answerHashes == nil {
		l.answerHashes = map[string]answerHashed{}
	}
	l.answerHashes[abs] = answerHashed{res: r, hash: hash}
	return hash
}
