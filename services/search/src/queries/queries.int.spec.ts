// The query RPCs against real read models: filters and visibility (identical in every
// retrieval mode), filtered KNN, hybrid scores, reads by id and slot with links, read-your-
// writes, and hostile input that must neither break nor widen a query.
import type { Principal, SearchFiltersInput } from "@cairn/contracts";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { principals, searchTest as test } from "../testing/search-test.ts";
import type { SearchUnderTest } from "../testing/search-under-test.ts";

const { alice, bob, boss, olga } = principals;
const modes = ["lexical", "vector", "hybrid"] as const;

type Fixture = Record<"m1" | "m2" | "m3" | "m4" | "m5" | "m6" | "m7" | "m8", string>;

/** Eight memories that all mention "orchid", differing in everything a filter can see. */
async function orchids(search: SearchUnderTest): Promise<Fixture> {
  const acmeAlice = { tenant: "acme", agent: "alice" };
  const acmeBob = { tenant: "acme", agent: "bob" };
  const globex = { tenant: "globex", agent: "olga" };
  const rec = async (fields: Parameters<SearchUnderTest["log"]["record"]>[0]) =>
    (await search.log.record(fields)).id;
  const f: Fixture = {
    m1: await rec({
      author: acmeAlice,
      content: "Orchid greenhouse decision: water weekly.",
      kind: "decision",
      tags: ["ops", "db"],
      project: "cairn",
      recordedAt: "2026-01-10T00:00:00.000Z",
    }),
    m2: await rec({
      author: acmeAlice,
      scope: "agent",
      content: "My private orchid fix.",
      kind: "fix",
      tags: ["ops"],
      recordedAt: "2026-02-01T00:00:00.000Z",
    }),
    m3: await rec({
      author: acmeBob,
      scope: "agent",
      content: "Bob's private orchid note.",
      tags: ["db"],
      recordedAt: "2026-02-10T00:00:00.000Z",
    }),
    m4: await rec({
      author: acmeBob,
      content: "Orchid fact from bob for the team.",
      kind: "fact",
      project: "other",
      recordedAt: "2026-06-01T00:00:00.000Z",
    }),
    m5: await rec({
      author: globex,
      content: "Globex orchid team memory.",
      recordedAt: "2026-03-01T00:00:00.000Z",
    }),
    m6: await rec({
      author: globex,
      scope: "global",
      content: "A global orchid memory for every tenant.",
      recordedAt: "2026-03-02T00:00:00.000Z",
    }),
    m7: await rec({
      author: acmeAlice,
      content: "An expired orchid memory.",
      recordedAt: "2026-01-05T00:00:00.000Z",
    }),
    m8: await rec({
      author: acmeAlice,
      content: "An archived orchid memory.",
      recordedAt: "2026-01-06T00:00:00.000Z",
    }),
  };
  await search.log.change(f.m7, "memory.invalidated", {
    invalidAt: "2026-01-07T00:00:00.000Z",
    reason: null,
  });
  await search.log.change(f.m8, "memory.archived", { reason: null });
  await search.settle();
  return f;
}

async function found(
  search: SearchUnderTest,
  principal: Principal,
  filters: SearchFiltersInput = {},
  query = "orchid",
): Promise<Record<(typeof modes)[number], string[]>> {
  const out = {} as Record<(typeof modes)[number], string[]>;
  for (const mode of modes) {
    const reply = await search.candidates({ principal, query, mode, candidateK: 50, filters });
    out[mode] = reply.candidates.map((c) => c.id).sort();
  }
  return out;
}

const same = (ids: string[]) => {
  const sorted = [...ids].sort();
  return { lexical: sorted, vector: sorted, hybrid: sorted };
};

