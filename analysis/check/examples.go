package check

// This file lets a function's examples be evaluated from any Result the
// engine keeps (a full check's, a Recheck's answer, a RecheckImports
// answer) without checking the file in full: each function with
// examples gets a key, a hash of everything its examples' outcomes
// depend on (its reach), and ExampleScope checks only the declarations
// the functions to evaluate reach, as a module of their own, so that
// the interpreter can run them (analysis/diagnose.ExampleCache).
//
// The reach of a function is the closure of the declarations its
// interface and body looked up by name (declInfo), with every type
// declaration when one of them read the variants fact (bare variant
// constructors), the facts they read (the profile line's admissions, say)
// and, for the imported members they read, the same closure inside the
// imported module (and the modules it imports): an example runs the
// bodies of the imported functions it reaches, which an importer's check
// never reads.
//
// A key hashes the forms of the declarations the function reaches
// (syntax.HashForms: their structure and atoms, not their layout or
// comments), the function's own declaration included: the cache keeps
// its outcomes apart from their layout (the example by its index, a
// runtime error's place by the path of its form in the declaration it
// lies in, here or in an imported module, a contract's quote by that
// form too) and derives their spans, the call's text and the quote from
// the version it answers (Result.DeclForm). Only an outcome it cannot
// keep so records a declaration's text hash (Result.DeclText), which the
// cache compares before reusing it.

import (
	"hash/maphash"
	"sort"
	"strings"

	"github.com/capsulang/caps/syntax"
	"github.com/capsulang/caps/syntax/ast"
)

// ExampleFunc is a function with examples in a checked version of a
// module.
type ExampleFunc struct {
	// Fn is its declaration's tree. A declaration a Recheck kept has the
	// tree of the text it was built from: its offsets are that text's
	// (Shift says how far it moved since).
	Fn *ast.Function
	// Index is its declaration's index in the module.
	Index int
	// Shift is how many bytes its declaration's text starts after its
	// tree's offsets: add it to a span of the tree to get a span of the
	// current text.
	Shift int
	// Key hashes what its examples' outcomes depend on: the forms of its
	// own declaration (examples included) and of every other declaration
	// it reaches, the module facts they read and, in the imported
	// modules, the forms of the declarations it reaches there and the
	// facts they read. Equal keys in two versions of a file (in one
	// process) mean equal outcomes but for their layout (where the
	// example's expected value is, the call as written), which the
	// caller derives from the version's tree, and for the text of a
	// form an outcome quotes (a contract as written), which the caller
	// reads from the version's text (see Result.DeclForm).
	Key uint64
}

// ExampleFuncs lists the functions of r's module that have examples, in
// declaration order, with their keys; ok is false when r keeps no engine
// state (a check with Options.Once, or a file without a module).
func (r *Result) ExampleFuncs() (fns []ExampleFunc, ok bool) {
	v := r.exampleVersion()
	if v == nil {
		return nil, false
	}
	imports := &importMemo{}
	broken := hashString(brokenImport(r.checker.imports))
	for i, d := range v.mod.Decls {
		fn, isFn := d.(*ast.Function)
		if !isFn || len(fn.Examples) == 0 {
			continue
		}
		key := mix(v.exampleKey(i, imports), broken)
		fns = append(fns, ExampleFunc{Fn: fn, Index: i, Shift: v.decls[i].start - fn.Form.Span().Start, Key: key})
	}
	return fns, true
}

// DeclStarts returns where the module's declarations start in r's text,
// by name (the first declaration of each name); nil when r keeps no
// engine state. (A kept declaration's tree may have other offsets: see
// ExampleFunc.Shift.)
func (r *Result) DeclStarts() map[string]int {
	v := r.exampleVersion()
	if v == nil {
		return nil
	}
	out := make(map[string]int, len(v.first))
	for name, i := range v.first {
		out[name] = v.decls[i].start
	}
	return out
}

// exampleVersion returns the engine's version of r, nil when there is
// none.
func (r *Result) exampleVersion() *version {
	if r == nil || r.checker == nil || r.File == nil || r.File.Module == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return nil
	}
	v := r.checker.version(r.File.Source.CST)
	if v == nil || v.mod == nil || len(v.info) != len(v.mod.Decls) {
		return nil
	}
	return v
}

