package machine_test

import (
	"testing"

	"github.com/capsulang/caps/runtime/machine"
	"github.com/capsulang/caps/runtime/value"
)

// BenchCycle is the event stream of the stepping benchmarks, repeated:
// one claim approved (4 transitions), one refused by the guard and then
// rejected (4 transitions and a failed event). bench/xstate/bench.mjs
// sends XState the same stream; one op is one event.
func BenchCycle() []machine.Event {
	submit := machine.Event{Name: "SubmitClaim", Payload: map[string]value.Value{"claim_id": value.U64(4242)}}
	low := machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"review_score": value.U32(20)}}
	high := machine.Event{Name: "ReviewCompleted", Payload: map[string]value.Value{"review_score": value.U32(50)}}
	approve := machine.Event{Name: "Approve", Payload: map[string]value.Value{}}
	reject := machine.Event{Name: "Reject", Payload: map[string]value.Value{}}
	archive := machine.Event{Name: "Archive", Payload: map[string]value.Value{}}
	return []machine.Event{submit, low, approve, archive, submit, high, approve, reject, archive}
}

// wantStates are the states after each event of BenchCycle.
var wantStates = []string{"awaiting_review", "awaiting_human_decision", "accepted", "idle",
	"awaiting_review", "awaiting_human_decision", "awaiting_human_decision", "rejected", "idle"}

func TestBenchCycle(t *testing.T) {
	m := compile(t, "testdata/claim_review.caps", "ClaimReview")
	inst, _ := m.NewInstance(machine.InstanceOptions{})
	for n, ev := range BenchCycle() {
		r := inst.Step(ev)
		if r.To != wantStates[n] || r.OK != (n != 6) {
			t.Fatalf("event %d %s: %s ok=%v %+v", n, ev.Name, r.To, r.OK, r.Failure)
		}
	}
	if got := string(m.ContextJSON(inst.Context())); got != `{"claim_id":"4242","review_score":50,"approved":false,"reviews":2}` {
		t.Errorf("context %s", got)
	}
}

// BenchmarkDryRunStep measures dry-run stepping of the ClaimReview
// machine: validate the payload, find the transition, evaluate its guard,
// apply its assignments, plan its effect intents, take the snapshot. One
// op is one event. `make bench` compares it with XState's transition().
func BenchmarkDryRunStep(b *testing.B) {
	m := compile(b, "testdata/claim_review.caps", "ClaimReview")
	inst, _ := m.NewInstance(machine.InstanceOptions{})
	evs := BenchCycle()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		r := inst.Step(evs[n%len(evs)])
		if r.To == "" {
			b.Fatal("no state")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
}

// BenchmarkTracedStep is BenchmarkDryRunStep with semantic trace records.
func BenchmarkTracedStep(b *testing.B) {
	m := compile(b, "testdata/claim_review.caps", "ClaimReview")
	inst, _ := m.NewInstance(machine.InstanceOptions{Trace: true})
	evs := BenchCycle()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		inst.Step(evs[n%len(evs)])
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
}

// TestGovernedBenchCycle: the governed benchmark machine takes the same
// states as the ungoverned one, and every intent is decided (and
// allowed) by its policy.
func TestGovernedBenchCycle(t *testing.T) {
	m := compile(t, "testdata/claim_review_governed.caps", "ClaimReview")
	if !m.Governed() {
		t.Fatal("not governed")
	}
	inst, _ := m.NewInstance(machine.InstanceOptions{})
	decided := 0
	for n, ev := range BenchCycle() {
		r := inst.Step(ev)
		if r.To != wantStates[n] || r.OK != (n != 6) {
			t.Fatalf("event %d %s: %s ok=%v %+v", n, ev.Name, r.To, r.OK, r.Failure)
		}
		for _, e := range r.Effects {
			if e.Authority == nil || e.Authority.Policy != "ClaimPolicy" || !e.Authority.Allowed() || e.Status != machine.Planned {
				t.Fatalf("event %d: %s: %s %+v", n, e.Spec.Label(), e.Status, e.Authority)
			}
			decided++
		}
	}
	if decided != 15 {
		t.Errorf("%d intents decided, want 15", decided)
	}
}

// BenchmarkGovernedDryRunStep is BenchmarkDryRunStep on the same machine
// governed by an authority-policy: every intent is decided (conditions
// evaluated, mandate validity and scope checked) before it is planned.
// `make bench` reports its ratio to BenchmarkDryRunStep (issue 12: at
// most 1.2).
func BenchmarkGovernedDryRunStep(b *testing.B) {
	m := compile(b, "testdata/claim_review_governed.caps", "ClaimReview")
	inst, _ := m.NewInstance(machine.InstanceOptions{})
	evs := BenchCycle()
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		r := inst.Step(evs[n%len(evs)])
		if r.To == "" {
			b.Fatal("no state")
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "transitions/s")
}
