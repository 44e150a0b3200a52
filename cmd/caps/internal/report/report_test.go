package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/syntax"
)

func TestFileJSON(t *testing.T) {
	f := &File{Path: "a<b>.caps", Diagnostics: []Diagnostic{}}
	b, err := f.MarshalJSON()
	if err != nil || string(b) != `{"path":"a<b>.caps","diagnostics":[]}` {
		t.Errorf("%s %v", b, err)
	}
	f.Extra = struct {
		Changed bool `json:"changed"`
	}{true}
	if b, err = f.MarshalJSON(); err != nil || string(b) != `{"path":"a<b>.caps","diagnostics":[],"changed":true}` {
		t.Errorf("%s %v", b, err)
	}
	f.Extra = struct{}{}
	if b, err = f.MarshalJSON(); err != nil || string(b) != `{"path":"a<b>.caps","diagnostics":[]}` {
		t.Errorf("%s %v", b, err)
	}
	f.Extra = []int{1}
	if _, err = f.MarshalJSON(); err == nil {
		t.Error("a non-object Extra was accepted")
	}
}

// Two files; a diagnostic in the first points at the second and at a file
// the printer does not know.
var (
	srcA = &Source{Path: "a.caps", Text: []byte("(x 😀 y)\n(z")}
	srcB = &Source{Path: "b.caps", Text: []byte("\n  (y)")}
	diag = []syntax.Diagnostic{
		{Code: "E_LATE", Severity: syntax.Warning, Span: syntax.Span{Start: 11, End: 13}, Message: "second"},
		{Code: "E_DUP", Severity: syntax.Error, Span: syntax.Span{Start: 8, End: 9}, Message: "y twice",
			Related: []syntax.Related{
				{File: "b.caps", Span: syntax.Span{Start: 4, End: 5}, Message: "also here"},
				{Span: syntax.Span{Start: 1, End: 2}, Message: "same file"},
				{File: "elsewhere.caps", Message: "somewhere"},
			}},
	}
)

func TestPrinterText(t *testing.T) {
	var out, errb bytes.Buffer
	p := NewPrinter(&out, &errb, false)
	p.LookupSource = func(path string) *Source {
		if path == "b.caps" {
			return srcB
		}
		return nil
	}
	p.Add(srcA, diag)
	p.Add(&Source{Path: "-", Text: []byte("x")}, []syntax.Diagnostic{{Severity: syntax.Info, Message: "no code"}})
	if code := p.Finish(); code != 1 {
		t.Errorf("code %d", code)
	}
	want := `a.caps:1:6: error E_DUP: y twice
b.caps:2:4: note: also here
a.caps:1:2: note: same file
elsewhere.caps: note: somewhere
a.caps:2:1: warning E_LATE: second
<stdin>:1:1: info: no code
`
	if out.Len() != 0 || errb.String() != want {
		t.Errorf("stdout %q\nstderr:\n%s\nwant:\n%s", out.String(), errb.String(), want)
	}
}

func TestPrinterJSON(t *testing.T) {
	var out, errb bytes.Buffer
	p := NewPrinter(&out, &errb, true)
	p.Add(srcB, nil)
	p.Add(srcA, diag)
	p.Fail("gone.caps", &cli.LoadError{Path: "gone.caps", Msg: "no such file"})
	p.Fail("odd.caps", errors.New("odd.caps: something odd"))
	if code := p.Finish(); code != 2 {
		t.Errorf("code %d", code)
	}
	want := `{"ok":false,"files":[` +
		`{"path":"b.caps","diagnostics":[]},` +
		`{"path":"a.caps","diagnostics":[` +
		`{"code":"E_DUP","severity":"error","message":"y twice","range":{"start":{"line":0,"character":6},"end":{"line":0,"character":7}},"related":[` +
		`{"path":"b.caps","range":{"start":{"line":1,"character":3},"end":{"line":1,"character":4}},"message":"also here"},` +
		`{"path":"a.caps","range":{"start":{"line":0,"character":1},"end":{"line":0,"character":2}},"message":"same file"},` +
		`{"path":"elsewhere.caps","message":"somewhere"}]},` +
		`{"code":"E_LATE","severity":"warning","message":"second","range":{"start":{"line":1,"character":0},"end":{"line":1,"character":2}},"related":[]}]},` +
		`{"path":"gone.caps","error":"no such file","diagnostics":[]},` +
		`{"path":"odd.caps","error":"odd.caps: something odd","diagnostics":[]}]}` + "\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), want)
	}
	if errb.String() != "caps: gone.caps: no such file\ncaps: odd.caps: something odd\n" {
		t.Errorf("stderr %q", errb.String())
	}
}

func TestPrinterCodes(t *testing.T) {
	var out bytes.Buffer
	p := NewPrinter(&out, &out, true)
	if p.Finish() != 0 || out.String() != `{"ok":true,"files":[]}`+"\n" {
		t.Errorf("empty run: %q", out.String())
	}
	p = NewPrinter(&out, &out, false)
	p.Add(srcB, []syntax.Diagnostic{{Severity: syntax.Warning, Message: "w"}})
	if p.Code() != 0 {
		t.Error("a warning failed the run")
	}
	p.SetFailed()
	if p.Code() != 1 {
		t.Error("SetFailed")
	}
	p.SetError()
	p.SetFailed()
	if p.Finish() != 2 {
		t.Error("SetFailed lowered the exit code")
	}
}

// TestUnclosedListsAreLinear prints the diagnostics of many nested
// unclosed lists, each with a related location at its '(', and checks that
// converting their positions counts each byte of the text a bounded number
// of times, in both output modes.
func TestUnclosedListsAreLinear(t *testing.T) {
	text := []byte("(module m (capsule \"1.0\")\n" + strings.Repeat("(", 20000) + "\n")
	c, err := syntax.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	ds := syntax.Read(c).Diagnostics
	if len(ds) < 20000 {
		t.Fatalf("%d diagnostics, want one per unclosed list", len(ds))
	}
	for _, jsonMode := range []bool{false, true} {
		var out, errb bytes.Buffer
		p := NewPrinter(&out, &errb, jsonMode)
		p.Add(&Source{Path: "deep.caps", Text: text, Lines: c.Lines}, ds)
		p.Finish()
		scanned := 0
		for _, conv := range p.convs {
			scanned += conv.Scanned()
		}
		if scanned > 3*len(text) {
			t.Errorf("json=%v: converting %d diagnostics scanned %d bytes of a %d-byte text", jsonMode, len(ds), scanned, len(text))
		}
	}
}