// reach returns the declarations the declarations roots reach (roots
// included), in index order, and the facts they read (sorted).
func (v *version) reach(roots []int) (decls []int, keys []string) {
	seen := map[int]bool{}
	facts := map[string]bool{}
	stack := append([]int(nil), roots...)
	for _, i := range roots {
		seen[i] = true
	}
	allTypes := false
	visit := func(names []string) {
		for _, n := range names {
			if j, ok := v.first[n]; ok && !seen[j] {
				seen[j] = true
				stack = append(stack, j)
			}
		}
	}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		info := &v.info[i]
		visit(info.p1.names)
		visit(info.body.names)
		for _, ks := range [][]string{info.p1.keys, info.body.keys} {
			for _, k := range ks {
				if facts[k] {
					continue
				}
				facts[k] = true
				if k == keyVariants && !allTypes {
					allTypes = true
					for j, d := range v.mod.Decls {
						if _, ok := d.(*ast.TypeDecl); ok && !seen[j] {
							seen[j] = true
							stack = append(stack, j)
						}
					}
				}
			}
		}
	}
	for i := range seen {
		decls = append(decls, i)
	}
	sort.Ints(decls)
	for k := range facts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return decls, keys
}

// exampleKey is the key of function root's examples (ExampleFunc.Key);
// imports caches the imported modules' hashes.
func (v *version) exampleKey(root int, imports *importMemo) uint64 {
	return v.reachKey(root, imports)
}

// reachKey hashes the reach of declaration root: the forms of its
// declarations, the values of the facts they read, and, for the imported
// members they read, the reach of each inside its module
// (importedMember).
func (v *version) reachKey(root int, imports *importMemo) uint64 {
	decls, keys := v.reach([]int{root})
	var h maphash.Hash
	h.SetSeed(seed)
	for _, j := range decls {
		h.WriteString(v.mod.Decls[j].Base().Name.Name)
		h.WriteByte(0)
		writeUint(&h, v.formHash(j))
	}
	for _, k := range keys {
		h.WriteString(k)
		h.WriteByte(0)
		switch {
		case k == keyVariants:
			// every type declaration is in the reach
		case strings.HasPrefix(k, keyImport):
			alias, member, _ := strings.Cut(k[len(keyImport):], ".")
			if imp := v.imports[alias]; imp != nil && imp.Imported != nil && imp.Result != nil {
				writeUint(&h, importedMember(imp.Result, member, imports))
			} else {
				writeUint(&h, versions.Add(1)) // never the same
			}
		default:
			writeUint(&h, v.keyValue(k))
		}
	}
	return h.Sum64()
}

// formHash returns the hash of declaration j's forms (syntax.HashForms),
// computed on first use.
func (v *version) formHash(j int) uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.formsDone == nil {
		v.forms = make([]uint64, len(v.decls))
		v.formsDone = make([]bool, len(v.decls))
	}
	if v.formsDone[j] {
		return v.forms[j]
	}
	x := mix(versions.Add(1), 11) // (a tree that does not fit the text: never the same)
	if f := v.mod.Decls[j].Base().Form; f != nil {
		sp := f.Span()
		shift := v.decls[j].start - sp.Start
		if sp.Start+shift >= 0 && sp.End+shift <= len(v.src) && sp.Start <= sp.End {
			var h maphash.Hash
			h.SetSeed(seed)
			h.WriteString(string(v.mod.Decls[j].Kind()))
			syntax.HashForms(&h, v.src, shift, []*syntax.Form{f}, nil)
			x = mix(12, h.Sum64())
		}
	}
	v.forms[j], v.formsDone[j] = x, true
	return x
}

// importedVersion returns the engine's version of r (which may be an
// imported module's result), nil when there is none: the version a
// Recheck of r would start from when r keeps its syntax tree, else (a
// module the loader read, whose tree is let go) the view importers read
// (importView, whose declarations' trees have the offsets of r's text:
// the loader checks the modules it reads in full).
func importedVersion(r *Result) *version {
	if r == nil || r.checker == nil || r.File == nil || r.File.Module == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return nil
	}
	if r.File.Source.CST.Len() > 0 {
		return r.exampleVersion()
	}
	c := r.checker
	if c.mod == nil || c.info == nil || len(c.info) != len(c.mod.Decls) {
		return nil
	}
	v := c.importView(r)
	if v.decls == nil || len(v.decls) != len(v.mod.Decls) {
		return nil
	}
	return v
}

