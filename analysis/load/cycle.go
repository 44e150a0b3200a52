package load

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// importGraph records, for every file checked, the files its imports
// resolved to, those refused as part of a cycle included. A cycle is then
// found from any of its files, whether the others are being checked
// further up, were checked earlier (and cached), are open in an editor or
// were answered from an engine's answer (recordAnswer). The Loader's lock
// guards it.
//
// Checks run concurrently (the language server's checks of open
// documents and its importer jobs), so a file's recorded imports stay in
// place while the file is checked again: the imports its new check
// resolves are added to them at once (an import cycle through the file
// is found by the checks it leads to further down), and replace them
// when the check ends. A file whose edges were dropped during another
// file's check made that check miss a cycle through it (issue 17: an
// importer job published right.caps without its E_IMPORT_CYCLE while
// base.caps, in the cycle, was being checked again).
type importGraph struct {
	edges map[string][]importEdge // by importing file
	// checking holds the files being checked, to find their import forms.
	checking map[string]*ast.File
	// pending holds, for a file being checked, the imports its check
	// resolved so far: its edges once the check ends.
	pending map[string][]importEdge
	// from holds the tree whose import forms a file's edges are
	// (recordAnswer: an answer of the same tree is not recorded again).
	from map[string]*ast.File
}

// importEdge is one import: the file it resolved to and where the
// importing file names the module.
type importEdge struct {
	to   string
	span syntax.Span
}

func (g *importGraph) init() {
	if g.edges == nil {
		g.edges = map[string][]importEdge{}
		g.checking = map[string]*ast.File{}
		g.pending = map[string][]importEdge{}
		g.from = map[string]*ast.File{}
	}
}

// begin starts the check of the file abs: its imports are recorded anew
// (they replace its edges when the check ends).
func (g *importGraph) begin(abs string, f *ast.File) {
	g.init()
	g.pending[abs] = []importEdge{}
	g.checking[abs] = f
}

// end ends the check of the file abs as f: the imports it resolved become
// the file's edges (another check of the same file may have begun since:
// its end does that).
func (g *importGraph) end(abs string, f *ast.File) {
	if g.checking[abs] != f {
		return
	}
	delete(g.checking, abs)
	if es, ok := g.pending[abs]; ok {
		g.edges[abs] = es
		g.from[abs] = f
		delete(g.pending, abs)
	}
}

// add records that from, being checked, imports module modPath from the
// file to: in the imports of its check, and in its edges at once unless
// they hold it.
func (g *importGraph) add(from, modPath, to string) {
	g.init()
	e := importEdge{to: to, span: importSpan(g.checking[from], modPath)}
	if es, ok := g.pending[from]; ok {
		g.pending[from] = append(es, e)
	}
	for _, x := range g.edges[from] {
		if x.to == to {
			return
		}
	}
	g.edges[from] = append(g.edges[from], e)
}

// set makes es the edges of the file abs, the imports of the tree f,
// unless the file is being checked (its check records its own).
func (g *importGraph) set(abs string, f *ast.File, es []importEdge) {
	g.init()
	if g.checking[abs] != nil {
		return
	}
	g.edges[abs] = es
	g.from[abs] = f
}

// forget drops what the file abs imports (it changed).
func (g *importGraph) forget(abs string) {
	delete(g.edges, abs)
	delete(g.from, abs)
}

// importSpan is where f imports modPath (the zero span if it does not).
func importSpan(f *ast.File, modPath string) syntax.Span {
	if f == nil || f.Module == nil {
		return syntax.Span{}
	}
	for _, im := range f.Module.Imports {
		if im != nil && im.Path.Name == modPath {
			return im.Path.Span
		}
	}
	return syntax.Span{}
}

// path returns the shortest chain of imports from src to dst, as the
// files [src, ..., dst], or nil when dst cannot be reached.
func (g *importGraph) path(src, dst string) []string {
	prev := map[string]string{src: ""}
	queue := []string{src}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if f == dst {
			var out []string
			for ; f != ""; f = prev[f] {
				out = append([]string{f}, out...)
			}
			return out
		}
		for _, e := range g.edges[f] {
			if _, seen := prev[e.to]; !seen {
				prev[e.to] = f
				queue = append(queue, e.to)
			}
		}
	}
	return nil
}

// cycleError returns the E_IMPORT_CYCLE error of from's import of the file
// to, when to leads back to from; nil otherwise. The message lists the
// cycle from from's side, and a related location points at the import
// that closes it.
func (g *importGraph) cycleError(from, to string) error {
	back := g.path(to, from)
	if back == nil {
		return nil
	}
	names := []string{filepath.Base(from)}
	for _, f := range back {
		names = append(names, filepath.Base(f))
	}
	err := &check.ImportError{Code: check.ImportCycle, Message: "import cycle: " + strings.Join(names, " -> ")}
	if len(back) > 1 {
		closer := back[len(back)-2]
		for _, e := range g.edges[closer] {
			if e.to == from {
				err.Related = []syntax.Related{{File: closer, Span: e.span,
					Message: fmt.Sprintf("%s imports %s here, closing the cycle", filepath.Base(closer), filepath.Base(from))}}
				break
			}
		}
	}
	return err
}

// importers returns abs and every file that imports it, directly or not.
func (g *importGraph) importers(abs string) []string {
	by := map[string][]string{}
	for from, es := range g.edges {
		for _, e := range es {
			by[e.to] = append(by[e.to], from)
		}
	}
	out := []string{abs}
	seen := map[string]bool{abs: true}
	for i := 0; i < len(out); i++ {
		for _, f := range by[out[i]] {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// recordAnswer records the imports of r, an answer given for the file abs
// in place of its check (Loader.RecheckImportsAt's answers), in the
// import graph: its import forms, each resolved to its file as a check
// would (with l.mu held). No check of abs runs to record them, and an
// import its answer refused as part of a cycle is in no result's imports:
// without them, the importers of abs checked over the answer missed the
// cycle while abs's own check had not recorded its new imports (issue 17).
// A file being checked keeps the imports its check records.
func (l *Loader) recordAnswer(abs string, r *check.Result, answers map[string]*check.Result) {
	if r.File == nil || r.File.Module == nil || l.graph.from[abs] == r.File {
		return
	}
	var es []importEdge
	for _, im := range r.File.Module.Imports {
		if im == nil {
			continue
		}
		if to, err := l.locateWith(abs, im.Path.Name, answers); err == nil {
			es = append(es, importEdge{to: to, span: im.Path.Span})
		}
	}
	l.graph.set(abs, r.File, es)
}
