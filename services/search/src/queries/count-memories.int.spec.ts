// `cairn.search.count`: the open proposals a context or a status reports, counted by the
// lexical index with the same visibility and filters as a listing, past any page size.
import type { Principal, SearchFiltersInput } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { principals, searchTest as test } from "../testing/search-test.ts";

const { alice, bob, boss, olga } = principals;
const pending: SearchFiltersInput = { tier: "proposal", status: ["pending"] };

describe("count", () => {
  test("counts what the principal may see that passes the filters, past any page size", async ({
    search,
  }) => {
    for (let i = 0; i < 3; i += 1)
      await search.log.record({ tier: "proposal", content: `team proposal ${i}` });
    await search.log.record({ tier: "proposal", content: "alice's own", scope: "agent" });
    await search.log.record({
      tier: "proposal",
      content: "bob's own",
      scope: "agent",
      author: { tenant: "acme", agent: "bob" },
    });
    await search.log.record({ tier: "handoff", content: "a handoff" });
    await search.log.record({ content: "a memory" });
    const end = await search.settle();

    const count = async (principal: Principal, filters: SearchFiltersInput = pending) =>
      (await search.count({ principal, filters, afterPosition: end })).count;
    expect(await count(alice)).toBe(4);
    expect(await count(bob)).toBe(4);
    // The tenant's primary agent sees every agent's own.
    expect(await count(boss)).toBe(5);
    expect(await count(olga)).toBe(0);
    expect(await count(alice, { tier: "handoff", status: ["active"] })).toBe(1);
    expect(await count(alice, { tier: "proposal", status: ["rejected"] })).toBe(0);
    expect(await count(alice, { tier: "memory" })).toBe(1);

    // More than a listing's page (500).
    for (let i = 0; i < 600; i += 1) await search.log.record({ tier: "proposal", content: `many ${i}` });
    const later = await search.settle(60_000);
    const reply = await search.count({ principal: alice, filters: pending, afterPosition: later });
    expect(reply).toEqual({ count: 604, position: later });
  });
});