// inheritForms copies to v the form hashes old computed of the
// declarations v keeps (the same tree, aligned by align): a fast
// Recheck's version hashes only the forms of the declarations it read
// again.
func (v *version) inheritForms(align []int, old *version) {
	if old == nil || len(align) != len(v.mod.Decls) {
		return
	}
	old.mu.Lock()
	defer old.mu.Unlock()
	if old.formsDone == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for i, j := range align {
		if j < 0 || j >= len(old.mod.Decls) || !old.formsDone[j] || v.mod.Decls[i] != old.mod.Decls[j] {
			continue
		}
		if v.formsDone == nil {
			v.forms = make([]uint64, len(v.decls))
			v.formsDone = make([]bool, len(v.decls))
		}
		v.forms[i], v.formsDone[i] = old.forms[j], true
	}
}

// importMemo caches, for the keys of one version, the hashes of imported
// modules (importedText) and members (importedMember).
type importMemo struct {
	text    map[*Result]uint64
	members map[importRef]uint64
}

type importRef struct {
	r      *Result
	member string
}

// importedMember hashes what an example reaching member of the imported
// module r depends on there: the reach of the member's declaration inside
// r's module (its forms, the facts read, the imported members read,
// transitively), not the rest of r's text. A member r does not declare
// hashes to its name only (the importer's check then has errors, and no
// example runs); a module without engine state hashes its whole text and
// imports (importedText).
func importedMember(r *Result, member string, memo *importMemo) uint64 {
	if memo.members == nil {
		memo.members = map[importRef]uint64{}
		memo.text = map[*Result]uint64{}
	}
	ref := importRef{r, member}
	if x, ok := memo.members[ref]; ok {
		return x
	}
	memo.members[ref] = mix(versions.Add(1), 9) // (an import cycle: never the same)
	var x uint64
	if v := importedVersion(r); v == nil {
		x = mix(13, importedText(r, memo.text))
	} else if j, ok := v.first[member]; !ok {
		x = mix(14, hashString(member))
	} else {
		x = mix(15, hashString(r.Path), v.reachKey(j, memo))
	}
	memo.members[ref] = x
	return x
}

// DeclText returns the hash of the text of the first declaration named
// name in r's module (file "") or in the module r imports, directly or
// not, from file (as the interpreter names it: interp.Error.File); ok is
// false when there is none, or its text is not known. An example's
// outcome whose runtime error cannot be kept by its forms (see
// DeclForm) holds while the hash of the declaration it stopped in is
// the same.
func (r *Result) DeclText(file, name string) (uint64, bool) {
	if file != "" {
		r = importedFrom(r, file, map[*Result]bool{})
		if r == nil {
			return 0, false
		}
	}
	if r.File != nil && r.File.Source != nil && r.File.Source.CST != nil && r.File.Source.CST.Len() > 0 {
		v := r.exampleVersion()
		if v == nil {
			return 0, false
		}
		j, ok := v.first[name]
		if !ok {
			return 0, false
		}
		return v.decls[j].content, true
	}
	// (a module the loader read: its trees have its text's offsets)
	if r.File == nil || r.File.Module == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return 0, false
	}
	src := r.File.Source.CST.Src
	for _, d := range r.File.Module.Decls {
		if d.Base().Name.Name == name {
			sp := d.Base().Form.Span()
			if sp.Start < 0 || sp.End > len(src) || sp.Start > sp.End {
				return 0, false
			}
			return maphash.Bytes(seed, src[sp.Start:sp.End]), true
		}
	}
	return 0, false
}

