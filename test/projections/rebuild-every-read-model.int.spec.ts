// The log is the only truth: after a mixed workload (creates, updates, a supersede, proposals
// promoted and rejected, feedback, recalls through keys, a merge of keys, a purge), every read
// model rebuilt from the log into a new, empty generation holds exactly what the live one holds:
// search's documents and vectors, ranking's signals and its key graph with the Hebbian weights,
// maintenance's view.
import { call } from "@cairn/bus";
import { type KeysRecallReply, type ProjectionName, rankingRpcs } from "@cairn/contracts";
import { type ProjectionSnapshot, rebuildFromHost } from "@cairn/projection-runtime";
import { linkWeight } from "@cairn/ranking";
import { expect } from "vitest";
import { forEachProjection, waitForProjectionsAt } from "../helpers/projection-hosts.ts";
import { admin, alice, type Cairn, cairnTest, dayMs } from "../maintenance/maintenance-harness.ts";

const test = cairnTest();
const bob = { ...alice, agent: "bob" };
const rita = { tenant: alice.tenant, agent: "rita", role: "reviewer" as const, primary: false };

async function mixedWorkload(cairn: Cairn) {
  const deploy = await cairn.create({
    slot: "ops/deploy",
    kind: "workflow",
    content: "Deploy with the canary first, then the fleet.",
    keys: ["deployment", "canary release"],
    tags: ["ops"],
  });
  const cache = await cairn.create({
    slot: "ops/cache-ttl",
    kind: "fact",
    content: "The cache TTL is 300 seconds in production.",
    keys: ["cache ttl", "deployments"],
  });
  const db = await cairn.create(
    {
      slot: "ops/staging-db",
      kind: "fact",
      content: "Staging DB runs on db-staging-2, port 5433.",
      keys: ["staging database"],
    },
    bob,
  );
  const secret = await cairn.create({ slot: "people/first-contact", content: "Zephyrine prefers mornings." });
  await cairn.send("memory.update", {
    principal: alice,
    id: cache.id,
    expectedVersion: 1,
    changes: { content: "The cache TTL is 600 seconds in production.", tags: ["ops", "cache"] },
  });
  await cairn.twoStep("memory.supersede", {
    principal: bob,
    id: db.id,
    expectedVersion: 1,
    replacement: { content: "Staging DB moved to db-staging-3, port 5433.", keys: ["staging database"] },
    reason: "moved",
  });
  const kept = await cairn.send("proposal.submit", {
    principal: alice,
    proposal: { slot: "style/tabs", content: "We indent with tabs.", keys: ["code style"] },
  });
  const dropped = await cairn.send("proposal.submit", {
    principal: bob,
    proposal: { slot: "style/fridays", content: "Release on Fridays." },
  });
  await cairn.send("proposal.promote", { principal: rita, id: kept.id, expectedVersion: 1 });
  await cairn.send("proposal.reject", { principal: rita, id: dropped.id, expectedVersion: 1, reason: "no" });
  await cairn.send("feedback.give", { principal: alice, memoryId: deploy.id, useful: true, note: null });
  await cairn.send("feedback.give", { principal: bob, memoryId: cache.id, useful: false, note: "stale" });
  await cairn.settle();

  // Traversals through keys reinforce the links they went through (Hebbian weights).
  const recalled = (await call(cairn.nc, rankingRpcs.keysRecall, {
    principal: alice,
    query: "deployment",
    limit: 5,
  })) as KeysRecallReply;
  const viaKey = recalled.keys[0]?.keyId ?? null;
  expect(viaKey).not.toBeNull();
  for (let i = 0; i < 3; i += 1) {
    await cairn.send("recalls.record", {
      principal: alice,
      memoryIds: [deploy.id, cache.id],
      viaKey,
      query: "deployment",
    });
  }
  const keys = (await call(cairn.nc, rankingRpcs.keysRecall, { principal: alice, query: "canary", limit: 5 }))
    .keys;
  const canary = keys.find((k) => k.keyId !== viaKey);
  expect(canary, "a second key to merge").toBeDefined();
  await cairn.send("key.merge", { principal: rita, keyId: canary?.keyId, intoKeyId: viaKey });

  // A purge: deleted, old enough, collected with the preview's token.
  await cairn.twoStep("memory.delete", { principal: alice, id: secret.id, expectedVersion: 1, reason: null });
  await cairn.settle();
  cairn.clock.now = new Date(Date.now() + 31 * dayMs);
  const preview = await cairn.run("gc");
  expect(preview.actions.map((a) => a.ids[0])).toEqual([secret.id]);
  await cairn.run("gc", { apply: true, token: preview.token as string });
}

/** Waits until every projection of every service has applied the whole log. */
async function allCaughtUp(cairn: Cairn): Promise<number> {
  const position = await cairn.store.lastCommittedPosition();
  await waitForProjectionsAt(cairn.nc, position, {
    timeoutMs: 30_000,
    description: `every projection at position ${position}`,
  });
  return position;
}

test("every read model rebuilt from the log equals the live one", async ({ cairn }) => {
  await mixedWorkload(cairn);
  const position = await allCaughtUp(cairn);

  const snapshots = new Map<ProjectionName, ProjectionSnapshot>();
  await forEachProjection(cairn.env, async (projection, name, host) => {
    const liveGeneration = (await projection.generations.active()) as number;
    const live = await projection.snapshot(liveGeneration);
    expect(live.length, `${name} holds something`).toBeGreaterThan(0);

    const rebuilt = await rebuildFromHost(host, name, { dropDelayMs: 0 });
    expect(rebuilt, name).toMatchObject({ previous: liveGeneration, position });
    expect(rebuilt.generation, name).not.toBe(liveGeneration);
    expect(await projection.snapshot(rebuilt.generation), name).toEqual(live);
    snapshots.set(name, live);
  });

  // The Hebbian weights were part of it: the traversed links are stronger than a new link.
  const weights = (snapshots.get("ranking.keys") ?? [])
    .filter(([name]) => name.includes(":links:"))
    .flatMap(([, value]) => (value as [string, number][]).map(([, weight]) => weight));
  expect(Math.max(...weights)).toBeGreaterThan(linkWeight.initial);
  // And nothing the purged memory said is left in any of them (its slot, a name, stays).
  for (const [name, snapshot] of snapshots) expect(JSON.stringify(snapshot), name).not.toMatch(/zephyrin/i);
  // And the live services still answer from the rebuilt generations.
  const after = await call(cairn.nc, rankingRpcs.keysRecall, {
    principal: admin,
    query: "deployment",
    limit: 5,
  });
  expect(after.keys.length).toBeGreaterThan(0);
});
