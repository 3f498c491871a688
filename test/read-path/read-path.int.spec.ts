// The read path across services: commands through the real ingest service (admission rules,
// derived fields, sealed text, the relay to JetStream) are read back through the search
// service at the positions the writes returned; and `pnpm cairn rebuild` runs as an operator
// would run it, against the same deployment, while the service keeps answering.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { PlanResult, Principal, WriteResult } from "@cairn/contracts";
import { alice, bob, type IngestUnderTest, reviewer, startIngestUnderTest } from "@cairn/ingest/testing";
import { logLevel, type SearchUnderTest, startSearchUnderTest } from "@cairn/search/testing";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

const test = infraTest.extend<{ cairn: { ingest: IngestUnderTest; search: SearchUnderTest } }>({
  cairn: async ({ databaseUrl, redis, nats, redisPrefix }, use) => {
    const search = await startSearchUnderTest(
      { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, redisPrefix },
      { env: { CAIRN_LOG_LEVEL: logLevel } },
    );
    const ingest = await startIngestUnderTest(databaseUrl, nats.url, {
      CAIRN_LOG_LEVEL: logLevel,
      CAIRN_METRICS_PORT: "off",
    });
    await use({ ingest, search });
    await ingest.stop();
    await search.stop();
  },
});

/** The highest log position a write touched (a supersede writes two streams). */
const positionOf = (w: WriteResult) => Math.max(w.position, ...(w.affected ?? []).map((a) => a.position));

/**
 * What a lexical query finds once the write at `afterPosition` is projected. (Vector search
 * always returns the nearest memories, relevant or not, so "not found" is asked lexically.)
 */
async function ids(search: SearchUnderTest, principal: Principal, query: string, afterPosition: number) {
  const reply = await search.candidates({
    principal,
    query,
    mode: "lexical",
    afterPosition,
    waitTimeoutMs: 15_000,
  });
  return reply.candidates.map((c) => c.id);
}

