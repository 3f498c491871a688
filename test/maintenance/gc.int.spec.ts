// Garbage collection on real services: deleted memories old enough are purged only with the
// token of a preview of exactly that set; a changed set refuses the token. After a purge no
// read model (Redis, pgvector), no reply and no rebuild holds the purged text.

import { call } from "@cairn/bus";
import { type SealState, searchRpcs, streamIdFor } from "@cairn/contracts";
import { createMemorySealStore } from "@cairn/event-store";
import { rebuildFromHost } from "@cairn/projection-runtime";
import { projectionHostOf } from "@cairn/search";
import { inspectReadModels } from "@cairn/search/testing";
import type { Redis } from "ioredis";
import { describe, expect } from "vitest";
import { admin, alice, type Cairn, cairnTest, dayMs } from "./maintenance-harness.ts";

const test = cairnTest();
const secret = "Zephyrine";
const secretText = `${secret} Okonkwo prefers morning meetings and lives near the old harbour.`;

/** Every Redis key whose value holds the needle (strings, hashes, sets, sorted sets). */
async function redisKeysHolding(redis: Redis, needle: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = "0";
  const lower = needle.toLowerCase();
  do {
    const [next, keys] = await redis.scan(cursor, "COUNT", 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let value = "";
      if (type === "string") value = (await redis.get(key)) ?? "";
      else if (type === "hash") value = JSON.stringify(await redis.hgetall(key));
      else if (type === "set") value = JSON.stringify(await redis.smembers(key));
      else if (type === "zset") value = JSON.stringify(await redis.zrange(key, 0, -1));
      else if (type === "list") value = JSON.stringify(await redis.lrange(key, 0, -1));
      if (`${key} ${value}`.toLowerCase().includes(lower)) found.push(key);
    }
  } while (cursor !== "0");
  return found;
}

async function deleteMemory(cairn: Cairn, id: string, version: number) {
  return cairn.twoStep("memory.delete", { principal: alice, id, expectedVersion: version, reason: null });
}

/**
 * RediSearch 1.x keeps one key per indexed term (`ft:<index>/<term>`) even when no document
 * holds the term any more; only dropping the index (a rebuild switches to a new generation
 * and drops the old one) removes it. Such a key leads to no document: a search finds nothing.
 */
async function isEmptyTermKey(redis: Redis, key: string): Promise<boolean> {
  const match = /^ft:(.+)\/[^/]+$/.exec(key);
  if (!match) return false;
  const hits = (await redis.call("FT.SEARCH", match[1] as string, secret, "NOCONTENT")) as unknown[];
  return hits[0] === 0;
}

async function expectNoTrace(cairn: Cairn, id: string, options: { afterRebuild: boolean }) {
  const env = cairn.env;
  const inspect = await inspectReadModels(env);
  try {
    // The stem too: ranking's term signals hold words as the analyser stems them.
    const holding = await redisKeysHolding(inspect.models.redis, secret.slice(0, -1));
    if (options.afterRebuild) expect(holding).toEqual([]);
    else for (const key of holding) expect(await isEmptyTermKey(inspect.models.redis, key), key).toBe(true);
    const { lexical, vector } = await inspect.allDocuments();
    for (const doc of [lexical.get(id), vector.get(id)]) {
      expect(doc).toMatchObject({ status: "deleted", content: "", title: "", entities: [] });
    }
    const table = (await inspect.models.vector.servingGeneration()).tableName;
    const { rows } = await cairn.pool.query(
      `select count(*)::int as n from cairn_search.${table}_documents where document::text ilike $1`,
      [`%${secret}%`],
    );
    expect(rows[0]).toEqual({ n: 0 });
    const cache = await cairn.pool.query("select count(*)::int as n from cairn_search.embedding_cache");
    expect(cache.rows[0]).toEqual({ n: 0 });
  } finally {
    await inspect.close();
  }
  const read = await cairn.get(id);
  expect(JSON.stringify(read)).not.toContain(secret);
  expect(read.document.purgedAt).toEqual(expect.any(String));
  const found = await call(cairn.nc, searchRpcs.candidates, {
    principal: admin,
    query: `${secret} Okonkwo harbour`,
    mode: "hybrid",
    filters: {
      tier: "memory",
      status: ["active", "deleted", "archived", "superseded"],
      includeExpired: true,
    },
  });
  expect(JSON.stringify(found)).not.toContain(secret);
  // And the log never held it in the clear.
  const log = await cairn.pool.query(
    "select count(*)::int as n from cairn_events where data::text ilike $1",
    [`%${secret}%`],
  );
  expect(log.rows[0]).toEqual({ n: 0 });
}

