import { type Principal, SearchFiltersSchema } from "@cairn/contracts";
import { describe, expect, test } from "vitest";
import { lexicalFilterClauses, vectorFilter } from "./search-filters.ts";

const alice: Principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };
const now = Date.parse("2026-11-30T00:00:00.000Z");

describe("search filters", () => {
  test("default: the principal's visibility, active memories, not expired", () => {
    const filters = SearchFiltersSchema.parse({});
    expect(lexicalFilterClauses(alice, filters, now)).toEqual([
      "@reach:{memoryxactivexglobal|memoryxactivexm61636d65|memoryxactivexa61636d65x616c696365}",
      `@invalid_at:[(${now} +inf]`,
    ]);
    const sql = vectorFilter(alice, filters, now);
    expect(sql.sql).toBe(
      "((tenant = $2 and (scope = 'team' or agent = $3)) or scope = 'global') and tier = $4 and status = any($5) and (invalid_at is null or invalid_at > $6)",
    );
    expect(sql.params).toEqual(["acme", "alice", "memory", ["active"], "2026-11-30T00:00:00.000Z"]);
    // Partitioned by audience, the two parts are asked apart, each with its own parameters.
    const parts = vectorFilter(alice, SearchFiltersSchema.parse({ kind: ["decision"] }), now, true);
    expect(parts.own).toEqual({
      sql: "(audience = $2 and (scope = 'team' or agent = $3)) and tier = $4 and status = any($5) and kind = any($6) and (invalid_at is null or invalid_at > $7)",
      params: ["acme", "alice", "memory", ["active"], ["decision"], "2026-11-30T00:00:00.000Z"],
    });
    expect(parts.global).toEqual({
      sql: "(audience = '') and tier = $2 and status = any($3) and kind = any($4) and (invalid_at is null or invalid_at > $5)",
      params: ["memory", ["active"], ["decision"], "2026-11-30T00:00:00.000Z"],
    });
  });

  test("a primary agent sees the whole tenant; proposals default to pending", () => {
    const filters = SearchFiltersSchema.parse({ tier: "proposal", includeExpired: true });
    expect(lexicalFilterClauses({ ...alice, primary: true }, filters, now)).toEqual([
      "@reach:{proposalxpendingxglobal|proposalxpendingxt61636d65}",
    ]);
  });

  test("'not expired' is asked unless the earliest expiry the principal may see lies ahead", () => {
    const filters = SearchFiltersSchema.parse({});
    const asked = (earliest?: number | null) =>
      (lexicalFilterClauses(alice, filters, now, earliest) ?? []).some((c) => c.startsWith("@invalid_at"));
    expect(asked(undefined)).toBe(true);
    expect(asked(now - 1)).toBe(true);
    expect(asked(now)).toBe(true);
    expect(asked(now + 1)).toBe(false);
    expect(asked(null)).toBe(false);
  });

  test("a filter value of only separators matches nothing rather than everything", () => {
    expect(lexicalFilterClauses(alice, SearchFiltersSchema.parse({ tags: [","] }), now)).toBeNull();
    expect(lexicalFilterClauses(alice, SearchFiltersSchema.parse({ project: ",," }), now)).toBeNull();
  });
});
