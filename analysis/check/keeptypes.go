package check

// This file keeps, across an engine run, the base's type objects of the
// type declarations whose resolution cannot have changed. Records, enums
// and variants are compared by identity (types.Identical): a run that
// made them anew would make every type, signature and expression type
// resolved against the base's objects a different type, in this file and
// in the files importing it.

import (
	"strings"

	"github.com/capsulang/caps/analysis/types"
	"github.com/capsulang/caps/syntax/ast"
)

// cachedType returns the type c's check (or, for a fast Recheck's
// checker, one of its bases') resolved for td.
func (c *checker) cachedType(td *ast.TypeDecl) (types.Type, bool) {
	for b := c; b != nil; b = b.base {
		if t, ok := b.typeCache[td]; ok {
			return t, true
		}
	}
	return nil, false
}

// keepTypes decides, after plan aligned the new version's declarations
// with the base's and before their interfaces are resolved, which type
// declarations keep the base's resolved type: those aligned with a base
// type declaration (the same text) whose resolution read the same
// things, as its base's recorded lookups tell:
//   - each name finds nothing in both versions, the declaration itself,
//     or declarations aligned with each other, a type declaration among
//     them keeping its type too (the largest such set: declarations that
//     refer to each other keep theirs together);
//   - each module fact has the same value, and an imported member
//     (ALIAS.MEMBER) is the same type object in the new imports as in
//     the base's (an import made anew, by a full check of its text, has
//     the same interface with other objects: nothing that reads them is
//     kept then).
//
// Nothing is kept when the imports are not resolved as the base's were
// (a body's lookups of names of an import that failed are not recorded).
func (e *engineRun) keepTypes(c *checker) {
	if e.base == nil || e.importsChanged || len(e.base.typeCache) == 0 && e.base.base == nil || !sameResolution(e.base, c) {
		// (a base that resolved no type keeps none)
		return
	}
	old, cur, m := e.old, e.cur, c.mod
	inv := inverse(e.align, len(old.decls))
	stable := make([]bool, len(old.decls))
	kept := make([]types.Type, len(old.decls))
	some := false
	for j, d := range old.mod.Decls {
		td, ok := d.(*ast.TypeDecl)
		if !ok || inv[j] < 0 || old.untrusted != nil && old.untrusted[j] {
			continue
		}
		if _, ok := m.Decls[inv[j]].(*ast.TypeDecl); !ok {
			continue
		}
		if t, ok := e.base.cachedType(td); ok && t != nil {
			stable[j], kept[j], some = true, t, true
		}
	}
	if !some {
		return
	}
	stands := func(j int) bool {
		p1 := &old.info[j].p1
		for _, n := range p1.names {
			oj, inOld := old.first[n]
			ni, inCur := cur.first[n]
			switch {
			case inOld != inCur:
				return false
			case !inOld:
				continue
			case oj == j:
				if ni != inv[j] {
					return false
				}
				continue
			case e.align[ni] != oj:
				return false
			}
			if _, ok := old.mod.Decls[oj].(*ast.TypeDecl); ok && !stable[oj] {
				return false
			}
		}
		for _, k := range p1.keys {
			if k == keyVariants || old.keyValue(k) != cur.keyValue(k) {
				return false
			}
			if strings.HasPrefix(k, keyImport) && !sameImportedType(old.imports, cur.imports, k[len(keyImport):]) {
				return false
			}
		}
		return true
	}
	for changed := true; changed; {
		changed = false
		for j, s := range stable {
			if s && !stands(j) {
				stable[j], changed = false, true
			}
		}
	}
	e.keep = make([]types.Type, len(m.Decls))
	for j, s := range stable {
		if s {
			e.keep[inv[j]] = kept[j]
			e.keptTypes++
		}
	}
}

// keptType returns the base's type for the type declaration td of the
// new version when it keeps it (keepTypes).
func (e *engineRun) keptType(c *checker, td *ast.TypeDecl) (types.Type, bool) {
	if e == nil || e.keep == nil {
		return nil, false
	}
	i, ok := c.index[td]
	if !ok || e.keep[i] == nil {
		return nil, false
	}
	return e.keep[i], true
}

// sameImportedType reports whether the member name (ALIAS.MEMBER) that a
// check finds in imports a is the same, with the same type object, as
// the one it finds in imports b (both found nowhere, or with no type,
// count as the same).
func sameImportedType(a, b map[string]*ImportInfo, name string) bool {
	dot := strings.IndexByte(name, '.')
	if dot < 0 {
		return true
	}
	x, y := importedDecl(a[name[:dot]], name[dot+1:]), importedDecl(b[name[:dot]], name[dot+1:])
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return x.Type == y.Type
}

// importedDecl is the symbol lookupDecl finds for member in imp: the
// first declaration of that name among its module's symbols.
func importedDecl(imp *ImportInfo, member string) *Symbol {
	if imp == nil || imp.Imported == nil || imp.Result == nil {
		return nil
	}
	r := imp.Result
	if ic := r.checker; ic != nil && ic.base == nil && !ic.kept && ic.decls != nil {
		if s := ic.decls[member]; s != nil && s.Decl != nil {
			return s
		}
	}
	for _, s := range r.Symbols {
		if s.Name == member && s.Decl != nil {
			return s
		}
	}
	return nil
}