describe("maintenance: garbage collection", () => {
  test("purges with the preview's token only; a changed set refuses it; no trace remains, even after a rebuild", async ({
    cairn,
  }) => {
    const target = await cairn.create({
      slot: "person-note",
      kind: "fact",
      content: secretText,
      title: `${secret} notes`,
    });
    const other = await cairn.create({
      slot: "desk-note",
      kind: "fact",
      content: "Desks are cleaned on Fridays.",
    });
    const kept = await cairn.create({
      slot: "active-note",
      kind: "fact",
      content: "The printer is on floor two.",
    });
    await deleteMemory(cairn, target.id, 1);
    await deleteMemory(cairn, other.id, 1);
    await cairn.settle();
    expect((await cairn.get(target.id)).document.content).toBe(secretText);

    // Deleted today: not old enough.
    expect((await cairn.run("gc")).actions).toEqual([]);

    cairn.clock.now = new Date(Date.now() + 31 * dayMs);
    const preview = await cairn.run("gc");
    expect(preview.actions.map((a) => a.ids[0]).sort()).toEqual([target.id, other.id].sort());
    expect(preview.actions.every((a) => a.status === "planned" && a.action === "purge")).toBe(true);
    expect(preview.token).toEqual(expect.any(String));
    expect(Date.parse(preview.tokenExpiresAt as string)).toBeGreaterThan(Date.now());

    // The set changes: one of them is restored. The preview's token is refused; nothing is purged.
    await cairn.send("memory.restore", {
      principal: alice,
      id: other.id,
      expectedVersion: 2,
      reason: "needed",
    });
    const refused = await cairn.run("gc", { apply: true, token: preview.token as string });
    expect(refused).toMatchObject({ outcome: "failed", error: { code: "token_invalid" }, recorded: true });
    const keys = createMemorySealStore(cairn.pool);
    expect((await keys.sealsFor([target.id])).get(target.id)?.state).toBe("active");
    await cairn.settle();
    expect((await cairn.get(target.id)).document.content).toBe(secretText);

    // A new preview of the new set, and its token.
    const second = await cairn.run("gc");
    expect(second.actions.map((a) => a.ids[0])).toEqual([target.id]);
    const purged = await cairn.run("gc", { apply: true, token: second.token as string });
    expect(purged).toMatchObject({ outcome: "ok" });
    expect(purged.actions).toMatchObject([{ action: "purge", ids: [target.id], status: "applied" }]);
    expect(((await keys.sealsFor([target.id])).get(target.id) as SealState).state).toBe("shredded");
    const events = await cairn.store.readStream(streamIdFor("memory", target.id));
    expect(events.at(-1)).toMatchObject({
      type: "memory.purged",
      data: { runId: purged.runId },
      meta: { correlationId: purged.runId },
    });
    // The same token again: the set it was made for is gone.
    expect(await cairn.run("gc", { apply: true, token: second.token as string })).toMatchObject({
      outcome: "failed",
      error: { code: "token_invalid" },
    });

    await cairn.settle();
    await expectNoTrace(cairn, target.id, { afterRebuild: false });

    // A rebuild replays the log into new generations: the purged text does not come back.
    const inspect = await inspectReadModels(cairn.env);
    try {
      for (const name of ["search.lexical", "search.vector"] as const) {
        await rebuildFromHost(projectionHostOf(inspect.models), name, { dropDelayMs: 10 });
      }
    } finally {
      await inspect.close();
    }
    await cairn.settle();
    await expectNoTrace(cairn, target.id, { afterRebuild: true });
    expect((await cairn.get(kept.id)).document.content).toBe("The printer is on floor two.");
    expect((await cairn.get(other.id)).document.status).toBe("active");
  });
});
