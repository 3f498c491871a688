// `cairn.search.results` with no ranking service on the bus (it may start after search, or be
// away): the results keep search's order, leave out what search marked below the relevance
// floor, and carry the documents of the top `limit` only; as of a past point, the documents of
// then. With ranking running, the gateway's and the traces' tests see the re-ranked results.
import type { ResultsRequest } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { principals, searchTest as test } from "../testing/search-test.ts";

const { alice } = principals;

describe("final results without a ranking service", () => {
  test("are in search order, without what is below the relevance floor, and as many as asked", async ({
    search,
  }) => {
    const contents = [
      "Postgres vacuum tuning for the events table.",
      "Vacuum the postgres replicas every night.",
      "Postgres connection pool sizing for the api.",
      "The vacuum of the postgres archive runs weekly.",
    ];
    for (const content of contents) await search.log.record({ content });
    // No word of the query: the local embedder puts it no closer than unrelated text.
    const unrelated = await search.log.record({ content: "Postgresql autovacuum notes." });
    await search.settle();
    const ask: ResultsRequest = {
      principal: alice,
      query: "postgres vacuum",
      mode: "hybrid",
      belowFloor: "mark",
    };
    const { candidates } = await search.candidates(ask);
    expect(candidates.find((c) => c.id === unrelated.id)?.belowFloor).toBe(true);
    const kept = candidates.filter((c) => !c.belowFloor);
    expect(kept).toHaveLength(4);

    const two = await search.results({ ...ask, limit: 2 });
    expect(two.ranking).toBe("search_order");
    expect(two.results.map((r) => r.document.id)).toEqual(kept.slice(0, 2).map((c) => c.id));
    expect(two.results.map((r) => r.score)).toEqual(kept.slice(0, 2).map((c) => c.fused));
    for (const r of two.results) {
      expect(contents).toContain(r.document.content);
      expect(r.candidate.id).toBe(r.document.id);
      expect(r.factors).toBeNull();
    }

    const all = await search.results({ ...ask, limit: 10, explain: true });
    expect(all.results.map((r) => r.document.id)).toEqual(kept.map((c) => c.id));
    expect(all.vectorWeight).toBe(0.1);
  });

  test("as of a past point, answer with the documents of then", async ({ search }) => {
    const { id, event } = await search.log.record({ content: "The orchid greenhouse is watered weekly." });
    await search.log.change(id, "memory.revised", { content: "The orchid greenhouse is watered daily." });
    await search.settle();
    const ask: ResultsRequest = { principal: alice, query: "orchid greenhouse", limit: 5 };
    const now = await search.results(ask);
    expect(now.results.map((r) => r.document.content)).toEqual(["The orchid greenhouse is watered daily."]);
    const then = await search.results({ ...ask, asOf: event.position });
    expect(then.results.map((r) => r.document.content)).toEqual(["The orchid greenhouse is watered weekly."]);
    expect(then.position).toBe(event.position);
    expect(then.ranking).toBe("search_order");
  });
});
