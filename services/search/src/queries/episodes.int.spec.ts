// Episodes on real read models: the turn after (or before) a matching turn of a conversation
// shares its relevance, even when it holds none of the query's words; a neighbour the
// principal may not see is never brought in; a memory's read names its neighbours; and the
// retrievers alone (episodes off) leave it out. A match reads what it needs of each document
// from the index (its payload), and one written without it is read from its hash alike.
import { describe, expect } from "vitest";
import { principals, searchTest as test } from "../testing/search-test.ts";

const { alice, bob } = principals;
const acmeAlice = { tenant: "acme", agent: "alice" };
const acmeBob = { tenant: "acme", agent: "bob" };

describe("episodes", () => {
  test("a matching turn's neighbours share its relevance; what one may not see never joins", async ({
    search,
  }) => {
    const turn = (order: number, content: string, author = acmeAlice, scope: "team" | "agent" = "team") =>
      search.log.record({ author, content, scope, episode: { id: "chat-7", order } });
    const before = await turn(1, "Ana: I adopted a dog last week!");
    const match = await turn(2, "Ben: What breed is your new dog?");
    const answer = await turn(3, "Ana: A greyhound called Pepper.");
    const later = await turn(4, "Ana: Off to the park now.");
    const unrelated = await search.log.record({
      author: acmeAlice,
      content: "The greyhound race is on Sunday.",
    });
    const privateNext = await search.log.record({
      author: acmeBob,
      scope: "agent",
      content: "Bob: private aside.",
      episode: { id: "chat-9", order: 2 },
    });
    await search.log.record({
      author: acmeBob,
      content: "Bob: what breed, again?",
      episode: { id: "chat-9", order: 1 },
    });
    await search.settle();

    const found = await search.candidates({ principal: alice, query: "which breed of dog", mode: "hybrid" });
    const ids = found.candidates.map((c) => c.id);
    const byId = new Map(found.candidates.map((c) => [c.id, c]));
    // The answer holds neither "breed" nor "dog": it comes from the turn before it.
    expect(byId.get(answer.id)?.episode).toEqual({ from: match.id, boost: expect.any(Number) });
    expect(byId.get(answer.id)?.lexical).toBeNull();
    expect(ids.indexOf(answer.id)).toBeLessThan(
      ids.indexOf(unrelated.id) === -1 ? Infinity : ids.indexOf(unrelated.id),
    );
    expect(byId.get(before.id)?.episode?.from).toBe(match.id);
    // Two turns away: nothing passed on.
    expect(byId.get(later.id)).toBeUndefined();
    // Bob's private aside is a neighbour of a match Alice sees, but not hers to see.
    expect(ids).not.toContain(privateNext.id);
    const asBob = await search.candidates({ principal: bob, query: "which breed", mode: "hybrid" });
    expect(asBob.candidates.find((c) => c.id === privateNext.id)?.episode).toBeDefined();

    // The retrievers alone leave the answer out.
    const alone = await search.candidates({ principal: alice, query: "which breed of dog", episodes: false });
    expect(alone.candidates.map((c) => c.id)).not.toContain(answer.id);

    // A read names the neighbours.
    const read = await search.get({ principal: alice, id: answer.id });
    expect(read.neighbours).toEqual({
      previous: expect.objectContaining({ id: match.id }),
      next: expect.objectContaining({ id: later.id }),
    });
    expect((await search.get({ principal: alice, id: unrelated.id })).neighbours).toBeUndefined();
  });

  test("documents written without their match payload (by a copy of search from before it) are found, scored and spread alike", async ({
    search,
    inspect,
  }) => {
    const turn = (order: number, content: string) =>
      search.log.record({ content, episode: { id: "chat-ü|7", order } });
    await turn(1, "Ana: I adopted a dog last week, the dog is a rescue dog!");
    const match = await turn(2, "Ben: What breed is your new dog?");
    const answer = await turn(3, "Ana: A greyhound called Pepper.");
    await search.log.record({ content: "The dog show is on Sunday; breed standards apply." });
    await search.settle();
    const ask = async () =>
      (await search.candidates({ principal: alice, query: "which breed of dog", mode: "lexical" })).candidates
        .map((c) => ({ id: c.id, lexical: c.lexical, episode: c.episode ?? null }))
        .sort((a, b) => a.id.localeCompare(b.id));
    const before = await ask();
    expect(before.find((c) => c.id === answer.id)?.episode?.from).toBe(match.id);

    const { redis, lexicalStore } = inspect.models;
    const g = (await lexicalStore.activeGeneration()) as number;
    const keys = await redis.keys(`${lexicalStore.docKey(g, "")}*`);
    expect(keys.length).toBe(4);
    for (const key of keys) {
      const fields = Object.entries(await redis.hgetall(key)).flat();
      // As FT.ADD was sent before payloads (1.x); on 2.x the hash is the document already.
      if (lexicalStore.module.generation === 1)
        await redis.call("FT.ADD", lexicalStore.indexName(g), key, "1.0", "REPLACE", "FIELDS", ...fields);
    }
    if (lexicalStore.module.generation === 1) {
      const reply = (await redis.call(
        "FT.SEARCH",
        lexicalStore.indexName(g),
        "@terms:dog",
        "NOCONTENT",
        "WITHPAYLOADS",
      )) as unknown[];
      expect(reply.filter((_, i) => i > 0 && i % 2 === 0)).toEqual([null, null, null]);
    }
    expect(await ask()).toEqual(before);
  });

  test("the tenant's episodeSpread 0 turns it off; its relevance floor keeps unrelated memories out", async ({
    search,
  }) => {
    const match = await search.log.record({
      content: "Ben: What breed is your new dog?",
      episode: { id: "c", order: 1 },
    });
    const answer = await search.log.record({ content: "Ana: A greyhound.", episode: { id: "c", order: 2 } });
    const noise = await search.log.record({ content: "Metrics marker: every request is counted." });
    await search.log.changeSettings("acme", {
      retrieval: { vectorWeight: null, relevanceFloor: 0.15, episodeSpread: 0 },
    });
    await search.settle();
    const found = await search.candidates({
      principal: alice,
      query: "what breed is the dog",
      mode: "hybrid",
    });
    const ids = found.candidates.map((c) => c.id);
    expect(ids).toContain(match.id);
    expect(ids).not.toContain(answer.id);
    expect(ids).not.toContain(noise.id);
    expect(found.belowFloor).toBeGreaterThanOrEqual(1);

    // A caller that re-ranks asks to have them marked instead, for ranking to judge.
    const marked = await search.candidates({
      principal: alice,
      query: "what breed is the dog",
      mode: "hybrid",
      belowFloor: "mark",
    });
    const byId = new Map(marked.candidates.map((c) => [c.id, c]));
    expect(byId.get(match.id)?.belowFloor).toBeUndefined();
    expect(byId.get(noise.id)?.belowFloor).toBe(true);
    expect(marked.belowFloor).toBe(found.belowFloor);
  });
});