// DeclForm returns the form that path leads to (syntax.Form.Items
// indexes) inside the first declaration named name of r's module (file
// "") or of the module r imports, directly or not, from file (as the
// interpreter names it: interp.Error.File): its span in that module's
// current text, and that text. ok is false when there is none. Equal
// example keys mean equal forms in the declarations an example reaches:
// a path taken in one version leads to the same form in the other, at
// the place and with the text the latter gives it.
func (r *Result) DeclForm(file, name string, path []int) (src []byte, sp syntax.Span, ok bool) {
	if file != "" {
		r = importedFrom(r, file, map[*Result]bool{})
	}
	v := importedVersion(r)
	if v == nil {
		return nil, sp, false
	}
	j, found := v.first[name]
	if !found || j >= len(v.decls) {
		return nil, sp, false
	}
	f := v.mod.Decls[j].Base().Form
	if f == nil {
		return nil, sp, false
	}
	shift := v.decls[j].start - f.Span().Start
	for _, k := range path {
		items := f.Items()
		if k < 0 || k >= len(items) {
			return nil, sp, false
		}
		f = items[k]
	}
	sp = f.Span()
	sp.Start, sp.End = sp.Start+shift, sp.End+shift
	if sp.Start < 0 || sp.End > len(v.src) || sp.Start > sp.End {
		return nil, sp, false
	}
	return v.src, sp, true
}

// DeclTree returns the form of the first declaration named name of r's
// module (file "") or of the module r imports, directly or not, from
// file, as r holds it (the tree an interpreter of r runs, whose offsets
// may be those of an older text: see ExampleFunc.Shift); nil when there
// is none.
func (r *Result) DeclTree(file, name string) *syntax.Form {
	if file != "" {
		r = importedFrom(r, file, map[*Result]bool{})
	}
	if r == nil || r.File == nil || r.File.Module == nil {
		return nil
	}
	for _, d := range r.File.Module.Decls {
		if b := d.Base(); b.Name.Name == name {
			return b.Form
		}
	}
	return nil
}

// sortedImports returns r's imports by name: those its checker resolved
// when it has them (an engine answer's), else Result.Imports.
func sortedImports(r *Result) []*ImportInfo {
	var imps []*ImportInfo
	if r.checker != nil && len(r.checker.imports) > 0 {
		for _, im := range r.checker.imports {
			imps = append(imps, im)
		}
	} else {
		imps = append(imps, r.Imports...)
	}
	sort.Slice(imps, func(i, j int) bool { return imps[i].Name < imps[j].Name })
	return imps
}

// ResolvedImports returns r's resolved imports, sorted by name: those its
// checker resolved when it has them (an engine answer's, whose
// Result.Imports may be empty), else Result.Imports. Their results are
// the imported modules' results r read (at the texts r's check saw).
func (r *Result) ResolvedImports() []*ImportInfo {
	if r == nil {
		return nil
	}
	return sortedImports(r)
}

// importedFrom returns the result of the module r imports, directly or
// not, from file; nil when there is none.
func importedFrom(r *Result, file string, seen map[*Result]bool) *Result {
	if r == nil || seen[r] {
		return nil
	}
	seen[r] = true
	imps := sortedImports(r)
	for _, im := range imps {
		if im.Imported != nil && im.Result != nil && im.File == file {
			return im.Result
		}
	}
	for _, im := range imps {
		if im.Imported != nil && im.Result != nil {
			if found := importedFrom(im.Result, file, seen); found != nil {
				return found
			}
		}
	}
	return nil
}

// brokenImport returns the file of the first module (by file name) with
// errors among those imports reach, transitively, or "": the interpreter
// runs no example of a module that imports one (the message names it),
// whether its function reaches that module or not.
func brokenImport(imports map[string]*ImportInfo) string {
	seen := map[*Result]bool{}
	var files []string
	var walk func(ims []*ImportInfo)
	walk = func(ims []*ImportInfo) {
		for _, im := range ims {
			if im.Imported == nil || im.Result == nil || seen[im.Result] {
				continue
			}
			seen[im.Result] = true
			if im.Result.HasErrors() {
				files = append(files, im.File)
			}
			walk(im.Result.Imports)
		}
	}
	var root []*ImportInfo
	for _, im := range imports {
		root = append(root, im)
	}
	walk(root)
	if len(files) == 0 {
		return ""
	}
	sort.Strings(files)
	return files[0]
}

