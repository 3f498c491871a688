import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import type { Caller } from "../operations/caller.ts";
import type { Operations } from "../operations/create-operations.ts";
import { createMcpServerPool } from "./mcp-server-pool.ts";
import type { ToolDeps } from "./tool-deps.ts";

const callerOf = (agent: string): Caller => ({
  keyId: `key-${agent}`,
  principal: { tenant: "acme", agent, role: "agent", primary: false },
});

/** Builds stand-ins that remember the binding they were built with (the pool keeps and hands them back). */
function pool(maxIdleServers?: number) {
  const builds: ToolDeps[] = [];
  const servers = createMcpServerPool({
    ops: {} as Operations,
    build: (deps) => {
      builds.push(deps);
      return { built: builds.length } as unknown as McpServer;
    },
    ...(maxIdleServers === undefined ? {} : { maxIdleServers }),
  });
  return { servers, builds };
}

describe("createMcpServerPool", () => {
  it("hands an idle server to the next request, whatever its session, bound to that request's caller and episode", () => {
    const { servers, builds } = pool();
    const alice = servers.acquire({ caller: callerOf("alice"), episode: "mcp-session-a" });
    servers.release(alice);
    const bob = servers.acquire({ caller: callerOf("bob"), episode: "mcp-session-b" });
    expect(bob.server).toBe(alice.server);
    expect(builds).toHaveLength(1);
    // The tools read this binding when they run: it is bob's now.
    expect(builds[0]?.caller.principal.agent).toBe("bob");
    expect(builds[0]?.episode).toBe("mcp-session-b");
  });

  it("builds a server for each request running alongside, and keeps a bounded number idle", () => {
    const { servers, builds } = pool(2);
    const running = ["a", "b", "c"].map((agent) =>
      servers.acquire({ caller: callerOf(agent), episode: `mcp-session-${agent}` }),
    );
    expect(new Set(running.map((r) => r.server)).size).toBe(3);
    for (const r of running) servers.release(r);
    expect(servers.idleServers).toBe(2);
    servers.acquire({ caller: callerOf("d"), episode: "mcp-session-d" });
    servers.acquire({ caller: callerOf("e"), episode: "mcp-session-e" });
    servers.acquire({ caller: callerOf("f"), episode: "mcp-session-f" });
    expect(builds).toHaveLength(4);
  });
});
