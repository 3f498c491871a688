// Every event type's effect on both read models, through the real pipeline: the Postgres log,
// JetStream, the durable consumers, Redis + RediSearch and Postgres + pgvector.
import type { MemoryDocument, Principal, SearchFiltersInput } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { embedLocally } from "../embedders/local-embedder.ts";
import { principals, searchTest as test } from "../testing/search-test.ts";
import type { SearchUnderTest } from "../testing/search-under-test.ts";
import { embeddingText } from "./vector/vector-projection.ts";

const { alice } = principals;

async function idsFound(
  search: SearchUnderTest,
  query: string,
  filters: SearchFiltersInput = {},
  principal: Principal = alice,
): Promise<{ lexical: string[]; vector: string[] }> {
  const [lexical, vector] = await Promise.all(
    (["lexical", "vector"] as const).map((mode) =>
      search.candidates({
        principal,
        query,
        mode,
        filters: { tier: "memory", includeExpired: false, ...filters },
      }),
    ),
  );
  return {
    lexical: (lexical?.candidates ?? []).map((c) => c.id).sort(),
    vector: (vector?.candidates ?? []).map((c) => c.id).sort(),
  };
}

describe("projections", () => {
  test("each memory event changes the document the same way in both read models", async ({
    search,
    inspect,
  }) => {
    const { id } = await search.log.record({
      slot: "release-checklist",
      title: "Release checklist",
      content: "Tag the release and publish the changelog.",
      tags: ["release"],
    });
    const both = async (): Promise<MemoryDocument> => {
      await search.settle();
      const lexical = await inspect.lexicalDocument(id);
      const vector = await inspect.vectorDocument(id);
      expect(lexical).not.toBeNull();
      expect(vector).toEqual(lexical);
      return lexical as MemoryDocument;
    };

    let doc = await both();
    expect(doc).toMatchObject({
      status: "active",
      tier: "memory",
      version: 1,
      tenant: "acme",
      agent: "alice",
    });
    const firstEmbedding = await inspect.embedding(id);
    expect(firstEmbedding).toHaveLength(384);
    // Stored as the embedder made it (sent in pgvector's binary format, kept in half precision:
    // within 2^-11 of each value, these being below 1).
    const made = embedLocally(embeddingText(doc), 384);
    expect(made.some((v) => v !== 0)).toBe(true);
    for (const [i, value] of (firstEmbedding as number[]).entries()) {
      expect(Math.abs(value - (made[i] as number))).toBeLessThanOrEqual(2 ** -11);
    }

    // revised: new content is searchable and re-embedded.
    await search.log.change(id, "memory.revised", {
      content: "Tag the release, sign the artifacts, publish.",
    });
    doc = await both();
    expect(doc).toMatchObject({ version: 2, content: "Tag the release, sign the artifacts, publish." });
    expect(await idsFound(search, "sign artifacts")).toEqual({ lexical: [id], vector: [id] });
    const revisedEmbedding = await inspect.embedding(id);
    expect(revisedEmbedding).not.toEqual(firstEmbedding);

    // revised tags only: filters change, the embedding does not (its text did not change).
    await search.log.change(id, "memory.revised", { tags: ["release", "security"] });
    doc = await both();
    expect(doc.tags).toEqual(["release", "security"]);
    expect(await inspect.embedding(id)).toEqual(revisedEmbedding);
    expect(await idsFound(search, "release", { tags: ["security"] })).toEqual({
      lexical: [id],
      vector: [id],
    });

    await search.log.change(id, "memory.verified", { verifiedAt: "2026-11-01T00:00:00.000Z", note: null });
    doc = await both();
    expect(doc.verifiedAt).toBe("2026-11-01T00:00:00.000Z");

    // invalidated in the past: expired, hidden unless asked for; lifted again with null.
    await search.log.change(id, "memory.invalidated", {
      invalidAt: "2026-01-01T00:00:00.000Z",
      reason: null,
    });
    doc = await both();
    expect(doc.invalidAt).toBe("2026-01-01T00:00:00.000Z");
    expect(await idsFound(search, "release")).toEqual({ lexical: [], vector: [] });
    expect(await idsFound(search, "release", { includeExpired: true })).toEqual({
      lexical: [id],
      vector: [id],
    });
    await search.log.change(id, "memory.invalidated", {
      invalidAt: "2999-01-01T00:00:00.000Z",
      reason: null,
    });
    expect((await both()).invalidAt).toBe("2999-01-01T00:00:00.000Z");
    expect(await idsFound(search, "release")).toEqual({ lexical: [id], vector: [id] });
    await search.log.change(id, "memory.invalidated", { invalidAt: null, reason: null });
    expect((await both()).invalidAt).toBeNull();

    await search.log.change(id, "memory.archived", { reason: "old" });
    expect((await both()).status).toBe("archived");
    expect(await idsFound(search, "release")).toEqual({ lexical: [], vector: [] });
    expect(await idsFound(search, "release", { status: ["archived"] })).toEqual({
      lexical: [id],
      vector: [id],
    });

    await search.log.change(id, "memory.restored", { reason: null });
    expect((await both()).status).toBe("active");
    expect(await idsFound(search, "release")).toEqual({ lexical: [id], vector: [id] });

    await search.log.change(id, "memory.deleted", { reason: "wrong" });
    expect((await both()).status).toBe("deleted");
    expect(await idsFound(search, "release")).toEqual({ lexical: [], vector: [] });
    // Soft: the author can still read it by id (to restore it).
    expect((await search.get({ principal: alice, id })).document.status).toBe("deleted");

    await search.log.change(id, "memory.restored", { reason: null });
    const successor = "00000000-0000-4000-8000-000000000001";
    await search.log.change(id, "memory.superseded", { supersededBy: successor, reason: null });
    doc = await both();
    expect(doc).toMatchObject({ status: "superseded", supersededBy: successor, version: 12 });
    expect(await idsFound(search, "release")).toEqual({ lexical: [], vector: [] });
  });

  test("proposals and handoffs never appear in ordinary search, only when their tier is asked for", async ({
    search,
    inspect,
  }) => {
    const proposal = await search.log.record({
      tier: "proposal",
      content: "Proposal: cache the build artefacts.",
    });
    const handoff = await search.log.record({ tier: "handoff", content: "Handoff: finish the build cache." });
    const memory = await search.log.record({ content: "The build cache lives in the ci bucket." });
    await search.settle();
    expect(await idsFound(search, "build cache")).toEqual({ lexical: [memory.id], vector: [memory.id] });
    expect(await idsFound(search, "build cache", { tier: "proposal" })).toEqual({
      lexical: [proposal.id],
      vector: [proposal.id],
    });
    expect(await idsFound(search, "build cache", { tier: "handoff" })).toEqual({
      lexical: [handoff.id],
      vector: [handoff.id],
    });
    expect((await inspect.lexicalDocument(proposal.id))?.status).toBe("pending");

    await search.log.change(proposal.id, "proposal.revised", {
      content: "Proposal: cache artefacts in the bucket.",
    });
    await search.log.change(handoff.id, "handoff.updated", { title: "Build cache handoff" });
    await search.settle();
    expect(await inspect.vectorDocument(proposal.id)).toMatchObject({
      content: "Proposal: cache artefacts in the bucket.",
      version: 2,
    });
    expect(await inspect.lexicalDocument(handoff.id)).toMatchObject({
      title: "Build cache handoff",
      version: 2,
    });

    await search.log.change(proposal.id, "proposal.promoted", { memoryId: memory.id });
    await search.log.change(handoff.id, "handoff.completed", { summary: "done" });
    const rejected = await search.log.record({
      tier: "proposal",
      content: "Proposal: drop the build cache.",
    });
    await search.log.change(rejected.id, "proposal.rejected", { reason: "no" });
    await search.settle();
    for (const [id, status] of [
      [proposal.id, "promoted"],
      [handoff.id, "completed"],
      [rejected.id, "rejected"],
    ] as const) {
      expect((await inspect.lexicalDocument(id))?.status).toBe(status);
      expect((await inspect.vectorDocument(id))?.status).toBe(status);
    }
    expect((await inspect.lexicalDocument(proposal.id))?.promotedTo).toBe(memory.id);
    // Pending is the default status for proposals; promoted and rejected ones drop out.
    expect(await idsFound(search, "build cache", { tier: "proposal" })).toEqual({ lexical: [], vector: [] });
  });

  test("synonyms from the tenant's settings widen lexical queries of that tenant only", async ({
    search,
  }) => {
    const k8s = await search.log.record({ content: "Kubernetes upgrades happen on Tuesdays." });
    const other = await search.log.record({
      content: "Kubernetes upgrades happen on Fridays.",
      author: { tenant: "globex", agent: "olga" },
    });
    await search.settle();
    expect((await idsFound(search, "k8s")).lexical).toEqual([]);

    await search.log.setSynonyms("acme", [["k8s", "kubernetes"]]);
    await search.log.setSynonyms("globex", [["cluster", "kubernetes"]]);
    await search.settle();
    const reply = await search.candidates({ principal: alice, query: "k8s", mode: "lexical" });
    expect(reply.candidates.map((c) => c.id)).toEqual([k8s.id]);
    expect(reply.synonymsApplied).toEqual(["kubernetes"]);
    const globex = await search.candidates({ principal: principals.olga, query: "k8s", mode: "lexical" });
    expect(globex.candidates).toEqual([]);
    const cluster = await search.candidates({
      principal: principals.olga,
      query: "cluster",
      mode: "lexical",
    });
    expect(cluster.candidates.map((c) => c.id)).toEqual([other.id]);
  });

  test("a synonym's term is scored with the tenant's statistics, as the term asked directly is", async ({
    search,
  }) => {
    const first = await search.log.record({ content: "Kubernetes upgrades happen on Tuesdays." });
    await search.log.record({ content: "Kubernetes nodes drain before each upgrade." });
    await search.log.record({ content: "The release train leaves on Thursdays." });
    await search.log.setSynonyms("acme", [["k8s", "kubernetes"]]);
    await search.settle();
    const scoreOf = async (query: string) => {
      const reply = await search.candidates({ principal: alice, query, mode: "lexical" });
      return reply.candidates.find((c) => c.id === first.id)?.lexical?.score;
    };
    const direct = await scoreOf("kubernetes");
    const viaSynonym = await scoreOf("k8s");
    // An expansion term counts half of a word of the query, with the same idf (two of the
    // tenant's memories hold it, not one).
    expect(direct).toBeGreaterThan(0);
    expect(viaSynonym).toBeCloseTo((direct as number) * 0.5, 10);
  });

  test("key and activity events move the checkpoints and change no document", async ({ search, inspect }) => {
    const { id } = await search.log.record({ content: "Feedback target." });
    await search.settle();
    const before = await inspect.allDocuments();
    await search.log.append(`key-00000000-0000-4000-8000-0000000000aa`, "key", [
      {
        type: "key.linked",
        data: {
          keyId: "00000000-0000-4000-8000-0000000000aa",
          label: "target",
          type: "concept",
          memoryId: id,
        },
      },
    ]);
    const [last] = await search.log
      .append(`activity-${id}`, "activity", [
        { type: "feedback.given", data: { memoryId: id, useful: true, agent: "alice", note: null } },
        {
          type: "memories.recalled",
          data: { memoryIds: [id], agent: "alice", viaKey: null, query: "target" },
        },
      ])
      .then((events) => events.slice(-1));
    await search.settle();
    expect(await inspect.checkpoints()).toEqual({ lexical: last?.position, vector: last?.position });
    expect(await inspect.allDocuments()).toEqual(before);
  });
});
