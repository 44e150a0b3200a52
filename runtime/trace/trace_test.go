package trace_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/capsulang/caps/runtime/trace"
	"github.com/google/go-cmp/cmp"
)

func TestRecordJSON(t *testing.T) {
	r := trace.Record{
		TraceID: "0123456789abcdef0123456789abcdef", SpanID: "0000000000100001", ParentSpanID: "0000000000100000",
		Event: trace.TransitionFail, Severity: trace.Error, Body: "guard \"x\" is false\n", Component: trace.ComponentMachine,
		Operation: "M.E", Service: "mod", ClockMs: 5, Seq: 2, Step: 3, CapsuleHash: "sha256:00", MachineInstanceID: "M-1",
		Machine: "M", MachineEvent: "E", FromState: "a", Reason: "guard", Expected: "true", Actual: "false",
		ErrorCode: "R_GUARD_FALSE", DurationMs: 0, Attempt: 2,
		TraceHistory: []trace.Breadcrumb{{ClockMs: 1, Event: trace.TransitionStart, Operation: "M.E", SpanID: "01", ErrorCode: "X"}},
	}
	b := r.AppendJSON(nil)
	var back trace.Record
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(r, back); diff != "" {
		t.Errorf("round trip (-want +got)\n%s", diff)
	}
	// the field names of the spec and of OpenTelemetry's log data model
	for _, k := range []string{`"trace_id"`, `"span_id"`, `"parent_span_id"`, `"severity_text"`, `"body"`, `"event"`, `"component"`,
		`"operation"`, `"service"`, `"reason"`, `"expected"`, `"actual"`, `"error_code"`, `"duration_ms"`, `"capsule_hash"`,
		`"machine_instance_id"`, `"trace_history"`} {
		if !strings.Contains(string(b), k+":") {
			t.Errorf("no %s in %s", k, b)
		}
	}
	// optional members are left out
	if s := string((&trace.Record{Event: "snapshot"}).AppendJSON(nil)); strings.Contains(s, "effect") || strings.Contains(s, "trace_history") {
		t.Errorf("%s", s)
	}
}

func TestBreadcrumbs(t *testing.T) {
	var b trace.Breadcrumbs
	if len(b.History()) != 0 {
		t.Fatal("not empty")
	}
	for i := 0; i < 40; i++ {
		b.Add(&trace.Record{ClockMs: int64(i), Event: "e"})
	}
	h := b.History()
	if len(h) != trace.MaxBreadcrumbs || h[0].ClockMs != 24 || h[len(h)-1].ClockMs != 39 {
		t.Errorf("%+v", h)
	}
}

func TestIDs(t *testing.T) {
	a, b := trace.NewIDs("inst-1"), trace.NewIDs("inst-1")
	if a.Trace(7) != b.Trace(7) || len(a.Trace(7)) != 32 || a.Trace(7) == a.Trace(8) || trace.NewIDs("inst-2").Trace(7) == a.Trace(7) {
		t.Errorf("trace ids %s %s", a.Trace(7), a.Trace(8))
	}
	if s := a.Span(1, 1); len(s) != 16 || s == strings.Repeat("0", 16) || s == a.Span(1, 2) || s == a.Span(2, 1) {
		t.Errorf("span id %s", s)
	}
}

func TestAppendStringCanonical(t *testing.T) {
	for s, want := range map[string]string{
		"plain":          `"plain"`,
		"q\"b\\":         `"q\"b\\"`,
		"\n\r\t\b\f\x01": `"\n\r\t\b\f\u0001"`,
		"é😀\u2028<&>":    "\"é😀\u2028<&>\"",
		"bad\xffutf8":    "\"bad\ufffdutf8\"",
	} {
		if got := string(trace.AppendString(nil, s)); got != want {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}

// appendStringRef is AppendString written byte by byte, as it was before
// its 8-bytes-at-a-time fast path.
func appendStringRef(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c < 0x20:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		b = utf8.AppendRune(b, r)
		i += size
	}
	return append(b, '"')
}

func TestAppendStringFastPath(t *testing.T) {
	for _, s := range []string{"", "plain ascii text, long enough", "quote\" in the middle of it", "back\\slash and more text", "ctl\x01\x1f\n\t\b\f\r and more", "é and 😀 here and there", "bad \xff utf-8 byte in a long string", "0123456789abcdef\x7f"} {
		for k := 0; k <= len(s); k++ { // every alignment
			sub := s[k:]
			if got, want := string(trace.AppendString(nil, sub)), string(appendStringRef(nil, sub)); got != want {
				t.Errorf("AppendString(%q) = %s, want %s", sub, got, want)
			}
		}
	}
}
