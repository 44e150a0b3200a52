package ledger

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"

	"github.com/capsulang/caps/analysis/load"
	"github.com/capsulang/caps/runtime/adapters"
	"github.com/capsulang/caps/runtime/chain"
	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// vouchChecker is an observer that encodes every record like a Recorder
// and checks each payload the encoder vouches for against the full
// canonicalizer: the recorder writes those without checking them again
// (chain.File.WriteCanonical).
type vouchChecker struct {
	t        *testing.T
	enc      *Encoder
	vouched  int
	doubted  int
	doubtful []string
}

func (c *vouchChecker) check(p []byte) {
	c.t.Helper()
	if p == nil {
		return
	}
	if !c.enc.vouched() {
		c.doubted++
		c.doubtful = append(c.doubtful, string(p))
		return
	}
	c.vouched++
	got, err := chain.Canonical(p)
	if err != nil || !bytes.Equal(got, p) {
		c.t.Errorf("vouched for, but not canonical (%v):\n%s\n%s", err, p, got)
	}
}

func (c *vouchChecker) Start(i *machine.Instance) error {
	c.check(c.enc.Instance(i))
	c.check(c.enc.Snapshot(i, nil))
	return nil
}

func (c *vouchChecker) Input(i *machine.Instance, in *machine.Input) error {
	c.check(c.enc.Input(in))
	return nil
}

func (c *vouchChecker) Committed(i *machine.Instance, r *machine.StepResult) error {
	c.check(c.enc.Step(r))
	return nil
}

func (c *vouchChecker) Finished(i *machine.Instance, r *machine.StepResult) error {
	c.check(c.enc.Effects(r))
	if r.Failure == nil {
		c.check(c.enc.Snapshot(i, r))
	}
	c.check(c.enc.Trace(r))
	return nil
}

func TestVouchedPayloadsAreCanonical(t *testing.T) {
	p, err := (&load.Loader{}).Load("../machine/testdata/claim_review.caps")
	if err != nil || p.Result.HasErrors() {
		t.Fatalf("load: %v", err)
	}
	m, err := machine.Compile(p.Result, "ClaimReview", machine.Options{Hash: p.Hash})
	if err != nil {
		t.Fatal(err)
	}
	wei, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	text := value.Text
	tests := []struct {
		name  string
		ev    machine.Event
		doubt bool // the input record must not be vouched for
	}{
		{"submit", machine.Event{Name: "SubmitClaim", Payload: map[string]value.Value{"claim_id": value.U64(4242)}}, false},
		{"max u64", machine.Event{Name: "SubmitClaim", Payload: map[string]value.Value{"claim_id": value.U64(1<<64 - 1)}}, false},
		{"review", machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"review_score": value.U32(50)}}, false},
		{"approve", machine.Event{Name: "Approve", Payload: map[string]value.Value{}}, false},
		{"raw json", machine.Event{Name: "Archive", Raw: json.RawMessage(` {"b": [1, 2.50, -0e3], "a": "\u00e9\/"} `)}, false},
		{"raw not json", machine.Event{Name: "Archive", Raw: json.RawMessage(`{x`)}, false},
		{"raw invalid utf-8", machine.Event{Name: "Archive", Raw: json.RawMessage("\"a\xffb\"")}, false},
		{"odd name", machine.Event{Name: "N\"o\u0001pe\xff𝄞"}, false},
		{"undeclared fields", machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{
			"review_score": value.U32(20), "note": text("x\x01\"\\\n\té𝄞\x7f"), "bad": text("a\xffb"),
			"é": value.I64(-5), "e": value.Bool(true), "𝄞": value.WeiBig(wei), "": value.None(),
			"l": value.List([]value.Value{value.I32(-1), text("\u2028"), value.Some(value.Duration(5))}),
			"d": value.Duration(1500), "t": value.Timestamp(1700000000000), "r": value.Ok(text("ok")),
		}}, false},
		{"invalid utf-8 keys", machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"a\xff": value.U32(1), "a\xfe": value.U32(2)}}, true},
		{"invalid utf-8 key order", machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"\xff": value.U32(1), "\uFFFE": value.U32(2)}}, true},
	}
	for _, exec := range []machine.Executor{nil, adapters.NewMock(nil)} {
		c := &vouchChecker{t: t, enc: NewEncoder(m, "m.caps")}
		inst, err := m.NewInstance(machine.InstanceOptions{Executor: exec, Observer: c})
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 3; round++ {
			for _, tc := range tests {
				before := c.doubted
				inst.Step(tc.ev)
				if doubted := c.doubted > before; doubted != tc.doubt {
					t.Errorf("%s: doubted %v, want %v (%q)", tc.name, doubted, tc.doubt, c.doubtful)
				}
			}
			inst.Advance(61_000)
		}
		if c.vouched == 0 {
			t.Fatal("nothing vouched for")
		}
		t.Logf("%d payloads vouched for, %d not", c.vouched, c.doubted)
	}
}
