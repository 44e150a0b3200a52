// Package capsulang exposes the generated tree-sitter parser for Capsulang to
// Go. The C sources under ../src are generated from ../grammar.js by the
// tree-sitter CLI (ABI 14) and compiled here through cgo.
package capsulang

// #cgo CFLAGS: -std=c11 -fPIC -O2 -I${SRCDIR}/../src
// #include "../src/parser.c"
import "C"

import (
	"unsafe"

	sitter "github.com/smacker/go-tree-sitter"
)

// Language returns the tree-sitter language for Capsulang. The value is
// static; it is safe to share between parsers and goroutines.
func Language() *sitter.Language {
	return sitter.NewLanguage(unsafe.Pointer(C.tree_sitter_capsulang()))
}
