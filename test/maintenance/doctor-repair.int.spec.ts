// The doctor compares the read models with the log; a document deleted from Redis (or from
// pgvector) behind the system's back is found, and repair, previewed first, restores it.
import { randomUUID } from "node:crypto";
import { inspectReadModels } from "@cairn/search/testing";
import { describe, expect } from "vitest";
import { cairnTest } from "./maintenance-harness.ts";

const test = cairnTest();

describe("maintenance: doctor and repair", () => {
  test("finds documents lost behind the system's back, and repair restores them", async ({ cairn }) => {
    const lost = await cairn.create({
      slot: "vpn-setup",
      kind: "workflow",
      content: "Install the VPN client, then import the profile.",
    });
    const lostVector = await cairn.create({
      slot: "backup-day",
      kind: "fact",
      content: "Backups run on Wednesday nights.",
    });
    const fine = await cairn.create({
      slot: "wifi-name",
      kind: "fact",
      content: "The guest network is called Lantern.",
    });
    await cairn.send("proposal.submit", {
      principal: { tenant: "acme", agent: "alice", role: "agent", primary: false },
      proposal: { slot: "maybe-rule", content: "Maybe we should pin Node versions." },
    });
    await cairn.settle();

    const healthy = await cairn.doctor({ full: true });
    expect(healthy.status).toBe("ok");
    expect(healthy.drift.map((d) => [d.readModel, d.checked, d.missing, d.stale, d.unexplained])).toEqual([
      ["lexical", 4, 0, 0, 0],
      ["vector", 4, 0, 0, 0],
    ]);
    expect(healthy.verification).toEqual({ due: 1, byKind: { workflow: 1 } });
    expect(healthy.inbox).toMatchObject({ pendingProposals: 1, openHandoffs: 0 });
    expect(healthy.projections.map((p) => [p.service, p.name, p.deadLetters])).toEqual([
      ["search", "search.lexical", 0],
      ["search", "search.vector", 0],
      ["ranking", "ranking.signals", 0],
      ["ranking", "ranking.keys", 0],
      ["maintenance", "maintenance.view", 0],
    ]);
    expect(healthy.consumers.length).toBeGreaterThanOrEqual(4);

    // Behind the system's back: the lexical document of one memory, the vector row of another
    // go; a vector row the log knows nothing about appears.
    const inspect = await inspectReadModels(cairn.env);
    const stranger = randomUUID();
    try {
      const g = (await inspect.generations()).lexical as number;
      expect(await inspect.models.redis.del(inspect.models.lexicalStore.docKey(g, lost.id))).toBe(1);
      const table = (await inspect.models.vector.servingGeneration()).tableName;
      await cairn.pool.query(`delete from cairn_search.${table} where memory_id = $1`, [lostVector.id]);
      // The row the walk reads, and its document apart.
      await cairn.pool.query(
        `insert into cairn_search.${table} (audience, episode, episode_order, memory_id, tenant, scope, agent,
           tier, status, kind, project, tags, created_at, updated_at, invalid_at, version, embedding)
         select audience, episode, episode_order, $2::uuid, tenant, scope, agent, tier, status, kind, project,
                tags, created_at, updated_at, invalid_at, version, embedding
           from cairn_search.${table} where memory_id = $1`,
        [fine.id, stranger],
      );
      await cairn.pool.query(
        `insert into cairn_search.${table}_documents (memory_id, document, text_hash)
         select $2::uuid, jsonb_set(document, '{id}', to_jsonb($2::text)), text_hash
           from cairn_search.${table}_documents where memory_id = $1`,
        [fine.id, stranger],
      );
    } finally {
      await inspect.close();
    }
    await expect(cairn.get(lost.id)).rejects.toMatchObject({ code: "not_found" });

    const sick = await cairn.doctor({ full: true });
    expect(sick.status).toBe("error");
    const lexical = sick.drift.find((d) => d.readModel === "lexical");
    const vector = sick.drift.find((d) => d.readModel === "vector");
    expect(lexical).toMatchObject({ missing: 1, stale: 0, unexplained: 0, ids: { missing: [lost.id] } });
    expect(vector).toMatchObject({
      missing: 1,
      unexplained: 1,
      ids: { missing: [lostVector.id], unexplained: [stranger] },
    });
    expect(sick.findings.map((f) => [f.code, f.fix])).toEqual(
      expect.arrayContaining([
        ["document_missing", "repair"],
        ["document_unexplained", "rebuild"],
      ]),
    );
    expect(sick.summary).toMatch(/^error: /);
    // A sample finds it too (the sample here is all of them), and no report carries content.
    const sampled = await cairn.doctor({ sampleSize: 50 });
    expect(sampled.drift.find((d) => d.readModel === "lexical")?.missing).toBe(1);
    for (const report of [healthy, sick, sampled]) {
      expect(JSON.stringify(report)).not.toMatch(/VPN|Wednesday|Lantern|pin Node/);
    }
    const summary = await cairn.doctor({ summaryOnly: true });
    expect(summary).toMatchObject({ mode: "summary", drift: [] });

    // Repair: the dry run says what it would re-project and changes nothing.
    const dry = await cairn.run("repair", { params: { full: true } });
    expect(dry.actions).toEqual([
      expect.objectContaining({
        action: "reproject",
        ids: [lost.id],
        status: "planned",
        detail: expect.objectContaining({ readModel: "lexical" }),
      }),
      expect.objectContaining({ action: "reproject", ids: [lostVector.id], status: "planned" }),
      expect.objectContaining({ action: "reproject", ids: [stranger], status: "skipped" }),
    ]);
    await expect(cairn.get(lost.id)).rejects.toMatchObject({ code: "not_found" });

    const applied = await cairn.run("repair", { apply: true, params: { full: true } });
    expect(applied.outcome).toBe("ok");
    expect(applied.actions.map((a) => a.status)).toEqual(["applied", "applied", "skipped"]);
    expect((await cairn.get(lost.id)).document.content).toBe(
      "Install the VPN client, then import the profile.",
    );
    const after = await cairn.doctor({ full: true });
    expect(after.drift.map((d) => [d.readModel, d.missing, d.stale])).toEqual([
      ["lexical", 0, 0],
      ["vector", 0, 0],
    ]);
    // What only a rebuild fixes stays reported.
    expect(after.drift.find((d) => d.readModel === "vector")?.unexplained).toBe(1);
  });
});
