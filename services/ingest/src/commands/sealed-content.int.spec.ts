// Memory text reaches the log sealed with the memory's seal (crypto-shredding): the
// log and what the relay publishes hold no plain text, ingest itself still reads it.
import { type MemoryDocument, openSealedEvents, streamIdFor } from "@cairn/contracts";
import { createMemorySealStore } from "@cairn/event-store";
import { describe, expect } from "vitest";
import { alice, ingestTest } from "../testing/ingest-under-test.ts";
import { foldStream } from "./command-context.ts";

const test = ingestTest;

describe("ingest: sealed memory text", () => {
  test("content, title and entities are sealed in the log and open with the memory's key", async ({
    ingest,
  }) => {
    const content = "Greta Lindqvist from Oslo owns the billing export; ask her before changing it.";
    const created = await ingest.send("memory.create", {
      principal: alice,
      memory: { slot: "billing-export-owner", content, title: "Billing export owner", tags: ["billing"] },
    });
    const updated = await ingest.send("memory.update", {
      principal: alice,
      id: created.id,
      expectedVersion: 1,
      changes: { content: `${content} She is away in August.` },
    });
    expect(updated.version).toBe(2);

    const events = await ingest.store.readStream(streamIdFor("memory", created.id));
    const raw = JSON.stringify(events);
    expect(raw).not.toContain("Greta");
    expect(raw).not.toContain("Billing export owner");
    expect(raw).toContain("cairn-sealed:v1:");
    // Labels stay readable: the slot is reserved, tags filter.
    expect(events[0]?.data).toMatchObject({ slot: "billing-export-owner", tags: ["billing"] });
    const { rows } = await ingest.pool.query("select data::text from cairn_events");
    expect(rows.some((r: { data: string }) => r.data.includes("Greta"))).toBe(false);

    const keys = createMemorySealStore(ingest.pool);
    const state = foldStream(await openSealedEvents(events, keys));
    expect(state.exists).toBe(true);
    const doc = (state as { doc: MemoryDocument }).doc;
    expect(doc.content).toBe(`${content} She is away in August.`);
    expect(doc.title).toBe("Billing export owner");
    expect(doc.entities.map((e) => e.text)).toContain("Greta Lindqvist");
  });
});
