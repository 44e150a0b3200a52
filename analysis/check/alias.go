package check

import "hash/maphash"

// aliasValue is the value of the fact keyAlias+name in a check whose
// imports resolved as imports and failed say: whether name is an import's
// alias, one whose import failed, or none, and for an import, the file
// and module it resolves to. What an importer reads of the module's
// members is compared member by member (keyImport facts, importValue);
// the language server's quick view, which has no such records, compares
// the modules' checks as well (ResolveImports).
func aliasValue(imports map[string]*ImportInfo, failed map[string]bool, name string) uint64 {
	// (an alias may be both: an import of it failed, and a later one
	// resolved)
	f := uint64(0)
	if failed[name] {
		f = 1
	}
	imp := imports[name]
	if imp == nil {
		return mix(hashString(name), 11, f)
	}
	if imp.Imported == nil {
		return mix(hashString(name), 12, f)
	}
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(imp.File)
	h.WriteByte(0)
	if imp.Module != nil {
		h.WriteString(imp.Module.Name.Name)
	}
	return mix(hashString(name), 13, f, h.Sum64())
}

// importAlias returns the import whose alias is name (nil when none) and
// whether an import of that alias failed, recording that the current
// declaration's check read it (keyAlias).
func (c *checker) importAlias(name string) (*ImportInfo, bool) {
	c.uses(keyAlias + name)
	return c.imports[name], c.failedImports[name]
}
