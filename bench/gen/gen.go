// Package gen generates large, valid Capsulang modules for benchmarks and
// stress tests: a mix of pure functions with examples and claim-review style
// machines, in canonical layout, of about the requested number of lines.
package gen

import (
	"fmt"
	"strings"
)

// Module returns a module of roughly lines lines.
func Module(lines int) []byte {
	var b strings.Builder
	b.WriteString("(module bench.generated\n  (capsule \"1.0\")\n  (profile agentic persistence.surrealdb)\n\n")
	b.WriteString("  (store ops\n    (backend surrealdb)\n    (authority runtime-state))\n")
	n := 0
	for i := 0; strings.Count(b.String(), "\n") < lines-2; i++ {
		if i%4 == 3 {
			writeMachine(&b, n)
		} else {
			writeFunction(&b, n)
		}
		n++
	}
	b.WriteString("  )\n")
	return []byte(b.String())
}

func writeFunction(b *strings.Builder, i int) {
	fmt.Fprintf(b, `
  ;; clamp_%[1]d keeps a score inside [lo, hi].
  (function clamp_%[1]d
    (input
      (x I64)
      (lo I64)
      (hi I64))
    (output I64)
    (effects pure)
    (requires (<= lo hi))
    (ensures (and (>= result lo) (<= result hi)))
    (example (clamp_%[1]d 5 0 10) 5)
    (example (clamp_%[1]d -3 0 10) 0)
    (body
      (if (< x lo)
        lo
        (if (> x hi) hi x))))
`, i)
}

func writeMachine(b *strings.Builder, i int) {
	fmt.Fprintf(b, `
  (machine Review_%[1]d
    (version "0.1.0")
    (context
      (item_id U64)
      (score U32)
      (approved Bool))
    (event Submit
      (item_id U64))
    (event Scored
      (score U32))
    (event Approve)
    (event Reject)
    (initial idle)
    (state idle
      (on Submit
        (target scoring)
        (assign
          (item_id event.item_id)
          (approved false))
        (effects
          (db.write ops.items))))
    (state scoring
      (on Scored
        (target deciding)
        (assign
          (score event.score))))
    (state deciding
      (on Approve
        (guard (<= score 30))
        (target accepted)
        (assign
          (approved true))
        (effects
          (db.write ops.items)))
      (on Reject
        (target rejected)))
    (state accepted (type final))
    (state rejected (type final)))
`, i)
}

// Functions returns a module of one-line functions, of at most size bytes
// (and within one function's length of it): the shape of the scaling
// benchmarks, many small declarations.
//
//	(module scaling (capsule "1.0")
//	  (function f0 (input (x I64)) (output I64) (body (+ x 0)))
//	  ...)
func Functions(size int) []byte {
	const head, tail = "(module scaling (capsule \"1.0\")\n", ")\n"
	b := make([]byte, 0, size)
	b = append(b, head...)
	for i := 0; ; i++ {
		line := fmt.Sprintf("  (function f%d (input (x I64)) (output I64) (body (+ x %d)))\n", i, i)
		if len(b)+len(line)+len(tail) > size {
			break
		}
		b = append(b, line...)
	}
	return append(b, tail...)
}

// Unclosed returns a module followed by n nested lists that are never
// closed, all on one line; Closed returns the same lists closed. They are
// the pair of the benchmark of unclosed lists.
func Unclosed(n int) []byte {
	return []byte("(module scaling (capsule \"1.0\")\n" + strings.Repeat("(", n) + "\n")
}

// Closed returns Unclosed(n) with every list closed.
func Closed(n int) []byte {
	return []byte("(module scaling (capsule \"1.0\")\n" + strings.Repeat("(", n) + strings.Repeat(")", n) + ")\n")
}

// Mixed returns a module of at most size bytes (within one group's length
// of it) that repeats a group of every common kind of declaration: a
// record, an enum, a tagged variant built with a bare constructor, a
// function with a requires clause and examples, a function calling it and
// a machine with a surface bound to it. Its scaling shows whether any
// kind of declaration, not only functions, is checked in linear time.
func Mixed(size int) []byte {
	const head, tail = "(module scaling (capsule \"1.0\") (profile ui.a2ui)\n", ")\n"
	b := make([]byte, 0, size)
	b = append(b, head...)
	for i := 0; ; i++ {
		group := fmt.Sprintf(`  (type Rec%[1]d (record (a I64) (b Text)))
  (type Color%[1]d (enum red green blue))
  (type Shape%[1]d (variant (circle%[1]d (r I64)) (square%[1]d (side I64)) dot%[1]d))
  ;; clamp%[1]d keeps x within [lo, hi].
  (function clamp%[1]d
    (input (x I64) (lo I64) (hi I64))
    (output I64)
    (requires (<= lo hi))
    (example (clamp%[1]d 5 0 10) 5)
    (example (clamp%[1]d -3 0 10) 0)
    (body (if (< x lo) lo (if (> x hi) hi x))))
  (function use%[1]d (input (r Rec%[1]d)) (output Shape%[1]d)
    (body (circle%[1]d (clamp%[1]d r.a 0 %[1]d))))
  (machine Door%[1]d
    (context (opened U64))
    (event Open)
    (event Close)
    (initial closed)
    (state closed (on Open (target open) (assign (opened (+ opened 1)))))
    (state open (on Close (target closed))))
  (surface door%[1]d (title "Door %[1]d") (route "/doors/%[1]d") (bind Door%[1]d) (event Open Close))
`, i)
		if len(b)+len(group)+len(tail) > size {
			break
		}
		b = append(b, group...)
	}
	return append(b, tail...)
}

