package load

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
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
// guards it. The graph says whether there is a cycle; the chain an
// E_IMPORT_CYCLE names is read from the files' texts (Loader.cyclePath):
// the graph holds what the checks so far recorded, which depends on the
// order they ran in.
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
// to, when to leads back to from; nil otherwise (with l.mu held). Whether
// it does is read off the import graph (which records the imports as the
// checks resolve them, those of files being checked included); the cycle
// the message names, and its related location (the import that closes
// it), are cyclePath's: a function of the files' texts now, whatever the
// graph holds, so that a language server whose graph holds edges of
// older texts, or lacks those of a file changed since (Forget), names
// the cycle as a fresh check of the same texts does. Where those texts
// do not lead back (a check of a text other than the file's, such as
// LoadSource's), the graph's path is named.
func (l *Loader) cycleError(from, to string) error {
	back := l.graph.path(to, from)
	if back == nil {
		return nil
	}
	var closing syntax.Span
	closed := false // (the closing import's span is known)
	if cur, span, ok := l.cyclePath(from, to); ok {
		back, closing, closed = cur, span, true
	} else if len(back) > 1 {
		for _, e := range l.graph.edges[back[len(back)-2]] {
			if e.to == from {
				closing, closed = e.span, true
				break
			}
		}
	}
	names := []string{filepath.Base(from)}
	for _, f := range back {
		names = append(names, filepath.Base(f))
	}
	err := &check.ImportError{Code: check.ImportCycle, Message: "import cycle: " + strings.Join(names, " -> ")}
	if len(back) > 1 && closed {
		closer := back[len(back)-2]
		err.Related = []syntax.Related{{File: closer, Span: closing,
			Message: fmt.Sprintf("%s imports %s here, closing the cycle", filepath.Base(closer), filepath.Base(from))}}
	}
	return err
}

// inCycle reports whether the import graph leads from the file to back
// to from (cycleError without its message).
func (l *Loader) inCycle(from, to string) bool {
	return l.graph.path(to, from) != nil
}

// cyclePath returns the chain of imports by which E_IMPORT_CYCLE names a
// cycle through from's import of the file to (with l.mu held): the files
// [to, ..., from] and the span of the last file's import of from, taken
// from the files' texts as ReadFile reads them now. It is the first of the
// shortest chains, each file's imports followed in the order its text
// writes them (a breadth-first search, each file's import forms in
// source order, every form that names a file followed, the first form
// that leads to a file being its edge). ok is false when those texts do
// not lead from to back to from.
//
// The import graph cannot answer this: a check records the imports of
// the text it checks, which in a language server may be older than the
// file's (a request's view of an older text records that text's
// spans), and the imports of a changed file are forgotten until it is
// checked again, so that another chain of the same length was named
// (TestWorkspaceCycleMessagePath, TestWorkspaceCycleRelatedSpan).
func (l *Loader) cyclePath(from, to string) (files []string, closing syntax.Span, ok bool) {
	type hop struct {
		prev string
		span syntax.Span // of prev's import of the file
	}
	reached := map[string]hop{to: {}}
	queue := []string{to}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if f == from {
			closing = reached[f].span
			for ; f != ""; f = reached[f].prev {
				files = append(files, f)
			}
			slices.Reverse(files)
			return files, closing, true
		}
		for _, im := range l.textImports(f) {
			next, err := l.locate(f, im.path)
			if err != nil {
				continue
			}
			if _, seen := reached[next]; !seen {
				reached[next] = hop{prev: f, span: im.span}
				queue = append(queue, next)
			}
		}
	}
	return nil, syntax.Span{}, false
}

// importForm is one import form of a text: the module path it names, and
// where.
type importForm struct {
	path string
	span syntax.Span
}

// textForms are the import forms of one text of a file (Loader.forms).
type textForms struct {
	src   []byte
	forms []importForm
}

// textImports returns the import forms, in source order, of the text
// ReadFile reads for the file abs now (none when it cannot be read), with
// l.mu held. They are read once per text: the loader keeps the last
// text's (Loader.forms), dropped by Forget and Reset.
func (l *Loader) textImports(abs string) []importForm {
	src, err := l.read(abs)
	if err != nil {
		return nil
	}
	if t, ok := l.forms[abs]; ok && bytes.Equal(t.src, src) {
		return t.forms
	}
	// (a tree the loader holds may be a fast Recheck's, whose kept forms
	// keep an older text's offsets: the text is read again)
	forms := importFormsOf(src)
	if l.forms == nil {
		l.forms = map[string]textForms{}
	}
	l.forms[abs] = textForms{src: src, forms: forms}
	return forms
}

// importFormsOf returns the import forms of src, in source order, as
// ast.Build builds them (those that name a module). A clean text of one
// module form is scanned by item (syntax.ReadModuleItems), and only the
// items that may be import forms are read, so that a large text's forms
// are never all in memory (issue 19); another text is read whole.
func importFormsOf(src []byte) []importForm {
	var forms []importForm
	add := func(im *ast.Import) {
		if im != nil && im.Path.Valid() {
			forms = append(forms, importForm{path: im.Path.Name, span: im.Path.Span})
		}
	}
	if r, ok := syntax.ReadModuleItems(src, "module"); ok {
		spans := r.Spans()
		whole := false
		for _, sp := range spans[min(2, len(spans)):] { // (after `module` and the name, as Build)
			if !bytes.Contains(src[sp.Start:sp.End], []byte("import")) {
				continue
			}
			f, ok := syntax.ReadSpan(r.Source.CST, sp)
			if !ok {
				whole = true // (Build reports the item its own way)
				break
			}
			if f.Head() == "import" {
				add(ast.BuildImport(f))
			}
		}
		if !whole {
			return forms
		}
		forms = nil
	}
	if rd, err := syntax.ReadText(src); err == nil {
		if f := ast.Build(rd); f.Module != nil {
			for _, im := range f.Module.Imports {
				add(im)
			}
		}
	}
	return forms
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
