package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/capsulang/caps/cmd/caps/internal/cli"
	"github.com/capsulang/caps/runtime/ledger"
	"github.com/capsulang/caps/runtime/trace"
)

func init() {
	cli.Register(&cli.Command{
		Name:     "trace",
		Output:   func() cli.Schema { return cli.SchemaOf(traceJSON{}) },
		Effects:  cli.Effects{Reads: []string{"DIR (a machine ledger)"}, Writes: nil},
		Example:  cli.Example{Line: "caps trace --json build/ledger"},
		Negative: cli.Example{Line: "caps trace --json build/no-such-ledger", Exit: 2},
		Args:     "[--errors] [--json] DIR",
		Short:    "print the semantic trace of a machine ledger",
		Long: `Trace prints the semantic trace records of the machine ledger in DIR, in
order: for every input, the transition's start and end (or its failure,
with the reason, what was expected and what happened), the effect intents
and whether the host approved, executed or refused them, each adapter
call, and the snapshot. Error records end with their breadcrumbs: the
records that led to them.

    t=0ms #3 ERROR machine.transition.fail ClaimReview.Approve: guard (<= review_score 30) is false ... [R_GUARD_FALSE]

--errors prints only the error records. The hash chain is verified first;
a tampered ledger is reported and nothing is printed (exit 1).

With --json it prints {"machine", "instance_id", "capsule_hash",
"records": [...]}, each record with the fields of docs/runtime.md
("Semantic trace"): trace_id, span_id, parent_span_id, event,
severity_text, body, component, operation, service, clock_ms, seq, step,
capsule_hash, machine_instance_id, machine, reason, expected, actual,
error_code, duration_ms, effect_intent_id, trace_history, ...`,
		Flags: func(fs *flag.FlagSet) cli.RunFunc {
			jsonOut := fs.Bool("json", false, "print JSON on stdout")
			errorsOnly := fs.Bool("errors", false, "print only the error records")
			return func(c *cli.Context, args []string) int {
				if len(args) != 1 {
					return c.UsageErrorf("expected one DIR, got %d arguments", len(args))
				}
				return runTrace(c, args[0], *jsonOut, *errorsOnly)
			}
		},
	})
}

type traceJSON struct {
	Machine     string         `json:"machine"`
	InstanceID  string         `json:"instance_id"`
	CapsuleHash string         `json:"capsule_hash"`
	Records     []trace.Record `json:"records"`
}

func runTrace(c *cli.Context, dir string, jsonOut, errorsOnly bool) int {
	f, err := ledger.OpenDir(dir)
	if err != nil {
		c.Errorf("%v", err)
		return cli.ExitUsage
	}
	defer f.Close()
	store := ledger.ChainStore{Log: f}
	rep, err := store.Verify()
	if err != nil {
		c.Errorf("%s: %v", dir, err)
		return cli.ExitUsage
	}
	if !rep.OK {
		c.Errorf("%s: tampered: %s (%s)", dir, rep.Problem.Error(), rep.Problem.Kind)
		return cli.ExitFail
	}
	entries, err := ledger.ReadAll(store)
	if err != nil {
		c.Errorf("%s: %v", dir, err)
		return cli.ExitUsage
	}
	recs, err := ledger.Traces(entries)
	if err != nil {
		c.Errorf("%s: %v", dir, err)
		return cli.ExitUsage
	}
	out := traceJSON{Records: []trace.Record{}}
	if len(entries) > 0 {
		var desc ledger.InstanceRecord
		if entries[0].Decode(&desc) == nil {
			out.Machine, out.InstanceID, out.CapsuleHash = desc.Machine, desc.InstanceID, desc.CapsuleHash
		}
	}
	for _, r := range recs {
		if !errorsOnly || r.Severity == trace.Error {
			out.Records = append(out.Records, r)
		}
	}
	if jsonOut {
		writeJSON(c, out)
		return cli.ExitOK
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s instance %s (%s)\n", out.Machine, out.InstanceID, out.CapsuleHash)
	for k := range out.Records {
		writeTraceRecord(&b, &out.Records[k])
	}
	c.Stdout.Write([]byte(b.String()))
	return cli.ExitOK
}

// writeTraceRecord prints a record on one line, and for an error its
// details and breadcrumbs on the lines after.
func writeTraceRecord(b *strings.Builder, r *trace.Record) {
	fmt.Fprintf(b, "t=%dms #%d %-5s %s %s", r.ClockMs, r.Seq, r.Severity, r.Event, r.Operation)
	if r.Body != "" {
		b.WriteString(": " + r.Body)
	}
	if r.ErrorCode != "" {
		b.WriteString(" [" + r.ErrorCode + "]")
	}
	if r.DurationMs != 0 {
		fmt.Fprintf(b, " (%dms)", r.DurationMs)
	}
	b.WriteString("\n")
	if r.Severity != trace.Error {
		return
	}
	var parts []string
	if r.Reason != "" {
		parts = append(parts, "reason: "+r.Reason)
	}
	if r.Expected != "" {
		parts = append(parts, "expected "+r.Expected)
	}
	if r.Actual != "" {
		parts = append(parts, "actual "+r.Actual)
	}
	if r.EffectIntentID != "" {
		parts = append(parts, "intent "+r.EffectIntentID)
	}
	if len(parts) > 0 {
		b.WriteString("    " + strings.Join(parts, "; ") + "\n")
	}
	if len(r.TraceHistory) > 0 {
		b.WriteString("    history:\n")
		for _, h := range r.TraceHistory {
			fmt.Fprintf(b, "      t=%dms %s %s", h.ClockMs, h.Event, h.Operation)
			if h.ErrorCode != "" {
				b.WriteString(" [" + h.ErrorCode + "]")
			}
			b.WriteString("\n")
		}
	}
}
