// `pnpm cairn mcp`: Cairn's MCP server on stdio, for clients that launch a command. It talks
// to a running gateway over HTTP (the gateway's /mcp endpoint), authenticating with the key
// in CAIRN_API_KEY; see services/gateway/src/mcp/stdio-bridge.ts for why HTTP and not NATS.
import { runStdioBridge } from "@cairn/gateway";

export const summary = "MCP server on stdio (uses CAIRN_API_KEY and a running gateway)";

const usage = `usage: pnpm cairn mcp [--url <gateway url>]

Serves Cairn's MCP tools on stdin/stdout by relaying to a running gateway.
  CAIRN_API_KEY      the API key to authenticate with (required)
  CAIRN_GATEWAY_URL  the gateway, default http://127.0.0.1:8080 (or --url)

Example (Claude Code):
  claude mcp add cairn --env CAIRN_API_KEY=cairn_... -- pnpm --silent --dir /path/to/cairn cairn mcp`;

export async function run(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.error(usage);
    return 0;
  }
  const urlIndex = args.indexOf("--url");
  const base =
    (urlIndex >= 0 ? args[urlIndex + 1] : undefined) ??
    process.env.CAIRN_GATEWAY_URL ??
    "http://127.0.0.1:8080";
  const apiKey = process.env.CAIRN_API_KEY;
  if (!apiKey) {
    console.error(`CAIRN_API_KEY is not set\n\n${usage}`);
    return 2;
  }
  let url: URL;
  try {
    url = new URL(base.endsWith("/mcp") ? base : `${base.replace(/\/+$/, "")}/mcp`);
  } catch {
    console.error(`not a URL: ${base}`);
    return 2;
  }
  await runStdioBridge({ url, apiKey });
  return 0;
}
