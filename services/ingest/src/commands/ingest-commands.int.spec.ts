// The ingest service through NATS request/reply against real Postgres: every lifecycle
// transition, the refused ones, and every admission rule with a bad input.
import { randomUUID } from "node:crypto";
import {
  type CairnError,
  type CommandName,
  type Principal,
  streamIdFor,
  type WriteResult,
} from "@cairn/contracts";
import { analyzeText } from "@cairn/text-analysis";
import { describe, expect } from "vitest";
import {
  admin,
  alice,
  bob,
  documentOf,
  type IngestUnderTest,
  ingestTest,
  outsider,
  refusal,
  refusedWith,
  reviewer,
} from "../testing/ingest-under-test.ts";

const test = ingestTest;

const memory = (slot: string, content: string, extra: Record<string, unknown> = {}) => ({
  slot,
  content,
  kind: "decision",
  ...extra,
});

const create = (ingest: IngestUnderTest, principal: Principal, ...args: Parameters<typeof memory>) =>
  ingest.send("memory.create", { principal, memory: memory(...args) });

/** A command on memory `id`, read at `expectedVersion`, with the command's own `fields`. */
const change = (
  ingest: IngestUnderTest,
  name: CommandName,
  principal: Principal,
  id: string,
  expectedVersion: number,
  fields: Record<string, unknown> = {},
) => ingest.send(name, { principal, id, expectedVersion, ...fields });

