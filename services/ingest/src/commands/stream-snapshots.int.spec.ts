// A memory revised many times is loaded from its stream's snapshot and the events after it,
// and answers exactly as the whole log says; a snapshot the log no longer backs is passed over.
import { type MemoryDocument, streamIdFor, type WriteResult } from "@cairn/contracts";
import { createMemorySealStore } from "@cairn/event-store";
import { describe, expect } from "vitest";
import { memorySnapshotModel } from "../domain/memory-stream.ts";
import {
  admin,
  alice,
  bob,
  documentOf,
  type IngestUnderTest,
  ingestTest,
} from "../testing/ingest-under-test.ts";
import { CommandContext } from "./command-context.ts";

const test = ingestTest;

/** A memory revised `times` times (its title once, half way), and its last answer. */
async function revised(
  ingest: IngestUnderTest,
  slot: string,
  times: number,
  scope: "team" | "agent" = "team",
): Promise<WriteResult> {
  let last = await ingest.send("memory.create", {
    principal: alice,
    memory: {
      slot,
      scope,
      content: "Draft 1 of the release checklist, kept by Greta Lindqvist.",
      tags: ["release"],
    },
  });
  for (let i = 2; i <= times + 1; i += 1) {
    last = await ingest.send("memory.update", {
      principal: alice,
      id: last.id,
      expectedVersion: last.version,
      changes: {
        content: `Draft ${i} of the release checklist, kept by Greta Lindqvist.`,
        ...(i === Math.floor(times / 2) ? { title: "Release checklist", tags: ["release", "ops"] } : {}),
      },
    });
  }
  return last;
}

/** The document ingest loads for a command, from the snapshot when there is one. */
async function loaded(ingest: IngestUnderTest, id: string): Promise<MemoryDocument> {
  const deps = {
    store: ingest.store,
    tokenSecret: new Uint8Array(32),
    seals: createMemorySealStore(ingest.pool),
  };
  const state = await new CommandContext(deps, "memory.update", { principal: alice }).loadMemoryState(id);
  if (!state.exists) throw new Error(`no memory ${id}`);
  return state.doc;
}

async function snapshotRow(ingest: IngestUnderTest, id: string) {
  const { rows } = await ingest.pool.query<{
    version: number;
    position: string;
    model: string;
    state: string;
  }>("select version, position, model, state::text from cairn_stream_snapshots where stream_id = $1", [
    streamIdFor("memory", id),
  ]);
  return rows[0];
}