describe("read path", () => {
  test("what ingest accepts is searchable at the position it answered, with what ingest derived", async ({
    cairn: { ingest, search },
  }) => {
    const target = await ingest.send("memory.create", {
      principal: alice,
      memory: {
        slot: "Database Migrations",
        content: "Run migrations before deploying; Alice Smith owns them.",
        kind: "workflow",
      },
    });
    const linking = await ingest.send("memory.create", {
      principal: alice,
      memory: {
        slot: "release",
        content: "The release checklist: see [[Database Migrations]] first.",
        kind: "workflow",
      },
    });
    const position = positionOf(linking);
    expect((await ids(search, alice, "deploying migrations", position))[0]).toBe(target.id);
    const hybrid = await search.candidates({
      principal: alice,
      query: "deploying migrations",
      afterPosition: position,
    });
    expect(hybrid.candidates[0]?.id).toBe(target.id);
    expect(hybrid.candidates[0]?.vector?.rank).toBe(1);

    const read = await search.get({ principal: alice, slot: "database-migrations", afterPosition: position });
    expect(read.document).toMatchObject({
      id: target.id,
      content: "Run migrations before deploying; Alice Smith owns them.",
      version: 1,
    });
    expect(read.backlinks.map((b) => b.id)).toEqual([linking.id]);
    const release = await search.get({ principal: alice, id: linking.id });
    expect(release.document.links).toEqual(["database-migrations"]);
    expect(release.links.map((l) => l.id)).toEqual([target.id]);

    // The text is sealed in the log; the read models hold it opened.
    const { rows } = await search.pool.query(
      "select count(*)::int as n from cairn_events where data::text like '%deploying%'",
    );
    expect(rows[0]).toEqual({ n: 0 });
  });

  test("updates, supersedes, deletes, restores and promotions show in search at their positions", async ({
    cairn: { ingest, search },
  }) => {
    const created = await ingest.send("memory.create", {
      principal: alice,
      memory: { slot: "node-version", content: "We run Node 22 everywhere.", kind: "decision" },
    });
    // The version token of a read is the expected version of the next write.
    const before = await search.get({ principal: alice, id: created.id, afterPosition: created.position });
    const updated = await ingest.send("memory.update", {
      principal: alice,
      id: created.id,
      expectedVersion: before.document.version,
      changes: { content: "We run Node 22 everywhere, with pnpm." },
    });
    expect(
      (await search.get({ principal: alice, id: created.id, afterPosition: updated.position })).document
        .version,
    ).toBe(2);

    const supersede = {
      principal: alice,
      id: created.id,
      expectedVersion: 2,
      replacement: { content: "We run Node 24 LTS everywhere.", kind: "decision" },
      reason: "upgrade",
    };
    const plan = await ingest.plan("memory.supersede", supersede);
    const superseded = await ingest.send("memory.supersede", { ...supersede, token: plan.token });
    let at = positionOf(superseded);
    expect(await ids(search, alice, "node everywhere", at)).toEqual([superseded.id]);
    expect((await search.get({ principal: alice, slot: "node-version" })).document.id).toBe(superseded.id);
    expect((await search.get({ principal: alice, id: created.id })).document).toMatchObject({
      status: "superseded",
      supersededBy: superseded.id,
    });

    const deletion = { principal: alice, id: superseded.id, expectedVersion: 1, reason: "wrong" };
    const deletePlan: PlanResult = await ingest.plan("memory.delete", deletion);
    const deleted = await ingest.send("memory.delete", { ...deletion, token: deletePlan.token });
    expect(await ids(search, alice, "node everywhere", deleted.position)).toEqual([]);
    const restored = await ingest.send("memory.restore", {
      principal: alice,
      id: superseded.id,
      expectedVersion: 2,
    });
    expect(await ids(search, alice, "node everywhere", restored.position)).toEqual([superseded.id]);

    const proposal = await ingest.send("proposal.submit", {
      principal: bob,
      proposal: { slot: "deploy-window", content: "Deploys happen on Tuesdays only.", kind: "decision" },
    });
    at = proposal.position;
    expect(await ids(search, alice, "deploys tuesdays", at)).toEqual([]);
    const inbox = await search.candidates({
      principal: reviewer,
      query: "deploys tuesdays",
      filters: { tier: "proposal" },
      afterPosition: at,
    });
    expect(inbox.candidates.map((c) => c.id)).toEqual([proposal.id]);
    const promoted = await ingest.send("proposal.promote", {
      principal: reviewer,
      id: proposal.id,
      expectedVersion: 1,
    });
    expect(await ids(search, alice, "deploys tuesdays", positionOf(promoted))).toEqual([promoted.id]);
  });

  test("an agent's private memory stays private across the write and read services", async ({
    cairn: { ingest, search },
  }) => {
    const mine = await ingest.send("memory.create", {
      principal: bob,
      memory: { slot: "bob-scratch", content: "Bob's private scratch note about the cache.", scope: "agent" },
    });
    expect(await ids(search, bob, "scratch cache", mine.position)).toEqual([mine.id]);
    expect(await ids(search, alice, "scratch cache", mine.position)).toEqual([]);
    await expect(search.get({ principal: alice, id: mine.id })).rejects.toMatchObject({ code: "not_found" });
  });

  test("`pnpm cairn rebuild` rebuilds both read models while the service keeps answering", async ({
    cairn: { ingest, search },
  }) => {
    let last = 0;
    for (let i = 0; i < 40; i += 1) {
      last = (
        await ingest.send("memory.create", {
          principal: alice,
          memory: { slot: `fern-${i}`, content: `Fern care note number ${i}: water from below.` },
        })
      ).position;
    }
    const before = await search.status({ afterPosition: last, waitTimeoutMs: 15_000 });
    const rebuild = run("node", ["scripts/cairn.ts", "rebuild", "--batch-size", "7"], {
      cwd: repoRoot,
      env: { ...process.env, ...search.env, CAIRN_LOG_LEVEL: "warn" },
    });
    let answered = 0;
    let done = false;
    void rebuild.finally(() => {
      done = true;
    });
    while (!done) {
      const reply = await search.candidates({
        principal: alice,
        query: "fern care",
        mode: "lexical",
        candidateK: 100,
      });
      expect(reply.candidates).toHaveLength(40);
      answered += 1;
    }
    const { stdout, stderr } = await rebuild;
    expect(answered).toBeGreaterThan(0);
    expect(stdout).toMatch(
      /search\.lexical: generation \d+ serving at position \d+ \(\d+ events in [\d.]+ s, \d+ events\/s\)/,
    );
    expect(stdout).toMatch(/search\.vector: generation \d+ serving at position \d+/);
    expect(stderr).toMatch(/ev\/s eta/);
    const after = await search.status();
    for (const name of ["search.lexical", "search.vector"] as const) {
      const was = before.projections.find((p) => p.name === name);
      const now = after.projections.find((p) => p.name === name);
      expect(now?.generation).toBeGreaterThan(was?.generation ?? 0);
      expect(now?.position).toBeGreaterThanOrEqual(last);
    }
    const written = await ingest.send("memory.create", {
      principal: alice,
      memory: { slot: "fern-after", content: "Fern care after the rebuild." },
    });
    expect(await ids(search, alice, "fern rebuild", written.position)).toContain(written.id);
  });
});
