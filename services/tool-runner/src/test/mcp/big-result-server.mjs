// An MCP server over stdio whose one tool answers with as much text as asked for, for the
// result size cap: a result over MongoDB's 16 MiB document limit must still end the call.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "big", version: "1.0.0" });
server.registerTool(
  "text_of_size",
  {
    description: "Answers with this many bytes of text",
    inputSchema: { bytes: z.number().int().min(0) },
    annotations: { readOnlyHint: true },
  },
  async ({ bytes }) => ({ content: [{ type: "text", text: "x".repeat(bytes) }] }),
);
await server.connect(new StdioServerTransport());
