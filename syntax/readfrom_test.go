package syntax

import (
	"github.com/capsulang/caps/bench/gen"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// errorEdit makes one random edit of the kinds that leave a list open or
// a parenthesis stray while typing.
func errorEdit(r *rand.Rand, text string) string {
	at := r.Intn(len(text) + 1)
	switch r.Intn(6) {
	case 0: // open a list
		return text[:at] + "(" + text[at:]
	case 1: // open a list and type into it
		return text[:at] + "(foo bar " + text[at:]
	case 2: // delete a closing parenthesis
		if i := strings.IndexByte(text[at:], ')'); i >= 0 {
			return text[:at+i] + text[at+i+1:]
		}
	case 3: // a stray closing parenthesis
		return text[:at] + ")" + text[at:]
	case 4: // delete a few bytes
		n := min(len(text)-at, 1+r.Intn(20))
		return text[:at] + text[at+n:]
	case 5: // a new line opening a declaration at an indentation
		if i := strings.IndexByte(text[at:], '\n'); i >= 0 {
			return text[:at+i+1] + strings.Repeat(" ", r.Intn(7)) + "(function f\n" + text[at+i+1:]
		}
	}
	return text[:at] + "(" + text[at:]
}

// commonEnds returns the lengths of a's and b's common prefix and suffix,
// which do not overlap in either, a byte at a time (the reference
// TestSharedEnds holds SharedEnds to).
func commonEnds(a, b string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// TestReadFromMatchesRead is a differential test: random edits of the
// examples that leave a syntax error, read from the edited item until the
// reader is back between the module's items, give the module Read gives
// the whole text (the items before from the base's, those read, then the
// base's again, moved by the edit's shift); ReadFrom declines only when
// the parentheses balance (Read does not recover then).
func TestReadFromMatchesRead(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.caps")
	if len(files) == 0 {
		t.Fatal("no examples")
	}
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	r := rand.New(rand.NewSource(17))
	why := map[string]int{}
	var cases, read, declined, stable, unstable int
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(src)
		c0, err := Parse(src)
		if err != nil || c0.HasError(0) {
			t.Fatalf("%s: %v", file, err)
		}
		base := Read(c0)
		// the base read with the recovery must read as without it
		rb := &Source{CST: c0}
		rb.assemble(rb.tokens(), true)
		if len(rb.Forms) != len(base.Forms) {
			unstable++
			continue
		}
		same := true
		for i := range rb.Forms {
			same = same && sameShifted(base.Forms[i], rb.Forms[i], 0)
		}
		if !same {
			unstable++
			continue
		}
		stable++
		var mod *Form
		mi := -1
		for i, f := range base.Forms {
			if f.Head() == "module" {
				mod, mi = f, i
			}
		}
		if mod == nil {
			continue
		}
		for round := 0; round < rounds; round++ {
			next := errorEdit(r, text)
			c1, err := Parse([]byte(next))
			if err != nil {
				t.Fatal(err)
			}
			if !c1.HasError(0) {
				continue
			}
			pre, suf := commonEnds(text, next)
			shift := len(next) - len(text)
			// the last list item of the module whose '(' is before the
			// edit and starts its line
			from := -1
			for _, it := range mod.Items() {
				st := it.Span().Start
				if it.Kind != FormList || st+1 > pre {
					continue
				}
				if ls := c0.Lines.LineStart(c0.Lines.Line(st)); strings.TrimSpace(text[ls:st]) == "" {
					from = st
				}
			}
			if from < 0 {
				continue
			}
			cases++
			whole := Read(c1)
			starts := map[int]bool{}
			for _, it := range mod.Items() {
				starts[it.Span().Start+shift] = true
			}
			res, ok := ReadFrom(c1, mod.Span().Start, from, len(next)-suf, func(off int) bool { return starts[off] })
			if !ok {
				declined++
				// a read of the whole text is needed: the module stays
				// open to the end, or the parentheses balance
				wmod := whole.Forms[len(whole.Forms)-1]
				for _, f := range whole.Forms {
					if f.Span().Start == mod.Span().Start {
						wmod = f
					}
				}
				if unbalanced(c1) {
					t.Errorf("%s: edit at %d: ReadFrom declined, but the parentheses do not balance (the whole read recovers, the module at %v closed %v)", file, pre, wmod.Span(), wmod.Closed)
				}
				if wmod.Span().Start == mod.Span().Start && wmod.Closed {
					why["declined, the module closed"]++
				}
				continue
			}
			read++
			// what Read gives the whole text: the base's forms before the
			// module, the module with the base's items before from, the
			// items read and, when the read stopped before the module's
			// end, the base's items from the stop on and the base's
			// forms after the module; else the forms read after it
			type want struct {
				f     *Form
				shift int
			}
			var items, forms []want
			for _, it := range mod.Items() {
				if it.Span().Start < from {
					items = append(items, want{it, 0})
				}
			}
			for _, it := range res.Forms {
				items = append(items, want{it, 0})
			}
			wantMod := &Form{start: uint32(mod.Span().Start), end: uint32(mod.Span().End + shift), Kind: FormList, Closed: true}
			if res.List == nil {
				for _, it := range mod.Items() {
					if it.Span().Start >= res.Stop-shift && it.Span().Start >= from {
						items = append(items, want{it, shift})
					}
				}
			} else {
				wantMod = res.List
			}
			for i, f := range base.Forms {
				switch {
				case i < mi:
					forms = append(forms, want{f, 0})
				case i == mi:
					forms = append(forms, want{wantMod, 0})
				case res.List == nil:
					forms = append(forms, want{f, shift})
				}
			}
			for _, f := range res.After {
				forms = append(forms, want{f, 0})
			}
			if len(whole.Forms) != len(forms) {
				t.Fatalf("%s: edit at %d: the whole read has %d top-level forms, want %d\n%s", file, pre, len(whole.Forms), len(forms), next[max(0, pre-80):min(len(next), pre+80)])
			}
			for i, f := range whole.Forms {
				w := forms[i]
				if i != mi {
					if !sameShifted(w.f, f, w.shift) {
						t.Fatalf("%s: edit at %d: top-level form %d reads %s, want %s", file, pre, i, sexp([]*Form{f}), sexp([]*Form{w.f}))
					}
					continue
				}
				if f.Closed != w.f.Closed || f.Span() != w.f.Span() || len(f.Items()) != len(items) {
					t.Fatalf("%s: edit at %d: the whole read's module %v closed %v with %d items, want %v closed %v with %d (stop %d)\n%s", file, pre, f.Span(), f.Closed, len(f.Items()), w.f.Span(), w.f.Closed, len(items), res.Stop, next[max(0, pre-80):min(len(next), pre+80)])
				}
				for k, it := range f.Items() {
					if !sameShifted(items[k].f, it, items[k].shift) {
						t.Fatalf("%s: edit at %d: module item %d reads %s, ReadFrom and the base give %s (shift %d)", file, pre, k, sexp([]*Form{it}), sexp([]*Form{items[k].f}), items[k].shift)
					}
				}
			}
		}
	}
	t.Log(why)
	t.Logf("%d bases (%d the recovery reads differently), %d edits with a syntax error: %d read from the edit, %d declined", stable+unstable, unstable, cases, read, declined)
	if read < cases*9/10 {
		t.Errorf("ReadFrom read %d of %d edits", read, cases)
	}
}

// unbalanced reports whether c's parentheses do not balance (Read then
// reads it with the recovery).
func unbalanced(c *CST) bool {
	s := &Source{CST: c}
	return !s.assemble(s.tokens(), false)
}

// BenchmarkReadFrom compares, on a 10,000-line spec-shaped module with a
// ')' deleted in its middle (a list left open, as while typing), Read of
// the whole text with ReadFrom from the edited declaration.
func BenchmarkReadFrom(b *testing.B) {
	src, err := gen.SpecShapedFrom("../examples", 10000)
	if err != nil {
		b.Fatal(err)
	}
	text := string(src)
	c0, err := Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	base := Read(c0)
	var mod *Form
	for _, f := range base.Forms {
		if f.Head() == "module" {
			mod = f
		}
	}
	at := strings.Index(text[len(text)/2:], "(target awaiting_human_decision)") + len(text)/2 + len("(target ")
	open := strings.Index(text[at:], ")") + at
	broken := text[:open] + text[open+1:]
	c1, err := Parse([]byte(broken))
	if err != nil || !c1.HasError(0) {
		b.Fatal("the edit left no syntax error", err)
	}
	from := -1
	for _, it := range mod.Items() {
		if it.Kind == FormList && it.Span().Start < open {
			from = it.Span().Start
		}
	}
	starts := map[int]bool{}
	for _, it := range mod.Items() {
		starts[it.Span().Start-1] = true
	}
	between := func(off int) bool { return starts[off] }
	b.Run("whole", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			Read(c1)
		}
	})
	b.Run("from-edit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			res, ok := ReadFrom(c1, mod.Span().Start, from, open, between)
			if !ok || res.List != nil {
				b.Fatal("ReadFrom read to the end")
			}
			b.ReportMetric(float64(res.Stop-from), "bytes-read")
		}
	})
	// "(x" typed at the end of the module's last declaration: no later
	// line closes the list by its indentation, so it takes in the
	// module's closing parenthesis and the module stays open to the end
	// of the text (ReadFrom reads from the last declaration to the end;
	// it declined that case before, and the whole text was read).
	end := len(strings.TrimRight(text, ")\n"))
	openMod := text[:end] + " (x" + text[end:]
	c2, err := Parse([]byte(openMod))
	if err != nil || !c2.HasError(0) {
		b.Fatal("the edit left no syntax error", err)
	}
	last := mod.Items()[len(mod.Items())-1].Span().Start
	b.Run("open-module-whole", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if m := Read(c2).Forms[0]; m.Closed {
				b.Fatal("the module closed")
			}
		}
	})
	b.Run("open-module-from-edit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			res, ok := ReadFrom(c2, mod.Span().Start, last, end, between)
			if !ok || res.List == nil || res.List.Closed {
				b.Fatal("ReadFrom declined or closed the module")
			}
			b.ReportMetric(float64(res.Stop-last), "bytes-read")
		}
	})
}
