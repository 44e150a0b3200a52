// The XState side of the machine-stepping benchmark (make bench).
//
// It defines, with XState v5, the same machine as
// runtime/machine/testdata/claim_review.caps (the spec's ClaimReview with
// an Archive step back to idle) and sends it the same event stream as
// BenchmarkDryRunStep (runtime/machine/bench_test.go): one claim approved,
// one refused by the guard and then rejected; 9 events, 8 transitions.
// Effect intents are named actions with their target as params, which
// XState's pure transition() returns without executing, as caps's dry-run
// returns planned intents.
//
// Usage: node bench.mjs [events]    (default 2,000,000)
// Prints one line per measurement:
//   xstate transition(): N ns/op M transitions/s
//   xstate actor.send(): N ns/op M transitions/s
import { setup, assign, transition, initialTransition, createActor } from "xstate";

const effect = (type, target) => ({ type, params: { target } });
const noop = () => {};

const machine = setup({
  actions: {
    "db.write": noop,
    "db.project": noop,
    "a2a.task": noop,
    "a2ui.emit": noop,
  },
  guards: {
    lowScore: ({ context }) => context.review_score <= 30,
  },
}).createMachine({
  id: "ClaimReview",
  initial: "idle",
  context: { claim_id: 0n, review_score: 0, approved: false, reviews: 0 },
  states: {
    idle: {
      on: {
        SubmitClaim: {
          target: "awaiting_review",
          actions: [
            assign({ claim_id: ({ event }) => event.claim_id, approved: false }),
            effect("db.write", "operational.claims"),
            effect("a2a.task", "security_reviewer.review_claim"),
            effect("a2ui.emit", "claim_review_status"),
          ],
        },
      },
    },
    awaiting_review: {
      on: {
        ReviewCompleted: {
          target: "awaiting_human_decision",
          actions: [
            assign({
              review_score: ({ event }) => event.review_score,
              reviews: ({ context }) => context.reviews + 1,
            }),
            effect("db.write", "operational.agent_tasks"),
            effect("a2ui.emit", "claim_review_decision"),
          ],
        },
      },
    },
    awaiting_human_decision: {
      on: {
        Approve: {
          guard: "lowScore",
          target: "accepted",
          actions: [
            assign({ approved: true }),
            effect("db.write", "operational.claims"),
            { type: "db.project", params: { target: "operational.claims", extra: ["knowledge.typedb"] } },
            effect("a2ui.emit", "claim_review_summary"),
          ],
        },
        Reject: {
          target: "rejected",
          actions: [effect("db.write", "operational.claims"), effect("a2ui.emit", "claim_review_summary")],
        },
      },
    },
    accepted: { on: { Archive: "idle" } },
    rejected: { on: { Archive: "idle" } },
  },
});

const cycle = [
  { type: "SubmitClaim", claim_id: 4242n },
  { type: "ReviewCompleted", review_score: 20 },
  { type: "Approve" },
  { type: "Archive" },
  { type: "SubmitClaim", claim_id: 4242n },
  { type: "ReviewCompleted", review_score: 50 },
  { type: "Approve" },
  { type: "Reject" },
  { type: "Archive" },
];
const wantStates = ["awaiting_review", "awaiting_human_decision", "accepted", "idle",
  "awaiting_review", "awaiting_human_decision", "awaiting_human_decision", "rejected", "idle"];

const n = Number(process.argv[2] ?? 2_000_000);

// The same states as the Go side, and planned effects on each transition.
{
  let [s] = initialTransition(machine);
  cycle.forEach((ev, i) => {
    const [next, actions] = transition(machine, s, ev);
    if (next.value !== wantStates[i]) {
      throw new Error(`event ${i} ${ev.type}: state ${next.value}, want ${wantStates[i]}`);
    }
    if (i === 0 && actions.filter((a) => a.type !== "xstate.assign").length !== 3) {
      throw new Error(`SubmitClaim planned ${actions.length} actions`);
    }
    s = next;
  });
  if (s.context.reviews !== 2 || s.context.review_score !== 50) {
    throw new Error(`context ${JSON.stringify(s.context, (k, v) => (typeof v === "bigint" ? String(v) : v))}`);
  }
}

function report(name, events, ns) {
  const perOp = Number(ns) / events;
  console.log(`xstate ${name}: ${perOp.toFixed(1)} ns/op ${Math.round(1e9 / perOp)} transitions/s`);
}

// Pure transition(): the snapshot and the actions to run, nothing executed.
{
  let [s] = initialTransition(machine);
  for (let i = 0; i < 200_000; i++) s = transition(machine, s, cycle[i % cycle.length])[0];
  [s] = initialTransition(machine);
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) s = transition(machine, s, cycle[i % cycle.length])[0];
  report("transition()", n, process.hrtime.bigint() - t0);
}

// An actor: send() also executes the (empty) actions and notifies.
{
  const actor = createActor(machine).start();
  for (let i = 0; i < 200_000; i++) actor.send(cycle[i % cycle.length]);
  const m = Math.max(1, Math.floor(n / 4));
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < m; i++) actor.send(cycle[i % cycle.length]);
  report("actor.send()", m, process.hrtime.bigint() - t0);
  actor.stop();
}
