package capsule

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/capsulang/caps/syntax"
)

// offsetOf is the byte offset of the n-th (1-based) occurrence of needle
// in text, plus delta.
func offsetOf(t *testing.T, text []byte, needle string, n, delta int) int {
	t.Helper()
	off := -1
	for i := 0; i < n; i++ {
		k := strings.Index(string(text[off+1:]), needle)
		if k < 0 {
			t.Fatalf("%q occurs fewer than %d times", needle, n)
		}
		off += 1 + k
	}
	return off + delta
}

func TestHover(t *testing.T) {
	text := read(t, example)
	for _, tt := range []struct {
		needle   string
		n, delta int
		want     string // the first line
		extra    string // a part of the rest, or ""
		span     string // the text hovered
	}{
		{"max_amount_usd", 1, 3, "**`effects[].max_amount_usd`**", "even after approval", "max_amount_usd"},
		{"call: RefundAPI", 1, 1, "**`effects[].call`**", "Lowers to the gate action `http_call_refundapi_issue_refund` (`mcp.call GateCapsule.http_call_refundapi_issue_refund`), the capability `CapHttpCallRefundapiIssueRefund` and the EDL effect `http.call.RefundAPI.issue_refund`.", "call"},
		{"CustomerDB.claims", 1, 4, "**`effects[].read`**", "the capability `CapDbReadCustomerdbClaims`", "CustomerDB.claims"},
		{"credentials: short_lived", 1, 15, "**`identity.credentials`**", "rejected by design", "short_lived"},
		{"doorkeeper_endpoint", 1, 0, "**`runtime.doorkeeper_endpoint`**", "GateCapsule", "doorkeeper_endpoint"},
		{"ttl: 12h", 1, 1, "**`memory.stores[].ttl`**", "", "ttl"},
	} {
		t.Run(tt.needle, func(t *testing.T) {
			off := offsetOf(t, text, tt.needle, tt.n, tt.delta)
			md, span, ok := Hover(text, off)
			if !ok {
				t.Fatal("no hover")
			}
			if first := strings.SplitN(md, "\n", 2)[0]; first != tt.want {
				t.Errorf("hover starts %q, want %q", first, tt.want)
			}
			if tt.extra != "" && !strings.Contains(md, tt.extra) {
				t.Errorf("hover lacks %q:\n%s", tt.extra, md)
			}
			if got := string(text[span.Start:span.End]); got != tt.span {
				t.Errorf("hover span %q, want %q", got, tt.span)
			}
		})
	}
	if _, _, ok := Hover(text, 0); ok {
		t.Error("hover on a comment")
	}
	if _, _, ok := Hover([]byte("capsule: [0.1\n"), 2); ok {
		t.Error("hover on broken YAML")
	}
	if md, _, ok := Hover([]byte("capsule: 0.1\nbogus: 1\n"), 2); !ok || !strings.HasPrefix(md, "**`capsule`**") {
		t.Errorf("hover in a contract with errors: %q", md)
	}
}

func TestDefinition(t *testing.T) {
	text := read(t, example)
	off := offsetOf(t, text, "amount_usd > 75", 1, 3) // inside the escalation's amount_usd
	want := offsetOf(t, text, "max_amount_usd", 1, 0)
	if diff := cmp.Diff([]syntax.Span{{Start: want, End: want + len("max_amount_usd")}}, Definition(text, off)); diff != "" {
		t.Errorf("definition (-want +got):\n%s", diff)
	}
	for _, at := range []int{offsetOf(t, text, "amount_usd > 75", 1, 13), offsetOf(t, text, "max_amount_usd", 1, 2), 0} {
		if ds := Definition(text, at); ds != nil {
			t.Errorf("definition at %d: %v", at, ds)
		}
	}
}
