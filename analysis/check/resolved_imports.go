package check

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
