package lsp

import (
	"sort"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/syntax"
)

// index answers "what is at this offset" and "where is this used" for one
// checked snapshot.
type index struct {
	pkg  *load.Package
	refs []check.Ref     // sorted by start
	defs []*check.Symbol // symbols declared in this file, sorted by name start
	uses map[*check.Symbol][]syntax.Span
}

func newIndex(pkg *load.Package) *index {
	ix := &index{pkg: pkg, uses: map[*check.Symbol][]syntax.Span{}}
	ix.refs = append([]check.Ref(nil), pkg.Result.Refs...)
	sort.SliceStable(ix.refs, func(i, j int) bool { return ix.refs[i].Span.Start < ix.refs[j].Span.Start })
	for _, r := range ix.refs {
		ix.uses[r.Sym] = append(ix.uses[r.Sym], r.Span)
	}
	for _, s := range pkg.Result.Symbols {
		if pkg.Result.Local(s) && s.Span.End > s.Span.Start {
			ix.defs = append(ix.defs, s)
		}
	}
	sort.SliceStable(ix.defs, func(i, j int) bool { return ix.defs[i].Span.Start < ix.defs[j].Span.Start })
	return ix
}

// at returns the symbol whose name (declaration or reference) covers off,
// and the span of that name.
func (ix *index) at(off int) (*check.Symbol, syntax.Span, bool) {
	i := sort.Search(len(ix.refs), func(i int) bool { return ix.refs[i].Span.End >= off })
	for ; i < len(ix.refs) && ix.refs[i].Span.Start <= off; i++ {
		if ix.refs[i].Span.Contains(off) {
			return ix.refs[i].Sym, ix.refs[i].Span, true
		}
	}
	j := sort.Search(len(ix.defs), func(i int) bool { return ix.defs[i].Span.End >= off })
	for ; j < len(ix.defs) && ix.defs[j].Span.Start <= off; j++ {
		if ix.defs[j].Span.Contains(off) {
			return ix.defs[j], ix.defs[j].Span, false
		}
	}
	return nil, syntax.Span{}, false
}

// formPath returns the chain of forms containing off, outermost first.
func formPath(forms []*syntax.Form, off int) []*syntax.Form {
	var path []*syntax.Form
	for {
		var next *syntax.Form
		for _, f := range forms {
			if f.Span().Start <= off && (off < f.Span().End || off == f.Span().End && (f.Kind != syntax.FormList || !f.Closed)) {
				next = f
				break
			}
		}
		if next == nil {
			return path
		}
		path = append(path, next)
		if next.Kind != syntax.FormList {
			return path
		}
		forms = next.Items()
	}
}
