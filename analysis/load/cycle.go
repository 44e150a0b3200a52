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
// further up, were checked earlier (and cached) or are open in an editor.
// The Loader's lock guards it.
type importGraph struct {
	edges map[string][]importEdge // by importing file
	// checking holds the files being checked, to find their import forms.
	checking map[string]*ast.File
}

// importEdge is one import: the file it resolved to and where the
// importing file names the module.
type importEdge struct {
	to   string
	span syntax.Span
}

// begin starts the check of the file abs: its imports are recorded anew.
func (g *importGraph) begin(abs string, f *ast.File) {
	if g.edges == nil {
		g.edges = map[string][]importEdge{}
		g.checking = map[string]*ast.File{}
	}
	g.edges[abs] = nil
	g.checking[abs] = f
}

// end ends the check of the file abs as f (another check of the same file
// may have begun since: it keeps its own).
func (g *importGraph) end(abs string, f *ast.File) {
	if g.checking[abs] == f {
		delete(g.checking, abs)
	}
}

// add records that from, being checked, imports module modPath from the
// file to.
func (g *importGraph) add(from, modPath, to string) {
	g.edges[from] = append(g.edges[from], importEdge{to: to, span: importSpan(g.checking[from], modPath)})
}

// forget drops what the file abs imports (it changed).
func (g *importGraph) forget(abs string) { delete(g.edges, abs) }

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
