// `pnpm cairn mcp`: an MCP server on stdio for clients that launch a command (Claude Code,
// Codex, Cursor). It relays every JSON-RPC message to a running gateway's streamable HTTP
// endpoint with the API key as Bearer, so the tools, checks, scopes and rate limits are the
// gateway's own, and the machine running it needs nothing but HTTP access to the gateway.
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  InitializeResultSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
} from "@modelcontextprotocol/sdk/types.js";

export type StdioBridgeOptions = {
  /** The gateway's MCP endpoint, e.g. http://127.0.0.1:8080/mcp. */
  url: URL;
  apiKey: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  log?: (line: string) => void;
};

/** Runs until stdin closes; resolves then. */
export async function runStdioBridge(options: StdioBridgeOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`[cairn mcp] ${line}\n`));
  const upstream = new StreamableHTTPClientTransport(options.url, {
    requestInit: { headers: { Authorization: `Bearer ${options.apiKey}` } },
  });
  const local = new StdioServerTransport(
    options.stdin as NodeJS.ReadStream | undefined,
    options.stdout as NodeJS.WriteStream | undefined,
  );
  const initializeIds = new Set<string | number>();
  let closing = false;

  const done = new Promise<void>((resolve) => {
    local.onclose = () => {
      if (closing) return;
      closing = true;
      void upstream
        .terminateSession()
        .catch(() => {})
        .finally(() => upstream.close().finally(resolve));
    };
  });

  local.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === "initialize") initializeIds.add(message.id);
    upstream.send(message).catch((error: unknown) => {
      const text = (error as Error).message;
      log(`gateway refused a message: ${text}`);
      if (isJSONRPCRequest(message)) {
        void local.send({
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32000, message: `Cairn gateway at ${options.url.href}: ${text}` },
        });
      }
    });
  };
  upstream.onmessage = (message: JSONRPCMessage) => {
    if ("id" in message && "result" in message && initializeIds.delete(message.id)) {
      const parsed = InitializeResultSchema.safeParse(message.result);
      upstream.setProtocolVersion(parsed.success ? parsed.data.protocolVersion : LATEST_PROTOCOL_VERSION);
    }
    void local.send(message);
  };
  upstream.onerror = (error) => log(`gateway connection: ${error.message}`);
  local.onerror = (error) => log(`stdio: ${error.message}`);

  await upstream.start();
  await local.start();
  return done;
}
