// The key graph against the real service: links from memory events, merges, hubs and
// pagination, Hebbian reinforcement, one hop, and visibility.
import { randomUUID } from "node:crypto";
import { type KeysReadReply, keyIdFor, rankingRpcs } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { rankingTest, recorded } from "./ranking-harness.ts";

const test = rankingTest({ CAIRN_RANKING_HUB_MIN_LINKS: "5" });

describe("key graph", () => {
  test("files memories under the agent's keys and extracted entities, and recalls them", async ({
    ranking: h,
  }) => {
    const a = randomUUID();
    const b = randomUUID();
    await h.publish(
      recorded({
        id: a,
        content: "Use Django's ORM for the billing service.",
        keys: ["billing"],
        entities: [{ text: "Django", type: "product" }],
      }),
    );
    const position = await h.publish(
      recorded({ id: b, content: "Billing runs nightly.", keys: ["Billing"], entities: [] }),
    );
    const recall = await h.request(rankingRpcs.keysRecall, {
      query: "how is billing done?",
      afterPosition: position,
    });
    expect(recall.keys[0]).toMatchObject({ label: "billing", type: "concept", linkedCount: 2, hub: false });
    expect(JSON.stringify(recall)).not.toContain("nightly");

    const django = await h.request(rankingRpcs.keysRecall, { query: "django" });
    expect(django.keys[0]).toMatchObject({ label: "Django", type: "proper_noun", linkedCount: 1 });
    expect(django.keys[0]?.specificity).toBeGreaterThan(recall.keys[0]?.specificity ?? 1);

    const read = await h.request(rankingRpcs.keysRead, { keyId: recall.keys[0]?.keyId });
    expect(read.memories.map((m) => m.id).sort()).toEqual([a, b].sort());
    expect(read.memories[0]).toMatchObject({ kind: "note", linkWeight: 1, depth: 0 });
    expect(read.memories[0]).not.toHaveProperty("content");
  });

  test("merges a near concept key as an alias, and applies key.merged", async ({ ranking: h }) => {
    const a = randomUUID();
    const b = randomUUID();
    const c = randomUUID();
    await h.publish(
      recorded({ id: a, content: "Kubernetes cluster upgrades.", keys: ["kubernetes cluster"] }),
    );
    await h.publish(
      recorded({ id: b, content: "Node pools of the cluster.", keys: ["kubernetes clusters"] }),
    );
    let position = await h.publish(
      recorded({ id: c, content: "The k8s cluster.", keys: ["kubernetes-cluster"] }),
    );
    const recall = await h.request(rankingRpcs.keysRecall, {
      query: "kubernetes cluster",
      afterPosition: position,
    });
    expect(recall.keys).toHaveLength(1);
    expect(recall.keys[0]).toMatchObject({ label: "kubernetes cluster", linkedCount: 3 });

    // Concepts also merge on near spelling (trigram similarity above the threshold).
    const d = randomUUID();
    position = await h.publish(recorded({ id: d, content: "Observability stack.", keys: ["observability"] }));
    const e = randomUUID();
    position = await h.publish(recorded({ id: e, content: "More on it.", keys: ["observabillity"] }));
    const typo = await h.request(rankingRpcs.keysRecall, {
      query: "observability",
      afterPosition: position,
    });
    expect(typo.keys[0]).toMatchObject({
      label: "observability",
      aliases: ["observabillity"],
      linkedCount: 2,
    });

    // An explicit merge (e.g. `파이썬` into `Python` when the embedder places them together).
    const p1 = randomUUID();
    const p2 = randomUUID();
    await h.publish(recorded({ id: p1, content: "Python tooling.", keys: ["Python"] }));
    position = await h.publish(recorded({ id: p2, content: "파이썬 도구.", keys: ["파이썬"] }));
    const recallOne = async (query: string) =>
      (await h.request(rankingRpcs.keysRecall, { query, afterPosition: position })).keys[0];
    const python = await recallOne("Python");
    const korean = await recallOne("파이썬");
    expect(python?.keyId).not.toBe(korean?.keyId);
    position = await h.publish({
      type: "key.merged",
      streamId: `key-${korean?.keyId}`,
      data: {
        keyId: korean?.keyId as string,
        intoKeyId: python?.keyId as string,
        alias: "파이썬",
      },
    });
    const merged = await h.request(rankingRpcs.keysRecall, {
      query: "파이썬",
      afterPosition: position,
    });
    expect(merged.keys[0]).toMatchObject({ keyId: python?.keyId, label: "Python", linkedCount: 2 });
    expect(merged.keys[0]?.aliases).toContain("파이썬");
    // The merged-away id still resolves to the surviving key.
    const read = await h.request(rankingRpcs.keysRead, { keyId: korean?.keyId });
    expect(read.key.keyId).toBe(python?.keyId);
    expect(read.memories.map((m) => m.id).sort()).toEqual([p1, p2].sort());
  });

  test("ingest's key.linked lands on the key derived from the same memory", async ({ ranking: h }) => {
    const a = randomUUID();
    const b = randomUUID();
    await h.publish(recorded({ id: a, content: "Rollback steps.", keys: ["Deployments"] }));
    await h.publish({
      type: "key.linked",
      streamId: `key-${keyIdFor(h.tenant, "Deployments")}`,
      data: { keyId: keyIdFor(h.tenant, "Deployments"), label: "Deployments", type: "concept", memoryId: a },
    });
    // Another agent's spelling: a different id in the log, the same key here.
    await h.publish(recorded({ id: b, content: "Deploy windows.", keys: ["deployment"] }));
    const position = await h.publish({
      type: "key.linked",
      streamId: `key-${keyIdFor(h.tenant, "deployment")}`,
      data: { keyId: keyIdFor(h.tenant, "deployment"), label: "deployment", type: "concept", memoryId: b },
    });
    const recall = await h.request(rankingRpcs.keysRecall, {
      query: "deployment",
      afterPosition: position,
    });
    expect(recall.keys).toHaveLength(1);
    expect(recall.keys[0]).toMatchObject({ keyId: keyIdFor(h.tenant, "Deployments"), linkedCount: 2 });
    const viaOtherId = await h.request(rankingRpcs.keysRead, {
      keyId: keyIdFor(h.tenant, "deployment"),
    });
    expect(viaOtherId.key.keyId).toBe(keyIdFor(h.tenant, "Deployments"));
  });

  test("a key on many memories is a hub, listed page by page", async ({ ranking: h }) => {
    const ids: string[] = [];
    let position = 0;
    for (let i = 0; i < 12; i += 1) {
      const id = randomUUID();
      ids.push(id);
      position = await h.publish(recorded({ id, content: `Incident ${i} report.`, keys: ["incident"] }));
    }
    position = await h.publish(
      recorded({ id: randomUUID(), content: "Rare.", keys: ["incident", "rare thing"] }),
    );
    const recall = await h.request(rankingRpcs.keysRecall, {
      query: "incident rare thing",
      afterPosition: position,
    });
    const hub = recall.keys.find((k) => k.label === "incident");
    const rare = recall.keys.find((k) => k.label === "rare thing");
    expect(hub).toMatchObject({ hub: true, linkedCount: 13 });
    expect(rare).toMatchObject({ hub: false, linkedCount: 1 });
    expect(rare?.specificity).toBeGreaterThan(hub?.specificity ?? 1);
    expect(recall.keys[0]?.label).toBe("rare thing");

    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const page: KeysReadReply = await h.request(rankingRpcs.keysRead, {
        keyId: hub?.keyId,
        limit: 5,
        offset,
      });
      expect(page.total).toBe(13);
      expect(page.memories.length).toBeLessThanOrEqual(5);
      seen.push(...page.memories.map((m) => m.id));
      offset = page.nextOffset;
      pages += 1;
    }
    expect(pages).toBe(3);
    expect(new Set(seen).size).toBe(13);
  });

  test("reading through a key reinforces that link (Hebbian) and the memory's depth", async ({
    ranking: h,
  }) => {
    const a = randomUUID();
    const b = randomUUID();
    await h.publish(recorded({ id: a, content: "Retry with backoff.", keys: ["retries"] }));
    let position = await h.publish(
      recorded({ id: b, content: "Retry budget per client.", keys: ["retries"] }),
    );
    const key = (
      await h.request(rankingRpcs.keysRecall, {
        query: "retries",
        afterPosition: position,
      })
    ).keys[0];
    const before = await h.request(rankingRpcs.keysRead, { keyId: key?.keyId });
    expect(before.memories.map((m) => m.linkWeight)).toEqual([1, 1]);

    for (let i = 0; i < 2; i += 1) {
      position = await h.publish({
        type: "memories.recalled",
        streamId: `activity-${b}`,
        data: { memoryIds: [b], agent: "agent-a", viaKey: key?.keyId as string, query: null },
      });
    }
    const after = await h.request(rankingRpcs.keysRead, {
      keyId: key?.keyId,
      afterPosition: position,
    });
    expect(after.memories[0]?.id).toBe(b);
    expect(after.memories[0]?.linkWeight).toBeGreaterThan(1.5);
    expect(after.memories[0]?.depth).toBeGreaterThan(0.4);
    expect(after.memories[1]).toMatchObject({ id: a, linkWeight: 1, depth: 0 });
  });

  test("one hop: from a memory's keys to their other memories", async ({ ranking: h }) => {
    const a = randomUUID();
    const b = randomUUID();
    const c = randomUUID();
    await h.publish(
      recorded({ id: a, content: "Alice owns billing.", entities: [{ text: "Alice", type: "person" }] }),
    );
    await h.publish(
      recorded({ id: b, content: "Alice is on call.", entities: [{ text: "Alice", type: "person" }] }),
    );
    const position = await h.publish(recorded({ id: c, content: "Unrelated.", keys: ["other"] }));
    const related = await h.request(rankingRpcs.keysRelated, {
      memoryId: a,
      afterPosition: position,
    });
    expect(related.keys).toHaveLength(1);
    expect(related.keys[0]?.key).toMatchObject({ label: "Alice", type: "name" });
    expect(related.keys[0]?.memories.map((m) => m.id)).toEqual([b]);
  });

  test("an erased memory's entity keys go with it; the agent's own keys stay", async ({ ranking: h }) => {
    const erased = randomUUID();
    const other = randomUUID();
    await h.publish(
      recorded({
        id: erased,
        content: "Dr. Zelda Quist called about the lab results.",
        keys: ["lab results"],
        entities: [{ text: "Zelda Quist", type: "person" }],
      }),
    );
    let position = await h.publish(
      recorded({ id: other, content: "Lab results archive.", keys: ["lab results"] }),
    );
    const before = await h.request(rankingRpcs.keysRecall, {
      query: "zelda quist lab results",
      afterPosition: position,
    });
    expect(before.keys.map((k) => k.label).sort()).toEqual(["Zelda Quist", "lab results"]);
    await h.publish({ type: "memory.deleted", streamId: `memory-${erased}`, data: { reason: null } });
    position = await h.publish({
      type: "memory.purged",
      streamId: `memory-${erased}`,
      data: { reason: "erasure request", runId: null },
    });
    const after = await h.request(rankingRpcs.keysRecall, {
      query: "zelda quist lab results",
      afterPosition: position,
    });
    expect(after.keys.map((k) => k.label)).toEqual(["lab results"]);
    expect(after.keys[0]?.linkedCount).toBe(1);
  });

  test("a read model rebuilt from the event stream answers as the live one did", async ({ ranking: h }) => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    await h.publish(recorded({ id: ids[0] as string, content: "Cache warmup.", keys: ["caching"] }));
    await h.publish(
      recorded({ id: ids[1] as string, content: "Cache eviction.", keys: ["cache", "eviction"] }),
    );
    await h.publish(recorded({ id: ids[2] as string, content: "Eviction metrics.", keys: ["eviction"] }));
    let position = 0;
    for (let i = 0; i < 2; i += 1) {
      position = await h.publish({
        type: "memories.recalled",
        streamId: `activity-${ids[1]}`,
        data: {
          memoryIds: [ids[1] as string],
          agent: "agent-a",
          viaKey: keyIdFor(h.tenant, "eviction"),
          query: null,
        },
      });
    }
    const snapshot = async (afterPosition: number) => {
      const recall = await h.request(rankingRpcs.keysRecall, {
        query: "cache eviction",
        afterPosition,
      });
      const reads = await Promise.all(
        recall.keys.map((k) => h.request(rankingRpcs.keysRead, { keyId: k.keyId })),
      );
      return { keys: recall.keys, memories: reads.map((r) => r.memories) };
    };
    const live = await snapshot(position);
    expect(live.keys.map((k) => k.label).sort()).toEqual(["caching", "eviction"]);
    await h.restart({ wipe: true });
    expect(await snapshot(position)).toEqual(live);
  });

  test("private memories of another agent are neither counted nor listed", async ({ ranking: h }) => {
    const mine = randomUUID();
    const theirs = randomUUID();
    await h.publish(recorded({ id: mine, content: "My note.", keys: ["secret project"], scope: "agent" }));
    const position = await h.publish(
      recorded({
        id: theirs,
        content: "Their note.",
        keys: ["secret project"],
        scope: "agent",
        agent: "agent-b",
      }),
    );
    const recall = await h.request(rankingRpcs.keysRecall, {
      query: "secret project",
      afterPosition: position,
    });
    expect(recall.keys[0]?.linkedCount).toBe(1);
    const read = await h.request(rankingRpcs.keysRead, { keyId: recall.keys[0]?.keyId });
    expect(read.memories.map((m) => m.id)).toEqual([mine]);
    const deleted = await h.publish({
      type: "memory.deleted",
      streamId: `memory-${mine}`,
      data: { reason: null },
    });
    const gone = await h.request(rankingRpcs.keysRecall, {
      query: "secret project",
      afterPosition: deleted,
    });
    expect(gone.keys).toEqual([]);
  });
});
