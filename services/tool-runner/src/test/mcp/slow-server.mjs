// An MCP server over stdio whose `sleep` tool waits until the client cancels it (MCP's
// notifications/cancelled aborts the request's signal), and whose `seen` tool says how many sleeps
// started and the reasons of those cancelled: what the cancellation tests read.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

let started = 0;
const cancelled = [];

const server = new McpServer({ name: "slow", version: "1.0.0" });
server.registerTool(
  "sleep",
  {
    description: "Sleeps this many seconds, or until cancelled",
    inputSchema: { seconds: z.number().min(0) },
    annotations: { readOnlyHint: true },
  },
  async ({ seconds }, extra) => {
    started++;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, seconds * 1000);
      extra.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        cancelled.push(String(extra.signal.reason));
        resolve();
      });
    });
    return { content: [{ type: "text", text: `slept` }] };
  },
);
server.registerTool(
  "seen",
  {
    description: "How many sleeps started, and the reasons of those cancelled",
    inputSchema: {},
    annotations: { readOnlyHint: true },
  },
  async () => ({ content: [{ type: "text", text: JSON.stringify({ started, cancelled }) }] }),
);
await server.connect(new StdioServerTransport());
