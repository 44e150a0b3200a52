package check

// This file answers, for the language server, whether a file's check
// would read the same of a module it imports if that module were
// answered by a check of its new text: the per-member interface key an
// importer is kept by when the module it imports changed.

import (
	"maps"
	"strings"
)

// SameImportReads reports whether every member of the module at file
// (an import path as ImportInfo.File names it) that r's check read (its
// keyImport facts: the names looked up as ALIAS.MEMBER, found or not)
// has the same value (importValue: the member's interface with all its
// interface reaches) when that import is answered by nr, a check of the
// module's new text, as it had in the import r's check read. When it
// does, and r imports nothing else that reaches file, a full check of
// r's text against nr gives r's diagnostics (the facts are all an
// importer's declarations read of an import; RecheckImports relies on
// the same). It is false when r kept no engine state, is a fast
// Recheck's chained answer, does not import file directly, or nr kept no
// engine state.
func (r *Result) SameImportReads(file string, nr *Result) bool {
	if r == nil || nr == nil || nr.checker == nil || r.File == nil || r.File.Source == nil || r.File.Source.CST == nil {
		return false
	}
	c := r.checker
	if c == nil || c.base != nil || c.kept || c.eng != nil || c.info == nil {
		return false
	}
	old := c.importView(r)
	aliases := map[string]bool{}
	for name, im := range old.imports {
		if im != nil && im.Imported != nil && im.File == file {
			aliases[name] = true
		}
	}
	if len(aliases) == 0 {
		return false
	}
	nv := &version{imports: maps.Clone(old.imports)}
	for a := range aliases {
		ni := *old.imports[a]
		imp := *ni.Imported
		imp.Result = nr
		ni.Imported = &imp
		nv.imports[a] = &ni
	}
	for i := range old.info {
		for _, ks := range [2][]string{old.info[i].p1.keys, old.info[i].body.keys} {
			for _, k := range ks {
				if !strings.HasPrefix(k, keyImport) {
					continue
				}
				name := k[len(keyImport):]
				alias, _, _ := strings.Cut(name, ".")
				if !aliases[alias] {
					continue
				}
				if old.importValue(name) != nv.importValue(name) {
					return false
				}
			}
		}
	}
	return true
}