describe("ingest commands: memory lifecycle", () => {
  test("create stores the full content with what ingest derives, and answers id, version, position", async ({
    ingest,
  }) => {
    const content =
      "We use pnpm (not npm) for the monorepo, decided by Alice Smith at Google in Paris. See [[Project Layout]] and `pnpm-workspace.yaml`; great choice!";
    const written = await create(ingest, alice, "Project Package Manager", content, {
      tags: ["Tooling", "tooling"],
      keys: ["package manager"],
    });
    expect(written).toEqual({ id: expect.any(String), version: 1, position: expect.any(Number) });
    const doc = await documentOf(ingest, written.id);
    expect(doc).toMatchObject({
      tier: "memory",
      status: "active",
      slot: "project-package-manager",
      content,
      tags: ["tooling"],
      keys: ["package manager"],
      links: ["project-layout"],
      scope: "team",
      tenant: "acme",
      agent: "alice",
      version: 1,
    });
    // No title given: the first line, cut at a word.
    expect(doc.title).toMatch(/^We use pnpm \(not npm\) for the monorepo, .* and…$/);
    expect(doc.title.length).toBeLessThanOrEqual(121);
    expect(doc.sentiment).toBeGreaterThan(0);
    expect(doc.contentHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(doc.entities).toEqual(
      expect.arrayContaining([
        { text: "Alice Smith", type: "person" },
        { text: "Paris", type: "place" },
        { text: "pnpm", type: "product" },
        { text: "pnpm-workspace.yaml", type: "code" },
      ]),
    );
    // The key is linked in the same transaction.
    const all = await ingest.store.readAll({ after: 0, limit: 10 });
    expect(all.map((e) => e.type)).toEqual(["memory.recorded", "key.linked"]);
    expect(all[1]?.data).toMatchObject({ label: "package manager", memoryId: written.id, type: "concept" });
  });

  test("update with the version read moves the version; a stale version is a conflict", async ({
    ingest,
  }) => {
    const created = await create(ingest, alice, "db", "Postgres 15.");
    const updated = await change(ingest, "memory.update", bob, created.id, 1, {
      changes: { content: "Postgres 16 with pgvector.", keys: ["database"] },
    });
    expect(updated).toMatchObject({ id: created.id, version: 2 });
    expect(updated.position).toBeGreaterThan(created.position);
    const doc = await documentOf(ingest, created.id);
    expect(doc.content).toBe("Postgres 16 with pgvector.");
    expect(doc.entities).toEqual(expect.arrayContaining([{ text: "pgvector", type: "product" }]));

    const stale = await refusedWith(
      "version_conflict",
      change(ingest, "memory.update", bob, created.id, 1, { changes: { title: "x" } }),
    );
    expect(stale.details).toMatchObject({ currentVersion: 2 });
    expect(stale.hint).toContain("version 2");

    // An update that changes nothing writes nothing and answers the current version.
    const same = await change(ingest, "memory.update", bob, created.id, 2, {
      changes: { content: "Postgres 16 with pgvector." },
    });
    expect(same).toMatchObject({ id: created.id, version: 2 });
    expect(same.position).toBeLessThanOrEqual(updated.position);
    expect(await ingest.store.readStream(streamIdFor("memory", created.id))).toHaveLength(2);
  });

  test("of concurrent updates with the same version exactly one wins and versions stay contiguous", async ({
    ingest,
  }) => {
    const created = await create(ingest, alice, "race", "v1");
    const attempts = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        change(ingest, "memory.update", alice, created.id, 1, { changes: { content: `writer ${i}` } }),
      ),
    );
    const won = attempts.filter((a) => a.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const a of attempts) {
      if (a.status === "rejected") expect((a.reason as CairnError).code).toBe("version_conflict");
    }
    const events = await ingest.store.readStream(streamIdFor("memory", created.id));
    expect(events.map((e) => e.version)).toEqual([1, 2]);
  });

  test("archive, restore, invalidate, verify; and the transitions that are refused", async ({ ingest }) => {
    const m = await create(ingest, alice, "style", "Tabs, not spaces.");
    const archived = await change(ingest, "memory.archive", alice, m.id, 1);
    expect((await documentOf(ingest, m.id)).status).toBe("archived");
    await refusedWith("illegal_transition", change(ingest, "memory.archive", alice, m.id, 2));
    await refusedWith("illegal_transition", change(ingest, "memory.verify", alice, m.id, 2));
    const updateArchived = await refusedWith(
      "illegal_transition",
      change(ingest, "memory.update", alice, m.id, 2, { changes: { title: "t" } }),
    );
    expect(updateArchived.hint).toContain("restore");

    const restored = await change(ingest, "memory.restore", alice, m.id, archived.version);
    expect(restored.version).toBe(3);
    expect((await documentOf(ingest, m.id)).status).toBe("active");
    await refusedWith("illegal_transition", change(ingest, "memory.restore", alice, m.id, 3));

    const expiry = "2030-01-01T00:00:00.000Z";
    await change(ingest, "memory.invalidate", alice, m.id, 3, { invalidAt: expiry });
    expect((await documentOf(ingest, m.id)).invalidAt).toBe(expiry);
    await change(ingest, "memory.invalidate", alice, m.id, 4, { invalidAt: null });
    expect((await documentOf(ingest, m.id)).invalidAt).toBeNull();
    const verified = await change(ingest, "memory.verify", alice, m.id, 5, { note: "still true" });
    expect(verified.version).toBe(6);
    expect((await documentOf(ingest, m.id)).verifiedAt).not.toBeNull();

    // A memory command on a proposal names the right commands.
    const p = await ingest.send("proposal.submit", {
      principal: alice,
      proposal: memory("style-2", "Maybe tabs."),
    });
    const wrongTier = await refusedWith(
      "illegal_transition",
      change(ingest, "memory.archive", alice, p.id, 1),
    );
    expect(wrongTier.hint).toContain("proposal.");
  });

  test("delete is two-step: a dry run plans, its token executes, a changed version refuses the token", async ({
    ingest,
  }) => {
    const m = await create(ingest, alice, "temp", "Temporary note.");
    await refusedWith("precondition_required", change(ingest, "memory.delete", alice, m.id, 1));

    const plan = await ingest.plan("memory.delete", {
      principal: alice,
      id: m.id,
      expectedVersion: 1,
      reason: "obsolete",
    });
    expect(plan).toMatchObject({
      dryRun: true,
      plan: [{ id: m.id, action: "delete", version: 1, slot: "temp" }],
    });
    expect(new Date(plan.expiresAt).getTime()).toBeGreaterThan(Date.now());
    // The dry run wrote nothing.
    expect((await documentOf(ingest, m.id)).status).toBe("active");

    // Another reason than the one planned: refused.
    await refusedWith(
      "token_invalid",
      change(ingest, "memory.delete", alice, m.id, 1, { reason: "other", token: plan.token }),
    );
    await refusedWith(
      "token_invalid",
      change(ingest, "memory.delete", alice, m.id, 1, {
        reason: "obsolete",
        token: `${plan.token.split(".")[0]}.AAAA`,
      }),
    );

    const deleted = await change(ingest, "memory.delete", alice, m.id, 1, {
      reason: "obsolete",
      token: plan.token,
    });
    expect(deleted.version).toBe(2);
    expect((await documentOf(ingest, m.id)).status).toBe("deleted");
    // Soft: restorable.
    await change(ingest, "memory.restore", alice, m.id, 2);
    expect((await documentOf(ingest, m.id)).status).toBe("active");

    // A token whose memory changed since the dry run is refused.
    const plan2 = await ingest.plan("memory.delete", {
      principal: alice,
      id: m.id,
      expectedVersion: 3,
      reason: null,
    });
    await change(ingest, "memory.verify", alice, m.id, 3);
    const changed = await refusedWith(
      "token_invalid",
      change(ingest, "memory.delete", alice, m.id, 4, { reason: null, token: plan2.token }),
    );
    expect(changed.details).toMatchObject({ changed: [{ id: m.id, versionAtDryRun: 3, versionNow: 4 }] });
  });

  test("supersede moves the slot to the replacement, both linked, in one write", async ({ ingest }) => {
    const old = await create(ingest, alice, "node-version", "Node 22.");
    const result = await ingest.twoStep("memory.supersede", {
      principal: alice,
      id: old.id,
      expectedVersion: 1,
      replacement: { content: "Node 24 LTS.", kind: "decision" },
      reason: "upgrade",
    });
    expect(result).toMatchObject({ version: 1, affected: [{ id: old.id, version: 2 }] });
    const replacement = await documentOf(ingest, result.id);
    expect(replacement).toMatchObject({ slot: "node-version", status: "active", supersedes: old.id });
    expect(await documentOf(ingest, old.id)).toMatchObject({ status: "superseded", supersededBy: result.id });
    // Both events come from one command: same causation id.
    const [oldLast, newFirst] = [
      (await ingest.store.readStream(streamIdFor("memory", old.id))).at(-1),
      (await ingest.store.readStream(streamIdFor("memory", result.id)))[0],
    ];
    expect(oldLast?.meta.causationId).toEqual(expect.any(String));
    expect(oldLast?.meta.causationId).toBe(newFirst?.meta.causationId);
    // The slot is held by the replacement now.
    const taken = await refusedWith("slot_taken", create(ingest, bob, "Node Version", "Something else."));
    expect(taken.details).toMatchObject({ holderId: result.id });
    // A superseded memory cannot be restored or changed.
    await refusedWith("illegal_transition", change(ingest, "memory.restore", alice, old.id, 2));
    const update = await refusal(
      change(ingest, "memory.update", alice, old.id, 2, { changes: { title: "x" } }),
    );
    expect(update.hint).toContain(result.id);
  });

  test("resolving a conflict: previewed, bound to both versions, then applied to the other memory", async ({
    ingest,
  }) => {
    const keep = await create(ingest, alice, "ci-a", "CI runs on push.");
    const other = await create(ingest, bob, "ci-b", "CI runs nightly.");
    const payload = {
      principal: alice,
      keepId: keep.id,
      otherId: other.id,
      action: "supersede",
      reason: "dup",
    };
    const plan = await ingest.plan("memory.resolve_conflict", payload);
    expect(plan.plan).toEqual([
      { id: keep.id, action: "keep", version: 1, slot: "ci-a" },
      { id: other.id, action: "supersede", version: 1, slot: "ci-b" },
    ]);
    // The kept memory changes after the preview: the token no longer fits.
    await change(ingest, "memory.verify", alice, keep.id, 1);
    await refusedWith(
      "token_invalid",
      ingest.send("memory.resolve_conflict", { ...payload, token: plan.token }),
    );

    const done = await ingest.twoStep("memory.resolve_conflict", payload);
    expect(done).toMatchObject({ id: other.id, version: 2 });
    expect(await documentOf(ingest, other.id)).toMatchObject({ status: "superseded", supersededBy: keep.id });
    expect((await documentOf(ingest, keep.id)).version).toBe(2);

    const archive = await create(ingest, bob, "ci-c", "CI runs hourly.");
    await ingest.twoStep("memory.resolve_conflict", {
      ...payload,
      otherId: archive.id,
      action: "archive",
      reason: null,
    });
    expect((await documentOf(ingest, archive.id)).status).toBe("archived");

    await refusedWith(
      "validation_failed",
      ingest.plan("memory.resolve_conflict", { ...payload, otherId: keep.id }),
    );
    await refusedWith(
      "illegal_transition",
      ingest.plan("memory.resolve_conflict", { ...payload, keepId: other.id, otherId: keep.id }),
    );
  });
});