describe("search.candidates", () => {
  test("each principal sees its tenant's team memories, its own private ones and global ones", async ({
    search,
  }) => {
    const f = await orchids(search);
    expect(await found(search, alice)).toEqual(same([f.m1, f.m2, f.m4, f.m6]));
    expect(await found(search, bob)).toEqual(same([f.m1, f.m3, f.m4, f.m6]));
    // The tenant's primary agent sees every agent's private memories in its tenant.
    expect(await found(search, boss)).toEqual(same([f.m1, f.m2, f.m3, f.m4, f.m6]));
    // Another tenant: only its own and global ones.
    expect(await found(search, olga)).toEqual(same([f.m5, f.m6]));
    // An agent id differing only in case is another agent.
    expect(await found(search, { ...alice, agent: "Alice" })).toEqual(same([f.m1, f.m4, f.m6]));
  });

  test("the query * lists what the principal may see and the filters allow, newest first, in every mode", async ({
    search,
  }) => {
    const f = await orchids(search);
    for (const mode of modes) {
      const listed = await search.candidates({ principal: alice, query: "*", mode, candidateK: 50 });
      // Alice's visible, active, unexpired memories: m4 (June) is newest, then the global m6,
      // her private m2, and m1.
      expect(listed.candidates.map((c) => c.id)).toEqual([f.m4, f.m6, f.m2, f.m1]);
      const narrowed = await search.candidates({
        principal: alice,
        query: "*",
        mode,
        candidateK: 50,
        filters: { kind: ["fix"] },
      });
      expect(narrowed.candidates.map((c) => c.id)).toEqual([f.m2]);
    }
    // The newest first even when fewer are asked for than there are.
    for (const [principal, newest] of [
      [olga, f.m6],
      [alice, f.m4],
    ] as const) {
      const one = await search.candidates({ principal, query: " * ", candidateK: 1 });
      expect(one.candidates.map((c) => c.id)).toEqual([newest]);
    }
  });

  test("every filter narrows the same way in every mode and never widens visibility", async ({ search }) => {
    const f = await orchids(search);
    const cases: [SearchFiltersInput, string[]][] = [
      [{ kind: ["decision"] }, [f.m1]],
      [{ kind: ["fix", "fact"] }, [f.m2, f.m4]],
      [{ tags: ["ops"] }, [f.m1, f.m2]],
      [{ tags: ["OPS", "db"] }, [f.m1]],
      [{ anyTags: ["db", "nothing"] }, [f.m1]],
      [{ project: "cairn" }, [f.m1]],
      [{ agent: "bob" }, [f.m4]],
      [{ scope: ["agent"] }, [f.m2]],
      [{ scope: ["global"] }, [f.m6]],
      [{ createdFrom: "2026-05-01T00:00:00.000Z" }, [f.m4]],
      [{ createdTo: "2026-02-15T00:00:00.000Z" }, [f.m1, f.m2]],
      [{ createdFrom: "2026-02-01T00:00:00.000Z", createdTo: "2026-03-01T00:00:00.000Z" }, [f.m2]],
      [{ includeExpired: true }, [f.m1, f.m2, f.m4, f.m6, f.m7]],
      [{ status: ["archived"] }, [f.m8]],
      [{ status: ["active", "archived"] }, [f.m1, f.m2, f.m4, f.m6, f.m8]],
      [{ tier: "proposal" }, []],
      [{ tags: ["ops} | @tenant:{globex"] }, []],
      [{ project: "cairn}|(@scope:{global})" }, []],
      [{ agent: "bob} | @tenant:{globex" }, []],
      [{ tags: ["_"], anyTags: ["_", "-"] }, []],
    ];
    for (const [filters, expected] of cases) {
      expect({ filters, ids: await found(search, alice, filters) }).toEqual({ filters, ids: same(expected) });
    }
  });

  test("a filtered vector query still returns k rows when most of the index belongs to others", async ({
    search,
  }) => {
    const noise = { tenant: "noise", agent: "n" };
    for (let batch = 0; batch < 10; batch += 1) {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          search.log.record({ author: noise, content: `orchid care instructions number ${batch * 40 + i}` }),
        ),
      );
    }
    const ours: string[] = [];
    for (let i = 0; i < 15; i += 1) {
      ours.push((await search.log.record({ content: `watering schedule ${i} for the office plants` })).id);
    }
    await search.settle(30_000);
    const reply = await search.candidates({
      principal: alice,
      query: "orchid care",
      mode: "vector",
      candidateK: 15,
    });
    expect(reply.candidates.map((c) => c.id).sort()).toEqual([...ours].sort());
  });

  test("a word most memories hold: the rarer words lead, it still counts, and it still finds when they are few", async ({
    search,
  }) => {
    const common: string[] = [];
    for (let i = 0; i < 10; i += 1) {
      common.push((await search.log.record({ content: `standup notes for week ${i} of the quarter` })).id);
    }
    const both = (await search.log.record({ content: "standup about kafka partition rebalancing" })).id;
    const rare = (await search.log.record({ content: "kafka partition rebalancing in the cluster" })).id;
    await search.settle();
    // Re-ranked as the gateway asks: what holds too little of the query is marked, not left out.
    const ask = async (candidateK: number) =>
      (
        await search.candidates({
          principal: alice,
          query: "standup kafka",
          mode: "lexical",
          candidateK,
          belowFloor: "mark",
        })
      ).candidates;
    const ids = (list: { id: string }[]) => list.map((c) => c.id);
    // "standup" is in 11 of 12 memories: the two with "kafka" are the list, and the one that
    // also holds "standup" scores higher.
    expect(ids(await ask(2))).toEqual([both, rare]);
    // A longer list than "kafka" fills: the memories with "standup" alone come after them,
    // with their (small) share of the query.
    const longer = await ask(5);
    expect(ids(longer).slice(0, 2)).toEqual([both, rare]);
    expect(longer).toHaveLength(5);
    expect(common).toEqual(expect.arrayContaining(ids(longer).slice(2)));
    for (const c of longer.slice(2)) expect(c.lexical?.score).toBeGreaterThan(0);
  });

  test("queries while memories are being revised neither fail nor repeat, lose or tear a memory", async ({
    search,
  }) => {
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      ids.push((await search.log.record({ content: `juniper pruning note ${i}, first draft` })).id);
    }
    await search.settle();
    // Every memory is revised five times while the queries run: each revision replaces its
    // document in the lexical index and its row in the vector read model.
    let revising = true;
    const revisions = (async () => {
      for (let draft = 2; draft <= 6; draft += 1) {
        for (const [i, id] of ids.entries()) {
          await search.log.change(id, "memory.revised", {
            content: `juniper pruning note ${i}, draft ${draft}`,
          });
        }
      }
    })().finally(() => {
      revising = false;
    });
    let asked = 0;
    while (revising || asked < modes.length) {
      const mode = modes[asked % modes.length] as (typeof modes)[number];
      asked += 1;
      const reply = await search.candidates({
        principal: alice,
        query: "juniper pruning",
        mode,
        candidateK: 50,
      });
      const got = reply.candidates.map((c) => c.id);
      expect(new Set(got).size, mode).toBe(got.length);
      expect([...got].sort(), mode).toEqual([...ids].sort());
      // A document is one whole version, never a mix of two.
      for (const c of reply.candidates) {
        const i = ids.indexOf(c.id);
        expect(c.document.content, mode).toMatch(
          new RegExp(`^juniper pruning note ${i}, (first draft|draft [2-6])$`),
        );
      }
    }
    await revisions;
    expect(asked).toBeGreaterThan(modes.length);
  });

  test("hybrid candidates carry each retriever's rank and score and their fused score", async ({
    search,
  }) => {
    const both = await search.log.record({ content: "Postgres vacuum tuning for the events table." });
    const vectorOnly = await search.log.record({ content: "Postgresql autovacuum notes." });
    await search.settle();
    const reply = await search.candidates({ principal: alice, query: "postgres vacuum", mode: "hybrid" });
    const top = reply.candidates[0];
    expect(top?.id).toBe(both.id);
    expect(top?.lexical?.rank).toBe(1);
    expect(top?.lexical?.score).toBeGreaterThan(0);
    expect(top?.vector?.rank).toBe(1);
    // Best on both: the fused relevance is the whole of it.
    expect(top?.fused).toBeCloseTo(1, 10);
    // "postgresql"/"autovacuum" share no term with the query; the local embedder puts them
    // no closer than unrelated text, so the relevance floor leaves the memory out.
    expect(reply.candidates.find((c) => c.id === vectorOnly.id)).toBeUndefined();
    expect(reply.belowFloor).toBe(1);
    expect(top?.coverage).toBe(1);
    expect(reply.vectorWeight).toBe(0.1);
    // Found by vectors alone, it has the vector part's share of the fused relevance.
    const byVector = await search.candidates({ principal: alice, query: "postgres vacuum", mode: "vector" });
    expect(byVector.candidates.map((c) => c.id)).toEqual([both.id, vectorOnly.id]);
    expect(byVector.candidates[1]?.fused).toBeCloseTo(
      (byVector.candidates[1]?.vector?.score ?? 0) / (byVector.candidates[0]?.vector?.score ?? 1),
      10,
    );
    expect(reply.embeddingModel).toBe("local:hash-v1:384");
    expect(reply.unavailable).toEqual([]);
  });

  test("the local embedder finds typos, inflections and Chinese; the lexical index segments Chinese", async ({
    search,
  }) => {
    const deploy = await search.log.record({ content: "Deployment runbook: migrate the database first." });
    const chinese = await search.log.record({ content: "我们的部署流程需要先运行数据库迁移。" });
    await search.settle();
    const top = async (query: string, mode: "lexical" | "vector") =>
      (await search.candidates({ principal: alice, query, mode })).candidates[0]?.id;
    expect(await top("deploymnet runbok", "vector")).toBe(deploy.id);
    expect(await top("deploying", "vector")).toBe(deploy.id);
    expect(await top("部署流程", "lexical")).toBe(chinese.id);
    expect(await top("数据库", "lexical")).toBe(chinese.id);
    expect(await top("部署", "vector")).toBe(chinese.id);
  });

  test("read-your-writes: a query with afterPosition waits for the projections, or times out clearly", async ({
    search,
  }) => {
    const { event } = await search.log.record({
      content: "Written just now, delivered late.",
      publish: false,
    });
    const pending = search.candidates({
      principal: alice,
      query: "delivered late",
      mode: "hybrid",
      afterPosition: event.position,
      waitTimeoutMs: 10_000,
    });
    await new Promise((r) => setTimeout(r, 300));
    await search.log.publish([event]);
    const reply = await pending;
    expect(reply.candidates.map((c) => c.document.content)).toEqual(["Written just now, delivered late."]);
    expect(reply.position).toBeGreaterThanOrEqual(event.position);

    // A committed write the read models have not applied yet: the wait runs out clearly.
    const { event: late } = await search.log.record({ content: "Not delivered yet.", publish: false });
    const behind = { afterPosition: late.position, waitTimeoutMs: 100 };
    await expect(search.candidates({ principal: alice, query: "anything", ...behind })).rejects.toMatchObject(
      {
        code: "timeout",
      },
    );
    await expect(search.get({ principal: alice, slot: "nothing", ...behind })).rejects.toMatchObject({
      code: "timeout",
    });
    await expect(search.status(behind)).rejects.toMatchObject({ code: "timeout" });
    await search.log.publish([late]);
  });

  test("hostile query text neither fails nor widens what a principal sees", async ({ search }) => {
    const f = await orchids(search);
    const visible = {
      alice: new Set([f.m1, f.m2, f.m4, f.m6]),
      olga: new Set([f.m5, f.m6]),
    };
    const hostile = [
      "*",
      "@tenant:{61636d65}",
      ") | (@tenant:{61636d65}) | (",
      "-@scope:{agent} orchid",
      '"unterminated orchid',
      "\\",
      "%%orchid%%",
      "orchid*",
      "{}[]()",
      "@invalid_at:[-inf +inf]",
      "~orchid",
      "orchid=>[KNN 10 @v $blob]",
      "$param orchid",
      "'); drop table cairn_events; --",
      "orchid | *",
      "🌸 orchid 🌸",
      "orchid\u0007\u001b\u0008",
      "orchid ".repeat(600),
      "ORCHID",
      "orchid\\|@tenant:{676c6f626578}",
      "‮orchid",
      "@scope:{global}|@scope:{team}|@scope:{agent}",
      "_",
      "__ _ -",
    ];
    const check = async (query: string) => {
      for (const [name, principal] of [
        ["alice", alice],
        ["olga", olga],
      ] as const) {
        for (const mode of modes) {
          const reply = await search.candidates({
            principal,
            query: query.slice(0, 4000),
            mode,
            candidateK: 50,
          });
          for (const c of reply.candidates)
            expect(visible[name].has(c.id), `${mode} ${name} ${query}`).toBe(true);
        }
      }
    };
    for (const query of hostile) await check(query);
    await fc.assert(
      fc.asyncProperty(
        // NUL is refused by name (search-filters.int.spec.ts); every other character is text.
        fc
          .string({ minLength: 1, maxLength: 80, unit: "binary" })
          .map((s) => s.replaceAll("\u0000", ""))
          .filter((s) => s.length > 0),
        async (query) => check(query),
      ),
      { numRuns: 60 },
    );
  });
});

