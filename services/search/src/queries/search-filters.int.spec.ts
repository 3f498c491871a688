// Filters and read-your-writes positions as a careless or hostile client sends them, against
// the real read models: a filter value that is query syntax or a stop word (`NOT`, `or`, `in`,
// `inf`, `a|b`) is a value in both read models, never a refused query; a position beyond the
// log's end is refused at once instead of waiting out the timeout.
import type { CairnError, RetrievalMode } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { principals, searchTest as test } from "../testing/search-test.ts";

const { alice } = principals;
const modes: RetrievalMode[] = ["lexical", "vector", "hybrid"];

const syntaxLike = [
  "NOT",
  "and",
  "OR",
  "in",
  "inf",
  "-inf",
  "as",
  "isempty",
  "a",
  "the",
  "-1",
  "a|b",
  "x*",
  "{y}",
  "@t:z",
];

async function refusal(promise: Promise<unknown>): Promise<CairnError> {
  return promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: CairnError) => error,
  );
}

describe("search filters against the read models", () => {
  test("a filter value that is query syntax or a stop word matches as a value, in every mode", async ({
    search,
  }) => {
    const tagged = await search.log.record({
      content: "Release notes for the tagged build.",
      tags: syntaxLike,
      project: "OR",
    });
    await search.log.record({
      content: "Release notes without those tags.",
      tags: ["plain"],
      project: "and",
    });
    await search.settle();
    for (const mode of modes) {
      for (const value of syntaxLike) {
        const reply = await search.candidates({
          principal: alice,
          query: "release notes",
          mode,
          filters: { tags: [value] },
        });
        expect(
          reply.candidates.map((c) => c.id),
          `${mode} tags [${value}]`,
        ).toEqual([tagged.id]);
      }
      const byProject = await search.candidates({
        principal: alice,
        query: "release notes",
        mode,
        filters: { project: "or", anyTags: ["NOT", "nothing"] },
      });
      expect(
        byProject.candidates.map((c) => c.id),
        `${mode} project`,
      ).toEqual([tagged.id]);
      // An agent or a tag nobody has, written as syntax, matches nothing, and is no error.
      for (const filters of [{ agent: "NOT" }, { tags: ["NOR", "XOR"] }, { tags: ["bell\u0007", "x"] }]) {
        const none = await search.candidates({ principal: alice, query: "release notes", mode, filters });
        expect(none.candidates, `${mode} ${JSON.stringify(filters)}`).toEqual([]);
      }
    }
  });

  test("a memory is found exactly while it has not expired, after its expiry changed", async ({ search }) => {
    // Each document here is replaced when its expiry changes, as in a live index (not one
    // built in a single pass), with expiries on both sides of now.
    const now = Date.now();
    const expiries = {
      past: "2026-01-01T00:00:00.000Z",
      farFuture: "2999-01-01T00:00:00.000Z",
      nextHour: new Date(now + 3_600_000).toISOString(),
      lifted: null,
      never: undefined,
    };
    const memories = new Map<string, string>();
    for (const name of Object.keys(expiries)) {
      memories.set(name, (await search.log.record({ content: `Orchid greenhouse notes: ${name}.` })).id);
    }
    await search.log.change(memories.get("lifted") as string, "memory.invalidated", {
      invalidAt: expiries.past,
      reason: null,
    });
    for (const [name, invalidAt] of Object.entries(expiries)) {
      if (invalidAt === undefined) continue;
      await search.log.change(memories.get(name) as string, "memory.invalidated", {
        invalidAt,
        reason: null,
      });
    }
    await search.settle();
    const ids = (names: string[]) => names.map((n) => memories.get(n) as string).sort();
    for (const mode of modes) {
      for (const includeExpired of [false, true]) {
        const reply = await search.candidates({
          principal: alice,
          query: "orchid greenhouse",
          mode,
          filters: { includeExpired },
        });
        const names = Object.keys(expiries).filter((n) => includeExpired || n !== "past");
        expect(
          reply.candidates.map((c) => c.id).sort(),
          `${mode}, expired ${includeExpired ? "included" : "left out"}`,
        ).toEqual(ids(names));
      }
    }
  });

  test("a memory is found until its expiry passes, with no write in between, and again once lifted", async ({
    search,
  }) => {
    const found = async (principal: typeof alice) => {
      const ids: string[][] = [];
      for (const mode of modes) {
        const reply = await search.candidates({ principal, query: "orchid greenhouse", mode });
        ids.push(reply.candidates.map((c) => c.id).sort());
      }
      // Every mode agrees.
      expect(new Set(ids.map((list) => list.join()))).toHaveProperty("size", 1);
      return ids[0] as string[];
    };
    const lasting = await search.log.record({ content: "Orchid greenhouse notes that never expire." });
    const soon = await search.log.record({ content: "Orchid greenhouse notes that expire soon." });
    // Another tenant's global memory, expired: seen by everyone, and left out for everyone.
    const olga = principals.olga;
    const elsewhere = await search.log.record({
      content: "Orchid greenhouse notes from elsewhere.",
      scope: "global",
      author: { tenant: olga.tenant, agent: olga.agent },
    });
    await search.log.change(
      elsewhere.id,
      "memory.invalidated",
      { invalidAt: "2026-01-01T00:00:00.000Z", reason: null },
      { author: { tenant: olga.tenant, agent: olga.agent } },
    );
    const expiresAt = Date.now() + 2_000;
    await search.log.change(soon.id, "memory.invalidated", {
      invalidAt: new Date(expiresAt).toISOString(),
      reason: null,
    });
    await search.settle();
    expect(await found(alice)).toEqual([lasting.id, soon.id].sort());
    expect(await found(olga)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 100));
    expect(await found(alice)).toEqual([lasting.id]);
    await search.log.change(soon.id, "memory.invalidated", { invalidAt: null, reason: null });
    await search.log.change(
      elsewhere.id,
      "memory.invalidated",
      { invalidAt: null, reason: null },
      { author: { tenant: olga.tenant, agent: olga.agent } },
    );
    await search.settle();
    expect(await found(alice)).toEqual([lasting.id, soon.id, elsewhere.id].sort());
    expect(await found(olga)).toEqual([elsewhere.id]);
  });

  test("a NUL character in a filter or a query is refused by name, not sent to a read model", async ({
    search,
  }) => {
    for (const request of [
      { query: "release", filters: { tags: ["a\u0000"] } },
      { query: "release", filters: { agent: "\u0000" } },
      { query: "rel\u0000ease" },
    ]) {
      const error = await refusal(search.candidates({ principal: alice, ...request }));
      expect(error.code).toBe("validation_failed");
      expect(error.message).toContain("NUL");
    }
  });

  test("afterPosition beyond the log's end is refused at once with the log's end, on candidates, get and status", async ({
    search,
  }) => {
    const { id } = await search.log.record({ content: "The only memory." });
    const end = await search.settle();
    const beyond = end + 1000;
    // The wait would run 30 s, longer than the client waits for an answer: only a prompt
    // refusal answers `validation_failed` here.
    const waits = [
      search.candidates({
        principal: alice,
        query: "memory",
        mode: "hybrid",
        afterPosition: beyond,
        waitTimeoutMs: 30_000,
      }),
      search.candidates({ principal: alice, query: "memory", afterPosition: beyond, waitTimeoutMs: 30_000 }),
      search.get({ principal: alice, id, afterPosition: beyond, waitTimeoutMs: 30_000 }),
      search.status({ afterPosition: beyond, waitTimeoutMs: 30_000 }),
    ];
    for (const error of await Promise.all(waits.map(refusal))) {
      expect(error.code).toBe("validation_failed");
      expect(error.details).toEqual({ afterPosition: beyond, logPosition: end });
      expect(error.hint).toContain(`the log ends at ${end}`);
    }
    // The log's end itself is a position a write answered: it is waited for as usual.
    expect((await search.status({ afterPosition: end })).position).toBeGreaterThanOrEqual(end);
  });
});