// SpecModule returns a module of roughly lines lines shaped like the
// language specification's running example, ClaimReview: copies of a
// group renamed per copy (suffix _N), each with two stores, a reviewer
// agent, three surfaces bound to the group's machine, a pure helper, an
// authority policy and the machine, which the policy governs (its
// transitions evaluate the policy, whose conditions read the machine's
// context). It checks without errors; edits to it exercise every kind of
// declaration the spec's modules have.
func SpecModule(lines int) []byte {
	var b strings.Builder
	b.WriteString(`;; A module shaped like the specification's ClaimReview, repeated.
(module bench.spec_shaped
  (capsule "0.3.0")
  (profile agentic persistence.surrealdb external.a2a ui.a2ui)
`)
	n := 1 + strings.Count(b.String(), "\n")
	for i := 0; n < lines-1; i++ {
		g := fmt.Sprintf(specGroup, i)
		b.WriteString(g)
		n += strings.Count(g, "\n")
	}
	b.WriteString("  )\n")
	return []byte(b.String())
}

// specGroup is one renamed copy of the spec's ClaimReview (%[1]d is the
// copy's number).
const specGroup = `
  ;; Where the runtime keeps claims, review tasks and decisions.
  (store operational_%[1]d
    (backend surrealdb)
    (authority runtime-state)
    (collection claims agent_tasks decisions))

  ;; Accepted facts only.
  (store knowledge_%[1]d
    (backend typedb)
    (authority semantic-facts))

  ;; The remote agent that scores a claim's risk.
  (agent claim_reviewer_%[1]d
    (protocol a2a)
    (skill review_claim))

  (surface claim_status_%[1]d
    (title "Claim status %[1]d")
    (route "/claims/%[1]d/status")
    (bind ClaimReview_%[1]d)
    (event SubmitClaim))

  (surface claim_decision_%[1]d
    (title "Claim decision %[1]d")
    (route "/claims/%[1]d/decision")
    (bind ClaimReview_%[1]d)
    (event ReviewCompleted))

  (surface claim_summary_%[1]d
    (title "Claim summary %[1]d")
    (route "/claims/%[1]d/summary")
    (bind ClaimReview_%[1]d)
    (event Approve Reject))

  ;; Scores at or below 30 may be approved by a person.
  (function approvable_%[1]d
    (input (review_score U32))
    (output Bool)
    (body (<= review_score 30))
    (example (approvable_%[1]d 12) true)
    (example (approvable_%[1]d 31) false))

  ;; Large claims wait for a second look.
  (authority-policy ClaimPolicy_%[1]d
    (input principal effect context)
    (outcome allow deny defer)
    (default allow)
    (on defer (if "context.amount_cents > 500000")))

  (machine ClaimReview_%[1]d
    (version "0.3.0")
    (context
      (claim_id U64)
      (amount_cents U64)
      (review_score U32)
      (approved Bool))
    (event SubmitClaim
      (claim_id U64)
      (amount_cents U64))
    (event ReviewCompleted
      (review_score U32))
    (event Approve)
    (event Reject)
    (initial idle)
    (persistence
      (store operational_%[1]d)
      (event-log claim_review_events_%[1]d)
      (snapshot every-transition)
      (replay true))

    (state idle
      (on SubmitClaim
        (target awaiting_review)
        (assign
          (claim_id event.claim_id)
          (amount_cents event.amount_cents)
          (approved false))
        (effects
          (policy.evaluate ClaimPolicy_%[1]d)
          (db.write operational_%[1]d.claims)
          (a2a.task claim_reviewer_%[1]d.review_claim)
          (a2ui.emit claim_status_%[1]d))))

    (state awaiting_review
      (on ReviewCompleted
        (target awaiting_human_decision)
        (assign
          (review_score event.review_score))
        (effects
          (db.write operational_%[1]d.agent_tasks)
          (a2ui.emit claim_decision_%[1]d))))

    (state awaiting_human_decision
      (on Approve
        (guard (approvable_%[1]d review_score))
        (target accepted)
        (assign
          (approved true))
        (effects
          (policy.evaluate ClaimPolicy_%[1]d)
          (db.write operational_%[1]d.decisions)
          (db.project operational_%[1]d.claims knowledge_%[1]d)
          (a2ui.emit claim_summary_%[1]d)))
      (on Reject
        (target rejected)
        (effects
          (db.write operational_%[1]d.decisions)
          (a2ui.emit claim_summary_%[1]d))))

    (state accepted (type final))
    (state rejected (type final)))
`