describe("search.get", () => {
  test("by id or slot, with links and backlinks the principal may see", async ({ search }) => {
    const target = await search.log.record({ slot: "deploy-db", title: "Deploying the database" });
    const linking = await search.log.record({
      slot: "release",
      content: "See [[deploy-db]].",
      links: ["deploy-db"],
    });
    const hidden = await search.log.record({
      author: { tenant: "acme", agent: "bob" },
      scope: "agent",
      slot: "bobs-notes",
      links: ["deploy-db"],
    });
    const mine = await search.log.record({ slot: "style", scope: "agent", content: "alice's own style" });
    const team = await search.log.record({
      author: { tenant: "acme", agent: "bob" },
      slot: "style",
      content: "the team style",
    });
    await search.settle();

    const read = await search.get({ principal: alice, slot: "deploy-db" });
    expect(read.document.id).toBe(target.id);
    expect(read.backlinks.map((b) => b.id)).toEqual([linking.id]);
    const readByBob = await search.get({ principal: bob, id: target.id });
    expect(readByBob.backlinks.map((b) => b.id).sort()).toEqual([hidden.id, linking.id].sort());

    const release = await search.get({ principal: alice, id: linking.id });
    expect(release.links).toEqual([
      { id: target.id, slot: "deploy-db", title: "Deploying the database", tier: "memory", status: "active" },
    ]);

    // A slot held in several scopes: the asker's own first, then the team's.
    expect((await search.get({ principal: alice, slot: "style" })).document.id).toBe(mine.id);
    expect((await search.get({ principal: bob, slot: "style" })).document.id).toBe(team.id);

    // What a principal may not see does not exist for it.
    await expect(search.get({ principal: alice, id: hidden.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(search.get({ principal: olga, id: target.id })).rejects.toMatchObject({ code: "not_found" });
    await expect(search.get({ principal: alice, slot: "bobs-notes" })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(search.get({ principal: alice, id: target.id, tier: "proposal" })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
