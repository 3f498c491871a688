// The gateway as its clients call it: REST with fetch, MCP with the SDK's Client over
// streamable HTTP or over stdio through `pnpm cairn mcp`, each with an API key.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { repoRoot } from "./service-processes.ts";

/** A REST request; `body`, when given, is sent as JSON. */
export function restRequest(
  baseUrl: string,
  apiKey: string | null,
  request: { method: string; path: string; body?: unknown; headers?: Record<string, string> },
): Promise<Response> {
  const { method, path, body, headers = {} } = request;
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** An MCP client connected to `${baseUrl}/mcp`; the caller closes it. */
export async function connectMcpClient(
  baseUrl: string,
  apiKey: string,
  options: { name: string; headers?: Record<string, string> },
) {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${apiKey}`, ...options.headers } },
  });
  const client = new Client({ name: options.name, version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/** An MCP client over stdio: `pnpm cairn mcp` as a child, relaying to the gateway at `baseUrl`. */
export async function connectStdioMcpClient(baseUrl: string, apiKey: string, options: { name: string }) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["scripts/cairn.ts", "mcp"],
    cwd: repoRoot,
    env: { ...process.env, CAIRN_API_KEY: apiKey, CAIRN_GATEWAY_URL: baseUrl } as Record<string, string>,
    stderr: "pipe",
  });
  const client = new Client({ name: options.name, version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** A tool result with its structured content (every Cairn tool has one, errors included). */
export type ToolResult = CallToolResult & { structuredContent: Record<string, unknown> };

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}) {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}
