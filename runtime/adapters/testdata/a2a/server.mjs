// The A2A test agent of runtime/adapters' live tests: a real A2A server
// built with the official @a2a-js/sdk (protocol v1.0, JSON-RPC binding,
// with the SDK's v0.3 compatibility layer switched on), served by express
// on the loopback interface.
//
//   node server.mjs            listen on 127.0.0.1 on a free port
//
// It prints one line, "listening http://127.0.0.1:PORT", once it accepts
// requests, and stops when its stdin closes (the Go test owns it).
//
// The agent is "security_reviewer" with two skills:
//
//   review_change  a task: submitted, then (after 50 ms) working, an
//                  artifact "review" {change_id, verdict, reviewer}, and
//                  completed. A change_id of 13 is rejected: the task ends
//                  TASK_STATE_FAILED with a status message.
//   ping           answered with a message at once (no task).
//
// The skill comes from the message's metadata ("skill"); the input is the
// message's data part. With A2A_TEST_TOKEN set, every JSON-RPC request
// must carry "Authorization: Bearer $A2A_TEST_TOKEN" (401 otherwise).
// A2A_TEST_VERSIONS lists the protocol versions the card's JSON-RPC
// interfaces offer, in order (default "1.0,0.3"; "0.3" makes a v0.3
// agent, whose card the SDK then serves in the v0.3 shape).
import express from "express";
import { randomUUID } from "node:crypto";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";

const card = {
  name: "security_reviewer",
  description: "Reviews deployment changes for security risk (capsulang test agent).",
  supportedInterfaces: [],
  provider: undefined,
  version: "1.0.0",
  capabilities: { streaming: false, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ["application/json", "text/plain"],
  defaultOutputModes: ["application/json", "text/plain"],
  skills: [
    { id: "review_change", name: "Review change", description: "Security review of a deployment change", tags: ["security"], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
    { id: "ping", name: "Ping", description: "Answers with a message", tags: [], examples: [], inputModes: [], outputModes: [], securityRequirements: [] },
  ],
  signatures: [],
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function dataOf(message) {
  for (const p of message.parts ?? []) {
    if (p.content?.$case === "data") return p.content.value ?? {};
  }
  return {};
}

function part(value) {
  return { content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "application/json" };
}

function textPart(value) {
  return { content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "text/plain" };
}

function agentMessage(ctx, parts) {
  return { messageId: randomUUID(), contextId: ctx.contextId, taskId: "", role: Role.ROLE_AGENT, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

function status(state, message) {
  return { state, message, timestamp: new Date().toISOString() };
}

class Reviewer {
  async execute(ctx, bus) {
    const msg = ctx.userMessage;
    const skill = msg.metadata?.skill ?? "";
    const input = dataOf(msg);
    if (skill !== "review_change") {
      bus.publish(AgentEvent.message(agentMessage(ctx, [part({ pong: true, skill, input })])));
      bus.finished();
      return;
    }
    const base = { id: ctx.taskId, contextId: ctx.contextId, artifacts: [], history: [msg], metadata: undefined };
    bus.publish(AgentEvent.task({ ...base, status: status(TaskState.TASK_STATE_SUBMITTED) }));
    await sleep(50);
    bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(TaskState.TASK_STATE_WORKING), metadata: undefined }));
    if (String(input.change_id) === "13") {
      const why = agentMessage(ctx, [textPart("change 13 touches the payment keys; review refused")]);
      why.taskId = ctx.taskId;
      bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(TaskState.TASK_STATE_FAILED, why), metadata: undefined }));
      bus.finished();
      return;
    }
    bus.publish(AgentEvent.artifactUpdate({
      taskId: ctx.taskId, contextId: ctx.contextId, append: false, lastChunk: true, metadata: undefined,
      artifact: { artifactId: "review-" + ctx.taskId, name: "review", description: "security review", parts: [part({ change_id: input.change_id ?? null, verdict: "approved", reviewer: "security_reviewer" })], metadata: undefined, extensions: [] },
    }));
    bus.publish(AgentEvent.statusUpdate({ taskId: ctx.taskId, contextId: ctx.contextId, status: status(TaskState.TASK_STATE_COMPLETED), metadata: undefined }));
    bus.finished();
  }

  async cancelTask(taskId, bus) {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", status: status(TaskState.TASK_STATE_CANCELED), metadata: undefined }));
    bus.finished();
  }
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new Reviewer());
const app = express();
const token = process.env.A2A_TEST_TOKEN ?? "";
app.use(AGENT_CARD_PATH.startsWith("/") ? AGENT_CARD_PATH : "/" + AGENT_CARD_PATH,
  agentCardHandler({ agentCardProvider: handler, legacyCompat: { enabled: true } }));
app.use("/a2a/jsonrpc", (req, res, next) => {
  if (token !== "" && req.get("authorization") !== "Bearer " + token) {
    res.status(401).json({ error: "missing or wrong bearer token" });
    return;
  }
  next();
}, jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }));

const server = app.listen(0, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  for (const v of (process.env.A2A_TEST_VERSIONS ?? "1.0,0.3").split(",")) {
    card.supportedInterfaces.push({ url: base + "/a2a/jsonrpc", protocolBinding: "JSONRPC", tenant: "", protocolVersion: v });
  }
  process.stdout.write(`listening ${base}\n`);
});
process.stdin.on("end", () => { server.close(); process.exit(0); });
process.stdin.resume();
