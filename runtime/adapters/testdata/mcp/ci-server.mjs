// The CI server of runtime/adapters' live tests: a real MCP server over
// stdio, built with the official @modelcontextprotocol/sdk, with the two
// tools the spec's ChangeApproval calls on its `ci` port.
//
//   node ci-server.mjs
//
//   deploy   {change_id}  deploys the change: "deployed change N"; a
//                         change already deployed, or change 500 (the
//                         test's broken build), is a tool error (isError).
//   rollback {change_id}  rolls a deployed change back: "rolled back
//                         change N"; a change not deployed is a tool error.
//
// With CI_SERVER_LOG set, each call is appended to that file as a JSON
// line {"tool", "arguments"}, so a test can see what reached the server.
import { appendFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const input = {
  type: "object",
  properties: { change_id: { type: "integer", minimum: 0 } },
  required: ["change_id"],
};
const deployed = new Set();
const server = new Server({ name: "caps-test-ci", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "deploy", description: "Deploy a change", inputSchema: input },
    { name: "rollback", description: "Roll a deployed change back", inputSchema: input },
  ],
}));

const text = (t, isError = false) => ({ content: [{ type: "text", text: t }], isError });

server.setRequestHandler(CallToolRequestSchema, async (req) => {
  const { name, arguments: args = {} } = req.params;
  if (process.env.CI_SERVER_LOG) {
    appendFileSync(process.env.CI_SERVER_LOG, JSON.stringify({ tool: name, arguments: args }) + "\n");
  }
  const id = args.change_id;
  if (!Number.isInteger(id)) return text(`change_id must be an integer, got ${JSON.stringify(id)}`, true);
  switch (name) {
    case "deploy":
      if (id === 500) return text(`build of change ${id} is broken; not deployed`, true);
      if (deployed.has(id)) return text(`change ${id} is already deployed`, true);
      deployed.add(id);
      return text(`deployed change ${id}`);
    case "rollback":
      if (!deployed.has(id)) return text(`change ${id} is not deployed`, true);
      deployed.delete(id);
      return text(`rolled back change ${id}`);
  }
  return text(`unknown tool ${name}`, true);
});

await server.connect(new StdioServerTransport());
