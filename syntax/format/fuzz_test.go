package format

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode"

	"github.com/capsulang/caps/syntax"
)

// FuzzFormat checks that formatting never panics and that whatever formats
// is idempotent and keeps the forms and comments of its input. Range
// formatting of a slice of the input must agree with Source.
//
//	go test ./syntax/format -run '^$' -fuzz FuzzFormat -fuzztime 1m
func FuzzFormat(f *testing.F) {
	ins, _ := filepath.Glob(filepath.Join(goldenDir, "*.caps"))
	ins = append(ins, exampleFiles(f)...)
	for _, in := range ins {
		if src, err := os.ReadFile(in); err == nil {
			f.Add(src, uint16(len(src)/3), uint16(len(src)/2))
		}
	}
	for _, s := range []string{
		"", "(", ")", "()", "(()", "; c", "(a ; c\n)", "( ; c\n)", "(a\n; c\n)",
		"(a (b ; c\n) ; d\n)", "(module m (f x ; c\n))", "x ; c\r\ny", "(a\rb)",
		"\"\\u{1F600}\" ; 😀", "(state s (type final) ; c\n)", "((a) ; c\n b)",
		"(f (g ; c\n x) y)", "(event E (x U64) ; c\n)", "(type T ; c\n (record (a U8) (b U8)))",
	} {
		f.Add([]byte(s), uint16(0), uint16(len(s)))
	}
	f.Fuzz(func(t *testing.T, src []byte, x, y uint16) {
		orig := bytes.Clone(src)
		out, err := Source(src)
		if !bytes.Equal(src, orig) {
			t.Fatal("Source modified its input")
		}
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		checkInvariants(t, out)
		checkParts(t, src)
		again, err := Source(out)
		if err != nil {
			t.Fatalf("formatting the output: %v\ninput:  %q\noutput: %q", err, src, out)
		}
		if !bytes.Equal(out, again) {
			t.Fatalf("not idempotent\ninput: %q\nonce:  %q\ntwice: %q", src, out, again)
		}
		a, b := summary(t, src), summary(t, out)
		if !equalSummary(a, b) {
			t.Fatalf("forms or comments changed\ninput:  %q\noutput: %q", src, out)
		}

		start, end := int(x)%(len(src)+1), int(y)%(len(src)+1)
		if start > end {
			start, end = end, start
		}
		ns, ne, text, err := Range(src, start, end)
		if err != nil {
			t.Fatalf("Range(%d, %d): %v", start, end, err)
		}
		edited := apply(src, ns, ne, text)
		full, err := Source([]byte(edited))
		if err != nil || !bytes.Equal(full, out) {
			t.Fatalf("Range(%d, %d) result formats differently (%v)\ninput:  %q\nedited: %q", start, end, err, src, edited)
		}
	})
}

// formSummary is an independent record of a file's forms and comments.
type formSummary struct {
	forms    []string // preorder: "(" n, or the atom's source text
	comments []string
}

func summary(t *testing.T, src []byte) formSummary {
	c, err := syntax.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	rd := syntax.Read(c)
	var s formSummary
	var walk func(fs []*syntax.Form)
	walk = func(fs []*syntax.Form) {
		for _, f := range fs {
			if f.Kind == syntax.FormList {
				s.forms = append(s.forms, "("+string(rune('0'+len(f.Items())%10)))
				walk(f.Items())
				s.forms = append(s.forms, ")")
				continue
			}
			s.forms = append(s.forms, f.Kind.String()+" "+string(src[f.Span().Start:f.Span().End]))
		}
	}
	walk(rd.Forms)
	for _, sp := range rd.Comments {
		s.comments = append(s.comments, string(bytes.TrimRightFunc(src[sp.Start:sp.End], unicode.IsSpace)))
	}
	return s
}

func equalSummary(a, b formSummary) bool {
	if len(a.forms) != len(b.forms) || len(a.comments) != len(b.comments) {
		return false
	}
	for i := range a.forms {
		if a.forms[i] != b.forms[i] {
			return false
		}
	}
	for i := range a.comments {
		if a.comments[i] != b.comments[i] {
			return false
		}
	}
	return true
}
