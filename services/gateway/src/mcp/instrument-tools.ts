// Every MCP tool call in a span `mcp <tool>` (child of the HTTP request that carried it) and
// counted in `cairn_mcp_tool_calls_total{tool, outcome, code}` and
// `cairn_mcp_tool_duration_seconds{tool, outcome}`; a failure is a result with `isError`, so
// the outcome is read from the result, not from an exception.
import { getTracer, startSpan, withLogFields } from "@cairn/telemetry";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callMetrics } from "../gateway-metrics.ts";
import type { Caller } from "../operations/caller.ts";
import type { ToolDeps } from "./tool-deps.ts";

const tracer = getTracer("@cairn/gateway");
const { calls, duration } = callMetrics(
  ["cairn_mcp_tool_calls", "MCP tool calls, by tool, outcome (ok or error) and error code"],
  ["cairn_mcp_tool_duration_seconds", "MCP tool call latency, by tool and outcome"],
);

type ToolCallback = (...args: unknown[]) => Promise<CallToolResult> | CallToolResult;

function errorCodeOf(result: CallToolResult): string {
  const error = (result.structuredContent as { error?: { code?: unknown } } | undefined)?.error;
  return typeof error?.code === "string" ? error.code : "error";
}

function traced(tool: string, callback: ToolCallback, callerNow: () => Caller): ToolCallback {
  return (...args) => {
    const started = performance.now();
    const caller = callerNow();
    return withLogFields({ tenant: caller.principal.tenant, agent: caller.principal.agent }, () =>
      startSpan(
        tracer,
        `mcp ${tool}`,
        async (span) => {
          let outcome = "error";
          let code = "internal";
          try {
            const result = await callback(...args);
            outcome = result.isError ? "error" : "ok";
            code = result.isError ? errorCodeOf(result) : "ok";
            if (result.isError) span.setAttribute("cairn.error.code", code);
            return result;
          } finally {
            calls.add(1, { tool, outcome, code });
            duration.record((performance.now() - started) / 1000, { tool, outcome });
          }
        },
        {
          attributes: {
            "mcp.tool.name": tool,
            "cairn.tenant": caller.principal.tenant,
            "cairn.agent": caller.principal.agent,
          },
        },
      ),
    );
  };
}

/** Wraps the callback of every tool registered on `server` from now on (the caller read per call). */
export function instrumentTools(server: McpServer, deps: Pick<ToolDeps, "caller">): void {
  const register = server.registerTool.bind(server) as (
    name: string,
    config: unknown,
    cb: ToolCallback,
  ) => unknown;
  (server as unknown as { registerTool: typeof register }).registerTool = (name, config, callback) =>
    register(
      name,
      config,
      traced(name, callback, () => deps.caller),
    );
}