describe("ingest commands: proposals, handoffs, feedback, recalls, keys, settings", () => {
  test("the review rule: reviewers and admins review; agents, primary ones included, do not", async ({
    ingest,
  }) => {
    const lead = { ...alice, agent: "lead", primary: true };
    const reviewerOfOther = { ...reviewer, tenant: "globex" };
    const submitted = async (slot: string) =>
      ingest.send("proposal.submit", { principal: alice, proposal: memory(slot, `Proposed ${slot}.`) });
    const p = await submitted("review/one");
    for (const principal of [alice, lead, reviewerOfOther]) {
      for (const command of ["proposal.promote", "proposal.reject"] as const) {
        const refused = await refusal(ingest.send(command, { principal, id: p.id, expectedVersion: 1 }));
        expect(refused.code, `${principal.agent}@${principal.tenant} ${command}`).toBe(
          principal.tenant === "acme" ? "forbidden" : "not_found",
        );
      }
    }
    expect((await change(ingest, "proposal.promote", reviewer, p.id, 1)).id).toEqual(expect.any(String));
    const q = await submitted("review/two");
    await change(ingest, "proposal.reject", admin, q.id, 1, { reason: "no" });
    expect((await documentOf(ingest, q.id)).status).toBe("rejected");
  });

  test("a proposal is submitted, revised and promoted by a reviewer into a memory", async ({ ingest }) => {
    const p = await ingest.send("proposal.submit", {
      principal: alice,
      proposal: memory("deploy-window", "Deploys happen on Tuesdays.", { keys: ["deploys"] }),
    });
    expect((await documentOf(ingest, p.id)).status).toBe("pending");
    await change(ingest, "proposal.revise", alice, p.id, 1, {
      changes: { content: "Deploys happen on Tuesdays and Thursdays." },
    });
    await refusedWith("forbidden", change(ingest, "proposal.promote", alice, p.id, 2));
    const promoted = await change(ingest, "proposal.promote", reviewer, p.id, 2, {
      changes: { title: "Deploy days" },
    });
    expect(promoted.affected).toEqual([{ id: p.id, version: 3, position: expect.any(Number) }]);
    expect(await documentOf(ingest, promoted.id)).toMatchObject({
      tier: "memory",
      status: "active",
      slot: "deploy-window",
      title: "Deploy days",
      content: "Deploys happen on Tuesdays and Thursdays.",
      promotedFrom: p.id,
      agent: "alice",
    });
    expect(await documentOf(ingest, p.id)).toMatchObject({ status: "promoted", promotedTo: promoted.id });
    await refusedWith("illegal_transition", change(ingest, "proposal.promote", reviewer, p.id, 3));

    const q = await ingest.send("proposal.submit", { principal: alice, proposal: memory("x", "A guess.") });
    await change(ingest, "proposal.reject", reviewer, q.id, 1, { reason: "wrong" });
    expect((await documentOf(ingest, q.id)).status).toBe("rejected");
    await refusedWith(
      "illegal_transition",
      change(ingest, "proposal.revise", alice, q.id, 2, { changes: { content: "y" } }),
    );
  });

  test("a handoff is opened, updated and completed, and then final", async ({ ingest }) => {
    const h = await ingest.send("handoff.open", {
      principal: alice,
      handoff: memory("migrate-search", "Step 1 of 3 done: index created.", { kind: "workflow" }),
    });
    expect((await documentOf(ingest, h.id)).tier).toBe("handoff");
    await change(ingest, "handoff.update", alice, h.id, 1, {
      changes: { content: "Step 2 of 3 done: backfill running." },
    });
    await change(ingest, "handoff.complete", alice, h.id, 2, { summary: "all done" });
    expect((await documentOf(ingest, h.id)).status).toBe("completed");
    await refusedWith(
      "illegal_transition",
      change(ingest, "handoff.update", alice, h.id, 3, { changes: { content: "more" } }),
    );
    await refusedWith("illegal_transition", change(ingest, "handoff.complete", alice, h.id, 3));
  });

  test("feedback and recalls go to activity streams and never move a memory's version", async ({
    ingest,
  }) => {
    const m = await create(ingest, alice, "lint", "Biome, not ESLint.");
    const n = await create(ingest, alice, "fmt", "Biome formats too.");
    const f1 = await ingest.send("feedback.give", { principal: bob, memoryId: m.id, useful: true });
    const f2 = await ingest.send("feedback.give", {
      principal: alice,
      memoryId: m.id,
      useful: false,
      note: "stale",
    });
    expect(f1).toMatchObject({ id: m.id, version: 1 });
    expect(f2).toMatchObject({ id: m.id, version: 2 });
    const recall = await ingest.send("recalls.record", {
      principal: bob,
      memoryIds: [m.id, n.id, m.id],
      query: "Which linters does the team use?",
    });
    expect(recall.version).toBe(1);
    const recalled = await ingest.store.readStream(streamIdFor("activity", recall.id));
    // The query's topic terms are kept, never its text: the log cannot forget it.
    expect(recalled[0]).toMatchObject({
      type: "memories.recalled",
      data: { memoryIds: [m.id, n.id], agent: "bob", query: null, read: false, viaKey: null },
    });
    expect(recalled[0]?.data).toMatchObject({
      terms: [...new Set(analyzeText("Which linters does the team use?"))],
    });
    expect(JSON.stringify(recalled[0])).not.toContain("linters");
    const opened = await ingest.send("recalls.record", { principal: bob, memoryIds: [m.id] });
    const read = await ingest.store.readStream(streamIdFor("activity", opened.id));
    expect(read[0]?.data).toMatchObject({ query: null, read: true, terms: [] });
    expect((await documentOf(ingest, m.id)).version).toBe(1);
    const feedback = await ingest.store.readStream(streamIdFor("activity", m.id));
    expect(feedback.map((e) => e.data)).toEqual([
      { memoryId: m.id, useful: true, agent: "bob", note: null },
      { memoryId: m.id, useful: false, agent: "alice", note: "stale" },
    ]);
    await refusedWith(
      "not_found",
      ingest.send("recalls.record", { principal: bob, memoryIds: [m.id, randomUUID()] }),
    );
    await refusedWith(
      "not_found",
      ingest.send("feedback.give", { principal: bob, memoryId: randomUUID(), useful: true }),
    );
  });

  test("keys are shared per tenant and can be merged", async ({ ingest }) => {
    const a = await create(ingest, alice, "k1", "About caching.", { keys: ["Caching"] });
    await create(ingest, bob, "k2", "More caching.", { keys: ["caching"] });
    await create(ingest, bob, "k3", "Cache rules.", { keys: ["cache"] });
    const links = (await ingest.store.readAll({ after: 0, limit: 100 })).filter(
      (e) => e.type === "key.linked",
    );
    const caching = links.filter((e) => (e.data as { label: string }).label.toLowerCase() === "caching");
    expect(new Set(caching.map((e) => e.streamId)).size).toBe(1);
    expect(caching.map((e) => (e.data as { memoryId: string }).memoryId)).toContain(a.id);
    const keyIdOf = (label: string) => {
      const link = links.find((e) => (e.data as { label: string }).label.toLowerCase() === label);
      if (!link) throw new Error(`no key ${label}`);
      return (link.data as { keyId: string }).keyId;
    };
    const cacheKey = keyIdOf("cache");
    const cachingKey = keyIdOf("caching");
    await refusedWith(
      "forbidden",
      ingest.send("key.merge", { principal: alice, keyId: cacheKey, intoKeyId: cachingKey }),
    );
    const merged = await ingest.send("key.merge", {
      principal: reviewer,
      keyId: cacheKey,
      intoKeyId: cachingKey,
    });
    expect(merged.id).toBe(cacheKey);
    await refusedWith(
      "illegal_transition",
      ingest.send("key.merge", { principal: reviewer, keyId: cacheKey, intoKeyId: cachingKey }),
    );
    await refusedWith(
      "not_found",
      ingest.send("key.merge", {
        principal: { ...outsider, role: "admin" },
        keyId: cacheKey,
        intoKeyId: cachingKey,
      }),
    );
  });

  test("tenant settings are changed by an admin, in part", async ({ ingest }) => {
    const first = await ingest.send("tenant.change_settings", {
      principal: admin,
      settings: { skipPatterns: ["^ok$"], synonyms: [["k8s", "kubernetes"]] },
    });
    const second = await ingest.send("tenant.change_settings", {
      principal: admin,
      settings: { skipPatterns: ["^ok$", "^thanks"] },
    });
    expect(second.version).toBe(first.version + 1);
    const events = await ingest.store.readStream(streamIdFor("tenant", "acme"));
    expect(events.map((e) => e.data)).toEqual([
      { skipPatterns: ["^ok$"], synonyms: [["k8s", "kubernetes"]] },
      { skipPatterns: ["^ok$", "^thanks"] },
    ]);
    await refusedWith(
      "forbidden",
      ingest.send("tenant.change_settings", { principal: alice, settings: { skipPatterns: [] } }),
    );
    await refusedWith(
      "validation_failed",
      ingest.send("tenant.change_settings", { principal: admin, settings: { skipPatterns: ["(["] } }),
    );
  });
});

