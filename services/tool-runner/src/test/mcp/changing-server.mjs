// An MCP server over stdio whose tool list changes on request, for the registry's refresh test:
// calling add_tool registers a tool of that name, and the SDK announces it with
// notifications/tools/list_changed.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "changing", version: "1.0.0" });
server.registerTool(
  "add_tool",
  { description: "Adds a tool with this name", inputSchema: { name: z.string() } },
  async ({ name }) => {
    server.registerTool(name, { description: "added at run time" }, async () => ({
      content: [{ type: "text", text: "hello from " + name }],
    }));
    return { content: [{ type: "text", text: "added " + name }] };
  },
);
await server.connect(new StdioServerTransport());