// importedText hashes the text of an imported module and of every module
// it imports, transitively; a module without its text hashes to a value
// no other has.
func importedText(r *Result, memo map[*Result]uint64) uint64 {
	if x, ok := memo[r]; ok {
		return x
	}
	memo[r] = mix(versions.Add(1), 9) // (an import cycle: never the same)
	if r.File == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return memo[r]
	}
	x := mix(10, maphash.Bytes(seed, r.File.Source.CST.Src), hashString(r.Path))
	imps := sortedImports(r)
	for _, im := range imps {
		if im.Imported != nil && im.Result != nil {
			x = mix(x, hashString(im.Name), importedText(im.Result, memo))
		}
	}
	memo[r] = x
	return x
}

// ExampleScope checks, as a module of their own, the declarations the
// given functions of r's module reach (ExampleFuncs), under r's module
// header and with r's imports, and returns that check: the interpreter
// runs the functions' examples from it as it would from a full check of
// the file, without the declarations they cannot reach. The trees are
// r's (a kept declaration's offsets are those of the text it was built
// from: the result's diagnostics and spans are not the file's). ok is
// false when r keeps no engine state, or when the scope does not check
// without errors (the reach missed something the examples need: the
// caller evaluates them from a full check).
func (r *Result) ExampleScope(fns []ExampleFunc) (*Result, bool) {
	v := r.exampleVersion()
	if v == nil {
		return nil, false
	}
	roots := make([]int, len(fns))
	for k, f := range fns {
		if f.Index < 0 || f.Index >= len(v.mod.Decls) || v.mod.Decls[f.Index] != f.Fn {
			return nil, false
		}
		roots[k] = f.Index
	}
	decls, _ := v.reach(roots)
	sub := *v.mod
	sub.Decls = make([]ast.Decl, len(decls))
	for k, j := range decls {
		sub.Decls[k] = v.mod.Decls[j]
	}
	imp := scopeImporter{}
	for _, im := range r.checker.imports {
		if im.Imported != nil && im.Import != nil {
			imp[im.Import.Path.Name] = completeImported(im.Imported)
		}
	}
	// (the file's source: the interpreter quotes clauses from it, see
	// interp.Interp.Shift)
	res := Check(&ast.File{Source: r.File.Source, Module: &sub}, Options{Path: r.Path, Importer: imp, Once: true})
	if res.HasErrors() {
		return nil, false
	}
	return res, true
}

// completeImported returns imp, or, when its result is not complete (an
// engine answer made importable keeps no expression types for the bodies
// it reused, and the interpreter needs them to run an imported function),
// imp with a one-shot full check of the same text, whose own imports are
// completed the same way. The check is made once per result (kept by its
// checker): every importer whose examples read it shares it.
func completeImported(imp *Imported) *Imported {
	r := imp.Result
	if r == nil || r.Complete() || r.File == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return imp
	}
	full := func() *Result {
		if CompletionHook != nil {
			CompletionHook(r.Path)
		}
		sub := scopeImporter{}
		for _, im := range r.Imports {
			if im.Imported != nil && im.Import != nil {
				sub[im.Import.Path.Name] = completeImported(im.Imported)
			}
		}
		return Check(currentTree(r), Options{Path: r.Path, Importer: sub, Once: true})
	}
	var res *Result
	if c := r.checker; c != nil {
		c.fullOnce.Do(func() { c.full = full() })
		res = c.full
	} else {
		res = full() // (a result that keeps no checker: nowhere to keep it)
	}
	return &Imported{File: imp.File, Module: res.File.Module, Hash: imp.Hash, Result: res}
}

// currentTree returns r's tree when it is at its text's offsets (the
// checks of it here only read it), else r's text read and built again
// (an engine answer, whose text keeps its nodes; a file the loader read
// keeps none, and its tree is current).
func currentTree(r *Result) *ast.File {
	if r.TreeCurrent() {
		return r.File
	}
	return ast.Build(syntax.Read(r.File.Source.CST))
}

// scopeImporter answers the imports as the check of the whole file
// resolved them.
type scopeImporter map[string]*Imported

func (s scopeImporter) Import(from, path string) (*Imported, error) {
	if imp := s[path]; imp != nil {
		return imp, nil
	}
	return nil, &ImportError{Code: "E_IMPORT_NOT_FOUND", Message: "not resolved by the file's check: " + path}
}