describe("ingest commands: admission rules", () => {
  test("unknown fields are refused by name", async ({ ingest }) => {
    const error = await refusedWith(
      "unknown_field",
      ingest.send("memory.create", {
        principal: alice,
        memory: { ...memory("a", "b"), colour: "red" },
        extra: 1,
      }),
    );
    expect(error.details).toEqual({ fields: expect.arrayContaining(["memory.colour", "extra"]) });
  });

  test("schema errors name the field", async ({ ingest }) => {
    const error = await refusedWith(
      "validation_failed",
      ingest.send("memory.create", { principal: alice, memory: { slot: "a", content: "" } }),
    );
    expect(error.message).toContain("memory.content");
    await refusedWith(
      "validation_failed",
      ingest.send("memory.create", { principal: alice, memory: { ...memory("a", "b"), kind: "rumour" } }),
    );
    await refusedWith("validation_failed", ingest.send("memory.create", { memory: memory("a", "b") }));
    // Binary data is not text: a NUL character is refused by field, nothing is written.
    const nul = await refusedWith("validation_failed", create(ingest, alice, "nul", "before\u0000after"));
    expect(nul.message).toContain("memory.content");
    expect(nul.message).toContain("NUL");
  });

  test("content and field limits are refused as too large", async ({ ingest }) => {
    const content = await refusedWith("too_large", create(ingest, alice, "big", "x".repeat(32_001)));
    expect(content.details).toEqual({ field: "memory.content", maximum: 32_000, unit: "characters" });
    const tags = await refusedWith(
      "too_large",
      ingest.send("memory.create", {
        principal: alice,
        memory: memory("tags", "t", { tags: Array.from({ length: 33 }, (_, i) => `t${i}`) }),
      }),
    );
    expect(tags.details).toMatchObject({ field: "memory.tags", unit: "items" });
    await refusedWith("too_large", create(ingest, alice, "s".repeat(121), "c"));
  });

  test("a secret is refused before anything reaches the log, and the error never echoes it", async ({
    ingest,
  }) => {
    // An access key id built at run time (AWS's documented example key is allowed, as gitleaks does).
    const awsKey = `AKIA${Array.from({ length: 16 }, (_, i) => "QWERTYUPLKJHGFDS234567"[(i * 7) % 22]).join("")}`;
    const secrets = [
      awsKey,
      `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`,
      "postgres://app:s3cr3t-Pa55@db.internal:5432/app",
      "-----BEGIN OPENSSH PRIVATE KEY-----",
    ];
    for (const secret of secrets) {
      const error = await refusedWith(
        "secret_detected",
        create(ingest, alice, "creds", `Use this: ${secret} for prod.`),
      );
      expect(JSON.stringify(error.toBody())).not.toContain(secret);
      expect(error.details).toMatchObject({ field: "memory.content", start: 10 });
    }
    const inTags = await refusal(create(ingest, alice, "t", "fine", { tags: ["xoxb-1234567890-abcdef"] }));
    expect(inTags.details).toMatchObject({ field: "memory.tags[0]", kind: "slack_token" });
    const m = await create(ingest, alice, "ok", "fine");
    await refusedWith(
      "secret_detected",
      change(ingest, "memory.update", alice, m.id, 1, {
        changes: { content: "token sk_live_abcdefghijklmnopqrstuvwx" },
      }),
    );
    expect((await ingest.store.readAll({ after: 0, limit: 100 })).map((e) => e.streamId)).toEqual([
      streamIdFor("memory", m.id),
    ]);
  });

  test("slot names are Unicode-normalised; an active slot taken answers the holder's id", async ({
    ingest,
  }) => {
    const holder = await create(ingest, alice, "Release_Process", "Tag, then push.");
    for (const variant of ["release process", "ＲＥＬＥＡＳＥ－ＰＲＯＣＥＳＳ", " Release--Process "]) {
      const error = await refusedWith("slot_taken", create(ingest, bob, variant, `other ${variant}`));
      expect(error.details).toEqual({ slot: "release-process", holderId: holder.id });
      expect(error.hint).toContain("memory.supersede");
    }
    // Another project, another scope or another tier is another slot.
    await create(ingest, bob, "release process", "x1", { project: "web" });
    await create(ingest, bob, "release process", "x2", { scope: "agent" });
    await ingest.send("handoff.open", { principal: bob, handoff: memory("release process", "x3") });
    // Archiving frees the slot.
    await change(ingest, "memory.archive", alice, holder.id, 1);
    await create(ingest, bob, "release-process", "Now bob's.");
    // Restoring the archived one then finds the slot taken.
    await refusedWith("slot_taken", change(ingest, "memory.restore", alice, holder.id, 2));
    await refusedWith("validation_failed", create(ingest, bob, "!!!", "x"));
  });

  test("identical active content in the same scope is not stored twice", async ({ ingest }) => {
    const first = await create(ingest, alice, "a", "Always run the tests.");
    const dup = await refusedWith(
      "duplicate_content",
      create(ingest, bob, "b", "  always RUN the   tests. "),
    );
    expect(dup.details).toEqual({ holderId: first.id });
    // In a private scope it is another memory.
    await create(ingest, bob, "b", "Always run the tests.", { scope: "agent" });
  });

  test("visibility: others' private memories are not found; other tenants see nothing; global needs an admin", async ({
    ingest,
  }) => {
    const secret = await create(ingest, alice, "mine", "Private thought.", { scope: "agent" });
    await refusedWith(
      "not_found",
      change(ingest, "memory.update", bob, secret.id, 1, { changes: { title: "x" } }),
    );
    const primary = await change(ingest, "memory.verify", admin, secret.id, 1);
    expect(primary.version).toBe(2);
    const team = await create(ingest, alice, "team", "Shared.");
    await refusedWith("not_found", change(ingest, "memory.archive", outsider, team.id, 1));
    await refusedWith("forbidden", create(ingest, alice, "g", "For everyone.", { scope: "global" }));
    const g = await create(ingest, admin, "g", "For everyone.", { scope: "global" });
    // Another tenant sees a global memory (feedback) but cannot change it.
    await ingest.send("feedback.give", { principal: outsider, memoryId: g.id, useful: true });
    await refusedWith("forbidden", change(ingest, "memory.archive", outsider, g.id, 1));
  });

  test("a command retried with the same idempotency key writes nothing new", async ({ ingest }) => {
    const payload = { principal: alice, idempotencyKey: "req-1", memory: memory("idem", "Once only.") };
    const first = await ingest.send<WriteResult>("memory.create", payload);
    const again = await ingest.send<WriteResult>("memory.create", payload);
    const concurrent = await Promise.all([
      ingest.send("memory.create", payload),
      ingest.send("memory.create", payload),
    ]);
    const replay = { ...first, replayed: true };
    expect(again).toEqual(replay);
    expect(concurrent).toEqual([replay, replay]);
    expect(await ingest.store.readAll({ after: 0, limit: 10 })).toHaveLength(1);
    // Another tenant's identical key is another command.
    await ingest.send("memory.create", { ...payload, principal: outsider });
    expect(await ingest.store.readAll({ after: 0, limit: 10 })).toHaveLength(2);
  });
});