describe("ingest: snapshots of long memory streams", () => {
  test("a memory revised 70 times loads from its snapshot, as the whole log says, its text sealed there", async ({
    ingest,
  }) => {
    const last = await revised(ingest, "release-checklist", 70);
    expect(last.version).toBe(71);

    const row = await snapshotRow(ingest, last.id);
    expect(row?.model).toBe(memorySnapshotModel);
    expect(row?.version).toBeGreaterThanOrEqual(33);
    // Sealed in the snapshot as in the log: no plain text of the memory.
    expect(row?.state).not.toContain("Greta");
    expect(row?.state).toContain("cairn-sealed:v1:");

    // The load reads the events after the snapshot only, and folds to what the whole log says.
    const { snapshot, events } = await ingest.store.readStreamFromSnapshot(
      streamIdFor("memory", last.id),
      memorySnapshotModel,
    );
    expect(snapshot?.version).toBe(row?.version);
    expect(events.length).toBe(71 - (row?.version ?? 0));
    const full = await documentOf(ingest, last.id);
    expect(await loaded(ingest, last.id)).toEqual(full);
    expect(full).toMatchObject({
      version: 71,
      content: "Draft 71 of the release checklist, kept by Greta Lindqvist.",
      title: "Release checklist",
      tags: ["release", "ops"],
    });

    // A stale version token is still refused, a current one still takes.
    const stale = ingest.send("memory.update", {
      principal: alice,
      id: last.id,
      expectedVersion: 70,
      changes: { content: "Too late." },
    });
    await expect(stale).rejects.toMatchObject({ code: "version_conflict" });
    const next = await ingest.send("memory.update", {
      principal: alice,
      id: last.id,
      expectedVersion: 71,
      changes: { content: "Draft 72." },
    });
    expect(next.version).toBe(72);
  });

  test("a snapshot the log does not back, of another model, or unreadable is passed over and made again", async ({
    ingest,
  }) => {
    const last = await revised(ingest, "deploy-steps", 40);
    const streamId = streamIdFor("memory", last.id);
    const full = await documentOf(ingest, last.id);
    expect(await snapshotRow(ingest, last.id)).toBeDefined();
    const lastEvent = (await ingest.store.readStream(streamId)).at(-1);

    const spoil = async (set: string) => {
      await ingest.pool.query(`update cairn_stream_snapshots set ${set} where stream_id = $1`, [streamId]);
    };
    for (const set of [
      // Another log's event at that version (a restore into this database).
      "position = position + 1000000",
      "model = 'memory-document-v0'",
      `state = '{"unreadable": true}'::jsonb`,
      // Another memory's document, or this one's at another version than the snapshot names.
      `state = jsonb_set(state, '{id}', '"00000000-0000-4000-8000-0000000000aa"')`,
      "state = jsonb_set(state, '{version}', '7')",
      // A version the stream does not have.
      "version = 999",
    ]) {
      await spoil(set);
      expect(await loaded(ingest, last.id), set).toEqual(full);
      // The load kept a sound one again.
      const again = await snapshotRow(ingest, last.id);
      expect(again, set).toMatchObject({
        model: memorySnapshotModel,
        version: 41,
        position: String(lastEvent?.position),
      });
    }
  });

  test("a memory purged after its snapshot loads without text, and the snapshot opens to nothing", async ({
    ingest,
  }) => {
    const last = await revised(ingest, "personal-notes", 40);
    expect(await snapshotRow(ingest, last.id)).toBeDefined();
    const deleted = await ingest.twoStep("memory.delete", {
      principal: alice,
      id: last.id,
      expectedVersion: last.version,
    });
    await ingest.twoStep("memory.purge", {
      principal: admin,
      items: [{ id: last.id, expectedVersion: deleted.version }],
      reason: "retention",
    });
    const doc = await loaded(ingest, last.id);
    expect(doc).toMatchObject({ status: "deleted", content: "", title: "", entities: [] });
    expect(doc.purgedAt).toEqual(expect.any(String));
    expect(doc).toEqual(await documentOf(ingest, last.id));
  });

  test("a recall record reads its memories from their snapshots, and who may see them is as the log says", async ({
    ingest,
  }) => {
    const shared = await revised(ingest, "shared-runbook", 70);
    const own = await revised(ingest, "own-notes", 40, "agent");
    const short = await ingest.send("memory.create", {
      principal: alice,
      memory: { slot: "short-note", content: "Lunch is at noon on Fridays." },
    });
    // Without snapshots, the recall record folds the whole streams and keeps snapshots at
    // their last versions: it reads memories the way every other load does.
    await ingest.pool.query("delete from cairn_stream_snapshots");
    const recall = await ingest.send("recalls.record", {
      principal: alice,
      memoryIds: [shared.id, own.id, short.id],
      query: "release checklist",
    });
    expect(recall.version).toBe(1);
    expect(await snapshotRow(ingest, shared.id)).toMatchObject({ version: 71 });
    expect(await snapshotRow(ingest, own.id)).toMatchObject({ version: 41 });
    // A short stream keeps none: loading it whole is as cheap as a snapshot.
    expect(await snapshotRow(ingest, short.id)).toBeUndefined();

    // From the snapshots now: bob sees the team's memories, not alice's own.
    const refused = ingest.send("recalls.record", {
      principal: bob,
      memoryIds: [shared.id, own.id, short.id],
    });
    await expect(refused).rejects.toMatchObject({ code: "not_found", details: { ids: [own.id] } });
    const seen = await ingest.send("recalls.record", { principal: bob, memoryIds: [shared.id, short.id] });
    expect(seen.version).toBe(1);
  });
});
