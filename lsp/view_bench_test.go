package lsp

import (
	"encoding/json"
	"fmt"
	"os"

	"context"
	"github.com/capsulang/caps/lsp/lsptest"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/capsulang/caps/analysis/check"
	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/bench/gen"
	"github.com/capsulang/caps/syntax"
)

// BenchmarkRequestAfterEdit measures completion and hover sent right after
// an edit of a 10,000-line spec-shaped module: a view on the previous full
// check and the edited declaration, as the server answers them.
func BenchmarkRequestAfterEdit(b *testing.B) {
	src, err := gen.SpecShapedFrom("../examples", 10000)
	if err != nil {
		b.Fatal(err)
	}
	text := string(src)
	base := testSnapshot(b, "/tmp/spec.caps", text, nil).Package().Result
	at := strings.Index(text[len(text)/2:], "(target awaiting_human_decision)") + len(text)/2 + len("(target ")
	edited := text[:at] + "awaiting_review" + text[at+len("awaiting_human_decision"):]
	hov := strings.Index(edited[len(edited)*7/10:], "(target accepted)") + len(edited)*7/10 + len("(target ac")
	ctx := context.Background()
	for _, req := range []struct {
		name string
		f    func(context.Context, *snapshot, int) (any, error)
		off  int
	}{{"completion", completion, at + 3}, {"hover", hover, hov}} {
		b.Run(req.name, func(b *testing.B) {
			var t viewTimes
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				sn := testSnapshot(b, "/tmp/spec.caps", edited, base)
				sn.cache = &docCache{}
				b.StartTimer()
				t.request(b, ctx, sn, req.f, req.off)
			}
			t.report(b)
		})
	}
	// A hover right after a type declaration in the middle of the module
	// was renamed (its uses not yet), on a use of the old name, and a
	// completion right after a word typed after the module's end. Both
	// used to wait for a full check of the version (full-checks/op
	// counts those); the view now reads and checks again the type's
	// users only (check.Result.Users), and takes the stray word as a
	// form that declares nothing.
	declined := func(b *testing.B, base *check.Result, edited string, f func(context.Context, *snapshot, int) (any, error), off int) {
		var d time.Duration
		full := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			sn := testSnapshot(b, "/tmp/spec.caps", edited, base)
			b.StartTimer()
			t0 := time.Now()
			if _, err := f(ctx, sn, off); err != nil {
				b.Fatal(err)
			}
			d += time.Since(t0)
			if sn.done.Load() {
				full++
			}
		}
		b.ReportMetric(float64(d.Microseconds())/float64(b.N), "request-µs")
		b.ReportMetric(float64(full)/float64(b.N), "full-checks/op")
	}
	b.Run("hover-type-renamed", func(b *testing.B) {
		// the spec's examples declare few types: the 10,000 lines also
		// copy text_and_records.caps, whose alias Grams the record
		// Parcel uses, and Parcel a dozen functions
		ts, err := gen.SpecTemplates("../examples")
		if err != nil {
			b.Fatal(err)
		}
		records, err := os.ReadFile("../examples/text_and_records.caps")
		if err != nil {
			b.Fatal(err)
		}
		src, err := gen.SpecShaped(10000, append(ts, records)...)
		if err != nil {
			b.Fatal(err)
		}
		text := string(src)
		base := testSnapshot(b, "/tmp/spec.caps", text, nil).Package().Result
		td := strings.Index(text[len(text)/2:], "(type Grams_") + len(text)/2 + len("(type ")
		ne := td + strings.IndexAny(text[td:], " \n)")
		name := text[td:ne]
		use := strings.Index(text[ne:], " "+name+")") + ne + 1
		if td < len(text)/2 || use < ne+1 {
			b.Fatal("no type Grams_N in the module's second half, or no use of it after it")
		}
		renamed := text[:td] + name + "Renamed" + text[ne:]
		declined(b, base, renamed, hover, use+len("Renamed")+1)
	})
	b.Run("completion-stray-form", func(b *testing.B) {
		end := len(strings.TrimRight(text, "\n"))
		declined(b, base, text[:end]+"\nx"+text[end:], completion, at+3)
	})
	// A completion right after an edit that leaves a list open: the tree's
	// open list takes in the rest of the module, so the view reads the whole
	// text as a full check's reader does (with its recovery) and cuts the
	// units from that read.
	b.Run("completion-open-list", func(b *testing.B) {
		open := strings.Index(text[at:], ")") + at
		broken := text[:open] + text[open+1:]
		var t viewTimes
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			sn := testSnapshot(b, "/tmp/spec.caps", broken, base)
			if !sn.cst.HasError(0) {
				b.Fatal("the edit left no syntax error")
			}
			b.StartTimer()
			t.request(b, ctx, sn, completion, at+3)
		}
		t.report(b)
	})
	// The same completion on a later version with the list still open, as
	// while typing: the document's cache already knows how the reader's
	// recovery reads the base (once per base), so the view reads the text
	// from the edited declaration only.
	b.Run("completion-open-list-again", func(b *testing.B) {
		open := strings.Index(text[at:], ")") + at
		broken := text[:open] + text[open+1:]
		cache := &docCache{}
		first := testSnapshot(b, "/tmp/spec.caps", broken, base)
		first.cache = cache
		if v, why := first.quickViewWhy(); v == nil || !v.errPartial {
			b.Fatalf("the first view declined (%s) or read the whole text", why)
		}
		var t viewTimes
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			sn := testSnapshot(b, "/tmp/spec.caps", broken, base)
			sn.cache = cache
			b.StartTimer()
			t.request(b, ctx, sn, completion, at+3)
		}
		t.report(b)
	})
	// A completion right after "(x" typed in the module's last
	// declaration, on its last line: no later line ends the list by its
	// indentation, so it takes in the module's closing parenthesis and a
	// full check reads the module open to the end of the text. The view
	// reads the text from the last declaration to its end
	// (syntax.ReadFrom, as a full check's reader does; partial-reads/op
	// counts the views that did, the others read the whole text) and
	// answers from the base. The base's recovery check (once per base) is
	// made when the base is installed, as the server does (prepareBase, in
	// the background, untimed here); completion-open-module-cold is the
	// same version on a document whose request comes before that read
	// (every version pays it). full-checks/op counts the requests a full
	// check of the version answered instead (every one before the view
	// took that case).
	openModule := func(b *testing.B, prepared bool) {
		end := len(strings.TrimRight(text, ")\n"))
		broken := text[:end] + " (x" + text[end:]
		if m := testSnapshot(b, "/tmp/spec.caps", broken, nil).Package().File.Module; m == nil || m.Form.Closed {
			b.Fatal("the edit did not leave the module open")
		}
		var d time.Duration
		full, partial := 0, 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			sn := testSnapshot(b, "/tmp/spec.caps", broken, base)
			if prepared {
				sn.cache.prepareBase(base)
				sn.baseInfoOf(base).recoversAlike() // (waits for it)
			}
			b.StartTimer()
			t0 := time.Now()
			if _, err := completion(ctx, sn, end+3); err != nil {
				b.Fatal(err)
			}
			d += time.Since(t0)
			if sn.done.Load() {
				full++
			} else if v := sn.view(); v != nil && v.errPartial {
				partial++
			}
		}
		b.ReportMetric(float64(d.Microseconds())/float64(b.N), "request-µs")
		b.ReportMetric(float64(full)/float64(b.N), "full-checks/op")
		b.ReportMetric(float64(partial)/float64(b.N), "partial-reads/op")
	}
	b.Run("completion-open-module", func(b *testing.B) { openModule(b, true) })
	b.Run("completion-open-module-cold", func(b *testing.B) { openModule(b, false) })
	// The same completion on a later version with the module still open,
	// as while typing on: the document's cache already knows how the
	// reader's recovery reads the base (once per base), so the view reads
	// the text from the edited declaration only (syntax.ReadFrom reads to
	// the end of the text, where the module stays open); partial-reads/op
	// counts the views that did (none before ReadFrom read that case).
	b.Run("completion-open-module-again", func(b *testing.B) {
		end := len(strings.TrimRight(text, ")\n"))
		broken := text[:end] + " (x" + text[end:]
		cache := &docCache{}
		first := testSnapshot(b, "/tmp/spec.caps", broken, base)
		first.cache = cache
		if v, why := first.quickViewWhy(); v == nil {
			b.Fatalf("the first view declined (%s)", why)
		}
		var t viewTimes
		partial := 0
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			sn := testSnapshot(b, "/tmp/spec.caps", broken, base)
			sn.cache = cache
			b.StartTimer()
			t.request(b, ctx, sn, completion, end+3)
			if sn.view().errPartial {
				partial++
			}
		}
		t.report(b)
		b.ReportMetric(float64(partial)/float64(b.N), "partial-reads/op")
	})
	// The same completion, the edited version following from the base's
	// tree through one syntax.Document, as in the server: the units of the
	// version before are kept, and the view derives the new ones.
	b.Run("completion-typed", func(b *testing.B) {
		doc, err := syntax.NewDocument([]byte(text))
		if err != nil {
			b.Fatal(err)
		}
		defer doc.Close()
		path := "/tmp/spec.caps"
		baseSn := &snapshot{uri: protocol.DocumentURI("file://" + path), path: path, cst: doc.CST(), loader: &load.Loader{}, enc: syntax.UTF16, cache: &docCache{}}
		base := baseSn.Package().Result
		from, to := "awaiting_human_decision", "awaiting_review"
		var t viewTimes
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			cache := &docCache{}
			prev := doc.CST()
			for _, c := range []*syntax.CST{base.File.Source.CST, prev} {
				if mod, top, units, ok := moduleUnits(c); ok {
					cache.keepUnits(c, mod, top, units)
				}
			}
			if err := doc.Edit(at, at+len(from), []byte(to)); err != nil {
				b.Fatal(err)
			}
			sn := &snapshot{uri: baseSn.uri, path: path, cst: doc.CST(), loader: &load.Loader{}, enc: syntax.UTF16, cache: cache, base: base}
			b.StartTimer()
			t.request(b, ctx, sn, completion, at+3)
			b.StopTimer()
			if err := doc.Edit(at, at+len(to), []byte(from)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
		t.report(b)
	})
}

