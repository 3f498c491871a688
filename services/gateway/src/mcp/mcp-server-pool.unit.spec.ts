import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { describe, expect, it } from "vitest";
import { createMcpServerPool } from "./mcp-server-pool.ts";

/** Stands for a built server: the pool only keeps and hands back what it was given. */
const built = (name: string) => ({ name }) as unknown as McpServer;

describe("createMcpServerPool", () => {
  it("hands a session's server back for its next request, and builds one for a request running alongside", () => {
    const pool = createMcpServerPool({ idleMs: 60_000 });
    const first = pool.acquire("s1", () => built("first"));
    const alongside = pool.acquire("s1", () => built("alongside"));
    expect(alongside).not.toBe(first);
    pool.release("s1", first);
    pool.release("s1", alongside);
    const reused = [pool.acquire("s1", () => built("new")), pool.acquire("s1", () => built("new"))];
    expect(new Set(reused)).toEqual(new Set([first, alongside]));
    expect(pool.acquire("s2", () => built("other session"))).not.toBe(first);
    pool.close();
  });

  it("keeps at most a few per session and a bounded number in all, dropping the least recently used", () => {
    const pool = createMcpServerPool({ idleMs: 60_000, maxIdleServers: 2, maxIdlePerSession: 1 });
    pool.release("a", built("a1"));
    pool.release("a", built("a2"));
    expect(pool.idleServers).toBe(1);
    const b = built("b");
    pool.release("b", b);
    pool.release("c", built("c"));
    expect(pool.idleServers).toBe(2);
    // "a" was used least recently: its server went to make room for "c".
    expect((pool.acquire("a", () => built("rebuilt")) as unknown as { name: string }).name).toBe("rebuilt");
    expect(pool.acquire("b", () => built("rebuilt"))).toBe(b);
    pool.drop("c");
    expect(pool.idleServers).toBe(0);
    pool.close();
  });
});
