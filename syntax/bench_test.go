package syntax

import (
	"context"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/capsulang/caps/bench/gen"
)

// BenchmarkTreeSitterParse10k is the reference: tree-sitter's own C parser
// on a 10,000-line module, without building our CST.
func BenchmarkTreeSitterParse10k(b *testing.B) {
	src := gen.Module(10000)
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(Language())
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t, err := p.ParseCtx(context.Background(), nil, src)
		if err != nil {
			b.Fatal(err)
		}
		t.Close()
	}
}

// BenchmarkParse10k is a full parse into our CST (the node array and line
// index). The module has no syntax error, so the scanner builds it, not
// tree-sitter (see scan.go); BenchmarkTreeSitterParse10k is the peer.
func BenchmarkParse10k(b *testing.B) {
	src := gen.Module(10000)
	p := NewParser()
	defer p.Close()
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

func editPoint(src []byte) int {
	off := len(src) / 2
	for src[off] != ' ' {
		off++
	}
	return off
}

// BenchmarkReparse10k is tree-sitter's incremental reparse after a
// one-character edit in a 10,000-line file.
func BenchmarkReparse10k(b *testing.B) {
	src := gen.Module(10000)
	benchReparse(b, src, editPoint(src))
}

// BenchmarkIncrementalEdit10k is a one-character edit through Document:
// reparse plus our flattened CST of the new tree.
func BenchmarkIncrementalEdit10k(b *testing.B) {
	src := gen.Module(10000)
	d, err := NewDocument(src)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	off := editPoint(src)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			d.Edit(off, off, []byte(" "))
		} else {
			d.Edit(off, off+1, nil)
		}
	}
}

// BenchmarkRead10k turns a 10,000-line CST into forms.
func BenchmarkRead10k(b *testing.B) {
	c, err := Parse(gen.Module(10000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Read(c)
	}
}

// BenchmarkEdit100k is a one-character edit through Document on a
// 100,000-line module shaped like the spec's examples, alternately
// inserting and deleting a space inside a declaration in the middle: the
// per-edit cost of the language server's syntax layer (reparse, CST,
// line table).
func BenchmarkEdit100k(b *testing.B) {
	src := specModule(b, 100000)
	d, err := NewDocument(src)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	off := strings.Index(string(src[len(src)/2:]), "(transition ") + len(src)/2 + len("(transition")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		if i%2 == 0 {
			err = d.Edit(off, off, []byte(" "))
		} else {
			err = d.Edit(off, off+1, nil)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// specModule is bench/lspbench's module: lines lines shaped like the
// spec's example modules.
func specModule(b *testing.B, lines int) []byte {
	src, err := gen.SpecShapedFrom("../examples", lines)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

// BenchmarkReparse100k is tree-sitter's incremental reparse alone after a
// one-character edit in BenchmarkEdit100k's module: the floor of an edit.
func BenchmarkReparse100k(b *testing.B) {
	src := specModule(b, 100000)
	off := strings.Index(string(src[len(src)/2:]), "(transition ") + len(src)/2 + len("(transition")
	benchReparse(b, src, off)
}

// benchReparse times tree-sitter's incremental reparse of src after a
// one-character edit at off, inserted and deleted in turn.
func benchReparse(b *testing.B, src []byte, off int) {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(Language())
	tree, _ := p.ParseCtx(context.Background(), nil, src)
	lines := NewMapper(src)
	cur := src
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var next []byte
		var e sitter.EditInput
		pt := point(lines, off)
		if i%2 == 0 {
			next = append(append(append([]byte{}, cur[:off]...), ' '), cur[off:]...)
			e = sitter.EditInput{StartIndex: uint32(off), OldEndIndex: uint32(off), NewEndIndex: uint32(off + 1), StartPoint: pt, OldEndPoint: pt, NewEndPoint: sitter.Point{Row: pt.Row, Column: pt.Column + 1}}
		} else {
			next = append(append([]byte{}, cur[:off]...), cur[off+1:]...)
			e = sitter.EditInput{StartIndex: uint32(off), OldEndIndex: uint32(off + 1), NewEndIndex: uint32(off), StartPoint: pt, OldEndPoint: sitter.Point{Row: pt.Row, Column: pt.Column + 1}, NewEndPoint: pt}
		}
		tree.Edit(e)
		nt, err := p.ParseCtx(context.Background(), tree, next)
		if err != nil {
			b.Fatal(err)
		}
		tree.Close()
		tree, cur = nt, next
	}
	tree.Close()
}