// viewTimes adds up, over a benchmark's iterations, the time a version's
// view took and the time the request took after it.
type viewTimes struct{ view, answer time.Duration }

// request builds sn's view and answers f at off from it, timing each,
// and fails when the answer came from a full check.
func (t *viewTimes) request(b *testing.B, ctx context.Context, sn *snapshot, f func(context.Context, *snapshot, int) (any, error), off int) {
	t0 := time.Now()
	sn.view()
	t1 := time.Now()
	if _, err := f(ctx, sn, off); err != nil {
		b.Fatal(err)
	}
	t.view += t1.Sub(t0)
	t.answer += time.Since(t1)
	if sn.done.Load() {
		b.Fatal("answered from a full check")
	}
}

// report reports the mean view and request times per iteration.
func (t *viewTimes) report(b *testing.B) {
	b.ReportMetric(float64(t.view.Microseconds())/float64(b.N), "view-µs")
	b.ReportMetric(float64(t.answer.Microseconds())/float64(b.N), "request-µs")
}

// BenchmarkEditThenComplete times, through the server, an edit of a
// spec-shaped module (a transition's target, toggled) followed at once by
// a completion at the edit, until the edit's diagnostics are published:
// the 10k-lines part of bench/lspbench in this process, for CPU and
// memory profiles (-benchmem counts the server's allocations per edit).
func BenchmarkEditThenComplete(b *testing.B) {
	for _, lines := range []int{10000, 100000} {
		b.Run(fmt.Sprintf("lines=%d", lines), func(b *testing.B) {
			src, err := gen.SpecShapedFrom("../examples", lines)
			if err != nil {
				b.Fatal(err)
			}
			dir := b.TempDir()
			text := string(src)
			_, c := wsServer(b, dir)
			u := protocol.DocumentURI("file://" + dir + "/spec.caps")
			c.Notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "capsulang", "version": 1, "text": text}})
			waitVersion(b, c, u, 1)
			at := strings.Index(text[len(text)/2:], "(target awaiting_human_decision)") + len(text)/2 + len("(target ")
			version := 1
			q0, f0 := quickViews.Load(), fullViews.Load()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				from, to := "awaiting_human_decision", "awaiting_review"
				if !strings.HasPrefix(text[at:], from) {
					from, to = to, from
				}
				version++
				text = replaceText(c, u, version, text, at, at+len(from), to)
				pos := utf16Pos(text, at+3)
				if err := c.Call("textDocument/completion", map[string]any{"textDocument": map[string]any{"uri": u}, "position": pos}, nil); err != nil {
					b.Fatal(err)
				}
				waitVersion(b, c, u, version)
			}
			b.ReportMetric(float64(quickViews.Load()-q0)/float64(b.N), "quick-views/op")
			b.ReportMetric(float64(fullViews.Load()-f0)/float64(b.N), "full-views/op")
		})
	}
}

// waitVersion waits for the diagnostics of version v of u.
func waitVersion(b *testing.B, c *lsptest.Client, u protocol.DocumentURI, v int) {
	_, err := c.Wait("textDocument/publishDiagnostics", func(p json.RawMessage) bool {
		var pd struct {
			URI     string
			Version int
		}
		json.Unmarshal(p, &pd)
		return pd.URI == string(u) && pd.Version == v
	})
	if err != nil {
		b.Fatal(err)
	}
}
